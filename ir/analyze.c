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

/* Walks a region body (and the bodies of the cdef functions it calls) for
 * the first construct OpenCL cannot take; the reason names it. */
typedef struct {
    const IrModule *m;
    CyArena *a;
    const char *why;
    IrFunc *fn;          /* the called function being walked, or NULL: the region body */
    IrRegion *r;
    CyVec done;          /* IrFunc* already checked */
} Elig;

/* The C functions a kernel may call: libc.math (also the float variants,
 * sqrtf ...) and the prelude's min/max/abs; the OpenCL backend maps them
 * to built-ins. */
static const char *const ocl_math[] = {
    "sqrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "asin", "acos",
    "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "fabs", "floor", "ceil", "round", "trunc",
    "rint", "cbrt", "erf", "erfc", "tgamma", "lgamma", "pow", "atan2", "fmod", "hypot", "fmin", "fmax",
    "copysign", "fdim", "remainder", "fma", "isnan", "isinf", "isfinite", "signbit", "lround", "lrint",
    "cyrt_min", "cyrt_max", "cyrt_abs", NULL};

static int ocl_known_c(const char *name) {
    size_t n = strlen(name);
    for (int i = 0; ocl_math[i]; i++) {
        size_t k = strlen(ocl_math[i]);
        if (!strcmp(name, ocl_math[i])) return 1;
        if (n == k + 1 && name[k] == 'f' && !strncmp(name, ocl_math[i], k) && strncmp(name, "cyrt_", 5)) return 1;
    }
    return 0;
}

static void why(Elig *g, const char *what) {
    if (g->why) return;
    g->why = g->fn ? cy_fmt(g->a, "calls %s(), which %s", g->fn->name, what) : what;
}

/* A construct named by a noun: "with gil", or "calls f(), which uses with gil". */
static void uses(Elig *g, const char *what) {
    if (g->why) return;
    g->why = g->fn ? cy_fmt(g->a, "calls %s(), which uses %s", g->fn->name, what) : what;
}

static const char *type_problem(const CyType *t) {
    switch (t->kind) {
    case TY_OBJECT: return "Python objects";
    case TY_VIEW: return "memoryviews";
    case TY_PTR: case TY_FUNC: return "pointers";
    case TY_LDOUBLE: return "long double";
    case TY_CFLOAT: case TY_CDOUBLE: return "complex numbers";
    default: return NULL;
    }
}

static void elig_stmts(Elig *g, CyVec *v);

static int nonzero_const(const IrExpr *e) {
    while (e && e->kind == E_CAST) e = e->args[0];
    if (e && e->kind == E_INT && cy_type_is_int(e->ty)) return e->ival != 0;
    return e && e->kind == E_FLOAT && e->fval != 0;
}

static int minus_one(const IrExpr *e) {
    while (e && e->kind == E_CAST && cy_type_is_int(e->ty)) e = e->args[0];
    return e && e->kind == E_INT && (int64_t)e->ival == -1;
}

/* Does evaluating e itself (not its operands) raise?  As the backends
 * check: a division by a non-zero constant never does (sema's can_raise
 * is coarser); calls are judged by walking the callee. */
static int raises_here(const IrExpr *e) {
    switch (e->kind) {
    case E_VIEW_ELEM: case E_VIEW_SLICE: return e->boundscheck || e->kind == E_VIEW_SLICE;
    case E_BINOP:
        return (!strcmp(e->op, "/") || !strcmp(e->op, "%")) && !e->cdivision && !nonzero_const(e->args[1]);
    case E_PYFLOORDIV: case E_PYMOD:
        if (e->cdivision) return 0;
        if (!nonzero_const(e->args[1])) return 1;
        return e->kind == E_PYFLOORDIV && cy_type_is_int(e->ty) && e->ty->is_signed && minus_one(e->args[1]);
    default: return 0;
    }
}

/* A cdef function called from a kernel: scalar parameters and result, no
 * exception, nothing OpenCL cannot take in its body. */
