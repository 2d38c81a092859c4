/* launch.c: runs one region's kernel as the ABI in backends/opencl/oclgen.h
 * says (DESIGN §2-§4): views through the registry, reductions finished on
 * the device, the error word, reduction results and lastprivates in one
 * small buffer read once.  No Python here: pymod.c turns the results into
 * exceptions.
 *
 * A launch's set-up (device, program, kernel object, scratch buffers) is
 * looked up once per region and kept in the region's launch state, which
 * the generated module's static slot names; later launches take it with
 * one short lock.  Builds run outside every lock: launches of other
 * programs go on meanwhile, launches of the program being built wait for
 * it.  Each program has an in-order queue of its own, so that a kernel of
 * one module (or a driver compiling it at its first enqueue, as PoCL does)
 * never holds up another module's launches; transfers stay on the device's
 * queue, and all of them are blocking, as is the read that ends a launch,
 * so no command of one queue can be pending while another uses its data.
 * The one exception, a quiet kernel's launch (IrRegion.ocl_quiet), returns
 * unwaited and leaves its queue in rt->pend_q: every copy and every launch
 * on another queue drains it first (cyrt_drain_locked). */
#include "internal.h"
#include "cyocl_api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A program built in this process, by (source text, device): the source
 * is a generated module's static string, so its address identifies it. */
struct cyrt_prog {
    const char *src;
    int dev;
    int building;    /* a thread is building it (outside the lock): wait on prog_cond */
    pthread_t owner; /* that thread */
    cl_program prog; /* NULL: the build failed (not retried) */
    cl_command_queue q; /* its own queue; NULL: the device's */
    /* the same with profiling, made at the first launch that asks for the
       kernel's time (the trace, CYOCL_VERBOSE=2): a profiled command costs
       NVIDIA's driver time on every launch */
    cl_command_queue qp;
};

static uint64_t now_ns(void);
struct cyrt_kent;
static void kent_free(cyrt_rt *rt, struct cyrt_kent *e);

/* A failure of OpenCL itself (warned about once) rather than a reason the
 * region cannot run there. */
static int failed(cyocl_launch *L, const char *fmt, const char *what) {
    snprintf(L->reason, sizeof L->reason, fmt, what);
    L->failure = 1;
    return 1;
}

static int fallback(cyocl_launch *L, const char *fmt, const char *what) {
    snprintf(L->reason, sizeof L->reason, fmt, what);
    return 1;
}

static struct cyrt_prog *prog_find(cyrt_rt *rt, const char *src, int dev) {
    for (size_t i = 0; i < rt->nprogs; i++)
        if (rt->progs[i].src == src && rt->progs[i].dev == dev) return &rt->progs[i];
    return NULL;
}

int cyrt_progs_building(cyrt_rt *rt) {
    /* prog_lock held by the caller (fork_prepare) */
    for (size_t i = 0; i < rt->nprogs; i++)
        if (rt->progs[i].building && pthread_equal(rt->progs[i].owner, pthread_self())) return 1;
    return 0;
}

/* The program of src on dev, built (or loaded from the kernel cache) at
 * its first use.  The build runs without prog_lock, so that launches of
 * other programs are not held up by it. */
static cl_program get_program(cyrt_rt *rt, int dev, const char *src, int *build, cl_command_queue *q,
                              cyrt_err *err) {
    *q = NULL;
    pthread_mutex_lock(&rt->prog_lock);
    struct cyrt_prog *e;
    while ((e = prog_find(rt, src, dev)) && e->building) pthread_cond_wait(&rt->prog_cond, &rt->prog_lock);
    if (e) {
        cl_program p = e->prog;
        *q = e->q;
        pthread_mutex_unlock(&rt->prog_lock);
        if (!p) cyrt_seterr(err, CL_BUILD_PROGRAM_FAILURE, "the program did not build");
        return p;
    }
    struct cyrt_prog *np = realloc(rt->progs, (rt->nprogs + 1) * sizeof *np);
    if (!np) {
        pthread_mutex_unlock(&rt->prog_lock);
        cyrt_seterr(err, CL_OUT_OF_HOST_MEMORY, "out of memory");
        return NULL;
    }
    rt->progs = np;
    rt->progs[rt->nprogs++] = (struct cyrt_prog){src, dev, 1, pthread_self(), NULL, NULL, NULL};
    unsigned gen = rt->lgen;
    pthread_mutex_unlock(&rt->prog_lock);

    cl_program p = NULL;
    char *log = NULL;
    int how = 0;
    cyrt_status s = cyrt_program_get(rt, dev, src, "-cl-std=CL1.2", &p, &how, &log, err);
    if (s != CYRT_OK) {
        /* the caller warns once; the log is for whoever asked for details */
        const char *v = getenv("CYOCL_VERBOSE");
        if (s == CYRT_EBUILD && v && !strcmp(v, "1"))
            fprintf(stderr, "cyocl: the OpenCL program did not build:\n%s\n", log ? log : "(no log)");
        p = NULL;
    } else {
        *build = how;
    }
    free(log);
    cl_command_queue pq = NULL;
    if (p) {
        /* in order, without profiling (prof_queue); none at all (a
           failure): the device's queue serves */
        cl_context ctx = NULL;
        cl_command_queue dq = NULL;
        cyrt_err e2 = {0};
        if (cyrt_device_open(rt, dev, &ctx, &dq, &e2) == CYRT_OK) {
            cl_int rc = CL_SUCCESS;
            cl_device_id id = rt->devs[dev].id;
            pq = rt->cl.clCreateCommandQueue(ctx, id, 0, &rc);
        }
    }
    pthread_mutex_lock(&rt->prog_lock);
    /* the list may have moved (realloc) or been emptied (cyrt_rt_free) */
    e = rt->lgen == gen ? prog_find(rt, src, dev) : NULL;
    if (e) {
        e->prog = p;
        e->q = pq;
        e->building = 0;
        *q = pq;
    } else if (p) {
        if (pq) rt->cl.clReleaseCommandQueue(pq);
        cyrt_program_release(rt, p);
        p = NULL;
        cyrt_seterr(err, CL_INVALID_CONTEXT, "the runtime was reset during the build");
    }
    pthread_cond_broadcast(&rt->prog_cond);
    pthread_mutex_unlock(&rt->prog_lock);
    return p;
}

/* A kernel object with its scratch buffers (the launch's one small buffer
 * with its host images, reduction partials), kept for the next launch of
 * the same kernel: creating and releasing them cost more than a small
 * kernel runs.  An entry is used by one launch at a time (busy); a second
 * thread launching the same kernel meanwhile gets an entry of its own. */
