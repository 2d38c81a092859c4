/* fault_c.c: the runtime's C API when OpenCL calls fail.
 *
 * Through a private runtime whose loader is tests/fault/clshim.c, one child
 * process per fault (CYOCL_FAULT=NAME[:K], see clshim.c) runs the same work:
 * device enumeration and choice, a program build, a kernel, and three
 * "transactions" on one host array:
 *   T1  register a view, acquire it on the device, a kernel adds 1, copy back;
 *   T2  the same on A = [0, 3N/4), then on B = [N/4, N) while A's only valid
 *       copy is on the device (a merge, device to device), copy back;
 *   T3  cyrt_launch_region (launch.c) with a hand-written kernel of the ABI
 *       in backends/opencl/oclgen.h: a[i] = 2 a[i] + 1 and a sum reduction.
 * Whatever fails must fail with a status (never a crash), and the host
 * array must then be intact: exactly the state before the transaction or
 * after a prefix of its steps (the registry never loses or tears the host
 * copy), so that a native rerun gives the right answer; a launch that says
 * "run natively" (rc 1) must leave the array untouched, one that says "ran"
 * (rc 0) must have the results on the host.  cyrt_rt_free must leave no
 * leak: in the ASan build LeakSanitizer checks every child at its exit.
 *
 * Usage: fault_c SHIM           (runs every fault, each in a child)
 *        fault_c SHIM FAULT     (one; "-" for none)
 * Exit 77 when the shim finds no OpenCL device (CTest: skipped). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "runtime/internal.h"
#include "runtime/cyocl_api.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../unit/check.h"

int cyrt_launch_region(cyrt_rt *rt, cyocl_launch *L, int kerr[4]);

CY_TEST_DRIVER_LEAKS_ARE_NOT_OURS("leak:llvm\n")

enum { N = 4096 };

static const char inc_src[] =
    "__kernel void inc(__global int *a, const long off, const long n) {\n"
    "    long i = get_global_id(0);\n"
    "    if (i < n) a[off + i] += 1;\n"
    "}\n";

/* region ABI (oclgen.h): a[i] = a[i] * 2 + 1; s += a[i] (long) */
static const char twice_src[] =
    "__kernel void cyk_0(const long cy_start, const long cy_step, const long cy_n,\n"
    "                    __global int *v_a_base, const long v_a_off, const long v_a_s0, const long v_a_n0,\n"
    "                    __global long *v_s_part, __local long *v_s_loc,\n"
    "                    __global int *cy_err) {\n"
    "    long acc = 0;\n"
    "    for (long it = get_global_id(0); it < cy_n; it += get_global_size(0)) {\n"
    "        long i = cy_start + it * cy_step;\n"
    "        __global int *p = &v_a_base[v_a_off + i * v_a_s0];\n"
    "        *p = *p * 2 + 1;\n"
    "        acc += *p;\n"
    "    }\n"
    "    __local int last;\n"
    "    size_t l = get_local_id(0), ls = get_local_size(0), ng = get_num_groups(0);\n"
    "    v_s_loc[l] = acc;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    if (l == 0) {\n"
    "        long t = 0;\n"
    "        for (size_t k = 0; k < ls; k++) t += v_s_loc[k];\n"
    "        v_s_part[get_group_id(0)] = t;\n"
    "        mem_fence(CLK_GLOBAL_MEM_FENCE);\n"
    "        last = atomic_inc((volatile __global int *)cy_err + 4) == (int)ng - 1;\n"
    "    }\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    if (last && l == 0) {\n"
    "        /* the last group: the result where the host reads cy_err */\n"
    "        long t = 0;\n"
    "        for (size_t g = 0; g < ng; g++) t += ((volatile __global long *)v_s_part)[g];\n"
    "        *(__global long *)((__global char *)cy_err + 32) = t;\n"
    "        cy_err[4] = 0;\n"
    "    }\n"
    "}\n";

static void add1(int *a, size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; i++)
        a[i] += 1;
}

static int same(const int *a, const int *b) { return memcmp(a, b, N * sizeof *a) == 0; }

