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
#include <stdio.h>
#include <stdlib.h>
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
    case E_BINOP: if (e->op == OP_DIV && !e->cdivision) return 0; break;
    case E_PYFLOORDIV: case E_PYMOD: if (!e->cdivision) return 0; break;
    case E_CALL: if (e->fn->can_raise) return 0; break;
    case E_VAR: case E_INT: case E_FLOAT: case E_UNOP: case E_CAST: case E_CMP: case E_COND: case E_CALL_C: case E_MINMAX: break;
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
        if (e->op != OP_ADD && e->op != OP_SUB && e->op != OP_MUL) return 0;
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

static int step_one(const IrExpr *step) {
    int64_t v;
    return !step || (cy_const_int(step, &v) && v == 1);
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
    int step1[3];           /* i, j, k count by 1 */
    const char *why;
} Scan;

/* The k-loop's expression e: view elements become operands; other reads
 * only of what the nest does not change, k, and the reductions. */
static void operands(Scan *s, IrExpr *e) {
    if (!e || s->why) return;
    if (e->kind == E_VIEW_ELEM) {
        /* tiles hold scalars (the vector loads of a run of them too) */
        if (cy_type_is_complex(e->ty)) {
            s->why = "the reduction loop reads complex numbers";
            return;
        }
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
        /* a run of adjacent elements in memory, most likely along the last
           axis (C order); the kernel checks that it is, run by run */
        const IrAffine *last = &x->idx[x->ndim - 1];
        int wide = o->side ? s->lj : s->li;
        if (e->boundscheck) o->gdir = 0; /* each element's check is code of its own */
        else if (x->ndim && last->coef[wide] == 1 && s->step1[o->side ? 1 : 0]) o->gdir = 1;
        else if (x->ndim && last->coef[s->lk] == 1 && s->step1[2]) o->gdir = 2;
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

/* CYOCL_GPU_TILE=LX,LY,RN,RM,TK[,VN,VM[,DB[,GV]]] replaces the shape chosen below
 * (work-group LX x LY, RN x RM elements per work-item in runs of VN x VM,
 * TK k per tile, DB 1: two local copies of each tile, 0: one, GV 1: tiles
 * copied in vector loads where they can be, 0: element by element),
 * CYOCL_GPU_TILE_F32 (F64) that of kernels of 4-byte types (wider ones)
 * only, CYOCL_GPU_TILE_SMALL the small grids' one: for measuring other shapes on
 * a device (bench/gpu_tiles.py).  Shapes the kernel cannot take are
 * ignored. */
static void shape_override(IrPlan *p, const char *var) {
    const char *e = getenv(var);
    int v[9] = {0, 0, 0, 0, 0, 1, 1, p->dbuf, p->gload};
    if (!e || sscanf(e, "%d,%d,%d,%d,%d,%d,%d,%d,%d", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8]) < 5)
        return;
    for (int i = 0; i < 7; i++)
        if (v[i] < 1 || v[i] > 1024 || (v[i] & (v[i] - 1))) return;
    if (v[0] * v[1] > 1024 || v[2] * v[3] > 64 || v[2] % v[5] || v[3] % v[6] || v[5] > 4 || v[6] > 4 || v[7] < 0 ||
        v[7] > 1 || v[8] < 0 || v[8] > 1)
        return;
    p->local[0] = v[0], p->local[1] = v[1], p->reg[0] = v[2], p->reg[1] = v[3], p->tk = v[4];
    p->vec[0] = v[5], p->vec[1] = v[6], p->dbuf = v[7], p->gload = v[8];
}

int cy_ir_plan_gvec(const IrPlan *p, const IrPlanOperand *o) {
    const CyType *t = o->elem->ty;
    if (!p->gload || !o->gdir || o->twin >= 0 || (t->size != 4 && t->size != 8) ||
        (!cy_type_is_float(t) && !cy_type_is_int(t)) || t->kind == TY_BINT)
        return 0;
    int w = 16 / t->size, W = o->side ? p->local[0] * p->reg[0] : p->local[1] * p->reg[1];
    int nt = p->local[0] * p->local[1];
    /* the runs tile the tile and divide evenly among the work-items */
    if ((o->gdir == 1 ? W : p->tk) % w || (p->tk * W) % (w * nt)) return 0;
    return w;
}

/* The rest of p's shape, and whether its tiles fit the 48 KiB of local
 * memory a work-group gets on the GPUs we know of. */
static int shape_fits(IrPlan *p) {
    p->pad = p->vec[1];
    long bytes = 0;
    for (int i = 0; i < p->operands.len; i++) {
        const IrPlanOperand *o = p->operands.items[i];
        if (o->twin >= 0) continue;
        bytes += (long)p->tk * (o->side ? p->local[0] * p->reg[0] : p->local[1] * p->reg[1] + p->pad) * o->elem->ty->size;
    }
    int nt = p->local[0] * p->local[1];
    p->prefetch = (p->tk * p->local[0] * p->reg[0]) % nt == 0 && (p->tk * p->local[1] * p->reg[1]) % nt == 0;
    p->dbuf = p->dbuf && p->prefetch && 2 * bytes <= 49152;
    return bytes <= 49152;
}

/* A call (a cdef function, libm, a power) anywhere in e: code whose
 * registers the kernel needs while every accumulator is live. */
static int calls_expr(const IrExpr *e) {
    if (!e) return 0;
    if (e->kind == E_CALL || e->kind == E_CALL_C || e->kind == E_POW) return 1;
    for (int i = 0; i < e->nargs; i++)
        if (calls_expr(e->args[i])) return 1;
    return 0;
}

static int calls_stmts(const CyVec *body) {
    for (int i = 0; i < body->len; i++) {
        const IrStmt *x = body->items[i];
        if (calls_expr(x->target) || calls_expr(x->value) || calls_expr(x->cond) || calls_expr(x->start) ||
            calls_expr(x->stop) || calls_expr(x->step) || calls_stmts(&x->body) || calls_stmts(&x->orelse))
            return 1;
    }
    return 0;
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
    step = 1;
    if (K->step && (!cy_const_int(K->step, &step) || step == 0)) return "the reduction loop's step is not constant";
    if (step < 0 && !K->var->ty->is_signed) return "the reduction loop counts an unsigned variable down";
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
    Scan s = {a, p, r->nest, 0, loop_index(r->nest, lj), loop_index(r->nest, lk), r->index, J->var, &assigned,
              {step_one(r->step), step_one(J->step), step_one(K->step)}, NULL};
    for (int i = 0; i < K->body.len && !s.why; i++) operands(&s, ((IrStmt *)K->body.items[i])->value);
    if (s.why) return s.why;
    if (!p->operands.len) return "the reduction loop reads no view";
    /* the shapes (bench/gpu_tiles.py on an H100, docs/design.md): work-
       groups of 16 x 16 work-items with 8 x 8 elements per work-item for
       4-byte types; for doubles with one accumulator and two tiles, the
       same 128 x 128 block from 32 x 16 work-items of 4 j x 8 i, 8 k per
       tile (128 registers a work-item instead of 254, two warps per
       scheduler instead of one: 1.33 instead of 1.345 ms at 2048^2; the
       kernel is bound by its FP64 multiplies and adds, not by occupancy);
       else 4 j x 8 i, 16 k per tile.  A work-item
       takes runs of 16 bytes along i (its operands of one k from a row tile
       are then 16-byte loads), and for 4-byte types runs of 2 along j (8-
       byte loads from a column tile: f32 0.740 -> 0.724 ms, runs of 4
       0.726 and 3x slower on PoCL; doubles gained nothing from them).
       Every operand whose last index moves with a loop is copied into its
       tile in 16-byte runs where the call's strides and alignment allow
       (IrPlan.gload, checked run by run in the kernel): f32 0.804 -> 0.740
       ms, f64 1.332 -> 1.320 ms (kernel alone, H100, 2048^2).
       For grids of fewer work-groups than the device has compute units,
       2 j x 4 i elements of doubles, 2 x 2 of floats (a batch of 128 rows
       through a layer: 2.6x faster than the large shape), with two copies
       of each tile: one barrier per tile instead of two, which is what
       such a grid, one work-group per compute unit, waits on (c06's mlp2,
       batch 128 at 2048: 0.495 -> 0.368 ms).  Not for the large shapes:
       the copy's offset costs registers their register tiles do not have
       (the f64 one spilled at the 128 of a 512-item group: 1.35 -> 1.43
       ms; f32 0.802 -> 0.809 ms; docs/benchmarks.md). */
    int small = 1;
    for (int i = 0; i < p->operands.len; i++) small &= ((IrPlanOperand *)p->operands.items[i])->elem->ty->size <= 4;
    for (int i = 0; i < p->reds.len; i++) small &= ((IrLoopRed *)p->reds.items[i])->var->ty->size <= 4;
    int tiles = 0;
    for (int i = 0; i < p->operands.len; i++) tiles += ((IrPlanOperand *)p->operands.items[i])->twin < 0;
    int wide = !small && p->reds.len == 1 && tiles == 2;
    /* --fp-contract, doubles: one DFMA per update instead of a multiply
       and an add.  The 32x16 shape stays the fastest for a plain store
       (c04 matmul 0.937 ms kernel alone, 16x8 of 8x8 0.960), but a post
       that calls something (c06's sigmoid: exp, a division) needs its
       registers while the 32 accumulators are live, and under the 128 a
       512-item group leaves, ptxas spilled (sigmoid_layer 1.389 ms, no
       faster than without FMA); 16x8 work-items of 8x8 elements, 254
       registers and no spills: 0.943 ms (H100, 2048^2, bench/gpu_tiles.c
       with GPU_TILES_BIAS; docs/benchmarks.md).  Without FMA the 32x16
       shape is still the best for the sigmoid (1.357 ms; 16x8 1.451). */
    int fat = wide && p->fused && calls_stmts(&post);
    p->local[0] = wide ? (fat ? 16 : 32) : 16;
    p->local[1] = fat ? 8 : 16;
    p->reg[0] = small || fat ? 8 : 4;
    p->reg[1] = 8;
    p->tk = wide ? 8 : 16;
    p->vec[0] = small || fat ? 2 : 1;
    p->vec[1] = small ? 4 : wide ? 2 : 1;
    p->dbuf = 0;
    p->gload = 1;
    shape_override(p, "CYOCL_GPU_TILE");
    shape_override(p, small ? "CYOCL_GPU_TILE_F32" : "CYOCL_GPU_TILE_F64");
    if (!shape_fits(p)) return "the tiles of its operands would not fit local memory";
    IrPlan *q = cy_alloc(a, sizeof *q);
    *q = *p;
    q->local[0] = q->local[1] = 16;
    q->reg[0] = 2;
    q->reg[1] = small ? 2 : 4;
    q->tk = 16;
    q->vec[0] = 1;
    q->vec[1] = 2;
    q->dbuf = 1;
    /* element copies: vector ones took the f64 kernel from 0.137 to 0.160
       ms (kernel alone, 128 rows at 2048, H100); f32 2 j x 4 i gained by
       them (0.174 -> 0.154 ms), but its 2 x 2 here cannot split its tiles
       into 16-byte runs evenly anyway */
    q->gload = 0;
    shape_override(q, "CYOCL_GPU_TILE_SMALL");
    if (shape_fits(q)) p->small = q;
    return NULL;
}

IrPlan *cy_ir_plan(CyArena *a, IrRegion *r, CyDevClass dc, int fp_contract) {
    if (dc == CY_DEV_CPU) return linear(a, "CPU devices keep the 1-D schedule");
    IrPlan *p = cy_alloc(a, sizeof *p);
    p->fused = fp_contract;
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
    if (p->kind == PLAN_BLOCK) {
        cy_buf_printf(out, "blocks of %d rows (%s) x %d columns (%s) x %d steps of %s, %dx%d accumulators in registers, "
                      "%d accumulator(s) per element", p->mc, r->index ? r->index->name : "?", p->nc,
                      p->jloop->var->name, p->kc, p->kloop->var->name, p->mr, p->nr, p->reds.len);
        for (int i = 0; i + 1 < p->alias.len; i += 2)
            cy_buf_printf(out, "%s%s/%s", i ? ", " : "; the plain loop where these overlap: ",
                          ((IrVar *)p->alias.items[i])->name, ((IrVar *)p->alias.items[i + 1])->name);
        return;
    }
    int na = 0, nb = 0;
    for (int i = 0; i < p->operands.len; i++) {
        const IrPlanOperand *o = p->operands.items[i];
        if (o->twin < 0) o->side ? nb++ : na++;
    }
    cy_buf_printf(out,
                  "2-D tiles over (%s, %s): work-group %dx%d, %dx%d elements per work-item (%dx%d per group", p->jloop->var->name,
                  r->index ? r->index->name : "?", p->local[0], p->local[1], p->reg[0], p->reg[1], p->local[0] * p->reg[0],
                  p->local[1] * p->reg[1]);
    if (p->vec[0] > 1 || p->vec[1] > 1) cy_buf_printf(out, ", in runs of %dx%d", p->vec[0], p->vec[1]);
    cy_buf_printf(out, "), local-memory tiles of %d %s along %s (%d by rows, %d by columns%s), %d accumulator(s) per element",
                  p->tk, p->kloop->var->name, p->kloop->var->name, na, nb,
                  p->dbuf ? ", prefetched, double-buffered" : p->prefetch ? ", prefetched" : "", p->reds.len);
    int nv = 0;
    for (int i = 0; i < p->operands.len; i++) {
        const IrPlanOperand *o = p->operands.items[i];
        int w = cy_ir_plan_gvec(p, o);
        if (!w) continue;
        cy_buf_printf(out, "%s%s in runs of %d along %s", nv++ ? ", " : "; copied where adjacent and aligned: ",
                      o->elem->args[0]->var->name, w,
                      o->gdir == 2 ? p->kloop->var->name : o->side ? p->jloop->var->name : r->index ? r->index->name : "?");
    }
    if (p->fused) cy_buf_puts(out, "; each update one fused multiply-add where it is a * b + c (--fp-contract)");
    if (p->small)
        cy_buf_printf(out, "; where that grid would not fill the device, %dx%d elements per work-item (%dx%d per group%s)",
                      p->small->reg[0], p->small->reg[1], p->small->local[0] * p->small->reg[0],
                      p->small->local[1] * p->small->reg[1], p->small->dbuf ? ", double-buffered" : "");
}

/* ---- the native schedule: cache and register blocking ---------------------
 *
 *     for i in prange(...):
 *         for j in range(n):             # independent (nest.c)
 *             pre                        # s = 0, s = bias[j]
 *             for k in range(m):         # only reductions: s = s + e
 *                 s = s + a[i, k] * b[k, j]
 *             post                       # c[i, j] = s, out[i, j] = f(s)
 *
 * runs as blocks: a thread takes mc rows at a time and, for each block of
 * nc columns, runs every element's pre, then k in blocks of kc, each over
 * register tiles of mr x nr elements whose accumulators advance together
 * (the b[k, j] of a tile's nr columns are adjacent: one vector load), then
 * every element's post.  Exact: each element still runs its pre, then its
 * updates in increasing k, each the same operations on the same values,
 * then its post; only the interleaving of independent elements changes.
 * That needs what the GPU tiles need (independent j iterations, what the
 * k-loop reads unchanged by the region, accumulators alone carrying values
 * from pre to post), nothing that can raise, break, call out or write other
 * than locals and view elements (the order of side effects is the
 * interleaving), no reduction of the prange (its order within a thread
 * would change), and views the nest writes disjoint from every other view
 * it accesses: the generated code compares their extents per call and
 * takes the plain loop when they meet (matmul(a, b, a)).  The last
 * iteration of the prange always runs the plain loop, so lastprivate
 * variables get their values exactly as before. */


/* Where pure_expr collects bounds checks: the plan (NULL inside a called
 * function) and the loop variables i, j, k they may use. */
typedef struct {
    CyArena *a;
    IrPlan *p;
    const IrVar *vars[3];
} Pure;

static int pure_stmts(const CyVec *body, const Pure *ctx, int depth, int in_callee);

/* idx is var + c, c + var, var - c or c, through widening casts between
 * signed integers (as the plain loop computes it, no wrap on the way). */
static int simple_index(const IrExpr *e, const Pure *ctx, const IrVar **var, int64_t *off, int *int32) {
    while (e->kind == E_CAST && cy_type_is_int(e->ty) && cy_type_is_int(e->args[0]->ty) && e->ty->is_signed &&
           e->args[0]->ty->is_signed && e->args[0]->ty->kind != TY_BINT && e->ty->size >= e->args[0]->ty->size)
        e = e->args[0];
    int64_t c;
    if (cy_const_int(e, &c)) {
        *var = NULL;
        *off = c;
        return c > -((int64_t)1 << 31) && c < ((int64_t)1 << 31);
    }
    if (e->kind == E_VAR) {
        for (int i = 0; i < 3; i++)
            if (e->var == ctx->vars[i] && e->var->ty->is_signed) {
                *var = e->var;
                *off = 0;
                return 1;
            }
        return 0;
    }
    if (e->kind == E_BINOP && (e->op == OP_ADD || e->op == OP_SUB) && e->ty->size >= 4 && e->ty->is_signed &&
        e->ty->kind != TY_BINT) {
        if (e->ty->size == 4) *int32 = 1;
        int minus = e->op == OP_SUB;
        if (cy_const_int(e->args[1], &c) && c > -((int64_t)1 << 31) && c < ((int64_t)1 << 31) &&
            simple_index(e->args[0], ctx, var, off, int32) && *var) {
            *off += minus ? -c : c;
            return 1;
        }
        if (!minus && cy_const_int(e->args[0], &c) && c > -((int64_t)1 << 31) && c < ((int64_t)1 << 31) &&
            simple_index(e->args[1], ctx, var, off, int32) && *var) {
            *off += c;
            return 1;
        }
    }
    return 0;
}

/* No side effects, nothing that raises (a bounds check aside, where the
 * blocked code can prove it up front), no memory but view elements (and
 * none at all inside a called function: the alias checks see only the
 * region's own accesses). */
static int pure_expr(const IrExpr *e, const Pure *ctx, int depth, int in_callee) {
    if (!e) return 1;
    switch (e->kind) {
    case E_BINOP:
        if ((e->op == OP_DIV || e->op == OP_MOD) && !e->cdivision) return 0;
        break;
    case E_PYFLOORDIV: case E_PYMOD:
        if (!e->cdivision) return 0;
        break;
    case E_INT: case E_FLOAT: case E_CNAME: case E_POW: case E_MINMAX: case E_UNOP: case E_NOT: case E_AND:
    case E_OR: case E_VAND: case E_VOR: case E_CMP: case E_COND: case E_CAST: case E_SIZEOF:
        break;
    case E_VAR:
        if (e->var->kind == V_PYGLOBAL || e->var->ty->kind == TY_OBJECT || e->var->ty->kind == TY_PTR ||
            e->var->ty->kind == TY_ARRAY || e->var->ty->kind == TY_OPAQUE)
            return 0;
        break;
    case E_VIEW_SHAPE: case E_VIEW_STRIDE: case E_VIEW_NDIM:
        return e->args[0]->kind == E_VAR && (e->nargs < 2 || pure_expr(e->args[1], ctx, depth, in_callee));
    case E_VIEW_ELEM:
        if (in_callee || e->args[0]->kind != E_VAR) return 0;
        for (int i = 1; i < e->nargs; i++)
            if (!pure_expr(e->args[i], ctx, depth, in_callee)) return 0;
        if (!e->boundscheck) return 1;
        if (!ctx->p) return 0;
        for (int i = 1; i < e->nargs; i++) {
            IrPlanCheck *c = cy_alloc(ctx->a, sizeof *c);
            const IrVar *v;
            if (!simple_index(e->args[i], ctx, &v, &c->off, &c->int32)) return 0;
            c->elem = (IrExpr *)e;
            c->axis = i - 1;
            c->var = (IrVar *)v;
            cy_vec_push(ctx->a, &ctx->p->checks, c);
        }
        return 1;
    case E_CALL_C:
        if (!e->sval || !cy_ir_known_c(e->sval)) return 0;
        break;
    case E_CALL: {
        const IrFunc *f = e->fn;
        Pure callee = {ctx->a, NULL, {NULL, NULL, NULL}}; /* a callee's elements are not the region's */
        if (!f || depth > 8 || f->kind == F_DEF || f->kind == F_EXTERN || f->can_raise || f->is_recursive ||
            !pure_stmts(&f->body, &callee, depth + 1, 1))
            return 0;
        for (int i = 0; i < e->nargs; i++)
            if (e->args[i]->ty->kind == TY_VIEW || !pure_expr(e->args[i], ctx, depth, in_callee)) return 0;
        return 1;
    }
    default: return 0;
    }
    for (int i = 0; i < e->nargs; i++)
        if (!pure_expr(e->args[i], ctx, depth, in_callee)) return 0;
    return 1;
}

/* Assignments to C scalar locals (and, in the region itself, to view
 * elements), ifs and returns of pure expressions. */
static int pure_stmts(const CyVec *body, const Pure *ctx, int depth, int in_callee) {
    for (int i = 0; i < body->len; i++) {
        const IrStmt *x = body->items[i];
        switch (x->kind) {
        case ST_ASSIGN: {
            const IrExpr *t = x->target;
            if (t->kind == E_VAR) {
                if (t->var->kind != V_LOCAL && t->var->kind != V_PARAM) return 0;
                if (!cy_type_is_numeric(t->var->ty) || cy_type_is_complex(t->var->ty)) return 0;
            } else if (t->kind != E_VIEW_ELEM || in_callee) {
                return 0;
            }
            if (!pure_expr(t, ctx, depth, in_callee) || !pure_expr(x->value, ctx, depth, in_callee)) return 0;
            break;
        }
        case ST_RETURN:
            if (!in_callee || !pure_expr(x->value, ctx, depth, in_callee)) return 0;
            break;
        case ST_IF:
            if (!pure_expr(x->cond, ctx, depth, in_callee)) return 0;
            break;
        case ST_DECLARE: case ST_BLOCK: case ST_NOGIL: break;
        default: return 0;
        }
        if (!pure_stmts(&x->body, ctx, depth, in_callee) || !pure_stmts(&x->orelse, ctx, depth, in_callee)) return 0;
    }
    return 1;
}

/* range(c, stop) with a constant c >= 0 and step 1, over a signed integer:
 * its trip count is stop - c when positive, with no overflow. */
static int simple_range(const IrStmt *x) {
    int64_t c, s = 1;
    return cy_const_int(x->start, &c) && c >= 0 && (!x->step || (cy_const_int(x->step, &s) && s == 1)) &&
           cy_type_is_int(x->var->ty) && x->var->ty->is_signed && x->var->ty->kind != TY_BINT;
}

static int in_expr(const IrExpr *e, const IrExpr *x) {
    if (!e) return 0;
    if (e == x) return 1;
    for (int i = 0; i < e->nargs; i++)
        if (in_expr(e->args[i], x)) return 1;
    return 0;
}

static int contains_stmt_expr(const CyVec *body, const IrExpr *x) {
    for (int i = 0; i < body->len; i++) {
        const IrStmt *y = body->items[i];
        if (in_expr(y->target, x) || in_expr(y->value, x) || in_expr(y->cond, x) ||
            contains_stmt_expr(&y->body, x) || contains_stmt_expr(&y->orelse, x))
            return 1;
    }
    return 0;
}

static int nodes(const IrExpr *e) {
    int n = e ? 1 : 0;
    for (int i = 0; e && i < e->nargs; i++) n += nodes(e->args[i]);
    return n;
}

static int assigns_var(const CyVec *body, const IrVar *v) {
    for (int i = 0; i < body->len; i++) {
        const IrStmt *x = body->items[i];
        if (x->var == v || (x->kind == ST_ASSIGN && x->target->kind == E_VAR && x->target->var == v)) return 1;
        if (assigns_var(&x->body, v) || assigns_var(&x->orelse, v)) return 1;
    }
    return 0;
}

static int is_red(const IrPlan *p, const IrVar *v) {
    for (int k = 0; k < p->reds.len; k++)
        if (((IrLoopRed *)p->reds.items[k])->var == v) return 1;
    return 0;
}

static const char *block(CyArena *a, IrRegion *r, IrStmt *x, IrPlan *p) {
    if (!r->is_prange || r->parent) return "not a top-level prange";
    if (!r->nest || r->nest->too_deep) return "no loop nest";
    if (r->has_break || r->has_return || r->has_with_gil || r->uses_threadid || r->uses_objects || r->uses_complex)
        return "the prange may break, return or use objects";
    for (int i = 0; i < r->vars.len; i++)
        if (((IrVarUse *)r->vars.items[i])->cls == RC_REDUCTION) return "the prange has reductions";
    IrStmt *J = cy_ir_inner_independent(a, r, x, &p->alias);
    if (!J) return "the range() loop in the prange is not independent (or not alone)";
    if (!simple_range(J)) return "the range() loop does not count up by 1 from a constant";
    IrStmt *K = NULL;
    for (int i = 0; i < J->body.len; i++) {
        IrStmt *y = J->body.items[i];
        if (y->kind != ST_FOR_RANGE) continue;
        if (K) return "more than one loop in the range() loop";
        K = y;
        p->kpos = i;
    }
    if (!K) return "no reduction loop";
    p->jloop = J;
    p->kloop = K;
    if (K->orelse.len || !simple_range(K)) return "the reduction loop does not count up by 1 from a constant";
    IrLoop *lk = loop_of_stmt(r->nest, K), *lj = loop_of_stmt(r->nest, J);
    if (!lk || !lj || lk->parent != lj) return "no loop nest";
    if (!lk->invariant_bounds || !plain(K->stop)) return "the reduction loop's bounds change in the nest";
    if (!lk->reductions.len) return "the inner loop reduces nothing";
    for (int i = 0; i < lk->reductions.len; i++) {
        IrLoopRed *y = lk->reductions.items[i];
        if (!cy_type_is_int(y->var->ty) && !cy_type_is_float(y->var->ty)) return "a reduction of a complex";
        if (y->var->kind != V_LOCAL && y->var->kind != V_PARAM) return "a reduction of a module variable";
        cy_vec_push(a, &p->reds, y);
    }
    for (int i = 0; i < K->body.len; i++) {
        IrStmt *y = K->body.items[i];
        if (y->kind != ST_ASSIGN || y->target->kind != E_VAR || !is_red(p, y->target->var))
            return "the reduction loop does more than reduce";
    }
    /* the register tile repeats the k-loop's code once per element (twice
       over with a version for unit strides): a long one would cost more to
       compile than it gains */
    int size = 0;
    for (int i = 0; i < K->body.len; i++) size += nodes(((IrStmt *)K->body.items[i])->value);
    if (size > 64) return "the reduction loop's body is too long to repeat in a register tile";
    for (int i = 0; i < J->body.len; i++)
        if (i != p->kpos) cy_vec_push(a, i < p->kpos ? &p->pre : &p->post, J->body.items[i]);
    Pure ctx = {a, p, {r->index, J->var, K->var}};
    if (!pure_stmts(&K->body, &ctx, 0, 0) || !pure_stmts(&p->pre, &ctx, 0, 0) || !pure_stmts(&p->post, &ctx, 0, 0))
        return "the range() loop's body may raise (other than a bounds check of a loop variable plus a "
               "constant) or has side effects other than view elements";
    for (int i = 0; i < p->checks.len; i++) {
        IrPlanCheck *c = p->checks.items[i];
        c->in_k = contains_stmt_expr(&K->body, c->elem);
    }
    const IrVar *loopv[3] = {r->index, J->var, K->var};
    for (int i = 0; i < 3; i++)
        if (assigns_var(&p->pre, loopv[i]) || assigns_var(&K->body, loopv[i]) || assigns_var(&p->post, loopv[i]))
            return "the body assigns a loop variable";
    IrScan sp = {0}, sk = {0}, so = {0};
    cy_ir_scan(a, &sp, &p->pre);
    cy_ir_scan(a, &sk, &K->body);
    cy_ir_scan(a, &so, &p->post);
    if (has(&sp.used, K->var) || has(&so.used, K->var)) return "pre or post reads the reduction loop's variable";
    /* pre, the k-loop and post run in separate passes over a block's
       elements: only the accumulators carry values from one to the next */
    for (int i = 0; i < sp.assigned.len; i++) {
        IrVar *v = sp.assigned.items[i];
        if (is_red(p, v)) continue;
        if (has(&so.used, v) || has(&sk.used, v)) return "post reads a variable pre assigns";
    }
    for (int w = 0; w < 2; w++) {
        IrScan *sc = w ? &so : &sp;
        for (int i = 0; i < sc->assigned.len; i++) {
            IrVar *v = sc->assigned.items[i];
            if (!is_red(p, v) && !has(&p->privs, v)) cy_vec_push(a, &p->privs, v);
        }
    }
    for (int i = 0; i < sk.used.len; i++) {
        IrVar *v = sk.used.items[i];
        if (has(&p->privs, v)) return "the reduction loop reads a variable pre or post assigns";
    }
    /* accesses whose address moves with j: a version of the code for unit
       strides there lets the compiler load a tile's row as a vector */
    int li = loop_index(r->nest, lj);
    int small = 1;
    for (int i = 0; i < lk->reads.len; i++) {
        IrAccess *y = lk->reads.items[i];
        if (!y->view || y->view->ty->kind != TY_VIEW) continue;
        small &= y->view->ty->base->size <= 4;
        for (int d = 0; d < y->ndim; d++)
            if (y->idx[d].affine && y->idx[d].coef[li] == 1 && !y->view->ty->axes[d]) {
                int dup = 0;
                for (int q = 0; q < p->unit.len; q++)
                    dup |= p->unit.items[q] == y->view && (int)(intptr_t)p->unit_axis.items[q] == d;
                if (dup) continue;
                cy_vec_push(a, &p->unit, y->view);
                cy_vec_push(a, &p->unit_axis, (void *)(intptr_t)d);
            }
    }
    long accbytes = 0;
    for (int i = 0; i < p->reds.len; i++) {
        IrLoopRed *y = p->reds.items[i];
        small &= y->var->ty->size <= 4;
        accbytes += y->var->ty->size;
    }
    /* a 4 x 4 tile of doubles is 8 SSE registers of accumulators (4 x 8
       floats: 8 too); 32 rows x 256 columns x 128 k keep a block of b in
       L2 and a row block of a in L1 (measured on a 2-core EPYC, docs/design.md) */
    p->mr = 4;
    p->nr = small ? 8 : 4;
    p->mc = 32;
    p->kc = 128;
    p->nc = 256;
    /* the block's accumulators live on the thread's stack: at most 64 KiB */
    while (p->nc > p->nr && (long)p->mc * p->nc * accbytes > 65536) p->nc /= 2;
    return NULL;
}

IrPlan *cy_ir_plan_native(CyArena *a, IrRegion *r, IrStmt *x) {
    IrPlan *p = cy_alloc(a, sizeof *p);
    const char *why = x ? block(a, r, x, p) : "no region statement";
    if (why) return linear(a, why);
    p->kind = PLAN_BLOCK;
    return p;
}
