/* jacobi_kernels: c03's Jacobi sweep as cyocl plans it (cyk_0, as `cyocl
 * compile --emit-opencl` writes it) beside clref's kernel
 * (../shared/reference/clref.c, copied below), outside Python, on one
 * OpenCL device: which work-group shape and which kernel text make the
 * difference between the two.
 *
 *   cc -O2 -o jacobi_kernels bench/jacobi_kernels.c -lOpenCL
 *   jacobi_kernels FILE.cl M SWEEPS ROUNDS PLATFORM CONFIG...
 *
 * CONFIG is NAME:KERNEL:LX:LY.  KERNEL "ref" is clref's jacobi (its
 * arguments u, o, n, m); any other name is a kernel of FILE.cl with the
 * cyocl ABI (oclgen.h: start, step, n, per view base, off, s0, s1, n0, n1,
 * then v_m and cy_err).  The grid is clref's, (M-2) x (M-2) work-items, each
 * dimension rounded up to LX and LY; LX = 0 passes no local size (the
 * driver's choice, as clref does).
 *
 * Per config and round, three ways of timing SWEEPS sweeps (ping-pong
 * between two M x M buffers of doubles): "wall" SWEEPS launches back to
 * back then clFinish (clref's figure), "events" the sum of the same
 * launches' profiled times, "sync" the sum of profiled times of launches
 * each waited for (how CYOCL_TRACE times them).  Medians over ROUNDS
 * (configs interleaved).  Every config's result after SWEEPS sweeps from
 * the same start is compared bit for bit with the first config's. */
#include "cltool.h"
#include <time.h>

static const char *REF = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
                         "__kernel void jacobi(__global const double *u, __global double *o, long n, long m) {\n"
                         "  long j = get_global_id(0) + 1, i = get_global_id(1) + 1;\n"
                         "  if (i < n - 1 && j < m - 1)\n"
                         "    o[i*m+j] = 0.25 * (u[(i-1)*m+j] + u[(i+1)*m+j] + u[i*m+j-1] + u[i*m+j+1]); }\n";

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct {
    char name[64], kname[64];
    size_t lx, ly;
    cl_kernel k;
    int ref;
    double *t[3];
} config;

/* JK_OPTS: more build options (NVIDIA: -cl-nv-verbose prints ptxas's register counts) */
static cl_program build(cl_context ctx, cl_device_id dev, const char *src) {
    const char *log;
    cl_program p = cltool_build(ctx, dev, src, "JK_OPTS", &log);
    if (getenv("JK_OPTS")) printf("%s\n", log);
    return p;
}

static void args(config *c, cl_mem from, cl_mem to, long m, cl_mem err) {
    if (c->ref) {
        CK(clSetKernelArg(c->k, 0, sizeof from, &from));
        CK(clSetKernelArg(c->k, 1, sizeof to, &to));
        CK(clSetKernelArg(c->k, 2, 8, &m));
        CK(clSetKernelArg(c->k, 3, 8, &m));
        return;
    }
    long start = 1, step = 1, n = m - 2, off = 0, s1 = 1;
    int ai = 0;
    CK(clSetKernelArg(c->k, ai++, 8, &start));
    CK(clSetKernelArg(c->k, ai++, 8, &step));
    CK(clSetKernelArg(c->k, ai++, 8, &n));
    cl_mem v[2] = {from, to};
    for (int q = 0; q < 2; q++) {
        CK(clSetKernelArg(c->k, ai++, sizeof(cl_mem), &v[q]));
        CK(clSetKernelArg(c->k, ai++, 8, &off));
        CK(clSetKernelArg(c->k, ai++, 8, &m));
        CK(clSetKernelArg(c->k, ai++, 8, &s1));
        CK(clSetKernelArg(c->k, ai++, 8, &m));
        CK(clSetKernelArg(c->k, ai++, 8, &m));
    }
    CK(clSetKernelArg(c->k, ai++, 8, &m));
    CK(clSetKernelArg(c->k, ai++, sizeof err, &err));
}

