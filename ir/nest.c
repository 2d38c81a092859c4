/* nest.c: loop-nest facts of a region — which variables its body uses and
 * assigns, and whether the range() loop inside a prange may run as one
 * iteration space with it ("collapsed"), with the aliasing the runtime must
 * rule out per call for that to be exact (DESIGN §9).
 *
 * A prange's iterations are the user's promise of independence; a serial
 * range() inside it is not.  Running its iterations in parallel is exact
 * only when they are independent: bounds the region does not change, no
 * `break` out of the loop, every variable its body assigns is assigned
 * before it is read in each iteration (reductions aside), and each view it
 * writes is accessed only at one index tuple that is injective in the loop
 * variable (a[i, j] = a[i, j] * s is fine; a[i, j] = a[i, j - 1] is not).
 * That reasoning is about view *variables*; two variables may name the same
 * memory (shift(a, a), or b[:-1] and b[1:]).  So every pair of a view the
 * loop writes and another view it accesses is recorded, and the collapsed
 * kernel runs only when the pair's byte extents are disjoint in that call:
 * otherwise the runtime takes the kernel that keeps the loop serial. */
#include "ir.h"
#include <string.h>

int cy_order_matters(const IrExpr *e) {
    int raising = 0;
    for (int i = 0; i < e->norder; i++) raising += e->order[i]->can_raise;
    return raising > 1;
}

int cy_const_int(const IrExpr *e, int64_t *v) {
    while (e && e->kind == E_CAST && cy_type_is_int(e->ty)) e = e->args[0];
    if (!e || e->kind != E_INT || !cy_type_is_int(e->ty)) return 0;
    *v = (int64_t)e->ival;
    return 1;
}

static int has(const CyVec *v, const void *p) {
    for (int i = 0; i < v->len; i++)
        if (v->items[i] == p) return 1;
    return 0;
}

static void add(CyArena *a, CyVec *v, void *p) {
    if (!has(v, p)) cy_vec_push(a, v, p);
}

static CyVec vcopy(CyArena *a, const CyVec *v) {
    CyVec c = {0};
    for (int i = 0; i < v->len; i++) cy_vec_push(a, &c, v->items[i]);
    return c;
}

/* ---- variable scans ----------------------------------------------------- */

static void scan_expr(CyArena *a, IrScan *sc, IrExpr *e) {
    if (!e) return;
    if (e->kind == E_VAR && !has(&sc->used, e->var)) cy_vec_push(a, &sc->used, e->var);
    for (int i = 0; i < e->nargs; i++) scan_expr(a, sc, e->args[i]);
}

static int nonneg_range(const IrStmt *x) {
    int64_t a, s = 1;
    return cy_const_int(x->start, &a) && a >= 0 && (!x->step || (cy_const_int(x->step, &s) && s > 0));
}

void cy_ir_scan(CyArena *a, IrScan *sc, CyVec *body) {
    for (int i = 0; i < body->len; i++) {
        IrStmt *x = body->items[i];
        if (x->kind == ST_ASSIGN && x->target->kind == E_VAR) cy_vec_push(a, &sc->assigned, x->target->var);
        if (x->var) {
            if (!has(&sc->used, x->var)) cy_vec_push(a, &sc->used, x->var);
            if (x->kind == ST_FOR_RANGE && nonneg_range(x)) cy_vec_push(a, &sc->ranged, x->var);
            else cy_vec_push(a, &sc->assigned, x->var);
        }
        scan_expr(a, sc, x->target);
        scan_expr(a, sc, x->value);
        scan_expr(a, sc, x->cond);
        scan_expr(a, sc, x->start);
        scan_expr(a, sc, x->stop);
        scan_expr(a, sc, x->step);
        cy_ir_scan(a, sc, &x->body);
        cy_ir_scan(a, sc, &x->orelse);
    }
}

int cy_ir_expr_any(const IrExpr *e, int (*pred)(const IrExpr *e, const void *arg), const void *arg) {
    if (!e) return 0;
    if (pred(e, arg)) return 1;
    for (int i = 0; i < e->nargs; i++)
        if (cy_ir_expr_any(e->args[i], pred, arg)) return 1;
    for (int i = 0; i < e->nkw; i++)
        if (cy_ir_expr_any(e->kwargs[i], pred, arg)) return 1;
    if (e->kind == E_VIEW_SLICE)
        for (int i = 0; i < e->args[0]->ty->ndim; i++)
            if (cy_ir_expr_any(e->slices[i].start, pred, arg) || cy_ir_expr_any(e->slices[i].stop, pred, arg) ||
                cy_ir_expr_any(e->slices[i].step, pred, arg))
                return 1;
    return 0;
}

