/* device.c: platforms and devices, the choice of device (CYOCL_DEVICE,
 * CYOCL_DEVICE_TYPE), one context and in-order queue per device, program
 * builds and kernels, and the OpenCL buffers as the registry's memory
 * backend. */
#include "internal.h"
#include "../cache/cache.h"

#include <ctype.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <signal.h>
#include <time.h>
#include <sys/mman.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* ---- enumeration -------------------------------------------------------------- */

static void trim_copy(char *dst, size_t n, const char *src) {
    while (*src == ' ' || *src == '\t')
        src++;
    snprintf(dst, n, "%s", src);
    size_t len = strlen(dst);
    while (len > 0 && (dst[len - 1] == ' ' || dst[len - 1] == '\t' || dst[len - 1] == '\n'))
        dst[--len] = '\0';
}

/* A string property, malloc'ed (NULL on failure). */
static char *dev_str(const cyrt_cl *cl, cl_device_id d, cl_device_info what) {
    size_t size = 0;
    if (cl->clGetDeviceInfo(d, what, 0, NULL, &size) != CL_SUCCESS)
        return NULL;
    char *s = malloc(size + 1);
    if (!s)
        return NULL;
    if (cl->clGetDeviceInfo(d, what, size, s, NULL) != CL_SUCCESS) {
        free(s);
        return NULL;
    }
    s[size] = '\0';
    return s;
}

static void dev_str_into(const cyrt_cl *cl, cl_device_id d, cl_device_info what, char *dst,
                         size_t n) {
    char *s = dev_str(cl, d, what);
    trim_copy(dst, n, s ? s : "?");
    free(s);
}

static void platform_name(const cyrt_cl *cl, cl_platform_id p, char *dst, size_t n) {
    size_t size = 0;
    char *s = NULL;
    if (cl->clGetPlatformInfo(p, CL_PLATFORM_NAME, 0, NULL, &size) == CL_SUCCESS &&
        (s = malloc(size + 1)) != NULL &&
        cl->clGetPlatformInfo(p, CL_PLATFORM_NAME, size, s, NULL) == CL_SUCCESS)
        s[size] = '\0';
    else if (s)
        s[0] = '\0';
    trim_copy(dst, n, s && *s ? s : "?");
    free(s);
}

