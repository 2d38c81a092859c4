/* dump.c: a readable rendering of the IR (`cyocl compile --dump-ir`, sema tests). */
#include "ir.h"
#include <inttypes.h>

static const char *ekind[] = {
#define K(x) [x] = #x
    K(E_INT), K(E_FLOAT), K(E_IMAG), K(E_STR), K(E_BYTES), K(E_BIGINT), K(E_NONE), K(E_PYBOOL), K(E_VAR),
    K(E_CNAME), K(E_PYGLOBAL), K(E_BINOP), K(E_PYFLOORDIV), K(E_PYMOD), K(E_POW), K(E_MINMAX), K(E_UNOP), K(E_NOT),
    K(E_AND), K(E_OR), K(E_VAND), K(E_VOR), K(E_CMP), K(E_COND), K(E_CAST), K(E_SIZEOF), K(E_ADDR), K(E_DEREF), K(E_FIELD), K(E_STRUCT_LIT), K(E_PTR_INDEX),
    K(E_VIEW_ELEM), K(E_VIEW_SLICE), K(E_VIEW_T), K(E_VIEW_SHAPE), K(E_VIEW_STRIDE), K(E_VIEW_NDIM), K(E_VIEW_FROM_OBJ),
    K(E_OBJ_FROM_VIEW), K(E_CALL), K(E_CALL_PTR), K(E_CALL_C), K(E_THREADID), K(E_BOX), K(E_UNBOX), K(E_OBJ_BINOP),
    K(E_OBJ_UNOP), K(E_OBJ_NOT), K(E_OBJ_TRUTH), K(E_OBJ_CMP), K(E_OBJ_CMP_BINT), K(E_OBJ_ATTR),
    K(E_OBJ_CALL), K(E_OBJ_INDEX), K(E_OBJ_SLICE), K(E_TUPLE), K(E_LIST), K(E_SET), K(E_DICT), K(E_OBJ_AND),
    K(E_OBJ_OR), K(E_OBJ_COND), K(E_IMPORT), K(E_CSTR), K(E_STMTS), K(E_COMP_ADD), K(E_CARRAY_VIEW), K(E_PYTYPE_TEST), K(E_SLOT),
#undef K
};

static const char *skind[] = {
#define K(x) [x] = #x
    K(ST_BLOCK), K(ST_EXPR), K(ST_ASSIGN), K(ST_UNPACK), K(ST_IF), K(ST_WHILE), K(ST_FOR_RANGE),
    K(ST_FOR_ITER), K(ST_PRANGE), K(ST_PARALLEL), K(ST_BREAK), K(ST_CONTINUE), K(ST_RETURN), K(ST_RAISE),
    K(ST_ASSERT), K(ST_NOGIL), K(ST_GIL), K(ST_TRY), K(ST_TRY_EXCEPT), K(ST_EXCEPT), K(ST_DECLARE), K(ST_DEL),
#undef K
};

static const char *clsname[] = {"shared", "private", "lastprivate", "reduction", "firstprivate"};

static void stmts(CyBuf *b, const CyVec *v, int ind);

static void expr(CyBuf *b, const IrExpr *e) {
    if (!e) {
        cy_buf_puts(b, "-");
        return;
    }
    switch (e->kind) {
    case E_INT: cy_buf_printf(b, "%" PRId64, (int64_t)e->ival); break;
    case E_FLOAT: cy_buf_printf(b, "%.17g", e->fval); break;
    case E_IMAG: cy_buf_printf(b, "%.17gj", e->fval); break;
    case E_VAR: cy_buf_puts(b, e->var->name); break;
    case E_CNAME: case E_PYGLOBAL: cy_buf_puts(b, e->sval); break;
    case E_STR: case E_BYTES: cy_buf_printf(b, "%s\"%.*s\"", e->kind == E_BYTES ? "b" : "", e->slen, e->sval); break;
    default:
        cy_buf_printf(b, "(%s", ekind[e->kind] + 2);
        if (e->op) cy_buf_printf(b, " %s", cy_op_name(e->op));
        if (e->sval && e->kind != E_BIGINT) cy_buf_printf(b, " %s", e->sval);
        if (e->fn) cy_buf_printf(b, " %s", e->fn->name);
        for (int i = 0; i < e->nargs; i++) {
            cy_buf_puts(b, " ");
            expr(b, e->args[i]);
        }
        for (int i = 0; i < e->nkw; i++) {
            cy_buf_printf(b, " %s=", e->kwnames[i] ? e->kwnames[i] : "**");
            expr(b, e->kwargs[i]);
        }
        if (e->kind == E_STMTS) {
            cy_buf_puts(b, " {\n");
            stmts(b, &e->stmts, 4);
            cy_buf_puts(b, "}");
        }
        if (e->kind == E_VIEW_ELEM && (e->boundscheck || e->wraparound))
            cy_buf_printf(b, " {%s%s}", e->boundscheck ? "b" : "", e->wraparound ? "w" : "");
        cy_buf_puts(b, ")");
    }
    if (e->ty && e->kind != E_VAR) cy_buf_printf(b, ":%s", e->ty->name);
}

