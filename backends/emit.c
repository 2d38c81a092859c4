/* emit.c: the C-like text emission and the lowering both backends share (emit.h). */
#include "emit.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cy_emit_vline(CyEmit *E, const char *fmt, va_list ap) {
    for (int i = 0; i < E->ind; i++) cy_buf_puts(E->out, "    ");
    cy_buf_vprintf(E->out, fmt, ap);
    cy_buf_puts(E->out, "\n");
}

void cy_emit_line(CyEmit *E, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    cy_emit_vline(E, fmt, ap);
    va_end(ap);
}

void cy_cap_begin(CyEmit *E, CyCap *c, int ind) {
    memset(&c->buf, 0, sizeof c->buf);
    c->saved = E->out;
    c->saved_ind = E->ind;
    E->out = &c->buf;
    E->ind = ind;
}

const char *cy_cap_end(CyEmit *E, CyCap *c) {
    const char *s = c->buf.len ? cy_strndup(E->a, c->buf.s, c->buf.len) : "";
    cy_buf_free(&c->buf);
    E->out = c->saved;
    E->ind = c->saved_ind;
    return s;
}

static int alnum(char ch) {
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

int cy_c_simple(const char *c) {
    if (!*c) return 0;
    if (c[0] == '(' && c[1] == '-' && c[2] >= '0' && c[2] <= '9') {
        /* a negative literal as the emitters write it: "(-12)", "(-1.5e-07f)" */
        for (const char *p = c + 2; *p; p++)
            if (!(*p == '.' || *p == ')' || *p == '+' || *p == '-' || alnum(*p))) return 0;
        return 1;
    }
    for (const char *p = c; *p; p++)
        if (!(*p == '_' || *p == '.' || alnum(*p))) return 0;
    return 1;
}

int cy_c_wrapped(const char *c) {
    if (c[0] != '(') return 0;
    int depth = 0;
    for (const char *p = c; *p; p++) {
        if (*p == '(') depth++;
        else if (*p == ')' && --depth == 0) return p[1] == 0;
    }
    return 0;
}

const char *cy_c_paren(CyArena *a, const char *c) {
    return cy_c_simple(c) || cy_c_wrapped(c) ? c : cy_fmt(a, "(%s)", c);
}

int cy_nonzero_const(const IrExpr *e) {
    int64_t v;
    while (e && e->kind == E_CAST) e = e->args[0];
    if (cy_const_int(e, &v)) return v != 0;
    return e && e->kind == E_FLOAT && e->fval != 0;
}

void cy_float_digits(char buf[64], double v, int is_float) {
    int plain = fabs(v) >= 1e-4 && fabs(v) < 1e16;
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, 64, plain ? "%.*f" : "%.*g", prec, v);
        if (is_float ? strtof(buf, NULL) == (float)v : strtod(buf, NULL) == v) break;
    }
    if (!strpbrk(buf, ".eEn")) strcat(buf, ".0");
}

int cy_fold_cast(const IrExpr *e, uint64_t *bits, double *val) {
    const CyType *t = e->ty;
    const IrExpr *x = e->args[0];
    if (x->kind == E_INT && cy_type_is_int(t)) {
        uint64_t v = x->ival;
        if (x->ty->is_signed && t->size == 8) v = (uint64_t)(int64_t)v;
        *bits = v;
        return 1;
    }
    if (x->kind == E_INT && cy_type_is_float(t)) {
        *val = x->ty->is_signed ? (double)(int64_t)x->ival : (double)x->ival;
        return 2;
    }
    if (x->kind == E_FLOAT && cy_type_is_float(t)) {
        *val = x->fval;
        return 2;
    }
    return 0;
}

void cy_emit_andor(CyEmit *E, int is_and, const char *r, const char *bcode, const char *b) {
    cy_emit_line(E, is_and ? "if (%s) {" : "if (!%s) {", r);
    cy_buf_puts(E->out, bcode);
    E->ind++;
    cy_emit_line(E, "%s = !!%s;", r, cy_c_paren(E->a, b));
    E->ind--;
    cy_emit_line(E, "}");
}