/* SWEEPS launches; mode 0 wall, 1 summed events (back to back), 2 summed events (each waited) */
static double sweeps(cl_command_queue q, config *c, cl_mem u, cl_mem o, long m, int n, int mode, cl_mem err) {
    size_t w = (size_t)m - 2;
    size_t gl[2] = {c->lx ? (w + c->lx - 1) / c->lx * c->lx : w, c->ly ? (w + c->ly - 1) / c->ly * c->ly : w};
    size_t lo[2] = {c->lx, c->ly};
    cl_event *ev = mode ? calloc(n, sizeof *ev) : NULL;
    double t0 = now(), sum = 0;
    for (int r = 0; r < n; r++) {
        args(c, r % 2 ? o : u, r % 2 ? u : o, m, err);
        CK(clEnqueueNDRangeKernel(q, c->k, 2, NULL, gl, c->lx ? lo : NULL, 0, NULL, mode ? &ev[r] : NULL));
        if (mode == 2) CK(clWaitForEvents(1, &ev[r]));
    }
    CK(clFinish(q));
    double wall = now() - t0;
    for (int r = 0; mode && r < n; r++) {
        cl_ulong a, b;
        CK(clGetEventProfilingInfo(ev[r], CL_PROFILING_COMMAND_START, sizeof a, &a, NULL));
        CK(clGetEventProfilingInfo(ev[r], CL_PROFILING_COMMAND_END, sizeof b, &b, NULL));
        sum += (b - a) * 1e-9;
        clReleaseEvent(ev[r]);
    }
    free(ev);
    return (mode ? sum : wall) * 1e3;
}

int main(int argc, char **argv) {
    if (argc < 7) {
        fprintf(stderr, "usage: jacobi_kernels FILE.cl M SWEEPS ROUNDS PLATFORM NAME:KERNEL:LX:LY...\n");
        return 2;
    }
    char *src = cltool_read(argv[1]);
    long m = atol(argv[2]);
    int ns = atoi(argv[3]), rounds = atoi(argv[4]);
    cl_device_id dev;
    cl_context ctx;
    cl_command_queue q;
    cltool_open(argv[5], &dev, &ctx, &q);
    cl_int err;
    cl_program pc = build(ctx, dev, src), pr = build(ctx, dev, REF);
    int nc = argc - 6;
    config *cs = calloc(nc, sizeof *cs);
    for (int i = 0; i < nc; i++) {
        config *c = &cs[i];
        if (sscanf(argv[6 + i], "%63[^:]:%63[^:]:%zu:%zu", c->name, c->kname, &c->lx, &c->ly) != 4)
            return fprintf(stderr, "bad config '%s'\n", argv[6 + i]), 2;
        c->ref = !strcmp(c->kname, "ref");
        c->k = clCreateKernel(c->ref ? pr : pc, c->ref ? "jacobi" : c->kname, &err);
        CK(err);
        for (int t = 0; t < 3; t++) c->t[t] = calloc(rounds, sizeof(double));
    }
    size_t nn = (size_t)m * m, bytes = nn * 8;
    double *h = malloc(bytes), *want = malloc(bytes), *got = malloc(bytes);
    unsigned long long s = 88172645463325252ULL;
    for (size_t i = 0; i < nn; i++) s ^= s << 13, s ^= s >> 7, s ^= s << 17, h[i] = (double)(s >> 11) / 9007199254740992.0;
    cl_mem u = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    CK(err);
    cl_mem o = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    CK(err);
    int zero[64] = {0};
    cl_mem de = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof zero, zero, &err);
    CK(err);
    /* results: SWEEPS sweeps from h in both buffers, compared with the first config's */
    for (int i = 0; i < nc; i++) {
        CK(clEnqueueWriteBuffer(q, u, CL_TRUE, 0, bytes, h, 0, NULL, NULL));
        CK(clEnqueueWriteBuffer(q, o, CL_TRUE, 0, bytes, h, 0, NULL, NULL));
        sweeps(q, &cs[i], u, o, m, ns, 0, de);
        CK(clEnqueueReadBuffer(q, ns % 2 ? o : u, CL_TRUE, 0, bytes, i ? got : want, 0, NULL, NULL));
        if (i && memcmp(got, want, bytes)) printf("%s: result DIFFERS from %s's\n", cs[i].name, cs[0].name);
    }
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < nc; i++)
            for (int t = 0; t < 3; t++) cs[i].t[t][r] = sweeps(q, &cs[i], u, o, m, ns, t, de);
    printf("%ld x %ld, %d sweeps, median of %d rounds (ms): wall / events / sync (ratio of sync to the first "
           "config's)\n",
           m, m, ns, rounds);
    double base = 0;
    for (int i = 0; i < nc; i++) {
        double md[3];
        for (int t = 0; t < 3; t++) qsort(cs[i].t[t], rounds, sizeof(double), cmp), md[t] = cs[i].t[t][rounds / 2];
        if (!i) base = md[2];
        printf("  %-20s %-14s %4zu x %-4zu %8.3f %8.3f %8.3f  (%.3f)\n", cs[i].name, cs[i].kname, cs[i].lx, cs[i].ly,
               md[0], md[1], md[2], md[2] / base);
    }
    return 0;
}
