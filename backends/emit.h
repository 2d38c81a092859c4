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

#endif
