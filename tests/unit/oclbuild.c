/* oclbuild.c: builds OpenCL programs written by `cyocl compile
 * --emit-opencl` with a real OpenCL implementation (the first platform
 * with a device, e.g. PoCL), so that what libclang accepts is known to
 * build on a device too, and checks that each program has the kernels its
 * comments announce.
 *
 *   oclbuild FILE.cl...      exit 0: all built; 1: a build failed;
 *                            77: no OpenCL platform or device (skipped)
 *
 * Linked with -lOpenCL; the test only, never cyocl. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *s = malloc(cap + 1);
    size_t k;
    while (s && (k = fread(s + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap) s = realloc(s, (cap *= 2) + 1);
    }
    fclose(f);
    if (!s) return NULL;
    s[n] = 0;
    *len = n;
    return s;
}

/* "__kernel void cyk_" lines in the text */
static int count_kernels(const char *s) {
    int n = 0;
    /* `__kernel void cyk_N(`, or with attributes between (a planned kernel's work-group size) */
    for (const char *p = s; (p = strstr(p, "\n__kernel ")); p++) {
        const char *eol = strchr(p + 1, '\n'), *k = strstr(p, " void cyk_");
        n += k && (!eol || k < eol);
    }
    return n;
}

int main(int argc, char **argv) {
    cl_platform_id plats[8];
    cl_uint np = 0;
    if (clGetPlatformIDs(8, plats, &np) != CL_SUCCESS || np == 0) {
        printf("SKIP: no OpenCL platform\n");
        return 77;
    }
    cl_device_id dev = NULL;
    cl_platform_id plat = NULL;
    for (cl_uint i = 0; i < np && !dev; i++) {
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 1, &dev, &nd) != CL_SUCCESS || nd == 0) dev = NULL;
        else plat = plats[i];
    }
    if (!dev) {
        printf("SKIP: no OpenCL device\n");
        return 77;
    }
    char pname[256] = "", dname[256] = "";
    clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof pname, pname, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof dname, dname, NULL);
    printf("device: %s (%s)\n", dname, pname);
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    if (!ctx) {
        printf("SKIP: clCreateContext failed (%d)\n", err);
        return 77;
    }
    int failed = 0, built = 0;
    for (int i = 1; i < argc; i++) {
        size_t len;
        char *src = slurp(argv[i], &len);
        if (!src) {
            printf("FAIL %s: cannot read\n", argv[i]);
            failed++;
            continue;
        }
        int want = count_kernels(src);
        if (want == 0) {
            printf("ok   %s: no kernels\n", argv[i]);
            free(src);
            continue;
        }
        const char *srcs[] = {src};
        cl_program prog = clCreateProgramWithSource(ctx, 1, srcs, &len, &err);
        if (!prog || clBuildProgram(prog, 1, &dev, "-cl-std=CL1.2", NULL, NULL) != CL_SUCCESS) {
            size_t n = 0;
            if (prog) clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
            char *log = calloc(n + 1, 1);
            if (prog && log) clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, n, log, NULL);
            printf("FAIL %s: build failed\n%s\n", argv[i], log ? log : "");
            free(log);
            failed++;
        } else {
            cl_uint nk = 0;
            clCreateKernelsInProgram(prog, 0, NULL, &nk);
            /* kernels under `#ifdef cl_khr_fp64` are missing on devices without doubles */
            char ext[4096] = "";
            clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof ext, ext, NULL);
            if ((int)nk != want && strstr(ext, "cl_khr_fp64")) {
                printf("FAIL %s: %u kernels, expected %d\n", argv[i], nk, want);
                failed++;
            } else {
                printf("ok   %s: %u kernel(s)\n", argv[i], nk);
                built++;
            }
        }
        if (prog) clReleaseProgram(prog);
        free(src);
    }
    clReleaseContext(ctx);
    printf("%d built, %d failed\n", built, failed);
    return failed ? 1 : 0;
}