/* Adds 1 to a[lo, hi) on the device; 1 when every step succeeded. */
static int dev_inc(cyrt_rt *rt, int dev, cl_kernel k, cyrt_handle *h, size_t lo, size_t hi) {
    (void)lo;
    cyrt_err err = {0};
    unsigned mode = CYRT_RW;
    cyrt_devref ref;
    if (cyrt_device_acquire(rt, 1, &h, &mode, &ref, NULL, &err) != CYRT_OK)
        return 0;
    long off = (long)ref.elem_offset, n = (long)(hi - lo);
    size_t global = ((size_t)n + 63) / 64 * 64;
    int ok = cyrt_kernel_arg(rt, k, 0, sizeof ref.mem, &ref.mem, &err) == CYRT_OK &&
             cyrt_kernel_arg(rt, k, 1, sizeof off, &off, &err) == CYRT_OK &&
             cyrt_kernel_arg(rt, k, 2, sizeof n, &n, &err) == CYRT_OK &&
             cyrt_kernel_launch(rt, dev, k, 1, &global, NULL, NULL, &err) == CYRT_OK;
    cyrt_device_done(rt, 1, &h);
    return ok;
}

static cyrt_handle *reg(cyrt_rt *rt, int *a, size_t lo, size_t hi) {
    ptrdiff_t shape = (ptrdiff_t)(hi - lo), stride = sizeof(int);
    cyrt_handle *h = NULL;
    cyrt_err err = {0};
    if (cyrt_register(rt, a + lo, 1, &shape, &stride, sizeof(int), &h, NULL, &err) != CYRT_OK)
        return NULL;
    return h;
}

static void check_registry_empty(cyrt_rt *rt, const char *where) {
    cyrt_registry_info ri;
    cyrt_registry_info_get(rt, &ri);
    CHECK(ri.handles == 0 && ri.tops == 0, "%s: %zu handles, %zu regions left", where, ri.handles,
          ri.tops);
}

/* T1: a[0, N) += 1 on the device. */
static void t1(cyrt_rt *rt, int dev, cl_kernel k, int *a, int baseline) {
    int *h0 = malloc(N * sizeof *h0), *f = malloc(N * sizeof *f);
    if (!h0 || !f) {
        CHECK(0, "out of memory");
        free(h0), free(f);
        return;
    }
    memcpy(h0, a, N * sizeof *a);
    memcpy(f, a, N * sizeof *a);
    add1(f, 0, N);
    int ok = 0;
    if (k) {
        cyrt_err err = {0};
        cyrt_handle *h = reg(rt, a, 0, N);
        ok = h && dev_inc(rt, dev, k, h, 0, N) && cyrt_host_acquire(rt, h, CYRT_READ, NULL, &err) == CYRT_OK;
        if (h && cyrt_release(rt, h, NULL, &err) != CYRT_OK)
            ok = 0;
    }
    check_registry_empty(rt, "T1");
    CHECK(ok || !baseline, "T1 failed without a fault");
    if (ok) {
        CHECK(same(a, f), "T1: every step succeeded but the host data is wrong");
    } else {
        CHECK(same(a, h0) || same(a, f), "T1: after a failure the host data is torn or lost");
        if (same(a, h0))
            add1(a, 0, N); /* the native rerun */
        CHECK(same(a, f));
    }
    free(h0);
    free(f);
}

/* T2: A = [0, 3N/4) += 1 on the device, then B = [N/4, N) += 1 while A's
 * copy is only on the device (B's registration merges A and B). */