struct cyrt_kent {
    cl_program prog;
    const char *name; /* the generated module's static string */
    cl_kernel k;
    cl_mem scr;       /* oclgen.h's cy_err: error word, count, results */
    size_t scr_bytes;
    unsigned char *img_in, *img_out; /* host images of scr: before the launch, read back */
    /* the images' memory: pinned (a mapped CL_MEM_ALLOC_HOST_PTR buffer, so
       that the launch's one read needs no copy through the driver's own
       staging), or malloc'ed (pin NULL) where that could not be had */
    cl_mem pin;
    cl_command_queue pinq;
    int scr_dirty;    /* scr's first 32 bytes are not all zero (an error or break was left there) */
    cl_mem *bufs;     /* per kernel argument group: reduction partials */
    size_t *sizes;
    int nbufs;
    /* the values last given to clSetKernelArg, so that a launch sets only
     * what changed (a value of up to 8 bytes; local memory by its size) */
    unsigned nka;
    unsigned char (*kval)[8];
    size_t *ksize;
    unsigned char *kset; /* 0 unset, 1 a value, 2 local memory (NULL value) */
    int busy;
};

/* What a region's first launch looked up, for the next ones (the
 * module's slot holds lgen << 32 | index + 1: a reset runtime changes
 * lgen, so a slot from before it names nothing). */
struct cyrt_lstate {
    const char *src;
    int cpu_only;
    int dev;
    cl_context ctx;
    cl_command_queue q;
    char device[128];
    int fp64;
    size_t local;
    cl_program prog;
    int gpu;                 /* the device's class is GPU: the plans for GPUs (ir/plan.c) */
    size_t max_wg;
    unsigned cus;            /* compute units */
    struct cyrt_kent *ke[4]; /* the kernel, the serial kernel, the tiled kernel, its small-grid version: kept,
                                not owned (rt->kents) */
};

static void kent_free(cyrt_rt *rt, struct cyrt_kent *e) {
    const cyrt_cl *cl = &rt->cl;
    for (int i = 0; i < e->nbufs; i++)
        if (e->bufs[i]) cl->clReleaseMemObject(e->bufs[i]);
    if (e->scr) cl->clReleaseMemObject(e->scr);
    cyrt_kernel_release(rt, e->k);
    free(e->bufs);
    free(e->sizes);
    if (e->pin) {
        cl->clEnqueueUnmapMemObject(e->pinq, e->pin, e->img_in, 0, NULL, NULL);
        cl->clFinish(e->pinq);
        cl->clReleaseMemObject(e->pin);
    } else {
        free(e->img_in);
    }
    free(e->kval);
    free(e->ksize);
    free(e->kset);
    free(e);
}

static void lstates_drop(cyrt_rt *rt) {
    for (size_t i = 0; i < rt->nlstates; i++) free(rt->lstates[i]);
    free(rt->lstates);
    rt->lstates = NULL;
    rt->nlstates = 0;
    rt->lgen++;
}

int cyrt_drain_locked(cyrt_rt *rt) {
    cl_command_queue q = rt->pend_q;
    if (!q) return 0;
    rt->pend_q = NULL;
    __atomic_add_fetch(&rt->counts.drains, 1, __ATOMIC_RELAXED);
    /* the unwaited kernel's own failure surfaces here, or in the copy that
       follows (a faulted context fails every later command): either way the
       copy is refused, never made from memory the kernel did not finish */
    return (int)rt->cl.clFinish(q);
}

cyrt_status cyrt_finish(cyrt_rt *rt, cyrt_err *err) {
    pthread_mutex_lock(&rt->lock);
    int rc = cyrt_drain_locked(rt);
    pthread_mutex_unlock(&rt->lock);
    if (rc) {
        cyrt_seterr(err, rc, "waiting for the kernels launched so far failed: %s", cyrt_cl_error_name(rc));
        return CYRT_EBACKEND;
    }
    return CYRT_OK;
}

void cyrt_progs_free(cyrt_rt *rt) {
    pthread_mutex_lock(&rt->lock);
    (void)cyrt_drain_locked(rt);   /* tearing down: nothing is copied after it */
    pthread_mutex_unlock(&rt->lock);
    pthread_mutex_lock(&rt->prog_lock);
    lstates_drop(rt);
    for (size_t i = 0; i < rt->nkents; i++) kent_free(rt, rt->kents[i]);
    free(rt->kents);
    rt->kents = NULL;
    rt->nkents = 0;
    for (size_t i = 0; i < rt->nprogs; i++) {
        if (rt->progs[i].q) rt->cl.clReleaseCommandQueue(rt->progs[i].q);
        if (rt->progs[i].qp) rt->cl.clReleaseCommandQueue(rt->progs[i].qp);
        if (rt->progs[i].prog) cyrt_program_release(rt, rt->progs[i].prog);
    }
    free(rt->progs);
    rt->progs = NULL;
    rt->nprogs = 0;
    pthread_mutex_unlock(&rt->prog_lock);
}

/* The scratch layout of oclgen.h: 32 bytes, 8 per reduction, 16 per lastprivate. */
static size_t scratch_bytes(const cyocl_launch *L) {
    size_t b = 32;
    for (int i = 0; i < L->nargs; i++) b += L->args[i].kind == CYOCL_A_RED ? 8 : L->args[i].kind == CYOCL_A_LAST ? 16 : 0;
    return b;
}

/* A free entry for (prog, name), made when there is none.  Prog_lock held
 * on entry and on return (dropped while an entry is made). */
static struct cyrt_kent *kent_get(cyrt_rt *rt, cl_context ctx, cl_command_queue q, cl_program prog,
                                  const char *name, const cyocl_launch *L, cyrt_err *err) {
    for (size_t i = 0; i < rt->nkents; i++) {
        struct cyrt_kent *e = rt->kents[i];
        if (!e->busy && e->prog == prog && e->name == name) {
            e->busy = 1;
            return e;
        }
    }
    pthread_mutex_unlock(&rt->prog_lock);
    int nargs = L->nargs;
    size_t sb = scratch_bytes(L);
    struct cyrt_kent *e = calloc(1, sizeof *e);
    if (!e || !(e->bufs = calloc((size_t)nargs + 1, sizeof *e->bufs)) ||
        !(e->sizes = calloc((size_t)nargs + 1, sizeof *e->sizes))) {
        if (e) {
            free(e->bufs);
            free(e->sizes);
        }
        free(e);
        cyrt_seterr(err, CL_OUT_OF_HOST_MEMORY, "out of memory");
        pthread_mutex_lock(&rt->prog_lock);
        return NULL;
    }
    {
        cl_int pe = CL_SUCCESS;
        e->pin = rt->cl.clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, 2 * sb, NULL, &pe);
        if (e->pin && pe == CL_SUCCESS)
            e->img_in = rt->cl.clEnqueueMapBuffer(q, e->pin, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, 2 * sb, 0, NULL,
                                                  NULL, &pe);
        if (!e->img_in || pe != CL_SUCCESS) {
            if (e->pin) rt->cl.clReleaseMemObject(e->pin);
            e->pin = NULL;
            e->img_in = NULL;
        } else {
            e->pinq = q;
            memset(e->img_in, 0, 2 * sb);
        }
    }
    if (!e->img_in && !(e->img_in = calloc(2, sb))) {
        kent_free(rt, e);
        cyrt_seterr(err, CL_OUT_OF_HOST_MEMORY, "out of memory");
        pthread_mutex_lock(&rt->prog_lock);
        return NULL;
    }
    e->img_out = e->img_in + sb;
    e->scr_bytes = sb;
    e->prog = prog;
    e->name = name;
    e->nbufs = nargs;
    e->busy = 1;
    if (cyrt_kernel_create(rt, prog, name, &e->k, err) != CYRT_OK) {
        kent_free(rt, e);
        pthread_mutex_lock(&rt->prog_lock);
        return NULL;
    }
    cl_int ce = 0;
    /* zero now (the count included); a launch that leaves an error or a
       break there puts the zeros back with the next launch's write */
    e->scr = rt->cl.clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sb, e->img_in, &ce);
    if (!e->scr || ce) {
        e->scr = NULL;
        cyrt_seterr(err, ce ? ce : CL_OUT_OF_RESOURCES, "creating the error buffer failed");
        kent_free(rt, e);
        pthread_mutex_lock(&rt->prog_lock);
        return NULL;
    }
    pthread_mutex_lock(&rt->prog_lock);
    struct cyrt_kent **v = realloc(rt->kents, (rt->nkents + 1) * sizeof *v);
    if (!v) {
        pthread_mutex_unlock(&rt->prog_lock);
        kent_free(rt, e);
        cyrt_seterr(err, CL_OUT_OF_HOST_MEMORY, "out of memory");
        pthread_mutex_lock(&rt->prog_lock);
        return NULL;
    }
    rt->kents = v;
    rt->kents[rt->nkents++] = e;
    return e;
}

