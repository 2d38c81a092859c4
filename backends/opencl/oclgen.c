/* oclgen.c: the OpenCL backend — one OpenCL C 1.2 program per module, a
 * kernel per eligible prange region (ABI in oclgen.h).
 *
 * It lowers the same IR as backends/c/cgen.c and mirrors its semantics:
 * the same wraparound and bounds checks, Python's // and % with the same
 * zero and overflow checks, the same constant folding; what the native
 * backend raises becomes an error code in cy_err.  As in cgen.c,
 * expressions become C expression strings and whatever can fail is
 * evaluated first, by statements emitted just before the one that uses it,
 * so each check is a plain `if (...) { cy_raise(...); goto cy_next; }`.
 *
 * A kernel is a grid-stride loop over the iterations (consecutive
 * work-items take consecutive iterations, so unit-stride views coalesce),
 * the body with private copies of the region's private, lastprivate and
 * reduction variables, and after the loop a tree reduction in local memory
 * (outside all control flow: every work-item reaches its barriers).  A
 * prange whose body is one independent range() loop becomes one (i, j)
 * iteration space where ir/nest.c finds that exact (then a second kernel,
 * cyk_N_serial, keeps the loop serial for calls whose views overlap).
 *
 * Not mirrored: cgen.c hoists bounds checks on loop indices out of the
 * loop; a kernel checks each access (the same IndexError, raised after
 * the iterations before it in the same work-item have run). */
#define _POSIX_C_SOURCE 200809L
#include "oclgen.h"
#include "../emit.h"
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* support functions, emitted when used */
enum {
    NEED_RAISE = 1 << 0,
    NEED_FDIV_I = 1 << 1,
    NEED_FDIV_L = 1 << 2,
    NEED_MOD_I = 1 << 3,
    NEED_MOD_L = 1 << 4,
    NEED_FDIV_D = 1 << 5,
    NEED_MOD_D = 1 << 6,
    NEED_FDIV_F = 1 << 7,
    NEED_MOD_F = 1 << 8,
    NEED_IPOW_L = 1 << 9,
    NEED_IPOW_UL = 1 << 10,
    NEED_CMUL_D = 1 << 11,
    NEED_CMUL_F = 1 << 12,
    NEED_CDIV_D = 1 << 13,
    NEED_CDIV_F = 1 << 14,
    NEED_ABS_I = 1 << 15,
    NEED_ABS_L = 1 << 16,
    NEED_ISINF_D = 1 << 17,
    NEED_ISINF_F = 1 << 18,
    NEED_ILOGB_D = 1 << 19,
    NEED_ILOGB_F = 1 << 20,
};

typedef struct Loop {
    struct Loop *up;
    const char *brk_label; /* a loop with an else clause: break jumps past it */
    int brk_used;
} Loop;

typedef struct {
    IrVar *var;
    const char *pfx; /* V in V_base, V_part, V_last */
} Param;

typedef struct {
    CyArena *a;
    CyDiag *d;
    const IrModule *m;
    CyEmit e;         /* the output and its indentation (backends/emit.h) */
    int nid;          /* unique suffixes inside the current kernel/function */
    IrRegion *R;      /* the kernel's region; NULL while emitting a helper */
    IrFunc *fn;       /* the helper being emitted */
    Loop *loop;       /* innermost serial loop; NULL: the region's own level */
    int next_used;    /* some statement jumped to next_label */
    const char *next_label; /* where a failure or `continue` skips to: the end of the iteration (cy_next) */
    CyVec params;     /* Param* of the current kernel */
    CyVec nonneg;     /* IrVar* that are never negative (no wraparound needed) */
    CyVec lastp;      /* IrVar* lastprivate, written to their slots in cy_err */
    int nred;         /* reductions of the kernel (their results precede the lastprivate slots) */
    CyVec helpers;    /* IrFunc* the kernels call, in discovery order */
    CyVec helper_region; /* IrRegion*: the first region calling helpers[i] */
    CyVec lins;       /* Lin*: view elements addressed through loop pointers */
    CyVec subst;      /* IrExpr*, const char* pairs: view elements a planned kernel reads from local memory */
    unsigned need;
    size_t counted;   /* bytes of the program whose lines are in nlines */
    int nlines;
} OG;

CY_EMIT_HELPERS(OG)

static void internal(OG *G, CyPos p, const char *what) {
    cy_error(G->d, p, "internal error: OpenCL backend: %s", what);
}

/* ---- types and literals --------------------------------------------------- */

/* The OpenCL spelling of a C scalar type (by size and signedness, so that
 * long is whatever the host's long is). */
static const char *ocl_type(const CyType *t) {
    switch (t->kind) {
    case TY_VOID: return "void";
    case TY_BINT: return "int";
    case TY_FLOAT: return "float";
    case TY_DOUBLE: return "double";
    /* the layout of C's complex: the real part, then the imaginary one */
    case TY_CFLOAT: return "float2";
    case TY_CDOUBLE: return "double2";
    default: break;
    }
    if (!cy_type_is_int(t)) return NULL;
    int s = t->is_signed;
    switch (t->size) {
    case 1: return s ? "char" : "uchar";
    case 2: return s ? "short" : "ushort";
    case 4: return s ? "int" : "uint";
    default: return s ? "long" : "ulong";
    }
}

static const char *oty(OG *G, const CyType *t, CyPos p) {
    const char *s = ocl_type(t);
    if (!s) {
        internal(G, p, cy_fmt(G->a, "no OpenCL type for '%s'", t->name));
        return "int";
    }
    return s;
}

/* A private variable's declaration with its zero initialiser: "double v = 0",
 * "int m[2][3] = {0}" (a C array is private memory of the work-item). */
static const char *odecl(OG *G, IrVar *v, const char *init) {
    if (v->ty->kind != TY_ARRAY) return FMT("%s %s = %s", oty(G, v->ty, v->pos), v->cname, init);
    const CyType *sc = cy_type_array_scalar(v->ty);
    return FMT("%s %s%s = {0}", oty(G, sc, v->pos), v->cname, v->ty->name + strlen(sc->name));
}





static const char *int_lit(OG *G, const CyType *t, uint64_t bits) {
    if (t->kind == TY_BINT) return bits ? "1" : "0";
    if (!t->is_signed) {
        uint64_t v = bits;
        if (t->size < 8) v &= t->size == 4 ? 0xffffffffu : t->size == 2 ? 0xffffu : 0xffu;
        const char *suf = t->size == 8 ? "UL" : t->size == 4 || v > 0x7fffffff ? "U" : "";
        return FMT("%" PRIu64 "%s", v, suf);
    }
    int64_t v = (int64_t)bits;
    if (t->size < 8) v = t->size == 4 ? (int32_t)v : t->size == 2 ? (int16_t)v : (int8_t)v;
    const char *suf = t->size == 8 ? "L" : "";
    if (v == INT64_MIN) return "(-9223372036854775807L - 1)";
    if (v == INT32_MIN && t->size == 4) return "(-2147483647 - 1)";
    return v < 0 ? FMT("(%" PRId64 "%s)", v, suf) : FMT("%" PRId64 "%s", v, suf);
}

static const char *float_lit(OG *G, const CyType *t, double v) {
    int f = t->kind == TY_FLOAT;
    if (isnan(v)) return f ? "NAN" : "((double)NAN)";
    if (isinf(v)) return v < 0 ? (f ? "(-INFINITY)" : "(-(double)INFINITY)") : (f ? "INFINITY" : "((double)INFINITY)");
    char buf[64];
    cy_float_digits(buf, v, f);
    const char *suf = f ? "f" : "";
    return v < 0 || (v == 0 && signbit(v)) ? FMT("(%s%s)", buf, suf) : FMT("%s%s", buf, suf);
}

/* A literal of exactly type t (OpenCL's overloaded built-ins need it). */
static const char *typed(OG *G, const CyType *t, const IrExpr *e, const char *c) {
    int64_t v;
    if (cy_const_int(e, &v) && t->size < 4) return FMT("((%s)%s)", ocl_type(t), c);
    return c;
}

/* libc.math and math.h constants: OpenCL has them all under the same name
 * (the float variants with an _F suffix). */
static const char *cname_const(OG *G, const char *name, int as_float) {
    if (!as_float) return name;
    if (!strcmp(name, "HUGE_VAL")) return "HUGE_VALF";
    if (!strncmp(name, "M_", 2)) return FMT("%s_F", name);
    return name; /* INFINITY, NAN are float already */
}

/* ---- temporaries, errors ---------------------------------------------------- */

static const char *stmp(OG *G, const char *ctype, const char *init) {
    const char *n = FMT("cy_s%d", ++G->nid);
    out(G, "%s %s = %s;", ctype, n, init);
    return n;
}

static const char *once(OG *G, const CyType *t, const char *c, CyPos p) {
    return cy_c_simple(c) ? c : stmp(G, oty(G, t, p), c);
}

/* The statement that records error (code, arg) and skips the rest of the
 * iteration. */
static const char *fail(OG *G, int code, int arg, CyPos p) {
    if (!G->R) {
        internal(G, p, "a function called from a kernel cannot raise");
        return "{ }";
    }
    /* the launch of a quiet kernel reads no result (ir/analyze.c) */
    if (G->R->ocl_quiet) internal(G, p, "a check in a kernel found unable to fail");
    G->need |= NEED_RAISE;
    G->next_used = 1;
    return FMT("{ cy_raise(cy_err, %d, %d); goto %s; }", code, arg, G->next_label);
}

/* ---- views ----------------------------------------------------------------- */

static const char *pfx_of(OG *G, IrVar *v) {
    for (int i = 0; i < G->params.len; i++) {
        Param *p = G->params.items[i];
        if (p->var == v) return p->pfx;
    }
    internal(G, v->pos, cy_fmt(G->a, "'%s' is not an argument of the kernel", v->name));
    return v->cname;
}

/* e is v + c with c >= 0 (through widening integer casts), v never negative */
static int nonneg_index(OG *G, const IrExpr *e) {
    while (e->kind == E_CAST && cy_type_is_int(e->ty) && cy_type_is_int(e->args[0]->ty) &&
           e->ty->size >= e->args[0]->ty->size && e->args[0]->ty->is_signed)
        e = e->args[0];
    if (e->kind == E_VAR) return vec_has(&G->nonneg, e->var);
    int64_t k;
    if (e->kind == E_BINOP && e->op == OP_ADD) {
        if (cy_const_int(e->args[1], &k) && k >= 0 && k < (1LL << 40)) return nonneg_index(G, e->args[0]);
        if (cy_const_int(e->args[0], &k) && k >= 0 && k < (1LL << 40)) return nonneg_index(G, e->args[1]);
    }
    return 0;
}

static const char *gen(OG *G, IrExpr *e);

/* A view element whose address a range() loop keeps in a pointer,
 * advanced by the loop header (see gen_for_range). */
typedef struct {
    IrExpr *elem;
    const char *ptr;
} Lin;

static const char *lin_ptr(OG *G, const IrExpr *e) {
    for (int i = G->lins.len - 1; i >= 0; i--) {
        Lin *l = G->lins.items[i];
        if (cy_ir_expr_eq(l->elem, e)) return l->ptr;
    }
    return NULL;
}

/* the shared lowering's hooks (backends/emit.h), defined below */
CY_TARGET(OG, gen, 1)

/* The element lvalue of E_VIEW_ELEM: indices evaluated once, wrapped and
 * bounds-checked as the directives say (exactly where cgen.c checks). */
static const char *view_elem(OG *G, IrExpr *e) {
    const CyType *vt = e->args[0]->ty;
    int nd = vt->ndim;
    if (e->args[0]->kind != E_VAR) {
        internal(G, e->pos, "memoryview expression in a kernel");
        return "0";
    }
    const char *p = pfx_of(G, e->args[0]->var);
    const char *idx[CY_MAX_NDIM];
    CyTarget T = target(G);
    cy_lower_view_index(&G->e, &T, e, (void *)p, idx);
    const char *lp = lin_ptr(G, e);
    if (lp) return FMT("(*%s)", lp);
    CyBuf b = {0};
    cy_buf_printf(&b, "%s_off", p);
    for (int k = 0; k < nd; k++) {
        int64_t z;
        if (cy_const_int(e->args[1 + k], &z) && z == 0 && !strcmp(idx[k], int_lit(G, e->args[1 + k]->ty, 0))) continue;
        if (vt->axes[k]) cy_buf_printf(&b, " + %s", cy_c_paren(G->a, idx[k]));
        else cy_buf_printf(&b, " + %s * %s_s%d", cy_c_paren(G->a, idx[k]), p, k);
    }
    const char *r = FMT("%s_base[%s]", p, b.s);
    cy_buf_free(&b);
    return r;
}

static const char *view_shape(OG *G, IrExpr *e, int stride) {
    const CyType *vt = e->args[0]->ty;
    if (e->args[0]->kind != E_VAR) {
        internal(G, e->pos, "memoryview expression in a kernel");
        return "0";
    }
    const char *p = pfx_of(G, e->args[0]->var);
    const char *esz = FMT("%dL", vt->base->size);
    int64_t k;
    if (cy_const_int(e->args[1], &k)) {
        if (k < 0 || k >= vt->ndim) return "0L";
        return stride ? FMT("(%s_s%d * %s)", p, (int)k, esz) : FMT("%s_n%d", p, (int)k);
    }
    const char *ax = once(G, e->args[1]->ty, gen(G, e->args[1]), e->pos);
    CyBuf b = {0};
    cy_buf_puts(&b, "(");
    for (int i = 0; i < vt->ndim; i++) {
        if (stride) cy_buf_printf(&b, "%s == %d ? %s_s%d * %s : ", ax, i, p, i, esz);
        else cy_buf_printf(&b, "%s == %d ? %s_n%d : ", ax, i, p, i);
    }
    cy_buf_puts(&b, "0L)");
    const char *r = cy_strndup(G->a, b.s, b.len);
    cy_buf_free(&b);
    return r;
}

/* ---- expressions --------------------------------------------------------------- */


/* ---- the shared lowering's hooks (backends/emit.h) -------------------------- */

/* an index the kernel knows never negative needs no wrap */
static void tg_index_fact(void *g, IrExpr *e, int k, CyIndexFact *f) { f->nonneg = nonneg_index(g, e->args[1 + k]); }
/* the view's handle is its argument prefix */
static const char *tg_view_shape(void *g, void *view, int k) { return cy_fmt(((OG *)g)->a, "%s_n%d", (const char *)view, k); }

/* ZeroDivisionError kinds (cy_err[1]) */
enum { ZD_INT = 0, ZD_FLOATDIV = 1, ZD_FLOATMOD = 2, ZD_DIVMOD = 3 };

static const char *tg_temp(void *g, const CyType *t, const char *init, CyPos pos) {
    OG *G = g;
    if (!t) return stmp(G, "int", init);
    if (init) return stmp(G, oty(G, t, pos), init);
    const char *r = FMT("cy_s%d", ++G->nid);
    out(G, "%s %s;", oty(G, t, pos), r);
    return r;
}
static const char *tg_once(void *g, const CyType *t, const char *c, CyPos pos) { return once(g, t, c, pos); }
static const char *tg_type(void *g, const CyType *t, CyPos pos) { return oty(g, t, pos); }
/* OpenCL's math built-ins are overloaded by type; it has no lround and
 * lrint (round and rint, whose result the shared lowering converts) */
