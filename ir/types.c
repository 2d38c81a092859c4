/* types.c: the C and Cython types of the IR. */
#include "ir.h"
#include <string.h>

/* Scalars are interned: sema compares them by pointer in hot paths, and a
 * process compiles many modules (the fuzzer), so they live in static
 * storage, never in an arena.  Designated: a field added to CyType needs no
 * edit here (clang's -Wmissing-field-initializers). */
#define SCALAR(k, sz, sg, nm) [k] = {.kind = k, .size = sz, .is_signed = sg, .name = nm}
static CyType scalars[TY_FUNC + 1] = {
    SCALAR(TY_VOID, 0, 0, "void"),
    SCALAR(TY_BINT, 4, 1, "bint"),
    SCALAR(TY_CHAR, 1, 1, "char"),
    SCALAR(TY_SCHAR, 1, 1, "signed char"),
    SCALAR(TY_UCHAR, 1, 0, "unsigned char"),
    SCALAR(TY_SHORT, 2, 1, "short"),
    SCALAR(TY_USHORT, 2, 0, "unsigned short"),
    SCALAR(TY_INT, 4, 1, "int"),
    SCALAR(TY_UINT, 4, 0, "unsigned int"),
    SCALAR(TY_LONG, sizeof(long), 1, "long"),
    SCALAR(TY_ULONG, sizeof(long), 0, "unsigned long"),
    SCALAR(TY_LLONG, 8, 1, "long long"),
    SCALAR(TY_ULLONG, 8, 0, "unsigned long long"),
    SCALAR(TY_SSIZE, sizeof(size_t), 1, "Py_ssize_t"),
    SCALAR(TY_SIZE, sizeof(size_t), 0, "size_t"),
    SCALAR(TY_FLOAT, 4, 1, "float"),
    SCALAR(TY_DOUBLE, 8, 1, "double"),
    SCALAR(TY_LDOUBLE, sizeof(long double), 1, "long double"),
    SCALAR(TY_CFLOAT, 8, 1, "float complex"),
    SCALAR(TY_CDOUBLE, 16, 1, "double complex"),
    SCALAR(TY_PTR, sizeof(void *), 0, "void *"),
    SCALAR(TY_ARRAY, 0, 0, "array"),
    SCALAR(TY_VIEW, sizeof(void *), 0, "memoryview"),
    SCALAR(TY_OPAQUE, 0, 0, "opaque"),
    SCALAR(TY_STRUCT, 0, 0, "struct"),
    SCALAR(TY_OBJECT, sizeof(void *), 0, "object"),
    SCALAR(TY_FUNC, 0, 0, "function"),
};
#undef SCALAR

CyType *cy_type_scalar(TypeKind k) { return &scalars[k]; }

CyType *cy_type_view(CyArena *a, CyType *dtype, int ndim, const char *axes, int is_const) {
    CyType *t = cy_alloc(a, sizeof *t);
    CyBuf b = {0};
    t->kind = TY_VIEW;
    t->size = sizeof(void *);
    t->base = dtype;
    t->ndim = ndim;
    t->is_const = is_const;
    for (int i = 0; i < ndim && i < CY_MAX_NDIM; i++) t->axes[i] = axes ? axes[i] : 0;
    cy_buf_printf(&b, "%s%s[", is_const ? "const " : "", dtype->name);
    for (int i = 0; i < ndim; i++) cy_buf_printf(&b, "%s%s", i ? ", " : "", t->axes[i] ? "::1" : ":");
    cy_buf_puts(&b, "]");
    t->name = cy_strdup(a, b.s);
    cy_buf_free(&b);
    return t;
}

CyType *cy_type_ptr(CyArena *a, CyType *base) {
    CyType *t = cy_alloc(a, sizeof *t);
    t->kind = TY_PTR;
    t->size = sizeof(void *);
    t->base = base;
    t->name = cy_fmt(a, "%s *", base->name);
    return t;
}

