/* clshim.c: an OpenCL "loader" for the fault tests.  It exports the OpenCL
 * 1.2 entry points the runtime resolves (CYRT_CL_FUNCS in
 * runtime/internal.h) and forwards each to the real loader
 * (libOpenCL.so.1, opened RTLD_LOCAL), except that
 *
 *   CYOCL_FAULT=NAME[:K][,NAME[:K]...]
 *
 * makes the calls of NAME (with or without its "cl" prefix) fail from the
 * K-th call on (K = 1 when left out) with the error a driver gives when it
 * runs out of something (clCreateBuffer: CL_MEM_OBJECT_ALLOCATION_FAILURE,
 * clEnqueueNDRangeKernel: CL_OUT_OF_RESOURCES, ...; table below).  A failed
 * call does nothing but report: it creates, moves and releases nothing
 * (a failed clRelease* still releases, so that the shim itself leaks
 * nothing).
 *
 *   CYOCL_FAULT_COUNTS=FILE
 *
 * appends "NAME CALLS" lines for every entry point called, at exit: the
 * tests learn from a run without faults which calls a workload makes.
 *
 *   CYOCL_SHIM_BUILD_DELAY_MS=MS
 *
 * makes every clBuildProgram sleep MS milliseconds first: a build that
 * takes seconds on any driver (tests/robust/run.py, build_threads).
 *
 * Used through CYOCL_OPENCL_LIBRARY (the process's runtime) or
 * cyrt_config.loader (a private one). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SHIM_FUNCS(X)                                                                              \
    X(clGetPlatformIDs, -1001 /* CL_PLATFORM_NOT_FOUND_KHR */)                                     \
    X(clGetPlatformInfo, CL_OUT_OF_HOST_MEMORY)                                                    \
    X(clGetDeviceIDs, CL_DEVICE_NOT_FOUND)                                                         \
    X(clGetDeviceInfo, CL_OUT_OF_HOST_MEMORY)                                                      \
    X(clCreateContext, CL_OUT_OF_HOST_MEMORY)                                                      \
    X(clReleaseContext, CL_OUT_OF_HOST_MEMORY)                                                     \
    X(clCreateCommandQueue, CL_OUT_OF_HOST_MEMORY)                                                 \
    X(clReleaseCommandQueue, CL_OUT_OF_HOST_MEMORY)                                                \
    X(clCreateBuffer, CL_MEM_OBJECT_ALLOCATION_FAILURE)                                            \
    X(clReleaseMemObject, CL_OUT_OF_HOST_MEMORY)                                                   \
    X(clEnqueueWriteBuffer, CL_OUT_OF_RESOURCES)                                                   \
    X(clEnqueueReadBuffer, CL_OUT_OF_RESOURCES)                                                    \
    X(clEnqueueCopyBuffer, CL_OUT_OF_RESOURCES)                                                    \
    X(clFinish, CL_OUT_OF_RESOURCES)                                                               \
    X(clFlush, CL_OUT_OF_RESOURCES)                                                                \
    X(clCreateProgramWithSource, CL_OUT_OF_HOST_MEMORY)                                            \
    X(clCreateProgramWithBinary, CL_OUT_OF_HOST_MEMORY)                                            \
    X(clBuildProgram, CL_BUILD_PROGRAM_FAILURE)                                                    \
    X(clGetProgramInfo, CL_OUT_OF_HOST_MEMORY)                                                     \
    X(clGetProgramBuildInfo, CL_OUT_OF_HOST_MEMORY)                                                \
    X(clReleaseProgram, CL_OUT_OF_HOST_MEMORY)                                                     \
    X(clCreateKernel, CL_INVALID_KERNEL_NAME)                                                      \
    X(clReleaseKernel, CL_OUT_OF_HOST_MEMORY)                                                      \
    X(clSetKernelArg, CL_OUT_OF_RESOURCES)                                                         \
    X(clEnqueueNDRangeKernel, CL_OUT_OF_RESOURCES)                                                 \
    X(clWaitForEvents, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)                               \
    X(clReleaseEvent, CL_OUT_OF_HOST_MEMORY)                                                       \
    X(clGetEventProfilingInfo, CL_PROFILING_INFO_NOT_AVAILABLE)                                   \
    X(clEnqueueMapBuffer, CL_MAP_FAILURE)                                                          \
    X(clEnqueueUnmapMemObject, CL_OUT_OF_RESOURCES)

