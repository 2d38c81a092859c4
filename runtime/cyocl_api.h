/* cyocl_api.h: what a generated module hands the `cyocl` runtime module to
 * run one parallel region on OpenCL (the capsule cyocl._api).  The layout is
 * repeated in backends/c/prelude.h (generated modules are self-contained):
 * change both and CYOCL_API_VERSION together. */
#ifndef CYOCL_API_H
#define CYOCL_API_H

#include <stddef.h>

#define CYOCL_API_VERSION 1
#define CYOCL_API_MAX_NDIM 8

enum { CYOCL_A_VIEW, CYOCL_A_SCALAR, CYOCL_A_RED, CYOCL_A_LAST };

/* One kernel argument group, in IrRegion.args order (oclgen.h). */
typedef struct {
    int kind;       /* CYOCL_A_* */
    char tkind;     /* element / variable type: 'i' signed, 'u' unsigned, 'f' real */
    char op;        /* CYOCL_A_RED: '+', '-', '*', '&', '|', '^' */
    int size;       /* bytes of the element / variable */
    int read, written; /* CYOCL_A_VIEW */
    void *ptr;      /* a view's first element; else the C variable */
    int ndim;
    ptrdiff_t shape[CYOCL_API_MAX_NDIM], strides[CYOCL_API_MAX_NDIM]; /* strides in bytes */
} cyocl_arg;

typedef struct {
    int version;
    const char *module, *function, *source, *kernel;
    int line, region, has_break, uses_fp64;
    long long start, step, n;
    int nargs;
    cyocl_arg *args;
    /* filled by run_region */
    long long break_it;       /* the iteration that broke, -1 if none */
    char reason[256];         /* rc 1: "fallback: ..." / "not-eligible: ..." */
    char device[128];
    unsigned long long bytes_to_device, bytes_to_host;
    int compiled;             /* the program was built for this execution */
    int cpu_only;             /* in: the module was built with --no-opencl-gpu */
} cyocl_launch;

typedef struct {
    int version;
    /* 0 ran on the device; 1 run it natively (L->reason); -1 a Python exception is set */
    int (*run_region)(cyocl_launch *L);
} cyocl_api;

#endif
