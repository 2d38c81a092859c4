/* cyocl_api.h: what a generated module hands the `cyocl` runtime module to
 * run one parallel region on OpenCL (the capsule cyocl._api).  The layout is
 * repeated in backends/c/prelude.h (generated modules are self-contained):
 * change both and CYOCL_API_VERSION together. */
#ifndef CYOCL_API_H
#define CYOCL_API_H

#include <stddef.h>
#include <stdint.h>

#define CYOCL_API_VERSION 16
#define CYOCL_API_MAX_NDIM 8

enum { CYOCL_A_VIEW, CYOCL_A_SCALAR, CYOCL_A_RED, CYOCL_A_LAST };

/* One kernel argument group, in IrRegion.args order (oclgen.h). */
typedef struct {
    int kind;       /* CYOCL_A_* */
    char tkind;     /* element / variable type: 'i' signed, 'u' unsigned, 'f' real, 'c' complex
                       (two reals, size 8 or 16; never a reduction) */
    char op;        /* CYOCL_A_RED: '+', '-', '*', '&', '|', '^' */
    int size;       /* bytes of the element / variable */
    int read, written; /* CYOCL_A_VIEW */
    void *ptr;      /* a view's first element; else the C variable */
    int ndim;
    ptrdiff_t shape[CYOCL_API_MAX_NDIM], strides[CYOCL_API_MAX_NDIM]; /* strides in bytes */
    /* CYOCL_A_VIEW, written only (IrRegionArg.covers): 1 the kernel writes
       view[i] for every i of the prange, 2 view[i, j] for every i and every
       j of the collapsed loop (from 0 by 1); 0 no such promise */
    int covers;
} cyocl_arg;

typedef struct {
    int version;
    const char *module, *function, *source, *kernel;
    int line, region, has_break, uses_fp64;
    long long start, step, n;
    long long inner;          /* trip count of the range() loop the kernel collapsed with the prange, 0 none */
    /* The collapsed kernel is exact only when, for every k, the views
       args[pairs[2k]] and args[pairs[2k+1]] do not overlap in memory;
       otherwise kernel_serial (which keeps that loop serial) runs, with
       inner taken as 0.  npairs 0: nothing to check. */
    const char *kernel_serial;
    int npairs;
    const int *pairs;         /* 2 * npairs argument indices */
    int nargs;
    cyocl_arg *args;
    /* filled by run_region */
    long long break_it;       /* the iteration that broke, -1 if none */
    char reason[256];         /* rc 1: "fallback: ..." / "not-eligible: ..." */
    char device[128];
    unsigned long long bytes_to_device, bytes_to_host;
    int build;                /* the program for this execution: 0 already loaded, 1 compiled, 2 from the cache */
    int cpu_only;             /* in: the module was built with --no-opencl-gpu */
    int failure;              /* rc 1 because OpenCL itself failed (warned about), not by policy */
    unsigned long long kernel_ns; /* the kernel's own time on the device (profiling events), 0 unknown */
    int serial;               /* kernel_serial ran: some pair of views overlapped */
    /* the dispatcher (automatic choice; NULL dslot under CYOCL_FORCE) */
    void **dslot;             /* in: the module's slot for this region's record, NULL at first */
    long long pred_native, pred_opencl; /* out (decide): predicted ns, -1 not considered */
    /* in: the module's slot for the region's launch state (the device,
       program and kernel objects its first launch looked up; the runtime
       checks that they are still its own), NULL at first */
    void **lslot;
    int kernel_time;          /* in: measure kernel_ns (profiling events cost a round trip on some drivers) */
    /* The planned kernel for GPU devices (ir/plan.c, PLAN_TILE2D), NULL
       none: the same arguments as kernel, launched as a 2-D NDRange of
       work-groups of tile_local[0] x tile_local[1] work-items, each group
       computing tile_elems[0] iterations of the collapsed loop (dimension
       0) by tile_elems[1] of the prange (dimension 1).  Used on GPU devices
       (CYOCL_PLAN=gpu: on any), never when kernel_serial must run. */
    const char *kernel_tiled;
    int tile_local[2], tile_elems[2];
    int tiled;                /* out: 1 kernel_tiled ran, 2 kernel_tiled_small */
    /* in: the kernel reports nothing (IrRegion.ocl_quiet): no error, break,
       reduction or last value, so the launch may return once the kernel is
       enqueued; the next host access to its views waits for it */
    int quiet;
    /* The same plan with fewer elements per work-item (NULL none), the
       same arguments, launched as above with small_local and small_elems
       where kernel_tiled's grid would have fewer work-groups than the
       device has compute units. */
    const char *kernel_tiled_small;
    int small_local[2], small_elems[2];
    /* in: the dispatcher may choose the native team's size (the region
       gives no num_threads); out (decide, a native choice): 0 the full team,
       1 one thread, where that was measured faster at this size (a team's
       start and barrier cost more than a short region's work) */
    int team_ok;
    int team;
    /* in (native_done): thread 0's time over its share of the iterations
       (0 unknown) and the team's size: the work, without the team's start
       nor its wait at the end for a thread that lost its core (a stall:
       milliseconds for microseconds of work) */
    long long chunk_ns;
    int team_size;
    /* in: the call's size for the dispatcher, n times the work of one
       iteration as the range() loops in its body the host can count
       (ir/nest.c): a 1000x1000 stencil is 10^6, not its prange's 1000.
       0: n.  The dispatcher's curves are per unit of it. */
    long long work;
    /* out (decide): a native run decided from a settled decision (the
       hot path), which native_done times into stats only: thread 0 need
       not time its share (chunk_ns; two clock reads, ~20 ns each on a
       2-core VM, ~60 on the H100's) unless the trace wants the team */
    int hot;
    /* in (native_done): the monotonic clock at the region's end (the read
       that gave ns), 0 unknown: native_done reads it then */
    long long end_ns;
} cyocl_launch;

