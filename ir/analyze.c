/* analyze.c: facts about parallel regions that the backends and the
 * runtime need — recursion through the call graph, and whether OpenCL can
 * take a region (with the reason when it cannot). */
#include "ir.h"
#include <string.h>

/* Does f reach target through direct calls?  seen[] guards cycles. */
static int reaches(const IrModule *m, IrFunc *f, IrFunc *target, char *seen);

static int expr_reaches(const IrModule *m, IrExpr *e, IrFunc *target, char *seen) {
    if (!e) return 0;
    if (e->kind == E_CALL && e->fn && (e->fn == target || reaches(m, e->fn, target, seen))) return 1;
    for (int i = 0; i < e->nargs; i++)
        if (expr_reaches(m, e->args[i], target, seen)) return 1;
    return 0;
}

static int stmts_reach(const IrModule *m, CyVec *v, IrFunc *target, char *seen) {
    for (int i = 0; i < v->len; i++) {
        IrStmt *x = v->items[i];
        if (expr_reaches(m, x->target, target, seen) || expr_reaches(m, x->value, target, seen) ||
            expr_reaches(m, x->cond, target, seen) || expr_reaches(m, x->start, target, seen) ||
            expr_reaches(m, x->stop, target, seen) || expr_reaches(m, x->step, target, seen) ||
            stmts_reach(m, &x->body, target, seen) || stmts_reach(m, &x->orelse, target, seen))
            return 1;
    }
    return 0;
}

static int func_index(const IrModule *m, IrFunc *f) {
    for (int i = 0; i < m->funcs.len; i++)
        if (m->funcs.items[i] == f) return i;
    return -1;
}

static int reaches(const IrModule *m, IrFunc *f, IrFunc *target, char *seen) {
    int i = func_index(m, f);
    if (i < 0 || seen[i]) return 0;
    seen[i] = 1;
    return stmts_reach(m, &f->body, target, seen);
}

/* Walks a region body for the first construct OpenCL cannot take. */
typedef struct {
    const IrModule *m;
    CyArena *a;
    const char *why;
    int uses_double;
} Elig;

static void elig_expr(Elig *g, IrExpr *e);

static void elig_func(Elig *g, IrFunc *f, int depth) {
    if (g->why || depth > 16) return;
    if (f->is_recursive) {
        g->why = cy_fmt(g->a, "calls recursive function %s()", f->name);
        return;
    }
    if (f->calls_external) {
        g->why = cy_fmt(g->a, "%s() calls an external C function", f->name);
        return;
    }
    (void)depth;
}

static void elig_expr(Elig *g, IrExpr *e) {
    if (!e || g->why) return;
    if (e->ty && (e->ty->kind == TY_DOUBLE || (e->ty->kind == TY_VIEW && e->ty->base->kind == TY_DOUBLE)))
        g->uses_double = 1;
    if (e->ty && cy_type_is_complex(e->ty)) {
        g->why = "complex numbers";
        return;
    }
    if (e->ty && e->ty->kind == TY_LDOUBLE) {
        g->why = "long double";
        return;
    }
    switch (e->kind) {
    case E_CALL_C:
        if (e->fn) {
            g->why = cy_fmt(g->a, "calls external C function %s()", e->fn->name);
            return;
        }
        break;
    case E_CALL: elig_func(g, e->fn, 0); break;
    case E_THREADID: g->why = "threadid()"; return;
    case E_PTR_INDEX: case E_DEREF: case E_ADDR: g->why = "pointers"; return;
    case E_VIEW_SLICE: g->why = "memoryview slicing inside the loop"; return;
    default:
        if (e->ty && e->ty->kind == TY_OBJECT) {
            g->why = "Python objects";
            return;
        }
    }
    for (int i = 0; i < e->nargs; i++) elig_expr(g, e->args[i]);
}

static void elig_stmts(Elig *g, CyVec *v) {
    for (int i = 0; i < v->len && !g->why; i++) {
        IrStmt *x = v->items[i];
        switch (x->kind) {
        case ST_GIL: g->why = "with gil"; return;
        case ST_RAISE: g->why = "raises an exception"; return;
        case ST_PARALLEL: g->why = "parallel() block"; return;
        case ST_FOR_ITER: case ST_UNPACK: g->why = "Python iteration"; return;
        default: break;
        }
        elig_expr(g, x->target);
        elig_expr(g, x->value);
        elig_expr(g, x->cond);
        elig_expr(g, x->start);
        elig_expr(g, x->stop);
        elig_expr(g, x->step);
        elig_stmts(g, &x->body);
        elig_stmts(g, &x->orelse);
    }
}

