/* emit.h: what both backends' C-like text emitters share — indented lines,
 * output captured to decide what goes around it, the "is this text safe to
 * repeat" tests, constant folding of IR expressions — and the one lowering
 * of the statements and expressions whose shape is the same on both
 * targets (short-circuit and conditional expressions, casts, arithmetic
 * with its checks, if/while/range loops).  The native backend (backends/c)
 * and the OpenCL backend (backends/opencl) differ in types, temporaries,
 * error paths and loop bookkeeping: those are the hooks of a CyTarget. */
#ifndef CY_EMIT_H
#define CY_EMIT_H

#include "../ir/ir.h"

/* Where text goes: a buffer and an indentation depth (4 spaces each). */
typedef struct {
    CyArena *a;
    CyBuf *out;
    int ind;
} CyEmit;

void cy_emit_line(CyEmit *E, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cy_emit_vline(CyEmit *E, const char *fmt, va_list ap);

/* Output redirected into a buffer of its own at indentation ind, so that
 * the caller sees whether an operand needed statements before choosing
 * the shape around it.  cy_cap_end returns the text (arena) and restores. */
typedef struct {
    CyBuf *saved;
    CyBuf buf;
    int saved_ind;
} CyCap;
void cy_cap_begin(CyEmit *E, CyCap *c, int ind);
const char *cy_cap_end(CyEmit *E, CyCap *c);

/* The helpers each backend's generator writes with, defined once for its
 * generator type GenT (a struct with `CyEmit e` and `CyArena *a`, named G
 * where they are used): out() one indented line, put() text as it is,
 * cap_begin()/cap_end() a capture (CyCap as Cap), vec_has()/vec_add() on
 * sets of pointers, FMT() a string in the arena. */
#define FMT(...) cy_fmt(G->a, __VA_ARGS__)
#define CY_EMIT_HELPERS(GenT)                                                                      \
    static void out(GenT *G, const char *fmt, ...) __attribute__((format(printf, 2, 3), unused));  \
    static void out(GenT *G, const char *fmt, ...) {                                               \
        va_list ap;                                                                                \
        va_start(ap, fmt);                                                                         \
        cy_emit_vline(&G->e, fmt, ap);                                                             \
        va_end(ap);                                                                                \
    }                                                                                              \
    typedef CyCap Cap;                                                                             \
    static inline void put(GenT *G, const char *text) { cy_buf_puts(G->e.out, text); }             \
    static inline void cap_begin(GenT *G, Cap *c, int ind) { cy_cap_begin(&G->e, c, ind); }        \
    static inline const char *cap_end(GenT *G, Cap *c) { return cy_cap_end(&G->e, c); }           \
    static inline int vec_has(const CyVec *v, const void *p) {                                     \
        for (int i_ = 0; i_ < v->len; i_++)                                                        \
            if (v->items[i_] == p) return 1;                                                       \
        return 0;                                                                                  \
    }                                                                                              \
    static inline void vec_add(GenT *G, CyVec *v, void *p) {                                       \
        if (!vec_has(v, p)) cy_vec_push(G->a, v, p);                                               \
    }

/* An identifier or a literal: safe to repeat in generated code. */
int cy_c_simple(const char *c);
/* One parenthesised group, "(...)". */
int cy_c_wrapped(const char *c);
/* c, parenthesised unless it is simple or wrapped already. */
const char *cy_c_paren(CyArena *a, const char *c);

/* A constant (through casts) that is not zero: no division check needed. */
int cy_nonzero_const(const IrExpr *e);
/* The shortest decimal text that reads back as v (as a float when
 * is_float), written as Python's repr() writes it: no exponent for
 * 1e-4 <= |v| < 1e16, always a '.', 'e' or "n" in it.  Finite v only; no
 * suffix, no sign parentheses. */
void cy_float_digits(char buf[64], double v, int is_float);

/* A cast of a constant that folds: 1 with *bits (an integer result of
 * type e->ty), 2 with *val (a floating result), 0 when it does not fold
 * this simply.  Folds integer -> integer, integer -> floating and
 * floating -> floating. */
int cy_fold_cast(const IrExpr *e, uint64_t *bits, double *val);

/* a && b / a || b when b needed the statements bcode: r (an int the
 * caller declared as !!a) becomes the result, bcode running only when b
 * is evaluated. */
void cy_emit_andor(CyEmit *E, int is_and, const char *r, const char *bcode, const char *b);
/* c ? a : b when a or b needed statements: r (declared by the caller)
 * becomes the result. */
void cy_emit_cond(CyEmit *E, const char *r, const char *c, const char *acode, const char *a,
                  const char *bcode, const char *b);

/* ---- one lowering, per-target hooks -------------------------------------
 * The expressions and statements whose shape is the same on every target
 * are lowered here, once; a backend fills a CyTarget with what differs:
 * its operands, types, literals, temporaries, libm spellings, how a failed
 * check raises, and its loop bookkeeping.  Each function below names the
 * hooks it uses; CY_TARGET below builds a backend's table. */

/* The run-time checks of the shared lowering (what a failed one raises). */
typedef enum {
    CY_FAIL_ZERODIV_INT,    /* ZeroDivisionError: integer division or modulo by zero */
    CY_FAIL_ZERODIV_FLOAT,  /* ZeroDivisionError: float division (/ and // of floats) */
    CY_FAIL_ZERODIV_DIVMOD, /* ZeroDivisionError: float divmod() (% of floats) */
    CY_FAIL_DIV_OVERFLOW,   /* OverflowError: value too large to perform division (MIN // -1) */
    CY_FAIL_RANGE_STEP,     /* ValueError: range() arg 3 must not be zero */
    CY_FAIL_SOFT_POW,       /* TypeError: a ** b's complex result where a double is wanted */
    CY_FAIL_BOUNDS,         /* IndexError: out of bounds on axis f - CY_FAIL_BOUNDS (one member per axis) */
} CyFail;

/* What a target knows of index k of a view element before it is lowered
 * (cy_lower_view_index): repl, its value already wrapped and checked (C's
 * checks hoisted out of a loop); checked, it is checked before the loop
 * and needs neither wrap nor check here; nonneg, it is never negative. */
typedef struct {
    const char *repl;
    int checked, nonneg;
} CyIndexFact;

/* A range() loop being lowered: what cy_lower_for_range computed (the
 * start, the stop taken once, the step and whether it is a constant) and
 * what the target's range hooks keep between the header and the end. */
typedef struct {
    IrStmt *s;
    const char *a, *b, *step;
    int64_t sv;
    int sconst;
    const char *incr; /* range_prepare: more increments for the header (", p += n") */
    int mark;         /* the caller's, for range_prepare; range_prepare's, for range_end */
} CyRange;

typedef struct {
    void *G;
    /* expressions */
    const char *(*expr)(void *G, IrExpr *e);   /* an operand: its statements go to E->out */
    int (*live)(void *G);                      /* how many temporaries it holds (to release) */
    const char *(*temp)(void *G, const CyType *t, const char *init, CyPos pos); /* t NULL: int */
    const char *(*once)(void *G, const CyType *t, const char *c, CyPos pos);   /* c, or a temporary */
    const char *(*name)(void *G);              /* a fresh identifier for a temporary */
    const char *(*type)(void *G, const CyType *t, CyPos pos);                  /* a scalar type's spelling */
    const char *(*int_lit)(void *G, const CyType *t, uint64_t bits);
    const char *(*float_lit)(void *G, const CyType *t, double v);
    const char *(*libm)(void *G, const char *name, const CyType *t); /* "fmod" for t: fmodf, fmod, ... */
    const char *(*int_min)(const CyType *t);   /* t's minimum as a macro, NULL: no MIN // -1 check */
    /* Python's // (fdiv) or % of a and b on signed integers and floats (no checks) */
    const char *(*pydivmod)(void *G, const CyType *t, int fdiv, const char *a, const char *b);
    const char *(*cast)(void *G, IrExpr *e);   /* the target's own folding of a cast, or NULL */
    /* a op b (b NULL: the unary op a) in the signed type t, wrapping as
       -fwrapv defines it; NULL where the target's C compiler wraps already */
    const char *(*wrapv)(void *G, const CyType *t, const char *op, const char *a, const char *b);
    void (*check)(void *G, const char *cond, CyFail f, CyPos pos); /* if (cond) raise f */
    int int_cond;                              /* `?:` takes an integer condition only (OpenCL) */
    CyVec *subst;                              /* (IrExpr*, text) pairs: values computed already,
                                                  which expr returns as they are */
    /* a ** b where the C library has no pow for t (integers, complex) */
    const char *(*pow)(void *G, const CyType *t, const char *a, const char *b);
    /* E_MINMAX of a and b (e->op: OP_MIN or OP_MAX), and Python's abs() of a C number (cyrt_abs) */
    const char *(*minmax)(void *G, IrExpr *e, const char *a, const char *b);
    const char *(*abs)(void *G, IrExpr *e, const char *a);
    /* a C function that is no libc.math one (name: its C name), args joined */
    const char *(*call_c)(void *G, IrExpr *e, const char *name, const char *args);
    /* a call of a compiled function (E_CALL), its arguments evaluated in order */
    const char *(*call)(void *G, IrExpr *e, const char **args);
    /* statements */
    void (*block)(void *G, CyVec *body);       /* a block one level deeper */
    void (*orelse)(void *G, CyVec *body);      /* a loop's else clause, at the loop's level */
    const char *(*cond)(void *G, IrExpr *e);   /* an if's condition */
    const char *(*loop_cond)(void *G, IrExpr *e); /* a while's condition */
    void *(*loop_push)(void *G, int has_else); /* enter a loop (its break label if has_else) */
    const char *(*loop_pop)(void *G, void *loop); /* leave it: its break label if a break used it */
    void (*range_prepare)(void *G, CyRange *r); /* after the bounds, before the header */
    void (*range_end)(void *G, CyRange *r);    /* after the body's closing brace */
    /* assignments */
    int (*assign)(void *G, IrStmt *s);         /* the target's own kinds of assignment (objects,
                                                  views, module dict): 1 when it emitted s */
    const char *(*lvalue)(void *G, IrExpr *t); /* NULL: an error was reported */
    IrOp (*update_op)(void *G, IrStmt *s);     /* the operator of `target op= value` */
    void (*copy_array)(void *G, const CyType *t, const char *lv, const char *rv, CyPos pos); /* lv = rv of a C array */
    /* view elements: the facts of an index, and axis k's extent of the target's view handle */
    void (*index_fact)(void *G, IrExpr *e, int k, CyIndexFact *f);
    const char *(*view_shape)(void *G, void *view, int k);
} CyTarget;

/* A backend's target(G), defined once for its generator type GenT (with
 * `CyArena *a`, `int nid`, the counter of its cy_sN names, and `CyVec
 * subst`, the values its operand function returns as they are): every hook
 * is the backend's function tg_NAME (declared here, defined by the
 * backend), except these adapters: the operand EXPR(G, e), the literals
 * int_lit(G, t, bits) and float_lit(G, t, v), and fresh cy_sN names. */
#define CY_TARGET(GenT, EXPR, INT_COND)                                                              \
    static int tg_live(void *g);                                                                     \
    static const char *tg_temp(void *g, const CyType *t, const char *init, CyPos pos);               \
    static const char *tg_once(void *g, const CyType *t, const char *c, CyPos pos);                  \
    static const char *tg_type(void *g, const CyType *t, CyPos pos);                                 \
    static const char *tg_libm(void *g, const char *name, const CyType *t);                          \
    static const char *tg_int_min(const CyType *t);                                                  \
    static const char *tg_pydivmod(void *g, const CyType *t, int fdiv, const char *a, const char *b); \
    static const char *tg_cast(void *g, IrExpr *e);                                                  \
    static const char *tg_wrapv(void *g, const CyType *t, const char *op, const char *a, const char *b); \
    static void tg_check(void *g, const char *cond, CyFail f, CyPos pos);                            \
    static void tg_block(void *g, CyVec *body);                                                      \
    static void tg_orelse(void *g, CyVec *body);                                                     \
    static const char *tg_cond(void *g, IrExpr *e);                                                  \
    static const char *tg_loop_cond(void *g, IrExpr *e);                                             \
    static void *tg_loop_push(void *g, int has_else);                                                \
    static const char *tg_loop_pop(void *g, void *loop);                                             \
    static void tg_range_prepare(void *g, CyRange *r);                                               \
    static void tg_range_end(void *g, CyRange *r);                                                   \
    static const char *tg_pow(void *g, const CyType *t, const char *a, const char *b);               \
    static const char *tg_minmax(void *g, IrExpr *e, const char *a, const char *b);                  \
    static const char *tg_abs(void *g, IrExpr *e, const char *a);                                    \
    static const char *tg_call_c(void *g, IrExpr *e, const char *name, const char *args);            \
    static const char *tg_call(void *g, IrExpr *e, const char **args);                               \
    static int tg_assign(void *g, IrStmt *s);                                                        \
    static const char *tg_lvalue(void *g, IrExpr *t);                                                \
    static IrOp tg_update_op(void *g, IrStmt *s);                                                    \
    static void tg_copy_array(void *g, const CyType *t, const char *lv, const char *rv, CyPos pos);   \
    static void tg_index_fact(void *g, IrExpr *e, int k, CyIndexFact *f);                           \
    static const char *tg_view_shape(void *g, void *view, int k);                                    \
    static const char *tg_expr(void *g, IrExpr *e) { return EXPR((GenT *)g, e); }                    \
    static const char *tg_int_lit(void *g, const CyType *t, uint64_t b) { return int_lit(g, t, b); } \
    static const char *tg_float_lit(void *g, const CyType *t, double v) { return float_lit(g, t, v); } \
    static const char *tg_name(void *g) {                                                            \
        GenT *G_ = g;                                                                                \
        return cy_fmt(G_->a, "cy_s%d", ++G_->nid);                                                   \
    }                                                                                                \
    static CyTarget target(GenT *G) __attribute__((unused));                                         \
    static CyTarget target(GenT *G) {                                                                \
        return (CyTarget){.G = G, .expr = tg_expr, .live = tg_live, .temp = tg_temp, .once = tg_once, \
                          .name = tg_name, .type = tg_type, .int_lit = tg_int_lit,                   \
                          .float_lit = tg_float_lit, .libm = tg_libm, .int_min = tg_int_min,         \
                          .pydivmod = tg_pydivmod, .cast = tg_cast, .wrapv = tg_wrapv,             \
                          .check = tg_check,                                                         \
                          .int_cond = INT_COND, .block = tg_block, .orelse = tg_orelse,              \
                          .cond = tg_cond, .loop_cond = tg_loop_cond, .loop_push = tg_loop_push,     \
                          .loop_pop = tg_loop_pop, .range_prepare = tg_range_prepare,                \
                          .range_end = tg_range_end, .subst = &G->subst, .pow = tg_pow,              \
                          .minmax = tg_minmax, .abs = tg_abs, .call_c = tg_call_c, .call = tg_call,  \
                          .assign = tg_assign, .lvalue = tg_lvalue, .update_op = tg_update_op,       \
                          .copy_array = tg_copy_array, .index_fact = tg_index_fact,                  \
                          .view_shape = tg_view_shape};                                              \
    }

/* a op b in type t, C's integer or floating operation; for + - * on a
 * signed integer of int's rank or more (narrower ones compute in int and
 * cannot overflow), the target's wrapping form (wrapv hook): the meaning
 * -fwrapv gives native code and Cython's modules.  b NULL: unary op a. */
const char *cy_lower_arith(CyEmit *E, const CyTarget *T, const CyType *t, IrOp op, const char *a, const char *b);
/* Is op in t one that cy_lower_arith gives the wrapping form? */
int cy_arith_wraps(const CyType *t, IrOp op);

/* The expressions lowered alike on every target: constants, C arithmetic
 * and comparisons, casts, short-circuit and conditional expressions,
 * element of a C array, powers, min()/max(), calls of C functions (E_CALL_C); NULL for
 * any other kind (the backend's own). */
const char *cy_lower_expr(CyEmit *E, const CyTarget *T, IrExpr *e);

/* The trip count of range(a, b, step) — a prange's iterations (cgen.c),
 * a collapsed loop's as the host and the kernel both count them — in the
 * one formula ir/loops.c's cy_trip_const folds constants with: ca, cb
 * compared, la, lb (the same values in the count's type) subtracted;
 * st: the constant step, or 0 when it is known only at run time, as the
 * text lst (in the count's type, not zero); start0: a is the constant 0;
 * suf: the literals' suffix ("L", "LL", ""), zero: the count 0. */
const char *cy_trip_count(CyArena *a, const char *ca, const char *cb, const char *la, const char *lb, int64_t st,
                          const char *lst, int start0, const char *suf, const char *zero);

/* The value of a range(start, stop, step) loop's variable at iteration
 * number it — a prange's index (cgen.c, its last value too), a kernel's
 * prange index and collapsed loop variable — in the one form the host and
 * the kernel both compute it: start + it * step, in the iteration
 * number's type (no overflow of a narrower variable's type), then cast:
 * the variable's type where that is another, else NULL.  start NULL: the
 * constant 0; step NULL: the constant 1. */
const char *cy_index_at(CyArena *a, const char *start, const char *it, const char *step, const char *cast);

/* The expressions whose later operands may need statements of their own,
 * which must then run only where the operand is evaluated: `a and b` / `a or b` on
 * C values (E_AND, E_OR), Python's and/or on C numbers (E_VAND, E_VOR: a
 * once, the deciding operand as the value) and `a if c else b` (E_COND).
 * Hooks: expr, live, temp, once, int_cond. */
const char *cy_lower_shortcircuit(CyEmit *E, const CyTarget *T, IrExpr *e);

/* E_BINOP: C's operator, after the zero check of / and % (unless
 * cdivision); % of floats is fmod.  Hooks: expr, once, libm, check. */
const char *cy_lower_binop(CyEmit *E, const CyTarget *T, IrExpr *e);
/* E_PYFLOORDIV / E_PYMOD: Python's // and % with Cython's checks (zero,
 * MIN // -1), C's operators under cdivision.  Hooks: expr, once, type,
 * libm, int_min, pydivmod, check. */
const char *cy_lower_divmod(CyEmit *E, const CyTarget *T, IrExpr *e);
/* E_CAST: constants folded, bint as != 0, else a C cast.  Hooks: expr,
 * type, int_lit, float_lit, cast. */
const char *cy_lower_cast(CyEmit *E, const CyTarget *T, IrExpr *e);

/* E_POW: the C library's pow for floating types (libm), else the
 * target's.  Hooks: expr, libm, pow. */
const char *cy_lower_pow(CyEmit *E, const CyTarget *T, IrExpr *e);
/* E_CALL_C, or E_CALL of an extern function: abs() and libc.math
 * functions (ir/libm.c: the target's spelling, its result converted where
 * the target computes an integer one in floating point), any other
 * function as the target calls it.  Hooks: expr, abs, libm, type, call_c. */
const char *cy_lower_call_c(CyEmit *E, const CyTarget *T, IrExpr *e);
/* E_MINMAX: where two arguments may raise, they are computed first in
 * Cython's order (IrExpr.order); then the target's min or max of the two.
 * Hooks: expr, once, subst, minmax. */
const char *cy_lower_minmax(CyEmit *E, const CyTarget *T, IrExpr *e);
/* E_CALL of a compiled function: its arguments in order, then the
 * target's calling convention.  Hooks: expr, call. */
const char *cy_lower_call(CyEmit *E, const CyTarget *T, IrExpr *e);
/* The indices of view element e (E_VIEW_ELEM) into idx: each evaluated
 * once, in order; wrapped where it may be negative (wraparound), then
 * bounds-checked from the last axis down (boundscheck: Cython evaluates
 * every index before it checks any, and names the last axis out of
 * bounds); unsigned ones converted to Py_ssize_t's type.  view: the
 * target's handle of the view, passed to view_shape.  Hooks: expr,
 * index_fact, temp, type, view_shape, check. */
void cy_lower_view_index(CyEmit *E, const CyTarget *T, IrExpr *e, void *view, const char **idx);
/* ST_ASSIGN: the target's own kinds first, then the value, the lvalue,
 * and `lv op= rv`, a C array's copy or `lv = rv`.  Hooks: assign, expr,
 * lvalue, update_op, copy_array. */
void cy_lower_assign(CyEmit *E, const CyTarget *T, IrStmt *s);

/* An if statement s whose condition is already the C expression c: emits
 * `PREFIXif (c) {`, the body and the else/elif chain (an elif whose
 * condition needs statements gets them inside the else); the caller writes
 * the closing brace.  Hooks: block, cond. */
void cy_emit_if_open(CyEmit *E, const CyTarget *T, IrStmt *s, const char *c, const char *prefix);
/* ST_WHILE: `while (c)`, or `for (;;)` with the condition's statements and
 * a break.  Hooks: loop_cond, loop_push, loop_pop, block, orelse. */
void cy_lower_while(CyEmit *E, const CyTarget *T, IrStmt *s);
/* ST_FOR_RANGE: the stop taken once, a zero step checked, a C for loop
 * over a fresh counter the loop variable is set from (Python's semantics:
 * the variable keeps its last value, unchanged without an iteration).
 * r->mark is passed to range_prepare.  Hooks: expr, temp, once, name, type,
 * check, range_prepare, range_end, loop_push, loop_pop, block, orelse. */
void cy_lower_for_range(CyEmit *E, const CyTarget *T, IrStmt *s, CyRange *r);
#endif
