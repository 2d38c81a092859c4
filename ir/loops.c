/* loops.c: the loop nest of a prange region as data — the planner's input
 * (issue 17).  For each region: its loops (the prange, then every range()
 * loop under it, preorder) with bounds and a constant trip count where one
 * is known; every view access with its index on each axis as an affine map
 * over the loops (a constant coefficient per loop, plus an offset that the
 * nest does not change, or "not affine"); and the scalar reductions each
 * serial loop carries (`s = s + a[i, k] * b[k, j]` over k).
 *
 * Facts only: nothing here changes the IR, and a fact is recorded only
 * where it holds for every execution (an index that depends on a value the
 * region computes is "not affine"; a variable read other than in its own
 * update is no reduction).  Whether a schedule built on them is exact —
 * aliasing between views, Cython's order of floating-point operations — is
 * the planner's question. */
#include "ir.h"
#include <string.h>

typedef struct {
    CyArena *a;
    IrNest *n;
    IrScan sc;       /* what the region assigns: not invariant */
    IrLoop *stack[IR_MAX_LOOPS];
    int depth;
} L;

static int is_assigned(const L *l, const IrVar *v) {
    for (int i = 0; i < l->sc.assigned.len; i++)
        if (l->sc.assigned.items[i] == v) return 1;
    for (int i = 0; i < l->sc.ranged.len; i++)
        if (l->sc.ranged.items[i] == v) return 1;
    return 0;
}

static int loop_of(const L *l, const IrVar *v) {
    for (int i = 0; i < l->n->loops.len; i++)
        if (((IrLoop *)l->n->loops.items[i])->var == v) return i;
    return -1;
}

/* The expression reads nothing the region changes (so it has one value per
 * region entry) and calls nothing. */
static int invariant(const L *l, const IrExpr *e) {
    if (!e) return 1;
    switch (e->kind) {
    case E_VAR: return !is_assigned(l, e->var) && loop_of(l, e->var) < 0; /* the prange's index is no assignment */
    case E_INT: case E_FLOAT: case E_VIEW_SHAPE: case E_VIEW_STRIDE: case E_VIEW_NDIM: case E_SIZEOF:
        break;
    case E_BINOP: case E_UNOP: case E_CAST: case E_PYFLOORDIV: case E_PYMOD: case E_CMP: case E_COND:
        break;
    default: return 0;
    }
    for (int i = 0; i < e->nargs; i++)
        if (e->kind != E_VIEW_SHAPE && e->kind != E_VIEW_STRIDE && !invariant(l, e->args[i])) return 0;
    return 1;
}

static void aff_add(IrAffine *r, const IrAffine *x, int64_t k) {
    if (r->nterms + x->nterms > IR_MAX_TERMS) {
        r->affine = 0;
        return;
    }
    for (int i = 0; i < IR_MAX_LOOPS; i++) r->coef[i] += k * x->coef[i];
    r->konst += k * x->konst;
    for (int i = 0; i < x->nterms; i++) {
        r->term[r->nterms] = x->term[i];
        r->tcoef[r->nterms++] = k * x->tcoef[i];
    }
}

/* e as an affine map over the nest's loops; r->affine = 0 when it is not. */
static void affine(const L *l, const IrExpr *e, IrAffine *r) {
    memset(r, 0, sizeof *r);
    r->affine = 1;
    int64_t c;
    if (cy_const_int(e, &c)) {
        r->konst = c;
        return;
    }
    while (e->kind == E_CAST && cy_type_is_int(e->ty) && e->args[0]->ty && cy_type_is_int(e->args[0]->ty))
        e = e->args[0];
    if (e->kind == E_VAR) {
        int k = loop_of(l, e->var);
        if (k >= 0) {
            r->coef[k] = 1;
            return;
        }
    }
    if (e->kind == E_BINOP && (e->op == OP_ADD || e->op == OP_SUB)) {
        IrAffine x, y;
        affine(l, e->args[0], &x);
        affine(l, e->args[1], &y);
        if (x.affine && y.affine) {
            aff_add(r, &x, 1);
            aff_add(r, &y, e->op == OP_SUB ? -1 : 1);
            if (r->affine) return;
        }
    } else if (e->kind == E_BINOP && e->op == OP_MUL) {
        IrAffine x;
        if (cy_const_int(e->args[0], &c)) affine(l, e->args[1], &x);
        else if (cy_const_int(e->args[1], &c)) affine(l, e->args[0], &x);
        else x.affine = 0;
        if (x.affine) {
            aff_add(r, &x, c);
            return;
        }
    } else if (e->kind == E_UNOP && e->op == OP_NEG) {
        IrAffine x;
        affine(l, e->args[0], &x);
        if (x.affine) {
            aff_add(r, &x, -1);
            return;
        }
    }
    if (invariant(l, e)) { /* an offset the nest does not change */
        r->term[0] = e;
        r->tcoef[0] = 1;
        r->nterms = 1;
        return;
    }
    r->affine = 0;
}

