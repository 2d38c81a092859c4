/* parse.c: tokens -> AST, by recursive descent.
 *
 * Expressions follow Python's precedence, with Cython's casts (<T>x,
 * <T?>x), address-of (&x) and sizeof at the level of unary operators.
 * Statements cover the Cython subset cyocl compiles plus enough of the rest
 * to reject it by name.  The first syntax error is reported and unwinds with
 * longjmp (the parser does not recover): all memory is in the arena. */
#define _POSIX_C_SOURCE 200809L
#include "frontend.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* Bounds the recursion on hostile input (the lexer already caps brackets at
 * 200 and indentation at 100 levels, but unary operators and casts nest
 * without brackets). */
#define MAX_DEPTH 200
/* The height of an expression tree: every later phase walks expressions
 * recursively, so the parser bounds it, left-leaning chains (1 + 1 + ...,
 * a and b and ..., x[0][0]...) included, which its own recursion depth does
 * not see.  Realistic code (sums of hundreds of terms) stays well below;
 * every phase is tested at the limit, under ASan too (tests/deep). */
#define MAX_EXPR_HEIGHT 1000

typedef struct {
    CyArena *a;
    CyDiag *d;
    const Token *toks;
    int n, i;
    int depth;
    int class_body;   /* the statements of a cdef class body are being parsed (not a method's) */
    int nlambda;      /* lambdas so far: Cython names them lambda, lambda1, ... in source order */
    int nwith;        /* `with ... as` statements so far: their hidden names */
    int nstar;        /* starred assignments so far: their hidden names */
    int in_func;      /* function bodies being parsed, one inside another */
    jmp_buf jb;
    CyVec pure_names; /* names bound by `T = cython.fused_type(...)` / `cython.typedef(...)`: types */
    const CySource *src;   /* the file these tokens are from */
    struct Loader *ld;     /* the files read so far, shared by the parsers of every file */
    const char *pxd_mod;   /* parsing MODULE.pxd: MODULE; else NULL */
} P;

/* A .pxd read for a cimport (once per module, however often cimported). */
typedef struct Loaded {
    const char *path;
    CyVec foreign; /* ANode*: its declarations of what that module's .pyx defines */
} Loaded;

typedef struct Loader {
    CyVec pxds;  /* Loaded* */
    int depth;   /* files being parsed, one inside another */
    int own;     /* CyPos.file of the module's own .pxd, or 0 */
} Loader;

/* ---- errors --------------------------------------------------------------- */

static _Noreturn void fail(P *p) { longjmp(p->jb, 1); }