void cyrt_progs_forget(cyrt_rt *rt) {
    rt->pend_q = NULL; /* the parent's */
    for (size_t i = 0; i < rt->nkents; i++) {
        struct cyrt_kent *e = rt->kents[i];
        free(e->bufs);
        free(e->sizes);
        if (!e->pin) free(e->img_in); /* else the parent's driver's memory */
        free(e->kval);
        free(e->ksize);
        free(e->kset);
        free(e);
    }
    free(rt->kents);
    rt->kents = NULL;
    rt->nkents = 0;
    free(rt->progs);
    rt->progs = NULL;
    rt->nprogs = 0;
    lstates_drop(rt);
}

/* Back to the pool; after an OpenCL failure the entry is dropped instead
 * (its objects may be what failed), and so is every launch state naming
 * it. */
static void kent_put(cyrt_rt *rt, struct cyrt_kent *e, int drop) {
    pthread_mutex_lock(&rt->prog_lock);
    if (drop) {
        for (size_t i = 0; i < rt->nkents; i++)
            if (rt->kents[i] == e) {
                rt->kents[i] = rt->kents[--rt->nkents];
                break;
            }
        for (size_t i = 0; i < rt->nlstates; i++)
            for (int k = 0; k < 4; k++)
                if (rt->lstates[i]->ke[k] == e) rt->lstates[i]->ke[k] = NULL;
    }
    e->busy = 0;
    pthread_mutex_unlock(&rt->prog_lock);
    if (drop) kent_free(rt, e);
}

/* The entry's buffer for argument group i, at least bytes long. */
static cl_mem kent_buf(cyrt_rt *rt, cl_context ctx, struct cyrt_kent *e, int i, size_t bytes, cl_int *ce) {
    if (e->bufs[i] && e->sizes[i] >= bytes) return e->bufs[i];
    if (e->bufs[i]) rt->cl.clReleaseMemObject(e->bufs[i]);
    e->sizes[i] = 0;
    e->bufs[i] = rt->cl.clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, ce);
    if (!e->bufs[i] || *ce) {
        e->bufs[i] = NULL;
        if (!*ce) *ce = CL_OUT_OF_RESOURCES;
        return NULL;
    }
    e->sizes[i] = bytes;
    return e->bufs[i];
}

/* clSetKernelArg unless the kernel has that value already (a local-memory
 * argument: value NULL, by its size). */
static cl_int kent_arg(cyrt_rt *rt, struct cyrt_kent *e, unsigned i, size_t size, const void *value) {
    if (i < e->nka && size <= 8) {
        unsigned char want = value ? 1 : 2;
        if (e->kset[i] == want && e->ksize[i] == size && (!value || !memcmp(e->kval[i], value, size))) return CL_SUCCESS;
        cl_int rc = rt->cl.clSetKernelArg(e->k, i, size, value);
        e->kset[i] = rc == CL_SUCCESS ? want : 0;
        e->ksize[i] = size;
        if (value) memcpy(e->kval[i], value, size);
        return rc;
    }
    return rt->cl.clSetKernelArg(e->k, i, size, value);
}

/* Room for remembering nka argument values (a failure only means every
 * argument is set every time). */
static void kent_args_init(struct cyrt_kent *e, unsigned nka) {
    if (e->nka == nka) return;
    free(e->kval);
    free(e->ksize);
    free(e->kset);
    e->kval = calloc(nka, sizeof *e->kval);
    e->ksize = calloc(nka, sizeof *e->ksize);
    e->kset = calloc(nka, 1);
    e->nka = e->kval && e->ksize && e->kset ? nka : 0;
}

static void combine(cyocl_arg *a, const void *parts, size_t ng) {
    if (a->tkind == 'f' && a->size == 4) {
        /* a float accumulator: combined in float, as the native reduction does */
        float acc = a->op == '*' ? 1.0f : 0.0f, *x = a->ptr;
        for (size_t g = 0; g < ng; g++) acc = a->op == '*' ? acc * ((const float *)parts)[g] : acc + ((const float *)parts)[g];
        *x = a->op == '+' ? *x + acc : a->op == '-' ? *x - acc : *x * acc;
        return;
    }
    if (a->tkind == 'f') {
        double acc = a->op == '*' ? 1.0 : 0.0, *x = a->ptr;
        for (size_t g = 0; g < ng; g++) acc = a->op == '*' ? acc * ((const double *)parts)[g] : acc + ((const double *)parts)[g];
        *x = a->op == '+' ? *x + acc : a->op == '-' ? *x - acc : *x * acc;
        return;
    }
    /* integers: unsigned arithmetic wraps as the device's does */
    unsigned long long x = 0, acc = a->op == '*' ? 1 : a->op == '&' ? ~0ULL : 0;
    const unsigned char *pb = parts;
    for (size_t g = 0; g < ng; g++) {
        unsigned long long v = 0;
        switch (a->size) {
        case 1: v = a->tkind == 'i' ? (unsigned long long)(long long)*(const signed char *)(pb + g) : pb[g]; break;
        case 2: v = a->tkind == 'i' ? (unsigned long long)(long long)((const short *)parts)[g] : ((const unsigned short *)parts)[g]; break;
        case 4: v = a->tkind == 'i' ? (unsigned long long)(long long)((const int *)parts)[g] : ((const unsigned *)parts)[g]; break;
        default: v = ((const unsigned long long *)parts)[g]; break;
        }
        switch (a->op) {
        case '*': acc *= v; break;
        case '&': acc &= v; break;
        case '|': acc |= v; break;
        case '^': acc ^= v; break;
        default: acc += v; break;
        }
    }
    memcpy(&x, a->ptr, (size_t)a->size); /* little-endian: the low bytes */
    switch (a->op) {
    case '+': x += acc; break;
    case '-': x -= acc; break;
    case '*': x *= acc; break;
    case '&': x &= acc; break;
    case '|': x |= acc; break;
    case '^': x ^= acc; break;
    }
    memcpy(a->ptr, &x, (size_t)a->size);
}