static const char *tg_libm(void *g, const char *name, const CyType *t) {
    OG *G = g;
    /* glibc's isinf is -1 for -inf (Cython's math.pxd: "-1 / 0 / 1");
       OpenCL's is 1 */
    if (!strcmp(name, "isinf")) {
        int f = t->kind == TY_FLOAT;
        G->need |= f ? NEED_ISINF_F : NEED_ISINF_D;
        return f ? "cy_isinf_f" : "cy_isinf_d";
    }
    /* glibc's ilogb of 0 and of NaN is INT_MIN, of an infinity INT_MAX;
       OpenCL leaves FP_ILOGB0 and FP_ILOGBNAN to the implementation */
    if (!strcmp(name, "ilogb")) {
        int f = t->kind == TY_FLOAT;
        G->need |= f ? NEED_ILOGB_F : NEED_ILOGB_D;
        return f ? "cy_ilogb_f" : "cy_ilogb_d";
    }
    /* OpenCL C has neither: in the default rounding mode (the only one a
       kernel has) nearbyint is rint, and scalbn of a radix-2 float ldexp */
    if (!strcmp(name, "nearbyint")) return "rint";
    if (!strcmp(name, "scalbn")) return "ldexp";
    return !strcmp(name, "lround") ? "round" : !strcmp(name, "lrint") ? "rint" : name;
}

static const char *tg_int_min(const CyType *t) {
    if (!t->is_signed || t->kind == TY_BINT) return NULL;
    switch (t->kind) {
    case TY_INT: return "INT_MIN";
    case TY_LONG: case TY_LLONG: case TY_SSIZE: return t->size == 8 ? "LONG_MIN" : "INT_MIN";
    default: return NULL;
    }
}

/* the support functions cy_fdiv_i ... cy_mod_d, emitted when used */
static const char *tg_pydivmod(void *g, const CyType *t, int fdiv, const char *a, const char *b) {
    OG *G = g;
    if (cy_type_is_int(t)) {
        const char *T = oty(G, t, (CyPos){0});
        int small = t->size <= 4;
        G->need |= small ? (fdiv ? NEED_FDIV_I : NEED_MOD_I) : (fdiv ? NEED_FDIV_L : NEED_MOD_L);
        const char *fn = small ? (fdiv ? "cy_fdiv_i" : "cy_mod_i") : (fdiv ? "cy_fdiv_l" : "cy_mod_l");
        const char *call = FMT("%s(%s, %s)", fn, a, b);
        return strcmp(T, small ? "int" : "long") ? FMT("((%s)%s)", T, call) : call;
    }
    int f = t->kind == TY_FLOAT;
    G->need |= f ? (fdiv ? NEED_FDIV_F : NEED_MOD_F) : (fdiv ? NEED_FDIV_D : NEED_MOD_D);
    return FMT("%s(%s, %s)", f ? (fdiv ? "cy_fdiv_f" : "cy_mod_f") : (fdiv ? "cy_fdiv_d" : "cy_mod_d"), a, b);
}

/* OpenCL C leaves signed overflow undefined (LLVM folds `x + 1 > x`):
   the operation in the unsigned type of t's width, whose overflow is
   modular, reinterpreted by as_int/as_long, which the specification
   defines bit for bit */
static const char *tg_wrapv(void *g, const CyType *t, const char *op, const char *a, const char *b) {
    OG *G = g;
    const char *u = t->size == 8 ? "ulong" : "uint", *sg = t->size == 8 ? "long" : "int";
    if (!b) return FMT("as_%s(%s(%s)%s)", sg, op, u, cy_c_paren(G->a, a));
    return FMT("as_%s((%s)%s %s (%s)%s)", sg, u, cy_c_paren(G->a, a), op, u, cy_c_paren(G->a, b));
}

/* a double constant converted to an integer: folded (no double in a
   float-only kernel) when the value is in range; a libc.math constant
   spelled as the type wants it */
static const char *tg_cast(void *g, IrExpr *e) {
    OG *G = g;
    const CyType *t = e->ty;
    IrExpr *x = e->args[0];
    if (x->kind == E_FLOAT && cy_type_is_int(t) && isfinite(x->fval)) {
        double v = trunc(x->fval);
        if (t->kind == TY_BINT) return x->fval != 0 ? "1" : "0";
        if (t->is_signed ? v >= -9.2e18 && v <= 9.2e18 : v >= 0 && v <= 1.8e19) {
            uint64_t bits = t->is_signed ? (uint64_t)(int64_t)v : (uint64_t)v;
            int64_t lo = t->is_signed ? -(1LL << (t->size * 8 - 1)) : 0;
            double hi = t->is_signed ? (double)((1ULL << (t->size * 8 - 1)) - 1) : (double)(~0ULL >> (64 - t->size * 8));
            if (v >= (double)lo && v <= hi) return int_lit(G, t, bits);
        }
    }
    if (x->kind == E_CNAME && cy_cname_is_math(x->sval) && t->kind != TY_DOUBLE) {
        const char *c = cname_const(G, x->sval, 1);
        return t->kind == TY_FLOAT ? c : t->kind == TY_BINT ? FMT("(%s != 0)", c) : FMT("((%s)%s)", oty(G, t, e->pos), c);
    }
    return NULL;
}

static void tg_check(void *g, const char *cond, CyFail f, CyPos pos) {
    OG *G = g;
    int code = 2, arg = 0;
    switch (f) {
    case CY_FAIL_ZERODIV_INT: arg = ZD_INT; break;
    case CY_FAIL_ZERODIV_FLOAT: arg = ZD_FLOATDIV; break;
    case CY_FAIL_ZERODIV_DIVMOD: arg = ZD_DIVMOD; break;
    case CY_FAIL_DIV_OVERFLOW: code = 4; break;
    case CY_FAIL_RANGE_STEP: code = 5; break;
    case CY_FAIL_SOFT_POW: code = 7; break; /* never: ir/analyze.c keeps it native */
    default: code = 1, arg = (int)(f - CY_FAIL_BOUNDS); break;
    }
    out(G, "if (%s) %s", cond, fail(G, code, arg, pos));
}

static void gen_block(OG *G, CyVec *body);
static void gen_stmts(OG *G, CyVec *body);
static void tg_block(void *g, CyVec *body) { gen_block(g, body); }
static void tg_orelse(void *g, CyVec *body) { gen_stmts(g, body); }
static const char *tg_cond(void *g, IrExpr *e) { return gen(g, e); }
static const char *tg_loop_cond(void *g, IrExpr *e) { return gen(g, e); }
/* no temporaries to release */
static int tg_live(void *g) {
    (void)g;
    return 0;
}
static void *tg_loop_push(void *g, int has_else) {
    OG *G = g;
    Loop *l = cy_alloc(G->a, sizeof *l);
    l->up = G->loop;
    if (has_else) l->brk_label = FMT("cy_brk%d", ++G->nid);
    G->loop = l;
    return l;
}
static const char *tg_loop_pop(void *g, void *loop) {
    OG *G = g;
    Loop *l = loop;
    G->loop = l->up;
    return l->brk_used ? l->brk_label : NULL;
}
static void tg_range_end(void *g, CyRange *r) { ((OG *)g)->lins.len = r->mark; }

/* the support functions cy_ipow_l / cy_ipow_ul (no complex in kernels) */
static const char *tg_pow(void *g, const CyType *t, const char *a, const char *b) {
    OG *G = g;
    const char *T = oty(G, t, (CyPos){0});
    if (t->is_signed || t->kind == TY_BINT) {
        G->need |= NEED_IPOW_L;
        return FMT("((%s)cy_ipow_l(%s, %s))", T, a, b);
    }
    G->need |= NEED_IPOW_UL;
    return FMT("((%s)cy_ipow_ul(%s, %s))", T, a, b);
}

static const char *tg_minmax(void *g, IrExpr *e, const char *a, const char *b) {
    OG *G = g;
    const CyType *t = e->ty;
    int mn = e->op == OP_MIN;
    if (cy_type_is_int(t))
        return FMT("%s(%s, %s)", mn ? "min" : "max", typed(G, t, e->args[0], a), typed(G, t, e->args[1], b));
    /* Python's min keeps the first of equal values (and NaN
       handling as in cgen.c's cyrt_min): not fmin */
    a = once(G, t, a, e->pos);
    b = once(G, t, b, e->pos);
    return FMT("(%s %s %s ? %s : %s)", b, mn ? "<" : ">", a, b, a);
}

static const char *tg_abs(void *g, IrExpr *e, const char *a) {
    OG *G = g;
    const CyType *t = e->ty;
    if (cy_type_is_float(t)) return FMT("fabs(%s)", a);
    if (!t->is_signed && t->kind != TY_BINT) return a;
    if (t->size >= 4) {
        /* abs() of the most negative value is that value natively (-fwrapv,
           as in Cython's build); PoCL's abs() negates with signed overflow
           undefined and LLVM then widens (long)abs(INT_MIN) to +2**31 */
        G->need |= t->size == 8 ? NEED_ABS_L : NEED_ABS_I;
        return FMT("%s(%s)", t->size == 8 ? "cy_abs_l" : "cy_abs_i", typed(G, t, e->args[0], a));
    }
    return FMT("((%s)abs(%s))", oty(G, t, e->pos), typed(G, t, e->args[0], a));
}

/* the eligibility analysis lets only libc.math and abs through */
static const char *tg_call_c(void *g, IrExpr *e, const char *name, const char *args) {
    (void)args;
    internal(g, e->pos, cy_fmt(((OG *)g)->a, "no OpenCL built-in for %s()", name));
    return "0";
}

static const char *tg_call(void *g, IrExpr *e, const char **args) {
    OG *G = g;
    CyBuf b = {0};
    for (int i = 0; i < e->nargs; i++) cy_buf_printf(&b, "%s%s", i ? ", " : "", args[i]);
    const char *r = FMT("%s(%s)", e->fn->cname, b.len ? b.s : "");
    cy_buf_free(&b);
    return r;
}

/* ---- complex numbers ------------------------------------------------------------
 * A complex value is a double2 / float2 (x the real part, y the imaginary
 * one).  + and - are the vector operations, as C's complex + and - are
 * part by part; * and / are the support functions cy_cmul_* / cy_cdiv_*,
 * which compute what GCC's code does natively (the inline product with
 * libgcc's __muldc3 recovery of infinities, and libgcc's __divdc3 /
 * __divsc3), so that results agree bit for bit; abs() is hypot, as glibc's
 * cabs, but within OpenCL's ULP bound. */

static const char *cpart(OG *G, const char *c, int imag) { return FMT("%s.%c", cy_c_paren(G->a, c), imag ? 'y' : 'x'); }

/* a complex operand: C's conversion of a real or integer one */
static const char *as_complex(OG *G, const CyType *t, const CyType *from, const char *c, CyPos p) {
    const char *T = oty(G, t, p), *part = t->kind == TY_CFLOAT ? "float" : "double";
    if (cy_type_is_complex(from)) return from->kind == t->kind ? c : FMT("convert_%s(%s)", T, c);
    const char *re = from->kind == (t->kind == TY_CFLOAT ? TY_FLOAT : TY_DOUBLE) ? c : FMT("(%s)%s", part, cy_c_paren(G->a, c));
    return FMT("((%s)(%s, %s))", T, re, t->kind == TY_CFLOAT ? "0.0f" : "0.0");
}

/* a op b on complex values of type t (already of that type) */
static const char *complex_op(OG *G, IrOp op, const CyType *t, const char *a, const char *b, int check, CyPos p) {
    int f = t->kind == TY_CFLOAT;
    switch (op) {
    case OP_ADD: case OP_SUB: return FMT("(%s %s %s)", a, cy_op_name(op), b);
    case OP_MUL:
        G->need |= f ? NEED_CMUL_F : NEED_CMUL_D;
        return FMT("cy_cmul_%c(%s, %s)", f ? 'f' : 'd', a, b);
    case OP_DIV:
        if (check) {
            b = once(G, t, b, p);
            tg_check(G, FMT("%s == 0 && %s == 0", cpart(G, b, 0), cpart(G, b, 1)), CY_FAIL_ZERODIV_FLOAT, p);
        }
        G->need |= f ? NEED_CDIV_F : NEED_CDIV_D;
        return FMT("cy_cdiv_%c(%s, %s)", f ? 'f' : 'd', a, b);
    default:
        internal(G, p, cy_fmt(G->a, "complex operator '%s' in a kernel", cy_op_name(op)));
        return "0";
    }
}

/* The expressions whose operands or result are complex (NULL: none of
 * those); analyze.c lets only these into a kernel. */
static const char *gen_complex(OG *G, IrExpr *e) {
    const CyType *t = e->ty;
    switch (e->kind) {
    case E_IMAG:
        return FMT("((double2)(0.0, %s))", float_lit(G, cy_type_scalar(TY_DOUBLE), e->fval));
    case E_BINOP:
        if (!cy_type_is_complex(t)) return NULL;
        {
            const char *a = gen(G, e->args[0]), *b = gen(G, e->args[1]);
            return complex_op(G, e->op, t, a, b, !e->cdivision && !cy_nonzero_const(e->args[1]), e->pos);
        }
    case E_UNOP:
        if (!cy_type_is_complex(t)) return NULL;
        return FMT("(%s%s)", cy_op_name(e->op), cy_c_paren(G->a, gen(G, e->args[0])));
    case E_CMP:
        if (!cy_type_is_complex(e->args[0]->ty)) return NULL;
        {
            const char *a = once(G, e->args[0]->ty, gen(G, e->args[0]), e->pos);
            const char *b = once(G, e->args[1]->ty, gen(G, e->args[1]), e->pos);
            const char *eq = FMT("(%s == %s && %s == %s)", cpart(G, a, 0), cpart(G, b, 0), cpart(G, a, 1), cpart(G, b, 1));
            return e->op == OP_EQ ? eq : FMT("(!%s)", eq);
        }
    case E_CAST: {
        const CyType *from = e->args[0]->ty;
        if (cy_type_is_complex(t)) return as_complex(G, t, from, gen(G, e->args[0]), e->pos);
        if (!cy_type_is_complex(from)) return NULL;
        const char *z = once(G, from, gen(G, e->args[0]), e->pos);
        if (t->kind == TY_BINT) return FMT("(%s != 0 || %s != 0)", cpart(G, z, 0), cpart(G, z, 1));
        return FMT("((%s)%s)", oty(G, t, e->pos), cpart(G, z, 0));
    }
    case E_CALL_C: {
        const char *n = e->fn ? NULL : e->sval;
        if (!n) return NULL;
        if (!strcmp(n, "CYRT_CMPLX") || !strcmp(n, "CYRT_CMPLXF"))
            return FMT("((%s)(%s, %s))", oty(G, t, e->pos), gen(G, e->args[0]), gen(G, e->args[1]));
        if (e->nargs != 1 || !cy_type_is_complex(e->args[0]->ty)) return NULL;
        const char *z = gen(G, e->args[0]);
        if (!strcmp(n, "creal") || !strcmp(n, "crealf")) return cpart(G, z, 0);
        if (!strcmp(n, "cimag") || !strcmp(n, "cimagf")) return cpart(G, z, 1);
        z = once(G, e->args[0]->ty, z, e->pos);
        if (!strcmp(n, "conj") || !strcmp(n, "conjf"))
            return FMT("((%s)(%s, -%s))", oty(G, t, e->pos), cpart(G, z, 0), cpart(G, z, 1));
        if (!strcmp(n, "cabs") || !strcmp(n, "cabsf")) return FMT("hypot(%s, %s)", cpart(G, z, 0), cpart(G, z, 1));
        return NULL;
    }
    default: return NULL;
    }
}

