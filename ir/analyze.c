/* analyze.c: facts about parallel regions that the backends and the
 * runtime need — recursion through the call graph, and whether OpenCL can
 * take a region (with the reason when it cannot). */
#include "ir.h"
#include <stdint.h>
#include <string.h>

/* ---- the call graph, once per module ---------------------------------------
 * Recursion, "calls an external C function" and "reaches a recursive
 * function" are properties of the call graph: computed once per module
 * (strongly connected components, then one pass over them callees first),
 * never by a walk per function pair or per region, which made the compile
 * time quadratic in the number of functions (issue 15). */

typedef struct {
    CyArena *a;
    CyMap idx;  /* IrFunc* -> 1 + its index in m->funcs */
} FuncMap;

static int func_index(const FuncMap *fm, const IrFunc *f) {
    return (int)(intptr_t)cy_pmap_get(&fm->idx, f) - 1;
}

/* The functions a statement list calls directly (E_CALL to a function of
 * this module), in the operands the old walk looked at. */
static void callees_stmts(const FuncMap *fm, CyVec *v, CyVec *out);

static void callees_expr(const FuncMap *fm, IrExpr *e, CyVec *out) {
    if (!e) return;
    if (e->kind == E_STMTS) callees_stmts(fm, &e->stmts, out);
    for (int j = -1; e->kind == E_CALL && e->fn && j < e->fn->overrides.len; j++) {
        /* a method's overrides are called through it */
        int k = func_index(fm, j < 0 ? e->fn : e->fn->overrides.items[j]);
        if (k >= 0) cy_vec_push(fm->a, out, (void *)(intptr_t)k);
    }
    for (int i = 0; i < e->nargs; i++) callees_expr(fm, e->args[i], out);
}

static void callees_stmts(const FuncMap *fm, CyVec *v, CyVec *out) {
    for (int i = 0; i < v->len; i++) {
        IrStmt *x = v->items[i];
        callees_expr(fm, x->target, out);
        callees_expr(fm, x->value, out);
        callees_expr(fm, x->cond, out);
        callees_expr(fm, x->start, out);
        callees_expr(fm, x->stop, out);
        callees_expr(fm, x->step, out);
        callees_stmts(fm, &x->body, out);
        callees_stmts(fm, &x->orelse, out);
    }
}

typedef struct {
    FuncMap fm;
    int n;
    CyVec *calls;   /* calls[i]: indices of the functions funcs[i] calls */
    int *minrec;    /* the first (module order) recursive function funcs[i] calls, directly or not, or itself; n: none */
} CallGraph;

/* Tarjan's algorithm with an explicit stack (a call chain thousands of
 * functions long must not recurse); components come out callees first. */