/* The bytes [*lo, *hi) a view's elements span; 0 for an empty view. */
static int extent(const cyocl_arg *a, uintptr_t *lo, uintptr_t *hi) {
    uintptr_t l = (uintptr_t)a->ptr, h = l + (uintptr_t)a->size;
    for (int k = 0; k < a->ndim; k++) {
        if (a->shape[k] <= 0) return 0;
        ptrdiff_t span = (a->shape[k] - 1) * a->strides[k];
        if (span < 0) l -= (uintptr_t)-span;
        else h += (uintptr_t)span;
    }
    *lo = l;
    *hi = h;
    return 1;
}

/* Does some pair of views the collapsed kernel takes to be distinct
 * share memory in this call (DESIGN §9)?  Extents, not elements: views
 * that interleave (a[::2], a[1::2]) count as overlapping, which only
 * costs the serial kernel's speed. */
static int pairs_overlap(const cyocl_launch *L) {
    for (int k = 0; k < L->npairs; k++) {
        int i = L->pairs[2 * k], j = L->pairs[2 * k + 1];
        uintptr_t l1, h1, l2, h2;
        if (i < 0 || j < 0 || i >= L->nargs || j >= L->nargs) return 1;
        if (extent(&L->args[i], &l1, &h1) && extent(&L->args[j], &l2, &h2) && l1 < h2 && l2 < h1) return 1;
    }
    return 0;
}

/* CYOCL_PLAN, read once: 1 the device's type decides, 2 the plans for
 * GPUs on any device ("gpu"), 3 on none ("cpu"). */
static int plan_mode(cyrt_rt *rt) {
    int plan = __atomic_load_n(&rt->plan, __ATOMIC_RELAXED);
    if (!plan) {
        const char *v = getenv("CYOCL_PLAN");
        plan = v && !strcmp(v, "gpu") ? 2 : v && !strcmp(v, "cpu") ? 3 : 1;
        if (v && *v && plan == 1) cyrt_warn(rt, "CYOCL_PLAN='%s' is not one of gpu, cpu: the device's type decides", v);
        __atomic_store_n(&rt->plan, plan, __ATOMIC_RELAXED);
    }
    return plan;
}

/* Does L's device take the plans for GPUs (ir/plan.c) with a work-group
 * of wg work-items?  CYOCL_PLAN=gpu says yes for any device (tests run the
 * GPU plans on PoCL), =cpu no; otherwise the device's type decides. */
static struct cyrt_lstate *lstate_of(cyrt_rt *rt, const cyocl_launch *L);
static int gpu_plan(cyrt_rt *rt, const cyocl_launch *L, size_t wg, unsigned *cus) {
    int plan = plan_mode(rt);
    if (plan == 3) return 0;
    int gpu = 0;
    size_t max_wg = 0;
    pthread_mutex_lock(&rt->prog_lock);
    struct cyrt_lstate *ls = lstate_of(rt, L);
    if (ls) {
        gpu = ls->gpu;
        max_wg = ls->max_wg;
        *cus = ls->cus;
    }
    pthread_mutex_unlock(&rt->prog_lock);
    if (!ls) {
        cyrt_err err = {0};
        const cyrt_devinfo *infos;
        int dev, ndev;
        if (cyrt_select_device(rt, L->cpu_only ? CYRT_DEV_CPU : CYRT_DEV_ALL, &dev, &err) != CYRT_OK ||
            cyrt_devices(rt, &infos, &ndev, &err) != CYRT_OK || dev >= ndev)
            return 0; /* setup says why */
        gpu = infos[dev].type == CYRT_DEV_GPU;
        max_wg = infos[dev].max_work_group;
        *cus = infos[dev].compute_units;
    }
    return (gpu || plan == 2) && max_wg >= wg;
}

/* The profiling queue of prog on ctx (made at its first use); NULL: none
 * could be made (the launch then goes without the kernel's time).  A
 * kernel there and the next one on the plain queue cannot overlap: a
 * profiled launch ends with a blocking read on the queue its kernel went to,
 * and an unwaited one on the plain queue is drained before it. */
static cl_command_queue prof_queue(cyrt_rt *rt, cl_context ctx, int dev, cl_program prog) {
    pthread_mutex_lock(&rt->prog_lock);
    struct cyrt_prog *e = NULL;
    for (size_t i = 0; i < rt->nprogs && !e; i++)
        if (rt->progs[i].prog == prog && rt->progs[i].dev == dev && !rt->progs[i].building) e = &rt->progs[i];
    if (e && !e->qp) {
        cl_int rc = CL_SUCCESS;
        e->qp = rt->cl.clCreateCommandQueue(ctx, rt->devs[dev].id, CL_QUEUE_PROFILING_ENABLE, &rc);
        if (rc != CL_SUCCESS) e->qp = NULL;
    }
    cl_command_queue q = e ? e->qp : NULL;
    pthread_mutex_unlock(&rt->prog_lock);
    return q;
}

/* Phase times of one launch, for CYOCL_VERBOSE=2. */
enum { PH_SETUP, PH_VIEWS, PH_ARGS, PH_KERNEL, PH_READ, PH_DONE, PH_N };

/* The region's launch state named by its slot, when it is still this
 * runtime's (prog_lock held). */
static struct cyrt_lstate *lstate_of(cyrt_rt *rt, const cyocl_launch *L) {
    if (!L->lslot) return NULL;
    uintptr_t v = (uintptr_t)__atomic_load_n(L->lslot, __ATOMIC_ACQUIRE);
    size_t idx = (size_t)(v & 0xffffffffu);
    if (!idx || (unsigned)(v >> 32) != rt->lgen || idx > rt->nlstates) return NULL;
    struct cyrt_lstate *s = rt->lstates[idx - 1];
    return s->src == L->source && s->cpu_only == L->cpu_only ? s : NULL;
}

/* The device, program and a kernel entry for L (from its launch state, or
 * looked up and then kept there).  1 with *st and *ke filled; else the
 * launch's rc (fallback or failure, L->reason set). */