static const char *gen(OG *G, IrExpr *e) {
    for (int i = 0; i + 1 < G->subst.len; i += 2)
        if (G->subst.items[i] == e) return G->subst.items[i + 1];
    const char *c = gen_complex(G, e);
    if (c) return c;
    CyTarget T = target(G);
    c = cy_lower_expr(&G->e, &T, e);
    if (c) return c;
    switch (e->kind) {
    case E_CNAME: return cname_const(G, e->sval, e->ty->kind == TY_FLOAT);
    case E_VAR: return e->var->cname;
    case E_SIZEOF: return FMT("%dUL", e->ty2->size); /* the host's size, as the native module has it */
    case E_VIEW_ELEM:
        for (int i = 0; i + 1 < G->subst.len; i += 2)
            if (G->subst.items[i] == e) return G->subst.items[i + 1];
        return view_elem(G, e);
    case E_VIEW_SHAPE: return view_shape(G, e, 0);
    case E_VIEW_STRIDE: return view_shape(G, e, 1);
    case E_VIEW_NDIM: return FMT("%d", e->args[0]->ty->ndim);
    case E_CALL:
        if (e->fn && e->fn->kind != F_EXTERN) {
            /* discovered before the helpers its arguments call */
            if (!vec_has(&G->helpers, e->fn)) {
                cy_vec_push(G->a, &G->helpers, e->fn);
                cy_vec_push(G->a, &G->helper_region, G->R);
            }
            return cy_lower_call(&G->e, &T, e);
        }
        break;
    default: break;
    }
    internal(G, e->pos, cy_fmt(G->a, "unexpected expression (kind %d) in a kernel", (int)e->kind));
    return "0";
}

/* ---- statements --------------------------------------------------------------- */

static void gen_stmts(OG *G, CyVec *body);

static int is_reduction(OG *G, IrVar *v, IrOp *op) {
    if (!G->R) return 0;
    for (int i = 0; i < G->R->args.len; i++) {
        IrRegionArg *x = G->R->args.items[i];
        if (x->kind == RA_REDUCTION && x->var == v) {
            *op = x->redop;
            return 1;
        }
    }
    return 0;
}

/* a kernel assigns C values only */
static int tg_assign(void *g, IrStmt *s) {
    (void)g;
    (void)s;
    return 0;
}

static const char *tg_lvalue(void *g, IrExpr *t) {
    OG *G = g;
    if (t->kind == E_VAR) return t->var->cname;
    if (t->kind == E_VIEW_ELEM) return view_elem(G, t);
    if (t->kind == E_PTR_INDEX) return gen(G, t);
    internal(G, t->pos, "unexpected assignment target in a kernel");
    return NULL;
}

/* `s -= x` over the loop: the kernel sums the x, the host subtracts */
static IrOp tg_update_op(void *g, IrStmt *s) {
    IrOp rop;
    if (s->target->kind == E_VAR && s->op == OP_SUB && is_reduction(g, s->target->var, &rop) && rop == OP_SUB)
        return OP_ADD;
    return s->op;
}

/* a whole C array: element by element, as memcpy would */
static void tg_copy_array(void *g, const CyType *t, const char *lv, const char *rv, CyPos pos) {
    OG *G = g;
    const CyType *sc = cy_type_array_scalar(t);
    const char *T = oty(G, sc, pos);
    out(G, "for (int cy_k = 0; cy_k < %d; cy_k++) ((%s *)%s)[cy_k] = ((%s *)%s)[cy_k];", t->size / sc->size, T,
        cy_c_paren(G->a, lv), T, cy_c_paren(G->a, rv));
}

static void gen_assign(OG *G, IrStmt *s) {
    if (s->op && cy_type_is_complex(s->target->ty)) {
        /* z *= w is z = z * w (a vector's *= is part by part); the
           target's indices are evaluated once.  Sema keeps an in-place /
           only under cdivision: no zero check */
        const char *rv = gen(G, s->value);
        const char *lv = tg_lvalue(G, s->target);
        if (!lv) return;
        rv = as_complex(G, s->target->ty, s->value->ty, rv, s->pos);
        out(G, "%s = %s;", lv,
            complex_op(G, s->op, s->target->ty, lv, rv, 0, s->pos));
        return;
    }
    CyTarget T = target(G);
    cy_lower_assign(&G->e, &T, s);
}

/* The condition of an if/while as a C expression. */
static void gen_block(OG *G, CyVec *body) {
    G->e.ind++;
    gen_stmts(G, body);
    G->e.ind--;
}

static void gen_if_open(OG *G, IrStmt *s, const char *c, const char *prefix) {
    CyTarget T = target(G);
    cy_emit_if_open(&G->e, &T, s, c, prefix);
}

static void gen_while(OG *G, IrStmt *s) {
    CyTarget T = target(G);
    cy_lower_while(&G->e, &T, s);
}


/* ---- pointers advanced by range() loops ----------------------------------------
 *
 * a[i, k] in a loop over k is a[off + i*s0 + k*s1]: a 64-bit multiply per
 * access and iteration, which GPU compilers (NVIDIA's, at least) do not
 * strength-reduce; a matrix product's inner loop runs twice as fast with
 * the address in a pointer that the loop header advances by the stride.
 * Taken for accesses with one axis indexed by the loop variable plus a
 * constant and the others by expressions the loop does not change, where
 * no wraparound can apply (the bounds checks stay, on the indices). */

/* e is var + c (through widening signed casts): *c set */
static int linear_in(const IrExpr *e, const IrVar *var, int64_t *c) {
    while (e->kind == E_CAST && cy_type_is_int(e->ty) && e->ty->is_signed && e->args[0]->ty->is_signed &&
           e->ty->size >= e->args[0]->ty->size)
        e = e->args[0];
    int64_t k;
    if (e->kind == E_VAR && e->var == var) {
        *c = 0;
        return 1;
    }
    if (e->kind == E_BINOP && (e->op == OP_ADD || e->op == OP_SUB) && cy_const_int(e->args[1], &k) &&
        k > -(1LL << 40) && k < (1LL << 40) && linear_in(e->args[0], var, c) && *c == 0) {
        *c = e->op == OP_ADD ? k : -k;
        return 1;
    }
    if (e->kind == E_BINOP && e->op == OP_ADD && cy_const_int(e->args[0], &k) && k > -(1LL << 40) &&
        k < (1LL << 40) && linear_in(e->args[1], var, c) && *c == 0) {
        *c = k;
        return 1;
    }
    return 0;
}

/* pure arithmetic on variables the loop does not assign */
static int invariant(const IrExpr *e, const CyVec *assigned) {
    switch (e->kind) {
    case E_INT: return 1;
    case E_VAR: return !vec_has(assigned, e->var) && e->var->ty->kind != TY_VIEW;
    case E_CAST: return cy_type_is_int(e->ty) && invariant(e->args[0], assigned);
    case E_UNOP: return e->op == OP_NEG && invariant(e->args[0], assigned);
    case E_BINOP:
        return (e->op == OP_ADD || e->op == OP_SUB || e->op == OP_MUL) &&
               invariant(e->args[0], assigned) && invariant(e->args[1], assigned);
    case E_VIEW_SHAPE: return e->args[0]->kind == E_VAR && invariant(e->args[1], assigned);
    default: return 0;
    }
}

static void collect_assigned(OG *G, CyVec *body, CyVec *out) {
    for (int i = 0; i < body->len; i++) {
        IrStmt *x = body->items[i];
        if (x->kind == ST_ASSIGN && x->target->kind == E_VAR) vec_add(G, out, x->target->var);
        if (x->var) vec_add(G, out, x->var);
        collect_assigned(G, &x->body, out);
        collect_assigned(G, &x->orelse, out);
    }
}

static void collect_elems(OG *G, IrExpr *e, CyVec *out) {
    if (!e) return;
    if (e->kind == E_VIEW_ELEM) cy_vec_push(G->a, out, e);
    for (int i = 0; i < e->nargs; i++) collect_elems(G, e->args[i], out);
}

static void collect_elems_stmts(OG *G, CyVec *body, CyVec *out) {
    for (int i = 0; i < body->len; i++) {
        IrStmt *x = body->items[i];
        collect_elems(G, x->target, out);
        collect_elems(G, x->value, out);
        collect_elems(G, x->cond, out);
        collect_elems(G, x->start, out);
        collect_elems(G, x->stop, out);
        collect_elems(G, x->step, out);
        collect_elems_stmts(G, &x->body, out);
        collect_elems_stmts(G, &x->orelse, out);
    }
}

static int view_written(OG *G, IrVar *v) {
    for (int i = 0; G->R && i < G->R->args.len; i++) {
        IrRegionArg *ra = G->R->args.items[i];
        if (ra->var == v) return ra->written;
    }
    return 1;
}

/* Declares the pointers for loop s (its first index value a, step sv) and
 * returns the header's increments (", p += s, ..."); pushes the Lins. */
static const char *loop_pointers(OG *G, IrStmt *s, const char *a, int64_t sv) {
    if (!G->R || !s->var->ty->is_signed) return "";
    CyVec assigned = {0}, elems = {0};
    collect_assigned(G, &s->body, &assigned);
    if (vec_has(&assigned, s->var)) return "";
    vec_add(G, &assigned, s->var);
    collect_elems_stmts(G, &s->body, &elems);
    CyBuf inc = {0};
    for (int i = 0; i < elems.len; i++) {
        IrExpr *e = elems.items[i];
        if (e->args[0]->kind != E_VAR || lin_ptr(G, e)) continue;
        const CyType *vt = e->args[0]->ty;
        int nd = vt->ndim, axis = -1, ok = 1;
        int64_t c = 0;
        for (int k = 0; k < nd && ok; k++) {
            IrExpr *ie = e->args[1 + k];
            int64_t ck, cv;
            if (!ie->ty->is_signed) ok = 0;
            else if (linear_in(ie, s->var, &ck)) {
                if (axis >= 0) ok = 0;
                axis = k;
                c = ck;
            } else if (!invariant(ie, &assigned)) {
                ok = 0;
            }
            if (ok && e->wraparound && !(cy_const_int(ie, &cv) && cv >= 0) && !nonneg_index(G, ie)) ok = 0;
        }
        if (!ok || axis < 0) continue;
        /* the address at the loop's first index value: no code may be
           needed to compute it */
        Cap cap;
        cap_begin(G, &cap, G->e.ind);
        const char *p = pfx_of(G, e->args[0]->var);
        CyBuf b = {0};
        cy_buf_printf(&b, "%s_off", p);
        for (int k = 0; k < nd; k++) {
            IrExpr *ie = e->args[1 + k];
            int64_t z;
            const char *ix;
            if (k == axis) {
                int64_t a0;
                if (cy_const_int(s->start, &a0) && a0 + c == 0) continue;
                ix = c ? FMT("%s + %" PRId64 "L", cy_c_paren(G->a, a), c) : a;
            } else {
                if (cy_const_int(ie, &z) && z == 0) continue;
                ix = gen(G, ie);
            }
            if (vt->axes[k]) cy_buf_printf(&b, " + %s", cy_c_paren(G->a, ix));
            else cy_buf_printf(&b, " + %s * %s_s%d", cy_c_paren(G->a, ix), p, k);
        }
        const char *addr = cy_strndup(G->a, b.s, b.len);
        cy_buf_free(&b);
        if (*cap_end(G, &cap)) continue;
        Lin *l = cy_alloc(G->a, sizeof *l);
        l->elem = e;
        l->ptr = FMT("cy_p%d", ++G->nid);
        out(G, "%s__global %s *%s = %s_base + (%s);", view_written(G, e->args[0]->var) ? "" : "const ",
            oty(G, vt->base, e->pos), l->ptr, p, addr);
        const char *stride = vt->axes[axis] ? NULL : FMT("%s_s%d", p, axis);
        if (stride && sv == 1) cy_buf_printf(&inc, ", %s += %s", l->ptr, stride);
        else if (stride && sv == -1) cy_buf_printf(&inc, ", %s -= %s", l->ptr, stride);
        else if (stride) cy_buf_printf(&inc, ", %s += %" PRId64 "L * %s", l->ptr, sv, stride);
        else if (sv == 1) cy_buf_printf(&inc, ", %s++", l->ptr);
        else if (sv == -1) cy_buf_printf(&inc, ", %s--", l->ptr);
        else cy_buf_printf(&inc, ", %s += %" PRId64 "L", l->ptr, sv);
        cy_vec_push(G->a, &G->lins, l);
    }
    const char *r = inc.len ? cy_strndup(G->a, inc.s, inc.len) : "";
    cy_buf_free(&inc);
    return r;
}

/* Between the bounds and the header: view elements the loop walks get
 * pointers its header advances. */
static void tg_range_prepare(void *g, CyRange *r) {
    OG *G = g;
    r->mark = G->lins.len;
    if (r->sconst) r->incr = loop_pointers(G, r->s, r->a, r->sv);
}

static void gen_for_range(OG *G, IrStmt *s) {
    CyTarget T = target(G);
    CyRange r = {0};
    cy_lower_for_range(&G->e, &T, s, &r);
}

/* Lastprivate i's slot (0: the last iteration's value, 1: the breaking
 * one's) in the result area of cy_err (oclgen.h). */
static const char *last_slot(OG *G, int i, int slot) {
    IrVar *v = G->lastp.items[i];
    return FMT("*(__global %s *)((__global char *)cy_err + %d)", oty(G, v->ty, v->pos), 32 + 8 * G->nred + 16 * i + 8 * slot);
}

/* break at the region's own level: the first work-item to break records
 * its iteration and its lastprivate values (slot 1), then stops. */
static void gen_region_break(OG *G) {
    out(G, "if (atomic_cmpxchg((volatile __global int *)cy_err, 0, 3) == 0) {");
    G->e.ind++;
    out(G, "cy_err[2] = (int)cy_it;");
    out(G, "cy_err[3] = (int)(cy_it >> 32);");
    for (int i = 0; i < G->lastp.len; i++) out(G, "%s = %s;", last_slot(G, i, 1), ((IrVar *)G->lastp.items[i])->cname);
    G->e.ind--;
    out(G, "}");
    out(G, "break;");
}