void cy_emit_cond(CyEmit *E, const char *r, const char *c, const char *acode, const char *a,
                  const char *bcode, const char *b) {
    cy_emit_line(E, "if %s {", cy_c_wrapped(c) ? c : cy_fmt(E->a, "(%s)", c));
    cy_buf_puts(E->out, acode);
    E->ind++;
    cy_emit_line(E, "%s = %s;", r, a);
    E->ind--;
    cy_emit_line(E, "} else {");
    cy_buf_puts(E->out, bcode);
    E->ind++;
    cy_emit_line(E, "%s = %s;", r, b);
    E->ind--;
    cy_emit_line(E, "}");
}

void cy_emit_if_open(CyEmit *E, const CyTarget *h, IrStmt *s, const char *c, const char *prefix) {
    cy_emit_line(E, "%sif %s {", prefix, cy_c_wrapped(c) ? c : cy_fmt(E->a, "(%s)", c));
    h->block(h->G, &s->body);
    if (!s->orelse.len) return;
    IrStmt *next = s->orelse.len == 1 ? s->orelse.items[0] : NULL;
    if (next && next->kind == ST_IF) {
        CyCap cap;
        cy_cap_begin(E, &cap, E->ind + 1);
        const char *c2 = h->cond(h->G, next->cond);
        const char *code = cy_cap_end(E, &cap);
        if (!*code) {
            cy_emit_if_open(E, h, next, c2, "} else ");
            return;
        }
        cy_emit_line(E, "} else {");
        cy_buf_puts(E->out, code);
        E->ind++;
        cy_emit_if_open(E, h, next, c2, "");
        cy_emit_line(E, "}");
        E->ind--;
        return;
    }
    cy_emit_line(E, "} else {");
    h->block(h->G, &s->orelse);
}

/* b's value and the statements it needs, in a capture; *same: the backend
 * holds no more temporaries than before */
static const char *operand(CyEmit *E, const CyTarget *h, IrExpr *x, const char **code, int *same) {
    int live = h->live(h->G);
    CyCap cap;
    cy_cap_begin(E, &cap, E->ind + 1);
    const char *v = h->expr(h->G, x);
    *code = cy_cap_end(E, &cap);
    *same = h->live(h->G) == live;
    return v;
}

static const char *lower_andor(CyEmit *E, const CyTarget *h, IrExpr *e) {
    int is_and = e->kind == E_AND, same;
    const char *a = h->expr(h->G, e->args[0]), *code;
    const char *b = operand(E, h, e->args[1], &code, &same);
    if (!*code && same) return cy_fmt(E->a, "(%s %s %s)", a, is_and ? "&&" : "||", b);
    const char *r = h->temp(h->G, NULL, cy_fmt(E->a, "!!%s", cy_c_paren(E->a, a)), e->pos);
    cy_emit_andor(E, is_and, r, code, b);
    return r;
}

static const char *lower_vandor(CyEmit *E, const CyTarget *h, IrExpr *e) {
    int is_and = e->kind == E_VAND, same;
    const char *a = h->once(h->G, e->ty, h->expr(h->G, e->args[0]), e->pos), *code;
    const char *c = h->int_cond && cy_type_is_float(e->ty) ? cy_fmt(E->a, "(%s != 0)", a) : a;
    const char *b = operand(E, h, e->args[1], &code, &same);
    if (!*code && same) return cy_fmt(E->a, "(%s ? %s : %s)", c, is_and ? b : a, is_and ? a : b);
    const char *r = h->temp(h->G, e->ty, NULL, e->pos);
    if (is_and) cy_emit_cond(E, r, c, code, b, "", a);
    else cy_emit_cond(E, r, c, "", a, code, b);
    return r;
}

static const char *lower_cond(CyEmit *E, const CyTarget *h, IrExpr *e) {
    const char *c = h->expr(h->G, e->args[0]), *acode, *bcode;
    if (h->int_cond && cy_type_is_float(e->args[0]->ty)) c = cy_fmt(E->a, "(%s != 0)", cy_c_paren(E->a, c));
    int live = h->live(h->G), sa, sb;
    const char *a = operand(E, h, e->args[1], &acode, &sa);
    const char *b = operand(E, h, e->args[2], &bcode, &sb);
    if (!*acode && !*bcode && h->live(h->G) == live) return cy_fmt(E->a, "(%s ? %s : %s)", c, a, b);
    const char *r = h->temp(h->G, e->ty, NULL, e->pos);
    cy_emit_cond(E, r, c, acode, a, bcode, b);
    return r;
}