static void fill_info(const cyrt_cl *cl, cyrt_device *d) {
    cyrt_devinfo *in = &d->info;
    dev_str_into(cl, d->id, CL_DEVICE_NAME, in->name, sizeof in->name);
    dev_str_into(cl, d->id, CL_DEVICE_VENDOR, in->vendor, sizeof in->vendor);
    dev_str_into(cl, d->id, CL_DEVICE_VERSION, in->version, sizeof in->version);
    dev_str_into(cl, d->id, CL_DRIVER_VERSION, in->driver, sizeof in->driver);
    dev_str_into(cl, d->id, CL_DEVICE_OPENCL_C_VERSION, in->clc_version, sizeof in->clc_version);

    cl_device_type t = 0;
    cl->clGetDeviceInfo(d->id, CL_DEVICE_TYPE, sizeof t, &t, NULL);
    in->type = (t & CL_DEVICE_TYPE_GPU)           ? CYRT_DEV_GPU
               : (t & CL_DEVICE_TYPE_CPU)         ? CYRT_DEV_CPU
               : (t & CL_DEVICE_TYPE_ACCELERATOR) ? CYRT_DEV_ACCEL
                                                  : CYRT_DEV_OTHER;

    /* fp64: the 1.2 way is a non-zero CL_DEVICE_DOUBLE_FP_CONFIG; older
     * drivers only name the extension */
    cl_device_fp_config fp = 0;
    if (cl->clGetDeviceInfo(d->id, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp, &fp, NULL) == CL_SUCCESS &&
        fp != 0) {
        in->fp64 = 1;
    } else {
        char *ext = dev_str(cl, d->id, CL_DEVICE_EXTENSIONS);
        in->fp64 = ext && strstr(ext, "cl_khr_fp64") != NULL;
        free(ext);
    }

    cl_device_fp_config sp = 0;
    in->fp32_exact_div = cl->clGetDeviceInfo(d->id, CL_DEVICE_SINGLE_FP_CONFIG, sizeof sp, &sp, NULL) == CL_SUCCESS &&
                         (sp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;

    cl_ulong mem = 0, maxalloc = 0;
    cl_uint cu = 0;
    size_t wg = 0;
    cl->clGetDeviceInfo(d->id, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof mem, &mem, NULL);
    cl->clGetDeviceInfo(d->id, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof maxalloc, &maxalloc, NULL);
    cl->clGetDeviceInfo(d->id, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
    cl->clGetDeviceInfo(d->id, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
    in->global_mem = mem;
    in->max_alloc = maxalloc;
    in->compute_units = cu;
    in->max_work_group = wg;
}

static cyrt_status load_fail(cyrt_rt *rt, cyrt_status st, cyrt_err *err) {
    rt->loaded = -1;
    rt->load_status = st;
    if (err)
        *err = rt->load_err;
    free(rt->devs);
    rt->devs = NULL;
    rt->ndevs = 0;
    cyrt_icd_close(&rt->cl);
    return st;
}

cyrt_status cyrt_devices_locked(cyrt_rt *rt, cyrt_err *err) {
    /* the dispatcher's opener is loading OpenCL (dispatch.c): one driver
     * start-up at a time, and its result is this one */
    while (rt->opening && rt->loaded == 0 && !rt->forked)
        pthread_cond_wait(&rt->unpinned, &rt->lock);
    if (rt->loaded == 1)
        return CYRT_OK;
    if (rt->loaded == -1) {
        if (err)
            *err = rt->load_err;
        return rt->load_status;
    }
    memset(&rt->load_err, 0, sizeof rt->load_err);
    /* the process's runtime takes its loader from the environment: a test
     * hook (tests/fault's failing shim) and for unusual installs */
    const char *loader = rt->loader, *env = getenv("CYOCL_OPENCL_LIBRARY");
    if (!loader && rt->is_global && env && *env)
        loader = env;
    cyrt_status st = cyrt_icd_open(&rt->cl, loader, &rt->load_err);
    if (st != CYRT_OK)
        return load_fail(rt, st, err);
    const cyrt_cl *cl = &rt->cl;

    cl_uint np = 0;
    cl_int rc = cl->clGetPlatformIDs(0, NULL, &np);
    if (rc == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || (rc == CL_SUCCESS && np == 0)) {
        cyrt_seterr(&rt->load_err, rc,
                    "the OpenCL loader found no platform (no driver registered in "
                    "/etc/OpenCL/vendors or $OCL_ICD_VENDORS; install one, e.g. pocl-opencl-icd)");
        return load_fail(rt, CYRT_ENOPLATFORM, err);
    }
    if (rc != CL_SUCCESS) {
        cyrt_seterr(&rt->load_err, rc, "clGetPlatformIDs failed: %s (%d)", cyrt_cl_error_name(rc),
                    rc);
        return load_fail(rt, CYRT_ENOPLATFORM, err);
    }
    cl_platform_id *plats = calloc(np, sizeof *plats);
    if (!plats) {
        cyrt_seterr(&rt->load_err, 0, "out of memory listing OpenCL platforms");
        return load_fail(rt, CYRT_ENOMEM, err);
    }
    if ((rc = cl->clGetPlatformIDs(np, plats, NULL)) != CL_SUCCESS) {
        free(plats);
        cyrt_seterr(&rt->load_err, rc, "clGetPlatformIDs failed: %s (%d)", cyrt_cl_error_name(rc),
                    rc);
        return load_fail(rt, CYRT_ENOPLATFORM, err);
    }
    for (cl_uint p = 0; p < np; p++) {
        cl_uint nd = 0;
        /* a platform without devices answers CL_DEVICE_NOT_FOUND: skip it */
        if (cl->clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd) != CL_SUCCESS || nd == 0)
            continue;
        cl_device_id *ids = calloc(nd, sizeof *ids);
        cyrt_device *grown = realloc(rt->devs, (size_t)(rt->ndevs + (int)nd) * sizeof *grown);
        if (!ids || !grown) {
            free(ids);
            if (grown)
                rt->devs = grown;
            free(plats);
            cyrt_seterr(&rt->load_err, 0, "out of memory listing OpenCL devices");
            return load_fail(rt, CYRT_ENOMEM, err);
        }
        rt->devs = grown;
        if (cl->clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, nd, ids, NULL) == CL_SUCCESS) {
            char pname[128];
            platform_name(cl, plats[p], pname, sizeof pname);
            for (cl_uint i = 0; i < nd; i++) {
                cyrt_device *d = &rt->devs[rt->ndevs];
                memset(d, 0, sizeof *d);
                d->platform = plats[p];
                d->id = ids[i];
                d->rt = rt;
                d->info.index = rt->ndevs;
                snprintf(d->info.platform, sizeof d->info.platform, "%s", pname);
                fill_info(cl, d);
                rt->ndevs++;
            }
        }
        free(ids);
    }
    free(plats);
    if (rt->ndevs == 0) {
        cyrt_seterr(&rt->load_err, 0,
                    "the OpenCL loader found %u platform(s) but no device on any of them", np);
        return load_fail(rt, CYRT_ENOPLATFORM, err);
    }
    /* the device structs are final now: the backends point into them */
    rt->infos = calloc((size_t)rt->ndevs, sizeof *rt->infos);
    if (!rt->infos) {
        cyrt_seterr(&rt->load_err, 0, "out of memory listing OpenCL devices");
        return load_fail(rt, CYRT_ENOMEM, err);
    }
    for (int i = 0; i < rt->ndevs; i++)
        rt->infos[i] = rt->devs[i].info;
    rt->loaded = 1;
    return CYRT_OK;
}

static void stage_free(cyrt_device *d);
static void stage_forget(struct cyrt_stage *st);
static void pool_teardown(cyrt_device *d);

void cyrt_devices_free(cyrt_rt *rt) {
    for (int i = 0; i < rt->ndevs; i++) {
        cyrt_device *d = &rt->devs[i];
        pool_teardown(d); /* the registry's buffers came back to it before */
        if (d->queue)
            stage_free(d);
        if (d->queue)
            rt->cl.clReleaseCommandQueue(d->queue);
        if (d->ctx)
            rt->cl.clReleaseContext(d->ctx);
    }
    free(rt->devs);
    free(rt->infos);
    rt->devs = NULL;
    rt->infos = NULL;
    rt->ndevs = 0;
    rt->loaded = 0;
    cyrt_icd_close(&rt->cl);
}

void cyrt_devices_fork_child(cyrt_rt *rt) {
    if (rt->loaded != 1)
        return; /* OpenCL never started here: the child may start it itself */
    /* the contexts, queues and the loader stay as the parent left them:
     * leaked, since releasing them would call into the driver */
    for (int i = 0; i < rt->ndevs; i++) {
        stage_forget(rt->devs[i].stage); /* its buffers are the parent's too */
        cyrt_pool_free(&rt->devs[i].pool); /* and the pool's (its lock may be held: left as is) */
    }
    free(rt->devs);
    free(rt->infos);
    rt->devs = NULL;
    rt->infos = NULL;
    rt->ndevs = 0;
    memset(&rt->cl, 0, sizeof rt->cl);
    rt->loaded = -1;
    rt->load_status = CYRT_EFORKED;
    rt->forked = 1;
    cyrt_seterr(&rt->load_err, 0,
                "OpenCL cannot be used in this process: it was forked from one that had already "
                "started OpenCL, and OpenCL drivers do not survive fork() (to use OpenCL in "
                "worker processes, start them with multiprocessing's 'spawn' or 'forkserver')");
}

cyrt_status cyrt_devices(cyrt_rt *rt, const cyrt_devinfo **list, int *n, cyrt_err *err) {
    pthread_mutex_lock(&rt->lock);
    cyrt_status st = cyrt_devices_locked(rt, err);
    pthread_mutex_unlock(&rt->lock);
    *list = st == CYRT_OK ? rt->infos : NULL;
    *n = st == CYRT_OK ? rt->ndevs : 0;
    return st;
}

const char *cyrt_device_type_name(unsigned type) {
    switch (type) {
    case CYRT_DEV_CPU: return "cpu";
    case CYRT_DEV_GPU: return "gpu";
    case CYRT_DEV_ACCEL: return "accelerator";
    default: return "other";
    }
}

/* ---- choosing a device ------------------------------------------------------------ */

static unsigned env_types(cyrt_rt *rt) {
    const char *v = getenv("CYOCL_DEVICE_TYPE");
    if (!v || !*v || strcasecmp(v, "all") == 0)
        return CYRT_DEV_ALL;
    if (strcasecmp(v, "cpu") == 0)
        return CYRT_DEV_CPU;
    if (strcasecmp(v, "gpu") == 0)
        return CYRT_DEV_GPU;
    cyrt_warn(rt, "CYOCL_DEVICE_TYPE='%s' is not one of cpu, gpu, all: using all device types", v);
    return CYRT_DEV_ALL;
}

unsigned cyrt_allowed_types(cyrt_rt *rt, unsigned allowed) {
    pthread_mutex_lock(&rt->lock);
    unsigned t = env_types(rt) & allowed;
    pthread_mutex_unlock(&rt->lock);
    return t;
}

static int all_digits(const char *s) {
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return 0;
    return 1;
}

static const char *types_text(unsigned mask) {
    switch (mask) {
    case CYRT_DEV_CPU: return "cpu";
    case CYRT_DEV_GPU: return "gpu";
    case CYRT_DEV_ALL: return "any";
    default: return "the allowed";
    }
}

cyrt_status cyrt_select_locked(cyrt_rt *rt, unsigned allowed, int *index, cyrt_err *err) {
    *index = -1;
    cyrt_status st = cyrt_devices_locked(rt, err);
    if (st != CYRT_OK)
        return st;
    unsigned mask = env_types(rt) & allowed;
    int navail = 0;
    for (int i = 0; i < rt->ndevs; i++)
        navail += (rt->devs[i].info.type & mask) != 0;
    if (navail == 0) {
        /* what there is, so that the user sees what to ask for instead */
        int count[4] = {0, 0, 0, 0};
        for (int i = 0; i < rt->ndevs; i++)
            count[rt->devs[i].info.type == CYRT_DEV_CPU   ? 0
                  : rt->devs[i].info.type == CYRT_DEV_GPU ? 1
                  : rt->devs[i].info.type == CYRT_DEV_ACCEL ? 2
                                                            : 3]++;
        static const char *const kinds[4] = {"cpu", "gpu", "accelerator", "other"};
        char found[128] = "";
        size_t k = 0;
        for (int i = 0; i < 4 && k < sizeof found; i++)
            if (count[i])
                k += (size_t)snprintf(found + k, sizeof found - k, "%s%d %s", k ? ", " : "",
                                      count[i], kinds[i]);
        const char *tv = getenv("CYOCL_DEVICE_TYPE");
        if (!mask)
            cyrt_seterr(err, 0, "no OpenCL device may be used (CYOCL_DEVICE_TYPE=%s, and the "
                                "module was built with --no-opencl-gpu; found: %s)", tv ? tv : "", found);
        else if (allowed & CYRT_DEV_GPU)
            cyrt_seterr(err, 0, "no OpenCL device of type %s is available (CYOCL_DEVICE_TYPE=%s; found: %s)",
                        types_text(mask), tv ? tv : "", found);
        else
            cyrt_seterr(err, 0, "no OpenCL device of type cpu is available (the module was built "
                                "with --no-opencl-gpu; found: %s)", found);
        return CYRT_ENODEVICE;
    }
    const char *want = getenv("CYOCL_DEVICE");
    if (want && *want) {
        if (all_digits(want)) {
            long k = strtol(want, NULL, 10);
            if (k >= rt->ndevs)
                cyrt_warn(rt, "CYOCL_DEVICE=%s: there is no device %ld (see 'cyocl devices'): "
                              "using the default device", want, k);
            else if (!(rt->devs[k].info.type & mask))
                cyrt_warn(rt, "CYOCL_DEVICE=%s: device %ld (%s) is a %s device, which is "
                              "excluded here: using the default device",
                          want, k, rt->devs[k].info.name,
                          cyrt_device_type_name(rt->devs[k].info.type));
            else
                return *index = (int)k, CYRT_OK;
        } else {
            for (int i = 0; i < rt->ndevs; i++) {
                const cyrt_devinfo *in = &rt->devs[i].info;
                if ((in->type & mask) &&
                    (strcasestr(in->name, want) || strcasestr(in->platform, want)))
                    return *index = i, CYRT_OK;
            }
            cyrt_warn(rt, "CYOCL_DEVICE='%s' names no usable device (see 'cyocl devices'): "
                          "using the default device", want);
        }
    }
    static const unsigned pref[] = {CYRT_DEV_GPU, CYRT_DEV_ACCEL, CYRT_DEV_CPU, CYRT_DEV_OTHER};
    for (size_t p = 0; p < sizeof pref / sizeof pref[0]; p++)
        for (int i = 0; i < rt->ndevs; i++)
            if (rt->devs[i].info.type == pref[p] && (pref[p] & mask))
                return *index = i, CYRT_OK;
    return CYRT_ENODEVICE; /* not reached: navail > 0 */
}

cyrt_status cyrt_select_device(cyrt_rt *rt, unsigned allowed, int *index, cyrt_err *err) {
    pthread_mutex_lock(&rt->lock);
    cyrt_status st = cyrt_select_locked(rt, allowed, index, err);
    pthread_mutex_unlock(&rt->lock);
    return st;
}

/* ---- contexts, queues, programs, kernels -------------------------------------------- */

cyrt_status cyrt_open_locked(cyrt_rt *rt, int index, cyrt_err *err) {
    cyrt_status st = cyrt_devices_locked(rt, err);
    if (st != CYRT_OK)
        return st;
    if (index < 0 || index >= rt->ndevs) {
        cyrt_seterr(err, 0, "there is no OpenCL device %d", index);
        return CYRT_EINVAL;
    }
    cyrt_device *d = &rt->devs[index];
    if (d->queue)
        return CYRT_OK;
    const cyrt_cl *cl = &rt->cl;
    cl_int rc = CL_SUCCESS;
    if (!d->ctx) {
        cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)d->platform, 0};
        d->ctx = cl->clCreateContext(props, 1, &d->id, NULL, NULL, &rc);
        if (!d->ctx) {
            cyrt_seterr(err, rc, "cannot create an OpenCL context on %s: %s (%d)", d->info.name,
                        cyrt_cl_error_name(rc), rc);
            return CYRT_ECL;
        }
    }
    /* in order: a blocking read after a kernel sees its writes; no
     * profiling (the dispatcher times calls on the host; launches that
     * want a kernel's own time use a profiling queue of their program's) */
    d->queue = cl->clCreateCommandQueue(d->ctx, d->id, 0, &rc);
    if (!d->queue) {
        cyrt_seterr(err, rc, "cannot create an OpenCL command queue on %s: %s (%d)", d->info.name,
                    cyrt_cl_error_name(rc), rc);
        return CYRT_ECL;
    }
    return CYRT_OK;
}

