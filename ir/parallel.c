/* parallel.c: a `with nogil, parallel():` block that holds only a prange
 * (and, before it, assignments of values no thread can tell apart) is that
 * prange — the block becomes a plain block and its prange a top-level
 * region, which an OpenCL kernel can run.
 *
 * Why this is exact under Cython's semantics: a variable the block assigns
 * is private to each thread, and after the block its value is undefined
 * (Cython: there is no sequentially last value); a value that depends on
 * nothing a thread owns (no threadid(), no call, nothing that can raise,
 * no memory it allocates) is the same in every thread, so computing it
 * once before the loop gives each thread what it would have computed.  A
 * prange inside a parallel() block shares out its iterations among the
 * block's team exactly as a top-level prange does among its own; the
 * block's num_threads and use_threads_if (which the inner prange's
 * replace: Cython ignores those of a nested prange) become the prange's.
 * A block with anything else (threadid(), malloc'd scratch, statements
 * after the prange, a call) keeps its threads explicit, and its prange
 * stays native ("prange inside a parallel() block"). */
#include "ir.h"
#include <string.h>

/* A value every thread of the block computes alike, and that cannot fail. */
static int same_in_every_thread(const IrExpr *e) {
    if (!e) return 1;
    if (e->can_raise) return 0;
    switch (e->kind) {
    case E_INT: case E_FLOAT: case E_IMAG: case E_CNAME: case E_SIZEOF: break;
    case E_VAR:
        /* a scalar, or a view only as the operand of .shape/.strides/.ndim (below) */
        if (!cy_type_is_numeric(e->ty)) return 0;
        break;
    case E_VIEW_SHAPE: case E_VIEW_STRIDE: case E_VIEW_NDIM:
        if (e->args[0]->kind != E_VAR) return 0;
        return e->kind == E_VIEW_NDIM || same_in_every_thread(e->args[1]);
    case E_BINOP: case E_PYFLOORDIV: case E_PYMOD: case E_POW: case E_MINMAX: case E_UNOP: case E_NOT:
    case E_AND: case E_OR: case E_VAND: case E_VOR: case E_CMP: case E_COND: case E_CAST:
        break;
    case E_CALL_C:
        /* libc.math: no state (the prelude's abs too) */
        if (e->fn || !e->sval || !cy_ir_known_c(e->sval)) return 0;
        break;
    default: return 0;
    }
    if (!cy_type_is_numeric(e->ty)) return 0;
    for (int i = 0; i < e->nargs; i++)
        if (!same_in_every_thread(e->args[i])) return 0;
    return 1;
}

static int is_ref(const IrExpr *e, const void *v) { return e->kind == E_VAR && e->var == v; }

int cy_ir_read_elsewhere(const CyVec *body, const IrStmt *skip, const IrVar *v) {
    for (int i = 0; i < body->len; i++) {
        const IrStmt *x = body->items[i];
        if (x == skip) continue;
        const IrRegion *r = x->region;
        const IrExpr *es[] = {x->value, x->cond, x->start, x->stop, x->step, r ? r->start : NULL, r ? r->stop : NULL,
                              r ? r->step : NULL, r ? r->num_threads : NULL, r ? r->chunksize : NULL,
                              r ? r->use_threads_if : NULL};
        for (size_t k = 0; k < sizeof es / sizeof es[0]; k++)
            if (es[k] && cy_ir_expr_any(es[k], is_ref, v)) return 1;
        if (x->target && !(x->target->kind == E_VAR && !x->op) && cy_ir_expr_any(x->target, is_ref, v)) return 1;
        for (int k = 0; k < x->ntargets; k++)
            if (x->targets[k] && x->targets[k]->kind != E_VAR && cy_ir_expr_any(x->targets[k], is_ref, v)) return 1;
        if (cy_ir_read_elsewhere(&x->body, skip, v) || cy_ir_read_elsewhere(&x->orelse, skip, v)) return 1;
    }
    return 0;
}

/* The prange statement x's block may be replaced by, or NULL.  A private
 * the block assigns keeps, outside the block, the value it had before it
 * (OpenMP's private copy is discarded; Cython reports a read only where
 * the variable is unbound on every path): hoisting its assignment out of
 * the block is exact only where nothing else in the function (fbody)
 * reads it. */
static IrStmt *lone_prange(const CyVec *fbody, IrStmt *x) {
    IrRegion *r = x->region;
    if (!r || r->is_prange || !x->body.len) return NULL;
    IrStmt *last = x->body.items[x->body.len - 1];
    if (last->kind != ST_PRANGE || !last->region || last->region->parent != r || last->orelse.len) return NULL;
    for (int i = 0; i + 1 < x->body.len; i++) {
        IrStmt *y = x->body.items[i];
        if (y->kind == ST_DECLARE) continue;
        if (y->kind != ST_ASSIGN || y->op != OP_NONE || y->target->kind != E_VAR) return NULL;
        IrVar *v = y->target->var;
        if (v->kind != V_LOCAL || !cy_type_is_numeric(v->ty) || !same_in_every_thread(y->value)) return NULL;
        if (cy_ir_read_elsewhere(fbody, x, v)) return NULL;
    }
    return last;
}

static void flatten(const CyVec *fbody, CyVec *body) {
    for (int i = 0; i < body->len; i++) {
        IrStmt *x = body->items[i];
        IrStmt *p = x->kind == ST_PARALLEL ? lone_prange(fbody, x) : NULL;
        if (p) {
            IrRegion *r = x->region, *q = p->region;
            q->parent = NULL;
            q->num_threads = r->num_threads;
            q->use_threads_if = r->use_threads_if;
            q->nogil = 1;
            r->as_prange = q;
            x->kind = ST_BLOCK;
            x->region = NULL;
            continue;
        }
        flatten(fbody, &x->body);
        flatten(fbody, &x->orelse);
    }
}

void cy_ir_flatten_parallel(IrModule *m) {
    for (int i = 0; i < m->funcs.len; i++) {
        IrFunc *f = m->funcs.items[i];
        flatten(&f->body, &f->body);
    }
}