const char *cy_lower_shortcircuit(CyEmit *E, const CyTarget *h, IrExpr *e) {
    if (e->kind == E_AND || e->kind == E_OR) return lower_andor(E, h, e);
    if (e->kind == E_VAND || e->kind == E_VOR) return lower_vandor(E, h, e);
    return lower_cond(E, h, e);
}

/* ---- arithmetic ----------------------------------------------------------- */

static void zero_check(const CyTarget *T, IrExpr *divisor, const char *b, CyFail f, CyArena *a) {
    if (cy_nonzero_const(divisor)) return;
    T->check(T->G, cy_fmt(a, "%s == 0", b), f, divisor->pos);
}

int cy_arith_wraps(const CyType *t, IrOp op) {
    return (op == OP_ADD || op == OP_SUB || op == OP_MUL || op == OP_NEG) && cy_type_is_int(t) && t->is_signed &&
           t->kind != TY_BINT && t->size >= 4;
}

const char *cy_lower_arith(CyEmit *E, const CyTarget *T, const CyType *t, IrOp op, const char *a, const char *b) {
    const char *w = cy_arith_wraps(t, op) ? T->wrapv(T->G, t, cy_op_name(op), a, b) : NULL;
    if (w) return w;
    if (!b) return cy_fmt(E->a, "(%s%s)", cy_op_name(op), cy_c_paren(E->a, a));
    return cy_fmt(E->a, "(%s %s %s)", a, cy_op_name(op), b);
}

const char *cy_lower_binop(CyEmit *E, const CyTarget *T, IrExpr *e) {
    const CyType *t = e->ty;
    IrOp op = e->op;
    const char *a = T->expr(T->G, e->args[0]), *b = T->expr(T->G, e->args[1]);
    if (op == OP_DIV || op == OP_MOD) {
        if (!e->cdivision && (cy_type_is_int(t) || cy_type_is_float(t) || cy_type_is_complex(t))) {
            b = T->once(T->G, e->args[1]->ty, b, e->pos);
            zero_check(T, e->args[1], b,
                       cy_type_is_int(t) ? CY_FAIL_ZERODIV_INT : op == OP_DIV ? CY_FAIL_ZERODIV_FLOAT : CY_FAIL_ZERODIV_DIVMOD,
                       E->a);
        }
        if (op == OP_MOD && cy_type_is_float(t)) return cy_fmt(E->a, "%s(%s, %s)", T->libm(T->G, "fmod", t), a, b);
    }
    return cy_lower_arith(E, T, t, op, a, b);
}

const char *cy_lower_divmod(CyEmit *E, const CyTarget *T, IrExpr *e) {
    const CyType *t = e->ty;
    int fdiv = e->kind == E_PYFLOORDIV;
    const char *a = T->expr(T->G, e->args[0]), *b = T->expr(T->G, e->args[1]);
    if (cy_type_is_int(t)) {
        if (!e->cdivision) {
            b = T->once(T->G, t, b, e->pos);
            zero_check(T, e->args[1], b, CY_FAIL_ZERODIV_INT, E->a);
            int64_t bv;
            const char *mn = t->is_signed ? T->int_min(t) : NULL;
            if (fdiv && mn && !(cy_const_int(e->args[1], &bv) && bv != -1)) {
                a = T->once(T->G, t, a, e->pos);
                T->check(T->G, cy_fmt(E->a, "%s == -1 && %s == %s", b, a, mn), CY_FAIL_DIV_OVERFLOW, e->pos);
            }
        }
        if (!t->is_signed || e->cdivision) return cy_fmt(E->a, "(%s %s %s)", a, fdiv ? "/" : "%", b);
        return T->pydivmod(T->G, t, fdiv, a, b);
    }
    if (!e->cdivision) {
        b = T->once(T->G, t, b, e->pos);
        /* Cython's messages: "float division" for //, "float divmod()" for % */
        zero_check(T, e->args[1], b, fdiv ? CY_FAIL_ZERODIV_FLOAT : CY_FAIL_ZERODIV_DIVMOD, E->a);
        return T->pydivmod(T->G, t, fdiv, a, b);
    }
    if (fdiv) return cy_fmt(E->a, "%s(%s / %s)", T->libm(T->G, "floor", t), cy_c_paren(E->a, a), cy_c_paren(E->a, b));
    return cy_fmt(E->a, "%s(%s, %s)", T->libm(T->G, "fmod", t), a, b);
}