static void access(L *l, const IrExpr *e, int write) {
    IrAccess *x = cy_alloc(l->a, sizeof *x);
    x->view = e->args[0]->kind == E_VAR ? e->args[0]->var : NULL;
    x->write = write;
    x->pos = e->pos;
    x->ndim = e->nargs - 1 < CY_MAX_NDIM ? e->nargs - 1 : CY_MAX_NDIM;
    x->loop = l->depth ? l->stack[l->depth - 1] : NULL;
    for (int i = 0; i < x->ndim; i++) affine(l, e->args[i + 1], &x->idx[i]);
    cy_vec_push(l->a, &l->n->accesses, x);
    for (int d = 0; d < l->depth; d++) cy_vec_push(l->a, write ? &l->stack[d]->writes : &l->stack[d]->reads, x);
}

static void exprs(L *l, const IrExpr *e) {
    if (!e) return;
    if (e->kind == E_VIEW_ELEM) access(l, e, 0);
    for (int i = 0; i < e->nargs; i++) exprs(l, e->args[i]);
}

/* ---- reductions per loop ------------------------------------------------
 * v is a reduction over loop p when every statement of p's body that
 * assigns v is `v = v OP e` or `v OP= e` with one OP, e does not read v,
 * and v is read nowhere else in the body. */

typedef struct {
    const IrVar *v;
    IrOp op;
    int updates, other_reads, bad;
} Red;

static int reads_var(const IrExpr *e, const IrVar *v) {
    if (!e) return 0;
    if (e->kind == E_VAR && e->var == v) return 1;
    for (int i = 0; i < e->nargs; i++)
        if (reads_var(e->args[i], v)) return 1;
    return 0;
}

static int reduction_op(IrOp op) {
    return op == OP_ADD || op == OP_MUL || op == OP_SUB || op == OP_BITAND || op == OP_BITOR || op == OP_BITXOR;
}

static IrOp update_op(const IrStmt *x, const IrVar *v, const IrExpr **rest) {
    if (x->op) {
        if (!reduction_op(x->op)) return OP_NONE;
        *rest = x->value;
        return x->op;
    }
    const IrExpr *e = x->value;
    while (e && e->kind == E_CAST && cy_type_equal(e->ty, v->ty)) e = e->args[0];
    if (!e || e->kind != E_BINOP || !reduction_op(e->op)) return OP_NONE;
    const IrExpr *a0 = e->args[0];
    while (a0->kind == E_CAST) a0 = a0->args[0];
    if (a0->kind == E_VAR && a0->var == v) {
        *rest = e->args[1];
        return e->op;
    }
    const IrExpr *a1 = e->args[1];
    while (a1->kind == E_CAST) a1 = a1->args[0];
    if (e->op != OP_SUB && a1->kind == E_VAR && a1->var == v) { /* e OP v, OP commutative */
        *rest = e->args[0];
        return e->op;
    }
    return OP_NONE;
}

static void red_scan(Red *r, const CyVec *body) {
    for (int i = 0; i < body->len && !r->bad; i++) {
        const IrStmt *x = body->items[i];
        if (x->kind == ST_ASSIGN && x->target && x->target->kind == E_VAR && x->target->var == r->v) {
            const IrExpr *rest = NULL;
            IrOp op = update_op(x, r->v, &rest);
            if (!op || (r->op && op != r->op) || reads_var(rest, r->v)) {
                r->bad = 1;
                return;
            }
            r->op = op;
            r->updates++;
            continue;
        }
        if (x->var == r->v) { /* a loop variable */
            r->bad = 1;
            return;
        }
        if (reads_var(x->target, r->v) || reads_var(x->value, r->v) || reads_var(x->cond, r->v) ||
            reads_var(x->start, r->v) || reads_var(x->stop, r->v) || reads_var(x->step, r->v))
            r->other_reads = 1;
        if (x->kind == ST_PRANGE || x->kind == ST_PARALLEL || x->kind == ST_WHILE || x->kind == ST_BREAK ||
            x->kind == ST_RETURN)
            r->bad = 1;
        red_scan(r, &x->body);
        red_scan(r, &x->orelse);
    }
}

static void loop_reductions(L *l, IrLoop *p, const CyVec *body) {
    IrScan sc = {0};
    cy_ir_scan(l->a, &sc, (CyVec *)body);
    for (int i = 0; i < sc.assigned.len; i++) {
        IrVar *v = sc.assigned.items[i];
        if (!cy_type_is_numeric(v->ty)) continue;
        Red r = {v, OP_NONE, 0, 0, 0};
        red_scan(&r, body);
        if (r.bad || r.other_reads || !r.updates) continue;
        int dup = 0;
        for (int k = 0; k < p->reductions.len && !dup; k++) dup = ((IrLoopRed *)p->reductions.items[k])->var == v;
        if (dup) continue;
        IrLoopRed *x = cy_alloc(l->a, sizeof *x);
        x->var = v;
        x->op = r.op;
        cy_vec_push(l->a, &p->reductions, x);
    }
}

/* ---- the walk ----------------------------------------------------------- */

