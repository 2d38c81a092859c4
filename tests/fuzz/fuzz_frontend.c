/* fuzz_frontend.c: libFuzzer entry point.  Any byte string is a source file;
 * the whole pipeline (parse, sema, analyze, OpenCL and C backends) must
 * reject or accept it without crashing, hanging or leaking.  The libclang
 * check is left out: it runs in a child process, too slow for fuzzing. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../backends/c/cgen.h"
#include "../../backends/opencl/oclgen.h"
#include "../../frontend/frontend.h"
#include "../../ir/ir.h"

#ifndef CYOCL_VERSION
#define CYOCL_VERSION "fuzz"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    if (size)
        memcpy(text, data, size);
    text[size] = '\0';
    CySource src = {.path = "fuzz.pyx", .name = "fuzz.pyx", .modname = "fuzz", .text = text, .len = size};
    CyDiag diag = {.src = &src, .out = NULL};
    CyArena *arena = cy_arena_new();
    AModule *ast = cy_parse_source(arena, &diag, &src);
    if (ast && diag.nerrors == 0) {
        IrModule *ir = cy_sema(arena, &diag, ast);
        if (ir && diag.nerrors == 0) {
            cy_ir_analyze(arena, ir);
            CyOclOptions oopt = {.version = CYOCL_VERSION};
            CyOclProgram prog = {0};
            int ocl = cy_emit_opencl(arena, &diag, ir, &oopt, &prog);
            CyBuf out = {0};
            CyCOptions opt = {.line_directives = 1, .opencl = 1, .version = CYOCL_VERSION,
                              .opencl_source = ocl == 0 ? prog.source : NULL};
            cy_emit_c(arena, &diag, ir, &opt, &out);
            cy_buf_free(&out);
        }
    }
    cy_arena_free(arena);
    free(text);
    return 0;
}
