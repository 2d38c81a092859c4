/* icd.c: the OpenCL ICD loader, opened with dlopen at first use, and the
 * table of entry points the runtime calls.  Nothing links -lOpenCL, so a
 * module runs where no loader is installed (it then runs natively). */
#include "internal.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

cyrt_status cyrt_icd_open(cyrt_cl *cl, const char *loader, cyrt_err *err) {
    memset(cl, 0, sizeof *cl);
    static const char *const names[] = {"libOpenCL.so.1", "libOpenCL.so"};
    const char *tried = loader ? loader : "libOpenCL.so.1, libOpenCL.so";
    char why[256] = "";
    /* NODELETE: vendor drivers start threads and register exit handlers
     * inside the process; unmapping them under those crashes. */
    int flags = RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE;
    if (loader) {
        cl->lib = dlopen(loader, flags);
        if (!cl->lib)
            snprintf(why, sizeof why, "%s", dlerror());
    } else {
        for (size_t i = 0; i < sizeof names / sizeof names[0] && !cl->lib; i++) {
            cl->lib = dlopen(names[i], flags);
            if (!cl->lib && !why[0])
                snprintf(why, sizeof why, "%s", dlerror());
        }
    }
    if (!cl->lib) {
        cyrt_seterr(err, 0, "no OpenCL ICD loader (tried %s: %s); install one, e.g. ocl-icd-libopencl1",
                    tried, why);
        return CYRT_ENOLOADER;
    }
    const char *missing = NULL;
    /* dlsym's void * becomes a function pointer by copying its bytes, as POSIX allows */
#define CYRT_CL_RESOLVE(name)                                                                      \
    {                                                                                              \
        void *sym = dlsym(cl->lib, #name);                                                         \
        memcpy(&cl->name, &sym, sizeof sym);                                                       \
        if (!sym && !missing)                                                                      \
            missing = #name;                                                                       \
    }
    CYRT_CL_FUNCS(CYRT_CL_RESOLVE)
#undef CYRT_CL_RESOLVE
    if (missing) {
        cyrt_seterr(err, 0, "the OpenCL loader lacks %s (it is older than OpenCL 1.2)", missing);
        cyrt_icd_close(cl);
        return CYRT_ENOLOADER;
    }
    return CYRT_OK;
}

void cyrt_icd_close(cyrt_cl *cl) {
    if (cl->lib)
        dlclose(cl->lib);
    memset(cl, 0, sizeof *cl);
}

const char *cyrt_cl_error_name(int code) {
    switch (code) {
#define E(name)                                                                                    \
    case name:                                                                                     \
        return #name;
        E(CL_SUCCESS)
        E(CL_DEVICE_NOT_FOUND)
        E(CL_DEVICE_NOT_AVAILABLE)
        E(CL_COMPILER_NOT_AVAILABLE)
        E(CL_MEM_OBJECT_ALLOCATION_FAILURE)
        E(CL_OUT_OF_RESOURCES)
        E(CL_OUT_OF_HOST_MEMORY)
        E(CL_PROFILING_INFO_NOT_AVAILABLE)
        E(CL_MEM_COPY_OVERLAP)
        E(CL_IMAGE_FORMAT_MISMATCH)
        E(CL_IMAGE_FORMAT_NOT_SUPPORTED)
        E(CL_BUILD_PROGRAM_FAILURE)
        E(CL_MAP_FAILURE)
        E(CL_MISALIGNED_SUB_BUFFER_OFFSET)
        E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        E(CL_COMPILE_PROGRAM_FAILURE)
        E(CL_LINKER_NOT_AVAILABLE)
        E(CL_LINK_PROGRAM_FAILURE)
        E(CL_DEVICE_PARTITION_FAILED)
        E(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
        E(CL_INVALID_VALUE)
        E(CL_INVALID_DEVICE_TYPE)
        E(CL_INVALID_PLATFORM)
        E(CL_INVALID_DEVICE)
        E(CL_INVALID_CONTEXT)
        E(CL_INVALID_QUEUE_PROPERTIES)
        E(CL_INVALID_COMMAND_QUEUE)
        E(CL_INVALID_HOST_PTR)
        E(CL_INVALID_MEM_OBJECT)
        E(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
        E(CL_INVALID_IMAGE_SIZE)
        E(CL_INVALID_SAMPLER)
        E(CL_INVALID_BINARY)
        E(CL_INVALID_BUILD_OPTIONS)
        E(CL_INVALID_PROGRAM)
        E(CL_INVALID_PROGRAM_EXECUTABLE)
        E(CL_INVALID_KERNEL_NAME)
        E(CL_INVALID_KERNEL_DEFINITION)
        E(CL_INVALID_KERNEL)
        E(CL_INVALID_ARG_INDEX)
        E(CL_INVALID_ARG_VALUE)
        E(CL_INVALID_ARG_SIZE)
        E(CL_INVALID_KERNEL_ARGS)
        E(CL_INVALID_WORK_DIMENSION)
        E(CL_INVALID_WORK_GROUP_SIZE)
        E(CL_INVALID_WORK_ITEM_SIZE)
        E(CL_INVALID_GLOBAL_OFFSET)
        E(CL_INVALID_EVENT_WAIT_LIST)
        E(CL_INVALID_EVENT)
        E(CL_INVALID_OPERATION)
        E(CL_INVALID_GL_OBJECT)
        E(CL_INVALID_BUFFER_SIZE)
        E(CL_INVALID_MIP_LEVEL)
        E(CL_INVALID_GLOBAL_WORK_SIZE)
        E(CL_INVALID_PROPERTY)
        E(CL_INVALID_IMAGE_DESCRIPTOR)
        E(CL_INVALID_COMPILER_OPTIONS)
        E(CL_INVALID_LINKER_OPTIONS)
        E(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef E
    /* beyond 1.2: reported by newer platforms all the same */
    case -69: return "CL_INVALID_PIPE_SIZE";
    case -70: return "CL_INVALID_DEVICE_QUEUE";
    case -71: return "CL_INVALID_SPEC_ID";
    case -72: return "CL_MAX_SIZE_RESTRICTION_EXCEEDED";
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
    }
    return "CL_UNKNOWN_ERROR"; /* callers print the number beside it */
}