int64_t cy_trip_const(int64_t a, int64_t b, int64_t s) {
    /* the distance in unsigned arithmetic: b - a may not fit an int64_t */
    uint64_t n = s > 0 ? (b > a ? ((uint64_t)b - (uint64_t)a + (uint64_t)s - 1) / (uint64_t)s : 0)
                       : (a > b ? ((uint64_t)a - (uint64_t)b + (uint64_t)-s - 1) / (uint64_t)-s : 0);
    return n > (uint64_t)INT64_MAX ? -1 : (int64_t)n;
}

/* v is a value of the loop variable's type t (cy_const_int looks through
 * the conversion that would change it) */
static int fits(const CyType *t, int64_t v) {
    if (!cy_type_is_int(t) || t->size >= 8) return t->is_signed || v >= 0 || !cy_type_is_int(t);
    int bits = t->size * 8;
    return t->is_signed ? v >= -(INT64_C(1) << (bits - 1)) && v < (INT64_C(1) << (bits - 1)) : v >= 0 && v < (INT64_C(1) << bits);
}

static void stmts(L *l, const CyVec *body);

static IrLoop *enter(L *l, IrStmt *x, IrVar *var, IrExpr *start, IrExpr *stop, IrExpr *step, int parallel) {
    if (l->depth >= IR_MAX_LOOPS) {
        l->n->too_deep = 1;
        return NULL;
    }
    IrLoop *p = cy_alloc(l->a, sizeof *p);
    p->var = var;
    p->stmt = x;
    p->depth = l->depth;
    p->parallel = parallel;
    p->start = start;
    p->stop = stop;
    p->step = step;
    p->invariant_bounds = invariant(l, start) && invariant(l, stop) && invariant(l, step);
    int64_t a, b, s = 1;
    p->trip = -1;
    if (cy_const_int(start, &a) && cy_const_int(stop, &b) && (!step || cy_const_int(step, &s)) && s != 0 &&
        fits(var->ty, a) && fits(var->ty, b))
        p->trip = cy_trip_const(a, b, s);
    p->parent = l->depth ? l->stack[l->depth - 1] : NULL;
    cy_vec_push(l->a, &l->n->loops, p);
    l->stack[l->depth++] = p;
    return p;
}

static void stmt(L *l, IrStmt *x) {
    exprs(l, x->value);
    exprs(l, x->cond);
    if (x->target && x->target->kind == E_VIEW_ELEM) {
        for (int i = 0; i < x->target->nargs; i++) exprs(l, x->target->args[i]);
        if (x->op) access(l, x->target, 0); /* a[i] += v reads a[i] too */
        access(l, x->target, 1);
    } else {
        exprs(l, x->target);
    }
    if (x->kind == ST_FOR_RANGE) {
        exprs(l, x->start);
        exprs(l, x->stop);
        exprs(l, x->step);
        IrLoop *p = enter(l, x, x->var, x->start, x->stop, x->step, 0);
        stmts(l, &x->body);
        if (p) {
            loop_reductions(l, p, &x->body);
            l->depth--;
        }
        stmts(l, &x->orelse);
        return;
    }
    stmts(l, &x->body);
    stmts(l, &x->orelse);
}

static void stmts(L *l, const CyVec *body) {
    for (int i = 0; i < body->len; i++) stmt(l, body->items[i]);
}

/* Every (written view, other view) pair, once: two view arguments may be
 * views of one buffer, which nothing at compile time rules out. */
static void alias_pairs(L *l) {
    CyVec seen = {0};
    for (int i = 0; i < l->n->accesses.len; i++) {
        IrAccess *x = l->n->accesses.items[i];
        int dup = 0;
        for (int k = 0; k < seen.len && !dup; k++) dup = seen.items[k] == x->view;
        if (x->view && !dup) cy_vec_push(l->a, &seen, x->view);
    }
    for (int w = 0; w < seen.len; w++) {
        IrVar *v = seen.items[w];
        int written = 0;
        for (int i = 0; i < l->n->accesses.len && !written; i++) {
            IrAccess *x = l->n->accesses.items[i];
            written = x->view == v && x->write;
        }
        if (!written) continue;
        for (int o = 0; o < seen.len; o++) {
            IrVar *u = seen.items[o];
            if (u == v) continue;
            int dup = 0; /* (u, v) already, u written too */
            for (int k = 0; k + 1 < l->n->alias.len && !dup; k += 2)
                dup = l->n->alias.items[k] == u && l->n->alias.items[k + 1] == v;
            if (dup) continue;
            cy_vec_push(l->a, &l->n->alias, v);
            cy_vec_push(l->a, &l->n->alias, u);
        }
    }
}

void cy_ir_loops(CyArena *a, IrRegion *r, IrStmt *x) {
    if (!r->is_prange || !x || x->kind != ST_PRANGE) return;
    L l0 = {.a = a, .n = cy_alloc(a, sizeof(IrNest))}, *l = &l0;
    cy_ir_scan(a, &l->sc, &x->body);
    r->nest = l->n;
    enter(l, x, r->index, r->start, r->stop, r->step, 1);
    stmts(l, &x->body);
    /* the prange's own reductions are Cython's (IrVarUse); the serial loops' are found above */
    l->depth = 0;
    alias_pairs(l);
}