static void gen_stmt(OG *G, IrStmt *s) {
    switch (s->kind) {
    case ST_BLOCK: case ST_NOGIL: gen_stmts(G, &s->body); return;
    case ST_DECLARE: return;
    case ST_EXPR: {
        const char *c = gen(G, s->value);
        if (*c && !cy_c_simple(c)) out(G, s->value->ty->kind == TY_VOID ? "%s;" : "(void)%s;", c);
        return;
    }
    case ST_ASSIGN: gen_assign(G, s); return;
    case ST_IF: {
        const char *c = gen(G, s->cond);
        gen_if_open(G, s, c, "");
        out(G, "}");
        return;
    }
    case ST_WHILE: gen_while(G, s); return;
    case ST_FOR_RANGE: gen_for_range(G, s); return;
    case ST_BREAK: case ST_CONTINUE:
        if (G->loop) {
            if (s->kind == ST_CONTINUE) {
                out(G, "continue;");
            } else if (G->loop->brk_label) {
                G->loop->brk_used = 1;
                out(G, "goto %s;", G->loop->brk_label);
            } else {
                out(G, "break;");
            }
        } else if (!G->R) {
            internal(G, s->pos, "break outside a loop");
        } else if (s->kind == ST_CONTINUE) {
            G->next_used = 1;
            out(G, "goto %s;", G->next_label);
        } else {
            gen_region_break(G);
        }
        return;
    case ST_RETURN:
        if (G->R) break;
        if (s->value && G->fn->ret->kind != TY_VOID) {
            const char *c = gen(G, s->value);
            out(G, "return %s;", c);
        } else {
            if (s->value) {
                const char *c = gen(G, s->value);
                if (*c && !cy_c_simple(c)) out(G, "(void)%s;", c);
            }
            out(G, "return;");
        }
        return;
    default: break;
    }
    internal(G, s->pos, cy_fmt(G->a, "unexpected statement (kind %d) in a kernel", (int)s->kind));
}

static void gen_stmts(OG *G, CyVec *body) {
    for (int i = 0; i < body->len; i++) gen_stmt(G, body->items[i]);
}

/* ---- kernels ------------------------------------------------------------------------ */

static const char *identity(OG *G, IrOp op, const CyType *t) {
    int f = cy_type_is_float(t);
    if (op == OP_MUL) return f ? (t->kind == TY_FLOAT ? "1.0f" : "1.0") : "1";
    if (op == OP_BITAND) return "~0";
    (void)G;
    return f ? (t->kind == TY_FLOAT ? "0.0f" : "0.0") : "0";
}

/* `acc op= x` of two partial results (those of a `-` reduction are sums:
   the host subtracts their total), wrapping as the body's operators do */
static const char *combine(OG *G, const IrRegionArg *ra, const char *acc, const char *x) {
    IrOp op = ra->redop == OP_SUB ? OP_ADD : ra->redop;
    if (!cy_arith_wraps(ra->var->ty, op)) return FMT("%s %s= %s;", acc, cy_op_name(op), x);
    CyTarget T = target(G);
    return FMT("%s = %s;", acc, cy_lower_arith(&G->e, &T, ra->var->ty, op, acc, x));
}

/* Parameter-name prefixes: the variable's C name, unless NAME_base (or
 * another generated name) would be a C name already in use. */
static const char *pick_pfx(OG *G, IrVar *v, CyVec *taken) {
    static const char *const sufs[] = {"_base", "_off", "_s0", "_s1", "_s2", "_s3", "_n0", "_n1", "_n2", "_n3",
                                       "_part", "_loc", "_last", NULL};
    for (int k = 0;; k++) {
        const char *p = k ? FMT("%s_%d", v->cname, k) : v->cname;
        int clash = 0;
        for (int i = 0; i < taken->len && !clash; i++) {
            const char *t = taken->items[i];
            size_t n = strlen(p);
            if (strncmp(t, p, n)) continue;
            for (int j = 0; sufs[j]; j++)
                if (!strcmp(t + n, sufs[j])) clash = 1;
        }
        if (!clash) return p;
    }
}

/* The tree over V_loc[0 .. get_local_size(0)) of every reduction, into
 * V_loc[0]; all work-items of the group reach its barriers. */
static void emit_tree(OG *G, IrRegion *R) {
    int ind = G->e.ind;
    out(G, "barrier(CLK_LOCAL_MEM_FENCE);");
    out(G, "for (uint cy_w = get_local_size(0); cy_w > 1;) {");
    G->e.ind = ind + 1;
    out(G, "const uint cy_h = (cy_w + 1) / 2;");
    out(G, "if (cy_lid + cy_h < cy_w) {");
    G->e.ind = ind + 2;
    for (int i = 0; i < R->args.len; i++) {
        IrRegionArg *ra = R->args.items[i];
        const char *p = ((Param *)G->params.items[i])->pfx;
        if (ra->kind == RA_REDUCTION)
            out(G, "%s", combine(G, ra, FMT("%s_loc[cy_lid]", p), FMT("%s_loc[cy_lid + cy_h]", p)));
    }
    G->e.ind = ind + 1;
    out(G, "}");
    out(G, "barrier(CLK_LOCAL_MEM_FENCE);");
    out(G, "cy_w = cy_h;");
    G->e.ind = ind;
    out(G, "}");
}

/* The value of a loop variable at iteration `it` of a range(a, b, st)
 * (a: the start's text), in the variable's OpenCL type. */
static const char *at_iter(OG *G, const IrVar *v, const IrExpr *start, const char *a, int64_t st, const char *it) {
    int64_t a0;
    const char *T = oty(G, v->ty, v->pos);
    return cy_index_at(G->a, cy_const_int(start, &a0) && a0 == 0 ? NULL : a, it, st == 1 ? NULL : FMT("%" PRId64 "L", st),
                       strcmp(T, "long") ? T : NULL);
}

/* The trip count of range(a, b, st) as a long (texts a, b). */
static const char *trip(OG *G, const IrExpr *start, const IrVar *v, const char *a, const char *b, int64_t st) {
    a = cy_c_paren(G->a, a);
    b = cy_c_paren(G->a, b);
    int64_t a0;
    int lng = !strcmp(oty(G, v->ty, v->pos), "long");
    const char *la = lng ? a : FMT("(long)%s", a), *lb = lng ? b : FMT("(long)%s", b);
    return cy_trip_count(G->a, a, b, la, lb, st, NULL, cy_const_int(start, &a0) && a0 == 0, "L", "0L");
}

/* The prange index at iteration `it` (the kernel's arguments cy_start,
 * cy_step). */
static const char *index_at(OG *G, IrRegion *R, const char *it) {
    int64_t sv = 1, st0;
    int step1 = !R->step || (cy_const_int(R->step, &sv) && sv == 1);
    const char *T = oty(G, R->index->ty, R->pos);
    return cy_index_at(G->a, cy_const_int(R->start, &st0) && st0 == 0 ? NULL : "cy_start", it, step1 ? NULL : "cy_step",
                       strcmp(T, "long") ? T : NULL);
}

/* Statements of an element's pre or post at indentation ind, a failure or
 * `continue` in them jumping to label: the text, and *used when one can. */
static const char *element_text(OG *G, CyVec *body, const char *label, int ind, int *used) {
    Cap cap;
    cap_begin(G, &cap, ind);
    G->next_label = label;
    G->next_used = 0;
    gen_stmts(G, body);
    *used = G->next_used;
    G->next_used = 0;
    G->next_label = "cy_next";
    return cap_end(G, &cap);
}

/* PLAN_TILE2D: a work-item reads a run of IrPlan.vec elements of operand
 * o's tile in loads of this many elements, up to 16 bytes (the tile is
 * aligned for them). */
static int vec_width(const IrPlan *P, const IrPlanOperand *o) {
    int w = P->vec[o->side ? 0 : 1];
    while (w > 1 && w * o->elem->ty->size > 16) w /= 2;
    return w;
}

/* PLAN_TILE2D: the unrolled loops over a work-item's RM x RN elements. */
static void open_elements(OG *G, int RM, int RN) {
    out(G, "#pragma unroll");
    out(G, "for (int cy_r = 0; cy_r < %d; cy_r++) {", RM);
    out(G, "    #pragma unroll");
    out(G, "    for (int cy_c = 0; cy_c < %d; cy_c++) {", RN);
}

/* Where a work-item's element e (of those along one dimension) lies in
 * its group's block: runs of V adjacent elements, L * V apart, the run of
 * work-item l at l * V (IrPlan.vec). */
static const char *owned(OG *G, const char *l, const char *e, int L, int V) {
    if (V == 1) return FMT("%s + %s * %d", l, e, L);
    return FMT("%s * %d + %s / %d * %d + %s %% %d", l, V, e, V, L * V, e, V);
}

/* Inside open_elements: the element's place, the test that it lies in the
 * n x m space (left open, at indentation 4) and the loop variables i (iv,
 * where the body uses it) and j set for it. */
static void element_head(OG *G, const IrPlan *P, const char *iv, const char *ix_e, const char *jv, const char *jx_e) {
    G->e.ind = 3;
    out(G, "const long cy_oi = cy_i0 + %s, cy_ij = cy_j0 + %s;", owned(G, "cy_ly", "cy_r", P->local[1], P->vec[1]),
        owned(G, "cy_lx", "cy_c", P->local[0], P->vec[0]));
    out(G, "if (cy_oi < cy_n && cy_ij < cy_m) {");
    G->e.ind = 4;
    if (iv) out(G, "%s = %s;", iv, ix_e);
    out(G, "%s = %s;", jv, jx_e);
}

/* PLAN_TILE2D, an operand copied in runs of w elements (cy_ir_plan_gvec):
 * where run cy_l of this tile starts, as (cy_kk, cy_rr) for a row tile or
 * (cy_kk, cy_jj) for a column tile; the run goes along k (gdir 2) or along
 * the other coordinate.  Neighbouring work-items take neighbouring runs. */
static void run_place(OG *G, const IrPlan *P, const IrPlanOperand *o, int w) {
    int W = o->side ? P->local[0] * P->reg[0] : P->local[1] * P->reg[1];
    const char *x = o->side ? "cy_jj" : "cy_rr";
    if (o->gdir == 2) out(G, "const int cy_kk = cy_l %% %d * %d, %s = cy_l / %d;", P->tk / w, w, x, P->tk / w);
    else out(G, "const int %s = cy_l %% %d * %d, cy_kk = cy_l / %d;", x, W / w, w, W / w);
}

/* Stores run cy_l's w values (src: a format of the element's number in
 * the run) into its tile. */
static void run_store(OG *G, const IrPlan *P, const IrPlanOperand *o, int q, int w, const char *kb0, const char *src) {
    run_place(G, P, o, w);
    const char *x = o->side ? "cy_jj" : "cy_rr";
    for (int e = 0; e < w; e++)
        out(G, "cy_t%d[%scy_kk%s][%s%s] = %s;", q, kb0, o->gdir == 2 ? FMT(" + %d", e) : "", x,
            o->gdir == 2 ? "" : FMT(" + %d", e), FMT(src, e));
}

/* The loop variables i, j, k of a tiled kernel, the code that sets each
 * for the element at cy_oi, cy_ij, cy_ok, and what at_iter needs for j and
 * k at other coordinates. */
typedef struct {
    const char *iv, *jv, *kv, *ix_e, *jx_e, *kx_e;
    int use_index;
    const char *ja, *ka;
    int64_t js, ks;
} RunVars;

/* The copy of operand q's next tile in runs of w elements: a run whose
 * elements are all in range, adjacent in memory and 16-byte aligned is
 * one vector load (the kernel checks each run: a view's strides and
 * offset are the call's), any other one element by element as before.
 * With prefetch the values go to registers cy_g, else to the tile. */
static void run_load(OG *G, IrRegion *R, const IrPlan *P, const IrPlanOperand *o, int q, int w, const char *k1, int pf,
                     const char *kb0, const char *val, const RunVars *v) {
    int W = o->side ? P->local[0] * P->reg[0] : P->local[1] * P->reg[1], NT = P->local[0] * P->local[1];
    const char *T = oty(G, o->elem->ty, o->elem->pos);
    int d = G->e.ind;
    /* the run's coordinate along its direction, its bound, the variable
       that follows it and that variable at a coordinate */
    const char *xc = o->gdir == 2 ? "cy_ok" : o->side ? "cy_ij" : "cy_oi";
    const char *xn = o->gdir == 2 ? "cy_K" : o->side ? "cy_m" : "cy_n";
    const char *xv = o->gdir == 2 ? v->kv : o->side ? v->jv : v->iv;
    out(G, "#pragma unroll");
    out(G, "for (int cy_u = 0; cy_u < %d; cy_u++) {", P->tk * W / (w * NT));
    G->e.ind = d + 1;
    out(G, "const int cy_l = cy_tid + cy_u * %d;", NT);
    run_place(G, P, o, w);
    if (!o->side) out(G, "const long cy_oi = cy_i0 + cy_rr, cy_ok = %s + cy_kk;", k1);
    else out(G, "const long cy_ij = cy_j0 + cy_jj, cy_ok = %s + cy_kk;", k1);
    out(G, "%s cy_v[%d];", T, w);
    out(G, "int cy_vd = 0;");
    out(G, "if (%s < %s && %s < %s) {", o->side ? "cy_ij" : "cy_oi", o->side ? "cy_m" : "cy_n", "cy_ok", "cy_K");
    G->e.ind = d + 2;
    out(G, "if (%s + %d < %s) {", xc, w - 1, xn);
    G->e.ind = d + 3;
    if (!o->side && v->use_index) out(G, "%s = %s;", v->iv, v->ix_e);
    if (o->side) out(G, "%s = %s;", v->jv, v->jx_e);
    out(G, "%s = %s;", v->kv, v->kx_e);
    out(G, "const __global %s *const cy_q = &%s;", T, val);
    out(G, "int cy_adj = ((ulong)cy_q & 15) == 0;");
    for (int e = 1; e < w; e++) {
        const char *at = FMT("(%s + %d)", xc, e);
        out(G, "%s = %s;", xv,
            o->gdir == 2 ? at_iter(G, P->kloop->var, P->kloop->start, v->ka, v->ks, at)
            : o->side    ? at_iter(G, P->jloop->var, P->jloop->start, v->ja, v->js, at)
                         : index_at(G, R, at));
        out(G, "cy_adj &= &%s == cy_q + %d;", val, e);
    }
    out(G, "if (cy_adj) {");
    out(G, "    const %s%d cy_w = *(const __global %s%d *)cy_q;", T, w, T, w);
    for (int e = 0; e < w; e++) out(G, "    cy_v[%d] = cy_w.s%d;", e, e);
    out(G, "    cy_vd = 1;");
    out(G, "}");
    G->e.ind = d + 2;
    out(G, "}");
    G->e.ind = d + 1;
    out(G, "}");
    out(G, "if (!cy_vd) {");
    G->e.ind = d + 2;
    out(G, "#pragma unroll");
    out(G, "for (int cy_e = 0; cy_e < %d; cy_e++) {", w);
    G->e.ind = d + 3;
    out(G, "const long %s = %s + cy_e;", o->gdir == 2 ? "cy_ok" : o->side ? "cy_ij" : "cy_oi",
        o->gdir == 2 ? FMT("%s + cy_kk", k1) : o->side ? "cy_j0 + cy_jj" : "cy_i0 + cy_rr");
    out(G, "%s cy_x = 0;", T);
    out(G, "if (%s < %s && cy_ok < cy_K) {", o->side ? "cy_ij" : "cy_oi", o->side ? "cy_m" : "cy_n");
    G->e.ind = d + 4;
    if (!o->side && v->use_index) out(G, "%s = %s;", v->iv, v->ix_e);
    if (o->side) out(G, "%s = %s;", v->jv, v->jx_e);
    out(G, "%s = %s;", v->kv, v->kx_e);
    out(G, "cy_x = %s;", val);
    G->e.ind = d + 3;
    out(G, "}");
    out(G, "cy_v[cy_e] = cy_x;");
    G->e.ind = d + 2;
    out(G, "}");
    G->e.ind = d + 1;
    out(G, "}");
    if (pf) {
        for (int e = 0; e < w; e++) out(G, "cy_g%d[cy_u * %d + %d] = cy_v[%d];", q, w, e, e);
    } else {
        out(G, "{");
        G->e.ind = d + 2;
        run_store(G, P, o, q, w, kb0, "cy_v[%d]");
        G->e.ind = d + 1;
        out(G, "}");
    }
    G->e.ind = d;
    out(G, "}");
}

