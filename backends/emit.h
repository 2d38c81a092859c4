/* emit.h: what both backends' C-like text emitters share — indented lines,
 * output captured to decide what goes around it, the "is this text safe to
 * repeat" tests, constant folding of IR expressions, and the statement
 * shapes of short-circuit and conditional expressions whose operands need
 * statements of their own.  The native backend (backends/c) and the OpenCL
 * backend (backends/opencl) differ in types, temporaries and error paths;
 * this is the part where they do not. */
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

/* The expressions whose later operands may need statements of their own,
 * which must then run only where the operand is evaluated: `a and b` / `a or b` on
 * C values (E_AND, E_OR), Python's and/or on C numbers (E_VAND, E_VOR: a
 * once, the deciding operand as the value) and `a if c else b` (E_COND).
 * The backend's hooks evaluate an operand (its statements going to
 * E->out), count the temporaries it must release (NULL: none), declare a
 * temporary of type t (NULL: int) with init (NULL: none), and keep a value
 * in one; int_cond: `?:` takes an integer condition only (OpenCL). */
typedef struct {
    void *G;
    const char *(*expr)(void *G, IrExpr *e);
    int (*live)(void *G);
    const char *(*temp)(void *G, const CyType *t, const char *init, CyPos pos);
    const char *(*once)(void *G, const CyType *t, const char *c, CyPos pos);
    int int_cond;
} CyExprHooks;
const char *cy_lower_shortcircuit(CyEmit *E, const CyExprHooks *h, IrExpr *e);

/* An if statement s whose condition is already the C expression c: emits
 * `PREFIXif (c) {`, the body and the else/elif chain (an elif whose
 * condition needs statements gets them inside the else); the caller writes
 * the closing brace.  The backend's hooks emit a statement block (indented
 * one level) and evaluate a condition, its statements going to E->out. */
typedef struct {
    void *G;
    void (*block)(void *G, CyVec *body);
    const char *(*cond)(void *G, IrExpr *e);
} CyIfHooks;
void cy_emit_if_open(CyEmit *E, const CyIfHooks *h, IrStmt *s, const char *c, const char *prefix);

#endif
