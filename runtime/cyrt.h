/* cyrt.h: the cyocl runtime — the process-wide object that owns the OpenCL
 * loader, the devices and the memory-region registry (DESIGN §2, §4;
 * docs/runtime.md).
 *
 * Everything lives in one cyrt_rt: cyrt_rt_global() is the process's,
 * cyrt_rt_new() makes private ones (tests, a fake memory backend).  Every
 * call takes the runtime's mutex for its bookkeeping (copies and builds
 * run without it, docs/runtime.md "Threads"); none exits, aborts or prints except the
 * one-time warnings (stderr, "cyocl: warning: ...").  Functions return a
 * cyrt_status and fill an optional cyrt_err with the details.
 *
 * The OpenCL types appear as their struct tags, so this header needs no
 * <CL/cl.h>: struct _cl_mem * is a cl_mem, and so on. */
#ifndef CYRT_H
#define CYRT_H

#include <stddef.h>
#include <stdint.h>

struct _cl_context;
struct _cl_command_queue;
struct _cl_program;
struct _cl_kernel;

typedef enum {
    CYRT_OK = 0,
    CYRT_ENOMEM,      /* a host allocation failed */
    CYRT_EINVAL,      /* a bad argument */
    CYRT_ENOLOADER,   /* no OpenCL ICD loader could be opened */
    CYRT_ENOPLATFORM, /* the loader found no OpenCL platform / device */
    CYRT_ENODEVICE,   /* no device passes the filters (CYOCL_DEVICE_TYPE, cpu-only) */
    CYRT_ECL,         /* an OpenCL call failed: cyrt_err.code, cyrt_cl_error_name() */
    CYRT_EBUILD,      /* an OpenCL program did not build: the build log is returned */
    CYRT_EBACKEND,    /* the memory backend failed (device alloc or transfer) */
    CYRT_EBUSY,       /* the calling thread itself holds a region the call must move */
    CYRT_EFORKED,     /* this process was forked after its parent had started OpenCL */
} cyrt_status;

typedef struct {
    int code;      /* the OpenCL or memory-backend error code, 0 if none */
    char msg[512]; /* one line, no trailing newline */
} cyrt_err;

const char *cyrt_status_name(cyrt_status s);
const char *cyrt_cl_error_name(int code); /* "CL_OUT_OF_RESOURCES"; "CL_UNKNOWN_ERROR" if unknown */

/* ---- the device side of the registry ------------------------------------------
 * Buffers are opaque (a cl_mem for OpenCL).  Each op returns 0 or a
 * backend error code (OpenCL's are negative).  write: host -> device at a
 * byte offset; read: device -> host; copy: device -> device. */
typedef struct cyrt_membackend {
    void *ctx;
    int (*alloc)(void *ctx, size_t bytes, void **buf);
    void (*free)(void *ctx, void *buf);
    int (*write)(void *ctx, void *buf, size_t offset, const void *src, size_t bytes);
    int (*read)(void *ctx, void *buf, size_t offset, void *dst, size_t bytes);
    int (*copy)(void *ctx, void *src, size_t src_offset, void *dst, size_t dst_offset,
                size_t bytes);
    const char *(*error_name)(int code); /* may be NULL */
    /* whether write/read of this many bytes go through pinned staging
     * buffers (a path of their own speed, counted apart in cyrt_xfer for
     * the dispatcher); NULL: never */
    int (*staged)(void *ctx, size_t bytes);
} cyrt_membackend;

/* The OpenCL backend's rule (device.c): a copy of bytes to or from a device
 * of dev_type (CYRT_DEV_*) is staged through pinned buffers from 8 MiB on,
 * for GPUs and accelerators, CYOCL_STAGING=on|off overriding. */
int cyrt_copy_staged(unsigned dev_type, size_t bytes);

/* ---- the runtime object ---------------------------------------------------- */
typedef struct cyrt_rt cyrt_rt;

typedef struct {
    const char *loader;              /* ICD loader to dlopen (NULL: libOpenCL.so.1, libOpenCL.so) */
    const cyrt_membackend *backend;  /* registry device side (NULL: OpenCL buffers, chosen lazily) */
    int quiet;                       /* keep warnings out of stderr (still in cyrt_warnings) */
} cyrt_config;

