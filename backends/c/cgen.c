/* cgen.c: the native backend — IR to one C11 file that is a CPython
 * extension module, OpenMP for the parallel regions.
 *
 * Expressions become C expression strings.  Whatever can fail (a Python
 * call, a bounds check, a zero divisor) is evaluated first, by code emitted
 * just before the statement that uses it, into temporaries; so every error
 * check is a plain `if (...) goto LABEL`, and the string that is left is a
 * side-effect-free C expression.  Object and view temporaries belong to a
 * scope (the function, a parallel region body, a `with gil` block), are
 * cleared after each statement, and are released on the error path.
 *
 * Errors jump to the innermost frame's label: the function's L_error, the
 * exit of a `with gil` / `with nogil` block (which restores the GIL state
 * and jumps on), or a parallel region's per-iteration handler, which keeps
 * the first exception for the master thread to re-raise after the region.
 *
 * Hot loops: a parallel region hoists the data pointers, strides and shapes
 * of the views it uses, and copies read-only scalars (firstprivate), into
 * thread-local constants, so the compiler can keep them in registers and
 * vectorise even under -fno-strict-aliasing.  Bounds checks and wraparound
 * on indices that are loop variables (plus a constant) or loop invariants
 * are done once before the loop where every iteration makes the access. */
#define _POSIX_C_SOURCE 200809L
#include "cgen.h"
#include "../emit.h"
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* backends/c/prelude.h, embedded at build time */
extern const char cy_c_prelude[];

/* ---- generator state --------------------------------------------------- */

typedef struct {
    const char *name;
    int is_view;
    int busy;
} Temp;

/* Where object/view temporaries are declared: one per function, parallel
 * region body (per thread) and `with gil` block. */
typedef struct TScope {
    CyVec temps; /* Temp* */
} TScope;

/* A view whose data/strides/shape a parallel region keeps in locals. */
typedef struct {
    IrVar *var;
    const char *pfx;
    int used_d, used_p;
    int used_s[CY_MAX_NDIM], used_n[CY_MAX_NDIM];
} Hoist;

typedef enum { FR_FUNC, FR_LOOP, FR_GIL, FR_NOGIL, FR_REGION, FR_TRY } FrameKind;

typedef struct Frame {
    FrameKind kind;
    struct Frame *up;
    int live_depth;          /* G->live.len on entry */
    const char *err_label;   /* NULL: errors go to an outer frame */
    int err_used;
    const char *brk_label;   /* FR_LOOP with an else clause */
    int brk_used;
    const char *exit_code;   /* FR_GIL / FR_NOGIL / FR_TRY: how to leave early */
    /* FR_TRY: the finally statements, run (as code of the frame outside,
       in the GIL state gil_at) wherever control leaves the body; and the
       temporaries of scope the body used, cleared before they run on the
       error path */
    CyVec *finally;
    int track;               /* FR_TRY whose error path continues here: temps are collected */
    int gil_at;
    struct TScope *scope;
    CyVec temps;
    /* FR_REGION */
    IrRegion *region;
    int is_prange;
    const char *par;         /* the cyrt_par of the outermost region */
    const char *next_label;  /* end of the current iteration */
    int next_used;
    int need_par;            /* break/return/error recorded in par */
    int need_tstate;         /* threads need a Python thread state */
    const char *ret_slot;
    CyVec hoists;            /* Hoist* */
    CyVec privs;             /* IrVar* private in this region */
    CyVec lastp;             /* IrVar* lastprivate, saved by the breaking thread */
    int broke;               /* a break saved them */
} Frame;

typedef struct {
    int kind; /* 0 interned name, 1 str, 2 bytes, 3 big int, 4 kwnames tuple */
    const char *s;
    int len;
    const char *cname;
} Const;

typedef struct {
    const char *init; /* the cyrt_vspec initializer */
    const char *cname;
} VSpec;

typedef struct {
    const char *c;
    int owned; /* a temporary holding a new reference / owned view */
} Val;

typedef struct {
    CyArena *a;
    CyDiag *d;
    const IrModule *m;
    const CyCOptions *opt;
    CyEmit e;          /* the output and its indentation (backends/emit.h) */
    int nid;           /* unique suffixes inside the current function */
    TScope *scope;
    CyVec live;        /* Temp* in use, innermost last */
    Frame *fr;
    int gil;           /* 1 held, 0 released, -1 unknown (nogil function) */
    const char *fname; /* Python name of the function, for traces */
    CyType *ret;
    int end_used;
    CyVec assigned;    /* object locals known to be bound here */
    CyVec consts;      /* Const* */
    CyMap const_idx[5]; /* per Const kind: its text -> Const* (a module has thousands) */
    CyVec vspecs;      /* VSpec* */
    CyVec traced;      /* IrRegion* with a trace record */
    CyVec checked;     /* Checked*: accesses a loop has proven in bounds */
    int used_complex;
    CyMap launchers;   /* set of IrFunc* that may run a region on a device (directly or by calls) */
    CyVec own_called;  /* IrFunc*: defs of this module called by their global name (own_def_callee) */
    int hoisted;       /* >0: an enclosing loop already synchronised the host */
    CyVec subst;       /* IrExpr*, const char* pairs: values already computed (min/max arguments) */
    int in_finally;    /* >0: emitting a finally clause */
} Gen;

/* ---- small helpers ------------------------------------------------------- */

CY_EMIT_HELPERS(Gen)

static const char *join(Gen *G, const char **parts, int n, const char *sep) {
    CyBuf b = {0};
    for (int i = 0; i < n; i++) {
        if (i) cy_buf_puts(&b, sep);
        cy_buf_puts(&b, parts[i]);
    }
    const char *s = b.len ? cy_strndup(G->a, b.s, b.len) : "";
    cy_buf_free(&b);
    return s;
}

/* A C string literal for arbitrary bytes. */
static const char *c_str(Gen *G, const char *s, int len) {
    CyBuf b = {0};
    cy_buf_puts(&b, "\"");
    for (int i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '"' || ch == '\\') cy_buf_printf(&b, "\\%c", ch);
        else if (ch == '?') cy_buf_puts(&b, "\\?"); /* no trigraphs */
        else if (ch == '\n') cy_buf_puts(&b, "\\n");
        else if (ch == '\t') cy_buf_puts(&b, "\\t");
        else if (ch < 32 || ch >= 127) cy_buf_printf(&b, "\\%03o", ch);
        else cy_buf_put(&b, (const char *)&ch, 1);
    }
    cy_buf_puts(&b, "\"");
    const char *r = cy_strndup(G->a, b.s, b.len);
    cy_buf_free(&b);
    return r;
}

static const char *c_strz(Gen *G, const char *s) { return c_str(G, s, (int)strlen(s)); }

/* Text safe inside a JSON string inside a C string literal. */
static const char *json_text(Gen *G, const char *s) {
    CyBuf b = {0};
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') cy_buf_printf(&b, "\\%c", ch);
        else if (ch < 32) cy_buf_printf(&b, "\\u%04x", ch);
        else cy_buf_put(&b, (const char *)&ch, 1);
    }
    const char *r = b.len ? cy_strndup(G->a, b.s, b.len) : "";
    cy_buf_free(&b);
    return r;
}


static int is_obj(const CyType *t) { return t && t->kind == TY_OBJECT; }
static int is_view(const CyType *t) { return t && t->kind == TY_VIEW; }

static const char *cty(Gen *G, const CyType *t) {
    if (cy_type_is_complex(t)) G->used_complex = 1;
    if (t->kind == TY_VOID) return "void";
    return cy_type_cname(G->a, t);
}

/* A declarator "T name" (pointer types keep the star on the name; arrays
 * put their dimensions after it: "int name[2][3]"). */
static const char *decl(Gen *G, const CyType *t, const char *name) {
    if (t->kind == TY_ARRAY) {
        const CyType *sc = cy_type_array_scalar(t);
        return FMT("%s%s", decl(G, sc, name), t->name + strlen(sc->name));
    }
    const char *c = cty(G, t);
    size_t n = strlen(c);
    return n && c[n - 1] == '*' ? FMT("%s%s", c, name) : FMT("%s %s", c, name);
}

static const char *zero_init(const CyType *t) {
    if (is_view(t) || t->kind == TY_ARRAY || t->kind == TY_OPAQUE || t->kind == TY_STRUCT) return "{0}";
    if (is_obj(t) || t->kind == TY_PTR) return "NULL";
    return "0";
}


static const char *int_lit(Gen *G, const CyType *t, uint64_t bits) {
    if (t->kind == TY_BINT) return bits ? "1" : "0";
    if (!t->is_signed) {
        uint64_t v = bits;
        if (t->size < 8) v &= t->size == 4 ? 0xffffffffu : t->size == 2 ? 0xffffu : 0xffu;
        const char *suf = t->kind == TY_UINT ? "U" : t->kind == TY_ULONG || t->kind == TY_SIZE ? "UL"
                        : t->kind == TY_ULLONG ? "ULL" : "";
        if (!*suf && v > 0x7fffffff) suf = "U";
        return FMT("%" PRIu64 "%s", v, suf);
    }
    int64_t v = (int64_t)bits;
    const char *suf = t->kind == TY_LONG || t->kind == TY_SSIZE ? "L" : t->kind == TY_LLONG ? "LL" : "";
    if (!*suf && (v > INT32_MAX || v < INT32_MIN)) suf = "LL";
    if (v == INT64_MIN) return "(-9223372036854775807LL - 1)";
    return v < 0 ? FMT("(%" PRId64 "%s)", v, suf) : FMT("%" PRId64 "%s", v, suf);
}

static const char *float_lit(Gen *G, const CyType *t, double v) {
    const char *suf = t->kind == TY_FLOAT ? "f" : t->kind == TY_LDOUBLE ? "L" : "";
    if (isnan(v)) return t->kind == TY_FLOAT ? "NAN" : "((double)NAN)";
    if (isinf(v)) return v < 0 ? "(-HUGE_VAL)" : "HUGE_VAL";
    char buf[64];
    cy_float_digits(buf, v, t->kind == TY_FLOAT);
    return v < 0 || (v == 0 && signbit(v)) ? FMT("(%s%s)", buf, suf) : FMT("%s%s", buf, suf);
}

/* ---- constants --------------------------------------------------------- */