cyrt_status cyrt_device_open(cyrt_rt *rt, int index, struct _cl_context **ctx,
                             struct _cl_command_queue **queue, cyrt_err *err) {
    pthread_mutex_lock(&rt->lock);
    cyrt_status st = cyrt_open_locked(rt, index, err);
    if (ctx)
        *ctx = st == CYRT_OK ? rt->devs[index].ctx : NULL;
    if (queue)
        *queue = st == CYRT_OK ? rt->devs[index].queue : NULL;
    pthread_mutex_unlock(&rt->lock);
    return st;
}

/* OpenCL's float division and sqrt may be off by ulps (2.5 and 3 for
 * OpenCL C 1.2); the native code's are correctly rounded.  Where the device
 * can, programs are built to round them correctly, so that a float kernel
 * gives the native results (docs/language.md, "Floating point"). */
#define EXACT_DIV "-cl-fp32-correctly-rounded-divide-sqrt"

/* [EXACT_DIV " "] options " " $CYOCL_BUILD_OPTIONS, malloc'ed (NULL: out
 * of memory). */
static char *full_options(const char *options, const cyrt_devinfo *info) {
    const char *extra = getenv("CYOCL_BUILD_OPTIONS");
    const char *pre = info && info->fp32_exact_div ? EXACT_DIV : "";
    size_t n0 = strlen(pre), n1 = options ? strlen(options) : 0, n2 = extra ? strlen(extra) : 0;
    size_t size = n0 + n1 + n2 + 3;
    char *opts = malloc(size);
    if (opts)
        snprintf(opts, size, "%s%s%s%s%s", pre, n0 && n1 ? " " : "", options ? options : "",
                 (n0 || n1) && n2 ? " " : "", extra ? extra : "");
    return opts;
}

/* Builds src for dev (unlocked: a build can take seconds, OpenCL calls are
 * thread-safe, and the function table and context live until cyrt_rt_free). */
static cyrt_status build_source(cyrt_rt *rt, cl_context ctx, cl_device_id dev, const char *src,
                                const char *opts, cl_program *prog, char **log, cyrt_err *err) {
    const cyrt_cl *cl = &rt->cl;
    cl_int rc;
    cl_program p = cl->clCreateProgramWithSource(ctx, 1, &src, NULL, &rc);
    if (!p) {
        cyrt_seterr(err, rc, "clCreateProgramWithSource failed: %s (%d)", cyrt_cl_error_name(rc),
                    rc);
        return CYRT_ECL;
    }
    rc = cl->clBuildProgram(p, 1, &dev, opts, NULL, NULL);
    if (rc == CL_SUCCESS) {
        *prog = p;
        return CYRT_OK;
    }
    char *text = NULL;
    size_t size = 0;
    if (cl->clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) == CL_SUCCESS &&
        (text = malloc(size + 1)) != NULL) {
        if (cl->clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, size, text, NULL) != CL_SUCCESS)
            size = 0;
        text[size] = '\0';
    }
    cl->clReleaseProgram(p);
    if (rc == CL_INVALID_BUILD_OPTIONS)
        cyrt_seterr(err, rc, "the OpenCL compiler rejected the build options '%s'", opts);
    else
        cyrt_seterr(err, rc, "the OpenCL program did not build: %s (%d)", cyrt_cl_error_name(rc),
                    rc);
    if (log)
        *log = text;
    else
        free(text);
    return rc == CL_BUILD_PROGRAM_FAILURE || rc == CL_INVALID_BUILD_OPTIONS ||
                   rc == CL_COMPILE_PROGRAM_FAILURE
               ? CYRT_EBUILD
               : CYRT_ECL;
}

cyrt_status cyrt_program_build(cyrt_rt *rt, int index, const char *src, const char *options,
                               struct _cl_program **prog, char **log, cyrt_err *err) {
    *prog = NULL;
    if (log)
        *log = NULL;
    pthread_mutex_lock(&rt->lock);
    cyrt_status st = cyrt_open_locked(rt, index, err);
    cl_context ctx = st == CYRT_OK ? rt->devs[index].ctx : NULL;
    cl_device_id dev = st == CYRT_OK ? rt->devs[index].id : NULL;
    cyrt_devinfo info = {0};
    if (st == CYRT_OK)
        info = rt->devs[index].info;
    pthread_mutex_unlock(&rt->lock);
    if (st != CYRT_OK)
        return st;
    char *opts = full_options(options, &info);
    if (!opts) {
        cyrt_seterr(err, 0, "out of memory");
        return CYRT_ENOMEM;
    }
    st = build_source(rt, ctx, dev, src, opts, prog, log, err);
    free(opts);
    return st;
}

void cyrt_program_release(cyrt_rt *rt, struct _cl_program *prog) {
    if (prog && rt->cl.clReleaseProgram)
        rt->cl.clReleaseProgram(prog);
}

/* ---- programs through the kernel cache (cache/, DESIGN §7) ---------------------- */

#ifndef CYOCL_VERSION
#define CYOCL_VERSION "0.0.0-dev"
#endif

struct cyrt_cache_state {
    cyrt_cache c;
    uint64_t hits, misses, stores, compile_ns, load_ns, saved_ns;
};

void cyrt_cache_state_free(struct cyrt_cache_state *cs) {
    if (!cs)
        return;
    cyrt_cache_close(&cs->c);
    free(cs);
}

static uint64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Each line of a cache module's warning, once (lock held); frees text. */
static void cache_warn(cyrt_rt *rt, char *text) {
    for (char *line = text; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        cyrt_warn(rt, "%s", line);
        line = nl ? nl + 1 : NULL;
    }
    free(text);
}

/* The cache as the environment says, resolved once per runtime (lock
 * held); NULL only when out of memory. */