cyrt_rt *cyrt_rt_global(void); /* the process's runtime; never NULL */
cyrt_status cyrt_rt_new(const cyrt_config *cfg, cyrt_rt **out);
/* Copies every device-dirty region back to the host, then frees all regions,
 * handles still registered, devices, programs' contexts and the loader.
 * The global runtime is left empty and usable again. */
cyrt_status cyrt_rt_free(cyrt_rt *rt, cyrt_err *err);

/* The warnings so far, one per line (each given once), malloc'ed; NULL if none. */
char *cyrt_warnings(cyrt_rt *rt);
/* With on, warnings are no longer printed but kept for cyrt_warnings_take:
 * the Python module gives them as RuntimeWarnings naming the region. */
void cyrt_warnings_defer(cyrt_rt *rt, int on);
/* The warnings given since the last take, one per line, malloc'ed; NULL if none. */
char *cyrt_warnings_take(cyrt_rt *rt);
/* Gives a warning line of the caller's (once per process, as the runtime's own). */
void cyrt_warning(cyrt_rt *rt, const char *line);
/* 1 the first time key is seen by this process's runtime, else 0 (for
 * notices a caller gives once, worded its own way). */
int cyrt_first(cyrt_rt *rt, const char *key);

/* ---- fork ------------------------------------------------------------------------
 * The process's runtime registers pthread_atfork handlers at its first use.
 * Before a fork the runtime's locks are taken (a fork waits for kernels
 * other threads are running on regions) and every region whose only valid
 * copy is on a device comes back to the host, so that the child sees the
 * data.  The child gets a fresh runtime: no locks held, no device buffers,
 * no queues, no scopes of threads that are not there.  Drivers do not
 * survive fork() (their threads stay in the parent), so a child forked after
 * OpenCL was started never calls OpenCL: it leaks the parent's objects on
 * purpose and every OpenCL entry point reports CYRT_EFORKED (regions run
 * natively).  A child forked before OpenCL was started opens it normally.
 * Data a failing device could not give back before the fork is lost in the
 * child: the calls that need it fail with CYRT_EBACKEND and say why. */
int cyrt_forked(cyrt_rt *rt); /* 1 in a child forked after OpenCL was started */

/* Bytes and transfers.  Every moving call adds to the runtime's running
 * totals (cyrt_stats) and, when given one, to the caller's accumulator (the
 * trace's per-region bytes_to_device / bytes_to_host). */
typedef struct {
    uint64_t bytes_to_device, bytes_to_host, bytes_device_copy;
    uint64_t to_device, to_host, device_copies; /* transfer counts */
    uint64_t ns_to_device, ns_to_host; /* wall time of those copies (the dispatcher's
                                          bandwidth and the device run's own time) */
    /* of those, the staged copies (cyrt_membackend.staged): bytes, counts, ns */
    uint64_t staged_bytes_to_device, staged_bytes_to_host;
    uint64_t staged_to_device, staged_to_host;
    uint64_t staged_ns_to_device, staged_ns_to_host;
} cyrt_xfer;
void cyrt_stats(cyrt_rt *rt, cyrt_xfer *out);

/* What the launches did (cyocl.stats()). */
typedef struct {
    uint64_t launches;          /* regions run on a device */
    uint64_t fallbacks;         /* regions sent back to native (policy or failure) */
    uint64_t failures;          /* of those, because OpenCL failed */
    uint64_t programs_compiled, programs_loaded; /* from source / from the kernel cache */
    uint64_t device_ns;         /* wall time of the device runs, transfers included */
    uint64_t native_regions, native_ns; /* regions run natively by modules with the runtime, their time */
    uint64_t result_reads;      /* launches that waited for their result buffer */
    uint64_t unwaited;          /* launches of quiet kernels that returned once enqueued */
    uint64_t drains;            /* host accesses that waited for such a kernel */
} cyrt_counts;
/* A module ran a region natively in ns nanoseconds. */
void cyrt_note_native(cyrt_rt *rt, uint64_t ns);
/* (with the native runs the dispatcher counted in its records: takes its lock) */
void cyrt_counts_get(cyrt_rt *rt, cyrt_counts *out);

/* ---- devices (icd.c, device.c) ---------------------------------------------- */
enum { CYRT_DEV_CPU = 1, CYRT_DEV_GPU = 2, CYRT_DEV_ACCEL = 4, CYRT_DEV_OTHER = 8, CYRT_DEV_ALL = 15 };