/* &v, or a comprehension's statements changing v */
static int changes(const IrExpr *e, const void *v) {
    return (e->kind == E_ADDR && e->args[0]->kind == E_VAR && e->args[0]->var == v) ||
           (e->kind == E_STMTS && cy_ir_assigns(&e->stmts, v));
}

static int addr_taken(const IrExpr *e, const IrVar *v) { return cy_ir_expr_any(e, changes, v); }

int cy_ir_assigns(const CyVec *body, const IrVar *v) {
    for (int i = 0; i < body->len; i++) {
        const IrStmt *x = body->items[i];
        if (x->kind == ST_ASSIGN && x->target->kind == E_VAR && x->target->var == v) return 1;
        if (x->var == v || (x->region && x->region->index == v)) return 1;
        for (int k = 0; k < x->ntargets; k++)
            if (x->targets[k]->kind == E_VAR && x->targets[k]->var == v) return 1;
        if (addr_taken(x->target, v) || addr_taken(x->value, v) || addr_taken(x->cond, v) || addr_taken(x->start, v) ||
            addr_taken(x->stop, v) || addr_taken(x->step, v))
            return 1;
        for (int k = 0; k < x->ntargets; k++)
            if (addr_taken(x->targets[k], v)) return 1;
        if (x->region) {
            const IrRegion *r = x->region;
            if (addr_taken(r->start, v) || addr_taken(r->stop, v) || addr_taken(r->step, v) ||
                addr_taken(r->chunksize, v) || addr_taken(r->num_threads, v) || addr_taken(r->use_threads_if, v))
                return 1;
        }
        if (cy_ir_assigns(&x->body, v) || cy_ir_assigns(&x->orelse, v)) return 1;
    }
    return 0;
}

/* ---- expressions -------------------------------------------------------- */

int cy_ir_expr_eq(const IrExpr *a, const IrExpr *b) {
    if (a == b) return 1;
    if (!a || !b || a->kind != b->kind || a->nargs != b->nargs || a->ival != b->ival || a->fval != b->fval ||
        a->var != b->var || a->fn != b->fn || !cy_type_equal(a->ty, b->ty))
        return 0;
    if (a->op != b->op) return 0;
    if ((a->sval || b->sval) && (!a->sval || !b->sval || strcmp(a->sval, b->sval))) return 0;
    if (a->boundscheck != b->boundscheck || a->wraparound != b->wraparound || a->cdivision != b->cdivision) return 0;
    for (int i = 0; i < a->nargs; i++)
        if (!cy_ir_expr_eq(a->args[i], b->args[i])) return 0;
    return 1;
}

static int mentions(const IrExpr *e, const CyVec *vars, const IrVar *also) {
    if (!e) return 0;
    if (e->kind == E_VAR && (has(vars, e->var) || e->var == also)) return 1;
    for (int i = 0; i < e->nargs; i++)
        if (mentions(e->args[i], vars, also)) return 1;
    return 0;
}

/* A bound the kernel computes once, before the loop, with no code of its
 * own: nothing that can raise or call. */
static int plain_bound(const IrExpr *e) {
    if (!e) return 1;
    switch (e->kind) {
    case E_INT: case E_VAR: case E_CAST: case E_UNOP: break;
    case E_BINOP:
        if (e->op == OP_DIV || e->op == OP_MOD) return 0;
        break;
    case E_PYFLOORDIV: case E_PYMOD: {
        int64_t k;
        if (!cy_const_int(e->args[1], &k) || k <= 0) return 0;
        break;
    }
    case E_MINMAX: break;
    case E_VIEW_SHAPE: {
        int64_t k;
        return e->args[0]->kind == E_VAR && cy_const_int(e->args[1], &k) && k >= 0;
    }
    default: return 0;
    }
    if (e->kind == E_VAR && e->var->ty->kind == TY_VIEW) return 0;
    if (e->kind != E_VAR && e->kind != E_INT && !cy_type_is_int(e->ty)) return 0;
    for (int i = 0; i < e->nargs; i++)
        if (!plain_bound(e->args[i])) return 0;
    return 1;
}