CyType *cy_type_func(CyArena *a, CyType *ret, CyType **args, int nargs) {
    CyType *t = cy_alloc(a, sizeof *t);
    *t = scalars[TY_FUNC];
    t->base = ret;
    t->nfields = nargs;
    t->ftypes = args;
    const char *list = "";
    for (int i = 0; i < nargs; i++) list = cy_fmt(a, "%s%s%s", list, i ? ", " : "", args[i]->name);
    t->name = cy_fmt(a, "%s (%s)", ret->name, list);
    return t;
}

CyType *cy_type_array(CyArena *a, CyType *elem, long long n) {
    CyType *t = cy_alloc(a, sizeof *t);
    t->kind = TY_ARRAY;
    t->size = (int)(n * elem->size);
    t->base = elem;
    t->alen = n;
    /* the outer dimension comes first: int[2] of int[3] is "int[2][3]" */
    const CyType *sc = cy_type_array_scalar(elem);
    const char *inner = elem->kind == TY_ARRAY ? elem->name + strlen(sc->name) : "";
    t->name = cy_fmt(a, "%s[%lld]%s", sc->name, n, inner);
    return t;
}

const CyType *cy_type_array_scalar(const CyType *t) {
    while (t->kind == TY_ARRAY) t = t->base;
    return t;
}

int cy_type_is_int(const CyType *t) { return t->kind >= TY_BINT && t->kind <= TY_SIZE; }
int cy_type_is_float(const CyType *t) { return t->kind >= TY_FLOAT && t->kind <= TY_LDOUBLE; }
int cy_type_is_complex(const CyType *t) { return t->kind == TY_CFLOAT || t->kind == TY_CDOUBLE; }
int cy_cname_is_math(const char *n) {
    return !strncmp(n, "M_", 2) || !strcmp(n, "INFINITY") || !strcmp(n, "NAN") || !strcmp(n, "HUGE_VAL");
}

int cy_cname_in_opencl(const char *n) {
    return cy_cname_is_math(n) || ((!strncmp(n, "FLT_", 4) || !strncmp(n, "DBL_", 4) || strstr(n, "_MAX") ||
                                    strstr(n, "_MIN") || !strcmp(n, "CHAR_BIT")) &&
                                   strncmp(n, "LLONG_", 6) && strncmp(n, "ULLONG_", 7) && strcmp(n, "RAND_MAX"));
}

int cy_type_is_numeric(const CyType *t) { return cy_type_is_int(t) || cy_type_is_float(t) || cy_type_is_complex(t); }

int cy_type_equal(const CyType *a, const CyType *b) {
    if (a == b) return 1;
    if (a->kind != b->kind) return 0;
    if (a->kind == TY_PTR) return cy_type_equal(a->base, b->base);
    if (a->kind == TY_FUNC && a->base && b->base) {
        if (a->nfields != b->nfields || !cy_type_equal(a->base, b->base)) return 0;
        for (int i = 0; i < a->nfields; i++)
            if (!cy_type_equal(a->ftypes[i], b->ftypes[i])) return 0;
    }
    if (a->kind == TY_STRUCT) return a->fnames == b->fnames;
    if (a->kind == TY_ARRAY) return a->alen == b->alen && cy_type_equal(a->base, b->base);
    if (a->kind == TY_VIEW) {
        if (a->ndim != b->ndim || a->is_const != b->is_const || !cy_type_equal(a->base, b->base)) return 0;
        return memcmp(a->axes, b->axes, CY_MAX_NDIM) == 0;
    }
    return 1;
}

const char *cy_type_cname(CyArena *a, const CyType *t) {
    switch (t->kind) {
    case TY_BINT: return "int";
    case TY_SSIZE: return "Py_ssize_t";
    case TY_CFLOAT: return "float _Complex";
    case TY_CDOUBLE: return "double _Complex";
    case TY_PTR:
        if (t->base->kind == TY_FUNC && t->base->base) {
            /* GNU C's __typeof__ spells a function pointer type in front of the name */
            const CyType *f = t->base;
            const char *list = "";
            for (int i = 0; i < f->nfields; i++)
                list = cy_fmt(a, "%s%s%s", list, i ? ", " : "", cy_type_cname(a, f->ftypes[i]));
            return cy_fmt(a, "__typeof__(%s (*)(%s))", cy_type_cname(a, f->base), *list ? list : "void");
        }
        return cy_fmt(a, "%s *", cy_type_cname(a, t->base));
    case TY_ARRAY: {
        const CyType *sc = cy_type_array_scalar(t);
        return cy_fmt(a, "%s%s", cy_type_cname(a, sc), t->name + strlen(sc->name));
    }
    case TY_VIEW: return "cy_view";
    case TY_OBJECT: return "PyObject *";
    case TY_FUNC: return "void";
    case TY_OPAQUE: return t->name;
    case TY_STRUCT: return t->cname;
    default: return scalars[t->kind].name;
    }
}