static int setup(cyrt_rt *rt, cyocl_launch *L, const char *kname, int variant, struct cyrt_lstate *st,
                 struct cyrt_kent **ke) {
    cyrt_err err = {0};
    pthread_mutex_lock(&rt->prog_lock);
    struct cyrt_lstate *ls = lstate_of(rt, L);
    if (ls) {
        *st = *ls;
        struct cyrt_kent *e = ls->ke[variant];
        if (e && !e->busy) {
            e->busy = 1;
            pthread_mutex_unlock(&rt->prog_lock);
            *ke = e;
            snprintf(L->device, sizeof L->device, "%s", st->device);
            return -1;
        }
    }
    pthread_mutex_unlock(&rt->prog_lock);
    if (!ls) {
        /* the first launch of the region (in this runtime): look everything up */
        memset(st, 0, sizeof *st);
        int dev;
        if (cyrt_select_device(rt, L->cpu_only ? CYRT_DEV_CPU : CYRT_DEV_ALL, &dev, &err) != CYRT_OK)
            return fallback(L, "fallback: %s", "no OpenCL device");
        const cyrt_devinfo *infos;
        int ndev;
        if (cyrt_devices(rt, &infos, &ndev, &err) != CYRT_OK || dev >= ndev)
            return fallback(L, "fallback: %s", "no OpenCL device");
        snprintf(L->device, sizeof L->device, "%s", infos[dev].name);
        if (L->uses_fp64 && !infos[dev].fp64) return fallback(L, "not-eligible: %s", "device has no fp64");
        if (cyrt_device_open(rt, dev, &st->ctx, &st->q, &err) != CYRT_OK)
            return failed(L, "fallback: %s", err.code ? cyrt_cl_error_name(err.code) : cyrt_status_name(CYRT_ECL));
        int build = 0;
        cl_command_queue pq = NULL;
        cl_program prog = get_program(rt, dev, L->source, &build, &pq, &err);
        if (!prog)
            return failed(L, "fallback: %s", cyrt_cl_error_name(err.code ? err.code : CL_BUILD_PROGRAM_FAILURE));
        if (pq) st->q = pq;
        L->build = build;
        st->src = L->source;
        st->cpu_only = L->cpu_only;
        st->dev = dev;
        snprintf(st->device, sizeof st->device, "%s", infos[dev].name);
        st->fp64 = infos[dev].fp64;
        st->gpu = infos[dev].type == CYRT_DEV_GPU;
        st->max_wg = infos[dev].max_work_group;
        st->cus = infos[dev].compute_units;
        /* GPUs: groups of 256 (H100, a triad 2^26 with a work-item per
           element: 0.528 ms, clref's 0.526; 0.548 in 65536 groups of 64);
           CPU devices: 64 */
        size_t want = infos[dev].type == CYRT_DEV_GPU ? 256 : 64;
        st->local = infos[dev].max_work_group < want ? infos[dev].max_work_group : want;
        if (!st->local) st->local = 1;
        st->prog = prog;
    }
    snprintf(L->device, sizeof L->device, "%s", st->device);
    pthread_mutex_lock(&rt->prog_lock);
    unsigned gen = rt->lgen;
    struct cyrt_kent *e = kent_get(rt, st->ctx, st->q, st->prog, kname, L, &err);
    if (e && rt->lgen == gen) {
        /* kept for the next launch: in the slot's state, made now if new */
        ls = lstate_of(rt, L);
        if (!ls && L->lslot && rt->nlstates < 0xffffffffu) {
            struct cyrt_lstate **v = realloc(rt->lstates, (rt->nlstates + 1) * sizeof *v);
            if (v) rt->lstates = v;
            if (v && (ls = malloc(sizeof *ls))) {
                *ls = *st;
                ls->ke[0] = ls->ke[1] = ls->ke[2] = ls->ke[3] = NULL;
                rt->lstates[rt->nlstates++] = ls;
                __atomic_store_n(L->lslot, (void *)((uintptr_t)rt->lgen << 32 | rt->nlstates), __ATOMIC_RELEASE);
            }
        }
        if (ls && !ls->ke[variant]) ls->ke[variant] = e;
    }
    pthread_mutex_unlock(&rt->prog_lock);
    if (!e)
        return L->uses_fp64 ? fallback(L, "not-eligible: %s", "device has no fp64")
                            : failed(L, "fallback: %s", cyrt_cl_error_name(err.code));
    *ke = e;
    return -1;
}

/* timed: a quiet kernel's launch the dispatcher times (its calibration run,
 * or every SAMPLE-th of its launches): it waits for its result, and first
 * for any kernel still pending, whose time (*drained_ns) is not its own. */