typedef struct {
    int index;     /* position in the process's device list (what CYOCL_DEVICE=N names) */
    unsigned type; /* one CYRT_DEV_* bit */
    char platform[128], name[128], vendor[128];
    char version[96], driver[96], clc_version[96]; /* CL_DEVICE_VERSION, CL_DRIVER_VERSION, CL_DEVICE_OPENCL_C_VERSION */
    int fp64;
    int fp32_exact_div; /* CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT: programs are built with
                           -cl-fp32-correctly-rounded-divide-sqrt, so float / and sqrt
                           round as the native code does */
    uint64_t global_mem, max_alloc;
    unsigned compute_units;
    size_t max_work_group;
} cyrt_devinfo;

/* Opens the loader and lists every device of every platform, once per
 * runtime; the list stays valid until cyrt_rt_free.  No loader or no
 * platform: CYRT_ENOLOADER / CYRT_ENOPLATFORM with the reason in err. */
cyrt_status cyrt_devices(cyrt_rt *rt, const cyrt_devinfo **list, int *n, cyrt_err *err);
const char *cyrt_device_type_name(unsigned type); /* "cpu", "gpu", ... */

/* Device types allowed by CYOCL_DEVICE_TYPE (all when unset; an unknown
 * value warns once and means all), and'ed with allowed (CYRT_DEV_CPU for a
 * module built with --no-opencl-gpu). */
unsigned cyrt_allowed_types(cyrt_rt *rt, unsigned allowed);
/* The device to use: CYOCL_DEVICE (an index or a case-insensitive substring
 * of "platform device") among the allowed ones, else the first GPU, then
 * accelerator, then CPU.  A CYOCL_DEVICE naming nothing usable warns once
 * and the default is taken. */
cyrt_status cyrt_select_device(cyrt_rt *rt, unsigned allowed, int *index, cyrt_err *err);
/* The device's context and in-order queue (no profiling), created at the first call. */
cyrt_status cyrt_device_open(cyrt_rt *rt, int index, struct _cl_context **ctx,
                             struct _cl_command_queue **queue, cyrt_err *err);
/* Builds src for one device with options + " " + $CYOCL_BUILD_OPTIONS.
 * On CYRT_EBUILD *log (malloc'ed, the caller frees it) holds the build log. */
cyrt_status cyrt_program_build(cyrt_rt *rt, int index, const char *src, const char *options,
                               struct _cl_program **prog, char **log, cyrt_err *err);
void cyrt_program_release(cyrt_rt *rt, struct _cl_program *prog);
cyrt_status cyrt_kernel_create(cyrt_rt *rt, struct _cl_program *prog, const char *name,
                               struct _cl_kernel **kernel, cyrt_err *err);
void cyrt_kernel_release(cyrt_rt *rt, struct _cl_kernel *kernel);
/* clSetKernelArg: a buffer argument passes &devref.mem with sizeof(void *). */
cyrt_status cyrt_kernel_arg(cyrt_rt *rt, struct _cl_kernel *kernel, unsigned arg, size_t size,
                            const void *value, cyrt_err *err);
/* Enqueues kernel over dims axes of global items (local: NULL for the
 * driver's choice) on device index's queue.  With ns != NULL it waits and
 * stores the kernel's device time (0: the device's queue does not profile,
 * launch.c's profiling queues do); otherwise it
 * returns at once (a later blocking transfer on the queue waits for it). */
cyrt_status cyrt_kernel_launch(cyrt_rt *rt, int index, struct _cl_kernel *kernel, unsigned dims,
                               const size_t *global, const size_t *local, uint64_t *ns,
                               cyrt_err *err);

/* ---- the kernel cache (device.c over cache/, DESIGN §7, docs/cache.md) ------- */
/* How a program was obtained (the trace's build field: none, compiled, cache). */
enum { CYRT_BUILD_NONE = 0, CYRT_BUILD_COMPILED = 1, CYRT_BUILD_CACHE = 2 };
/* cyrt_program_build through the on-disk kernel cache: the binary stored
 * for (source, options + $CYOCL_BUILD_OPTIONS, platform, device, driver,
 * OpenCL C version, cyocl version) is loaded when there is a valid one
 * (*how = CYRT_BUILD_CACHE); otherwise the source is built (*how =
 * CYRT_BUILD_COMPILED) and its binary stored.  A damaged, foreign or
 * unloadable entry is rebuilt and replaced.  The cache is resolved from
 * the environment (CYOCL_CACHE, CYOCL_CACHE_DIR, CYOCL_CACHE_MAX_SIZE) at
 * the runtime's first use of it; its problems are warnings, never errors. */
