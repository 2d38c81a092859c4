/* test_icd.c: the OpenCL side of the runtime — no loader, no platform
 * (OCL_ICD_VENDORS at an empty directory, in a child process: the loader
 * reads it once per process), and with a platform (PoCL here): devices,
 * selection by the environment, a context, a program that builds, one that
 * does not (with its log), and the registry on real OpenCL buffers.
 * Without any platform the device part is skipped with a message. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "runtime/cyrt.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

/* OpenCL drivers may keep allocations until the process ends (PoCL 3.1
 * here does not, others do); they are not the runtime's, whose own leaks
 * are still reported. */
CY_TEST_DRIVER_LEAKS_ARE_NOT_OURS("")

static int count(const char *s, const char *what) {
    int n = 0;
    for (const char *p = s; p && (p = strstr(p, what)) != NULL; p++)
        n++;
    return n;
}

static cyrt_rt *new_rt(const char *loader) {
    cyrt_config cfg = {.loader = loader, .quiet = 1};
    cyrt_rt *rt = NULL;
    if (cyrt_rt_new(&cfg, &rt) != CYRT_OK) {
        fprintf(stderr, "cyrt_rt_new failed\n");
        exit(1);
    }
    return rt;
}

static void test_no_loader(void) {
    cyrt_rt *rt = new_rt("libcyocl-no-such-opencl-loader.so.1");
    const cyrt_devinfo *list = NULL;
    int n = -1;
    cyrt_err err = {0};
    CHECK(cyrt_devices(rt, &list, &n, &err) == CYRT_ENOLOADER);
    CHECK(list == NULL && n == 0);
    CHECK(strstr(err.msg, "no OpenCL ICD loader") != NULL);
    /* asked again: the same answer, no second attempt needed */
    memset(&err, 0, sizeof err);
    int idx;
    CHECK(cyrt_select_device(rt, CYRT_DEV_ALL, &idx, &err) == CYRT_ENOLOADER && idx == -1);
    CHECK(strstr(err.msg, "no OpenCL ICD loader") != NULL);
    /* the registry still works on the host, and a device acquisition says why not */
    double x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    ptrdiff_t shape = 8, stride = 8;
    cyrt_handle *h = NULL;
    CHECK(cyrt_register(rt, x, 1, &shape, &stride, 8, &h, NULL, NULL) == CYRT_OK);
    unsigned mode = CYRT_RW;
    cyrt_devref ref;
    CHECK(cyrt_device_acquire(rt, 1, &h, &mode, &ref, NULL, &err) == CYRT_ENOLOADER);
    CHECK(cyrt_host_acquire(rt, h, CYRT_WRITE, NULL, NULL) == CYRT_OK);
    CHECK(cyrt_release(rt, h, NULL, NULL) == CYRT_OK);
    CHECK(cyrt_rt_free(rt, NULL) == CYRT_OK);
}

/* In a child: the ICD loader reads OCL_ICD_VENDORS once per process. */
static void test_no_platform(void) {
    char dir[] = "/tmp/cyocl-test-icd-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        failures++;
        return;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        setenv("OCL_ICD_VENDORS", dir, 1);
        cyrt_rt *rt = new_rt(NULL);
        const cyrt_devinfo *list;
        int n;
        cyrt_err err = {0};
        cyrt_status st = cyrt_devices(rt, &list, &n, &err);
        int ok = 1;
        void *lib = st == CYRT_OK ? dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL) : NULL;
        if (lib && !dlsym(lib, "clGetICDLoaderInfoOCLICD")) {
            /* not ocl-icd: e.g. the loader CUDA bundles finds its own driver whatever
             * OCL_ICD_VENDORS says; the no-loader case above is the check there */
            printf("test_icd: SKIP the no-platform case: this OpenCL loader ignores "
                   "OCL_ICD_VENDORS (%d devices found)\n", n);
        } else if (st == CYRT_ENOLOADER) {
            printf("test_icd: no OpenCL loader installed: the no-platform case is the no-loader "
                   "case here (%s)\n", err.msg);
        } else if (st != CYRT_ENOPLATFORM || n != 0 || !strstr(err.msg, "no platform")) {
            fprintf(stderr, "no-platform child: status %s, %d devices, '%s'\n",
                    cyrt_status_name(st), n, err.msg);
            ok = 0;
        } else {
            printf("test_icd: with an empty OCL_ICD_VENDORS: %s\n", err.msg);
        }
        int idx;
        if (!lib && cyrt_select_device(rt, CYRT_DEV_ALL, &idx, NULL) == CYRT_OK)
            ok = 0;
        if (lib)
            dlclose(lib);
        cyrt_rt_free(rt, NULL);
        fflush(NULL);
        exit(ok ? 0 : 1);
    }
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    rmdir(dir);
}