const char *cy_lower_cast(CyEmit *E, const CyTarget *T, IrExpr *e) {
    const CyType *t = e->ty;
    uint64_t bits;
    double fv;
    switch (cy_fold_cast(e, &bits, &fv)) {
    case 1: return T->int_lit(T->G, t, bits);
    case 2: return T->float_lit(T->G, t, fv);
    }
    const char *c = T->cast(T->G, e);
    if (c) return c;
    c = T->expr(T->G, e->args[0]);
    if (t->kind == TY_BINT) return cy_fmt(E->a, "(%s != 0)", cy_c_paren(E->a, c));
    return cy_fmt(E->a, "((%s)%s)", T->type(T->G, t, e->pos), cy_c_paren(E->a, c));
}

/* ---- loops ---------------------------------------------------------------- */

const char *cy_trip_count(CyArena *a, const char *ca, const char *cb, const char *la, const char *lb, int64_t st,
                          const char *lst, int start0, const char *suf, const char *zero) {
    if (!st) {
        const char *up = cy_fmt(a, "%s > %s ? (%s - %s + %s - 1) / %s : %s", cb, ca, lb, la, lst, lst, zero);
        const char *down = cy_fmt(a, "%s > %s ? (%s - %s - %s - 1) / -%s : %s", ca, cb, la, lb, lst, lst, zero);
        return cy_fmt(a, "%s > 0 ? (%s) : (%s)", lst, up, down);
    }
    if (st == 1 && start0) return cy_fmt(a, "%s > 0 ? %s : %s", cb, lb, zero);
    if (st == 1) return cy_fmt(a, "%s > %s ? %s - %s : %s", cb, ca, lb, la, zero);
    if (st == -1) return cy_fmt(a, "%s > %s ? %s - %s : %s", ca, cb, la, lb, zero);
    if (st > 0)
        return cy_fmt(a, "%s > %s ? (%s - %s + %" PRId64 "%s) / %" PRId64 "%s : %s", cb, ca, lb, la, st - 1, suf, st, suf,
                      zero);
    return cy_fmt(a, "%s > %s ? (%s - %s + %" PRId64 "%s) / %" PRId64 "%s : %s", ca, cb, la, lb, -st - 1, suf, -st, suf,
                  zero);
}

const char *cy_index_at(CyArena *a, const char *start, const char *it, const char *step, const char *cast) {
    const char *x = step ? cy_fmt(a, "%s * %s", cy_c_paren(a, it), cy_c_paren(a, step)) : it;
    if (start) x = cy_fmt(a, "%s + %s", cy_c_paren(a, start), step ? x : cy_c_paren(a, it));
    return cast ? cy_fmt(a, "(%s)(%s)", cast, x) : x;
}

/* The end of a loop: the closing brace, the else clause, the label a
 * break out of the loop jumps to (past the else clause). */
static void loop_close(CyEmit *E, const CyTarget *T, IrStmt *s, void *loop, CyRange *r) {
    cy_emit_line(E, "}");
    if (r) T->range_end(T->G, r);
    const char *brk = T->loop_pop(T->G, loop);
    T->orelse(T->G, &s->orelse);
    if (brk) cy_emit_line(E, "%s: ;", brk);
}

void cy_lower_while(CyEmit *E, const CyTarget *T, IrStmt *s) {
    CyCap cap;
    cy_cap_begin(E, &cap, E->ind + 1);
    const char *c = T->loop_cond(T->G, s->cond);
    const char *code = cy_cap_end(E, &cap);
    void *loop = T->loop_push(T->G, s->orelse.len > 0);
    if (!*code) {
        cy_emit_line(E, "while %s {", cy_c_wrapped(c) ? c : cy_fmt(E->a, "(%s)", c));
    } else {
        cy_emit_line(E, "for (;;) {");
        cy_buf_puts(E->out, code);
        E->ind++;
        cy_emit_line(E, "if (!%s) break;", cy_c_paren(E->a, c));
        E->ind--;
    }
    T->block(T->G, &s->body);
    loop_close(E, T, s, loop, NULL);
}