static struct cyrt_cache_state *cache_locked(cyrt_rt *rt) {
    if (rt->cache)
        return rt->cache;
    struct cyrt_cache_state *cs = calloc(1, sizeof *cs);
    if (!cs)
        return NULL;
    char *warn = NULL;
    if (cyrt_cache_open(&cs->c, NULL, 1, &warn) != 0) {
        free(warn);
        free(cs);
        return NULL;
    }
    cache_warn(rt, warn);
    return rt->cache = cs;
}

void cyrt_cache_dir(cyrt_rt *rt, char *dir, size_t n, int *mode) {
    pthread_mutex_lock(&rt->lock);
    struct cyrt_cache_state *cs = cache_locked(rt);
    snprintf(dir, n, "%s", cs && cs->c.dir ? cs->c.dir : "");
    *mode = cs ? cs->c.mode : CYRT_CACHE_OFF;
    pthread_mutex_unlock(&rt->lock);
}

/* The binary clBuildProgram made for the program's one device, malloc'ed. */
static unsigned char *program_binary(const cyrt_cl *cl, cl_program p, size_t *len) {
    size_t size = 0;
    if (cl->clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) != CL_SUCCESS ||
        size == 0)
        return NULL;
    unsigned char *bin = malloc(size);
    if (bin && cl->clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) != CL_SUCCESS) {
        free(bin);
        return NULL;
    }
    *len = size;
    return bin;
}

cyrt_status cyrt_program_get(cyrt_rt *rt, int index, const char *src, const char *options,
                             struct _cl_program **prog, int *how, char **log, cyrt_err *err) {
    *prog = NULL;
    if (how)
        *how = CYRT_BUILD_NONE;
    if (log)
        *log = NULL;
    pthread_mutex_lock(&rt->lock);
    cyrt_status st = cyrt_open_locked(rt, index, err);
    struct cyrt_cache_state *cs = st == CYRT_OK ? cache_locked(rt) : NULL;
    cl_context ctx = NULL;
    cl_device_id dev = NULL;
    cyrt_devinfo info;
    cyrt_cache c = {0};
    if (st == CYRT_OK) {
        ctx = rt->devs[index].ctx;
        dev = rt->devs[index].id;
        info = rt->devs[index].info;
        if (cs)
            c = cs->c; /* its dir lives until cyrt_rt_free */
    }
    pthread_mutex_unlock(&rt->lock);
    if (st != CYRT_OK)
        return st;
    const cyrt_cl *cl = &rt->cl;
    char *opts = full_options(options, &info);
    if (!opts) {
        cyrt_seterr(err, 0, "out of memory");
        return CYRT_ENOMEM;
    }

    /* everything that changes the binary */
    cyrt_cache_part parts[] = {
        {"cyocl", CYOCL_VERSION, strlen(CYOCL_VERSION)},
        {"platform", info.platform, strlen(info.platform)},
        {"device", info.name, strlen(info.name)},
        {"device-version", info.version, strlen(info.version)},
        {"driver", info.driver, strlen(info.driver)},
        {"opencl-c", info.clc_version, strlen(info.clc_version)},
        {"options", opts, strlen(opts)},
        {"source", src, strlen(src)},
    };
    size_t nparts = sizeof parts / sizeof parts[0];
    int enabled = c.mode == CYRT_CACHE_RW || c.mode == CYRT_CACHE_RO;
    unsigned char *bin = NULL;
    size_t len = 0;
    uint64_t build_ns = 0;
    char *warn = NULL;
    cyrt_cache_result r = cyrt_cache_lookup(&c, parts, nparts, &bin, &len, &build_ns, &warn);
    if (r == CYRT_CACHE_HIT) {
        uint64_t t0 = mono_ns();
        const unsigned char *b = bin;
        cl_int rc, bs = CL_SUCCESS;
        cl_program p = cl->clCreateProgramWithBinary(ctx, 1, &dev, &len, &b, &bs, &rc);
        if (p && (rc != CL_SUCCESS || bs != CL_SUCCESS ||
                  cl->clBuildProgram(p, 1, &dev, opts, NULL, NULL) != CL_SUCCESS)) {
            cl->clReleaseProgram(p);
            p = NULL;
        }
        free(bin);
        if (p) {
            uint64_t dt = mono_ns() - t0;
            pthread_mutex_lock(&rt->lock);
            cs->hits++;
            cs->load_ns += dt;
            cs->saved_ns += build_ns > dt ? build_ns - dt : 0;
            pthread_mutex_unlock(&rt->lock);
            free(opts);
            *prog = p;
            if (how)
                *how = CYRT_BUILD_CACHE;
            return CYRT_OK;
        }
        r = CYRT_CACHE_BAD; /* the driver refused it (e.g. updated in place): rebuild, replace */
    }

    uint64_t t0 = mono_ns();
    st = build_source(rt, ctx, dev, src, opts, prog, log, err);
    uint64_t dt = mono_ns() - t0;
    int stored = 0;
    if (st == CYRT_OK && enabled && r != CYRT_CACHE_REFUSED && (bin = program_binary(cl, *prog, &len))) {
        stored = cyrt_cache_store(&c, parts, nparts, bin, len, dt, warn ? NULL : &warn) == 0;
        free(bin);
    }
    free(opts);
    pthread_mutex_lock(&rt->lock);
    if (cs) {
        cs->compile_ns += dt;
        cs->misses += enabled;
        cs->stores += stored;
    }
    cache_warn(rt, warn);
    pthread_mutex_unlock(&rt->lock);
    if (st == CYRT_OK && how)
        *how = CYRT_BUILD_COMPILED;
    return st;
}

void cyrt_cache_info_get(cyrt_rt *rt, cyrt_cache_info *out) {
    memset(out, 0, sizeof *out);
    out->state = "off";
    pthread_mutex_lock(&rt->lock);
    struct cyrt_cache_state *cs = cache_locked(rt);
    cyrt_cache c = {0};
    if (cs) {
        c = cs->c;
        snprintf(out->dir, sizeof out->dir, "%s", c.dir ? c.dir : "");
        out->hits = cs->hits;
        out->misses = cs->misses;
        out->stores = cs->stores;
        out->compile_ns = cs->compile_ns;
        out->load_ns = cs->load_ns;
        out->saved_ns = cs->saved_ns;
    }
    pthread_mutex_unlock(&rt->lock);
    out->max_bytes = c.max_bytes;
    switch (c.mode) {
    case CYRT_CACHE_RW: out->enabled = 1, out->state = "on"; break;
    case CYRT_CACHE_RO: out->enabled = 2, out->state = "read-only"; break;
    case CYRT_CACHE_UNSAFE: out->state = "unsafe"; break;
    default: break;
    }
    cyrt_cache_usage u;
    if (out->dir[0] && c.mode != CYRT_CACHE_OFF && cyrt_cache_usage_get(&c, &u) == 0) {
        out->entries = u.entries;
        out->bytes = u.bytes;
    }
}

cyrt_status cyrt_kernel_create(cyrt_rt *rt, struct _cl_program *prog, const char *name,
                               struct _cl_kernel **kernel, cyrt_err *err) {
    *kernel = NULL;
    if (!prog || !rt->cl.clCreateKernel) {
        cyrt_seterr(err, 0, "no program to take kernel '%s' from", name);
        return CYRT_EINVAL;
    }
    cl_int rc;
    *kernel = rt->cl.clCreateKernel(prog, name, &rc);
    if (!*kernel) {
        cyrt_seterr(err, rc, "cannot create kernel '%s': %s (%d)", name, cyrt_cl_error_name(rc), rc);
        return CYRT_ECL;
    }
    return CYRT_OK;
}

void cyrt_kernel_release(cyrt_rt *rt, struct _cl_kernel *kernel) {
    if (kernel && rt->cl.clReleaseKernel)
        rt->cl.clReleaseKernel(kernel);
}

cyrt_status cyrt_kernel_arg(cyrt_rt *rt, struct _cl_kernel *kernel, unsigned arg, size_t size,
                            const void *value, cyrt_err *err) {
    if (!kernel || !rt->cl.clSetKernelArg) {
        cyrt_seterr(err, 0, "no kernel");
        return CYRT_EINVAL;
    }
    cl_int rc = rt->cl.clSetKernelArg(kernel, arg, size, value);
    if (rc != CL_SUCCESS) {
        cyrt_seterr(err, rc, "cannot set kernel argument %u: %s (%d)", arg, cyrt_cl_error_name(rc),
                    rc);
        return CYRT_ECL;
    }
    return CYRT_OK;
}

