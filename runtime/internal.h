/* internal.h: what the runtime's files share — the runtime object, the
 * OpenCL function table and the region records.  Not for generated code. */
#ifndef CYRT_INTERNAL_H
#define CYRT_INTERNAL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_NODELETE, strcasestr, vasprintf */
#endif

#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS /* clCreateCommandQueue is the 1.2 way */
#include <CL/cl.h>

#include <pthread.h>
#include <stdarg.h>

#include "cyrt.h"
#include "pool.h"

/* The OpenCL 1.2 entry points the runtime calls, resolved with dlsym; the
 * declarations in <CL/cl.h> give the types only (nothing links -lOpenCL). */
#define CYRT_CL_FUNCS(X)                                                                           \
    X(clGetPlatformIDs) X(clGetPlatformInfo) X(clGetDeviceIDs) X(clGetDeviceInfo)                 \
    X(clCreateContext) X(clReleaseContext) X(clCreateCommandQueue) X(clReleaseCommandQueue)       \
    X(clCreateBuffer) X(clReleaseMemObject) X(clEnqueueWriteBuffer) X(clEnqueueReadBuffer)        \
    X(clEnqueueCopyBuffer) X(clFinish) X(clFlush) X(clCreateProgramWithSource)                    \
    X(clCreateProgramWithBinary) X(clBuildProgram) X(clGetProgramInfo) X(clGetProgramBuildInfo)   \
    X(clReleaseProgram) X(clCreateKernel) X(clReleaseKernel) X(clSetKernelArg)                    \
    X(clEnqueueNDRangeKernel) X(clWaitForEvents) X(clReleaseEvent) X(clGetEventProfilingInfo)     \
    X(clEnqueueMapBuffer) X(clEnqueueUnmapMemObject)

typedef struct cyrt_cl {
    void *lib;
#define CYRT_CL_MEMBER(name) __typeof__(name) *name;
    CYRT_CL_FUNCS(CYRT_CL_MEMBER)
#undef CYRT_CL_MEMBER
} cyrt_cl;

/* icd.c */
cyrt_status cyrt_icd_open(cyrt_cl *cl, const char *loader, cyrt_err *err);
void cyrt_icd_close(cyrt_cl *cl);

/* One device of the process's list; its context and queue are made lazily. */
typedef struct cyrt_device {
    cyrt_devinfo info;
    cl_platform_id platform;
    cl_device_id id;
    cl_context ctx;
    cl_command_queue queue;
    struct cyrt_rt *rt;
    /* pinned staging buffers for large copies (device.c), made at the
       first one; taken by one copy at a time (atomic), NULL: not yet */
    struct cyrt_stage *stage;
    /* the pool of idle buffers (pool.h): pool_on 0 not set up yet (at the
       registry's binding, cyrt_cl_backend), 1 on, -1 off (CYOCL_POOL_MB=0);
       pool_lock (made when pool_on is set) guards pool.  Taken after
       rt->lock where both are, never before, and held for bookkeeping only:
       buffers are made and released outside it */
    int pool_on;
    pthread_mutex_t pool_lock;
    cyrt_pool pool;
} cyrt_device;

/* A memory region: a byte extent [lo, hi) of host memory.  Top-level
 * regions are disjoint and own the residency and the device buffer; a child
 * (top != NULL) is a region inside its top's extent and shares its buffer.
 * Children are kept flat: a child of a child is a child of the top. */
typedef struct cyrt_region {
    uintptr_t lo, hi;
    long refs;               /* handles registered on exactly this extent */
    struct cyrt_region *top; /* NULL: top-level */
    /* top-level only */
    struct cyrt_region **kids;
    size_t nkids, capkids;
    void *buf;               /* device buffer or NULL; byte 0 is host address org */
    uintptr_t org;           /* lo rounded down to CYRT_ALIGN */
    size_t bufsize;
    unsigned char host_valid, dev_valid;
    long pins;               /* device acquisitions not yet done */
    pthread_t pin_owner;
    unsigned char host_before; /* host_valid when the current acquisition began */
    unsigned char mark;        /* scratch for one walk under the lock */
    /* only a device of the parent held the data when this process was
     * forked, and it could not be copied back then: every use that needs
     * the host copy fails (rt->fork_err says why) */
    unsigned char lost;
} cyrt_region;

