/* gpu_tiles: times one planned matrix-product kernel (cyk_N_tiled, as
 * `cyocl compile --emit-opencl` writes it for c04's matmul/matmul_f32) on
 * an OpenCL device, outside Python, and checks it bit for bit against the
 * serial loop in Cython's order (s = 0; s = s + a[i, k] * b[k, j] for k
 * increasing, every operation rounded).  bench/gpu_tiles.py drives it over
 * candidate shapes (CYOCL_GPU_TILE).
 *
 *   cc -O2 -ffp-contract=off -o gpu_tiles bench/gpu_tiles.c -lOpenCL -lm
 *   gpu_tiles FILE.cl KERNEL f64|f32 N LX LY BN BM [REPS] [PLATFORM]
 *
 * Prints one line: ms per launch (median of REPS single launches timed by
 * events), GFLOP/s, and how many of the checked elements differ (all of
 * them when N <= 512, else 4096 sampled ones).  Exit 1 on a difference. */
#include "cltool.h"
#include <math.h>

static unsigned long long rng = 88172645463325252ULL;
static double next(void) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0 * 2 - 1;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc < 9) {
        fprintf(stderr, "usage: gpu_tiles FILE.cl KERNEL f64|f32 N LX LY BN BM [REPS] [PLATFORM]\n");
        return 2;
    }
    int f32 = !strcmp(argv[3], "f32");
    long n = atol(argv[4]); /* columns of b and c, and the length of k */
    /* GPU_TILES_ROWS: rows of a and c (default n): a batch through a layer */
    long rows = getenv("GPU_TILES_ROWS") ? atol(getenv("GPU_TILES_ROWS")) : n;
    /* GPU_TILES_COLS: columns of b and c (default n); GPU_TILES_KN: pass the
       length of k as one more argument (a kernel whose k-loop runs to a parameter) */
    long cols = getenv("GPU_TILES_COLS") ? atol(getenv("GPU_TILES_COLS")) : n;
    int kn_arg = getenv("GPU_TILES_KN") != NULL;
    /* GPU_TILES_BIAS: c06's sigmoid_layer (a 1-D view, bias, before the three;
       out = sigmoid(a @ b + bias)): timed, not checked (exp is the device's) */
    int bias = getenv("GPU_TILES_BIAS") != NULL;
    size_t lx = atol(argv[5]), ly = atol(argv[6]), bn = atol(argv[7]), bm = atol(argv[8]);
    int reps = argc > 9 ? atoi(argv[9]) : 20;
    const char *want = argc > 10 ? argv[10] : "";
    char *src = cltool_read(argv[1]);

    cl_device_id dev;
    cl_context ctx;
    cl_command_queue q;
    cltool_open(want, &dev, &ctx, &q);
    cl_int err;
    /* GPU_TILES_OPTS: more build options (NVIDIA: -cl-nv-verbose puts ptxas's register counts in
       the log, printed for KERNEL; -cl-nv-maxrregcount=N) */
    const char *log;
    cl_program prog = cltool_build(ctx, dev, src, "GPU_TILES_OPTS", &log);
    /* ptxas's lines about KERNEL: the one naming it and the three after */
    int left = 0;
    for (const char *l = log; *l;) {
        const char *e = strchr(l, '\n');
        int n = e ? (int)(e - l) : (int)strlen(l);
        char line[1024];
        snprintf(line, sizeof line, "%.*s", n, l);
        if (strstr(line, argv[2]) && strstr(line, "ptxas")) left = 4;
        if (left > 0 && left--) printf("  %s\n", line);
        l += n + (e != NULL);
    }
    const char *ptx = getenv("GPU_TILES_PTX"); /* the device binary (PTX on NVIDIA), to read the loads */
    if (ptx) {
        size_t bs = 0;
        clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof bs, &bs, NULL);
        unsigned char *bin = malloc(bs);
        clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL);
        FILE *o = fopen(ptx, "wb");
        if (o) fwrite(bin, 1, bs, o), fclose(o);
        free(bin);
    }
    cl_kernel k = clCreateKernel(prog, argv[2], &err);
    CK(err);

    long big = rows > n ? rows : n;
    big = big > cols ? big : cols;
    size_t es = f32 ? 4 : 8, nn = (size_t)big * big;
    double *A = malloc(nn * 8), *B = malloc(nn * 8);
    void *ha = malloc(nn * es), *hb = malloc(nn * es), *hc = malloc(nn * es);
    for (size_t i = 0; i < nn; i++) A[i] = next(), B[i] = next();
    for (size_t i = 0; i < nn; i++) {
        if (f32) ((float *)ha)[i] = (float)A[i], ((float *)hb)[i] = (float)B[i];
        else ((double *)ha)[i] = A[i], ((double *)hb)[i] = B[i];
    }
    cl_mem da = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, nn * es, ha, &err);
    CK(err);
    cl_mem db = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, nn * es, hb, &err);
    CK(err);
    cl_mem dc = clCreateBuffer(ctx, CL_MEM_READ_WRITE, nn * es, NULL, &err);
    CK(err);
    int zero[64] = {0};
    cl_mem de = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof zero, zero, &err);
    CK(err);
    /* the kernel ABI (oclgen.h): start, step, n, then per view base, off, s0, s1, n0, n1, then cy_err */
    long start = 0, step = 1, off = 0, s1 = 1;
    int ai = 0;
    CK(clSetKernelArg(k, ai++, 8, &start));
    CK(clSetKernelArg(k, ai++, 8, &step));
    CK(clSetKernelArg(k, ai++, 8, &rows));
    cl_mem dbias = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, cols * es, ha, &err);
    CK(err);
    if (bias) {
        CK(clSetKernelArg(k, ai++, sizeof(cl_mem), &dbias));
        CK(clSetKernelArg(k, ai++, 8, &off));
        CK(clSetKernelArg(k, ai++, 8, &s1));
        CK(clSetKernelArg(k, ai++, 8, &cols));
    }
    cl_mem views[3] = {da, db, dc};
    for (int v = 0; v < 3; v++) {
        long n0 = v == 1 ? n : rows, n1 = v == 0 ? n : cols, s0 = n1;
        CK(clSetKernelArg(k, ai++, sizeof(cl_mem), &views[v]));
        CK(clSetKernelArg(k, ai++, 8, &off));
        CK(clSetKernelArg(k, ai++, 8, &s0));
        CK(clSetKernelArg(k, ai++, 8, &s1));
        CK(clSetKernelArg(k, ai++, 8, &n0));
        CK(clSetKernelArg(k, ai++, 8, &n1));
    }
    if (kn_arg) CK(clSetKernelArg(k, ai++, 8, &n));
    CK(clSetKernelArg(k, ai++, sizeof(cl_mem), &de));
    size_t gl[2] = {(cols + bn - 1) / bn * lx, (rows + bm - 1) / bm * ly}, lo[2] = {lx, ly};
    double *ms = malloc(sizeof(double) * (reps + 1));
    for (int r = 0; r <= reps; r++) {
        cl_event ev;
        CK(clEnqueueNDRangeKernel(q, k, 2, NULL, gl, lo, 0, NULL, &ev));
        CK(clWaitForEvents(1, &ev));
        cl_ulong t0, t1;
        CK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL));
        CK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL));
        ms[r] = (t1 - t0) * 1e-6;
        clReleaseEvent(ev);
    }
    qsort(ms + 1, reps, sizeof *ms, cmp); /* the first launch warms up */
    double med = ms[1 + reps / 2], best = ms[1];
    CK(clEnqueueReadBuffer(q, dc, CL_TRUE, 0, nn * es, hc, 0, NULL, NULL));
    CK(clEnqueueReadBuffer(q, de, CL_TRUE, 0, sizeof zero, zero, 0, NULL, NULL));
    long checked = 0, bad = 0;
    int fused = getenv("GPU_TILES_FMA") && atoi(getenv("GPU_TILES_FMA"));
    for (long t = 0; t < (bias ? 0 : n <= 512 ? rows * cols : 4096); t++) {
        long i = n <= 512 ? t / cols : (long)((next() + 1) / 2 * rows) % rows,
             j = n <= 512 ? t % cols : (long)((next() + 1) / 2 * cols) % cols;
        checked++;
        if (f32) {
            const float *a = ha, *b = hb;
            float s = 0;
            for (long kk = 0; kk < n; kk++) s = fused ? fmaf(a[i * n + kk], b[kk * cols + j], s) : s + a[i * n + kk] * b[kk * cols + j];
            bad += memcmp(&s, (float *)hc + i * cols + j, 4) != 0;
        } else {
            const double *a = ha, *b = hb;
            double s = 0;
            for (long kk = 0; kk < n; kk++) s = fused ? fma(a[i * n + kk], b[kk * cols + j], s) : s + a[i * n + kk] * b[kk * cols + j];
            bad += memcmp(&s, (double *)hc + i * cols + j, 8) != 0;
        }
    }
    printf("%s %s%s n=%ld rows=%ld: median %.3f ms (best %.3f), %.0f GFLOP/s; %ld of %ld checked elements differ; err %d (%d)\n",
           argv[1], argv[2], fused ? " (fma order)" : "", n, rows, med, best, 2.0 * rows * n * cols / (med * 1e-3) / 1e9, bad, checked, zero[0], zero[1]);
    return bad || zero[0] ? 1 : 0;
}