/* e is j + c or j - c (through widening integer casts) */
static int injective(const IrExpr *e, const IrVar *j) {
    while (e->kind == E_CAST && cy_type_is_int(e->ty) && cy_type_is_int(e->args[0]->ty) &&
           e->ty->size >= e->args[0]->ty->size &&
           (e->ty->size > e->args[0]->ty->size || e->ty->is_signed == e->args[0]->ty->is_signed))
        e = e->args[0];
    if (e->kind == E_VAR) return e->var == j;
    int64_t k;
    if (e->kind == E_BINOP && (e->op == OP_ADD || e->op == OP_SUB) && cy_const_int(e->args[1], &k))
        return injective(e->args[0], j);
    if (e->kind == E_BINOP && e->op == OP_ADD && cy_const_int(e->args[0], &k)) return injective(e->args[1], j);
    return 0;
}

/* ---- independence of the inner loop's iterations -------------------------- */

typedef struct {
    CyArena *a;
    const IrRegion *R;
    CyVec *assigned; /* variables the region body assigns */
    int ok;
} Dep;

static int is_reduction(const IrRegion *R, const IrVar *v) {
    for (int i = 0; i < R->vars.len; i++) {
        const IrVarUse *x = R->vars.items[i];
        if (x->cls == RC_REDUCTION && x->var == v) return 1;
    }
    return 0;
}

static void dep_reads(Dep *d, const IrExpr *e, const CyVec *D) {
    if (!e || !d->ok) return;
    if (e->kind == E_VAR && has(d->assigned, e->var) && !has(D, e->var)) d->ok = 0;
    for (int i = 0; i < e->nargs; i++) dep_reads(d, e->args[i], D);
}

/* Definite assignment through the inner body; D: variables assigned so
 * far in this iteration.  top: statements at the inner loop's own level. */
static void dep_stmts(Dep *d, CyVec *body, CyVec *D, int top) {
    for (int i = 0; i < body->len && d->ok; i++) {
        IrStmt *x = body->items[i];
        switch (x->kind) {
        case ST_ASSIGN:
            dep_reads(d, x->value, D);
            if (x->target->kind != E_VAR) {
                dep_reads(d, x->target, D);
                break;
            }
            if (x->op && !is_reduction(d->R, x->target->var)) dep_reads(d, x->target, D);
            add(d->a, D, x->target->var);
            break;
        case ST_EXPR: dep_reads(d, x->value, D); break;
        case ST_IF: {
            dep_reads(d, x->cond, D);
            CyVec d1 = vcopy(d->a, D), d2 = vcopy(d->a, D);
            dep_stmts(d, &x->body, &d1, top);
            dep_stmts(d, &x->orelse, &d2, top);
            for (int k = 0; k < d1.len; k++)
                if (has(&d2, d1.items[k])) add(d->a, D, d1.items[k]);
            break;
        }
        case ST_WHILE: case ST_FOR_RANGE: {
            dep_reads(d, x->cond, D);
            dep_reads(d, x->start, D);
            dep_reads(d, x->stop, D);
            dep_reads(d, x->step, D);
            CyVec d1 = vcopy(d->a, D), d2 = vcopy(d->a, D);
            if (x->var) add(d->a, &d1, x->var);
            dep_stmts(d, &x->body, &d1, 0);
            dep_stmts(d, &x->orelse, &d2, top); /* the body may not run: D stays */
            break;
        }
        case ST_BREAK:
            if (top) d->ok = 0;
            break;
        case ST_CONTINUE: case ST_DECLARE: break;
        case ST_BLOCK: case ST_NOGIL: dep_stmts(d, &x->body, D, top); break;
        default: d->ok = 0; break;
        }
    }
}

/* ---- view accesses ------------------------------------------------------ */

typedef struct {
    IrVar *view;
    IrExpr *at; /* the first write */
} Written;