/* Device offsets keep the host address's alignment modulo this, so that a
 * view aligned on the host is aligned in the device buffer. */
#define CYRT_ALIGN ((uintptr_t)128)

struct cyrt_handle {
    cyrt_region *r; /* NULL for an empty view */
    uintptr_t data;
    size_t itemsize;
    unsigned flags;                  /* CYRT_HF_* */
    struct cyrt_handle *prev, *next; /* the runtime's list of live handles */
};

/* One thread's open def calls (scope.c): the views its launches
 * registered, kept until the call that registered them returns, so that
 * the data stays where the last region left it (DESIGN §4.5). */
typedef struct {
    cyrt_handle *h;
    int level; /* the call depth that registered it */
    int ndim;
    size_t itemsize;
    ptrdiff_t shape[8], strides[8];
} cyrt_scoped;

typedef struct {
    pthread_t tid;
    int depth;
    cyrt_scoped *v;
    size_t n, cap;
    /* a host use inside the call could not bring data back: the call's
     * cyrt_scope_leave reports it (host_use itself cannot raise) */
    cyrt_status failed;
    cyrt_err ferr;
} cyrt_tscope;

struct cyrt_rt {
    pthread_mutex_t lock;
    pthread_cond_t unpinned; /* broadcast whenever a region's pins drop to zero */
    int is_global, quiet;
    char *loader;

    /* devices: loaded once (loaded: 0 not tried, 1 ok, -1 failed with load_err) */
    int loaded;
    cyrt_status load_status;
    cyrt_err load_err;
    cyrt_cl cl;
    cyrt_device *devs;
    cyrt_devinfo *infos; /* the public list: devs[i].info, contiguous */
    int ndevs;

    /* registry */
    cyrt_region **tops; /* sorted by lo, disjoint */
    size_t ntops, captops;
    struct cyrt_handle *handles;
    cyrt_membackend be;
    int have_be, be_device; /* be_device: device index, -1 for a given backend */
    cyrt_xfer stats;
    cyrt_counts counts; /* updated with __atomic builtins, no lock */
    int state; /* CYRT_STATE_* bits, read without the lock by generated code */
    /* CYRT_FORCE_*: CYOCL_FORCE when the Python module starts, then
     * cyocl.force(); read without the lock by generated code */
    int force;
    /* changes (atomically, lock held) whenever a handle comes or goes or
     * changes flags, or some top's extent or residency changes: the
     * dispatcher's settled decisions hold while it stays (dispatch.c) */
    uint64_t res_seq;
    uint64_t res_fp; /* the tops' fingerprint behind the last change (cyrt_restate_locked) */
    /* atomic: counts def calls' returns (cyrt_scope_leave*, any thread).
     * Each brings every region without a resident view back to the host,
     * so between two of them data stays where regions leave it: the
     * dispatcher counts a region's calls per such epoch (dispatch.c) */
    uint64_t scope_seq;
    /* atomic: host uses of tops that have a device copy
     * (cyrt_host_range_locked, cyrt_host_acquire: cyocl.to_host), whether
     * or not they copied: with
     * counts.drains, whether the host used or waited for device data
     * between two calls of a region (dispatch.c: streams) */
    uint64_t touch_seq;
    /* launch.c: programs built in this process, by (source text, device);
     * prog_lock is never held during a build (prog_cond: one finished) */
    pthread_mutex_t prog_lock;
    pthread_cond_t prog_cond;
    struct cyrt_prog *progs;
    size_t nprogs;
    struct cyrt_kent **kents; /* kernel objects kept between launches */
    size_t nkents;
    struct cyrt_lstate **lstates; /* regions' launch states, named by modules' slots */
    size_t nlstates;
    unsigned lgen;  /* changes whenever lstates is emptied: older slots name nothing */
    /* the queue of the last quiet kernel whose launch returned unwaited
       (launch.c; lock held to change), NULL none: a copy of device memory
       or a launch on another queue waits for it first (cyrt_drain_locked) */
    cl_command_queue pend_q;
    int verbose;    /* CYOCL_VERBOSE as read once: 0 not yet, 1 off, 2 "1", 3 "2" */
    int plan;       /* CYOCL_PLAN as read once: 0 not yet, 1 by device type, 2 "gpu", 3 "cpu" */
    cyrt_tscope *tscopes;
    size_t ntscopes, captscopes;

