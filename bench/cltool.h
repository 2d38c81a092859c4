/* cltool.h: what the small OpenCL timing tools in bench/ (gpu_tiles.c,
 * jacobi_kernels.c) share: an exit on any OpenCL error, a kernel file read
 * whole, a program built with options from the environment, and the first
 * device of a platform named by a substring, with a profiling queue.  Tools, not the runtime: errors end the process. */
#ifndef CYOCL_BENCH_CLTOOL_H
#define CYOCL_BENCH_CLTOOL_H

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(x)                                                                                                          \
    do {                                                                                                               \
        cl_int e_ = (x);                                                                                               \
        if (e_ != CL_SUCCESS) {                                                                                        \
            fprintf(stderr, "%s:%d: %s -> %d\n", __FILE__, __LINE__, #x, e_);                                          \
            exit(2);                                                                                                   \
        }                                                                                                              \
    } while (0)

/* The file's text, NUL-terminated; exits 2 where it cannot be read. */
static char *cltool_read(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *src = malloc((size_t)len + 1);
    if (!src || fread(src, 1, (size_t)len, f) != (size_t)len)
        exit(2);
    src[len] = 0;
    fclose(f);
    return src;
}

/* src built for dev with "-cl-std=CL1.2" and the options in the environment
 * variable opts_env; *log (may be NULL) the build log.  Exits 2, printing the
 * log, where the build fails. */
static cl_program cltool_build(cl_context ctx, cl_device_id dev, const char *src, const char *opts_env,
                               const char **log) {
    static char text[1 << 20];
    cl_int err;
    cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    CK(err);
    char opts[512];
    snprintf(opts, sizeof opts, "-cl-std=CL1.2 %s", getenv(opts_env) ? getenv(opts_env) : "");
    cl_int rc = clBuildProgram(p, 1, &dev, opts, NULL, NULL);
    text[0] = 0;
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof text, text, NULL);
    if (rc != CL_SUCCESS) {
        fprintf(stderr, "build failed:\n%s\n", text);
        exit(2);
    }
    if (log) *log = text;
    return p;
}

/* The first device of the first platform whose name contains want ("" any). */
static void cltool_open(const char *want, cl_device_id *dev, cl_context *ctx, cl_command_queue *q) {
    cl_platform_id plats[8], plat = NULL;
    cl_uint np = 0;
    CK(clGetPlatformIDs(8, plats, &np));
    for (cl_uint i = 0; i < np && !plat; i++) {
        char name[256] = "";
        clGetPlatformInfo(plats[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
        if (strstr(name, want)) plat = plats[i];
    }
    if (!plat) {
        fprintf(stderr, "no platform '%s'\n", want);
        exit(2);
    }
    CK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, dev, NULL));
    cl_int err;
    *ctx = clCreateContext(NULL, 1, dev, NULL, NULL, &err);
    CK(err);
    *q = clCreateCommandQueue(*ctx, *dev, CL_QUEUE_PROFILING_ENABLE, &err);
    CK(err);
}

#endif