cyrt_status cyrt_program_get(cyrt_rt *rt, int index, const char *src, const char *options,
                             struct _cl_program **prog, int *how, char **log, cyrt_err *err);
typedef struct {
    char dir[1024];     /* "" when none could be named */
    int enabled;        /* 1 loads and stores, 2 loads only (read-only directory), 0 off */
    const char *state;  /* "on", "read-only", "off" (CYOCL_CACHE=0 or no directory), "unsafe" */
    uint64_t entries, bytes, max_bytes; /* what the directory holds now; the size cap */
    /* this runtime's programs: */
    uint64_t hits, misses, stores; /* misses: built from source while the cache was on */
    uint64_t compile_ns;           /* spent building from source */
    uint64_t load_ns;              /* spent loading cached binaries */
    uint64_t saved_ns;             /* the hits' recorded build times, less their load times */
} cyrt_cache_info;
void cyrt_cache_info_get(cyrt_rt *rt, cyrt_cache_info *out);

/* ---- the memory-region registry (registry.c, DESIGN §4) --------------------- */
typedef struct cyrt_handle cyrt_handle;
/* CYRT_WRITE_ALL (with CYRT_WRITE, not CYRT_READ): the launch writes
 * every element of the view (cyocl_launch_writes_whole): where the view
 * is the whole of its region and no other view of the launch shares
 * it, cyrt_device_acquire uploads nothing for it. */
enum { CYRT_READ = 1, CYRT_WRITE = 2, CYRT_RW = 3, CYRT_WRITE_ALL = 4 };

/* Registers a view (data: its first element; strides in bytes, any sign)
 * by its byte extent.  An empty view gets a handle that never moves data. */
cyrt_status cyrt_register(cyrt_rt *rt, const void *data, int ndim, const ptrdiff_t *shape,
                          const ptrdiff_t *strides, size_t itemsize, cyrt_handle **out,
                          cyrt_xfer *acc, cyrt_err *err);
/* Drops the handle (freed even on error).  The last reference of a region
 * copies a device-dirty copy back and frees the device buffer; a region
 * whose own views are gone shrinks to the regions of the views left. */
cyrt_status cyrt_release(cyrt_rt *rt, cyrt_handle *h, cyrt_xfer *acc, cyrt_err *err);

/* Where a view lives on the device: its first element is at byte_offset in
 * buffer mem (a cl_mem for OpenCL); elem_offset = byte_offset / itemsize,
 * or SIZE_MAX when the view's data is not aligned to its item size. */
typedef struct {
    void *mem;
    size_t byte_offset, elem_offset;
} cyrt_devref;

/* Makes the views valid on the bound device (binding the default device at
 * the first use) and locks their regions for the calling thread: until
 * cyrt_device_done, other threads that need these regions wait.  A view
 * acquired with CYRT_WRITE makes the host copy stale.  All or nothing. */
cyrt_status cyrt_device_acquire(cyrt_rt *rt, size_t n, cyrt_handle *const *hs,
                                const unsigned *modes, cyrt_devref *out, cyrt_xfer *acc,
                                cyrt_err *err);
void cyrt_device_done(cyrt_rt *rt, size_t n, cyrt_handle *const *hs);
/* Makes the view's region valid on the host (copy back at the first host
 * use); CYRT_WRITE makes the device copy stale. */
cyrt_status cyrt_host_acquire(cyrt_rt *rt, cyrt_handle *h, unsigned mode, cyrt_xfer *acc,
                              cyrt_err *err);
/* Copies every device-dirty region back (end of a resident scope, exit). */
cyrt_status cyrt_sync_all(cyrt_rt *rt, cyrt_xfer *acc, cyrt_err *err);
/* Waits for every kernel launched so far: a quiet kernel's launch returns
 * before the kernel ends (launch.c).  Data stays where it is.  CYRT_EBACKEND
 * when the wait fails (the kernel's results are then not to be trusted). */
cyrt_status cyrt_finish(cyrt_rt *rt, cyrt_err *err);
/* Binds the registry to device index (the OpenCL backend); every region is
 * brought back to the host first.  CYRT_EBUSY while regions are locked. */
cyrt_status cyrt_use_device(cyrt_rt *rt, int index, cyrt_err *err);
int cyrt_registry_device(cyrt_rt *rt); /* the bound device's index; -1 if none (or a given backend) */