cyrt_status cyrt_kernel_launch(cyrt_rt *rt, int index, struct _cl_kernel *kernel, unsigned dims,
                               const size_t *global, const size_t *local, uint64_t *ns,
                               cyrt_err *err) {
    if (ns)
        *ns = 0;
    pthread_mutex_lock(&rt->lock);
    cyrt_status st = cyrt_open_locked(rt, index, err);
    cl_command_queue q = st == CYRT_OK ? rt->devs[index].queue : NULL;
    pthread_mutex_unlock(&rt->lock);
    if (st != CYRT_OK)
        return st;
    const cyrt_cl *cl = &rt->cl;
    cl_event ev = NULL;
    cl_int rc = cl->clEnqueueNDRangeKernel(q, kernel, dims, NULL, global, local, 0, NULL,
                                           ns ? &ev : NULL);
    if (rc == CL_SUCCESS && ns) {
        rc = cl->clWaitForEvents(1, &ev);
        cl_ulong t0 = 0, t1 = 0;
        if (rc == CL_SUCCESS &&
            cl->clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL) ==
                CL_SUCCESS &&
            cl->clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL) ==
                CL_SUCCESS &&
            t1 >= t0)
            *ns = t1 - t0;
    }
    if (ev)
        cl->clReleaseEvent(ev);
    if (rc != CL_SUCCESS) {
        cyrt_seterr(err, rc, "the kernel launch failed: %s (%d)", cyrt_cl_error_name(rc), rc);
        return CYRT_ECL;
    }
    return CYRT_OK;
}

/* ---- OpenCL buffers as the registry's memory backend ------------------------------
 * Transfers are blocking on the device's in-order queue, so they also wait
 * for kernels enqueued before them.
 *
 * Buffers come from the device's pool and go back to it (pool.h): a plain
 * call makes and frees its buffers at every call, and on the H100 a release
 * of large buffers keeps the driver's threads busy for 100-250 ms, native
 * teams stalling meanwhile.  A reused buffer's bytes are whatever its last
 * user left, as undefined as a fresh buffer's: the registry uploads a
 * region's whole extent before any kernel sees it (registry.c).  A kernel
 * of the last user still running (a quiet kernel returns unwaited) is no
 * hazard: the new user's first use is a copy into the buffer, and the
 * registry waits for that kernel before any copy (cyrt_drain_locked).
 * The bookkeeping is under the device's pool lock; buffers are made and
 * released outside it (the registry may hold rt->lock meanwhile, as it did
 * before the pool). */

_Static_assert(CYRT_POOL_SLACK == CYRT_ALIGN, "the pool's size classes allow for the registry's alignment");

static int alloc_failed(cl_int rc) { return rc == CL_MEM_OBJECT_ALLOCATION_FAILURE || rc == CL_OUT_OF_RESOURCES; }

/* Releases every idle buffer of d's pool: how many there were. */
static size_t pool_release_all(cyrt_device *d) {
    if (d->pool_on != 1)
        return 0;
    size_t total = 0, n;
    void *out[CYRT_POOL_MAX_IDLE + 1];
    do {
        pthread_mutex_lock(&d->pool_lock);
        n = cyrt_pool_drain(&d->pool, out, sizeof out / sizeof out[0]);
        pthread_mutex_unlock(&d->pool_lock);
        for (size_t i = 0; i < n; i++)
            d->rt->cl.clReleaseMemObject((cl_mem)out[i]);
        total += n;
    } while (n > 0);
    return total;
}

static int clb_alloc(void *ctx, size_t bytes, void **buf) {
    cyrt_device *d = ctx;
    int pooled = d->pool_on == 1;
    size_t size = bytes;
    if (pooled) {
        pthread_mutex_lock(&d->pool_lock);
        void *m = cyrt_pool_take(&d->pool, bytes, &size);
        pthread_mutex_unlock(&d->pool_lock);
        if (m) {
            *buf = m;
            return 0;
        }
        /* a size class, so that nearby sizes share it later; as asked
           where the class is more than one buffer may have */
        size = cyrt_pool_class(bytes);
        if (d->info.max_alloc && size > d->info.max_alloc)
            size = bytes;
    }
    cl_int rc = CL_SUCCESS;
    cl_mem m = d->rt->cl.clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, size, NULL, &rc);
    /* out of device memory: the idle buffers go, then once more, as asked */
    if (!m && alloc_failed(rc) && (pool_release_all(d) > 0 || size > bytes)) {
        size = bytes;
        rc = CL_SUCCESS;
        m = d->rt->cl.clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, size, NULL, &rc);
    }
    if (!m)
        return rc != CL_SUCCESS ? rc : CL_MEM_OBJECT_ALLOCATION_FAILURE;
    if (pooled) {
        /* not recorded (out of host memory): released when freed */
        pthread_mutex_lock(&d->pool_lock);
        (void)cyrt_pool_lent(&d->pool, m, size);
        pthread_mutex_unlock(&d->pool_lock);
    }
    *buf = m;
    return 0;
}

static void clb_free(void *ctx, void *buf) {
    cyrt_device *d = ctx;
    if (d->pool_on == 1) {
        void *evicted[CYRT_POOL_MAX_IDLE + 1];
        size_t nev = 0;
        pthread_mutex_lock(&d->pool_lock);
        int kept = cyrt_pool_put(&d->pool, buf, evicted, &nev);
        pthread_mutex_unlock(&d->pool_lock);
        for (size_t i = 0; i < nev; i++)
            d->rt->cl.clReleaseMemObject((cl_mem)evicted[i]);
        if (kept)
            return;
    }
    d->rt->cl.clReleaseMemObject((cl_mem)buf);
}

/* Sets up d's pool at the registry's first binding to it (rt->lock held). */
static void pool_setup(cyrt_device *d) {
    if (d->pool_on)
        return;
    uint64_t cap = cyrt_pool_default_cap(d->info.global_mem, d->info.type == CYRT_DEV_CPU);
    const char *v = getenv("CYOCL_POOL_MB");
    if (v && *v && cyrt_pool_parse_mb(v, &cap) != 0) {
        cap = cyrt_pool_default_cap(d->info.global_mem, d->info.type == CYRT_DEV_CPU);
        cyrt_warn(d->rt, "CYOCL_POOL_MB='%s' is not a number of MiB: the pool keeps up to %llu MiB",
                  v, (unsigned long long)(cap >> 20));
    }
    if (cap == 0 || pthread_mutex_init(&d->pool_lock, NULL) != 0) {
        d->pool_on = -1;
        return;
    }
    cyrt_pool_init(&d->pool, cap);
    d->pool_on = 1;
}

/* Every idle buffer released and the tables freed (teardown, lock held,
 * the context still there). */
static void pool_teardown(cyrt_device *d) {
    if (d->pool_on != 1)
        return;
    pool_release_all(d);
    cyrt_pool_free(&d->pool);
    pthread_mutex_destroy(&d->pool_lock);
    d->pool_on = 0;
}

void cyrt_pools_info_locked(cyrt_rt *rt, cyrt_registry_info *out) {
    if (rt->loaded != 1)
        return;
    for (int i = 0; i < rt->ndevs; i++) {
        cyrt_device *d = &rt->devs[i];
        if (d->pool_on != 1)
            continue;
        pthread_mutex_lock(&d->pool_lock);
        out->pool_hits += d->pool.hits;
        out->pool_misses += d->pool.misses;
        out->pool_evictions += d->pool.evictions;
        out->pool_bytes += d->pool.idle_bytes;
        out->pool_buffers += d->pool.nidle;
        pthread_mutex_unlock(&d->pool_lock);
    }
}