static void call_graph(CyArena *a, const IrModule *m, CallGraph *cg) {
    int n = m->funcs.len;
    cg->n = n;
    cg->fm.a = a;
    for (int i = 0; i < n; i++) cy_pmap_put(a, &cg->fm.idx, m->funcs.items[i], (void *)(intptr_t)(i + 1));
    cg->calls = cy_alloc(a, (size_t)(n + 1) * sizeof *cg->calls);
    for (int i = 0; i < n; i++) callees_stmts(&cg->fm, &((IrFunc *)m->funcs.items[i])->body, &cg->calls[i]);

    int *index = cy_alloc(a, (size_t)(n + 1) * sizeof(int)), *low = cy_alloc(a, (size_t)(n + 1) * sizeof(int));
    int *edge = cy_alloc(a, (size_t)(n + 1) * sizeof(int)), *stk = cy_alloc(a, (size_t)(n + 1) * sizeof(int));
    int *work = cy_alloc(a, (size_t)(n + 1) * sizeof(int));
    char *on = cy_alloc(a, (size_t)n + 1);
    cg->minrec = cy_alloc(a, (size_t)(n + 1) * sizeof(int));
    int counter = 0, nstk = 0;
    for (int root = 0; root < n; root++) {
        if (index[root]) continue;
        int nwork = 0;
        work[nwork++] = root;
        index[root] = low[root] = ++counter;
        stk[nstk++] = root;
        on[root] = 1;
        while (nwork) {
            int v = work[nwork - 1];
            if (edge[v] < cg->calls[v].len) {
                int w = (int)(intptr_t)cg->calls[v].items[edge[v]++];
                if (!index[w]) {
                    index[w] = low[w] = ++counter;
                    stk[nstk++] = w;
                    on[w] = 1;
                    work[nwork++] = w;
                } else if (on[w] && index[w] < low[v]) {
                    low[v] = index[w];
                }
                continue;
            }
            nwork--;
            if (nwork && low[v] < low[work[nwork - 1]]) low[work[nwork - 1]] = low[v];
            if (low[v] != index[v]) continue;
            /* v roots a component: stk from v up.  Every callee outside it
               is finished, so its minrec is known. */
            int base = nstk;
            while (stk[base - 1] != v) base--;
            base--;
            int size = nstk - base, cyclic = size > 1, best = n;
            for (int k = base; k < nstk; k++) {
                int u = stk[k];
                for (int e = 0; e < cg->calls[u].len; e++) {
                    int w = (int)(intptr_t)cg->calls[u].items[e];
                    if (w == u) cyclic = 1;
                    if (!on[w] && cg->minrec[w] < best) best = cg->minrec[w];
                }
            }
            for (int k = base; k < nstk; k++) {
                IrFunc *f = m->funcs.items[stk[k]];
                if (cyclic) f->is_recursive = 1;
                if (f->is_recursive && stk[k] < best) best = stk[k];
            }
            for (int k = base; k < nstk; k++) {
                cg->minrec[stk[k]] = best;
                on[stk[k]] = 0;
            }
            nstk = base;
        }
    }
}

/* calls_external propagates to every caller, directly or not: a kernel
 * cannot call those either (one pass over the reversed graph). */
static void propagate_external(CyArena *a, const IrModule *m, CallGraph *cg) {
    int n = cg->n;
    CyVec *callers = cy_alloc(a, (size_t)(n + 1) * sizeof *callers);
    for (int i = 0; i < n; i++)
        for (int e = 0; e < cg->calls[i].len; e++)
            cy_vec_push(a, &callers[(int)(intptr_t)cg->calls[i].items[e]], (void *)(intptr_t)i);
    int *queue = cy_alloc(a, (size_t)(n + 1) * sizeof(int)), nq = 0;
    for (int i = 0; i < n; i++)
        if (((IrFunc *)m->funcs.items[i])->calls_external) queue[nq++] = i;
    for (int q = 0; q < nq; q++)
        for (int e = 0; e < callers[queue[q]].len; e++) {
            int c = (int)(intptr_t)callers[queue[q]].items[e];
            IrFunc *f = m->funcs.items[c];
            if (f->calls_external) continue;
            f->calls_external = 1;
            queue[nq++] = c;
        }
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
    int raises;          /* the region body has a check the kernel reports (ocl_quiet) */
} Elig;

/* The C functions a kernel may call: libc.math (also the float variants,
 * sqrtf ...) and the prelude's abs; the OpenCL backend maps them to
 * built-ins. */