/* Undoes a cyrt_device_acquire whose launch failed: a top whose host copy
 * was valid when the acquisition began gets it back as the only valid copy
 * (the kernel's writes, if any, are dropped), then the regions are unlocked
 * as by cyrt_device_done.  The caller then runs the region natively. */
void cyrt_device_abandon(cyrt_rt *rt, size_t n, cyrt_handle *const *hs);

/* ---- residency across a call (scope.c, DESIGN §4.5-4.6) --------------------
 * The state word tells generated code, without a lock or a call, whether a
 * host access needs the runtime: CYRT_STATE_DIRTY when some region's only
 * valid copy is on a device (a host read must bring it back first),
 * CYRT_STATE_VALID when some device copy is valid (a host write must drop
 * it).  It is updated under the lock by every call that changes residency.
 * CYRT_STATE_STARTING is set while the dispatcher's opener starts the
 * device in the background, and for a while after it is ready and after
 * a program build (dispatch.c, BUILD_BUSY_NS): its driver takes cores
 * meanwhile, so
 * generated code runs its native teams short (cyrt_team in prelude.h: a
 * team of every core would wait at its barrier for a thread that shares
 * a core with the driver, a scheduler slice: milliseconds for
 * microseconds of work). */
enum { CYRT_STATE_DIRTY = 1, CYRT_STATE_VALID = 2, CYRT_STATE_STARTING = 4 };
const int *cyrt_state_word(cyrt_rt *rt);
/* Where every region of every module runs from now on: the dispatcher's
 * choice, always natively (Cython's team, nothing measured for the
 * dispatcher) or always on the device (CYOCL_FORCE's meanings, changeable
 * while the process runs: cyocl.force()).  Returns the previous value. */
enum { CYRT_FORCE_AUTO = 0, CYRT_FORCE_NATIVE = 1, CYRT_FORCE_OPENCL = 2 };
int cyrt_set_force(cyrt_rt *rt, int force);
const int *cyrt_force_word(cyrt_rt *rt);
/* counts.native_regions, which generated modules add to themselves (cyocl_api.h) */
uint64_t *cyrt_native_regions_word(cyrt_rt *rt);
/* Host access from generated code: every device-dirty region comes back;
 * with write, every device copy is dropped too (waits for regions other
 * threads' kernels hold). */
cyrt_status cyrt_host_use(cyrt_rt *rt, int write, cyrt_xfer *acc, cyrt_err *err);
/* The memory of a view is about to be given back to its exporter: the
 * regions it overlaps come back to the host and lose their device copies
 * (regions with a resident view excepted), and the calling thread's calls
 * release the views they registered inside it (no record outlives its
 * memory). */
cyrt_status cyrt_host_extent(cyrt_rt *rt, const void *data, int ndim, const ptrdiff_t *shape,
                             const ptrdiff_t *strides, size_t itemsize, cyrt_xfer *acc,
                             cyrt_err *err);
/* A def call begins / ends on the calling thread.  Leaving brings every
 * region without a resident view back to the host and drops its device
 * copy (the caller is Python, which reads memory directly), then releases
 * the views the call's launches registered. */
cyrt_status cyrt_scope_enter(cyrt_rt *rt, cyrt_err *err);
cyrt_status cyrt_scope_leave(cyrt_rt *rt, cyrt_xfer *acc, cyrt_err *err);
/* 1: left without work (nothing registered, nothing to report); 0: call cyrt_scope_leave */
int cyrt_scope_leave_quick(cyrt_rt *rt);
/* The handle for a view, for a launch: inside a call, the one an earlier
 * launch of the call registered for the same view, or a new one the call
 * keeps (*kept = 1); outside any call a new one the caller releases. */
cyrt_status cyrt_scope_view(cyrt_rt *rt, const void *data, int ndim, const ptrdiff_t *shape,
                            const ptrdiff_t *strides, size_t itemsize, cyrt_handle **out, int *kept,
                            cyrt_xfer *acc, cyrt_err *err);
/* Flags on a view: resident views keep their region on the device when a
 * call ends (cyocl.resident); a host-pinned view keeps its region off
 * every device (cyocl.pin_host: launches touching it run natively). */
