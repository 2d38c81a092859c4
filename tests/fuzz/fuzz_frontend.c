/* fuzz_frontend.c: libFuzzer entry point.  Any byte string is a source file;
 * the whole pipeline (parse, sema, analyze, C backend) must reject or accept
 * it without crashing, hanging or leaking. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../backends/c/cgen.h"
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
            CyBuf out = {0};
            CyCOptions opt = {.line_directives = 1, .opencl = 1, .version = CYOCL_VERSION};
            cy_emit_c(arena, &diag, ir, &opt, &out);
            cy_buf_free(&out);
        }
    }
    cy_arena_free(arena);
    free(text);
    return 0;
}
