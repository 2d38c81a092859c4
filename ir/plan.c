/* plan.c: the schedule of a region on a class of device (issue 17), from
 * the loop-nest facts (loops.c) and the collapse decision (nest.c).
 *
 * One schedule beyond today's so far, PLAN_TILE2D, for the shape of a
 * matrix product written as loops:
 *
 *     for i in prange(...):              # the user's promise: independent
 *         for j in range(...):           # nest.c: independent too (collapse)
 *             pre                        # s = 0, s = bias[j], ...
 *             for k in range(...):       # only reductions: s = s + e
 *                 s = s + a[i, k] * b[k, j]
 *             post                       # c[i, j] = s, out[i, j] = f(s)
 *
 * A work-group computes a block of (i, j) elements, each work-item a few of
 * them (register blocking), one accumulator per element and reduction;
 * the view elements the k-loop reads are copied tile by tile (along k)
 * into local memory, those that vary with i and k as rows, those that vary
 * with j and k as columns.  Exact, not approximately so: every element
 * still sees its pre, then the updates in increasing k, each the same
 * operations on the same values from the same starting value, then its
 * post; k is never split across work-items.  Elements are independent
 * (nest.c proves it, and the runtime checks per call that the views the
 * nest writes overlap none it reads, else the serial kernel runs).  What
 * the k-loop reads cannot change during the region: a view the region
 * writes is accessed only at the element being written (nest.c), which
 * depends on i and j together, and such an access is never staged.
 *
 * An element that fails (an IndexError, a ZeroDivisionError) or continues
 * skips the rest of its code, as in the 1-D kernel: the kernel notes it
 * per element, or per row or column of a tile for an operand out of
 * bounds.  The updates themselves must not raise otherwise, nothing may
 * `break`, and pre's variables must not be read by post, the k-loop or the code
 * after the loop do not read (the reductions aside: those are the
 * accumulators). */
#include "ir.h"
#include <string.h>

static int has(const CyVec *v, const void *p) {
    for (int i = 0; i < v->len; i++)
        if (v->items[i] == p) return 1;
    return 0;
}

static IrPlan *linear(CyArena *a, const char *why) {
    IrPlan *p = cy_alloc(a, sizeof *p);
    p->kind = PLAN_LINEAR;
    p->why = why;
    return p;
}

/* The reduction loop's code runs straight through: nothing raises but a
 * view element's bounds check (its tile records the failure), nothing
 * breaks or continues. */
static int straight_expr(const IrExpr *e) {
    if (!e) return 1;
    if (e->kind == E_THREADID) return 0;
    if (e->kind == E_VIEW_ELEM) {
        for (int i = 1; i < e->nargs; i++)
            if (e->args[i]->can_raise) return 0;
        return 1;
    }
    if (!e->can_raise) return 1;
    /* what may raise by itself (sema's raises_expr), not through an operand */
    switch (e->kind) {
    case E_BINOP: if (!strcmp(e->op, "/") && !e->cdivision) return 0; break;
    case E_PYFLOORDIV: case E_PYMOD: if (!e->cdivision) return 0; break;
    case E_CALL: if (e->fn->can_raise) return 0; break;
    case E_VAR: case E_INT: case E_FLOAT: case E_UNOP: case E_CAST: case E_CMP: case E_COND: case E_CALL_C: break;
    default: return 0;
    }
    for (int i = 0; i < e->nargs; i++)
        if (!straight_expr(e->args[i])) return 0;
    return 1;
}

/* pre and post: anything a kernel runs, but a `break` (a failure or a
 * `continue` skips the rest of the element, as in the 1-D kernel). */
static int element_code(const CyVec *body) {
    for (int i = 0; i < body->len; i++) {
        const IrStmt *x = body->items[i];
        switch (x->kind) {
        case ST_ASSIGN: case ST_EXPR: case ST_IF: case ST_DECLARE: case ST_BLOCK: case ST_NOGIL:
        case ST_FOR_RANGE: case ST_WHILE: case ST_CONTINUE: break;
        default: return 0;
        }
        if (!element_code(&x->body) || !element_code(&x->orelse)) return 0;
    }
    return 1;
}