void cy_lower_for_range(CyEmit *E, const CyTarget *T, IrStmt *s, CyRange *r) {
    IrVar *v = s->var;
    const CyType *t = v->ty;
    r->s = s;
    r->incr = "";
    r->a = T->expr(T->G, s->start);
    r->b = T->expr(T->G, s->stop);
    /* the stop value is taken once, even if the body assigns a variable in it */
    if (!cy_c_simple(r->b) || (s->stop->kind == E_VAR && cy_ir_assigns(&s->body, s->stop->var)))
        r->b = T->temp(T->G, t, r->b, s->pos);
    r->step = s->step ? T->expr(T->G, s->step) : "1";
    r->sv = 1;
    r->sconst = s->step ? cy_const_int(s->step, &r->sv) : 1;
    if (!r->sconst) {
        r->step = T->once(T->G, t, r->step, s->pos);
        T->check(T->G, cy_fmt(E->a, "%s == 0", r->step), CY_FAIL_RANGE_STEP, s->pos);
    }
    T->range_prepare(T->G, r);
    const char *k = T->name(T->G), *a = r->a, *b = r->b, *c = r->step, *p = r->incr;
    void *loop = T->loop_push(T->G, s->orelse.len > 0);
    const char *d = cy_fmt(E->a, "%s %s", T->type(T->G, t, s->pos), k);
    int64_t sv = r->sv;
    if (r->sconst && sv < 0 && cy_type_is_int(t) && t->kind != TY_BINT && !t->is_signed) {
        /* counting an unsigned variable down to a stop within a step of 0
           (range(n - 1, -1, -1)): Cython's loop, shifted by the step, so
           that the stop converted to the type (-1 + 1 = 0) still ends it */
        const char *m = cy_fmt(E->a, "%" PRId64, -sv);
        cy_emit_line(E, "for (%s = %s + %s; %s > (%s)(%s + %s); ) {", d, a, m, k, T->type(T->G, t, s->pos), b, m);
        E->ind++;
        cy_emit_line(E, "%s -= %s%s;", k, m, p);
        E->ind--;
    } else if (r->sconst && sv == 1) cy_emit_line(E, "for (%s = %s; %s < %s; %s++%s) {", d, a, k, b, k, p);
    else if (r->sconst && sv == -1) cy_emit_line(E, "for (%s = %s; %s > %s; %s--%s) {", d, a, k, b, k, p);
    else if (r->sconst) cy_emit_line(E, "for (%s = %s; %s %s %s; %s += %s%s) {", d, a, k, sv > 0 ? "<" : ">", b, k, c, p);
    else cy_emit_line(E, "for (%s = %s; %s > 0 ? %s < %s : %s > %s; %s += %s%s) {", d, a, c, k, b, k, b, k, c, p);
    E->ind++;
    cy_emit_line(E, "%s = %s;", v->cname, k);
    E->ind--;
    T->block(T->G, &s->body);
    loop_close(E, T, s, loop, r);
}

/* ---- powers and calls ------------------------------------------------------- */

const char *cy_lower_pow(CyEmit *E, const CyTarget *T, IrExpr *e) {
    const CyType *t = e->ty;
    const char *a = T->expr(T->G, e->args[0]), *b = T->expr(T->G, e->args[1]);
    if (e->soft_pow) {
        /* Cython's complex power: its real part, TypeError for a complex
           one (only native code has it: ir/analyze.c keeps it off OpenCL) */
        const char *z = T->once(T->G, cy_type_scalar(TY_CDOUBLE), cy_fmt(E->a, "cyrt_soft_pow(%s, %s)", a, b), e->pos);
        T->check(T->G, cy_fmt(E->a, "cimag(%s) != 0", z), CY_FAIL_SOFT_POW, e->pos);
        return cy_fmt(E->a, "creal(%s)", z);
    }
    if (cy_type_is_float(t)) return cy_fmt(E->a, "%s(%s, %s)", T->libm(T->G, "pow", t), a, b);
    return T->pow(T->G, t, a, b);
}

static const char *join_args(CyEmit *E, const CyTarget *T, IrExpr *e) {
    CyBuf b = {0};
    for (int i = 0; i < e->nargs; i++) cy_buf_printf(&b, "%s%s", i ? ", " : "", T->expr(T->G, e->args[i]));
    const char *r = b.len ? cy_strndup(E->a, b.s, b.len) : "";
    cy_buf_free(&b);
    return r;
}