/* ---- pinned staging --------------------------------------------------------------
 * A pageable host array crosses PCIe at a fraction of the bus's speed (the
 * driver stages it itself, 6-9 GB/s up and 10-16 back on the H100 against
 * 55 GB/s from pinned memory).  So a large copy to or from a GPU goes
 * through pinned buffers in chunks of up to STAGE_CHUNK: STAGE_WORKERS
 * workers (the caller and threads kept for the process's copies) each copy
 * a chunk between the array and one of their two buffers while the bus
 * moves the other, so the host's copies run beside the transfers and
 * beside each other.  The first chunks up and the last ones back are
 * smaller (ramp_span): the bus then waits less for the first host copies
 * up, and the host's copy of the last chunk back is short.  One copy at a
 * time uses the buffers; a copy that finds them busy (another thread's) or
 * that cannot have any goes directly, as before.  CYOCL_STAGING=on|off
 * overrides the default (on for GPUs and accelerators from STAGE_MIN
 * bytes; a CPU device's memory is the host's).
 *
 * The figures behind the choices (256 MiB on the H100; bench/transfer.py
 * and docs/benchmarks.md): 2 MiB chunks (past the ramp) beat 1, 4 and 8 MiB (1 MiB
 * commands lose to the driver's cost per command, larger chunks keep the
 * bus waiting longer for the first ones); twelve workers beat eight and
 * sixteen up, where the host's copy out of the array is the limit; back,
 * the copy into the array uses streaming stores, which do not read each
 * destination line first (45 GB/s against 27-30 with memcpy, same chunks
 * and workers).  The buffers' memory is ours (huge pages, touched), handed
 * to the driver with CL_MEM_USE_HOST_PTR, which NVIDIA's registers (pins):
 * 256 MiB of it in 8 ms, where mapping CL_MEM_ALLOC_HOST_PTR buffers took
 * 40-60 ms for 64 MiB, most of a process's first copy (now 14 GB/s up
 * instead of 5-7).  The copies pass the mapped pointers only: the cl_mem
 * objects exist for the pinning. */
#define STAGE_CHUNK ((size_t)2 << 20)
#define STAGE_MIN ((size_t)8 << 20)
#define STAGE_WORKERS 12
#define STAGE_RAMP 2

struct cyrt_stage {
    int busy; /* atomic: a copy holds the buffers */
    /* per worker: 0 its two buffers not made yet, 1 made, -1 could not be
       made (not retried: that worker sits out) */
    int made[STAGE_WORKERS];
    cl_mem mem[2 * STAGE_WORKERS];
    void *host[2 * STAGE_WORKERS];     /* the buffers, mapped */
    unsigned char *own[STAGE_WORKERS]; /* the memory of worker w's two buffers */
    /* Workers 1.. are threads kept for the process's life, parked between
       copies (worker 0 is the copying thread itself).  Made per copy, the
       eleven took 220-390 us to start on the H100's host (the workers
       started one by one) and ~110 us to join, per copy: a plain call of
       c06's sigmoid layer at 2048^2 (four 32 MiB copies) took 6.53-6.64
       ms, 6.01-6.15 with the threads kept. */
    pthread_mutex_t mu;     /* with go and done: the hand-over below */
    pthread_cond_t go;      /* a new job (gen moved) or quit */
    pthread_cond_t done;    /* active reached 0 */
    int sync_ok;            /* mu, go and done were made */
    int thr[STAGE_WORKERS]; /* per worker: 0 no thread yet, 1 running, -1 could not be made (not retried) */
    pthread_t th[STAGE_WORKERS];
    struct stage_job *job;  /* the current job (mu; atomic for the spin) */
    unsigned gen;           /* atomic: bumped per job under mu */
    int active;             /* threads still on the current job (mu) */
    int quit;               /* the threads end (mu) */
};

/* One staged copy, shared by its workers. */
typedef struct stage_job {
    cyrt_device *d;
    struct cyrt_stage *st;
    cl_mem buf;
    size_t off, bytes, nchunks;
    unsigned char *host; /* the array's bytes */
    int up;              /* 1 host -> device */
    int nw;              /* workers 0 .. nw-1 take part */
    size_t next;         /* atomic: the next chunk to take */
    int rc;              /* atomic: the first failure, 0 none */
    int waiting;         /* atomic: workers still making their buffers (see stage_run) */
} stage_job;

/* Chunk c of an upward copy of bytes (its start; *len its length, the
 * last one short): STAGE_RAMP rounds of STAGE_WORKERS chunks, the first of
 * STAGE_CHUNK >> STAGE_RAMP bytes, each round's twice the last's, then
 * whole ones.  The bus waits for the first chunks' host copies, which all
 * workers make at once: 2 MiB ones took ~290 us on the H100's host (7 GB/s
 * per thread, 12 at a time), half the bus's time for a 32 MiB copy; 512 KiB
 * ones start it four times sooner.  Two rounds (512 KiB, 1 MiB) beat none
 * and three for a plain call of c06's sigmoid layer at 2048^2 (three 32
 * MiB copies up, one back): 5.62 ms a call against 6.37 and 5.86, the
 * copies back 0.92 ms against 1.05 (the copies up, which the host's copy
 * speed bounds, stayed at 1.07-1.19). */
static size_t ramp_span(size_t bytes, size_t c, size_t *len) {
    size_t pos = 0, sz = STAGE_CHUNK;
    int done = 0;
    for (int l = 0; l < STAGE_RAMP && !done; l++) {
        sz = STAGE_CHUNK >> (STAGE_RAMP - l);
        if (c < STAGE_WORKERS)
            done = 1;
        else
            c -= STAGE_WORKERS, pos += STAGE_WORKERS * sz;
    }
    if (!done)
        sz = STAGE_CHUNK;
    pos += c * sz;
    if (pos >= bytes) {
        *len = 0;
        return bytes;
    }
    *len = bytes - pos < sz ? bytes - pos : sz;
    return pos;
}

/* The number of ramp_span's chunks in bytes. */
static size_t ramp_count(size_t bytes) {
    size_t c = 0, pos = 0;
    for (int l = 0; l < STAGE_RAMP && pos < bytes; l++) {
        size_t sz = STAGE_CHUNK >> (STAGE_RAMP - l), k = (bytes - pos + sz - 1) / sz;
        if (k > STAGE_WORKERS)
            k = STAGE_WORKERS;
        c += k;
        pos += k * sz;
    }
    if (pos < bytes)
        c += (bytes - pos + STAGE_CHUNK - 1) / STAGE_CHUNK;
    return c;
}

/* Chunk c of job j: up, as ramp_span; down, the same chunks mirrored, so
 * that the small ones come last: the copy ends with the host's copy of
 * the last chunk to arrive, which the bus has nothing to do beside. */
static size_t job_span(const stage_job *j, size_t c, size_t *len) {
    if (j->up)
        return ramp_span(j->bytes, c, len);
    size_t p = ramp_span(j->bytes, j->nchunks - 1 - c, len);
    return j->bytes - p - *len;
}

static void stage_fail(stage_job *j, cl_int rc) {
    int zero = 0;
    __atomic_compare_exchange_n(&j->rc, &zero, rc ? rc : CL_OUT_OF_RESOURCES, 0, __ATOMIC_SEQ_CST,
                                __ATOMIC_SEQ_CST);
}

/* memcpy with streaming stores where there are (SSE2): the bytes that came
 * back go into the array without each destination line being read from
 * memory first, which a plain copy does and which costs a sixth of the
 * speed back. */
static void copy_out(void *dst, const void *src, size_t n) {
#if defined(__SSE2__)
    unsigned char *d = dst;
    const unsigned char *s = src;
    size_t head = (16 - ((uintptr_t)d & 15)) & 15;
    if (head > n)
        head = n;
    memcpy(d, s, head);
    d += head, s += head, n -= head;
    for (; n >= 64; n -= 64, d += 64, s += 64) {
        __m128i x0 = _mm_loadu_si128((const __m128i *)s), x1 = _mm_loadu_si128((const __m128i *)(s + 16));
        __m128i x2 = _mm_loadu_si128((const __m128i *)(s + 32)), x3 = _mm_loadu_si128((const __m128i *)(s + 48));
        _mm_stream_si128((__m128i *)d, x0);
        _mm_stream_si128((__m128i *)(d + 16), x1);
        _mm_stream_si128((__m128i *)(d + 32), x2);
        _mm_stream_si128((__m128i *)(d + 48), x3);
    }
    _mm_sfence(); /* the streamed bytes are visible before the copy returns */
    memcpy(d, s, n);
#else
    memcpy(dst, src, n);
#endif
}

/* The host side only: a forked child's copy (whose parked threads stayed
 * in the parent; its mutex may be held there: left as it is), or after
 * the threads and buffers went. */
static void stage_forget(struct cyrt_stage *st) {
    if (!st)
        return;
    for (int w = 0; w < STAGE_WORKERS; w++)
        free(st->own[w]);
    free(st);
}

/* Worker w's two buffers, made at its first copy (each worker makes its
 * own, so the copy's workers make theirs side by side). */