enum { CYRT_HF_RESIDENT = 1, CYRT_HF_HOSTPIN = 2 };
void cyrt_handle_set_flags(cyrt_rt *rt, cyrt_handle *h, unsigned flags);
int cyrt_host_pinned(cyrt_rt *rt, const cyrt_handle *h);

/* ---- the dispatcher (dispatch.c, DESIGN §6, docs/runtime.md) -----------------
 * Per region (kernel source + region id) a time model for each side
 * (CYRT_SIDE_NATIVE, CYRT_SIDE_OPENCL): time against n, learnt from every
 * measured run; per device, bandwidth both ways per copy path (direct,
 * staged: cyrt_copy_staged) and launch overhead.  The
 * prediction for each side adds the bytes that must move given where the
 * data is now; where the data would stay after moving (a resident view, or
 * the later regions of a def call), moving it is bought once the calls
 * that did not move it have lost as much (rent or buy), and a purchase
 * that did not pay off makes the next one dearer.  Kept on disk beside
 * the kernel cache. */
enum { CYRT_SIDE_NATIVE = 0, CYRT_SIDE_OPENCL = 1 };
typedef struct cyrt_dregion cyrt_dregion;
typedef struct {
    long long pred[2]; /* predicted ns per side, transfers included; -1 not considered */
    int side;          /* the choice */
    int calibrating;   /* chosen to measure that side */
    int moving;        /* chosen to move the data where later calls run faster */
} cyrt_dchoice;
/* Where a call's data is: up bytes a device run must upload, down_pend
 * bytes it leaves only on the device (to come back once, later),
 * down_native bytes a native run must bring back first; resident: the
 * views are in cyocl.resident (the user said they will be used again);
 * copies, copies_native: how many separate copies those are (each pays
 * the device's round trip). */
typedef struct {
    uint64_t up, down_pend, down_native;
    int resident;
    unsigned copies, copies_native;
    /* split: the fields below say which of those are staged copies
     * (cyrt_copy_staged; each pays the staged path's fixed cost instead of
     * the round trip); 0: each of up, down_pend and down_native is taken as
     * one copy, its path by its size */
    int split;
    uint64_t up_st, pend_st, native_st;
    unsigned copies_up_st, copies_pend_st, copies_native_st;
    int all_resident; /* every view is resident: no copy at the def's return waits for the device */
} cyrt_dmove;
/* The record of (source, region): found or made (loaded from the store
 * when it holds one for this source's hash); NULL out of memory. */
cyrt_dregion *cyrt_dispatch_region(cyrt_rt *rt, const char *source, int region);
/* A measured run: n iterations in ns, of which the transfers of bytes_up
 * and bytes_down (device side only) are taken out, as predicted from the
 * bandwidths. */
void cyrt_dispatch_observe(cyrt_rt *rt, cyrt_dregion *r, int side, long long n, long long ns,
                           uint64_t bytes_up, uint64_t bytes_down);
/* The same with the transfers' measured times (ns_up, ns_down), which are
 * taken out as they are and refine the device's bandwidths. */
void cyrt_dispatch_observe_moved(cyrt_rt *rt, cyrt_dregion *r, int side, long long n, long long ns,
                                 uint64_t bytes_up, uint64_t ns_up, uint64_t bytes_down, uint64_t ns_down);
/* The model's choice for n iterations when the device is ready (a call:
 * it updates the region's exploration and rent-or-buy state). */
void cyrt_dispatch_choose_moves(cyrt_rt *rt, cyrt_dregion *r, long long n, const cyrt_dmove *m,
                                cyrt_dchoice *out);
/* The same for data outside cyocl.resident. */
void cyrt_dispatch_choose(cyrt_rt *rt, cyrt_dregion *r, long long n, uint64_t up, uint64_t down_pend,
                          uint64_t down_native, cyrt_dchoice *out);
/* The fitted time of one side (transfers left out); -1 without data. */
long long cyrt_dispatch_predict(cyrt_rt *rt, cyrt_dregion *r, int side, long long n);
/* A region the device cannot take (OpenCL failed, not eligible there). */
void cyrt_dispatch_disable(cyrt_rt *rt, cyrt_dregion *r);
/* The same with a device run's transfers as the registry counted and timed
 * them (each path's refines that path's bandwidth). */
void cyrt_dispatch_observe_xfer(cyrt_rt *rt, cyrt_dregion *r, int side, long long n, long long ns,
                                const cyrt_xfer *moved);