    char *warnings; /* lines given so far */
    size_t nwarn;
    size_t wtaken;  /* bytes of warnings cyrt_warnings_take has returned */
    char *seen;     /* cyrt_first's keys, one per line */
    size_t nseen;

    /* fork (rt.c): the global runtime registers its pthread_atfork
     * handlers once; a child forked after OpenCL was started gets
     * forked = 1 and never calls into the parent's OpenCL objects */
    pthread_once_t fork_once;
    int forked;
    int fork_nested; /* the fork in progress came from inside the runtime (rt.c) */
    cyrt_err fork_err; /* why data could not be brought back before the fork */

    struct cyrt_cache_state *cache; /* the kernel cache, opened at its first use (device.c) */

    /* dispatch.c: the calibrated dispatcher, made at its first use; its
     * lock guards the region list, the device constants and the store
     * (never held while taking the runtime's lock) */
    struct cyrt_disp *disp;
    int opening; /* the dispatcher's opener is loading OpenCL (lock held to change;
                  * cyrt_devices_locked waits for it on `unpinned`) */
    pthread_mutex_t disp_lock;
    pthread_cond_t disp_cond; /* the device opener is done */
};

/* rt.c */
/* Registers the fork handlers of the global runtime (once). */
void cyrt_fork_init(cyrt_rt *rt);
void cyrt_warn(cyrt_rt *rt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cyrt_seterr(cyrt_err *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* device.c (lock held) */
/* In a forked child: the device list and the loader are forgotten (the
 * OpenCL objects are the parent's: neither used nor released) and OpenCL
 * reports CYRT_EFORKED from then on. */
void cyrt_devices_fork_child(cyrt_rt *rt);
cyrt_status cyrt_devices_locked(cyrt_rt *rt, cyrt_err *err);
cyrt_status cyrt_select_locked(cyrt_rt *rt, unsigned allowed, int *index, cyrt_err *err);
cyrt_status cyrt_open_locked(cyrt_rt *rt, int index, cyrt_err *err);
void cyrt_devices_free(cyrt_rt *rt);
void cyrt_cache_state_free(struct cyrt_cache_state *cs);
/* The kernel cache's directory and mode (CYRT_CACHE_*), resolved as for
 * programs (takes the lock). */
void cyrt_cache_dir(cyrt_rt *rt, char *dir, size_t n, int *mode);
/* A blocking copy of bytes between host and buf (from offset 0) on opened
 * device index, by the path the backend's copies of that size take (the
 * dispatcher's microbenchmark; lock not held): 0 or an OpenCL error. */
int cyrt_device_copy(cyrt_rt *rt, int index, cl_mem buf, void *host, size_t bytes, int up);
/* The OpenCL buffers of one opened device as a memory backend. */
void cyrt_cl_backend(cyrt_device *d, cyrt_membackend *be);
/* The devices' buffer pools' counters and idle buffers, added into out. */
void cyrt_pools_info_locked(cyrt_rt *rt, cyrt_registry_info *out);

/* registry.c (lock held) */
cyrt_status cyrt_bind_locked(cyrt_rt *rt, int index, cyrt_err *err);
cyrt_status cyrt_registry_free(cyrt_rt *rt, cyrt_err *err);
/* Fork (lock held): before, every top whose only valid copy is on the
 * device comes back to the host (the first failure in rt->fork_err);
 * in the child, every device buffer is forgotten (never released: it is
 * the parent's) and a top still without a host copy is marked lost. */
void cyrt_registry_fork_prepare(cyrt_rt *rt);
/* 1 while another thread runs a kernel that writes a region (its only
 * valid copy is then on the device until the kernel is done). */
int cyrt_registry_fork_busy(cyrt_rt *rt);
void cyrt_registry_fork_child(cyrt_rt *rt);
/* Drops handle h (lock held): as cyrt_release, without taking the lock. */
cyrt_status cyrt_release_locked(cyrt_rt *rt, cyrt_handle *h, cyrt_xfer *acc, cyrt_err *err);
void cyrt_restate_locked(cyrt_rt *rt);
/* Host copies of the tops that overlap [lo, hi) (all tops when lo == hi == 0)
 * made valid, and with invalidate their device copies dropped; tops with
 * a resident view are left alone when skip_resident. */
cyrt_status cyrt_host_range_locked(cyrt_rt *rt, uintptr_t lo, uintptr_t hi, int invalidate,
                                   int skip_resident, cyrt_xfer *acc, cyrt_err *err);
int cyrt_extent(const void *data, int ndim, const ptrdiff_t *shape, const ptrdiff_t *strides,
                size_t itemsize, uintptr_t *lo, uintptr_t *hi, int *empty, cyrt_err *err);
/* launch.c (lock held): waits for the quiet kernel whose launch returned
 * unwaited, if any (the registry's copies and other queues' launches).
 * Nonzero (an OpenCL error code) when that wait failed: the kernel's
 * results cannot be trusted, so the caller must fail rather than copy. */
int cyrt_drain_locked(cyrt_rt *rt);
/* launch.c (no lock held) */
void cyrt_progs_free(cyrt_rt *rt);
/* 1 when the calling thread is building a program (prog_lock held). */
int cyrt_progs_building(cyrt_rt *rt);
/* In a forked child (single-threaded, locks fresh): the host memory of the
 * program and kernel lists goes, their OpenCL objects are the parent's
 * and are left alone. */
void cyrt_progs_forget(cyrt_rt *rt);
/* dispatch.c */
/* Joins the device opener and frees the records (no lock held). */
void cyrt_dispatch_free(cyrt_rt *rt);
/* In a forked child, after cyrt_devices_fork_child: an opener that was
 * running is gone (OpenCL is then unusable in the child). */
void cyrt_dispatch_fork_child(cyrt_rt *rt);
/* The device was used (a launch, a copy; built: a program was built or
 * loaded for it): native times are provisional for a moment (a build:
 * native teams run short meanwhile) (any lock). */
void cyrt_dispatch_device_used(cyrt_rt *rt, int built);
/* A copy of bytes to or from the device ended: native times are
 * provisional for longer after a large one (any lock). */
void cyrt_dispatch_device_copied(cyrt_rt *rt, size_t bytes);
/* The native runs that cyrt_dispatch_native_done counted in the
 * dispatcher's records, and their time (stats' native_regions and
 * native_ns have them besides cyrt_note_native's; no lock held). */
void cyrt_dispatch_native_counts(cyrt_rt *rt, uint64_t *runs, uint64_t *ns);
/* Full native teams again once that moment is over (any lock). */
void cyrt_dispatch_idle_check(cyrt_rt *rt);
/* What was learnt since the last save goes to the store (at exit). */
void cyrt_dispatch_flush(cyrt_rt *rt);
/* scope.c (lock held) */
void cyrt_scopes_free(cyrt_rt *rt);
/* In a forked child: the scopes of threads that do not exist there go,
 * with the views they registered. */
void cyrt_scopes_fork_child(cyrt_rt *rt);
/* A host use failed on the calling thread: its open call, if any,
 * remembers the first failure for cyrt_scope_leave. */
void cyrt_scope_note_failure_locked(cyrt_rt *rt, cyrt_status st, const cyrt_err *err);
/* Memory [lo, hi) goes back to its exporter: the calling thread's calls
 * release the views they registered inside it (lock held). */
void cyrt_scope_forget_locked(cyrt_rt *rt, uintptr_t lo, uintptr_t hi);

#endif