static void stmts(CyBuf *b, const CyVec *v, int ind);

/* "2*i - j + n + 1", "?" when not affine */
static void affine(CyBuf *b, const IrNest *n, const IrAffine *x) {
    if (!x->affine) {
        cy_buf_puts(b, "?");
        return;
    }
    int any = 0;
    for (int k = 0; k < n->loops.len && k < IR_MAX_LOOPS; k++) {
        int64_t c = x->coef[k];
        if (!c) continue;
        const char *v = ((const IrLoop *)n->loops.items[k])->var->name;
        if (any) cy_buf_puts(b, c < 0 ? " - " : " + ");
        else if (c < 0) cy_buf_puts(b, "-");
        if (c != 1 && c != -1) cy_buf_printf(b, "%" PRId64 "*", c < 0 ? -c : c);
        cy_buf_puts(b, v);
        any = 1;
    }
    for (int t = 0; t < x->nterms; t++) {
        int64_t c = x->tcoef[t];
        if (!c) continue;
        if (any) cy_buf_puts(b, c < 0 ? " - " : " + ");
        else if (c < 0) cy_buf_puts(b, "-");
        if (c != 1 && c != -1) cy_buf_printf(b, "%" PRId64 "*", c < 0 ? -c : c);
        expr(b, x->term[t]);
        any = 1;
    }
    if (x->konst || !any) {
        if (any) cy_buf_printf(b, " %c %" PRId64, x->konst < 0 ? '-' : '+', x->konst < 0 ? -x->konst : x->konst);
        else cy_buf_printf(b, "%" PRId64, x->konst);
    }
}

/* " {a, b}": the views of a loop's accesses, each once ("(view)" for an
 * element of a view expression) */
static void view_set(CyBuf *b, const CyVec *acc) {
    if (!acc->len) return;
    cy_buf_puts(b, " {");
    for (int i = 0, any = 0; i < acc->len; i++) {
        const IrAccess *x = acc->items[i];
        int dup = 0;
        for (int k = 0; k < i && !dup; k++) dup = ((const IrAccess *)acc->items[k])->view == x->view;
        if (dup) continue;
        cy_buf_printf(b, "%s%s", any++ ? ", " : "", x->view ? x->view->name : "(view)");
    }
    cy_buf_puts(b, "}");
}

static void nest(CyBuf *b, const IrNest *n, int ind) {
    for (int i = 0; i < n->loops.len; i++) {
        const IrLoop *p = n->loops.items[i];
        cy_buf_printf(b, "%*sloop %s %s depth %d [", ind + 2 * p->depth, "", p->var ? p->var->name : "?",
                      p->parallel ? "prange" : "range", p->depth);
        expr(b, p->start);
        cy_buf_puts(b, ", ");
        expr(b, p->stop);
        cy_buf_puts(b, ", ");
        expr(b, p->step);
        cy_buf_puts(b, "]");
        if (p->trip >= 0) cy_buf_printf(b, " trip %" PRId64, p->trip);
        if (!p->invariant_bounds) cy_buf_puts(b, " bounds-vary");
        cy_buf_printf(b, " reads %d", p->reads.len);
        view_set(b, &p->reads);
        cy_buf_printf(b, " writes %d", p->writes.len);
        view_set(b, &p->writes);
        for (int k = 0; k < p->reductions.len; k++) {
            const IrLoopRed *x = p->reductions.items[k];
            cy_buf_printf(b, " reduction %s %s", cy_op_name(x->op), x->var->name);
        }
        cy_buf_puts(b, "\n");
    }
    for (int i = 0; i < n->accesses.len; i++) {
        const IrAccess *x = n->accesses.items[i];
        cy_buf_printf(b, "%*saccess %s %s[", ind, "", x->write ? "write" : "read", x->view ? x->view->name : "(view)");
        for (int d = 0; d < x->ndim; d++) {
            if (d) cy_buf_puts(b, ", ");
            affine(b, n, &x->idx[d]);
        }
        cy_buf_printf(b, "] in %s\n", x->loop && x->loop->var ? x->loop->var->name : "-");
    }
    if (n->alias.len) {
        cy_buf_printf(b, "%*salias", ind, "");
        for (int i = 0; i + 1 < n->alias.len; i += 2)
            cy_buf_printf(b, " %s/%s", ((const IrVar *)n->alias.items[i])->name, ((const IrVar *)n->alias.items[i + 1])->name);
        cy_buf_puts(b, "\n");
    }
    if (n->too_deep) cy_buf_printf(b, "%*sloops deeper than %d left out\n", ind, "", IR_MAX_LOOPS);
}

static void work_loops(CyBuf *b, const IrRegion *r, intptr_t parent) {
    for (int k = 0, any = 0; k < r->work_loops.len; k++) {
        if ((intptr_t)r->work_parent.items[k] != parent) continue;
        const IrStmt *L = r->work_loops.items[k];
        cy_buf_printf(b, "%s%s", parent >= 0 && any++ ? " " : parent >= 0 ? "" : " ", L->var->name);
        int kids = 0;
        for (int i = 0; i < r->work_parent.len; i++) kids |= (intptr_t)r->work_parent.items[i] == k;
        if (kids) {
            cy_buf_puts(b, "(");
            work_loops(b, r, k);
            cy_buf_puts(b, ")");
        }
    }
}