static IrStmt *find_region_stmt(CyVec *v, IrRegion *r) {
    for (int i = 0; i < v->len; i++) {
        IrStmt *x = v->items[i];
        if ((x->kind == ST_PRANGE || x->kind == ST_PARALLEL) && x->region == r) return x;
        IrStmt *y = find_region_stmt(&x->body, r);
        if (!y) y = find_region_stmt(&x->orelse, r);
        if (y) return y;
    }
    return NULL;
}

static void add_arg(CyArena *a, IrRegion *r, RegionArgKind k, IrVar *v, const char *op, int rd, int wr) {
    IrRegionArg *x = cy_alloc(a, sizeof *x);
    x->kind = k;
    x->var = v;
    x->redop = op;
    x->read = rd;
    x->written = wr;
    cy_vec_push(a, &r->args, x);
}

static void region_args(CyArena *a, IrRegion *r) {
    for (int i = 0; i < r->views.len; i++) {
        IrViewUse *u = r->views.items[i];
        add_arg(a, r, RA_VIEW, u->view, NULL, u->read, u->written);
    }
    static const VarClass order[] = {RC_SHARED, RC_REDUCTION, RC_LASTPRIVATE};
    static const RegionArgKind kinds[] = {RA_SCALAR, RA_REDUCTION, RA_LASTPRIVATE};
    for (int o = 0; o < 3; o++) {
        for (int i = 0; i < r->vars.len; i++) {
            IrVarUse *u = r->vars.items[i];
            if (u->cls != order[o] || u->var == r->index || u->var->ty->kind == TY_VIEW) continue;
            add_arg(a, r, kinds[o], u->var, u->redop, 0, 0);
        }
    }
}

void cy_ir_analyze(CyArena *a, IrModule *m) {
    int n = m->funcs.len;
    char *seen = cy_alloc(a, (size_t)n + 1);
    for (int i = 0; i < n; i++) {
        IrFunc *f = m->funcs.items[i];
        memset(seen, 0, (size_t)n + 1);
        if (f->is_recursive || reaches(m, f, f, seen)) f->is_recursive = 1;
    }
    /* calls_external propagates to callers: a kernel cannot call it either */
    for (int changed = 1, it = 0; changed && it < 100; it++) {
        changed = 0;
        for (int i = 0; i < n; i++) {
            IrFunc *f = m->funcs.items[i];
            if (f->calls_external) continue;
            for (int j = 0; j < n; j++) {
                IrFunc *g = m->funcs.items[j];
                if (g == f || !g->calls_external) continue;
                memset(seen, 0, (size_t)n + 1);
                seen[i] = 0;
                if (stmts_reach(m, &f->body, g, seen)) {
                    f->calls_external = 1;
                    changed = 1;
                    break;
                }
            }
        }
    }
    for (int i = 0; i < m->regions.len; i++) {
        IrRegion *r = m->regions.items[i];
        IrStmt *x = r->func ? find_region_stmt(&r->func->body, r) : NULL;
        Elig g = {m, a, NULL, 0};
        if (!r->is_prange) g.why = "parallel() block (threads are explicit)";
        else if (r->parent) g.why = "prange inside a parallel() block";
        else if (r->has_with_gil) g.why = "with gil";
        else if (r->uses_objects) g.why = "Python objects";
        else if (r->uses_complex) g.why = "complex numbers";
        else if (r->uses_threadid) g.why = "threadid()";
        else if (r->calls_external) g.why = "calls an external C function";
        else if (x) elig_stmts(&g, &x->body);
        if (!g.why && x) {
            for (int k = 0; k < r->vars.len; k++) {
                IrVarUse *u = r->vars.items[k];
                if (u->var->ty->kind == TY_DOUBLE) g.uses_double = 1;
            }
        }
        if (!g.why) {
            /* recursion anywhere under the region's calls */
            for (int k = 0; k < n && !g.why; k++) {
                IrFunc *f = m->funcs.items[k];
                memset(seen, 0, (size_t)n + 1);
                if (f->is_recursive && x && stmts_reach(m, &x->body, f, seen)) {
                    r->calls_recursive = 1;
                    g.why = cy_fmt(a, "calls recursive function %s()", f->name);
                }
            }
        }
        if (!g.why) {
            for (int k = 0; k < r->vars.len && !g.why; k++) {
                IrVarUse *u = r->vars.items[k];
                TypeKind tk = u->var->ty->kind;
                if (tk == TY_OBJECT || tk == TY_PTR) g.why = "Python objects or pointers";
            }
        }
        r->ocl_ok = g.why == NULL;
        r->ocl_reason = g.why;
        r->uses_fp64 = g.uses_double;
        if (r->ocl_ok) region_args(a, r);
    }
}