static _Noreturn void err_at(P *p, CyPos pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static _Noreturn void err_at(P *p, CyPos pos, const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    cy_error(p->d, pos, "%s", buf);
    fail(p);
}

/* A syntax error at the current token.  Inside brackets opened on an
 * earlier line, the likely mistake is the bracket, so it is blamed. */
static _Noreturn void err_syntax(P *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static _Noreturn void err_syntax(P *p, const char *fmt, ...) {
    const Token *t = &p->toks[p->i];
    if (t->open_bracket >= 0 && t->open_bracket < p->n) {
        const Token *b = &p->toks[t->open_bracket];
        if (b->pos.line < t->pos.line)
            err_at(p, b->pos, "'%s' was never closed", b->text);
    }
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    err_at(p, t->pos, "%s", buf);
}

static _Noreturn void err_unexpected(P *p) {
    switch (p->toks[p->i].kind) {
    case TK_INDENT: err_at(p, p->toks[p->i].pos, "unexpected indent");
    case TK_DEDENT: err_syntax(p, "unexpected unindent");
    case TK_EOF: err_syntax(p, "unexpected end of file");
    default: err_syntax(p, "invalid syntax");
    }
}

/* ---- token helpers -------------------------------------------------------- */

static const Token *tok(P *p) { return &p->toks[p->i]; }

static const Token *ahead(P *p, int k) {
    int j = p->i + k;
    return &p->toks[j < p->n ? j : p->n - 1];
}

static const Token *adv(P *p) {
    const Token *t = &p->toks[p->i];
    if (p->i < p->n - 1)
        p->i++;
    return t;
}

static int is_punct(const Token *t, const char *s) { return t->kind == TK_PUNCT && !strcmp(t->text, s); }
static int is_kw(const Token *t, const char *s) { return t->kind == TK_KW && !strcmp(t->text, s); }
static int is_name(const Token *t, const char *s) { return t->kind == TK_NAME && !strcmp(t->text, s); }

static int at_punct(P *p, const char *s) { return is_punct(tok(p), s); }
static int at_kw(P *p, const char *s) { return is_kw(tok(p), s); }
static int at_name(P *p, const char *s) { return is_name(tok(p), s); }

static int accept_punct(P *p, const char *s) {
    if (!at_punct(p, s))
        return 0;
    adv(p);
    return 1;
}

static int accept_kw(P *p, const char *s) {
    if (!at_kw(p, s))
        return 0;
    adv(p);
    return 1;
}

static void expect_punct(P *p, const char *s) {
    if (!accept_punct(p, s))
        err_syntax(p, "expected '%s'", s);
}

static const Token *expect_name(P *p, const char *what) {
    if (tok(p)->kind != TK_NAME) {
        if (tok(p)->kind == TK_KW)
            err_syntax(p, "invalid syntax: '%s' is a keyword, expected %s", tok(p)->text, what);
        err_syntax(p, "invalid syntax: expected %s", what);
    }
    return adv(p);
}

static void expect_newline(P *p) {
    if (tok(p)->kind != TK_NEWLINE)
        err_unexpected(p);
    adv(p);
}

static void enter(P *p) {
    if (++p->depth > MAX_DEPTH)
        err_at(p, tok(p)->pos, "too deeply nested");
}

static void leave(P *p) { p->depth--; }

static void note_child(P *p, CyVec *stack, ANode *c) {
    if (c && !c->height)
        cy_vec_push(p->a, stack, c);
}

/* Measures the height of e's tree, explicitly stacked (a chain 20,000
 * terms long must not recurse here either); subtrees measured before are
 * not walked again, so parsing stays linear.  Too high: a positioned error. */
static ANode *limit_height(P *p, ANode *e) {
    if (!e || e->height)
        return e;
    CyVec stack = {0};
    cy_vec_push(p->a, &stack, e);
    while (stack.len) {
        ANode *n = stack.items[stack.len - 1];
        if (n->height) {
            stack.len--;
            continue;
        }
        int len0 = stack.len;
        note_child(p, &stack, n->lhs);
        note_child(p, &stack, n->rhs);
        note_child(p, &stack, n->obj);
        note_child(p, &stack, n->cond);
        note_child(p, &stack, n->then);
        note_child(p, &stack, n->other);
        for (int i = 0; i < n->items.len; i++)
            note_child(p, &stack, n->items.items[i]);
        for (int i = 0; i < n->values.len; i++)
            note_child(p, &stack, n->values.items[i]);
        if (stack.len > len0)
            continue; /* children first */
        int h = 0;
        ANode *kids[] = {n->lhs, n->rhs, n->obj, n->cond, n->then, n->other};
        for (size_t i = 0; i < sizeof kids / sizeof kids[0]; i++)
            if (kids[i] && kids[i]->height > h)
                h = kids[i]->height;
        for (int i = 0; i < n->items.len; i++)
            if (n->items.items[i] && ((ANode *)n->items.items[i])->height > h)
                h = ((ANode *)n->items.items[i])->height;
        for (int i = 0; i < n->values.len; i++)
            if (n->values.items[i] && ((ANode *)n->values.items[i])->height > h)
                h = ((ANode *)n->values.items[i])->height;
        /* a < b < c ... is lowered to a chain of `and`s: one level per operator */
        n->height = h + (n->kind == A_COMPARE && n->items.len > 2 ? n->items.len - 1 : 1);
        if (n->height > MAX_EXPR_HEIGHT)
            err_at(p, n->pos, "expression too deeply nested (more than %d levels of operators, calls, "
                              "subscripts or brackets)", MAX_EXPR_HEIGHT);
        stack.len--;
    }
    return e;
}

static ANode *new_node(P *p, ANodeKind k, CyPos pos) {
    ANode *n = cy_alloc(p->a, sizeof *n);
    n->kind = k;
    n->pos = pos;
    return n;
}

static CyPos *pos_dup(P *p, CyPos pos) {
    CyPos *q = cy_alloc(p->a, sizeof *q);
    *q = pos;
    return q;
}

static void push(P *p, CyVec *v, void *item) { cy_vec_push(p->a, v, item); }

/* Can this token begin an expression?  (Decides whether a comma ends a
 * tuple and whether 'return' has a value.) */
static int starts_expr(const Token *t) {
    switch (t->kind) {
    case TK_NAME: case TK_INT: case TK_FLOAT: case TK_IMAG: case TK_STR:
        return 1;
    case TK_KW:
        return !strcmp(t->text, "None") || !strcmp(t->text, "True") || !strcmp(t->text, "False") ||
               !strcmp(t->text, "not") || !strcmp(t->text, "lambda") || !strcmp(t->text, "await") ||
               !strcmp(t->text, "yield");
    case TK_PUNCT: {
        static const char *const ok[] = {"(", "[", "{", "-", "+", "~", "&", "<", "*", "...", NULL};
        for (int k = 0; ok[k]; k++)
            if (!strcmp(t->text, ok[k]))
                return 1;
        return 0;
    }
    default:
        return 0;
    }
}

/* ---- types ---------------------------------------------------------------- */

static int is_c_word(const char *s) {
    static const char *const w[] = {"unsigned", "signed", "short", "long", "char", "int", "float", "double", NULL};
    for (int k = 0; w[k]; k++)
        if (!strcmp(s, w[k]))
            return 1;
    return 0;
}

/* Names that Cython takes for a type even when no variable name follows
 * (a nameless parameter in a C signature: "double sin(double)"). */
static int is_builtin_type(const char *s) {
    static const char *const w[] = {"bint", "void", "object", "Py_ssize_t", "ssize_t", "size_t",
                                    "ptrdiff_t", "Py_hash_t", "Py_UCS4", "Py_UNICODE", NULL};
    if (is_c_word(s))
        return 1;
    for (int k = 0; w[k]; k++)
        if (!strcmp(s, w[k]))
            return 1;
    return 0;
}

/* "unsigned long int" -> "unsigned long", "signed int" -> "int", ... */
static const char *c_scalar(P *p, CyPos pos) {
    int sign = 0, nshort = 0, nlong = 0;
    const char *base = NULL;
    while (tok(p)->kind == TK_NAME && is_c_word(tok(p)->text)) {
        const char *w = adv(p)->text;
        if (!strcmp(w, "signed") || !strcmp(w, "unsigned")) {
            if (sign)
                err_at(p, pos, "invalid C type: repeated signedness");
            sign = w[0] == 's' ? 1 : 2;
        } else if (!strcmp(w, "short")) {
            nshort++;
        } else if (!strcmp(w, "long")) {
            nlong++;
        } else {
            if (base)
                err_at(p, pos, "invalid C type: '%s' after '%s'", w, base);
            base = w;
        }
    }
    if (nshort > 1 || nlong > 2 || (nshort && nlong))
        err_at(p, pos, "invalid C type");
    if (base && (!strcmp(base, "float") || !strcmp(base, "double"))) {
        if (sign || nshort || (nlong && base[0] == 'f') || nlong > 1)
            err_at(p, pos, "invalid C type");
        return nlong ? "long double" : base;
    }
    if (base && !strcmp(base, "char")) {
        if (nshort || nlong)
            err_at(p, pos, "invalid C type");
        return sign == 1 ? "signed char" : sign == 2 ? "unsigned char" : "char";
    }
    const char *core = nshort ? "short" : nlong == 2 ? "long long" : nlong ? "long" : "int";
    return sign == 2 ? cy_fmt(p->a, "unsigned %s", core) : core;
}

static int count_stars(P *p) {
    int n = 0;
    for (;;) {
        if (accept_punct(p, "*"))
            n++;
        else if (accept_punct(p, "**"))
            n += 2;
        else
            return n;
    }
}

/* The axes of a memoryview type: [:], [:, ::1], [::1, :] ... */
static void view_axes(P *p, ATypeSyn *ty) {
    adv(p); /* '[' */
    for (;;) {
        const Token *t = tok(p);
        if (!is_punct(t, ":"))
            err_syntax(p, "invalid memoryview type: expected ':' or '::1' for each axis "
                          "(buffer syntax like 'ndarray[double, ndim=2]' is not supported)");
        adv(p);
        int contig = 0;
        if (accept_punct(p, ":") && !at_punct(p, ",") && !at_punct(p, "]")) { /* '::' alone is ':' */
            const Token *one = tok(p);
            if (one->kind != TK_INT || one->ival != 1 || one->int_overflow)
                err_syntax(p, "unsupported memoryview axis: only ':' and '::1' are supported");
            adv(p);
            contig = 1;
        }
        if (ty->ndim == 8)
            err_at(p, t->pos, "memoryviews of more than 8 dimensions are not supported");
        ty->axes[ty->ndim] = (char)contig;
        ty->axes_pos[ty->ndim] = t->pos;
        ty->ndim++;
        if (accept_punct(p, ","))
            continue;
        expect_punct(p, "]");
        return;
    }
}

static ATypeSyn *parse_type(P *p);

static int is_ndarray_name(const char *name) {
    const char *dot = strrchr(name, '.');
    return !strcmp(dot ? dot + 1 : name, "ndarray");
}

/* Buffer options after 'ndarray[': the dtype (first, or dtype=), ndim=,
 * mode=, with Cython's messages (Buffer.py). */
static void buffer_args(P *p, ATypeSyn *ty) {
    static const char *const opts[] = {"dtype", "ndim", "mode", "negative_indices", "cast", NULL};
    int seen[5] = {0}, npos = 0;
    ty->buf_pos = adv(p)->pos; /* '[' */
    ty->buf_ndim = 1;
    for (;;) {
        const Token *t = tok(p);
        int k;
        if (t->kind == TK_NAME && is_punct(ahead(p, 1), "=")) {
            for (k = 0; opts[k]; k++)
                if (!strcmp(opts[k], t->text)) break;
            if (!opts[k]) err_at(p, t->pos, "\"%s\" is not a buffer option", t->text);
            adv(p);
            adv(p);
        } else {
            /* only the dtype may be positional (Buffer.py) */
            if (npos++) err_at(p, t->pos, "Too many buffer options");
            k = 0;
        }
        if (seen[k]) err_at(p, t->pos, "\"%s\" buffer option already supplied", opts[k]);
        seen[k] = 1;
        const Token *v = tok(p);
        if (k == 0) {
            ty->buf_dtype = parse_type(p);
        } else if (k == 1) {
            if (v->kind != TK_INT)
                err_at(p, v->pos, "ndim must be a non-negative integer");
            if (v->int_overflow || v->ival > 64)
                err_at(p, v->pos, "buffers of %s dimensions are not supported by cyocl", v->text);
            ty->buf_ndim = (int)adv(p)->ival;
        } else if (k == 2) {
            if (v->kind != TK_STR || (strcmp(v->sval, "c") && strcmp(v->sval, "fortran") &&
                                      strcmp(v->sval, "full") && strcmp(v->sval, "strided")))
                err_at(p, v->pos, "Only allowed buffer modes are: \"c\", \"fortran\", \"full\", \"strided\" "
                                  "(as a compile-time string)");
            ty->buf_mode = adv(p)->sval;
        } else {
            /* negative_indices=False / cast=True change indexing and dtype
               checks in ways cyocl does not implement */
            if (is_kw(v, "True") && k == 3) {
                adv(p);
            } else if (is_kw(v, "False") && k == 4) {
                adv(p);
            } else if (is_kw(v, "True") || is_kw(v, "False")) {
                err_at(p, v->pos, "buffer option '%s=%s' is not supported by cyocl", opts[k], v->text);
            } else {
                err_at(p, v->pos, "\"%s\" must be a boolean", opts[k]);
            }
        }
        if (accept_punct(p, ",") && !at_punct(p, "]")) continue;
        expect_punct(p, "]");
        break;
    }
    if (!seen[0]) err_at(p, ty->buf_pos, "\"dtype\" missing");
}

static ANode *parse_test(P *p);

/* The dimensions of a C array type: "[3]", "[2][3]", "[N * 2]". */
static void array_dims(P *p, ATypeSyn *ty) {
    while (at_punct(p, "[")) {
        const Token *t = adv(p);
        if (ty->narr == 8)
            err_at(p, t->pos, "C arrays of more than 8 dimensions are not supported");
        ty->arr[ty->narr++] = parse_test(p);
        expect_punct(p, "]");
    }
}

/* [const] base-type [complex] ['*'...] ['[' axes ']'].  In declarations
 * the '*'s belong to each declarator, as in C ("cdef double *p, q" makes q
 * a double), so the caller counts them: with_stars = 0. */
static ATypeSyn *parse_type_ex(P *p, int with_stars) {
    ATypeSyn *ty = cy_alloc(p->a, sizeof *ty);
    ty->pos = tok(p)->pos;
    if (at_punct(p, "(")) {
        /* Cython's ctuple: (double, int) */
        adv(p);
        const char *spell = "(";
        while (!at_punct(p, ")")) {
            ATypeSyn *it = parse_type_ex(p, 1);
            push(p, &ty->tuple_items, it);
            spell = cy_fmt(p->a, "%s%s%s%s", spell, ty->tuple_items.len > 1 ? ", " : "", it->name,
                           it->ptr ? " *" : "");
            if (!accept_punct(p, ","))
                break;
        }
        expect_punct(p, ")");
        if (ty->tuple_items.len < 2)
            err_at(p, ty->pos, "a ctuple needs at least two item types");
        ty->name = cy_fmt(p->a, "%s)", spell);
        if (with_stars)
            while (accept_punct(p, "*"))
                ty->ptr++;
        return ty;
    }
    if (at_name(p, "const") && ahead(p, 1)->kind == TK_NAME) {
        adv(p);
        ty->is_const = 1;
    }
    const Token *t = tok(p);
    if (t->kind != TK_NAME)
        err_syntax(p, "invalid syntax: expected a type");
    if (is_c_word(t->text)) {
        ty->name = c_scalar(p, t->pos);
        if ((!strcmp(ty->name, "float") || !strcmp(ty->name, "double") ||
             !strcmp(ty->name, "long double")) && at_name(p, "complex")) {
            adv(p);
            ty->name = cy_fmt(p->a, "%s complex", ty->name);
        }
    } else {
        ty->name = adv(p)->text;
        while (at_punct(p, ".") && ahead(p, 1)->kind == TK_NAME) {
            adv(p);
            ty->name = cy_fmt(p->a, "%s.%s", ty->name, adv(p)->text);
        }
    }
    if (with_stars)
        ty->ptr = count_stars(p);
    if (at_punct(p, "[") && !ty->ptr && is_ndarray_name(ty->name) && !is_punct(ahead(p, 1), ":"))
        buffer_args(p, ty);
    /* "double[3]" and "int[N]" are C arrays; "ndarray[double, ndim=2]" is not */
    else if (at_punct(p, "[") && !is_punct(ahead(p, 1), ":") &&
             (ahead(p, 1)->kind == TK_INT || is_c_word(t->text)))
        array_dims(p, ty);
    else if (at_punct(p, "["))
        view_axes(p, ty);
    return ty;
}

static ATypeSyn *parse_type(P *p) { return parse_type_ex(p, 1); }

/* ---- pure-Python mode: types written as annotations ----------------------
 * `cython.double`, `cython.Py_ssize_t`, `cython.p_int` (a pointer),
 * `cython.double[:, ::1]` (a memoryview), `cython.floating` (a name sema
 * resolves), and `float` (Cython 3 reads it as a C double).  Anything else
 * is a Python annotation: the value stays an object, as in Cython. */
static const char *pure_scalar(const char *n) {
    static const char *const map[][2] = {
        {"char", "char"}, {"schar", "signed char"}, {"uchar", "unsigned char"},
        {"short", "short"}, {"sshort", "short"}, {"ushort", "unsigned short"},
        {"int", "int"}, {"sint", "int"}, {"uint", "unsigned int"},
        {"long", "long"}, {"slong", "long"}, {"ulong", "unsigned long"},
        {"longlong", "long long"}, {"slonglong", "long long"}, {"ulonglong", "unsigned long long"},
        {"float", "float"}, {"double", "double"}, {"longdouble", "long double"},
        {"complex", "double complex"}, {"floatcomplex", "float complex"}, {"doublecomplex", "double complex"},
        {"bint", "bint"}, {"Py_ssize_t", "Py_ssize_t"}, {"size_t", "size_t"}, {"void", "void"},
        {NULL, NULL}};
    for (int i = 0; map[i][0]; i++)
        if (!strcmp(n, map[i][0])) return map[i][1];
    return NULL;
}

/* The C type an annotation expression names, or NULL when it names none
 * (a Python annotation). */
static int is_pure_name(P *p, const char *n) {
    for (int i = 0; i < p->pure_names.len; i++)
        if (!strcmp(p->pure_names.items[i], n)) return 1;
    return 0;
}

static ATypeSyn *pure_type_of(P *p, const ANode *x) {
    if (x->kind == A_NAME && !strcmp(x->name, "float")) {
        ATypeSyn *ty = cy_alloc(p->a, sizeof *ty);
        ty->pos = x->pos;
        ty->name = "double";
        return ty;
    }
    const ANode *base = x->kind == A_INDEX ? x->obj : x;
    int named = base->kind == A_NAME && is_pure_name(p, base->name); /* my_type, my_type[:, ::1] */
    if (!named && (base->kind != A_ATTR || base->obj->kind != A_NAME || strcmp(base->obj->name, "cython")))
        return NULL;
    const char *n = base->name;
    int stars = 0;
    if (named) goto typed;
    if (!strncmp(n, "pp_", 3)) { /* pp_int: int ** */
        stars = 2;
        n += 3;
    } else if (!strncmp(n, "p_", 2)) { /* p_int: int * */
        stars = 1;
        n += 2;
    }
    const char *c;
    ATypeSyn *ty;
    c = pure_scalar(n);
    if (!c && stars) return NULL;
    if (0) {
    typed:
        c = n;
    }
    ty = cy_alloc(p->a, sizeof *ty);
    ty->pos = x->pos;
    ty->name = c ? c : cy_fmt(p->a, "cython.%s", n);
    ty->ptr = stars;
    if (x->kind == A_INDEX) { /* cython.double[:, ::1] */
        if (stars || x->items.len < 1 || x->items.len > 8) return NULL;
        for (int i = 0; i < x->items.len; i++) {
            const ANode *it = x->items.items[i];
            if (it->kind != A_SLICE || it->then || it->other) return NULL;
            int contig = it->cond && it->cond->kind == A_INT && it->cond->ival == 1;
            if (it->cond && !contig) return NULL;
            ty->axes[i] = (char)contig;
            ty->axes_pos[i] = it->pos;
        }
        ty->ndim = x->items.len;
    }
    return ty;
}

/* Pure-Python mode's spellings of C operators: cython.cast(T, x[,
 * typecheck=True]) is <T>x (<T?>x), cython.address(x) is &x,
 * cython.sizeof(T or x) is sizeof. */
static ANode *pure_call(P *p, ANode *c) {
    const ANode *f = c->obj;
    if (f->kind != A_ATTR || f->obj->kind != A_NAME || strcmp(f->obj->name, "cython")) return c;
    ATypeSyn *ty;
    if (!strcmp(f->name, "cast") && c->items.len == 2 && (ty = pure_type_of(p, c->items.items[0])) != NULL) {
        ANode *n = new_node(p, A_CAST, c->pos);
        n->type = ty;
        n->obj = c->items.items[1];
        for (int k = 0; k < c->kwnames.len; k++) {
            if (strcmp(c->kwnames.items[k], "typecheck"))
                err_at(p, ((ANode *)c->values.items[k])->pos, "cython.cast() takes a type, a value and typecheck=");
            n->checked_cast = ((ANode *)c->values.items[k])->kind == A_TRUE;
        }
        return n;
    }
    if (!strcmp(f->name, "address") && c->items.len == 1 && !c->kwnames.len) {
        ANode *n = new_node(p, A_ADDR, c->pos);
        n->obj = c->items.items[0];
        return n;
    }
    if (!strcmp(f->name, "sizeof") && c->items.len == 1 && !c->kwnames.len) {
        ANode *n = new_node(p, A_SIZEOF, c->pos);
        n->type = pure_type_of(p, c->items.items[0]);
        if (!n->type) n->obj = c->items.items[0];
        return n;
    }
    return c;
}

/* At an annotation: parses it; the C type it names, or NULL (a Python
 * annotation, parsed and ignored: the value stays an object, as in
 * Cython). */
static ATypeSyn *pure_type(P *p) {
    return pure_type_of(p, parse_test(p));
}

static ATypeSyn *type_with_stars(P *p, ATypeSyn *base, int stars) {
    if (!stars)
        return base;
    ATypeSyn *ty = cy_alloc(p->a, sizeof *ty);
    *ty = *base;
    ty->ptr += stars;
    return ty;
}

static ATypeSyn *object_type(P *p, CyPos pos) {
    ATypeSyn *ty = cy_alloc(p->a, sizeof *ty);
    ty->pos = pos;
    ty->name = "object";
    return ty;
}

/* ---- expressions ---------------------------------------------------------- */

static ANode *parse_test(P *p);
static ANode *parse_factor(P *p);
static ANode *parse_bitor(P *p);

static _Noreturn void unsupported_expr(P *p, const Token *t) {
    if (is_kw(t, "lambda"))
        err_at(p, t->pos, "lambda expressions are not supported");
    if (is_kw(t, "yield"))
        err_at(p, t->pos, "yield (generators) is not supported");
    if (is_kw(t, "await"))
        err_at(p, t->pos, "await is not supported");
    if (is_punct(t, "*") || is_punct(t, "**"))
        err_at(p, t->pos, "starred expressions are not supported");
    if (is_punct(t, "..."))
        err_at(p, t->pos, "Ellipsis ('...') is not supported");
    err_unexpected(p);
}

static ANode *parse_test(P *p);

/* ---- f-strings -------------------------------------------------------------
 * f"a{x!r:>8}b" is ''.join(("a", format(repr(x), ">8"), "b")), as Python
 * defines it; each replacement field's expression is lexed and parsed on its
 * own (a problem there is reported at the f-string). */

static ANode *str_node(P *p, CyPos pos, const char *s, size_t n) {
    ANode *x = new_node(p, A_STR, pos);
    x->sval = cy_strndup(p->a, s, n);
    x->slen = (int)n;
    return x;
}

static ANode *name_node(P *p, CyPos pos, const char *name) {
    ANode *x = new_node(p, A_NAME, pos);
    x->name = name;
    return x;
}

static ANode *call1(P *p, CyPos pos, ANode *callee, ANode *a, ANode *b) {
    ANode *c = new_node(p, A_CALL, pos);
    c->obj = callee;
    push(p, &c->items, a);
    if (b) push(p, &c->items, b);
    return c;
}

/* Every node of a field's expression is placed at the f-string. */
static void place(ANode *x, CyPos pos) {
    if (!x) return;
    x->pos = pos;
    place(x->obj, pos);
    place(x->lhs, pos);
    place(x->rhs, pos);
    place(x->cond, pos);
    place(x->then, pos);
    place(x->other, pos);
    for (int i = 0; i < x->items.len; i++) place(x->items.items[i], pos);
    for (int i = 0; i < x->values.len; i++) place(x->values.items[i], pos);
}

static ANode *fstring_expr(P *p, CyPos pos, const char *s, size_t n) {
    CySource src = {.path = "<f-string>", .name = "<f-string>", .modname = "f"};
    char *text = cy_alloc(p->a, n + 4);
    text[0] = '(';
    memcpy(text + 1, s, n);
    memcpy(text + 1 + n, ")\n", 3);
    src.text = text;
    src.len = n + 3;
    CyDiag quiet = {.src = &src, .max_errors = 1};
    TokenList toks;
    P *q = cy_alloc(p->a, sizeof *q);
    if (cy_lex(p->a, &quiet, &src, &toks) != 0) err_at(p, pos, "invalid expression in f-string: %.*s", (int)n, s);
    q->a = p->a;
    q->d = &quiet;
    q->toks = toks.toks;
    q->n = toks.n;
    q->depth = p->depth;
    ANode *e = NULL;
    if (setjmp(q->jb) == 0) {
        e = parse_test(q);
        while (tok(q)->kind == TK_NEWLINE) adv(q);
        if (tok(q)->kind != TK_EOF) e = NULL;
    }
    if (!e || quiet.nerrors) err_at(p, pos, "invalid expression in f-string: %.*s", (int)n, s);
    place(e, pos);
    return e;
}

/* The parts of one f"..." literal (s: its text after escapes) into parts. */
static void fstring_parts(P *p, CyPos pos, const char *s, size_t n, CyVec *parts) {
    /* the literal parts, in the arena: an error longjmps out of here */
    char *lit = cy_alloc(p->a, n + 1);
    size_t ll = 0, i = 0;
    while (i < n) {
        char c = s[i];
        if ((c == '{' || c == '}') && i + 1 < n && s[i + 1] == c) {
            lit[ll++] = s[i];
            i += 2;
            continue;
        }
        if (c == '}') err_at(p, pos, "f-string: single '}' is not allowed");
        if (c != '{') {
            lit[ll++] = s[i++];
            continue;
        }
        if (ll) push(p, parts, str_node(p, pos, lit, ll));
        ll = 0;
        /* the expression ends at a top-level '!', ':' or '}' */
        size_t b = ++i;
        int depth = 0;
        char quote = 0;
        for (; i < n; i++) {
            char d = s[i];
            if (quote) {
                if (d == quote) quote = 0;
            } else if (d == '\'' || d == '"') {
                quote = d;
            } else if (d == '(' || d == '[' || d == '{') {
                depth++;
            } else if ((d == ')' || d == ']' || d == '}') && depth > 0) {
                depth--;
            } else if (depth == 0 && (d == '}' || d == ':' || (d == '!' && i + 1 < n && s[i + 1] != '='))) {
                break;
            }
        }
        if (i >= n || i == b) err_at(p, pos, "f-string: expecting '}'");
        ANode *e = fstring_expr(p, pos, s + b, i - b);
        if (s[i] == '!') {
            const char *conv = i + 1 < n && s[i + 1] == 'r' ? "repr" : i + 1 < n && s[i + 1] == 's' ? "str"
                               : i + 1 < n && s[i + 1] == 'a' ? "ascii" : NULL;
            if (!conv) err_at(p, pos, "f-string: invalid conversion character: expected 's', 'r', or 'a'");
            e = call1(p, pos, name_node(p, pos, conv), e, NULL);
            i += 2;
        }
        size_t sb = i, se = i;
        if (i < n && s[i] == ':') {
            sb = ++i;
            while (i < n && s[i] != '}') {
                if (s[i] == '{')
                    err_at(p, pos, "nested replacement fields in an f-string format spec are not supported by cyocl");
                i++;
            }
            se = i;
        }
        if (i >= n || s[i] != '}') err_at(p, pos, "f-string: expecting '}'");
        i++;
        push(p, parts, call1(p, pos, name_node(p, pos, "format"), e, str_node(p, pos, s + sb, se - sb)));
    }
    if (ll) push(p, parts, str_node(p, pos, lit, ll));
}

/* Adjacent string literals form one constant, as in Python. */
static ANode *parse_strings(P *p) {
    const Token *t0 = tok(p);
    ANode *n = new_node(p, A_STR, t0->pos);
    n->is_bytes = strchr(t0->str_prefix, 'b') != NULL;
    size_t total = 0;
    int k = p->i;
    for (; k < p->n && p->toks[k].kind == TK_STR; k++) {
        const Token *t = &p->toks[k];
        if ((strchr(t->str_prefix, 'b') != NULL) != n->is_bytes)
            err_at(p, t->pos, "cannot mix bytes and nonbytes literals");
        if (strchr(t->str_prefix, 'f'))
            n->is_fstring = 1;
        total += (size_t)t->slen;
    }
    if (n->is_fstring && !n->is_bytes) {
        CyVec parts = {0};
        while (tok(p)->kind == TK_STR) {
            const Token *t = adv(p);
            if (strchr(t->str_prefix, 'f')) fstring_parts(p, t0->pos, t->sval, (size_t)t->slen, &parts);
            else if (t->slen) push(p, &parts, str_node(p, t0->pos, t->sval, (size_t)t->slen));
        }
        ANode *tup = new_node(p, A_TUPLE, t0->pos);
        tup->items = parts;
        ANode *join = new_node(p, A_ATTR, t0->pos);
        join->obj = str_node(p, t0->pos, "", 0);
        join->name = "join";
        return call1(p, t0->pos, join, tup, NULL);
    }
    if (total > 0x7fffffff)
        err_at(p, t0->pos, "string literal too long");
    char *s = cy_alloc(p->a, total + 1), *o = s;
    while (tok(p)->kind == TK_STR) {
        const Token *t = adv(p);
        memcpy(o, t->sval, (size_t)t->slen);
        o += t->slen;
    }
    *o = '\0';
    n->sval = s;
    n->slen = (int)total;
    return n;
}

static ANode *parse_test_nostar(P *p) {
    if (at_punct(p, "*") || at_punct(p, "**"))
        unsupported_expr(p, tok(p));
    return parse_test(p);
}

static ANode *parse_or(P *p);
static ANode *parse_exprlist(P *p);
static void check_target(P *p, ANode *e, const char *verb);

/* The clauses after a comprehension's element: ('for' targets 'in' or_test
 * ('if' or_test)*)+, as Python's grammar has them. */
static ANode *parse_comp(P *p, CyPos pos, const char *what, ANode *elt, ANode *val) {
    ANode *c = new_node(p, A_COMP, pos);
    c->op = what;
    c->then = elt;
    c->other = val;
    while (at_kw(p, "for") || at_kw(p, "async")) {
        const Token *kw = adv(p);
        if (is_kw(kw, "async"))
            err_at(p, kw->pos, "asynchronous comprehensions are not supported");
        ANode *f = new_node(p, S_FOR, kw->pos);
        f->lhs = parse_exprlist(p);
        check_target(p, f->lhs, "assign to");
        if (!accept_kw(p, "in"))
            err_syntax(p, "expected 'in'");
        f->obj = limit_height(p, parse_or(p));
        push(p, &c->items, f);
        while (at_kw(p, "if")) {
            const Token *k = adv(p);
            ANode *i = new_node(p, S_IF, k->pos);
            i->cond = limit_height(p, parse_or(p));
            push(p, &c->items, i);
        }
    }
    return limit_height(p, c);
}

/* ( ... ): parenthesised expression, tuple or generator expression. */
static ANode *parse_paren(P *p) {
    const Token *lp = adv(p);
    if (accept_punct(p, ")")) {
        ANode *t = new_node(p, A_TUPLE, lp->pos);
        t->parenthesized = 1;
        return t;
    }
    ANode *first = parse_test_nostar(p);
    if (at_kw(p, "for") || at_kw(p, "async")) {
        ANode *g = parse_comp(p, lp->pos, "generator", first, NULL);
        expect_punct(p, ")");
        g->parenthesized = 1;
        return g;
    }
    ANode *e = first;
    if (at_punct(p, ",")) {
        e = new_node(p, A_TUPLE, lp->pos);
        push(p, &e->items, first);
        while (accept_punct(p, ",")) {
            if (at_punct(p, ")"))
                break;
            push(p, &e->items, parse_test_nostar(p));
        }
    }
    expect_punct(p, ")");
    e->parenthesized = 1;
    return e;
}

static ANode *parse_list(P *p) {
    const Token *lb = adv(p);
    ANode *l = new_node(p, A_LIST, lb->pos);
    while (!at_punct(p, "]")) {
        push(p, &l->items, parse_test_nostar(p));
        if (at_kw(p, "for") || at_kw(p, "async")) {
            if (l->items.len > 1)
                err_syntax(p, "invalid syntax");
            ANode *c = parse_comp(p, lb->pos, "list", l->items.items[0], NULL);
            expect_punct(p, "]");
            return c;
        }
        if (!accept_punct(p, ","))
            break;
    }
    expect_punct(p, "]");
    return l;
}

static ANode *parse_dict(P *p) {
    const Token *lb = adv(p);
    ANode *d = new_node(p, A_DICT, lb->pos);
    while (!at_punct(p, "}")) {
        if (at_punct(p, "**"))
            err_at(p, tok(p)->pos, "dict unpacking ('**') is not supported");
        ANode *k = parse_test_nostar(p);
        if (!at_punct(p, ":")) {
            if ((at_kw(p, "for") || at_kw(p, "async")) && !d->items.len) {
                ANode *c = parse_comp(p, lb->pos, "set", k, NULL);
                expect_punct(p, "}");
                return c;
            }
            if (d->items.len)
                err_at(p, tok(p)->pos, "':' expected after dictionary key");
            ANode *set = new_node(p, A_SET, lb->pos);
            push(p, &set->items, k);
            while (accept_punct(p, ",") && !at_punct(p, "}")) {
                if (at_punct(p, "**") || at_punct(p, "*"))
                    unsupported_expr(p, tok(p));
                push(p, &set->items, parse_test_nostar(p));
            }
            expect_punct(p, "}");
            return set;
        }
        adv(p);
        ANode *v = parse_test(p);
        if (at_kw(p, "for") || at_kw(p, "async")) {
            if (d->items.len)
                err_syntax(p, "invalid syntax");
            ANode *c = parse_comp(p, lb->pos, "dict", k, v);
            expect_punct(p, "}");
            return c;
        }
        push(p, &d->items, k);
        push(p, &d->values, v);
        if (!accept_punct(p, ","))
            break;
    }
    expect_punct(p, "}");
    return d;
}

static ANode *parse_atom(P *p) {
    const Token *t = tok(p);
    ANode *n;
    switch (t->kind) {
    case TK_NAME:
        adv(p);
        n = new_node(p, A_NAME, t->pos);
        n->name = t->text;
        return n;
    case TK_INT: {
        adv(p);
        n = new_node(p, A_INT, t->pos);
        n->ival = t->ival;
        n->int_overflow = t->int_overflow;
        /* without the C suffix: PyLong_FromString(text, NULL, 0) takes it */
        int len = t->len;
        while (len > 0 && strchr("uUlL", t->text[len - 1]))
            len--;
        n->int_text = cy_strndup(p->a, t->text, (size_t)len);
        if (len < t->len) /* the C suffix: the literal's type (10UL is an unsigned long) */
            n->op = cy_strndup(p->a, t->text + len, (size_t)(t->len - len));
        return n;
    }
    case TK_FLOAT:
    case TK_IMAG:
        adv(p);
        n = new_node(p, t->kind == TK_FLOAT ? A_FLOAT : A_IMAG, t->pos);
        n->fval = t->fval;
        return n;
    case TK_STR:
        if (!strcmp(t->str_prefix, "c")) {
            /* c'a': one byte, a C char constant (Cython's CharNode); what
               follows it is never another literal joined to it */
            adv(p);
            if (t->slen != 1)
                err_at(p, t->pos, "invalid character literal: b'%.*s'", t->slen > 16 ? 16 : t->slen, t->sval);
            n = new_node(p, A_INT, t->pos);
            n->ival = (uint64_t)(int64_t)(signed char)t->sval[0];
            n->is_char = 1;
            n->int_text = cy_fmt(p->a, "%d", (int)(signed char)t->sval[0]);
            return n;
        }
        return parse_strings(p);
    case TK_KW:
        if (is_kw(t, "None") || is_kw(t, "True") || is_kw(t, "False")) {
            adv(p);
            return new_node(p, t->text[0] == 'N' ? A_NONE : t->text[0] == 'T' ? A_TRUE : A_FALSE,
                            t->pos);
        }
        unsupported_expr(p, t);
    case TK_PUNCT:
        if (is_punct(t, "("))
            return parse_paren(p);
        if (is_punct(t, "["))
            return parse_list(p);
        if (is_punct(t, "{"))
            return parse_dict(p);
        if (is_punct(t, "...")) {
            adv(p);
            return new_node(p, A_ELLIPSIS, t->pos);
        }
        unsupported_expr(p, t);
    default:
        err_unexpected(p);
    }
}

static ANode *parse_call(P *p, ANode *callee) {
    adv(p); /* '(' */
    ANode *c = new_node(p, A_CALL, callee->pos);
    c->obj = callee;
    while (!at_punct(p, ")")) {
        const Token *t = tok(p);
        if (is_punct(t, "**")) {
            /* f(**kwargs): merged into the keywords, in order */
            adv(p);
            push(p, &c->kwnames, (void *)"**");
            push(p, &c->kwpos, pos_dup(p, t->pos));
            push(p, &c->values, parse_test(p));
        } else if (is_punct(t, "*")) {
            adv(p);
            for (int k = 0; k < c->kwnames.len; k++)
                if (!strcmp(c->kwnames.items[k], "**"))
                    err_at(p, t->pos, "iterable argument unpacking follows keyword argument unpacking");
            ANode *st = new_node(p, A_STARRED, t->pos);
            st->obj = parse_test(p);
            push(p, &c->items, st);
        } else if (t->kind == TK_NAME && is_punct(ahead(p, 1), "=")) {
            for (int k = 0; k < c->kwnames.len; k++)
                if (!strcmp(c->kwnames.items[k], t->text))
                    err_at(p, t->pos, "keyword argument repeated: %s", t->text);
            adv(p);
            adv(p);
            push(p, &c->kwnames, (void *)t->text);
            push(p, &c->kwpos, pos_dup(p, t->pos));
            push(p, &c->values, parse_test(p));
        } else {
            int unpack = 0;
            for (int k = 0; k < c->kwnames.len; k++) unpack |= !strcmp(c->kwnames.items[k], "**");
            if (c->kwnames.len)
                err_at(p, t->pos, unpack ? "positional argument follows keyword argument unpacking"
                                         : "positional argument follows keyword argument");
            ANode *arg = parse_test(p);
            if (at_kw(p, "for") || at_kw(p, "async")) {
                /* f(x for x in a): the generator expression must be the only argument */
                arg = parse_comp(p, arg->pos, "generator", arg, NULL);
                if (c->items.len || c->kwnames.len || (at_punct(p, ",") && !is_punct(ahead(p, 1), ")")))
                    err_at(p, arg->pos, "Generator expression must be parenthesized");
            }
            push(p, &c->items, arg);
        }
        if (!accept_punct(p, ","))
            break;
    }
    expect_punct(p, ")");
    return pure_call(p, c);
}

/* One subscript item: an expression or a slice lo:hi:step. */
static ANode *parse_slice_item(P *p) {
    const Token *t = tok(p);
    ANode *lo = NULL;
    if (!is_punct(t, ":")) {
        lo = parse_test_nostar(p);
        if (!at_punct(p, ":"))
            return lo;
    }
    ANode *s = new_node(p, A_SLICE, lo ? lo->pos : t->pos);
    s->then = lo;
    adv(p); /* ':' */
    if (!at_punct(p, ":") && !at_punct(p, ",") && !at_punct(p, "]"))
        s->other = parse_test(p);
    if (accept_punct(p, ":") && !at_punct(p, ",") && !at_punct(p, "]"))
        s->cond = parse_test(p);
    return s;
}

static ANode *parse_subscript(P *p, ANode *obj) {
    adv(p); /* '[' */
    ANode *x = new_node(p, A_INDEX, obj->pos);
    x->obj = obj;
    if (at_punct(p, "]"))
        err_syntax(p, "invalid syntax: empty subscript");
    for (;;) {
        push(p, &x->items, parse_slice_item(p));
        if (!accept_punct(p, ",") || at_punct(p, "]"))
            break;
    }
    expect_punct(p, "]");
    return x;
}

static ANode *parse_primary(P *p) {
    ANode *e = parse_atom(p);
    for (;;) {
        if (at_punct(p, ".")) {
            adv(p);
            const Token *nm = expect_name(p, "an attribute name");
            ANode *a = new_node(p, A_ATTR, e->pos);
            a->obj = e;
            a->name = nm->text;
            e = a;
        } else if (at_punct(p, "(")) {
            e = parse_call(p, e);
        } else if (at_punct(p, "[")) {
            e = parse_subscript(p, e);
        } else {
            return e;
        }
    }
}

static ANode *parse_power(P *p) {
    ANode *e = parse_primary(p);
    if (at_punct(p, "**")) {
        adv(p);
        ANode *b = new_node(p, A_BINOP, e->pos);
        b->op = "**";
        b->lhs = e;
        enter(p);
        b->rhs = parse_factor(p); /* right associative; -x**-y = -(x**(-y)) */
        leave(p);
        return b;
    }
    return e;
}

/* Cython's sizeof: a type when the words can only be a type, otherwise an
 * expression (a bare name may still be a typedef: sema decides). */
static ANode *parse_sizeof(P *p) {
    const Token *kw = adv(p);
    adv(p); /* '(' */
    ANode *n = new_node(p, A_SIZEOF, kw->pos);
    const Token *t = tok(p);
    int is_type = 0;
    if (t->kind == TK_NAME) {
        if (is_name(t, "const") || is_c_word(t->text) ||
            (is_builtin_type(t->text) && is_punct(ahead(p, 1), ")")))
            is_type = 1;
        else {
            /* dotted name followed by '*' ... ')' or a memoryview: a type */
            int k = 1;
            while (is_punct(ahead(p, k), ".") && ahead(p, k + 1)->kind == TK_NAME)
                k += 2;
            const Token *u = ahead(p, k);
            if (is_punct(u, "*") || is_punct(u, "**")) {
                while (is_punct(ahead(p, k), "*") || is_punct(ahead(p, k), "**"))
                    k++;
                is_type = is_punct(ahead(p, k), ")");
            } else if (is_punct(u, "[") && is_punct(ahead(p, k + 1), ":")) {
                is_type = 1;
            }
        }
    }
    if (is_type)
        n->type = parse_type(p);
    else
        n->obj = parse_test(p);
    expect_punct(p, ")");
    return n;
}

static ANode *parse_factor(P *p) {
    const Token *t = tok(p);
    if (is_punct(t, "-") || is_punct(t, "+") || is_punct(t, "~")) {
        adv(p);
        ANode *u = new_node(p, A_UNOP, t->pos);
        u->op = t->text;
        enter(p);
        u->obj = parse_factor(p);
        leave(p);
        return u;
    }
    if (is_punct(t, "&")) {
        adv(p);
        ANode *u = new_node(p, A_ADDR, t->pos);
        enter(p);
        u->obj = parse_factor(p);
        leave(p);
        return u;
    }
    if (is_punct(t, "<")) {
        adv(p);
        ANode *c = new_node(p, A_CAST, t->pos);
        c->type = parse_type(p);
        c->checked_cast = accept_punct(p, "?");
        if (!accept_punct(p, ">"))
            err_syntax(p, "expected '>' to close the cast");
        enter(p);
        c->obj = parse_factor(p);
        leave(p);
        return c;
    }
    if (is_name(t, "sizeof") && is_punct(ahead(p, 1), "("))
        return parse_sizeof(p);
    return parse_power(p);
}

/* Left-associative binary operator levels, loosest first. */
static const char *const binop_levels[][6] = {
    {"|", NULL},
    {"^", NULL},
    {"&", NULL},
    {"<<", ">>", NULL},
    {"+", "-", NULL},
    {"*", "/", "//", "%", "@", NULL},
};
#define NLEVELS ((int)(sizeof binop_levels / sizeof binop_levels[0]))

static ANode *parse_binary(P *p, int level) {
    if (level == NLEVELS)
        return parse_factor(p);
    ANode *e = parse_binary(p, level + 1);
    for (;;) {
        const Token *t = tok(p);
        const char *op = NULL;
        if (t->kind == TK_PUNCT)
            for (int k = 0; binop_levels[level][k]; k++)
                if (!strcmp(t->text, binop_levels[level][k]))
                    op = binop_levels[level][k];
        if (!op)
            return e;
        adv(p);
        ANode *b = new_node(p, A_BINOP, e->pos);
        b->op = op;
        b->lhs = e;
        b->rhs = parse_binary(p, level + 1);
        e = b;
    }
}

static ANode *parse_bitor(P *p) { return parse_binary(p, 0); }

/* Consumes a comparison operator if there is one. */
static const char *comp_op(P *p) {
    static const char *const ops[] = {"<", ">", "==", ">=", "<=", "!=", NULL};
    const Token *t = tok(p);
    if (t->kind == TK_PUNCT) {
        for (int k = 0; ops[k]; k++)
            if (!strcmp(t->text, ops[k])) {
                adv(p);
                return ops[k];
            }
        return NULL;
    }
    if (is_kw(t, "in")) {
        adv(p);
        return "in";
    }
    if (is_kw(t, "not") && is_kw(ahead(p, 1), "in")) {
        adv(p);
        adv(p);
        return "not in";
    }
    if (is_kw(t, "is")) {
        adv(p);
        return accept_kw(p, "not") ? "is not" : "is";
    }
    return NULL;
}

static ANode *parse_comparison(P *p) {
    ANode *first = parse_bitor(p);
    const char *op = comp_op(p);
    if (!op)
        return first;
    ANode *c = new_node(p, A_COMPARE, first->pos);
    push(p, &c->items, first);
    while (op) {
        push(p, &c->kwnames, (void *)op);
        push(p, &c->kwpos, pos_dup(p, p->toks[p->i - 1].pos)); /* the operator's (its last token's) */
        push(p, &c->items, parse_bitor(p));
        op = comp_op(p);
    }
    return c;
}

static ANode *parse_not(P *p) {
    const Token *t = tok(p);
    if (is_kw(t, "not")) {
        adv(p);
        ANode *n = new_node(p, A_NOT, t->pos);
        enter(p);
        n->obj = parse_not(p);
        leave(p);
        return n;
    }
    return parse_comparison(p);
}

static ANode *parse_and(P *p) {
    ANode *e = parse_not(p);
    while (at_kw(p, "and")) {
        adv(p);
        ANode *b = new_node(p, A_AND, e->pos);
        b->lhs = e;
        b->rhs = parse_not(p);
        e = b;
    }
    return e;
}

static ANode *parse_or(P *p) {
    ANode *e = parse_and(p);
    while (at_kw(p, "or")) {
        adv(p);
        ANode *b = new_node(p, A_OR, e->pos);
        b->lhs = e;
        b->rhs = parse_and(p);
        e = b;
    }
    return e;
}

/* lambda a, b=1, *args: expr -- a def (named as Cython names it) returning expr. */
static ANode *parse_lambda(P *p) {
    const Token *kw = adv(p);
    ANode *n = new_node(p, A_LAMBDA, kw->pos);
    AFunc *f = cy_alloc(p->a, sizeof *f);
    f->kind = FN_DEF;
    f->name = p->nlambda ? cy_fmt(p->a, "lambda%d", p->nlambda) : "lambda";
    p->nlambda++;
    f->pos = kw->pos;
    int kwonly = 0;
    while (!at_punct(p, ":")) {
        if ((at_punct(p, "*") || at_punct(p, "**")) && ahead(p, 1)->kind == TK_NAME) {
            const Token *st = adv(p);
            AParam *a = cy_alloc(p->a, sizeof *a);
            a->pos = tok(p)->pos;
            a->name = adv(p)->text;
            a->star = is_punct(st, "**") ? 2 : 1;
            a->kwonly = kwonly = 1;
            push(p, &f->params, a);
        } else if (at_punct(p, "*") && is_punct(ahead(p, 1), ",")) {
            adv(p);
            kwonly = 1;
        } else {
            const Token *t = expect_name(p, "a parameter name");
            AParam *a = cy_alloc(p->a, sizeof *a);
            a->pos = t->pos;
            a->name = t->text;
            a->kwonly = kwonly;
            if (accept_punct(p, "=")) a->deflt = parse_test(p);
            push(p, &f->params, a);
        }
        if (!accept_punct(p, ","))
            break;
    }
    expect_punct(p, ":");
    ANode *body = parse_test(p);
    ANode *r = new_node(p, S_RETURN, body->pos);
    r->value = body;
    push(p, &f->body, r);
    n->func = f;
    return n;
}

static ANode *parse_test(P *p) {
    enter(p);
    if (at_kw(p, "lambda")) {
        ANode *l = parse_lambda(p);
        leave(p);
        return l;
    }
    ANode *e = parse_or(p);
    if (at_kw(p, "if")) {
        adv(p);
        ANode *c = new_node(p, A_COND, e->pos);
        c->then = e;
        c->cond = parse_or(p);
        if (!accept_kw(p, "else"))
            err_syntax(p, "expected 'else' after 'if' expression");
        c->other = parse_test(p);
        e = c;
    }
    if (at_punct(p, ":=")) {
        if (e->kind != A_NAME || e->parenthesized)
            err_at(p, e->pos, "cannot use assignment expressions with %s", e->kind == A_NAME ? "a parenthesized name" : "this expression");
        adv(p);
        ANode *w = new_node(p, A_WALRUS, e->pos);
        w->lhs = e;
        w->rhs = parse_test(p);
        e = w;
    }
    leave(p);
    return limit_height(p, e);
}

/* test (',' test)* [','] -- a bare tuple when there is a comma. */
static ANode *parse_testlist(P *p) {
    ANode *first = parse_test_nostar(p);
    if (!at_punct(p, ","))
        return first;
    ANode *t = new_node(p, A_TUPLE, first->pos);
    push(p, &t->items, first);
    while (accept_punct(p, ",") && starts_expr(tok(p)))
        push(p, &t->items, parse_test_nostar(p));
    return t;
}

static void star_assign(P *p, ANode *targets, const Token *star, CyPos pos, ANode *value, CyVec *out);

/* A target list where items may be starred (a star is A_STARRED, *star
 * the first one's token, or NULL); item parses the plain items. */
static ANode *parse_starred_list(P *p, const Token **star, ANode *(*item)(P *)) {
    *star = NULL;
    ANode *first;
    if (at_punct(p, "*")) {
        *star = adv(p);
        first = new_node(p, A_STARRED, (*star)->pos);
        first->obj = limit_height(p, parse_bitor(p));
    } else {
        first = item(p);
    }
    if (!at_punct(p, ",")) return first;
    ANode *t = new_node(p, A_TUPLE, first->pos);
    push(p, &t->items, first);
    while (accept_punct(p, ",") && (starts_expr(tok(p)) || at_punct(p, "*"))) {
        if (at_punct(p, "*")) {
            const Token *st = adv(p);
            if (!*star) *star = st;
            ANode *x = new_node(p, A_STARRED, st->pos);
            x->obj = limit_height(p, parse_bitor(p));
            push(p, &t->items, x);
        } else {
            push(p, &t->items, item(p));
        }
    }
    return t;
}

static ANode *parse_bitor_item(P *p) { return limit_height(p, parse_bitor(p)); }

/* The targets of a 'for': as parse_exprlist, where one item may be
 * starred (`for key, *vals in rows:`); *star is its token, or NULL. */
static ANode *parse_for_targets(P *p, const Token **star) { return parse_starred_list(p, star, parse_bitor_item); }

/* Targets of 'for' and 'del': no comparisons, so 'in' ends them. */
static ANode *parse_exprlist(P *p) {
    if (at_punct(p, "*"))
        unsupported_expr(p, tok(p));
    ANode *first = limit_height(p, parse_bitor(p));
    if (!at_punct(p, ","))
        return first;
    ANode *t = new_node(p, A_TUPLE, first->pos);
    push(p, &t->items, first);
    while (accept_punct(p, ",") && starts_expr(tok(p))) {
        if (at_punct(p, "*"))
            unsupported_expr(p, tok(p));
        push(p, &t->items, limit_height(p, parse_bitor(p)));
    }
    return t;
}

static void check_target(P *p, ANode *e, const char *verb) {
    switch (e->kind) {
    case A_NAME: case A_ATTR: case A_INDEX:
        return;
    case A_TUPLE: case A_LIST:
        for (int k = 0; k < e->items.len; k++)
            check_target(p, e->items.items[k], verb);
        return;
    case A_CALL: err_at(p, e->pos, "cannot %s function call", verb);
    case A_INT: case A_FLOAT: case A_IMAG: case A_STR: err_at(p, e->pos, "cannot %s literal", verb);
    case A_NONE: err_at(p, e->pos, "cannot %s None", verb);
    case A_TRUE: err_at(p, e->pos, "cannot %s True", verb);
    case A_FALSE: err_at(p, e->pos, "cannot %s False", verb);
    case A_COMPARE: err_at(p, e->pos, "cannot %s comparison", verb);
    case A_COND: err_at(p, e->pos, "cannot %s conditional expression", verb);
    case A_DICT: err_at(p, e->pos, "cannot %s dict literal", verb);
    case A_SET: err_at(p, e->pos, "cannot %s set display", verb);
    case A_COMP: err_at(p, e->pos, "cannot %s comprehension", verb);
    default: err_at(p, e->pos, "cannot %s expression", verb);
    }
}

/* ---- statements ----------------------------------------------------------- */

static void parse_stmt(P *p, CyVec *out);
static void parse_simple_line(P *p, CyVec *out);

/* After ':': a simple statement on the same line or an indented block. */
static void parse_suite(P *p, CyVec *out) {
    if (tok(p)->kind != TK_NEWLINE) {
        parse_simple_line(p, out);
        return;
    }
    adv(p);
    if (tok(p)->kind != TK_INDENT)
        err_syntax(p, "expected an indented block");
    adv(p);
    enter(p);
    while (tok(p)->kind != TK_DEDENT && tok(p)->kind != TK_EOF) {
        if (tok(p)->kind == TK_INDENT)
            err_unexpected(p);
        parse_stmt(p, out);
    }
    leave(p);
    adv(p); /* DEDENT */
}

static void block_colon(P *p) { expect_punct(p, ":"); }

/* Skips a statement we only recognise to reject: the rest of its line and
 * the indented block under it, if any. */
static void skip_stmt(P *p) {
    while (tok(p)->kind != TK_NEWLINE && tok(p)->kind != TK_EOF)
        adv(p);
    adv(p);
    if (tok(p)->kind != TK_INDENT)
        return;
    int level = 0;
    do {
        if (tok(p)->kind == TK_INDENT)
            level++;
        else if (tok(p)->kind == TK_DEDENT)
            level--;
        adv(p);
    } while (level > 0 && tok(p)->kind != TK_EOF);
}

/* S_UNSUPPORTED: what reads as "<what> is not supported". */
static ANode *unsupported(P *p, CyPos pos, const char *what) {
    ANode *n = new_node(p, S_UNSUPPORTED, pos);
    n->what = what;
    skip_stmt(p);
    return n;
}

/* class: kept as S_CLASS (with its name) for sema to reject; the body is
 * skipped so that later errors in the file can still be reported. */
static ANode *parse_class(P *p, CyPos pos, const char *what) {
    const char *name = NULL;
    for (int k = 0; k < 3; k++)
        if (ahead(p, k)->kind == TK_NAME) {
            name = ahead(p, k)->text;
            break;
        }
    ANode *n = unsupported(p, pos, what);
    n->kind = S_CLASS;
    n->name = name;
    return n;
}

/* cdef class Name[(Base)]: its body is parsed as statements; sema says
 * which of them a class body may hold. */
static ANode *parse_cdef_class(P *p, CyPos pos) {
    adv(p); /* class */
    const Token *nm = expect_name(p, "a class name");
    ANode *n = new_node(p, S_CDEF_CLASS, pos);
    n->name = nm->text;
    CyPos *np = cy_alloc(p->a, sizeof *np);
    *np = nm->pos;
    push(p, &n->name_pos, np);
    if (accept_punct(p, "(")) {
        n->value = parse_test(p);
        expect_punct(p, ")");
    }
    block_colon(p);
    int saved = p->class_body;
    p->class_body = 1;
    parse_suite(p, &n->body);
    p->class_body = saved;
    return n;
}

/* Cython's older property syntax in a cdef class body:
 *     property x:
 *         def __get__(self): ...
 *         def __set__(self, value): ...
 *         def __del__(self): ...
 * is the methods @property x, @x.setter x and @x.deleter x. */
static void parse_property_block(P *p, CyVec *out) {
    adv(p); /* property */
    const Token *nm = expect_name(p, "a property name");
    block_colon(p);
    CyVec body = {0};
    int saved = p->class_body;
    p->class_body = 0;
    parse_suite(p, &body);
    p->class_body = saved;
    const char *doc = NULL;
    for (int i = 0; i < body.len; i++) {
        ANode *d = body.items[i];
        if (d->kind == S_EXPR && d->value && d->value->kind == A_STR && i == 0) {
            doc = d->value->sval;
            continue;
        }
        if (d->kind == S_PASS) continue;
        const char *fn = d->kind == S_FUNC && d->func->kind == FN_DEF && !d->func->decorators.len ? d->func->name : "";
        int which = !strcmp(fn, "__get__") ? 1 : !strcmp(fn, "__set__") ? 2 : !strcmp(fn, "__del__") ? 3 : 0;
        if (!which)
            err_at(p, d->pos, "a property block holds only def __get__, __set__ and __del__");
        ANode *dec;
        if (which == 1) {
            dec = new_node(p, A_NAME, d->pos);
            dec->name = "property";
        } else {
            dec = new_node(p, A_ATTR, d->pos);
            dec->obj = new_node(p, A_NAME, d->pos);
            dec->obj->name = nm->text;
            dec->name = which == 2 ? "setter" : "deleter";
        }
        push(p, &d->func->decorators, dec);
        d->func->name = nm->text;
        d->name = nm->text;
        if (which == 1 && !d->func->docstring) d->func->docstring = doc;
        push(p, out, d);
    }
}

static const char *dotted_name(P *p, CyPos *pos) {
    const Token *t = expect_name(p, "a module name");
    if (pos)
        *pos = t->pos;
    const char *s = t->text;
    while (accept_punct(p, "."))
        s = cy_fmt(p->a, "%s.%s", s, expect_name(p, "a module name")->text);
    return s;
}

static void user_cimport(P *p, ANode *n, CyVec *out);
static void include_file(P *p, CyPos at, const Token *name, CyVec *out);

/* import a.b [as c], d  /  cimport a.b [as c], d: one node per module */
static void parse_import(P *p, CyVec *out, ANodeKind kind) {
    const Token *kw = adv(p);
    do {
        CyPos mpos;
        ANode *n = new_node(p, kind, kw->pos);
        n->module = dotted_name(p, &mpos);
        push(p, &n->name_pos, pos_dup(p, mpos));
        const char *alias = NULL;
        if (accept_kw(p, "as"))
            alias = expect_name(p, "a name after 'as'")->text;
        push(p, &n->aliases, (void *)alias);
        n->name = alias;
        n->is_cimport = kind == S_CIMPORT;
        if (n->is_cimport) user_cimport(p, n, out);
        push(p, out, n);
    } while (accept_punct(p, ","));
}

/* from a.b import x [as y], z  /  from a.b cimport ... */
static ANode *parse_from(P *p) {
    const Token *kw = adv(p);
    if (at_punct(p, ".") || at_punct(p, "..."))
        err_at(p, tok(p)->pos, "relative imports are not supported");
    ANode *n = new_node(p, S_FROMIMPORT, kw->pos);
    n->module = dotted_name(p, NULL);
    if (accept_kw(p, "cimport"))
        n->is_cimport = 1;
    else if (!accept_kw(p, "import"))
        err_syntax(p, "expected 'import' or 'cimport'");
    if (at_punct(p, "*")) {
        /* sema knows which modules it can expand */
        push(p, &n->name_pos, pos_dup(p, adv(p)->pos));
        n->star = 1;
        return n;
    }
    int paren = accept_punct(p, "(");
    for (;;) {
        const Token *nm = expect_name(p, "a name to import");
        push(p, &n->names, (void *)nm->text);
        push(p, &n->name_pos, pos_dup(p, nm->pos));
        const char *alias = NULL;
        if (accept_kw(p, "as"))
            alias = expect_name(p, "a name after 'as'")->text;
        push(p, &n->aliases, (void *)alias);
        if (!accept_punct(p, ","))
            break;
        if (paren && at_punct(p, ")"))
            break;
    }
    if (paren)
        expect_punct(p, ")");
    return n;
}

/* `cdef TYPE name [= init]`, as pure-Python mode spells it. */
static ANode *one_decl(P *p, CyPos pos, ATypeSyn *ty, const char *name, CyPos npos, ANode *init) {
    ANode *d = new_node(p, S_CDEF, pos);
    d->type = ty;
    push(p, &d->names, (void *)name);
    push(p, &d->name_pos, pos_dup(p, npos));
    push(p, &d->inits, init);
    return d;
}

static ANode *wname(P *p, CyPos pos, const char *name);
static ANode *wassign(P *p, CyPos pos, ANode *target, ANode *value);
static ANode *wcall(P *p, CyPos pos, ANode *f, ANode *a0, ANode *a1, ANode *a2, ANode *a3);

static ANode *wint(P *p, CyPos pos, int v) {
    ANode *n = new_node(p, A_INT, pos);
    n->ival = (uint64_t)v;
    n->int_text = cy_fmt(p->a, "%d", v);
    return n;
}

static ANode *wbin(P *p, CyPos pos, const char *op, ANode *l, ANode *r) {
    ANode *n = new_node(p, A_BINOP, pos);
    n->op = op;
    n->lhs = l;
    n->rhs = r;
    return n;
}

/* The targets before '=' of an expression statement: a testlist where an
 * item may be starred (`a, *rest = seq`); a star is A_STARRED. */
static ANode *parse_target_list(P *p, const Token **star) { return parse_starred_list(p, star, parse_test_nostar); }

/* `a, *b, c = VALUE` is, with a hidden name (cy_star<k>, a module global at
 * module level) and Cython's error:
 *     t = list(VALUE)
 *     if len(t) < 2: raise ValueError("need more than %d value%s to unpack" % (len(t), ...))
 *     a = t[0]; b = t[1:len(t) - 1]; c = t[len(t) - 1] */
static void star_assign(P *p, ANode *targets, const Token *star, CyPos pos, ANode *value, CyVec *out) {
    if (targets->kind != A_TUPLE)
        err_at(p, star->pos, "starred assignment target must be in a list or tuple");
    int n = targets->items.len, at = -1;
    for (int i = 0; i < n; i++) {
        ANode *x = targets->items.items[i];
        if (x->kind != A_STARRED) {
            check_target(p, x, "assign to");
            continue;
        }
        if (at >= 0) err_at(p, x->pos, "multiple starred expressions in assignment");
        check_target(p, x->obj, "assign to");
        at = i;
    }
    const char *tmp = cy_fmt(p->a, "cy_star%d", p->nstar++);
    push(p, out, wassign(p, pos, wname(p, pos, tmp), wcall(p, pos, wname(p, pos, "list"), value, NULL, NULL, NULL)));
#define TLEN wcall(p, pos, wname(p, pos, "len"), wname(p, pos, tmp), NULL, NULL, NULL)
    if (n > 1) {
        ANode *c = new_node(p, A_COMPARE, pos);
        push(p, &c->items, TLEN);
        push(p, &c->kwnames, (void *)"<");
        push(p, &c->kwpos, pos_dup(p, pos));
        push(p, &c->items, wint(p, pos, n - 1));
        ANode *one = new_node(p, A_COMPARE, pos);
        push(p, &one->items, TLEN);
        push(p, &one->kwnames, (void *)"==");
        push(p, &one->kwpos, pos_dup(p, pos));
        push(p, &one->items, wint(p, pos, 1));
        ANode *plural = new_node(p, A_COND, pos);
        plural->cond = one;
        plural->then = new_node(p, A_STR, pos);
        plural->then->sval = "";
        plural->other = new_node(p, A_STR, pos);
        plural->other->sval = "s";
        plural->other->slen = 1;
        ANode *args = new_node(p, A_TUPLE, pos);
        push(p, &args->items, TLEN);
        push(p, &args->items, plural);
        ANode *msg = new_node(p, A_STR, pos);
        msg->sval = "need more than %d value%s to unpack";
        msg->slen = (int)strlen(msg->sval);
        ANode *r = new_node(p, S_RAISE, pos);
        r->value = wcall(p, pos, wname(p, pos, "ValueError"), wbin(p, pos, "%", msg, args), NULL, NULL, NULL);
        ANode *iff = new_node(p, S_IF, pos);
        iff->cond = c;
        push(p, &iff->body, r);
        push(p, out, iff);
    }
    for (int i = 0; i < n; i++) {
        ANode *x = targets->items.items[i];
        ANode *ix = new_node(p, A_INDEX, x->pos);
        ix->obj = wname(p, pos, tmp);
        if (i < at) {
            push(p, &ix->items, wint(p, pos, i));
        } else if (i == at) {
            ANode *sl = new_node(p, A_SLICE, pos);
            sl->then = wint(p, pos, i);
            sl->other = n - 1 - i ? wbin(p, pos, "-", TLEN, wint(p, pos, n - 1 - i)) : NULL;
            push(p, &ix->items, sl);
            x = x->obj;
        } else {
            push(p, &ix->items, wbin(p, pos, "-", TLEN, wint(p, pos, n - i)));
        }
        push(p, out, wassign(p, x->pos, x, ix));
    }
#undef TLEN
}

static void parse_expr_stmt(P *p, CyVec *out) {
    static const char *const aug[] = {"+=", "-=", "*=", "/=", "//=", "%=", "**=", ">>=",
                                      "<<=", "&=", "|=", "^=", "@=", NULL};
    const Token *star;
    ANode *e = parse_target_list(p, &star);
    const Token *t = tok(p);
    if (e->kind == A_WALRUS && !e->parenthesized)
        err_at(p, ((ANode *)e->rhs)->pos, "invalid syntax (an assignment expression at statement level needs parentheses)");
    if (star) {
        if (!is_punct(t, "=")) unsupported_expr(p, star);
        adv(p);
        if (at_kw(p, "yield")) unsupported_expr(p, tok(p));
        ANode *value = parse_testlist(p);
        if (at_punct(p, "="))
            err_at(p, tok(p)->pos, "a starred assignment in a chain of assignments is not supported by cyocl");
        star_assign(p, e, star, e->pos, value, out);
        return;
    }
    if (is_punct(t, "=")) {
        ANode *a = new_node(p, S_ASSIGN, e->pos);
        while (accept_punct(p, "=")) {
            check_target(p, e, "assign to");
            push(p, &a->targets, e);
            if (at_kw(p, "yield"))
                unsupported_expr(p, tok(p));
            e = parse_testlist(p);
        }
        a->value = e;
        if (e->kind == A_WALRUS && !e->parenthesized)
            err_at(p, ((ANode *)e->rhs)->pos, "invalid syntax (an assignment expression here needs parentheses)");
        ATypeSyn *ty;
        if (a->targets.len == 1 && ((ANode *)a->targets.items[0])->kind == A_NAME && e->kind == A_CALL &&
            e->obj->kind == A_ATTR && e->obj->obj->kind == A_NAME && !strcmp(e->obj->obj->name, "cython") &&
            !strcmp(e->obj->name, "declare") && e->items.len >= 1 && e->items.len <= 2 && !e->kwnames.len &&
            (ty = pure_type_of(p, e->items.items[0])) != NULL) {
            /* x = cython.declare(cython.int, 5) */
            ANode *x = a->targets.items[0];
            push(p, out, one_decl(p, a->pos, ty, x->name, x->pos, e->items.len == 2 ? e->items.items[1] : NULL));
            return;
        }
        if (a->targets.len == 1 && ((ANode *)a->targets.items[0])->kind == A_NAME && e->kind == A_CALL &&
            e->obj->kind == A_ATTR && e->obj->obj->kind == A_NAME && !strcmp(e->obj->obj->name, "cython") &&
            (!strcmp(e->obj->name, "fused_type") || !strcmp(e->obj->name, "typedef")) && !e->kwnames.len) {
            /* my_type = cython.fused_type(cython.int, cython.double): ctypedef fused;
               DTYPE = cython.typedef(cython.double): ctypedef */
            ANode *x = a->targets.items[0];
            int fused = !strcmp(e->obj->name, "fused_type");
            if (!e->items.len || (!fused && e->items.len != 1))
                err_at(p, e->pos, "cython.%s() takes %s", e->obj->name, fused ? "at least one type" : "one type");
            ANode *n = new_node(p, fused ? S_FUSED : S_CTYPEDEF, a->pos);
            n->name = x->name;
            push(p, &n->name_pos, pos_dup(p, x->pos));
            for (int k = 0; k < e->items.len; k++) {
                ATypeSyn *ft = pure_type_of(p, e->items.items[k]);
                if (!ft) err_at(p, ((ANode *)e->items.items[k])->pos, "Not a type");
                if (fused) push(p, &n->fused_types, ft);
                else n->type = ft;
            }
            push(p, &p->pure_names, (void *)x->name);
            push(p, out, n);
            return;
        }
        push(p, out, a);
        return;
    }
    if (t->kind == TK_PUNCT) {
        for (int k = 0; aug[k]; k++) {
            if (strcmp(t->text, aug[k]))
                continue;
            if (e->kind != A_NAME && e->kind != A_ATTR && e->kind != A_INDEX)
                err_at(p, e->pos, "illegal expression for augmented assignment");
            adv(p);
            ANode *a = new_node(p, S_AUGASSIGN, e->pos);
            a->op = cy_strndup(p->a, aug[k], strlen(aug[k]) - 1);
            a->lhs = e;
            push(p, &a->targets, e);
            a->rhs = a->value = parse_testlist(p);
            push(p, out, a);
            return;
        }
    }
    if (is_punct(t, ":")) { /* pure-Python mode: `x: cython.double = 0` declares a C variable */
        if (e->kind != A_NAME)
            err_at(p, e->pos, "only a name can be declared with an annotation");
        adv(p);
        ATypeSyn *ty = pure_type(p);
        ANode *init = accept_punct(p, "=") ? parse_testlist(p) : NULL;
        if (ty) {
            push(p, out, one_decl(p, e->pos, ty, e->name, e->pos, init));
        } else if (init) {
            ANode *a = new_node(p, S_ASSIGN, e->pos);
            push(p, &a->targets, e);
            a->value = init;
            push(p, out, a);
        }
        return;
    }
    ANode *s = new_node(p, S_EXPR, e->pos);
    s->value = e;
    push(p, out, s);
}

static void parse_small(P *p, CyVec *out) {
    const Token *t = tok(p);
    ANode *n;
    if (t->kind == TK_KW) {
        if (is_kw(t, "pass") || is_kw(t, "break") || is_kw(t, "continue")) {
            adv(p);
            push(p, out, new_node(p, t->text[0] == 'p' ? S_PASS : t->text[0] == 'b' ? S_BREAK : S_CONTINUE,
                                  t->pos));
            return;
        }
        if (is_kw(t, "return")) {
            adv(p);
            n = new_node(p, S_RETURN, t->pos);
            if (starts_expr(tok(p)))
                n->value = parse_testlist(p);
            push(p, out, n);
            return;
        }
        if (is_kw(t, "raise")) {
            adv(p);
            n = new_node(p, S_RAISE, t->pos);
            if (starts_expr(tok(p)))
                n->value = parse_test(p);
            if (n->value && accept_kw(p, "from"))
                n->rhs = parse_test(p);
            push(p, out, n);
            return;
        }
        if (is_kw(t, "assert")) {
            adv(p);
            n = new_node(p, S_ASSERT, t->pos);
            n->cond = parse_test(p);
            if (accept_punct(p, ","))
                n->value = parse_test(p);
            push(p, out, n);
            return;
        }
        if (is_kw(t, "global") || is_kw(t, "nonlocal")) {
            adv(p);
            n = new_node(p, t->text[0] == 'g' ? S_GLOBAL : S_NONLOCAL, t->pos);
            do {
                const Token *nm = expect_name(p, "a name");
                push(p, &n->names, (void *)nm->text);
                push(p, &n->name_pos, pos_dup(p, nm->pos));
            } while (accept_punct(p, ","));
            push(p, out, n);
            return;
        }
        if (is_kw(t, "del")) {
            adv(p);
            n = new_node(p, S_DEL, t->pos);
            ANode *e = parse_exprlist(p);
            if (e->kind == A_TUPLE) {
                for (int k = 0; k < e->items.len; k++) {
                    check_target(p, e->items.items[k], "delete");
                    push(p, &n->targets, e->items.items[k]);
                }
            } else {
                check_target(p, e, "delete");
                push(p, &n->targets, e);
            }
            push(p, out, n);
            return;
        }
        if (is_kw(t, "import")) {
            parse_import(p, out, S_IMPORT);
            return;
        }
        if (is_kw(t, "cimport")) {
            parse_import(p, out, S_CIMPORT);
            return;
        }
        if (is_kw(t, "from")) {
            ANode *n = parse_from(p);
            if (n->is_cimport) user_cimport(p, n, out);
            push(p, out, n);
            return;
        }
        if (is_kw(t, "yield"))
            unsupported_expr(p, t);
    }
    /* Python 2 statements that Python 3 would misread as expressions */
    if ((is_name(t, "print") || is_name(t, "exec")) && ahead(p, 1)->pos.line == t->pos.line) {
        const Token *u = ahead(p, 1);
        if (is_name(t, "print") && is_punct(u, ">>"))
            err_at(p, t->pos, "'print >>' statements are not supported");
        if (u->kind == TK_NAME || u->kind == TK_STR || u->kind == TK_INT || u->kind == TK_FLOAT)
            err_at(p, t->pos, "'%s' statements are not supported (use %s(...))", t->text, t->text);
    }
    parse_expr_stmt(p, out);
}

static void parse_simple_line(P *p, CyVec *out) {
    for (;;) {
        parse_small(p, out);
        if (!accept_punct(p, ";") || tok(p)->kind == TK_NEWLINE)
            break;
    }
    expect_newline(p);
}

/* ---- functions ------------------------------------------------------------ */

enum { PM_DEF, PM_CDEF, PM_EXTERN };

static void func_trailers(P *p, AFunc *f);

/* "(*NAME)(" after a result type: a function pointer declarator. */
static int at_fnptr(P *p) {
    return at_punct(p, "(") && is_punct(ahead(p, 1), "*") && ahead(p, 2)->kind == TK_NAME &&
           is_punct(ahead(p, 3), ")") && is_punct(ahead(p, 4), "(");
}

/* (*NAME)(ARGS) [noexcept] [nogil] [except ...] after result type ret: the
 * pointer type (fn_ret, fn_args), NAME in *name. */
static ATypeSyn *parse_fnptr(P *p, ATypeSyn *ret, const Token **name) {
    ATypeSyn *ft = cy_alloc(p->a, sizeof *ft);
    ft->pos = ret->pos;
    ft->name = ret->name;
    ft->fn_ret = ret;
    adv(p);
    adv(p);
    *name = adv(p);
    adv(p);
    expect_punct(p, "(");
    while (!at_punct(p, ")") && tok(p)->kind != TK_EOF && tok(p)->kind != TK_NEWLINE) {
        ATypeSyn *a = parse_type_ex(p, 1);
        if (tok(p)->kind == TK_NAME) adv(p); /* the argument's name */
        if (!(a->name && !strcmp(a->name, "void") && !a->ptr && !ft->fn_args.len && at_punct(p, ")")))
            push(p, &ft->fn_args, a);
        if (!accept_punct(p, ",")) break;
    }
    expect_punct(p, ")");
    AFunc trail = {0};
    func_trailers(p, &trail); /* the exception and GIL specification: the called function's */
    return ft;
}

static AParam *parse_param(P *p, int mode) {
    const Token *t = tok(p);
    if (is_punct(t, "*") || is_punct(t, "**"))
        err_at(p, t->pos, "'%s' parameters (*args, **kwargs, keyword-only) are not supported", t->text);
    if (is_punct(t, "/"))
        err_at(p, t->pos, "positional-only parameters ('/') are not supported");
    if (is_punct(t, "..."))
        err_at(p, t->pos, "C varargs ('...') are not supported");
    AParam *a = cy_alloc(p->a, sizeof *a);
    a->pos = t->pos;
    const Token *u = ahead(p, 1);
    if (t->kind == TK_NAME && is_punct(u, ":")) { /* pure-Python mode: `x: cython.double` */
        adv(p);
        adv(p);
        a->name = t->text;
        a->type = pure_type(p);
    } else if (t->kind == TK_NAME && (is_punct(u, ",") || is_punct(u, ")") || is_punct(u, "=")) &&
        !(mode != PM_DEF && is_builtin_type(t->text))) {
        adv(p);
        a->name = t->text;
    } else {
        a->type = parse_type(p);
        if (mode != PM_DEF && at_fnptr(p)) { /* double (*f)(double) noexcept nogil */
            const Token *nm;
            a->type = parse_fnptr(p, a->type, &nm);
            a->pos = nm->pos;
            a->name = nm->text;
        } else if (tok(p)->kind == TK_NAME) {
            a->pos = tok(p)->pos;
            a->name = adv(p)->text;
        } else if (mode == PM_DEF) {
            err_syntax(p, "invalid syntax: expected a parameter name");
        }
        if (at_punct(p, "["))
            err_at(p, tok(p)->pos, "C array parameters are not supported by cyocl (declare a pointer)");
    }
    if (at_kw(p, "not") && is_kw(ahead(p, 1), "None")) {
        adv(p);
        adv(p);
        a->not_none = 1;
    } else if (at_kw(p, "or") && is_kw(ahead(p, 1), "None")) {
        adv(p);
        adv(p);
        a->or_none = 1;
    }
    if (accept_punct(p, "="))
        a->deflt = parse_test(p);
    return a;
}

/* After '(': the parameters and the ')'. */
static void parse_params(P *p, AFunc *f, int mode) {
    int seen_default = 0, kwonly = 0;
    while (!at_punct(p, ")")) {
        if (mode == PM_DEF && (at_punct(p, "*") || at_punct(p, "**")) && ahead(p, 1)->kind == TK_NAME) {
            /* def f(a, *args, b=1, **kwargs): the rest of the positional
               arguments as a tuple, of the keywords as a dict */
            const Token *st = adv(p);
            int two = is_punct(st, "**");
            if (!two && kwonly)
                err_at(p, st->pos, "invalid syntax");
            if (!f->star_pos.line) f->star_pos = st->pos;
            AParam *a = cy_alloc(p->a, sizeof *a);
            a->pos = tok(p)->pos;
            a->name = adv(p)->text;
            a->star = two ? 2 : 1;
            a->kwonly = 1;
            kwonly = 1;
            push(p, &f->params, a);
            if (two && at_punct(p, ",") && !is_punct(ahead(p, 1), ")"))
                err_at(p, ahead(p, 1)->pos, "arguments cannot follow var-keyword argument");
            if (!accept_punct(p, ","))
                break;
            continue;
        }
        if (mode == PM_DEF && !kwonly && at_punct(p, "*") && is_punct(ahead(p, 1), ",")) {
            /* def f(x, *, scale=1.0): the rest by keyword only */
            adv(p);
            adv(p);
            kwonly = 1;
            if (at_punct(p, ")"))
                err_at(p, tok(p)->pos, "named arguments must follow bare *");
            continue;
        }
        AParam *a = parse_param(p, mode);
        a->kwonly = kwonly;
        if (a->deflt)
            seen_default = 1;
        else if (seen_default && !kwonly)
            err_at(p, a->pos, "non-default argument follows default argument");
        push(p, &f->params, a);
        if (!accept_punct(p, ","))
            break;
    }
    expect_punct(p, ")");
    /* C's "f(void)" */
    if (mode != PM_DEF && f->params.len == 1) {
        AParam *a = f->params.items[0];
        if (!a->name && a->type && !strcmp(a->type->name, "void") && !a->type->ptr && !a->type->ndim)
            f->params.len = 0;
    }
}

/* noexcept / nogil / except ... / with gil, in any order. */
static void func_trailers(P *p, AFunc *f) {
    for (;;) {
        if (at_name(p, "nogil")) {
            adv(p);
            f->is_nogil = 1;
        } else if (at_name(p, "noexcept")) {
            adv(p);
            f->is_noexcept = 1;
        } else if (at_kw(p, "with") && is_name(ahead(p, 1), "gil")) {
            adv(p);
            adv(p);
            f->with_gil = 1;
        } else if (at_kw(p, "except")) {
            adv(p);
            if (at_punct(p, "+"))
                err_at(p, tok(p)->pos, "'except +' (C++ exceptions) is not supported");
            if (accept_punct(p, "?")) {
                f->has_except = 2;
                if (accept_punct(p, "*"))
                    f->has_except = 3;
                else
                    f->except_value = parse_test(p);
            } else if (accept_punct(p, "*")) {
                f->has_except = 3;
            } else {
                f->has_except = 1;
                f->except_value = parse_test(p);
            }
        } else if (at_name(p, "const")) {
            adv(p);
        } else {
            return;
        }
    }
}

static void take_docstring(AFunc *f) {
    if (!f->body.len)
        return;
    ANode *s = f->body.items[0];
    if (s->kind != S_EXPR || s->value->kind != A_STR || s->value->is_bytes || s->value->is_fstring)
        return;
    f->docstring = s->value->sval;
    memmove(f->body.items, f->body.items + 1, sizeof(void *) * (size_t)(f->body.len - 1));
    f->body.len--;
}

static ANode *new_func(P *p, FuncKind kind, CyPos pos, const Token *name, CyVec *decorators) {
    ANode *n = new_node(p, S_FUNC, pos);
    AFunc *f = cy_alloc(p->a, sizeof *f);
    f->kind = kind;
    f->name = name->text;
    f->pos = name->pos;
    if (decorators)
        f->decorators = *decorators;
    n->func = f;
    n->name = f->name;
    return n;
}

static int is_cython_attr(const ANode *x, const char *name) {
    return x->kind == A_ATTR && x->obj->kind == A_NAME && !strcmp(x->obj->name, "cython") && !strcmp(x->name, name);
}

/* Pure-Python mode's function decorators: @cython.cfunc / ccall make a
 * cdef / cpdef function; nogil, inline, noexcept, exceptval(...),
 * returns(T) and locals(name=T, ...) say what the cdef syntax says.  The
 * others (directives) stay for sema. */
static void pure_decorators(P *p, AFunc *f, ATypeSyn *ret) {
    CyVec keep = {0}, decls = {0};
    int is_c = 0;
    for (int i = 0; i < f->decorators.len; i++) {
        ANode *d = f->decorators.items[i];
        ANode *callee = d->kind == A_CALL ? d->obj : d;
        if (d->kind != A_CALL && is_cython_attr(d, "cfunc")) {
            f->kind = FN_CDEF;
            is_c = 1;
        } else if (d->kind != A_CALL && is_cython_attr(d, "ccall")) {
            f->kind = FN_CPDEF;
            is_c = 1;
        } else if (d->kind != A_CALL && is_cython_attr(d, "nogil")) {
            f->is_nogil = 1;
        } else if (d->kind != A_CALL && is_cython_attr(d, "inline")) {
            f->is_inline = 1;
        } else if (d->kind != A_CALL && is_cython_attr(d, "noexcept")) {
            f->is_noexcept = 1;
        } else if (d->kind == A_CALL && is_cython_attr(callee, "exceptval")) {
            int check = 0;
            for (int k = 0; k < d->kwnames.len; k++) {
                ANode *v = d->values.items[k];
                if (strcmp(d->kwnames.items[k], "check"))
                    err_at(p, v->pos, "exceptval() takes a value and check=");
                check = v->kind == A_TRUE;
            }
            if (d->items.len > 1) err_at(p, d->pos, "exceptval() takes one value");
            if (d->items.len) {
                f->has_except = check ? 2 : 1;
                f->except_value = d->items.items[0];
            } else {
                f->has_except = check ? 3 : 0;
                f->is_noexcept = !check;
            }
        } else if (d->kind == A_CALL && is_cython_attr(callee, "returns") && d->items.len == 1) {
            ret = pure_type_of(p, d->items.items[0]);
            if (!ret) err_at(p, d->pos, "cython.returns() needs a C type (cython.double, ...)");
        } else if (d->kind == A_CALL && is_cython_attr(callee, "locals") && !d->items.len) {
            for (int k = 0; k < d->kwnames.len; k++) {
                ANode *v = d->values.items[k];
                ATypeSyn *ty = pure_type_of(p, v);
                if (!ty) err_at(p, v->pos, "cython.locals() needs C types (cython.int, cython.double[:], ...)");
                int is_param = 0;
                for (int j = 0; j < f->params.len; j++) {
                    AParam *a = f->params.items[j];
                    if (!strcmp(a->name, d->kwnames.items[k])) {
                        a->type = ty;
                        is_param = 1;
                    }
                }
                if (is_param) continue;
                push(p, &decls, one_decl(p, v->pos, ty, d->kwnames.items[k], v->pos, NULL));
            }
        } else {
            push(p, &keep, d);
        }
    }
    f->decorators = keep;
    if (is_c && ret) f->ret = ret;
    if (decls.len) { /* the declarations first, then the body */
        for (int i = 0; i < f->body.len; i++) push(p, &decls, f->body.items[i]);
        f->body = decls;
    }
}

static ANode *parse_def(P *p, CyVec *decorators) {
    const Token *kw = adv(p);
    const Token *name = expect_name(p, "a function name");
    ANode *n = new_func(p, FN_DEF, kw->pos, name, decorators);
    expect_punct(p, "(");
    parse_params(p, n->func, PM_DEF);
    ATypeSyn *ret = NULL;
    if (accept_punct(p, "->"))
        ret = pure_type(p); /* the return type of a @cython.cfunc; for a def, ignored as Cython does */
    block_colon(p);
    p->in_func++;
    parse_suite(p, &n->func->body);
    p->in_func--;
    take_docstring(n->func);
    pure_decorators(p, n->func, ret);
    return n;
}

/* ---- cdef ----------------------------------------------------------------- */

enum { DM_CDEF, DM_BLOCK, DM_EXTERN };

/* In an extern block, a string after the declared name is the C name
 * Cython writes for it (`double c_sqrt "sqrt"(double x)`). */
static const char *extern_cname(P *p, int mode) {
    const Token *t = tok(p);
    if (mode != DM_EXTERN || t->kind != TK_STR) return NULL;
    if (t->str_prefix[0] || t->slen == 0 || memchr(t->sval, '\0', (size_t)t->slen)) {
        err_at(p, t->pos, "invalid C name string");
        return NULL;
    }
    adv(p);
    return t->sval;
}

/* The rest of a C declaration once the base type is known: either a
 * function (name '(' ...) or variables "name [= init], *name2 ...".
 * Variables whose '*'s differ go into separate S_CDEF nodes, since a node
 * has one type. */
static void parse_declarators(P *p, CyPos pos, ATypeSyn *base, int mode, int is_public,
                              FuncKind fkind, CyVec *decorators, CyVec *out) {
    int stars = count_stars(p);
    if (base && mode != DM_EXTERN && at_fnptr(p)) {
        /* cdef double (*f)(double) noexcept nogil [= value] */
        const Token *fname;
        ANode *n = new_node(p, S_CDEF, pos);
        n->type = parse_fnptr(p, type_with_stars(p, base, stars), &fname);
        n->is_public = is_public;
        ANode *init = NULL;
        if (accept_punct(p, "=")) init = parse_test(p);
        push(p, &n->names, (void *)fname->text);
        push(p, &n->name_pos, pos_dup(p, fname->pos));
        push(p, &n->inits, init);
        push(p, out, n);
        accept_punct(p, ";");
        expect_newline(p);
        return;
    }
    const Token *name = expect_name(p, "a name to declare");
    const char *cname = extern_cname(p, mode);
    if (at_punct(p, "(")) {
        if (mode == DM_BLOCK)
            err_at(p, name->pos, "functions cannot be declared in a 'cdef:' block");
        ANode *n = new_func(p, fkind, pos, name, decorators);
        AFunc *f = n->func;
        f->cname = cname;
        f->ret = base ? type_with_stars(p, base, stars) : NULL;
        adv(p);
        parse_params(p, f, mode == DM_EXTERN ? PM_EXTERN : PM_CDEF);
        func_trailers(p, f);
        if (mode == DM_EXTERN) {
            accept_punct(p, ";");
            if (at_punct(p, ":"))
                err_syntax(p, "function definitions are not allowed in an extern block");
            expect_newline(p);
        } else if (!at_punct(p, ":")) {
            /* a forward declaration (a .pxd's, or Cython's older style in a .pyx) */
            accept_punct(p, ";");
            expect_newline(p);
            f->decl_only = 1;
            f->pxd_module = p->pxd_mod;
        } else {
            block_colon(p);
            p->in_func++;
            parse_suite(p, &f->body);
            p->in_func--;
            take_docstring(f);
        }
        push(p, out, n);
        return;
    }
    if (decorators && decorators->len)
        err_at(p, ((ANode *)decorators->items[0])->pos, "decorators can only be applied to functions");
    if (fkind == FN_CPDEF)
        err_at(p, pos, "cpdef variables are not supported");
    if (!base)
        base = object_type(p, name->pos);
    ANode *cur = NULL;
    int cur_stars = -1;
    for (;;) {
        ATypeSyn *arr = NULL;
        if (at_punct(p, "[")) {
            /* "cdef double v[3]": the declarator's dimensions come before
               those of the type ("cdef int[3] m[2]" is int m[2][3]) */
            arr = cy_alloc(p->a, sizeof *arr);
            *arr = *type_with_stars(p, base, stars);
            ATypeSyn tmp = {0};
            array_dims(p, &tmp);
            if (tmp.narr + arr->narr > 8)
                err_at(p, name->pos, "C arrays of more than 8 dimensions are not supported");
            for (int k = 0; k < arr->narr; k++)
                tmp.arr[tmp.narr + k] = arr->arr[k];
            for (int k = 0; k < tmp.narr + arr->narr; k++)
                arr->arr[k] = tmp.arr[k];
            arr->narr += tmp.narr;
        }
        if (at_punct(p, "("))
            err_syntax(p, "invalid syntax");
        if (arr || !cur || stars != cur_stars || cur->type->narr) {
            cur = new_node(p, S_CDEF, cur ? name->pos : pos);
            cur->type = arr ? arr : type_with_stars(p, base, stars);
            cur->is_public = is_public;
            cur_stars = stars;
            push(p, out, cur);
        }
        ANode *init = NULL;
        if (at_punct(p, "=")) {
            if (mode == DM_EXTERN)
                err_at(p, tok(p)->pos, "extern declarations cannot have initial values");
            adv(p);
            init = parse_test(p);
        }
        push(p, &cur->names, (void *)name->text);
        push(p, &cur->name_pos, pos_dup(p, name->pos));
        push(p, &cur->inits, init);
        push(p, &cur->cnames, (void *)cname);
        if (!accept_punct(p, ","))
            break;
        stars = count_stars(p);
        name = expect_name(p, "a name to declare");
        cname = extern_cname(p, mode);
    }
    accept_punct(p, ";");
    expect_newline(p);
}

/* A declaration after 'cdef' (and its modifiers): decides between
 * "cdef f(...)" (returns object), "cdef x" (object) and "cdef TYPE ...". */
static void parse_c_decl(P *p, CyPos pos, int mode, int is_public, FuncKind fkind,
                         CyVec *decorators, CyVec *out) {
    const Token *t = tok(p), *u = ahead(p, 1);
    ATypeSyn *base = NULL;
    if (t->kind == TK_NAME && !is_builtin_type(t->text) &&
        (is_punct(u, "(") || u->kind == TK_NEWLINE || is_punct(u, ",") || is_punct(u, "=")))
        base = NULL; /* no type: object */
    else
        base = parse_type_ex(p, 0);
    parse_declarators(p, pos, base, mode, is_public, fkind, decorators, out);
}

/* cdef/cpdef/ctypedef enum [NAME]: enumerators, one line ("A, B = 2") or a
 * block of such lines.  kw is the leading keyword's position. */
static ANode *parse_enum(P *p, CyPos pos, int is_typedef, int is_cpdef) {
    adv(p); /* enum */
    ANode *n = new_node(p, S_ENUM, pos);
    n->is_typedef = is_typedef;
    n->is_cpdef = is_cpdef;
    if (tok(p)->kind == TK_NAME) {
        n->name = adv(p)->text;
    } else if (is_typedef) {
        expect_name(p, "the enum's name");
    }
    if (!at_punct(p, ":"))
        err_at(p, tok(p)->pos, "enum declarations without enumerators are not supported by cyocl");
    adv(p);
    int block = tok(p)->kind == TK_NEWLINE;
    if (block) {
        adv(p);
        if (tok(p)->kind != TK_INDENT)
            err_syntax(p, "expected an indented block");
        adv(p);
    }
    for (;;) {
        if (block && (tok(p)->kind == TK_DEDENT || tok(p)->kind == TK_EOF)) {
            adv(p);
            break;
        }
        if (tok(p)->kind == TK_INDENT)
            err_unexpected(p);
        if (accept_kw(p, "pass")) {
            expect_newline(p);
        } else if (tok(p)->kind == TK_STR) {
            parse_strings(p); /* a docstring */
            expect_newline(p);
        } else {
            for (;;) {
                const Token *nm = expect_name(p, "an enumerator name");
                push(p, &n->names, (void *)nm->text);
                push(p, &n->name_pos, pos_dup(p, nm->pos));
                push(p, &n->inits, accept_punct(p, "=") ? parse_test(p) : NULL);
                if (!accept_punct(p, ",") || tok(p)->kind == TK_NEWLINE)
                    break;
            }
            expect_newline(p);
        }
        if (!block)
            break;
    }
    if (!n->names.len)
        err_at(p, pos, "an enum needs at least one enumerator");
    return n;
}

/* cdef/ctypedef [packed] struct NAME: a block of field declarations
 * ("double x, y", "int[3] v"), as S_CDEF nodes in body. */
static ANode *parse_struct(P *p, CyPos pos, int is_typedef) {
    ANode *n = new_node(p, S_STRUCT, pos);
    n->is_typedef = is_typedef;
    if (at_name(p, "packed")) {
        adv(p);
        n->is_packed = 1;
    }
    adv(p); /* struct */
    const Token *nm = expect_name(p, "the struct's name");
    n->name = nm->text;
    push(p, &n->name_pos, pos_dup(p, nm->pos));
    if (!at_punct(p, ":"))
        err_at(p, tok(p)->pos, "struct declarations without fields are not supported by cyocl");
    adv(p);
    expect_newline(p);
    if (tok(p)->kind != TK_INDENT)
        err_syntax(p, "expected an indented block");
    adv(p);
    while (tok(p)->kind != TK_DEDENT && tok(p)->kind != TK_EOF) {
        if (tok(p)->kind == TK_INDENT)
            err_unexpected(p);
        if (accept_kw(p, "pass")) {
            expect_newline(p);
            continue;
        }
        if (tok(p)->kind == TK_STR) {
            parse_strings(p);
            expect_newline(p);
            continue;
        }
        parse_c_decl(p, tok(p)->pos, DM_BLOCK, 0, FN_CDEF, NULL, &n->body);
    }
    adv(p);
    return n;
}

static int at_struct(P *p) {
    return at_name(p, "struct") || (at_name(p, "packed") && is_name(ahead(p, 1), "struct"));
}

static const char *struct_what(const char *w) {
    if (!strcmp(w, "struct")) return "a struct definition";
    if (!strcmp(w, "union")) return "a union definition";
    if (!strcmp(w, "enum")) return "an enum definition";
    if (!strcmp(w, "cppclass")) return "a C++ class";
    if (!strcmp(w, "packed")) return "a struct definition";
    return NULL;
}

/* ctypedef fused NAME: (or cdef fused) and one type per line; as in
 * Cython, the types cannot follow the colon on the same line. */
static ANode *parse_fused(P *p, CyPos pos) {
    adv(p); /* fused */
    ANode *n = new_node(p, S_FUSED, pos);
    const Token *name = expect_name(p, "the fused type's name");
    n->name = name->text;
    push(p, &n->name_pos, pos_dup(p, name->pos));
    block_colon(p);
    expect_newline(p);
    if (tok(p)->kind != TK_INDENT)
        err_syntax(p, "expected an indented block");
    adv(p);
    while (tok(p)->kind != TK_DEDENT && tok(p)->kind != TK_EOF) {
        if (tok(p)->kind == TK_INDENT)
            err_unexpected(p);
        if (accept_kw(p, "pass")) {
            expect_newline(p);
            continue;
        }
        push(p, &n->fused_types, parse_type_ex(p, 1));
        expect_newline(p);
    }
    adv(p);
    if (!n->fused_types.len)
        err_at(p, pos, "Need at least one type");
    return n;
}

static ANode *parse_ctypedef(P *p) {
    const Token *kw = adv(p);
    while (at_name(p, "public") || at_name(p, "api"))
        adv(p);
    if (at_name(p, "fused") && ahead(p, 1)->kind == TK_NAME)
        return parse_fused(p, kw->pos);
    if (at_name(p, "enum"))
        return parse_enum(p, kw->pos, 1, 0);
    if (at_struct(p))
        return parse_struct(p, kw->pos, 1);
    if (tok(p)->kind == TK_NAME && struct_what(tok(p)->text))
        return unsupported(p, kw->pos, struct_what(tok(p)->text));
    if (at_kw(p, "class"))
        return unsupported(p, kw->pos, "an extension type declaration");
    ANode *n = new_node(p, S_CTYPEDEF, kw->pos);
    ATypeSyn *base = parse_type_ex(p, 0);
    int stars = count_stars(p);
    if (at_fnptr(p)) {
        const Token *fname;
        n->type = parse_fnptr(p, type_with_stars(p, base, stars), &fname);
        n->name = fname->text;
        push(p, &n->name_pos, pos_dup(p, fname->pos));
        accept_punct(p, ";");
        expect_newline(p);
        return n;
    }
    if (at_punct(p, "("))
        err_at(p, tok(p)->pos, "this function pointer declarator is not supported by cyocl");
    const Token *name = expect_name(p, "the new type's name");
    if (tok(p)->kind == TK_STR)
        /* `ctypedef void const_void "const void"` (a C name, in extern blocks):
           cyocl's C spells the type by its definition, so the name goes unused */
        adv(p);
    if (at_punct(p, "["))
        err_at(p, tok(p)->pos, "C array types are not supported");
    n->type = type_with_stars(p, base, stars);
    n->name = name->text;
    push(p, &n->name_pos, pos_dup(p, name->pos));
    accept_punct(p, ";");
    expect_newline(p);
    return n;
}

static void parse_extern_line(P *p, ANode *ext, int nogil) {
    const Token *t = tok(p);
    if (is_kw(t, "pass")) {
        adv(p);
        expect_newline(p);
        return;
    }
    if (t->kind == TK_STR) {
        if (ext->verbatim || ext->decls.len)
            err_at(p, t->pos, "a verbatim C string must come first in an extern block");
        ANode *s = parse_strings(p);
        if (s->is_bytes || s->is_fstring)
            err_at(p, t->pos, "the verbatim C code must be a plain string");
        ext->verbatim = s->sval;
        expect_newline(p);
        return;
    }
    if (is_kw(t, "ctypedef")) {
        push(p, &ext->decls, parse_ctypedef(p));
        return;
    }
    if (is_kw(t, "cdef")) {
        adv(p);
        t = tok(p);
    }
    if (t->kind == TK_NAME && struct_what(t->text)) {
        push(p, &ext->decls, unsupported(p, t->pos, struct_what(t->text)));
        return;
    }
    if (is_kw(t, "class")) {
        push(p, &ext->decls, unsupported(p, t->pos, "an extension type declaration"));
        return;
    }
    int first = ext->decls.len;
    parse_c_decl(p, t->pos, DM_EXTERN, 0, FN_CDEF, NULL, &ext->decls);
    if (nogil)
        for (int k = first; k < ext->decls.len; k++) {
            ANode *d = ext->decls.items[k];
            if (d->kind == S_FUNC)
                d->func->is_nogil = 1;
        }
}

/* cdef extern from "header.h" [nogil]:  /  cdef extern from *: */
static ANode *parse_extern(P *p, CyPos pos) {
    adv(p); /* 'extern' */
    if (!accept_kw(p, "from"))
        err_syntax(p, "expected 'from' after 'cdef extern' (write 'cdef extern from \"header.h\":')");
    ANode *n = new_node(p, S_EXTERN, pos);
    const Token *h = tok(p);
    if (h->kind == TK_STR) {
        if (h->str_prefix[0] || h->slen == 0 || memchr(h->sval, '\0', (size_t)h->slen))
            err_at(p, h->pos, "invalid header name");
        n->header = h->sval;
        adv(p);
    } else if (!accept_punct(p, "*")) {
        err_syntax(p, "expected a header name string or '*'");
    }
    if (at_name(p, "namespace"))
        err_at(p, tok(p)->pos, "C++ namespaces are not supported");
    int nogil = 0;
    if (at_name(p, "nogil")) {
        adv(p);
        nogil = 1;
    }
    block_colon(p);
    if (tok(p)->kind != TK_NEWLINE) {
        parse_extern_line(p, n, nogil);
        return n;
    }
    adv(p);
    if (tok(p)->kind != TK_INDENT)
        err_syntax(p, "expected an indented block");
    adv(p);
    while (tok(p)->kind != TK_DEDENT && tok(p)->kind != TK_EOF) {
        if (tok(p)->kind == TK_INDENT)
            err_unexpected(p);
        parse_extern_line(p, n, nogil);
    }
    adv(p);
    return n;
}

/* cdef / cpdef statements: variables, functions, 'cdef:' blocks, extern
 * blocks, and (to reject) classes, structs, unions, enums. */
static void parse_cdef(P *p, CyVec *decorators, CyVec *out) {
    const Token *kw = adv(p);
    FuncKind fkind = is_kw(kw, "cpdef") ? FN_CPDEF : FN_CDEF;
    if (fkind == FN_CDEF && at_name(p, "extern") && is_kw(ahead(p, 1), "from")) {
        if (decorators && decorators->len)
            err_at(p, ((ANode *)decorators->items[0])->pos, "decorators can only be applied to functions");
        push(p, out, parse_extern(p, kw->pos));
        return;
    }
    int is_public = 0, is_inline = 0;
    for (;;) {
        if (at_name(p, "public") || at_name(p, "readonly") || at_name(p, "api")) {
            is_public = at_name(p, "readonly") ? 2 : 1;
            adv(p);
        } else if (at_name(p, "inline")) {
            is_inline = 1;
            adv(p);
        } else {
            break;
        }
    }
    const Token *t = tok(p);
    if (is_kw(t, "class")) {
        push(p, out, parse_cdef_class(p, kw->pos));
        return;
    }
    if (fkind == FN_CDEF && is_name(t, "fused") && ahead(p, 1)->kind == TK_NAME && is_punct(ahead(p, 2), ":")) {
        push(p, out, parse_fused(p, kw->pos));
        return;
    }
    if (is_name(t, "enum")) {
        push(p, out, parse_enum(p, kw->pos, 0, fkind == FN_CPDEF));
        return;
    }
    if (fkind == FN_CDEF && at_struct(p)) {
        push(p, out, parse_struct(p, kw->pos, 0));
        return;
    }
    if (t->kind == TK_NAME && struct_what(t->text)) {
        push(p, out, unsupported(p, kw->pos, struct_what(t->text)));
        return;
    }
    if (is_punct(t, ":")) {
        if (fkind == FN_CPDEF)
            err_syntax(p, "invalid syntax");
        if (decorators && decorators->len)
            err_at(p, ((ANode *)decorators->items[0])->pos, "decorators can only be applied to functions");
        adv(p);
        if (tok(p)->kind != TK_NEWLINE) {
            parse_c_decl(p, tok(p)->pos, DM_BLOCK, is_public, FN_CDEF, NULL, out);
            return;
        }
        adv(p);
        if (tok(p)->kind != TK_INDENT)
            err_syntax(p, "expected an indented block");
        adv(p);
        while (tok(p)->kind != TK_DEDENT && tok(p)->kind != TK_EOF) {
            if (tok(p)->kind == TK_INDENT)
                err_unexpected(p);
            if (at_kw(p, "pass")) {
                adv(p);
                expect_newline(p);
                continue;
            }
            int pub = is_public;
            while (at_name(p, "public") || at_name(p, "readonly")) {
                adv(p);
                pub = 1;
            }
            parse_c_decl(p, tok(p)->pos, DM_BLOCK, pub, FN_CDEF, NULL, out);
        }
        adv(p);
        return;
    }
    int first = out->len;
    parse_c_decl(p, kw->pos, DM_CDEF, is_public, fkind, decorators, out);
    if (is_inline)
        for (int k = first; k < out->len; k++) {
            ANode *n = out->items[k];
            if (n->kind == S_FUNC)
                n->func->is_inline = 1;
            else
                err_at(p, n->pos, "'inline' applies only to functions");
        }
}

/* ---- compound statements -------------------------------------------------- */

static void parse_if(P *p, CyVec *out) {
    const Token *kw = adv(p);
    ANode *n = new_node(p, S_IF, kw->pos);
    n->cond = parse_test(p);
    block_colon(p);
    parse_suite(p, &n->body);
    push(p, out, n);
    /* elif chains iterate: a long chain must not recurse */
    while (at_kw(p, "elif")) {
        const Token *e = adv(p);
        ANode *m = new_node(p, S_IF, e->pos);
        m->cond = parse_test(p);
        block_colon(p);
        parse_suite(p, &m->body);
        push(p, &n->orelse, m);
        n = m;
    }
    if (accept_kw(p, "else")) {
        block_colon(p);
        parse_suite(p, &n->orelse);
    }
}

static ANode *parse_try(P *p) {
    const Token *kw = adv(p);
    ANode *n = new_node(p, S_TRY, kw->pos);
    block_colon(p);
    parse_suite(p, &n->body);
    while (at_kw(p, "except")) {
        const Token *e = adv(p);
        ANode *h = new_node(p, S_EXCEPT, e->pos);
        if (!at_punct(p, ":")) {
            h->value = parse_test(p);
            if (accept_kw(p, "as")) {
                const Token *nm = expect_name(p, "a name after 'as'");
                h->name = nm->text;
                push(p, &h->name_pos, pos_dup(p, nm->pos));
            }
        }
        block_colon(p);
        parse_suite(p, &h->body);
        push(p, &n->handlers, h);
    }
    if (n->handlers.len && accept_kw(p, "else")) {
        block_colon(p);
        parse_suite(p, &n->tryelse);
    }
    if (accept_kw(p, "finally")) {
        block_colon(p);
        parse_suite(p, &n->orelse);
    } else if (!n->handlers.len) {
        err_syntax(p, "expected 'except' or 'finally' block");
    }
    return n;
}

static void parse_else(P *p, ANode *n) {
    if (accept_kw(p, "else")) {
        block_colon(p);
        parse_suite(p, &n->orelse);
    }
}

static ANode *parse_for(P *p) {
    const Token *kw = adv(p);
    ANode *n = new_node(p, S_FOR, kw->pos);
    const Token *star = NULL;
    ANode *target = parse_for_targets(p, &star);
    if (star) {
        /* for a, *b in it: each item goes to a hidden name, then a, *b = that */
        if (!at_kw(p, "in")) err_syntax(p, "expected 'in'");
        ANode *hidden = new_node(p, A_NAME, target->pos);
        hidden->name = cy_fmt(p->a, "cy_star%d", p->nstar++);
        push(p, &n->targets, hidden);
        accept_kw(p, "in");
        n->value = parse_testlist(p);
        block_colon(p);
        CyVec body = {0};
        ANode *val = new_node(p, A_NAME, target->pos);
        val->name = hidden->name;
        star_assign(p, target, star, target->pos, val, &body);
        parse_suite(p, &n->body);
        for (int i = 0; i < n->body.len; i++) push(p, &body, n->body.items[i]);
        n->body = body;
        parse_else(p, n);
        return n;
    }
    check_target(p, target, "assign to");
    push(p, &n->targets, target);
    if (at_kw(p, "from") && target->kind == A_NAME) {
        /* Cython's for-from loop: for i from a <= i < b [by s] */
        const Token *fk = adv(p);
        ANode *c = parse_test(p);
        if (c->kind != A_COMPARE || c->items.len != 3)
            err_at(p, c->pos, "for-from bounds must be 'a < i < b' or 'a > i > b' (with '<=' / '>=')");
        int dir[2];
        for (int k = 0; k < 2; k++) {
            const char *op = c->kwnames.items[k];
            dir[k] = !strcmp(op, "<") || !strcmp(op, "<=") ? 1 : !strcmp(op, ">") || !strcmp(op, ">=") ? -1 : 0;
            if (!dir[k]) err_at(p, *(CyPos *)c->kwpos.items[k], "Invalid relation '%s' in for-from loop", op);
        }
        if (dir[0] != dir[1]) err_at(p, *(CyPos *)c->kwpos.items[1], "Relation directions in for-from do not match");
        ANode *mid = c->items.items[1];
        if (mid->kind != A_NAME || strcmp(mid->name, target->name))
            err_at(p, mid->pos, "Variable name in for-from range does not match target");
        n->for_from = 1;
        n->cond = c;
        if (at_name(p, "by")) {
            adv(p);
            n->other = parse_test(p);
        }
        /* what the loop counts through, for the inference of untyped counters */
        ANode *r = new_node(p, A_CALL, fk->pos);
        r->obj = new_node(p, A_NAME, fk->pos);
        r->obj->name = "range";
        r->synthetic = 2;
        push(p, &r->items, c->items.items[0]);
        push(p, &r->items, c->items.items[2]);
        n->value = r;
        block_colon(p);
        parse_suite(p, &n->body);
        parse_else(p, n);
        return n;
    }
    if (!accept_kw(p, "in"))
        err_syntax(p, "expected 'in'");
    n->value = parse_testlist(p);
    block_colon(p);
    parse_suite(p, &n->body);
    parse_else(p, n);
    return n;
}

static ANode *parse_while(P *p) {
    const Token *kw = adv(p);
    ANode *n = new_node(p, S_WHILE, kw->pos);
    n->cond = parse_test(p);
    block_colon(p);
    parse_suite(p, &n->body);
    parse_else(p, n);
    return n;
}

static ANode *wname(P *p, CyPos pos, const char *name) {
    ANode *n = new_node(p, A_NAME, pos);
    n->name = name;
    return n;
}

static ANode *wassign(P *p, CyPos pos, ANode *target, ANode *value) {
    ANode *n = new_node(p, S_ASSIGN, pos);
    push(p, &n->targets, target);
    n->value = value;
    return n;
}

static ANode *wcall(P *p, CyPos pos, ANode *f, ANode *a0, ANode *a1, ANode *a2, ANode *a3) {
    ANode *c = new_node(p, A_CALL, pos);
    c->obj = f;
    ANode *args[] = {a0, a1, a2, a3};
    for (int i = 0; i < 4 && args[i]; i++) push(p, &c->items, args[i]);
    return c;
}

static ANode *wattr(P *p, CyPos pos, ANode *o, const char *name) {
    ANode *a = new_node(p, A_ATTR, pos);
    a->obj = o;
    a->name = name;
    return a;
}

/* `with EXPR as TARGET: BODY` is Python's protocol, written with what
 * cyocl compiles (PEP 343's expansion; names cy_with<k>_* are hidden):
 *     m = EXPR; x = type(m).__exit__; v = type(m).__enter__(m); ok = True
 *     try:
 *         try:
 *             TARGET = v; BODY
 *         except BaseException as e:
 *             ok = False
 *             if not x(m, type(e), e, e.__traceback__): raise
 *     finally:
 *         if ok: x(m, None, None, None)
 * so __exit__ runs when the body ends, returns, breaks or raises. */
static void with_as(P *p, CyPos pos, ANode *expr, ANode *target, CyVec *body, CyVec *out) {
    int k = p->nwith++;
    const char *m = cy_fmt(p->a, "cy_with%d_m", k), *x = cy_fmt(p->a, "cy_with%d_x", k),
               *v = cy_fmt(p->a, "cy_with%d_v", k), *ok = cy_fmt(p->a, "cy_with%d_ok", k),
               *e = cy_fmt(p->a, "cy_with%d_e", k);
    push(p, out, wassign(p, pos, wname(p, pos, m), expr));
    ANode *tm = wcall(p, pos, wname(p, pos, "type"), wname(p, pos, m), NULL, NULL, NULL);
    push(p, out, wassign(p, pos, wname(p, pos, x), wattr(p, pos, tm, "__exit__")));
    ANode *tm2 = wcall(p, pos, wname(p, pos, "type"), wname(p, pos, m), NULL, NULL, NULL);
    push(p, out, wassign(p, pos, wname(p, pos, v),
                         wcall(p, pos, wattr(p, pos, tm2, "__enter__"), wname(p, pos, m), NULL, NULL, NULL)));
    push(p, out, wassign(p, pos, wname(p, pos, ok), new_node(p, A_TRUE, pos)));
    ANode *inner = new_node(p, S_TRY, pos);
    if (target) push(p, &inner->body, wassign(p, pos, target, wname(p, pos, v)));
    for (int i = 0; i < body->len; i++) push(p, &inner->body, body->items[i]);
    ANode *h = new_node(p, S_EXCEPT, pos);
    h->value = wname(p, pos, "BaseException");
    h->name = e;
    push(p, &h->name_pos, pos_dup(p, pos));
    push(p, &h->body, wassign(p, pos, wname(p, pos, ok), new_node(p, A_FALSE, pos)));
    ANode *te = wcall(p, pos, wname(p, pos, "type"), wname(p, pos, e), NULL, NULL, NULL);
    ANode *ex = wcall(p, pos, wname(p, pos, x), wname(p, pos, m), te, wname(p, pos, e),
                      wattr(p, pos, wname(p, pos, e), "__traceback__"));
    ANode *nt = new_node(p, A_NOT, pos);
    nt->obj = ex;
    ANode *iff = new_node(p, S_IF, pos);
    iff->cond = nt;
    push(p, &iff->body, new_node(p, S_RAISE, pos));
    push(p, &h->body, iff);
    push(p, &inner->handlers, h);
    ANode *outer = new_node(p, S_TRY, pos);
    push(p, &outer->body, inner);
    ANode *fin = new_node(p, S_IF, pos);
    fin->cond = wname(p, pos, ok);
    ANode *call = new_node(p, S_EXPR, pos);
    call->value = wcall(p, pos, wname(p, pos, x), wname(p, pos, m), new_node(p, A_NONE, pos),
                        new_node(p, A_NONE, pos), new_node(p, A_NONE, pos));
    push(p, &fin->body, call);
    push(p, &outer->orelse, fin);
    push(p, out, outer);
}

/* nogil, gil, parallel(...), cython.boundscheck(False) ...: what sema's
 * with handles; anything else is a context manager. */
static int special_with(const ANode *e) {
    const ANode *f = e->kind == A_CALL ? e->obj : e;
    if (f->kind == A_NAME)
        return !strcmp(f->name, "nogil") || !strcmp(f->name, "gil") || !strcmp(f->name, "parallel");
    while (f->kind == A_ATTR) f = f->obj;
    return f->kind == A_NAME && !strcmp(f->name, "cython");
}

static void parse_with_stmt(P *p, CyVec *out) {
    const Token *kw = adv(p);
    ANode *n = new_node(p, S_WITH, kw->pos);
    CyVec targets = {0};
    int any_as = 0;
    do {
        AWithItem *w = cy_alloc(p->a, sizeof *w);
        w->pos = tok(p)->pos;
        w->expr = parse_test(p);
        ANode *t = NULL;
        if (accept_kw(p, "as")) {
            t = parse_bitor(p);
            check_target(p, t, "assign to");
        }
        if (t || !special_with(w->expr)) any_as = 1;
        push(p, &n->with_items, w);
        push(p, &targets, t);
    } while (accept_punct(p, ","));
    block_colon(p);
    parse_suite(p, &n->body);
    if (!any_as) {
        push(p, out, n);
        return;
    }
    /* with A as a, B as b: nested, the first outermost */
    CyVec body = n->body;
    for (int i = n->with_items.len - 1; i >= 0; i--) {
        AWithItem *w = n->with_items.items[i];
        CyVec level = {0};
        if (targets.items[i] || !special_with(w->expr)) {
            with_as(p, w->pos, w->expr, targets.items[i], &body, &level);
        } else {
            ANode *wn = new_node(p, S_WITH, kw->pos);
            push(p, &wn->with_items, w);
            wn->body = body;
            push(p, &level, wn);
        }
        body = level;
    }
    for (int i = 0; i < body.len; i++) push(p, out, body.items[i]);
}

static void parse_decorated(P *p, CyVec *out) {
    CyVec decs = {0};
    while (at_punct(p, "@")) {
        adv(p);
        push(p, &decs, parse_test(p));
        expect_newline(p);
    }
    const Token *t = tok(p);
    if (is_kw(t, "def")) {
        push(p, out, parse_def(p, &decs));
    } else if (is_kw(t, "cdef") || is_kw(t, "cpdef")) {
        parse_cdef(p, &decs, out);
    } else if (is_kw(t, "class")) {
        push(p, out, parse_class(p, t->pos, "class definitions"));
    } else if (is_kw(t, "async")) {
        err_at(p, t->pos, "async functions are not supported");
    } else {
        err_syntax(p, "invalid syntax: expected a function definition after the decorator");
    }
}

static void parse_stmt(P *p, CyVec *out) {
    const Token *t = tok(p);
    if (is_punct(t, "@")) {
        parse_decorated(p, out);
        return;
    }
    if (p->class_body && t->kind == TK_NAME && !strcmp(t->text, "property") && ahead(p, 1)->kind == TK_NAME &&
        is_punct(ahead(p, 2), ":")) {
        parse_property_block(p, out);
        return;
    }
    if (t->kind != TK_KW) {
        parse_simple_line(p, out);
        return;
    }
    if (is_kw(t, "if")) {
        parse_if(p, out);
    } else if (is_kw(t, "for")) {
        push(p, out, parse_for(p));
    } else if (is_kw(t, "while")) {
        push(p, out, parse_while(p));
    } else if (is_kw(t, "with")) {
        parse_with_stmt(p, out);
    } else if (is_kw(t, "def")) {
        push(p, out, parse_def(p, NULL));
    } else if (is_kw(t, "cdef") || is_kw(t, "cpdef")) {
        parse_cdef(p, NULL, out);
    } else if (is_kw(t, "ctypedef")) {
        push(p, out, parse_ctypedef(p));
    } else if (is_kw(t, "class")) {
        push(p, out, parse_class(p, t->pos, "class definitions"));
    } else if (is_kw(t, "try")) {
        push(p, out, parse_try(p));
    } else if (is_kw(t, "async")) {
        err_at(p, t->pos, "async functions and statements are not supported");
    } else if (is_kw(t, "DEF")) {
        adv(p);
        ANode *n = new_node(p, S_DEF, t->pos);
        n->name = expect_name(p, "the constant's name")->text;
        expect_punct(p, "=");
        n->value = parse_test(p);
        expect_newline(p);
        push(p, out, n);
    } else if (is_kw(t, "IF")) {
        push(p, out, unsupported(p, t->pos, "compile-time 'IF'"));
        while (at_kw(p, "ELIF") || at_kw(p, "ELSE"))
            skip_stmt(p);
    } else if (is_kw(t, "include")) {
        adv(p);
        const Token *f = tok(p);
        if (f->kind != TK_STR || f->str_prefix[0] || f->slen == 0 || memchr(f->sval, '\0', (size_t)f->slen))
            err_syntax(p, "expected the file name of the include, a string");
        adv(p);
        expect_newline(p);
        if (p->in_func || p->class_body) err_at(p, t->pos, "include statement not allowed here");
        include_file(p, t->pos, f, out);
    } else if (is_kw(t, "elif") || is_kw(t, "else") || is_kw(t, "except") || is_kw(t, "finally") ||
               is_kw(t, "ELIF") || is_kw(t, "ELSE")) {
        err_syntax(p, "invalid syntax");
    } else {
        parse_simple_line(p, out);
    }
}


/* ---- other files: include "x.pxi", cimports of .pxd files ------------------ */

enum { MAX_FILE_DEPTH = 32 };

/* The directory part of path, with its '/' ("" for a bare name). */
static const char *dir_of(P *p, const char *path) {
    const char *slash = path ? strrchr(path, '/') : NULL;
    return slash ? cy_strndup(p->a, path, (size_t)(slash - path + 1)) : "";
}

static int is_file(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The whole file in the arena, NUL-terminated; NULL with errno set. */
static char *read_text(P *p, const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    CyBuf b = {0};
    char chunk[65536];
    size_t k;
    while ((k = fread(chunk, 1, sizeof chunk, f)) > 0) cy_buf_put(&b, chunk, k);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        cy_buf_free(&b);
        errno = EIO;
        return NULL;
    }
    char *t = cy_alloc(p->a, b.len + 1);
    if (b.len) memcpy(t, b.s, b.len);
    t[b.len] = 0;
    *len = b.len;
    cy_buf_free(&b);
    return t;
}

/* Parses the file at path (shown in diagnostics as `shown`) into out, with
 * the counters that name things in source order (lambdas, with statements)
 * going on across files, as Cython reads an include in place. */
static void parse_file(P *p, CyPos at, const char *path, const char *shown, const char *pxd_mod, CyVec *out) {
    if (p->ld->depth >= MAX_FILE_DEPTH)
        err_at(p, at, "'%s' is included more than %d files deep (an include of itself?)", shown, MAX_FILE_DEPTH);
    size_t len = 0;
    char *text = read_text(p, path, &len);
    if (!text) err_at(p, at, "cannot read '%s': %s", path, strerror(errno));
    CySource *src = cy_alloc(p->a, sizeof *src);
    src->path = path;
    src->name = shown;
    src->modname = p->src ? p->src->modname : NULL;
    src->text = text;
    src->len = len;
    src->id = p->d->files.len + 1;
    src->included_at = at;
    cy_vec_push(p->a, &p->d->files, src);
    TokenList toks;
    if (cy_lex(p->a, p->d, src, &toks) != 0) fail(p);
    P *q = cy_alloc(p->a, sizeof *q);
    *q = *p;
    q->toks = toks.toks;
    q->n = toks.n;
    q->i = 0;
    q->depth = 0;
    q->src = src;
    q->pxd_mod = pxd_mod;
    p->ld->depth++;
    if (setjmp(q->jb)) fail(p);
    while (tok(q)->kind != TK_EOF) {
        if (tok(q)->kind == TK_NEWLINE) {
            adv(q);
            continue;
        }
        if (tok(q)->kind == TK_INDENT || tok(q)->kind == TK_DEDENT) err_unexpected(q);
        parse_stmt(q, out);
    }
    p->ld->depth--;
    p->nlambda = q->nlambda;
    p->nwith = q->nwith;
    p->nstar = q->nstar;
    p->pure_names = q->pure_names;
}

/* include "file.pxi": the file's statements in place of the include,
 * found beside the file that includes it. */
static void include_file(P *p, CyPos at, const Token *name, CyVec *out) {
    const char *rel = name->sval;
    const char *path = rel[0] == '/' ? rel : cy_fmt(p->a, "%s%s", dir_of(p, p->src ? p->src->path : NULL), rel);
    if (!is_file(path)) err_at(p, name->pos, "'%s' not found", rel);
    parse_file(p, at, path, rel, p->pxd_mod, out);
}

/* MODULE.pxd beside the main source, if there is one. */
static const char *pxd_path(P *p, const char *module) {
    char *rel = cy_fmt(p->a, "%s.pxd", module);
    for (char *c = rel; *c && c < rel + strlen(module); c++)
        if (*c == '.') *c = '/';
    const char *path = cy_fmt(p->a, "%s%s", dir_of(p, p->d->src ? p->d->src->path : NULL), rel);
    return is_file(path) ? path : NULL;
}

/* Reads MODULE.pxd once: what the other module's .pyx defines (functions
 * declared without a body, cdef classes, module variables) is kept apart,
 * the rest (ctypedefs, structs, enums, extern blocks, inline functions,
 * its own cimports) goes into out. */
static Loaded *load_pxd(P *p, CyPos at, const char *module, const char *path, CyVec *out) {
    for (int i = 0; i < p->ld->pxds.len; i++) {
        Loaded *l = p->ld->pxds.items[i];
        if (!strcmp(l->path, path)) return l;
    }
    Loaded *l = cy_alloc(p->a, sizeof *l);
    l->path = path;
    push(p, &p->ld->pxds, l);
    CyVec all = {0};
    const char *slash = strrchr(path, '/');
    int own = p->d->src && p->d->src->modname && !strcmp(module, p->d->src->modname);
    parse_file(p, at, path, slash ? slash + 1 : path, module, &all);
    for (int i = 0; i < all.len; i++) {
        ANode *d = all.items[i];
        int theirs = !own && ((d->kind == S_FUNC && d->func->decl_only) || d->kind == S_CDEF_CLASS || d->kind == S_CDEF);
        push(p, theirs ? &l->foreign : out, d);
    }
    return l;
}

/* cimport M / from M cimport ...: an M.pxd beside the source is read. */
static void user_cimport(P *p, ANode *n, CyVec *out) {
    const char *path = pxd_path(p, n->module);
    if (!path) return;
    Loaded *l = load_pxd(p, n->pos, n->module, path, out);
    n->user_pxd = 1;
    n->decls = l->foreign;
}

/* The module's own .pxd is read first; a cdef class it declares (attributes,
 * methods without bodies) gets those attributes in front of the .pyx's
 * definition of the class, as Cython merges them. */
static void own_pxd(P *p, AModule *m) {
    const char *mod = p->d->src ? p->d->src->modname : NULL;
    const char *path = mod ? pxd_path(p, mod) : NULL;
    if (!path) return;
    CyPos at = {1, 1, 0};
    load_pxd(p, at, mod, path, &m->stmts);
    p->ld->own = p->d->files.len ? ((CySource *)p->d->files.items[0])->id : 0;
}

static void merge_classes(P *p, AModule *m) {
    for (int i = 0; i < m->stmts.len; i++) {
        ANode *decl = m->stmts.items[i];
        if (decl->kind != S_CDEF_CLASS || !p->ld->own || decl->pos.file != p->ld->own) continue;
        ANode *def = NULL;
        for (int j = i + 1; j < m->stmts.len && !def; j++) {
            ANode *x = m->stmts.items[j];
            if (x->kind == S_CDEF_CLASS && x->pos.file == 0 && !strcmp(x->name, decl->name)) def = x;
        }
        if (!def) continue;
        CyVec body = {0};
        for (int k = 0; k < decl->body.len; k++) {
            ANode *b = decl->body.items[k];
            if (b->kind == S_CDEF) push(p, &body, b);
        }
        for (int k = 0; k < def->body.len; k++) push(p, &body, def->body.items[k]);
        def->body = body;
        if (!def->value) def->value = decl->value;
        memmove(m->stmts.items + i, m->stmts.items + i + 1, sizeof(void *) * (size_t)(m->stmts.len - i - 1));
        m->stmts.len--;
        i--;
    }
}

/* ---- entry points --------------------------------------------------------- */

AModule *cy_parse(CyArena *a, CyDiag *d, const TokenList *toks) {
    AModule *m = cy_alloc(a, sizeof *m);
    m->src = d ? d->src : NULL;
    m->directive_keys = toks->directive_keys;
    m->directive_values = toks->directive_values;
    m->directive_pos = toks->directive_pos;
    if (toks->n == 0 || toks->toks[toks->n - 1].kind != TK_EOF) {
        CyPos nowhere = {0};
        cy_error(d, nowhere, "internal error: token list does not end with EOF");
        return NULL;
    }
    P *p = cy_alloc(a, sizeof *p);
    p->a = a;
    p->d = d;
    p->toks = toks->toks;
    p->n = toks->n;
    p->src = d ? d->src : NULL;
    p->ld = cy_alloc(a, sizeof *p->ld);
    if (setjmp(p->jb))
        return NULL;
    if (d) own_pxd(p, m);
    while (tok(p)->kind != TK_EOF) {
        if (tok(p)->kind == TK_NEWLINE) {
            adv(p);
            continue;
        }
        if (tok(p)->kind == TK_INDENT || tok(p)->kind == TK_DEDENT)
            err_unexpected(p);
        parse_stmt(p, &m->stmts);
    }
    merge_classes(p, m);
    return m;
}

AModule *cy_parse_source(CyArena *a, CyDiag *d, const CySource *src) {
    TokenList toks;
    if (cy_lex(a, d, src, &toks) != 0)
        return NULL;
    AModule *m = cy_parse(a, d, &toks);
    if (m)
        m->src = src;
    return m;
}