/* A bound the kernel computes once with no code of its own. */
static int plain(const IrExpr *e) {
    if (!e) return 1;
    switch (e->kind) {
    case E_INT: break;
    case E_VAR: if (e->var->ty->kind == TY_VIEW) return 0; break;
    case E_CAST: if (!cy_type_is_int(e->ty)) return 0; break;
    case E_BINOP:
        if (strcmp(e->op, "+") && strcmp(e->op, "-") && strcmp(e->op, "*")) return 0;
        break;
    case E_VIEW_SHAPE: {
        int64_t k;
        return e->args[0]->kind == E_VAR && cy_const_int(e->args[1], &k) && k >= 0;
    }
    default: return 0;
    }
    for (int i = 0; i < e->nargs; i++)
        if (!plain(e->args[i])) return 0;
    return 1;
}

static IrLoop *loop_of_stmt(const IrNest *n, const IrStmt *x) {
    for (int i = 0; i < n->loops.len; i++)
        if (((IrLoop *)n->loops.items[i])->stmt == x) return n->loops.items[i];
    return NULL;
}

static int loop_index(const IrNest *n, const IrLoop *l) {
    for (int i = 0; i < n->loops.len; i++)
        if (n->loops.items[i] == l) return i;
    return -1;
}

static const IrAccess *access_of(const IrNest *n, const IrExpr *e) {
    for (int i = 0; i < n->accesses.len; i++) {
        const IrAccess *x = n->accesses.items[i];
        if (!x->write && x->view && x->view == e->args[0]->var && x->pos.line == e->pos.line &&
            x->pos.col == e->pos.col)
            return x;
    }
    return NULL;
}

typedef struct {
    CyArena *a;
    IrPlan *p;
    const IrNest *n;
    int li, lj, lk;         /* loop numbers of i, j, k in the nest */
    const IrVar *vi, *vj;
    const CyVec *assigned;  /* what the region assigns */
    const char *why;
} Scan;

/* The k-loop's expression e: view elements become operands; other reads
 * only of what the nest does not change, k, and the reductions. */
static void operands(Scan *s, IrExpr *e) {
    if (!e || s->why) return;
    if (e->kind == E_VIEW_ELEM) {
        const IrAccess *x = e->args[0]->kind == E_VAR ? access_of(s->n, e) : NULL;
        if (!x) {
            s->why = "an element the reduction loop reads is not a known access";
            return;
        }
        int di = 0, dj = 0;
        for (int d = 0; d < x->ndim; d++) {
            if (!x->idx[d].affine) {
                s->why = "an index in the reduction loop is not affine";
                return;
            }
            di |= x->idx[d].coef[s->li] != 0;
            dj |= x->idx[d].coef[s->lj] != 0;
            for (int l = 0; l < IR_MAX_LOOPS; l++)
                if (l != s->li && l != s->lj && l != s->lk && x->idx[d].coef[l]) s->why = "an index uses another loop";
        }
        if (di && dj) s->why = "an element the reduction loop reads depends on both i and j";
        if (s->why) return;
        IrPlanOperand *o = cy_alloc(s->a, sizeof *o);
        o->elem = e;
        o->side = di ? 0 : 1;
        o->twin = -1;
        for (int q = 0; q < s->p->operands.len && o->twin < 0; q++) {
            const IrPlanOperand *y = s->p->operands.items[q];
            if (y->twin < 0 && cy_ir_expr_eq(y->elem, e)) o->twin = q;
        }
        cy_vec_push(s->a, &s->p->operands, o);
        return; /* its indices are affine: loop variables and invariants only */
    }
    if (e->kind == E_VAR && (e->var == s->vi || e->var == s->vj)) {
        s->why = "the reduction loop uses i or j outside view indices";
        return;
    }
    if (e->kind == E_VAR && has(s->assigned, e->var) && e->var != s->p->kloop->var) {
        int red = 0;
        for (int k = 0; k < s->p->reds.len; k++) red |= ((IrLoopRed *)s->p->reds.items[k])->var == e->var;
        if (!red) {
            s->why = "the reduction loop reads a variable the region assigns";
            return;
        }
    }
    for (int i = 0; i < e->nargs; i++) operands(s, e->args[i]);
}