static int stage_make(cyrt_device *d, struct cyrt_stage *st, int w) {
    if (st->made[w])
        return st->made[w];
    const cyrt_cl *cl = &d->rt->cl;
    st->made[w] = -1;
    /* huge pages: fewer pages for the driver to pin and for the copies'
       TLB; touched here, so that pinning them does not fault them in */
    unsigned char *own = aligned_alloc((size_t)2 << 20, 2 * STAGE_CHUNK);
    if (!own)
        return -1;
    madvise(own, 2 * STAGE_CHUNK, MADV_HUGEPAGE);
    memset(own, 0, 2 * STAGE_CHUNK);
    st->own[w] = own;
    for (int i = 2 * w; i < 2 * w + 2; i++) {
        cl_int rc = CL_SUCCESS;
        st->mem[i] = cl->clCreateBuffer(d->ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, STAGE_CHUNK,
                                        own + (size_t)(i - 2 * w) * STAGE_CHUNK, &rc);
        if (!st->mem[i] || rc != CL_SUCCESS) {
            st->mem[i] = NULL;
            return -1;
        }
        /* mapped for good: the copies use the pointer the driver gives
           (ours on NVIDIA's), which stays valid while mapped */
        st->host[i] = cl->clEnqueueMapBuffer(d->queue, st->mem[i], CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                             STAGE_CHUNK, 0, NULL, NULL, &rc);
        if (!st->host[i] || rc != CL_SUCCESS) {
            st->host[i] = NULL;
            return -1;
        }
    }
    return st->made[w] = 1;
}

/* Worker w: chunks taken in turn, through its two buffers.  Up: each chunk
 * is copied into a buffer whose last transfer is over, then sent without
 * waiting.  Down: each chunk is asked for, then the one before it (in the
 * other buffer) is waited for and copied out. */
static void stage_run(stage_job *j, int w) {
    int usable = stage_make(j->d, j->st, w) == 1;
    /* at the copy that makes the buffers, nobody starts before all are
       made: a blocking map waits for every transfer already enqueued on
       the queue, so a worker still making its buffers would stall behind
       the others' chunks */
    __atomic_fetch_sub(&j->waiting, 1, __ATOMIC_ACQ_REL);
    while (__atomic_load_n(&j->waiting, __ATOMIC_ACQUIRE) > 0)
        sched_yield();
    if (!usable)
        return; /* the others take its chunks */
    const cyrt_cl *cl = &j->d->rt->cl;
    cl_event ev[2] = {NULL, NULL};
    size_t chunk_of[2] = {0, 0};
    int k = 0;
    for (;;) {
        size_t c = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
        if (c >= j->nchunks || __atomic_load_n(&j->rc, __ATOMIC_RELAXED))
            break;
        int s = k++ & 1, slot = 2 * w + s;
        size_t len, pos = job_span(j, c, &len);
        cl_int rc;
        if (j->up) {
            if (ev[s]) {
                rc = cl->clWaitForEvents(1, &ev[s]);
                cl->clReleaseEvent(ev[s]);
                ev[s] = NULL;
                if (rc != CL_SUCCESS) {
                    stage_fail(j, rc);
                    break;
                }
            }
            /* a plain copy: its lines stay in the cache, where the bus reads them */
            memcpy(j->st->host[slot], j->host + pos, len);
            rc = cl->clEnqueueWriteBuffer(j->d->queue, j->buf, CL_FALSE, j->off + pos, len, j->st->host[slot], 0,
                                          NULL, &ev[s]);
        } else {
            rc = cl->clEnqueueReadBuffer(j->d->queue, j->buf, CL_FALSE, j->off + pos, len, j->st->host[slot], 0,
                                         NULL, &ev[s]);
            chunk_of[s] = c;
        }
        if (rc != CL_SUCCESS) {
            ev[s] = NULL;
            stage_fail(j, rc);
            break;
        }
        cl->clFlush(j->d->queue);
        if (!j->up && ev[s ^ 1]) {
            /* the other buffer's chunk, asked for before this one */
            size_t l2, p2 = job_span(j, chunk_of[s ^ 1], &l2);
            rc = cl->clWaitForEvents(1, &ev[s ^ 1]);
            cl->clReleaseEvent(ev[s ^ 1]);
            ev[s ^ 1] = NULL;
            if (rc != CL_SUCCESS) {
                stage_fail(j, rc);
                break;
            }
            copy_out(j->host + p2, j->st->host[2 * w + (s ^ 1)], l2);
        }
    }
    /* whatever is still in flight in this worker's buffers: waited for
       (they are reused by the next copy), and copied out when down */
    for (int t = 0; t < 2; t++) {
        int s = (k + t) & 1; /* the older one first */
        if (!ev[s])
            continue;
        cl_int rc = cl->clWaitForEvents(1, &ev[s]);
        cl->clReleaseEvent(ev[s]);
        if (rc != CL_SUCCESS)
            stage_fail(j, rc);
        else if (!j->up && !__atomic_load_n(&j->rc, __ATOMIC_RELAXED)) {
            size_t l2, p2 = job_span(j, chunk_of[s], &l2);
            copy_out(j->host + p2, j->st->host[2 * w + s], l2);
        }
    }
}

/* How long a parked worker watches for the next job before it sleeps: the
 * copies of one launch (its arrays, one after another) come a few
 * microseconds apart, and a woken thread takes tens of them to run. */
#define STAGE_SPIN_NS 100000u

static uint64_t stage_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

typedef struct {
    struct cyrt_stage *st;
    int w;
    unsigned seen; /* the jobs before its start (it may start after the next one is posted) */
} stage_arg;

/* A kept worker: each job it is part of (w < nw), then parked until the
 * next one or quit. */
static void *stage_thread(void *arg) {
    stage_arg a = *(stage_arg *)arg;
    free(arg);
    struct cyrt_stage *st = a.st;
    pthread_setname_np(pthread_self(), "cyocl-stage");
    unsigned seen = a.seen;
    for (;;) {
        /* the next job of the same launch usually comes within the spin:
           no sleep and wake-up between them */
        uint64_t t0 = stage_now();
        while (__atomic_load_n(&st->gen, __ATOMIC_ACQUIRE) == seen && stage_now() - t0 < STAGE_SPIN_NS)
            sched_yield();
        pthread_mutex_lock(&st->mu);
        while (!st->quit && st->gen == seen)
            pthread_cond_wait(&st->go, &st->mu);
        if (st->quit) {
            pthread_mutex_unlock(&st->mu);
            return NULL;
        }
        seen = st->gen;
        stage_job *j = st->job;
        pthread_mutex_unlock(&st->mu);
        if (!j || a.w >= j->nw)
            continue; /* a small copy's, or one over before this thread looked: not counted in active */
        stage_run(j, a.w);
        pthread_mutex_lock(&st->mu);
        if (--st->active == 0)
            pthread_cond_signal(&st->done);
        pthread_mutex_unlock(&st->mu);
    }
}

/* Worker w's thread, made at the first copy that needs it (the copy's
 * thread holds busy); signals are left to the process's other threads. */
static int stage_thread_start(struct cyrt_stage *st, int w) {
    if (st->thr[w])
        return st->thr[w];
    st->thr[w] = -1;
    stage_arg *a = malloc(sizeof *a);
    if (!a)
        return -1;
    *a = (stage_arg){st, w, __atomic_load_n(&st->gen, __ATOMIC_RELAXED)};
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&st->th[w], NULL, stage_thread, a);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        free(a);
        return -1;
    }
    return st->thr[w] = 1;
}

static void stage_free(cyrt_device *d) {
    struct cyrt_stage *st = d->stage;
    if (!st)
        return;
    /* the workers end first: a parked one holds nothing */
    if (st->sync_ok) {
        pthread_mutex_lock(&st->mu);
        st->quit = 1;
        pthread_cond_broadcast(&st->go);
        pthread_mutex_unlock(&st->mu);
        for (int w = 1; w < STAGE_WORKERS; w++)
            if (st->thr[w] == 1)
                pthread_join(st->th[w], NULL);
        pthread_cond_destroy(&st->go);
        pthread_cond_destroy(&st->done);
        pthread_mutex_destroy(&st->mu);
    }
    const cyrt_cl *cl = &d->rt->cl;
    int mapped = 0;
    for (int i = 0; i < 2 * STAGE_WORKERS; i++)
        if (st->host[i])
            cl->clEnqueueUnmapMemObject(d->queue, st->mem[i], st->host[i], 0, NULL, NULL), mapped = 1;
    /* the unmaps are over before the buffers go, and the buffers before
       the memory they use */
    if (mapped)
        cl->clFinish(d->queue);
    for (int i = 0; i < 2 * STAGE_WORKERS; i++)
        if (st->mem[i])
            cl->clReleaseMemObject(st->mem[i]);
    stage_forget(st);
    d->stage = NULL;
}