/* PLAN_TILE2D (ir/plan.c): everything after cy_m, at indentation 1.  A
 * work-group of LX x LY work-items computes the BM x BN elements from
 * (cy_i0, cy_j0); work-item (lx, ly) the elements (ly + r*LY, lx + c*LX),
 * so that neighbours in a warp take neighbouring j.  The k-loop runs in
 * tiles of TK: each operand's tile is copied into local memory, then every
 * element takes its updates in increasing k, as the serial loop would.
 * An element whose pre fails or continues is marked in cy_skip; an
 * operand out of bounds marks its tile's row (cy_badr) or column (cy_badc):
 * those elements run no post, as the 1-D kernel's iteration would stop. */
static void tile2d_body(OG *G, IrRegion *R, const IrPlan *P, const char *ja, int64_t js, int use_index) {
    IrStmt *J = P->jloop, *K = P->kloop;
    int LX = P->local[0], LY = P->local[1], RN = P->reg[0], RM = P->reg[1], TK = P->tk;
    int BN = LX * RN, BM = LY * RM, NT = LX * LY, db = P->prefetch && P->dbuf;
    const char *kb0 = db ? "cy_kb + " : "";
    int64_t ks = 1;
    if (K->step) cy_const_int(K->step, &ks);
    int ind = G->e.ind;
    Cap cap;
    cap_begin(G, &cap, 1);
    const char *ka = gen(G, K->start), *kb = gen(G, K->stop);
    if (*cap_end(G, &cap)) internal(G, K->pos, "the bounds of a planned loop need code");
    G->e.ind = ind;
    CyVec pre = {0}, post = {0};
    for (int i = 0; i < J->body.len; i++)
        if (i != P->kpos) cy_vec_push(G->a, i < P->kpos ? &pre : &post, J->body.items[i]);
    const char *iv = R->index->cname, *jv = J->var->cname, *kv = K->var->cname;
    const char *ix_e = index_at(G, R, "cy_oi"), *jx_e = at_iter(G, J->var, J->start, ja, js, "cy_ij");
    const char *kx_e = at_iter(G, K->var, K->start, ka, ks, "cy_ok");

    /* the code first: what can fail decides the flags around it */
    int pre_skip, post_next, bad[2] = {0, 0};
    const char *pre_s = element_text(G, &pre, "cy_pskip", 4, &pre_skip);
    const char *post_s = element_text(G, &post, "cy_next", 4, &post_next);
    int *gw = cy_alloc(G->a, (size_t)(P->operands.len + 1) * sizeof *gw);
    const char **stage = cy_alloc(G->a, (size_t)(P->operands.len + 1) * sizeof *stage);
    const char **stage_v = cy_alloc(G->a, (size_t)(P->operands.len + 1) * sizeof *stage_v);
    int *stage_f = cy_alloc(G->a, (size_t)(P->operands.len + 1) * sizeof *stage_f);
    for (int q = 0; q < P->operands.len; q++) {
        IrPlanOperand *o = P->operands.items[q];
        if (o->twin >= 0) continue;
        cap_begin(G, &cap, 4);
        G->next_label = FMT("cy_sf%d", q);
        G->next_used = 0;
        stage_v[q] = gen(G, o->elem);
        stage_f[q] = G->next_used;
        bad[o->side] |= G->next_used;
        G->next_used = 0;
        G->next_label = "cy_next";
        stage[q] = cap_end(G, &cap);
        /* a run as one load needs the element's address alone, no code */
        gw[q] = !*stage[q] && !stage_f[q] ? cy_ir_plan_gvec(P, o) : 0;
    }
    G->e.ind = ind;

    out(G, "if (cy_m <= 0 || cy_n <= 0) return; /* the same in the whole work-group */");
    out(G, "const long cy_K = %s;", trip(G, K->start, K->var, ka, kb, ks));
    out(G, "const int cy_lx = get_local_id(0), cy_ly = get_local_id(1), cy_tid = cy_ly * %d + cy_lx;", LX);
    out(G, "const long cy_i0 = (long)get_group_id(1) * %d, cy_j0 = (long)get_group_id(0) * %d;", BM, BN);
    for (int q = 0; q < P->operands.len; q++) {
        IrPlanOperand *o = P->operands.items[q];
        if (o->twin >= 0) continue;
        const char *T = oty(G, o->elem->ty, o->elem->pos);
        int W = o->side ? BN : BM + P->pad, w = vec_width(P, o);
        /* double-buffered: the two copies one after the other, rows cy_kb.. */
        if (w == 1) {
            out(G, "__local %s cy_t%d[%d][%d]; /* %s tile of %s */", T, q, TK * (db + 1), W, o->side ? "column" : "row",
                o->elem->args[0]->var->name);
        } else {
            /* declared as vectors for their alignment (an attribute is not
               honoured everywhere), used as scalars */
            out(G, "__local %s%d cy_t%dv[%d][%d]; /* %s tile of %s */", T, w, q, TK * (db + 1), W / w,
                o->side ? "column" : "row", o->elem->args[0]->var->name);
            out(G, "__local %s (*const cy_t%d)[%d] = (__local %s (*)[%d])cy_t%dv;", T, q, W, T, W, q);
        }
    }
    if (bad[0]) out(G, "__local int cy_badr[%d]; /* an operand of this row was out of bounds */", BM);
    if (bad[1]) out(G, "__local int cy_badc[%d];", BN);
    if (bad[0]) out(G, "for (int cy_l = cy_tid; cy_l < %d; cy_l += %d) cy_badr[cy_l] = 0;", BM, NT);
    if (bad[1]) out(G, "for (int cy_l = cy_tid; cy_l < %d; cy_l += %d) cy_badc[cy_l] = 0;", BN, NT);
    if (bad[0] || bad[1]) out(G, "barrier(CLK_LOCAL_MEM_FENCE);");
    if (pre_skip) out(G, "ulong cy_skip = 0; /* elements whose pre failed or continued */");
    for (int q = 0; q < P->reds.len; q++) {
        IrLoopRed *x = P->reds.items[q];
        out(G, "%s cy_a%d[%d][%d]; /* %s of each element */", oty(G, x->var->ty, x->var->pos), q, RM, RN, x->var->name);
    }
    /* pre, element by element */
    open_elements(G, RM, RN);
    element_head(G, P, use_index ? iv : NULL, ix_e, jv, jx_e);
    put(G, pre_s);
    if (pre_skip) out(G, "if (0) { cy_pskip: cy_skip |= (ulong)1 << (cy_r * %d + cy_c); }", RN);
    G->e.ind = 3;
    out(G, "}");
    for (int q = 0; q < P->reds.len; q++)
        out(G, "cy_a%d[cy_r][cy_c] = %s;", q, ((IrLoopRed *)P->reds.items[q])->var->cname);
    G->e.ind = 1;
    out(G, "    }");
    out(G, "}");
    /* the reduction loop, tile by tile; with prefetch, the next tile's
       elements are loaded into registers while this one is computed */
    int pf = P->prefetch, ci = pf ? 3 : 2;
    if (db) out(G, "int cy_kb = 0; /* the first row of the copy this tile uses */");
    if (pf)
        for (int q = 0; q < P->operands.len; q++) {
            IrPlanOperand *o = P->operands.items[q];
            if (o->twin >= 0) continue;
            out(G, "%s cy_g%d[%d];", oty(G, o->elem->ty, o->elem->pos), q, TK * (o->side ? BN : BM) / NT);
        }
    out(G, pf ? "for (long cy_k0 = -%d; cy_k0 < cy_K; cy_k0 += %d) {" : "for (long cy_k0 = 0; cy_k0 < cy_K; cy_k0 += %d) {",
        TK, TK);
    G->e.ind = 2;
    if (pf) {
        out(G, "if (cy_k0 >= 0) {");
        G->e.ind = 3;
        for (int q = 0; q < P->operands.len; q++) {
            IrPlanOperand *o = P->operands.items[q];
            if (o->twin >= 0) continue;
            out(G, "#pragma unroll");
            out(G, "for (int cy_u = 0; cy_u < %d; cy_u++) {", TK * (o->side ? BN : BM) / NT / (gw[q] ? gw[q] : 1));
            G->e.ind = 4;
            out(G, "const int cy_l = cy_tid + cy_u * %d;", NT);
            if (gw[q]) run_store(G, P, o, q, gw[q], kb0, FMT("cy_g%d[cy_u * %d + %%d]", q, gw[q]));
            else if (!o->side) out(G, "cy_t%d[%scy_l %% %d][cy_l / %d] = cy_g%d[cy_u];", q, kb0, TK, TK, q);
            else out(G, "cy_t%d[%scy_l / %d][cy_l %% %d] = cy_g%d[cy_u];", q, kb0, BN, BN, q);
            G->e.ind = 3;
            out(G, "}");
        }
        out(G, "barrier(CLK_LOCAL_MEM_FENCE);");
        G->e.ind = 2;
        out(G, "}");
        out(G, "if (cy_k0 + %d < cy_K) {", TK);
        G->e.ind = 3;
    }
    const char *k1 = pf ? FMT("cy_k0 + %d", TK) : "cy_k0";
    for (int q = 0; q < P->operands.len; q++) {
        IrPlanOperand *o = P->operands.items[q];
        if (o->twin >= 0) continue;
        const char *T = oty(G, o->elem->ty, o->elem->pos);
        int d = G->e.ind;
        if (gw[q]) {
            RunVars rv = {iv, jv, kv, ix_e, jx_e, kx_e, use_index, ja, ka, js, ks};
            run_load(G, R, P, o, q, gw[q], k1, pf, kb0, stage_v[q], &rv);
            continue;
        }
        if (pf) {
            out(G, "#pragma unroll");
            out(G, "for (int cy_u = 0; cy_u < %d; cy_u++) {", TK * (o->side ? BN : BM) / NT);
            G->e.ind = d + 1;
            out(G, "const int cy_l = cy_tid + cy_u * %d;", NT);
        } else {
            out(G, "for (int cy_l = cy_tid; cy_l < %d; cy_l += %d) {", TK * (o->side ? BN : BM), NT);
            G->e.ind = d + 1;
        }
        if (!o->side) {
            out(G, "const int cy_kk = cy_l %% %d, cy_rr = cy_l / %d;", TK, TK);
            out(G, "const long cy_oi = cy_i0 + cy_rr, cy_ok = %s + cy_kk;", k1);
            out(G, "%s cy_v = 0;", T);
            out(G, "if (cy_oi < cy_n && cy_ok < cy_K) {");
        } else {
            out(G, "const int cy_jj = cy_l %% %d, cy_kk = cy_l / %d;", BN, BN);
            out(G, "const long cy_ij = cy_j0 + cy_jj, cy_ok = %s + cy_kk;", k1);
            out(G, "%s cy_v = 0;", T);
            out(G, "if (cy_ij < cy_m && cy_ok < cy_K) {");
        }
        G->e.ind = d + 2;
        if (!o->side && use_index) out(G, "%s = %s;", iv, ix_e);
        if (o->side) out(G, "%s = %s;", jv, jx_e);
        out(G, "%s = %s;", kv, kx_e);
        if (*stage[q]) {
            /* made at indentation 4 */
            CyEmit e0 = G->e;
            G->e.ind = 0;
            for (const char *l = stage[q]; *l;) {
                const char *e = strchr(l, '\n');
                size_t n = e ? (size_t)(e - l) : strlen(l);
                while (n && *l == ' ') l++, n--;
                out(G, "%*s%.*s", 4 * (d + 2), "", (int)n, l);
                l += n + (e != NULL);
            }
            G->e = e0;
        }
        out(G, "cy_v = %s;", stage_v[q]);
        if (stage_f[q]) out(G, "if (0) { cy_sf%d: %s = 1; }", q, o->side ? "cy_badc[cy_jj]" : "cy_badr[cy_rr]");
        G->e.ind = d + 1;
        out(G, "}");
        if (pf) out(G, "cy_g%d[cy_u] = cy_v;", q);
        else out(G, "cy_t%d[cy_kk][%s] = cy_v;", q, o->side ? "cy_jj" : "cy_rr");
        G->e.ind = d;
        out(G, "}");
    }
    if (pf) {
        G->e.ind = 2;
        out(G, "}");
        out(G, "if (cy_k0 >= 0) {");
        G->e.ind = 3;
    } else {
        out(G, "barrier(CLK_LOCAL_MEM_FENCE);");
    }
    /* the updates, each element's in increasing k; the operands of a k in
       registers first */
    CyBuf upd = {0};
    CyBuf *saved = G->e.out;
    G->e.out = &upd;
    G->e.ind = ci + 2;
    IrScan sk = {0};
    for (int q = 0; q < P->operands.len; q++) {
        IrPlanOperand *o = P->operands.items[q];
        if (o->twin >= 0) { /* reads its twin's registers */
            cy_vec_push(G->a, &G->subst, o->elem);
            cy_vec_push(G->a, &G->subst, (void *)FMT("cy_p%d[%s]", o->twin, o->side ? "cy_c" : "cy_r"));
            continue;
        }
        int n = o->side ? RN : RM, V = P->vec[o->side ? 0 : 1], L = o->side ? LX : LY;
        const char *rc = o->side ? "cy_c" : "cy_r", *lv = o->side ? "cy_lx" : "cy_ly";
        const char *T = oty(G, o->elem->ty, o->elem->pos);
        int w = vec_width(P, o);
        out(G, "%s cy_p%d[%d];", T, q, n);
        out(G, "#pragma unroll");
        if (w == 1) {
            out(G, "for (int %s = 0; %s < %d; %s++) cy_p%d[%s] = cy_t%d[%scy_kk][%s];", rc, rc, n, rc, q, rc, q, kb0,
                owned(G, lv, rc, L, V));
        } else {
            out(G, "for (int cy_e = 0; cy_e < %d; cy_e += %d) {", n, w);
            out(G, "    const %s%d cy_w = *(const __local %s%d *)&cy_t%d[%scy_kk][%s];", T, w, T, w, q, kb0,
                owned(G, lv, "cy_e", L, V));
            for (int e = 0; e < w; e++) out(G, "    cy_p%d[cy_e + %d] = cy_w.s%d;", q, e, e);
            out(G, "}");
        }
        cy_vec_push(G->a, &G->subst, o->elem);
        cy_vec_push(G->a, &G->subst, (void *)FMT("cy_p%d[%s]", q, rc));
    }
    open_elements(G, RM, RN);
    G->e.ind = ci + 4;
    for (int q = 0; q < P->reds.len; q++)
        out(G, "%s = cy_a%d[cy_r][cy_c];", ((IrLoopRed *)P->reds.items[q])->var->cname, q);
    CyBuf kb2 = {0};
    G->e.out = &kb2;
    gen_stmts(G, &K->body);
    G->e.out = &upd;
    /* k itself only where an update reads it other than in an operand */
    (void)sk;
    if (kb2.s && strstr(kb2.s, kv)) {
        CyBuf t = {0};
        CyEmit e0 = G->e;
        G->e.out = &t;
        G->e.ind = ci + 4;
        out(G, "%s = %s;", kv, at_iter(G, K->var, K->start, ka, ks, "(cy_k0 + cy_kk)"));
        G->e = e0;
        put(G, t.s);
        cy_buf_free(&t);
    }
    put(G, kb2.s ? kb2.s : "");
    cy_buf_free(&kb2);
    for (int q = 0; q < P->reds.len; q++)
        out(G, "cy_a%d[cy_r][cy_c] = %s;", q, ((IrLoopRed *)P->reds.items[q])->var->cname);
    G->e.ind = ci + 2;
    out(G, "    }");
    out(G, "}");
    G->subst.len = 0;
    G->e.out = saved;
    G->e.ind = ci;
    out(G, "if (cy_K - cy_k0 >= %d) {", TK);
    out(G, "    #pragma unroll");
    out(G, "    for (int cy_kk = 0; cy_kk < %d; cy_kk++) {", TK);
    put(G, upd.s);
    out(G, "    }");
    out(G, "} else {");
    out(G, "    for (int cy_kk = 0; cy_kk < (int)(cy_K - cy_k0); cy_kk++) {");
    put(G, upd.s);
    out(G, "    }");
    out(G, "}");
    cy_buf_free(&upd);
    /* double-buffered: the next tile goes into the other copy, which every
       work-item finished reading before the barrier after this tile's copy */
    if (db) out(G, "cy_kb ^= %d;", TK);
    else out(G, "barrier(CLK_LOCAL_MEM_FENCE);");
    if (pf) {
        G->e.ind = 2;
        out(G, "}");
    }
    G->e.ind = 1;
    out(G, "}");
    /* post, element by element, with k at its last value */
    out(G, "if (cy_K > 0) %s = %s;", kv, at_iter(G, K->var, K->start, ka, ks, "(cy_K - 1)"));
    open_elements(G, RM, RN);
    element_head(G, P, use_index ? iv : NULL, ix_e, jv, jx_e);
    for (int q = 0; q < P->reds.len; q++)
        out(G, "%s = cy_a%d[cy_r][cy_c];", ((IrLoopRed *)P->reds.items[q])->var->cname, q);
    int skip = bad[0] || bad[1] || pre_skip;
    if (skip) {
        out(G, "if (%s%s%s%s%s) {", bad[0] ? FMT("!cy_badr[%s]", owned(G, "cy_ly", "cy_r", LY, P->vec[1])) : "", bad[0] && bad[1] ? " && " : "",
            bad[1] ? FMT("!cy_badc[%s]", owned(G, "cy_lx", "cy_c", LX, P->vec[0])) : "", (bad[0] || bad[1]) && pre_skip ? " && " : "",
            pre_skip ? FMT("!(cy_skip >> (cy_r * %d + cy_c) & 1)", RN) : "");
        G->e.ind = 5;
        if (post_s && *post_s) {
            /* post's text was made at indentation 4 */
            CyBuf t = {0};
            for (const char *l = post_s; *l;) {
                const char *e = strchr(l, '\n');
                size_t n = e ? (size_t)(e - l + 1) : strlen(l);
                cy_buf_puts(&t, "    ");
                cy_buf_put(&t, l, n);
                l += n;
            }
            put(G, t.s);
            cy_buf_free(&t);
        }
        G->e.ind = 4;
        out(G, "}");
    } else {
        put(G, post_s);
    }
    if (post_next) out(G, "cy_next: ;");
    if (G->lastp.len) {
        out(G, "if (cy_oi == cy_n - 1 && cy_ij == cy_m - 1) {");
        G->e.ind++;
        for (int i = 0; i < G->lastp.len; i++) out(G, "%s = %s;", last_slot(G, i, 0), ((IrVar *)G->lastp.items[i])->cname);
        G->e.ind--;
        out(G, "}");
    }
    G->e.ind = 3;
    out(G, "}");
    G->e.ind = 1;
    out(G, "    }");
    out(G, "}");
}