static void find_writes(CyArena *a, CyVec *body, CyVec *w) {
    for (int i = 0; i < body->len; i++) {
        IrStmt *x = body->items[i];
        if (x->kind == ST_ASSIGN && x->target->kind == E_VIEW_ELEM && x->target->args[0]->kind == E_VAR) {
            int seen = 0;
            for (int k = 0; k < w->len; k++) seen |= ((Written *)w->items[k])->view == x->target->args[0]->var;
            if (!seen) {
                Written *n = cy_alloc(a, sizeof *n);
                n->view = x->target->args[0]->var;
                n->at = x->target;
                cy_vec_push(a, w, n);
            }
        }
        find_writes(a, &x->body, w);
        find_writes(a, &x->orelse, w);
    }
}

static int same_element(const IrExpr *a, const IrExpr *b) {
    for (int k = 1; k < a->nargs; k++)
        if (!cy_ir_expr_eq(a->args[k], b->args[k])) return 0;
    return 1;
}

/* Every access to a written view is at its first write's index tuple;
 * every view accessed by element goes into seen. */
static int accesses_ok(CyArena *a, const IrExpr *e, const CyVec *w, CyVec *seen) {
    if (!e) return 1;
    if (e->kind == E_VIEW_ELEM && e->args[0]->kind == E_VAR) {
        add(a, seen, e->args[0]->var);
        for (int k = 0; k < w->len; k++) {
            Written *x = w->items[k];
            if (x->view == e->args[0]->var && !same_element(e, x->at)) return 0;
        }
    }
    for (int i = 0; i < e->nargs; i++)
        if (!accesses_ok(a, e->args[i], w, seen)) return 0;
    return 1;
}

static int stmts_access_ok(CyArena *a, CyVec *body, const CyVec *w, CyVec *seen) {
    for (int i = 0; i < body->len; i++) {
        IrStmt *x = body->items[i];
        if (!accesses_ok(a, x->target, w, seen) || !accesses_ok(a, x->value, w, seen) ||
            !accesses_ok(a, x->cond, w, seen) || !accesses_ok(a, x->start, w, seen) ||
            !accesses_ok(a, x->stop, w, seen) || !accesses_ok(a, x->step, w, seen) ||
            !stmts_access_ok(a, &x->body, w, seen) || !stmts_access_ok(a, &x->orelse, w, seen))
            return 0;
    }
    return 1;
}

static int view_arg(const IrRegion *R, const IrVar *v) {
    for (int i = 0; i < R->args.len; i++) {
        const IrRegionArg *x = R->args.items[i];
        if (x->kind == RA_VIEW && x->var == v) return i;
    }
    return -1;
}

/* ---- the collapse decision ------------------------------------------------ */

/* Every variable the range() loop L assigns is a lastprivate of the prange
 * (Cython's rule), and where the function reads it after the loop it must
 * hold what the sequentially last (i, j) left in it.  Collapsed, only the
 * pair (n - 1, m - 1) reports it, so each such variable must be set in
 * every j: by an unconditional assignment at L's top level, or as the
 * variable of a top-level range() loop whose trip count is the same for
 * every j.  Reductions combine instead; L's own variable is m - 1 either
 * way; a local no statement outside the prange x reads (mandelbrot's
 * temporaries) has no value to keep. */
static int lastprivates_definite(CyArena *a, IrRegion *R, IrStmt *x, IrStmt *L, const CyVec *assigned) {
    IrScan sc = {0};
    cy_ir_scan(a, &sc, &L->body);
    CyVec vs = vcopy(a, &sc.assigned);
    for (int i = 0; i < sc.ranged.len; i++) add(a, &vs, sc.ranged.items[i]);
    for (int i = 0; i < vs.len; i++) {
        IrVar *v = vs.items[i];
        if (v == L->var || is_reduction(R, v)) continue;
        int definite = 0;
        for (int k = 0; k < L->body.len && !definite; k++) {
            IrStmt *y = L->body.items[k];
            if (y->kind == ST_ASSIGN && y->op == OP_NONE && y->target->kind == E_VAR && y->target->var == v)
                definite = 1;
            else if (y->kind == ST_FOR_RANGE && y->var == v && !y->orelse.len)
                definite = !mentions(y->start, assigned, L->var) && !mentions(y->stop, assigned, L->var) &&
                           !mentions(y->step, assigned, L->var);
        }
        if (!definite && (v->kind == V_MODULE || v->kind == V_PYGLOBAL || !R->func ||
                          cy_ir_read_elsewhere(&R->func->body, x, v)))
            return 0;
    }
    return 1;
}