static int launch(cyrt_rt *rt, cyocl_launch *L, int kerr[4], uint64_t ph[PH_N], cyrt_xfer *moved, int *unwaited,
                  int timed, uint64_t *drained_ns) {
    cyrt_err err = {0};
    cyrt_xfer acc = {0};
    int rc = 1;
    memset(kerr, 0, 4 * sizeof *kerr);
    L->break_it = -1;
    L->failure = 0;
    L->serial = 0;
    L->tiled = 0;
    L->kernel_ns = 0;
    if (L->npairs && L->kernel_serial && pairs_overlap(L)) {
        L->serial = 1;
        L->inner = 0;
    }
    /* the GPU plan's geometry: work-groups along the collapsed loop
       (dimension 0) and the prange (dimension 1); the small-grid version
       where the plan's own grid would leave compute units idle */
    size_t tglobal[2] = {0, 0}, tlocal[2] = {0, 0};
    if (!L->serial && L->kernel_tiled && L->tile_local[0] > 0 && L->tile_local[1] > 0 && L->tile_elems[0] > 0 &&
        L->tile_elems[1] > 0 && L->n >= 0 && L->inner >= 0) {
        const int *lo = L->tile_local, *el = L->tile_elems;
        size_t g0 = ((size_t)L->inner + (size_t)el[0] - 1) / (size_t)el[0];
        size_t g1 = ((size_t)L->n + (size_t)el[1] - 1) / (size_t)el[1];
        unsigned cus = 0;
        int ok = gpu_plan(rt, L, (size_t)lo[0] * (size_t)lo[1], &cus), small = 0;
        if (ok && L->kernel_tiled_small && L->small_local[0] > 0 && L->small_local[1] > 0 && L->small_elems[0] > 0 &&
            L->small_elems[1] > 0 && g0 * g1 < (size_t)cus && gpu_plan(rt, L, (size_t)L->small_local[0] * (size_t)L->small_local[1], &cus)) {
            lo = L->small_local, el = L->small_elems, small = 1;
            g0 = ((size_t)L->inner + (size_t)el[0] - 1) / (size_t)el[0];
            g1 = ((size_t)L->n + (size_t)el[1] - 1) / (size_t)el[1];
        }
        tlocal[0] = (size_t)lo[0];
        tlocal[1] = (size_t)lo[1];
        tglobal[0] = (g0 ? g0 : 1) * tlocal[0];
        tglobal[1] = (g1 ? g1 : 1) * tlocal[1];
        /* grids beyond every device's limits (65535 groups in y on CUDA)
           keep the 1-D schedule */
        L->tiled = ok && g0 <= 0x7fffffff && g1 <= 65535 ? 1 + small : 0;
    }
    int variant = L->serial ? 1 : L->tiled ? 1 + L->tiled : 0;
    const char *kname = L->serial ? L->kernel_serial : L->tiled == 2 ? L->kernel_tiled_small : L->tiled ? L->kernel_tiled : L->kernel;
    for (int i = 0; i < L->nargs; i++) {
        cyocl_arg *a = &L->args[i];
        if (a->kind != CYOCL_A_VIEW) continue;
        if (a->ndim > CYOCL_API_MAX_NDIM) return fallback(L, "fallback: %s", "too many dimensions");
        for (int k = 0; k < a->ndim; k++)
            if (a->strides[k] % a->size) return fallback(L, "fallback: %s", "unaligned view");
        if ((uintptr_t)a->ptr % (uintptr_t)a->size) return fallback(L, "fallback: %s", "unaligned view");
    }
    struct cyrt_lstate st;
    struct cyrt_kent *ke = NULL;
    int s = setup(rt, L, kname, variant, &st, &ke);
    if (s >= 0) return s;
    int dev = st.dev;
    if (cyrt_registry_device(rt) != dev && cyrt_use_device(rt, dev, &err) != CYRT_OK) {
        kent_put(rt, ke, 0);
        return err.code ? failed(L, "fallback: %s", cyrt_cl_error_name(err.code))
                        : fallback(L, "fallback: %s", "the regions are in use on another device");
    }
    cl_context ctx = st.ctx;
    cl_command_queue q = st.q;
    if (L->kernel_time) {
        cl_command_queue pq = prof_queue(rt, ctx, dev, st.prog);
        if (pq) q = pq;
        else L->kernel_time = 0;
    }
    /* a quiet kernel still running on another queue may use these views:
       queues are not ordered among themselves */
    if (__atomic_load_n(&rt->pend_q, __ATOMIC_RELAXED)) {
        uint64_t t = now_ns();
        pthread_mutex_lock(&rt->lock);
        int drc = rt->pend_q != q || timed ? cyrt_drain_locked(rt) : 0;
        pthread_mutex_unlock(&rt->lock);
        *drained_ns = now_ns() - t;
        if (drc)
            return failed(L, "fallback: an earlier unwaited kernel failed: %s", cyrt_cl_error_name(drc));
    }

    const cyrt_cl *cl = &rt->cl;
    ph[PH_SETUP] = now_ns();
    /* per argument group: small calls keep these on the stack */
    enum { NSTACK = 16 };
    size_t nv = 0, cap = (size_t)L->nargs + 1;
    cyrt_handle *hs_s[NSTACK];
    unsigned modes_s[NSTACK];
    int kept_s[NSTACK], hview_s[NSTACK];
    cyrt_devref refs_s[NSTACK];
    cyrt_handle **hs = hs_s;
    unsigned *modes = modes_s;
    int *kept = kept_s, *hview = hview_s;
    cyrt_devref *refs = refs_s;
    if (cap > NSTACK) {
        hs = calloc(cap, sizeof *hs);
        modes = calloc(cap, sizeof *modes);
        kept = calloc(cap, sizeof *kept);
        refs = calloc(cap, sizeof *refs);
        hview = calloc(cap, sizeof *hview); /* arg index -> handle index, -1 none */
    } else {
        memset(hs_s, 0, sizeof hs_s);
        memset(kept_s, 0, sizeof kept_s);
    }
    int acquired = 0, ran = 0, enqueued = 0, nlast = 0;
    cl_mem scr = ke->scr;
    cl_event ev = NULL;
    if (!hs || !modes || !kept || !refs || !hview) {
        failed(L, "fallback: %s", "out of memory");
        goto done;
    }
    size_t local = st.local;
    /* a work-item per iteration, per (i, j) pair for a collapsed nest; the
       kernels' grid-stride loops take whatever is beyond the cap below */
    size_t n = (size_t)L->n, work = n;
    if (L->inner > 0 && __builtin_mul_overflow(n, (size_t)L->inner, &work)) work = SIZE_MAX - local;
    size_t ng = (work + local - 1) / local;
    if (!ng) ng = 1;
    /* the kernel's grid-stride loop takes the rest: on GPUs a work-item per
       iteration where it can, up to 2^31 work-items (the kernels' 32-bit
       index fast path); with reductions, at most 65536 partials for the
       last group to combine */
    int reds = 0;
    for (int i = 0; i < L->nargs; i++) reds |= L->args[i].kind == CYOCL_A_RED;
    size_t gcap = st.gpu && !reds ? (((size_t)1 << 31) - 1) / local : 65536;
    if (ng > gcap) ng = gcap;
    size_t global = ng * local;
    /* a collapsed nest on a GPU (CYOCL_PLAN=gpu: on any device; not with
       reductions: their tree is 1-D): a 2-D grid, dimension 0 along the
       range() loop, 1 along the prange — groups of up to `local` along j,
       the rest along i where j is short.  The grid covers the nest, a
       work-item per pair: the kernel's 2-D form has no loop (oclgen.c), so
       a nest past 65535 groups along i (CUDA's limit) or 65536 along j
       takes the 1-D walk instead */
    size_t cglobal[2] = {0, 0}, clocal[2] = {0, 0};
    int pm = plan_mode(rt);
    int grid2 = ((st.gpu && pm != 3) || pm == 2) && !reds && !L->serial && !L->tiled && L->inner > 0 && L->n > 0;
    if (grid2) {
        size_t inner = (size_t)L->inner, l0 = 1;
        while (l0 < inner && l0 < local) l0 *= 2;
        size_t l1 = local / l0 ? local / l0 : 1;
        size_t g0 = (inner + l0 - 1) / l0, g1 = ((size_t)L->n + l1 - 1) / l1;
        clocal[0] = l0, clocal[1] = l1;
        cglobal[0] = g0 * l0;
        cglobal[1] = g1 * l1;
        grid2 = g0 <= 65536 && g1 <= 65535;
    }

    for (int i = 0; i < L->nargs; i++) {
        cyocl_arg *a = &L->args[i];
        hview[i] = -1;
        if (a->kind != CYOCL_A_VIEW || !(a->read || a->written)) continue;
        if (cyrt_scope_view(rt, a->ptr, a->ndim, a->shape, a->strides, (size_t)a->size, &hs[nv], &kept[nv], &acc,
                            &err) != CYRT_OK) {
            failed(L, "fallback: %s", err.code ? cyrt_cl_error_name(err.code) : "registry");
            goto done;
        }
        modes[nv] = (a->read ? CYRT_READ : 0) | (a->written ? CYRT_WRITE : 0) |
                    (cyocl_launch_writes_whole(L, a) ? CYRT_WRITE_ALL : 0);
        hview[i] = (int)nv++;
        if (cyrt_host_pinned(rt, hs[nv - 1])) {
            fallback(L, "fallback: %s", "pinned to the host (cyocl.pin_host)");
            goto done;
        }
    }
    if (nv && cyrt_device_acquire(rt, nv, hs, modes, refs, &acc, &err) != CYRT_OK) {
        failed(L, "fallback: %s", err.code ? cyrt_cl_error_name(err.code) : "device memory");
        goto done;
    }
    acquired = nv > 0;
    ph[PH_VIEWS] = now_ns();
    cl_int ce = 0;
    unsigned ai = 0, nka = 4;
    for (int i = 0; i < L->nargs; i++)
        nka += L->args[i].kind == CYOCL_A_VIEW ? 2 + 2 * (unsigned)L->args[i].ndim : L->args[i].kind == CYOCL_A_LAST ? 0
               : L->args[i].kind == CYOCL_A_RED                                   ? 2
                                                                                  : 1;
    kent_args_init(ke, nka);
#define ARG(sz, val)                                                                                               \
    do {                                                                                                           \
        if ((ce = kent_arg(rt, ke, ai++, (sz), (val))) != CL_SUCCESS) {                                            \
            failed(L, "fallback: %s", cyrt_cl_error_name(ce));                                                     \
            goto done;                                                                                             \
        }                                                                                                          \
    } while (0)
    long start = (long)L->start, step = (long)L->step, cnt = (long)L->n;
    ARG(sizeof start, &start);
    ARG(sizeof step, &step);
    ARG(sizeof cnt, &cnt);
    /* the scratch image before the launch: zeros, then the lastprivates'
       values in both slots (oclgen.h) */
    size_t roff = 32;
    for (int i = 0; i < L->nargs; i++) {
        cyocl_arg *a = &L->args[i];
        switch (a->kind) {
        case CYOCL_A_VIEW: {
            void *mem = NULL;
            long off = 0;
            if (hview[i] >= 0) {
                cyrt_devref *r = &refs[hview[i]];
                if (r->elem_offset == SIZE_MAX) {
                    fallback(L, "fallback: %s", "unaligned view");
                    goto done;
                }
                mem = r->mem;
                off = (long)r->elem_offset;
            }
            ARG(sizeof(cl_mem), &mem);
            ARG(sizeof off, &off);
            for (int d = 0; d < a->ndim; d++) {
                long sv = (long)(a->strides[d] / a->size);
                ARG(sizeof sv, &sv);
            }
            for (int d = 0; d < a->ndim; d++) {
                long sh = (long)a->shape[d];
                ARG(sizeof sh, &sh);
            }
            break;
        }
        case CYOCL_A_SCALAR: ARG((size_t)a->size, a->ptr); break;
        case CYOCL_A_RED: {
            cl_mem m = kent_buf(rt, ctx, ke, i, ng * (size_t)a->size, &ce);
            if (!m) {
                failed(L, "fallback: %s", cyrt_cl_error_name(ce));
                goto done;
            }
            ARG(sizeof(cl_mem), &m);
            ARG(local * (size_t)a->size, NULL);
            roff += 8;
            break;
        }
        case CYOCL_A_LAST:
            nlast++;
            roff += 16;
            break;
        }
    }
    ARG(sizeof scr, &scr);
#undef ARG
    if (nlast || ke->scr_dirty) {
        /* not blocking: the image is the entry's, which stays busy until
           the blocking read below (the queue is in order) */
        unsigned char *img = ke->img_in;
        memset(img, 0, 32);
        size_t o = roff - 16 * (size_t)nlast;
        for (int i = 0; i < L->nargs; i++) {
            cyocl_arg *a = &L->args[i];
            if (a->kind != CYOCL_A_LAST) continue;
            memcpy(img + o, a->ptr, (size_t)a->size);
            memcpy(img + o + 8, a->ptr, (size_t)a->size);
            o += 16;
        }
        size_t bytes = nlast ? ke->scr_bytes : 32;
        if ((ce = cl->clEnqueueWriteBuffer(q, scr, CL_FALSE, 0, bytes, img, 0, NULL, NULL))) {
            failed(L, "fallback: %s", cyrt_cl_error_name(ce));
            goto done;
        }
        enqueued = 1;
        ke->scr_dirty = 0;
    }
    ph[PH_ARGS] = now_ns();
    /* not waited for here: the blocking read of the scratch below waits
       for it, one round trip in all; an event only for the trace */
    if ((ce = cl->clEnqueueNDRangeKernel(q, ke->k, L->tiled || grid2 ? 2 : 1, NULL,
                                         L->tiled ? tglobal : grid2 ? cglobal : &global,
                                         L->tiled ? tlocal : grid2 ? clocal : &local, 0, NULL,
                                         L->kernel_time ? &ev : NULL))) {
        ev = NULL;
        failed(L, "fallback: %s", cyrt_cl_error_name(ce));
        goto done;
    }
    enqueued = 1;
    ph[PH_KERNEL] = now_ns();
    unsigned char *res = ke->img_out;
    /* A quiet kernel (IrRegion.ocl_quiet) has nothing to read: the launch
       returns once it is enqueued, and whatever next copies device memory
       or launches on another queue waits for it (cyrt_drain_locked).  Not
       when the trace or the dispatcher's calibration times the launch. */
    *unwaited = L->quiet && !L->kernel_time && roff == 32 && !nlast && !L->has_break && !ke->scr_dirty && !timed;
    if (*unwaited) {
        cl->clFlush(q);
        pthread_mutex_lock(&rt->lock);
        rt->pend_q = q;
        pthread_mutex_unlock(&rt->lock);
        enqueued = 0;
        memset(res, 0, 32);
        __atomic_add_fetch(&rt->counts.unwaited, 1, __ATOMIC_RELAXED);
    } else {
        /* blocking: a read still in flight after a failure would write into
           memory that may go away */
        ce = cl->clEnqueueReadBuffer(q, scr, CL_TRUE, 0, roff, res, 0, NULL, NULL);
        enqueued = 0;
        if (ce) {
            failed(L, "fallback: %s", cyrt_cl_error_name(ce));
            goto done;
        }
        __atomic_add_fetch(&rt->counts.result_reads, 1, __ATOMIC_RELAXED);
    }
    memcpy(kerr, res, 4 * sizeof *kerr);
    if (kerr[0] || kerr[1] || kerr[2] || kerr[3]) ke->scr_dirty = 1;
    /* outside a def call nothing brings the data back later: now, while
       the host copies from before the launch can still stand in */
    for (size_t i = 0, first = 1; i < nv; i++) {
        if (kept[i] || !(modes[i] & CYRT_WRITE)) continue;
        if (cyrt_host_acquire(rt, hs[i], CYRT_READ, &acc, &err) != CYRT_OK) {
            if (first) {
                failed(L, "fallback: %s", err.code ? cyrt_cl_error_name(err.code) : "copying back");
                goto done;
            }
            /* some results are on the host, some lost: nothing can redo it */
            memset(kerr, 0, 4 * sizeof *kerr);
            kerr[0] = 6;
            ran = 1;
            rc = 2;
            goto done;
        }
        first = 0;
    }
    /* the device ran: from here on the results are the region's */
    ran = 1;
    cl_ulong t0 = 0, t1 = 0;
    if (ev && cl->clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL) == CL_SUCCESS &&
        cl->clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL) == CL_SUCCESS && t1 >= t0)
        L->kernel_ns = t1 - t0;
    rc = kerr[0] && kerr[0] != 3 ? 2 : 0;
    if (rc == 0) {
        int broke = kerr[0] == 3;
        if (broke) L->break_it = (long long)((unsigned long long)(unsigned)kerr[2] | (unsigned long long)(unsigned)kerr[3] << 32);
        size_t o = 32;
        for (int i = 0; i < L->nargs; i++) {
            cyocl_arg *a = &L->args[i];
            if (a->kind == CYOCL_A_RED) {
                combine(a, res + o, 1);
                o += 8;
            }
        }
        for (int i = 0; i < L->nargs; i++) {
            cyocl_arg *a = &L->args[i];
            if (a->kind != CYOCL_A_LAST) continue;
            memcpy(a->ptr, res + o + (broke ? 8 : 0), (size_t)a->size);
            o += 16;
        }
    }
    ph[PH_READ] = now_ns();