const char *cy_lower_call_c(CyEmit *E, const CyTarget *T, IrExpr *e) {
    const char *name = e->kind == E_CALL ? e->fn->cname : e->sval ? e->sval : "";
    int builtin = e->kind == E_CALL_C && !e->fn;
    if (builtin && !strcmp(name, "cyrt_abs")) return T->abs(T->G, e, T->expr(T->G, e->args[0]));
    const char *args = join_args(E, T, e);
    int is_float;
    const CyLibm *m = builtin ? cy_libm(name, &is_float) : NULL;
    if (!m) return T->call_c(T->G, e, name, args);
    const char *fn = T->libm(T->G, m->name, cy_type_scalar(is_float ? TY_FLOAT : TY_DOUBLE));
    const char *r = cy_fmt(E->a, "%s(%s)", fn, args);
    /* signbit of a float: gcc's x86-64 scalar code (Cython's build outside
       vectorized loops) gives the sign bit in place, INT_MIN; OpenCL's and
       a double's give 1. One value everywhere: gcc's scalar one. */
    if (!strcmp(m->name, "signbit") && e->nargs == 1 && e->args[0]->ty->kind == TY_FLOAT)
        r = cy_fmt(E->a, "(%s ? (-2147483647 - 1) : 0)", r);
    /* lround(x) as (long)round(x) where the target has no lround */
    if (m->ret != TY_DOUBLE && strcmp(fn, m->name)) r = cy_fmt(E->a, "((%s)%s)", T->type(T->G, e->ty, e->pos), r);
    return r;
}

const char *cy_lower_minmax(CyEmit *E, const CyTarget *T, IrExpr *e) {
    int pre = 0;
    /* two arguments that may raise: computed first, so that the first one
       Cython evaluates raises first */
    if (cy_order_matters(e))
        for (int i = 0; i < e->norder; i++) {
            IrExpr *x = e->order[i];
            const char *c = T->once(T->G, x->ty, T->expr(T->G, x), x->pos);
            cy_vec_push(E->a, T->subst, x);
            cy_vec_push(E->a, T->subst, (void *)c);
            pre += 2;
        }
    const char *a = T->expr(T->G, e->args[0]), *b = T->expr(T->G, e->args[1]);
    const char *r = T->minmax(T->G, e, a, b);
    T->subst->len -= pre;
    return r;
}

const char *cy_lower_call(CyEmit *E, const CyTarget *T, IrExpr *e) {
    const char **args = cy_alloc(E->a, (size_t)(e->nargs + 2) * sizeof *args);
    for (int i = 0; i < e->nargs; i++) args[i] = T->expr(T->G, e->args[i]);
    return T->call(T->G, e, args);
}

/* ---- view elements ---------------------------------------------------------- */

void cy_lower_view_index(CyEmit *E, const CyTarget *T, IrExpr *e, void *view, const char **idx) {
    int nd = e->args[0]->ty->ndim, check[CY_MAX_NDIM] = {0};
    const CyType *ss = cy_type_scalar(TY_SSIZE);
    CyIndexFact f[CY_MAX_NDIM];
    for (int k = 0; k < nd; k++) {
        IrExpr *ie = e->args[1 + k];
        memset(&f[k], 0, sizeof f[k]);
        T->index_fact(T->G, e, k, &f[k]);
        if (f[k].repl) {
            idx[k] = f[k].repl;
            continue;
        }
        const char *c = T->expr(T->G, ie);
        int64_t cv;
        int isc = cy_const_int(ie, &cv);
        int uns = !ie->ty->is_signed && ie->ty->kind != TY_BINT;
        int wrap = e->wraparound && !uns && !(isc && cv >= 0) && !f[k].checked && !f[k].nonneg;
        check[k] = e->boundscheck && !f[k].checked;
        if (wrap || check[k]) {
            if (wrap || !cy_c_simple(c)) c = T->temp(T->G, ss, c, e->pos);
            if (wrap) cy_emit_line(E, "if (%s < 0) %s += %s;", c, c, T->view_shape(T->G, view, k));
        }
        idx[k] = c;
    }
    /* wraparound alone does not check bounds (Cython's boundscheck=False) */
    const char *sz = T->type(T->G, cy_type_scalar(TY_SIZE), e->pos);
    for (int k = nd - 1; k >= 0; k--)
        if (check[k])
            T->check(T->G, cy_fmt(E->a, "(%s)%s >= (%s)%s", sz, idx[k], sz, T->view_shape(T->G, view, k)),
                     (CyFail)(CY_FAIL_BOUNDS + k), e->pos);
    for (int k = 0; k < nd; k++) {
        IrExpr *ie = e->args[1 + k];
        int64_t cv;
        if (!ie->ty->is_signed && ie->ty->kind != TY_BINT && !cy_const_int(ie, &cv) && !f[k].repl)
            idx[k] = cy_fmt(E->a, "(%s)%s", T->type(T->G, ss, e->pos), cy_c_paren(E->a, idx[k]));
    }
}