IrStmt *cy_ir_inner_independent(CyArena *a, IrRegion *R, IrStmt *x, CyVec *pairs) {
    pairs->len = 0;
    if (R->has_break) return NULL;
    IrStmt *L = NULL;
    for (int i = 0; i < x->body.len; i++) {
        IrStmt *y = x->body.items[i];
        if (y->kind == ST_DECLARE) continue;
        if (L || y->kind != ST_FOR_RANGE) return NULL;
        L = y;
    }
    int64_t step = 1;
    if (!L || L->orelse.len || (L->step && (!cy_const_int(L->step, &step) || step == 0))) return NULL;
    /* an unsigned variable counted down runs as Cython's loop shifted by
       the step (backends/emit.c): range(n - 1, -1, -1) ends where the stop
       converted to the type (the maximum) would end the collapsed count
       at once, so such a loop stays serial */
    if (step < 0 && !L->var->ty->is_signed) return NULL;
    if (!plain_bound(L->start) || !plain_bound(L->stop)) return NULL;
    IrScan sc = {0};
    cy_ir_scan(a, &sc, &x->body);
    CyVec assigned = vcopy(a, &sc.assigned);
    for (int i = 0; i < sc.ranged.len; i++) add(a, &assigned, sc.ranged.items[i]);
    if (mentions(L->start, &assigned, R->index) || mentions(L->stop, &assigned, R->index) ||
        mentions(L->step, &assigned, R->index))
        return NULL;
    Dep d = {a, R, &assigned, 1};
    CyVec D = {0};
    cy_vec_push(a, &D, L->var);
    dep_stmts(&d, &L->body, &D, 1);
    if (!d.ok) return NULL;
    if (!lastprivates_definite(a, R, x, L, &assigned)) return NULL;
    CyVec w = {0}, seen = {0};
    find_writes(a, &L->body, &w);
    for (int k = 0; k < w.len; k++) {
        Written *y = w.items[k];
        int inj = 0;
        for (int i = 1; i < y->at->nargs; i++) inj |= injective(y->at->args[i], L->var);
        if (!inj) return NULL;
    }
    if (!stmts_access_ok(a, &L->body, &w, &seen)) return NULL;
    /* each written view against every other view the loop accesses, once */
    for (int k = 0; k < w.len; k++) {
        IrVar *wv = ((Written *)w.items[k])->view;
        for (int i = 0; i < seen.len; i++) {
            IrVar *v = seen.items[i];
            int dup = 0;
            if (v == wv) continue;
            for (int p = 0; p + 1 < pairs->len; p += 2)
                dup |= (pairs->items[p] == wv && pairs->items[p + 1] == v) ||
                       (pairs->items[p] == v && pairs->items[p + 1] == wv);
            if (dup) continue;
            cy_vec_push(a, pairs, wv);
            cy_vec_push(a, pairs, v);
        }
    }
    return L;
}

/* The range() loop that may run as one iteration space with the prange x,
 * or NULL; the view pairs to check go into R->collapse_pairs as kernel
 * argument indices. */
static IrStmt *collapsible(CyArena *a, IrRegion *R, IrStmt *x) {
    CyVec pairs = {0};
    IrStmt *L = cy_ir_inner_independent(a, R, x, &pairs);
    if (!L) return NULL;
    for (int p = 0; p + 1 < pairs.len; p += 2) {
        int wi = view_arg(R, pairs.items[p]), vi = view_arg(R, pairs.items[p + 1]);
        if (wi < 0 || vi < 0) return NULL; /* a view that is no kernel argument: not checkable */
        cy_vec_push(a, &R->collapse_pairs, (void *)(intptr_t)wi);
        cy_vec_push(a, &R->collapse_pairs, (void *)(intptr_t)vi);
    }
    return L;
}

/* At most this many loops count (the host computes each one's trip count
 * at every call). */
#define WORK_LOOPS 8

/* The range() loops of body, outer first, whose trip counts the host can
 * compute before the launch: plain bounds (plain_bound) that use nothing
 * the region assigns, a constant step (not counted down over an unsigned
 * variable: emit.c shifts such loops).  Loops inside conditions and other
 * loops count as if they ran (an upper bound); a loop that does not count
 * passes its parent on to the loops in its body. */