done:
    /* a failure after something was enqueued: it must be over before the
       entry (whose image a write may still read) can go */
    if (enqueued) cl->clFinish(q);
    /* a launch that failed leaves the host copies as they were before it
     * where they were valid then, so the native rerun starts from them */
    if (acquired) {
        if (ran) cyrt_device_done(rt, nv, hs);
        else cyrt_device_abandon(rt, nv, hs);
    }
    for (size_t i = 0; hs && kept && i < nv; i++)
        if (hs[i] && !kept[i]) cyrt_release(rt, hs[i], &acc, &err);
    if (ev) cl->clReleaseEvent(ev);
    /* a kernel whose launch failed in OpenCL goes with its buffers */
    kent_put(rt, ke, rc == 1 && L->failure);
    if (hs != hs_s) {
        free(hs);
        free(modes);
        free(kept);
        free(refs);
        free(hview);
    }
    L->bytes_to_device = acc.bytes_to_device;
    L->bytes_to_host = acc.bytes_to_host;
    *moved = acc;
    ph[PH_DONE] = now_ns();
    return rc;
}

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

int cyrt_launch_region(cyrt_rt *rt, cyocl_launch *L, int kerr[4]) {
    uint64_t t0 = now_ns(), ph[PH_N] = {0};
    L->build = 0;
    int verbose = __atomic_load_n(&rt->verbose, __ATOMIC_RELAXED);
    if (!verbose) {
        /* read once: getenv walks the environment */
        const char *v = getenv("CYOCL_VERBOSE");
        verbose = v && !strcmp(v, "2") ? 3 : v && !strcmp(v, "1") ? 2 : 1;
        __atomic_store_n(&rt->verbose, verbose, __ATOMIC_RELAXED);
    }
    if (verbose == 3) L->kernel_time = 1;
    cyrt_xfer moved = {0};
    int unwaited = 0;
    /* the dispatcher learns a quiet kernel's time from the launches that
       wait: its calibration runs, and every SAMPLE-th (cyrt_dispatch_wait_due) */
    cyrt_dregion *dr = L->dslot ? __atomic_load_n((cyrt_dregion **)L->dslot, __ATOMIC_ACQUIRE) : NULL;
    int timed = dr && L->quiet && !L->kernel_time &&
                (!strncmp(L->reason, "calibrating", 11) || cyrt_dispatch_wait_due(rt, dr, cyocl_launch_work(L)));
    uint64_t drained = 0;
    int rc = launch(rt, L, kerr, ph, &moved, &unwaited, timed, &drained);
    if (ph[PH_SETUP] || L->build)
        cyrt_dispatch_device_used(rt, L->build != 0);
    if (verbose == 3 && ph[PH_DONE]) {
        /* where a launch's time goes: set-up (device, program, kernel),
           views (registry, transfers), arguments, kernel (enqueue and wait),
           results (error buffer, partials), release */
        uint64_t prev = t0;
        char line[256];
        int k = snprintf(line, sizeof line, "cyocl: %s: launch us:", L->kernel);
        static const char *const names[PH_N] = {"setup", "views", "args", "kernel", "results", "release"};
        for (int i = 0; i < PH_N && k > 0 && (size_t)k < sizeof line; i++) {
            uint64_t t = ph[i] ? ph[i] : prev;
            k += snprintf(line + k, sizeof line - (size_t)k, " %s %.1f", names[i], (double)(t - prev) / 1e3);
            prev = t;
        }
        fprintf(stderr, "%s (device %.1f)\n", line, (double)L->kernel_ns / 1e3);
    }
    /* the dispatcher learns from every device run it asked for: the time
       without a program build, which only the first run pays */
    /* an unwaited launch's time is its enqueue's, not the kernel's */
    if (dr && rc == 0 && ph[PH_DONE] && !unwaited) {
        uint64_t ns = now_ns() - t0;
        ns = ns > drained ? ns - drained : 0;
        if (L->build && ph[PH_SETUP] > t0 && ns > ph[PH_SETUP] - t0) ns -= ph[PH_SETUP] - t0;
        /* the copies as timed, not as predicted: the device's own time is
           what is left (and the copies refine the bandwidths) */
        cyrt_dispatch_observe_xfer(rt, dr, CYRT_SIDE_OPENCL, cyocl_launch_work(L), (long long)ns, &moved);
    } else if (dr && rc == 1 && (L->failure || !strncmp(L->reason, "not-eligible", 12))) {
        cyrt_dispatch_disable(rt, dr);
    }
    /* and a quiet kernel's cost in a stream of launches: up to its enqueue,
       less the uploads before it (a region whose data stays on the host
       between its device runs would never learn it otherwise) and any wait
       for kernels still pending (a timed launch's, or one after another
       queue's: no stream's own; H100, bench side, c03 jacobi 316x316
       resident: with the timed launches' waits the enqueue read 14 us, back
       to back a step took 8, and the team's 9-11 chose: 1.56x) */
    if (dr && rc == 0 && L->quiet && !L->build && ph[PH_KERNEL] > t0) {
        uint64_t enq = (unwaited ? now_ns() : ph[PH_KERNEL]) - t0, off = moved.ns_to_device + drained;
        cyrt_dispatch_observe_enqueue(rt, dr, enq > off ? (long long)(enq - off) : 0, unwaited);
    }
    cyrt_counts *c = &rt->counts;
    if (rc == 1) {
        __atomic_add_fetch(&c->fallbacks, 1, __ATOMIC_RELAXED);
        if (L->failure) __atomic_add_fetch(&c->failures, 1, __ATOMIC_RELAXED);
    } else {
        __atomic_add_fetch(&c->launches, 1, __ATOMIC_RELAXED);
        __atomic_add_fetch(&c->device_ns, now_ns() - t0, __ATOMIC_RELAXED);
    }
    if (L->build == 1) __atomic_add_fetch(&c->programs_compiled, 1, __ATOMIC_RELAXED);
    if (L->build == 2) __atomic_add_fetch(&c->programs_loaded, 1, __ATOMIC_RELAXED);
    return rc;
}