static void elig_func(Elig *g, IrFunc *f) {
    if (g->why) return;
    for (int i = 0; i < g->done.len; i++)
        if (g->done.items[i] == f) return;
    cy_vec_push(g->a, &g->done, f);
    if (f->is_recursive) {
        g->why = cy_fmt(g->a, "calls recursive function %s()", f->name);
        return;
    }
    if (f->calls_external) {
        g->why = cy_fmt(g->a, "%s() calls an external C function", f->name);
        return;
    }
    IrFunc *saved = g->fn;
    g->fn = f;
    for (int i = 0; i < f->params.len && !g->why; i++) {
        IrVar *p = f->params.items[i];
        const char *t = type_problem(p->ty);
        if (t) why(g, p->ty->kind == TY_VIEW ? "takes a memoryview argument"
                     : p->ty->kind == TY_PTR ? "takes a pointer argument"
                     : cy_fmt(g->a, "takes an argument of type '%s'", p->ty->name));
    }
    if (!g->why && f->ret->kind != TY_VOID && type_problem(f->ret))
        why(g, cy_fmt(g->a, "returns '%s'", f->ret->name));
    if (!g->why && (f->kind == F_DEF || f->with_gil)) why(g, "needs the GIL");
    for (int i = 0; i < f->locals.len && !g->why; i++) {
        IrVar *v = f->locals.items[i];
        const char *t = type_problem(v->ty);
        if (t) uses(g, t);
    }
    if (!g->why) elig_stmts(g, &f->body);
    g->fn = saved;
}

static int is_region_arg_var(Elig *g, IrVar *v) {
    if (g->fn) return 0;
    for (int i = 0; i < g->r->vars.len; i++)
        if (((IrVarUse *)g->r->vars.items[i])->var == v) return 1;
    return 0;
}

static void elig_expr(Elig *g, IrExpr *e) {
    if (!e || g->why) return;
    const char *t = e->ty ? type_problem(e->ty) : NULL;
    if (t && !(e->ty->kind == TY_VIEW && e->kind == E_VAR)) {
        uses(g, t);
        return;
    }
    /* a kernel can report only what the region body itself raises; in a
       called function (even a noexcept one, where Cython prints the
       exception and goes on) nothing may raise */
    if (g->fn && raises_here(e)) {
        why(g, "can raise an exception");
        return;
    }
    switch (e->kind) {
    case E_CALL_C:
        if (e->fn) {
            why(g, cy_fmt(g->a, "calls external C function %s()", e->fn->name));
            return;
        }
        if (!e->sval || !ocl_known_c(e->sval)) {
            why(g, cy_fmt(g->a, "calls C function %s(), which has no OpenCL equivalent", e->sval ? e->sval : "?"));
            return;
        }
        break;
    case E_CALL:
        if (!e->fn) break;
        if (e->fn->kind == F_EXTERN) {
            why(g, cy_fmt(g->a, "calls external C function %s()", e->fn->name));
            return;
        }
        elig_func(g, e->fn);
        break;
    case E_THREADID: uses(g, "threadid()"); return;
    case E_PTR_INDEX: case E_DEREF: case E_ADDR: uses(g, "pointers"); return;
    case E_VIEW_SLICE: uses(g, "memoryview slicing inside the loop"); return;
    case E_VAR:
        if (e->var->ty->kind == TY_VIEW && g->fn) {
            uses(g, "memoryviews");
            return;
        }
        if (e->var->kind == V_MODULE && (g->fn || !is_region_arg_var(g, e->var))) {
            uses(g, cy_fmt(g->a, "module-level variable '%s'", e->var->name));
            return;
        }
        break;
    case E_VIEW_ELEM: case E_VIEW_SHAPE: case E_VIEW_STRIDE:
        if (e->args[0]->kind != E_VAR) {
            uses(g, "a memoryview expression");
            return;
        }
        if (e->kind != E_VIEW_ELEM && e->args[1]->kind == E_INT && (int64_t)e->args[1]->ival < 0) {
            uses(g, "a memoryview None test");
            return;
        }
        break;
    default:
        break;
    }
    for (int i = 0; i < e->nargs; i++) elig_expr(g, e->args[i]);
}

