/* annotate.h: `cyocl annotate` — one self-contained HTML page for a module:
 * every source line, each parallel region (prange, parallel() block, slice
 * expression) marked by its decision (OpenCL and native, or native only and
 * why), its C and OpenCL C side by side, and, given a CYOCL_TRACE file
 * (docs/trace.md), the calls each region had.
 *
 * main.c runs the compiler exactly as `compile` does and hands the result
 * here: this file reads traces and writes HTML, nothing else. */
#ifndef CY_ANNOTATE_H
#define CY_ANNOTATE_H

#include "../backends/opencl/oclgen.h"
#include "../ir/ir.h"

/* A parsed trace.  Any bytes are accepted: lines that are not JSON objects,
 * or region lines without the keys docs/trace.md gives, are counted and
 * skipped. */
typedef struct CyTrace CyTrace;
CyTrace *cy_trace_parse(const char *text, size_t len);
void cy_trace_free(CyTrace *t);
int cy_trace_skipped(const CyTrace *t, int *first_line); /* lines skipped; *first_line: the first one */

typedef struct {
    const CySource *src;
    const IrModule *ir;
    int opencl;                      /* 0: built with --no-opencl */
    const char *flags;               /* the options given, for the page's header ("" none) */
    const char *const *region_code;  /* per region id: its C (CyCOptions.region_code) */
    const CyOclProgram *ocl;         /* NULL with --no-opencl */
    const char *trace_path;          /* with trace */
    const CyTrace *trace;            /* NULL: no trace */
} CyReport;

/* Whether the trace belongs to the module: it has lines of the module, and
 * each of them names a region (or function) the module has, at the line
 * the module has it.  Returns 0, or -1 with the reason in why. */
int cy_trace_check(const CyReport *r, char *why, size_t n);

/* Appends the page to out. */
void cy_report_html(CyBuf *out, const CyReport *r);

#endif
