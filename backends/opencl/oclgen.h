/* oclgen.h: the OpenCL backend — one OpenCL C 1.2 program per module,
 * holding a kernel `cyk_<region id>` for every region analyze.c found
 * eligible (IrRegion.ocl_ok), plus OpenCL versions of the module's cdef
 * functions those kernels call; and the check of that program with
 * libclang (clcheck.c).
 *
 * ---- Kernel ABI (the runtime sets the arguments in exactly this order) ----
 *
 *   __kernel void cyk_N(const long cy_start, const long cy_step, const long cy_n,
 *       ... one group per IrRegionArg, in IrRegion.args order ...,
 *       __global int *cy_err)
 *
 *   RA_VIEW, dtype T, ndim d:  __global T *V_base, const long V_off,
 *                              const long V_s0 .. V_s{d-1}, const long V_n0 .. V_n{d-1}
 *       (`const __global T *V_base` when the view is not written).  Element
 *       (i, j) is V_base[V_off + i*V_s0 + j*V_s1]: offset and strides in
 *       ELEMENTS (may be negative), V_nk the shape.  Axes the view type
 *       declares contiguous (`::1`) are indexed without their stride (it is
 *       1 by construction), but every stride is still passed.  A view with
 *       IrRegionArg.read == written == 0 is used only for .shape/.strides: the
 *       kernel never dereferences V_base (a NULL cl_mem will do).
 *   RA_SCALAR, type T:         const T V                (its value at region entry)
 *   RA_REDUCTION, type T:      __global T *V_part, __local T *V_loc
 *       V_loc: local memory of get_local_size(0) elements (clSetKernelArg
 *       with a size and NULL).  Each work-group writes one partial,
 *       V_part[get_group_id(0)]; V_part needs one element per work-group.
 *       The last work-group to finish (counted in cy_err[4]) combines the
 *       partials and writes the result into cy_err's result area (below);
 *       the host combines it with the variable's value before the region:
 *       +: v0 + sum   -: v0 - sum (the kernel accumulates the subtracted
 *       terms)   *: v0 * prod   &, |, ^: v0 OP (all partials).
 *   RA_LASTPRIVATE: no argument; two slots in cy_err's result area.
 *       Slot 0 is written by the work-item that runs the last iteration.
 *       The host fills both slots with the variable's value before the
 *       launch, so that a slot no iteration writes leaves the variable as
 *       it was (cy_n == 0, or an inner loop with no iterations).  When the
 *       region has a `break` (IrRegion.has_break), slot 1 holds the values
 *       of the first iteration that broke; the host takes slot 1 when
 *       cy_err[0] == 3, else slot 0.
 *   T is the OpenCL spelling of the C type: bint -> int, 8/16/32/64-bit
 *   integers -> char/uchar, short/ushort, int/uint, long/ulong (Cython's
 *   long, long long, Py_ssize_t -> long; size_t -> ulong), float, double;
 *   scalar arguments have the size of the host's C type.
 *
 * Iterations: it = 0 .. cy_n-1, index = cy_start + it*cy_step (the host
 * computes the three exactly as the native backend does, and sets the index
 * variable after the region: to cy_start + (cy_n-1)*cy_step, or to the
 * breaking iteration's index after a break).  Any global size works (a
 * grid-stride loop; consecutive work-items take consecutive iterations);
 * the reduction tree works with any local size.  Launch enough work-items
 * to fill the device, not cy_n: where the prange body is one range() loop
 * with independent iterations, the kernel runs the cy_n * m (i, j) pairs
 * as its iteration space ("collapsed": a work-item per element of a 2-D
 * stencil or matrix product, not per row).
 *
 * cy_err: the launch's one small buffer, read back with one read.  Bytes
 * 0..15 (4 ints) are zeroed by the host before the launch; int 4 counts the
 * work-groups that finished their reductions and is 0 before and after a
 * launch (the last group puts it back).  From byte 32 the result area:
 * an 8-byte slot per RA_REDUCTION (in IrRegion.args order, the result as a
 * T at the slot's start), then 16 bytes per RA_LASTPRIVATE (slot 0 at +0,
 * slot 1 at +8).  The first error writer wins (atomic_cmpxchg on cy_err[0]):
 *   cy_err[0] = 1  IndexError "Out of bounds on buffer access (axis cy_err[1])"
 *             = 2  ZeroDivisionError; cy_err[1]: 0 "integer division or modulo by zero",
 *                  1 "float division", 2 "float modulo", 3 "float divmod()"
 *             = 3  a `break` was taken: (ulong)(uint)cy_err[2] | (ulong)(uint)cy_err[3] << 32
 *                  is the iteration number `it` that broke (lastprivates: see above)
 *             = 4  OverflowError "value too large to perform division" (MIN // -1)
 *             = 5  ValueError "range() arg 3 must not be zero" (an inner loop)
 *   An iteration that fails skips its remaining statements; other
 *   iterations may still run (as with the native backend's threads; a
 *   region with `break` stops the remaining iterations on any error).
 *
 * fp64: the program enables cl_khr_fp64 where the device has it; kernels and
 * helpers that need double (IrRegion.uses_fp64) are compiled only under
 * `#ifdef cl_khr_fp64`, so on a device without doubles the program still
 * builds and clCreateKernel("cyk_N") fails for exactly those regions.
 * Numerics: the program starts with `#pragma OPENCL FP_CONTRACT OFF` (the
 * OpenCL default would let a * b + c become one fma, rounding once where
 * the native code rounds twice) unless CyOclOptions.fp_contract;
 * single-precision division and sqrt are correctly rounded only when the
 * runtime builds with -cl-fp32-correctly-rounded-divide-sqrt (where the
 * device supports it). */