static void elig_stmts(Elig *g, CyVec *v) {
    for (int i = 0; i < v->len && !g->why; i++) {
        IrStmt *x = v->items[i];
        switch (x->kind) {
        case ST_GIL: uses(g, "with gil"); return;
        case ST_RAISE: why(g, "raises an exception"); return;
        case ST_ASSERT: why(g, g->fn ? "contains an assert" : "assert inside prange"); return;
        case ST_PARALLEL: uses(g, "a parallel() block"); return;
        case ST_PRANGE: why(g, g->fn ? "has a prange loop" : "prange inside prange"); return;
        case ST_FOR_ITER: case ST_UNPACK: uses(g, "Python iteration"); return;
        case ST_RETURN:
            if (!g->fn) {
                why(g, "return inside prange");
                return;
            }
            break;
        case ST_FOR_RANGE:
            if (g->fn && x->step_sign == 0) {
                why(g, "can raise an exception");
                return;
            }
            break;
        case ST_ASSIGN:
            if (x->target->kind == E_VAR && x->target->var->ty->kind == TY_VIEW) {
                why(g, "assigns a memoryview variable");
                return;
            }
            if (x->target->kind == E_VAR && x->target->var->kind == V_MODULE) {
                why(g, cy_fmt(g->a, "assigns module-level variable '%s'", x->target->var->name));
                return;
            }
            break;
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

/* ---- does a kernel need cl_khr_fp64? ------------------------------------- */

static int is_double(const CyType *t) {
    return t && (t->kind == TY_DOUBLE || (t->kind == TY_VIEW && t->base->kind == TY_DOUBLE));
}

static int fp64_stmts(CyVec *v, CyVec *seen, CyArena *a);

static int fp64_func(IrFunc *f, CyVec *seen, CyArena *a) {
    for (int i = 0; i < seen->len; i++)
        if (seen->items[i] == f) return 0;
    cy_vec_push(a, seen, f);
    if (is_double(f->ret)) return 1;
    for (int i = 0; i < f->params.len; i++)
        if (is_double(((IrVar *)f->params.items[i])->ty)) return 1;
    for (int i = 0; i < f->locals.len; i++)
        if (is_double(((IrVar *)f->locals.items[i])->ty)) return 1;
    return fp64_stmts(&f->body, seen, a);
}

/* Constants converted to another type are folded by the backends: a
 * `float s = 0.0` needs no double. */
static int fp64_expr(IrExpr *e, CyVec *seen, CyArena *a) {
    if (!e) return 0;
    if (e->kind == E_CAST && !is_double(e->ty) && (e->args[0]->kind == E_FLOAT || e->args[0]->kind == E_CNAME))
        return 0;
    if (is_double(e->ty)) return 1;
    if (e->kind == E_CALL && e->fn && fp64_func(e->fn, seen, a)) return 1;
    for (int i = 0; i < e->nargs; i++)
        if (fp64_expr(e->args[i], seen, a)) return 1;
    return 0;
}

static int fp64_stmts(CyVec *v, CyVec *seen, CyArena *a) {
    for (int i = 0; i < v->len; i++) {
        IrStmt *x = v->items[i];
        if (x->var && is_double(x->var->ty)) return 1;
        if (fp64_expr(x->target, seen, a) || fp64_expr(x->value, seen, a) || fp64_expr(x->cond, seen, a) ||
            fp64_expr(x->start, seen, a) || fp64_expr(x->stop, seen, a) || fp64_expr(x->step, seen, a) ||
            fp64_stmts(&x->body, seen, a) || fp64_stmts(&x->orelse, seen, a))
            return 1;
    }
    return 0;
}

IrStmt *cy_ir_region_stmt(CyVec *v, const IrRegion *r) {
    for (int i = 0; i < v->len; i++) {
        IrStmt *x = v->items[i];
        if ((x->kind == ST_PRANGE || x->kind == ST_PARALLEL) && x->region == r) return x;
        IrStmt *y = cy_ir_region_stmt(&x->body, r);
        if (!y) y = cy_ir_region_stmt(&x->orelse, r);
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

/* Is v read or written anywhere in body outside region r's own body (its
 * bounds count: they are evaluated outside)? */
static int expr_mentions(const IrExpr *e, const IrVar *v) {
    if (!e) return 0;
    if (e->kind == E_VAR && e->var == v) return 1;
    for (int i = 0; i < e->nargs; i++)
        if (expr_mentions(e->args[i], v)) return 1;
    for (int i = 0; i < e->nkw; i++)
        if (expr_mentions(e->kwargs[i], v)) return 1;
    if (e->kind == E_VIEW_SLICE)
        for (int i = 0; i < e->args[0]->ty->ndim; i++)
            if (expr_mentions(e->slices[i].start, v) || expr_mentions(e->slices[i].stop, v) ||
                expr_mentions(e->slices[i].step, v))
                return 1;
    return 0;
}

static int used_outside(const CyVec *body, const IrRegion *r, const IrVar *v) {
    for (int i = 0; i < body->len; i++) {
        const IrStmt *x = body->items[i];
        const IrExpr *es[] = {x->value, x->target, x->cond, x->start, x->stop, x->step};
        for (size_t k = 0; k < sizeof es / sizeof es[0]; k++)
            if (expr_mentions(es[k], v)) return 1;
        for (int k = 0; k < x->ntargets; k++)
            if (expr_mentions(x->targets[k], v)) return 1;
        if (x->var == v) return 1;
        if (x->region) {
            const IrRegion *q = x->region;
            if (q->index == v || expr_mentions(q->start, v) || expr_mentions(q->stop, v) ||
                expr_mentions(q->step, v) || expr_mentions(q->num_threads, v) || expr_mentions(q->chunksize, v))
                return 1;
            if (q == r) {
                if (used_outside(&x->orelse, r, v)) return 1;
                continue;
            }
        }
        if (used_outside(&x->body, r, v) || used_outside(&x->orelse, r, v)) return 1;
    }
    return 0;
}

static void region_args(CyArena *a, IrRegion *r) {
    /* a view the body uses only for .shape/.strides is not in r->views
       (no element is read or written): it is an argument all the same */
    for (int i = 0; i < r->vars.len; i++) {
        IrVarUse *u = r->vars.items[i];
        int found = 0;
        if (u->var->ty->kind != TY_VIEW) continue;
        for (int k = 0; k < r->views.len; k++) found |= ((IrViewUse *)r->views.items[k])->view == u->var;
        if (found) continue;
        IrViewUse *w = cy_alloc(a, sizeof *w);
        w->view = u->var;
        cy_vec_push(a, &r->views, w);
    }
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
            /* a last value nothing outside the region looks at need not come
               back from the device (the native code keeps Cython's
               lastprivate, which costs it nothing to speak of) */
            if (order[o] == RC_LASTPRIVATE && r->func && u->var->kind == V_LOCAL &&
                !used_outside(&r->func->body, r, u->var))
                continue;
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
        IrStmt *x = r->func ? cy_ir_region_stmt(&r->func->body, r) : NULL;
        Elig g = {m, a, NULL, NULL, r, {0}};
        if (!r->is_prange) g.why = "parallel() block (threads are explicit)";
        else if (r->parent) g.why = "prange inside a parallel() block";
        else if (r->has_with_gil) g.why = "with gil";
        else if (r->has_return) g.why = "return inside prange";
        else if (r->uses_objects) g.why = "Python objects";
        else if (r->uses_complex) g.why = "complex numbers";
        else if (r->uses_threadid) g.why = "threadid()";
        else if (!x) g.why = "region outside a function";
        else elig_stmts(&g, &x->body);
        if (!g.why && r->calls_external) g.why = "calls an external C function";
        if (!g.why) {
            /* recursion anywhere under the region's calls */
            for (int k = 0; k < n && !g.why; k++) {
                IrFunc *f = m->funcs.items[k];
                memset(seen, 0, (size_t)n + 1);
                if (f->is_recursive && stmts_reach(m, &x->body, f, seen)) {
                    r->calls_recursive = 1;
                    g.why = cy_fmt(a, "calls recursive function %s()", f->name);
                }
            }
        }
        if (!g.why) {
            for (int k = 0; k < r->vars.len && !g.why; k++) {
                IrVarUse *u = r->vars.items[k];
                const char *t = type_problem(u->var->ty);
                if (t && u->var->ty->kind != TY_VIEW) g.why = t;
                else if (u->cls == RC_PRIVATE || u->cls == RC_FIRSTPRIVATE) g.why = "private variables of a parallel() block";
            }
        }
        r->ocl_ok = g.why == NULL;
        r->ocl_reason = g.why;
        r->uses_fp64 = 0;
        if (r->ocl_ok) {
            CyVec fseen = {0};
            for (int k = 0; k < r->vars.len; k++)
                if (is_double(((IrVarUse *)r->vars.items[k])->var->ty)) r->uses_fp64 = 1;
            if (fp64_stmts(&x->body, &fseen, a)) r->uses_fp64 = 1;
            region_args(a, r);
            cy_ir_nest(a, r, x);
        }
    }
}
