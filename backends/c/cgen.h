/* cgen.h: the native backend — IR to one self-contained C11 file that is a
 * CPython extension module (OpenMP for parallel regions).
 *
 * The output includes its support code (prelude.h, embedded at build time),
 * so `cc -shared -fPIC -fopenmp -I<python include> out.c` is all it needs;
 * it uses only the CPython C-API and the buffer protocol (no numpy headers). */
#ifndef CY_CGEN_H
#define CY_CGEN_H

#include "../../ir/ir.h"

typedef struct {
    int line_directives;   /* emit #line back to the .pyx (default on) */
    int opencl;            /* 0 for --no-opencl: no OpenCL code or dependency */
    int no_opencl_gpu;     /* --no-opencl-gpu */
    int fp_contract;       /* --fp-contract: C compilers may fuse a * b + c (else clang is told not to;
                              GCC needs -ffp-contract=off, which cyocl build passes) */
    const char *version;   /* cyocl version string, recorded in the output */
    const char *opencl_source; /* the module's OpenCL program (backends/opencl), embedded
                                  as cy_ocl_source when opencl is on; NULL or "": none */
    const char **region_code;  /* NULL, or IrModule.nregions slots: each region's C (the block
                                  that runs it, #line directives included) is stored in its
                                  id's slot, in the arena (`cyocl annotate`) */
} CyCOptions;

/* Returns 0 and appends the C file to out; -1 after an internal error was
 * reported to d (never a partial module for the caller to write). */
int cy_emit_c(CyArena *a, CyDiag *d, const IrModule *m, const CyCOptions *opt, CyBuf *out);

#endif