/* Whether a copy of this size to or from a device of this type is staged
 * (CYOCL_STAGING, the device's type): the dispatcher predicts each copy's
 * time by the same rule (cyrt.h). */
int cyrt_copy_staged(unsigned dev_type, size_t bytes) {
    if (bytes < STAGE_MIN)
        return 0; /* most copies: no getenv (the dispatcher asks per copy) */
    const char *v = getenv("CYOCL_STAGING");
    if (v && !strcmp(v, "off"))
        return 0;
    if (v && !strcmp(v, "on"))
        return 1;
    return !(dev_type & CYRT_DEV_CPU);
}

static int stage_wanted(cyrt_device *d, size_t bytes) { return cyrt_copy_staged(d->info.type, bytes); }

/* The stage's bookkeeping: the workers' hand-over made once. */
static struct cyrt_stage *stage_new(void) {
    struct cyrt_stage *st = calloc(1, sizeof *st);
    if (!st)
        return NULL;
    if (pthread_mutex_init(&st->mu, NULL) != 0) {
        free(st);
        return NULL;
    }
    if (pthread_cond_init(&st->go, NULL) != 0) {
        pthread_mutex_destroy(&st->mu);
        free(st);
        return NULL;
    }
    if (pthread_cond_init(&st->done, NULL) != 0) {
        pthread_cond_destroy(&st->go);
        pthread_mutex_destroy(&st->mu);
        free(st);
        return NULL;
    }
    st->sync_ok = 1;
    return st;
}

/* A staged copy: 1 done (*rc its outcome), 0 not taken (copy directly). */
static int stage_copy(cyrt_device *d, cl_mem buf, size_t off, unsigned char *host, size_t bytes, int up, int *rc) {
    if (!stage_wanted(d, bytes))
        return 0;
    struct cyrt_stage *st = __atomic_load_n(&d->stage, __ATOMIC_ACQUIRE);
    if (!st) {
        struct cyrt_stage *fresh = stage_new(), *expect = NULL;
        if (!fresh)
            return 0;
        if (!__atomic_compare_exchange_n(&d->stage, &expect, fresh, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            stage_forget(fresh);
        st = __atomic_load_n(&d->stage, __ATOMIC_ACQUIRE);
    }
    if (__atomic_exchange_n(&st->busy, 1, __ATOMIC_ACQUIRE))
        return 0; /* another thread's copy has them */
    size_t nchunks = ramp_count(bytes);
    int nw = nchunks < STAGE_WORKERS ? (int)nchunks : STAGE_WORKERS, tomake = 0, usable = 0, nthr = 0;
    for (int w = 0; w < nw; w++) {
        /* a worker without a thread sits out: the others take its chunks */
        if (w > 0 && st->made[w] >= 0 && stage_thread_start(st, w) != 1)
            continue;
        tomake += st->made[w] == 0;
        usable += st->made[w] >= 0;
    }
    /* the threads that take part: each runs the job (one whose buffers
       could not be made returns at once) and counts itself off */
    for (int w = 1; w < nw; w++)
        nthr += st->thr[w] == 1;
    if (!usable) {
        __atomic_store_n(&st->busy, 0, __ATOMIC_RELEASE);
        return 0;
    }
    stage_job j = {d, st, buf, off, bytes, nchunks, host, up, nw, 0, 0, 0};
    /* at a copy that makes buffers, the workers that will run: each counts
       itself down at its start */
    j.waiting = tomake ? 1 + nthr : 0;
    pthread_mutex_lock(&st->mu);
    st->job = &j;
    st->active = nthr;
    __atomic_add_fetch(&st->gen, 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&st->go);
    pthread_mutex_unlock(&st->mu);
    stage_run(&j, 0);
    /* the workers still copying hold j (on this stack): over before it goes */
    pthread_mutex_lock(&st->mu);
    while (st->active > 0)
        pthread_cond_wait(&st->done, &st->mu);
    st->job = NULL;
    pthread_mutex_unlock(&st->mu);
    __atomic_store_n(&st->busy, 0, __ATOMIC_RELEASE);
    if (__atomic_load_n(&j.next, __ATOMIC_RELAXED) == 0 && !j.rc)
        return 0; /* no worker could make its buffers: nothing moved yet, copy directly */
    *rc = j.rc;
    return 1;
}

static int clb_write_once(cyrt_device *d, void *buf, size_t off, const void *src, size_t bytes) {
    int rc;
    if (stage_copy(d, (cl_mem)buf, off, (unsigned char *)(uintptr_t)src, bytes, 1, &rc))
        return rc;
    return d->rt->cl.clEnqueueWriteBuffer(d->queue, (cl_mem)buf, CL_TRUE, off, bytes, src, 0, NULL,
                                          NULL);
}

static int clb_write(void *ctx, void *buf, size_t off, const void *src, size_t bytes) {
    cyrt_device *d = ctx;
    cyrt_dispatch_device_used(d->rt, 0);
    int rc = clb_write_once(d, buf, off, src, bytes);
    /* some drivers (NVIDIA's) give a buffer its memory at its first use:
       out of device memory there, the idle buffers go and the copy runs
       once more (the whole of it: a copy's bytes may be copied twice) */
    if (alloc_failed(rc) && pool_release_all(d) > 0)
        rc = clb_write_once(d, buf, off, src, bytes);
    cyrt_dispatch_device_copied(d->rt, bytes);
    return rc;
}

static int clb_read_once(cyrt_device *d, void *buf, size_t off, void *dst, size_t bytes) {
    int rc;
    if (stage_copy(d, (cl_mem)buf, off, dst, bytes, 0, &rc))
        return rc;
    return d->rt->cl.clEnqueueReadBuffer(d->queue, (cl_mem)buf, CL_TRUE, off, bytes, dst, 0, NULL,
                                         NULL);
}

static int clb_read(void *ctx, void *buf, size_t off, void *dst, size_t bytes) {
    cyrt_device *d = ctx;
    cyrt_dispatch_device_used(d->rt, 0);
    int rc = clb_read_once(d, buf, off, dst, bytes);
    cyrt_dispatch_device_copied(d->rt, bytes);
    return rc;
}

static int clb_staged(void *ctx, size_t bytes) {
    cyrt_device *d = ctx;
    return cyrt_copy_staged(d->info.type, bytes);
}

int cyrt_device_copy(cyrt_rt *rt, int index, cl_mem buf, void *host, size_t bytes, int up) {
    pthread_mutex_lock(&rt->lock);
    cyrt_device *d = index >= 0 && index < rt->ndevs && rt->devs[index].queue ? &rt->devs[index] : NULL;
    pthread_mutex_unlock(&rt->lock);
    if (!d)
        return CL_INVALID_DEVICE;
    return up ? clb_write_once(d, buf, 0, host, bytes) : clb_read_once(d, buf, 0, host, bytes);
}

static int clb_copy(void *ctx, void *src, size_t soff, void *dst, size_t doff, size_t bytes) {
    cyrt_device *d = ctx;
    cl_int rc = d->rt->cl.clEnqueueCopyBuffer(d->queue, (cl_mem)src, (cl_mem)dst, soff, doff, bytes,
                                              0, NULL, NULL);
    /* finished here, so that a failure is reported by the call that caused it */
    return rc != CL_SUCCESS ? rc : d->rt->cl.clFinish(d->queue);
}

void cyrt_cl_backend(cyrt_device *d, cyrt_membackend *be) {
    const char *v = getenv("CYOCL_STAGING");
    if (v && *v && strcmp(v, "on") && strcmp(v, "off"))
        cyrt_warn(d->rt, "CYOCL_STAGING='%s' is not one of on, off: the device's type decides", v);
    pool_setup(d);
    be->ctx = d;
    be->alloc = clb_alloc;
    be->free = clb_free;
    be->write = clb_write;
    be->read = clb_read;
    be->copy = clb_copy;
    be->error_name = cyrt_cl_error_name;
    be->staged = clb_staged;
}