/* The kernel of region R named name; L: the range() loop it runs as one
 * iteration space with the prange (R->collapse), or NULL to keep every
 * loop in the body serial; P: a PLAN_TILE2D schedule for it, or NULL. */
static void emit_kernel(OG *G, IrRegion *R, const IrPlan *P, IrStmt *L, const char *name, CyBuf *dst) {
    IrStmt *x = R->func ? cy_ir_region_stmt(&R->func->body, R) : NULL;
    if (!x) {
        internal(G, R->pos, "region without its statement");
        return;
    }
    G->R = R;
    G->fn = NULL;
    G->nid = 0;
    G->loop = NULL;
    G->next_used = 0;
    G->next_label = "cy_next";
    G->params.len = G->nonneg.len = G->lastp.len = 0;
    G->nred = 0;

    IrScan sc = {0};
    cy_ir_scan(G->a, &sc, &x->body);
    CyVec taken = {0};
    for (int i = 0; i < sc.used.len; i++) cy_vec_push(G->a, &taken, (void *)((IrVar *)sc.used.items[i])->cname);
    for (int i = 0; i < R->args.len; i++) {
        IrRegionArg *ra = R->args.items[i];
        Param *p = cy_alloc(G->a, sizeof *p);
        p->var = ra->var;
        p->pfx = pick_pfx(G, ra->var, &taken);
        cy_vec_push(G->a, &G->params, p);
        if (ra->kind == RA_LASTPRIVATE) cy_vec_push(G->a, &G->lastp, ra->var);
        if (ra->kind == RA_REDUCTION) G->nred++;
    }
    /* variables that never go negative need no wraparound: the prange
       index counting up from >= 0, range() counters from >= 0 upwards
       (each only when nothing else assigns it) */
    int64_t st0, stp = 1;
    if (cy_const_int(R->start, &st0) && st0 >= 0 && (!R->step || (cy_const_int(R->step, &stp) && stp > 0)) &&
        !vec_has(&sc.assigned, R->index) && !vec_has(&sc.ranged, R->index))
        vec_add(G, &G->nonneg, R->index);
    for (int i = 0; i < sc.ranged.len; i++) {
        IrVar *v = sc.ranged.items[i];
        if (!vec_has(&sc.assigned, v) && v != R->index) vec_add(G, &G->nonneg, v);
    }

    /* the inner loop of a collapsed nest: its bounds need no code of
       their own (nest.c), they are computed once, before the loop */
    const char *ja = NULL, *jb = NULL;
    int64_t js = 1;
    if (L) {
        Cap cap;
        cap_begin(G, &cap, 1);
        ja = gen(G, L->start);
        jb = gen(G, L->stop);
        if (L->step) cy_const_int(L->step, &js);
        if (*cap_end(G, &cap)) internal(G, L->pos, "the bounds of a collapsed loop need code");
    }

    /* the body first: what it uses decides what to emit around it */
    CyBuf body = {0}, body2 = {0};
    int next2 = 0;
    G->e.out = &body;
    if (P) {
        G->e.ind = 1;
        tile2d_body(G, R, P, ja, js, vec_has(&sc.used, R->index));
    } else {
        G->e.ind = 2;
        gen_stmts(G, L ? &L->body : &x->body);
    }
    /* a collapsed nest without reductions may run on a 2-D grid that
       covers it (the runtime's choice on GPUs): a second copy of the body
       for that, a work-item per (i, j) pair and no loop around it */
    int grid2 = L && !P && !G->nred;
    if (grid2) {
        int used1 = G->next_used;
        G->e.out = &body2;
        G->e.ind = 3;
        G->next_used = 0;
        G->next_label = "cy_next2";
        gen_stmts(G, &L->body);
        next2 = G->next_used;
        G->next_used = used1;
        G->next_label = "cy_next";
    }

    CyBuf *o = dst;
    G->e.out = o;
    G->e.ind = 0;
    const char *fname = R->func ? (R->func->spec_name ? R->func->spec_name : R->func->name) : "<module>";
    out(G, "/* region %d: prange in %s(), %s:%d%s */", R->id, fname, G->m->src ? G->m->src->name : "?", R->pos.line,
        R->collapse && !L ? "; the range() loop stays serial (for views that overlap)" : "");
    const char *lead = P ? FMT("__kernel __attribute__((reqd_work_group_size(%d, %d, 1))) void %s(", P->local[0],
                               P->local[1], name)
                         : FMT("__kernel void %s(", name);
    size_t w = strlen(lead);
    out(G, "%sconst long cy_start, const long cy_step, const long cy_n,", lead);
    CyVec decls = {0}; /* private variables: IrVar* */
    CyVec arrdecls = {0}; /* const char*: the arrays passed by value */
    for (int i = 0; i < R->args.len; i++) {
        IrRegionArg *ra = R->args.items[i];
        IrVar *v = ra->var;
        const char *p = ((Param *)G->params.items[i])->pfx;
        CyBuf b = {0};
        if (ra->kind == RA_VIEW) {
            const CyType *vt = v->ty;
            cy_buf_printf(&b, "%s__global %s *%s_base, const long %s_off", ra->written ? "" : "const ",
                          oty(G, vt->base, v->pos), p, p);
            for (int k = 0; k < vt->ndim; k++) cy_buf_printf(&b, ", const long %s_s%d", p, k);
            for (int k = 0; k < vt->ndim; k++) cy_buf_printf(&b, ", const long %s_n%d", p, k);
        } else if (ra->kind == RA_SCALAR && v->ty->kind == TY_ARRAY) {
            /* a C array the iterations read: passed by value as a struct
               (the host's array has its layout), read through a pointer */
            const CyType *sc = cy_type_array_scalar(v->ty);
            cy_buf_printf(&b, "const struct %s_t { %s a%s; } %s_val", p, oty(G, sc, v->pos), v->ty->name + strlen(sc->name), p);
            const char *inner = v->ty->base->kind == TY_ARRAY ? v->ty->base->name + strlen(sc->name) : "";
            cy_vec_push(G->a, &arrdecls, (void *)(*inner ? FMT("const %s (*%s)%s = %s_val.a;", oty(G, sc, v->pos), v->cname, inner, p)
                                                         : FMT("const %s *%s = %s_val.a;", oty(G, sc, v->pos), v->cname, p)));
        } else if (ra->kind == RA_SCALAR) {
            cy_buf_printf(&b, "const %s %s", oty(G, v->ty, v->pos), v->cname);
        } else if (ra->kind == RA_REDUCTION) {
            const char *T = oty(G, v->ty, v->pos);
            cy_buf_printf(&b, "__global %s *%s_part, __local %s *%s_loc", T, p, T, p);
        } else {
            continue; /* a slot in cy_err */
        }
        out(G, "%*s%s,", (int)w, "", b.s);
        cy_buf_free(&b);
    }
    out(G, "%*s__global int *cy_err)", (int)w, "");
    out(G, "{");
    G->e.ind = 1;
    if (G->nred) out(G, "__local int cy_lastg; /* this group finished last (reductions) */");
    /* private copies: the index, lastprivates, reductions (at the
       operator's identity), anything else the body assigns */
    for (int i = 0; i < arrdecls.len; i++) out(G, "%s", (const char *)arrdecls.items[i]);
    int use_index = vec_has(&sc.used, R->index);
    if (use_index) vec_add(G, &decls, R->index);
    for (int i = 0; i < sc.used.len; i++) {
        IrVar *v = sc.used.items[i];
        int is_arg = 0;
        for (int k = 0; k < R->args.len; k++) {
            IrRegionArg *ra = R->args.items[k];
            if (ra->var == v && (ra->kind == RA_VIEW || ra->kind == RA_SCALAR)) is_arg = 1;
        }
        if (!is_arg && v->ty->kind != TY_VIEW) vec_add(G, &decls, v);
    }
    for (int i = 0; i < decls.len; i++) {
        IrVar *v = decls.items[i];
        IrOp rop;
        const char *init = is_reduction(G, v, &rop) ? identity(G, rop, v->ty) : "0";
        /* Cython's lastprivates are also firstprivate: an iteration n - 1
           that does not assign one leaves the value from before the loop.
           The runtime put that value in both slots; slot 1 changes only on
           a break, after which slot 0 is not used */
        for (int k = 0; k < G->lastp.len; k++)
            if (G->lastp.items[k] == v) init = last_slot(G, k, 1);
        out(G, "%s;", odecl(G, v, init));
    }
    const char *it = "cy_it";
    if (L) {
        if (!P) {
            out(G, "/* the prange and the range() loop in it as one iteration space of cy_n * cy_m");
            out(G, "   (i, j) pairs, consecutive work-items taking consecutive j: a 2-D grid (i along");
            out(G, "   dimension 1) or, for reductions and CPU devices, a 1-D walk */");
        }
        out(G, "const long cy_m = %s;", trip(G, L->start, L->var, ja, jb, js));
        if (P) {
            put(G, body.s ? body.s : "");
            cy_buf_free(&body);
            G->e.ind = 0;
            out(G, "}");
            return;
        }
        /* launched in 2-D (GPUs without reductions; the runtime's choice,
           and its grid covers the nest), dimension 0 takes j and 1 the
           prange: a work-item per pair, no division and no loop (H100,
           jacobi 4096^2 x 200 sweeps back to back: 20.58 ms, clref's kernel
           20.52; 20.86 with a grid-stride loop around the body, 22.1 with
           the 1-D walk; bench/jacobi_kernels.c); in 1-D (reductions, CPU devices, grids past the
           2-D limits), the walk over the flattened space */
        if (grid2) {
            out(G, "if (get_work_dim() == 2) { /* the same in the whole grid */");
            out(G, "    const long cy_oi = get_global_id(1), cy_ij = get_global_id(0);");
            out(G, "    if (cy_oi < cy_n && cy_ij < cy_m) {");
            G->e.ind = 3;
            if (use_index) out(G, "%s = %s;", R->index->cname, index_at(G, R, "cy_oi"));
            out(G, "%s = %s;", L->var->cname, at_iter(G, L->var, L->start, ja, js, "cy_ij"));
            put(G, body2.s ? body2.s : "");
            if (next2) out(G, "cy_next2: ;");
            if (G->lastp.len) {
                out(G, "if (cy_oi == cy_n - 1 && cy_ij == cy_m - 1) {");
                for (int i = 0; i < G->lastp.len; i++)
                    out(G, "    %s = %s;", last_slot(G, i, 0), ((IrVar *)G->lastp.items[i])->cname);
                out(G, "}");
            }
            G->e.ind = 1;
            out(G, "    }");
            out(G, "    return;");
            out(G, "}");
        }
        cy_buf_free(&body2);
        out(G, "long cy_oi = cy_n, cy_ij = 0, cy_dq = 0, cy_dr = 0;");
        out(G, "if (cy_m > 0) {");
        out(G, "    const long cy_total = cy_n * cy_m, cy_gs = get_global_size(0), cy_it = get_global_id(0);");
        out(G, "    if (cy_total <= 0x7fffffffL && cy_gs <= 0x7fffffffL) {");
        out(G, "        cy_oi = (uint)cy_it / (uint)cy_m; /* far cheaper than 64-bit division on GPUs */");
        out(G, "        cy_dq = (uint)cy_gs / (uint)cy_m;");
        out(G, "    } else {");
        out(G, "        cy_oi = cy_it / cy_m;");
        out(G, "        cy_dq = cy_gs / cy_m;");
        out(G, "    }");
        out(G, "    cy_ij = cy_it - cy_oi * cy_m;");
        out(G, "    cy_dr = cy_gs - cy_dq * cy_m;");
        out(G, "}");
        out(G, "while (cy_oi < cy_n) {");
        it = "cy_oi";
    } else {
        out(G, "for (long cy_it = get_global_id(0); cy_it < cy_n; cy_it += get_global_size(0)) {");
    }
    G->e.ind = 2;
    if (R->has_break) out(G, "if (*(volatile __global int *)cy_err != 0) break;");
    if (use_index) out(G, "%s = %s;", R->index->cname, index_at(G, R, it));
    if (L) out(G, "%s = %s;", L->var->cname, at_iter(G, L->var, L->start, ja, js, "cy_ij"));
    put(G, body.s ? body.s : "");
    cy_buf_free(&body);
    if (G->next_used) out(G, "cy_next: ;");
    if (G->lastp.len) {
        if (L) out(G, "if (cy_oi == cy_n - 1 && cy_ij == cy_m - 1) {");
        else out(G, "if (cy_it == cy_n - 1) {");
        G->e.ind++;
        for (int i = 0; i < G->lastp.len; i++) out(G, "%s = %s;", last_slot(G, i, 0), ((IrVar *)G->lastp.items[i])->cname);
        G->e.ind--;
        out(G, "}");
    }
    if (L) {
        out(G, "cy_ij += cy_dr;");
        out(G, "cy_oi += cy_dq;");
        out(G, "if (cy_ij >= cy_m) {");
        out(G, "    cy_ij -= cy_m;");
        out(G, "    cy_oi++;");
        out(G, "}");
    }
    G->e.ind = 1;
    out(G, "}");
    /* reductions: a tree in local memory per work-group (any local size),
       one partial per group; the last group to finish (a counter in
       cy_err[4]) reduces the partials the same way and writes the results
       where the host reads cy_err, so a launch ends with one small read.
       Every work-item reaches the barriers (cy_lastg is the same for the
       whole group). */
    if (G->nred) {
        out(G, "{");
        G->e.ind = 2;
        out(G, "const uint cy_lid = get_local_id(0), cy_ng = get_num_groups(0);");
        for (int i = 0; i < R->args.len; i++) {
            IrRegionArg *ra = R->args.items[i];
            if (ra->kind == RA_REDUCTION) out(G, "%s_loc[cy_lid] = %s;", ((Param *)G->params.items[i])->pfx, ra->var->cname);
        }
        emit_tree(G, R);
        out(G, "if (cy_lid == 0) {");
        G->e.ind = 3;
        for (int i = 0; i < R->args.len; i++) {
            IrRegionArg *ra = R->args.items[i];
            const char *p = ((Param *)G->params.items[i])->pfx;
            if (ra->kind == RA_REDUCTION) out(G, "%s_part[get_group_id(0)] = %s_loc[0];", p, p);
        }
        out(G, "mem_fence(CLK_GLOBAL_MEM_FENCE); /* the partial before the count */");
        out(G, "cy_lastg = atomic_inc((volatile __global int *)cy_err + 4) == (int)cy_ng - 1;");
        G->e.ind = 2;
        out(G, "}");
        out(G, "barrier(CLK_LOCAL_MEM_FENCE);");
        out(G, "if (cy_lastg) {");
        G->e.ind = 3;
        out(G, "mem_fence(CLK_GLOBAL_MEM_FENCE);");
        for (int i = 0; i < R->args.len; i++) {
            IrRegionArg *ra = R->args.items[i];
            if (ra->kind != RA_REDUCTION) continue;
            const char *p = ((Param *)G->params.items[i])->pfx;
            const char *T = oty(G, ra->var->ty, ra->var->pos);
            out(G, "%s cy_a%d = %s;", T, i, identity(G, ra->redop, ra->var->ty));
            out(G, "for (uint cy_g = cy_lid; cy_g < cy_ng; cy_g += get_local_size(0)) %s",
                combine(G, ra, FMT("cy_a%d", i), FMT("((volatile __global %s *)%s_part)[cy_g]", T, p)));
            out(G, "%s_loc[cy_lid] = cy_a%d;", p, i);
        }
        emit_tree(G, R);
        out(G, "if (cy_lid == 0) {");
        G->e.ind = 4;
        for (int i = 0, k = 0; i < R->args.len; i++) {
            IrRegionArg *ra = R->args.items[i];
            if (ra->kind != RA_REDUCTION) continue;
            out(G, "*(__global %s *)((__global char *)cy_err + %d) = %s_loc[0];", oty(G, ra->var->ty, ra->var->pos),
                32 + 8 * k++, ((Param *)G->params.items[i])->pfx);
        }
        out(G, "cy_err[4] = 0; /* ready for the next launch */");
        G->e.ind = 3;
        out(G, "}");
        G->e.ind = 2;
        out(G, "}");
        G->e.ind = 1;
        out(G, "}");
    }
    G->e.ind = 0;
    out(G, "}");
}