static int is_ident(const char *s) {
    if (!*s || (*s >= '0' && *s <= '9')) return 0;
    for (; *s; s++)
        if (!(*s == '_' || (*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
            return 0;
    return 1;
}

static const char *konst(Gen *G, int kind, const char *s, int len) {
    Const *k = cy_map_get(&G->const_idx[kind], s, (size_t)len);
    if (k) return k->cname;
    k = cy_alloc(G->a, sizeof *k);
    k->kind = kind;
    k->s = cy_strndup(G->a, s, (size_t)len);
    k->len = len;
    k->cname = kind == 0 && is_ident(k->s) && len < 40 ? FMT("cy_n_%s", k->s) : FMT("cy_k%d", G->consts.len);
    cy_vec_push(G->a, &G->consts, k);
    cy_map_put(G->a, &G->const_idx[kind], k->s, (size_t)len, k);
    return k->cname;
}

static const char *name_const(Gen *G, const char *name) { return konst(G, 0, name, (int)strlen(name)); }

/* The static description of a view type that buffer acquisition checks
 * against (deduplicated: one per distinct description). */
static const char *view_spec(Gen *G, const CyType *vt) {
    const CyType *dt = vt->base;
    char kind = dt->kind == TY_CHAR ? 'C' : cy_type_is_complex(dt) ? 'c' : cy_type_is_float(dt) ? 'f'
              : dt->is_signed || dt->kind == TY_BINT ? 'i' : 'u';
    const char *contig = vt->axes[vt->ndim - 1] ? "'C'" : vt->axes[0] ? "'F'" : "0";
    const char *init = FMT("{%d, '%c', %d, %s, %d, %s}", vt->ndim, kind, dt->size, contig, !vt->is_const,
                           c_strz(G, dt->name));
    for (int i = 0; i < G->vspecs.len; i++) {
        VSpec *v = G->vspecs.items[i];
        if (!strcmp(v->init, init)) return v->cname;
    }
    VSpec *v = cy_alloc(G->a, sizeof *v);
    v->init = init;
    v->cname = FMT("cy_vspec%d", G->vspecs.len);
    cy_vec_push(G->a, &G->vspecs, v);
    return v->cname;
}

/* ---- temporaries, frames, labels ----------------------------------------- */

static const char *stmp(Gen *G, const CyType *t, const char *init) {
    const char *n = FMT("cy_s%d", ++G->nid);
    if (init) out(G, "%s = %s;", decl(G, t, n), init);
    else out(G, "%s;", decl(G, t, n));
    return n;
}

static const char *stmp_c(Gen *G, const char *ctype, const char *init) {
    const char *n = FMT("cy_s%d", ++G->nid);
    out(G, "%s %s = %s;", ctype, n, init);
    return n;
}

/* A C value that may be repeated: itself if simple, else a temporary. */
static const char *once(Gen *G, const CyType *t, const char *c) { return cy_c_simple(c) ? c : stmp(G, t, c); }

static Temp *new_temp(Gen *G, int is_view) {
    TScope *sc = G->scope;
    Temp *t = NULL;
    for (int i = 0; i < sc->temps.len && !t; i++) {
        Temp *x = sc->temps.items[i];
        if (!x->busy && x->is_view == is_view) t = x;
    }
    if (!t) {
        t = cy_alloc(G->a, sizeof *t);
        t->is_view = is_view;
        t->name = FMT(is_view ? "cy_v%d" : "cy_t%d", ++G->nid);
        cy_vec_push(G->a, &sc->temps, t);
    }
    t->busy = 1;
    cy_vec_push(G->a, &G->live, t);
    for (Frame *f = G->fr; f; f = f->up)
        if (f->kind == FR_TRY && f->track) {
            if (f->scope == G->scope && !vec_has(&f->temps, t)) cy_vec_push(G->a, &f->temps, t);
            break;
        }
    return t;
}

static const char *otmp(Gen *G) { return new_temp(G, 0)->name; }
static const char *vtmp(Gen *G) { return new_temp(G, 1)->name; }

static void clear_temp(Gen *G, Temp *t) {
    if (t->is_view) out(G, "cyrt_view_release(&%s);", t->name);
    else out(G, "Py_CLEAR(%s);", t->name);
}

/* End of a statement: temporaries above mark are cleared and reusable. */
static void release_to(Gen *G, int mark) {
    while (G->live.len > mark) {
        Temp *t = G->live.items[--G->live.len];
        clear_temp(G, t);
        t->busy = 0;
    }
}

static void scope_decls(Gen *G, TScope *sc) {
    for (int i = 0; i < sc->temps.len; i++) {
        Temp *t = sc->temps.items[i];
        if (t->is_view) out(G, "cy_view %s = {0};", t->name);
        else out(G, "PyObject *%s = NULL;", t->name);
    }
}

static void scope_cleanup(Gen *G, TScope *sc) {
    for (int i = 0; i < sc->temps.len; i++) {
        Temp *t = sc->temps.items[i];
        if (t->is_view) out(G, "cyrt_view_release(&%s);", t->name);
        else out(G, "Py_XDECREF(%s);", t->name);
    }
}

static Frame *push_frame(Gen *G, FrameKind k) {
    Frame *f = cy_alloc(G->a, sizeof *f);
    f->kind = k;
    f->up = G->fr;
    f->live_depth = G->live.len;
    G->fr = f;
    return f;
}

static void pop_frame(Gen *G) { G->fr = G->fr->up; }

static const char *errlbl(Gen *G) {
    for (Frame *f = G->fr; f; f = f->up)
        if (f->err_label) {
            f->err_used = 1;
            return f->err_label;
        }
    return "L_error";
}

static Frame *region_frame(Gen *G) {
    for (Frame *f = G->fr; f; f = f->up)
        if (f->kind == FR_REGION) return f;
    return NULL;
}

/* Leaves every frame inside `target` (a loop, region or the function):
 * clears their live temporaries and restores the GIL state. */
static void gen_finally(Gen *G, Frame *f);

static void exit_to(Gen *G, Frame *target) {
    int hi = G->live.len;
    for (Frame *f = G->fr; f && f != target; f = f->up) {
        for (int i = hi - 1; i >= f->live_depth; i--) clear_temp(G, G->live.items[i]);
        if (hi > f->live_depth) hi = f->live_depth;
        if (f->exit_code) out(G, "%s", f->exit_code);
        if (f->finally) gen_finally(G, f);
    }
    if (target && target->kind == FR_LOOP)
        for (int i = hi - 1; i >= target->live_depth; i--) clear_temp(G, G->live.items[i]);
}

/* A local some `del` unbinds is never taken as bound: each read checks it. */
static int is_assigned_here(Gen *G, IrVar *v) { return !v->is_deleted && vec_has(&G->assigned, v); }

static void line_directive(Gen *G, CyPos p) {
    if (G->opt->line_directives && p.line > 0)
        cy_buf_printf(G->e.out, "#line %d %s\n", p.line, c_strz(G, G->m->src ? G->m->src->name : "?"));
}

/* ---- forward declarations ------------------------------------------------ */


static Val gen(Gen *G, IrExpr *e);
static const char *genc(Gen *G, IrExpr *e);
static void mark_assigned(Gen *G, IrVar *v);
static void gen_stmts(Gen *G, CyVec *body);
static void gen_stmt(Gen *G, IrStmt *s);

static int fn_status(const IrFunc *f) {
    return f->kind != F_DEF && f->kind != F_EXTERN && !is_obj(f->ret) && f->can_raise && !f->noexcept;
}

static int fn_objret(const IrFunc *f) { return f->kind == F_DEF || is_obj(f->ret); }

static void goto_err_if(Gen *G, const char *cond) { out(G, "if (cyrt_unlikely(%s)) goto %s;", cond, errlbl(G)); }

/* ---- views ----------------------------------------------------------------- */

typedef struct {
    Hoist *h;
    const char *base; /* the cy_view lvalue */
} VRef;

static Hoist *find_hoist(Gen *G, IrVar *v) {
    for (Frame *f = G->fr; f; f = f->up)
        if (f->kind == FR_REGION)
            for (int i = 0; i < f->hoists.len; i++) {
                Hoist *h = f->hoists.items[i];
                if (h->var == v) return h;
            }
    return NULL;
}

static Val gen_view(Gen *G, IrExpr *e);

static VRef view_ref(Gen *G, IrExpr *v) {
    VRef r = {0};
    if (v->kind == E_VAR) {
        r.h = find_hoist(G, v->var);
        r.base = v->var->cname;
    } else {
        r.base = gen_view(G, v).c;
    }
    return r;
}

static const char *vr_data(Gen *G, VRef *r) {
    if (r->h) {
        r->h->used_d = 1;
        return FMT("%s_d", r->h->pfx);
    }
    return FMT("%s.data", r->base);
}

static const char *vr_stride(Gen *G, VRef *r, int k) {
    if (r->h) {
        r->h->used_s[k] = 1;
        return FMT("%s_s%d", r->h->pfx, k);
    }
    return FMT("%s.strides[%d]", r->base, k);
}

static const char *vr_shape(Gen *G, VRef *r, int k) {
    if (r->h) {
        r->h->used_n[k] = 1;
        return FMT("%s_n%d", r->h->pfx, k);
    }
    return FMT("%s.shape[%d]", r->base, k);
}

static const char *elem_ctype(Gen *G, const CyType *vt) {
    const char *t = cty(G, vt->base);
    return vt->is_const ? FMT("const %s", t) : t;
}

/* A view access whose index on one axis is a loop variable plus a
 * constant, checked once before the loop instead of in every iteration
 * (DESIGN.md 8: bounds checks are hoisted where the indices allow). */
typedef struct {
    IrExpr *elem;
    int axis;
    int64_t off;      /* index = loop variable + off */
    IrVar *inv;       /* or: index = inv, a variable the loop does not change */
    const char *repl; /* inv's index, wrapped and checked before the loop */
} Checked;

static Checked *find_checked(Gen *G, IrExpr *e, int k) {
    for (int i = 0; i < G->checked.len; i++) {
        Checked *c = G->checked.items[i];
        if (c->elem == e && c->axis == k) return c;
    }
    return NULL;
}

/* the shared lowering's hooks (backends/emit.h), defined below */
CY_TARGET(Gen, genc, 0)

/* The element lvalue of E_VIEW_ELEM: indices are evaluated once, wrapped
 * and bounds-checked as the directives say. */
static const char *view_elem(Gen *G, IrExpr *e) {
    const CyType *vt = e->args[0]->ty;
    int nd = vt->ndim;
    VRef r = view_ref(G, e->args[0]);
    const char *idx[CY_MAX_NDIM];
    CyTarget Tg = target(G);
    cy_lower_view_index(&G->e, &Tg, e, &r, idx);
    const char *T = elem_ctype(G, vt);
    if (nd == 1 && vt->axes[0]) {
        if (r.h) {
            r.h->used_p = 1;
            return FMT("%s_p[%s]", r.h->pfx, idx[0]);
        }
        return FMT("((%s *)%s.data)[%s]", T, r.base, idx[0]);
    }
    int c_contig = vt->axes[nd - 1], f_contig = !c_contig && vt->axes[0];
    CyBuf b = {0};
    cy_buf_puts(&b, vr_data(G, &r));
    for (int k = 0; k < nd; k++) {
        int64_t z;
        if ((c_contig && k == nd - 1) || (f_contig && k == 0)) continue;
        if (cy_const_int(e->args[1 + k], &z) && z == 0 && !strcmp(idx[k], int_lit(G, e->args[1 + k]->ty, 0))) continue;
        cy_buf_printf(&b, " + %s * %s", cy_c_paren(G->a, idx[k]), vr_stride(G, &r, k));
    }
    const char *addr = cy_strndup(G->a, b.s, b.len);
    cy_buf_free(&b);
    if (c_contig) return FMT("((%s *)(%s))[%s]", T, addr, idx[nd - 1]);
    if (f_contig) return FMT("((%s *)(%s))[%s]", T, addr, idx[0]);
    return FMT("(*(%s *)(%s))", T, addr);
}

static Val gen_view_slice(Gen *G, IrExpr *e) {
    IrExpr *src = e->args[0];
    const CyType *st = src->ty;
    Val s = gen_view(G, src);
    const char *off = stmp_c(G, "Py_ssize_t", "0");
    const char *t = vtmp(G);
    int d = 0;
    for (int k = 0; k < st->ndim; k++) {
        IrSliceAxis *ax = &e->slices[k];
        if (ax->is_index) {
            const char *i = genc(G, ax->start);
            out(G, "if (cyrt_unlikely(cyrt_index_axis(&%s, %d, %s, %d, %d, &%s) < 0)) goto %s;", s.c, k, i,
                e->wraparound, e->boundscheck, off, errlbl(G));
            continue;
        }
        const char *a = ax->start ? genc(G, ax->start) : "0";
        const char *b = ax->stop ? genc(G, ax->stop) : "0";
        const char *c = ax->step ? genc(G, ax->step) : "0";
        out(G, "if (cyrt_unlikely(cyrt_slice_axis(&%s, %d, %d, %s, %d, %s, %d, %s, &%s, %d, &%s) < 0)) goto %s;", s.c,
            k, ax->start != NULL, a, ax->stop != NULL, b, ax->step != NULL, c, t, d, off, errlbl(G));
        d++;
    }
    out(G, "%s.data = %s.data + %s;", t, s.c, off);
    out(G, "%s.owner = %s.owner;", t, s.c);
    out(G, "cyrt_owner_incref(%s.owner);", t);
    return (Val){t, 1};
}

static Val gen_call(Gen *G, IrExpr *e);

/* The C field of a cdef class instance (E_SLOT): an lvalue, a borrowed value. */
static const char *slot_lvalue(Gen *G, IrExpr *e) {
    const char *o = genc(G, e->args[0]);
    const IrClass *c = e->args[0]->ty->cls;
    /* the class that declares it: a base's struct begins the instance's */
    for (const IrClass *k = c; k; k = k->base)
        for (int i = 0; i < k->attrs.len; i++)
            if (!strcmp(((IrAttr *)k->attrs.items[i])->name, e->sval)) c = k;
    return FMT("((%s *)%s)->a_%s", c->cname, cy_c_paren(G->a, o), e->sval);
}

static Val gen_view(Gen *G, IrExpr *e) {
    switch (e->kind) {
    case E_VAR: return (Val){e->var->cname, 0};
    case E_SLOT: {
        const char *f = slot_lvalue(G, e);
        if (e->ival && G->gil == 1)
            goto_err_if(G, FMT("!%s.owner && cyrt_err_view_uninit()", f));
        return (Val){f, 0};
    }
    case E_VIEW_SLICE: return gen_view_slice(G, e);
    case E_VIEW_T: {
        Val s = gen_view(G, e->args[0]);
        const char *t = vtmp(G);
        int nd = e->ty->ndim;
        out(G, "%s.data = %s.data;", t, s.c);
        for (int k = 0; k < nd; k++) {
            out(G, "%s.shape[%d] = %s.shape[%d];", t, k, s.c, nd - 1 - k);
            out(G, "%s.strides[%d] = %s.strides[%d];", t, k, s.c, nd - 1 - k);
        }
        out(G, "%s.owner = %s.owner;", t, s.c);
        out(G, "cyrt_owner_incref(%s.owner);", t);
        return (Val){t, 1};
    }
    case E_VIEW_FROM_OBJ: {
        Val o = gen(G, e->args[0]);
        const char *t = vtmp(G);
        goto_err_if(G, FMT("cyrt_view_from_obj(%s, &%s, &%s, NULL, 0) < 0", o.c, t, view_spec(G, e->ty)));
        return (Val){t, 1};
    }
    case E_CALL: return gen_call(G, e);
    case E_CALL_C: {
        /* a prelude function returning a view that shares its argument's
           owner (cyrt_view_bcast): the result takes its own reference */
        const char *c = genc(G, e);
        const char *t = vtmp(G);
        out(G, "%s = %s;", t, c);
        out(G, "cyrt_owner_incref(%s.owner);", t);
        return (Val){t, 1};
    }
    case E_COND: {
        const char *c = genc(G, e->args[0]);
        const char *t = vtmp(G);
        out(G, "if %s {", cy_c_wrapped(c) ? c : FMT("(%s)", c));
        G->e.ind++;
        Val a = gen_view(G, e->args[1]);
        out(G, a.owned ? "cyrt_view_move(&%s, &%s);" : "cyrt_view_copy(&%s, &%s);", t, a.c);
        G->e.ind--;
        out(G, "} else {");
        G->e.ind++;
        Val b = gen_view(G, e->args[2]);
        out(G, b.owned ? "cyrt_view_move(&%s, &%s);" : "cyrt_view_copy(&%s, &%s);", t, b.c);
        G->e.ind--;
        out(G, "}");
        return (Val){t, 1};
    }
    case E_STMTS:
        if (e->ival == 'w') {
            /* (v := a[1:]): the assignment, then a reference of its own to v's view */
            gen_stmts(G, &e->stmts);
            Val a = gen_view(G, e->args[0]);
            const char *t = vtmp(G);
            out(G, "cyrt_view_copy(&%s, &%s);", t, a.c);
            return (Val){t, 1};
        }
        /* fall through */
    default:
        cy_error(G->d, e->pos, "internal error: C backend cannot produce a memoryview from this expression");
        return (Val){"cy_view_error", 0};
    }
}

/* ---- conversions between C values and objects --------------------------- */

/* The C call that boxes a value of type t (a new reference or NULL). */
static const char *box_call(Gen *G, const CyType *t, const char *v) {
    switch (t->kind) {
    case TY_BINT: return FMT("PyBool_FromLong(%s)", v);
    case TY_CHAR: case TY_SCHAR: case TY_UCHAR: case TY_SHORT: case TY_USHORT: case TY_INT: case TY_LONG:
        return FMT("PyLong_FromLong(%s)", v);
    case TY_UINT: case TY_ULONG: return FMT("PyLong_FromUnsignedLong(%s)", v);
    case TY_LLONG: return FMT("PyLong_FromLongLong(%s)", v);
    case TY_ULLONG: return FMT("PyLong_FromUnsignedLongLong(%s)", v);
    case TY_SSIZE: return FMT("PyLong_FromSsize_t(%s)", v);
    case TY_SIZE: return FMT("PyLong_FromSize_t(%s)", v);
    case TY_FLOAT: case TY_DOUBLE: return FMT("PyFloat_FromDouble(%s)", v);
    case TY_LDOUBLE: return FMT("PyFloat_FromDouble((double)%s)", v);
    case TY_CFLOAT: case TY_CDOUBLE:
        G->used_complex = 1;
        return FMT("PyComplex_FromDoubles(creal(%s), cimag(%s))", v, v);
    case TY_STRUCT: return FMT("%s_box(%s)", t->cname, v); /* a dict, as Cython's */
    default: return NULL;
    }
}

static const char *int_min(TypeKind k) {
    switch (k) {
    case TY_CHAR: return "CHAR_MIN";
    case TY_SCHAR: return "SCHAR_MIN";
    case TY_SHORT: return "SHRT_MIN";
    case TY_INT: return "INT_MIN";
    default: return "LLONG_MIN";
    }
}

static const char *int_max(TypeKind k) {
    switch (k) {
    case TY_CHAR: return "CHAR_MAX";
    case TY_SCHAR: return "SCHAR_MAX";
    case TY_SHORT: return "SHRT_MAX";
    case TY_INT: return "INT_MAX";
    case TY_UCHAR: return "UCHAR_MAX";
    case TY_USHORT: return "USHRT_MAX";
    case TY_UINT: return "UINT_MAX";
    case TY_ULONG: return "ULONG_MAX";
    case TY_SIZE: return "SIZE_MAX";
    case TY_ULLONG: return "ULLONG_MAX";
    default: return "LLONG_MAX";
    }
}

/* Converts object o to C type t with Cython's checks; returns the value. */
static const char *unbox(Gen *G, const CyType *t, const char *o) {
    const char *tname = t->name ? t->name : cy_type_scalar(t->kind)->name; /* int8_t, as Cython says */
    const char *s;
    switch (t->kind) {
    case TY_FLOAT: case TY_DOUBLE: case TY_LDOUBLE:
        s = stmp(G, t, FMT("%scyrt_as_double(%s)", t->kind == TY_DOUBLE ? "" : FMT("(%s)", cty(G, t)), o));
        goto_err_if(G, FMT("%s == -1 && PyErr_Occurred()", s));
        return s;
    case TY_BINT:
        s = stmp_c(G, "int", FMT("cyrt_truth(%s)", o));
        goto_err_if(G, FMT("%s < 0", s));
        return s;
    case TY_CHAR:
        s = stmp(G, t, "0");
        goto_err_if(G, FMT("cyrt_as_char(%s, &%s) < 0", o, s));
        return s;
    case TY_SCHAR: case TY_SHORT: case TY_INT: case TY_LONG: case TY_LLONG: case TY_SSIZE:
        s = stmp_c(G, "long long", "0");
        goto_err_if(G, FMT("cyrt_as_sll(%s, %s, %s, \"%s\", &%s) < 0", o, int_min(t->kind), int_max(t->kind), tname, s));
        return t->kind == TY_LLONG ? s : FMT("(%s)%s", cty(G, t), s);
    case TY_UCHAR: case TY_USHORT: case TY_UINT: case TY_ULONG: case TY_ULLONG: case TY_SIZE:
        s = stmp_c(G, "unsigned long long", "0");
        goto_err_if(G, FMT("cyrt_as_ull(%s, %s, \"%s\", &%s) < 0", o, int_max(t->kind), tname, s));
        return t->kind == TY_ULLONG ? s : FMT("(%s)%s", cty(G, t), s);
    case TY_PTR: /* char * (sema allows no other) */
        s = stmp_c(G, "char *", "NULL");
        goto_err_if(G, FMT("cyrt_as_cstr(%s, &%s) < 0", o, s));
        return FMT("(%s)%s", cty(G, t), s);
    case TY_CFLOAT: case TY_CDOUBLE:
        G->used_complex = 1;
        s = stmp_c(G, "double _Complex", "0");
        goto_err_if(G, FMT("cyrt_as_complex(%s, &%s) < 0", o, s));
        return t->kind == TY_CDOUBLE ? s : FMT("(float _Complex)%s", s);
    case TY_STRUCT: {
        s = stmp(G, t, "{0}");
        if (t->is_ctuple) {
            /* a ctuple from a sequence of exactly its length, item by item */
            const char *q = otmp(G);
            out(G, "%s = PySequence_Tuple(%s);", q, o);
            goto_err_if(G, FMT("!%s", q));
            out(G, "if (PyTuple_GET_SIZE(%s) != %d) {", q, t->nfields);
            out(G, "    PyErr_Format(PyExc_TypeError, \"Expected a tuple of size %d, got size %%zd\", "
                   "PyTuple_GET_SIZE(%s));", t->nfields, q);
            out(G, "    goto %s;", errlbl(G));
            out(G, "}");
            for (int i = 0; i < t->nfields; i++) {
                const char *v = unbox(G, t->ftypes[i], FMT("PyTuple_GET_ITEM(%s, %d)", q, i));
                out(G, "%s.%s = %s;", s, t->fnames[i], v);
            }
            return s;
        }
        /* Cython's struct from a mapping: each field by its name, a missing
           one a ValueError (sema allows only fields that convert) */
        out(G, "if (!PyMapping_Check(%s)) {", o);
        out(G, "    PyErr_Format(PyExc_TypeError, \"Expected %%s, got %%.200s\", \"a mapping\", Py_TYPE(%s)->tp_name);", o);
        out(G, "    goto %s;", errlbl(G));
        out(G, "}");
        for (int i = 0; i < t->nfields; i++) {
            const char *f = otmp(G);
            out(G, "%s = PyMapping_GetItemString(%s, \"%s\");", f, o, t->fnames[i]);
            out(G, "if (!%s) {", f);
            out(G, "    if (PyErr_ExceptionMatches(PyExc_KeyError)) {");
            out(G, "        PyErr_Clear();");
            out(G, "        PyErr_SetString(PyExc_ValueError, \"No value specified for struct attribute '%s'\");",
                t->fnames[i]);
            out(G, "    }");
            out(G, "    goto %s;", errlbl(G));
            out(G, "}");
            const char *v = unbox(G, t->ftypes[i], f);
            out(G, "%s.%s = %s;", s, t->fnames[i], v);
            out(G, "Py_CLEAR(%s);", f);
        }
        return s;
    }
    default:
        cy_error(G->d, (CyPos){0}, "internal error: cannot convert a Python object to '%s'", t->name);
        return "0";
    }
}

/* An owned reference to v in a fresh temporary (or v's own temporary). */
static const char *owned(Gen *G, Val v) {
    if (v.owned) return v.c;
    const char *t = otmp(G);
    out(G, "%s = %s;", t, v.c);
    out(G, "Py_INCREF(%s);", t);
    return t;
}

/* dst (holding a reference or NULL) = v */
static void assign_obj(Gen *G, const char *dst, Val v) {
    if (v.owned) {
        out(G, "CYRT_XSETREF(%s, %s);", dst, v.c);
        out(G, "%s = NULL;", v.c);
    } else {
        out(G, "Py_INCREF(%s);", v.c);
        out(G, "CYRT_XSETREF(%s, %s);", dst, v.c);
    }
}

static const char *new_obj(Gen *G, const char *call) {
    const char *t = otmp(G);
    out(G, "%s = %s;", t, call);
    goto_err_if(G, FMT("!%s", t));
    return t;
}

/* ---- structs --------------------------------------------------------------- */

static int struct_boxable(const CyType *t) {
    for (int k = 0; k < t->nfields; k++) {
        const CyType *f = t->ftypes[k];
        if (f->kind == TY_STRUCT ? !struct_boxable(f) : !cy_type_is_numeric(f)) return 0;
    }
    return 1;
}

/* The module's structs, then, for each whose fields all convert, its
 * conversion to a dict (Cython's: the fields in order, by name). */
static void emit_structs(Gen *G, const IrModule *m) {
    if (!m->structs.len) return;
    out(G, "/* ---- structs ---- */");
    for (int i = 0; i < m->structs.len; i++) {
        const CyType *t = m->structs.items[i];
        out(G, "typedef struct %s %s;", t->cname, t->cname);
    }
    for (int i = 0; i < m->structs.len; i++) {
        const CyType *t = m->structs.items[i];
        out(G, "struct %s {", t->cname);
        for (int k = 0; k < t->nfields; k++) out(G, "    %s;", decl(G, t->ftypes[k], t->fnames[k]));
        out(G, "}%s;", t->packed ? " __attribute__((packed))" : "");
    }
    for (int i = 0; i < m->structs.len; i++) {
        const CyType *t = m->structs.items[i];
        if (!struct_boxable(t) || !t->is_ctuple) continue;
        /* a ctuple is a tuple as a Python object */
        out(G, "static PyObject *%s_box(%s v) {", t->cname, t->cname);
        out(G, "    PyObject *r = PyTuple_New(%d), *o;", t->nfields);
        out(G, "    if (!r) return NULL;");
        for (int k = 0; k < t->nfields; k++) {
            out(G, "    o = %s;", box_call(G, t->ftypes[k], FMT("v.%s", t->fnames[k])));
            out(G, "    if (!o) {");
            out(G, "        Py_DECREF(r);");
            out(G, "        return NULL;");
            out(G, "    }");
            out(G, "    PyTuple_SET_ITEM(r, %d, o);", k);
        }
        out(G, "    return r;");
        out(G, "}");
    }
    for (int i = 0; i < m->structs.len; i++) {
        const CyType *t = m->structs.items[i];
        if (!struct_boxable(t) || t->is_ctuple) continue;
        out(G, "static PyObject *%s_box(%s v) {", t->cname, t->cname);
        out(G, "    PyObject *d = PyDict_New(), *o;");
        out(G, "    if (!d) return NULL;");
        for (int k = 0; k < t->nfields; k++) {
            out(G, "    o = %s;", box_call(G, t->ftypes[k], FMT("v.%s", t->fnames[k])));
            out(G, "    if (!o || PyDict_SetItemString(d, \"%s\", o) < 0) {", t->fnames[k]);
            out(G, "        Py_XDECREF(o);");
            out(G, "        Py_DECREF(d);");
            out(G, "        return NULL;");
            out(G, "    }");
            out(G, "    Py_DECREF(o);");
        }
        out(G, "    return d;");
        out(G, "}");
    }
    out(G, "%s", "");
}

/* ---- expressions ----------------------------------------------------------- */




/* ---- the shared lowering's hooks (backends/emit.h) -------------------------- */

static int tg_live(void *g) { return ((Gen *)g)->live.len; }
static const char *tg_temp(void *g, const CyType *t, const char *init, CyPos pos) {
    (void)pos;
    return t ? stmp(g, t, init) : stmp_c(g, "int", init);
}
static const char *tg_once(void *g, const CyType *t, const char *c, CyPos pos) {
    (void)pos;
    return once(g, t, c);
}
static const char *tg_type(void *g, const CyType *t, CyPos pos) {
    (void)pos;
    return cty(g, t);
}

/* math.h's names by type: fmodf, fmod, fmodl */
static const char *tg_libm(void *g, const char *name, const CyType *t) {
    Gen *G = g;
    return t->kind == TY_FLOAT ? FMT("%sf", name) : t->kind == TY_LDOUBLE ? FMT("%sl", name) : name;
}

/* the types whose MIN // -1 overflows in C (smaller ones are promoted) */
static const char *tg_int_min(const CyType *t) {
    static const char *const mins[TY_FUNC + 1] = {
        [TY_INT] = "INT_MIN", [TY_LONG] = "LONG_MIN", [TY_LLONG] = "LLONG_MIN", [TY_SSIZE] = "PY_SSIZE_T_MIN"};
    return mins[t->kind];
}

/* the prelude's floor division and modulo (cyrt_fdiv_i ... cyrt_mod_d) */
static const char *tg_pydivmod(void *g, const CyType *t, int fdiv, const char *a, const char *b) {
    Gen *G = g;
    if (cy_type_is_int(t)) {
        const char *fn = t->size <= 4 ? (fdiv ? "cyrt_fdiv_i" : "cyrt_mod_i") : (fdiv ? "cyrt_fdiv_ll" : "cyrt_mod_ll");
        return FMT("(%s)%s(%s, %s)", cty(G, t), fn, a, b);
    }
    if (t->kind == TY_FLOAT) return FMT("%s(%s, %s)", fdiv ? "cyrt_fdiv_f" : "cyrt_mod_f", a, b);
    if (t->kind == TY_LDOUBLE)
        return FMT("(long double)%s((double)%s, (double)%s)", fdiv ? "cyrt_fdiv_d" : "cyrt_mod_d", cy_c_paren(G->a, a),
                   cy_c_paren(G->a, b));
    return FMT("%s(%s, %s)", fdiv ? "cyrt_fdiv_d" : "cyrt_mod_d", a, b);
}

static void tg_check(void *g, const char *cond, CyFail f, CyPos pos) {
    Gen *G = g;
    (void)pos;
    const char *raise;
    switch (f) {
    case CY_FAIL_ZERODIV_INT: raise = "cyrt_err_zerodiv(\"integer division or modulo by zero\");"; break;
    case CY_FAIL_ZERODIV_FLOAT: raise = "cyrt_err_zerodiv(\"float division\");"; break;
    case CY_FAIL_ZERODIV_DIVMOD: raise = "cyrt_err_zerodiv(\"float divmod()\");"; break;
    case CY_FAIL_DIV_OVERFLOW: raise = "cyrt_raise_str(PyExc_OverflowError, \"value too large to perform division\");"; break;
    case CY_FAIL_RANGE_STEP: raise = "cyrt_raise_str(PyExc_ValueError, \"range() arg 3 must not be zero\");"; break;
    case CY_FAIL_SOFT_POW: raise = "cyrt_err_soft_pow();"; G->used_complex = 1; break;
    default: raise = FMT("cyrt_err_bounds(%d);", (int)(f - CY_FAIL_BOUNDS)); break;
    }
    out(G, "if (cyrt_unlikely(%s)) { %s goto %s; }", cond, raise, errlbl(G));
}

static void *tg_loop_push(void *g, int has_else) {
    Gen *G = g;
    Frame *f = push_frame(G, FR_LOOP);
    if (has_else) f->brk_label = FMT("L_brk%d", ++G->nid);
    return f;
}
static const char *tg_loop_pop(void *g, void *loop) {
    Frame *f = loop;
    pop_frame(g);
    return f->brk_used ? f->brk_label : NULL;
}
static void tg_range_end(void *g, CyRange *r) { ((Gen *)g)->checked.len = r->mark; }
/* no folding of its own */
/* native code is built with -fwrapv (cyocl build, as CPython's CFLAGS
   build Cython's modules): signed C arithmetic wraps as written */
static const char *tg_wrapv(void *g, const CyType *t, const char *op, const char *a, const char *b) {
    (void)g, (void)t, (void)op, (void)a, (void)b;
    return NULL;
}

static const char *tg_cast(void *g, IrExpr *e) {
    (void)g;
    (void)e;
    return NULL;
}

/* an index checked before the loop (emit_checks), or replaced by its checked value */
static void tg_index_fact(void *g, IrExpr *e, int k, CyIndexFact *f) {
    Checked *ck = find_checked(g, e, k);
    f->repl = ck ? ck->repl : NULL;
    f->checked = ck != NULL;
}
static const char *tg_view_shape(void *g, void *view, int k) { return vr_shape(g, view, k); }

/* integer powers by the prelude's squaring, complex ones by cpow */
static const char *tg_pow(void *g, const CyType *t, const char *a, const char *b) {
    Gen *G = g;
    switch (t->kind) {
    case TY_CFLOAT: G->used_complex = 1; return FMT("cyrt_cpowf(%s, %s)", a, b);
    case TY_CDOUBLE: G->used_complex = 1; return FMT("cyrt_cpow(%s, %s)", a, b);
    default:
        if (t->is_signed) return FMT("(%s)cyrt_ipow_ll(%s, %s)", cty(G, t), a, b);
        return FMT("(%s)cyrt_ipow_ull(%s, %s)", cty(G, t), a, b);
    }
}

/* the prelude's type-generic macros */
static const char *tg_minmax(void *g, IrExpr *e, const char *a, const char *b) {
    Gen *G = g;
    return FMT("%s(%s, %s)", e->op == OP_MIN ? "cyrt_min" : "cyrt_max", a, b);
}
static const char *tg_abs(void *g, IrExpr *e, const char *a) {
    Gen *G = g;
    (void)e;
    return FMT("cyrt_abs(%s)", a);
}
static const char *tg_call_c(void *g, IrExpr *e, const char *name, const char *args) {
    Gen *G = g;
    for (int i = 0; i < e->nargs; i++)
        if (cy_type_is_complex(e->args[i]->ty)) G->used_complex = 1;
    if (cy_type_is_complex(e->ty)) G->used_complex = 1;
    return FMT("%s(%s)", name, args);
}

static const char *view_shape_expr(Gen *G, IrExpr *e, int stride) {
    int64_t k;
    if (cy_const_int(e->args[1], &k)) {
        if (k < 0) { /* sema's "is None" test: shape[-1] is -1 only when uninitialised */
            Val v = gen_view(G, e->args[0]);
            return FMT("(%s.owner ? (Py_ssize_t)0 : (Py_ssize_t)-1)", v.c);
        }
        VRef r = view_ref(G, e->args[0]);
        if (k >= e->args[0]->ty->ndim) return "((Py_ssize_t)0)";
        return stride ? vr_stride(G, &r, (int)k) : vr_shape(G, &r, (int)k);
    }
    Val v = gen_view(G, e->args[0]);
    return FMT("%s.%s[%s]", v.c, stride ? "strides" : "shape", genc(G, e->args[1]));
}

/* a compiled function's convention: an object return is a new reference;
 * a function that may raise returns a status, its value through a pointer */
static const char *tg_call(void *g, IrExpr *e, const char **args) {
    Gen *G = g;
    IrFunc *f = e->fn;
    int np = e->nargs;
    const char *fname = f->overrides.len ? FMT("cy_vd_%s", f->cname) : f->cname;
    const char *call = FMT("%s(%s)", fname, join(G, args, np, ", "));
    if (fn_objret(f)) return new_obj(G, call);
    if (fn_status(f)) {
        if (f->ret->kind == TY_VOID) {
            goto_err_if(G, FMT("%s < 0", call));
            return "";
        }
        const char *r = is_view(f->ret) ? vtmp(G) : stmp(G, f->ret, NULL);
        args[np] = FMT("&%s", r);
        goto_err_if(G, FMT("%s(%s) < 0", fname, join(G, args, np + 1, ", ")));
        return r;
    }
    if (is_view(f->ret)) {
        const char *r = vtmp(G);
        out(G, "%s = %s;", r, call);
        return r;
    }
    return call;
}

static Val gen_call(Gen *G, IrExpr *e) {
    CyTarget T = target(G);
    const char *c = cy_lower_call(&G->e, &T, e);
    return (Val){c, fn_objret(e->fn) || is_view(e->fn->ret)};
}

static const char *binop_fn(IrOp op) {
    switch (op) {
    case OP_ADD: return "PyNumber_Add";
    case OP_SUB: return "PyNumber_Subtract";
    case OP_MUL: return "PyNumber_Multiply";
    case OP_DIV: return "PyNumber_TrueDivide";
    case OP_FLOORDIV: return "PyNumber_FloorDivide";
    case OP_MOD: return "PyNumber_Remainder";
    case OP_MATMUL: return "PyNumber_MatrixMultiply";
    case OP_SHL: return "PyNumber_Lshift";
    case OP_SHR: return "PyNumber_Rshift";
    case OP_BITAND: return "PyNumber_And";
    case OP_BITOR: return "PyNumber_Or";
    case OP_BITXOR: return "PyNumber_Xor";
    default: return NULL;
    }
}

static const char *cmp_op(IrOp op) {
    switch (op) {
    case OP_LT: return "Py_LT";
    case OP_LE: return "Py_LE";
    case OP_GT: return "Py_GT";
    case OP_GE: return "Py_GE";
    case OP_EQ: return "Py_EQ";
    default: return "Py_NE";
    }
}

/* Object comparison as a C int (0/1): errors checked here. */
static const char *obj_cmp_int(Gen *G, IrExpr *e) {
    IrOp op = e->op;
    Val a = gen(G, e->args[0]);
    Val b = gen(G, e->args[1]);
    if (op == OP_IS) return FMT("(%s == %s)", a.c, b.c);
    if (op == OP_IS_NOT) return FMT("(%s != %s)", a.c, b.c);
    const char *s;
    if (op == OP_IN || op == OP_NOT_IN) {
        s = stmp_c(G, "int", FMT("PySequence_Contains(%s, %s)", b.c, a.c));
        goto_err_if(G, FMT("%s < 0", s));
        return op == OP_NOT_IN ? FMT("(!%s)", s) : s;
    }
    s = stmp_c(G, "int", FMT("cyrt_cmp_bint(%s, %s, %s)", a.c, b.c, cmp_op(op)));
    goto_err_if(G, FMT("%s < 0", s));
    return s;
}

static int host_checks_on(Gen *G);
static IrFunc *own_def_callee(const Gen *G, const IrExpr *e);

static Val gen_obj_call(Gen *G, IrExpr *e) {
    Val f = gen(G, e->args[0]);
    IrFunc *own = host_checks_on(G) ? own_def_callee(G, e) : NULL;
    int npos = e->nargs - 1, nkw = e->nkw;
    const char **items = cy_alloc(G->a, (size_t)(npos + nkw + 2) * sizeof(char *));
    items[0] = "NULL";
    for (int i = 0; i < npos; i++) items[1 + i] = gen(G, e->args[1 + i]).c;
    for (int i = 0; i < nkw; i++) items[1 + npos + i] = gen(G, e->kwargs[i]).c;
    if (own) {
        /* the statement's host check left this call out (own_def_callee):
           only a function that is not this module's def any more needs the
           data back first */
        int k;
        for (k = 0; k < G->own_called.len && G->own_called.items[k] != own; k++) {}
        if (k == G->own_called.len) cy_vec_push(G->a, &G->own_called, own);
        out(G, "if (!PyCFunction_Check(%s) || PyCFunction_GET_FUNCTION(%s) != (PyCFunction)(void (*)(void))cy_pw_%s)",
            f.c, f.c, own->name);
        out(G, "    CYRT_HOST(3, %s, %d);", c_strz(G, G->fname), e->pos.line);
    }
    if (npos + nkw == 0) return (Val){new_obj(G, FMT("PyObject_CallNoArgs(%s)", f.c)), 1};
    int unpack = 0;
    for (int i = 0; i < npos; i++) unpack |= e->args[1 + i]->kind == E_STARRED;
    for (int i = 0; i < nkw; i++) unpack |= !e->kwnames[i];
    if (unpack) {
        /* f(a, *it, k=v, **m): Python's call of a tuple and a dict built in order */
        const char *pl = new_obj(G, "PyList_New(0)");
        for (int i = 0; i < npos; i++)
            goto_err_if(G, e->args[1 + i]->kind == E_STARRED ? FMT("cyrt_list_extend(%s, %s) < 0", pl, items[1 + i])
                                                            : FMT("PyList_Append(%s, %s) < 0", pl, items[1 + i]));
        const char *tup = new_obj(G, FMT("PyList_AsTuple(%s)", pl)), *kd = "NULL";
        if (nkw) {
            kd = new_obj(G, "PyDict_New()");
            for (int i = 0; i < nkw; i++)
                goto_err_if(G, e->kwnames[i] ? FMT("cyrt_kw_add(%s, %s, %s, %s) < 0", f.c, kd,
                                                   name_const(G, e->kwnames[i]), items[1 + npos + i])
                                             : FMT("cyrt_kw_merge(%s, %s, %s) < 0", f.c, kd, items[1 + npos + i]));
        }
        return (Val){new_obj(G, FMT("PyObject_Call(%s, %s, %s)", f.c, tup, kd)), 1};
    }
    const char *kwt = "NULL";
    if (nkw) {
        CyBuf b = {0};
        for (int i = 0; i < nkw; i++) {
            name_const(G, e->kwnames[i]);
            cy_buf_printf(&b, "%s%s", i ? "," : "", e->kwnames[i]);
        }
        kwt = konst(G, 4, b.s, (int)b.len);
        cy_buf_free(&b);
    }
    return (Val){new_obj(G, FMT("PyObject_Vectorcall(%s, (PyObject *[]){%s} + 1, %d | PY_VECTORCALL_ARGUMENTS_OFFSET, %s)",
                                f.c, join(G, items, npos + nkw + 1, ", "), npos, kwt)),
                 1};
}

static Val gen_obj_andor(Gen *G, IrExpr *e) {
    Val a = gen(G, e->args[0]);
    const char *r = otmp(G);
    if (a.owned) {
        out(G, "%s = %s;", r, a.c);
        out(G, "%s = NULL;", a.c);
    } else {
        out(G, "%s = %s;", r, a.c);
        out(G, "Py_INCREF(%s);", r);
    }
    const char *s = stmp_c(G, "int", FMT("cyrt_truth(%s)", r));
    goto_err_if(G, FMT("%s < 0", s));
    out(G, e->kind == E_OBJ_AND ? "if (%s) {" : "if (!%s) {", s);
    G->e.ind++;
    assign_obj(G, r, gen(G, e->args[1]));
    G->e.ind--;
    out(G, "}");
    return (Val){r, 1};
}

static Val gen_obj_cond(Gen *G, IrExpr *e) {
    const char *c = genc(G, e->args[0]);
    const char *r = otmp(G);
    out(G, "if %s {", cy_c_wrapped(c) ? c : FMT("(%s)", c));
    G->e.ind++;
    assign_obj(G, r, gen(G, e->args[1]));
    G->e.ind--;
    out(G, "} else {");
    G->e.ind++;
    assign_obj(G, r, gen(G, e->args[2]));
    G->e.ind--;
    out(G, "}");
    return (Val){r, 1};
}

/* The C type object of a builtin class sema types objects with, or NULL. */
static const char *builtin_type_obj(const char *pyclass) {
    static const char *const types[][2] = {
        {"list", "PyList_Type"}, {"tuple", "PyTuple_Type"}, {"dict", "PyDict_Type"}, {"set", "PySet_Type"},
        {"frozenset", "PyFrozenSet_Type"}, {"str", "PyUnicode_Type"}, {"bytes", "PyBytes_Type"},
        {"bytearray", "PyByteArray_Type"}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (!strcmp(pyclass, types[i][0])) return types[i][1];
    return NULL;
}

static Val gen(Gen *G, IrExpr *e) {
    Val v = {"0", 0};
    for (int i = 0; i + 1 < G->subst.len; i += 2)
        if (G->subst.items[i] == e) return (Val){G->subst.items[i + 1], 0};
    if (e->kind != E_COND || !is_view(e->ty)) {
        CyTarget T = target(G);
        const char *c = cy_lower_expr(&G->e, &T, e);
        if (c) return (Val){c, 0};
    }
    switch (e->kind) {
    case E_IMAG:
        G->used_complex = 1;
        v.c = FMT("CYRT_CMPLX(0.0, %s)", float_lit(G, cy_type_scalar(TY_DOUBLE), e->fval));
        return v;
    case E_CNAME: v.c = e->sval; return v;
    case E_CSTR: v.c = c_str(G, e->sval, e->slen); return v;
    case E_STR: v.c = konst(G, 1, e->sval, e->slen); return v;
    case E_BYTES: v.c = konst(G, 2, e->sval, e->slen); return v;
    case E_BIGINT: v.c = konst(G, 3, e->sval, (int)strlen(e->sval)); return v;
    case E_NONE: v.c = "Py_None"; return v;
    case E_PYBOOL: v.c = e->ival ? "Py_True" : "Py_False"; return v;
    case E_VAR: {
        IrVar *x = e->var;
        if (x->kind == V_PYGLOBAL)
            return (Val){new_obj(G, FMT("cyrt_get_global(%s)", name_const(G, x->name))), 1};
        if (is_obj(x->ty) && x->kind == V_LOCAL && !is_assigned_here(G, x))
            out(G, "if (cyrt_unlikely(!%s)) { cyrt_err_unbound(%s); goto %s; }", x->cname, c_strz(G, x->name),
                errlbl(G));
        v.c = x->cname;
        return v;
    }
    case E_PYGLOBAL: return (Val){new_obj(G, FMT("cyrt_get_global(%s)", name_const(G, e->sval))), 1};
    case E_COND: return gen_view(G, e); /* of views: the others are cy_lower_expr's */
    case E_INT: case E_FLOAT: case E_BINOP: case E_PYFLOORDIV: case E_PYMOD: case E_UNOP: case E_NOT:
    case E_AND: case E_OR: case E_VAND: case E_VOR: case E_CMP: case E_CAST: case E_PTR_INDEX: case E_POW:
    case E_CALL_C: case E_CALL_PTR: case E_MINMAX:
        break; /* cy_lower_expr's */
    case E_SIZEOF: v.c = FMT("sizeof(%s)", cty(G, e->ty2)); return v;
    case E_ADDR: {
        IrExpr *x = e->args[0];
        v.c = FMT("(&%s)", x->kind == E_VIEW_ELEM ? view_elem(G, x) : genc(G, x));
        return v;
    }
    case E_DEREF: v.c = FMT("(*%s)", cy_c_paren(G->a, genc(G, e->args[0]))); return v;
    case E_FIELD: v.c = FMT("%s.%s", cy_c_paren(G->a, genc(G, e->args[0])), e->sval); return v;
    case E_SLOT: v.c = slot_lvalue(G, e); return v;
    case E_STRUCT_LIT: {
        const char **f = cy_alloc(G->a, (size_t)(e->nargs ? e->nargs : 1) * sizeof *f);
        for (int i = 0; i < e->nargs; i++) f[i] = genc(G, e->args[i]);
        v.c = FMT("((%s){%s})", cty(G, e->ty), e->nargs ? join(G, f, e->nargs, ", ") : "0");
        return v;
    }
    case E_VIEW_ELEM:
        if (cy_type_is_complex(e->ty)) G->used_complex = 1;
        v.c = view_elem(G, e);
        return v;
    case E_VIEW_SLICE: case E_VIEW_T: case E_VIEW_FROM_OBJ: return gen_view(G, e);
    case E_VIEW_SHAPE: v.c = view_shape_expr(G, e, 0); return v;
    case E_VIEW_STRIDE: v.c = view_shape_expr(G, e, 1); return v;
    case E_VIEW_NDIM: v.c = FMT("%d", e->args[0]->ty->ndim); return v;
    case E_OBJ_FROM_VIEW: {
        Val x = gen_view(G, e->args[0]);
        if (e->ival == 1) return (Val){new_obj(G, FMT("cyrt_view_base(&%s)", x.c)), 1};
        return (Val){new_obj(G, FMT("cyrt_view_to_obj(&%s, %d)", x.c, e->args[0]->ty->ndim)), 1};
    }
    case E_CALL:
        if (e->fn && e->fn->kind == F_EXTERN) {
            CyTarget T = target(G);
            v.c = cy_lower_call_c(&G->e, &T, e);
            return v;
        }
        return gen_call(G, e);
    case E_THREADID: v.c = "cyrt_thread_num()"; return v;
    case E_BOX: {
        IrExpr *x = e->args[0];
        if (is_view(x->ty)) {
            Val vv = gen_view(G, x);
            return (Val){new_obj(G, FMT("cyrt_view_to_obj(&%s, %d)", vv.c, x->ty->ndim)), 1};
        }
        const char *c = genc(G, x);
        if (cy_type_is_complex(x->ty)) c = once(G, x->ty, c);
        /* int() of a C float (sema): a Python int, exact */
        const char *call = e->sval && !strcmp(e->sval, "PyLong_FromDouble") ? FMT("PyLong_FromDouble((double)%s)", c)
                                                                               : box_call(G, x->ty, c);
        if (e->sval && !strcmp(e->sval, "cyrt_soft_cobj")) call = FMT("cyrt_soft_cobj(%s)", c);
        if (e->sval && !strcmp(e->sval, "cyrt_soft_pow_obj")) {
            /* a ** b of C floats as an object (sema): float or complex */
            G->used_complex = 1;
            call = FMT("cyrt_soft_pow_obj(%s, %s)", c, genc(G, e->args[1]));
        }
        if (!call) {
            cy_error(G->d, e->pos, "internal error: cannot convert '%s' to a Python object", x->ty->name);
            return v;
        }
        return (Val){new_obj(G, call), 1};
    }
    case E_UNBOX: v.c = unbox(G, e->ty, gen(G, e->args[0]).c); return v;
    case E_OBJ_BINOP: {
        Val a = gen(G, e->args[0]), b = gen(G, e->args[1]);
        if (e->op == OP_POW) return (Val){new_obj(G, FMT("PyNumber_Power(%s, %s, Py_None)", a.c, b.c)), 1};
        const char *fn = binop_fn(e->op);
        if (!fn) {
            cy_error(G->d, e->pos, "internal error: unknown operator '%s'", cy_op_name(e->op));
            return v;
        }
        return (Val){new_obj(G, FMT("%s(%s, %s)", fn, a.c, b.c)), 1};
    }
    case E_OBJ_UNOP: {
        Val a = gen(G, e->args[0]);
        const char *fn = e->op == OP_NEG ? "PyNumber_Negative" : e->op == OP_POS ? "PyNumber_Positive" : "PyNumber_Invert";
        return (Val){new_obj(G, FMT("%s(%s)", fn, a.c)), 1};
    }
    case E_OBJ_NOT: case E_OBJ_TRUTH: {
        Val a = gen(G, e->args[0]);
        const char *s = stmp_c(G, "int", FMT("cyrt_truth(%s)", a.c));
        goto_err_if(G, FMT("%s < 0", s));
        v.c = e->kind == E_OBJ_NOT ? FMT("(!%s)", s) : s;
        return v;
    }
    case E_OBJ_CMP: {
        IrOp op = e->op;
        if (op == OP_IS || op == OP_IS_NOT || op == OP_IN || op == OP_NOT_IN) {
            const char *c = obj_cmp_int(G, e);
            const char *t = otmp(G);
            out(G, "%s = %s ? Py_True : Py_False;", t, c);
            out(G, "Py_INCREF(%s);", t);
            return (Val){t, 1};
        }
        Val a = gen(G, e->args[0]), b = gen(G, e->args[1]);
        return (Val){new_obj(G, FMT("PyObject_RichCompare(%s, %s, %s)", a.c, b.c, cmp_op(op))), 1};
    }
    case E_OBJ_CMP_BINT: v.c = obj_cmp_int(G, e); return v;
    case E_OBJ_ATTR: {
        Val a = gen(G, e->args[0]);
        return (Val){new_obj(G, FMT("PyObject_GetAttr(%s, %s)", a.c, name_const(G, e->sval))), 1};
    }
    case E_OBJ_CALL: return gen_obj_call(G, e);
    case E_STARRED: return gen(G, e->args[0]); /* gen_obj_call unpacks it */
    case E_OBJ_INDEX: {
        Val a = gen(G, e->args[0]), b = gen(G, e->args[1]);
        return (Val){new_obj(G, FMT("PyObject_GetItem(%s, %s)", a.c, b.c)), 1};
    }
    case E_OBJ_SLICE: {
        Val a = gen(G, e->args[0]), b = gen(G, e->args[1]), c = gen(G, e->args[2]);
        return (Val){new_obj(G, FMT("PySlice_New(%s, %s, %s)", a.c, b.c, c.c)), 1};
    }
    case E_TUPLE: {
        if (!e->nargs) return (Val){new_obj(G, "PyTuple_New(0)"), 1};
        const char **items = cy_alloc(G->a, (size_t)e->nargs * sizeof(char *));
        for (int i = 0; i < e->nargs; i++) items[i] = gen(G, e->args[i]).c;
        return (Val){new_obj(G, FMT("PyTuple_Pack(%d, %s)", e->nargs, join(G, items, e->nargs, ", "))), 1};
    }
    case E_LIST: {
        const char **items = cy_alloc(G->a, (size_t)(e->nargs + 1) * sizeof(char *));
        for (int i = 0; i < e->nargs; i++) items[i] = owned(G, gen(G, e->args[i]));
        const char *t = new_obj(G, FMT("PyList_New(%d)", e->nargs));
        for (int i = 0; i < e->nargs; i++) {
            out(G, "PyList_SET_ITEM(%s, %d, %s);", t, i, items[i]);
            out(G, "%s = NULL;", items[i]);
        }
        return (Val){t, 1};
    }
    case E_SET: {
        const char *t = new_obj(G, "PySet_New(NULL)");
        for (int i = 0; i < e->nargs; i++) goto_err_if(G, FMT("PySet_Add(%s, %s) < 0", t, gen(G, e->args[i]).c));
        return (Val){t, 1};
    }
    case E_DICT: {
        const char *t = new_obj(G, "PyDict_New()");
        for (int i = 0; i + 1 < e->nargs; i += 2) {
            Val k = gen(G, e->args[i]), x = gen(G, e->args[i + 1]);
            goto_err_if(G, FMT("PyDict_SetItem(%s, %s, %s) < 0", t, k.c, x.c));
        }
        return (Val){t, 1};
    }
    case E_OBJ_AND: case E_OBJ_OR: return gen_obj_andor(G, e);
    case E_OBJ_COND: return gen_obj_cond(G, e);
    case E_IMPORT:
        return (Val){new_obj(G, FMT("cyrt_import(%s, %d)", c_strz(G, e->sval), e->import_top)), 1};
    case E_STMTS: {
        /* a comprehension: its statements run here, in the order of the
           expression's evaluation (code for an operand that may not run is
           captured by the caller, as any other) */
        if (e->ival == 'w') {
            gen_stmts(G, &e->stmts);
            Val v = gen(G, e->args[0]);
            if (!is_obj(e->ty) || v.owned) return v;
            const char *t = otmp(G);
            out(G, "%s = %s;", t, v.c);
            out(G, "Py_INCREF(%s);", t);
            return (Val){t, 1};
        }
        IrVar *acc = e->args[0]->var;
        if (e->ival) {
            const char *mk = e->ival == 'l' ? "PyList_New(0)" : e->ival == 's' ? "PySet_New(NULL)" : "PyDict_New()";
            out(G, "CYRT_XSETREF(%s, %s);", acc->cname, mk);
            goto_err_if(G, FMT("!%s", acc->cname));
            mark_assigned(G, acc);
        }
        gen_stmts(G, &e->stmts);
        if (is_obj(e->ty)) {
            const char *t = otmp(G);
            out(G, "%s = %s;", t, acc->cname);
            out(G, "%s = NULL;", acc->cname);
            return (Val){t, 1};
        }
        return (Val){stmp(G, e->ty, acc->cname), 0};
    }
    case E_COMP_ADD: {
        Val c = gen(G, e->args[0]), x = gen(G, e->args[1]);
        if (e->ival == 'd') {
            Val y = gen(G, e->args[2]);
            goto_err_if(G, FMT("PyDict_SetItem(%s, %s, %s) < 0", c.c, x.c, y.c));
        } else {
            goto_err_if(G, FMT("%s(%s, %s) < 0", e->ival == 'l' ? "PyList_Append" : "PySet_Add", c.c, x.c));
        }
        return (Val){"", 0};
    }
    case E_CARRAY_VIEW: {
        const CyType *t = e->args[0]->ty;
        const char *dims = "";
        int nd = 0;
        for (; t->kind == TY_ARRAY; t = t->base, nd++) dims = FMT("%s%s%lld", dims, nd ? ", " : "", t->alen);
        const char *shape = FMT("cy_s%d", ++G->nid);
        out(G, "Py_ssize_t %s[%d] = {%s};", shape, nd, dims);
        return (Val){new_obj(G, FMT("cyrt_carray_view((char *)%s, (Py_ssize_t)sizeof(%s), %s, %d, %s)", genc(G, e->args[0]),
                                    genc(G, e->args[0]), c_strz(G, e->sval), nd, shape)),
                     1};
    }
    case E_PYTYPE_TEST: {
        Val a = gen(G, e->args[0]);
        const char *arg = e->sval ? c_strz(G, e->sval) : "NULL";
        if (!strcmp(e->ty->pyclass, "numpy.ndarray")) {
            goto_err_if(G, FMT("cyrt_ndarray_check(%s, %s, %d) < 0", a.c, arg, (int)e->ival));
            return a;
        }
        if (e->ty->cls) {
            goto_err_if(G, FMT("cyrt_ext_check(%s, &%s_type, %s, %d) < 0", a.c, e->ty->cls->cname, arg, (int)e->ival));
            return a;
        }
        const char *tobj = builtin_type_obj(e->ty->pyclass);
        if (!tobj) {
            cy_error(G->d, e->pos, "internal error: C backend: no type object for '%s'", e->ty->pyclass);
            return a;
        }
        goto_err_if(G, FMT("cyrt_builtin_check(%s, &%s, %s, %d) < 0", a.c, tobj, arg, (int)e->ival));
        return a;
    }
    }
    cy_error(G->d, e->pos, "internal error: C backend: unhandled expression kind %d", (int)e->kind);
    return v;
}

static const char *genc(Gen *G, IrExpr *e) { return gen(G, e).c; }

/* ---- statements ------------------------------------------------------------ */

static const char *tg_lvalue(void *g, IrExpr *t) {
    Gen *G = g;
    switch (t->kind) {
    case E_VAR: return t->var->cname;
    case E_VIEW_ELEM:
        if (cy_type_is_complex(t->ty)) G->used_complex = 1;
        return view_elem(G, t);
    default: return genc(G, t); /* E_PTR_INDEX, E_DEREF, E_FIELD */
    }
}

static void mark_assigned(Gen *G, IrVar *v) {
    if (is_obj(v->ty)) vec_add(G, &G->assigned, v);
}

/* stores of objects and views (reference counts), and to the module dict */
static int tg_assign(void *g, IrStmt *s) {
    Gen *G = g;
    IrExpr *t = s->target, *v = s->value;
    if (s->op) return 0;
    if (t->kind == E_VAR && t->var->kind == V_PYGLOBAL) {
        Val r = gen(G, v);
        goto_err_if(G, FMT("PyDict_SetItem(cyrt_mdict, %s, %s) < 0", name_const(G, t->var->name), r.c));
        return 1;
    }
    switch (t->kind) {
    case E_VAR: {
        IrVar *x = t->var;
        if (is_obj(x->ty)) {
            assign_obj(G, x->cname, gen(G, v));
            mark_assigned(G, x);
        } else if (is_view(x->ty)) {
            Val r = gen_view(G, v);
            out(G, r.owned ? "cyrt_view_move(&%s, &%s);" : "cyrt_view_copy(&%s, &%s);", x->cname, r.c);
        } else {
            return 0;
        }
        return 1;
    }
    case E_PYGLOBAL: {
        Val r = gen(G, v);
        goto_err_if(G, FMT("PyDict_SetItem(cyrt_mdict, %s, %s) < 0", name_const(G, t->sval), r.c));
        return 1;
    }
    case E_OBJ_ATTR: {
        Val r = gen(G, v);
        Val o = gen(G, t->args[0]);
        goto_err_if(G, FMT("PyObject_SetAttr(%s, %s, %s) < 0", o.c, name_const(G, t->sval), r.c));
        return 1;
    }
    case E_SLOT:
        if (is_obj(t->ty)) {
            Val r = gen(G, v);
            assign_obj(G, slot_lvalue(G, t), r);
        } else if (is_view(t->ty)) {
            Val r = gen_view(G, v);
            out(G, r.owned ? "cyrt_view_move(&%s, &%s);" : "cyrt_view_copy(&%s, &%s);", slot_lvalue(G, t), r.c);
        } else {
            return 0;
        }
        return 1;
    case E_OBJ_INDEX: {
        Val r = gen(G, v);
        Val o = gen(G, t->args[0]), k = gen(G, t->args[1]);
        goto_err_if(G, FMT("PyObject_SetItem(%s, %s, %s) < 0", o.c, k.c, r.c));
        return 1;
    }
    default: return 0;
    }
}

static IrOp tg_update_op(void *g, IrStmt *s) {
    (void)g;
    return s->op;
}

static void tg_copy_array(void *g, const CyType *t, const char *lv, const char *rv, CyPos pos) {
    (void)t;
    (void)pos;
    out(g, "memcpy(%s, %s, sizeof %s);", lv, rv, lv);
}

static void gen_assign(Gen *G, IrStmt *s) {
    CyTarget T = target(G);
    cy_lower_assign(&G->e, &T, s);
}

/* The condition of an if/while as a C expression; object temporaries it
 * needed are released before the branch. */
static const char *cond_expr(Gen *G, IrExpr *c, int mark) {
    const char *s = genc(G, c);
    if (G->live.len > mark) {
        s = stmp_c(G, "int", FMT("!!%s", cy_c_paren(G->a, s)));
        release_to(G, mark);
    }
    return s;
}

static void gen_block(Gen *G, CyVec *body) {
    int n = G->assigned.len;
    G->e.ind++;
    gen_stmts(G, body);
    G->e.ind--;
    G->assigned.len = n;
}

/* the shared lowering's statement hooks */
static void tg_block(void *g, CyVec *body) { gen_block(g, body); }
static void tg_orelse(void *g, CyVec *body) {
    Gen *G = g;
    int n = G->assigned.len;
    gen_stmts(G, body);
    G->assigned.len = n;
}
static const char *tg_cond(void *g, IrExpr *e) {
    Gen *G = g;
    return cond_expr(G, e, G->live.len);
}
static void gen_if_open(Gen *G, IrStmt *s, const char *c, const char *prefix) {
    CyTarget T = target(G);
    cy_emit_if_open(&G->e, &T, s, c, prefix);
}

/* ---- variable scans -------------------------------------------------------- */

/* Variables a region body uses and assigns (loop targets and address-taken
 * variables count as assigned), and the pranges nested in it. */
typedef struct {
    CyVec used, assigned, nested;
    int has_gil;
} Scan;

static void scan_stmts(Gen *G, Scan *sc, CyVec *body);

static void scan_expr(Gen *G, Scan *sc, IrExpr *e) {
    if (!e) return;
    if (e->kind == E_STMTS) scan_stmts(G, sc, &e->stmts);
    if (e->kind == E_VAR) vec_add(G, &sc->used, e->var);
    if (e->kind == E_ADDR && e->args[0]->kind == E_VAR) vec_add(G, &sc->assigned, e->args[0]->var);
    for (int i = 0; i < e->nargs; i++) scan_expr(G, sc, e->args[i]);
    for (int i = 0; i < e->nkw; i++) scan_expr(G, sc, e->kwargs[i]);
    if (e->kind == E_VIEW_SLICE)
        for (int i = 0; i < e->args[0]->ty->ndim; i++) {
            scan_expr(G, sc, e->slices[i].start);
            scan_expr(G, sc, e->slices[i].stop);
            scan_expr(G, sc, e->slices[i].step);
        }
}

static void scan_stmts(Gen *G, Scan *sc, CyVec *body) {
    for (int i = 0; i < body->len; i++) {
        IrStmt *x = body->items[i];
        if (x->kind == ST_ASSIGN && x->target->kind == E_VAR) vec_add(G, &sc->assigned, x->target->var);
        if (x->var) {
            vec_add(G, &sc->assigned, x->var);
            vec_add(G, &sc->used, x->var);
        }
        for (int k = 0; k < x->ntargets; k++)
            if (x->targets[k]->kind == E_VAR) vec_add(G, &sc->assigned, x->targets[k]->var);
        if (x->kind == ST_GIL) sc->has_gil = 1;
        scan_expr(G, sc, x->target);
        scan_expr(G, sc, x->value);
        scan_expr(G, sc, x->cond);
        scan_expr(G, sc, x->start);
        scan_expr(G, sc, x->stop);
        scan_expr(G, sc, x->step);
        for (int k = 0; k < x->ntargets; k++) scan_expr(G, sc, x->targets[k]);
        if (x->region) {
            IrRegion *r = x->region;
            scan_expr(G, sc, r->start);
            scan_expr(G, sc, r->stop);
            scan_expr(G, sc, r->step);
            scan_expr(G, sc, r->chunksize);
            scan_expr(G, sc, r->num_threads);
            scan_expr(G, sc, r->use_threads_if);
            if (r->index) {
                vec_add(G, &sc->assigned, r->index);
                vec_add(G, &sc->used, r->index);
            }
            cy_vec_push(G->a, &sc->nested, r);
        }
        scan_stmts(G, sc, &x->body);
        scan_stmts(G, sc, &x->orelse);
    }
}

/* The variables a statement list assigns. */
static CyVec assigned_vars(Gen *G, CyVec *body) {
    Scan sc = {0};
    scan_stmts(G, &sc, body);
    return sc.assigned;
}

/* ---- residency: host accesses between device regions (DESIGN §4.5) ----------
 * When a region ran on a device its data stays there; the host side must
 * bring it back before touching view memory and drop device copies before
 * writing it.  Each serial statement that touches view memory (or hands
 * anything to Python, which may touch it) is preceded by CYRT_HOST(mask),
 * one load and a branch when nothing is on a device.  A loop whose body
 * cannot start a device region is checked once, before it.  Where every
 * access goes through named views, only those views are synchronised
 * (CYRT_HOSTV): inside cyocl.resident the other arrays stay on the device. */

enum { HM_READ = 1, HM_WRITE = 3 };

typedef struct {
    const Gen *G;
    int mask;   /* HM_* bits of what was scanned */
    int launch; /* it may start a device region (directly, by a call, or through Python) */
    int all;    /* some access is not through a named view (a pointer, Python) */
    CyVec views; /* IrVar*: the views accessed, when !all */
    CyVec vset;  /* IrVar*: view variables assigned (a check hoisted before them would see old values) */
} HostScan;

static int is_def_like(const IrFunc *f);
static void hs_expr(HostScan *h, const IrExpr *e);

/* A call of one of this module's def functions by its global name, with
 * arguments that are views or values that touch no view memory: the
 * callee's wrapper takes care of residency itself (its own host checks,
 * enter and leave), so the caller need not bring the data back first —
 * as long as the name still names that function when the call runs,
 * which the call checks (gen_obj_call).  Inside cyocl.resident, mlp2's
 * two sigmoid_layer calls otherwise copied every array back and up again. */
static IrFunc *own_def_callee(const Gen *G, const IrExpr *e) {
    if (e->kind != E_OBJ_CALL || e->nkw || e->nargs < 1) return NULL;
    const IrExpr *c = e->args[0];
    const char *name = c->kind == E_PYGLOBAL                                       ? c->sval
                       : c->kind == E_VAR && c->var && c->var->kind == V_PYGLOBAL ? c->var->name
                                                                                   : NULL;
    if (!name) return NULL;
    IrFunc *f = NULL;
    for (int i = 0; i < G->m->funcs.len && !f; i++) {
        IrFunc *g = G->m->funcs.items[i];
        if (is_def_like(g) && !g->fused_of && !strcmp(g->name, name)) f = g;
    }
    if (!f) return NULL;
    for (int i = 1; i < e->nargs; i++) {
        const IrExpr *a = e->args[i];
        if (a->kind == E_OBJ_FROM_VIEW && a->nargs == 1 && a->args[0]->kind == E_VAR && a->args[0]->var &&
            a->args[0]->var->kind != V_PYGLOBAL)
            continue;
        HostScan t = {G, 0, 0, 0, {0}, {0}};
        hs_expr(&t, a);
        if (t.mask || t.launch || t.all) return NULL;
    }
    return f;
}

static void hs_view(HostScan *h, const IrExpr *v) {
    if (!v || v->kind != E_VAR || !v->var || v->var->kind == V_PYGLOBAL || !v->ty || v->ty->kind != TY_VIEW) {
        h->all = 1;
        return;
    }
    for (int i = 0; i < h->views.len; i++)
        if (h->views.items[i] == v->var) return;
    cy_vec_push(h->G->a, &h->views, v->var);
}

static int is_launcher(const Gen *G, const IrFunc *f) { return f && cy_pmap_get(&G->launchers, f) != NULL; }

static void hs_stmts(HostScan *h, const CyVec *body);

static void hs_expr(HostScan *h, const IrExpr *e) {
    if (!e) return;
    switch (e->kind) {
    case E_STMTS: hs_stmts(h, &e->stmts); break;
    case E_VIEW_ELEM: h->mask |= HM_READ; hs_view(h, e->args[0]); break;
    case E_PTR_INDEX: case E_DEREF: h->mask |= HM_READ; h->all = 1; break;
    case E_ADDR: h->mask |= HM_WRITE; h->all = 1; break; /* a pointer into the memory escapes */
    case E_CALL:
        if (is_launcher(h->G, e->fn)) h->launch = 1;
        break;
    case E_OBJ_CALL:
        if (own_def_callee(h->G, e)) {
            /* checked where it runs (gen_obj_call); the callee may launch */
            h->launch = 1;
            for (int i = 1; i < e->nargs; i++)
                if (e->args[i]->kind != E_OBJ_FROM_VIEW) hs_expr(h, e->args[i]);
            return;
        }
        /* fall through */
    case E_OBJ_FROM_VIEW: case E_CARRAY_VIEW: case E_OBJ_BINOP: case E_OBJ_UNOP: case E_OBJ_NOT: case E_OBJ_TRUTH:
    case E_OBJ_CMP: case E_OBJ_CMP_BINT: case E_OBJ_ATTR: case E_OBJ_INDEX:
    case E_OBJ_AND: case E_OBJ_OR: case E_OBJ_COND: case E_UNBOX: case E_IMPORT:
        /* Python code runs: it may read or write any array, or call a module that launches */
        h->mask |= HM_WRITE;
        h->launch = 1;
        h->all = 1;
        break;
    default: break;
    }
    for (int i = 0; i < e->nargs; i++) hs_expr(h, e->args[i]);
    for (int i = 0; i < e->nkw; i++) hs_expr(h, e->kwargs[i]);
    if (e->kind == E_VIEW_SLICE)
        for (int i = 0; i < e->args[0]->ty->ndim; i++) {
            hs_expr(h, e->slices[i].start);
            hs_expr(h, e->slices[i].stop);
            hs_expr(h, e->slices[i].step);
        }
}

static int writes_memory(const IrExpr *t) {
    while (t && t->kind == E_FIELD) t = t->args[0];
    return t && (t->kind == E_VIEW_ELEM || t->kind == E_PTR_INDEX || t->kind == E_DEREF || t->kind == E_OBJ_ATTR ||
                 t->kind == E_OBJ_INDEX);
}

/* What the statement itself evaluates (not its nested statements). */
static void hs_stmt_own(HostScan *h, const IrStmt *s) {
    switch (s->kind) {
    case ST_EXPR: case ST_RETURN: hs_expr(h, s->value); break;
    case ST_ASSIGN:
        hs_expr(h, s->value);
        hs_expr(h, s->target);
        if (writes_memory(s->target)) h->mask |= HM_WRITE;
        if (s->target && s->target->kind == E_VAR && s->target->ty && s->target->ty->kind == TY_VIEW)
            cy_vec_push(h->G->a, &h->vset, s->target->var);
        break;
    case ST_UNPACK: case ST_FOR_ITER: case ST_RAISE:
        h->mask |= HM_WRITE;
        h->launch = 1;
        h->all = 1;
        hs_expr(h, s->value);
        break;
    case ST_IF: case ST_WHILE: hs_expr(h, s->cond); break;
    case ST_ASSERT: hs_expr(h, s->cond); hs_expr(h, s->value); break;
    case ST_FOR_RANGE: hs_expr(h, s->start); hs_expr(h, s->stop); hs_expr(h, s->step); break;
    case ST_PRANGE: case ST_PARALLEL: {
        const IrRegion *r = s->region;
        hs_expr(h, r->start);
        hs_expr(h, r->stop);
        hs_expr(h, r->step);
        hs_expr(h, r->num_threads);
        hs_expr(h, r->use_threads_if);
        hs_expr(h, r->chunksize);
        break;
    }
    default: break;
    }
}

/* Everything a statement list does, nested statements included; a region's
 * body is left out (the region synchronises itself when it runs natively). */
static void hs_stmts(HostScan *h, const CyVec *body) {
    for (int i = 0; i < body->len; i++) {
        const IrStmt *s = body->items[i];
        hs_stmt_own(h, s);
        if (s->kind == ST_PRANGE || s->kind == ST_PARALLEL) {
            if (s->region->ocl_ok) h->launch = 1;
            hs_stmts(h, &s->orelse);
            continue;
        }
        hs_stmts(h, &s->body);
        hs_stmts(h, &s->orelse);
    }
}

/* Records caller under every function it calls: callers[callee] is a CyVec. */
static void note_calls_in(Gen *G, CyMap *callers, IrFunc *caller, const CyVec *body);

static void note_calls(Gen *G, CyMap *callers, IrFunc *caller, const IrExpr *e) {
    if (!e) return;
    if (e->kind == E_STMTS) note_calls_in(G, callers, caller, &e->stmts);
    for (int k = -1; e->kind == E_CALL && e->fn && k < e->fn->overrides.len; k++) {
        /* a call of a method with overrides may reach any of them */
        IrFunc *f = k < 0 ? e->fn : e->fn->overrides.items[k];
        CyVec *v = cy_pmap_get(callers, f);
        if (!v) {
            v = cy_alloc(G->a, sizeof *v);
            cy_pmap_put(G->a, callers, f, v);
        }
        cy_vec_push(G->a, v, caller);
    }
    for (int i = 0; i < e->nargs; i++) note_calls(G, callers, caller, e->args[i]);
    for (int i = 0; i < e->nkw; i++) note_calls(G, callers, caller, e->kwargs[i]);
}

static void note_calls_in(Gen *G, CyMap *callers, IrFunc *caller, const CyVec *body) {
    for (int i = 0; i < body->len; i++) {
        const IrStmt *s = body->items[i];
        const IrExpr *es[] = {s->value, s->target, s->cond, s->start, s->stop, s->step};
        for (size_t k = 0; k < sizeof es / sizeof es[0]; k++) note_calls(G, callers, caller, es[k]);
        note_calls_in(G, callers, caller, &s->body);
        note_calls_in(G, callers, caller, &s->orelse);
    }
}

/* Functions that may run a region on a device: those with an eligible
 * prange, then their callers, directly or not (one walk over the reversed
 * call graph: a fixpoint over all bodies was quadratic in the number of
 * functions).  (Python code a def runs is another call's business: that
 * call brings its data back itself.) */
static void find_launchers(Gen *G) {
    const IrModule *m = G->m;
    CyMap callers = {0};
    CyVec work = {0};
    for (int i = 0; i < m->funcs.len; i++) {
        IrFunc *f = m->funcs.items[i];
        note_calls_in(G, &callers, f, &f->body);
        for (int k = 0; k < f->regions.len; k++) {
            const IrRegion *r = f->regions.items[k];
            if (r->ocl_ok && r->is_prange) {
                cy_pmap_put(G->a, &G->launchers, f, f);
                cy_vec_push(G->a, &work, f);
                break;
            }
        }
    }
    for (int i = 0; i < work.len; i++) {
        CyVec *v = cy_pmap_get(&callers, work.items[i]);
        for (int k = 0; v && k < v->len; k++) {
            IrFunc *c = v->items[k];
            if (is_launcher(G, c)) continue;
            cy_pmap_put(G->a, &G->launchers, c, c);
            cy_vec_push(G->a, &work, c);
        }
    }
}

static int host_checks_on(Gen *G) {
    return G->opt->opencl && G->opt->opencl_source && *G->opt->opencl_source && !G->hoisted && !region_frame(G);
}

static void emit_host_check(Gen *G, const HostScan *h, int line) {
    if (!h->mask) return;
    int m = h->mask == HM_READ ? 1 : 3;
    if (h->all || !h->views.len || h->views.len > 8) {
        out(G, "CYRT_HOST(%d, %s, %d);", m, c_strz(G, G->fname), line);
        return;
    }
    CyBuf b = {0};
    for (int i = 0; i < h->views.len; i++) {
        const IrVar *v = h->views.items[i];
        cy_buf_printf(&b, ", CYRT_HV(%s, %d, sizeof(%s))", v->cname, v->ty->ndim, cty(G, v->ty->base));
    }
    out(G, "CYRT_HOSTV(%d, %s, %d, %d%s);", m, c_strz(G, G->fname), line, h->views.len, b.s);
    cy_buf_free(&b);
}

static const char *tg_loop_cond(void *g, IrExpr *e) {
    Gen *G = g;
    int mark = G->live.len;
    if (host_checks_on(G)) {
        HostScan h = {G, 0, 0, 0, {0}, {0}};
        hs_expr(&h, e);
        emit_host_check(G, &h, e->pos.line);
    }
    return cond_expr(G, e, mark);
}
static void gen_while(Gen *G, IrStmt *s) {
    CyTarget T = target(G);
    cy_lower_while(&G->e, &T, s);
}

/* e is var + c (through widening integer casts) */
static int loop_index(const IrExpr *e, const IrVar *var, int64_t *c) {
    while (e->kind == E_CAST && cy_type_is_int(e->ty) && e->ty->is_signed && e->ty->size >= var->ty->size)
        e = e->args[0];
    if (e->kind == E_VAR && e->var == var) {
        *c = 0;
        return 1;
    }
    if (e->kind == E_BINOP && (e->op == OP_ADD || e->op == OP_SUB)) {
        int64_t k, z;
        if (cy_const_int(e->args[1], &k) && loop_index(e->args[0], var, &z) && z == 0 && k > -(1LL << 40) && k < (1LL << 40)) {
            *c = e->op == OP_ADD ? k : -k;
            return 1;
        }
        if (e->op == OP_ADD && cy_const_int(e->args[0], &k) && loop_index(e->args[1], var, &z) && z == 0 &&
            k > -(1LL << 40) && k < (1LL << 40)) {
            *c = k;
            return 1;
        }
    }
    return 0;
}

/* View accesses indexed by var that run in every iteration: outside the
 * branches of conditional expressions, in the loop body's simple
 * statements. */
static void collect_checks(Gen *G, IrExpr *e, IrVar *var, CyVec *assigned, CyVec *out) {
    if (!e) return;
    if (e->kind == E_AND || e->kind == E_OR || e->kind == E_OBJ_AND || e->kind == E_OBJ_OR || e->kind == E_COND ||
        e->kind == E_OBJ_COND || e->kind == E_VAND || e->kind == E_VOR) {
        collect_checks(G, e->args[0], var, assigned, out);
        return;
    }
    if (e->kind == E_VIEW_ELEM && (e->boundscheck || e->wraparound) && e->args[0]->kind == E_VAR &&
        e->args[0]->var->kind != V_MODULE && !vec_has(assigned, e->args[0]->var))
        for (int k = 0; k < e->args[0]->ty->ndim; k++) {
            int64_t c = 0;
            IrVar *inv = NULL;
            if (!loop_index(e->args[1 + k], var, &c)) {
                /* an index the loop does not change: checked once */
                const IrExpr *x = e->args[1 + k];
                while (x->kind == E_CAST && cy_type_is_int(x->ty)) x = x->args[0];
                if (x->kind != E_VAR || !cy_type_is_int(x->var->ty) || x->var->kind == V_MODULE ||
                    vec_has(assigned, x->var) || x->var == var)
                    continue;
                inv = x->var;
            }
            Checked *ck = cy_alloc(G->a, sizeof *ck);
            ck->elem = e;
            ck->axis = k;
            ck->off = c;
            ck->inv = inv;
            cy_vec_push(G->a, out, ck);
        }
    for (int i = 0; i < e->nargs; i++) collect_checks(G, e->args[i], var, assigned, out);
    for (int i = 0; i < e->nkw; i++) collect_checks(G, e->kwargs[i], var, assigned, out);
}

/* Does the body leave an iteration early without an exception? */
static int skips_rest(CyVec *body, int depth) {
    for (int i = 0; i < body->len; i++) {
        IrStmt *x = body->items[i];
        if (x->kind == ST_RETURN) return 1;
        if ((x->kind == ST_BREAK || x->kind == ST_CONTINUE) && depth == 0) return 1;
        int d = depth + (x->kind == ST_WHILE || x->kind == ST_FOR_RANGE || x->kind == ST_FOR_ITER ||
                         x->kind == ST_PRANGE || x->kind == ST_PARALLEL);
        if (skips_rest(&x->body, d) || skips_rest(&x->orelse, d)) return 1;
    }
    return 0;
}

/* Accesses of a loop over var from the constant start by a positive step
 * whose indices stay >= 0; they are marked checked (the caller pushes the
 * result onto G->checked and emits emit_checks before the loop). */
static void loop_checks(Gen *G, CyVec *body, IrVar *var, int64_t start, CyVec *out) {
    CyVec assigned = assigned_vars(G, body);
    if (vec_has(&assigned, var) || skips_rest(body, 0)) return;
    CyVec all = {0};
    for (int i = 0; i < body->len; i++) {
        /* what the body's own statements evaluate in every iteration: not
           the bodies of nested ifs and loops */
        IrStmt *x = body->items[i];
        if (x->kind == ST_PRANGE || x->kind == ST_PARALLEL || x->kind == ST_GIL || x->kind == ST_NOGIL) continue;
        collect_checks(G, x->value, var, &assigned, &all);
        collect_checks(G, x->target, var, &assigned, &all);
        collect_checks(G, x->cond, var, &assigned, &all);
        if (x->kind == ST_FOR_RANGE) {
            collect_checks(G, x->start, var, &assigned, &all);
            collect_checks(G, x->stop, var, &assigned, &all);
            collect_checks(G, x->step, var, &assigned, &all);
        }
    }
    for (int i = 0; i < all.len; i++) {
        Checked *c = all.items[i];
        if (c->inv || start + c->off >= 0) cy_vec_push(G->a, out, c);
    }
}

/* Is stop (through casts) the length of axis k of view v? */
static int is_shape_of(const IrExpr *stop, const IrVar *v, int k) {
    int64_t a;
    while (stop && stop->kind == E_CAST) stop = stop->args[0];
    return stop && stop->kind == E_VIEW_SHAPE && stop->args[0]->kind == E_VAR && stop->args[0]->var == v &&
           cy_const_int(stop->args[1], &a) && a == k;
}

/* Declares the checked copies of loop-invariant indices (before the loop,
 * unconditionally: they are plain copies). */
static void emit_invariants(Gen *G, CyVec *cks) {
    for (int i = 0; i < cks->len; i++) {
        Checked *c = cks->items[i];
        if (!c->inv) continue;
        for (int j = 0; j < i && !c->repl; j++) {
            Checked *d = cks->items[j];
            if (d->inv == c->inv && d->axis == c->axis && d->elem->args[0]->var == c->elem->args[0]->var &&
                d->elem->wraparound == c->elem->wraparound && d->elem->boundscheck == c->elem->boundscheck)
                c->repl = d->repl;
        }
        if (!c->repl) c->repl = stmp_c(G, "Py_ssize_t", genc(G, c->elem->args[1 + c->axis]));
    }
}


/* One check per view and axis: the largest index the loop reaches
 * (last + offset) must be below the shape. */
static void emit_checks(Gen *G, CyVec *cks, const char *last, const IrExpr *stop) {
    for (int i = 0; i < cks->len; i++) {
        Checked *c = cks->items[i];
        IrVar *v = c->elem->args[0]->var;
        VRef r = view_ref(G, c->elem->args[0]);
        const char *shape = vr_shape(G, &r, c->axis);
        if (c->inv) {
            int first = 1;
            for (int j = 0; j < i; j++)
                if (((Checked *)cks->items[j])->repl == c->repl) first = 0;
            if (!first) continue;
            if (c->elem->wraparound && c->inv->ty->is_signed) out(G, "if (%s < 0) %s += %s;", c->repl, c->repl, shape);
            if (c->elem->boundscheck)
                out(G, "if (cyrt_unlikely((size_t)%s >= (size_t)%s)) { cyrt_err_bounds(%d); goto %s; }", c->repl, shape,
                    c->axis, errlbl(G));
            continue;
        }
        if (!c->elem->boundscheck) continue;
        int64_t off = c->off, dup = 0;
        for (int j = 0; j < cks->len; j++) {
            Checked *d = cks->items[j];
            if (d->inv || d->elem->args[0]->var != v || d->axis != c->axis || !d->elem->boundscheck) continue;
            if (d->off > off || (d->off == off && j < i)) dup = 1;
        }
        if (dup || (off <= 0 && is_shape_of(stop, v, c->axis))) continue;
        const char *hi = off ? FMT("%s + %" PRId64, cy_c_paren(G->a, last), off) : last;
        out(G, "if (cyrt_unlikely(%s >= %s)) { cyrt_err_bounds(%d); goto %s; }", hi, shape, c->axis, errlbl(G));
    }
}

/* Are there checks to emit (or only wraparound to skip)? */
static int checks_emit_code(CyVec *cks, const IrExpr *stop) {
    for (int i = 0; i < cks->len; i++) {
        Checked *c = cks->items[i];
        if (c->inv) return 1;
        if (c->elem->boundscheck && !(c->off <= 0 && is_shape_of(stop, c->elem->args[0]->var, c->axis))) return 1;
    }
    return 0;
}


/* Between the bounds and the header: the temporaries of the bounds
 * released, the bounds checks of the body's accesses hoisted (a loop from
 * a constant start by 1). */
static void tg_range_prepare(void *g, CyRange *r) {
    Gen *G = g;
    IrStmt *s = r->s;
    release_to(G, r->mark);
    r->mark = G->checked.len;
    int64_t a0;
    if (r->sconst && r->sv == 1 && cy_const_int(s->start, &a0) && a0 >= 0) {
        CyVec cks = {0};
        loop_checks(G, &s->body, s->var, a0, &cks);
        emit_invariants(G, &cks);
        if (checks_emit_code(&cks, s->stop)) {
            out(G, "if (%s > %s) {", r->b, r->a);
            G->e.ind++;
            emit_checks(G, &cks, FMT("%s - 1", cy_c_paren(G->a, r->b)), s->stop);
            G->e.ind--;
            out(G, "}");
        }
        for (int i = 0; i < cks.len; i++) cy_vec_push(G->a, &G->checked, cks.items[i]);
    }
}

static void gen_for_range(Gen *G, IrStmt *s, int mark) {
    CyTarget T = target(G);
    CyRange r = {.mark = mark};
    cy_lower_for_range(&G->e, &T, s, &r);
}

static void gen_for_iter(Gen *G, IrStmt *s) {
    Val seq = gen(G, s->value);
    const char *it = new_obj(G, FMT("PyObject_GetIter(%s)", seq.c));
    Frame *f = push_frame(G, FR_LOOP);
    if (s->orelse.len) f->brk_label = FMT("L_brk%d", ++G->nid);
    out(G, "for (;;) {");
    G->e.ind++;
    const char *nx = FMT("cy_s%d", ++G->nid);
    out(G, "PyObject *%s = PyIter_Next(%s);", nx, it);
    out(G, "if (!%s) {", nx);
    G->e.ind++;
    out(G, "if (PyErr_Occurred()) goto %s;", errlbl(G));
    out(G, "break;");
    G->e.ind--;
    out(G, "}");
    if (!is_obj(s->var->ty)) cy_error(G->d, s->pos, "internal error: Python loop over a C variable");
    out(G, "CYRT_XSETREF(%s, %s);", s->var->cname, nx);
    G->e.ind--;
    int n = G->assigned.len;
    mark_assigned(G, s->var);
    gen_block(G, &s->body);
    G->assigned.len = n;
    out(G, "}");
    pop_frame(G);
    gen_stmts(G, &s->orelse);
    G->assigned.len = n;
    if (f->brk_used) out(G, "%s: ;", f->brk_label);
}

static void gen_unpack(Gen *G, IrStmt *s) {
    Val seq = gen(G, s->value);
    const char **ptrs = cy_alloc(G->a, (size_t)(s->ntargets + 1) * sizeof(char *));
    const char **tmps = cy_alloc(G->a, (size_t)(s->ntargets + 1) * sizeof(char *));
    for (int i = 0; i < s->ntargets; i++) {
        IrExpr *t = s->targets[i];
        if (t->kind == E_VAR && is_obj(t->var->ty) && t->var->kind != V_PYGLOBAL) {
            ptrs[i] = FMT("&%s", t->var->cname);
        } else {
            tmps[i] = otmp(G);
            ptrs[i] = FMT("&%s", tmps[i]);
        }
    }
    goto_err_if(G, FMT("cyrt_unpack(%s, %d, (PyObject **const[]){%s}) < 0", seq.c, s->ntargets,
                       join(G, ptrs, s->ntargets, ", ")));
    for (int i = 0; i < s->ntargets; i++) {
        IrExpr *t = s->targets[i];
        if (!tmps[i]) {
            mark_assigned(G, t->var);
            continue;
        }
        /* the item is already an owned temporary: assign it as such */
        if (t->kind == E_VAR && is_obj(t->var->ty)) {
            assign_obj(G, t->var->cname, (Val){tmps[i], 1});
        } else if (t->kind == E_PYGLOBAL || (t->kind == E_VAR && t->var->kind == V_PYGLOBAL)) {
            goto_err_if(G, FMT("PyDict_SetItem(cyrt_mdict, %s, %s) < 0",
                               name_const(G, t->kind == E_VAR ? t->var->name : t->sval), tmps[i]));
        } else if (!is_obj(t->ty) && !is_view(t->ty)) {
            out(G, "%s = %s;", tg_lvalue(G, t), unbox(G, t->ty, tmps[i]));
        } else {
            cy_error(G->d, s->pos, "internal error: unsupported unpacking target");
        }
    }
}

static Frame *func_frame(Gen *G) {
    Frame *f = G->fr;
    while (f->up) f = f->up;
    return f;
}

static Frame *top_region(Gen *G) {
    Frame *r = NULL;
    for (Frame *f = G->fr; f; f = f->up)
        if (f->kind == FR_REGION) r = f;
    return r;
}

/* cy_r = value, then leave the function through L_end. */
static void emit_return(Gen *G, IrExpr *v, const char *cval) {
    if (v) {
        if (is_obj(G->ret)) {
            Val r = gen(G, v);
            if (G->in_finally) {
                /* it replaces the value of a return the finally clause runs for */
                if (!r.owned) out(G, "Py_INCREF(%s);", r.c);
                out(G, "CYRT_XSETREF(cy_r, %s);", r.c);
                if (r.owned) out(G, "%s = NULL;", r.c);
            } else {
                out(G, "cy_r = %s;", r.c);
                out(G, r.owned ? "%s = NULL;" : "Py_INCREF(%s);", r.owned ? r.c : "cy_r");
            }
        } else if (is_view(G->ret)) {
            Val r = gen_view(G, v);
            out(G, r.owned ? "cyrt_view_move(&cy_r, &%s);" : "cyrt_view_copy(&cy_r, &%s);", r.c);
        } else if (G->ret->kind != TY_VOID) {
            const char *c = genc(G, v);
            out(G, "cy_r = %s;", c);
        } else {
            Val r = gen(G, v);
            if (*r.c && !cy_c_simple(r.c)) out(G, "(void)%s;", r.c);
        }
    } else if (cval) {
        out(G, "cy_r = %s;", cval);
    }
    exit_to(G, func_frame(G));
    out(G, "goto L_end;");
    G->end_used = 1;
}

static void gen_return(Gen *G, IrStmt *s) {
    Frame *rf = region_frame(G);
    if (!rf) {
        emit_return(G, s->value, NULL);
        return;
    }
    /* inside a parallel region: the first thread to return records its
       value; the master thread returns it after the region */
    Frame *top = top_region(G);
    top->need_par = rf->need_par = 1;
    if (s->value && G->ret->kind != TY_VOID) {
        const char *c = genc(G, s->value);
        if (!top->ret_slot) top->ret_slot = FMT("cy_rv%d", top->region->id);
        out(G, "if (cyrt_par_set(&%s, 2)) %s = %s;", top->par, top->ret_slot, c);
    } else {
        out(G, "(void)cyrt_par_set(&%s, 2);", top->par);
    }
    exit_to(G, rf);
    rf->next_used = 1;
    out(G, "goto %s;", rf->next_label);
}

static void gen_break_continue(Gen *G, IrStmt *s) {
    Frame *t = G->fr;
    while (t && t->kind != FR_LOOP && t->kind != FR_REGION) t = t->up;
    if (!t) return;
    exit_to(G, t);
    if (t->kind == FR_LOOP) {
        if (s->kind == ST_CONTINUE) {
            out(G, "continue;");
        } else if (t->brk_label) {
            t->brk_used = 1;
            out(G, "goto %s;", t->brk_label);
        } else {
            out(G, "break;");
        }
        return;
    }
    if (!t->is_prange) return;
    if (s->kind == ST_BREAK) {
        Frame *top = top_region(G);
        top->need_par = t->need_par = 1;
        if (t == top && t->lastp.len) {
            /* OpenMP's lastprivate copy would come from the sequentially
               last iteration, which a break skips: the breaking thread
               keeps its values, as Cython does */
            t->broke = 1;
            out(G, "if (cyrt_par_set(&%s, 1)) {", t->par);
            G->e.ind++;
            for (int i = 0; i < t->lastp.len; i++) {
                IrVar *v = t->lastp.items[i];
                if (v->ty->kind == TY_ARRAY)
                    out(G, "memcpy(cy_lp%d_%s, %s, sizeof %s);", t->region->id, v->cname, v->cname, v->cname);
                else
                    out(G, "cy_lp%d_%s = %s;", t->region->id, v->cname, v->cname);
            }
            G->e.ind--;
            out(G, "}");
        } else {
            out(G, "(void)cyrt_par_set(&%s, 1);", t->par);
        }
    }
    t->next_used = 1;
    out(G, "goto %s;", t->next_label);
}

/* The finally statements of try frame f, as code of the frame outside it. */
static void gen_finally(Gen *G, Frame *f) {
    Frame *saved = G->fr;
    int gil = G->gil;
    G->fr = f->up;
    G->gil = f->gil_at;
    G->in_finally++;
    gen_stmts(G, f->finally);
    G->in_finally--;
    G->fr = saved;
    G->gil = gil;
}

/* Code that needs the GIL, where the try statement may be without it. */
static const char *gil_wrap(Gen *G, int gil, const char *code) {
    return gil == 1 ? code : FMT("{ PyGILState_STATE cy_g = PyGILState_Ensure(); %s PyGILState_Release(cy_g); }", code);
}

/* try/finally: the finally statements follow the body, and run before a
 * return, break or continue leaves it (exit_to).  On an exception they run
 * with it saved, which is restored and propagated after them, or dropped
 * if they leave by a jump themselves, as in Python. */
static void gen_try(Gen *G, IrStmt *s) {
    int id = ++G->nid;
    int gil = G->gil;
    out(G, "{");
    G->e.ind++;
    Frame *f = push_frame(G, FR_TRY);
    f->err_label = FMT("L_try%d_error", id);
    f->finally = &s->orelse;
    f->track = 1;
    f->gil_at = gil;
    f->scope = G->scope;
    int n_assigned = G->assigned.len;
    gen_stmts(G, &s->body);
    pop_frame(G);
    G->in_finally++;
    gen_stmts(G, &s->orelse);
    G->in_finally--;
    if (f->err_used) {
        /* the body may have stopped before any of its assignments */
        G->assigned.len = n_assigned;
        const char *et = FMT("cy_et%d", id), *ev = FMT("cy_ev%d", id), *etb = FMT("cy_etb%d", id);
        out(G, "if (0) {");
        out(G, "%s:;", f->err_label);
        G->e.ind++;
        out(G, "PyObject *%s = NULL, *%s = NULL, *%s = NULL;", et, ev, etb);
        for (int i = 0; i < f->temps.len; i++) clear_temp(G, f->temps.items[i]);
        out(G, "%s", gil_wrap(G, gil, FMT("PyErr_Fetch(&%s, &%s, &%s);", et, ev, etb)));
        Frame *g = push_frame(G, FR_TRY);
        g->err_label = FMT("L_try%d_ferror", id);
        g->exit_code = gil_wrap(G, gil, FMT("Py_XDECREF(%s); Py_XDECREF(%s); Py_XDECREF(%s);", et, ev, etb));
        G->in_finally++;
        gen_stmts(G, &s->orelse);
        G->in_finally--;
        pop_frame(G);
        out(G, "%s", gil_wrap(G, gil, FMT("PyErr_Restore(%s, %s, %s);", et, ev, etb)));
        out(G, "goto %s;", errlbl(G));
        if (g->err_used) {
            out(G, "%s:", g->err_label);
            out(G, "%s", g->exit_code);
            out(G, "goto %s;", errlbl(G));
        }
        G->e.ind--;
        out(G, "}");
    }
    G->e.ind--;
    out(G, "}");
}

/* try/except[/else]: an exception in the body is fetched and matched
 * against each handler's type in turn (evaluated then, as Python does);
 * the matching handler runs with it as the handled exception
 * (sys.exc_info(), a bare raise), which is restored on every way out of
 * the handler, as is the 'as' target deleted.  None matching: re-raised. */
static const char *del_target(Gen *G, IrExpr *t) {
    if (!t) return "";
    if (t->kind == E_VAR && t->var->kind == V_LOCAL) return FMT(" Py_CLEAR(%s);", t->var->cname);
    const char *name = t->kind == E_VAR ? t->var->name : t->sval;
    return FMT(" cyrt_del_global(%s);", name_const(G, name));
}

/* del: the errors of Cython's code for what is not there (UnboundLocalError;
 * for a module global, which Cython deletes as a module attribute, its
 * AttributeError; the object's own KeyError/AttributeError). */
static void gen_del(Gen *G, IrExpr *t) {
    if (t->kind == E_VAR && t->var->kind == V_LOCAL) {
        IrVar *x = t->var;
        if (!is_assigned_here(G, x))
            out(G, "if (cyrt_unlikely(!%s)) { cyrt_err_unbound(%s); goto %s; }", x->cname, c_strz(G, x->name),
                errlbl(G));
        out(G, "Py_CLEAR(%s);", x->cname);
    } else if (t->kind == E_VAR || t->kind == E_PYGLOBAL) {
        const char *k = name_const(G, t->kind == E_VAR ? t->var->name : t->sval);
        out(G, "if (cyrt_unlikely(PyDict_DelItem(cyrt_mdict, %s) < 0)) {", k);
        out(G, "    if (PyErr_ExceptionMatches(PyExc_KeyError)) {");
        out(G, "        PyErr_Clear();");
        out(G, "        PyErr_Format(PyExc_AttributeError, \"'module' object has no attribute '%%U'\", %s);", k);
        out(G, "    }");
        out(G, "    goto %s;", errlbl(G));
        out(G, "}");
    } else if (t->kind == E_OBJ_INDEX) {
        Val o = gen(G, t->args[0]), k = gen(G, t->args[1]);
        goto_err_if(G, FMT("PyObject_DelItem(%s, %s) < 0", o.c, k.c));
    } else {
        Val o = gen(G, t->args[0]);
        goto_err_if(G, FMT("PyObject_SetAttr(%s, %s, NULL) < 0", o.c, name_const(G, t->sval)));
    }
}

static void gen_try_except(Gen *G, IrStmt *s) {
    int id = ++G->nid;
    int n_assigned = G->assigned.len;
    IrStmt *els = s->orelse.len ? s->orelse.items[s->orelse.len - 1] : NULL;
    int nh = s->orelse.len - (els && els->kind == ST_BLOCK);
    if (els && els->kind != ST_BLOCK) els = NULL;
    out(G, "{");
    G->e.ind++;
    Frame *f = push_frame(G, FR_TRY);
    f->err_label = FMT("L_try%d_error", id);
    f->track = 1;
    f->scope = G->scope;
    gen_stmts(G, &s->body);
    pop_frame(G);
    if (els) gen_stmts(G, &els->body);
    G->assigned.len = n_assigned;
    if (f->err_used) {
        const char *et = FMT("cy_et%d", id), *ev = FMT("cy_ev%d", id), *etb = FMT("cy_etb%d", id);
        const char *hn = FMT("cy_h%d", id), *sv = FMT("cy_sv%d", id);
        const char *drop = FMT("Py_XDECREF(%s); Py_XDECREF(%s); Py_XDECREF(%s);", et, ev, etb);
        out(G, "if (0) {");
        out(G, "%s:;", f->err_label);
        G->e.ind++;
        out(G, "PyObject *%s = NULL, *%s = NULL, *%s = NULL;", et, ev, etb);
        out(G, "int %s = 0;", hn);
        for (int i = 0; i < f->temps.len; i++) clear_temp(G, f->temps.items[i]);
        out(G, "PyErr_Fetch(&%s, &%s, &%s);", et, ev, etb);
        Frame *m = push_frame(G, FR_TRY);
        m->err_label = FMT("L_try%d_merror", id);
        m->exit_code = drop;
        for (int i = 0; i < nh; i++) {
            IrStmt *h = s->orelse.items[i];
            if (!h->value) {
                out(G, "if (!%s) %s = %d;", hn, hn, i + 1);
                continue;
            }
            out(G, "if (!%s) {", hn);
            G->e.ind++;
            int mark = G->live.len;
            Val t = gen(G, h->value);
            out(G, "if (PyErr_GivenExceptionMatches(%s, %s)) %s = %d;", et, t.c, hn, i + 1);
            release_to(G, mark);
            G->e.ind--;
            out(G, "}");
        }
        pop_frame(G);
        out(G, "if (!%s) {", hn);
        out(G, "    PyErr_Restore(%s, %s, %s);", et, ev, etb);
        out(G, "    goto %s;", errlbl(G));
        out(G, "}");
        out(G, "PyErr_NormalizeException(&%s, &%s, &%s);", et, ev, etb);
        out(G, "if (%s && %s) PyException_SetTraceback(%s, %s);", ev, etb, ev, etb);
        out(G, "PyObject *%s_t, *%s_v, *%s_tb;", sv, sv, sv);
        out(G, "PyErr_GetExcInfo(&%s_t, &%s_v, &%s_tb);", sv, sv, sv);
        out(G, "Py_XINCREF(%s); Py_XINCREF(%s); Py_XINCREF(%s);", et, ev, etb);
        out(G, "PyErr_SetExcInfo(%s, %s, %s);", et, ev, etb);
        const char *restore = FMT("PyErr_SetExcInfo(%s_t, %s_v, %s_tb); %s", sv, sv, sv, drop);
        for (int i = 0; i < nh; i++) {
            IrStmt *h = s->orelse.items[i];
            out(G, "%sif (%s == %d) {", i ? "} else " : "", hn, i + 1);
            G->e.ind++;
            Frame *g = push_frame(G, FR_TRY);
            g->err_label = FMT("L_try%d_h%d_error", id, i + 1);
            g->exit_code = FMT("%s%s", restore, del_target(G, h->target));
            if (h->target) out(G, "PyObject *cy_caught = %s ? %s : Py_None;", ev, ev);
            gen_stmts(G, &h->body);
            pop_frame(G);
            G->assigned.len = n_assigned;
            if (h->target && h->target->kind == E_VAR) {
                /* deleted: unbound from here on, whatever was bound before */
                int k = 0;
                for (int j = 0; j < G->assigned.len; j++)
                    if (G->assigned.items[j] != h->target->var) G->assigned.items[k++] = G->assigned.items[j];
                G->assigned.len = n_assigned = k;
            }
            out(G, "%s", g->exit_code);
            if (g->err_used) {
                out(G, "if (0) {");
                out(G, "%s:", g->err_label);
                out(G, "    %s", g->exit_code);
                out(G, "    goto %s;", errlbl(G));
                out(G, "}");
            }
            G->e.ind--;
        }
        out(G, "}");
        if (m->err_used) {
            out(G, "if (0) {");
            out(G, "%s:", m->err_label);
            out(G, "    %s", drop);
            out(G, "    goto %s;", errlbl(G));
            out(G, "}");
        }
        G->e.ind--;
        out(G, "}");
    }
    G->e.ind--;
    out(G, "}");
}

/* with nogil: inside a function holding the GIL */
static void gen_nogil(Gen *G, IrStmt *s) {
    if (G->gil != 1) {
        gen_stmts(G, &s->body);
        return;
    }
    int id = ++G->nid;
    out(G, "{");
    G->e.ind++;
    out(G, "PyThreadState *cy_ts%d = PyEval_SaveThread();", id);
    Frame *f = push_frame(G, FR_NOGIL);
    f->err_label = FMT("L_nogil%d_error", id);
    f->exit_code = FMT("PyEval_RestoreThread(cy_ts%d);", id);
    G->gil = 0;
    gen_stmts(G, &s->body);
    G->gil = 1;
    pop_frame(G);
    out(G, "PyEval_RestoreThread(cy_ts%d);", id);
    if (f->err_used) {
        out(G, "if (0) {");
        out(G, "%s:", f->err_label);
        G->e.ind++;
        out(G, "PyEval_RestoreThread(cy_ts%d);", id);
        out(G, "goto %s;", errlbl(G));
        G->e.ind--;
        out(G, "}");
    }
    G->e.ind--;
    out(G, "}");
}

/* with gil: its own temporaries (it may run in several threads at once) */
static void gen_gil(Gen *G, IrStmt *s) {
    int id = ++G->nid;
    TScope sc = {0}, *saved = G->scope;
    int saved_gil = G->gil;
    out(G, "{");
    G->e.ind++;
    out(G, "PyGILState_STATE cy_gs%d = PyGILState_Ensure();", id);
    Frame *f = push_frame(G, FR_GIL);
    f->err_label = FMT("L_gil%d_error", id);
    f->exit_code = FMT("PyGILState_Release(cy_gs%d);", id);
    G->scope = &sc;
    G->gil = 1;
    Cap cap;
    cap_begin(G, &cap, G->e.ind);
    gen_stmts(G, &s->body);
    const char *body = cap_end(G, &cap);
    G->gil = saved_gil;
    pop_frame(G);
    scope_decls(G, &sc);
    put(G, body);
    out(G, "PyGILState_Release(cy_gs%d);", id);
    if (f->err_used) {
        out(G, "if (0) {");
        out(G, "%s:", f->err_label);
        G->e.ind++;
        scope_cleanup(G, &sc);
        out(G, "PyGILState_Release(cy_gs%d);", id);
        G->scope = saved;
        out(G, "goto %s;", errlbl(G));
        G->e.ind--;
        out(G, "}");
    }
    G->scope = saved;
    G->e.ind--;
    out(G, "}");
}

/* ---- parallel regions --------------------------------------------------------- */


static const IrVarUse *var_use(const IrRegion *r, const IrVar *v) {
    for (int i = 0; i < r->vars.len; i++) {
        const IrVarUse *u = r->vars.items[i];
        if (u->var == v) return u;
    }
    return NULL;
}

static int is_cscalar(const CyType *t) {
    return t->kind != TY_VOID && t->kind != TY_VIEW && t->kind != TY_OBJECT && t->kind != TY_FUNC;
}

typedef struct {
    CyVec priv, lastp, red, fpriv; /* const char* */
} Clauses;

static void clause_add(Gen *G, CyVec *v, const char *s) {
    for (int i = 0; i < v->len; i++)
        if (!strcmp(v->items[i], s)) return;
    cy_vec_push(G->a, v, (void *)s);
}

static const char *clause(Gen *G, const char *kind, CyVec *v) {
    if (!v->len) return "";
    if (strcmp(kind, "reduction")) return FMT(" %s(%s)", kind, join(G, (const char **)v->items, v->len, ", "));
    /* one reduction clause per "op:var": operators differ between variables */
    CyBuf b = {0};
    for (int i = 0; i < v->len; i++) cy_buf_printf(&b, " reduction(%s)", (const char *)v->items[i]);
    const char *r = cy_strndup(G->a, b.s, b.len);
    cy_buf_free(&b);
    return r;
}

/* OpenMP data-sharing clauses.  Sema's classes decide private, lastprivate
 * and reduction; read-only scalars become firstprivate (thread-local copies
 * the compiler can keep in registers); a nested prange leaves alone what
 * its enclosing parallel block already made private. */
static void region_clauses(Gen *G, IrRegion *R, Scan *sc, Frame *parent, Clauses *c, CyVec *privs) {
    int prange = R->is_prange, nested = parent != NULL;
    CyVec nested_red = {0};
    for (int i = 0; i < sc->nested.len; i++) {
        IrRegion *n = sc->nested.items[i];
        for (int j = 0; j < n->vars.len; j++) {
            IrVarUse *u = n->vars.items[j];
            if (u->cls == RC_REDUCTION) vec_add(G, &nested_red, u->var);
        }
    }
    if (R->index) clause_add(G, &c->priv, R->index->cname);
    for (int i = 0; i < sc->used.len; i++) {
        IrVar *v = sc->used.items[i];
        /* module-level cdef variables are classified like locals (Cython
           3.3: an in-place operator makes a reduction, an assignment a
           lastprivate); OpenMP takes clauses on file-scope statics */
        if (v == R->index || v->kind == V_PYGLOBAL || !is_cscalar(v->ty)) continue;
        const IrVarUse *u = var_use(R, v);
        int assigned = vec_has(&sc->assigned, v);
        int pp = nested && vec_has(&parent->privs, v);
        VarClass cls = u ? u->cls : assigned ? (prange ? RC_LASTPRIVATE : RC_PRIVATE) : RC_SHARED;
        if (!prange && cls != RC_REDUCTION && vec_has(&nested_red, v)) cls = RC_SHARED;
        if (cls == RC_PRIVATE || (cls == RC_LASTPRIVATE && !pp)) vec_add(G, privs, v);
        switch (cls) {
        case RC_PRIVATE: clause_add(G, &c->priv, v->cname); break;
        case RC_LASTPRIVATE:
            if (pp) break;
            clause_add(G, prange ? &c->lastp : &c->priv, v->cname);
            break;
        case RC_REDUCTION:
            if (pp) break;
            clause_add(G, &c->red, FMT("%s:%s", cy_op_name(u && u->redop ? u->redop : OP_ADD), v->cname));
            break;
        case RC_FIRSTPRIVATE: clause_add(G, &c->fpriv, v->cname); break;
        case RC_SHARED:
            /* an array stays shared: its elements may be written (Cython
               shares it), and copying it per thread gains nothing */
            if (!assigned && !nested && v->kind != V_MODULE && v->ty->kind != TY_ARRAY)
                clause_add(G, &c->fpriv, v->cname);
            break;
        }
    }
}

static const char *sched_clause(Gen *G, IrRegion *R, const char *chunk) {
    static const char *const names[] = {"", "static", "dynamic", "guided", "runtime"};
    if (R->schedule == SCHED_DEFAULT) return "";
    if (chunk && R->schedule != SCHED_RUNTIME) return FMT(" schedule(%s, %s)", names[R->schedule], chunk);
    return FMT(" schedule(%s)", names[R->schedule]);
}

/* The `omp for` of a prange, plain or blocked.  Lastprivates are
 * firstprivate too, as Cython declares them: a thread whose iterations
 * leave one unassigned hands on the value from before the loop, not an
 * uninitialised copy.  A prange of its own (not inside a parallel block)
 * ends its team right after the loop, whose barrier the loop's would only
 * repeat: `nowait`, as Cython emits it (the lastprivates and reductions are
 * complete at the team's end all the same).  Every call of a small prange
 * paid for that second barrier: a microsecond and more on 16 cores. */
static void emit_omp_for_pragma(Gen *G, IrRegion *R, const char *chunk, Clauses *cl, int nowait, const char *sched) {
    out(G, "#pragma omp for%s%s%s%s%s%s", nowait ? " nowait" : "", sched ? sched : sched_clause(G, R, chunk),
        clause(G, "private", &cl->priv), clause(G, "firstprivate", &cl->lastp), clause(G, "lastprivate", &cl->lastp),
        clause(G, "reduction", &cl->red));
}

/* The work-sharing loop of a prange: one iteration per cy_it, the index
 * assigned at the top; `par` (or NULL) is the stop flag of break/return/errors. */
static void emit_omp_for(Gen *G, IrRegion *R, const char *chunk, Clauses *cl, int id, const char *n,
                         const char *par, const char *idx, const char *body, int nowait) {
    emit_omp_for_pragma(G, R, chunk, cl, nowait, NULL);
    out(G, "for (Py_ssize_t cy_it%d = 0; cy_it%d < %s; cy_it%d++) {", id, id, n, id);
    G->e.ind++;
    if (par) out(G, "if (cyrt_par_stopped(&%s)) continue;", par);
    out(G, "%s = %s;", R->index->cname, idx);
    put(G, body);
    G->e.ind--;
    out(G, "}");
}

/* The work-sharing loop of a prange with the native blocked schedule:
 * units of mc rows (blocked) while cy_blk<id>, then one unit per row left
 * (the plain body), the last row always among them. */
static void emit_omp_for_blocked(Gen *G, IrRegion *R, const char *chunk, Clauses *cl, const char *n,
                                 const char *par, const char *idx, const char *body, const char *blocked) {
    int id = R->id, mc = R->plan_native->mc, mr = R->plan_native->mr;
    out(G, "const Py_ssize_t cy_rb%d = cy_blk%d ? %s - 1 : 0;", id, id, n);
    /* blocks of mc rows would leave most of the team idle on a few hundred
       rows (100 rows: 4 blocks for 16 threads), so a block is a thread's
       share of the rows, rounded up to the register tile, at most mc */
    out(G, "Py_ssize_t cy_mb%d = (cy_rb%d + omp_get_num_threads() - 1) / omp_get_num_threads();", id, id);
    out(G, "cy_mb%d = cy_mb%d > %d ? %d : cy_mb%d > %d ? (cy_mb%d + %d) / %d * %d : cy_mb%d < 1 ? 1 : cy_mb%d;", id, id,
        mc, mc, id, mr, id, mr - 1, mr, mr, id, id);
    out(G, "const Py_ssize_t cy_nb%d = (cy_rb%d + cy_mb%d - 1) / cy_mb%d;", id, id, id, id);
    /* the units dealt out one at a time unless the prange names a schedule:
       the default (static) schedule gives the first thread two blocks
       wherever the row left over makes the units one more than the team
       (316 rows on 16 threads: 16 blocks of 20 rows and the last row, so
       one thread did 40 rows while the others did 20; matmul_f32 316^2 was
       0.7x Cython's speed on the H100's Xeon); round robin hands that
       thread the last row instead */
    emit_omp_for_pragma(G, R, chunk, cl, 1, R->schedule == SCHED_DEFAULT ? " schedule(static, 1)" : NULL);
    out(G, "for (Py_ssize_t cy_u%d = 0; cy_u%d < cy_nb%d + (%s - cy_rb%d); cy_u%d++) {", id, id, id, n, id, id);
    G->e.ind++;
    if (par) out(G, "if (cyrt_par_stopped(&%s)) continue;", par);
    out(G, "if (cy_u%d < cy_nb%d) {", id, id);
    G->e.ind++;
    out(G, "const Py_ssize_t cy_r0 = cy_u%d * cy_mb%d, cy_r1 = cy_rb%d - cy_r0 > cy_mb%d ? cy_r0 + cy_mb%d : cy_rb%d;", id,
        id, id, id, id, id);
    put(G, blocked);
    out(G, "continue;");
    G->e.ind--;
    out(G, "}");
    out(G, "const Py_ssize_t cy_it%d = cy_rb%d + (cy_u%d - cy_nb%d);", id, id, id, id);
    out(G, "%s = %s;", R->index->cname, idx);
    put(G, body);
    G->e.ind--;
    out(G, "}");
}

static void emit_hoists(Gen *G, Frame *f) {
    for (int i = 0; i < f->hoists.len; i++) {
        Hoist *h = f->hoists.items[i];
        const CyType *vt = h->var->ty;
        const char *v = h->var->cname;
        if (h->used_d) out(G, "char *const %s_d = %s.data;", h->pfx, v);
        if (h->used_p) out(G, "%s *const %s_p = (%s *)%s.data;", elem_ctype(G, vt), h->pfx, elem_ctype(G, vt), v);
        for (int k = 0; k < vt->ndim; k++) {
            if (h->used_s[k]) out(G, "const Py_ssize_t %s_s%d = %s.strides[%d];", h->pfx, k, v, k);
            if (h->used_n[k]) out(G, "const Py_ssize_t %s_n%d = %s.shape[%d];", h->pfx, k, v, k);
        }
    }
}

static int is_zero_lit(const IrExpr *e) {
    int64_t v;
    return !e || (cy_const_int(e, &v) && v == 0);
}

/* The sum, over the loops of R->work_loops whose parent is `parent`, of
 * trip count * (1 + the same over the loops inside it), NULL for none:
 * one iteration's work, less 1, as the loops the host can count
 * (ir/nest.c). */
static const char *work_expr(Gen *G, const IrRegion *R, intptr_t parent) {
    const char *e = NULL;
    for (int k = 0; k < R->work_loops.len; k++) {
        if ((intptr_t)R->work_parent.items[k] != parent) continue;
        IrStmt *L = R->work_loops.items[k];
        int64_t js = 1, s0 = -1;
        if (L->step) cy_const_int(L->step, &js);
        int start0 = cy_const_int(L->start, &s0) && s0 == 0;
        const char *a = FMT("(long long)%s", cy_c_paren(G->a, genc(G, L->start)));
        const char *b = FMT("(long long)%s", cy_c_paren(G->a, genc(G, L->stop)));
        const char *t = FMT("(double)(%s)", cy_trip_count(G->a, a, b, a, b, js, NULL, start0, "LL", "0"));
        const char *in = work_expr(G, R, k);
        if (in) t = FMT("%s * (1.0 + %s)", t, in);
        e = e ? FMT("%s + %s", e, t) : t;
    }
    return e;
}

/* CYOCL_FORCE=opencl: hands an eligible top-level prange to the cyocl
 * runtime (prelude: cyrt_ocl_launch; kernel ABI: backends/opencl/oclgen.h)
 * before its native code; a region the device ran jumps to L_ocl<id>_done.
 * Returns 1 when it emitted the dispatch. */
static int gen_ocl_dispatch(Gen *G, IrStmt *s, const char *start, const char *step, const char *n, const char *T,
                            const char *uti) {
    IrRegion *R = s->region;
    const CyCOptions *o = G->opt;
    int id = R->id;
    if (!o->opencl || !o->opencl_source || !*o->opencl_source || !R->ocl_ok || !R->is_prange || s->orelse.len)
        return 0;
    int na = R->args.len;
    /* outside the if: the native path's trace line gives the runtime's reason */
    out(G, "cyrt_ocl_launch cy_ol%d;", id);
    out(G, "cy_ol%d.reason[0] = 0; cy_ol%d.dslot = NULL; cy_ol%d.pred_native = cy_ol%d.pred_opencl = -1; cy_ol%d.team = 0;",
        id, id, id, id, id);
    out(G, "cy_ol%d.chunk_ns = 0; cy_ol%d.work = 0; cy_ol%d.hot = 0;", id, id, id);
    /* without CYOCL_FORCE the runtime's dispatcher decides (its record of
       the region is kept in a static of the module) */
    out(G, "static void *cy_ds%d;", id);
    /* the runtime's launch state of the region (device, program, kernel) */
    out(G, "static void *cy_ls%d;", id);
    /* use_threads_if false: the iterations run in order on one thread, natively */
    out(G, "if (cyrt_force != 1 && cyrt_ocl%s) {", uti ? FMT(" && %s", uti) : "");
    G->e.ind++;
    out(G, "cyrt_ocl_arg cy_oa%d[%d];", id, na ? na : 1);
    out(G, "memset(cy_oa%d, 0, sizeof cy_oa%d);", id, id);
    for (int i = 0; i < na; i++) {
        IrRegionArg *a = R->args.items[i];
        IrVar *v = a->var;
        const CyType *t = a->kind == RA_VIEW ? v->ty->base : v->ty;
        char tk = cy_type_is_complex(t) ? 'c' : t->kind == TY_FLOAT || t->kind == TY_DOUBLE ? 'f'
                  : (t->kind == TY_UCHAR || t->kind == TY_USHORT || t->kind == TY_UINT || t->kind == TY_ULONG ||
                     t->kind == TY_ULLONG || t->kind == TY_SIZE)
                      ? 'u'
                      : 'i';
        const char *e = FMT("cy_oa%d[%d]", id, i);
        switch (a->kind) {
        case RA_VIEW:
            out(G, "%s.kind = 0; %s.tkind = '%c'; %s.size = (int)sizeof(%s); %s.read = %d; %s.written = %d;", e, e, tk, e,
                cty(G, t), e, a->read, e, a->written);
            out(G, "%s.ptr = %s.data; %s.ndim = %d;", e, v->cname, e, v->ty->ndim);
            for (int k = 0; k < v->ty->ndim; k++)
                out(G, "%s.shape[%d] = %s.shape[%d]; %s.strides[%d] = %s.strides[%d];", e, k, v->cname, k, e, k, v->cname, k);
            if (a->covers) out(G, "%s.covers = %d;", e, a->covers);
            break;
        case RA_SCALAR:
            out(G, "%s.kind = 1; %s.tkind = '%c'; %s.size = (int)sizeof(%s); %s.ptr = (void *)&%s;", e, e, tk, e, v->cname, e,
                v->cname);
            break;
        case RA_REDUCTION:
            out(G, "%s.kind = 2; %s.tkind = '%c'; %s.op = '%c'; %s.size = (int)sizeof(%s); %s.ptr = (void *)&%s;", e, e, tk,
                e, cy_op_name(a->redop ? a->redop : OP_ADD)[0], e, v->cname, e, v->cname);
            break;
        case RA_LASTPRIVATE:
            out(G, "%s.kind = 3; %s.tkind = '%c'; %s.size = (int)sizeof(%s); %s.ptr = (void *)&%s;", e, e, tk, e, v->cname, e,
                v->cname);
            break;
        }
    }
    out(G, "memset(&cy_ol%d, 0, sizeof cy_ol%d);", id, id);
    out(G, "cy_ol%d.pred_native = cy_ol%d.pred_opencl = -1;", id, id);
    out(G, "cy_ol%d.version = CYRT_OCL_API_VERSION; cy_ol%d.module = cyrt_modname; cy_ol%d.function = %s;", id, id, id,
        c_strz(G, R->func ? R->func->name : "<module>"));
    out(G, "cy_ol%d.source = cy_ocl_source; cy_ol%d.kernel = \"cyk_%d\"; cy_ol%d.line = %d; cy_ol%d.region = %d;", id, id,
        id, id, R->pos.line, id, id);
    out(G, "cy_ol%d.has_break = %d; cy_ol%d.uses_fp64 = %d;", id, R->has_break, id, R->uses_fp64);
    out(G, "cy_ol%d.start = (long long)%s; cy_ol%d.step = (long long)%s; cy_ol%d.n = (long long)%s;", id, start, id, step,
        id, n);
    out(G, "cy_ol%d.nargs = %d; cy_ol%d.args = cy_oa%d;", id, na, id, id);
    if (R->collapse) {
        /* the kernel's own count (oclgen.c), so that the launch has a
           work-item per (i, j) pair rather than per i */
        IrStmt *L = R->collapse;
        int64_t js = 1;
        if (L->step) cy_const_int(L->step, &js);
        const char *a = FMT("(long long)%s", cy_c_paren(G->a, genc(G, L->start)));
        const char *b = FMT("(long long)%s", cy_c_paren(G->a, genc(G, L->stop)));
        const char *m = cy_trip_count(G->a, a, b, a, b, js, NULL, 0, "LL", "0");
        out(G, "cy_ol%d.inner = %s;", id, m);
        int np = R->collapse_pairs.len / 2;
        if (np) {
            /* the views whose overlap makes the collapse inexact (ir/nest.c) */
            CyBuf b = {0};
            for (int i = 0; i < 2 * np; i++)
                cy_buf_printf(&b, "%s%d", i ? ", " : "", (int)(intptr_t)R->collapse_pairs.items[i]);
            out(G, "static const int cy_op%d[%d] = {%s};", id, 2 * np, b.s);
            cy_buf_free(&b);
            out(G, "cy_ol%d.kernel_serial = \"cyk_%d_serial\"; cy_ol%d.npairs = %d; cy_ol%d.pairs = cy_op%d;", id, id, id,
                np, id, id);
        }
        const IrPlan *P = R->plan_gpu;
        if (P && P->kind == PLAN_TILE2D)
            out(G, "cy_ol%d.kernel_tiled = \"cyk_%d_tiled\"; cy_ol%d.tile_local[0] = %d; cy_ol%d.tile_local[1] = %d; "
                   "cy_ol%d.tile_elems[0] = %d; cy_ol%d.tile_elems[1] = %d;",
                id, id, id, P->local[0], id, P->local[1], id, P->local[0] * P->reg[0], id, P->local[1] * P->reg[1]);
        if (P && P->kind == PLAN_TILE2D && P->small)
            out(G, "cy_ol%d.kernel_tiled_small = \"cyk_%d_tiled_small\"; cy_ol%d.small_local[0] = %d; "
                   "cy_ol%d.small_local[1] = %d; cy_ol%d.small_elems[0] = %d; cy_ol%d.small_elems[1] = %d;",
                id, id, id, P->small->local[0], id, P->small->local[1], id, P->small->local[0] * P->small->reg[0], id,
                P->small->local[1] * P->small->reg[1]);
    }
    if (R->work_loops.len) {
        /* the dispatcher's size of the call (ir/nest.c: n times one
           iteration's work as the loops the host can count), in double:
           the products may pass a long long */
        const char *w = work_expr(G, R, -1);
        out(G, "{ double cy_w = (double)cy_ol%d.n * (1.0 + %s); cy_ol%d.work = cy_w < 9e18 ? (long long)cy_w : "
               "9000000000000000000LL; }",
            id, w, id);
    }
    if (o->no_opencl_gpu) out(G, "cy_ol%d.cpu_only = 1;", id);
    if (R->ocl_quiet) out(G, "cy_ol%d.quiet = 1;", id);
    if (!R->num_threads) out(G, "cy_ol%d.team_ok = 1;", id);
    out(G, "cy_ol%d.lslot = &cy_ls%d; cy_ol%d.kernel_time = cyrt_trace_fd >= 0;", id, id, id);
    out(G, "if (cyrt_force != 2) cy_ol%d.dslot = &cy_ds%d;", id, id);
    out(G, "if (cyrt_force == 2 || cyrt_ocl->decide(&cy_ol%d)) {", id);
    G->e.ind++;
    out(G, "long long cy_oc%d = cyrt_trace_fd >= 0 ? cyrt_now_ns() : 0;", id);
    out(G, "int cy_orc%d = cyrt_ocl->run_region(&cy_ol%d);", id, id);
    /* a kernel that raised ran on the device: its line says so */
    out(G, "if (cy_orc%d < 0) {", id);
    G->e.ind++;
    out(G, "if (cyrt_trace_fd >= 0 && cy_ol%d.device[0] && !cy_ol%d.failure) cyrt_trace_ocl(&cy_ri%d, &cy_ol%d, cyrt_now_ns() - cy_oc%d);", id,
        id, id, id, id);
    out(G, "goto %s;", errlbl(G));
    G->e.ind--;
    out(G, "}");
    out(G, "if (cy_orc%d == 0) {", id);
    G->e.ind++;
    out(G, "if (cyrt_trace_fd >= 0) cyrt_trace_ocl(&cy_ri%d, &cy_ol%d, cyrt_now_ns() - cy_oc%d);", id, id, id);
    out(G, "if (cy_ol%d.break_it >= 0) %s = (%s)(cy_ol%d.start + cy_ol%d.break_it * cy_ol%d.step);", id,
        R->index->cname, T, id, id, id);
    out(G, "else if (cy_ol%d.n > 0) %s = (%s)(cy_ol%d.start + (cy_ol%d.n - 1) * cy_ol%d.step);", id, R->index->cname, T,
        id, id, id);
    out(G, "goto L_ocl%d_done;", id);
    G->e.ind--;
    out(G, "}");
    G->e.ind--;
    out(G, "}");
    G->e.ind--;
    out(G, "}");
    return 1;
}

/* ---- the native blocked schedule (ir/plan.c, PLAN_BLOCK) -------------------
 * Each pass over a block's elements pastes the statements' own code into a
 * scope that declares the loop variables, the accumulators and the other
 * scalars the element assigns as its own locals, under the names the code
 * uses: every element computes what the plain loop computes, in the same
 * operations; only which element runs when changes (the plan proves the
 * elements independent). */

typedef struct {
    IrRegion *R;
    const IrPlan *P;
    const char *idx;       /* the prange's index from cy_it<id> */
    const char *pre, *kbody, *post;
    const char **acc;      /* per reduction: the block's accumulator array */
} Blk;

/* The element (row cy_it = it, column j) scope's opening declarations. */
static void blk_open(Gen *G, Blk *b, const char *it, const char *j) {
    out(G, "{");
    G->e.ind++;
    out(G, "const Py_ssize_t cy_it%d = %s;", b->R->id, it);
    out(G, "const %s = %s;", decl(G, b->R->index->ty, b->R->index->cname), b->idx);
    out(G, "const %s = (%s)(%s);", decl(G, b->P->jloop->var->ty, b->P->jloop->var->cname),
        cty(G, b->P->jloop->var->ty), j);
}

static void blk_close(Gen *G) {
    G->e.ind--;
    out(G, "}");
}

/* The k-loop of one element, from the block's accumulators and back. */
static void blk_one(Gen *G, Blk *b, const char *it, const char *j, const char *at) {
    const IrPlan *P = b->P;
    blk_open(G, b, it, j);
    for (int r = 0; r < P->reds.len; r++) {
        IrVar *v = ((IrLoopRed *)P->reds.items[r])->var;
        out(G, "%s = %s%s;", decl(G, v->ty, v->cname), b->acc[r], at);
    }
    out(G, "for (Py_ssize_t cy_kk = cy_kb; cy_kk < cy_ke; cy_kk++) {");
    G->e.ind++;
    out(G, "const %s = (%s)cy_kk;", decl(G, P->kloop->var->ty, P->kloop->var->cname), cty(G, P->kloop->var->ty));
    put(G, b->kbody);
    G->e.ind--;
    out(G, "}");
    for (int r = 0; r < P->reds.len; r++)
        out(G, "%s%s = %s;", b->acc[r], at, ((IrLoopRed *)P->reds.items[r])->var->cname);
    blk_close(G);
}

/* pre (w == 0) or post (w == 1) for every element of the block. */
static void blk_pass(Gen *G, Blk *b, int w) {
    const IrPlan *P = b->P;
    out(G, "for (Py_ssize_t cy_ii = cy_r0; cy_ii < cy_r1; cy_ii++)");
    out(G, "for (Py_ssize_t cy_jj = cy_jb; cy_jj < cy_je; cy_jj++) {");
    G->e.ind++;
    blk_open(G, b, "cy_ii", "cy_jj");
    for (int i = 0; i < P->privs.len; i++) {
        IrVar *v = P->privs.items[i];
        out(G, "%s = %s;", decl(G, v->ty, v->cname), zero_init(v->ty));
    }
    for (int r = 0; r < P->reds.len; r++) {
        IrVar *v = ((IrLoopRed *)P->reds.items[r])->var;
        if (w) out(G, "%s = %s[cy_ii - cy_r0][cy_jj - cy_jb];", decl(G, v->ty, v->cname), b->acc[r]);
        else out(G, "%s = %s;", decl(G, v->ty, v->cname), zero_init(v->ty));
    }
    put(G, w ? b->post : b->pre);
    for (int r = 0; !w && r < P->reds.len; r++)
        out(G, "%s[cy_ii - cy_r0][cy_jj - cy_jb] = %s;", b->acc[r], ((IrLoopRed *)P->reds.items[r])->var->cname);
    blk_close(G);
    G->e.ind--;
    out(G, "}");
}

/* Rows cy_r0 .. cy_r1 - 1 (iteration numbers) of the prange, blocked. */
static void blk_rows(Gen *G, Blk *b) {
    const IrPlan *P = b->P;
    IrStmt *J = P->jloop, *K = P->kloop;
    out(G, "const Py_ssize_t cy_jlo = %s, cy_jhi = %s;", genc(G, J->start), genc(G, J->stop));
    out(G, "const Py_ssize_t cy_klo = %s, cy_khi = %s;", genc(G, K->start), genc(G, K->stop));
    out(G, "for (Py_ssize_t cy_jb = cy_jlo; cy_jb < cy_jhi; cy_jb += %d) {", P->nc);
    G->e.ind++;
    out(G, "const Py_ssize_t cy_je = cy_jhi - cy_jb > %d ? cy_jb + %d : cy_jhi;", P->nc, P->nc);
    for (int r = 0; r < P->reds.len; r++)
        out(G, "%s %s[%d][%d];", cty(G, ((IrLoopRed *)P->reds.items[r])->var->ty), b->acc[r], P->mc, P->nc);
    blk_pass(G, b, 0);
    out(G, "for (Py_ssize_t cy_kb = cy_klo; cy_kb < cy_khi; cy_kb += %d) {", P->kc);
    G->e.ind++;
    out(G, "const Py_ssize_t cy_ke = cy_khi - cy_kb > %d ? cy_kb + %d : cy_khi;", P->kc, P->kc);
    out(G, "Py_ssize_t cy_i0 = cy_r0;");
    out(G, "for (; cy_i0 + %d <= cy_r1; cy_i0 += %d) {", P->mr, P->mr);
    G->e.ind++;
    out(G, "Py_ssize_t cy_j0 = cy_jb;");
    out(G, "for (; cy_j0 + %d <= cy_je; cy_j0 += %d) {", P->nr, P->nr);
    G->e.ind++;
    /* the register tile: mr x nr accumulators (per reduction) as scalars */
    for (int r = 0; r < P->reds.len; r++) {
        const char *t = cty(G, ((IrLoopRed *)P->reds.items[r])->var->ty);
        for (int y = 0; y < P->mr; y++)
            for (int x = 0; x < P->nr; x++)
                out(G, "%s cy_t%d_%d_%d = %s[cy_i0 - cy_r0 + %d][cy_j0 - cy_jb + %d];", t, r, y, x, b->acc[r], y, x);
    }
    out(G, "for (Py_ssize_t cy_kk = cy_kb; cy_kk < cy_ke; cy_kk++) {");
    G->e.ind++;
    out(G, "const %s = (%s)cy_kk;", decl(G, K->var->ty, K->var->cname), cty(G, K->var->ty));
    for (int y = 0; y < P->mr; y++)
        for (int x = 0; x < P->nr; x++) {
            blk_open(G, b, FMT("cy_i0 + %d", y), FMT("cy_j0 + %d", x));
            for (int r = 0; r < P->reds.len; r++) {
                IrVar *v = ((IrLoopRed *)P->reds.items[r])->var;
                out(G, "%s = cy_t%d_%d_%d;", decl(G, v->ty, v->cname), r, y, x);
            }
            put(G, b->kbody);
            for (int r = 0; r < P->reds.len; r++)
                out(G, "cy_t%d_%d_%d = %s;", r, y, x, ((IrLoopRed *)P->reds.items[r])->var->cname);
            blk_close(G);
        }
    G->e.ind--;
    out(G, "}");
    for (int r = 0; r < P->reds.len; r++)
        for (int y = 0; y < P->mr; y++)
            for (int x = 0; x < P->nr; x++)
                out(G, "%s[cy_i0 - cy_r0 + %d][cy_j0 - cy_jb + %d] = cy_t%d_%d_%d;", b->acc[r], y, x, r, y, x);
    G->e.ind--;
    out(G, "}");
    /* the columns left over, one element at a time (still blocked along k) */
    out(G, "for (Py_ssize_t cy_ii = cy_i0; cy_ii < cy_i0 + %d; cy_ii++)", P->mr);
    out(G, "for (Py_ssize_t cy_jj = cy_j0; cy_jj < cy_je; cy_jj++)");
    G->e.ind++;
    blk_one(G, b, "cy_ii", "cy_jj", "[cy_ii - cy_r0][cy_jj - cy_jb]");
    G->e.ind--;
    G->e.ind--;
    out(G, "}");
    out(G, "for (Py_ssize_t cy_ii = cy_i0; cy_ii < cy_r1; cy_ii++)");
    out(G, "for (Py_ssize_t cy_jj = cy_jb; cy_jj < cy_je; cy_jj++)");
    G->e.ind++;
    blk_one(G, b, "cy_ii", "cy_jj", "[cy_ii - cy_r0][cy_jj - cy_jb]");
    G->e.ind--;
    G->e.ind--;
    out(G, "}");
    blk_pass(G, b, 1);
    G->e.ind--;
    out(G, "}");
}

/* The code of statements body with the accesses indexed by var (counting
 * up from start) known to stay >= 0, as in the plain loop. */
static const char *blk_capture(Gen *G, CyVec *body, IrVar *var, const IrExpr *start, int ind) {
    int nchecked = G->checked.len, nassigned = G->assigned.len;
    int64_t a0 = 0;
    if (var && cy_const_int(start, &a0)) {
        CyVec all = {0};
        loop_checks(G, body, var, a0, &all);
        for (int i = 0; i < all.len; i++)
            if (!((Checked *)all.items[i])->inv) cy_vec_push(G->a, &G->checked, all.items[i]);
    }
    Cap cap;
    cap_begin(G, &cap, ind);
    gen_stmts(G, body);
    const char *t = cap_end(G, &cap);
    G->checked.len = nchecked;
    G->assigned.len = nassigned;
    return t;
}

/* The blocked code of a unit (rows cy_r0 .. cy_r1 - 1), in a version with
 * unit strides where the plan asks for one; generated inside the region's
 * frame (its hoists). */
static const char *gen_blocked(Gen *G, IrRegion *R, Frame *f, const char *idx) {
    IrPlan *P = R->plan_native;
    Blk b = {R, P, idx, NULL, NULL, NULL, NULL};
    b.acc = cy_alloc(G->a, sizeof(char *) * (size_t)(P->reds.len + 1));
    for (int r = 0; r < P->reds.len; r++) b.acc[r] = FMT("cy_acc%d_%d", R->id, r);
    /* the bounds checks the code before the region proved: none in here */
    int nchecked = G->checked.len;
    for (int i = 0; i < P->checks.len; i++) {
        const IrPlanCheck *c = P->checks.items[i];
        Checked *ck = cy_alloc(G->a, sizeof *ck);
        ck->elem = c->elem;
        ck->axis = c->axis;
        ck->off = c->off;
        cy_vec_push(G->a, &G->checked, ck);
    }
    b.pre = blk_capture(G, &P->pre, P->jloop->var, P->jloop->start, G->e.ind + 4);
    CyVec kb = {0};
    for (int i = 0; i < P->kloop->body.len; i++) cy_vec_push(G->a, &kb, P->kloop->body.items[i]);
    b.kbody = blk_capture(G, &kb, P->kloop->var, P->kloop->start, G->e.ind + 6);
    b.post = blk_capture(G, &P->post, P->jloop->var, P->jloop->start, G->e.ind + 4);
    /* unit strides: the hoisted stride, shadowed by a constant */
    CyBuf cond = {0};
    CyVec consts = {0};
    for (int i = 0; i < P->unit.len; i++) {
        IrVar *v = P->unit.items[i];
        int d = (int)(intptr_t)P->unit_axis.items[i];
        for (int k = 0; k < f->hoists.len; k++) {
            Hoist *h = f->hoists.items[k];
            if (h->var != v || !h->used_s[d]) continue;
            const char *sz = FMT("(Py_ssize_t)sizeof(%s)", elem_ctype(G, v->ty));
            cy_buf_printf(&cond, "%s%s_s%d == %s", cond.len ? " && " : "", h->pfx, d, sz);
            cy_vec_push(G->a, &consts, (void *)FMT("const Py_ssize_t %s_s%d = %s;", h->pfx, d, sz));
        }
    }
    int ind = G->e.ind + 4;
    Cap cap;
    cap_begin(G, &cap, ind + (cond.len ? 1 : 0));
    blk_rows(G, &b);
    const char *rows = cap_end(G, &cap);
    G->checked.len = nchecked;
    if (!cond.len) return rows;
    cap_begin(G, &cap, ind);
    out(G, "if (%s) {", cond.s);
    G->e.ind++;
    for (int i = 0; i < consts.len; i++) out(G, "%s", (const char *)consts.items[i]);
    put(G, rows);
    G->e.ind--;
    out(G, "} else {");
    put(G, rows);
    out(G, "}");
    cy_buf_free(&cond);
    return cap_end(G, &cap);
}

static void gen_region_code(Gen *G, IrStmt *s) {
    IrRegion *R = s->region;
    int prange = s->kind == ST_PRANGE, id = R->id;
    Frame *parent = region_frame(G);
    int nested = parent != NULL;
    Scan sc = {0};
    scan_stmts(G, &sc, &s->body);

    out(G, "{");
    G->e.ind++;
    int mark = G->live.len;
    const char *T = prange ? cty(G, R->index->ty) : NULL;
    const char *start = NULL, *step = NULL, *n = NULL;
    int64_t sv = 1;
    int sconst = 1, start0 = 0;
    Clauses cl = {0};
    if (prange) {
        const CyType *it = R->index->ty;
        /* evaluated once, into temporaries of our own (the body may assign
           the variables they mention); Cython's bounds in their own types
           first, which the converted ones then read */
        const char *cb[3] = {0};
        int nsub = G->subst.len;
        if (R->ctype) {
            IrExpr *given[3] = {R->cstart, R->cstop, R->cstep};
            for (int i = 0; i < 3; i++) {
                int64_t v;
                if (!given[i]) cb[i] = i == 2 ? "1" : "0";
                else if (given[i]->kind == E_INT && cy_const_int(given[i], &v))
                    cb[i] = v < 0 ? FMT("%" PRId64 "L", v) : FMT("%" PRId64, v); /* Cython's spelling */
                else {
                    cb[i] = stmp(G, given[i]->ty, genc(G, given[i]));
                    cy_vec_push(G->a, &G->subst, given[i]);
                    cy_vec_push(G->a, &G->subst, (void *)cb[i]);
                }
            }
        }
        start = genc(G, R->start);
        if (!cy_c_simple(start) || is_ident(start)) start = stmp(G, it, start);
        const char *stop = genc(G, R->stop);
        if (!cy_c_simple(stop) || is_ident(stop)) stop = stmp(G, it, stop);
        step = R->step ? genc(G, R->step) : "1";
        if (!cy_c_simple(step) || is_ident(step)) step = stmp(G, it, step);
        sconst = R->step ? cy_const_int(R->step, &sv) : 1;
        start0 = is_zero_lit(R->start);
        n = FMT("cy_n%d", id);
        if (!sconst)
            out(G, "if (cyrt_unlikely(%s == 0)) { cyrt_raise_str(PyExc_ValueError, \"prange() step must not be zero\"); goto %s; }",
                step, errlbl(G));
        /* in Py_ssize_t before the subtraction: stop - start may overflow the index's type */
        int ssize = it->kind == TY_SSIZE;
        const char *la = ssize ? start : FMT("(Py_ssize_t)%s", start), *lb = ssize ? stop : FMT("(Py_ssize_t)%s", stop);
        const char *count = cy_trip_count(G->a, start, stop, la, lb, sconst ? sv : 0,
                                          ssize ? step : FMT("(Py_ssize_t)%s", step), start0, "", "0");
        if (R->ctype) {
            /* Cython's count, as its C computes it (ParallelRangeNode) */
            const char *ns = stmp(G, R->ctype, FMT("(%s - %s + %s - %s / abs((int)%s)) / %s", cb[1], cb[0], cb[2], cb[2], cb[2], cb[2]));
            count = FMT("%s > 0 ? (Py_ssize_t)%s : 0", ns, ns);
        }
        G->subst.len = nsub;
        out(G, "const Py_ssize_t %s = %s;", n, count);
    }
    const char *nt = NULL, *chunk = NULL;
    if (R->num_threads && !nested) nt = stmp_c(G, "const int", genc(G, R->num_threads));
    if (R->chunksize) chunk = stmp_c(G, "const int", genc(G, R->chunksize));
    /* evaluated once: it decides both the OpenMP team and whether a device may run it */
    const char *uti = R->use_threads_if && !nested ? stmp_c(G, "const int", genc(G, R->use_threads_if)) : NULL;
    release_to(G, mark);

    /* the prange's index from its iteration number cy_it<id>, and its last value */
    const char *idx = NULL, *last = NULL, *last_raw = NULL;
    if (prange) {
        const char *a = start0 ? NULL : start, *st = sconst && sv == 1 ? NULL : step;
        const char *cast = R->index->ty->kind == TY_SSIZE ? NULL : T;
        idx = cy_index_at(G->a, a, FMT("cy_it%d", id), st, cast);
        last_raw = cy_index_at(G->a, a, FMT("%s - 1", n), st, NULL);
        last = cy_index_at(G->a, a, FMT("%s - 1", n), st, cast);
    }

    /* the body, generated first: what it uses decides what to emit around it */
    Frame *f = push_frame(G, FR_REGION);
    f->region = R;
    f->is_prange = prange;
    f->par = nested ? parent->par : FMT("cy_par%d", id);
    f->err_label = FMT(prange ? "L_r%d_error" : "L_p%d_error", id);
    f->next_label = FMT(prange ? "L_r%d_next" : "L_p%d_end", id);
    if (!nested)
        for (int i = 0; i < sc.used.len; i++) {
            IrVar *v = sc.used.items[i];
            if (!is_view(v->ty) || vec_has(&sc.assigned, v)) continue;
            Hoist *h = cy_alloc(G->a, sizeof *h);
            h->var = v;
            h->pfx = FMT("cy_%s", v->cname);
            cy_vec_push(G->a, &f->hoists, h);
        }
    region_clauses(G, R, &sc, parent, &cl, &f->privs);
    if (prange && !nested) {
        cy_vec_push(G->a, &f->lastp, R->index);
        for (int i = 0; i < sc.used.len; i++) {
            IrVar *v = sc.used.items[i];
            for (int k = 0; k < cl.lastp.len; k++)
                if (!strcmp(cl.lastp.items[k], v->cname)) vec_add(G, &f->lastp, v);
        }
    }
    CyVec cks = {0};
    int nchecked = G->checked.len;
    int64_t st0;
    if (prange && !nested && sconst && sv > 0 && cy_const_int(R->start, &st0) && st0 >= 0) {
        CyVec all = {0};
        loop_checks(G, &s->body, R->index, st0, &all);
        for (int i = 0; i < all.len; i++)
            if (!((Checked *)all.items[i])->inv) cy_vec_push(G->a, &cks, all.items[i]);
        for (int i = 0; i < cks.len; i++) cy_vec_push(G->a, &G->checked, cks.items[i]);
    }
    TScope rs = {0}, *saved_scope = G->scope;
    if (!nested) G->scope = &rs;
    int saved_gil = G->gil, saved_assigned = G->assigned.len;
    G->gil = 0;
    Cap cap;
    cap_begin(G, &cap, G->e.ind + (!prange ? 1 : nested ? 2 : 3));
    gen_stmts(G, &s->body);
    if (f->err_used) {
        out(G, "if (0) {");
        out(G, "%s:", f->err_label);
        G->e.ind++;
        out(G, "cyrt_par_error(&%s);", f->par);
        G->e.ind--;
        out(G, "}");
    }
    if (f->next_used) out(G, "%s: ;", f->next_label);
    const char *body = cap_end(G, &cap);
    /* the native blocked schedule, where the plan has one (it proved that
       nothing in the body breaks, and that only bounds checks raise, which
       the code before the region proves for the blocked rows) */
    const char *blocked = NULL;
    if (prange && !nested && R->plan_native && R->plan_native->kind == PLAN_BLOCK)
        blocked = gen_blocked(G, R, f, idx);
    G->checked.len = nchecked;
    G->gil = saved_gil;
    G->scope = saved_scope;
    G->assigned.len = saved_assigned;
    pop_frame(G);

    int need_par = f->need_par || f->err_used;
    int need_tstate = f->err_used || f->need_tstate || sc.has_gil;
    if (nested) {
        if (need_par) parent->need_par = 1;
        if (need_tstate) parent->need_tstate = 1;
    }
    if (prange && !nested) {
        if (is_ident(start)) clause_add(G, &cl.fpriv, start);
        if (is_ident(step)) clause_add(G, &cl.fpriv, step);
    }

    if (prange && nested) {
        out(G, "if (%s > 0) {", n);
        G->e.ind++;
        emit_omp_for(G, R, chunk, &cl, id, n, need_par ? f->par : NULL, idx, body, 0);
        out(G, "%s = %s;", R->index->cname, last);
        G->e.ind--;
        out(G, "}");
        G->e.ind--;
        out(G, "}");
        return;
    }

    /* a top-level region: release the GIL, run the team, trace, re-raise */
    cy_vec_push(G->a, &G->traced, R);
    if (need_par) out(G, "cyrt_par %s = {0};", f->par);
    if (f->ret_slot) out(G, "%s;", decl(G, G->ret, f->ret_slot));
    for (int i = 0; f->broke && i < f->lastp.len; i++) {
        IrVar *v = f->lastp.items[i];
        out(G, "%s = %s;", decl(G, v->ty, FMT("cy_lp%d_%s", id, v->cname)), zero_init(v->ty));
    }
    /* hoisted bounds checks come before either implementation, so an
       IndexError they find leaves memory untouched on both (DESIGN §8) */
    const IrExpr *ck_stop = sconst && sv == 1 ? R->stop : NULL;
    if (prange && checks_emit_code(&cks, ck_stop)) {
        out(G, "if (%s > 0) {", n);
        G->e.ind++;
        emit_checks(G, &cks, last_raw, ck_stop);
        G->e.ind--;
        out(G, "}");
    }
    int ocl = prange && gen_ocl_dispatch(G, s, start, step, n, T, uti);
    /* the native team works on host memory: what a device holds comes back
       (a region OpenCL can take touches only its view arguments: those) */
    if (G->opt->opencl && R->ocl_ok) {
        for (int w = 0; w < 2; w++) {
            HostScan h = {G, 0, 0, 0, {0}, {0}};
            for (int i = 0; i < R->args.len; i++) {
                IrRegionArg *a = R->args.items[i];
                if (a->kind != RA_VIEW || !(a->read || a->written) || a->written != w) continue;
                IrExpr ve = {.kind = E_VAR, .var = a->var, .ty = a->var->ty};
                hs_view(&h, &ve);
                h.mask = w ? HM_WRITE : HM_READ;
            }
            emit_host_check(G, &h, R->pos.line);
        }
    } else if (G->opt->opencl) {
        out(G, "CYRT_HOST(3, %s, %d);", c_strz(G, G->fname), R->pos.line);
    }
    if (prange) {
        out(G, "if (%s > 0) {", n);
        G->e.ind++;
    }
    if (blocked) {
        /* the blocked code only where the views the nest writes share no
           byte with the others it accesses (else the plain loop keeps
           Cython's order, matmul(a, b, a)); never for the last iteration,
           which leaves the lastprivate values */
        CyBuf c = {0};
        const IrPlan *P = R->plan_native;
        for (int i = 0; i + 1 < P->alias.len; i += 2) {
            IrVar *w = P->alias.items[i], *o = P->alias.items[i + 1];
            cy_buf_printf(&c, " && !cyrt_views_meet(%s, %s, %d, %d, %d)", w->cname, o->cname,
                          w->ty->ndim * 16 + o->ty->ndim, w->ty->base->size, o->ty->base->size);
        }
        /* every bounds check the blocked code leaves out holds: for each
           index var + off, the range of var over the blocked iterations
           (rows 0 .. n - 2) plus off lies in the axis, where the access is
           made at all (its loops run) */
        if (P->checks.len) {
            const char *stp = step ? step : "1";
            out(G, "const Py_ssize_t cy_ia%d = (Py_ssize_t)(%s), cy_ib%d = cy_ia%d + (%s - 2) * (Py_ssize_t)(%s);", id,
                start, id, id, n, stp);
            out(G, "const Py_ssize_t cy_jlo%d = %s, cy_jhi%d = %s;", id, genc(G, P->jloop->start), id,
                genc(G, P->jloop->stop));
            out(G, "const Py_ssize_t cy_klo%d = %s, cy_khi%d = %s;", id, genc(G, P->kloop->start), id,
                genc(G, P->kloop->stop));
        }
        for (int i = 0; i < P->checks.len; i++) {
            const IrPlanCheck *k = P->checks.items[i];
            const char *lo, *hi, *sh = FMT("%s.shape[%d]", k->elem->args[0]->var->cname, k->axis);
            if (!k->var) lo = hi = "0";
            else if (k->var == R->index)
                lo = FMT("(cy_ia%d < cy_ib%d ? cy_ia%d : cy_ib%d)", id, id, id, id),
                hi = FMT("(cy_ia%d < cy_ib%d ? cy_ib%d : cy_ia%d)", id, id, id, id);
            else if (k->var == P->jloop->var) lo = FMT("cy_jlo%d", id), hi = FMT("(cy_jhi%d - 1)", id);
            else lo = FMT("cy_klo%d", id), hi = FMT("(cy_khi%d - 1)", id);
            cy_buf_printf(&c, " && (cy_jhi%d <= cy_jlo%d%s || (%s + %" PRId64 " >= 0 && %s + %" PRId64 " < %s%s))", id,
                          id, k->in_k ? FMT(" || cy_khi%d <= cy_klo%d", id, id) : "", lo, k->off, hi, k->off, sh,
                          k->int32 ? FMT(" && %s + %" PRId64 " <= 2147483647", hi, k->off) : "");
        }
        out(G, "const int cy_blk%d = %s > 1%s;", id, n, c.len ? c.s : "");
        cy_buf_free(&c);
    }
    const char *ts = NULL;
    if (G->gil == 1) {
        ts = FMT("cy_ts%d", id);
        out(G, "PyThreadState *%s = PyEval_SaveThread();", ts);
    } else if (G->gil == -1 && need_tstate) {
        ts = FMT("cy_ts%d", id);
        out(G, "PyThreadState *%s = PyGILState_Check() ? PyEval_SaveThread() : NULL;", ts);
    }
    /* timed for the dispatcher only where it can decide (prelude: cyrt_timing) */
    out(G, "long long cy_clock%d = %s ? cyrt_now_ns() : 0;", id, ocl ? "cyrt_timing()" : "cyrt_trace_fd >= 0");
    /* a module with the runtime: one thread short while the device starts (cyrt_team) */
    const char *ntc = nt                           ? FMT(" num_threads(%s)", nt)
                      : ocl                        ? FMT(" num_threads(cyrt_team_of(cy_ol%d.team))", id)
                      : G->opt->opencl && !nested ? " num_threads(cyrt_team())"
                                                   : "";
    if (uti) ntc = FMT("%s if(%s)", ntc, uti);
    out(G, "cyrt_omp_ran = 1; /* prelude: cyrt_fork_child */");
    if (prange)
        out(G, "#pragma omp parallel%s%s", ntc, clause(G, "firstprivate", &cl.fpriv));
    else
        out(G, "#pragma omp parallel%s%s%s%s", ntc, clause(G, "private", &cl.priv), clause(G, "firstprivate", &cl.fpriv),
            clause(G, "reduction", &cl.red));
    out(G, "{");
    G->e.ind++;
    emit_hoists(G, f);
    scope_decls(G, &rs);
    /* a memoryview the body assigns (a slice expression's temporaries, a
       view of a row) is each thread's own: OpenMP's clauses cannot copy a
       view's reference, so every thread declares its own, released at the
       end (its value after the region is the one before it) */
    CyVec pviews = {0};
    for (int i = 0; i < sc.used.len && !nested; i++) {
        IrVar *v = sc.used.items[i];
        if (!is_view(v->ty) || v->kind == V_PYGLOBAL || v->kind == V_MODULE || !vec_has(&sc.assigned, v)) continue;
        out(G, "cy_view %s = {0};", v->cname);
        cy_vec_push(G->a, &pviews, v);
    }
    if (need_tstate) {
        out(G, "PyGILState_STATE cy_gs%d = PyGILState_Ensure();", id);
        out(G, "PyThreadState *cy_tst%d = PyEval_SaveThread();", id);
    }
    /* the dispatcher tells the work from a team's start and its wait at
       its end (for a thread that lost its core: a stall) by thread 0's
       time over its share of the iterations: in its full decisions' runs
       (a hot-path run's only counts, cyocl_launch.hot) and the trace's.
       The thread number first: the other threads then read none of the
       launch's shared variables, which the master's stack holds and it
       has just written (a line from another core as each thread starts) */
    if (ocl)
        out(G,
            "const long long cy_w%d = omp_get_thread_num() == 0 && cy_clock%d && (cyrt_trace_fd >= 0 || !cy_ol%d.hot) "
            "? cyrt_now_ns() : 0;",
            id, id, id);
    if (blocked) {
        emit_omp_for_blocked(G, R, chunk, &cl, n, need_par ? f->par : NULL, idx, body, blocked);
    } else if (prange) {
        emit_omp_for(G, R, chunk, &cl, id, n, need_par ? f->par : NULL, idx, body, 1);
    } else {
        put(G, body);
    }
    if (ocl)
        out(G, "if (cy_w%d) { cy_ol%d.chunk_ns = cyrt_now_ns() - cy_w%d; cy_ol%d.team_size = omp_get_num_threads(); }", id,
            id, id, id);
    if (need_tstate) {
        out(G, "PyEval_RestoreThread(cy_tst%d);", id);
        out(G, "PyGILState_Release(cy_gs%d);", id);
    }
    for (int i = 0; i < pviews.len; i++) out(G, "cyrt_view_release(&%s);", ((IrVar *)pviews.items[i])->cname);
    G->e.ind--;
    out(G, "}");
    out(G, "cyrt_region_end(&cy_ri%d, %s, cy_clock%d, %s);", id, prange ? n : "0", id,
        ocl ? FMT("&cy_ol%d", id) : "NULL");
    if (ts) out(G, G->gil == 1 ? "PyEval_RestoreThread(%s);" : "if (%s) PyEval_RestoreThread(%s);", ts, ts);
    if (prange) {
        out(G, "%s = %s;", R->index->cname, last);
        G->e.ind--;
        out(G, "}");
    }
    if (f->broke) {
        out(G, "if (%s.why == 1) {", f->par);
        G->e.ind++;
        for (int i = 0; i < f->lastp.len; i++) {
            IrVar *v = f->lastp.items[i];
            if (v->ty->kind == TY_ARRAY) out(G, "memcpy(%s, cy_lp%d_%s, sizeof %s);", v->cname, id, v->cname, v->cname);
            else out(G, "%s = cy_lp%d_%s;", v->cname, id, v->cname);
        }
        G->e.ind--;
        out(G, "}");
    }
    if (need_par) {
        out(G, "if (%s.why == 3) {", f->par);
        G->e.ind++;
        out(G, "cyrt_par_restore(&%s);", f->par);
        out(G, "goto %s;", errlbl(G));
        G->e.ind--;
        if (f->ret_slot || (f->need_par && R->has_return)) {
            out(G, "} else if (%s.why == 2) {", f->par);
            G->e.ind++;
            emit_return(G, NULL, f->ret_slot);
            G->e.ind--;
        }
        out(G, "}");
    }
    if (s->orelse.len) {
        if (need_par) {
            out(G, "if (%s.why != 1) {", f->par);
            gen_block(G, &s->orelse);
            out(G, "}");
        } else {
            gen_stmts(G, &s->orelse);
        }
    }
    if (ocl) out(G, "L_ocl%d_done: ;", id);
    G->e.ind--;
    out(G, "}");
}

/* A region's code is one block in whatever buffer is current; it is moved
 * later only as a whole (captures are pasted verbatim), so a copy taken
 * here is the text the module will have (`cyocl annotate` shows it). */
static void gen_region(Gen *G, IrStmt *s) {
    size_t start = G->e.out->len;
    gen_region_code(G, s);
    int id = s->region->id;
    if (G->opt->region_code && id >= 0 && id < G->m->nregions)
        G->opt->region_code[id] = cy_strndup(G->a, G->e.out->s + start, G->e.out->len - start);
}

static void gen_stmt(Gen *G, IrStmt *s) {
    line_directive(G, s->pos);
    int mark = G->live.len;
    int hoist = 0;
    if (host_checks_on(G) && s->kind != ST_PRANGE && s->kind != ST_PARALLEL) {
        HostScan h = {G, 0, 0, 0, {0}, {0}};
        hs_stmt_own(&h, s);
        if (s->kind == ST_FOR_RANGE || s->kind == ST_WHILE) {
            HostScan b = {G, 0, 0, 0, {0}, {0}};
            hs_stmts(&b, &s->body);
            hs_stmts(&b, &s->orelse);
            if (!b.launch && !h.launch) {
                /* nothing in the loop can put data on a device: one check covers it */
                h.mask |= b.mask;
                h.all |= b.all;
                for (int i = 0; i < b.views.len && !h.all; i++)
                    for (int k = 0; k < b.vset.len; k++)
                        if (b.vset.items[k] == b.views.items[i]) h.all = 1;
                for (int i = 0; i < b.views.len; i++) {
                    IrExpr ve = {.kind = E_VAR, .var = b.views.items[i], .ty = ((IrVar *)b.views.items[i])->ty};
                    hs_view(&h, &ve);
                }
                hoist = 1;
            } else if (s->kind == ST_WHILE) {
                h.mask = 0; /* the condition is checked where it is evaluated, each time */
            }
        }
        emit_host_check(G, &h, s->pos.line);
    }
    G->hoisted += hoist;
    switch (s->kind) {
    case ST_BLOCK: gen_stmts(G, &s->body); break;
    case ST_EXPR: {
        IrExpr *v = s->value;
        Val r = is_view(v->ty) ? gen_view(G, v) : gen(G, v);
        if (!is_obj(v->ty) && !is_view(v->ty) && *r.c && !cy_c_simple(r.c))
            out(G, v->ty->kind == TY_VOID ? "%s;" : "(void)%s;", r.c);
        break;
    }
    case ST_ASSIGN: gen_assign(G, s); break;
    case ST_UNPACK: gen_unpack(G, s); break;
    case ST_IF: {
        const char *c = cond_expr(G, s->cond, mark);
        gen_if_open(G, s, c, "");
        out(G, "}");
        break;
    }
    case ST_WHILE: gen_while(G, s); break;
    case ST_FOR_RANGE: gen_for_range(G, s, mark); break;
    case ST_FOR_ITER: gen_for_iter(G, s); break;
    case ST_PRANGE: case ST_PARALLEL: gen_region(G, s); break;
    case ST_BREAK: case ST_CONTINUE: gen_break_continue(G, s); break;
    case ST_RETURN: gen_return(G, s); break;
    case ST_RAISE:
        if (s->target) {
            const char *v = genc(G, s->value);
            out(G, "cyrt_raise_from(%s, %s);", v, genc(G, s->target));
        } else if (s->value) out(G, "cyrt_raise(%s);", genc(G, s->value));
        else out(G, "cyrt_reraise();");
        out(G, "goto %s;", errlbl(G));
        break;
    case ST_ASSERT: {
        const char *c = cond_expr(G, s->cond, mark);
        out(G, "if (cyrt_unlikely(!%s)) {", cy_c_paren(G->a, c));
        G->e.ind++;
        if (s->value) out(G, "cyrt_raise_msg(PyExc_AssertionError, %s);", genc(G, s->value));
        else out(G, "cyrt_raise_none(PyExc_AssertionError);");
        out(G, "goto %s;", errlbl(G));
        G->e.ind--;
        out(G, "}");
        break;
    }
    case ST_NOGIL: gen_nogil(G, s); break;
    case ST_GIL: gen_gil(G, s); break;
    case ST_TRY: gen_try(G, s); break;
    case ST_TRY_EXCEPT: gen_try_except(G, s); break;
    case ST_EXCEPT: break; /* gen_try_except's */
    case ST_DECLARE: break;
    case ST_DEL: gen_del(G, s->target); break;
    }
    G->hoisted -= hoist;
    if (s->kind == ST_RETURN || s->kind == ST_RAISE || s->kind == ST_BREAK || s->kind == ST_CONTINUE) {
        /* control left: the jump already cleaned up (or L_error will) */
        while (G->live.len > mark) ((Temp *)G->live.items[--G->live.len])->busy = 0;
        return;
    }
    release_to(G, mark);
}

static void gen_stmts(Gen *G, CyVec *body) {
    for (int i = 0; i < body->len; i++) gen_stmt(G, body->items[i]);
}

/* ---- functions ------------------------------------------------------------------ */

static const char *param_list(Gen *G, IrFunc *f, int with_ret) {
    CyBuf b = {0};
    for (int i = 0; i < f->params.len; i++) {
        IrVar *p = f->params.items[i];
        cy_buf_printf(&b, "%s%s", i ? ", " : "", decl(G, p->ty, p->cname));
    }
    if (with_ret && f->ret->kind != TY_VOID)
        cy_buf_printf(&b, "%s%s", f->params.len ? ", " : "", decl(G, cy_type_ptr(G->a, f->ret), "cy_ret"));
    const char *s = b.len ? cy_strndup(G->a, b.s, b.len) : "void";
    cy_buf_free(&b);
    return s;
}

static const char *func_sig(Gen *G, IrFunc *f) {
    const char *inl = f->is_inline ? "static inline " : "static ";
    if (fn_objret(f)) return FMT("%sPyObject *%s(%s)", inl, f->cname, param_list(G, f, 0));
    if (fn_status(f)) return FMT("%sint %s(%s)", inl, f->cname, param_list(G, f, 1));
    return FMT("%s%s", inl, decl(G, f->ret, FMT("%s(%s)", f->cname, param_list(G, f, 0))));
}

static void reset_func(Gen *G) {
    G->nid = 0;
    G->live.len = 0;
    G->assigned.len = 0;
    G->end_used = 0;
    G->fr = NULL;
}

/* One C function: declarations, body, the error path and the common exit. */
static void emit_defaults_before(Gen *G, CyVec *defaults, const CyPos *pos);

static void emit_body(Gen *G, CyBuf *dst, const char *sig, CyVec *params, CyVec *locals, CyVec *body,
                      const char *prologue, int status, int unraisable, int with_gil, CyVec *defaults) {
    TScope fs = {0};
    G->scope = &fs;
    Frame *ff = push_frame(G, FR_FUNC);
    ff->err_label = "L_error";
    CyBuf text = {0};
    G->e.out = &text;
    G->e.ind = 1;
    if (prologue) {
        put(G, prologue);
        ff->err_used = 1;
    }
    for (int i = 0; params && i < params->len; i++) {
        IrVar *p = params->items[i];
        if (!p->is_assigned) continue;
        if (is_obj(p->ty)) out(G, "Py_INCREF(%s);", p->cname);
        if (is_view(p->ty)) out(G, "cyrt_owner_incref(%s.owner);", p->cname);
        mark_assigned(G, p);
    }
    if (defaults) {
        /* module init: a def's defaults are evaluated where the def stands */
        for (int i = 0; i < body->len; i++) {
            IrStmt *x = body->items[i];
            emit_defaults_before(G, defaults, &x->pos);
            gen_stmt(G, x);
        }
        emit_defaults_before(G, defaults, NULL);
    } else {
        gen_stmts(G, body);
    }
    IrStmt *last = body->len ? body->items[body->len - 1] : NULL;
    if (is_obj(G->ret) && !(last && (last->kind == ST_RETURN || last->kind == ST_RAISE))) {
        out(G, "cy_r = Py_None;");
        out(G, "Py_INCREF(cy_r);");
    }
    G->e.out = dst;
    G->e.ind = 0;
    out(G, "%s {", sig);
    G->e.ind = 1;
    if (with_gil) out(G, "PyGILState_STATE cy_gs = PyGILState_Ensure();");
    if (G->ret->kind != TY_VOID) out(G, "%s = %s;", decl(G, G->ret, "cy_r"), zero_init(G->ret));
    if (status) out(G, "int cy_st = 0;");
    for (int i = 0; locals && i < locals->len; i++) {
        IrVar *v = locals->items[i];
        out(G, "%s = %s;", decl(G, v->ty, v->cname), zero_init(v->ty));
    }
    scope_decls(G, &fs);
    cy_buf_put(G->e.out, text.s ? text.s : "", text.len);
    cy_buf_free(&text);
    if (ff->err_used) {
        if (!(last && (last->kind == ST_RETURN || last->kind == ST_RAISE))) out(G, "goto L_end;");
        out(G, "L_error:");
        if (unraisable) out(G, "cyrt_write_unraisable(%s);", c_strz(G, G->fname));
        if (is_obj(G->ret)) out(G, "Py_CLEAR(cy_r);");
        else if (is_view(G->ret)) out(G, "cyrt_view_release(&cy_r);");
        else if (G->ret->kind == TY_STRUCT) out(G, "cy_r = (%s){0};", cty(G, G->ret)); /* a struct, a ctuple */
        else if (G->ret->kind != TY_VOID) out(G, "cy_r = 0;");
        if (status) out(G, "cy_st = -1;");
        G->end_used = 1;
    }
    if (G->end_used) out(G, "L_end: ;");
    scope_cleanup(G, &fs);
    for (int i = 0; locals && i < locals->len; i++) {
        IrVar *v = locals->items[i];
        if (is_obj(v->ty)) out(G, "Py_XDECREF(%s);", v->cname);
        if (is_view(v->ty)) out(G, "cyrt_view_release(&%s);", v->cname);
    }
    for (int i = 0; params && i < params->len; i++) {
        IrVar *p = params->items[i];
        if (!p->is_assigned) continue;
        if (is_obj(p->ty)) out(G, "Py_XDECREF(%s);", p->cname);
        if (is_view(p->ty)) out(G, "cyrt_view_release(&%s);", p->cname);
    }
    if (with_gil) out(G, "PyGILState_Release(cy_gs);");
    if (status) {
        if (G->ret->kind != TY_VOID) out(G, "*cy_ret = cy_r;");
        out(G, "return cy_st;");
    } else if (G->ret->kind != TY_VOID) {
        out(G, "return cy_r;");
    }
    G->e.ind = 0;
    out(G, "}");
    out(G, "%s", "");
    pop_frame(G);
}

static void emit_func(Gen *G, IrFunc *f, CyBuf *dst) {
    reset_func(G);
    G->fname = f->name;
    G->ret = fn_objret(f) ? cy_type_scalar(TY_OBJECT) : f->ret;
    G->gil = f->with_gil || !f->is_nogil ? 1 : -1;
    int status = fn_status(f);
    int unraisable = !fn_objret(f) && !status;
    emit_body(G, dst, func_sig(G, f), &f->params, &f->locals, &f->body, NULL, status, unraisable,
              f->with_gil, NULL);
}

/* ---- def wrappers ------------------------------------------------------------------ */

/* A default value that is a plain C constant, or NULL. */
static const char *const_default(Gen *G, IrExpr *d) {
    if (!d || is_obj(d->ty) || is_view(d->ty)) return NULL;
    Cap cap;
    int mark = G->live.len;
    cap_begin(G, &cap, 0);
    const char *c = genc(G, d);
    const char *code = cap_end(G, &cap);
    if (*code || G->live.len != mark) return NULL;
    return c;
}

/* The object a default stands for, kept from module init (or NULL). */
typedef struct {
    IrFunc *fn;
    int param;
    const char *cname;
    int done;
} Default;

static const char *default_obj(CyVec *defaults, IrFunc *f, int i) {
    for (int k = 0; k < defaults->len; k++) {
        Default *d = defaults->items[k];
        if (d->fn == f && d->param == i) return d->cname;
    }
    return NULL;
}

/* A specialisation of a fused function is reached through its group's. */
static const char *wrapper_name(Gen *G, const IrFunc *f) {
    return f->fused_of || f->cls || f->static_of || f->is_lambda ? FMT("cy_pw_%s", f->cname)
                                                                 : FMT("cy_pw_%s", f->name);
}

static void emit_wrapper(Gen *G, IrFunc *f, CyVec *defaults, CyBuf *dst) {
    IrFunc *orig = f;
    if (f->cls) {
        /* a method: Python passes the instance as cy_self, the rest as a def's */
        IrFunc *g = cy_alloc(G->a, sizeof *g);
        *g = *f;
        g->params = (CyVec){f->params.items + 1, f->params.len - 1, 0};
        g->param_defaults = (CyVec){f->param_defaults.items + 1, f->param_defaults.len - 1, 0};
        g->param_not_none = (CyVec){f->param_not_none.items + 1, f->param_not_none.len - 1, 0};
        g->npos = f->npos - 1;
        f = g;
    }
    int off = f != orig;
    reset_func(G);
    G->fname = f->name;
    G->ret = cy_type_scalar(TY_OBJECT);
    G->gil = 1;
    TScope fs = {0};
    G->scope = &fs;
    Frame *ff = push_frame(G, FR_FUNC);
    ff->err_label = "L_end";
    int np = f->params.len, nreq = 0;
    for (int i = 0; i < np; i++)
        if (!f->param_defaults.items[i]) nreq = i + 1;
    CyBuf text = {0}, arglabels = {0};
    G->e.out = &text;
    G->e.ind = 1;
    int star = orig->star_arg - 1 - off, kwstar = orig->kwstar_arg - 1 - off;
    if (orig->star_arg || orig->kwstar_arg) {
        char *req = cy_alloc(G->a, (size_t)np + 1);
        int nreq_pos = 0;
        for (int i = 0; i < np; i++) {
            req[i] = f->param_defaults.items[i] || i == star || i == kwstar ? '0' : '1';
            if (i < f->npos && req[i] == '1') nreq_pos = i + 1;
        }
        out(G, "if (cyrt_parse_args_star(%s, cy_names, %d, %d, %d, \"%s\", %d, %d, cy_args, cy_nargs, cy_kwnames, "
               "cy_vals) < 0) return NULL;", c_strz(G, f->name), np, f->npos, nreq_pos, req,
            orig->star_arg ? star : -1, orig->kwstar_arg ? kwstar : -1);
    } else if (f->npos < np) {
        /* keyword-only parameters: which ones must be given */
        char *req = cy_alloc(G->a, (size_t)np + 1);
        int nreq_pos = 0;
        for (int i = 0; i < np; i++) {
            req[i] = f->param_defaults.items[i] ? '0' : '1';
            if (i < f->npos && req[i] == '1') nreq_pos = i + 1;
        }
        out(G, "if (cyrt_parse_args_kw(%s, cy_names, %d, %d, %d, \"%s\", cy_args, cy_nargs, cy_kwnames, cy_vals) < 0) "
               "return NULL;", c_strz(G, f->name), np, f->npos, nreq_pos, req);
    } else {
        out(G, "if (cyrt_parse_args(%s, cy_names, %d, %d, cy_args, cy_nargs, cy_kwnames, cy_vals) < 0) return NULL;",
            c_strz(G, f->name), np, nreq);
    }
    for (int i = 0; i < np; i++) {
        IrVar *p = f->params.items[i];
        IrExpr *d = f->param_defaults.items[i];
        int not_none = (int)(intptr_t)f->param_not_none.items[i];
        const char *v = FMT("cy_vals[%d]", i);
        /* a default or a closure variable the function object carries (its self, a list) */
        intptr_t dy = !off && i < orig->param_dyn.len ? (intptr_t)orig->param_dyn.items[i] : 0;
        if (dy) out(G, "if (!%s) %s = PyList_GET_ITEM(cy_self, %d);", v, v, (int)(dy > 0 ? dy - 1 : -dy - 1));
        const char *cd = const_default(G, d);
        const char *od = default_obj(defaults, orig, i + off);
        if (d && !cd && od) out(G, "if (!%s) %s = %s;", v, v, od);
        if (d && is_view(p->ty) && d->kind == E_VIEW_FROM_OBJ && d->args[0]->kind == E_NONE && !od)
            out(G, "if (!%s) %s = Py_None;", v, v);
        if (d && is_obj(p->ty) && !od) out(G, "if (!%s) %s = %s;", v, v, genc(G, d));
        if (cd) {
            out(G, "if (!%s) {", v);
            G->e.ind++;
            out(G, "%s = %s;", p->cname, cd);
            G->e.ind--;
            out(G, "} else {");
            G->e.ind++;
        }
        if (is_view(p->ty)) {
            goto_err_if(G, FMT("cyrt_view_from_obj(%s, &%s, &%s, %s, %d) < 0", v, p->cname, view_spec(G, p->ty),
                               c_strz(G, p->name), not_none));
        } else if (is_obj(p->ty)) {
            if (not_none)
                out(G, "if (%s == Py_None) { PyErr_Format(PyExc_TypeError, \"Argument '%%s' must not be None\", %s); goto L_end; }",
                    v, c_strz(G, p->name));
            out(G, "%s = %s;", p->cname, v);
        } else {
            /* a failed conversion names the argument, as view checks do */
            int used = ff->err_used;
            ff->err_used = 0;
            ff->err_label = FMT("L_arg%d", i);
            const char *c = unbox(G, p->ty, v);
            out(G, "%s = %s;", p->cname, c);
            if (ff->err_used) {
                cy_buf_printf(&arglabels, "    L_arg%d: cyrt_err_add_arg(%s);\n    goto L_end;\n", i, c_strz(G, p->name));
                used = 1;
            }
            ff->err_label = "L_end";
            ff->err_used = used;
        }
        if (cd) {
            G->e.ind--;
            out(G, "}");
        }
    }
    const char **args = cy_alloc(G->a, (size_t)(np + 2) * sizeof(char *));
    if (off) args[0] = "cy_self";
    for (int i = 0; i < np; i++) args[off + i] = ((IrVar *)f->params.items[i])->cname;
    const char *call = FMT("%s(%s)", f->cname, join(G, args, np + off, ", "));
    /* a call that may leave data on a device brings it back before Python sees it */
    int scoped = is_launcher(G, orig);
    const char *leave = FMT("cyrt_call_leave(%s, %d)", c_strz(G, f->name), f->pos.line);
    if (scoped) {
        out(G, "if (cyrt_call_enter() < 0) goto L_end;");
        ff->err_used = 1;
        ff->err_label = "L_leave";
    }
    if (fn_objret(f)) {
        out(G, "cy_r = %s;", call);
        if (scoped) out(G, "if (%s < 0) Py_CLEAR(cy_r);", leave);
    } else {
        const char *val = call;
        if (fn_status(f)) {
            if (f->ret->kind == TY_VOID) {
                goto_err_if(G, FMT("%s < 0", call));
                val = NULL;
            } else {
                const char *r = is_view(f->ret) ? vtmp(G) : stmp(G, f->ret, NULL);
                args[np + off] = FMT("&%s", r);
                goto_err_if(G, FMT("%s(%s) < 0", f->cname, join(G, args, np + off + 1, ", ")));
                val = r;
            }
        } else if (f->ret->kind == TY_VOID) {
            out(G, "%s;", call);
            val = NULL;
        } else if (is_view(f->ret)) {
            const char *r = vtmp(G);
            out(G, "%s = %s;", r, call);
            val = r;
        } else if (scoped) {
            /* the call runs inside the scope, not in the boxing after it */
            val = stmp(G, f->ret, call);
        }
        if (scoped) {
            ff->err_label = "L_end";
            goto_err_if(G, FMT("%s < 0", leave));
        }
        if (!val) {
            out(G, "cy_r = Py_None;");
            out(G, "Py_INCREF(cy_r);");
        } else if (is_view(f->ret)) {
            out(G, "cy_r = cyrt_view_to_obj(&%s, %d);", val, f->ret->ndim);
        } else {
            out(G, "cy_r = %s;", box_call(G, f->ret, val));
        }
    }
    G->e.out = dst;
    G->e.ind = 0;
    out(G, "static PyObject *%s(PyObject *cy_self, PyObject *const *cy_args, Py_ssize_t cy_nargs, PyObject *cy_kwnames) {",
        wrapper_name(G, orig));
    G->e.ind = 1;
    CyBuf names = {0};
    for (int i = 0; i < np; i++) {
        /* a closure variable is a hidden keyword-only parameter: no keyword can name it */
        intptr_t dy = !off && i < orig->param_dyn.len ? (intptr_t)orig->param_dyn.items[i] : 0;
        if (dy < 0) cy_buf_printf(&names, "\"\\001%s\", ", ((IrVar *)f->params.items[i])->name);
        else cy_buf_printf(&names, "%s, ", c_strz(G, ((IrVar *)f->params.items[i])->name));
    }
    out(G, "static const char *const cy_names[] = {%sNULL};", names.s ? names.s : "");
    cy_buf_free(&names);
    out(G, "PyObject *cy_vals[%d];", np ? np : 1);
    out(G, "PyObject *cy_r = NULL;");
    for (int i = 0; i < np; i++) {
        IrVar *p = f->params.items[i];
        out(G, "%s = %s;", decl(G, p->ty, p->cname), zero_init(p->ty));
    }
    scope_decls(G, &fs);
    out(G, "(void)cy_self;");
    cy_buf_put(G->e.out, text.s ? text.s : "", text.len);
    cy_buf_free(&text);
    if (arglabels.len) {
        out(G, "goto L_end;");
        cy_buf_put(G->e.out, arglabels.s, arglabels.len);
    }
    cy_buf_free(&arglabels);
    if (scoped && !fn_objret(f)) {
        /* the call raised: its data still comes back, its exception stays */
        if (!arglabels.len) out(G, "goto L_end;");
        out(G, "L_leave: (void)%s;", leave);
    }
    if (ff->err_used) out(G, "L_end:");
    scope_cleanup(G, &fs);
    for (int i = 0; i < np; i++) {
        IrVar *p = f->params.items[i];
        if (is_view(p->ty)) out(G, "cyrt_view_release(&%s);", p->cname);
    }
    /* the tuple and dict cyrt_parse_args_star made */
    if (orig->star_arg) out(G, "Py_DECREF(cy_vals[%d]);", star);
    if (orig->kwstar_arg) out(G, "Py_DECREF(cy_vals[%d]);", kwstar);
    out(G, "return cy_r;");
    G->e.ind = 0;
    out(G, "}");
    out(G, "%s", "");
    pop_frame(G);
}

/* ---- module ------------------------------------------------------------------------ */

/* Defaults that are Python objects built at run time (a boxed number) are
 * made once, when the module runs the def. */
static int needs_static_default(const IrVar *p, const IrExpr *d) {
    return d && is_obj(p->ty) && !(d->kind == E_NONE || d->kind == E_STR || d->kind == E_BYTES || d->kind == E_BIGINT);
}

/* pos NULL: all that are left */
static void emit_defaults_before(Gen *G, CyVec *defaults, const CyPos *pos) {
    for (int i = 0; i < defaults->len; i++) {
        Default *d = defaults->items[i];
        if (d->done || (pos && !cy_pos_before(G->d, d->fn->pos, *pos))) continue;
        d->done = 1;
        int mark = G->live.len;
        assign_obj(G, d->cname, gen(G, d->fn->param_defaults.items[d->param]));
        release_to(G, mark);
    }
}

static int is_def_like(const IrFunc *f) { return f->kind == F_DEF || f->kind == F_CPDEF; }

/* The Python function of a fused def/cpdef: per fused type, the type of
 * its first argument (cyrt_fused_scalar/cyrt_fused_view), then the
 * specialisation those types name, whose wrapper takes the call as is. */
static void emit_fused_dispatch(Gen *G, IrFunc *g, CyBuf *dst) {
    int ns = g->fused_slots.len, nsp = g->fused_specs.len, minpos = 0;
    for (int i = 0; i < g->params.len; i++)
        if (!g->param_defaults.items[i]) minpos++;
    G->e.out = dst;
    G->e.ind = 0;
    out(G, "static PyObject *cy_pw_%s(PyObject *cy_self, PyObject *const *cy_args, Py_ssize_t cy_nargs, PyObject *cy_kwnames) {",
        g->name);
    G->e.ind = 1;
    CyBuf tb = {0};
    for (int j = 0; j < nsp; j++) {
        IrFunc *sp = g->fused_specs.items[j];
        for (int k = 0; k < ns; k++) {
            int pi = (int)(intptr_t)g->fused_slots.items[k];
            const CyType *t = ((IrVar *)sp->params.items[pi])->ty;
            /* the index of t among this slot's types (those of the first specialisations) */
            int idx = 0;
            for (int jj = 0; jj < nsp; jj++) {
                const CyType *u = ((IrVar *)((IrFunc *)g->fused_specs.items[jj])->params.items[pi])->ty;
                if (cy_type_equal(u, t) && !strcmp(u->name, t->name)) break;
                int seen = 0;
                for (int j2 = 0; j2 < jj && !seen; j2++) {
                    const CyType *w = ((IrVar *)((IrFunc *)g->fused_specs.items[j2])->params.items[pi])->ty;
                    seen = cy_type_equal(u, w) && !strcmp(u->name, w->name);
                }
                if (!seen) idx++;
            }
            cy_buf_printf(&tb, "%d, ", idx);
        }
    }
    out(G, "static const int cy_table[] = {%s};", tb.s);
    cy_buf_free(&tb);
    out(G, "int cy_sig[%d];", ns);
    out(G, "PyObject *cy_a;");
    out(G, "(void)cy_self;");
    for (int k = 0; k < ns; k++) {
        int pi = (int)(intptr_t)g->fused_slots.items[k];
        IrVar *p0 = g->params.items[pi];
        int dflt = (int)(intptr_t)g->fused_dflt.items[k];
        out(G, "cy_a = cyrt_fused_arg(cy_args, cy_nargs, cy_kwnames, %d, %s, %d, %d);", pi, c_strz(G, p0->name),
            minpos, dflt != -3);
        if (dflt == -3) {
            out(G, "if (!cy_a) return NULL;");
        } else {
            out(G, "if (!cy_a) {");
            G->e.ind++;
            out(G, "cy_sig[%d] = %d;", k, dflt);
            G->e.ind--;
            out(G, "} else");
        }
        /* this slot's distinct types, in the specialisations' order */
        CyVec ts = {0};
        for (int j = 0; j < nsp; j++) {
            const CyType *t = ((IrVar *)((IrFunc *)g->fused_specs.items[j])->params.items[pi])->ty;
            int seen = 0;
            for (int q = 0; q < ts.len && !seen; q++)
                seen = cy_type_equal(ts.items[q], t) && !strcmp(((CyType *)ts.items[q])->name, t->name);
            if (!seen) cy_vec_push(G->a, &ts, (void *)t);
        }
        /* an np.ndarray[T, ndim=N] buffer argument matches as a T[:, ...] view */
        int buffer = p0->ty->kind == TY_OBJECT && p0->ty->base && is_view(p0->ty->base);
        if (is_view(p0->ty) || buffer) {
            CyBuf cb = {0};
            for (int q = 0; q < ts.len; q++)
                cy_buf_printf(&cb, "&%s, ", view_spec(G, buffer ? ((CyType *)ts.items[q])->base : ts.items[q]));
            out(G, "{");
            G->e.ind++;
            out(G, "static const cyrt_vspec *const cy_cand[] = {%s};", cb.s);
            out(G, "if ((cy_sig[%d] = cyrt_fused_view(cy_a, cy_cand, %d, %d)) == -2) return NULL;", k, ts.len,
                !(int)(intptr_t)g->param_not_none.items[pi]);
            G->e.ind--;
            out(G, "}");
            cy_buf_free(&cb);
        } else {
            int *pick = cy_alloc(G->a, 3 * sizeof *pick);
            for (int c = 0; c < 3; c++) pick[c] = (int)(intptr_t)g->fused_pick.items[3 * k + c];
            out(G, "cy_sig[%d] = cyrt_fused_scalar(cy_a, %d, %d, %d);", k, pick[0], pick[1], pick[2]);
        }
    }
    out(G, "switch (cyrt_fused_pick(cy_sig, %d, cy_table, %d)) {", ns, nsp);
    for (int j = 0; j < nsp; j++)
        out(G, "case %d: return %s(cy_self, cy_args, cy_nargs, cy_kwnames);", j,
            wrapper_name(G, g->fused_specs.items[j]));
    out(G, "default: return NULL;");
    out(G, "}");
    G->e.ind = 0;
    out(G, "}");
    out(G, "%s", "");
}

/* Cython's key of a specialisation in __signatures__: its fused types'
 * names (a view's or buffer's dtype; a typedef without its module) joined
 * by '|'. */
static const char *fused_key(Gen *G, IrFunc *g, IrFunc *sp) {
    CyBuf b = {0};
    for (int k = 0; k < g->fused_slots.len; k++) {
        const CyType *t = ((IrVar *)sp->params.items[(int)(intptr_t)g->fused_slots.items[k]])->ty;
        if (is_view(t)) t = t->base;
        else if (is_obj(t) && t->base && is_view(t->base)) t = t->base->base;
        const char *n = t->name, *dot = strrchr(n, '.');
        cy_buf_printf(&b, "%s%s", k ? "|" : "", dot ? dot + 1 : n);
    }
    const char *r = cy_strdup(G->a, b.s ? b.s : "");
    cy_buf_free(&b);
    return r;
}

/* The fused def/cpdef functions become cyrt_fusedfunc objects in the new
 * module (f["double"] from Python); returns how many. */
static int emit_fused_objects(Gen *G) {
    const IrModule *m = G->m;
    int n = 0;
    for (int i = 0; i < m->funcs.len; i++) {
        IrFunc *g = m->funcs.items[i];
        if (!is_def_like(g) || g->fused_of || !g->fused_specs.len) continue;
        if (!n++) {
            out(G, "static int cy_fused_objects(PyObject *m) {");
            G->e.ind = 1;
            out(G, "PyObject *mod = PyModule_GetNameObject(m), *sigs = NULL, *fn = NULL, *ff = NULL;");
            out(G, "if (!mod) return -1;");
        }
        out(G, "{");
        G->e.ind++;
        out(G, "static PyMethodDef defs[] = {");
        for (int j = 0; j < g->fused_specs.len; j++) {
            IrFunc *sp = g->fused_specs.items[j];
            out(G, "    {%s, (PyCFunction)(void (*)(void))%s, METH_FASTCALL | METH_KEYWORDS, NULL},",
                c_strz(G, sp->spec_name ? sp->spec_name : g->name), wrapper_name(G, sp));
        }
        out(G, "};");
        out(G, "if (!(sigs = PyDict_New())) goto bad;");
        for (int j = 0; j < g->fused_specs.len; j++) {
            out(G, "if (!(fn = PyCFunction_NewEx(&defs[%d], NULL, mod))) goto bad;", j);
            out(G, "if (PyDict_SetItemString(sigs, %s, fn) < 0) goto bad;", c_strz(G, fused_key(G, g, g->fused_specs.items[j])));
            out(G, "Py_CLEAR(fn);");
        }
        out(G, "if (!(fn = PyObject_GetAttrString(m, %s))) goto bad;", c_strz(G, g->name));
        out(G, "if (!(ff = cyrt_fusedfunc_new(fn, sigs))) goto bad;");
        out(G, "if (PyObject_SetAttrString(m, %s, ff) < 0) goto bad;", c_strz(G, g->name));
        out(G, "Py_CLEAR(ff);");
        out(G, "Py_CLEAR(fn);");
        out(G, "Py_CLEAR(sigs);");
        G->e.ind--;
        out(G, "}");
    }
    if (n) {
        put(G, "    Py_DECREF(mod);\n"
               "    return 0;\n"
               "bad:\n"
               "    Py_XDECREF(ff);\n"
               "    Py_XDECREF(fn);\n"
               "    Py_XDECREF(sigs);\n"
               "    Py_DECREF(mod);\n"
               "    return -1;\n"
               "}\n"
               "\n");
        G->e.ind = 0;
    }
    return n;
}

/* ---- cdef classes ----------------------------------------------------------------- */

/* The signature of the dispatcher of a cdef/cpdef method with overrides. */
static const char *dispatch_sig(Gen *G, IrFunc *f) {
    IrFunc d = *f;
    d.cname = FMT("cy_vd_%s", f->cname);
    d.is_inline = 0;
    return func_sig(G, &d);
}

/* Calls of a method that subclasses override go through its dispatcher:
 * the version of the instance's class, the deepest first (a subclass is
 * declared after its base), as Cython's vtable would pick. */
static void emit_dispatcher(Gen *G, IrFunc *f) {
    int st = fn_status(f);
    CyBuf args = {0};
    for (int i = 0; i < f->params.len; i++)
        cy_buf_printf(&args, "%s%s", i ? ", " : "", ((IrVar *)f->params.items[i])->cname);
    if (st && f->ret->kind != TY_VOID) cy_buf_printf(&args, ", cy_ret");
    const char *a = cy_strndup(G->a, args.s, args.len);
    cy_buf_free(&args);
    const char *self = ((IrVar *)f->params.items[0])->cname;
    int ret = st || f->ret->kind != TY_VOID;
    out(G, "%s {", dispatch_sig(G, f));
    G->e.ind = 1;
    for (int i = f->overrides.len - 1; i >= 0; i--) {
        IrFunc *o = f->overrides.items[i];
        out(G, "if (PyObject_TypeCheck(%s, &%s_type)) %s%s(%s);%s", self, o->cls->cname, ret ? "return " : "{ ",
            o->cname, a, ret ? "" : " return; }");
    }
    out(G, "%s%s(%s);", ret ? "return " : "", f->cname, a);
    G->e.ind = 0;
    out(G, "}");
    out(G, "%s", "");
}

/* The object struct of each class and its type object's declaration. */
static void emit_class_decls(Gen *G, const IrModule *m) {
    for (int i = 0; i < m->classes.len; i++) {
        IrClass *c = m->classes.items[i];
        /* fields a_NAME: an attribute may be named as a C keyword (default) or a
           PyObject_HEAD field */
        out(G, "typedef struct {");
        if (c->base) out(G, "    %s cy_base;", c->base->cname);
        else out(G, "    PyObject_HEAD");
        for (int k = 0; k < c->attrs.len; k++) {
            IrAttr *at = c->attrs.items[k];
            out(G, "    %s;", decl(G, at->ty, FMT("a_%s", at->name)));
        }
        out(G, "} %s;", c->cname);
        out(G, "static PyTypeObject %s_type;", c->cname);
        out(G, "%s", "");
    }
}

static int class_has_gc(const IrClass *c) {
    for (; c; c = c->base)
        for (int k = 0; k < c->attrs.len; k++)
            if (is_obj(((IrAttr *)c->attrs.items[k])->ty)) return 1;
    return 0;
}

/* A setter's conversion of cy_v to the attribute's C type, in a function
 * whose error exit is L_error. */
static void emit_setter(Gen *G, IrClass *c, IrAttr *at) {
    reset_func(G);
    G->fname = at->name;
    G->ret = cy_type_scalar(TY_VOID);
    G->gil = 1;
    TScope fs = {0};
    G->scope = &fs;
    Frame *ff = push_frame(G, FR_FUNC);
    ff->err_label = "L_error";
    CyBuf text = {0};
    CyBuf *dst = G->e.out;
    G->e.out = &text;
    G->e.ind = 1;
    const char *f = FMT("((%s *)cy_o)->a_%s", c->cname, at->name);
    if (is_obj(at->ty)) {
        out(G, "if (!cy_v) cy_v = Py_None;");
        if (at->ty->cls)
            goto_err_if(G, FMT("cyrt_ext_check(cy_v, &%s_type, NULL, 0) < 0", at->ty->cls->cname));
        else if (at->ty->pyclass && !strcmp(at->ty->pyclass, "numpy.ndarray"))
            goto_err_if(G, "cyrt_ndarray_check(cy_v, NULL, 0) < 0");
        else if (at->ty->pyclass && builtin_type_obj(at->ty->pyclass))
            goto_err_if(G, FMT("cyrt_builtin_check(cy_v, &%s, NULL, 0) < 0", builtin_type_obj(at->ty->pyclass)));
        out(G, "Py_INCREF(cy_v);");
        out(G, "Py_SETREF(%s, cy_v);", f);
    } else if (is_view(at->ty)) {
        out(G, "if (!cy_v) { PyErr_SetString(PyExc_NotImplementedError, \"__del__\"); goto L_error; }");
        out(G, "cy_view cy_t;");
        out(G, "memset(&cy_t, 0, sizeof cy_t);");
        goto_err_if(G, FMT("cyrt_view_from_obj(cy_v, &cy_t, &%s, NULL, 0) < 0", view_spec(G, at->ty)));
        out(G, "cyrt_view_move(&%s, &cy_t);", f);
    } else {
        out(G, "if (!cy_v) { PyErr_SetString(PyExc_NotImplementedError, \"__del__\"); goto L_error; }");
        const char *v = unbox(G, at->ty, "cy_v");
        out(G, "%s = %s;", f, v);
    }
    G->e.out = dst;
    G->e.ind = 0;
    out(G, "static int %s_set_%s(PyObject *cy_o, PyObject *cy_v, void *cy_c) {", c->cname, at->name);
    G->e.ind = 1;
    out(G, "(void)cy_c;");
    scope_decls(G, &fs);
    cy_buf_put(G->e.out, text.s ? text.s : "", text.len);
    cy_buf_free(&text);
    out(G, "return 0;");
    out(G, "L_error:");
    out(G, "return -1;");
    G->e.ind = 0;
    out(G, "}");
    pop_frame(G);
}

/* Each class's slots: allocation (objects None, views empty, then
 * __cinit__), deallocation (__dealloc__, then the references), the GC's
 * traversal of object attributes, getters and setters of public/readonly
 * ones, the method table and the type object. */
static IrFunc *prop_accessor(const CyVec *v, const char *name) {
    for (int k = 0; k < v->len; k++)
        if (!strcmp(((IrFunc *)v->items[k])->name, name)) return v->items[k];
    return NULL;
}

static IrFunc *own_method(const IrClass *c, const char *name) {
    for (int k = 0; k < c->methods.len; k++) {
        IrFunc *f = c->methods.items[k];
        if (!strcmp(f->name, name) && is_def_like(f)) return f;
    }
    return NULL;
}

/* The type slots of a class's special methods: each calls the method's
 * def wrapper (so arguments convert and errors propagate as for a call)
 * and converts its result as the slot needs (Cython's slot functions).
 * Fills as_number/as_sequence/as_mapping with the tables it defined ("" if
 * none) and returns the PyTypeObject lines for the other slots. */
static const char *emit_class_slots(Gen *G, const IrClass *c, const char **num, const char **seq, const char **map) {
    const char *cn = c->cname, *tp = "";
    IrFunc *f;
    *num = *seq = *map = "";
#define SLOT_CALL0(fn) FMT("cy_pw_%s(cy_o, NULL, 0, NULL)", (fn)->cname)
/* the method's wrapper on self with one argument (a compound literal array) */
#define SLOT_CALL1(fn, self, arg) FMT("cy_pw_%s(%s, (PyObject *[1]){%s}, 1, NULL)", (fn)->cname, (self), (arg))
    if ((f = own_method(c, "__repr__"))) {
        out(G, "static PyObject *%s_repr(PyObject *cy_o) { return %s; }", cn, SLOT_CALL0(f));
        tp = FMT("%s.tp_repr = %s_repr,\n", tp, cn);
    }
    if ((f = own_method(c, "__str__"))) {
        out(G, "static PyObject *%s_str(PyObject *cy_o) { return %s; }", cn, SLOT_CALL0(f));
        tp = FMT("%s.tp_str = %s_str,\n", tp, cn);
    }
    if ((f = own_method(c, "__iter__"))) {
        out(G, "static PyObject *%s_iter(PyObject *cy_o) { return %s; }", cn, SLOT_CALL0(f));
        tp = FMT("%s.tp_iter = %s_iter,\n", tp, cn);
    }
    if ((f = own_method(c, "__next__"))) {
        out(G, "static PyObject *%s_next(PyObject *cy_o) { return %s; }", cn, SLOT_CALL0(f));
        tp = FMT("%s.tp_iternext = %s_next,\n", tp, cn);
    }
    if ((f = own_method(c, "__call__"))) {
        out(G, "static PyObject *%s_call(PyObject *cy_o, PyObject *cy_a, PyObject *cy_k) {", cn);
        out(G, "    return cyrt_call_tuple(cy_pw_%s, cy_o, cy_a, cy_k);", f->cname);
        out(G, "}");
        tp = FMT("%s.tp_call = %s_call,\n", tp, cn);
    }
    if ((f = own_method(c, "__hash__"))) {
        out(G, "static Py_hash_t %s_hash(PyObject *cy_o) {", cn);
        out(G, "    PyObject *cy_r = %s;", SLOT_CALL0(f));
        out(G, "    if (!cy_r) return -1;");
        out(G, "    Py_hash_t cy_h = (Py_hash_t)PyLong_AsSsize_t(cy_r);");
        out(G, "    Py_DECREF(cy_r);");
        out(G, "    if (cy_h == -1 && !PyErr_Occurred()) cy_h = -2;");
        out(G, "    return cy_h;");
        out(G, "}");
        tp = FMT("%s.tp_hash = %s_hash,\n", tp, cn);
    }
    CyBuf nb = {0};
    if ((f = own_method(c, "__bool__"))) {
        out(G, "static int %s_bool(PyObject *cy_o) {", cn);
        out(G, "    PyObject *cy_r = %s;", SLOT_CALL0(f));
        out(G, "    if (!cy_r) return -1;");
        out(G, "    int cy_t = PyObject_IsTrue(cy_r);");
        out(G, "    Py_DECREF(cy_r);");
        out(G, "    return cy_t;");
        out(G, "}");
        cy_buf_printf(&nb, ".nb_bool = %s_bool, ", cn);
    }
    /* binary operators as Cython 3 calls them: __add__ when the left
       operand is an instance, else (or when it returns NotImplemented)
       __radd__ when the right one is; in-place ones directly */
    static const char *const binops[][2] = {
        {"add", "nb_add"}, {"sub", "nb_subtract"}, {"mul", "nb_multiply"}, {"truediv", "nb_true_divide"},
        {"floordiv", "nb_floor_divide"}, {"mod", "nb_remainder"}, {"matmul", "nb_matrix_multiply"},
        {"and", "nb_and"}, {"or", "nb_or"}, {"xor", "nb_xor"}, {"lshift", "nb_lshift"}, {"rshift", "nb_rshift"}};
    for (int k = 0; k < (int)(sizeof binops / sizeof binops[0]); k++) {
        IrFunc *fw = own_method(c, FMT("__%s__", binops[k][0])), *rv = own_method(c, FMT("__r%s__", binops[k][0]));
        IrFunc *ip = own_method(c, FMT("__i%s__", binops[k][0]));
        if (fw || rv) {
            out(G, "static PyObject *%s_%s(PyObject *cy_a, PyObject *cy_b) {", cn, binops[k][1]);
            if (fw) {
                out(G, "    if (PyObject_TypeCheck(cy_a, &%s_type)) {", cn);
                out(G, "        PyObject *cy_r = %s;", SLOT_CALL1(fw, "cy_a", "cy_b"));
                out(G, "        if (cy_r != Py_NotImplemented) return cy_r;");
                out(G, "        Py_DECREF(cy_r);");
                out(G, "    }");
            }
            if (rv) {
                out(G, "    if (PyObject_TypeCheck(cy_b, &%s_type)) {", cn);
                out(G, "        return %s;", SLOT_CALL1(rv, "cy_b", "cy_a"));
                out(G, "    }");
            }
            out(G, "    Py_RETURN_NOTIMPLEMENTED;");
            out(G, "}");
            cy_buf_printf(&nb, ".%s = %s_%s, ", binops[k][1], cn, binops[k][1]);
        }
        if (ip) {
            out(G, "static PyObject *%s_i%s(PyObject *cy_a, PyObject *cy_b) { return %s; }", cn, binops[k][1],
                SLOT_CALL1(ip, "cy_a", "cy_b"));
            cy_buf_printf(&nb, ".nb_inplace_%s = %s_i%s, ", binops[k][1] + 3, cn, binops[k][1]);
        }
    }
    static const char *const unops[][2] = {{"neg", "nb_negative"}, {"pos", "nb_positive"}, {"abs", "nb_absolute"},
                                           {"invert", "nb_invert"}, {"int", "nb_int"}, {"float", "nb_float"},
                                           {"index", "nb_index"}};
    for (int k = 0; k < (int)(sizeof unops / sizeof unops[0]); k++) {
        IrFunc *u = own_method(c, FMT("__%s__", unops[k][0]));
        if (!u) continue;
        out(G, "static PyObject *%s_%s(PyObject *cy_o) { return %s; }", cn, unops[k][1], SLOT_CALL0(u));
        cy_buf_printf(&nb, ".%s = %s_%s, ", unops[k][1], cn, unops[k][1]);
    }
    if (nb.len) {
        out(G, "static PyNumberMethods %s_as_number = {%s};", cn, nb.s);
        *num = FMT("&%s_as_number", cn);
    }
    cy_buf_free(&nb);
    IrFunc *len = own_method(c, "__len__"), *gi = own_method(c, "__getitem__"), *si = own_method(c, "__setitem__"),
           *di = own_method(c, "__delitem__"), *ct = own_method(c, "__contains__");
    if (len) {
        out(G, "static Py_ssize_t %s_len(PyObject *cy_o) {", cn);
        out(G, "    PyObject *cy_r = %s;", SLOT_CALL0(len));
        out(G, "    if (!cy_r) return -1;");
        out(G, "    Py_ssize_t cy_n = PyLong_AsSsize_t(cy_r);");
        out(G, "    Py_DECREF(cy_r);");
        out(G, "    return cy_n;");
        out(G, "}");
    }
    if (gi) {
        out(G, "static PyObject *%s_getitem(PyObject *cy_o, PyObject *cy_k) { return %s; }", cn,
            SLOT_CALL1(gi, "cy_o", "cy_k"));
        /* sq_item: what iteration falls back to without __iter__ */
        out(G, "static PyObject *%s_sq_item(PyObject *cy_o, Py_ssize_t cy_i) {", cn);
        out(G, "    PyObject *cy_k = PyLong_FromSsize_t(cy_i), *cy_r;");
        out(G, "    if (!cy_k) return NULL;");
        out(G, "    cy_r = %s_getitem(cy_o, cy_k);", cn);
        out(G, "    Py_DECREF(cy_k);");
        out(G, "    return cy_r;");
        out(G, "}");
    }
    if (si || di) {
        out(G, "static int %s_setitem(PyObject *cy_o, PyObject *cy_k, PyObject *cy_v) {", cn);
        out(G, "    PyObject *cy_r;");
        out(G, "    if (cy_v) {");
        if (si) {
            out(G, "        PyObject *cy_a[2] = {cy_k, cy_v};");
            out(G, "        cy_r = cy_pw_%s(cy_o, cy_a, 2, NULL);", si->cname);
        } else {
            out(G, "        PyErr_Format(PyExc_NotImplementedError, \"Subscript assignment not supported by %%.200s\", "
                   "Py_TYPE(cy_o)->tp_name);");
            out(G, "        return -1;");
        }
        out(G, "    } else {");
        if (di) {
            out(G, "        cy_r = %s;", SLOT_CALL1(di, "cy_o", "cy_k"));
        } else {
            out(G, "        PyErr_Format(PyExc_NotImplementedError, \"Subscript deletion not supported by %%.200s\", "
                   "Py_TYPE(cy_o)->tp_name);");
            out(G, "        return -1;");
        }
        out(G, "    }");
        out(G, "    if (!cy_r) return -1;");
        out(G, "    Py_DECREF(cy_r);");
        out(G, "    return 0;");
        out(G, "}");
    }
    if (ct) {
        out(G, "static int %s_contains(PyObject *cy_o, PyObject *cy_k) {", cn);
        out(G, "    PyObject *cy_r = %s;", SLOT_CALL1(ct, "cy_o", "cy_k"));
        out(G, "    if (!cy_r) return -1;");
        out(G, "    int cy_t = PyObject_IsTrue(cy_r);");
        out(G, "    Py_DECREF(cy_r);");
        out(G, "    return cy_t;");
        out(G, "}");
    }
    if (len || gi || ct) {
        out(G, "static PySequenceMethods %s_as_sequence = {%s%s%s};", cn, len ? FMT(".sq_length = %s_len, ", cn) : "",
            gi ? FMT(".sq_item = %s_sq_item, ", cn) : "", ct ? FMT(".sq_contains = %s_contains", cn) : "");
        *seq = FMT("&%s_as_sequence", cn);
    }
    if (len || gi || si || di) {
        out(G, "static PyMappingMethods %s_as_mapping = {%s%s%s};", cn, len ? FMT(".mp_length = %s_len, ", cn) : "",
            gi ? FMT(".mp_subscript = %s_getitem, ", cn) : "", si || di ? FMT(".mp_ass_subscript = %s_setitem", cn) : "");
        *map = FMT("&%s_as_mapping", cn);
    }
    static const char *const cmp_names[] = {"__lt__", "__le__", "__eq__", "__ne__", "__gt__", "__ge__"};
    static const char *const cmp_ops[] = {"Py_LT", "Py_LE", "Py_EQ", "Py_NE", "Py_GT", "Py_GE"};
    IrFunc *rc = own_method(c, "__richcmp__"), *cmp[6];
    int ncmp = 0;
    for (int k = 0; k < 6; k++) ncmp += (cmp[k] = own_method(c, cmp_names[k])) != NULL;
    if (rc || ncmp) {
        /* __richcmp__(self, other, op) takes every operator; else each of
           __eq__ ... its own, __ne__ the inverse of __eq__ where only that
           is defined (as object's), the others NotImplemented */
        out(G, "static PyObject *%s_richcmp(PyObject *cy_o, PyObject *cy_w, int cy_op) {", cn);
        G->e.ind = 1;
        if (rc) {
            out(G, "PyObject *cy_opo = PyLong_FromLong(cy_op), *cy_r;");
            out(G, "if (!cy_opo) return NULL;");
            out(G, "PyObject *cy_a[2] = {cy_w, cy_opo};");
            out(G, "cy_r = cy_pw_%s(cy_o, cy_a, 2, NULL);", rc->cname);
            out(G, "Py_DECREF(cy_opo);");
            out(G, "return cy_r;");
        } else {
            out(G, "PyObject *cy_a[1] = {cy_w};");
            out(G, "switch (cy_op) {");
            for (int k = 0; k < 6; k++) {
                if (cmp[k]) {
                    out(G, "case %s: return cy_pw_%s(cy_o, cy_a, 1, NULL);", cmp_ops[k], cmp[k]->cname);
                } else if (k == 3 && cmp[2]) {
                    out(G, "case Py_NE: {");
                    out(G, "    PyObject *cy_r = cy_pw_%s(cy_o, cy_a, 1, NULL);", cmp[2]->cname);
                    out(G, "    if (!cy_r || cy_r == Py_NotImplemented) return cy_r;");
                    out(G, "    int cy_t = PyObject_IsTrue(cy_r);");
                    out(G, "    Py_DECREF(cy_r);");
                    out(G, "    if (cy_t < 0) return NULL;");
                    out(G, "    return PyBool_FromLong(!cy_t);");
                    out(G, "}");
                }
            }
            out(G, "default: break;");
            out(G, "}");
            out(G, "Py_RETURN_NOTIMPLEMENTED;");
        }
        G->e.ind = 0;
        out(G, "}");
        tp = FMT("%s.tp_richcompare = %s_richcmp,\n", tp, cn);
    }
#undef SLOT_CALL0
#undef SLOT_CALL1
    return tp;
}

static void emit_classes(Gen *G, const IrModule *m) {
    for (int i = 0; i < m->classes.len; i++) {
        IrClass *c = m->classes.items[i];
        const char *cn = c->cname;
        int gc = class_has_gc(c);
        out(G, "static PyObject *%s_new(PyTypeObject *cy_t, PyObject *cy_args, PyObject *cy_kw) {", cn);
        G->e.ind = 1;
        if (c->base) /* the base's attributes and __cinit__ first, as Cython's */
            out(G, "%s *cy_o = (%s *)%s_new(cy_t, cy_args, cy_kw);", cn, cn, c->base->cname);
        else
            out(G, "%s *cy_o = (%s *)cy_t->tp_alloc(cy_t, 0);", cn, cn);
        out(G, "(void)cy_args;");
        out(G, "(void)cy_kw;");
        out(G, "if (!cy_o) return NULL;");
        for (int k = 0; k < c->attrs.len; k++) {
            IrAttr *at = c->attrs.items[k];
            if (is_obj(at->ty)) out(G, "cy_o->a_%s = Py_None;\n    Py_INCREF(Py_None);", at->name);
        }
        if (c->cinit) {
            /* a __cinit__ of self alone ignores the constructor's arguments (Cython) */
            if (c->cinit->params.len == 1)
                out(G, "PyObject *cy_r = cy_pw_%s((PyObject *)cy_o, NULL, 0, NULL);", c->cinit->cname);
            else
                out(G, "PyObject *cy_r = cyrt_call_tuple(cy_pw_%s, (PyObject *)cy_o, cy_args, cy_kw);", c->cinit->cname);
            out(G, "if (!cy_r) {");
            out(G, "    Py_DECREF(cy_o);");
            out(G, "    return NULL;");
            out(G, "}");
            out(G, "Py_DECREF(cy_r);");
        }
        out(G, "return (PyObject *)cy_o;");
        G->e.ind = 0;
        out(G, "}");
        out(G, "%s", "");
        out(G, "static void %s_dealloc(PyObject *cy_self) {", cn);
        G->e.ind = 1;
        out(G, "%s *cy_o = (%s *)cy_self;", cn, cn);
        if (gc) out(G, "PyObject_GC_UnTrack(cy_self);");
        if (c->dealloc) {
            /* as Cython: the pending exception kept, the object alive during the call */
            out(G, "PyObject *cy_et, *cy_ev, *cy_tb, *cy_r;");
            out(G, "PyErr_Fetch(&cy_et, &cy_ev, &cy_tb);");
            out(G, "Py_SET_REFCNT(cy_self, Py_REFCNT(cy_self) + 1);");
            out(G, "cy_r = %s(cy_self);", c->dealloc->cname);
            out(G, "if (!cy_r) PyErr_WriteUnraisable(cy_self);");
            out(G, "Py_XDECREF(cy_r);");
            out(G, "Py_SET_REFCNT(cy_self, Py_REFCNT(cy_self) - 1);");
            out(G, "PyErr_Restore(cy_et, cy_ev, cy_tb);");
        }
        for (int k = 0; k < c->attrs.len; k++) {
            IrAttr *at = c->attrs.items[k];
            if (is_obj(at->ty)) out(G, "Py_CLEAR(cy_o->a_%s);", at->name);
            if (is_view(at->ty)) out(G, "cyrt_view_release(&cy_o->a_%s);", at->name);
        }
        out(G, "(void)cy_o;");
        if (c->base) out(G, "%s_dealloc(cy_self);", c->base->cname);
        else out(G, "Py_TYPE(cy_self)->tp_free(cy_self);");
        G->e.ind = 0;
        out(G, "}");
        out(G, "%s", "");
        if (gc) {
            /* views are not visited: their buffers' exporters are held once per
               shared owner, not per view, so the GC could not count them */
            out(G, "static int %s_traverse(PyObject *cy_self, visitproc visit, void *arg) {", cn);
            G->e.ind = 1;
            out(G, "%s *cy_o = (%s *)cy_self;", cn, cn);
            out(G, "(void)cy_o;");
            if (c->base && class_has_gc(c->base)) {
                out(G, "int cy_e = %s_traverse(cy_self, visit, arg);", c->base->cname);
                out(G, "if (cy_e) return cy_e;");
            }
            for (int k = 0; k < c->attrs.len; k++) {
                IrAttr *at = c->attrs.items[k];
                if (is_obj(at->ty)) out(G, "Py_VISIT(cy_o->a_%s);", at->name);
            }
            out(G, "return 0;");
            G->e.ind = 0;
            out(G, "}");
            out(G, "%s", "");
            out(G, "static int %s_clear(PyObject *cy_self) {", cn);
            G->e.ind = 1;
            out(G, "%s *cy_o = (%s *)cy_self;", cn, cn);
            out(G, "(void)cy_o;");
            if (c->base && class_has_gc(c->base)) out(G, "%s_clear(cy_self);", c->base->cname);
            for (int k = 0; k < c->attrs.len; k++) {
                IrAttr *at = c->attrs.items[k];
                if (!is_obj(at->ty)) continue;
                out(G, "Py_INCREF(Py_None);");
                out(G, "Py_SETREF(cy_o->a_%s, Py_None);", at->name);
            }
            out(G, "return 0;");
            G->e.ind = 0;
            out(G, "}");
            out(G, "%s", "");
        }
        int ngs = 0;
        for (int k = 0; k < c->attrs.len; k++) {
            IrAttr *at = c->attrs.items[k];
            if (!at->vis) continue;
            ngs++;
            const char *f = FMT("((%s *)cy_o)->a_%s", cn, at->name);
            out(G, "static PyObject *%s_get_%s(PyObject *cy_o, void *cy_c) {", cn, at->name);
            G->e.ind = 1;
            out(G, "(void)cy_c;");
            if (is_obj(at->ty)) {
                out(G, "Py_INCREF(%s);", f);
                out(G, "return %s;", f);
            } else if (is_view(at->ty)) {
                out(G, "if (!%s.owner) return (cyrt_err_view_uninit(), NULL);", f);
                out(G, "return cyrt_view_to_obj(&%s, %d);", f, at->ty->ndim);
            } else {
                out(G, "return %s;", box_call(G, at->ty, f));
            }
            G->e.ind = 0;
            out(G, "}");
            if (at->vis == 1) emit_setter(G, c, at);
            out(G, "%s", "");
        }
        for (int k = 0; k < c->props.len; k++) {
            IrFunc *f = c->props.items[k];
            ngs++;
            out(G, "static PyObject *%s_prop_%s(PyObject *cy_o, void *cy_c) {", cn, f->name);
            out(G, "    (void)cy_c;");
            out(G, "    return cy_pw_%s(cy_o, NULL, 0, NULL);", f->cname);
            out(G, "}");
            IrFunc *set = prop_accessor(&c->setters, f->name), *del = prop_accessor(&c->deleters, f->name);
            if (set || del) {
                /* Cython's property setter: a missing half is NotImplementedError("__set__"/"__del__") */
                out(G, "static int %s_propset_%s(PyObject *cy_o, PyObject *cy_v, void *cy_c) {", cn, f->name);
                out(G, "    (void)cy_c;");
                out(G, "    PyObject *cy_r;");
                if (set) {
                    out(G, "    if (cy_v) {");
                    out(G, "        PyObject *cy_a[1] = {cy_v};");
                    out(G, "        cy_r = cy_pw_%s(cy_o, cy_a, 1, NULL);", set->cname);
                    out(G, "    } else");
                } else {
                    out(G, "    if (cy_v) {");
                    out(G, "        PyErr_SetString(PyExc_NotImplementedError, \"__set__\");");
                    out(G, "        return -1;");
                    out(G, "    } else");
                }
                if (del) {
                    out(G, "        cy_r = cy_pw_%s(cy_o, NULL, 0, NULL);", del->cname);
                } else {
                    out(G, "    {");
                    out(G, "        PyErr_SetString(PyExc_NotImplementedError, \"__del__\");");
                    out(G, "        return -1;");
                    out(G, "    }");
                }
                out(G, "    if (!cy_r) return -1;");
                out(G, "    Py_DECREF(cy_r);");
                out(G, "    return 0;");
                out(G, "}");
            }
            out(G, "%s", "");
        }
        if (ngs) {
            out(G, "static PyGetSetDef %s_getset[] = {", cn);
            G->e.ind = 1;
            for (int k = 0; k < c->attrs.len; k++) {
                IrAttr *at = c->attrs.items[k];
                if (!at->vis) continue;
                out(G, "{%s, %s_get_%s, %s, NULL, NULL},", c_strz(G, at->name), cn, at->name,
                    at->vis == 1 ? FMT("%s_set_%s", cn, at->name) : "NULL");
            }
            for (int k = 0; k < c->props.len; k++) {
                IrFunc *f = c->props.items[k];
                int rw = prop_accessor(&c->setters, f->name) || prop_accessor(&c->deleters, f->name);
                out(G, "{%s, %s_prop_%s, %s, %s, NULL},", c_strz(G, f->name), cn, f->name,
                    rw ? FMT("%s_propset_%s", cn, f->name) : "NULL", f->docstring ? c_strz(G, f->docstring) : "NULL");
            }
            out(G, "{NULL, NULL, NULL, NULL, NULL}");
            G->e.ind = 0;
            out(G, "};");
            out(G, "%s", "");
        }
        if (c->init) {
            out(G, "static int %s_init(PyObject *cy_self, PyObject *cy_args, PyObject *cy_kw) {", cn);
            G->e.ind = 1;
            out(G, "PyObject *cy_r = cyrt_call_tuple(cy_pw_%s, cy_self, cy_args, cy_kw);", c->init->cname);
            out(G, "if (!cy_r) return -1;");
            out(G, "Py_DECREF(cy_r);");
            out(G, "return 0;");
            G->e.ind = 0;
            out(G, "}");
            out(G, "%s", "");
        }
        out(G, "static PyMethodDef %s_methods[] = {", cn);
        G->e.ind = 1;
        for (int k = 0; k < c->methods.len; k++) {
            IrFunc *f = c->methods.items[k];
            if (!is_def_like(f) || f == c->init || f == c->cinit || f == c->dealloc || vec_has(&c->props, f) ||
                vec_has(&c->setters, f) || vec_has(&c->deleters, f) || cy_special_method_is_slot(f->name))
                continue;
            out(G, "{%s, (PyCFunction)(void (*)(void))cy_pw_%s, METH_FASTCALL | METH_KEYWORDS%s, %s},", c_strz(G, f->name),
                f->cname, f->is_classmethod ? " | METH_CLASS" : "", f->docstring ? c_strz(G, f->docstring) : "NULL");
        }
        for (int k = 0; k < c->statics.len; k++) {
            IrFunc *f = c->statics.items[k];
            if (!is_def_like(f)) continue;
            out(G, "{%s, (PyCFunction)(void (*)(void))%s, METH_FASTCALL | METH_KEYWORDS | METH_STATIC, %s},",
                c_strz(G, f->name), wrapper_name(G, f), f->docstring ? c_strz(G, f->docstring) : "NULL");
        }
        out(G, "{NULL, NULL, 0, NULL}");
        G->e.ind = 0;
        out(G, "};");
        out(G, "%s", "");
        const char *num, *seq, *map;
        const char *slots = emit_class_slots(G, c, &num, &seq, &map);
        out(G, "static PyTypeObject %s_type = {", cn);
        G->e.ind = 1;
        out(G, "PyVarObject_HEAD_INIT(NULL, 0)");
        out(G, ".tp_name = %s,", c_strz(G, FMT("%s.%s", m->name, c->name)));
        out(G, ".tp_basicsize = sizeof(%s),", cn);
        out(G, ".tp_dealloc = %s_dealloc,", cn);
        out(G, ".tp_flags = Py_TPFLAGS_DEFAULT%s%s,", gc ? " | Py_TPFLAGS_HAVE_GC" : "",
            c->is_base ? " | Py_TPFLAGS_BASETYPE" : "");
        if (c->base) out(G, ".tp_base = &%s_type,", c->base->cname);
        if (c->docstring) out(G, ".tp_doc = %s,", c_strz(G, c->docstring));
        if (gc) {
            out(G, ".tp_traverse = %s_traverse,", cn);
            out(G, ".tp_clear = %s_clear,", cn);
        }
        out(G, ".tp_methods = %s_methods,", cn);
        if (*num) out(G, ".tp_as_number = %s,", num);
        if (*seq) out(G, ".tp_as_sequence = %s,", seq);
        if (*map) out(G, ".tp_as_mapping = %s,", map);
        for (const char *p = slots, *nl; *p; p = nl + 1) {
            nl = strchr(p, '\n');
            out(G, "%.*s", (int)(nl - p), p);
        }
        if (ngs) out(G, ".tp_getset = %s_getset,", cn);
        if (c->init) out(G, ".tp_init = %s_init,", cn);
        out(G, ".tp_new = %s_new,", cn);
        G->e.ind = 0;
        out(G, "};");
        out(G, "%s", "");
    }
}

int cy_emit_c(CyArena *a, CyDiag *d, const IrModule *m, const CyCOptions *opt, CyBuf *out_buf) {
    Gen G0 = {0}, *G = &G0;
    G->a = G->e.a = a;
    G->d = d;
    G->m = m;
    G->opt = opt;
    int errs0 = d->nerrors;
    CyBuf funcs = {0}, wraps = {0}, init = {0}, hdr = {0};
    CyVec defaults = {0};

    for (int i = 0; i < m->funcs.len; i++) {
        IrFunc *f = m->funcs.items[i];
        if (!is_def_like(f) || f->fused_specs.len) continue;
        for (int k = 0; k < f->params.len; k++)
            if (needs_static_default(f->params.items[k], f->param_defaults.items[k])) {
                Default *df = cy_alloc(a, sizeof *df);
                df->fn = f;
                df->param = k;
                df->cname = cy_fmt(a, "cy_dflt%d", defaults.len);
                cy_vec_push(a, &defaults, df);
            }
    }
    if (opt->opencl && opt->opencl_source && *opt->opencl_source) find_launchers(G);
    for (int i = 0; i < m->funcs.len; i++)
        if (!((IrFunc *)m->funcs.items[i])->fused_specs.len) emit_func(G, m->funcs.items[i], &funcs);
    G->e.out = &funcs;
    G->e.ind = 0;
    for (int i = 0; i < m->funcs.len; i++)
        if (((IrFunc *)m->funcs.items[i])->overrides.len) emit_dispatcher(G, m->funcs.items[i]);
    for (int i = 0; i < m->funcs.len; i++) {
        IrFunc *f = m->funcs.items[i];
        if (f->fused_specs.len) emit_fused_dispatch(G, f, &wraps);
        else if (is_def_like(f) && !(f->cls && f == f->cls->dealloc)) emit_wrapper(G, f, &defaults, &wraps);
    }

    /* module init */
    reset_func(G);
    G->fname = "<module>";
    G->ret = cy_type_scalar(TY_VOID);
    G->gil = 1;
    {
        CyBuf pro = {0};
        cy_buf_printf(&pro, "    if (cyrt_init(cy_module, %s) < 0 || cy_init_constants() < 0) goto L_error;\n",
                      c_strz(G, m->name));
        if (opt->opencl && opt->opencl_source && *opt->opencl_source)
            cy_buf_printf(&pro, "    if (cyrt_ocl_init() < 0) goto L_error;\n");
        for (int i = 0; i < m->module_vars.len; i++) {
            IrVar *v = m->module_vars.items[i];
            if (is_obj(v->ty)) cy_buf_printf(&pro, "    %s = Py_None;\n    Py_INCREF(Py_None);\n", v->cname);
        }
        emit_body(G, &init, "static int cy_module_exec(PyObject *cy_module)", NULL, (CyVec *)&m->init_locals,
                  (CyVec *)&m->init, pro.s, 1, 0, 0, &defaults);
        cy_buf_free(&pro);
    }
    if (d->nerrors > errs0) {
        cy_buf_free(&funcs);
        cy_buf_free(&wraps);
        cy_buf_free(&init);
        return -1;
    }

    for (int i = 0; i < m->structs.len; i++) {
        const CyType *t = m->structs.items[i];
        for (int k = 0; k < t->nfields; k++)
            if (cy_type_is_complex(cy_type_array_scalar(t->ftypes[k]))) G->used_complex = 1;
    }

    /* assemble */
    G->e.out = &hdr;
    G->e.ind = 0;
    const char *src = m->src ? m->src->name : "?";
    out(G, "/* Generated by cyocl %s from %s.  Do not edit. */", opt->version ? opt->version : "", src);
    out(G, "#define PY_SSIZE_T_CLEAN");
    /* as the OpenCL kernels: a * b + c rounded twice unless --fp-contract
       (GCC ignores the pragma: cyocl build passes -ffp-contract) */
    out(G, "#ifdef __clang__");
    out(G, "#pragma STDC FP_CONTRACT %s", opt->fp_contract ? "ON" : "OFF");
    out(G, "#endif");
    out(G, "#include <Python.h>");
    out(G, "#include <math.h>");
    if (G->used_complex) out(G, "#include <complex.h>");
    out(G, "#ifdef _OPENMP");
    out(G, "#include <omp.h>");
    out(G, "#endif");
    for (int i = 0; i < m->headers.len; i++) {
        const char *h = m->headers.items[i];
        if (h[0] == '<') out(G, "#include %s", h);
        else out(G, "#include %s", c_strz(G, h));
    }
    for (int i = 0; i < m->verbatim.len; i++) {
        out(G, "%s", "");
        put(G, m->verbatim.items[i]);
        if (hdr.len && hdr.s[hdr.len - 1] != '\n') put(G, "\n");
    }
    out(G, "%s", "");
    out(G, "/* ---- cyocl prelude begin ---- */");
    put(G, cy_c_prelude);
    if (hdr.len && hdr.s[hdr.len - 1] != '\n') put(G, "\n");
    out(G, "/* ---- cyocl prelude end ---- */");
    out(G, "%s", "");
    emit_structs(G, m);
    emit_class_decls(G, m);
    out(G, "/* ---- module data ---- */");
    for (int i = 0; i < G->consts.len; i++) out(G, "static PyObject *%s;", ((Const *)G->consts.items[i])->cname);
    for (int i = 0; i < defaults.len; i++) out(G, "static PyObject *%s;", ((Default *)defaults.items[i])->cname);
    for (int i = 0; i < m->module_vars.len; i++) {
        IrVar *v = m->module_vars.items[i];
        out(G, "static %s = %s;", decl(G, v->ty, v->cname), zero_init(v->ty));
    }
    for (int i = 0; i < G->vspecs.len; i++) {
        VSpec *v = G->vspecs.items[i];
        out(G, "static const cyrt_vspec %s = %s;", v->cname, v->init);
    }
    for (int i = 0; i < G->traced.len; i++) {
        IrRegion *r = G->traced.items[i];
        int ok = opt->opencl && r->ocl_ok;
        const char *why = !opt->opencl ? "built with --no-opencl" : r->ocl_reason ? r->ocl_reason : "";
        out(G, "static const cyrt_region_info cy_ri%d = {%s, %d, %d, %d, %s};", r->id,
            c_strz(G, r->func ? (r->func->spec_name ? r->func->spec_name : r->func->name) : "<module>"), r->pos.line, r->id, ok, c_strz(G, ok ? "" : json_text(G, why)));
    }
    if (opt->opencl && opt->opencl_source && *opt->opencl_source) {
        /* the kernels of the eligible regions (backends/opencl/oclgen.h),
           built by the runtime on first use */
        out(G, "static const char cy_ocl_source[] __attribute__((unused)) =");
        G->e.ind = 1;
        for (const char *p = opt->opencl_source; *p;) {
            const char *nl = strchr(p, '\n');
            int n = nl ? (int)(nl - p) + 1 : (int)strlen(p);
            out(G, "%s%s", c_str(G, p, n), p[n] ? "" : ";");
            p += n;
        }
        G->e.ind = 0;
    }
    out(G, "%s", "");
    out(G, "static int cy_init_constants(void) {");
    G->e.ind = 1;
    for (int i = 0; i < G->consts.len; i++) {
        Const *k = G->consts.items[i];
        const char *v;
        switch (k->kind) {
        case 0: v = FMT("PyUnicode_InternFromString(%s)", c_strz(G, k->s)); break;
        case 1: v = FMT("PyUnicode_DecodeUTF8(%s, %d, \"surrogatepass\")", c_str(G, k->s, k->len), k->len); break;
        case 2: v = FMT("PyBytes_FromStringAndSize(%s, %d)", c_str(G, k->s, k->len), k->len); break;
        case 3: v = FMT("PyLong_FromString(%s, NULL, 0)", c_strz(G, k->s)); break;
        default: {
            CyBuf b = {0};
            int cnt = 1;
            const char *p = k->s;
            for (const char *q = p;; q++) {
                if (*q == ',' || !*q) {
                    cy_buf_printf(&b, ", %s", name_const(G, cy_strndup(a, p, (size_t)(q - p))));
                    if (!*q) break;
                    p = q + 1;
                    cnt++;
                }
            }
            v = FMT("PyTuple_Pack(%d%s)", cnt, b.s);
            cy_buf_free(&b);
        }
        }
        out(G, "if (!(%s = %s)) return -1;", k->cname, v);
    }
    out(G, "return 0;");
    G->e.ind = 0;
    out(G, "}");
    out(G, "%s", "");
    out(G, "/* ---- functions ---- */");
    for (int i = 0; i < m->funcs.len; i++)
        if (!((IrFunc *)m->funcs.items[i])->fused_specs.len) out(G, "%s;", func_sig(G, m->funcs.items[i]));
    for (int i = 0; i < m->funcs.len; i++)
        if (((IrFunc *)m->funcs.items[i])->overrides.len) out(G, "%s;", dispatch_sig(G, m->funcs.items[i]));
    for (int i = 0; i < m->funcs.len; i++) /* a lambda's function object, made at import */
        if (((IrFunc *)m->funcs.items[i])->is_lambda) out(G, "static PyObject *%s_obj;", ((IrFunc *)m->funcs.items[i])->cname);
    for (int i = 0; i < G->own_called.len; i++)
        out(G, "static PyObject *cy_pw_%s(PyObject *cy_self, PyObject *const *cy_args, Py_ssize_t cy_nargs, "
               "PyObject *cy_kwnames);",
            ((IrFunc *)G->own_called.items[i])->name);
    out(G, "%s", "");
    cy_buf_put(out_buf, hdr.s, hdr.len);
    cy_buf_put(out_buf, funcs.s ? funcs.s : "", funcs.len);
    cy_buf_puts(out_buf, "/* ---- Python wrappers ---- */\n");
    cy_buf_put(out_buf, wraps.s ? wraps.s : "", wraps.len);
    cy_buf_free(&hdr);
    G->e.out = out_buf;
    emit_classes(G, m);
    for (int i = 0; i < m->funcs.len; i++) {
        /* a lambda / nested def made with values (its defaults, its closure's): the factory its
           evaluation calls, which binds them to a new function object as its self */
        IrFunc *f = m->funcs.items[i];
        if (!f->is_dynfunc) continue;
        out(G, "static PyObject *%s_mn;", f->cname);
        out(G, "static PyMethodDef %s_def = {%s, (PyCFunction)(void (*)(void))%s, METH_FASTCALL | METH_KEYWORDS, %s};",
            f->cname, c_strz(G, f->name), wrapper_name(G, f), f->docstring ? c_strz(G, f->docstring) : "NULL");
        out(G, "static PyObject *%s_make(PyObject *cy_self, PyObject *const *cy_args, Py_ssize_t cy_nargs) {", f->cname);
        out(G, "    (void)cy_self;");
        /* a list, not a tuple: a function that calls itself is in its own list, a cycle only a list's
           tp_clear lets the GC break (neither tuples nor builtin functions have one) */
        out(G, "    PyObject *cy_t = PyList_New(cy_nargs);");
        out(G, "    if (!cy_t) return NULL;");
        out(G, "    for (Py_ssize_t cy_i = 0; cy_i < cy_nargs; cy_i++) PyList_SET_ITEM(cy_t, cy_i, Py_NewRef(cy_args[cy_i]));");
        out(G, "    PyObject *cy_f = PyCFunction_NewEx(&%s_def, cy_t, %s_mn);", f->cname, f->cname);
        if (f->self_item) /* it calls itself by its name: the object is in its own list */
            out(G, "    if (cy_f) Py_SETREF(((PyListObject *)cy_t)->ob_item[%d], Py_NewRef(cy_f));", f->self_item - 1);
        out(G, "    Py_DECREF(cy_t);");
        out(G, "    return cy_f;");
        out(G, "}");
        out(G, "static PyMethodDef %s_mkdef = {%s, (PyCFunction)(void (*)(void))%s_make, METH_FASTCALL, NULL};", f->cname,
            c_strz(G, f->name), f->cname);
        out(G, "%s", "");
    }
    out(G, "static PyMethodDef cy_methods[] = {");
    G->e.ind = 1;
    for (int i = 0; i < m->funcs.len; i++) {
        IrFunc *f = m->funcs.items[i];
        if (!is_def_like(f) || f->fused_of || f->cls || f->static_of || f->is_lambda) continue;
        out(G, "{%s, (PyCFunction)(void (*)(void))cy_pw_%s, METH_FASTCALL | METH_KEYWORDS, %s},", c_strz(G, f->name),
            f->name, f->docstring ? c_strz(G, f->docstring) : "NULL");
    }
    out(G, "{NULL, NULL, 0, NULL}");
    G->e.ind = 0;
    out(G, "};");
    out(G, "%s", "");
    out(G, "static struct PyModuleDef cy_moduledef = {PyModuleDef_HEAD_INIT, %s, NULL, -1, cy_methods, NULL, NULL, NULL, NULL};",
        c_strz(G, m->name));
    out(G, "%s", "");
    int nfused = emit_fused_objects(G);
    cy_buf_put(out_buf, init.s ? init.s : "", init.len);
    out(G, "PyMODINIT_FUNC PyInit_%s(void) {", m->name);
    G->e.ind = 1;
    out(G, "PyObject *m = PyModule_Create(&cy_moduledef);");
    out(G, "if (!m) return NULL;");
    for (int i = 0; i < m->classes.len; i++) {
        IrClass *c = m->classes.items[i];
        out(G, "if (PyType_Ready(&%s_type) < 0 || PyModule_AddObject(m, %s, (Py_NewRef((PyObject *)&%s_type))) < 0) {",
            c->cname, c_strz(G, c->name), c->cname);
        out(G, "    Py_DECREF(m);");
        out(G, "    return NULL;");
        out(G, "}");
    }
    for (int i = 0; i < m->funcs.len; i++) {
        IrFunc *f = m->funcs.items[i];
        if (!f->is_lambda) continue;
        if (f->is_dynfunc) {
            out(G, "%s_mn = PyModule_GetNameObject(m);", f->cname);
            out(G, "%s_obj = %s_mn ? PyCFunction_NewEx(&%s_mkdef, NULL, NULL) : NULL;", f->cname, f->cname, f->cname);
            out(G, "if (!%s_obj) {", f->cname);
            out(G, "    Py_DECREF(m);");
            out(G, "    return NULL;");
            out(G, "}");
            continue;
        }
        out(G, "{");
        out(G, "    static PyMethodDef cy_d = {%s, (PyCFunction)(void (*)(void))%s, "
               "METH_FASTCALL | METH_KEYWORDS, %s};", c_strz(G, f->name), wrapper_name(G, f),
            f->docstring ? c_strz(G, f->docstring) : "NULL");
        out(G, "    PyObject *cy_mn = PyModule_GetNameObject(m);");
        out(G, "    %s_obj = cy_mn ? PyCFunction_NewEx(&cy_d, NULL, cy_mn) : NULL;", f->cname);
        out(G, "    Py_XDECREF(cy_mn);");
        out(G, "    if (!%s_obj) {", f->cname);
        out(G, "        Py_DECREF(m);");
        out(G, "        return NULL;");
        out(G, "    }");
        out(G, "}");
    }
    if (nfused) {
        out(G, "if (cy_fused_objects(m) < 0) {");
        out(G, "    Py_DECREF(m);");
        out(G, "    return NULL;");
        out(G, "}");
    }
    out(G, "if (cy_module_exec(m) < 0) {");
    G->e.ind = 2;
    out(G, "Py_DECREF(m);");
    out(G, "return NULL;");
    G->e.ind = 1;
    out(G, "}");
    out(G, "return m;");
    G->e.ind = 0;
    out(G, "}");
    cy_buf_free(&funcs);
    cy_buf_free(&wraps);
    cy_buf_free(&init);
    return 0;
}