static const char *tile2d(CyArena *a, IrRegion *r, IrPlan *p) {
    if (!r->ocl_ok || !r->is_prange) return "not an OpenCL prange";
    if (!r->collapse) return "the range() loop in the prange is not independent (or not alone)";
    if (!r->nest || r->nest->too_deep) return "no loop nest";
    if (r->has_break || r->uses_threadid) return "break or threadid()";
    for (int i = 0; i < r->args.len; i++) {
        const IrRegionArg *x = r->args.items[i];
        if (x->kind == RA_REDUCTION) return "the prange has reductions";
    }
    IrStmt *J = r->collapse;
    int64_t step;
    if (J->step && (!cy_const_int(J->step, &step) || step == 0)) return "the range() loop's step is not constant";
    IrStmt *K = NULL;
    for (int i = 0; i < J->body.len; i++) {
        IrStmt *x = J->body.items[i];
        if (x->kind != ST_FOR_RANGE) continue;
        if (K) return "more than one loop in the range() loop";
        K = x;
        p->kpos = i;
    }
    if (!K) return "no reduction loop";
    p->jloop = J;
    p->kloop = K;
    if (K->orelse.len) return "the reduction loop has an else clause";
    if (K->step && (!cy_const_int(K->step, &step) || step == 0)) return "the reduction loop's step is not constant";
    IrLoop *lk = loop_of_stmt(r->nest, K), *lj = loop_of_stmt(r->nest, J);
    if (!lk || !lj || lk->parent != lj) return "no loop nest";
    if (!lk->invariant_bounds || !plain(K->start) || !plain(K->stop))
        return "the reduction loop's bounds change in the nest";
    if (!lk->reductions.len) return "the inner loop reduces nothing";
    for (int i = 0; i < lk->reductions.len; i++) {
        IrLoopRed *x = lk->reductions.items[i];
        if (!cy_type_is_int(x->var->ty) && !cy_type_is_float(x->var->ty)) return "a reduction of a complex";
        if (x->var->ty->kind == TY_LDOUBLE) return "a long double reduction";
        cy_vec_push(a, &p->reds, x);
    }
    /* the k-loop's body: reduction updates only */
    for (int i = 0; i < K->body.len; i++) {
        IrStmt *x = K->body.items[i];
        int red = 0;
        if (x->kind == ST_ASSIGN && x->target->kind == E_VAR)
            for (int k = 0; k < p->reds.len; k++) red |= ((IrLoopRed *)p->reds.items[k])->var == x->target->var;
        if (!red) return "the reduction loop does more than reduce";
    }
    for (int i = 0; i < K->body.len; i++)
        if (!straight_expr(((IrStmt *)K->body.items[i])->value)) return "the reduction loop may raise";
    CyVec pre = {0}, post = {0};
    for (int i = 0; i < J->body.len; i++)
        if (i != p->kpos) cy_vec_push(a, i < p->kpos ? &pre : &post, J->body.items[i]);
    if (!element_code(&pre) || !element_code(&post)) return "the range() loop's body may break";
    IrScan all = {0}, sp = {0}, sk = {0}, so = {0};
    IrStmt *x = cy_ir_region_stmt(&r->func->body, r);
    if (!x) return "no region statement";
    cy_ir_scan(a, &all, &x->body);
    CyVec assigned = {0};
    for (int i = 0; i < all.assigned.len; i++) cy_vec_push(a, &assigned, all.assigned.items[i]);
    for (int i = 0; i < all.ranged.len; i++) cy_vec_push(a, &assigned, all.ranged.items[i]);
    cy_ir_scan(a, &sp, &pre);
    cy_ir_scan(a, &sk, &K->body);
    cy_ir_scan(a, &so, &post);
    /* pre and post run in separate passes over a work-item's elements:
       only the accumulators carry values from one to the other */
    for (int i = 0; i < sp.assigned.len; i++) {
        IrVar *v = sp.assigned.items[i];
        int red = 0;
        for (int k = 0; k < p->reds.len; k++) red |= ((IrLoopRed *)p->reds.items[k])->var == v;
        if (!red && (has(&so.used, v) || has(&sk.used, v))) return "post reads a variable pre assigns";
    }
    /* the last element's values of the variables used after the loop: pre
       runs for a work-item's elements before its post, so pre's must not
       be among them (the accumulators aside) */
    for (int i = 0; i < r->args.len; i++) {
        const IrRegionArg *y = r->args.items[i];
        if (y->kind != RA_LASTPRIVATE) continue;
        int red = 0;
        for (int k = 0; k < p->reds.len; k++) red |= ((IrLoopRed *)p->reds.items[k])->var == y->var;
        if (!red && (has(&sp.assigned, y->var) || has(&sp.ranged, y->var)))
            return "a variable pre assigns is used after the loop";
    }
    for (int i = 0; i < sp.ranged.len; i++)
        if (has(&so.used, sp.ranged.items[i]) || has(&sk.used, sp.ranged.items[i]))
            return "post reads a variable pre assigns";
    Scan s = {a, p, r->nest, 0, loop_index(r->nest, lj), loop_index(r->nest, lk), r->index, J->var, &assigned, NULL};
    for (int i = 0; i < K->body.len && !s.why; i++) operands(&s, ((IrStmt *)K->body.items[i])->value);
    if (s.why) return s.why;
    if (!p->operands.len) return "the reduction loop reads no view";
    /* work-group 16 x 16, 16 k per tile; per work-item 8 i x 4 j elements
       (128 x 64 per group) of doubles, 8 x 8 (128 x 128) when every operand
       and accumulator is at most 4 bytes: the fastest of the shapes tried
       on an H100 (docs/design.md) */
    int small = 1;
    for (int i = 0; i < p->operands.len; i++) small &= ((IrPlanOperand *)p->operands.items[i])->elem->ty->size <= 4;
    for (int i = 0; i < p->reds.len; i++) small &= ((IrLoopRed *)p->reds.items[i])->var->ty->size <= 4;
    p->local[0] = p->local[1] = 16;
    p->reg[0] = small ? 8 : 4;
    p->reg[1] = 8;
    p->tk = 16;
    p->pad = 1;
    /* the tiles must fit the 48 KiB of local memory a work-group gets on
       the GPUs we know of, with room to spare */
    long bytes = 0;
    for (int i = 0; i < p->operands.len; i++) {
        const IrPlanOperand *o = p->operands.items[i];
        if (o->twin >= 0) continue;
        bytes += (long)p->tk * (o->side ? p->local[0] * p->reg[0] : p->local[1] * p->reg[1] + p->pad) * o->elem->ty->size;
    }
    if (bytes > 32768) return "the tiles of its operands would not fit local memory";
    int nt = p->local[0] * p->local[1];
    p->prefetch = (p->tk * p->local[0] * p->reg[0]) % nt == 0 && (p->tk * p->local[1] * p->reg[1]) % nt == 0;
    return NULL;
}

