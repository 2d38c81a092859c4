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
    cy_ocl_check(&(CyOclProgram){.source = GOOD, .len = strlen(GOOD)}, &r);
    if (r.status == CY_CLCHECK_SKIPPED) {
        printf("%s: skipped: %s\n", what, r.msg);
        return;
    }
    printf("%s: good program: %s (%s)\n", what, r.status == CY_CLCHECK_OK ? "ok" : r.msg, r.library);
    CHECK(r.status == CY_CLCHECK_OK);
    cy_ocl_check(&(CyOclProgram){.source = BAD, .len = strlen(BAD)}, &r);
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
    cy_ocl_check(&(CyOclProgram){.source = BAD, .len = strlen(BAD)}, &r);
    CHECK(r.status == CY_CLCHECK_SKIPPED);
    CHECK(strstr(r.msg, "/nonexistent/libclang.so") != NULL);
    unsetenv("CYOCL_LIBCLANG");

    /* program lines -> regions */
    CyArena *a = cy_arena_new();
    IrRegion r0 = {.id = 0}, r1 = {.id = 1};
    CyOclProgram p = {0};
    CyOclSpan s0 = {5, 9, &r0, CY_SPAN_KERNEL, "cyk_0"}, s1 = {11, 20, &r1, CY_SPAN_KERNEL, "cyk_1"};
    cy_vec_push(a, &p.spans, &s0);
    cy_vec_push(a, &p.spans, &s1);
    CHECK(cy_ocl_region_at(&p, 5) == &r0);
    CHECK(cy_ocl_region_at(&p, 12) == &r1);
    CHECK(cy_ocl_region_at(&p, 20) == &r1);
    CHECK(cy_ocl_region_at(&p, 1) == &r0); /* outside every span: the first */
    CyOclProgram empty = {0};
    CHECK(cy_ocl_region_at(&empty, 3) == NULL);
    cy_arena_free(a);

    /* kernels of one form, but for the names the backend made up */
    static const char FORMS[] =
        "void cy_raise(__global int *cy_err, int code, int arg);\n"                       /* 1 shared */
        "double cy_f_h0(double v_x) { return v_x * 2.0; }\n"                               /* 2 helper */
        "double cy_f_h1(double v_y) { return v_y * 2.0; }\n"                               /* 3 = 2 */
        "double cy_f_h2(double v_y) { return v_y * 3.0; }\n"                               /* 4: literal */
        "__kernel void cyk_0(__global double *v_a) { v_a[0] = cy_f_h0(v_a[1]); }\n"        /* 5 */
        "__kernel void cyk_1(__global double *v_b) { /* c */ v_b[0] = cy_f_h1(v_b[1]); }\n" /* 6 = 5 */
        "__kernel void cyk_2(__global double *v_b) { v_b[0] = cy_f_h2(v_b[1]); }\n"        /* 7: h2 differs */
        "__kernel void cyk_3(__global double *v_b) { v_b[0] = sqrt(v_b[1]); }\n"           /* 8 */
        "__kernel void cyk_4(__global double *v_b) { v_b[0] = cbrt(v_b[1]); }\n"           /* 9: built-in */
        "__kernel void cyk_5(__global double *v_b)  {\tv_b[0]   =  sqrt(v_b[1]); }\n"       /* 10 = 8 */
        "__kernel void cyk_6(__global double *v_b, __global double *v_c) { v_b[0] = v_c[0]; }\n" /* 11 */
        "__kernel void cyk_7(__global double *v_b, __global double *v_c) { v_b[0] = v_b[0]; }\n" /* 12 */
        "__kernel void cyk_8(__global int *v_b) { cy_raise(v_b, 1, 0); }\n"                 /* 13 */
        "__kernel void cyk_9(__global int *v_b) { cy_raise2(v_b, 1, 0); }\n";               /* 14: unknown */
    CyArena *fa = cy_arena_new();
    CyOclProgram fp = {.source = FORMS, .len = strlen(FORMS)};
    IrRegion rr = {.id = 0};
    static const char *names[] = {NULL, "cy_f_h0", "cy_f_h1", "cy_f_h2", "cyk_0", "cyk_1", "cyk_2", "cyk_3",
                                  "cyk_4", "cyk_5", "cyk_6", "cyk_7", "cyk_8", "cyk_9"};
    CyOclSpan fs[14];
    for (int i = 0; i < 14; i++) {
        fs[i] = (CyOclSpan){i + 1, i + 1, &rr, i == 0 ? CY_SPAN_SHARED : i < 4 ? CY_SPAN_HELPER : CY_SPAN_KERNEL,
                            names[i]};
        cy_vec_push(fa, &fp.spans, &fs[i]);
    }
    int cls[14];
    int distinct = cy_ocl_span_classes(&fp, cls);
    int want[14] = {0, 1, 1, 3, 4, 4, 6, 7, 8, 7, 10, 11, 12, 13};
    for (int i = 0; i < 14; i++) {
        if (cls[i] != want[i]) printf("span %d (line %d): class %d, expected %d\n", i, i + 1, cls[i], want[i]);
        CHECK(cls[i] == want[i]);
    }
    CHECK(distinct == 11);
    /* a program whose error lies in a kernel of the same form as an earlier one: found at the earlier one */
    static const char BAD2[] =
        "__kernel void cyk_0(__global int *v_a) { v_a[0] = cyocl_no_such_name; }\n"
        "__kernel void cyk_1(__global int *v_b) { v_b[0] = cyocl_no_such_name; }\n";
    CyOclProgram bp = {.source = BAD2, .len = strlen(BAD2)};
    CyOclSpan b0 = {1, 1, &rr, CY_SPAN_KERNEL, "cyk_0"}, b1 = {2, 2, &rr, CY_SPAN_KERNEL, "cyk_1"};
    cy_vec_push(fa, &bp.spans, &b0);
    cy_vec_push(fa, &bp.spans, &b1);
    cy_ocl_check(&bp, &r);
    if (r.status != CY_CLCHECK_SKIPPED) {
        CHECK(r.status == CY_CLCHECK_ERROR && r.line == 1);
        CHECK(r.parts == 2 && r.checked == 1);
    }
    cy_arena_free(fa);

    printf("test_clcheck: %d failure(s)\n", failures);
    return failures ? 1 : 0;
}