/* A quiet kernel's launch: ns up to its enqueue (all of it where it did
 * not wait for the kernel), less its uploads and any wait for kernels
 * still pending, and whether it waited for it */
void cyrt_dispatch_observe_enqueue(cyrt_rt *rt, cyrt_dregion *r, long long ns, int unwaited);
/* Device constants (bytes per ns, ns), as the microbenchmark sets them:
 * one bandwidth each way for both copy paths, the round trip as every
 * copy's fixed cost. */
void cyrt_dispatch_set_device(cyrt_rt *rt, double bw_up, double bw_down, double launch_ns);
/* The direct path's bandwidths now (bytes per ns; refined by measured copies). */
void cyrt_dispatch_get_device(cyrt_rt *rt, double *bw_up, double *bw_down, double *launch_ns);
/* Per copy path: direct (pageable host memory) and staged (through pinned
 * buffers, cyrt_copy_staged), each way. */
typedef struct {
    double up, down;             /* direct copies: bytes per ns */
    double st_up, st_down;       /* staged copies: bytes per ns */
    double st_fix_up, st_fix_down; /* a staged copy's fixed cost, ns */
    double launch_ns;            /* the round trip: a direct copy's fixed cost, a launch's floor */
} cyrt_devconst;
void cyrt_dispatch_set_consts(cyrt_rt *rt, const cyrt_devconst *k);
/* Zeros before the device was measured. */
void cyrt_dispatch_get_consts(cyrt_rt *rt, cyrt_devconst *k);
/* The store: written now (0, or -1: no writable cache, I/O error); its path. */
int cyrt_dispatch_save(cyrt_rt *rt);
int cyrt_dispatch_path(cyrt_rt *rt, char *buf, size_t n);
uint64_t cyrt_dispatch_calibration_runs(cyrt_rt *rt);
/* Decisions taken on the hot path, from a settled one (cyocl.stats()'
 * fast_decisions). */
uint64_t cyrt_dispatch_fast_calls(cyrt_rt *rt);
/* A quiet kernel's launch of n iterations that the dispatcher sent to the
 * device: 1 when this one must wait and be timed (every 64th, and every
 * one while the device has fewer than three times at n's octave), so the
 * model keeps learning the device's time from launches that otherwise
 * return unwaited. */
int cyrt_dispatch_wait_due(cyrt_rt *rt, cyrt_dregion *r, long long n);
/* Tests: the device counts as open and ready (of type dev_type, a
 * CYRT_DEV_* bit) without opening anything, so that decisions are made
 * as with a device. */
void cyrt_dispatch_test_ready(cyrt_rt *rt, unsigned dev_type);
/* 0 not started, 1 the device is opening (background), 2 ready, -1 none. */
int cyrt_dispatch_device_state(cyrt_rt *rt);
/* Before the process exits: waits for a device opener still inside the
 * driver and saves what was learnt.  Must run before any library's exit
 * handlers (a driver loaded by the opener registers its own, and they
 * would run first, under the opener's feet): the Python module calls it
 * from Python's atexit; a C atexit handler calls it too. */
void cyrt_dispatch_shutdown(cyrt_rt *rt);

/* Introspection (tests, cyocl.stats()). */
enum { CYRT_RES_NONE = 0, CYRT_RES_HOST = 1, CYRT_RES_DEVICE = 2, CYRT_RES_BOTH = 3 };
typedef struct {
    const void *region, *top; /* record identities: the view's own, its top-level one */
    uintptr_t lo, hi;         /* the view's region extent */
    uintptr_t top_lo, top_hi;
    long refs;                /* views registered on the view's own region */
    int residency;            /* of the top-level region: CYRT_RES_* */
    size_t offset;            /* byte offset of lo in the top's device buffer */
} cyrt_handle_info;
cyrt_status cyrt_handle_info_get(cyrt_rt *rt, const cyrt_handle *h, cyrt_handle_info *out);
typedef struct {
    size_t tops, records, handles, device_buffers;
    uint64_t device_bytes;
    /* the OpenCL devices' buffer pools (device.c, CYOCL_POOL_MB): allocations
     * that took an idle buffer / made one, idle buffers released to keep
     * within the cap, and the idle buffers now */
    uint64_t pool_hits, pool_misses, pool_evictions, pool_bytes;
    size_t pool_buffers;
} cyrt_registry_info;
void cyrt_registry_info_get(cyrt_rt *rt, cyrt_registry_info *out);

#endif