/* ---- helper functions ------------------------------------------------------------------ */

static int helper_fp64(OG *G, IrFunc *f) { return cy_ir_func_uses_fp64(G->a, f); }

static const char *helper_sig(OG *G, IrFunc *f) {
    CyBuf b = {0};
    for (int i = 0; i < f->params.len; i++) {
        IrVar *p = f->params.items[i];
        cy_buf_printf(&b, "%s%s %s", i ? ", " : "", oty(G, p->ty, p->pos), p->cname);
    }
    const char *s = FMT("%s %s(%s)", oty(G, f->ret, f->pos), f->cname, b.len ? b.s : "void");
    cy_buf_free(&b);
    return s;
}

static void emit_helper(OG *G, IrFunc *f, CyBuf *dst) {
    G->R = NULL;
    G->fn = f;
    G->nid = 0;
    G->loop = NULL;
    G->nonneg.len = 0;
    CyBuf body = {0};
    G->e.out = &body;
    G->e.ind = 1;
    gen_stmts(G, &f->body);
    IrStmt *last = f->body.len ? f->body.items[f->body.len - 1] : NULL;
    if (f->ret->kind != TY_VOID && !(last && last->kind == ST_RETURN)) out(G, "return 0;");
    G->e.out = dst;
    G->e.ind = 0;
    out(G, "%s", helper_sig(G, f));
    out(G, "{");
    G->e.ind = 1;
    for (int i = 0; i < f->locals.len; i++) {
        IrVar *v = f->locals.items[i];
        out(G, "%s;", odecl(G, v, "0"));
    }
    put(G, body.s ? body.s : "");
    cy_buf_free(&body);
    G->e.ind = 0;
    out(G, "}");
}

/* ---- support code ------------------------------------------------------------------------ */

static const char SUPPORT_RAISE[] =
    "/* Records error `code` (see the kernel ABI); the first one wins. */\n"
    "void cy_raise(__global int *cy_err, int code, int arg)\n"
    "{\n"
    "    if (atomic_cmpxchg((volatile __global int *)cy_err, 0, code) == 0)\n"
    "        cy_err[1] = arg;\n"
    "}\n";

/* Python's // and % (the callers check b == 0 and MIN // -1 first),
 * exactly as backends/c/prelude.h computes them. */
static const char SUPPORT_FDIV_I[] =
    "int cy_fdiv_i(int a, int b) { int q = a / b, r = a % b; return q - ((r != 0) & ((r ^ b) < 0)); }\n";
static const char SUPPORT_FDIV_L[] =
    "long cy_fdiv_l(long a, long b) { long q = a / b, r = a % b; return q - ((r != 0) & ((r ^ b) < 0)); }\n";
static const char SUPPORT_MOD_I[] =
    "int cy_mod_i(int a, int b)\n"
    "{\n"
    "    if (b == -1) return 0;\n"
    "    int r = a % b;\n"
    "    return r + ((r != 0) & ((r ^ b) < 0)) * b;\n"
    "}\n";
static const char SUPPORT_MOD_L[] =
    "long cy_mod_l(long a, long b)\n"
    "{\n"
    "    if (b == -1) return 0;\n"
    "    long r = a % b;\n"
    "    return r + ((r != 0) & ((r ^ b) < 0)) * b;\n"
    "}\n";
/* C floating // and % as Cython writes them (the prelude's cyrt_fdiv_d ...):
 * floor(a / b) in the operands' type, fmod(a, b) plus 0 or 1 times b */
static const char SUPPORT_MOD_D[] =
    "double cy_mod_d(double a, double b)\n"
    "{\n"
    "    double r = fmod(a, b);\n"
    "    r += ((r != 0) & ((r < 0) ^ (b < 0))) * b;\n"
    "    return r;\n"
    "}\n";
static const char SUPPORT_FDIV_D[] = "double cy_fdiv_d(double a, double b) { return floor(a / b); }\n";
static const char SUPPORT_MOD_F[] =
    "float cy_mod_f(float a, float b)\n"
    "{\n"
    "    float r = fmod(a, b);\n"
    "    r += ((r != 0) & ((r < 0) ^ (b < 0))) * b;\n"
    "    return r;\n"
    "}\n";
static const char SUPPORT_FDIV_F[] = "float cy_fdiv_f(float a, float b) { return floor(a / b); }\n";
/* abs() wrapping like C with -fwrapv: abs(INT_MIN) == INT_MIN */
static const char SUPPORT_ABS_I[] = "int cy_abs_i(int x) { return as_int(x < 0 ? 0u - (uint)x : (uint)x); }\n";
static const char SUPPORT_ABS_L[] = "long cy_abs_l(long x) { return as_long(x < 0 ? (ulong)0 - (ulong)x : (ulong)x); }\n";
static const char SUPPORT_ISINF_D[] = "int cy_isinf_d(double x) { return isinf(x) ? (signbit(x) ? -1 : 1) : 0; }\n";
static const char SUPPORT_ILOGB_D[] =
    "int cy_ilogb_d(double x) { return x == 0.0 || isnan(x) ? INT_MIN : isinf(x) ? INT_MAX : ilogb(x); }\n";
static const char SUPPORT_ILOGB_F[] =
    "int cy_ilogb_f(float x) { return x == 0.0f || isnan(x) ? INT_MIN : isinf(x) ? INT_MAX : ilogb(x); }\n";
static const char SUPPORT_ISINF_F[] = "int cy_isinf_f(float x) { return isinf(x) ? (signbit(x) ? -1 : 1) : 0; }\n";
/* integer power by squaring, wrapping like C arithmetic */
static const char SUPPORT_IPOW_L[] =
    "long cy_ipow_l(long b, long e)\n"
    "{\n"
    "    ulong r = 1, x = (ulong)b;\n"
    "    if (e < 0) return b == 1 ? 1 : b == -1 ? ((e & 1) ? -1 : 1) : 0;\n"
    "    while (e) {\n"
    "        if (e & 1) r *= x;\n"
    "        x *= x;\n"
    "        e >>= 1;\n"
    "    }\n"
    "    return (long)r;\n"
    "}\n";
static const char SUPPORT_IPOW_UL[] =
    "ulong cy_ipow_ul(ulong b, ulong e)\n"
    "{\n"
    "    ulong r = 1;\n"
    "    while (e) {\n"
    "        if (e & 1) r *= b;\n"
    "        b *= b;\n"
    "        e >>= 1;\n"
    "    }\n"
    "    return r;\n"
    "}\n";

/* Complex products and quotients as GCC computes them natively (C99
 * Annex G; -ffp-contract=off on both sides): the product inline, libgcc's
 * __muldc3 only where both parts came out NaN; libgcc's __divdc3 (GCC 12:
 * Smith's method with scaling), and __divsc3, which works in double.  The
 * float versions are those of single precision. */
static const char SUPPORT_CMUL_D[] =
    "double2 cy_cmul_d(double2 z, double2 w)\n"
    "{\n"
    "    double a = z.x, b = z.y, c = w.x, d = w.y, ac = a * c, bd = b * d, ad = a * d, bc = b * c;\n"
    "    double x = ac - bd, y = ad + bc;\n"
    "    if (isnan(x) && isnan(y)) {\n"
    "        int re = 0;\n"
    "        if (isinf(a) || isinf(b)) {\n"
    "            a = copysign(isinf(a) ? 1.0 : 0.0, a);\n"
    "            b = copysign(isinf(b) ? 1.0 : 0.0, b);\n"
    "            if (isnan(c)) c = copysign(0.0, c);\n"
    "            if (isnan(d)) d = copysign(0.0, d);\n"
    "            re = 1;\n"
    "        }\n"
    "        if (isinf(c) || isinf(d)) {\n"
    "            c = copysign(isinf(c) ? 1.0 : 0.0, c);\n"
    "            d = copysign(isinf(d) ? 1.0 : 0.0, d);\n"
    "            if (isnan(a)) a = copysign(0.0, a);\n"
    "            if (isnan(b)) b = copysign(0.0, b);\n"
    "            re = 1;\n"
    "        }\n"
    "        if (!re && (isinf(ac) || isinf(bd) || isinf(ad) || isinf(bc))) {\n"
    "            if (isnan(a)) a = copysign(0.0, a);\n"
    "            if (isnan(b)) b = copysign(0.0, b);\n"
    "            if (isnan(c)) c = copysign(0.0, c);\n"
    "            if (isnan(d)) d = copysign(0.0, d);\n"
    "            re = 1;\n"
    "        }\n"
    "        if (re) {\n"
    "            x = (double)INFINITY * (a * c - b * d);\n"
    "            y = (double)INFINITY * (a * d + b * c);\n"
    "        }\n"
    "    }\n"
    "    return (double2)(x, y);\n"
    "}\n";
static const char SUPPORT_CMUL_F[] =
    "float2 cy_cmul_f(float2 z, float2 w)\n"
    "{\n"
    "    float a = z.x, b = z.y, c = w.x, d = w.y, ac = a * c, bd = b * d, ad = a * d, bc = b * c;\n"
    "    float x = ac - bd, y = ad + bc;\n"
    "    if (isnan(x) && isnan(y)) {\n"
    "        int re = 0;\n"
    "        if (isinf(a) || isinf(b)) {\n"
    "            a = copysign(isinf(a) ? 1.0f : 0.0f, a);\n"
    "            b = copysign(isinf(b) ? 1.0f : 0.0f, b);\n"
    "            if (isnan(c)) c = copysign(0.0f, c);\n"
    "            if (isnan(d)) d = copysign(0.0f, d);\n"
    "            re = 1;\n"
    "        }\n"
    "        if (isinf(c) || isinf(d)) {\n"
    "            c = copysign(isinf(c) ? 1.0f : 0.0f, c);\n"
    "            d = copysign(isinf(d) ? 1.0f : 0.0f, d);\n"
    "            if (isnan(a)) a = copysign(0.0f, a);\n"
    "            if (isnan(b)) b = copysign(0.0f, b);\n"
    "            re = 1;\n"
    "        }\n"
    "        if (!re && (isinf(ac) || isinf(bd) || isinf(ad) || isinf(bc))) {\n"
    "            if (isnan(a)) a = copysign(0.0f, a);\n"
    "            if (isnan(b)) b = copysign(0.0f, b);\n"
    "            if (isnan(c)) c = copysign(0.0f, c);\n"
    "            if (isnan(d)) d = copysign(0.0f, d);\n"
    "            re = 1;\n"
    "        }\n"
    "        if (re) {\n"
    "            x = INFINITY * (a * c - b * d);\n"
    "            y = INFINITY * (a * d + b * c);\n"
    "        }\n"
    "    }\n"
    "    return (float2)(x, y);\n"
    "}\n";