/* Does the launch write every element of view a (a->covers, checked
 * against this call: the prange from 0 by 1, the view's shape its
 * iteration space, and C-contiguous, so that its elements fill its
 * memory)?  Then its old contents need not go to the device. */
static inline int cyocl_launch_writes_whole(const cyocl_launch *L, const cyocl_arg *a) {
    if (a->kind != CYOCL_A_VIEW || !a->covers || a->read || !a->written || L->start != 0 || L->step != 1 ||
        a->ndim != a->covers || a->shape[0] != L->n || a->strides[a->ndim - 1] != a->size)
        return 0;
    return a->covers == 1 || (L->inner > 0 && a->shape[1] == L->inner && a->strides[0] == a->shape[1] * a->size);
}

/* The call's size for the dispatcher (work, else n). */
static inline long long cyocl_launch_work(const cyocl_launch *L) { return L->work > 0 ? L->work : L->n; }

/* A view generated code touches on the host (host_views). */
typedef struct {
    const void *data;
    int ndim;
    const ptrdiff_t *shape, *strides; /* strides in bytes */
    ptrdiff_t itemsize;
} cyocl_hview;

/* What a host synchronisation moved (trace lines "event": "sync"). */
typedef struct {
    unsigned long long bytes_to_host;
    long long ns;
} cyocl_sync;

typedef struct {
    int version;
    /* 0 ran on the device; 1 run it natively (L->reason); -1 a Python exception is set */
    int (*run_region)(cyocl_launch *L);
    /* CYRT_STATE_* bits (runtime/cyrt.h): nonzero when a host access may
     * need host_use; read without a lock */
    const int *state;
    /* a def that may launch is called from Python / returns (leave: 0, or
     * -1 with a Python exception set; with one already set it is kept) */
    int (*enter)(void);
    int (*leave)(cyocl_sync *S);
    /* generated code touches view memory on the host: write also drops
     * device copies.  Never fails (a failure is one warning): it is called
     * where no exception can be raised. */
    void (*host_use)(int write, cyocl_sync *S);
    /* a module gives a buffer back to its exporter (memory may go away) */
    void (*host_extent)(const void *data, int ndim, const ptrdiff_t *shape, const ptrdiff_t *strides,
                        ptrdiff_t itemsize);
    /* a region ran natively in ns nanoseconds (cyocl.stats()' time per impl) */
    void (*native_ran)(long long ns);
    /* Without CYOCL_FORCE: 1 run this region on the device (run_region),
     * 0 natively.  L filled as for run_region (dslot set); sets L->reason
     * ("auto", "calibrating", "auto: device starting", ...) and the
     * predictions.  No allocation and no lock while nothing is on a device
     * and the region's record is in its slot. */
    int (*decide)(cyocl_launch *L);
    /* the region decide sent to native ran in ns nanoseconds */
    void (*native_done)(cyocl_launch *L, long long ns);
    /* as host_use, for a statement that touches only the n views v: only
       their regions come back (write: and lose their device copies) */
    void (*host_views)(int write, int n, const cyocl_hview *v, cyocl_sync *S);
    /* stats()' native_regions: a region the module does not time (no
     * dispatcher, no trace) adds one here itself (relaxed atomic add),
     * cheaper than native_ran's call for a region of a few microseconds */
    uint64_t *native_regions;
    /* CYRT_FORCE_* (cyrt.h): 0 the dispatcher decides, 1 native, 2 the
     * device; read (relaxed) at every region, since cyocl.force() changes it */
    const int *force;
} cyocl_api;

#endif