int cy_ir_known_c(const char *name) {
    int is_float;
    return cy_libm(name, &is_float) || !strcmp(name, "cyrt_abs");
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
    case TY_PTR: case TY_FUNC: return "a C pointer";
    case TY_OPAQUE: return "an OpenMP lock"; /* the one opaque type: omp_lock_t */
    case TY_STRUCT: return "a C struct";
    case TY_ARRAY: return type_problem(t->base); /* a private array is private memory on the device */
    case TY_LDOUBLE: return "long double";
    default: return NULL; /* complex numbers are double2 / float2 in a kernel */
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
        return (e->op == OP_DIV || e->op == OP_MOD) && !e->cdivision && !nonzero_const(e->args[1]);
    case E_POW: return e->soft_pow != 0;
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

static int is_region_result_var(Elig *g, IrVar *v) {
    if (g->fn) return 0;
    for (int i = 0; i < g->r->vars.len; i++) {
        IrVarUse *u = g->r->vars.items[i];
        if (u->var == v) return u->cls == RC_REDUCTION || u->cls == RC_LASTPRIVATE;
    }
    return 0;
}

/* The C functions of complex values a kernel has (the f variants too):
 * the parts, conj(), abs(), and z.real = x's CYRT_CMPLX(re, im). */
static int complex_c(const IrExpr *e) {
    static const char *const ok[] = {"creal", "cimag", "conj", "cabs", "CYRT_CMPLX", NULL};
    if (e->kind != E_CALL_C || e->fn || !e->sval) return 0;
    for (int i = 0; ok[i]; i++) {
        size_t n = strlen(ok[i]);
        if (!strncmp(e->sval, ok[i], n) &&
            (!e->sval[n] || ((e->sval[n] == 'f' || e->sval[n] == 'F') && !e->sval[n + 1])))
            return 1;
    }
    return 0;
}

/* The complex operations the OpenCL backend lowers (oclgen.c,
 * gen_complex): arithmetic but **, comparisons for equality, conversions,
 * the functions above, and complex values moved as they are. */
static int complex_ok(const IrExpr *e) {
    int here = e->ty && cy_type_is_complex(e->ty), arg = 0;
    for (int i = 0; i < e->nargs; i++) arg |= e->args[i]->ty && cy_type_is_complex(e->args[i]->ty);
    if (!here && !arg) return 1;
    switch (e->kind) {
    case E_IMAG: case E_VAR: case E_VIEW_ELEM: case E_CAST: case E_COND: case E_CALL: return 1;
    case E_BINOP: return e->op == OP_ADD || e->op == OP_SUB || e->op == OP_MUL || e->op == OP_DIV;
    case E_UNOP: return e->op == OP_NEG || e->op == OP_POS;
    case E_CMP: return e->op == OP_EQ || e->op == OP_NE;
    case E_CALL_C: return complex_c(e);
    default: return 0;
    }
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
    if (raises_here(e)) g->raises = 1;
    if (!complex_ok(e)) {
        uses(g, e->kind == E_POW ? "a complex power" : "complex numbers");
        return;
    }
    if (e->kind == E_POW && e->soft_pow) {
        /* glibc's cpow and its TypeError: native code only */
        uses(g, "a ** b that Cython computes as a complex power (a base that may be negative, an exponent that "
                "may not be an integer, inside an expression)");
        return;
    }
    switch (e->kind) {
    case E_CALL_PTR:
        why(g, "calls through a C function pointer");
        return;
    case E_CALL_C:
        if (e->fn) {
            why(g, cy_fmt(g->a, "calls external C function %s()", e->fn->name));
            return;
        }
        if (!e->sval || (!cy_ir_known_c(e->sval) && !complex_c(e))) {
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
    case E_PTR_INDEX:
        /* v[i] of a C array is private memory indexed; p[i] is a pointer */
        if (e->args[0]->ty->kind != TY_ARRAY) {
            uses(g, "a C pointer");
            return;
        }
        break;
    case E_DEREF: case E_ADDR: uses(g, "a C pointer"); return;
    case E_CNAME:
        if (!strcmp(e->sval, "NULL")) {
            uses(g, "a C pointer");
            return;
        }
        if (!cy_cname_in_opencl(e->sval)) {
            why(g, cy_fmt(g->a, "uses the C constant %s, which OpenCL C does not define", e->sval));
            return;
        }
        break;
    case E_VIEW_SLICE: uses(g, "memoryview slicing inside the loop"); return;
    case E_VIEW_T: uses(g, "memoryview .T inside the loop"); return;
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
    case E_STMTS: case E_COMP_ADD:
        uses(g, "Python objects");
        return;
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
        case ST_TRY: uses(g, "try/finally"); return;
        case ST_TRY_EXCEPT: case ST_EXCEPT: uses(g, "try/except"); return;
        case ST_DEL: uses(g, "del"); return;
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
            if (x->step_sign == 0) g->raises = 1;
            break;
        case ST_ASSIGN:
            if (x->target->kind == E_VAR && x->target->var->ty->kind == TY_VIEW) {
                why(g, "assigns a memoryview variable");
                return;
            }
            /* a module-level variable the region reduces or keeps the last
               value of is a kernel argument like a local (the launch
               writes the result back to the static); one a called function
               assigns is not */
            if (x->target->kind == E_VAR && x->target->var->kind == V_MODULE &&
                !is_region_result_var(g, x->target->var)) {
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
    if (t && t->kind == TY_ARRAY) t = cy_type_array_scalar(t);
    if (t && t->kind == TY_VIEW) t = t->base;
    return t && (t->kind == TY_DOUBLE || t->kind == TY_CDOUBLE);
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
    if (e->kind == E_CAST && !is_double(e->ty) && (e->args[0]->kind == E_FLOAT ||
                                               (e->args[0]->kind == E_CNAME && cy_cname_is_math(e->args[0]->sval))))
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

int cy_ir_func_uses_fp64(CyArena *a, IrFunc *f) {
    CyVec seen = {0};
    return fp64_func(f, &seen, a);
}

static int const_is_one(const IrExpr *e) {
    int64_t v;
    return cy_const_int(e, &v) && v == 1;
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

static void add_arg(CyArena *a, IrRegion *r, RegionArgKind k, IrVar *v, IrOp op, int rd, int wr) {
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
static int is_var(const IrExpr *e, const void *v) { return e->kind == E_VAR && e->var == v; }

static int expr_mentions(const IrExpr *e, const IrVar *v) { return cy_ir_expr_any(e, is_var, v); }

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
                expr_mentions(q->step, v) || expr_mentions(q->num_threads, v) || expr_mentions(q->chunksize, v) ||
                expr_mentions(q->use_threads_if, v))
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

/* Does a statement in body store into an element of the C array v? */
static int array_stored(const CyVec *body, const IrVar *v) {
    for (int i = 0; i < body->len; i++) {
        const IrStmt *x = body->items[i];
        if (x->kind == ST_ASSIGN) {
            const IrExpr *t = x->target;
            while (t->kind == E_PTR_INDEX) t = t->args[0];
            if (t->kind == E_VAR && t->var == v) return 1;
        }
        if (array_stored(&x->body, v) || array_stored(&x->orelse, v)) return 1;
    }
    return 0;
}

/* The largest C array a kernel takes by value: OpenCL promises 1024 bytes
 * of kernel arguments in all, the views and scalars included. */
enum { OCL_MAX_ARRAY_ARG = 512 };

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
        add_arg(a, r, RA_VIEW, u->view, OP_NONE, u->read, u->written);
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
    cy_ir_flatten_parallel(m);
    CallGraph cg = {0};
    call_graph(a, m, &cg);
    propagate_external(a, m, &cg);
    for (int i = 0; i < m->regions.len; i++) {
        IrRegion *r = m->regions.items[i];
        IrStmt *x = r->func ? cy_ir_region_stmt(&r->func->body, r) : NULL;
        Elig g = {m, a, NULL, NULL, r, {0}, 0};
        if (r->as_prange)
            g.why = cy_fmt(a, "parallel() block holding only a prange: that prange (region %d) runs in its place",
                           r->as_prange->id);
        else if (!r->is_prange) g.why = "parallel() block (threads are explicit)";
        else if (r->parent) g.why = "prange inside a parallel() block";
        else if (r->has_with_gil) g.why = "with gil";
        else if (r->has_return) g.why = "return inside prange";
        else if (r->uses_objects) g.why = "Python objects";
        else if (r->uses_threadid) g.why = "threadid()";
        /* one thread runs the iterations in order (natively, as in Cython):
           a program may lean on that, and a device would not keep it */
        else if (r->num_threads && const_is_one(r->num_threads))
            g.why = "num_threads=1 (the iterations run in order)";
        else if (!x) g.why = "region outside a function";
        else elig_stmts(&g, &x->body);
        if (!g.why && r->calls_external) g.why = "calls an external C function";
        if (!g.why) {
            /* recursion anywhere under the region's calls: the first
               recursive function (module order) it reaches */
            CyVec direct = {0};
            int best = cg.n;
            callees_stmts(&cg.fm, &x->body, &direct);
            for (int k = 0; k < direct.len; k++) {
                int c = (int)(intptr_t)direct.items[k];
                if (cg.minrec[c] < best) best = cg.minrec[c];
            }
            if (best < cg.n) {
                r->calls_recursive = 1;
                g.why = cy_fmt(a, "calls recursive function %s()", ((IrFunc *)m->funcs.items[best])->name);
            }
        }
        if (!g.why) {
            for (int k = 0; k < r->vars.len && !g.why; k++) {
                IrVarUse *u = r->vars.items[k];
                const char *t = type_problem(u->var->ty);
                if (t && u->var->ty->kind != TY_VIEW) g.why = t;
                /* the launch's result slots hold 8 bytes (oclgen.h) */
                else if (cy_type_is_complex(u->var->ty) && u->cls == RC_REDUCTION)
                    g.why = cy_fmt(a, "a reduction of the complex '%s'", u->var->name);
                else if (cy_type_is_complex(u->var->ty) && u->cls == RC_LASTPRIVATE && r->func &&
                         used_outside(&r->func->body, r, u->var))
                    g.why = cy_fmt(a, "the last value of the complex '%s' (used after the loop)", u->var->name);
                else if (u->cls == RC_PRIVATE || u->cls == RC_FIRSTPRIVATE) g.why = "private variables of a parallel() block";
                /* a C array the iterations share, or whose last value is
                   used after the loop, would have to travel to the device
                   and back; one assigned in the body is private there */
                /* a shared array the body only reads is a kernel argument
                   (by value); one it stores into is shared memory the
                   iterations write */
                else if (u->var->ty->kind == TY_ARRAY && u->cls == RC_SHARED &&
                         (array_stored(&x->body, u->var) || u->var->ty->size > OCL_MAX_ARRAY_ARG))
                    g.why = cy_fmt(a, "the C array '%s' shared by the iterations%s", u->var->name,
                                   u->var->ty->size > OCL_MAX_ARRAY_ARG ? " (too large for a kernel argument)" : "");
                else if (u->var->ty->kind == TY_ARRAY && u->cls == RC_LASTPRIVATE && r->func &&
                         used_outside(&r->func->body, r, u->var))
                    g.why = cy_fmt(a, "the last value of the C array '%s' (used after the loop)", u->var->name);
            }
        }
        if (x) cy_ir_loops(a, r, x);
        if (x && r->is_prange && !r->parent) r->plan_native = cy_ir_plan_native(a, r, x);
        r->ocl_ok = g.why == NULL;
        r->ocl_reason = g.why;
        r->uses_fp64 = 0;
        if (r->ocl_ok) {
            CyVec fseen = {0};
            for (int k = 0; k < r->vars.len; k++)
                if (is_double(((IrVarUse *)r->vars.items[k])->var->ty)) r->uses_fp64 = 1;
            if (fp64_stmts(&x->body, &fseen, a)) r->uses_fp64 = 1;
            region_args(a, r);
            /* what the kernel writes to its result buffer (oclgen.h):
               an error, the breaking iteration, reductions, last values */
            r->ocl_quiet = !g.raises && !r->has_break;
            for (int k = 0; k < r->args.len; k++) {
                RegionArgKind ak = ((IrRegionArg *)r->args.items[k])->kind;
                if (ak == RA_REDUCTION || ak == RA_LASTPRIVATE) r->ocl_quiet = 0;
            }
            cy_ir_nest(a, r, x);
            r->plan_gpu = cy_ir_plan(a, r, CY_DEV_GPU, m->fp_contract);
        }
    }
}