/* the recovery of infinities and zeros that came out NaN + NaN i, shared
 * by both quotients (T the part type, a b c d x y its variables) */
#define CY_CDIV_RECOVER(ONE, ZERO, INF)                                                    \
    "    if (isnan(x) && isnan(y)) {\n"                                                   \
    "        if (c == 0 && d == 0 && (!isnan(a) || !isnan(b))) {\n"                       \
    "            x = copysign(" INF ", c) * a;\n"                                          \
    "            y = copysign(" INF ", c) * b;\n"                                          \
    "        } else if ((isinf(a) || isinf(b)) && isfinite(c) && isfinite(d)) {\n"        \
    "            a = copysign(isinf(a) ? " ONE " : " ZERO ", a);\n"                         \
    "            b = copysign(isinf(b) ? " ONE " : " ZERO ", b);\n"                         \
    "            x = " INF " * (a * c + b * d);\n"                                         \
    "            y = " INF " * (b * c - a * d);\n"                                         \
    "        } else if ((isinf(c) || isinf(d)) && isfinite(a) && isfinite(b)) {\n"        \
    "            c = copysign(isinf(c) ? " ONE " : " ZERO ", c);\n"                         \
    "            d = copysign(isinf(d) ? " ONE " : " ZERO ", d);\n"                         \
    "            x = " ZERO " * (a * c + b * d);\n"                                        \
    "            y = " ZERO " * (b * c - a * d);\n"                                        \
    "        }\n"                                                                         \
    "    }\n"
static const char SUPPORT_CDIV_D[] =
    "double2 cy_cdiv_d(double2 z, double2 w)\n"
    "{\n"
    "    const double RBIG = DBL_MAX / 2, RMIN = DBL_MIN, RMIN2 = DBL_EPSILON, RMINSCAL = 1 / DBL_EPSILON;\n"
    "    const double RMAX2 = RBIG * RMIN2;\n"
    "    double a = z.x, b = z.y, c = w.x, d = w.y, ratio, denom, x, y;\n"
    "    if (fabs(c) < fabs(d)) {\n"
    "        if (fabs(d) >= RBIG) { a = a / 2; b = b / 2; c = c / 2; d = d / 2; }\n"
    "        if (fabs(d) < RMIN2 || (fabs(a) < RMIN && fabs(b) < RMAX2 && fabs(d) < RMAX2) ||\n"
    "            (fabs(b) < RMIN && fabs(a) < RMAX2 && fabs(d) < RMAX2)) {\n"
    "            a = a * RMINSCAL; b = b * RMINSCAL; c = c * RMINSCAL; d = d * RMINSCAL;\n"
    "        }\n"
    "        ratio = c / d;\n"
    "        denom = (c * ratio) + d;\n"
    "        if (fabs(ratio) > RMIN) {\n"
    "            x = ((a * ratio) + b) / denom;\n"
    "            y = ((b * ratio) - a) / denom;\n"
    "        } else {\n"
    "            x = ((c * (a / d)) + b) / denom;\n"
    "            y = ((c * (b / d)) - a) / denom;\n"
    "        }\n"
    "    } else {\n"
    "        if (fabs(c) >= RBIG) { a = a / 2; b = b / 2; c = c / 2; d = d / 2; }\n"
    "        if (fabs(c) < RMIN2 || (fabs(a) < RMIN && fabs(b) < RMAX2 && fabs(c) < RMAX2) ||\n"
    "            (fabs(b) < RMIN && fabs(a) < RMAX2 && fabs(c) < RMAX2)) {\n"
    "            a = a * RMINSCAL; b = b * RMINSCAL; c = c * RMINSCAL; d = d * RMINSCAL;\n"
    "        }\n"
    "        ratio = d / c;\n"
    "        denom = (d * ratio) + c;\n"
    "        if (fabs(ratio) > RMIN) {\n"
    "            x = ((b * ratio) + a) / denom;\n"
    "            y = (b - (a * ratio)) / denom;\n"
    "        } else {\n"
    "            x = (a + (d * (b / c))) / denom;\n"
    "            y = (b - (d * (a / c))) / denom;\n"
    "        }\n"
    "    }\n"
    CY_CDIV_RECOVER("1.0", "0.0", "(double)INFINITY")
    "    return (double2)(x, y);\n"
    "}\n";
/* a device without doubles divides in float (closer than nothing: the
 * same formula, rounded differently) */
static const char SUPPORT_CDIV_F[] =
    "float2 cy_cdiv_f(float2 z, float2 w)\n"
    "{\n"
    "    float a = z.x, b = z.y, c = w.x, d = w.y, x, y;\n"
    "#ifdef cl_khr_fp64\n"
    "    double aa = a, bb = b, cc = c, dd = d, denom = (cc * cc) + (dd * dd);\n"
    "    x = (float)(((aa * cc) + (bb * dd)) / denom);\n"
    "    y = (float)(((bb * cc) - (aa * dd)) / denom);\n"
    "#else\n"
    "    float denom = (c * c) + (d * d);\n"
    "    x = ((a * c) + (b * d)) / denom;\n"
    "    y = ((b * c) - (a * d)) / denom;\n"
    "#endif\n"
    CY_CDIV_RECOVER("1.0f", "0.0f", "INFINITY")
    "    return (float2)(x, y);\n"
    "}\n";

/* Lines of the program so far, counted incrementally: recounting the whole
 * program per kernel made emission quadratic in the number of kernels. */
static int count_lines(OG *G, const CyBuf *b) {
    for (size_t i = G->counted; i < b->len; i++) G->nlines += b->s[i] == '\n';
    G->counted = b->len;
    return G->nlines;
}

static void add_span(OG *G, CyOclProgram *p, int first, int last, IrRegion *r, CySpanKind kind,
                     const char *name) {
    CyOclSpan *s = cy_alloc(G->a, sizeof *s);
    s->first_line = first;
    s->last_line = last;
    s->region = r;
    s->kind = kind;
    s->name = name;
    cy_vec_push(G->a, &p->spans, s);
}

/* Appends text (a kernel or helper) to the program, guarded by
 * `#ifdef cl_khr_fp64` when it needs doubles, and records its lines. */
static void append(OG *G, CyBuf *prog, CyOclProgram *p, const CyBuf *text, int fp64, IrRegion *r, int blank,
                   CySpanKind kind, const char *name) {
    if (blank) cy_buf_puts(prog, "\n");
    if (fp64) cy_buf_puts(prog, "#ifdef cl_khr_fp64\n");
    int first = count_lines(G, prog) + 1;
    cy_buf_put(prog, text->s ? text->s : "", text->len);
    add_span(G, p, first, count_lines(G, prog), r, kind, name);
    if (fp64) cy_buf_puts(prog, "#endif\n");
}

int cy_emit_opencl(CyArena *a, CyDiag *d, const IrModule *m, const CyOclOptions *opt, CyOclProgram *po) {
    OG G0 = {0}, *G = &G0;
    G->a = G->e.a = a;
    G->d = d;
    G->m = m;
    int errs0 = d->nerrors;
    memset(po, 0, sizeof *po);

    CyVec ktexts = {0}, kregions = {0}, knames = {0};
    for (int i = 0; i < m->regions.len; i++) {
        IrRegion *r = m->regions.items[i];
        if (!r->ocl_ok) continue;
        CyBuf *k = cy_alloc(a, sizeof *k);
        const char *name = cy_fmt(a, "cyk_%d", r->id);
        emit_kernel(G, r, NULL, r->collapse, name, k);
        cy_vec_push(a, &ktexts, k);
        cy_vec_push(a, &kregions, r);
        cy_vec_push(a, &knames, (void *)name);
        if (r->plan_gpu && r->plan_gpu->kind == PLAN_TILE2D) {
            /* for GPU devices (ir/plan.c) */
            k = cy_alloc(a, sizeof *k);
            name = cy_fmt(a, "cyk_%d_tiled", r->id);
            emit_kernel(G, r, r->plan_gpu, r->collapse, name, k);
            cy_vec_push(a, &ktexts, k);
            cy_vec_push(a, &kregions, r);
            cy_vec_push(a, &knames, (void *)name);
            if (r->plan_gpu->small) {
                k = cy_alloc(a, sizeof *k);
                name = cy_fmt(a, "cyk_%d_tiled_small", r->id);
                emit_kernel(G, r, r->plan_gpu->small, r->collapse, name, k);
                cy_vec_push(a, &ktexts, k);
                cy_vec_push(a, &kregions, r);
                cy_vec_push(a, &knames, (void *)name);
            }
        }
        if (r->collapse && r->collapse_pairs.len) {
            /* for calls whose views overlap (nest.c) */
            k = cy_alloc(a, sizeof *k);
            name = cy_fmt(a, "cyk_%d_serial", r->id);
            emit_kernel(G, r, NULL, NULL, name, k);
            cy_vec_push(a, &ktexts, k);
            cy_vec_push(a, &kregions, r);
            cy_vec_push(a, &knames, (void *)name);
        }
    }
    /* helpers called by helpers: their calls were collected while emitting
       the callers, so the list grows while it is walked */
    CyVec htexts = {0};
    for (int i = 0; i < G->helpers.len; i++) {
        IrFunc *f = G->helpers.items[i];
        IrRegion *saved = G->helper_region.items[i];
        CyBuf *h = cy_alloc(a, sizeof *h);
        int n0 = G->helpers.len;
        emit_helper(G, f, h);
        for (int k = n0; k < G->helpers.len; k++) G->helper_region.items[k] = saved;
        cy_vec_push(a, &htexts, h);
    }
    if (d->nerrors > errs0) {
        for (int i = 0; i < ktexts.len; i++) cy_buf_free(ktexts.items[i]);
        for (int i = 0; i < htexts.len; i++) cy_buf_free(htexts.items[i]);
        return -1;
    }
    if (!ktexts.len) {
        po->source = "";
        return 0;
    }

    int any64 = (G->need & (NEED_FDIV_D | NEED_MOD_D | NEED_CMUL_D | NEED_CDIV_D | NEED_CDIV_F)) != 0;
    for (int i = 0; i < kregions.len; i++) any64 |= ((IrRegion *)kregions.items[i])->uses_fp64;
    for (int i = 0; i < G->helpers.len; i++) any64 |= helper_fp64(G, G->helpers.items[i]);

    CyBuf prog = {0};
    cy_buf_printf(&prog, "/* Generated by cyocl %s from %s: OpenCL C 1.2 kernels, one per parallel region.  Do not edit. */\n",
                  opt && opt->version ? opt->version : "", m->src ? m->src->name : "?");
    if (any64) cy_buf_puts(&prog, "#ifdef cl_khr_fp64\n#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n#endif\n");
    cy_buf_puts(&prog, opt && opt->fp_contract ? "#pragma OPENCL FP_CONTRACT ON\n" : "#pragma OPENCL FP_CONTRACT OFF\n");
    IrRegion *first = kregions.items[0];
    struct { unsigned bit; const char *text; int fp64; } sup[] = {
        {NEED_RAISE, SUPPORT_RAISE, 0},   {NEED_FDIV_I, SUPPORT_FDIV_I, 0}, {NEED_FDIV_L, SUPPORT_FDIV_L, 0},
        {NEED_MOD_I, SUPPORT_MOD_I, 0},   {NEED_MOD_L, SUPPORT_MOD_L, 0},   {NEED_FDIV_D, SUPPORT_FDIV_D, 1},
        {NEED_MOD_D, SUPPORT_MOD_D, 1},   {NEED_FDIV_F, SUPPORT_FDIV_F, 0}, {NEED_MOD_F, SUPPORT_MOD_F, 0},
        {NEED_IPOW_L, SUPPORT_IPOW_L, 0}, {NEED_IPOW_UL, SUPPORT_IPOW_UL, 0},
        {NEED_CMUL_D, SUPPORT_CMUL_D, 1}, {NEED_CMUL_F, SUPPORT_CMUL_F, 0}, {NEED_CDIV_D, SUPPORT_CDIV_D, 1},
        {NEED_CDIV_F, SUPPORT_CDIV_F, 0}, {NEED_ABS_I, SUPPORT_ABS_I, 0}, {NEED_ABS_L, SUPPORT_ABS_L, 0},
        {NEED_ISINF_D, SUPPORT_ISINF_D, 1}, {NEED_ISINF_F, SUPPORT_ISINF_F, 0},
        {NEED_ILOGB_D, SUPPORT_ILOGB_D, 1}, {NEED_ILOGB_F, SUPPORT_ILOGB_F, 0},
    };
    for (size_t i = 0; i < sizeof sup / sizeof sup[0]; i++) {
        if (!(G->need & sup[i].bit)) continue;
        CyBuf t = {0};
        cy_buf_puts(&t, sup[i].text);
        append(G, &prog, po, &t, sup[i].fp64, first, 1, CY_SPAN_SHARED, NULL);
        cy_buf_free(&t);
    }
    if (G->helpers.len) {
        /* prototypes first: helpers may call each other in any order */
        CyBuf protos = {0}, protos64 = {0};
        for (int i = 0; i < G->helpers.len; i++) {
            IrFunc *f = G->helpers.items[i];
            cy_buf_printf(helper_fp64(G, f) ? &protos64 : &protos, "%s;\n", helper_sig(G, f));
        }
        cy_buf_puts(&prog, "\n/* cdef functions called by the kernels */\n");
        if (protos.len) append(G, &prog, po, &protos, 0, first, 0, CY_SPAN_SHARED, NULL);
        if (protos64.len) append(G, &prog, po, &protos64, 1, first, 0, CY_SPAN_SHARED, NULL);
        cy_buf_free(&protos);
        cy_buf_free(&protos64);
        for (int i = 0; i < htexts.len; i++) {
            IrFunc *f = G->helpers.items[i];
            append(G, &prog, po, htexts.items[i], helper_fp64(G, f), G->helper_region.items[i], 1, CY_SPAN_HELPER,
                   f->cname);
            cy_buf_free(htexts.items[i]);
        }
    }
    for (int i = 0; i < ktexts.len; i++) {
        IrRegion *r = kregions.items[i];
        append(G, &prog, po, ktexts.items[i], r->uses_fp64, r, 1, CY_SPAN_KERNEL, knames.items[i]);
        cy_buf_free(ktexts.items[i]);
    }
    po->source = cy_strndup(a, prog.s, prog.len);
    po->len = prog.len;
    po->nkernels = ktexts.len;
    cy_buf_free(&prog);
    return 0;
}

IrRegion *cy_ocl_region_at(const CyOclProgram *p, int line) {
    IrRegion *first = NULL;
    for (int i = 0; i < p->spans.len; i++) {
        CyOclSpan *s = p->spans.items[i];
        if (line >= s->first_line && line <= s->last_line) return s->region;
        if (!first) first = s->region;
    }
    return first;
}
