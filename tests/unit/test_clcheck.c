/* test_clcheck.c: the libclang check of generated OpenCL programs
 * (backends/opencl/clcheck.c) finds errors, with clang's default header and
 * with the fallback declarations, reports where, and is skipped when there
 * is no libclang; and program lines map to the regions of their kernels. */
#define _POSIX_C_SOURCE 200809L
#include "backends/opencl/oclgen.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static const char GOOD[] =
    "#ifdef cl_khr_fp64\n"
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    "#endif\n"
    "void cy_raise(__global int *cy_err, int code, int arg)\n"
    "{\n"
    "    if (atomic_cmpxchg((volatile __global int *)cy_err, 0, code) == 0)\n"
    "        cy_err[1] = arg;\n"
    "}\n"
    "__kernel void cyk_0(const long cy_start, const long cy_step, const long cy_n,\n"
    "                    __global float *v_a_base, const long v_a_off, __local float *v_a_loc,\n"
    "                    __global int *cy_err)\n"
    "{\n"
    "    for (long cy_it = get_global_id(0); cy_it < cy_n; cy_it += get_global_size(0)) {\n"
    "        long v_i = cy_start + cy_it * cy_step;\n"
    "        v_a_base[v_a_off + v_i] = sqrt(v_a_base[v_a_off + v_i]) * M_PI_F + min(1L, v_i) + fabs(-1.0f);\n"
    "        if (v_i < 0) { cy_raise(cy_err, 1, 0); }\n"
    "    }\n"
    "    v_a_loc[get_local_id(0)] = 0;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "}\n";

/* an undeclared identifier on line 4 */
static const char BAD[] =
    "__kernel void cyk_0(__global int *cy_err)\n"
    "{\n"
    "    cy_err[0] = 1;\n"
    "    cy_err[1] = cyocl_no_such_name;\n"
    "}\n";

static void run(const char *what, int own_decls) {
    CyClResult r;
    if (own_decls) setenv("CYOCL_CLCHECK_OWN_DECLS", "1", 1);
    else unsetenv("CYOCL_CLCHECK_OWN_DECLS");
    cy_ocl_check(GOOD, strlen(GOOD), &r);
    if (r.status == CY_CLCHECK_SKIPPED) {
        printf("%s: skipped: %s\n", what, r.msg);
        return;
    }
    printf("%s: good program: %s (%s)\n", what, r.status == CY_CLCHECK_OK ? "ok" : r.msg, r.library);
    CHECK(r.status == CY_CLCHECK_OK);
    cy_ocl_check(BAD, strlen(BAD), &r);
    printf("%s: bad program: %d:%d: %s\n", what, r.line, r.col, r.msg);
    CHECK(r.status == CY_CLCHECK_ERROR);
    CHECK(r.line == 4);
    CHECK(strstr(r.msg, "cyocl_no_such_name") != NULL);
    CHECK(strncmp(r.msg, "4:", 2) == 0);
}

int main(void) {
    run("default header", 0);
    run("own declarations", 1);
    unsetenv("CYOCL_CLCHECK_OWN_DECLS");

    /* no libclang: skipped, with the reason */
    setenv("CYOCL_LIBCLANG", "/nonexistent/libclang.so", 1);
    CyClResult r;
    cy_ocl_check(BAD, strlen(BAD), &r);
    CHECK(r.status == CY_CLCHECK_SKIPPED);
    CHECK(strstr(r.msg, "/nonexistent/libclang.so") != NULL);
    unsetenv("CYOCL_LIBCLANG");

    /* program lines -> regions */
    CyArena *a = cy_arena_new();
    IrRegion r0 = {.id = 0}, r1 = {.id = 1};
    CyOclProgram p = {0};
    CyOclSpan s0 = {5, 9, &r0, CY_SPAN_KERNEL}, s1 = {11, 20, &r1, CY_SPAN_KERNEL};
    cy_vec_push(a, &p.spans, &s0);
    cy_vec_push(a, &p.spans, &s1);
    CHECK(cy_ocl_region_at(&p, 5) == &r0);
    CHECK(cy_ocl_region_at(&p, 12) == &r1);
    CHECK(cy_ocl_region_at(&p, 20) == &r1);
    CHECK(cy_ocl_region_at(&p, 1) == &r0); /* outside every span: the first */
    CyOclProgram empty = {0};
    CHECK(cy_ocl_region_at(&empty, 3) == NULL);
    cy_arena_free(a);

    printf("test_clcheck: %d failure(s)\n", failures);
    return failures ? 1 : 0;
}