static void t2(cyrt_rt *rt, int dev, cl_kernel k, int *a, int baseline) {
    size_t alo = 0, ahi = 3 * N / 4, blo = N / 4, bhi = N;
    int *s0 = malloc(N * sizeof *s0), *s1 = malloc(N * sizeof *s1), *s2 = malloc(N * sizeof *s2);
    if (!s0 || !s1 || !s2) {
        CHECK(0, "out of memory");
        free(s0), free(s1), free(s2);
        return;
    }
    memcpy(s0, a, N * sizeof *a);
    memcpy(s1, s0, N * sizeof *a);
    add1(s1, alo, ahi);
    memcpy(s2, s1, N * sizeof *a);
    add1(s2, blo, bhi);
    int ok = 0;
    if (k) {
        cyrt_err err = {0};
        cyrt_handle *ha = reg(rt, a, alo, ahi), *hb = NULL;
        ok = ha && dev_inc(rt, dev, k, ha, alo, ahi);
        if (ok) {
            hb = reg(rt, a, blo, bhi);
            ok = hb && dev_inc(rt, dev, k, hb, blo, bhi) &&
                 cyrt_host_acquire(rt, ha, CYRT_READ, NULL, &err) == CYRT_OK &&
                 cyrt_host_acquire(rt, hb, CYRT_READ, NULL, &err) == CYRT_OK;
        }
        if (ha && cyrt_release(rt, ha, NULL, &err) != CYRT_OK)
            ok = 0;
        if (hb && cyrt_release(rt, hb, NULL, &err) != CYRT_OK)
            ok = 0;
    }
    check_registry_empty(rt, "T2");
    CHECK(ok || !baseline, "T2 failed without a fault");
    if (ok) {
        CHECK(same(a, s2), "T2: every step succeeded but the host data is wrong");
    } else {
        CHECK(same(a, s0) || same(a, s1) || same(a, s2),
              "T2: after a failure the host data is torn or lost");
        if (same(a, s0))
            add1(a, alo, ahi);
        if (same(a, s1))
            add1(a, blo, bhi);
        CHECK(same(a, s2));
    }
    free(s0);
    free(s1);
    free(s2);
}

/* T3: a region through cyrt_launch_region, as generated code runs one:
 * inside a def call (scoped: the results come back when the call ends) or
 * outside any. */
static void t3(cyrt_rt *rt, int *a, int baseline, int scoped) {
    int *h0 = malloc(N * sizeof *h0), *f = malloc(N * sizeof *f);
    if (!h0 || !f) {
        CHECK(0, "out of memory");
        free(h0), free(f);
        return;
    }
    memcpy(h0, a, N * sizeof *a);
    long long sum = 7;
    for (size_t i = 0; i < N; i++) {
        f[i] = a[i] * 2 + 1;
        sum += f[i];
    }
    long s = 7;
    cyocl_arg args[2];
    memset(args, 0, sizeof args);
    args[0] = (cyocl_arg){.kind = CYOCL_A_VIEW, .tkind = 'i', .size = 4, .read = 1, .written = 1,
                          .ptr = a, .ndim = 1};
    args[0].shape[0] = N;
    args[0].strides[0] = sizeof(int);
    args[1] = (cyocl_arg){.kind = CYOCL_A_RED, .tkind = 'i', .op = '+', .size = sizeof s, .ptr = &s};
    cyocl_launch L;
    memset(&L, 0, sizeof L);
    L.version = CYOCL_API_VERSION;
    L.module = "fault_c";
    L.function = "t3";
    L.source = twice_src;
    L.kernel = "cyk_0";
    L.line = 1;
    L.start = 0;
    L.step = 1;
    L.n = N;
    L.nargs = 2;
    L.args = args;
    int kerr[4];
    cyrt_err err = {0};
    if (scoped)
        CHECK(cyrt_scope_enter(rt, &err) == CYRT_OK);
    int rc = cyrt_launch_region(rt, &L, kerr);
    CHECK(rc == 0 || rc == 1, "T3: cyrt_launch_region returned %d (kernel error %d)", rc, kerr[0]);
    if (rc == 1)
        CHECK(same(a, h0), "T3: 'run natively' (%s) but the host data was changed", L.reason);
    if (scoped && cyrt_scope_leave(rt, NULL, &err) != CYRT_OK) {
        /* the device failed holding the only copy: the call raises
         * (pymod.c); the host copy must be the one from before it */
        CHECK(rc == 0, "T3: the end of the call failed although the region ran natively");
        CHECK(same(a, h0), "T3: the copy back failed and the host data is torn");
        rc = 1;
        snprintf(L.reason, sizeof L.reason, "fallback: (the call raises)");
        s = 7;
    }
    check_registry_empty(rt, "T3");
    CHECK(rc == 0 || !baseline, "T3 did not run on the device without a fault: %s", L.reason);
    if (rc == 0) {
        CHECK(same(a, f), "T3: the launch reported success but the host data is not the result");
        CHECK(s == sum, "T3: the reduction gave %ld, not %lld", s, sum);
    } else if (rc == 1) {
        CHECK(strncmp(L.reason, "fallback:", 9) == 0, "T3: reason '%s'", L.reason);
        CHECK(s == 7, "T3: 'run natively' but the reduction variable was changed");
        memcpy(a, f, N * sizeof *a); /* the native run */
    }
    free(h0);
    free(f);
}