#ifndef CY_OCLGEN_H
#define CY_OCLGEN_H

#include "../../ir/ir.h"

typedef struct {
    const char *version; /* cyocl version, recorded in the program's first line */
    int fp_contract;     /* allow contraction into fma (FP_CONTRACT ON) */
} CyOclOptions;

/* Where each kernel and helper lies in the program text, so that a
 * diagnostic on a program line can name its region, and the libclang check
 * can tell the program's parts apart (it checks one of each set of kernels
 * or helpers that differ only in the names the backend made up). */
typedef enum {
    CY_SPAN_SHARED, /* support code, prototypes: every kernel may use it */
    CY_SPAN_HELPER, /* a cdef function's OpenCL version, named `name` */
    CY_SPAN_KERNEL, /* a kernel, named `name` */
} CySpanKind;

typedef struct {
    int first_line, last_line; /* 1-based, inclusive */
    IrRegion *region;          /* the kernel's region, or the first region that calls the helper */
    CySpanKind kind;
    const char *name;          /* HELPER, KERNEL: the function it defines */
} CyOclSpan;

typedef struct {
    const char *source;  /* NUL-terminated OpenCL C 1.2 program; "" when no region is eligible */
    size_t len;
    int nkernels;
    CyVec spans;         /* CyOclSpan* */
} CyOclProgram;

/* Emits the program for the analysed module m.  Returns 0, or -1 after an
 * internal error was reported to d. */
int cy_emit_opencl(CyArena *a, CyDiag *d, const IrModule *m, const CyOclOptions *opt, CyOclProgram *out);

/* The region whose kernel (or helper) covers a program line; the first
 * kernel's region for lines outside every span; NULL if there is none. */
IrRegion *cy_ocl_region_at(const CyOclProgram *p, int line);

/* ---- clcheck.c: the program through libclang's OpenCL front end ----------
 *
 * libclang is opened at run time (dlopen; CYOCL_LIBCLANG=PATH picks the
 * library, a path that does not exist turns the check off), in a child
 * process, so that a crash or leak in libclang never affects cyocl. */
typedef enum {
    CY_CLCHECK_OK,      /* no diagnostic of severity error */
    CY_CLCHECK_ERROR,   /* msg: the first error, "LINE:COL: error: ..." (line in the program) */
    CY_CLCHECK_SKIPPED, /* msg: why (no libclang, or it failed to run) */
} CyClCheck;

typedef struct {
    CyClCheck status;
    int line, col;        /* CY_CLCHECK_ERROR: where, in the program text */
    char msg[1024];
    char library[256];    /* the libclang that was used */
    int parts, checked;   /* kernels and helpers; how many were parsed (the rest are renamings of those) */
} CyClResult;

void cy_ocl_check(const CyOclProgram *p, CyClResult *res);

/* Sorts the program's spans into classes of kernels (or helpers) that
 * differ only in names the backend made up: cls[i] is the first span of
 * span i's class (i itself for shared spans).  Returns the number of
 * classes.  The check parses one span per class; after an error, every
 * span of the failing class fails. */
int cy_ocl_span_classes(const CyOclProgram *p, int *cls);

/* The same check in two halves, so that the caller can generate the C
 * module while libclang parses (a large program takes seconds): start
 * forks the child; finish waits for it and fills res.  Every started check
 * must be finished.  (The source must stay unchanged until then.) */
typedef struct {
    int fd;      /* the child's result pipe, or -1: res already holds the outcome */
    int pid;
    CyClResult res;
} CyClJob;
void cy_ocl_check_start(const CyOclProgram *p, CyClJob *c);
void cy_ocl_check_finish(CyClJob *c, CyClResult *res);

#endif