/* ---- assignments ------------------------------------------------------------ */

static int calls(const IrExpr *e, const void *arg) {
    (void)arg;
    return e->kind == E_CALL || e->kind == E_CALL_PTR || e->kind == E_CALL_C;
}

void cy_lower_assign(CyEmit *E, const CyTarget *T, IrStmt *s) {
    if (T->assign(T->G, s)) return;
    IrExpr *t = s->target;
    const char *rv = T->expr(T->G, s->value);
    const char *lv = T->lvalue(T->G, t);
    if (!lv) return;
    if (s->op) {
        IrOp op = T->update_op(T->G, s);
        /* a wrapping `x op= v`: the target's text is repeated, so only
           where evaluating it twice is evaluating it once (no calls) */
        if (cy_arith_wraps(t->ty, op) && cy_type_is_int(s->value->ty) && !cy_ir_expr_any(t, calls, NULL)) {
            const char *w = T->wrapv(T->G, t->ty, cy_op_name(op), lv, rv);
            if (w) {
                cy_emit_line(E, "%s = %s;", lv, w);
                return;
            }
        }
        cy_emit_line(E, "%s %s= %s;", lv, cy_op_name(op), rv);
    }
    else if (t->ty->kind == TY_ARRAY) T->copy_array(T->G, t->ty, lv, rv, s->pos);
    else cy_emit_line(E, "%s = %s;", lv, rv);
}

/* ---- expressions ------------------------------------------------------------ */

const char *cy_lower_expr(CyEmit *E, const CyTarget *T, IrExpr *e) {
    CyArena *a = E->a;
    switch (e->kind) {
    case E_INT: return T->int_lit(T->G, e->ty, e->ival);
    case E_FLOAT: return T->float_lit(T->G, e->ty, e->fval);
    case E_BINOP: return cy_lower_binop(E, T, e);
    case E_PYFLOORDIV: case E_PYMOD: return cy_lower_divmod(E, T, e);
    case E_UNOP: return cy_lower_arith(E, T, e->ty, e->op, T->expr(T->G, e->args[0]), NULL);
    case E_NOT: return cy_fmt(a, "(!%s)", cy_c_paren(a, T->expr(T->G, e->args[0])));
    case E_AND: case E_OR: case E_VAND: case E_VOR: case E_COND: return cy_lower_shortcircuit(E, T, e);
    case E_CMP: {
        const char *l = T->expr(T->G, e->args[0]), *r = T->expr(T->G, e->args[1]);
        return cy_fmt(a, "(%s %s %s)", l, cy_op_name(e->op), r);
    }
    case E_CAST: return cy_lower_cast(E, T, e);
    case E_PTR_INDEX: {
        const char *p = T->expr(T->G, e->args[0]), *i = T->expr(T->G, e->args[1]);
        return cy_fmt(a, "%s[%s]", cy_c_paren(a, p), i);
    }
    case E_POW: return cy_lower_pow(E, T, e);
    case E_CALL_C: return cy_lower_call_c(E, T, e);
    case E_MINMAX: return cy_lower_minmax(E, T, e);
    case E_CALL_PTR: {
        CyBuf b = {0};
        for (int i = 1; i < e->nargs; i++) cy_buf_printf(&b, "%s%s", i > 1 ? ", " : "", T->expr(T->G, e->args[i]));
        const char *r = cy_fmt(a, "(%s)(%s)", cy_c_paren(a, T->expr(T->G, e->args[0])), b.len ? b.s : "");
        cy_buf_free(&b);
        return r;
    }
    default: return NULL;
    }
}