static int run_one(const char *shim, const char *fault) {
    int baseline = !fault || strcmp(fault, "-") == 0;
    cyrt_config cfg = {.loader = shim, .quiet = 1};
    cyrt_rt *rt = NULL;
    CHECK(cyrt_rt_new(&cfg, &rt) == CYRT_OK);
    if (!rt)
        return 1;
    cyrt_err err = {0};
    const cyrt_devinfo *list = NULL;
    int ndev = 0, dev = -1;
    cyrt_status st = cyrt_devices(rt, &list, &ndev, &err);
    if (st == CYRT_OK)
        st = cyrt_select_device(rt, CYRT_DEV_ALL, &dev, &err);
    if (st != CYRT_OK) {
        CHECK(err.msg[0] != '\0', "a failed device list says nothing");
        if (baseline) {
            printf("fault_c: no OpenCL device through the shim (%s): skipped\n", err.msg);
            cyrt_rt_free(rt, NULL);
            return 77;
        }
    }
    cl_program prog = NULL;
    cl_kernel k = NULL;
    if (st == CYRT_OK) {
        char *log = NULL;
        if (cyrt_program_build(rt, dev, inc_src, "", &prog, &log, &err) == CYRT_OK)
            cyrt_kernel_create(rt, prog, "inc", &k, &err);
        else
            CHECK(err.msg[0] != '\0', "a failed build says nothing");
        free(log);
    }
    if (baseline)
        CHECK(k != NULL, "without faults the kernel must build: %s", err.msg);

    int *a = malloc(N * sizeof *a);
    if (!a) {
        CHECK(0, "out of memory");
        return 1;
    }
    for (size_t i = 0; i < N; i++)
        a[i] = (int)(i * 3) - 1000;
    t1(rt, dev, k, a, baseline);
    t2(rt, dev, k, a, baseline);
    t3(rt, a, baseline, 1);
    t3(rt, a, baseline, 0);
    cyrt_kernel_release(rt, k);
    cyrt_program_release(rt, prog);
    /* a failed copy back may be reported here; it must not crash or leak */
    cyrt_rt_free(rt, &err);
    free(a);
    /* to see that LeakSanitizer is watching: a leak on purpose */
    if (getenv("CYOCL_FAULT_TEST_LEAK")) {
        void *volatile lost = malloc(48);
        printf("fault_c: leaked %p on purpose\n", lost);
        lost = NULL;
        (void)lost;
    }
    if (failures)
        fprintf(stderr, "fault_c [%s]: %d of %d checks failed\n", fault ? fault : "-", failures,
                checks);
    return failures ? 1 : 0;
}

/* ---- the parent: one child per fault ----------------------------------------------- */

/* Runs FAULT ("-": none) in a child; cache: its CYOCL_CACHE_DIR, first
 * copied from seed when one is given (each child gets a kernel cache of
 * its own, so that no fault changes what the next child sees). */
static int spawn(const char *self, const char *shim, const char *fault, const char *counts,
                 const char *cache, const char *seed) {
    fflush(stdout);
    if (seed) {
        char cmd[8400];
        snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -a '%s' '%s'", cache, seed, cache);
        if (system(cmd) != 0)
            return -1;
    }
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (counts)
            setenv("CYOCL_FAULT_COUNTS", counts, 1);
        else
            unsetenv("CYOCL_FAULT_COUNTS");
        if (strcmp(fault, "-") != 0)
            setenv("CYOCL_FAULT", fault, 1);
        else
            unsetenv("CYOCL_FAULT");
        setenv("CYOCL_CACHE_DIR", cache, 1);
        unsetenv("CYOCL_CACHE");
        execl(self, self, shim, fault, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) < 0)
        return -1;
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

static void cleanup(const char *root) {
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    (void)!system(cmd);
}

/* The calls the shim must export: every entry the runtime resolves. */
static const char *const runtime_calls[] = {
#define NAME(name) #name,
    CYRT_CL_FUNCS(NAME)
#undef NAME
};