/* Integer conversion rank as C sees it on LP64; Py_ssize_t ranks as long. */
static int rank(const CyType *t) {
    switch (t->kind) {
    case TY_BINT: case TY_CHAR: case TY_SCHAR: case TY_UCHAR: return 1;
    case TY_SHORT: case TY_USHORT: return 2;
    case TY_INT: case TY_UINT: return 3;
    case TY_LONG: case TY_ULONG: case TY_SSIZE: case TY_SIZE: return 4;
    case TY_LLONG: case TY_ULLONG: return 5;
    default: return 0;
    }
}

CyType *cy_type_arith(const CyType *a, const CyType *b) {
    if (cy_type_is_complex(a) || cy_type_is_complex(b)) {
        int dbl = a->kind == TY_CDOUBLE || b->kind == TY_CDOUBLE || a->kind == TY_DOUBLE ||
                  b->kind == TY_DOUBLE || a->kind == TY_LDOUBLE || b->kind == TY_LDOUBLE ||
                  cy_type_is_int(a) || cy_type_is_int(b);
        /* float complex op int stays float complex in C; keep that */
        if ((a->kind == TY_CFLOAT && cy_type_is_int(b)) || (b->kind == TY_CFLOAT && cy_type_is_int(a)))
            dbl = 0;
        return cy_type_scalar(dbl ? TY_CDOUBLE : TY_CFLOAT);
    }
    if (a->kind == TY_LDOUBLE || b->kind == TY_LDOUBLE) return cy_type_scalar(TY_LDOUBLE);
    if (a->kind == TY_DOUBLE || b->kind == TY_DOUBLE) return cy_type_scalar(TY_DOUBLE);
    if (a->kind == TY_FLOAT || b->kind == TY_FLOAT) return cy_type_scalar(TY_FLOAT);
    /* integers: promote below int to int, then the higher rank wins; on a
     * tie the unsigned one wins (C's rule for same-size types) */
    int ra = rank(a), rb = rank(b);
    if (ra < 3 && rb < 3) return cy_type_scalar(TY_INT);
    const CyType *hi = ra > rb ? a : rb > ra ? b : (!a->is_signed ? a : b);
    if (rank(hi) < 3) hi = cy_type_scalar(TY_INT);
    if (hi->is_enum) hi = cy_type_scalar(hi->kind); /* C computes in the enum's integer type */
    /* a signed type of higher rank that cannot hold every value of the
     * unsigned one (long long against unsigned long / size_t on LP64):
     * both go to the signed type's unsigned counterpart (C11 6.3.1.8) */
    const CyType *lo = hi == a ? b : a;
    if (hi->is_signed && !lo->is_signed && rank(lo) >= 3 && lo->size >= hi->size && hi->kind == TY_LLONG)
        return cy_type_scalar(TY_ULLONG);
    /* Py_ssize_t op long: keep Py_ssize_t so index arithmetic stays in it */
    if (ra == rb && ra == 4 && a->is_signed && b->is_signed)
        return cy_type_scalar(a->kind == TY_SSIZE || b->kind == TY_SSIZE ? TY_SSIZE : TY_LONG);
    return (CyType *)hi;
}

