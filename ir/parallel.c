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

/* The prange statement x's block may be replaced by, or NULL. */
static IrStmt *lone_prange(IrStmt *x) {
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
    }
    return last;
}

static void flatten(CyVec *body) {
    for (int i = 0; i < body->len; i++) {
        IrStmt *x = body->items[i];
        IrStmt *p = x->kind == ST_PARALLEL ? lone_prange(x) : NULL;
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
        flatten(&x->body);
        flatten(&x->orelse);
    }
}

void cy_ir_flatten_parallel(IrModule *m) {
    for (int i = 0; i < m->funcs.len; i++) flatten(&((IrFunc *)m->funcs.items[i])->body);
}