static void work_walk(CyArena *a, IrRegion *R, CyVec *body, const CyVec *assigned, intptr_t parent) {
    for (int i = 0; i < body->len; i++) {
        IrStmt *y = body->items[i];
        intptr_t inner = parent;
        if (y->kind == ST_FOR_RANGE && R->work_loops.len < WORK_LOOPS) {
            int64_t step = 1;
            if ((!y->step || (cy_const_int(y->step, &step) && step != 0)) && (step > 0 || y->var->ty->is_signed) &&
                plain_bound(y->start) && plain_bound(y->stop) && !mentions(y->start, assigned, R->index) &&
                !mentions(y->stop, assigned, R->index) && !mentions(y->step, assigned, R->index)) {
                inner = R->work_loops.len;
                cy_vec_push(a, &R->work_loops, y);
                cy_vec_push(a, &R->work_parent, (void *)parent);
            }
        }
        work_walk(a, R, &y->body, assigned, inner);
        work_walk(a, R, &y->orelse, assigned, parent);
    }
}

/* A continue anywhere in body (it would skip a write after it). */
static int has_continue(const CyVec *body) {
    for (int i = 0; i < body->len; i++) {
        const IrStmt *y = body->items[i];
        if (y->kind == ST_CONTINUE || has_continue(&y->body) || has_continue(&y->orelse)) return 1;
    }
    return 0;
}

/* e is the variable v itself, through widening integer casts. */
static int is_var(const IrExpr *e, const IrVar *v) {
    while (e->kind == E_CAST && cy_type_is_int(e->ty) && cy_type_is_int(e->args[0]->ty) &&
           e->ty->size >= e->args[0]->ty->size)
        e = e->args[0];
    return e->kind == E_VAR && e->var == v;
}

/* Does a statement of body (not nested) assign v[i0] (j NULL) or
 * v[i0, j]? */
static int assigns_at(const CyVec *body, const IrVar *v, const IrVar *i0, const IrVar *j) {
    for (int k = 0; k < body->len; k++) {
        const IrStmt *y = body->items[k];
        if (y->kind != ST_ASSIGN || y->op != OP_NONE || y->target->kind != E_VIEW_ELEM ||
            y->target->args[0]->kind != E_VAR || y->target->args[0]->var != v)
            continue;
        const IrExpr *t = y->target;
        if (t->nargs == 2 && !j && is_var(t->args[1], i0)) return 1;
        if (t->nargs == 3 && j && is_var(t->args[1], i0) && is_var(t->args[2], j)) return 1;
    }
    return 0;
}

/* IrRegionArg.covers for each view argument of r (statement x). */
static void covers(IrRegion *r, IrStmt *x) {
    if (!r->ocl_quiet || r->has_break || r->has_return || r->has_with_gil || has_continue(&x->body) ||
        cy_ir_assigns(&x->body, r->index))
        return;
    const IrStmt *L = r->collapse;
    int64_t s0 = -1, st = 1;
    /* (a body that assigns j would write elsewhere than [i, j]) */
    int inner_ok = L && cy_const_int(L->start, &s0) && s0 == 0 && (!L->step || (cy_const_int(L->step, &st) && st == 1)) &&
                   !cy_ir_assigns(&L->body, L->var);
    for (int k = 0; k < r->args.len; k++) {
        IrRegionArg *g = r->args.items[k];
        if (g->kind != RA_VIEW || g->read || !g->written) continue;
        if (assigns_at(&x->body, g->var, r->index, NULL))
            g->covers = 1;
        else if (inner_ok && assigns_at(&L->body, g->var, r->index, L->var))
            g->covers = 2;
    }
}

void cy_ir_nest(CyArena *a, IrRegion *r, IrStmt *x) {
    r->collapse = NULL;
    r->collapse_pairs.len = 0;
    r->work_loops.len = r->work_parent.len = 0;
    if (!r->ocl_ok || !r->is_prange || !x) return;
    r->collapse = collapsible(a, r, x);
    if (!r->collapse) r->collapse_pairs.len = 0;
    covers(r, x);
    IrScan sc = {0};
    cy_ir_scan(a, &sc, &x->body);
    CyVec assigned = vcopy(a, &sc.assigned);
    for (int i = 0; i < sc.ranged.len; i++) add(a, &assigned, sc.ranged.items[i]);
    work_walk(a, r, &x->body, &assigned, -1);
}