int cy_type_cython_rank(const CyType *t) {
    switch (t->kind) {
    case TY_CHAR: case TY_SCHAR: case TY_UCHAR: return 0;
    case TY_SHORT: case TY_USHORT: return 2;
    case TY_BINT: case TY_INT: case TY_UINT: return 4;
    case TY_LONG: case TY_ULONG: return 6;
    case TY_SSIZE: case TY_SIZE: return 7;
    case TY_LLONG: case TY_ULLONG: return 8;
    case TY_FLOAT: return 10;
    case TY_CFLOAT: return 11;
    case TY_DOUBLE: return 12;
    case TY_CDOUBLE: return 13;
    case TY_LDOUBLE: return 14;
    default: return -1;
    }
}

/* Cython's signedness order: unsigned < plain char < signed. */
static int cython_signed(const CyType *t) {
    return t->kind == TY_CHAR ? 1 : t->is_signed ? 2 : 0;
}

CyType *cy_type_span(const CyType *a, const CyType *b) {
    if (a->is_enum || b->is_enum) {
        /* Cython's CEnumType ranks below every integer type (rank -1); two
           different enums span to int */
        if (a->is_enum && b->is_enum)
            return !strcmp(a->name, b->name) ? (CyType *)(a->kind == TY_UINT ? a : b) : cy_type_scalar(TY_INT);
        const CyType *o = a->is_enum ? b : a;
        if (cy_type_cython_rank(o) >= 0 && o->kind != TY_BINT && !cy_type_is_complex(o)) return (CyType *)o;
        return cy_type_arith(a, b);
    }
    if (cy_type_equal(a, b)) return (CyType *)a;
    if (cy_type_is_complex(a) || cy_type_is_complex(b) || a->kind == TY_BINT || b->kind == TY_BINT ||
        cy_type_cython_rank(a) < 0 || cy_type_cython_rank(b) < 0)
        return cy_type_arith(a, b);
    int ra = cy_type_cython_rank(a), rb = cy_type_cython_rank(b);
    if (ra != rb) return (CyType *)(ra > rb ? a : b);
    int sa = cython_signed(a), sb = cython_signed(b);
    if (sa != sb) return (CyType *)(sa < sb ? a : b);
    /* Cython prefers the typedef (int32_t over int): the same C type */
    int ta = a->name && strcmp(a->name, cy_type_scalar(a->kind)->name);
    int tb = b->name && strcmp(b->name, cy_type_scalar(b->kind)->name);
    return (CyType *)(ta > tb ? a : b);
}

/* ---- special methods of cdef classes ---------------------------------------- */

static const struct {
    const char *name;
    int nargs, slot;
} special_methods[] = {
    {"__repr__", 1, 1}, {"__str__", 1, 1}, {"__hash__", 1, 1}, {"__len__", 1, 1}, {"__iter__", 1, 1},
    {"__next__", 1, 1}, {"__bool__", 1, 1}, {"__getitem__", 2, 1}, {"__delitem__", 2, 1},
    {"__contains__", 2, 1}, {"__setitem__", 3, 1}, {"__call__", -1, 1},
    {"__eq__", 2, 1}, {"__ne__", 2, 1}, {"__lt__", 2, 1}, {"__le__", 2, 1}, {"__gt__", 2, 1}, {"__ge__", 2, 1},
    {"__richcmp__", 3, 1},
    /* plain methods as far as the type is concerned (pickling, copying, with) */
    {"__reduce__", -1, 0}, {"__reduce_ex__", -1, 0}, {"__getstate__", -1, 0}, {"__setstate__", -1, 0},
    {"__copy__", -1, 0}, {"__deepcopy__", -1, 0}, {"__sizeof__", -1, 0}, {"__format__", -1, 0},
    {"__enter__", -1, 0}, {"__exit__", -1, 0}, {"__dir__", -1, 0},
    {NULL, 0, 0},
};

int cy_special_method_args(const char *name) {
    for (int i = 0; special_methods[i].name; i++)
        if (!strcmp(special_methods[i].name, name)) return special_methods[i].nargs;
    return -2;
}

int cy_special_method_is_slot(const char *name) {
    for (int i = 0; special_methods[i].name; i++)
        if (!strcmp(special_methods[i].name, name)) return special_methods[i].slot;
    return 0;
}