/* Faults swept over every call number K the workload makes (the others:
 * K = 1 only). */
static const char *const swept[] = {
    "clCreateContext", "clCreateCommandQueue", "clCreateBuffer", "clEnqueueWriteBuffer",
    "clEnqueueReadBuffer", "clEnqueueCopyBuffer", "clFinish", "clCreateProgramWithSource",
    "clBuildProgram", "clCreateKernel", "clSetKernelArg", "clEnqueueNDRangeKernel",
    "clCreateProgramWithBinary", "clGetProgramInfo",
};

int main(int argc, char **argv) {
    if (argc == 3)
        return run_one(argv[1], argv[2]);
    if (argc != 2) {
        fprintf(stderr, "usage: fault_c SHIM [FAULT]\n");
        return 2;
    }
    const char *shim = argv[1];
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) {
        fprintf(stderr, "fault_c: cannot find myself\n");
        return 2;
    }
    self[len] = '\0';

    /* the shim must not fall behind the runtime's function table */
    void *lib = dlopen(shim, RTLD_NOW | RTLD_LOCAL);
    CHECK(lib != NULL, "cannot open the shim %s: %s", shim, dlerror());
    if (!lib)
        return 1;
    for (size_t i = 0; i < sizeof runtime_calls / sizeof runtime_calls[0]; i++)
        CHECK(dlsym(lib, runtime_calls[i]) != NULL,
              "tests/fault/clshim.c does not export %s, which the runtime resolves: add it",
              runtime_calls[i]);
    dlclose(lib);
    if (failures)
        return 1;

    char root[] = "/tmp/cyocl-fault-XXXXXX";
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 2;
    }
    char counts[4200], warm_counts[4200], base[4200], cache[4200];
    snprintf(counts, sizeof counts, "%s/counts-cold", root);
    snprintf(warm_counts, sizeof warm_counts, "%s/counts-warm", root);
    snprintf(base, sizeof base, "%s/base-cache", root);
    snprintf(cache, sizeof cache, "%s/cache", root);
    int nrun = 0, nfail = 0;
    /* a run without faults (an empty kernel cache): is there a device, and
     * how often is each call made?  Then one with the cache it filled. */
    int rc = spawn(self, shim, "-", counts, base, NULL);
    if (rc == 77) {
        cleanup(root);
        return 77;
    }
    CHECK(rc == 0, "the run without faults failed (exit %d)", rc);
    /* (the warm pass only once launches use the kernel cache) */
    int have_cache = access(base, F_OK) == 0;
    if (have_cache) {
        rc = spawn(self, shim, "-", warm_counts, cache, base);
        CHECK(rc == 0, "the run without faults, kernel cache filled, failed (exit %d)", rc);
    }
    for (int warm = 0; warm < 1 + have_cache; warm++) {
        FILE *cf = fopen(warm ? warm_counts : counts, "r");
        char name[128];
        unsigned long ncalls;
        while (cf && fscanf(cf, "%127s %lu", name, &ncalls) == 2) {
            int sweep = 0;
            for (size_t i = 0; i < sizeof swept / sizeof swept[0]; i++)
                sweep |= strcmp(name, swept[i]) == 0;
            if (warm && !strstr(name, "Program") && strcmp(name, "clCreateKernel") != 0)
                continue; /* only the program calls differ with the cache filled */
            unsigned long kmax = sweep ? ncalls : 1;
            for (unsigned long kk = 1; kk <= kmax; kk++) {
                char fault[160];
                snprintf(fault, sizeof fault, "%s:%lu", name, kk);
                rc = spawn(self, shim, fault, NULL, cache, warm ? base : NULL);
                if (!warm) {
                    char cmd[4300];
                    snprintf(cmd, sizeof cmd, "rm -rf '%s'", cache);
                    (void)!system(cmd);
                }
                nrun++;
                if (rc != 0) {
                    nfail++;
                    printf("FAIL %s%s (exit %d)\n", fault, warm ? " (kernel cache filled)" : "", rc);
                }
            }
        }
        if (cf)
            fclose(cf);
    }
    cleanup(root);
    CHECK(nrun > 0, "the run without faults made no OpenCL call");
    printf("fault_c: %d faults, %d failed\n", nrun, nfail);
    return failures || nfail ? 1 : 0;
}