static const char *GOOD =
    "__kernel void add(__global float *x, unsigned long off, float y) {\n"
    "    x[off + get_global_id(0)] += y + VAL;\n"
    "}\n";

static const char *BAD =
    "__kernel void broken(__global float *x) {\n"
    "    x[0] = cyocl_undefined_identifier;\n"
    "}\n";

static void test_device(void) {
    cyrt_rt *rt = new_rt(NULL);
    const cyrt_devinfo *list;
    int n;
    cyrt_err err = {0};
    cyrt_status st = cyrt_devices(rt, &list, &n, &err);
    if (st == CYRT_ENOLOADER || st == CYRT_ENOPLATFORM) {
        printf("test_icd: SKIP the device tests: %s\n", err.msg);
        cyrt_rt_free(rt, NULL);
        return;
    }
    CHECK(st == CYRT_OK && n >= 1);
    if (st != CYRT_OK || n < 1) {
        cyrt_rt_free(rt, NULL);
        return;
    }
    for (int i = 0; i < n; i++) {
        const cyrt_devinfo *d = &list[i];
        printf("test_icd: device %d: %s / %s (%s), %s, %s, fp64 %d, %llu MiB, %u CUs, wg %zu\n",
               d->index, d->platform, d->name, cyrt_device_type_name(d->type), d->version,
               d->clc_version, d->fp64, (unsigned long long)(d->global_mem >> 20),
               d->compute_units, d->max_work_group);
        CHECK(d->index == i && d->name[0] && d->platform[0] && d->global_mem > 0);
        CHECK(d->compute_units > 0 && d->max_work_group > 0);
    }

    /* choosing a device through the environment */
    int idx = -1;
    unsetenv("CYOCL_DEVICE");
    unsetenv("CYOCL_DEVICE_TYPE");
    CHECK(cyrt_select_device(rt, CYRT_DEV_ALL, &idx, &err) == CYRT_OK && idx >= 0 && idx < n);
    int chosen = idx;
    setenv("CYOCL_DEVICE", "0", 1);
    CHECK(cyrt_select_device(rt, CYRT_DEV_ALL, &idx, NULL) == CYRT_OK && idx == 0);
    setenv("CYOCL_DEVICE", list[n - 1].name, 1); /* a device name matches */
    CHECK(cyrt_select_device(rt, CYRT_DEV_ALL, &idx, NULL) == CYRT_OK &&
          strcmp(list[idx].name, list[n - 1].name) == 0);
    setenv("CYOCL_DEVICE", "9999", 1); /* out of range: a warning and the default */
    CHECK(cyrt_select_device(rt, CYRT_DEV_ALL, &idx, NULL) == CYRT_OK && idx == chosen);
    setenv("CYOCL_DEVICE", "no-such-device-name-anywhere", 1);
    CHECK(cyrt_select_device(rt, CYRT_DEV_ALL, &idx, NULL) == CYRT_OK && idx == chosen);
    CHECK(cyrt_select_device(rt, CYRT_DEV_ALL, &idx, NULL) == CYRT_OK && idx == chosen);
    unsetenv("CYOCL_DEVICE");
    setenv("CYOCL_DEVICE_TYPE", "quantum", 1); /* unknown: a warning, all types */
    CHECK(cyrt_allowed_types(rt, CYRT_DEV_ALL) == CYRT_DEV_ALL);
    CHECK(cyrt_select_device(rt, CYRT_DEV_ALL, &idx, NULL) == CYRT_OK && idx == chosen);
    char *w = cyrt_warnings(rt);
    CHECK(w && strstr(w, "CYOCL_DEVICE=9999") && strstr(w, "no-such-device-name-anywhere") &&
          strstr(w, "CYOCL_DEVICE_TYPE='quantum'"));
    CHECK(count(w, "no-such-device-name-anywhere") == 1); /* each warning once */
    free(w);
    int ncpu = 0, ngpu = 0;
    for (int i = 0; i < n; i++)
        ncpu += list[i].type == CYRT_DEV_CPU, ngpu += list[i].type == CYRT_DEV_GPU;
    setenv("CYOCL_DEVICE_TYPE", "gpu", 1);
    st = cyrt_select_device(rt, CYRT_DEV_ALL, &idx, &err);
    CHECK(ngpu ? st == CYRT_OK && list[idx].type == CYRT_DEV_GPU : st == CYRT_ENODEVICE);
    setenv("CYOCL_DEVICE_TYPE", "cpu", 1);
    st = cyrt_select_device(rt, CYRT_DEV_ALL, &idx, &err);
    CHECK(ncpu ? st == CYRT_OK && list[idx].type == CYRT_DEV_CPU : st == CYRT_ENODEVICE);
    /* --no-opencl-gpu: a module allows CPUs only */
    unsetenv("CYOCL_DEVICE_TYPE");
    st = cyrt_select_device(rt, CYRT_DEV_CPU, &idx, &err);
    CHECK(ncpu ? st == CYRT_OK && list[idx].type == CYRT_DEV_CPU : st == CYRT_ENODEVICE);

    /* a context, a queue, a program */
    struct _cl_context *ctx = NULL;
    struct _cl_command_queue *q = NULL;
    CHECK(cyrt_device_open(rt, chosen, &ctx, &q, &err) == CYRT_OK && ctx && q);
    struct _cl_context *ctx2 = NULL;
    CHECK(cyrt_device_open(rt, chosen, &ctx2, NULL, NULL) == CYRT_OK && ctx2 == ctx);
    struct _cl_program *prog = NULL;
    char *log = NULL;
    setenv("CYOCL_BUILD_OPTIONS", "-DVAL=40.0f", 1); /* appended to the options */
    st = cyrt_program_build(rt, chosen, GOOD, "-cl-std=CL1.2", &prog, &log, &err);
    CHECK(st == CYRT_OK && prog && !log);
    if (st != CYRT_OK)
        fprintf(stderr, "build: %s\n%s\n", err.msg, log ? log : "");
    free(log);
    unsetenv("CYOCL_BUILD_OPTIONS");

    /* a program that does not build returns its log */
    struct _cl_program *bad = NULL;
    log = NULL;
    st = cyrt_program_build(rt, chosen, BAD, NULL, &bad, &log, &err);
    CHECK(st == CYRT_EBUILD && !bad && log && strstr(log, "cyocl_undefined_identifier"));
    CHECK(strstr(err.msg, "CL_BUILD_PROGRAM_FAILURE") != NULL);
    printf("test_icd: a bad program: %s; log: %.120s...\n", err.msg, log ? log : "(none)");
    free(log);

    struct _cl_kernel *k = NULL;
    CHECK(cyrt_kernel_create(rt, prog, "no_such_kernel", &k, &err) == CYRT_ECL && !k);
    CHECK(strstr(err.msg, "CL_INVALID_KERNEL_NAME") != NULL);
    CHECK(cyrt_kernel_create(rt, prog, "add", &k, &err) == CYRT_OK && k);

    /* the registry on OpenCL buffers: a kernel adds through a slice */
    CHECK(cyrt_use_device(rt, chosen, &err) == CYRT_OK && cyrt_registry_device(rt) == chosen);
    float *x = aligned_alloc(128, 256 * sizeof(float)); /* buffer offsets keep the host's mod 128 */
    for (int i = 0; i < 256; i++)
        x[i] = (float)i;
    ptrdiff_t nall = 256, nsl = 100, sf = (ptrdiff_t)sizeof(float);
    cyrt_handle *whole = NULL, *slice = NULL;
    CHECK(cyrt_register(rt, x, 1, &nall, &sf, sizeof(float), &whole, NULL, NULL) == CYRT_OK);
    CHECK(cyrt_register(rt, x + 50, 1, &nsl, &sf, sizeof(float), &slice, NULL, NULL) == CYRT_OK);
    unsigned mode = CYRT_RW;
    cyrt_devref ref;
    cyrt_xfer call = {0};
    CHECK(cyrt_device_acquire(rt, 1, &slice, &mode, &ref, &call, &err) == CYRT_OK);
    CHECK(ref.mem && ref.elem_offset == 50 && call.bytes_to_device == 256 * sizeof(float));
    unsigned long off = ref.elem_offset;
    float y = 2.0f;
    CHECK(cyrt_kernel_arg(rt, k, 0, sizeof ref.mem, &ref.mem, &err) == CYRT_OK);
    CHECK(cyrt_kernel_arg(rt, k, 1, sizeof off, &off, &err) == CYRT_OK);
    CHECK(cyrt_kernel_arg(rt, k, 2, sizeof y, &y, &err) == CYRT_OK);
    CHECK(cyrt_kernel_arg(rt, k, 7, sizeof y, &y, &err) == CYRT_ECL);
    size_t global = 100;
    uint64_t ns = 0;
    CHECK(cyrt_kernel_launch(rt, chosen, k, 1, &global, NULL, &ns, &err) == CYRT_OK);
    cyrt_device_done(rt, 1, &slice);
    CHECK(x[60] == 60.0f); /* still on the device */
    CHECK(cyrt_host_acquire(rt, whole, CYRT_READ, &call, &err) == CYRT_OK);
    CHECK(call.bytes_to_host == 256 * sizeof(float));
    CHECK(x[49] == 49.0f && x[50] == 92.0f && x[149] == 191.0f && x[150] == 150.0f);
    /* a device write, then the release of the last view copies it back */
    CHECK(cyrt_device_acquire(rt, 1, &whole, &mode, &ref, NULL, &err) == CYRT_OK);
    CHECK(ref.elem_offset == 0);
    off = ref.elem_offset;
    CHECK(cyrt_kernel_arg(rt, k, 0, sizeof ref.mem, &ref.mem, &err) == CYRT_OK);
    CHECK(cyrt_kernel_arg(rt, k, 1, sizeof off, &off, &err) == CYRT_OK);
    CHECK(cyrt_kernel_launch(rt, chosen, k, 1, &global, NULL, NULL, &err) == CYRT_OK);
    cyrt_device_done(rt, 1, &whole);
    CHECK(cyrt_release(rt, slice, NULL, NULL) == CYRT_OK);
    CHECK(cyrt_release(rt, whole, NULL, &err) == CYRT_OK);
    CHECK(x[0] == 42.0f && x[49] == 91.0f && x[99] == 183.0f && x[100] == 142.0f &&
          x[200] == 200.0f);
    cyrt_registry_info ri;
    cyrt_registry_info_get(rt, &ri);
    CHECK(ri.tops == 0 && ri.device_buffers == 0);
    free(x);

    cyrt_kernel_release(rt, k);
    cyrt_program_release(rt, prog);
    CHECK(cyrt_rt_free(rt, NULL) == CYRT_OK);
}

int main(void) {
    test_no_loader();
    test_no_platform();
    test_device();
    printf("test_icd: %d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