IrPlan *cy_ir_plan(CyArena *a, IrRegion *r, CyDevClass dc) {
    if (dc == CY_DEV_CPU) return linear(a, "CPU devices keep the 1-D schedule");
    IrPlan *p = cy_alloc(a, sizeof *p);
    const char *why = tile2d(a, r, p);
    if (why) return linear(a, why);
    p->kind = PLAN_TILE2D;
    return p;
}

void cy_ir_plan_describe(CyBuf *out, const IrRegion *r, const IrPlan *p) {
    if (!p || p->kind == PLAN_LINEAR) {
        cy_buf_printf(out, "1-D (%s)", p && p->why ? p->why : "?");
        return;
    }
    int na = 0, nb = 0;
    for (int i = 0; i < p->operands.len; i++) {
        const IrPlanOperand *o = p->operands.items[i];
        if (o->twin < 0) o->side ? nb++ : na++;
    }
    cy_buf_printf(out,
                  "2-D tiles over (%s, %s): work-group %dx%d, %dx%d elements per work-item (%dx%d per group), "
                  "local-memory tiles of %d %s along %s (%d by rows, %d by columns%s), %d accumulator(s) per element",
                  p->jloop->var->name, r->index ? r->index->name : "?", p->local[0], p->local[1], p->reg[0], p->reg[1], p->local[0] * p->reg[0],
                  p->local[1] * p->reg[1], p->tk, p->kloop->var->name, p->kloop->var->name, na, nb, p->prefetch ? ", prefetched" : "", p->reds.len);
}