static void region(CyBuf *b, const IrRegion *r, int ind) {
    cy_buf_printf(b, "%*sregion %d line %d%s ocl=%s", ind, "", r->id, r->pos.line, r->is_prange ? " prange" : " parallel",
                  r->ocl_ok ? "yes" : "no");
    if (!r->ocl_ok && r->ocl_reason) cy_buf_printf(b, " (%s)", r->ocl_reason);
    cy_buf_puts(b, "\n");
    for (int i = 0; i < r->vars.len; i++) {
        const IrVarUse *u = r->vars.items[i];
        cy_buf_printf(b, "%*s  var %s %s%s%s\n", ind, "", u->var->name, clsname[u->cls], u->redop ? " " : "",
                      cy_op_name(u->redop));
    }
    for (int i = 0; i < r->views.len; i++) {
        const IrViewUse *u = r->views.items[i];
        cy_buf_printf(b, "%*s  view %s%s%s\n", ind, "", u->view->name, u->read ? " read" : "", u->written ? " written" : "");
    }
    static const char *ak[] = {"view", "scalar", "reduction", "lastprivate"};
    for (int i = 0; i < r->args.len; i++) {
        const IrRegionArg *x = r->args.items[i];
        cy_buf_printf(b, "%*s  arg%d %s %s %s\n", ind, "", i, ak[x->kind], x->var->ty->name, x->var->name);
    }
    if (r->ocl_ok && r->uses_fp64) cy_buf_printf(b, "%*s  fp64\n", ind, "");
    if (r->nest) nest(b, r->nest, ind + 2);
    for (int i = 0; i < r->args.len; i++) {
        const IrRegionArg *x = r->args.items[i];
        if (x->covers) cy_buf_printf(b, "%*s  writes-all %s %d-D\n", ind, "", x->var->name, x->covers);
    }
    if (r->work_loops.len) {
        /* "work j(k l) m": the loops one iteration's work counts, each
         * with the counted loops inside it */
        cy_buf_printf(b, "%*s  work", ind, "");
        work_loops(b, r, -1);
        cy_buf_puts(b, "\n");
    }
}

static void stmt(CyBuf *b, const IrStmt *x, int ind) {
    cy_buf_printf(b, "%*s%s", ind, "", skind[x->kind] + 3);
    if (x->var) cy_buf_printf(b, " %s", x->var->name);
    if (x->target) {
        cy_buf_puts(b, " ");
        expr(b, x->target);
        cy_buf_printf(b, " %s=", cy_op_name(x->op));
    }
    for (int i = 0; i < x->ntargets; i++) {
        cy_buf_puts(b, " ");
        expr(b, x->targets[i]);
    }
    if (x->cond) {
        cy_buf_puts(b, " ");
        expr(b, x->cond);
    }
    if (x->start || x->stop) {
        cy_buf_puts(b, " [");
        expr(b, x->start);
        cy_buf_puts(b, ", ");
        expr(b, x->stop);
        cy_buf_puts(b, ", ");
        expr(b, x->step);
        cy_buf_puts(b, "]");
    }
    if (x->value) {
        cy_buf_puts(b, " ");
        expr(b, x->value);
    }
    cy_buf_puts(b, "\n");
    if (x->region) region(b, x->region, ind + 2);
    stmts(b, &x->body, ind + 2);
    if (x->orelse.len) {
        cy_buf_printf(b, "%*selse\n", ind, "");
        stmts(b, &x->orelse, ind + 2);
    }
}

static void stmts(CyBuf *b, const CyVec *v, int ind) {
    for (int i = 0; i < v->len; i++) stmt(b, v->items[i], ind);
}

void cy_ir_dump(CyBuf *b, const IrModule *m) {
    cy_buf_printf(b, "module %s\n", m->name);
    for (int i = 0; i < m->funcs.len; i++) {
        const IrFunc *f = m->funcs.items[i];
        static const char *fk[] = {"def", "cdef", "cpdef", "extern"};
        cy_buf_printf(b, "%s %s(", fk[f->kind], f->name);
        for (int j = 0; j < f->params.len; j++) {
            const IrVar *p = f->params.items[j];
            cy_buf_printf(b, "%s%s %s", j ? ", " : "", p->ty->name, p->name);
        }
        cy_buf_printf(b, ") -> %s%s%s%s\n", f->ret->name, f->is_nogil ? " nogil" : "", f->can_raise ? " raises" : "",
                      f->is_recursive ? " recursive" : "");
        for (int j = 0; j < f->locals.len; j++) {
            const IrVar *v = f->locals.items[j];
            cy_buf_printf(b, "  local %s %s\n", v->ty->name, v->name);
        }
        stmts(b, &f->body, 2);
    }
    if (m->init.len) {
        cy_buf_puts(b, "init\n");
        stmts(b, &m->init, 2);
    }
}