enum {
#define SHIM_ENUM(name, code) F_##name,
    SHIM_FUNCS(SHIM_ENUM)
#undef SHIM_ENUM
    NFUNCS
};

static const char *const names[NFUNCS] = {
#define SHIM_NAME(name, code) #name,
    SHIM_FUNCS(SHIM_NAME)
#undef SHIM_NAME
};

static const cl_int codes[NFUNCS] = {
#define SHIM_CODE(name, code) code,
    SHIM_FUNCS(SHIM_CODE)
#undef SHIM_CODE
};

static struct {
#define SHIM_MEMBER(name, code) __typeof__(name) *name;
    SHIM_FUNCS(SHIM_MEMBER)
#undef SHIM_MEMBER
} real;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static unsigned long from[NFUNCS]; /* fail from this call on; 0: never */
static unsigned long calls[NFUNCS];
static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;
static long build_delay_ms;

static void setup(void) {
    void *lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        lib = dlopen("libOpenCL.so", RTLD_NOW | RTLD_LOCAL);
    if (lib) {
#define SHIM_RESOLVE(name, code)                                                                   \
    {                                                                                              \
        void *sym = dlsym(lib, #name);                                                             \
        memcpy(&real.name, &sym, sizeof sym);                                                      \
    }
        SHIM_FUNCS(SHIM_RESOLVE)
#undef SHIM_RESOLVE
    }
    const char *delay = getenv("CYOCL_SHIM_BUILD_DELAY_MS");
    build_delay_ms = delay ? strtol(delay, NULL, 10) : 0;
    const char *spec = getenv("CYOCL_FAULT");
    while (spec && *spec) {
        size_t len = strcspn(spec, ",");
        char item[128];
        snprintf(item, sizeof item, "%.*s", (int)(len < sizeof item ? len : sizeof item - 1), spec);
        spec += len + (spec[len] == ',');
        char *colon = strchr(item, ':');
        unsigned long k = 1;
        if (colon) {
            *colon = '\0';
            k = strtoul(colon + 1, NULL, 10);
            if (k == 0)
                k = 1;
        }
        const char *want = strncmp(item, "cl", 2) == 0 ? item + 2 : item;
        int found = 0;
        for (int i = 0; i < NFUNCS; i++)
            if (strcmp(names[i] + 2, want) == 0)
                from[i] = k, found = 1;
        if (!found && *want)
            fprintf(stderr, "clshim: CYOCL_FAULT names no OpenCL call the shim knows: %s\n", item);
    }
}

/* Counts the call; nonzero when it must fail. */
static int fails(int f) {
    pthread_once(&once, setup);
    pthread_mutex_lock(&count_lock);
    unsigned long n = ++calls[f];
    pthread_mutex_unlock(&count_lock);
    if (build_delay_ms > 0 && strcmp(names[f], "clBuildProgram") == 0) {
        struct timespec ts = {build_delay_ms / 1000, build_delay_ms % 1000 * 1000000L};
        while (nanosleep(&ts, &ts) != 0)
            ;
    }
    return from[f] && n >= from[f];
}

__attribute__((destructor)) static void report_counts(void) {
    const char *path = getenv("CYOCL_FAULT_COUNTS");
    if (!path || !*path)
        return;
    FILE *f = fopen(path, "a");
    if (!f)
        return;
    for (int i = 0; i < NFUNCS; i++)
        if (calls[i])
            fprintf(f, "%s %lu\n", names[i], calls[i]);
    fclose(f);
}


/* ---- calls returning a status ------------------------------------------------- */
#define STATUS_CALL(name, params, args)                                                            \
    CL_API_ENTRY cl_int CL_API_CALL name params {                                                  \
        if (fails(F_##name) || !real.name)                                                         \
            return codes[F_##name];                                                                \
        return real.name args;                                                                     \
    }

/* ---- calls returning an object, the status through errcode_ret ------------------- */
#define OBJECT_CALL(type, name, params, args)                                                      \
    CL_API_ENTRY type CL_API_CALL name params {                                                    \
        if (fails(F_##name) || !real.name) {                                                       \
            if (errcode_ret)                                                                       \
                *errcode_ret = codes[F_##name];                                                    \
            return NULL;                                                                           \
        }                                                                                          \
        return real.name args;                                                                     \
    }

/* ---- releases: really done, then reported as failed ------------------------------ */
#define RELEASE_CALL(type, name)                                                                   \
    CL_API_ENTRY cl_int CL_API_CALL name(type obj) {                                               \
        int f = fails(F_##name);                                                                   \
        if (!real.name)                                                                            \
            return codes[F_##name];                                                                \
        cl_int rc = real.name(obj);                                                                \
        return f ? codes[F_##name] : rc;                                                           \
    }

CL_API_ENTRY cl_int CL_API_CALL clGetPlatformIDs(cl_uint num_entries, cl_platform_id *platforms,
                                                 cl_uint *num_platforms) {
    if (fails(F_clGetPlatformIDs) || !real.clGetPlatformIDs) {
        if (num_platforms)
            *num_platforms = 0;
        return codes[F_clGetPlatformIDs];
    }
    return real.clGetPlatformIDs(num_entries, platforms, num_platforms);
}

STATUS_CALL(clGetPlatformInfo,
            (cl_platform_id platform, cl_platform_info param_name, size_t size, void *value,
             size_t *size_ret),
            (platform, param_name, size, value, size_ret))
STATUS_CALL(clGetDeviceIDs,
            (cl_platform_id platform, cl_device_type type, cl_uint num_entries,
             cl_device_id *devices, cl_uint *num_devices),
            (platform, type, num_entries, devices, num_devices))
STATUS_CALL(clGetDeviceInfo,
            (cl_device_id device, cl_device_info param_name, size_t size, void *value,
             size_t *size_ret),
            (device, param_name, size, value, size_ret))
OBJECT_CALL(cl_context, clCreateContext,
            (const cl_context_properties *props, cl_uint num_devices, const cl_device_id *devices,
             void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *),
             void *user_data, cl_int *errcode_ret),
            (props, num_devices, devices, notify, user_data, errcode_ret))
RELEASE_CALL(cl_context, clReleaseContext)
OBJECT_CALL(cl_command_queue, clCreateCommandQueue,
            (cl_context context, cl_device_id device, cl_command_queue_properties properties,
             cl_int *errcode_ret),
            (context, device, properties, errcode_ret))
RELEASE_CALL(cl_command_queue, clReleaseCommandQueue)
OBJECT_CALL(cl_mem, clCreateBuffer,
            (cl_context context, cl_mem_flags flags, size_t size, void *host_ptr,
             cl_int *errcode_ret),
            (context, flags, size, host_ptr, errcode_ret))
RELEASE_CALL(cl_mem, clReleaseMemObject)
STATUS_CALL(clEnqueueWriteBuffer,
            (cl_command_queue q, cl_mem buffer, cl_bool blocking, size_t offset, size_t size,
             const void *ptr, cl_uint nwait, const cl_event *wait, cl_event *event),
            (q, buffer, blocking, offset, size, ptr, nwait, wait, event))
CL_API_ENTRY void *CL_API_CALL clEnqueueMapBuffer(cl_command_queue q, cl_mem buffer, cl_bool blocking,
                                                  cl_map_flags flags, size_t offset, size_t size,
                                                  cl_uint nwait, const cl_event *wait, cl_event *event,
                                                  cl_int *errcode_ret) {
    if (fails(F_clEnqueueMapBuffer) || !real.clEnqueueMapBuffer) {
        if (errcode_ret)
            *errcode_ret = codes[F_clEnqueueMapBuffer];
        return NULL;
    }
    return real.clEnqueueMapBuffer(q, buffer, blocking, flags, offset, size, nwait, wait, event, errcode_ret);
}
STATUS_CALL(clEnqueueUnmapMemObject,
            (cl_command_queue q, cl_mem memobj, void *ptr, cl_uint nwait, const cl_event *wait,
             cl_event *event),
            (q, memobj, ptr, nwait, wait, event))
STATUS_CALL(clEnqueueReadBuffer,
            (cl_command_queue q, cl_mem buffer, cl_bool blocking, size_t offset, size_t size,
             void *ptr, cl_uint nwait, const cl_event *wait, cl_event *event),
            (q, buffer, blocking, offset, size, ptr, nwait, wait, event))
STATUS_CALL(clEnqueueCopyBuffer,
            (cl_command_queue q, cl_mem src, cl_mem dst, size_t src_offset, size_t dst_offset,
             size_t size, cl_uint nwait, const cl_event *wait, cl_event *event),
            (q, src, dst, src_offset, dst_offset, size, nwait, wait, event))
STATUS_CALL(clFinish, (cl_command_queue q), (q))
STATUS_CALL(clFlush, (cl_command_queue q), (q))
OBJECT_CALL(cl_program, clCreateProgramWithSource,
            (cl_context context, cl_uint count, const char **strings, const size_t *lengths,
             cl_int *errcode_ret),
            (context, count, strings, lengths, errcode_ret))
OBJECT_CALL(cl_program, clCreateProgramWithBinary,
            (cl_context context, cl_uint num_devices, const cl_device_id *devices,
             const size_t *lengths, const unsigned char **binaries, cl_int *binary_status,
             cl_int *errcode_ret),
            (context, num_devices, devices, lengths, binaries, binary_status, errcode_ret))
STATUS_CALL(clBuildProgram,
            (cl_program program, cl_uint num_devices, const cl_device_id *devices,
             const char *options, void(CL_CALLBACK *notify)(cl_program, void *), void *user_data),
            (program, num_devices, devices, options, notify, user_data))
STATUS_CALL(clGetProgramInfo,
            (cl_program program, cl_program_info param_name, size_t size, void *value,
             size_t *size_ret),
            (program, param_name, size, value, size_ret))
STATUS_CALL(clGetProgramBuildInfo,
            (cl_program program, cl_device_id device, cl_program_build_info param_name,
             size_t size, void *value, size_t *size_ret),
            (program, device, param_name, size, value, size_ret))
RELEASE_CALL(cl_program, clReleaseProgram)
OBJECT_CALL(cl_kernel, clCreateKernel,
            (cl_program program, const char *kernel_name, cl_int *errcode_ret),
            (program, kernel_name, errcode_ret))
RELEASE_CALL(cl_kernel, clReleaseKernel)
STATUS_CALL(clSetKernelArg, (cl_kernel kernel, cl_uint index, size_t size, const void *value),
            (kernel, index, size, value))
STATUS_CALL(clEnqueueNDRangeKernel,
            (cl_command_queue q, cl_kernel kernel, cl_uint dims, const size_t *offset,
             const size_t *global, const size_t *local, cl_uint nwait, const cl_event *wait,
             cl_event *event),
            (q, kernel, dims, offset, global, local, nwait, wait, event))
STATUS_CALL(clWaitForEvents, (cl_uint num_events, const cl_event *events), (num_events, events))
RELEASE_CALL(cl_event, clReleaseEvent)
STATUS_CALL(clGetEventProfilingInfo,
            (cl_event event, cl_profiling_info param_name, size_t size, void *value,
             size_t *size_ret),
            (event, param_name, size, value, size_ret))
