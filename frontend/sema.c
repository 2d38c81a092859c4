/* sema.c: names, types and Cython's rules; lowers the AST to the typed IR.
 *
 * One pass per function after a module-level pass that declares every
 * function, type and global, so calls may precede definitions.  Errors do
 * not stop the pass: an erroneous expression gets the error type, which
 * silences follow-on errors about it. */
#include "frontend.h"
#include "../ir/ir.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- symbols ------------------------------------------------------------ */

typedef enum {
    SY_VAR,      /* C variable (local, param, module cdef) */
    SY_PYVAR,    /* untyped def local: object unless inferred (var set once decided) */
    SY_FUNC,     /* cdef/cpdef/def/extern function */
    SY_TYPE,     /* ctypedef or builtin type name */
    SY_CMOD,     /* a cimported/imported special module: qual = "cython", "libc.math", ... */
    SY_CNAME,    /* a special builtin: qual = "cython.parallel.prange", "libc.math.exp";
                    or, with ty set, a C number a 'cdef extern' block declares (M_PI) */
    SY_PYGLOBAL, /* module-level Python name */
    SY_FUSED,    /* ctypedef fused, or floating/integral/numeric cimported from cython */
    SY_ENUMC,    /* an enumerator: constant cval of type ty */
    SY_DEFC,     /* a DEF constant: defval, its value as a literal node */
} SymKind;

/* A fused type: the types it stands for, in declared order. */
typedef struct Fused {
    const char *name;
    CyVec types; /* CyType* */
} Fused;

typedef struct Sym {
    const char *name;
    SymKind kind;
    IrVar *var;
    IrFunc *fn;
    CyType *ty;
    const char *qual;
    IrVar *buf;             /* SY_VAR of a buffer type (np.ndarray[double, ndim=2]): the view its
                               element accesses go through, acquired on each assignment */
    Fused *fused;           /* SY_FUSED */
    long long cval;         /* SY_ENUMC */
    ANode *defval;          /* SY_DEFC */
    struct Sym *next;
} Sym;

/* A scope keeps its symbols in a list (newest first) and, once it has more
 * than a few, in an open-addressing hash table as well: a module of many
 * thousand functions must not look names up by scanning them all. */
typedef struct Scope {
    struct Scope *parent;
    Sym *syms;
    Sym **tab;  /* NULL until nsyms > SCOPE_LINEAR; power-of-two size */
    int cap, nsyms;
} Scope;

enum { SCOPE_LINEAR = 16 };

typedef struct {
    int boundscheck, wraparound, cdivision, initializedcheck, nonecheck;
    int cpow; /* 0: not set (Cython 3's default, False, with its fallback), 1: True, 2: False */
} Directives;

/* What a parallel region's body does with each variable; classified when
 * the body is done (reductions need the whole body seen).  The rules are
 * Cython 3.3's (TypeInference.mark_assignment, Nodes.ParallelStatNode,
 * FlowControl): the last assignment decides; an in-place operator of
 * + - * & | ^ makes a reduction, any other assignment a lastprivate;
 * reading a variable whose last assignment is in-place is an error.
 * Module-level cdef variables follow the same rules as locals. */
typedef struct Access {
    IrVar *var;
    int any;                /* assigned (plainly or in place) in the region, nested regions included */
    IrOp last_op;           /* operator of the last such assignment; OP_NONE: plain */
    int direct;             /* assigned in this region itself (not only in a nested one) */
    IrOp direct_op;         /* ... the last of those in place */
    CyPos direct_pos;       /* the first of those */
    int plain;              /* some assignment in the region is a plain one */
    int read;               /* read outside its own in-place update */
    CyPos read_pos;
    int read_first;         /* read before any assignment in the region (source order) */
    CyPos read_first_pos;
    int read_carried;       /* ... at the body's top level (no loop of its own around the read), or
                               on the line of the first assignment (lo = min(lo, x)): the value
                               read is the previous iteration's */
    int addr;               /* its address taken (&x, &x.f) in the region */
    CyPos addr_pos;         /* ... the first time */
    struct Access *next;
} Access;

typedef struct RegionCtx {
    IrRegion *r;
    Access *acc;
    struct RegionCtx *outer;
    int depth0;             /* s->loop_depth in the body outside its own loops */
    CyVec inner_acc;        /* Access* lists of the pranges directly inside a parallel() block */
} RegionCtx;

typedef struct {
    CyArena *a;
    CyDiag *d;
    IrModule *m;
    Scope *mscope;          /* module scope */
    Scope *scope;           /* current */
    IrFunc *fn;             /* current function, NULL at module level */
    Directives dir;
    int nogil;              /* the GIL is not held here */
    int nogil_block;        /* ... because a `with nogil:` released it (not a nogil function) */
    int serial_prange;      /* inside a prange nested in a prange (it runs serially) */
    int quiet;              /* > 0: probing a type, no diagnostics or recording */
    int loop_depth;         /* for break/continue */
    int prange_depth;
    int parallel_depth;
    RegionCtx *rctx;
    int lvalue;             /* lowering an assignment target: an element is written, not read */
    CyVec warned;           /* const char* "LINE:COL:message" of the warnings given */
    int keep_soft;          /* > 0: coercing an arithmetic operand (a complex power stays one) */
    int truth_cmp;          /* > 0: coercing the operands of x == 0 / x != 0 */
    int inplace_read;       /* > 0: lowering the current value of an in-place target (not a read of its own) */
    int ntmp;               /* for unique C names */
    int nvar;
    int nae;                /* array expressions lowered so far (unique names) */
    int buf_ok;             /* > 0: a buffer type may be declared here (arguments, locals) */
    CyVec *fbody;           /* the AST body of the function being lowered */
    Scope *fscope;          /* its own scope (comprehensions' are inside it) */
    CyVec bufvars;          /* IrVar* pairs of this function: a buffer-typed variable, its view */
    /* fused types: Cython's builtin ones (made on first use), the
       specialisation being declared or lowered (fused type -> its type
       there), and the fused functions (IrFunc group -> FusedFn) */
    Fused *builtin_fused[3];
    Fused **fb_from;
    CyType **fb_to;
    int nfb;
    CyMap fused_fns;
    struct Comp *comp;      /* the comprehension being lowered (innermost) */
    CyVec late_defaults;    /* LateDefault*: default values evaluated when the def runs */
    CyVec cpdef_enums;      /* const char*: the names of the module's cpdef enums */
    /* ANode* pairs (node, its saved original): sum() calls that
       lower_array_sums rewrote into their accumulator for one statement.
       The AST outlives that lowering (a fused function's body is lowered
       once per specialisation), so lower_stmt puts them back after. */
    CyVec sum_undo;
    CyVec fn_addrs;         /* pairs: IrFunc* taken as a function pointer, its CyPos* */
    CyVec methods;          /* pairs: AFunc*, IrFunc* of the cdef classes' methods, lowered after the functions */
    CyVec lambdas;          /* pairs: AFunc*, IrFunc* of lambdas, lowered after the module's code */
    CyVec hoists;           /* Hoist*: attributes of cdef class instances read through locals in
                               the parallel region being lowered */
    int decl_method;        /* declaring a method: its first parameter is the instance */
    CyMap flats;            /* IrFunc* method -> Flat* (its ok says whether it has a flat version) */
    CyVec flat_todo;        /* Flat*: flat versions to lower after the methods */
    struct Flat *flat;      /* the flat version being lowered */
} S;

/* A nogil cdef method called on an instance variable inside a parallel
 * region is called there through its flat version: a function of the C
 * attributes it reads (loaded before the region as the region's own reads
 * are) and of its arguments, with no object left, so that the region can
 * still have an OpenCL kernel.  Only for a method that uses self for
 * nothing else and that no subclass overrides. */
typedef struct Flat {
    CyArena *a;
    IrFunc *m;
    AFunc *af;
    IrFunc *fn;
    CyVec attrs;            /* IrAttr*: the first parameters of fn, in this order */
    int ok;
} Flat;

/* A parallel region reads `self.w` through a local loaded before it, so
 * that the region's arguments (and an OpenCL kernel's) are variables. */
typedef struct Hoist {
    IrVar *obj;
    const char *attr;
    IrVar *local;
} Hoist;

/* A default argument value that is not a constant (`n=N`, `eps=1e-9 * SCALE`):
 * as in Python, evaluated once, when module init reaches the def, into a
 * hidden module variable of the argument's type that calls then read. */
typedef struct LateDefault {
    AFunc *af;
    IrVar *var;
    IrExpr *value;
    CyPos pos;
} LateDefault;

static CyType ty_error_s = {.kind = TY_VOID, .name = "<error>"};
#define TY_ERR (&ty_error_s)

static void report(S *s, CyPos p, int warning, const char *fmt, va_list ap) {
    if (s->quiet) return; /* probing a type: nothing is reported */
    char buf[1024];
    vsnprintf(buf, sizeof buf, fmt, ap);
    if (warning) {
        /* an expression lowered twice (x[i] += e: once to read, once to
           write; a fused function's specializations) warns once */
        const char *key = cy_fmt(s->a, "%d:%d:%s", p.line, p.col, buf);
        for (int i = 0; i < s->warned.len; i++)
            if (!strcmp(s->warned.items[i], key)) return;
        cy_vec_push(s->a, &s->warned, (void *)key);
        cy_warning(s->d, p, "%s", buf);
    } else
        cy_error(s->d, p, "%s", buf);
}

static void err(S *s, CyPos p, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void err(S *s, CyPos p, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    report(s, p, 0, fmt, ap);
    va_end(ap);
}

static void warn(S *s, CyPos p, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void warn(S *s, CyPos p, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    report(s, p, 1, fmt, ap);
    va_end(ap);
}

static uint32_t name_hash(const char *p) {
    uint32_t h = 2166136261u;
    for (; *p; p++) h = (h ^ (unsigned char)*p) * 16777619u;
    return h;
}

static Sym **scope_slot(Scope *sc, const char *name) {
    uint32_t i = name_hash(name) & (uint32_t)(sc->cap - 1);
    while (sc->tab[i] && strcmp(sc->tab[i]->name, name)) i = (i + 1) & (uint32_t)(sc->cap - 1);
    return &sc->tab[i];
}

static Sym *lookup_in(Scope *sc, const char *name) {
    if (sc->tab) return *scope_slot(sc, name);
    for (Sym *y = sc->syms; y; y = y->next)
        if (!strcmp(y->name, name)) return y;
    return NULL;
}

static Sym *lookup(S *s, const char *name) {
    for (Scope *sc = s->scope; sc; sc = sc->parent) {
        Sym *y = lookup_in(sc, name);
        if (y) return y;
    }
    return NULL;
}

static Sym *declare(S *s, Scope *sc, const char *name, SymKind k) {
    Sym *y = cy_alloc(s->a, sizeof *y);
    y->name = name;
    y->kind = k;
    y->next = sc->syms;
    sc->syms = y;
    if (++sc->nsyms <= SCOPE_LINEAR) return y;
    if (sc->nsyms * 2 > sc->cap) {
        /* (re)build from the list, newest first: a redeclared name keeps
           the newest symbol, as the list lookup does */
        sc->cap = sc->cap ? sc->cap * 2 : 4 * SCOPE_LINEAR;
        sc->tab = cy_alloc(s->a, (size_t)sc->cap * sizeof *sc->tab);
        for (Sym *x = sc->syms; x; x = x->next) {
            Sym **slot = scope_slot(sc, x->name);
            if (!*slot) *slot = x;
        }
    } else {
        *scope_slot(sc, name) = y;
    }
    return y;
}

static const char *cident(S *s, const char *prefix, const char *name) {
    /* user names get a prefix so they cannot collide with C keywords,
       libc, Python's API or our own helpers */
    return cy_fmt(s->a, "%s%s", prefix, name);
}

static IrVar *new_var(S *s, const char *name, CyType *ty, VarKind k, CyPos pos) {
    IrVar *v = cy_alloc(s->a, sizeof *v);
    v->name = name;
    v->ty = ty;
    v->kind = k;
    v->pos = pos;
    v->id = s->nvar++;
    v->cname = k == V_MODULE ? cident(s, "cy_g_", name) : cident(s, "v_", name);
    return v;
}

static IrVar *new_temp(S *s, CyType *ty, CyPos pos) {
    IrVar *v = new_var(s, cy_fmt(s->a, "tmp%d", s->ntmp), ty, V_LOCAL, pos);
    v->cname = cy_fmt(s->a, "cy_tmp%d", s->ntmp++);
    if (s->fn) cy_vec_push(s->a, &s->fn->locals, v);
    else cy_vec_push(s->a, &s->m->init_locals, v);
    return v;
}

/* ---- builtin tables ----------------------------------------------------- */

typedef struct {
    const char *name;
    TypeKind kind;
} NamedType;

static const NamedType base_types[] = {
    {"void", TY_VOID}, {"bint", TY_BINT}, {"char", TY_CHAR}, {"signed char", TY_SCHAR},
    {"unsigned char", TY_UCHAR}, {"short", TY_SHORT}, {"signed short", TY_SHORT},
    {"short int", TY_SHORT}, {"unsigned short", TY_USHORT}, {"int", TY_INT},
    {"signed int", TY_INT}, {"signed", TY_INT}, {"unsigned", TY_UINT}, {"unsigned int", TY_UINT},
    {"long", TY_LONG}, {"signed long", TY_LONG}, {"long int", TY_LONG},
    {"unsigned long", TY_ULONG}, {"long long", TY_LLONG}, {"signed long long", TY_LLONG},
    {"unsigned long long", TY_ULLONG}, {"Py_ssize_t", TY_SSIZE}, {"ssize_t", TY_SSIZE},
    {"size_t", TY_SIZE}, {"Py_hash_t", TY_SSIZE}, {"float", TY_FLOAT}, {"double", TY_DOUBLE},
    {"long double", TY_LDOUBLE}, {"float complex", TY_CFLOAT}, {"double complex", TY_CDOUBLE},
    {"object", TY_OBJECT}, {"omp_lock_t", TY_OPAQUE},
    /* Cython's pure-Python type names (cython.double, ...) */
    {"Py_UCS4", TY_UINT}, {"longlong", TY_LLONG}, {"ulonglong", TY_ULLONG}, {"uchar", TY_UCHAR},
    {"schar", TY_SCHAR}, {"ushort", TY_USHORT}, {"uint", TY_UINT}, {"ulong", TY_ULONG},
    {"longdouble", TY_LDOUBLE}, {"doublecomplex", TY_CDOUBLE}, {"floatcomplex", TY_CFLOAT},
    {NULL, TY_VOID},
};

/* The typedefs as Cython's own .pxd files declare them: the declared C type
 * sets the rank Cython promotes with (libc.stdint's uint64_t is unsigned long
 * long but its int64_t is long; numpy's int64_t is long long, its intp_t long),
 * and so whether a // of two of them is C's or Python's. */
static const NamedType stdint_types[] = {
    {"int8_t", TY_SCHAR}, {"int16_t", TY_SHORT}, {"int32_t", TY_INT}, {"int64_t", TY_LONG},
    {"uint8_t", TY_UCHAR}, {"uint16_t", TY_USHORT}, {"uint32_t", TY_UINT}, {"uint64_t", TY_ULLONG},
    {"int_least8_t", TY_SCHAR}, {"int_least16_t", TY_SHORT}, {"int_least32_t", TY_INT},
    {"int_least64_t", TY_LONG}, {"uint_least8_t", TY_UCHAR}, {"uint_least16_t", TY_USHORT},
    {"uint_least32_t", TY_UINT}, {"uint_least64_t", TY_ULLONG}, {"int_fast8_t", TY_SCHAR},
    {"int_fast16_t", TY_SHORT}, {"int_fast32_t", TY_INT}, {"int_fast64_t", TY_LONG},
    {"uint_fast8_t", TY_UCHAR}, {"uint_fast16_t", TY_USHORT}, {"uint_fast32_t", TY_UINT},
    {"uint_fast64_t", TY_ULLONG}, {"intptr_t", TY_SSIZE}, {"uintptr_t", TY_SIZE},
    {"intmax_t", TY_LLONG}, {"uintmax_t", TY_ULLONG},
    {NULL, TY_VOID},
};

/* numpy/__init__.pxd; int_t, uint_t and long_t are numpy 1.x's (numpy 2
 * dropped them) and stay accepted for the code that still uses them. */
static const NamedType numpy_types[] = {
    {"int8_t", TY_SCHAR}, {"int16_t", TY_SHORT}, {"int32_t", TY_INT}, {"int64_t", TY_LLONG},
    {"uint8_t", TY_UCHAR}, {"uint16_t", TY_USHORT}, {"uint32_t", TY_UINT}, {"uint64_t", TY_ULLONG},
    {"float64_t", TY_DOUBLE}, {"float32_t", TY_FLOAT}, {"double_t", TY_DOUBLE}, {"float_t", TY_DOUBLE},
    {"intp_t", TY_LONG}, {"uintp_t", TY_ULONG}, {"int_t", TY_LONG}, {"uint_t", TY_ULONG},
    {"long_t", TY_LLONG}, {"ulong_t", TY_ULLONG}, {"longlong_t", TY_LLONG}, {"ulonglong_t", TY_ULLONG},
    {"complex128_t", TY_CDOUBLE}, {"complex64_t", TY_CFLOAT}, {"complex_t", TY_CDOUBLE},
    {"npy_intp", TY_LONG}, {"npy_uintp", TY_ULONG}, {"npy_float64", TY_DOUBLE}, {"npy_float32", TY_FLOAT},
    {"npy_int8", TY_SCHAR}, {"npy_int16", TY_SHORT}, {"npy_int32", TY_INT}, {"npy_int64", TY_LLONG},
    {"npy_uint8", TY_UCHAR}, {"npy_uint16", TY_USHORT}, {"npy_uint32", TY_UINT}, {"npy_uint64", TY_ULLONG},
    {"npy_bool", TY_UCHAR}, {"npy_byte", TY_SCHAR}, {"npy_ubyte", TY_UCHAR}, {"npy_short", TY_SHORT},
    {"npy_ushort", TY_USHORT}, {"npy_int", TY_INT}, {"npy_uint", TY_UINT}, {"npy_long", TY_LONG},
    {"npy_ulong", TY_ULONG}, {"npy_longlong", TY_LLONG}, {"npy_ulonglong", TY_ULLONG},
    {"npy_float", TY_FLOAT}, {"npy_double", TY_DOUBLE}, {"npy_longdouble", TY_LDOUBLE},
    {"longdouble_t", TY_LDOUBLE}, {"cfloat_t", TY_CFLOAT}, {"cdouble_t", TY_CDOUBLE},
    {NULL, TY_VOID},
};

static CyType *alias_type(S *s, CyType *base, const char *name) {
    if (!strcmp(base->name, name)) return base;
    CyType *t = cy_alloc(s->a, sizeof *t);
    *t = *base;
    t->name = name;
    return t;
}

/* The C library and OpenMP functions a file may cimport (libc.stdlib,
 * libc.string, libc.stdio, openmp).  The signature is a string of type
 * codes, the result first: v void, V void *, c char *, i int, u unsigned,
 * z size_t, l long, d double, L omp_lock_t *, F a comparison function
 * (int (*)(const void *, const void *)), '.' C varargs. */
typedef struct {
    const char *mod, *name, *sig;
} LibcFn;

static const LibcFn libc_fns[] = {
    {"libc.stdlib", "malloc", "Vz"}, {"libc.stdlib", "calloc", "Vzz"}, {"libc.stdlib", "realloc", "VVz"},
    {"libc.stdlib", "free", "vV"}, {"libc.stdlib", "abort", "v"}, {"libc.stdlib", "abs", "ii"},
    {"libc.stdlib", "labs", "ll"}, {"libc.stdlib", "rand", "i"}, {"libc.stdlib", "srand", "vu"},
    {"libc.stdlib", "atoi", "ic"}, {"libc.stdlib", "atof", "dc"}, {"libc.stdlib", "qsort", "vVzzF"},
    {"libc.stdlib", "bsearch", "VVVzzF"},
    {"libc.string", "memcpy", "VVVz"}, {"libc.string", "memmove", "VVVz"}, {"libc.string", "memset", "VViz"},
    {"libc.string", "memcmp", "iVVz"}, {"libc.string", "strlen", "zc"}, {"libc.string", "strcmp", "icc"},
    {"libc.string", "strncmp", "iccz"}, {"libc.string", "strcpy", "ccc"}, {"libc.string", "strncpy", "cccz"},
    {"libc.string", "strcat", "ccc"}, {"libc.string", "strchr", "cci"},
    {"libc.stdio", "printf", "ic."}, {"libc.stdio", "puts", "ic"}, {"libc.stdio", "putchar", "ii"},
    {"libc.time", "clock", "l"}, {"libc.time", "time", "lV"},
    {"cpython.mem", "PyMem_Malloc", "Vz"}, {"cpython.mem", "PyMem_Calloc", "Vzz"},
    {"cpython.mem", "PyMem_Realloc", "VVz"}, {"cpython.mem", "PyMem_Free", "vV"},
    {"cpython.mem", "PyMem_RawMalloc", "Vz"}, {"cpython.mem", "PyMem_RawCalloc", "Vzz"},
    {"cpython.mem", "PyMem_RawRealloc", "VVz"}, {"cpython.mem", "PyMem_RawFree", "vV"},
    {"openmp", "omp_get_max_threads", "i"}, {"openmp", "omp_get_thread_num", "i"},
    {"openmp", "omp_get_num_threads", "i"}, {"openmp", "omp_set_num_threads", "vi"},
    {"openmp", "omp_get_num_procs", "i"}, {"openmp", "omp_in_parallel", "i"}, {"openmp", "omp_get_wtime", "d"},
    {"openmp", "omp_set_dynamic", "vi"}, {"openmp", "omp_get_dynamic", "i"},
    {"openmp", "omp_init_lock", "vL"}, {"openmp", "omp_destroy_lock", "vL"}, {"openmp", "omp_set_lock", "vL"},
    {"openmp", "omp_unset_lock", "vL"}, {"openmp", "omp_test_lock", "iL"},
    {NULL, NULL, NULL},
};

static const LibcFn *libc_fn(const char *q) {
    for (int i = 0; q && libc_fns[i].mod; i++) {
        size_t l = strlen(libc_fns[i].mod);
        if (!strncmp(q, libc_fns[i].mod, l) && q[l] == '.' && !strcmp(q + l + 1, libc_fns[i].name)) return &libc_fns[i];
    }
    return NULL;
}

static const char *math_consts[] = {"M_PI", "M_E", "M_PI_2", "M_PI_4", "M_1_PI", "M_2_PI", "M_LN2", "M_LN10",
                                    "M_LOG2E", "M_LOG10E", "M_SQRT2", "M_SQRT1_2", "M_2_SQRTPI",
                                    "INFINITY", "NAN", "HUGE_VAL", NULL};

static const char *py_builtins[] = {
    "abs", "all", "any", "ascii", "bin", "bool", "bytearray", "bytes", "callable", "chr", "complex",
    "dict", "divmod", "enumerate", "filter", "float", "format", "frozenset", "getattr", "hasattr",
    "hash", "hex", "id", "int", "isinstance", "issubclass", "iter", "len", "list", "map", "max",
    "memoryview", "min", "next", "object", "oct", "ord", "pow", "print", "range", "repr", "open", "dir",
    "vars", "delattr", "input",
    "reversed", "round", "set", "setattr", "slice", "sorted", "str", "sum", "tuple", "type", "zip",
    "ArithmeticError", "AssertionError", "AttributeError", "Exception", "IndexError", "KeyError",
    "LookupError", "MemoryError", "NameError", "NotImplementedError", "OverflowError",
    "RuntimeError", "RuntimeWarning", "StopIteration", "TypeError", "ValueError", "Warning",
    "ZeroDivisionError", "UserWarning", "DeprecationWarning", "BufferError", "KeyboardInterrupt",
    "BaseException", "ImportError", "ModuleNotFoundError", "OSError", "IOError", "EnvironmentError",
    "FileNotFoundError", "FileExistsError", "PermissionError", "IsADirectoryError",
    "NotADirectoryError", "TimeoutError", "ConnectionError", "BrokenPipeError", "EOFError",
    "UnboundLocalError", "RecursionError", "FloatingPointError", "SystemError", "SystemExit",
    "GeneratorExit", "UnicodeError", "UnicodeDecodeError", "UnicodeEncodeError", "ReferenceError",
    "BytesWarning", "FutureWarning", "ImportWarning", "PendingDeprecationWarning",
    "ResourceWarning", "SyntaxWarning", "UnicodeWarning",
    "NotImplemented", "Ellipsis", "__name__", "__file__", "__doc__", NULL};

static int is_py_builtin(const char *n) {
    for (int i = 0; py_builtins[i]; i++)
        if (!strcmp(py_builtins[i], n)) return 1;
    return 0;
}

/* Cython-special names reachable after cimport/import. */
static const char *special_names[] = {
    "cython.parallel.prange", "cython.parallel.parallel", "cython.parallel.threadid",
    "cython.boundscheck", "cython.wraparound", "cython.cdivision", "cython.initializedcheck",
    "cython.nonecheck", "cython.inline", "cython.cfunc", "cython.ccall", "cython.nogil",
    "cython.gil", "cython.address", "cython.sizeof", "cython.cast", "cython.declare",
    "cython.locals", "cython.returns", "cython.exceptval", "cython.infer_types",
    "cython.overflowcheck", "cython.profile", "cython.linetrace", "cython.embedsignature",
    "cython.cpow", "cython.final", "cython.binding", "cython.always_allow_keywords",
    "cython.language_level", "cython.noexcept", "cython.operator.dereference",
    "cython.operator.preincrement", "cython.operator.predecrement", "cython.operator.postincrement",
    "cython.operator.postdecrement", "cython.view.array", NULL};

static int is_cython_mod(const char *q) { return q && (!strcmp(q, "cython") || !strncmp(q, "cython.", 7)); }

static int is_known_module(const char *q) {
    static const char *mods[] = {"cython", "cython.parallel", "cython.operator", "cython.view", "libc", "libc.math",
                                 "libc.stdlib",
                                 "libc.stdint", "libc.stdio", "libc.string", "libc.float", "libc.limits",
                                 "numpy", "openmp", "cpython", "cpython.mem", "libc.time", "libcpp", NULL};
    for (int i = 0; mods[i]; i++)
        if (!strcmp(mods[i], q)) return 1;
    return 0;
}

/* ---- fused types ---------------------------------------------------------- */

/* Cython's own (PyrexTypes.cy_floating_type etc.), in their order: the
 * order decides the specialisations' order and the dispatch's preference. */
static Fused *builtin_fused(S *s, const char *name) {
    static const char *const names[3] = {"floating", "integral", "numeric"};
    static const TypeKind members[3][8] = {
        {TY_FLOAT, TY_DOUBLE, TY_VOID},
        {TY_SHORT, TY_INT, TY_LONG, TY_VOID},
        {TY_SHORT, TY_INT, TY_LONG, TY_FLOAT, TY_DOUBLE, TY_CFLOAT, TY_CDOUBLE, TY_VOID}};
    for (int i = 0; i < 3; i++) {
        if (strcmp(name, names[i])) continue;
        if (!s->builtin_fused[i]) {
            Fused *f = cy_alloc(s->a, sizeof *f);
            f->name = names[i];
            for (int k = 0; members[i][k] != TY_VOID; k++) cy_vec_push(s->a, &f->types, cy_type_scalar(members[i][k]));
            s->builtin_fused[i] = f;
        }
        return s->builtin_fused[i];
    }
    return NULL;
}

/* The fused type a type name means, or NULL: a 'ctypedef fused' name, a
 * name cimported from cython, or cython.floating after 'cimport cython'. */
/* `cimport helpers [as h]` of a user's helpers.pxd: its declarations are
 * module names (the parser spliced them in), and h.x stands for x.  The
 * name after "h." of a dotted name that starts with such a module, or NULL. */
static const char *user_mod_member(S *s, const char *name) {
    const char *dot = name ? strchr(name, '.') : NULL;
    if (!dot || strchr(dot + 1, '.')) return NULL;
    char head[128];
    size_t hl = (size_t)(dot - name);
    if (hl >= sizeof head) return NULL;
    memcpy(head, name, hl);
    head[hl] = 0;
    Sym *y = lookup(s, head);
    return y && y->kind == SY_CMOD && y->qual && !strncmp(y->qual, "pxd:", 4) ? dot + 1 : NULL;
}

static int is_user_mod(S *s, const ANode *n) {
    if (!n || n->kind != A_NAME) return 0;
    Sym *y = lookup(s, n->name);
    return y && y->kind == SY_CMOD && y->qual && !strncmp(y->qual, "pxd:", 4);
}

static ANode *pxd_foreign(ANode *n, const char *name);

/* h.name of a user module h: 0 after an error when its .pxd does not
 * declare name, or declares what cyocl cannot reach (the other .pyx's). */
static int user_mod_has(S *s, const ANode *h, const char *name, CyPos p) {
    Sym *y = lookup(s, h->name);
    ANode *ci = y ? y->defval : NULL;
    const char *mod = y->qual + 4;
    if (ci && pxd_foreign(ci, name)) {
        err(s, p, "'%s.%s' is defined in %s.pyx: using a cdef function, extension type or variable of another "
                  "module is not supported by cyocl (it builds one module at a time)", h->name, name, mod);
        return 0;
    }
    Sym *x = lookup_in(s->mscope, name);
    if (!x || x->kind == SY_PYGLOBAL) {
        err(s, p, "cimported module has no attribute '%s'", name);
        return 0;
    }
    return 1;
}

static Fused *fused_named(S *s, const char *name) {
    if (!name) return NULL;
    if (user_mod_member(s, name)) name = user_mod_member(s, name);
    const char *dot = strrchr(name, '.');
    if (!dot) {
        Sym *y = lookup(s, name);
        return y && y->kind == SY_FUSED ? y->fused : NULL;
    }
    char head[128];
    size_t hl = (size_t)(dot - name);
    if (hl >= sizeof head) return NULL;
    memcpy(head, name, hl);
    head[hl] = 0;
    Sym *y = lookup(s, head);
    if (!y || y->kind != SY_CMOD || !y->qual || strcmp(y->qual, "cython")) return NULL;
    return builtin_fused(s, dot + 1);
}

/* What a fused type stands for in the specialisation being declared or
 * lowered; NULL outside one. */
static CyType *fused_bound(S *s, Fused *f) {
    for (int i = 0; i < s->nfb; i++)
        if (s->fb_from[i] == f) return s->fb_to[i];
    return NULL;
}

/* ---- types from syntax --------------------------------------------------- */

static int is_cnum(const CyType *t);
static CyType *resolve_type(S *s, ATypeSyn *t);

static CyType *named_in(S *s, const NamedType *tab, const char *n) {
    for (int i = 0; tab[i].name; i++)
        if (!strcmp(tab[i].name, n)) return alias_type(s, cy_type_scalar(tab[i].kind), n);
    return NULL;
}

/* A type a cimported module declares: numpy's and libc.stdint's typedefs,
 * cython's C names; NULL if the module has no such type. */
static CyType *module_type(S *s, const char *mod, const char *n) {
    if (!strcmp(mod, "numpy")) return named_in(s, numpy_types, n);
    if (!strcmp(mod, "libc.stdint")) return named_in(s, stdint_types, n);
    if (!strcmp(mod, "cython")) return named_in(s, base_types, n);
    /* `cimport openmp` then `cdef openmp.omp_lock_t lock`, as Cython's docs write it */
    if (!strcmp(mod, "openmp") && !strcmp(n, "omp_lock_t")) return alias_type(s, cy_type_scalar(TY_OPAQUE), "omp_lock_t");
    return NULL;
}

static CyType *scalar_by_name(S *s, const char *name) {
    if (user_mod_member(s, name)) name = user_mod_member(s, name);
    Fused *fu = fused_named(s, name);
    if (fu) return fused_bound(s, fu);
    /* np.float64_t, cython.double, cnp.int32_t */
    const char *dot = strrchr(name, '.');
    if (dot) {
        char head[128];
        size_t hl = (size_t)(dot - name) < sizeof head - 1 ? (size_t)(dot - name) : sizeof head - 1;
        memcpy(head, name, hl);
        head[hl] = 0;
        Sym *y = strchr(head, '.') ? NULL : lookup(s, head);
        if (y && !y->qual) return NULL;
        return module_type(s, y ? y->qual : head, dot + 1);
    }
    Sym *y = lookup(s, name);
    if (y && y->kind == SY_TYPE) return y->ty;
    if (y) return NULL;
    CyType *t = named_in(s, base_types, name);
    /* a bare stdint name without its cimport: C's meaning (Cython wants the
     * cimport; accepting it loses nothing) */
    return t ? t : named_in(s, stdint_types, name);
}

/* numpy.ndarray as a declared type: an object whose assignments are
 * type-tested; with buffer syntax its base is the view its elements are
 * read through (written-or-not decides constness per variable). */
static CyType *ndarray_type(S *s, CyType *view) {
    CyType *t = cy_alloc(s->a, sizeof *t);
    *t = *cy_type_scalar(TY_OBJECT);
    t->name = "ndarray";
    t->pyclass = "numpy.ndarray";
    t->base = view;
    return t;
}

/* The struct module's format of a C number type that Python's memoryview
 * can cast to, or NULL. */
static const char *struct_format(TypeKind k) {
    static const struct { TypeKind k; const char *f; } fmts[] = {
        {TY_CHAR, "b"}, {TY_SCHAR, "b"}, {TY_UCHAR, "B"}, {TY_SHORT, "h"}, {TY_USHORT, "H"}, {TY_INT, "i"},
        {TY_UINT, "I"}, {TY_LONG, "l"}, {TY_ULONG, "L"}, {TY_LLONG, "q"}, {TY_ULLONG, "Q"}, {TY_SSIZE, "n"},
        {TY_SIZE, "N"}, {TY_FLOAT, "f"}, {TY_DOUBLE, "d"}};
    for (size_t i = 0; i < sizeof fmts / sizeof fmts[0]; i++)
        if (k == fmts[i].k) return fmts[i].f;
    return NULL;
}

/* char *, const char *, unsigned/signed char *: what bytes convert to. */
static int is_char_ptr(const CyType *t) {
    return t->kind == TY_PTR && (t->base->kind == TY_CHAR || t->base->kind == TY_SCHAR || t->base->kind == TY_UCHAR);
}

static int is_ndarray(const CyType *t) {
    return t->kind == TY_OBJECT && t->pyclass && !strcmp(t->pyclass, "numpy.ndarray");
}

/* Python's builtin types as declared types (`cdef list x`, `def f(tuple
 * shape)`): objects whose assignments are type-tested for exactly that type,
 * as Cython's are; every operation on them is the object's. */
static const char *const builtin_classes[] = {"list", "tuple", "dict", "set", "frozenset", "str", "bytes",
                                              "bytearray", "unicode", NULL};

static int is_builtin_obj(const CyType *t) { return t->kind == TY_OBJECT && t->pyclass && !is_ndarray(t); }

static CyType *builtin_obj_type(S *s, const char *name) {
    for (int i = 0; builtin_classes[i]; i++) {
        if (strcmp(name, builtin_classes[i])) continue;
        CyType *t = cy_alloc(s->a, sizeof *t);
        *t = *cy_type_scalar(TY_OBJECT);
        t->pyclass = !strcmp(name, "unicode") ? "str" : builtin_classes[i];
        t->name = cy_fmt(s->a, "%s object", t->pyclass);
        return t;
    }
    return NULL;
}

/* The builtin class of a literal's value, or NULL. */
static const char *literal_class(const IrExpr *e) {
    switch (e->kind) {
    case E_LIST: return "list";
    case E_TUPLE: return "tuple";
    case E_DICT: return "dict";
    case E_SET: return "set";
    case E_STR: return "str";
    case E_BYTES: return "bytes";
    default: return NULL;
    }
}
static int is_buffer(const CyType *t) { return is_ndarray(t) && t->base; }

/* "np.ndarray" / "cnp.ndarray" / "numpy.ndarray" with np a cimport of numpy. */
static int names_ndarray(S *s, const char *name) {
    const char *dot = strrchr(name, '.');
    if (!dot || strcmp(dot + 1, "ndarray") || strchr(name, '.') != dot) return 0;
    char head[128];
    size_t hl = (size_t)(dot - name);
    if (hl >= sizeof head) return 0;
    memcpy(head, name, hl);
    head[hl] = 0;
    Sym *y = lookup(s, head);
    return y && (y->kind == SY_CMOD || y->kind == SY_PYGLOBAL) && y->qual && !strcmp(y->qual, "numpy");
}

static CyType *buffer_type(S *s, ATypeSyn *t, CyType *base) {
    if (!is_ndarray(base)) {
        err(s, t->buf_pos, "buffer syntax on '%s' is not supported by cyocl (only on numpy.ndarray)", t->name);
        return TY_ERR;
    }
    if (!s->buf_ok) {
        err(s, t->pos, "Buffer types only allowed as function local variables");
        return TY_ERR;
    }
    CyType *dt = resolve_type(s, t->buf_dtype);
    if (dt == TY_ERR) return dt;
    if (dt->kind == TY_OBJECT) {
        err(s, t->buf_dtype->pos, "buffers of Python objects are not supported by cyocl");
        return TY_ERR;
    }
    if (!is_cnum(dt) || dt->kind == TY_BINT) {
        err(s, t->buf_dtype->pos, "buffers of '%s' are not supported by cyocl", dt->name);
        return TY_ERR;
    }
    if (t->buf_ndim < 1 || t->buf_ndim > CY_MAX_NDIM) {
        err(s, t->buf_pos, "buffers of %d dimensions are not supported by cyocl", t->buf_ndim);
        return TY_ERR;
    }
    char ax[CY_MAX_NDIM] = {0};
    if (t->buf_mode && !strcmp(t->buf_mode, "c")) ax[t->buf_ndim - 1] = 1;
    else if (t->buf_mode && !strcmp(t->buf_mode, "fortran")) ax[0] = 1;
    CyType *r = ndarray_type(s, cy_type_view(s->a, dt, t->buf_ndim, ax, 0));
    r->name = cy_fmt(s->a, "ndarray[%s, ndim=%d%s%s%s]", dt->name, t->buf_ndim, t->buf_mode ? ", mode='" : "",
                     t->buf_mode ? t->buf_mode : "", t->buf_mode ? "'" : "");
    return r;
}

/* A C array dimension: an integer constant expression, as Cython folds it. */
static int const_dim(S *s, ANode *n, long long *v) {
    long long a, b;
    switch (n->kind) {
    case A_INT:
        if (n->int_overflow || n->ival > (uint64_t)INT64_MAX) break;
        *v = (long long)n->ival;
        return 1;
    case A_NAME: {
        Sym *y = lookup(s, n->name);
        if (y && y->kind == SY_DEFC) return const_dim(s, y->defval, v);
        if (!y || y->kind != SY_ENUMC) break;
        *v = y->cval;
        return 1;
    }
    case A_UNOP:
        if (!const_dim(s, n->obj, &a)) return 0;
        *v = n->op[0] == '-' ? -a : n->op[0] == '~' ? ~a : a;
        return 1;
    case A_BINOP:
        if (!const_dim(s, n->lhs, &a) || !const_dim(s, n->rhs, &b)) return 0;
        if (!strcmp(n->op, "+")) *v = a + b;
        else if (!strcmp(n->op, "-")) *v = a - b;
        else if (!strcmp(n->op, "*")) *v = a * b;
        else if (!strcmp(n->op, "//") && b) *v = a / b;
        else if (!strcmp(n->op, "<<") && b >= 0 && b < 32) *v = a << b;
        else if (!strcmp(n->op, ">>") && b >= 0 && b < 63) *v = a >> b;
        else if (!strcmp(n->op, "|")) *v = a | b;
        else if (!strcmp(n->op, "&")) *v = a & b;
        else if (!strcmp(n->op, "^")) *v = a ^ b;
        else break;
        return 1;
    default: break;
    }
    err(s, n->pos, "Not allowed in a constant expression");
    return 0;
}

static const char *qual_of_dotted(S *s, const char *name);

/* Cython's ctuple (double, int): a struct of fields f0, f1 ... (one type
 * per spelling of its items in the module), C numbers only. */
static CyType *ctuple_type(S *s, ATypeSyn *ts) {
    int n = ts->tuple_items.len;
    CyType **types = cy_alloc(s->a, (size_t)n * sizeof *types);
    const char *name = "(";
    for (int i = 0; i < n; i++) {
        types[i] = resolve_type(s, ts->tuple_items.items[i]);
        if (types[i] == TY_ERR) return TY_ERR;
        if (!is_cnum(types[i])) {
            err(s, ((ATypeSyn *)ts->tuple_items.items[i])->pos,
                "a ctuple item of type '%s' is not supported by cyocl (only C numbers)", types[i]->name);
            return TY_ERR;
        }
        name = cy_fmt(s->a, "%s%s%s", name, i ? ", " : "", types[i]->name);
    }
    name = cy_fmt(s->a, "%s)", name);
    if (ts->ptr || ts->ndim || ts->narr) {
        err(s, ts->pos, "pointers, arrays and memoryviews of ctuples are not supported by cyocl");
        return TY_ERR;
    }
    for (int i = 0; i < s->m->structs.len; i++) {
        CyType *t = s->m->structs.items[i];
        if (t->is_ctuple && !strcmp(t->name, name)) return t;
    }
    CyType *t = cy_alloc(s->a, sizeof *t);
    t->kind = TY_STRUCT;
    t->is_ctuple = 1;
    t->name = name;
    t->cname = cy_fmt(s->a, "cy_ctuple%d", s->m->structs.len);
    t->nfields = n;
    t->ftypes = types;
    t->fnames = cy_alloc(s->a, (size_t)n * sizeof *t->fnames);
    long long size = 0, align = 1;
    for (int i = 0; i < n; i++) {
        t->fnames[i] = cy_fmt(s->a, "f%d", i);
        long long a = types[i]->size ? types[i]->size : 1;
        size = (size + a - 1) / a * a + types[i]->size;
        if (a > align) align = a;
    }
    t->size = (int)((size + align - 1) / align * align);
    t->alen = align;
    cy_vec_push(s->a, &s->m->structs, t);
    return t;
}

static CyType *resolve_type(S *s, ATypeSyn *t) {
    if (!t) return cy_type_scalar(TY_OBJECT);
    if (user_mod_member(s, t->name)) {
        ATypeSyn *u = cy_alloc(s->a, sizeof *u);
        *u = *t;
        u->name = user_mod_member(s, t->name);
        t = u;
    }
    if (t->tuple_items.len) return ctuple_type(s, t);
    if (t->fn_ret) {
        CyType *ret = resolve_type(s, t->fn_ret);
        CyType **args = cy_alloc(s->a, (t->fn_args.len + 1) * sizeof *args);
        int bad = ret == TY_ERR;
        for (int i = 0; i < t->fn_args.len && !bad; i++) {
            args[i] = resolve_type(s, t->fn_args.items[i]);
            bad = args[i] == TY_ERR;
        }
        if (bad) return TY_ERR;
        for (int i = -1; i < t->fn_args.len; i++) {
            CyType *x = i < 0 ? ret : args[i];
            if (x->kind == TY_OBJECT || x->kind == TY_VIEW || x->kind == TY_ARRAY) {
                err(s, i < 0 ? t->pos : ((ATypeSyn *)t->fn_args.items[i])->pos,
                    "function pointer types with %s arguments or results are not supported by cyocl", x->name);
                return TY_ERR;
            }
        }
        return cy_type_ptr(s->a, cy_type_func(s->a, ret, args, t->fn_args.len));
    }
    CyType *base = names_ndarray(s, t->name) ? ndarray_type(s, NULL) : scalar_by_name(s, t->name);
    if (!base && !lookup(s, t->name)) base = builtin_obj_type(s, t->name);
    if (!base && !t->ptr && !t->ndim && !t->narr && !t->buf_dtype) {
        /* `cdef view.array a = view.array(...)`: the object view_array()
           makes (a Python memoryview, whose buffer is the same) */
        const char *q = qual_of_dotted(s, t->name);
        if (q && !strcmp(q, "cython.view.array")) base = cy_type_scalar(TY_OBJECT);
    }
    if (base && is_builtin_obj(base) && (t->ptr || t->ndim || t->narr || t->buf_dtype)) {
        err(s, t->pos, "'%s' of a Python object type is not supported", t->ptr ? "pointers" : "arrays or buffers");
        return TY_ERR;
    }
    if (!base && fused_named(s, t->name)) {
        err(s, t->pos, "Invalid use of fused types, type cannot be specialized");
        return TY_ERR;
    }
    if (base && is_ndarray(base) && (t->ptr || t->ndim)) {
        err(s, t->pos, "%s of numpy.ndarray are not supported by cyocl", t->ptr ? "pointers" : "memoryviews");
        return TY_ERR;
    }
    if (base && t->buf_dtype) return buffer_type(s, t, base);
    if (!base) {
        err(s, t->pos, "'%s' is not a type identifier", t->name);
        return TY_ERR;
    }
    if (t->ndim > 0) {
        if (t->ndim > CY_MAX_NDIM) {
            err(s, t->pos, "memoryviews of more than %d dimensions are not supported", CY_MAX_NDIM);
            return TY_ERR;
        }
        if (base->kind == TY_STRUCT) {
            err(s, t->pos, "memoryviews of struct '%s' are not supported by cyocl", base->name);
            return TY_ERR;
        }
        if (base->kind == TY_VOID || base->kind == TY_OBJECT || base->kind == TY_PTR || base->kind == TY_VIEW) {
            err(s, t->pos, "memoryviews of '%s' are not supported", base->name);
            return TY_ERR;
        }
        if (t->ptr) {
            err(s, t->pos, "pointer dtypes in memoryviews are not supported");
            return TY_ERR;
        }
        /* '::1' is allowed only on the first (Fortran) or last (C) axis
           when there is more than one axis, as in Cython */
        for (int i = 0; i < t->ndim; i++) {
            if (t->axes[i] && i != 0 && i != t->ndim - 1) {
                err(s, t->axes_pos[i], "Only the first or last axis of a memoryview may be contiguous");
                return TY_ERR;
            }
        }
        if (t->ndim > 1 && t->axes[0] && t->axes[t->ndim - 1]) {
            err(s, t->axes_pos[0], "memoryview cannot be contiguous in both C and Fortran order");
            return TY_ERR;
        }
        char ax[CY_MAX_NDIM] = {0};
        for (int i = 0; i < t->ndim; i++) ax[i] = t->axes[i];
        return cy_type_view(s->a, base, t->ndim, ax, t->is_const);
    }
    if (t->ptr && base->kind == TY_OBJECT) {
        err(s, t->pos, "Pointer base type cannot be a Python object");
        return TY_ERR;
    }
    CyType *r = base;
    for (int i = 0; i < t->ptr; i++) r = cy_type_ptr(s->a, r);
    if (t->narr) {
        if (r->kind == TY_OBJECT || r->kind == TY_VOID) {
            err(s, t->pos, "Array element type '%s' is %s", r->name, r->kind == TY_VOID ? "incomplete" : "not allowed");
            return TY_ERR;
        }
        for (int k = t->narr - 1; k >= 0; k--) {
            long long n;
            if (!const_dim(s, t->arr[k], &n)) return TY_ERR;
            if (n <= 0 || n > (1LL << 24)) {
                err(s, t->arr[k]->pos, "C array dimension must be between 1 and %d", 1 << 24);
                return TY_ERR;
            }
            if ((long long)r->size * n > (1LL << 30)) {
                err(s, t->pos, "C array of more than %d bytes is not supported by cyocl", 1 << 30);
                return TY_ERR;
            }
            r = cy_type_array(s->a, r, n);
        }
    }
    return r;
}

/* ---- expression constructors ------------------------------------------- */

static IrExpr *mk(S *s, ExprKind k, CyType *ty, CyPos p) {
    IrExpr *e = cy_alloc(s->a, sizeof *e);
    e->kind = k;
    e->ty = ty;
    e->pos = p;
    return e;
}

static IrExpr *mk1(S *s, ExprKind k, CyType *ty, CyPos p, IrExpr *a0) {
    IrExpr *e = mk(s, k, ty, p);
    e->args = cy_alloc(s->a, sizeof(IrExpr *));
    e->args[0] = a0;
    e->nargs = 1;
    return e;
}

static IrExpr *mk2(S *s, ExprKind k, CyType *ty, CyPos p, IrOp op, IrExpr *a0, IrExpr *a1) {
    IrExpr *e = mk(s, k, ty, p);
    e->op = op;
    e->args = cy_alloc(s->a, 2 * sizeof(IrExpr *));
    e->args[0] = a0;
    e->args[1] = a1;
    e->nargs = 2;
    return e;
}

static IrExpr *mk_int(S *s, int64_t v, TypeKind k, CyPos p) {
    IrExpr *e = mk(s, E_INT, cy_type_scalar(k), p);
    e->ival = (uint64_t)v;
    return e;
}

static IrExpr *mk_err(S *s, CyPos p) { return mk(s, E_INT, TY_ERR, p); }

static IrExpr *mk_var(S *s, IrVar *v, CyPos p) {
    IrExpr *e = mk(s, E_VAR, v->ty, p);
    e->var = v;
    return e;
}

static int is_obj(const CyType *t) { return t->kind == TY_OBJECT; }
static int is_view(const CyType *t) { return t->kind == TY_VIEW; }
static int is_cnum(const CyType *t) { return cy_type_is_numeric(t); }
static int struct_field(const CyType *t, const char *name) {
    for (int k = 0; k < t->nfields; k++)
        if (!strcmp(t->fnames[k], name)) return k;
    return -1;
}

/* numpy.PyArray_DIMS, numpy.NPY_DOUBLE, ...: declared by numpy's .pxd for
 * C, absent from the Python module of the same name (cimport numpy as np +
 * import numpy as np), so a Python call would fail only at run time. */
static int is_numpy_capi(const char *q) {
    static const char *const pre[] = {"PyArray_", "PyDataType_", "PyTypeNum_", "NPY_", "npy_", "PyUFunc_", NULL};
    if (!q || strncmp(q, "numpy.", 6)) return 0;
    for (int i = 0; pre[i]; i++)
        if (!strncmp(q + 6, pre[i], strlen(pre[i]))) return 1;
    return 0;
}

static int is_numpy_init(const char *q) {
    return q && (!strcmp(q, "numpy.import_array") || !strcmp(q, "numpy.import_umath") ||
                 !strcmp(q, "numpy.import_ufunc"));
}

/* The GIL is needed for this; report once at p. */
static int need_gil(S *s, CyPos p, const char *what) {
    if (!s->nogil) return 1;
    err(s, p, "%s not allowed without gil", what);
    return 0;
}

static IrExpr *coerce(S *s, IrExpr *e, CyType *to);
static int plain_int_literal(const IrExpr *e);

/* Cython converts each arm of `a if c else b` to the destination
 * (CondExprNode.coerce_to), then types the expression anew from its arms:
 * for a Python object each arm is boxed (a signed char -2 and an unsigned
 * short give -2); for a C number only a literal arm changes its type, the
 * others keep theirs, so the value is held in their spanning type (65534)
 * and converted from there (cond_to). */
static int cond_arms_convert(const IrExpr *e, const CyType *to) {
    int arms = (e->kind == E_COND && e->nargs == 3 && e->args[3] && e->args[4]) ||
               ((e->kind == E_VAND || e->kind == E_VOR) && e->nargs == 2 && e->args[2] && e->args[3]);
    return arms && is_cnum(e->ty) &&
           (is_obj(to) || (is_cnum(to) && !(cy_type_is_complex(e->ty) && !cy_type_is_complex(to))));
}

/* Also Python's `a or b` / `a and b` on C numbers (Cython's
 * BoolBinopNode.coerce_to does the same): boxed, `k and x` with k == 0 is
 * the int 0, not 0.0. */
static IrExpr *cond_to(S *s, IrExpr *e, CyType *to) {
    int vbool = e->kind != E_COND, n = vbool ? 2 : 3, o = vbool ? 2 : 3;
    ExprKind k = vbool ? (is_obj(to) ? (e->kind == E_VAND ? E_OBJ_AND : E_OBJ_OR) : e->kind)
                       : (is_obj(to) ? E_OBJ_COND : E_COND);
    if (!vbool && !is_obj(to)) {
        IrExpr *a = e->args[o], *b = e->args[o + 1];
        if (plain_int_literal(a) || a->kind == E_FLOAT) a = coerce(s, a, to);
        if (plain_int_literal(b) || b->kind == E_FLOAT) b = coerce(s, b, to);
        IrExpr *c = mk(s, E_COND, cy_type_span(a->ty, b->ty), e->pos);
        c->nargs = 3;
        c->args = cy_alloc(s->a, 5 * sizeof(IrExpr *));
        c->args[0] = e->args[0];
        c->args[1] = coerce(s, a, c->ty);
        c->args[2] = coerce(s, b, c->ty);
        return coerce(s, c, to); /* arms unset: converted as a whole */
    }
    IrExpr *r = mk(s, k, to, e->pos);
    r->nargs = n;
    r->args = cy_alloc(s->a, (size_t)(n + 2) * sizeof(IrExpr *));
    if (!vbool) r->args[0] = e->args[0];
    r->args[n - 2] = coerce(s, e->args[o], to);
    r->args[n - 1] = coerce(s, e->args[o + 1], to);
    if (!is_obj(to)) {
        r->args[n] = e->args[o];
        r->args[n + 1] = e->args[o + 1];
    }
    return r;
}

static IrExpr *as_held(S *s, IrExpr *e);
static IrExpr *enum_held(S *s, IrExpr *e);

/* Whether a struct converts to and from a dict here: numbers and such
 * structs as fields (Cython converts arrays and char * too). */
static int struct_converts(const CyType *t) {
    for (int k = 0; k < t->nfields; k++) {
        const CyType *f = t->ftypes[k];
        if (f->kind == TY_STRUCT ? !struct_converts(f) : !is_cnum(f)) return 0;
    }
    return 1;
}

static int is_cpdef_enum(S *s, const CyType *t) {
    if (!t->is_enum || !t->name) return 0;
    for (int i = 0; i < s->cpdef_enums.len; i++)
        if (!strcmp(s->cpdef_enums.items[i], t->name)) return 1;
    return 0;
}

static IrExpr *box(S *s, IrExpr *e) {
    if (e->ty == TY_ERR || is_obj(e->ty)) return e;
    if (e->kind == E_POW && e->soft_pow == 4) {
        if (!need_gil(s, e->pos, "Converting to Python object")) return mk_err(s, e->pos);
        IrExpr *b = mk1(s, E_BOX, cy_type_scalar(TY_OBJECT), e->pos, e);
        b->sval = "cyrt_soft_cobj";
        return b;
    }
    if (e->kind == E_POW && e->soft_pow) {
        /* Cython's soft complex as an object: a float, or a complex where
           the imaginary part is not zero ((-8.0) ** (1/3.) is (1+1.73j)) */
        if (!need_gil(s, e->pos, "Converting to Python object")) return mk_err(s, e->pos);
        IrExpr *b = mk2(s, E_BOX, cy_type_scalar(TY_OBJECT), e->pos, OP_NONE,
                        coerce(s, e->args[0], cy_type_scalar(TY_DOUBLE)), coerce(s, e->args[1], cy_type_scalar(TY_DOUBLE)));
        b->sval = "cyrt_soft_pow_obj";
        return b;
    }
    e = as_held(s, e);
    if (cond_arms_convert(e, cy_type_scalar(TY_OBJECT))) return cond_to(s, e, cy_type_scalar(TY_OBJECT));
    if (e->kind == E_NONE) return e;
    if (is_view(e->ty)) {
        if (!need_gil(s, e->pos, "Converting a memoryview to a Python object")) return mk_err(s, e->pos);
        return mk1(s, E_OBJ_FROM_VIEW, cy_type_scalar(TY_OBJECT), e->pos, e);
    }
    if (e->ty->kind == TY_PTR || e->ty->kind == TY_VOID || e->ty->kind == TY_FUNC) {
        err(s, e->pos, "Cannot convert '%s' to Python object", e->ty->name);
        return mk_err(s, e->pos);
    }
    if (e->ty->kind == TY_STRUCT && !struct_converts(e->ty)) {
        err(s, e->pos, "converting struct '%s' (a field that is not a number or a struct) to a Python object is not supported by cyocl", e->ty->name);
        return mk_err(s, e->pos);
    }
    if (e->ty->kind == TY_ARRAY) {
        /* a list of the elements (lists for the inner dimensions), as Cython
           makes it; char arrays (Cython: bytes) and big ones are not done */
        const CyType *sc = cy_type_array_scalar(e->ty);
        if (sc->kind == TY_CHAR || sc->kind == TY_SCHAR || sc->kind == TY_UCHAR || e->ty->size / (sc->size ? sc->size : 1) > 4096 ||
            (e->kind != E_VAR && e->kind != E_PTR_INDEX)) {
            err(s, e->pos, "converting the C array '%s' to a Python object is not supported by cyocl", e->ty->name);
            return mk_err(s, e->pos);
        }
        if (!need_gil(s, e->pos, "Converting to Python object")) return mk_err(s, e->pos);
        IrExpr *l = mk(s, E_LIST, cy_type_scalar(TY_OBJECT), e->pos);
        l->nargs = (int)e->ty->alen;
        l->args = cy_alloc(s->a, (size_t)(l->nargs + 1) * sizeof(IrExpr *));
        for (int k = 0; k < l->nargs; k++)
            l->args[k] = box(s, mk2(s, E_PTR_INDEX, e->ty->base, e->pos, OP_NONE, e, mk_int(s, k, TY_SSIZE, e->pos)));
        return l;
    }
    if (!need_gil(s, e->pos, "Converting to Python object")) return mk_err(s, e->pos);
    IrExpr *b = mk1(s, E_BOX, cy_type_scalar(TY_OBJECT), e->pos, e);
    if (is_cpdef_enum(s, e->ty)) {
        /* Cython: the member of the module's enum class (Color(value)) */
        IrExpr *c = mk(s, E_OBJ_CALL, cy_type_scalar(TY_OBJECT), e->pos);
        IrExpr *cls = mk(s, E_PYGLOBAL, cy_type_scalar(TY_OBJECT), e->pos);
        cls->sval = e->ty->name;
        c->nargs = 2;
        c->args = cy_alloc(s->a, 2 * sizeof(IrExpr *));
        c->args[0] = cls;
        c->args[1] = b;
        return c;
    }
    return b;
}

static int view_assignable(const CyType *to, const CyType *from) {
    if (to->ndim != from->ndim) return 0;
    if (to->base->kind != from->base->kind) return 0;
    if (!to->is_const && from->is_const) return 0;
    for (int i = 0; i < to->ndim; i++)
        if (to->axes[i] && !from->axes[i]) return 0;
    return 1;
}

static int is_null(const IrExpr *e) { return e->kind == E_CNAME && !strcmp(e->sval, "NULL"); }

/* An array used as a value: a pointer to its first element. */
static IrExpr *decay(S *s, IrExpr *e) {
    if (e->ty->kind != TY_ARRAY) return e;
    return mk1(s, E_CAST, cy_type_ptr(s->a, e->ty->base), e->pos, e);
}

/* Converts e to type `to` for an assignment/argument/return; reports
 * "Cannot assign type 'X' to 'Y'" at e's position. */
static int class_derives(const IrClass *c, const IrClass *base);

static IrExpr *coerce(S *s, IrExpr *e, CyType *to) {
    if (e->kind == E_POW && e->soft_pow == 1 && !s->keep_soft && to != TY_ERR && is_cnum(to) &&
        !cy_type_is_complex(to)) {
        /* Cython: a complex power straight into a C number is pow() (as
           with cpow=True; Cython warns that this is fragile) */
        e->soft_pow = 0;
        e->ty = e->args[0]->ty;
    }
    CyType *from = e->ty;
    if (from == TY_ERR || to == TY_ERR) return e;
    if (from->cls && to->cls && class_derives(from->cls, to->cls)) return e; /* an instance of a subclass */
    if (is_ndarray(to) && !is_ndarray(from) && e->kind != E_NONE) {
        static const struct { ExprKind k; const char *n; } lits[] = {
            {E_LIST, "list"}, {E_SET, "set"}, {E_TUPLE, "tuple"}, {E_DICT, "dict"}, {E_STR, "str"}, {E_BYTES, "bytes"},
            {E_PYBOOL, "bool"}, {E_BIGINT, "int"}};
        for (size_t i = 0; i < sizeof lits / sizeof lits[0]; i++)
            if (e->kind == lits[i].k) {
                err(s, e->pos, "Cannot coerce %s to type 'ndarray'", lits[i].n);
                return mk_err(s, e->pos);
            }
        if (!is_obj(from)) {
            err(s, e->pos, "Cannot assign type '%s' to 'ndarray'", from->name);
            return mk_err(s, e->pos);
        }
        if (!need_gil(s, e->pos, "Converting Python object")) return mk_err(s, e->pos);
        return mk1(s, E_PYTYPE_TEST, to, e->pos, e);
    }
    if (is_builtin_obj(to) && e->kind != E_NONE &&
        !(is_builtin_obj(from) && !strcmp(from->pyclass, to->pyclass))) {
        const char *lit = literal_class(e);
        if (lit && !strcmp(lit, to->pyclass)) return e;
        /* a tuple of constants is a cached constant to Cython, typed as any
           object: it fails the test at run time, not at compile time */
        int const_tuple = e->kind == E_TUPLE;
        for (int i = 0; const_tuple && i < e->nargs; i++) {
            IrExpr *a = e->args[i]->kind == E_BOX ? e->args[i]->args[0] : e->args[i];
            ExprKind k = a->kind;
            const_tuple = k == E_INT || k == E_FLOAT || k == E_STR || k == E_BYTES || k == E_NONE || k == E_PYBOOL ||
                          k == E_BIGINT || k == E_IMAG;
        }
        if (const_tuple) lit = NULL;
        else if (lit || is_builtin_obj(from) || is_ndarray(from)) {
            err(s, e->pos, "Cannot assign type '%s' to '%s'", lit ? cy_fmt(s->a, "%s object", lit) : from->name,
                to->name);
            return mk_err(s, e->pos);
        }
        if (!is_obj(from)) e = box(s, e);
        if (e->ty == TY_ERR) return e;
        if (!need_gil(s, e->pos, "Converting Python object")) return mk_err(s, e->pos);
        return mk1(s, E_PYTYPE_TEST, to, e->pos, e);
    }
    if (to->is_enum && !is_obj(from) && !(from->is_enum && !strcmp(from->name, to->name))) {
        /* only the enum's own values convert implicitly (Cython) */
        err(s, e->pos, "Cannot assign type '%s' to '%s'", from->name, to->name);
        return mk_err(s, e->pos);
    }
    if (from == to || cy_type_equal(from, to)) {
        if (from != to && from->kind != TY_VIEW && from->kind != TY_PTR) {
            /* aliases of one scalar: keep the target's name for the C cast */
            return e;
        }
        return e;
    }
    if (cond_arms_convert(e, to)) return cond_to(s, e, to);
    if (e->kind == E_BOX && e->sval && !strcmp(e->sval, "PyLong_FromDouble") && cy_type_is_int(to) &&
        to->kind != TY_BINT)
        return coerce(s, e->args[0], to); /* int(x) into a C integer: Cython's C cast */
    if (is_obj(to)) return box(s, e);
    if (e->kind == E_NONE) {
        if (is_view(to)) {
            IrExpr *r = mk1(s, E_VIEW_FROM_OBJ, to, e->pos, e);
            return r;
        }
        if (to->kind == TY_PTR) return mk1(s, E_CAST, to, e->pos, mk_int(s, 0, TY_LONG, e->pos));
    }
    if (is_obj(from)) {
        if (!need_gil(s, e->pos, "Converting Python object")) return mk_err(s, e->pos);
        if (is_view(to)) return mk1(s, E_VIEW_FROM_OBJ, to, e->pos, e);
        if (to->kind == TY_STRUCT) {
            if (!struct_converts(to)) {
                err(s, e->pos, "converting a Python object to struct '%s' (a field that is not a number or a struct) is not supported by cyocl", to->name);
                return mk_err(s, e->pos);
            }
            return mk1(s, E_UNBOX, to, e->pos, e);
        }
        if (to->kind == TY_BINT) return mk1(s, E_OBJ_TRUTH, to, e->pos, e);
        if (is_cnum(to) || is_char_ptr(to)) return mk1(s, E_UNBOX, to, e->pos, e);
        err(s, e->pos, "Cannot convert Python object to '%s'", to->name);
        return mk_err(s, e->pos);
    }
    if (is_view(to) && from->kind == TY_ARRAY) {
        /* Cython wraps the array's memory (no copy) in a cython.view.array;
           here a Python memoryview over it, cast to its format and shape */
        int nd = 0;
        const CyType *el = from;
        while (el->kind == TY_ARRAY) el = el->base, nd++;
        if (nd == to->ndim && cy_type_equal(el, to->base) && struct_format(el->kind) &&
            (e->kind == E_VAR || e->kind == E_PTR_INDEX)) {
            if (!need_gil(s, e->pos, "Converting C array to memoryview")) return mk_err(s, e->pos);
            IrExpr *o = mk1(s, E_CARRAY_VIEW, cy_type_scalar(TY_OBJECT), e->pos, e);
            o->sval = struct_format(el->kind);
            return mk1(s, E_VIEW_FROM_OBJ, to, e->pos, o);
        }
    }
    if (is_view(to) || is_view(from)) {
        if (is_view(to) && is_view(from) && view_assignable(to, from)) return e;
        err(s, e->pos, "Cannot assign type '%s' to '%s'", from->name, to->name);
        return mk_err(s, e->pos);
    }
    if (is_cnum(to) && is_cnum(from)) {
        if (from->kind == TY_BINT && to->kind != TY_BINT && !s->truth_cmp && !s->quiet && e->kind == E_CALL_C && !e->fn && e->sval &&
            !strcmp(e->sval, "signbit") && e->nargs == 1 && e->args[0]->ty->kind == TY_FLOAT)
            warn(s, e->pos,
                 "signbit() of a float used as a number: C gives an unspecified nonzero value for a negative "
                 "sign (gcc: -2147483648, or 1 in a vectorized loop, in Cython's build; cyocl: -2147483648); "
                 "test it as a truth value or write (signbit(x) != 0)");
        if (cy_type_is_complex(from) && !cy_type_is_complex(to)) {
            err(s, e->pos, "Cannot assign type '%s' to '%s'", from->name, to->name);
            return mk_err(s, e->pos);
        }
        if (to->kind == from->kind) return e;
        return mk1(s, E_CAST, to, e->pos, e);
    }
    if (to->kind == TY_PTR && from->kind == TY_ARRAY) {
        /* an array used as a value is a pointer to its first element, as in C */
        e = decay(s, e);
        from = e->ty;
    }
    if (to->kind == TY_PTR && from->kind == TY_PTR) {
        /* as Cython: any pointer converts to void *, void * to nothing
           else without a cast, NULL to every pointer */
        if (to->base->kind == TY_VOID || is_null(e) || cy_type_equal(to->base, from->base))
            return mk1(s, E_CAST, to, e->pos, e);
    }
    if (to->kind == TY_ARRAY && from->kind == TY_ARRAY && cy_type_equal(to, from)) return e;
    if (to->kind == TY_BINT && from->kind == TY_PTR) return mk2(s, E_CMP, to, e->pos, OP_NE, e, mk1(s, E_CAST, from, e->pos, mk_int(s, 0, TY_LONG, e->pos)));
    err(s, e->pos, "Cannot assign type '%s' to '%s'", from->name, to->name);
    return mk_err(s, e->pos);
}

/* A condition: C scalar as is, objects through truth testing. */
static IrExpr *as_cond(S *s, IrExpr *e) {
    if (e->ty == TY_ERR) return e;
    if (is_obj(e->ty)) {
        if (e->kind == E_OBJ_CMP) {
            e->kind = E_OBJ_CMP_BINT;
            e->ty = cy_type_scalar(TY_BINT);
            return e;
        }
        if (!need_gil(s, e->pos, "Truth-testing Python object")) return mk_err(s, e->pos);
        return mk1(s, E_OBJ_TRUTH, cy_type_scalar(TY_BINT), e->pos, e);
    }
    if (is_view(e->ty)) {
        err(s, e->pos, "Cannot use a memoryview as a condition");
        return mk_err(s, e->pos);
    }
    if (e->ty->kind == TY_VOID) {
        err(s, e->pos, "Cannot use a void value as a condition");
        return mk_err(s, e->pos);
    }
    if (e->ty->kind == TY_STRUCT || e->ty->kind == TY_OPAQUE) {
        err(s, e->pos, "Type '%s' not acceptable as a boolean", e->ty->name);
        return mk_err(s, e->pos);
    }
    return e;
}

/* ---- region bookkeeping ---------------------------------------------------- */

static Access *access_of(S *s, RegionCtx *rc, IrVar *v) {
    for (Access *x = rc->acc; x; x = x->next)
        if (x->var == v) return x;
    Access *x = cy_alloc(s->a, sizeof *x);
    x->var = v;
    x->next = rc->acc;
    rc->acc = x;
    return x;
}

static void record_read(S *s, IrVar *v, CyPos p) {
    if (s->quiet || s->inplace_read) return;
    for (RegionCtx *rc = s->rctx; rc; rc = rc->outer) {
        Access *x = access_of(s, rc, v);
        if (!x->read) {
            x->read = 1;
            x->read_pos = p;
        }
        if (!x->any && !x->read_first) {
            x->read_first = 1;
            x->read_first_pos = p;
            x->read_carried = rc == s->rctx && s->loop_depth == rc->depth0;
        }
    }
}

static void record_assign(S *s, IrVar *v, CyPos p, IrOp op) {
    if (s->quiet) return;
    if (v->kind == V_LOCAL || v->kind == V_PARAM) v->is_assigned = 1;
    IrOp op0 = op;
    for (RegionCtx *rc = s->rctx; rc; rc = rc->outer) {
        Access *x = access_of(s, rc, v);
        /* a reduction of a prange nested in this one (it runs serially here)
           stays a reduction of this one, unless this one assigns the
           variable plainly first: then, as in Cython, it is this one's
           private (s = 0, an inner prange adding to s, then s read) */
        op = s->serial_prange && x->plain ? OP_NONE : op0;
        if (rc == s->rctx) {
            /* Cython compares with the operator of the previous assignment
               (none after a plain one) */
            if (x->direct && op && x->direct_op && op != x->direct_op)
                err(s, p, "Reduction operator '%s' is inconsistent with previous reduction operator '%s'",
                    cy_op_name(op), cy_op_name(x->direct_op));
            if (!x->direct) x->direct_pos = p;
            x->direct = 1;
            x->direct_op = op;
        }
        if (!x->any && x->read_first && x->read_first_pos.line == p.line) x->read_carried = 1;
        x->any = 1;
        x->last_op = op;
        x->plain |= !op;
    }
}

static void record_view(S *s, IrExpr *view, int write) {
    if (s->quiet || view->kind != E_VAR || !s->rctx) return;
    for (RegionCtx *rc = s->rctx; rc; rc = rc->outer) {
        IrViewUse *u = NULL;
        for (int i = 0; i < rc->r->views.len; i++) {
            IrViewUse *w = rc->r->views.items[i];
            if (w->view == view->var) u = w;
        }
        if (!u) {
            u = cy_alloc(s->a, sizeof *u);
            u->view = view->var;
            cy_vec_push(s->a, &rc->r->views, u);
        }
        if (write) u->written = 1;
        else u->read = 1;
    }
}

static void region_flag(S *s, int which) {
    if (s->quiet) return;
    for (RegionCtx *rc = s->rctx; rc; rc = rc->outer) {
        IrRegion *r = rc->r;
        switch (which) {
        case 0: r->calls_external = 1; break;
        case 1: r->uses_threadid = 1; break;
        case 2: r->uses_objects = 1; break;
        case 3: r->uses_complex = 1; break;
        case 4: r->has_with_gil = 1; break;
        }
    }
}

/* ---- names ----------------------------------------------------------------- */

/* The dotted name of a special module member: "cython.parallel.prange". */
static const char *qual_of(S *s, ANode *n) {
    if (n->kind == A_NAME) {
        Sym *y = lookup(s, n->name);
        if (y && (y->kind == SY_CMOD || y->kind == SY_CNAME)) return y->qual;
        if (y && y->kind == SY_PYGLOBAL && y->qual) return y->qual;
        return NULL;
    }
    if (n->kind == A_ATTR) {
        const char *q = qual_of(s, n->obj);
        if (q) return cy_fmt(s->a, "%s.%s", q, n->name);
    }
    return NULL;
}

/* qual_of for a dotted name written as one string (a type: "view.array") */
static const char *qual_of_dotted(S *s, const char *name) {
    const char *dot = strchr(name, '.');
    Sym *y = lookup(s, dot ? cy_strndup(s->a, name, (size_t)(dot - name)) : name);
    if (!y || !y->qual || (y->kind != SY_CMOD && y->kind != SY_CNAME)) return NULL;
    return dot ? cy_fmt(s->a, "%s%s", y->qual, dot) : y->qual;
}

/* libc.math.NAME: the table is ir/'s (libm.c), shared with the OpenCL side */
static IrExpr *func_address(S *s, IrFunc *fn, CyPos p);
static ANode *an_name(S *s, const char *name, CyPos p);

static const CyLibm *math_fn(const char *q, int *is_f) {
    *is_f = 0;
    return strncmp(q, "libc.math.", 10) ? NULL : cy_libm(q + 10, is_f);
}

/* A function the user declared from math.h with libc.math's signature
 * (cdef extern from "math.h": double erf(double) nogil). */
static int is_libm_extern(const IrFunc *fn) {
    if (!fn->header || (strcmp(fn->header, "math.h") && strcmp(fn->header, "<math.h>"))) return 0;
    int is_f;
    const CyLibm *m = cy_libm(fn->cname, &is_f);
    if (!m || fn->params.len != m->nargs) return 0;
    TypeKind at = is_f ? TY_FLOAT : m->arg, rt = is_f && m->ret == TY_DOUBLE ? TY_FLOAT : m->ret;
    if (fn->ret->kind != rt) return 0;
    for (int i = 0; i < fn->params.len; i++)
        if (((IrVar *)fn->params.items[i])->ty->kind != (i == 1 && m->arg2 ? m->arg2 : at)) return 0;
    return 1;
}

/* libc.math's constant q names, as the C name (math.pxd's `pi "M_PI"`
 * and `e "M_E"` are Python's spellings of two of them), or NULL. */
static const char *math_const_cname(const char *q) {
    if (strncmp(q, "libc.math.", 10)) return NULL;
    if (!strcmp(q + 10, "pi")) return "M_PI";
    if (!strcmp(q + 10, "e")) return "M_E";
    for (int i = 0; math_consts[i]; i++)
        if (!strcmp(math_consts[i], q + 10)) return math_consts[i];
    return NULL;
}

static int is_math_const(const char *q) { return math_const_cname(q) != NULL; }

/* The C library's other constants, typed as Cython's .pxd files declare
 * them (stdlib.pxd's anonymous enums are int). */
typedef struct {
    const char *mod, *name;
    TypeKind ty;
} CConst;

static const CConst c_consts[] = {
    {"libc.stdlib", "RAND_MAX", TY_INT}, {"libc.stdlib", "EXIT_SUCCESS", TY_INT},
    {"libc.stdlib", "EXIT_FAILURE", TY_INT}, {"libc.time", "CLOCKS_PER_SEC", TY_LONG},
    {"libc.limits", "CHAR_BIT", TY_INT}, {"libc.limits", "CHAR_MIN", TY_CHAR}, {"libc.limits", "CHAR_MAX", TY_CHAR},
    {"libc.limits", "SCHAR_MIN", TY_SCHAR}, {"libc.limits", "SCHAR_MAX", TY_SCHAR},
    {"libc.limits", "UCHAR_MAX", TY_UCHAR}, {"libc.limits", "SHRT_MIN", TY_SHORT}, {"libc.limits", "SHRT_MAX", TY_SHORT},
    {"libc.limits", "USHRT_MAX", TY_USHORT}, {"libc.limits", "INT_MIN", TY_INT}, {"libc.limits", "INT_MAX", TY_INT},
    {"libc.limits", "UINT_MAX", TY_UINT}, {"libc.limits", "LONG_MIN", TY_LONG}, {"libc.limits", "LONG_MAX", TY_LONG},
    {"libc.limits", "ULONG_MAX", TY_ULONG}, {"libc.limits", "LLONG_MIN", TY_LLONG},
    {"libc.limits", "LLONG_MAX", TY_LLONG}, {"libc.limits", "ULLONG_MAX", TY_ULLONG},
    {"libc.float", "FLT_MAX", TY_FLOAT}, {"libc.float", "FLT_MIN", TY_FLOAT}, {"libc.float", "FLT_EPSILON", TY_FLOAT},
    {"libc.float", "DBL_MAX", TY_DOUBLE}, {"libc.float", "DBL_MIN", TY_DOUBLE},
    {"libc.float", "DBL_EPSILON", TY_DOUBLE}, {"libc.float", "FLT_DIG", TY_FLOAT}, {"libc.float", "DBL_DIG", TY_DOUBLE},
    {"libc.float", "FLT_MANT_DIG", TY_FLOAT}, {"libc.float", "DBL_MANT_DIG", TY_DOUBLE},
    {NULL, NULL, TY_VOID},
};

static const CConst *c_const(const char *q) {
    for (int i = 0; q && c_consts[i].mod; i++) {
        size_t l = strlen(c_consts[i].mod);
        if (!strncmp(q, c_consts[i].mod, l) && q[l] == '.' && !strcmp(q + l + 1, c_consts[i].name)) return &c_consts[i];
    }
    return NULL;
}

/* M_PI, DBL_MAX, RAND_MAX ... as an expression, or NULL if q names none. */
static IrExpr *const_expr(S *s, const char *q, CyPos pos) {
    if (!q) return NULL;
    if (is_math_const(q)) {
        IrExpr *e = mk(s, E_CNAME, cy_type_scalar(TY_DOUBLE), pos);
        e->sval = math_const_cname(q);
        return e;
    }
    const CConst *c = c_const(q);
    if (!c) return NULL;
    IrExpr *e = mk(s, E_CNAME, cy_type_scalar(c->ty), pos);
    e->sval = c->name;
    return e;
}

static IrExpr *lower_expr(S *s, ANode *n);
static IrExpr *struct_from_dict(S *s, ANode *d, CyType *t);
static int struct_converts(const CyType *t);
static IrExpr *lower_comp(S *s, ANode *n, int kind);
static IrExpr *lower_comp_next(S *s, ANode *n, int kind, ANode *next_default);

static IrExpr *name_expr(S *s, ANode *n) {
    Sym *y = lookup(s, n->name);
    if (y && (y->kind == SY_VAR || y->kind == SY_PYVAR) && y->var) {
        record_read(s, y->var, n->pos);
        if (y->var->kind == V_PYGLOBAL) {
            if (!need_gil(s, n->pos, "Accessing Python global")) return mk_err(s, n->pos);
            IrExpr *e = mk(s, E_PYGLOBAL, cy_type_scalar(TY_OBJECT), n->pos);
            e->sval = y->var->name;
            return e;
        }
        if (is_obj(y->var->ty) && !need_gil(s, n->pos, "Accessing Python object")) return mk_err(s, n->pos);
        return mk_var(s, y->var, n->pos);
    }
    if (y && y->kind == SY_DEFC) return lower_expr(s, y->defval);
    if (y && y->kind == SY_ENUMC) {
        IrExpr *e = mk_int(s, y->cval, TY_INT, n->pos);
        e->ty = y->ty;
        return e;
    }
    if (y && y->kind == SY_CNAME && y->ty) {
        IrExpr *e = mk(s, E_CNAME, y->ty, n->pos);
        e->sval = y->qual; /* the C name */
        return e;
    }
    if (y && y->kind == SY_CNAME) {
        IrExpr *c = const_expr(s, y->qual, n->pos);
        if (c) return c;
        int is_f;
        const CyLibm *m = math_fn(y->qual, &is_f);
        if (m && m->ret == TY_DOUBLE && m->arg == TY_DOUBLE && !m->arg2) {
            /* a libc.math function as a value: its address (f = sin) */
            CyType *d = cy_type_scalar(is_f ? TY_FLOAT : TY_DOUBLE);
            CyType **args = cy_alloc(s->a, (m->nargs + 1) * sizeof *args);
            for (int i = 0; i < m->nargs; i++) args[i] = d;
            IrExpr *e = mk(s, E_CNAME, cy_type_ptr(s->a, cy_type_func(s->a, d, args, m->nargs)), n->pos);
            e->sval = strrchr(y->qual, '.') + 1;
            return e;
        }
        err(s, n->pos, "'%s' cannot be used as a value here", n->name);
        return mk_err(s, n->pos);
    }
    if (y && y->kind == SY_FUNC) {
        if (y->fn->kind == F_DEF || y->fn->kind == F_CPDEF) {
            if (!need_gil(s, n->pos, "Accessing Python global")) return mk_err(s, n->pos);
            IrExpr *e = mk(s, E_PYGLOBAL, cy_type_scalar(TY_OBJECT), n->pos);
            e->sval = y->fn->name;
            return e;
        }
        return func_address(s, y->fn, n->pos);
    }
    if (y && y->kind == SY_PYGLOBAL) {
        if (!need_gil(s, n->pos, "Accessing Python global")) return mk_err(s, n->pos);
        IrExpr *e = mk(s, E_PYGLOBAL, cy_type_scalar(TY_OBJECT), n->pos);
        e->sval = y->name;
        return e;
    }
    if (y && y->kind == SY_CMOD) {
        err(s, n->pos, "cimported module '%s' cannot be used as a value", n->name);
        return mk_err(s, n->pos);
    }
    if (y && y->kind == SY_TYPE && is_cpdef_enum(s, y->ty)) {
        /* the module's enum class */
        if (!need_gil(s, n->pos, "Accessing Python global")) return mk_err(s, n->pos);
        IrExpr *e = mk(s, E_PYGLOBAL, cy_type_scalar(TY_OBJECT), n->pos);
        e->sval = y->ty->name;
        return e;
    }
    if (y && y->kind == SY_TYPE && y->ty->cls) {
        /* the extension type, which module init put in the module dict */
        if (!need_gil(s, n->pos, "Accessing Python global")) return mk_err(s, n->pos);
        IrExpr *e = mk(s, E_PYGLOBAL, cy_type_scalar(TY_OBJECT), n->pos);
        e->sval = y->ty->cls->name;
        return e;
    }
    if (y && y->kind == SY_TYPE) {
        err(s, n->pos, "type '%s' cannot be used as a value", n->name);
        return mk_err(s, n->pos);
    }
    if (y && y->kind == SY_FUSED) {
        err(s, n->pos, "fused type '%s' used as a value is not supported by cyocl", n->name);
        return mk_err(s, n->pos);
    }
    if (is_py_builtin(n->name)) {
        if (!need_gil(s, n->pos, "Accessing Python builtin")) return mk_err(s, n->pos);
        IrExpr *e = mk(s, E_PYGLOBAL, cy_type_scalar(TY_OBJECT), n->pos);
        e->sval = n->name;
        return e;
    }
    if (!y && !strcmp(n->name, "NULL")) {
        IrExpr *e = mk(s, E_CNAME, cy_type_ptr(s->a, cy_type_scalar(TY_VOID)), n->pos);
        e->sval = "NULL";
        return e;
    }
    err(s, n->pos, "undeclared name not builtin: %s", n->name);
    return mk_err(s, n->pos);
}

/* ---- expressions -------------------------------------------------------------- */

static IrExpr *to_ssize(S *s, IrExpr *e) {
    if (e->ty == TY_ERR) return e;
    if (is_obj(e->ty)) return coerce(s, e, cy_type_scalar(TY_SSIZE));
    if (!cy_type_is_int(e->ty)) {
        err(s, e->pos, "Invalid index type '%s'", e->ty->name);
        return mk_err(s, e->pos);
    }
    if (!e->ty->is_signed && e->ty->kind != TY_BINT) return e; /* unsigned: no wraparound */
    if (e->ty->kind == TY_SSIZE) return e;
    return mk1(s, E_CAST, cy_type_scalar(TY_SSIZE), e->pos, e);
}

/* A cdef (or extern) function used as a value: its address, typed as a
 * pointer to a function of its signature.  Whether it can raise is known
 * only when the module is lowered (compute_raises): check_fn_addrs. */
static IrExpr *func_address(S *s, IrFunc *fn, CyPos p) {
    int ok = (fn->kind == F_CDEF || fn->kind == F_EXTERN) && !fn->fused_specs.len && !is_obj(fn->ret) &&
             !is_view(fn->ret);
    CyType **args = cy_alloc(s->a, (fn->params.len + 1) * sizeof *args);
    for (int i = 0; i < fn->params.len && ok; i++) {
        args[i] = ((IrVar *)fn->params.items[i])->ty;
        ok = !is_obj(args[i]) && !is_view(args[i]);
    }
    if (!ok) {
        err(s, p, "a pointer to function '%s' (a def/cpdef or fused function, or one taking or returning "
                  "Python objects or memoryviews) is not supported by cyocl", fn->name);
        return mk_err(s, p);
    }
    IrExpr *e = mk(s, E_CNAME, cy_type_ptr(s->a, cy_type_func(s->a, fn->ret, args, fn->params.len)), p);
    e->sval = fn->cname;
    if (!s->quiet && fn->kind == F_CDEF) {
        CyPos *pp = cy_alloc(s->a, sizeof *pp);
        *pp = p;
        cy_vec_push(s->a, &s->fn_addrs, fn);
        cy_vec_push(s->a, &s->fn_addrs, pp);
    }
    return e;
}

/* A function called through a pointer is called as plain C: it must not
 * propagate exceptions (Cython's pointer types carry the exception
 * specification; cyocl takes only functions that cannot raise). */
static void check_fn_addrs(S *s) {
    for (int i = 0; i + 1 < s->fn_addrs.len; i += 2) {
        IrFunc *fn = s->fn_addrs.items[i];
        if (fn->can_raise && !fn->noexcept)
            err(s, *(CyPos *)s->fn_addrs.items[i + 1],
                "a pointer to function '%s', which can raise an exception, is not supported by cyocl "
                "(declare it noexcept)", fn->name);
    }
}

/* A literal above 2**63 - 1 that still fits 64 bits, cast to or
 * initialising a C number: a C literal, as in Cython (elsewhere it is a
 * Python int). */
static IrExpr *c_big_literal(S *s, ANode *n, CyType *to) {
    if (n->kind != A_INT || n->int_overflow || n->ival <= (uint64_t)INT64_MAX || n->op) return NULL;
    if (!cy_type_is_int(to) && to->kind != TY_FLOAT && to->kind != TY_DOUBLE && to->kind != TY_LDOUBLE)
        return NULL;
    IrExpr *e = mk_int(s, (int64_t)n->ival, TY_ULONG, n->pos);
    e->sval = "UL"; /* not a plain literal: C keeps its type (c_operand_type) */
    return mk1(s, E_CAST, to, n->pos, e);
}

static CyType *probe_type(S *s, ANode *n) {
    s->quiet++;
    IrExpr *e = lower_expr(s, n);
    s->quiet--;
    return e->ty;
}

static int is_slice_item(ANode *n) { return n->kind == A_SLICE; }

static IrExpr *lower_ssize_opt(S *s, ANode *n) { return n ? to_ssize(s, lower_expr(s, n)) : NULL; }

static IrExpr *view_index(S *s, ANode *n, IrExpr *v) {
    CyType *vt = v->ty;
    int lvalue = s->lvalue; /* only this element is the target, not views read in its indices */
    s->lvalue = 0;
    int nidx = n->items.len, has_slice = 0;
    for (int i = 0; i < nidx; i++) has_slice |= is_slice_item(n->items.items[i]);
    if (nidx > vt->ndim) {
        err(s, ((ANode *)n->items.items[vt->ndim])->pos, "Too many indices specified for memoryview of %d dimension%s",
            vt->ndim, vt->ndim == 1 ? "" : "s");
        return mk_err(s, n->pos);
    }
    if (!has_slice && nidx == vt->ndim) {
        IrExpr *e = mk(s, E_VIEW_ELEM, vt->base, n->pos);
        e->nargs = 1 + nidx;
        e->args = cy_alloc(s->a, e->nargs * sizeof(IrExpr *));
        e->args[0] = v;
        for (int i = 0; i < nidx; i++) e->args[1 + i] = to_ssize(s, lower_expr(s, n->items.items[i]));
        e->boundscheck = s->dir.boundscheck;
        e->wraparound = s->dir.wraparound;
        if (vt->base->kind == TY_CFLOAT || vt->base->kind == TY_CDOUBLE) region_flag(s, 3);
        if (!lvalue) record_view(s, v, 0);
        return e;
    }
    IrExpr *e = mk(s, E_VIEW_SLICE, NULL, n->pos);
    e->nargs = 1;
    e->args = cy_alloc(s->a, sizeof(IrExpr *));
    e->args[0] = v;
    e->slices = cy_alloc(s->a, vt->ndim * sizeof(IrSliceAxis));
    e->boundscheck = s->dir.boundscheck;
    e->wraparound = s->dir.wraparound;
    int kept = 0;
    char axes[CY_MAX_NDIM] = {0};
    int last_kept_src = -1, first_kept_src = -1;
    for (int i = 0; i < vt->ndim; i++) {
        IrSliceAxis *ax = &e->slices[i];
        ANode *it = i < nidx ? n->items.items[i] : NULL;
        if (it && !is_slice_item(it)) {
            ax->is_index = 1;
            ax->start = to_ssize(s, lower_expr(s, it));
            continue;
        }
        if (it) {
            ax->start = lower_ssize_opt(s, it->then);
            ax->stop = lower_ssize_opt(s, it->other);
            ax->step = lower_ssize_opt(s, it->cond);
        }
        if (first_kept_src < 0) first_kept_src = i;
        last_kept_src = i;
        kept++;
    }
    if (kept == 0) {
        /* all axes indexed through a slice-free path is handled above; here
           a trailing Ellipsis-free full index with slices cannot happen */
        err(s, n->pos, "invalid memoryview index");
        return mk_err(s, n->pos);
    }
    /* contiguity survives on the innermost (C) or outermost (Fortran) axis
       when that axis is kept without a step */
    if (vt->axes[vt->ndim - 1] && last_kept_src == vt->ndim - 1 && !e->slices[vt->ndim - 1].step)
        axes[kept - 1] = 1;
    else if (vt->ndim > 1 && vt->axes[0] && first_kept_src == 0 && !e->slices[0].step && kept > 1)
        axes[0] = 1;
    e->ty = cy_type_view(s->a, vt->base, kept, axes, vt->is_const);
    return e;
}

/* The view of a buffer-typed variable named by n, or NULL. */
static IrVar *buf_of(S *s, ANode *n) {
    if (n->kind != A_NAME) return NULL;
    Sym *y = lookup(s, n->name);
    return y && y->kind == SY_VAR ? y->buf : NULL;
}

static IrExpr *index_expr(S *s, ANode *n) {
    /* (only a name's or a call's type is probed: probing a nested a[0][0]...
       at each level would lower it exponentially often) */
    CyType *ct = n->obj->kind == A_NAME || n->obj->kind == A_CALL ? probe_type(s, n->obj) : NULL;
    if (ct && ct->kind == TY_STRUCT && ct->is_ctuple) {
        /* t[0], t[-1] of a ctuple: the field (a constant index, as Cython needs) */
        ANode *ix = n->items.len == 1 ? n->items.items[0] : NULL;
        int neg = ix && ix->kind == A_UNOP && !strcmp(ix->op, "-");
        if (neg) ix = ix->obj;
        if (!ix || ix->kind != A_INT) {
            err(s, n->pos, "a ctuple is indexed by an integer constant (cyocl)");
            return mk_err(s, n->pos);
        }
        long long k = neg ? -(long long)ix->ival : (long long)ix->ival;
        if (k < 0) k += ct->nfields;
        if (k < 0 || k >= ct->nfields) {
            err(s, n->pos, "Index %lld out of bounds for '%s'", neg ? -(long long)ix->ival : (long long)ix->ival,
                ct->name);
            return mk_err(s, n->pos);
        }
        IrExpr *o = lower_expr(s, n->obj);
        if (o->ty == TY_ERR) return o;
        IrExpr *e = mk1(s, E_FIELD, ct->ftypes[k], n->pos, o);
        e->sval = ct->fnames[k];
        return e;
    }
    /* a buffer's a[i, j] with a C integer per axis reads the buffer
       (anything else indexes the ndarray object, as in Cython) */
    IrVar *bv = buf_of(s, n->obj);
    if (bv && n->items.len == bv->ty->ndim) {
        int ints = 1;
        for (int i = 0; i < n->items.len && ints; i++) {
            ANode *it = n->items.items[i];
            ints = !is_slice_item(it) && cy_type_is_int(probe_type(s, it));
        }
        if (ints) {
            record_read(s, bv, n->obj->pos);
            return view_index(s, n, mk_var(s, bv, n->obj->pos));
        }
    }
    if (n->obj->kind == A_ATTR && n->items.len == 1 && !is_slice_item(n->items.items[0]) &&
        (!strcmp(n->obj->name, "shape") || !strcmp(n->obj->name, "strides"))) {
        /* ndarray.shape[k]: npy_intp; a buffer's from its view (no GIL needed) */
        IrVar *sv = buf_of(s, n->obj->obj);
        if (sv) {
            IrExpr *k = to_ssize(s, lower_expr(s, n->items.items[0]));
            record_read(s, sv, n->obj->obj->pos);
            if (k->kind == E_INT && (int64_t)k->ival >= sv->ty->ndim) return mk_int(s, 0, TY_SSIZE, n->pos);
            return mk2(s, n->obj->name[1] == 'h' ? E_VIEW_SHAPE : E_VIEW_STRIDE, cy_type_scalar(TY_SSIZE), n->pos,
                       OP_NONE, mk_var(s, sv, n->obj->obj->pos), k);
        }
        if (is_ndarray(probe_type(s, n->obj->obj))) {
            IrExpr *o = lower_expr(s, n->obj->obj);
            if (o->ty == TY_ERR || !need_gil(s, n->pos, "Accessing Python attribute")) return mk_err(s, n->pos);
            IrExpr *at = mk1(s, E_OBJ_ATTR, cy_type_scalar(TY_OBJECT), n->obj->pos, o);
            at->sval = n->obj->name;
            IrExpr *it = mk2(s, E_OBJ_INDEX, cy_type_scalar(TY_OBJECT), n->pos, OP_NONE, at,
                             box(s, lower_expr(s, n->items.items[0])));
            return coerce(s, it, cy_type_scalar(TY_SSIZE));
        }
    }
    /* view.shape[k] / view.strides[k] */
    if (n->obj->kind == A_ATTR && n->items.len == 1 && !is_slice_item(n->items.items[0]) &&
        (!strcmp(n->obj->name, "shape") || !strcmp(n->obj->name, "strides") ||
         !strcmp(n->obj->name, "suboffsets"))) {
        CyType *ot = probe_type(s, n->obj->obj);
        if (is_view(ot)) {
            IrExpr *v = lower_expr(s, n->obj->obj);
            IrExpr *k = to_ssize(s, lower_expr(s, n->items.items[0]));
            if (!strcmp(n->obj->name, "suboffsets")) return mk_int(s, -1, TY_SSIZE, n->pos);
            if (k->kind == E_INT && (int64_t)k->ival >= v->ty->ndim)
                return mk_int(s, 0, TY_SSIZE, n->pos); /* Cython: unused axes read 0 */
            return mk2(s, !strcmp(n->obj->name, "shape") ? E_VIEW_SHAPE : E_VIEW_STRIDE,
                       cy_type_scalar(TY_SSIZE), n->pos, OP_NONE, v, k);
        }
    }
    IrExpr *o = lower_expr(s, n->obj);
    if (o->ty == TY_ERR) return o;
    if (is_view(o->ty)) return view_index(s, n, o);
    if (o->ty->kind == TY_PTR || o->ty->kind == TY_ARRAY) {
        /* p[i] and v[i]: C indexing, no bounds check or wraparound (as Cython) */
        if (n->items.len != 1) {
            err(s, n->pos, "Invalid index type '(%s)'", n->items.len > 1 ? "long, long" : "");
            return mk_err(s, n->pos);
        }
        ANode *sl = n->items.items[0];
        if (is_slice_item(sl) && !sl->cond && (sl->other || o->ty->kind == TY_ARRAY) && o->ty->base->kind != TY_VOID &&
            (o->ty->kind == TY_PTR || o->ty->base->kind != TY_ARRAY)) {
            /* p[a:b] of a 1-D C array or pointer: a list of the elements, as
               Cython converts it; lowered as [p[k] for k in range(a, b)] */
            ANode *k = cy_alloc(s->a, sizeof *k), *el = cy_alloc(s->a, sizeof *el);
            ANode *rg = cy_alloc(s->a, sizeof *rg), *f = cy_alloc(s->a, sizeof *f), *c = cy_alloc(s->a, sizeof *c);
            k->kind = A_NAME;
            k->pos = n->pos;
            k->name = cy_fmt(s->a, "__cyocl_slice%d", s->ntmp++);
            el->kind = A_INDEX;
            el->pos = n->pos;
            el->obj = n->obj;
            /* k is an object where the loop is lowered as a generator's */
            ANode *ck = cy_alloc(s->a, sizeof *ck);
            ck->kind = A_CAST;
            ck->pos = n->pos;
            ck->obj = k;
            ck->type = cy_alloc(s->a, sizeof *ck->type);
            ck->type->pos = n->pos;
            ck->type->name = "Py_ssize_t";
            cy_vec_push(s->a, &el->items, ck);
            rg->kind = A_CALL;
            rg->pos = n->pos;
            rg->synthetic = 2;
            rg->obj = an_name(s, "range", n->pos);
            ANode *zero = cy_alloc(s->a, sizeof *zero), *len = cy_alloc(s->a, sizeof *len);
            zero->kind = len->kind = A_INT;
            zero->pos = len->pos = n->pos;
            len->ival = o->ty->kind == TY_ARRAY ? (uint64_t)o->ty->alen : 0;
            cy_vec_push(s->a, &rg->items, sl->then ? sl->then : zero);
            cy_vec_push(s->a, &rg->items, sl->other ? sl->other : len);
            f->kind = S_FOR;
            f->pos = n->pos;
            f->lhs = k;
            f->obj = rg;
            c->kind = A_COMP;
            c->pos = n->pos;
            c->op = "list";
            c->then = el;
            cy_vec_push(s->a, &c->items, f);
            return lower_expr(s, c);
        }
        if (is_slice_item(sl)) {
            err(s, n->pos, "slicing a C %s is not supported by cyocl here (only p[a:b], with a stop for a pointer, "
                           "as a Python list)", o->ty->kind == TY_PTR ? "pointer" : "array");
            return mk_err(s, n->pos);
        }
        if (o->ty->kind == TY_PTR && o->ty->base->kind == TY_VOID) {
            err(s, n->pos, "Cannot index a 'void *'");
            return mk_err(s, n->pos);
        }
        IrExpr *i = lower_expr(s, n->items.items[0]);
        if (i->ty != TY_ERR && !cy_type_is_int(i->ty)) {
            err(s, i->pos, "Invalid index type '%s'", i->ty->name);
            return mk_err(s, n->pos);
        }
        return mk2(s, E_PTR_INDEX, o->ty->base, n->pos, OP_NONE, o, i);
    }
    if (is_obj(o->ty)) {
        if (!need_gil(s, n->pos, "Indexing Python object")) return mk_err(s, n->pos);
        IrExpr *key;
        if (n->items.len == 1 && !is_slice_item(n->items.items[0])) {
            key = box(s, lower_expr(s, n->items.items[0]));
        } else {
            IrExpr **ks = cy_alloc(s->a, n->items.len * sizeof(IrExpr *));
            for (int i = 0; i < n->items.len; i++) {
                ANode *it = n->items.items[i];
                if (is_slice_item(it)) {
                    IrExpr *sl = mk(s, E_OBJ_SLICE, cy_type_scalar(TY_OBJECT), it->pos);
                    sl->nargs = 3;
                    sl->args = cy_alloc(s->a, 3 * sizeof(IrExpr *));
                    ANode *parts[3] = {it->then, it->other, it->cond};
                    for (int j = 0; j < 3; j++)
                        sl->args[j] = parts[j] ? box(s, lower_expr(s, parts[j])) : mk(s, E_NONE, cy_type_scalar(TY_OBJECT), it->pos);
                    ks[i] = sl;
                } else {
                    ks[i] = box(s, lower_expr(s, it));
                }
            }
            if (n->items.len == 1) {
                key = ks[0];
            } else {
                key = mk(s, E_TUPLE, cy_type_scalar(TY_OBJECT), n->pos);
                key->args = ks;
                key->nargs = n->items.len;
            }
        }
        return mk2(s, E_OBJ_INDEX, cy_type_scalar(TY_OBJECT), n->pos, OP_NONE, o, key);
    }
    err(s, n->pos, "'%s' object is not subscriptable", o->ty->name);
    return mk_err(s, n->pos);
}

static IrAttr *class_attr(const IrClass *c, const char *name) {
    for (; c; c = c->base)
        for (int i = 0; i < c->attrs.len; i++) {
            IrAttr *at = c->attrs.items[i];
            if (!strcmp(at->name, name)) return at;
        }
    return NULL;
}

/* A method by name, the class's own first, then its bases' (the special
 * ones are each class's own). */
static IrFunc *class_method(const IrClass *c, const char *name) {
    for (int own = 1; c; c = c->base, own = 0)
        for (int i = 0; i < c->methods.len; i++) {
            IrFunc *f = c->methods.items[i];
            if (!strcmp(f->name, name) && (own || (f != c->init && f != c->cinit && f != c->dealloc))) return f;
        }
    return NULL;
}

/* A @staticmethod of c or of a class it derives from. */
static IrFunc *class_static(const IrClass *c, const char *name) {
    for (; c; c = c->base)
        for (int i = 0; i < c->statics.len; i++) {
            IrFunc *f = c->statics.items[i];
            if (!strcmp(f->name, name)) return f;
        }
    return NULL;
}

static int class_derives(const IrClass *c, const IrClass *base) {
    for (; c; c = c->base)
        if (c == base) return 1;
    return 0;
}

/* o.name where o is an instance of a cdef class: its C attribute, or what
 * Python finds (a def method, a public attribute of another instance). */
static IrExpr *slot_of(S *s, ANode *n, IrExpr *o) {
    IrAttr *at = class_attr(o->ty->cls, n->name);
    if (!at) {
        IrFunc *f = class_method(o->ty->cls, n->name);
        if (f && f->kind == F_CDEF) {
            err(s, n->pos, "cdef method '%s' of '%s' used other than called is not supported by cyocl", n->name,
                o->ty->cls->name);
            return mk_err(s, n->pos);
        }
        if (!need_gil(s, n->pos, "Accessing Python attribute")) return mk_err(s, n->pos);
        IrExpr *e = mk1(s, E_OBJ_ATTR, cy_type_scalar(TY_OBJECT), n->pos, o);
        e->sval = n->name;
        return e;
    }
    if (is_obj(at->ty) && !need_gil(s, n->pos, "Accessing Python attribute")) return mk_err(s, n->pos);
    if (s->rctx && at->ty->kind == TY_ARRAY) {
        err(s, n->pos, "the C array attribute '%s' of a cdef class inside a parallel region is not supported by "
                       "cyocl (copy it to a local array before the region)", n->name);
        return mk_err(s, n->pos);
    }
    if (s->rctx) {
        err(s, n->pos, "attribute '%s' of a cdef class instance inside a parallel region is supported by cyocl only "
                       "as name.%s of a variable (self.%s)", n->name, n->name, n->name);
        return mk_err(s, n->pos);
    }
    IrExpr *e = mk1(s, E_SLOT, at->ty, n->pos, o);
    e->sval = at->name;
    e->ival = is_view(at->ty) && s->dir.initializedcheck;
    return e;
}

static IrExpr *attr_expr(S *s, ANode *n) {
    if (n->obj->kind == A_NAME) {
        Sym *y = lookup(s, n->obj->name);
        if (y && y->kind == SY_VAR && y->var && y->var->ty->cls) {
            /* self.x: reading the field needs no GIL (Cython's nogil methods do it) */
            for (int i = s->hoists.len - 1; i >= 0; i--) {
                Hoist *h = s->hoists.items[i];
                if (h->obj == y->var && !strcmp(h->attr, n->name)) {
                    if (!h->local) return mk_err(s, n->pos);
                    record_read(s, h->local, n->pos);
                    return mk_var(s, h->local, n->pos);
                }
            }
            record_read(s, y->var, n->obj->pos);
            return slot_of(s, n, mk_var(s, y->var, n->obj->pos));
        }
        if (y && (y->kind == SY_CMOD || y->kind == SY_CNAME)) {
            const char *q = qual_of(s, n);
            IrExpr *c = const_expr(s, q, n->pos);
            if (c) return c;
            if (q && !strcmp(q, "cython.NULL")) {
                c = mk(s, E_CNAME, cy_type_ptr(s->a, cy_type_scalar(TY_VOID)), n->pos);
                c->sval = "NULL";
                return c;
            }
            err(s, n->pos, "'%s' cannot be used as a value here", q ? q : n->name);
            return mk_err(s, n->pos);
        }
        if (y && y->kind == SY_TYPE && y->ty->is_enum && y->ty->name) {
            /* Color.GREEN: the enumerator (Cython 3's scoped access) */
            Sym *m = lookup_in(s->mscope, n->name);
            if (m && m->kind == SY_ENUMC && m->ty->name && !strcmp(m->ty->name, y->ty->name)) {
                IrExpr *e = mk_int(s, m->cval, TY_INT, n->pos);
                e->ty = m->ty;
                return e;
            }
            err(s, n->pos, "%s not a known value of %s", n->name, y->ty->name);
            return mk_err(s, n->pos);
        }
    }
    if (is_numpy_capi(qual_of(s, n))) {
        err(s, n->pos, "'%s' (numpy's C API) is not supported by cyocl", qual_of(s, n));
        return mk_err(s, n->pos);
    }
    IrExpr *o = lower_expr(s, n->obj);
    if (o->ty == TY_ERR) return o;
    if (o->ty->cls) return slot_of(s, n, o);
    if (o->ty->kind == TY_PTR && o->ty->base->kind == TY_STRUCT) o = mk1(s, E_DEREF, o->ty->base, o->pos, o);
    if (o->ty->kind == TY_STRUCT) {
        /* p.x, and pp.x through a pointer, as Cython writes both */
        int i = struct_field(o->ty, n->name);
        if (i < 0) {
            /* Cython converts the struct to a dict and looks the attribute up there */
            err(s, n->pos, "attribute '%s' of struct '%s' (not a field) is not supported by cyocl", n->name, o->ty->name);
            return mk_err(s, n->pos);
        }
        IrExpr *e = mk1(s, E_FIELD, o->ty->ftypes[i], n->pos, o);
        e->sval = o->ty->fnames[i];
        return e;
    }
    if (is_ndarray(o->ty)) {
        /* the C fields of numpy's ndarray declaration (numpy/__init__.pxd) */
        const char *a = n->name;
        if (!strcmp(a, "shape") || !strcmp(a, "strides")) {
            err(s, n->pos, "Cannot convert 'npy_intp *' to Python object");
            return mk_err(s, n->pos);
        }
        IrVar *bv = !strcmp(a, "data") ? buf_of(s, n->obj) : NULL;
        if (bv) {
            /* a buffer's data: the address of its first element (PyArray_DATA),
               as a char *, valid while the variable holds the buffer */
            ANode *ix = cy_alloc(s->a, sizeof *ix);
            ix->kind = A_INDEX;
            ix->pos = n->pos;
            ix->obj = n->obj;
            for (int k = 0; k < bv->ty->ndim; k++) {
                ANode *z = cy_alloc(s->a, sizeof *z);
                z->kind = A_INT;
                z->pos = n->pos;
                cy_vec_push(s->a, &ix->items, z);
            }
            Directives saved = s->dir;
            s->dir.boundscheck = s->dir.wraparound = 0;
            IrExpr *el = lower_expr(s, ix);
            s->dir = saved;
            if (el->ty == TY_ERR) return el;
            IrExpr *p = mk1(s, E_ADDR, cy_type_ptr(s->a, el->ty), n->pos, el);
            return mk1(s, E_CAST, cy_type_ptr(s->a, cy_type_scalar(TY_CHAR)), n->pos, p);
        }
        if (!strcmp(a, "data") || !strcmp(a, "descr") || !strcmp(a, "base")) {
            err(s, n->pos, "the C field 'ndarray.%s' is not supported by cyocl (for 'data': only of a buffer "
                           "variable, np.ndarray[double, ndim=1] a)", a);
            return mk_err(s, n->pos);
        }
        if (!strcmp(a, "ndim")) {
            if (is_buffer(o->ty)) return mk_int(s, o->ty->base->ndim, TY_INT, n->pos);
            if (!need_gil(s, n->pos, "Accessing Python attribute")) return mk_err(s, n->pos);
            IrExpr *e = mk1(s, E_OBJ_ATTR, cy_type_scalar(TY_OBJECT), n->pos, o);
            e->sval = a;
            return coerce(s, e, cy_type_scalar(TY_INT));
        }
    }
    if (is_view(o->ty)) {
        const char *a = n->name;
        if (!strcmp(a, "ndim")) return mk_int(s, o->ty->ndim, TY_INT, n->pos);
        if (!strcmp(a, "shape") || !strcmp(a, "strides")) {
            if (!need_gil(s, n->pos, "Converting memoryview shape to a Python tuple")) return mk_err(s, n->pos);
            IrExpr *t = mk(s, E_TUPLE, cy_type_scalar(TY_OBJECT), n->pos);
            t->nargs = o->ty->ndim;
            t->args = cy_alloc(s->a, t->nargs * sizeof(IrExpr *));
            for (int i = 0; i < t->nargs; i++)
                t->args[i] = box(s, mk2(s, a[1] == 'h' ? E_VIEW_SHAPE : E_VIEW_STRIDE, cy_type_scalar(TY_SSIZE), n->pos,
                                        OP_NONE, o, mk_int(s, i, TY_SSIZE, n->pos)));
            return t;
        }
        if (!strcmp(a, "size") || !strcmp(a, "nbytes")) {
            IrExpr *r = NULL;
            for (int i = 0; i < o->ty->ndim; i++) {
                IrExpr *d = mk2(s, E_VIEW_SHAPE, cy_type_scalar(TY_SSIZE), n->pos, OP_NONE, o, mk_int(s, i, TY_SSIZE, n->pos));
                r = r ? mk2(s, E_BINOP, cy_type_scalar(TY_SSIZE), n->pos, OP_MUL, r, d) : d;
            }
            if (a[0] == 'n')
                r = mk2(s, E_BINOP, cy_type_scalar(TY_SSIZE), n->pos, OP_MUL, r, mk_int(s, o->ty->base->size, TY_SSIZE, n->pos));
            return r;
        }
        if (!strcmp(a, "itemsize")) return mk_int(s, o->ty->base->size, TY_SSIZE, n->pos);
        if (!strcmp(a, "base")) {
            /* Cython: the object the view's buffer came from, for a slice too */
            if (!need_gil(s, n->pos, "Accessing memoryview base")) return mk_err(s, n->pos);
            IrExpr *b = mk1(s, E_OBJ_FROM_VIEW, cy_type_scalar(TY_OBJECT), n->pos, o);
            b->ival = 1;
            return b;
        }
        if (!strcmp(a, "T")) {
            /* Cython's transpose: the axes reversed, a C-contiguous view
               becoming a Fortran-contiguous one */
            char ax[CY_MAX_NDIM] = {0};
            for (int i = 0; i < o->ty->ndim; i++) ax[i] = o->ty->axes[o->ty->ndim - 1 - i];
            return mk1(s, E_VIEW_T, cy_type_view(s->a, o->ty->base, o->ty->ndim, ax, o->ty->is_const), n->pos, o);
        }
        if (!strcmp(a, "copy")) {
            err(s, n->pos, "memoryview attribute 'copy' other than called (v.copy()) is not supported by cyocl");
            return mk_err(s, n->pos);
        }
        err(s, n->pos, "memoryview has no attribute '%s'", a);
        return mk_err(s, n->pos);
    }
    if (cy_type_is_complex(o->ty) && (!strcmp(n->name, "real") || !strcmp(n->name, "imag"))) {
        int f = o->ty->kind == TY_CFLOAT;
        IrExpr *e = mk1(s, E_CALL_C, cy_type_scalar(f ? TY_FLOAT : TY_DOUBLE), n->pos, o);
        e->sval = n->name[0] == 'r' ? (f ? "crealf" : "creal") : (f ? "cimagf" : "cimag");
        return e;
    }
    if (is_obj(o->ty)) {
        if (!need_gil(s, n->pos, "Accessing Python attribute")) return mk_err(s, n->pos);
        IrExpr *e = mk1(s, E_OBJ_ATTR, cy_type_scalar(TY_OBJECT), n->pos, o);
        e->sval = n->name;
        return e;
    }
    err(s, n->pos, "Object of type '%s' has no attribute '%s'", o->ty->name, n->name);
    return mk_err(s, n->pos);
}

static IrExpr *py_call(S *s, ANode *n, IrExpr *callee) {
    if (callee->ty == TY_ERR) return callee;
    if (!is_obj(callee->ty)) {
        err(s, n->pos, "'%s' object is not callable", callee->ty->name);
        return mk_err(s, n->pos);
    }
    IrExpr *e = mk(s, E_OBJ_CALL, cy_type_scalar(TY_OBJECT), n->pos);
    e->nargs = 1 + n->items.len;
    e->args = cy_alloc(s->a, e->nargs * sizeof(IrExpr *));
    e->args[0] = callee;
    for (int i = 0; i < n->items.len; i++) {
        ANode *a = n->items.items[i];
        if (a->kind == A_STARRED) /* *it: unpacked by the call */
            e->args[1 + i] = mk1(s, E_STARRED, cy_type_scalar(TY_OBJECT), a->pos, box(s, lower_expr(s, a->obj)));
        else
            e->args[1 + i] = box(s, lower_expr(s, a));
    }
    e->nkw = n->kwnames.len;
    e->kwnames = cy_alloc(s->a, (e->nkw + 1) * sizeof(char *));
    e->kwargs = cy_alloc(s->a, (e->nkw + 1) * sizeof(IrExpr *));
    for (int i = 0; i < e->nkw; i++) {
        const char *kn = n->kwnames.items[i];
        e->kwnames[i] = strcmp(kn, "**") ? kn : NULL; /* NULL: **mapping */
        e->kwargs[i] = box(s, lower_expr(s, n->values.items[i]));
    }
    region_flag(s, 2);
    return e;
}

static IrFunc *fused_select(S *s, ANode *n, IrFunc *g);
static IrFunc *fused_index(S *s, ANode *idx, IrFunc *g);
static int fused_test(S *s, ANode *n, int *val);

static IrExpr *func_call(S *s, ANode *n, IrFunc *fn) {
    if (fn->fused_specs.len && fn->kind != F_DEF && !(fn = fused_select(s, n, fn))) return mk_err(s, n->pos);
    if (fn->kind == F_DEF) {
        if (!need_gil(s, n->pos, "Calling gil-requiring function")) return mk_err(s, n->pos);
        IrExpr *callee = mk(s, E_PYGLOBAL, cy_type_scalar(TY_OBJECT), n->pos);
        callee->sval = fn->name;
        return py_call(s, n, callee);
    }
    if (s->nogil && !fn->is_nogil && !fn->with_gil) {
        err(s, n->pos, "Calling gil-requiring function not allowed without gil");
        return mk_err(s, n->pos);
    }
    int np = fn->params.len, given = n->items.len + n->kwnames.len;
    IrExpr **args = cy_alloc(s->a, (np + 1) * sizeof(IrExpr *));
    int bad = n->items.len > np;
    for (int i = 0; i < n->kwnames.len && !bad; i++) {
        const char *kw = n->kwnames.items[i];
        int j;
        for (j = 0; j < np; j++)
            if (!strcmp(((IrVar *)fn->params.items[j])->name, kw)) break;
        if (j == np) {
            err(s, *(CyPos *)n->kwpos.items[i], "%s() got an unexpected keyword argument '%s'", fn->name, kw);
            return mk_err(s, n->pos);
        }
        if (j < n->items.len || args[j]) {
            err(s, *(CyPos *)n->kwpos.items[i], "%s() got multiple values for argument '%s'", fn->name, kw);
            return mk_err(s, n->pos);
        }
        args[j] = (IrExpr *)(intptr_t)(i + 1); /* placeholder: keyword i */
    }
    int nreq = 0;
    for (int j = 0; j < np; j++)
        if (!fn->param_defaults.items[j]) nreq = j + 1;
    if (fn->kind == F_DEF && fn->npos < np && n->items.len > fn->npos) {
        err(s, n->pos, "%s() takes at most %d positional argument%s (%d given)", fn->name, fn->npos,
            fn->npos == 1 ? "" : "s", n->items.len);
        return mk_err(s, n->pos);
    }
    for (int j = 0; j < np && !bad; j++)
        if (j >= n->items.len && !args[j] && !fn->param_defaults.items[j]) bad = 1;
    if (bad) {
        if (nreq == np)
            err(s, n->pos, "Call with wrong number of arguments (expected %d, got %d)", np, given);
        else
            err(s, n->pos, "Call with wrong number of arguments (expected %d to %d, got %d)", nreq, np, given);
        return mk_err(s, n->pos);
    }
    for (int j = 0; j < np; j++) {
        IrVar *p = fn->params.items[j];
        IrExpr *a;
        if (j < n->items.len) a = lower_expr(s, n->items.items[j]);
        else if (args[j]) a = lower_expr(s, n->values.items[(intptr_t)args[j] - 1]);
        else a = fn->param_defaults.items[j];
        args[j] = coerce(s, a, p->ty);
    }
    IrExpr *e = mk(s, fn->kind == F_EXTERN ? E_CALL_C : E_CALL, fn->ret, n->pos);
    e->fn = fn;
    e->sval = fn->cname;
    e->args = args;
    e->nargs = np;
    if (fn->kind == F_EXTERN && is_libm_extern(fn)) {
        /* the C library's function, as libc.math's: OpenCL C has it too */
        e->fn = NULL;
        s->m->uses_math = 1;
    } else if (fn->kind == F_EXTERN) {
        region_flag(s, 0);
        if (s->fn) s->fn->calls_external = 1;
    }
    if (fn == s->fn) fn->is_recursive = 1;
    return e;
}

static IrExpr *arith(S *s, CyPos p, IrOp op, IrExpr *l, IrExpr *r);
static CyType *c_arith(const IrExpr *l, const IrExpr *r);
static IrExpr *libc_call(S *s, ANode *n, const LibcFn *f);

static IrExpr *builtin_call(S *s, ANode *n, const char *name, int *handled) {
    *handled = 1;
    int na = n->items.len;
    if (n->kwnames.len) goto python;
    if (!strcmp(name, "len") && na == 1 && is_view(probe_type(s, n->items.items[0]))) {
        IrExpr *v = lower_expr(s, n->items.items[0]);
        return mk2(s, E_VIEW_SHAPE, cy_type_scalar(TY_SSIZE), n->pos, OP_NONE, v, mk_int(s, 0, TY_SSIZE, n->pos));
    }
    if (!strcmp(name, "len") && na == 1 && is_char_ptr(probe_type(s, n->items.items[0]))) {
        /* Cython: strlen(), a size_t */
        IrExpr *e = mk1(s, E_CALL_C, cy_type_scalar(TY_SIZE), n->pos, lower_expr(s, n->items.items[0]));
        e->sval = "strlen";
        return e;
    }
    if ((!strcmp(name, "abs") || !strcmp(name, "int") || !strcmp(name, "float") || !strcmp(name, "bool")) && na == 1) {
        CyType *t = probe_type(s, n->items.items[0]);
        /* Cython's C abs() takes exactly int, long, long long and the
           unsigned ones; any other C integer (short, int32_t, Py_ssize_t)
           goes through a Python int, so abs(INT32_MIN) is 2147483648 (and
           is an error without the GIL, where cyocl computes it in C) */
        if (name[0] == 'a' && cy_type_is_int(t) && t->kind != TY_BINT && !s->nogil) {
            TypeKind k = t->kind;
            int exact = (k == TY_INT || k == TY_LONG || k == TY_LLONG || k == TY_UINT || k == TY_ULONG ||
                         k == TY_ULLONG) && t->name && !strcmp(t->name, cy_type_scalar(k)->name);
            if (!exact) goto python;
        }
        if (is_cnum(t)) {
            IrExpr *a = lower_expr(s, n->items.items[0]);
            if (name[0] == 'a') {
                IrExpr *e;
                if (cy_type_is_complex(t)) {
                    e = mk1(s, E_CALL_C, cy_type_scalar(t->kind == TY_CFLOAT ? TY_FLOAT : TY_DOUBLE), n->pos, a);
                    e->sval = t->kind == TY_CFLOAT ? "cabsf" : "cabs";
                } else {
                    e = mk1(s, E_CALL_C, cy_type_is_int(t) && t->kind != TY_BINT ? t : cy_type_arith(t, t), n->pos, a);
                    e->sval = "cyrt_abs";
                }
                return e;
            }
            if (cy_type_is_complex(t)) goto python;
            if (name[0] == 'i' && cy_type_is_float(t) && !s->nogil) {
                /* Cython: int() of a C float is a Python int, exact beyond
                   64 bits (PyLong_FromDouble: int(1e20) is 10**20, NaN a
                   ValueError); only where it goes straight to a C integer
                   is it the C cast (coerce undoes the box) */
                IrExpr *e = mk1(s, E_BOX, cy_type_scalar(TY_OBJECT), n->pos, a);
                e->sval = "PyLong_FromDouble";
                return e;
            }
            TypeKind k = name[0] == 'i' ? (cy_type_is_int(t) && t->kind != TY_BINT ? t->kind : TY_LONG)
                         : name[0] == 'f' ? TY_DOUBLE : TY_BINT;
            if (k == TY_BINT) return mk2(s, E_CMP, cy_type_scalar(TY_BINT), n->pos, OP_NE, a,
                                         coerce(s, mk_int(s, 0, TY_LONG, n->pos), a->ty));
            return coerce(s, a, cy_type_scalar(k));
        }
    }
    if ((!strcmp(name, "min") || !strcmp(name, "max")) && na >= 2) {
        int all = 1;
        for (int i = 0; i < na; i++) {
            CyType *t = probe_type(s, n->items.items[i]);
            if (!is_cnum(t) || cy_type_is_complex(t)) all = 0;
        }
        if (all) {
            /* Cython: `b < a ? b : a` compared in C (usual conversions),
               the result held in the spanning type (cy_type_span) */
            /* Cython (Optimize.py _optimise_min_max) evaluates the 2nd ..
               last arguments into temporaries, then the 1st: where two may
               raise, the backends follow that order (IrExpr.order) */
            IrExpr **arg = cy_alloc(s->a, (size_t)na * sizeof *arg);
            for (int i = 0; i < na; i++) {
                arg[i] = enum_held(s, as_held(s, lower_expr(s, n->items.items[i])));
                /* coerce() rebuilds these: keep a node of its own in the tree */
                if (arg[i]->kind == E_COND || arg[i]->kind == E_VAND || arg[i]->kind == E_VOR)
                    arg[i] = mk1(s, E_CAST, arg[i]->ty, arg[i]->pos, arg[i]);
            }
            IrExpr *acc = arg[0], *top = NULL;
            for (int i = 1; i < na; i++) {
                IrExpr *b = arg[i];
                CyType *t = c_arith(acc, b);
                CyType *span = cy_type_span(acc->ty, b->ty);
                top = mk2(s, E_MINMAX, t, n->pos, name[1] == 'i' ? OP_MIN : OP_MAX, coerce(s, acc, t),
                          coerce(s, b, t));
                acc = coerce(s, top, span);
            }
            if (top) {
                top->order = cy_alloc(s->a, (size_t)na * sizeof *top->order);
                for (int i = 1; i < na; i++) top->order[i - 1] = arg[i];
                top->order[na - 1] = arg[0];
                top->norder = na;
            }
            return acc;
        }
    }
python:
    if (!need_gil(s, n->pos, "Calling gil-requiring function")) return mk_err(s, n->pos);
    IrExpr *callee = mk(s, E_PYGLOBAL, cy_type_scalar(TY_OBJECT), n->obj->pos);
    callee->sval = name;
    return py_call(s, n, callee);
}

static ANode *an(S *s, ANodeKind k, CyPos p);


/* cython.view.array(shape=(a, b), itemsize=sizeof(T), format="d"[, mode="c"]):
 * a fresh C-contiguous buffer of that shape and format, here Python's
 * memoryview(bytearray(a * b * itemsize)).cast(format, shape) (zeroed, where
 * Cython's is uninitialised; the Python object is a memoryview, not a
 * cython.view.array). */
static IrExpr *view_array(S *s, ANode *n) {
    ANode *shape = NULL, *itemsize = NULL, *format = NULL;
    int fortran = 0;
    ANode *pos[3] = {0};
    for (int i = 0; i < n->items.len && i < 3; i++) pos[i] = n->items.items[i];
    shape = pos[0], itemsize = pos[1], format = pos[2];
    if (n->items.len > 3) goto unsupported;
    for (int i = 0; i < n->kwnames.len; i++) {
        const char *kw = n->kwnames.items[i];
        ANode *v = n->values.items[i];
        if (!strcmp(kw, "shape")) shape = v;
        else if (!strcmp(kw, "itemsize")) itemsize = v;
        else if (!strcmp(kw, "format")) format = v;
        else if (!strcmp(kw, "mode") && v->kind == A_STR && !strcmp(v->sval, "c")) continue;
        else if (!strcmp(kw, "mode") && v->kind == A_STR && !strcmp(v->sval, "fortran")) fortran = 1;
        else goto unsupported;
    }
    CyType *dtype = NULL;
    if (fortran) {
        /* a C-ordered buffer of the reversed shape, transposed: Fortran
           order, as a typed view and as an object */
        for (int k = TY_SCHAR; k <= TY_DOUBLE && format && format->kind == A_STR && !format->is_bytes; k++)
            if (struct_format((TypeKind)k) && !strcmp(struct_format((TypeKind)k), format->sval)) {
                dtype = cy_type_scalar((TypeKind)k);
                break;
            }
        if (!dtype || !shape || shape->kind != A_TUPLE || shape->items.len > CY_MAX_NDIM) goto unsupported;
    }
    if (!shape || !itemsize || !format || shape->kind != A_TUPLE || !shape->items.len) goto unsupported;
    ANode *size = itemsize;
    for (int i = 0; i < shape->items.len; i++) {
        ANode *m = an(s, A_BINOP, n->pos);
        m->op = "*";
        m->lhs = shape->items.items[i];
        m->rhs = size;
        size = m;
    }
    ANode *ba = an(s, A_CALL, n->pos), *mv = an(s, A_CALL, n->pos), *cast = an(s, A_CALL, n->pos);
    ba->obj = an(s, A_NAME, n->pos);
    ba->obj->name = "bytearray";
    cy_vec_push(s->a, &ba->items, size);
    mv->obj = an(s, A_NAME, n->pos);
    mv->obj->name = "memoryview";
    cy_vec_push(s->a, &mv->items, ba);
    cast->obj = an(s, A_ATTR, n->pos);
    cast->obj->obj = mv;
    cast->obj->name = "cast";
    cy_vec_push(s->a, &cast->items, format);
    if (!fortran) {
        cy_vec_push(s->a, &cast->items, shape);
        return lower_expr(s, cast);
    }
    int nd = shape->items.len;
    ANode *rev = an(s, A_TUPLE, shape->pos);
    for (int i = nd - 1; i >= 0; i--) cy_vec_push(s->a, &rev->items, shape->items.items[i]);
    cy_vec_push(s->a, &cast->items, rev);
    IrExpr *o = lower_expr(s, cast);
    if (o->ty == TY_ERR) return o;
    char ax[CY_MAX_NDIM] = {0};
    ax[nd - 1] = 1;
    IrExpr *cv = mk1(s, E_VIEW_FROM_OBJ, cy_type_view(s->a, dtype, nd, ax, 0), n->pos, o);
    memset(ax, 0, sizeof ax);
    ax[0] = 1;
    IrExpr *fv = mk1(s, E_VIEW_T, cy_type_view(s->a, dtype, nd, ax, 0), n->pos, cv);
    return mk1(s, E_OBJ_FROM_VIEW, cy_type_scalar(TY_OBJECT), n->pos, fv);
unsupported:
    err(s, n->pos, "cython.view.array is supported by cyocl as array(shape=(...), itemsize=..., format=...[, mode='c' or "
                   "'fortran' with a literal numeric format]) only");
    return mk_err(s, n->pos);
}

/* view.copy(): a C-contiguous copy of the elements, here Python's
 * memoryview(bytearray(memoryview(v).tobytes())).cast(FORMAT, v.shape) (the
 * bytes in C order, read back as the view's dtype); assigned to a typed
 * memoryview it is acquired as such. */
static int has_call(const ANode *n);
static IrExpr *view_copy_of(S *s, ANode *v, ANode *n);
static IrExpr *view_copy(S *s, ANode *n) { return view_copy_of(s, n->obj->obj, n); }
/* v's copy; n: where (its pos) */
static IrExpr *view_copy_of(S *s, ANode *v, ANode *n) {
    CyType *t = probe_type(s, v);
    const char *fmt = struct_format(t->base->kind);
    if (!fmt) {
        err(s, n->pos, "copy() of a memoryview of '%s' is not supported by cyocl", t->base->name);
        return mk_err(s, n->pos);
    }
    ANode *mv0 = an(s, A_CALL, n->pos), *tb = an(s, A_CALL, n->pos), *ba = an(s, A_CALL, n->pos);
    ANode *mv1 = an(s, A_CALL, n->pos), *cast = an(s, A_CALL, n->pos), *shape = an(s, A_TUPLE, n->pos);
    mv0->obj = an_name(s, "memoryview", n->pos);
    cy_vec_push(s->a, &mv0->items, v);
    tb->obj = an(s, A_ATTR, n->pos);
    tb->obj->obj = mv0;
    tb->obj->name = "tobytes";
    ba->obj = an_name(s, "bytearray", n->pos);
    cy_vec_push(s->a, &ba->items, tb);
    mv1->obj = an_name(s, "memoryview", n->pos);
    cy_vec_push(s->a, &mv1->items, ba);
    cast->obj = an(s, A_ATTR, n->pos);
    cast->obj->obj = mv1;
    cast->obj->name = "cast";
    ANode *fs = an(s, A_STR, n->pos);
    fs->sval = fmt;
    fs->slen = 1;
    cy_vec_push(s->a, &cast->items, fs);
    for (int k = 0; k < t->ndim; k++) {
        ANode *sh = an(s, A_ATTR, n->pos), *ix = an(s, A_INDEX, n->pos), *kk = an(s, A_INT, n->pos);
        sh->obj = v;
        sh->name = "shape";
        kk->ival = (uint64_t)k;
        ix->obj = sh;
        cy_vec_push(s->a, &ix->items, kk);
        cy_vec_push(s->a, &shape->items, ix);
    }
    cy_vec_push(s->a, &cast->items, shape);
    return lower_expr(s, cast);
}

/* A struct value from one expression per field (NULL: zero, as the C
 * initialiser leaves it); the values are evaluated in the order given. */
static IrExpr *struct_lit(S *s, CyType *t, ANode **vals, CyPos p) {
    IrExpr *e = mk(s, E_STRUCT_LIT, t, p);
    e->nargs = t->nfields;
    e->args = cy_alloc(s->a, (size_t)(t->nfields + 1) * sizeof *e->args);
    for (int k = 0; k < t->nfields; k++) {
        IrExpr *v = vals[k] ? coerce(s, lower_expr(s, vals[k]), t->ftypes[k]) : NULL;
        if (v && v->ty == TY_ERR) return v;
        if (!v) {
            if (t->ftypes[k]->kind == TY_ARRAY || t->ftypes[k]->kind == TY_STRUCT) {
                v = mk(s, E_STRUCT_LIT, t->ftypes[k], p); /* {0} */
                if (t->ftypes[k]->kind == TY_ARRAY) {
                    err(s, p, "a struct value without its array field '%s' is not supported by cyocl", t->fnames[k]);
                    return mk_err(s, p);
                }
            } else {
                v = coerce(s, mk_int(s, 0, TY_INT, p), t->ftypes[k]);
            }
        }
        e->args[k] = v;
    }
    return e;
}

/* Point(1.0, y=2.0): Cython's struct constructor. */
static IrExpr *struct_call(S *s, ANode *n, CyType *t) {
    ANode **vals = cy_alloc(s->a, (size_t)(t->nfields + 1) * sizeof *vals);
    if (n->items.len > t->nfields) {
        err(s, n->pos, "more arguments than struct '%s' has fields (%d) is not supported by cyocl", t->name, t->nfields);
        return mk_err(s, n->pos);
    }
    for (int k = 0; k < n->items.len; k++) vals[k] = n->items.items[k];
    for (int k = 0; k < n->kwnames.len; k++) {
        int i = struct_field(t, n->kwnames.items[k]);
        CyPos kp = *(CyPos *)n->kwpos.items[k];
        if (i < 0) {
            err(s, kp, "struct '%s' has no field '%s'", t->name, (const char *)n->kwnames.items[k]);
            return mk_err(s, n->pos);
        }
        if (vals[i]) {
            err(s, kp, "argument '%s' given twice", (const char *)n->kwnames.items[k]);
            return mk_err(s, n->pos);
        }
        vals[i] = n->values.items[k];
    }
    for (int k = 0; k < t->nfields; k++)
        if (!vals[k]) warn(s, n->pos, "Not all members given for struct '%s'", t->name);
    return struct_lit(s, t, vals, n->pos);
}

/* (a, b) where a ctuple is wanted: its items in order, each converted. */
static IrExpr *ctuple_from_display(S *s, ANode *d, CyType *t) {
    if (d->items.len != t->nfields) {
        err(s, d->pos, "Cannot assign a tuple of %d items to '%s'", d->items.len, t->name);
        return mk_err(s, d->pos);
    }
    return struct_lit(s, t, (ANode **)d->items.items, d->pos);
}

/* The value of v for a destination of type t: a dict or tuple display
 * builds a struct or ctuple in C (no Python object in between). */
static IrExpr *lower_for_type(S *s, ANode *v, CyType *t) {
    if (t && t->kind == TY_STRUCT && t->is_ctuple && v->kind == A_TUPLE) return ctuple_from_display(s, v, t);
    if (t && t->kind == TY_STRUCT && !t->is_ctuple && v->kind == A_DICT) return struct_from_dict(s, v, t);
    return lower_expr(s, v);
}

/* {'x': 1.0, 'y': 2.0} where a struct is wanted (Cython's DictNode.coerce_to). */
static IrExpr *struct_from_dict(S *s, ANode *d, CyType *t) {
    ANode **vals = cy_alloc(s->a, (size_t)(t->nfields + 1) * sizeof *vals);
    for (int k = 0; k < d->items.len; k++) {
        ANode *key = d->items.items[k];
        if (!key || key->kind != A_STR || key->is_bytes || key->is_fstring) {
            err(s, key ? key->pos : d->pos, "Invalid struct field identifier");
            return mk_err(s, d->pos);
        }
        int i = struct_field(t, key->sval);
        if (i < 0) {
            err(s, key->pos, "struct '%s' has no field '%s'", t->name, key->sval);
            return mk_err(s, d->pos);
        }
        vals[i] = d->values.items[k];
    }
    for (int k = 0; k < t->nfields; k++)
        if (!vals[k]) {
            warn(s, d->pos, "Not all members given for struct '%s'", t->name);
            break;
        }
    return struct_lit(s, t, vals, d->pos);
}

static struct Flat *flat_of(S *s, IrFunc *m);

static IrFunc *declare_function(S *s, AFunc *af, int is_extern);

/* lambda: a def of its own, whose function object the module
 * makes once at import (Cython's lambda is a closure; cyocl's reads only
 * its arguments and module globals, so one object serves every
 * evaluation). */
/* ---- lambdas and nested defs: function objects made where they are evaluated ---- */

static void each_walrus(ANode *n, void (*f)(void *, ANode *), void *ctx);

typedef struct {
    S *s;
    CyVec *out;
} NameAcc;

static void push_name(S *s, CyVec *out, const char *name) {
    for (int i = 0; i < out->len; i++)
        if (!strcmp(out->items[i], name)) return;
    cy_vec_push(s->a, out, (void *)name);
}

static void target_names(S *s, ANode *t, CyVec *out) {
    if (!t) return;
    if (t->kind == A_NAME) push_name(s, out, t->name);
    else if (t->kind == A_STARRED) target_names(s, t->obj, out);
    else if (t->kind == A_TUPLE || t->kind == A_LIST)
        for (int i = 0; i < t->items.len; i++) target_names(s, t->items.items[i], out);
}

static void walrus_acc(void *ctx, ANode *w) {
    NameAcc *na = ctx;
    push_name(na->s, na->out, w->lhs->name);
}

/* The names statement n binds in its function (Python's rule for what is
 * local), through its blocks; also the names comprehensions and lambdas in
 * it bind for themselves (approximately: they are not read from outside). */
static void bound_names(S *s, ANode *n, CyVec *out) {
    if (!n) return;
    NameAcc na = {s, out};
    switch (n->kind) {
    case S_ASSIGN:
        for (int i = 0; i < n->targets.len; i++) target_names(s, n->targets.items[i], out);
        break;
    case S_AUGASSIGN: target_names(s, n->lhs, out); break;
    case S_FOR: target_names(s, n->targets.len ? n->targets.items[0] : n->lhs, out); break;
    case S_DEL:
        for (int i = 0; i < n->targets.len; i++) target_names(s, n->targets.items[i], out);
        break;
    case S_CDEF:
        for (int i = 0; i < n->names.len; i++) push_name(s, out, n->names.items[i]);
        break;
    case S_EXCEPT:
        if (n->name) push_name(s, out, n->name);
        break;
    case S_FUNC: push_name(s, out, n->func->name); return;
    case S_IMPORT:
        if (n->aliases.len && n->aliases.items[0]) push_name(s, out, n->aliases.items[0]);
        else if (n->module) {
            const char *dot = strchr(n->module, '.');
            push_name(s, out, dot ? cy_strndup(s->a, n->module, (size_t)(dot - n->module)) : n->module);
        }
        break;
    case S_FROMIMPORT:
        for (int i = 0; !n->is_cimport && i < n->names.len; i++)
            push_name(s, out, n->aliases.items[i] ? n->aliases.items[i] : n->names.items[i]);
        break;
    default: break;
    }
    if (n->kind != S_FUNC && n->kind != S_CDEF_CLASS) each_walrus(n, walrus_acc, &na);
    CyVec *bl[] = {&n->body, &n->orelse, &n->tryelse, &n->handlers};
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < bl[k]->len; i++) bound_names(s, bl[k]->items[i], out);
}

/* The names expression or statement n reads (A_NAME nodes, first of each),
 * through blocks, comprehensions, lambdas and nested defs; the names
 * comprehensions and lambdas bind are added to own. */
static void read_names(S *s, ANode *n, CyVec *out, CyVec *own) {
    if (!n) return;
    if (n->kind == A_NAME) {
        for (int i = 0; i < out->len; i++)
            if (!strcmp(((ANode *)out->items[i])->name, n->name)) return;
        cy_vec_push(s->a, out, n);
        return;
    }
    if (n->kind == A_LAMBDA || n->kind == S_FUNC) {
        AFunc *f = n->func;
        for (int i = 0; i < f->params.len; i++) {
            AParam *ap = f->params.items[i];
            if (n->kind == A_LAMBDA) push_name(s, own, ap->name);
            read_names(s, ap->deflt, out, own);
        }
        CyVec inner = {0};
        for (int i = 0; i < f->params.len; i++) push_name(s, &inner, ((AParam *)f->params.items[i])->name);
        for (int i = 0; i < f->body.len; i++) bound_names(s, f->body.items[i], &inner);
        CyVec rd = {0};
        for (int i = 0; i < f->body.len; i++) read_names(s, f->body.items[i], &rd, own);
        for (int i = 0; i < rd.len; i++) {
            ANode *x = rd.items[i];
            int mine = 0;
            for (int k = 0; k < inner.len && !mine; k++) mine = !strcmp(inner.items[k], x->name);
            if (!mine) read_names(s, x, out, own);
        }
        return;
    }
    if (n->kind == A_COMP)
        for (int i = 0; i < n->items.len; i++) {
            ANode *c = n->items.items[i];
            if (c->kind == S_FOR) target_names(s, c->lhs, own);
        }
    ANode *kids[] = {n->obj, n->lhs, n->rhs, n->cond, n->then, n->other, n->value};
    for (int i = 0; i < 7; i++) read_names(s, kids[i], out, own);
    CyVec *vs[] = {&n->items, &n->values, &n->targets, &n->inits, &n->body, &n->orelse, &n->tryelse, &n->handlers};
    for (int k = 0; k < 8; k++)
        for (int i = 0; i < vs[k]->len; i++) read_names(s, vs[k]->items[i], out, own);
    for (int i = 0; i < n->with_items.len; i++) read_names(s, ((AWithItem *)n->with_items.items[i])->expr, out, own);
}


/* A function object copies the value of a variable of the enclosing function
 * it reads when it is made; that is Python's (which reads it when called)
 * where the variable cannot change after: every statement of the function's
 * own block that assigns it (anywhere inside: a branch, a loop) comes before
 * the one the function object is made in, which runs once, after them.
 * Returns NULL, or why not. */
static const char *capture_why_not(S *s, const char *name, Sym *y, CyPos at) {
    if (!y->var || !s->fscope || lookup_in(s->fscope, name) != y || (y->var->kind != V_PARAM && y->var->kind != V_LOCAL))
        return "it is not a variable of the enclosing function's own block (a comprehension's?)";
    CyType *t = y->var->ty;
    if (!(is_obj(t) || is_cnum(t) || is_view(t)) || t->kind == TY_LDOUBLE)
        return cy_fmt(s->a, "a closure over a variable of type '%s' is not supported", t->name);
    CyVec *body = s->fbody;
    int here_at = -1; /* the statement the function object is made in */
    for (int i = 0; body && i < body->len; i++)
        if (!cy_pos_before(s->d, at, ((ANode *)body->items[i])->pos)) here_at = i;
    for (int i = 0; body && i < body->len; i++) {
        CyVec b = {0};
        ANode *st = body->items[i];
        bound_names(s, st, &b);
        int here = 0;
        for (int k = 0; k < b.len; k++) here += !strcmp(b.items[k], name);
        if (here && st->kind == S_CDEF) {
            /* a declaration without a value assigns nothing */
            here = 0;
            for (int k = 0; k < st->names.len; k++)
                here += !strcmp(st->names.items[k], name) && st->inits.items[k];
        }
        if (here && i >= here_at)
            return i == here_at ? "the statement that makes the function object assigns it too (in a loop?)"
                                : "the enclosing function assigns it after the function object is made";
    }
    return NULL;
}

/* ---- nonlocal: the variable becomes a cell (a one-item list) ---------------- */

static int vec_has_name(CyVec *v, const char *name) {
    for (int i = 0; i < v->len; i++)
        if (!strcmp(v->items[i], name)) return 1;
    return 0;
}

/* Whether function f declares `nonlocal name` in its own block. */
static int declares_nonlocal(ANode *n, const char *name) {
    if (!n) return 0;
    if (n->kind == S_NONLOCAL) return vec_has_name(&n->names, name);
    if (n->kind == S_FUNC || n->kind == A_LAMBDA) return 0;
    CyVec *bl[] = {&n->body, &n->orelse, &n->tryelse, &n->handlers};
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < bl[k]->len; i++)
            if (declares_nonlocal(bl[k]->items[i], name)) return 1;
    return 0;
}

/* Rewrites each use of name in n (reads and assignment targets) to cell[0],
 * into nested functions and lambdas that do not bind the name themselves
 * (or that declare it nonlocal). */
static void cell_rewrite(S *s, ANode *n, const char *name, const char *cell) {
    if (!n) return;
    if (n->kind == A_NAME) {
        if (strcmp(n->name, name)) return;
        ANode *c = an(s, A_NAME, n->pos);
        c->name = cell;
        ANode *zero = an(s, A_INT, n->pos);
        zero->int_text = "0";
        n->kind = A_INDEX;
        n->name = NULL;
        n->obj = c;
        n->items = (CyVec){0};
        cy_vec_push(s->a, &n->items, zero);
        return;
    }
    if (n->kind == S_FUNC || n->kind == A_LAMBDA) {
        AFunc *f = n->func;
        for (int i = 0; i < f->params.len; i++) cell_rewrite(s, ((AParam *)f->params.items[i])->deflt, name, cell);
        CyVec own = {0};
        for (int i = 0; i < f->params.len; i++) cy_vec_push(s->a, &own, (void *)((AParam *)f->params.items[i])->name);
        for (int i = 0; i < f->body.len; i++) bound_names(s, f->body.items[i], &own);
        int nl = 0;
        for (int i = 0; i < f->body.len && !nl; i++) nl = declares_nonlocal(f->body.items[i], name);
        if (vec_has_name(&own, name) && !nl) return;
        for (int i = 0; i < f->body.len; i++) cell_rewrite(s, f->body.items[i], name, cell);
        return;
    }
    ANode *kids[] = {n->obj, n->lhs, n->rhs, n->cond, n->then, n->other, n->value};
    for (int i = 0; i < 7; i++) cell_rewrite(s, kids[i], name, cell);
    CyVec *vs[] = {&n->items, &n->values, &n->targets, &n->inits, &n->body, &n->orelse, &n->tryelse, &n->handlers};
    for (int k = 0; k < 8; k++)
        for (int i = 0; i < vs[k]->len; i++) cell_rewrite(s, vs[k]->items[i], name, cell);
    for (int i = 0; i < n->with_items.len; i++) cell_rewrite(s, ((AWithItem *)n->with_items.items[i])->expr, name, cell);
}

/* A way statement n (not inside nested functions) binds name that a cell
 * cannot stand in for, or NULL. */
static ANode *cell_refused(S *s, ANode *n, const char *name, const char **how) {
    if (!n || n->kind == S_FUNC || n->kind == A_LAMBDA) {
        if (n && n->kind == S_FUNC && !strcmp(n->func->name, name)) return *how = "a def of that name", n;
        return NULL;
    }
    CyVec b = {0};
    switch (n->kind) {
    case S_FOR: /* a comprehension's clause has its target in lhs */
        target_names(s, n->targets.len ? n->targets.items[0] : n->lhs, &b);
        *how = n->targets.len ? "a for loop's target" : "a comprehension's variable";
        break;
    case S_CDEF:
        for (int i = 0; i < n->names.len; i++) cy_vec_push(s->a, &b, n->names.items[i]);
        *how = "a cdef declaration";
        break;
    case S_DEL: for (int i = 0; i < n->targets.len; i++) target_names(s, n->targets.items[i], &b); *how = "del"; break;
    case S_EXCEPT: if (n->name) cy_vec_push(s->a, &b, (void *)n->name); *how = "except ... as"; break;
    case S_IMPORT: case S_FROMIMPORT: bound_names(s, n, &b); *how = "an import"; break;
    case A_WALRUS: if (!strcmp(n->lhs->name, name)) return *how = "an assignment expression", n; break;
    case A_COMP:
        for (int i = 0; i < n->items.len; i++) {
            ANode *c = n->items.items[i];
            if (c->kind == S_FOR) target_names(s, c->lhs, &b);
        }
        *how = "a comprehension's variable";
        break;
    default: break;
    }
    if (vec_has_name(&b, name)) return n;
    ANode *kids[] = {n->obj, n->lhs, n->rhs, n->cond, n->then, n->other, n->value};
    for (int i = 0; i < 7; i++) {
        ANode *r = cell_refused(s, kids[i], name, how);
        if (r) return r;
    }
    CyVec *vs[] = {&n->items, &n->values, &n->targets, &n->inits, &n->body, &n->orelse, &n->tryelse, &n->handlers};
    for (int k = 0; k < 8; k++)
        for (int i = 0; i < vs[k]->len; i++) {
            ANode *r = cell_refused(s, vs[k]->items[i], name, how);
            if (r) return r;
        }
    return NULL;
}

/* The nested defs directly in block-statement n (not inside another). */
static void nested_defs(S *s, ANode *n, CyVec *out) {
    if (!n) return;
    if (n->kind == S_FUNC) {
        cy_vec_push(s->a, out, n);
        return;
    }
    CyVec *bl[] = {&n->body, &n->orelse, &n->tryelse, &n->handlers};
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < bl[k]->len; i++) nested_defs(s, bl[k]->items[i], out);
}

static void nonlocal_stmts(S *s, ANode *n, CyVec *out) {
    if (!n || n->kind == S_FUNC) return;
    if (n->kind == S_NONLOCAL) cy_vec_push(s->a, out, n);
    CyVec *bl[] = {&n->body, &n->orelse, &n->tryelse, &n->handlers};
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < bl[k]->len; i++) nonlocal_stmts(s, bl[k]->items[i], out);
}

/* `nonlocal x` in a def nested in function af: x, a variable of af, becomes
 * a cell, cy_cell_x = [x] (or [None]) first in af, every use of x in af and
 * in its nested functions cy_cell_x[0]; the nested functions read the cell,
 * which never changes, as a closure. */
static void make_cells(S *s, AFunc *af) {
    CyVec defs = {0};
    for (int i = 0; i < af->body.len; i++) nested_defs(s, af->body.items[i], &defs);
    CyVec done = {0};
    for (int d = 0; d < defs.len; d++) {
        AFunc *df = ((ANode *)defs.items[d])->func;
        CyVec nls = {0};
        for (int i = 0; i < df->body.len; i++) nonlocal_stmts(s, df->body.items[i], &nls);
        for (int k = 0; k < nls.len; k++) {
            ANode *nl = nls.items[k];
            for (int j = 0; j < nl->names.len; j++) {
                const char *x = nl->names.items[j];
                CyPos p = *(CyPos *)nl->name_pos.items[j];
                int param = 0;
                for (int i = 0; i < af->params.len; i++) param |= !strcmp(((AParam *)af->params.items[i])->name, x);
                CyVec own = {0};
                for (int i = 0; i < af->body.len; i++) bound_names(s, af->body.items[i], &own);
                if (!param && !vec_has_name(&own, x)) {
                    err(s, p, "no binding for nonlocal '%s' found (cyocl: it must be a variable of the function "
                              "directly around)", x);
                    continue;
                }
                if (vec_has_name(&done, x)) continue;
                const char *how = "";
                ANode *bad = NULL;
                for (int i = 0; i < af->body.len && !bad; i++) bad = cell_refused(s, af->body.items[i], x, &how);
                if (bad) {
                    err(s, bad->pos, "nonlocal '%s' bound by %s is not supported by cyocl", x, how);
                    continue;
                }
                cy_vec_push(s->a, &done, (void *)x);
                const char *cell = cy_fmt(s->a, "cy_cell_%s", x);
                for (int i = 0; i < af->body.len; i++) cell_rewrite(s, af->body.items[i], x, cell);
                ANode *lst = an(s, A_LIST, af->pos);
                ANode *v = an(s, param ? A_NAME : A_NONE, af->pos);
                v->name = param ? x : NULL;
                cy_vec_push(s->a, &lst->items, v);
                ANode *tg = an(s, A_NAME, af->pos);
                tg->name = cell;
                ANode *as = an(s, S_ASSIGN, af->pos);
                cy_vec_push(s->a, &as->targets, tg);
                as->value = lst;
                cy_vec_push(s->a, &af->body, NULL);
                memmove(af->body.items + 1, af->body.items, sizeof(void *) * (size_t)(af->body.len - 1));
                af->body.items[0] = as;
            }
            nl->kind = S_PASS;
        }
    }
}

static int const_default_node(ANode *d) {
    if (d && d->kind == A_UNOP && !strcmp(d->op, "-")) d = d->obj;
    return d && (d->kind == A_NONE || d->kind == A_TRUE || d->kind == A_FALSE || d->kind == A_INT ||
                 d->kind == A_FLOAT || (d->kind == A_STR && !d->is_fstring));
}

/* The function object of a lambda or of a def nested in a function.  A
 * default that is not a constant is evaluated here, and each variable of
 * the enclosing function the body reads (a closure) is copied here: the
 * object is made each time with those values (Cython makes a closure). */
static IrExpr *make_function(S *s, AFunc *af, CyPos pos, const char *what) {
    CyVec cargs = {0}; /* IrExpr*: the values the object carries */
    int np0 = af->params.len;
    intptr_t *dyn = cy_alloc(s->a, (size_t)(np0 + 1) * sizeof *dyn);
    ANode **saved = cy_alloc(s->a, (size_t)(np0 + 1) * sizeof *saved);
    for (int i = 0; i < np0; i++) {
        AParam *ap = af->params.items[i];
        saved[i] = ap->deflt;
        if (!ap->deflt || const_default_node(ap->deflt)) continue;
        if (ap->type) {
            err(s, ap->deflt->pos, "a default value that is not a constant for the typed argument '%s' of a %s is not "
                                   "supported by cyocl", ap->name, what);
            return mk_err(s, pos);
        }
        IrExpr *v = lower_expr(s, ap->deflt);
        if (v->ty == TY_ERR) return v;
        cy_vec_push(s->a, &cargs, coerce(s, v, cy_type_scalar(TY_OBJECT)));
        dyn[i] = cargs.len;
    }
    CyVec caps = {0}; /* IrVar* of the enclosing function, in order */
    int self_item = 0;
    if (s->fn) {
        CyVec own = {0}, reads = {0};
        for (int i = 0; i < np0; i++) push_name(s, &own, ((AParam *)af->params.items[i])->name);
        for (int i = 0; i < af->body.len; i++) bound_names(s, af->body.items[i], &own);
        for (int i = 0; i < af->body.len; i++) read_names(s, af->body.items[i], &reads, &own);
        for (int i = 0; i < reads.len; i++) {
            ANode *x = reads.items[i];
            int mine = 0;
            for (int k = 0; k < own.len && !mine; k++) mine = !strcmp(own.items[k], x->name);
            if (mine) continue;
            Sym *y = lookup(s, x->name);
            if (!y || y == lookup_in(s->mscope, x->name) || (y->kind != SY_VAR && y->kind != SY_PYVAR)) continue;
            if (!strcmp(what, "nested def") && !strcmp(x->name, af->name) && !self_item) {
                /* def fact(k): ... fact(k - 1): its own name is the object being made */
                cy_vec_push(s->a, &cargs, mk(s, E_NONE, cy_type_scalar(TY_OBJECT), pos));
                cy_vec_push(s->a, &caps, y->var);
                self_item = cargs.len;
                continue;
            }
            const char *why = capture_why_not(s, x->name, y, pos);
            if (why) {
                err(s, x->pos, "a %s that uses the enclosing function's variable '%s' (a closure) is not supported by "
                               "cyocl here: %s (cyocl copies the value when the function object is made)",
                    what, x->name, why);
                return mk_err(s, pos);
            }
            ANode nm = *x;
            IrExpr *v = lower_expr(s, &nm);
            if (v->ty == TY_ERR) return v;
            cy_vec_push(s->a, &cargs, coerce(s, v, cy_type_scalar(TY_OBJECT)));
            cy_vec_push(s->a, &caps, y->var);
        }
    }
    if (!need_gil(s, pos, "Creating a Python function")) return mk_err(s, pos);
    ANode none = {.kind = A_NONE, .pos = pos};
    for (int i = 0; i < np0; i++)
        if (dyn[i]) ((AParam *)af->params.items[i])->deflt = &none;
    IrFunc *saved_fn = s->fn;
    IrFunc *fn = declare_function(s, af, 0);
    s->fn = saved_fn;
    for (int i = 0; i < np0; i++) ((AParam *)af->params.items[i])->deflt = saved[i];
    fn->is_lambda = 1;
    fn->cname = cy_fmt(s->a, "cy_lam%d", s->ntmp++);
    if (cargs.len) {
        fn->is_dynfunc = 1;
        fn->self_item = self_item;
        for (int i = 0; i < np0; i++) cy_vec_push(s->a, &fn->param_dyn, (void *)dyn[i]);
        for (int k = 0; k < caps.len; k++) {
            IrVar *ov = caps.items[k];
            IrVar *p = new_var(s, ov->name, ov->ty, V_PARAM, pos);
            cy_vec_push(s->a, &fn->params, p);
            cy_vec_push(s->a, &fn->param_defaults, mk(s, E_NONE, cy_type_scalar(TY_OBJECT), pos));
            cy_vec_push(s->a, &fn->param_not_none, (void *)(intptr_t)0);
            cy_vec_push(s->a, &fn->param_dyn, (void *)(intptr_t) - (cargs.len - caps.len + k + 1));
        }
    }
    cy_vec_push(s->a, &s->m->funcs, fn);
    cy_vec_push(s->a, &s->lambdas, af);
    cy_vec_push(s->a, &s->lambdas, fn);
    IrExpr *f = mk(s, E_CNAME, cy_type_scalar(TY_OBJECT), pos);
    f->sval = cy_fmt(s->a, "%s_obj", fn->cname);
    if (!cargs.len) return f;
    IrExpr *c = mk(s, E_OBJ_CALL, cy_type_scalar(TY_OBJECT), pos);
    c->nargs = cargs.len + 1;
    c->args = cy_alloc(s->a, (size_t)c->nargs * sizeof(IrExpr *));
    c->args[0] = f;
    for (int i = 0; i < cargs.len; i++) c->args[i + 1] = cargs.items[i];
    return c;
}

static IrExpr *lower_lambda(S *s, ANode *n) { return make_function(s, n->func, n->pos, "lambda"); }

/* f(*args, **kwargs) anywhere in a call: only Python's call does it. */
static int call_unpacks(const ANode *n) {
    for (int i = 0; i < n->items.len; i++)
        if (((ANode *)n->items.items[i])->kind == A_STARRED) return 1;
    for (int i = 0; i < n->kwnames.len; i++)
        if (!strcmp(n->kwnames.items[i], "**")) return 1;
    return 0;
}

static IrExpr *call_expr(S *s, ANode *n) {
    ANode *f = n->obj;
    if (f->kind == A_ATTR && is_user_mod(s, f->obj)) {
        /* h.f(...) of `cimport helpers as h`: f(...) */
        if (!user_mod_has(s, f->obj, f->name, f->pos)) return mk_err(s, n->pos);
        ANode *c = an(s, A_CALL, n->pos);
        *c = *n;
        c->obj = an(s, A_NAME, f->pos);
        c->obj->name = f->name;
        return call_expr(s, c);
    }
    if (call_unpacks(n)) {
        Sym *fy = f->kind == A_NAME ? lookup(s, f->name) : NULL;
        if (fy && fy->kind == SY_FUNC && fy->fn->kind != F_DEF) {
            err(s, n->pos, "argument unpacking ('*', '**') in a call of the C function '%s' is not supported by cyocl",
                f->name);
            return mk_err(s, n->pos);
        }
        if (!need_gil(s, n->pos, "Calling gil-requiring function")) return mk_err(s, n->pos);
        IrExpr *callee;
        if (fy && fy->kind == SY_FUNC) {
            callee = mk(s, E_PYGLOBAL, cy_type_scalar(TY_OBJECT), n->pos);
            callee->sval = fy->fn->name;
        } else {
            callee = box(s, lower_expr(s, f));
        }
        return py_call(s, n, callee);
    }
    if (f->kind == A_NAME || f->kind == A_INDEX || f->kind == A_ATTR) {
        Sym *fy = f->kind == A_NAME ? lookup(s, f->name) : NULL;
        CyType *ft = (f->kind == A_NAME && (!fy || fy->kind == SY_FUNC || fy->kind == SY_CNAME)) ? NULL
                     : f->kind != A_NAME && !has_call(f) ? probe_type(s, f) : f->kind == A_NAME ? probe_type(s, f) : NULL;
        if (ft && ft->kind == TY_PTR && ft->base->kind == TY_FUNC && ft->base->base) {
            /* a call through a C function pointer */
            CyType *fn = ft->base;
            if (n->kwnames.len || n->items.len != fn->nfields) {
                err(s, n->pos, "Call with wrong number of arguments (expected %d, got %d)", fn->nfields,
                    n->items.len + n->kwnames.len);
                return mk_err(s, n->pos);
            }
            IrExpr *e = mk(s, E_CALL_PTR, fn->base, n->pos);
            e->nargs = 1 + n->items.len;
            e->args = cy_alloc(s->a, e->nargs * sizeof(IrExpr *));
            e->args[0] = lower_expr(s, f);
            for (int i = 0; i < n->items.len; i++)
                e->args[1 + i] = coerce(s, lower_expr(s, n->items.items[i]), fn->ftypes[i]);
            return e;
        }
    }
    if (is_numpy_capi(qual_of(s, f))) {
        err(s, n->pos, "%s() (numpy's C API) is not supported by cyocl", qual_of(s, f));
        return mk_err(s, n->pos);
    }
    if (is_numpy_init(qual_of(s, f))) {
        /* numpy's C API is never used by the generated code: nothing to import */
        if (n->items.len || n->kwnames.len) {
            err(s, n->pos, "Call with wrong number of arguments (expected 0, got %d)", n->items.len + n->kwnames.len);
            return mk_err(s, n->pos);
        }
        return mk_int(s, 0, TY_INT, n->pos);
    }
    Sym *head = f->kind == A_NAME ? lookup(s, f->name) : NULL;
    if (n->items.len && ((ANode *)n->items.items[0])->kind == A_COMP && !strcmp(((ANode *)n->items.items[0])->op, "generator")) {
        /* Cython inlines any()/all()/list()/set() of a generator expression
           as loops; the other builtins that consume all of it get it as a list */
        ANode *g = n->items.items[0];
        const char *bn = f->kind == A_NAME && !head ? f->name : "";
        static const char *const whole[] = {"sum", "min", "max", "tuple", "sorted", "frozenset", "dict", NULL};
        int one = n->items.len == 1 && !n->kwnames.len;
        if (one && (!strcmp(bn, "any") || !strcmp(bn, "all"))) return lower_comp(s, g, bn[1] == 'n' ? 'a' : 'A');
        if (one && (!strcmp(bn, "list") || !strcmp(bn, "set"))) return lower_comp(s, g, bn[0]);
        if (!strcmp(bn, "next") && !n->kwnames.len && n->items.len <= 2) {
            /* the first value only: a loop that stops there, as the generator would */
            ANode *d = n->items.len == 2 ? n->items.items[1] : NULL;
            if (d && !(d->kind == A_NONE || d->kind == A_INT || d->kind == A_FLOAT || d->kind == A_STR ||
                       d->kind == A_TRUE || d->kind == A_FALSE)) {
                err(s, d->pos, "a default of next() of a generator expression that is not a constant is "
                               "not supported by cyocl");
                return mk_err(s, n->pos);
            }
            return lower_comp_next(s, g, 'n', d);
        }
        for (int i = 0; whole[i]; i++)
            if (!strcmp(bn, whole[i])) g->synthetic = 'l';
        if (f->kind == A_ATTR && f->obj->kind == A_STR && !f->obj->is_bytes && !strcmp(f->name, "join") && one)
            g->synthetic = 'l';
    }
    const char *q = NULL;
    if ((f->kind == A_NAME && head && (head->kind == SY_CNAME || head->kind == SY_CMOD)) ||
        (f->kind == A_ATTR && f->obj->kind == A_NAME)) {
        Sym *h = f->kind == A_NAME ? head : lookup(s, f->obj->name);
        if (h && (h->kind == SY_CNAME || h->kind == SY_CMOD)) q = qual_of(s, f);
    }
    if (f->kind == A_ATTR && f->obj->kind == A_ATTR && !q) {
        const char *qq = qual_of(s, f);
        if (qq && (!strncmp(qq, "cython.", 7) || !strncmp(qq, "libc.", 5))) q = qq;
    }
    if (q && !strcmp(q, "cython.view.array")) return view_array(s, n);
    if (f->kind == A_ATTR && !strcmp(f->name, "copy") && !n->items.len && !n->kwnames.len && !has_call(f->obj) &&
        is_view(probe_type(s, f->obj)))
        return view_copy(s, n);
    if (f->kind == A_ATTR && !strcmp(f->name, "conjugate") && !n->items.len && !n->kwnames.len &&
        !has_call(f->obj) && cy_type_is_complex(probe_type(s, f->obj))) {
        /* Cython's C complex method: the parts as they are, the imaginary one negated */
        IrExpr *o = lower_expr(s, f->obj);
        IrExpr *e = mk1(s, E_CALL_C, o->ty, n->pos, o);
        e->sval = o->ty->kind == TY_CFLOAT ? "conjf" : "conj";
        return e;
    }
    if (q) {
        int is_f;
        const CyLibm *m = math_fn(q, &is_f);
        if (m) {
            if (n->items.len != m->nargs || n->kwnames.len) {
                err(s, n->pos, "Call with wrong number of arguments (expected %d, got %d)", m->nargs,
                    n->items.len + n->kwnames.len);
                return mk_err(s, n->pos);
            }
            CyType *at = cy_type_scalar(is_f ? TY_FLOAT : m->arg);
            /* signbit is C's type-generic macro, which Cython calls on the
               argument as it is: a float stays a float (its value differs) */
            if (!strcmp(m->name, "signbit") && n->items.len == 1 && probe_type(s, n->items.items[0])->kind == TY_FLOAT)
                at = cy_type_scalar(TY_FLOAT);
            IrExpr *e = mk(s, E_CALL_C, cy_type_scalar(is_f && m->ret == TY_DOUBLE ? TY_FLOAT : m->ret), n->pos);
            e->sval = cy_strdup(s->a, strrchr(q, '.') + 1);
            e->nargs = m->nargs;
            e->args = cy_alloc(s->a, m->nargs * sizeof(IrExpr *));
            for (int i = 0; i < m->nargs; i++) {
                IrExpr *a = lower_expr(s, n->items.items[i]);
                if (a->ty != TY_ERR && cy_type_is_complex(a->ty)) {
                    err(s, a->pos, "Cannot pass '%s' to %s()", a->ty->name, e->sval);
                    return mk_err(s, n->pos);
                }
                if (a->ty != TY_ERR && is_obj(a->ty) && !need_gil(s, a->pos, "Converting Python object"))
                    return mk_err(s, n->pos);
                e->args[i] = coerce(s, a, i == 1 && m->arg2 ? cy_type_scalar(m->arg2) : at);
            }
            s->m->uses_math = 1;
            return e;
        }
        const LibcFn *lf = libc_fn(q);
        if (lf) return libc_call(s, n, lf);
        if ((!strcmp(q, "cython.address") || !strcmp(q, "cython.operator.dereference")) && n->items.len == 1 &&
            !n->kwnames.len) {
            /* cython.address(x) is &x, dereference(p) is p[0] */
            ANode *u = cy_alloc(s->a, sizeof *u);
            u->kind = q[7] == 'a' ? A_ADDR : A_DEREF;
            u->pos = n->pos;
            u->obj = n->items.items[0];
            return lower_expr(s, u);
        }
        if (!strncmp(q, "cython.operator.", 16) && strstr(q, "crement")) {
            err(s, n->pos, "%s() used as a value is not supported by cyocl (as a statement it is)", q + 16);
            return mk_err(s, n->pos);
        }
        if (!strcmp(q, "cython.parallel.threadid")) {
            region_flag(s, 1);
            return mk(s, E_THREADID, cy_type_scalar(TY_INT), n->pos);
        }
        if (!strcmp(q, "cython.parallel.prange")) {
            err(s, n->pos, "prange() can only be used as part of a for loop");
            return mk_err(s, n->pos);
        }
        if (!strcmp(q, "cython.parallel.parallel")) {
            err(s, n->pos, "parallel() can only be used in a with statement");
            return mk_err(s, n->pos);
        }
        err(s, n->pos, "%s() is not supported", q);
        return mk_err(s, n->pos);
    }
    if (f->kind == A_INDEX && f->obj->kind == A_NAME) {
        Sym *y = lookup(s, f->obj->name);
        if (y && y->kind == SY_FUNC && y->fn->fused_specs.len && y->fn->kind == F_DEF) {
            /* a def function's f[...] is Python's subscript (f["double"]), as in
               Cython, where a C type name there is an undeclared Python name */
            for (int k = 0; k < f->items.len; k++) {
                ANode *t = f->items.items[k];
                if (t->kind == A_NAME && scalar_by_name(s, t->name)) {
                    err(s, t->pos, "undeclared name not builtin: %s", t->name);
                    return mk_err(s, n->pos);
                }
            }
        } else if (y && y->kind == SY_FUNC && y->fn->fused_specs.len) {
            IrFunc *sp = fused_index(s, f, y->fn);
            return sp ? func_call(s, n, sp) : mk_err(s, n->pos);
        }
    }
    if (f->kind == A_ATTR && f->obj->kind == A_NAME) {
        /* Cls.f(...) of a cdef @staticmethod: a direct C call (a def one is
           Python's attribute of the type) */
        Sym *cy = lookup(s, f->obj->name);
        IrFunc *sf = cy && cy->kind == SY_TYPE && cy->ty->cls ? class_static(cy->ty->cls, f->name) : NULL;
        if (sf && sf->kind != F_DEF) return func_call(s, n, sf);
    }
    if (f->kind == A_ATTR && (f->obj->kind == A_NAME || !has_call(f->obj))) {
        /* obj.m(...) of a cdef/cpdef method: a C call with obj first (a def
           method is looked up as Python does) */
        Sym *sy = f->obj->kind == A_NAME ? lookup(s, f->obj->name) : NULL;
        int self = sy && sy->kind == SY_VAR && sy->var && sy->var->ty->cls;
        CyType *ot = self ? sy->var->ty : probe_type(s, f->obj);
        IrFunc *mf = ot->cls ? class_method(ot->cls, f->name) : NULL;
        Flat *fl = self && s->rctx && mf && mf->kind != F_DEF ? flat_of(s, mf) : NULL;
        if (fl) {
            /* in a parallel region: its flat version, with the attributes it reads */
            ANode *c = an(s, A_CALL, n->pos);
            *c = *n;
            c->items = (CyVec){0};
            for (int i = 0; i < fl->attrs.len; i++) {
                IrAttr *at = fl->attrs.items[i];
                IrVar *lv = NULL;
                for (int k = 0; k < s->hoists.len; k++) {
                    Hoist *h = s->hoists.items[k];
                    if (h->obj == sy->var && !strcmp(h->attr, at->name)) lv = h->local;
                }
                if (!lv) {
                    fl = NULL;
                    break;
                }
                record_read(s, lv, n->pos);
                ANode *arg = an(s, A_IR, n->pos);
                arg->ir = mk_var(s, lv, n->pos);
                cy_vec_push(s->a, &c->items, arg);
            }
            for (int i = 0; fl && i < n->items.len; i++) cy_vec_push(s->a, &c->items, n->items.items[i]);
            if (fl) return func_call(s, c, fl->fn);
        }
        if (mf && mf->kind != F_DEF) {
            /* self.f() in a nogil method passes self on, as Cython does */
            IrExpr *o = self ? mk_var(s, sy->var, f->obj->pos) : lower_expr(s, f->obj);
            if (o->ty == TY_ERR) return o;
            ANode *c = an(s, A_CALL, n->pos);
            *c = *n;
            c->items = (CyVec){0};
            ANode *self = an(s, A_IR, f->obj->pos);
            self->ir = o;
            cy_vec_push(s->a, &c->items, self);
            for (int i = 0; i < n->items.len; i++) cy_vec_push(s->a, &c->items, n->items.items[i]);
            return func_call(s, c, mf);
        }
    }
    if (f->kind == A_NAME && head && head->kind == SY_TYPE && head->ty->kind == TY_STRUCT)
        return struct_call(s, n, head->ty);
    if (f->kind == A_NAME) {
        if (head && head->kind == SY_FUNC) return func_call(s, n, head->fn);
        if (!head && is_py_builtin(f->name)) {
            int handled;
            return builtin_call(s, n, f->name, &handled);
        }
    }
    if (!need_gil(s, n->pos, "Calling gil-requiring function")) return mk_err(s, n->pos);
    return py_call(s, n, lower_expr(s, f));
}

static CyType *libc_type(S *s, char c) {
    switch (c) {
    case 'v': return cy_type_scalar(TY_VOID);
    case 'V': return cy_type_ptr(s->a, cy_type_scalar(TY_VOID));
    case 'c': return cy_type_ptr(s->a, cy_type_scalar(TY_CHAR));
    case 'u': return cy_type_scalar(TY_UINT);
    case 'z': return cy_type_scalar(TY_SIZE);
    case 'l': return cy_type_scalar(TY_LONG);
    case 'd': return cy_type_scalar(TY_DOUBLE);
    case 'L': return cy_type_ptr(s->a, alias_type(s, cy_type_scalar(TY_OPAQUE), "omp_lock_t"));
    case 'F': { /* qsort's comparison function: int (*)(const void *, const void *) */
        CyType **args = cy_alloc(s->a, 2 * sizeof *args);
        args[0] = args[1] = cy_type_ptr(s->a, cy_type_scalar(TY_VOID));
        return cy_type_ptr(s->a, cy_type_func(s->a, cy_type_scalar(TY_INT), args, 2));
    }
    default: return cy_type_scalar(TY_INT);
    }
}

/* An argument of a C function: a string literal is a C string there
 * (printf's format), no Python object. */
static IrExpr *c_arg(S *s, ANode *a) {
    if (a->kind == A_STR && !a->is_fstring) {
        IrExpr *e = mk(s, E_CSTR, cy_type_ptr(s->a, cy_type_scalar(TY_CHAR)), a->pos);
        e->sval = a->sval;
        e->slen = a->slen;
        return e;
    }
    return lower_expr(s, a);
}

static IrExpr *libc_call(S *s, ANode *n, const LibcFn *f) {
    const char *params = f->sig + 1, *dots = strchr(params, '.');
    int np = dots ? (int)(dots - params) : (int)strlen(params);
    if (n->kwnames.len || n->items.len < np || (!dots && n->items.len > np)) {
        err(s, n->pos, "Call with wrong number of arguments (expected %s%d, got %d)", dots ? "at least " : "", np,
            n->items.len + n->kwnames.len);
        return mk_err(s, n->pos);
    }
    /* cpython.mem declares PyMem_Malloc & co. without nogil (the Raw ones with it) */
    int gil = !strncmp(f->name, "PyMem_", 6) && strncmp(f->name, "PyMem_Raw", 9);
    if (gil && !need_gil(s, n->pos, "Calling gil-requiring function")) return mk_err(s, n->pos);
    IrExpr *e = mk(s, E_CALL_C, libc_type(s, f->sig[0]), n->pos);
    e->sval = f->name;
    e->nargs = n->items.len;
    e->args = cy_alloc(s->a, (size_t)(e->nargs + 1) * sizeof(IrExpr *));
    for (int i = 0; i < n->items.len; i++) {
        IrExpr *a = c_arg(s, n->items.items[i]);
        if (a->ty == TY_ERR) return a;
        if (i < np) {
            a = coerce(s, a, libc_type(s, params[i]));
        } else if (is_obj(a->ty) || is_view(a->ty) || a->ty->kind == TY_VOID) {
            err(s, a->pos, "%s cannot be passed as a varargs parameter",
                is_obj(a->ty) ? "Python object" : cy_fmt(s->a, "'%s'", a->ty->name));
            return mk_err(s, n->pos);
        } else {
            a = decay(s, a);
        }
        if (a->ty == TY_ERR) return a;
        e->args[i] = a;
    }
    return e;
}

/* The type C gives an operand where Cython writes the operation as a C
 * operator: a non-negative integer literal is an int when its value fits
 * one (Cython types it long, but writes `3`: `3 | u` with u unsigned int is
 * unsigned); a negative one it writes as long (`-1L`: u < -1 is false). */
static int plain_int_literal(const IrExpr *e) { return e->kind == E_INT && e->ty->kind == TY_LONG && !e->sval; }

static CyType *c_operand_type(const IrExpr *e) {
    if (plain_int_literal(e) && (int64_t)e->ival >= 0 && (int64_t)e->ival <= INT32_MAX)
        return cy_type_scalar(TY_INT);
    return e->ty;
}

/* C's usual arithmetic conversions on the operands as C sees them.  Beside
 * a float, Cython writes an integer literal as a double one (`e / 2` is
 * `e / 2.0`): the operation is done in double. */
static CyType *c_arith(const IrExpr *l, const IrExpr *r) {
    CyType *a = c_operand_type(l), *b = c_operand_type(r);
    if (plain_int_literal(l) && b->kind == TY_FLOAT) a = cy_type_scalar(TY_DOUBLE);
    if (plain_int_literal(r) && a->kind == TY_FLOAT) b = cy_type_scalar(TY_DOUBLE);
    return cy_type_arith(a, b);
}

/* The type of an operation Cython does with a helper of its own (Python's
 * // and %): widest_numeric_type, at least int (NumBinopNode), where
 * Py_ssize_t ranks above long and literals are long: unsigned long //
 * Py_ssize_t is a Py_ssize_t division. */
static CyType *cython_arith(const CyType *a, const CyType *b) {
    if (cy_type_is_complex(a) || cy_type_is_complex(b) || a->kind == TY_BINT || b->kind == TY_BINT)
        return cy_type_arith(a, b);
    return cy_type_span(cy_type_span(a, b), cy_type_scalar(TY_INT));
}

/* C computes an integer operation in the usual conversions (c_arith);
 * Cython types its result as cython_arith.  They differ where C goes
 * unsigned and Cython stays signed (long long with size_t, Py_ssize_t with
 * unsigned long) or for a shift (C: the left operand's type): the value is
 * C's, read as Cython's type wherever it is used next. */
static IrExpr *as_cython(S *s, IrExpr *e, const IrExpr *l, const IrExpr *r) {
    if (e->ty == TY_ERR || !cy_type_is_int(e->ty) || e->ty->kind == TY_BINT) return e;
    CyType *ct = cython_arith(l->ty, r->ty);
    if (cy_type_is_int(ct) && ct->kind != TY_BINT && ct->kind != e->ty->kind) e->cyty = ct;
    (void)s;
    return e;
}

/* The value as Cython holds it once materialised (see as_cython). */
static IrExpr *as_held(S *s, IrExpr *e) { return e->cyty && e->ty != TY_ERR ? coerce(s, e, e->cyty) : e; }

/* An enumerator in a temporary of Cython's (min/max) has the enum's type,
 * unsigned where no enumerator is negative: max(RED, -5) compares
 * unsigned in C. */
static IrExpr *enum_held(S *s, IrExpr *e) {
    if (e->kind != E_INT || !e->ty->is_enum || e->ty->kind != TY_INT) return e;
    Sym *y = lookup_in(s->mscope, e->ty->name);
    return y && y->kind == SY_TYPE && y->ty->kind != TY_INT ? mk1(s, E_CAST, y->ty, e->pos, e) : e;
}

/* Cython's ConstantFolding: an integer operation on two literals is done
 * at compile time with Python's semantics — `5 // -2` is -3 even under
 * cdivision(True).  NULL where Python's result would not fit a long or
 * raise (Cython leaves those to run time too). */
static IrExpr *fold_int(S *s, CyPos p, IrOp op, const IrExpr *l, const IrExpr *r) {
    if (!plain_int_literal(l) || !plain_int_literal(r)) return NULL;
    int64_t a = (int64_t)l->ival, b = (int64_t)r->ival, v;
    switch (op) {
    case OP_ADD: if (__builtin_add_overflow(a, b, &v)) return NULL; break;
    case OP_SUB: if (__builtin_sub_overflow(a, b, &v)) return NULL; break;
    case OP_MUL: if (__builtin_mul_overflow(a, b, &v)) return NULL; break;
    case OP_BITAND: v = a & b; break;
    case OP_BITOR: v = a | b; break;
    case OP_BITXOR: v = a ^ b; break;
    case OP_FLOORDIV:
    case OP_MOD:
        if (b == 0 || (a == INT64_MIN && b == -1)) return NULL;
        v = op == OP_FLOORDIV ? a / b - ((a % b != 0) && ((a < 0) != (b < 0))) : a % b;
        if (op == OP_MOD && v != 0 && ((v < 0) != (b < 0))) v += b;
        break;
    case OP_SHL:
        if (b < 0 || b > 62 || (a != 0 && (a > (INT64_MAX >> b) || a < (INT64_MIN >> b)))) return NULL;
        v = (int64_t)((uint64_t)a << b);
        break;
    case OP_SHR:
        if (b < 0) return NULL;
        v = b > 63 ? (a < 0 ? -1 : 0) : a >> b;
        break;
    default: return NULL;
    }
    return mk_int(s, v, TY_LONG, p);
}

/* A number constant (2, -0.5, <double>3): its value */
static int const_num(const IrExpr *e, double *v) {
    int neg = 0;
    while (e && (e->kind == E_CAST || (e->kind == E_UNOP && (e->op == OP_NEG || e->op == OP_POS)))) {
        if (e->kind == E_UNOP && e->op == OP_NEG) neg = !neg;
        e = e->args[0];
    }
    if (!e) return 0;
    if (e->kind == E_INT) *v = e->ty->is_signed ? (double)(int64_t)e->ival : (double)e->ival;
    else if (e->kind == E_FLOAT) *v = e->fval;
    else return 0;
    if (neg) *v = -*v;
    return 1;
}

static IrExpr *arith1(S *s, CyPos p, IrOp op, IrExpr *l, IrExpr *r);

/* An operand that is a complex power stays one (Cython's soft complex
   arithmetic); the result carries it to where it is used */
static IrExpr *arith(S *s, CyPos p, IrOp op, IrExpr *l, IrExpr *r) {
    s->keep_soft++;
    IrExpr *e = arith1(s, p, op, l, r);
    s->keep_soft--;
    return e;
}

static IrExpr *arith1(S *s, CyPos p, IrOp op, IrExpr *l, IrExpr *r) {
    if (l->ty == TY_ERR || r->ty == TY_ERR) return mk_err(s, p);
    if (is_obj(l->ty) || is_obj(r->ty) || l->kind == E_NONE || r->kind == E_NONE) {
        if (!need_gil(s, p, "Operation on Python object")) return mk_err(s, p);
        region_flag(s, 2);
        return mk2(s, E_OBJ_BINOP, cy_type_scalar(TY_OBJECT), p, op, box(s, l), box(s, r));
    }
    l = decay(s, l);
    r = decay(s, r);
    if (l->ty->kind == TY_PTR || r->ty->kind == TY_PTR) {
        /* pointer arithmetic, C's: p + k, k + p, p - k, p - q */
        int add = op == OP_ADD, sub = op == OP_SUB;
        IrExpr *ptr = l->ty->kind == TY_PTR ? l : r, *other = ptr == l ? r : l;
        if (ptr->ty->base->kind != TY_VOID) {
            if ((add || (sub && ptr == l)) && cy_type_is_int(other->ty))
                return mk2(s, E_BINOP, ptr->ty, p, op, l, r);
            if (sub && other->ty->kind == TY_PTR && cy_type_equal(l->ty->base, r->ty->base))
                return mk2(s, E_BINOP, cy_type_scalar(TY_SSIZE), p, op, l, r);
        }
        err(s, p, "Invalid operand types for '%s' (%s; %s)", cy_op_name(op), l->ty->name, r->ty->name);
        return mk_err(s, p);
    }
    if (!is_cnum(l->ty) || !is_cnum(r->ty)) {
        err(s, p, "Invalid operand types for '%s' (%s; %s)", cy_op_name(op), l->ty->name, r->ty->name);
        return mk_err(s, p);
    }
    IrExpr *folded = fold_int(s, p, op, l, r);
    if (folded) return folded;
    CyType *t = c_arith(l, r);
    int cplx = cy_type_is_complex(t);
    if (op == OP_SHL || op == OP_SHR || op == OP_BITAND || op == OP_BITOR || op == OP_BITXOR) {
        if (!cy_type_is_int(t)) {
            err(s, p, "Invalid operand types for '%s' (%s; %s)", cy_op_name(op), l->ty->name, r->ty->name);
            return mk_err(s, p);
        }
        if (op == OP_SHL || op == OP_SHR) {
            CyType *lt = cy_type_arith(c_operand_type(l), c_operand_type(l));
            return as_cython(s, mk2(s, E_BINOP, lt, p, op, coerce(s, l, lt), r), l, r);
        }
        return as_cython(s, mk2(s, E_BINOP, t, p, op, coerce(s, l, t), coerce(s, r, t)), l, r);
    }
    if (op == OP_ADD || op == OP_SUB || op == OP_MUL) {
        if (cplx) region_flag(s, 3);
        return as_cython(s, mk2(s, E_BINOP, t, p, op, coerce(s, l, t), coerce(s, r, t)), l, r);
    }
    if (op == OP_DIV) {
        /* language_level 3: true division, except under cdivision(True),
           where Cython writes C's / (DivNode._check_truedivision) */
        if (cy_type_is_int(t) && !s->dir.cdivision) t = cy_type_scalar(TY_DOUBLE);
        IrExpr *e = mk2(s, E_BINOP, t, p, op, coerce(s, l, t), coerce(s, r, t));
        e->cdivision = s->dir.cdivision;
        return as_cython(s, e, l, r);
    }
    if (op == OP_FLOORDIV || op == OP_MOD) {
        if (cplx) {
            err(s, p, "Invalid operand types for '%s' (%s; %s)", cy_op_name(op), l->ty->name, r->ty->name);
            return mk_err(s, p);
        }
        if (!s->dir.cdivision && !cy_type_is_float(t)) {
            l = as_held(s, l);
            r = as_held(s, r);
            t = cython_arith(l->ty, r->ty);
        }
        IrExpr *e = mk2(s, op == OP_MOD ? E_PYMOD : E_PYFLOORDIV, t, p, op, coerce(s, l, t), coerce(s, r, t));
        e->cdivision = s->dir.cdivision;
        return as_cython(s, e, l, r);
    }
    if (op == OP_POW) {
        if (cy_type_is_int(t) && s->dir.cpow != 1) {
            /* Cython 3 (cpow=False): a possibly negative exponent gives a double */
            if (!(r->kind == E_INT && (int64_t)r->ival >= 0)) t = cy_type_scalar(TY_DOUBLE);
        }
        /* Cython 3 (cpow=False): of C floats, unless the base is surely not
           negative or the exponent surely an integer, a complex power (its
           "soft complex" type: glibc's cpow); straight into a C number it
           falls back to pow() (coerce), unless cpow=False was written */
        double lv, rv;
        int soft = (t->kind == TY_FLOAT || t->kind == TY_DOUBLE) && s->dir.cpow != 1 &&
                   !(const_num(l, &lv) ? lv >= 0 : cy_type_is_int(l->ty) && !l->ty->is_signed) &&
                   !(cy_type_is_int(r->ty) || (const_num(r, &rv) && rv == (double)(long long)rv));
        IrExpr *e = mk2(s, E_POW, t, p, op, coerce(s, l, t), coerce(s, r, t));
        /* complex ** a non-integer: the soft complex too, which only an
           object shows (a float where the imaginary part is zero) */
        if (cy_type_is_complex(t) && !(cy_type_is_int(r->ty) || (const_num(r, &rv) && rv == (double)(long long)rv)))
            e->soft_pow = 4;
        if (soft) {
            e->soft_pow = s->dir.cpow == 2 ? 2 : 1;
            e->ty = cy_type_scalar(TY_DOUBLE);
        }
        return e;
    }
    err(s, p, "Invalid operand types for '%s' (%s; %s)", cy_op_name(op), l->ty->name, r->ty->name);
    return mk_err(s, p);
}

static IrExpr *compare2(S *s, CyPos p, IrOp op, IrExpr *l, IrExpr *r) {
    if (l->ty == TY_ERR || r->ty == TY_ERR) return mk_err(s, p);
    int isop = op == OP_IS || op == OP_IS_NOT;
    int inop = op == OP_IN || op == OP_NOT_IN;
    if (inop || is_obj(l->ty) || is_obj(r->ty) || l->kind == E_NONE || r->kind == E_NONE) {
        if (isop && (is_view(l->ty) || is_view(r->ty)) && (l->kind == E_NONE || r->kind == E_NONE)) {
            /* view is None: an uninitialised view */
            IrExpr *v = l->kind == E_NONE ? r : l;
            IrExpr *sh = mk2(s, E_VIEW_SHAPE, cy_type_scalar(TY_SSIZE), p, OP_NONE, v, mk_int(s, -1, TY_SSIZE, p));
            return mk2(s, E_CMP, cy_type_scalar(TY_BINT), p, op == OP_IS_NOT ? OP_NE : OP_EQ, sh, mk_int(s, -1, TY_SSIZE, p));
        }
        if (!need_gil(s, p, "Comparing Python objects")) return mk_err(s, p);
        region_flag(s, 2);
        return mk2(s, E_OBJ_CMP, cy_type_scalar(TY_OBJECT), p, op, box(s, l), box(s, r));
    }
    if (isop && (l->ty->kind == TY_PTR || l->ty->kind == TY_ARRAY) && (r->ty->kind == TY_PTR || r->ty->kind == TY_ARRAY))
        return compare2(s, p, op == OP_IS_NOT ? OP_NE : OP_EQ, l, r);
    if (isop) {
        err(s, p, "'%s' requires Python objects", cy_op_name(op));
        return mk_err(s, p);
    }
    l = decay(s, l);
    r = decay(s, r);
    if (l->ty->kind == TY_PTR && r->ty->kind == TY_PTR) {
        if (!(cy_type_equal(l->ty->base, r->ty->base) || l->ty->base->kind == TY_VOID || r->ty->base->kind == TY_VOID)) {
            err(s, p, "Invalid types for '%s' (%s, %s)", cy_op_name(op), l->ty->name, r->ty->name);
            return mk_err(s, p);
        }
        return mk2(s, E_CMP, cy_type_scalar(TY_BINT), p, op, l, mk1(s, E_CAST, l->ty, p, r));
    }
    if (!is_cnum(l->ty) || !is_cnum(r->ty)) {
        err(s, p, "Invalid types for '%s' (%s, %s)", cy_op_name(op), l->ty->name, r->ty->name);
        return mk_err(s, p);
    }
    CyType *t = c_arith(l, r);
    if (cy_type_is_complex(t) && op != OP_EQ && op != OP_NE) {
        err(s, p, "Invalid types for '%s' (%s, %s)", cy_op_name(op), l->ty->name, r->ty->name);
        return mk_err(s, p);
    }
    /* mixed signedness: compare in the signed type of the larger size, as
       Cython effectively does for Py_ssize_t vs size_t loop bounds */
    /* x == 0 and x != 0 test a truth value: no warning of signbit's value */
    int truth = (op == OP_EQ || op == OP_NE) && ((l->kind == E_INT && !l->ival) || (r->kind == E_INT && !r->ival));
    s->truth_cmp += truth;
    IrExpr *cl = coerce(s, l, t), *cr = coerce(s, r, t);
    s->truth_cmp -= truth;
    return mk2(s, E_CMP, cy_type_scalar(TY_BINT), p, op, cl, cr);
}

static IrExpr *seq_expr(S *s, ANode *n, ExprKind k, const char *what) {
    if (!need_gil(s, n->pos, what)) return mk_err(s, n->pos);
    IrExpr *e = mk(s, k, cy_type_scalar(TY_OBJECT), n->pos);
    int cnt = n->items.len * (k == E_DICT ? 2 : 1);
    e->args = cy_alloc(s->a, (cnt + 1) * sizeof(IrExpr *));
    e->nargs = cnt;
    for (int i = 0; i < n->items.len; i++) {
        if (k == E_DICT) {
            e->args[2 * i] = box(s, lower_expr(s, n->items.items[i]));
            e->args[2 * i + 1] = box(s, lower_expr(s, n->values.items[i]));
        } else {
            e->args[i] = box(s, lower_expr(s, n->items.items[i]));
        }
    }
    region_flag(s, 2);
    return e;
}

static void lower_stmt(S *s, ANode *n, CyVec *out);

/* (x := v): the assignment `x = v` as a statement runs where the
 * expression is evaluated, then the value is x's (E_STMTS 'w'). */
static IrExpr *lower_walrus(S *s, ANode *n) {
    if (s->rctx) {
        err(s, n->pos, "an assignment expression (':=') inside a parallel region is not supported by cyocl");
        return mk_err(s, n->pos);
    }
    ANode *as = an(s, S_ASSIGN, n->pos);
    cy_vec_push(s->a, &as->targets, n->lhs);
    as->value = n->rhs;
    CyVec stmts = {0};
    int e0 = s->d->nerrors;
    lower_stmt(s, as, &stmts);
    if (s->d->nerrors != e0) return mk_err(s, n->pos);
    IrExpr *v = lower_expr(s, n->lhs);
    if (v->ty == TY_ERR) return v;
    IrExpr *e = mk1(s, E_STMTS, v->ty, n->pos, v);
    e->stmts = stmts;
    e->ival = 'w';
    return e;
}

static IrExpr *lower_expr(S *s, ANode *n) {
    switch (n->kind) {
    case A_NAME: return name_expr(s, n);
    case A_IR: return n->ir;
    case A_STARRED:
        err(s, n->pos, "starred expressions are not supported here (only as f(*args) in a call of a Python object)");
        return mk_err(s, n->pos);
    case A_LAMBDA: return lower_lambda(s, n);
    case A_WALRUS: return lower_walrus(s, n);
    case A_ELLIPSIS: {
        if (!need_gil(s, n->pos, "Accessing Python global")) return mk_err(s, n->pos);
        IrExpr *e = mk(s, E_PYGLOBAL, cy_type_scalar(TY_OBJECT), n->pos);
        e->sval = "Ellipsis";
        return e;
    }
    case A_COMP:
        if (!strcmp(n->op, "generator") && !n->synthetic) {
            err(s, n->pos, "generator expressions are not supported by cyocl here (only as the argument of "
                           "sum(), any(), all(), min(), max(), list(), set(), dict(), tuple(), sorted(), "
                           "frozenset(), next() or str.join())");
            return mk_err(s, n->pos);
        }
        return lower_comp(s, n, n->op[0] == 'g' ? 'l' : n->op[0]);
    case A_INT:
        if (n->int_overflow || n->ival > (uint64_t)INT64_MAX) {
            if (!need_gil(s, n->pos, "Constructing Python int")) return mk_err(s, n->pos);
            IrExpr *e = mk(s, E_BIGINT, cy_type_scalar(TY_OBJECT), n->pos);
            e->sval = n->int_text ? n->int_text : "0";
            return e;
        }
        if (n->is_char) {
            IrExpr *e = mk_int(s, (int64_t)n->ival, TY_CHAR, n->pos);
            e->sval = "c"; /* not a plain literal: C keeps its type char (c_operand_type) */
            return e;
        }
        if (n->op) { /* 10U, 10L, 10UL, 10LL, 10ULL: the type C and Cython give it */
            int u = strchr(n->op, 'u') || strchr(n->op, 'U');
            int l = (int)strlen(n->op) - u;
            TypeKind k = l >= 2 ? (u ? TY_ULLONG : TY_LLONG) : l == 1 ? (u ? TY_ULONG : TY_LONG) : TY_UINT;
            IrExpr *e = mk_int(s, (int64_t)n->ival, k, n->pos);
            e->sval = n->op; /* not a plain literal: C keeps its type (c_operand_type) */
            return e;
        }
        return mk_int(s, (int64_t)n->ival, TY_LONG, n->pos);
    case A_FLOAT: {
        IrExpr *e = mk(s, E_FLOAT, cy_type_scalar(TY_DOUBLE), n->pos);
        e->fval = n->fval;
        return e;
    }
    case A_IMAG: {
        IrExpr *e = mk(s, E_IMAG, cy_type_scalar(TY_CDOUBLE), n->pos);
        e->fval = n->fval;
        region_flag(s, 3);
        return e;
    }
    case A_STR: {
        if (n->is_fstring) {
            err(s, n->pos, "f-strings are not supported");
            return mk_err(s, n->pos);
        }
        if (!need_gil(s, n->pos, "Constructing Python string")) return mk_err(s, n->pos);
        IrExpr *e = mk(s, n->is_bytes ? E_BYTES : E_STR, cy_type_scalar(TY_OBJECT), n->pos);
        e->sval = n->sval;
        e->slen = n->slen;
        return e;
    }
    case A_NONE: return mk(s, E_NONE, cy_type_scalar(TY_OBJECT), n->pos);
    case A_TRUE: case A_FALSE: return mk_int(s, n->kind == A_TRUE, TY_BINT, n->pos);
    case A_ATTR:
        if (is_user_mod(s, n->obj)) {
            if (!user_mod_has(s, n->obj, n->name, n->pos)) return mk_err(s, n->pos);
            ANode *x = an(s, A_NAME, n->pos);
            x->name = n->name;
            return lower_expr(s, x);
        }
        return attr_expr(s, n);
    case A_CALL: return call_expr(s, n);
    case A_INDEX: return index_expr(s, n);
    case A_SLICE:
        err(s, n->pos, "slice outside of a subscript");
        return mk_err(s, n->pos);
    case A_BINOP: {
        IrExpr *l = lower_expr(s, n->lhs), *r = lower_expr(s, n->rhs);
        if (!strcmp(n->op, "@")) {
            if (l->ty == TY_ERR || r->ty == TY_ERR) return mk_err(s, n->pos);
            if (!is_obj(l->ty) && !is_obj(r->ty)) {
                err(s, n->pos, "'@' needs Python objects (numpy arrays)");
                return mk_err(s, n->pos);
            }
        }
        return arith(s, n->pos, cy_op_binary(n->op), l, r);
    }
    case A_UNOP: {
        IrExpr *o = lower_expr(s, n->obj);
        if (o->ty == TY_ERR) return o;
        if (is_obj(o->ty)) {
            if (!need_gil(s, n->pos, "Operation on Python object")) return mk_err(s, n->pos);
            IrExpr *e = mk1(s, E_OBJ_UNOP, o->ty, n->pos, o);
            e->op = cy_op_unary(n->op);
            return e;
        }
        if (!is_cnum(o->ty) || (n->op[0] == '~' && !cy_type_is_int(o->ty))) {
            err(s, n->pos, "Invalid operand type for '%s' (%s)", n->op, o->ty->name);
            return mk_err(s, n->pos);
        }
        if (n->op[0] == '-' && o->kind == E_INT) {
            o->ival = (uint64_t)(-(int64_t)o->ival);
            o->pos = n->pos;
            return o;
        }
        if (n->op[0] == '-' && o->kind == E_FLOAT) {
            o->fval = -o->fval;
            o->pos = n->pos;
            return o;
        }
        CyType *t = cy_type_arith(o->ty, o->ty);
        IrExpr *e = mk1(s, E_UNOP, t, n->pos, coerce(s, o, t));
        e->op = cy_op_unary(n->op);
        return e;
    }
    case A_NOT: {
        IrExpr *o = lower_expr(s, n->obj);
        if (o->ty == TY_ERR) return o;
        if (is_obj(o->ty)) {
            if (!need_gil(s, n->pos, "Operation on Python object")) return mk_err(s, n->pos);
            return mk1(s, E_OBJ_NOT, cy_type_scalar(TY_BINT), n->pos, o);
        }
        return mk1(s, E_NOT, cy_type_scalar(TY_BINT), n->pos, as_cond(s, o));
    }
    case A_AND: case A_OR: {
        IrExpr *l = lower_expr(s, n->lhs), *r = lower_expr(s, n->rhs);
        if (l->ty == TY_ERR || r->ty == TY_ERR) return mk_err(s, n->pos);
        int isand = n->kind == A_AND;
        if (is_obj(l->ty) || is_obj(r->ty)) {
            if (!need_gil(s, n->pos, "Operation on Python object")) return mk_err(s, n->pos);
            return mk2(s, isand ? E_OBJ_AND : E_OBJ_OR, cy_type_scalar(TY_OBJECT), n->pos, OP_NONE, box(s, l), box(s, r));
        }
        if (l->ty->kind == TY_BINT && r->ty->kind == TY_BINT)
            return mk2(s, isand ? E_AND : E_OR, cy_type_scalar(TY_BINT), n->pos, OP_NONE, l, r);
        if (!is_cnum(l->ty) || !is_cnum(r->ty))
            return mk2(s, isand ? E_AND : E_OR, cy_type_scalar(TY_BINT), n->pos, OP_NONE, as_cond(s, l), as_cond(s, r));
        /* C values keep Python's meaning: `a or b` is a if a is true, else
           b (a node of its own: a is evaluated once, and a chain of them is
           a tree, not a graph that walkers would visit 2^n times) */
        CyType *t = cy_type_span(l->ty, r->ty);
        IrExpr *e = mk2(s, isand ? E_VAND : E_VOR, t, n->pos, OP_NONE, coerce(s, l, t), coerce(s, r, t));
        IrExpr **args = cy_alloc(s->a, 4 * sizeof *args);
        memcpy(args, e->args, 2 * sizeof *args);
        args[2] = l; /* as for `x if c else y`: converted to a destination one by one */
        args[3] = r;
        e->args = args;
        return e;
    }
    case A_COMPARE: {
        int tv;
        if (fused_test(s, n, &tv)) return mk_int(s, tv, TY_BINT, n->pos);
        IrExpr *res = NULL, *prev = lower_expr(s, n->items.items[0]);
        for (int i = 0; i < n->kwnames.len; i++) {
            IrExpr *next = lower_expr(s, n->items.items[i + 1]);
            IrExpr *c = compare2(s, n->pos, cy_op_binary(n->kwnames.items[i]), prev, next);
            if (!res) {
                res = c;
            } else {
                if (res->ty == TY_ERR || c->ty == TY_ERR) return mk_err(s, n->pos);
                res = mk2(s, E_AND, cy_type_scalar(TY_BINT), n->pos, OP_NONE, as_cond(s, res), as_cond(s, c));
            }
            prev = next;
        }
        return res;
    }
    case A_COND: {
        IrExpr *c = as_cond(s, lower_expr(s, n->cond));
        IrExpr *a = lower_expr(s, n->then), *b = lower_expr(s, n->other);
        if (c->ty == TY_ERR || a->ty == TY_ERR || b->ty == TY_ERR) return mk_err(s, n->pos);
        a = as_held(s, a);
        b = as_held(s, b);
        IrExpr *e = mk(s, E_COND, NULL, n->pos);
        e->nargs = 3;
        e->args = cy_alloc(s->a, 5 * sizeof(IrExpr *));
        e->args[0] = c;
        e->args[3] = a;
        e->args[4] = b;
        if (is_cnum(a->ty) && is_cnum(b->ty)) {
            e->ty = cy_type_span(a->ty, b->ty);
        } else if (cy_type_equal(a->ty, b->ty) && !is_obj(a->ty)) {
            e->ty = a->ty;
        } else {
            if (!need_gil(s, n->pos, "Operation on Python object")) return mk_err(s, n->pos);
            e->kind = E_OBJ_COND;
            e->ty = cy_type_scalar(TY_OBJECT);
        }
        e->args[1] = coerce(s, a, e->ty);
        e->args[2] = coerce(s, b, e->ty);
        return e;
    }
    case A_TUPLE: return seq_expr(s, n, E_TUPLE, "Constructing Python tuple");
    case A_LIST: return seq_expr(s, n, E_LIST, "Constructing Python list");
    case A_SET: return seq_expr(s, n, E_SET, "Constructing Python set");
    case A_DICT: return seq_expr(s, n, E_DICT, "Constructing Python dict");
    case A_CAST: {
        CyType *t = resolve_type(s, n->type);
        IrExpr *lit = t != TY_ERR ? c_big_literal(s, n->obj, t) : NULL;
        if (lit) return lit;
        IrExpr *o = lower_expr(s, n->obj);
        if (t == TY_ERR || o->ty == TY_ERR) return mk_err(s, n->pos);
        if (is_obj(t) && t->cls && is_obj(o->ty) && o->ty->cls != t->cls) {
            /* <Node>obj: the object as an instance of the cdef class, so that
               (<Node>obj).x is its C attribute; unchecked, as in Cython
               (<Node?>obj tests the type) */
            if (n->checked_cast) return coerce(s, o, t);
            IrExpr *c = cy_alloc(s->a, sizeof *c);
            *c = *o;
            c->ty = t;
            return c;
        }
        if (is_obj(t)) return box(s, o);
        if (is_obj(o->ty)) return coerce(s, o, t);
        if (is_view(t) || is_view(o->ty)) {
            err(s, n->pos, "Cannot cast '%s' to '%s'", o->ty->name, t->name);
            return mk_err(s, n->pos);
        }
        if ((cy_type_is_complex(o->ty) && !cy_type_is_complex(t)) ||
            ((t->kind == TY_STRUCT || o->ty->kind == TY_STRUCT) && !cy_type_equal(t, o->ty))) {
            err(s, n->pos, "Cannot cast '%s' to '%s'", o->ty->name, t->name);
            return mk_err(s, n->pos);
        }
        if (t->kind == TY_STRUCT) return o;
        return mk1(s, E_CAST, t, n->pos, o);
    }
    case A_SIZEOF: {
        IrExpr *e = mk(s, E_SIZEOF, cy_type_scalar(TY_SIZE), n->pos);
        const char *tname = n->obj && n->obj->kind == A_NAME ? n->obj->name
                            : n->obj && n->obj->kind == A_ATTR ? qual_of(s, n->obj) : NULL;
        CyType *named = NULL;
        if (!n->type && n->obj && n->obj->kind == A_ATTR && n->obj->obj->kind == A_NAME)
            named = scalar_by_name(s, cy_fmt(s->a, "%s.%s", n->obj->obj->name, n->obj->name));
        else if (tname && n->obj->kind == A_NAME)
            named = scalar_by_name(s, tname);
        if (n->type) {
            e->ty2 = resolve_type(s, n->type);
        } else if (named) {
            e->ty2 = named;
        } else {
            s->quiet++;
            e->ty2 = lower_expr(s, n->obj)->ty;
            s->quiet--;
        }
        if (e->ty2 == TY_ERR) return mk_err(s, n->pos);
        return e;
    }
    case A_ADDR: {
        IrExpr *o = lower_expr(s, n->obj);
        if (o->ty == TY_ERR) return o;
        if (o->kind == E_VAR && is_obj(o->ty)) {
            err(s, n->pos, "Cannot take address of Python variable '%s'", o->var->name);
            return mk_err(s, n->pos);
        }
        if (o->ty->kind == TY_ARRAY) {
            err(s, n->pos, "the address of a whole C array is not supported by cyocl (use &%s[0])",
                o->kind == E_VAR ? o->var->name : "a");
            return mk_err(s, n->pos);
        }
        /* &x does not make x private in a prange (Cython: only assignments
           to the name do); the C backend keeps x shared for it */
        const IrExpr *root = o;
        while (root->kind == E_FIELD) root = root->args[0];
        if (!(o->kind == E_VAR || o->kind == E_VIEW_ELEM || o->kind == E_PTR_INDEX ||
              (o->kind == E_FIELD && (root->kind == E_VAR || root->kind == E_PTR_INDEX || root->kind == E_DEREF))) ||
            is_obj(o->ty) || is_view(o->ty)) {
            err(s, n->pos, "Cannot take address of this expression");
            return mk_err(s, n->pos);
        }
        if (root->kind == E_VAR && !s->quiet && !s->inplace_read)
            for (RegionCtx *rc = s->rctx; rc; rc = rc->outer) {
                Access *x = access_of(s, rc, root->var);
                if (!x->addr) x->addr_pos = n->pos;
                x->addr = 1;
            }
        return mk1(s, E_ADDR, cy_type_ptr(s->a, o->ty), n->pos, o);
    }
    case A_DEREF: {
        IrExpr *o = lower_expr(s, n->obj);
        if (o->ty == TY_ERR) return o;
        if (o->ty->kind != TY_PTR) {
            err(s, n->pos, "Cannot dereference '%s'", o->ty->name);
            return mk_err(s, n->pos);
        }
        return mk1(s, E_DEREF, o->ty->base, n->pos, o);
    }
    default:
        err(s, n->pos, "this expression is not supported");
        return mk_err(s, n->pos);
    }
}

/* ---- statements ------------------------------------------------------------- */

static IrStmt *st(S *s, StmtKind k, CyPos p) {
    IrStmt *x = cy_alloc(s->a, sizeof *x);
    x->kind = k;
    x->pos = p;
    return x;
}

static void lower_block(S *s, CyVec *in, CyVec *out);

static IrStmt *assign_stmt(S *s, IrExpr *target, IrExpr *value, CyPos p, IrOp op) {
    IrStmt *x = st(s, ST_ASSIGN, p);
    x->target = target;
    x->value = value;
    x->op = op;
    return x;
}

/* Lowers an assignment target; returns NULL after an error. */
static IrExpr *lower_target(S *s, ANode *t, IrOp op) {
    switch (t->kind) {
    case A_NAME: {
        Sym *y = lookup(s, t->name);
        if (y && (y->kind == SY_VAR || y->kind == SY_PYVAR) && y->var) {
            IrVar *v = y->var;
            if (v->kind == V_PYGLOBAL) {
                if (!need_gil(s, t->pos, "Assignment to Python global")) return NULL;
                IrExpr *e = mk(s, E_PYGLOBAL, cy_type_scalar(TY_OBJECT), t->pos);
                e->sval = v->name;
                return e;
            }
            if (is_obj(v->ty) && !need_gil(s, t->pos, "Assignment of Python object")) return NULL;
            if (s->rctx && is_view(v->ty) && !s->quiet) {
                err(s, t->pos, "assigning a memoryview variable inside a parallel region is not supported");
                return NULL;
            }
            record_assign(s, v, t->pos, op);
            return mk_var(s, v, t->pos);
        }
        if (y && y->kind == SY_PYGLOBAL) {
            if (!need_gil(s, t->pos, "Assignment to Python global")) return NULL;
            IrExpr *e = mk(s, E_PYGLOBAL, cy_type_scalar(TY_OBJECT), t->pos);
            e->sval = y->name;
            return e;
        }
        err(s, t->pos, "Cannot assign to '%s'", t->name);
        return NULL;
    }
    case A_INDEX: {
        s->lvalue = 1;
        IrExpr *e = index_expr(s, t);
        s->lvalue = 0;
        if (e->ty == TY_ERR) return NULL;
        if (e->kind == E_VIEW_ELEM) {
            if (e->args[0]->ty->is_const) {
                err(s, t->pos, "Assignment to const memoryview element");
                return NULL;
            }
            record_view(s, e->args[0], 1);
            if (op) record_view(s, e->args[0], 0);
            return e;
        }
        if (e->kind == E_VIEW_SLICE) {
            err(s, t->pos, "assignment to a memoryview slice is not supported yet");
            return NULL;
        }
        return e;
    }
    case A_ATTR: {
        IrExpr *e = attr_expr(s, t);
        if (e->ty == TY_ERR) return NULL;
        if (e->kind == E_FIELD) {
            IrExpr *r = e;
            while (r->kind == E_FIELD) r = r->args[0];
            if (r->kind == E_VAR) r->var->is_assigned = 1;
            if (e->ty->kind == TY_ARRAY) {
                err(s, t->pos, "Assignment to non-lvalue '%s'", t->name);
                return NULL;
            }
            return e;
        }
        if (e->kind == E_SLOT) {
            if ((is_obj(e->ty) || is_view(e->ty)) && !need_gil(s, t->pos, "Assigning to Python attribute"))
                return NULL;
            return e;
        }
        if (e->kind != E_OBJ_ATTR) {
            err(s, t->pos, "Cannot assign to this attribute");
            return NULL;
        }
        return e;
    }
    default:
        err(s, t->pos, "Cannot assign to this expression");
        return NULL;
    }
}

static void assign_to(S *s, ANode *t, IrExpr *value, CyVec *out, CyPos p) {
    if ((t->kind == A_TUPLE || t->kind == A_LIST) && value->ty != TY_ERR && value->ty->kind == TY_STRUCT &&
        value->ty->is_ctuple) {
        /* a, b = ctuple: each field, in C */
        if (t->items.len != value->ty->nfields) {
            err(s, t->pos, "%s values to unpack (expected %d, got %d)",
                t->items.len < value->ty->nfields ? "too many" : "not enough", t->items.len, value->ty->nfields);
            return;
        }
        IrExpr *src = value;
        if (value->kind != E_VAR) {
            IrVar *tmp = new_temp(s, value->ty, p);
            cy_vec_push(s->a, out, assign_stmt(s, mk_var(s, tmp, p), value, p, OP_NONE));
            src = mk_var(s, tmp, p);
        }
        for (int i = 0; i < t->items.len; i++) {
            IrExpr *f = mk1(s, E_FIELD, value->ty->ftypes[i], p, src);
            f->sval = value->ty->fnames[i];
            assign_to(s, t->items.items[i], f, out, p);
        }
        return;
    }
    if (t->kind == A_TUPLE || t->kind == A_LIST) {
        if (value->ty == TY_ERR) return;
        /* unpack an object sequence into object temporaries, then assign
           each with its own conversion */
        if (!need_gil(s, t->pos, "Unpacking Python sequence")) return;
        IrStmt *u = st(s, ST_UNPACK, p);
        u->value = box(s, value);
        u->ntargets = t->items.len;
        u->targets = cy_alloc(s->a, (u->ntargets + 1) * sizeof(IrExpr *));
        IrVar **tmps = cy_alloc(s->a, (u->ntargets + 1) * sizeof(IrVar *));
        for (int i = 0; i < u->ntargets; i++) {
            tmps[i] = new_temp(s, cy_type_scalar(TY_OBJECT), p);
            u->targets[i] = mk_var(s, tmps[i], p);
        }
        cy_vec_push(s->a, out, u);
        for (int i = 0; i < u->ntargets; i++) assign_to(s, t->items.items[i], mk_var(s, tmps[i], p), out, p);
        return;
    }
    if (t->kind == A_ATTR && (!strcmp(t->name, "real") || !strcmp(t->name, "imag")) && t->obj->kind == A_NAME) {
        CyType *zt = probe_type(s, t->obj);
        if (zt != TY_ERR && cy_type_is_complex(zt)) {
            /* z.real = x: z = complex(x, z.imag), the other part kept exactly */
            IrExpr *ztg = lower_target(s, t->obj, OP_NONE);
            if (!ztg || value->ty == TY_ERR) return;
            int f = zt->kind == TY_CFLOAT, re = t->name[0] == 'r';
            CyType *pt = cy_type_scalar(f ? TY_FLOAT : TY_DOUBLE);
            IrExpr *part = coerce(s, value, pt);
            IrExpr *keep = mk1(s, E_CALL_C, pt, p, lower_expr(s, t->obj));
            keep->sval = re ? (f ? "cimagf" : "cimag") : (f ? "crealf" : "creal");
            IrExpr *z = mk2(s, E_CALL_C, zt, p, OP_NONE, re ? part : keep, re ? keep : part);
            z->sval = f ? "CYRT_CMPLXF" : "CYRT_CMPLX";
            cy_vec_push(s->a, out, assign_stmt(s, ztg, z, p, OP_NONE));
            return;
        }
    }
    IrExpr *tg = lower_target(s, t, OP_NONE);
    if (!tg || value->ty == TY_ERR) return;
    cy_vec_push(s->a, out, assign_stmt(s, tg, coerce(s, value, tg->ty), p, OP_NONE));
}

/* ---- element-wise expressions on memoryview slices (cyocl extension) ----------
 *
 *     out[1:-1] = a * x[:-2] + sqrt(y[2:])      t = sum(x[:] * x[:])
 *
 * are rewritten as the loops one would write by hand and lowered like them:
 * each slice operand (any memoryview-typed operand) is evaluated once into a
 * view temporary, each scalar subexpression once into a C temporary, the
 * shapes are checked (ValueError), and a prange over the first axis with
 * range() loops inside assigns element by element (for sum(), a + reduction).
 * So both backends get an ordinary parallel region.  The synthetic names
 * start with '$', which no Python name can.
 *
 * Outside a parallel region the statement means what numpy's would (the
 * checks and copies are host code before the loops): an operand's extent-1
 * axis stretches to the loops' extent (its stride becomes 0; a contiguous
 * axis cannot have that stride, so such an operand is copied stretched),
 * and an operand whose memory may overlap the target's other than element
 * for element is copied first (cyrt_views_overlap: a test of address ranges,
 * so the common case costs a comparison).  The same holds in a prange body
 * or parallel() block, where the statement runs per iteration: the checks
 * (they raise) and copies (they take the GIL) keep that region native, as
 * the checks alone always did. */

static void lower_stmt(S *s, ANode *n, CyVec *out);

typedef struct {
    int id, nops, nscal, nd;
    ANode *ops[64];      /* the operands, in order */
    IrVar *opv[64];      /* their view temporaries */
    const char *idx[8];  /* the index variables' names */
    CyVec scal;          /* IrStmt*: the scalar subexpressions' temporaries, evaluated
                            only when the loops have an element (ae_scalars) */
    IrVar *ref;          /* the loops run over ref's extents ... */
    IrVar *ext[8];       /* ... or these variables' (sum() where operands stretch) */
    ANode *target;       /* the assignment's target (NULL: a sum()) */
} ArrExpr;

static ANode *an(S *s, ANodeKind k, CyPos p) {
    ANode *n = cy_alloc(s->a, sizeof *n);
    n->kind = k;
    n->pos = p;
    return n;
}

static ANode *an_name(S *s, const char *name, CyPos p) {
    ANode *n = an(s, A_NAME, p);
    n->name = name;
    return n;
}

static ANode *an_int(S *s, int64_t v, CyPos p) {
    ANode *n = an(s, A_INT, p);
    n->ival = (uint64_t)v;
    n->int_text = cy_fmt(s->a, "%lld", (long long)v);
    return n;
}

/* name.shape[d] */
static ANode *an_shape(S *s, const char *name, int d, CyPos p) {
    ANode *at = an(s, A_ATTR, p);
    at->obj = an_name(s, name, p);
    at->name = "shape";
    ANode *ix = an(s, A_INDEX, p);
    ix->obj = at;
    cy_vec_push(s->a, &ix->items, an_int(s, d, p));
    return ix;
}

/* name[$i...] for a view of ndim dimensions: the last ndim indices, as
 * numpy lines up the trailing axes of an operand with fewer of them. */
static ANode *an_elem(S *s, ArrExpr *ae, const char *name, int ndim, CyPos p) {
    ANode *ix = an(s, A_INDEX, p);
    ix->obj = an_name(s, name, p);
    /* more dimensions than the expression: an error ae_check_shapes reports */
    for (int d = ndim > ae->nd ? 0 : ae->nd - ndim; d < ae->nd; d++)
        cy_vec_push(s->a, &ix->items, an_name(s, ae->idx[d], p));
    return ix;
}

/* A local only sema names: declared in the function's scope. */
static IrVar *synth_var(S *s, const char *name, CyType *ty, CyPos p) {
    IrVar *v = new_var(s, name, ty, V_LOCAL, p);
    v->cname = cy_fmt(s->a, "cy_ae%d", s->ntmp++);
    if (s->fn) cy_vec_push(s->a, &s->fn->locals, v);
    else cy_vec_push(s->a, &s->m->init_locals, v);
    Sym *y = declare(s, s->scope, name, SY_VAR);
    y->var = v;
    return v;
}

static int is_view_operand(S *s, ANode *n) {
    if (n->kind != A_NAME && n->kind != A_INDEX && n->kind != A_ATTR) return 0;
    CyType *t = probe_type(s, n);
    return t != TY_ERR && t->kind == TY_VIEW;
}

static int has_view_operand(S *s, ANode *n) {
    if (!n) return 0;
    if (is_view_operand(s, n)) return 1;
    switch (n->kind) {
    case A_BINOP: case A_AND: case A_OR: return has_view_operand(s, n->lhs) || has_view_operand(s, n->rhs);
    case A_UNOP: case A_CAST: case A_NOT: return has_view_operand(s, n->obj);
    case A_COND: return has_view_operand(s, n->cond) || has_view_operand(s, n->then) || has_view_operand(s, n->other);
    case A_CALL: case A_COMPARE:
        for (int i = 0; i < n->items.len; i++)
            if (has_view_operand(s, n->items.items[i])) return 1;
        return 0;
    default: return 0;
    }
}

/* The most dimensions of a memoryview operand in n (0: none). */
static int max_view_ndim(S *s, ANode *n) {
    if (!n) return 0;
    if (is_view_operand(s, n)) return probe_type(s, n)->ndim;
    int m = 0, k;
    switch (n->kind) {
    case A_BINOP: case A_AND: case A_OR:
        m = max_view_ndim(s, n->lhs);
        k = max_view_ndim(s, n->rhs);
        return k > m ? k : m;
    case A_UNOP: case A_CAST: case A_NOT: return max_view_ndim(s, n->obj);
    case A_COND:
        m = max_view_ndim(s, n->cond);
        if ((k = max_view_ndim(s, n->then)) > m) m = k;
        if ((k = max_view_ndim(s, n->other)) > m) m = k;
        return m;
    case A_CALL: case A_COMPARE:
        for (int i = 0; i < n->items.len; i++)
            if ((k = max_view_ndim(s, n->items.items[i])) > m) m = k;
        return m;
    default: return 0;
    }
}

static void ae_assign(S *s, IrVar *v, ANode *from, CyVec *pre) {
    IrExpr *e = lower_expr(s, from);
    if (e->ty == TY_ERR) return;
    record_assign(s, v, from->pos, OP_NONE); /* private to a region it is in */
    cy_vec_push(s->a, pre, assign_stmt(s, mk_var(s, v, from->pos), coerce(s, e, v->ty), from->pos, OP_NONE));
}

/* The element expression of n: operands become name[$i...], scalar
 * subexpressions temporaries evaluated once (into pre). */
static ANode *ae_rewrite(S *s, ArrExpr *ae, ANode *n, CyVec *pre) {
    if (is_view_operand(s, n)) {
        if (ae->nops == 64) {
            err(s, n->pos, "too many memoryview operands in one expression (64 at most)");
            return an_int(s, 0, n->pos);
        }
        CyType *t = probe_type(s, n);
        IrVar *v = synth_var(s, cy_fmt(s->a, "$v%d_%d", ae->id, ae->nops), t, n->pos);
        ae_assign(s, v, n, pre);
        ae->ops[ae->nops] = n;
        ae->opv[ae->nops++] = v;
        return an_elem(s, ae, v->name, t->ndim, n->pos);
    }
    if (!has_view_operand(s, n)) {
        if (n->kind == A_INT || n->kind == A_FLOAT || n->kind == A_TRUE || n->kind == A_FALSE) return n;
        CyType *t = probe_type(s, n);
        if (t == TY_ERR) return n; /* lowered in the loop: the error is reported there */
        if (!is_cnum(t) || cy_type_is_complex(t)) {
            err(s, n->pos, "'%s' in a memoryview expression: only C numbers and memoryviews of them can be combined",
                t->name);
            return an_int(s, 0, n->pos); /* reported once, not again inside the loop */
        }
        if (n->kind == A_NAME) {
            Sym *y = lookup(s, n->name);
            if (y && y->var && (y->var->kind == V_LOCAL || y->var->kind == V_PARAM)) return n;
        }
        IrVar *v = synth_var(s, cy_fmt(s->a, "$s%d_%d", ae->id, ae->nscal++), t, n->pos);
        ae_assign(s, v, n, &ae->scal);
        return an_name(s, v->name, n->pos);
    }
    ANode *c = an(s, n->kind, n->pos);
    *c = *n;
    switch (n->kind) {
    case A_BINOP: case A_AND: case A_OR:
        c->lhs = ae_rewrite(s, ae, n->lhs, pre);
        c->rhs = ae_rewrite(s, ae, n->rhs, pre);
        break;
    case A_UNOP: case A_CAST: case A_NOT: c->obj = ae_rewrite(s, ae, n->obj, pre); break;
    case A_COND:
        c->cond = ae_rewrite(s, ae, n->cond, pre);
        c->then = ae_rewrite(s, ae, n->then, pre);
        c->other = ae_rewrite(s, ae, n->other, pre);
        break;
    case A_CALL: case A_COMPARE:
        memset(&c->items, 0, sizeof c->items);
        for (int i = 0; i < n->items.len; i++) cy_vec_push(s->a, &c->items, ae_rewrite(s, ae, n->items.items[i], pre));
        break;
    default: break;
    }
    return c;
}

static void ae_begin(S *s, ArrExpr *ae, int nd, CyPos p) {
    memset(ae, 0, sizeof *ae);
    ae->id = s->nae++;
    ae->nd = nd;
    for (int d = 0; d < nd; d++) ae->idx[d] = synth_var(s, cy_fmt(s->a, "$i%d_%d", ae->id, d), cy_type_scalar(TY_SSIZE), p)->name;
}

/* if (cond) raise ValueError(msg), with the GIL taken where it is not held. */
static void ae_raise_node(S *s, IrExpr *cond, ANode *m, CyPos p, CyVec *out) {
    ANode *call = an(s, A_CALL, p);
    call->obj = an_name(s, "ValueError", p);
    cy_vec_push(s->a, &call->items, m);
    ANode *r = an(s, S_RAISE, p);
    r->value = call;
    IrStmt *x = st(s, ST_IF, p);
    x->cond = cond;
    int saved = s->nogil;
    s->nogil = 0;
    if (saved) {
        IrStmt *g = st(s, ST_GIL, p);
        lower_stmt(s, r, &g->body);
        cy_vec_push(s->a, &x->body, g);
    } else {
        lower_stmt(s, r, &x->body);
    }
    s->nogil = saved;
    cy_vec_push(s->a, out, x);
}

static void ae_raise_if(S *s, IrExpr *cond, const char *msg, CyPos p, CyVec *out) {
    ANode *m = an(s, A_STR, p);
    m->sval = msg;
    m->slen = (int)strlen(msg);
    ae_raise_node(s, cond, m, p, out);
}

/* v.shape[j] */
static IrExpr *ir_shape(S *s, IrVar *v, int j, CyPos p) {
    return mk2(s, E_VIEW_SHAPE, cy_type_scalar(TY_SSIZE), p, OP_NONE, mk_var(s, v, p), mk_int(s, j, TY_SSIZE, p));
}

/* The loops' extent on axis d. */
static IrExpr *ae_ext(S *s, ArrExpr *ae, int d, CyPos p) {
    return ae->ext[d] ? mk_var(s, ae->ext[d], p) : ir_shape(s, ae->ref, d, p);
}

static IrExpr *ir_cmp(S *s, IrOp op, IrExpr *a, IrExpr *b, CyPos p) {
    return mk2(s, E_CMP, cy_type_scalar(TY_BINT), p, op, a, b);
}

/* The loops have an element: every extent is nonzero. */
static IrExpr *ae_nonempty(S *s, ArrExpr *ae, CyPos p) {
    IrExpr *cond = NULL;
    for (int d = 0; d < ae->nd; d++) {
        IrExpr *nz = ir_cmp(s, OP_NE, ae_ext(s, ae, d, p), mk_int(s, 0, TY_SSIZE, p), p);
        cond = cond ? mk2(s, E_AND, cy_type_scalar(TY_BINT), p, OP_NONE, cond, nz) : nz;
    }
    return cond;
}

/* Operands in messages, as written where simple enough to say:
 * names, attributes, and indices of names, numbers and slices of them. */
static void ae_text(CyBuf *b, ANode *n) {
    switch (n ? n->kind : A_NONE) {
    case A_NAME: cy_buf_puts(b, n->name); return;
    case A_INT: cy_buf_puts(b, n->int_text ? n->int_text : "?"); return;
    case A_UNOP: cy_buf_puts(b, n->op); ae_text(b, n->obj); return;
    case A_ATTR: ae_text(b, n->obj); cy_buf_printf(b, ".%s", n->name); return;
    case A_SLICE:
        if (n->then) ae_text(b, n->then);
        cy_buf_puts(b, ":");
        if (n->other) ae_text(b, n->other);
        if (n->cond) {
            cy_buf_puts(b, ":");
            ae_text(b, n->cond);
        }
        return;
    case A_INDEX:
        ae_text(b, n->obj);
        cy_buf_puts(b, "[");
        for (int i = 0; i < n->items.len; i++) {
            if (i) cy_buf_puts(b, ", ");
            ae_text(b, n->items.items[i]);
        }
        cy_buf_puts(b, "]");
        return;
    default: cy_buf_puts(b, "..."); return;
    }
}

/* ae_text as a %-format's literal part */
static const char *ae_name(S *s, ANode *n) {
    CyBuf b = {0}, q = {0};
    ae_text(&b, n);
    for (size_t i = 0; i < b.len; i++) cy_buf_puts(&q, b.s[i] == '%' ? "%%" : (char[]){b.s[i], 0});
    const char *r = cy_strndup(s->a, q.s ? q.s : "", q.len);
    cy_buf_free(&b);
    cy_buf_free(&q);
    return r;
}

/* if (cond) raise ValueError(fmt % (a, b)): a message with two extents */
static void ae_raise_fmt(S *s, IrExpr *cond, const char *fmt, IrExpr *a, IrExpr *b, CyPos p, CyVec *out) {
    ANode *m = an(s, A_STR, p), *t = an(s, A_TUPLE, p), *ia = an(s, A_IR, p), *ib = an(s, A_IR, p);
    m->sval = fmt;
    m->slen = (int)strlen(fmt);
    ia->ir = a;
    ib->ir = b;
    cy_vec_push(s->a, &t->items, ia);
    cy_vec_push(s->a, &t->items, ib);
    ANode *f = an(s, A_BINOP, p);
    f->op = "%";
    f->lhs = m;
    f->rhs = t;
    ae_raise_node(s, cond, f, p, out);
}

/* Every operand has at most the expression's dimensions, and at run time
 * on each trailing axis it has the loops' extent or 1: else ValueError
 * naming the operand and both extents. */
static int ae_check_shapes(S *s, ArrExpr *ae, CyVec *out) {
    for (int k = 0; k < ae->nops; k++) {
        IrVar *v = ae->opv[k];
        int nd = v->ty->ndim;
        if (nd > ae->nd) {
            err(s, ae->ops[k]->pos, "a memoryview of %d dimension%s in an expression of %d", nd, nd == 1 ? "" : "s",
                ae->nd);
            return -1;
        }
    }
    for (int k = 0; k < ae->nops; k++) {
        IrVar *v = ae->opv[k];
        int nd = v->ty->ndim;
        CyPos p = ae->ops[k]->pos;
        for (int j = 0; j < nd; j++) {
            int d = ae->nd - nd + j;
            if (v == ae->ref && !ae->ext[d]) continue;
            IrExpr *c = ir_cmp(s, OP_NE, ir_shape(s, v, j, p), ae_ext(s, ae, d, p), p);
            c = mk2(s, E_AND, cy_type_scalar(TY_BINT), p, OP_NONE, c,
                    ir_cmp(s, OP_NE, ir_shape(s, v, j, p), mk_int(s, 1, TY_SSIZE, p), p));
            const char *what = ae->target ? cy_fmt(s->a, "the target '%s' has %%d", ae_name(s, ae->target))
                                          : "the other operands have %d";
            ae_raise_fmt(s, c,
                         cy_fmt(s->a, "memoryview shapes do not match in dimension %d: '%s' has extent %%d, %s "
                                      "(only an extent of 1 stretches)", d, ae_name(s, ae->ops[k]), what),
                         ir_shape(s, v, j, p), ae_ext(s, ae, d, p), p, out);
        }
    }
    return 0;
}

/* dst = a copy of src's elements, C-contiguous (Fortran-contiguous when
 * dst's type is), taking the GIL where it is not held. */
static void ae_copy(S *s, ArrExpr *ae, IrVar *dst, IrVar *src, CyPos p, CyVec *out) {
    CyType *t = dst->ty;
    int nd = t->ndim, fort = nd > 1 && t->axes[0] && !t->axes[nd - 1];
    CyVec body = {0};
    int saved = s->nogil;
    s->nogil = 0;
    ANode *at = an(s, A_NONE, p);
    if (!fort) {
        IrExpr *c = view_copy_of(s, an_name(s, src->name, p), at);
        if (c->ty != TY_ERR) {
            record_assign(s, dst, p, OP_NONE);
            cy_vec_push(s->a, &body, assign_stmt(s, mk_var(s, dst, p), coerce(s, c, t), p, OP_NONE));
        }
    } else {
        /* the C-contiguous copy of the transpose, transposed back */
        char ax[CY_MAX_NDIM] = {0};
        ax[nd - 1] = 1;
        IrVar *cv = synth_var(s, cy_fmt(s->a, "$c%d_%d", ae->id, s->ntmp), cy_type_view(s->a, t->base, nd, ax, t->is_const), p);
        ANode *tt = an(s, A_ATTR, p);
        tt->obj = an_name(s, src->name, p);
        tt->name = "T";
        IrExpr *c = view_copy_of(s, tt, at);
        if (c->ty != TY_ERR) {
            record_assign(s, cv, p, OP_NONE);
            record_assign(s, dst, p, OP_NONE);
            cy_vec_push(s->a, &body, assign_stmt(s, mk_var(s, cv, p), coerce(s, c, cv->ty), p, OP_NONE));
            IrExpr *back = mk1(s, E_VIEW_T, t, p, mk_var(s, cv, p));
            cy_vec_push(s->a, &body, assign_stmt(s, mk_var(s, dst, p), back, p, OP_NONE));
        }
    }
    s->nogil = saved;
    if (saved) {
        IrStmt *g = st(s, ST_GIL, p);
        g->body = body;
        cy_vec_push(s->a, out, g);
    } else {
        for (int i = 0; i < body.len; i++) cy_vec_push(s->a, out, body.items[i]);
    }
}

/* v = cyrt_view_bcast(v, j, n): axis j stretched to n (stride 0) */
static IrStmt *ae_bcast(S *s, IrVar *v, int j, IrExpr *n, CyPos p) {
    IrExpr *c = mk(s, E_CALL_C, v->ty, p);
    c->sval = "cyrt_view_bcast";
    c->nargs = 3;
    c->args = cy_alloc(s->a, 3 * sizeof *c->args);
    c->args[0] = mk_var(s, v, p);
    c->args[1] = mk_int(s, j, TY_INT, p);
    c->args[2] = n;
    record_assign(s, v, p, OP_NONE);
    return assign_stmt(s, mk_var(s, v, p), c, p, OP_NONE);
}

/* After ae_check_shapes: every operand's extent-1 axes that the loops
 * run longer stretch.  An axis the operand's type says is contiguous
 * cannot take stride 0: the operand is then stretched in a strided
 * temporary and copied (its type's contiguity holds for the copy). */
static void ae_stretch(S *s, ArrExpr *ae, CyVec *out) {
    for (int k = 0; k < ae->nops; k++) {
        IrVar *v = ae->opv[k];
        int nd = v->ty->ndim, contig = -1;
        CyPos p = ae->ops[k]->pos;
        for (int j = 0; j < nd; j++) {
            int d = ae->nd - nd + j;
            if (v == ae->ref && !ae->ext[d]) continue;
            if (v->ty->axes[j]) {
                contig = j;
                continue;
            }
            IrStmt *x = st(s, ST_IF, p);
            x->cond = ir_cmp(s, OP_NE, ir_shape(s, v, j, p), ae_ext(s, ae, d, p), p);
            cy_vec_push(s->a, &x->body, ae_bcast(s, v, j, ae_ext(s, ae, d, p), p));
            cy_vec_push(s->a, out, x);
        }
        if (contig < 0) continue;
        int d = ae->nd - nd + contig;
        /* (loops without an element read nothing: no copy, which could not
           be made of a shape with a 0 either) */
        IrExpr *c = mk2(s, E_AND, cy_type_scalar(TY_BINT), p, OP_NONE,
                        ir_cmp(s, OP_NE, ir_shape(s, v, contig, p), ae_ext(s, ae, d, p), p), ae_nonempty(s, ae, p));
        if (!struct_format(v->ty->base->kind)) {
            ae_raise_if(s, c, cy_fmt(s->a, "'%s' would stretch a contiguous axis of '%s' elements: not supported by cyocl",
                                     ae_name(s, ae->ops[k]), v->ty->base->name), p, out);
            continue;
        }
        IrStmt *x = st(s, ST_IF, p);
        x->cond = c;
        char ax[CY_MAX_NDIM] = {0};
        IrVar *w = synth_var(s, cy_fmt(s->a, "$w%d_%d", ae->id, k), cy_type_view(s->a, v->ty->base, nd, ax, v->ty->is_const), p);
        record_assign(s, w, p, OP_NONE);
        cy_vec_push(s->a, &x->body, assign_stmt(s, mk_var(s, w, p), coerce(s, mk_var(s, v, p), w->ty), p, OP_NONE));
        cy_vec_push(s->a, &x->body, ae_bcast(s, w, contig, ae_ext(s, ae, d, p), p));
        ae_copy(s, ae, v, w, p, &x->body);
        cy_vec_push(s->a, out, x);
    }
}

/* The scalar subexpressions, evaluated once before the loops over ref (a
 * view variable) — but only when they have an element: the loops the
 * expression means would never evaluate them (`a[:0] += 1 % s` with s == 0
 * raises nothing; H100 difftest finding d012). */
static void ae_scalars(S *s, ArrExpr *ae, CyPos p, CyVec *out) {
    if (!ae->scal.len) return;
    IrStmt *g = st(s, ST_IF, p);
    g->cond = ae_nonempty(s, ae, p);
    g->body = ae->scal;
    cy_vec_push(s->a, out, g);
}

/* The loop nest over the extents around body, lowered: a prange over the
 * first axis unless already in a parallel region, range() inside.  The
 * indices are in range by construction: no bounds checks in it. */
static void ae_loops(S *s, ArrExpr *ae, ANode *body, CyPos p, CyVec *out) {
    ANode *inner = body;
    int par = s->prange_depth == 0 && s->parallel_depth == 0;
    for (int d = ae->nd - 1; d >= 0; d--) {
        ANode *f = an(s, S_FOR, p);
        cy_vec_push(s->a, &f->targets, an_name(s, ae->idx[d], p));
        ANode *call = an(s, A_CALL, p);
        call->obj = an_name(s, d == 0 && par ? "prange" : "range", p);
        call->synthetic = d == 0 && par ? 1 : 2;
        cy_vec_push(s->a, &call->items, ae->ext[d] ? an_name(s, ae->ext[d]->name, p) : an_shape(s, ae->ref->name, d, p));
        if (call->synthetic == 1 && !s->nogil) {
            ANode *t = an(s, A_TRUE, p);
            cy_vec_push(s->a, &call->kwnames, (void *)"nogil");
            cy_vec_push(s->a, &call->values, t);
            CyPos *kp = cy_alloc(s->a, sizeof *kp);
            *kp = p;
            cy_vec_push(s->a, &call->kwpos, kp);
        }
        f->value = call;
        cy_vec_push(s->a, &f->body, inner);
        inner = f;
    }
    Directives saved = s->dir;
    s->dir.boundscheck = s->dir.wraparound = 0;
    lower_stmt(s, inner, out);
    s->dir = saved;
}

/* target[...] = value, target a memoryview slice (or a whole view). */
static void lower_array_assign(S *s, ANode *target, ANode *value, CyVec *out) {
    CyType *tt = probe_type(s, target);
    if (tt == TY_ERR || tt->kind != TY_VIEW) {
        lower_expr(s, target); /* report */
        return;
    }
    if (tt->is_const) {
        err(s, target->pos, "Assignment to const memoryview element");
        return;
    }
    ArrExpr ae;
    ae_begin(s, &ae, tt->ndim, target->pos);
    IrVar *o = synth_var(s, cy_fmt(s->a, "$o%d", ae.id), tt, target->pos);
    ae_assign(s, o, target, out);
    ANode *elem = ae_rewrite(s, &ae, value, out);
    ae.ref = o;
    ae.target = target;
    if (ae_check_shapes(s, &ae, out) < 0) return;
    /* an operand that overlaps the target other than element for element
       would be read where the loop has already written (the parallel loop
       even races): it is copied first, as numpy does, when the address
       ranges meet (views of one array that interleave, a[::2] and a[1::2],
       are copied without need).  Identical views need no copy. */
    for (int k = 0; k < ae.nops; k++) {
        IrVar *v = ae.opv[k];
        IrExpr *c = mk(s, E_CALL_C, cy_type_scalar(TY_INT), target->pos);
        c->sval = "cyrt_views_overlap";
        c->nargs = 5;
        c->args = cy_alloc(s->a, 5 * sizeof *c->args);
        c->args[0] = mk_var(s, o, target->pos);
        c->args[1] = mk_var(s, v, target->pos);
        c->args[2] = mk_int(s, ae.nd * 16 + v->ty->ndim, TY_INT, target->pos); /* both views' dimensions */
        c->args[3] = mk_int(s, (int64_t)o->ty->base->size, TY_SSIZE, target->pos);
        c->args[4] = mk_int(s, (int64_t)v->ty->base->size, TY_SSIZE, target->pos);
        if (!struct_format(v->ty->base->kind)) {
            ae_raise_if(s, c, "a memoryview operand overlaps the target of the assignment (copy it first)",
                        ae.ops[k]->pos, out);
            continue;
        }
        IrStmt *x = st(s, ST_IF, target->pos);
        x->cond = c;
        ae_copy(s, &ae, v, v, ae.ops[k]->pos, &x->body);
        cy_vec_push(s->a, out, x);
    }
    ae_stretch(s, &ae, out);
    ae_scalars(s, &ae, target->pos, out);
    ANode *as = an(s, S_ASSIGN, target->pos);
    cy_vec_push(s->a, &as->targets, an_elem(s, &ae, o->name, ae.nd, target->pos));
    as->value = elem;
    ae_loops(s, &ae, as, target->pos, out);
}

/* sum(expr) over memoryview operands, anywhere in the expressions of one
 * statement: a + reduction before the statement, whose result stands in. */
static void lower_array_sums(S *s, ANode *n, CyVec *out) {
    if (!n) return;
    switch (n->kind) {
    case A_BINOP: lower_array_sums(s, n->lhs, out); lower_array_sums(s, n->rhs, out); return;
    case A_UNOP: case A_CAST: case A_NOT: lower_array_sums(s, n->obj, out); return;
    case A_AND: case A_OR: lower_array_sums(s, n->lhs, out); lower_array_sums(s, n->rhs, out); return;
    case A_COND: lower_array_sums(s, n->cond, out); return; /* only what runs for sure */
    case A_COMPARE: case A_TUPLE: case A_LIST: case A_SET:
        for (int i = 0; i < n->items.len; i++) lower_array_sums(s, n->items.items[i], out);
        return;
    case A_CALL: break;
    default: return;
    }
    for (int i = 0; i < n->items.len; i++) lower_array_sums(s, n->items.items[i], out);
    if (!(n->obj->kind == A_NAME && !strcmp(n->obj->name, "sum") && !lookup(s, "sum") && n->items.len == 1 &&
          !n->kwnames.len && has_view_operand(s, n->items.items[0])))
        return;
    ANode *arg = n->items.items[0];
    int nd = max_view_ndim(s, arg);
    if (nd < 1) return;
    ArrExpr ae;
    ae_begin(s, &ae, nd, n->pos);
    ANode *elem = ae_rewrite(s, &ae, arg, out);
    /* the extents: those of the first operand with every dimension, or
       where operands stretch, numpy's: on each axis the extent other than
       1 of any operand (ae_check_shapes then sees that all agree) */
    int ref = 0;
    while (ref < ae.nops && ae.opv[ref]->ty->ndim != nd) ref++;
    if (ref == ae.nops) return;
    ae.ref = ae.opv[ref];
    for (int d = 0; d < nd && ae.nops > 1; d++) {
        IrVar *x = ae.ext[d] = synth_var(s, cy_fmt(s->a, "$n%d_%d", ae.id, d), cy_type_scalar(TY_SSIZE), n->pos);
        record_assign(s, x, n->pos, OP_NONE);
        cy_vec_push(s->a, out, assign_stmt(s, mk_var(s, x, n->pos), ir_shape(s, ae.ref, d, n->pos), n->pos, OP_NONE));
        for (int k = 0; k < ae.nops; k++) {
            IrVar *v = ae.opv[k];
            int j = d - (nd - v->ty->ndim);
            if (v == ae.ref || j < 0) continue;
            IrStmt *g = st(s, ST_IF, n->pos);
            g->cond = ir_cmp(s, OP_EQ, mk_var(s, x, n->pos), mk_int(s, 1, TY_SSIZE, n->pos), n->pos);
            cy_vec_push(s->a, &g->body, assign_stmt(s, mk_var(s, x, n->pos), ir_shape(s, v, j, n->pos), n->pos, OP_NONE));
            cy_vec_push(s->a, out, g);
        }
    }
    if (ae_check_shapes(s, &ae, out) < 0) return;
    ae_stretch(s, &ae, out);
    ae_scalars(s, &ae, n->pos, out);
    CyType *et = probe_type(s, elem);
    if (et == TY_ERR) {
        lower_expr(s, elem); /* report */
        return;
    }
    if (!is_cnum(et) || cy_type_is_complex(et)) {
        err(s, n->pos, "sum() of a memoryview expression of '%s' is not supported", et->name);
        return;
    }
    CyType *at = cy_type_is_float(et) ? cy_type_scalar(TY_DOUBLE) : cy_type_scalar(TY_LLONG);
    IrVar *acc = synth_var(s, cy_fmt(s->a, "$sum%d", ae.id), at, n->pos);
    record_assign(s, acc, n->pos, OP_NONE);
    cy_vec_push(s->a, out, assign_stmt(s, mk_var(s, acc, n->pos), coerce(s, mk_int(s, 0, TY_LONG, n->pos), at), n->pos, OP_NONE));
    ANode *add = an(s, S_AUGASSIGN, n->pos);
    add->op = "+";
    add->lhs = an_name(s, acc->name, n->pos);
    add->rhs = elem;
    ae_loops(s, &ae, add, n->pos, out);
    /* the call is now the accumulator (for this statement's lowering) */
    ANode *orig = an(s, n->kind, n->pos);
    *orig = *n;
    cy_vec_push(s->a, &s->sum_undo, n);
    cy_vec_push(s->a, &s->sum_undo, orig);
    n->kind = A_NAME;
    n->name = acc->name;
    n->obj = NULL;
    memset(&n->items, 0, sizeof n->items);
}

static int is_slice_target(S *s, ANode *t) {
    if (t->kind != A_INDEX) return 0;
    int sl = 0;
    for (int i = 0; i < t->items.len; i++) sl |= is_slice_item(t->items.items[i]);
    if (!sl) return 0;
    CyType *bt = probe_type(s, t->obj);
    return bt != TY_ERR && bt->kind == TY_VIEW;
}

/* v = [a, b, c] for a C array v (also nested lists for int[2][3]): every
 * item is evaluated into a temporary first, then the elements are stored,
 * so that v = [v[1], v[0]] swaps as Cython's copy from a temporary does. */
static int array_literal(S *s, IrExpr *tg, ANode *lit, CyVec *evals, CyVec *stores) {
    CyType *t = tg->ty;
    if (lit->kind != A_LIST && lit->kind != A_TUPLE) {
        err(s, lit->pos, "a C array can be assigned a list literal or an array of its type; %s",
            "other values are not supported by cyocl");
        return 0;
    }
    if (lit->items.len != t->alen) {
        err(s, lit->pos, "Assignment to slice of wrong length, expected %lld, got %d", t->alen, lit->items.len);
        return 0;
    }
    for (int k = 0; k < lit->items.len; k++) {
        ANode *it = lit->items.items[k];
        IrExpr *el = mk2(s, E_PTR_INDEX, t->base, it->pos, OP_NONE, tg, mk_int(s, k, TY_SSIZE, it->pos));
        if (t->base->kind == TY_ARRAY) {
            if (!array_literal(s, el, it, evals, stores)) return 0;
            continue;
        }
        IrExpr *v = lower_expr(s, it);
        if (v->ty == TY_ERR) return 0;
        v = coerce(s, v, t->base);
        if (v->ty == TY_ERR) return 0;
        IrVar *tmp = new_temp(s, t->base, it->pos);
        cy_vec_push(s->a, evals, assign_stmt(s, mk_var(s, tmp, it->pos), v, it->pos, OP_NONE));
        cy_vec_push(s->a, stores, assign_stmt(s, el, mk_var(s, tmp, it->pos), it->pos, OP_NONE));
    }
    return 1;
}

static void lower_array_literal(S *s, IrExpr *tg, ANode *lit, CyVec *out) {
    CyVec evals = {0}, stores = {0};
    if (!array_literal(s, tg, lit, &evals, &stores)) return;
    for (int i = 0; i < evals.len; i++) cy_vec_push(s->a, out, evals.items[i]);
    for (int i = 0; i < stores.len; i++) cy_vec_push(s->a, out, stores.items[i]);
}

static void lower_assign(S *s, ANode *n, CyVec *out) {
    /* a, b = x, y: evaluate the right side fully first */
    ANode *t0 = n->targets.items[0];
    if (n->targets.len == 1 && (t0->kind == A_TUPLE || t0->kind == A_LIST) && n->value->kind == A_TUPLE &&
        n->value->items.len == t0->items.len) {
        int k = t0->items.len;
        IrVar **tmps = cy_alloc(s->a, k * sizeof(IrVar *));
        for (int i = 0; i < k; i++) {
            IrExpr *v = lower_expr(s, n->value->items.items[i]);
            if (v->ty == TY_ERR) return;
            tmps[i] = new_temp(s, v->ty, n->pos);
            cy_vec_push(s->a, out, assign_stmt(s, mk_var(s, tmps[i], n->pos), v, n->pos, OP_NONE));
        }
        for (int i = 0; i < k; i++) assign_to(s, t0->items.items[i], mk_var(s, tmps[i], n->pos), out, n->pos);
        return;
    }
    if (n->targets.len == 1 && t0->kind == A_INDEX && t0->items.len == 1 && (n->value->kind == A_LIST || n->value->kind == A_TUPLE)) {
        /* v[:] = [...]: the elements are stored, v itself is not assigned
           (in a prange it stays shared, as in Cython) */
        ANode *sl = t0->items.items[0];
        if (sl->kind == A_SLICE && !sl->then && !sl->other && !sl->cond && probe_type(s, t0->obj)->kind == TY_ARRAY) {
            IrExpr *tg = lower_expr(s, t0->obj);
            if (tg->ty != TY_ERR) lower_array_literal(s, tg, n->value, out);
            return;
        }
    }
    if (n->targets.len == 1 && is_slice_target(s, t0)) {
        lower_array_assign(s, t0, n->value, out);
        return;
    }
    if (n->targets.len == 1 && (n->value->kind == A_LIST || n->value->kind == A_TUPLE) &&
        (t0->kind == A_NAME || t0->kind == A_INDEX) && probe_type(s, t0)->kind == TY_ARRAY) {
        IrExpr *tg = lower_target(s, t0, OP_NONE);
        if (tg) lower_array_literal(s, tg, n->value, out);
        return;
    }
    CyType *st0 = (n->value->kind == A_DICT || (n->value->kind == A_TUPLE && t0->kind != A_TUPLE &&
                                                t0->kind != A_LIST)) && n->targets.len == 1
                      ? probe_type(s, t0) : NULL;
    IrExpr *v = lower_for_type(s, n->value, st0);
    if (n->targets.len > 1 && v->ty != TY_ERR) {
        IrVar *tmp = new_temp(s, v->ty, n->pos);
        cy_vec_push(s->a, out, assign_stmt(s, mk_var(s, tmp, n->pos), v, n->pos, OP_NONE));
        v = mk_var(s, tmp, n->pos);
    }
    for (int i = 0; i < n->targets.len; i++) assign_to(s, n->targets.items[i], v, out, n->pos);
}

/* Whether evaluating n may call something (so evaluating it twice could
 * differ from once). */
static int has_call(const ANode *n) {
    if (!n) return 0;
    if (n->kind == A_CALL || n->kind == A_COMP) return 1;
    const ANode *kids[] = {n->lhs, n->rhs, n->obj, n->cond, n->then, n->other};
    for (size_t i = 0; i < sizeof kids / sizeof kids[0]; i++)
        if (has_call(kids[i])) return 1;
    for (int i = 0; i < n->items.len; i++)
        if (has_call(n->items.items[i])) return 1;
    return 0;
}

static void lower_augassign(S *s, ANode *n, CyVec *out) {
    IrOp op = cy_op_binary(n->op);
    if (is_slice_target(s, n->lhs)) {
        /* a[...] op= expr is a[...] = a[...] op (expr), element by element */
        ANode *b = an(s, A_BINOP, n->pos);
        b->op = n->op;
        b->lhs = n->lhs;
        b->rhs = n->rhs;
        b->parenthesized = 1;
        lower_array_assign(s, n->lhs, b, out);
        return;
    }
    CyType *tt = probe_type(s, n->lhs);
    if (tt == TY_ERR) {
        lower_expr(s, n->lhs); /* report */
        return;
    }
    int c_inplace = op == OP_ADD || op == OP_SUB || op == OP_MUL || op == OP_BITAND || op == OP_BITOR ||
                    op == OP_BITXOR || op == OP_SHL || op == OP_SHR ||
                    (op == OP_DIV && s->dir.cdivision && (cy_type_is_float(tt) || cy_type_is_complex(tt)));
    /* a Python object on the right makes it x = x op v in Python, then
       converted back (Cython: PyNumber_InPlaceAdd and the C conversion) */
    CyType *rt = probe_type(s, n->rhs);
    CyType *ot = n->lhs->kind == A_ATTR ? probe_type(s, n->lhs->obj) : NULL;
    int field = ot && (ot->kind == TY_STRUCT || (ot->kind == TY_PTR && ot->base->kind == TY_STRUCT) ||
                       (ot->cls && class_attr(ot->cls, n->lhs->name)));
    if (is_cnum(tt) && c_inplace && !is_obj(rt) && (n->lhs->kind == A_NAME || n->lhs->kind == A_INDEX || field)) {
        IrExpr *v = lower_expr(s, n->rhs);
        IrExpr *tg = lower_target(s, n->lhs, op);
        if (!tg || v->ty == TY_ERR) return;
        /* type-check as the binary operation would */
        IrExpr *chk = arith(s, n->pos, op, tg, v);
        if (chk->ty == TY_ERR) return;
        if (cy_type_is_complex(chk->ty) && !cy_type_is_complex(tt)) {
            err(s, n->rhs->pos, "Cannot assign type '%s' to '%s'", chk->ty->name, tt->name);
            return;
        }
        if (op != OP_SHL && op != OP_SHR) v = coerce(s, v, chk->ty);
        cy_vec_push(s->a, out, assign_stmt(s, tg, v, n->pos, op));
        return;
    }
    if (n->lhs->kind != A_NAME && !is_obj(tt) && !((n->lhs->kind == A_INDEX || field) && !has_call(n->lhs))) {
        err(s, n->pos, "in-place '%s=' on this target is not supported", n->op);
        return;
    }
    /* x = x op v, Python semantics (objects; // % ** / on C values); the
       read of x is part of its in-place update, not a read of its own
       (Cython: "Cannot read reduction variable" is for other reads) */
    int own = n->lhs->kind == A_NAME;
    s->inplace_read += own;
    IrExpr *cur = lower_expr(s, n->lhs);
    s->inplace_read -= own;
    IrExpr *v = lower_expr(s, n->rhs);
    IrExpr *r = arith(s, n->pos, op, cur, v);
    IrExpr *tg = lower_target(s, n->lhs, is_cnum(tt) ? op : OP_NONE);
    if (!tg || r->ty == TY_ERR) return;
    cy_vec_push(s->a, out, assign_stmt(s, tg, coerce(s, r, tg->ty), n->pos, OP_NONE));
}

static int is_range_call(S *s, ANode *it, int *is_prange) {
    *is_prange = 0;
    if (it->kind != A_CALL) return 0;
    if (it->synthetic) {
        *is_prange = it->synthetic == 1;
        return 1;
    }
    ANode *f = it->obj;
    /* Cython takes xrange for range in every language level */
    if (f->kind == A_NAME && (!strcmp(f->name, "range") || !strcmp(f->name, "xrange")) && !lookup(s, f->name))
        return 1;
    Sym *h = f->kind == A_NAME ? lookup(s, f->name) : f->kind == A_ATTR && f->obj->kind == A_NAME ? lookup(s, f->obj->name) : NULL;
    if (h && (h->kind == SY_CNAME || h->kind == SY_CMOD)) {
        const char *q = qual_of(s, f);
        if (q && !strcmp(q, "cython.parallel.prange")) {
            *is_prange = 1;
            return 1;
        }
    }
    if (f->kind == A_ATTR && f->obj->kind == A_ATTR) {
        const char *q = qual_of(s, f);
        if (q && !strcmp(q, "cython.parallel.prange")) {
            *is_prange = 1;
            return 1;
        }
    }
    return 0;
}

static int step_sign_of(IrExpr *step) {
    if (!step) return 1;
    if (step->kind == E_INT) return (int64_t)step->ival > 0 ? 1 : (int64_t)step->ival < 0 ? -1 : 0;
    if (step->kind == E_CAST && step->args[0]->kind == E_INT) return step_sign_of(step->args[0]);
    return 0;
}

static int is_zero_const(IrExpr *e) {
    while (e && e->kind == E_CAST) e = e->args[0];
    return e && e->kind == E_INT && e->ival == 0;
}

/* Where prange's variable or a bound (NULL: not given) is unsigned,
 * Cython's count differs from the mathematical one (IrRegion.ctype): 1
 * and *ct, Cython's widest type of them. */
static int cython_count_type(IrVar *v, IrExpr *const b[3], CyType **ct) {
    *ct = v->ty;
    int uns = !v->ty->is_signed;
    for (int i = 0; i < 3; i++) {
        if (!b[i]) continue;
        if (b[i]->ty == TY_ERR) return 0;
        *ct = cy_type_span(*ct, b[i]->ty);
        uns |= !b[i]->ty->is_signed && b[i]->ty->kind != TY_BINT;
    }
    return uns;
}

/* l op r as C computes it: the usual arithmetic conversions made explicit
 * (C's / on integers) */
static IrExpr *c_op(S *s, CyPos p, IrOp op, IrExpr *l, IrExpr *r) {
    CyType *t = cy_type_arith(l->ty, r->ty);
    IrExpr *e = mk2(s, E_BINOP, t, p, op, coerce(s, l, t), coerce(s, r, t));
    e->cdivision = 1;
    return e;
}

/* A prange nested in a prange runs serially (OpenMP's nested region has
 * one thread), with Cython's count where it is not range()'s: the bounds
 * once (a literal as Cython spells it: 0 an int, -1 a long), nsteps =
 * (stop - start + step - step/abs(step)) / step in ct, and a loop over k in
 * [0, nsteps) that sets v = start + step * k converted to v's type. */
static IrStmt *nested_prange(S *s, CyPos p, IrVar *v, IrExpr *const given[3], CyType *ct, CyVec *out) {
    IrExpr *bv[3];
    for (int i = 0; i < 3; i++) {
        IrExpr *g = given[i];
        int64_t c;
        if (!g) bv[i] = mk_int(s, i == 2, TY_INT, p);
        else if (g->kind == E_INT && cy_const_int(g, &c)) bv[i] = mk_int(s, c, c >= 0 && c <= 0x7fffffff ? TY_INT : TY_LONG, p);
        else {
            IrVar *t = new_temp(s, g->ty, p);
            cy_vec_push(s->a, out, assign_stmt(s, mk_var(s, t, p), g, p, OP_NONE));
            record_assign(s, t, p, OP_NONE);
            bv[i] = mk_var(s, t, p);
        }
    }
    CyType *it = cy_type_scalar(TY_INT);
    IrExpr *ab = mk1(s, E_CALL_C, it, p, coerce(s, bv[2], it));
    ab->sval = "cyrt_abs";
    IrExpr *cnt = c_op(s, p, OP_DIV,
                       c_op(s, p, OP_SUB, c_op(s, p, OP_ADD, c_op(s, p, OP_SUB, bv[1], bv[0]), bv[2]),
                            c_op(s, p, OP_DIV, bv[2], ab)),
                       bv[2]);
    IrVar *tn = new_temp(s, ct, p), *k = new_temp(s, ct, p);
    cy_vec_push(s->a, out, assign_stmt(s, mk_var(s, tn, p), coerce(s, cnt, ct), p, OP_NONE));
    record_assign(s, tn, p, OP_NONE);
    record_assign(s, k, p, OP_NONE);
    IrStmt *x = st(s, ST_FOR_RANGE, p);
    x->var = k;
    x->start = coerce(s, mk_int(s, 0, TY_LONG, p), ct);
    x->stop = mk_var(s, tn, p);
    x->step_sign = 1;
    IrExpr *idx = c_op(s, p, OP_ADD, bv[0], c_op(s, p, OP_MUL, bv[2], mk_var(s, k, p)));
    cy_vec_push(s->a, &x->body, assign_stmt(s, mk_var(s, v, p), coerce(s, idx, v->ty), p, OP_NONE));
    return x;
}

/* Loop target of range()/prange(): a C integer variable. */
static IrVar *loop_var(S *s, ANode *t, const char *what) {
    if (t->kind != A_NAME) {
        err(s, t->pos, "%s target must be a variable", what);
        return NULL;
    }
    Sym *y = lookup(s, t->name);
    if (!y || !(y->kind == SY_VAR || y->kind == SY_PYVAR) || !y->var) {
        err(s, t->pos, "undeclared name not builtin: %s", t->name);
        return NULL;
    }
    return y->var;
}

static int is_reduction_op(IrOp op) {
    return op == OP_ADD || op == OP_SUB || op == OP_MUL || op == OP_BITAND || op == OP_BITOR || op == OP_BITXOR;
}


/* The access, in source order, still to be warned about (flag 2): with
 * addr, for its address taken of a shared variable, else for a read before
 * the body assigns it.  The warnings come out in source order. */
static Access *earliest_flagged(Access *acc, int addr) {
    Access *first = NULL;
    for (Access *x = acc; x; x = x->next) {
        if ((addr ? x->addr : x->read_first) != 2) continue;
        CyPos p = addr ? x->addr_pos : x->read_first_pos, q;
        if (first) q = addr ? first->addr_pos : first->read_first_pos;
        if (!first || p.line < q.line || (p.line == q.line && p.col < q.col)) first = x;
    }
    return first;
}
static void classify(S *s, RegionCtx *rc) {
    IrRegion *r = rc->r;
    if (!r->is_prange) {
        /* a prange directly inside a parallel() block may not assign what
           the block itself assigns (Cython: "too implicit") */
        for (int i = 0; i < rc->inner_acc.len; i++)
            for (Access *y = rc->inner_acc.items[i]; y; y = y->next) {
                if (!y->direct) continue;
                for (Access *x = rc->acc; x; x = x->next)
                    if (x->var == y->var && x->direct)
                        err(s, y->direct_pos, "Cannot assign to private of outer parallel block");
            }
    }
    for (Access *x = rc->acc; x; x = x->next) {
        IrVar *v = x->var;
        IrVarUse *u = cy_alloc(s->a, sizeof *u);
        u->var = v;
        u->cls = RC_SHARED;
        if (v == r->index) {
            u->cls = r->is_prange ? RC_LASTPRIVATE : RC_PRIVATE;
        } else if (v->kind == V_PYGLOBAL) {
            /* a Python-level global lives in the module dict: only code
               holding the GIL touches it, one thread at a time */
            u->cls = RC_SHARED;
        } else if (!x->any) {
            u->cls = RC_SHARED;
            /* Cython makes a variable private only where the body assigns
               it: one passed by address alone (f(&r)) is the team's one
               variable, a race wherever it is written through the pointer.
               Valid Cython, so a warning; the outermost region decides. */
            if (x->addr && !rc->outer && v->name[0] != '$' && (v->kind == V_LOCAL || v->kind == V_PARAM) &&
                v->ty->kind != TY_OPAQUE) /* not a lock (omp_lock_t), shared on purpose */
                x->addr = 2; /* warned below, in source order */
        } else if (!r->is_prange) {
            if (x->direct && x->direct_op)
                err(s, x->direct_pos, "Reductions not allowed for parallel blocks");
            else if (is_obj(v->ty))
                err(s, v->pos, "Python object variable '%s' cannot be assigned in a parallel region", v->name);
            u->cls = RC_PRIVATE;
        } else if (v->name[0] == '$' && x->plain) {
            /* sema's own accumulator of a sum() inside the region (zeroed,
               then summed by serial loops, then read): private to each
               iteration, whatever Cython would say of the same code by hand */
            u->cls = RC_LASTPRIVATE;
        } else {
            if (x->last_op && x->read) err(s, x->read_pos, "Cannot read reduction variable in loop body");
            if (is_reduction_op(x->last_op)) {
                if (!is_cnum(v->ty) || cy_type_is_complex(v->ty))
                    err(s, x->direct_pos, "reduction variable '%s' must have a C numeric type, not '%s'", v->name,
                        v->ty->name);
                u->cls = RC_REDUCTION;
                u->redop = x->last_op;
            } else {
                if (is_obj(v->ty)) err(s, v->pos, "Python object variable '%s' cannot be assigned in a parallel region", v->name);
                u->cls = RC_LASTPRIVATE;
            }
        }
        /* private to each thread (a plain assignment: not a reduction) but
           read before the body assigns it (lo = min(lo, x[i]), s = s + x[i]):
           each thread carries its own value from iteration to iteration, so
           what is read, and the value after the loop, depend on how the
           iterations are split (Cython's build gives other numbers with
           another OMP_NUM_THREADS, a kernel's work-items others again) */
        if ((u->cls == RC_LASTPRIVATE || u->cls == RC_PRIVATE) && x->read_carried && v != r->index &&
            v->name[0] != '$' && (v->kind == V_LOCAL || v->kind == V_PARAM) && x->addr != 2)
            x->read_first = 2;
        cy_vec_push(s->a, &r->vars, u);
    }
    for (Access *first; (first = earliest_flagged(rc->acc, 0));) {
        first->read_first = 1;
        const char *nm = first->var->name;
        warn(s, first->read_first_pos,
             "'%s' is read in the %s before the body assigns it, and the assignment makes it private to each "
             "thread (only +=, -=, *=, &=, |=, ^= make a reduction): each thread carries its own '%s' from "
             "iteration to iteration, so what is read here and '%s' after the loop depend on how the iterations "
             "are split among threads (Cython's build gives other numbers with another OMP_NUM_THREADS); assign "
             "it before reading it in the body, or use an in-place reduction",
             nm, r->is_prange ? "prange body" : "parallel block", nm, nm);
    }
    for (Access *first; (first = earliest_flagged(rc->acc, 1));) {
        first->addr = 1;
        const char *nm = first->var->name;
        warn(s, first->addr_pos,
             "'%s' is shared by all threads of the %s: the body takes its address but never assigns it, so every "
             "thread gets the same '%s' (a race if it is written through the pointer); assign it in the body "
             "(%s = ...) to make it private to each thread",
             nm, r->is_prange ? "prange" : "parallel block", nm, nm);
    }
    if (r->index) {
        int found = 0;
        for (int i = 0; i < r->vars.len; i++) found |= ((IrVarUse *)r->vars.items[i])->var == r->index;
        if (!found) {
            IrVarUse *u = cy_alloc(s->a, sizeof *u);
            u->var = r->index;
            u->cls = RC_LASTPRIVATE;
            cy_vec_push(s->a, &r->vars, u);
        }
    }
    /* the enclosing parallel() block checks this prange's assignments */
    if (r->is_prange && rc->outer && !rc->outer->r->is_prange) cy_vec_push(s->a, &rc->outer->inner_acc, rc->acc);
}

static IrRegion *new_region(S *s, CyPos p, int is_prange) {
    IrRegion *r = cy_alloc(s->a, sizeof *r);
    r->id = s->m->nregions++;
    r->pos = p;
    r->is_prange = is_prange;
    r->func = s->fn;
    cy_vec_push(s->a, &s->m->regions, r);
    if (s->fn) cy_vec_push(s->a, &s->fn->regions, r);
    for (RegionCtx *rc = s->rctx; rc; rc = rc->outer)
        if (!rc->r->is_prange) {
            r->parent = rc->r;
            break;
        }
    return r;
}

static int bool_literal(ANode *v, int *out) {
    if (v->kind == A_TRUE || v->kind == A_FALSE) {
        *out = v->kind == A_TRUE;
        return 1;
    }
    if (v->kind == A_INT) {
        *out = v->ival != 0;
        return 1;
    }
    return 0;
}

/* `for i from a <= i < b by s` (and the '>' forms, counting down): C's loop,
 * as Cython compiles it.  The bounds and step are taken once; i is assigned
 * the first value before the test, and after a loop that ends without break
 * it holds the first value that failed it.  Lowered to the range() loop of
 * the same values, with i set before and stepped once more after it. */
static void lower_for_from(S *s, ANode *n, CyVec *out) {
    ANode *t = n->targets.items[0], *c = n->cond;
    IrVar *var = loop_var(s, t, "for-from");
    if (!var) return;
    /* an object target (an untyped one Cython keeps a Python int) counts in
       a C long, the type Cython gives the bounds, and gets each value boxed */
    IrVar *v = var;
    if (is_obj(var->ty)) {
        if (!need_gil(s, n->pos, "Operation on Python object")) return;
        v = new_temp(s, cy_type_scalar(TY_LONG), t->pos);
    } else if (!cy_type_is_int(v->ty) || v->ty->kind == TY_BINT) {
        err(s, t->pos, "for-from loop variable '%s' must be a C integer, not '%s'", v->name, v->ty->name);
        return;
    }
    const char *op1 = c->kwnames.items[0], *op2 = c->kwnames.items[1];
    int down = op1[0] == '>';
    IrExpr *lo = coerce(s, lower_expr(s, c->items.items[0]), v->ty);
    IrExpr *hi = coerce(s, lower_expr(s, c->items.items[2]), v->ty);
    IrExpr *step = n->other ? coerce(s, lower_expr(s, n->other), v->ty) : NULL;
    if (lo->ty == TY_ERR || hi->ty == TY_ERR || (step && step->ty == TY_ERR)) return;
    IrExpr *one = mk_int(s, 1, TY_INT, c->pos);
    if (!op1[1]) lo = coerce(s, arith(s, c->pos, down ? OP_SUB : OP_ADD, lo, one), v->ty); /* a < i: from a + 1 */
    if (op2[1]) hi = coerce(s, arith(s, c->pos, down ? OP_SUB : OP_ADD, hi, one), v->ty);  /* i <= b: to b + 1 */
    IrVar *tlo = new_temp(s, v->ty, c->pos), *thi = new_temp(s, v->ty, c->pos), *tst = NULL;
    cy_vec_push(s->a, out, assign_stmt(s, mk_var(s, tlo, c->pos), lo, c->pos, OP_NONE));
    cy_vec_push(s->a, out, assign_stmt(s, mk_var(s, thi, c->pos), hi, c->pos, OP_NONE));
    record_assign(s, tlo, c->pos, OP_NONE);
    record_assign(s, thi, c->pos, OP_NONE);
    if (step) {
        if (is_zero_const(step)) {
            err(s, step->pos, "for-from step must not be zero");
            return;
        }
        if (down) step = coerce(s, arith(s, step->pos, OP_SUB, mk_int(s, 0, TY_INT, step->pos), step), v->ty);
        tst = new_temp(s, v->ty, step->pos);
        cy_vec_push(s->a, out, assign_stmt(s, mk_var(s, tst, step->pos), step, step->pos, OP_NONE));
        record_assign(s, tst, step->pos, OP_NONE);
    }
    cy_vec_push(s->a, out, assign_stmt(s, mk_var(s, v, t->pos), mk_var(s, tlo, t->pos), t->pos, OP_NONE));
    record_assign(s, v, t->pos, OP_NONE);
    IrStmt *x = st(s, ST_FOR_RANGE, n->pos);
    x->var = v;
    x->start = mk_var(s, tlo, c->pos);
    x->stop = mk_var(s, thi, c->pos);
    x->step = tst ? mk_var(s, tst, c->pos) : down ? coerce(s, mk_int(s, -1, TY_INT, c->pos), v->ty) : NULL;
    x->step_sign = tst ? 0 : down ? -1 : 1;
    if (var != v) {
        record_assign(s, var, t->pos, OP_NONE);
        cy_vec_push(s->a, &x->body, assign_stmt(s, mk_var(s, var, t->pos), box(s, mk_var(s, v, t->pos)), t->pos, OP_NONE));
    }
    s->loop_depth++;
    lower_block(s, &n->body, &x->body);
    s->loop_depth--;
    /* ran at least once (the bounds are temporaries): one more step */
    IrStmt *fix = st(s, ST_IF, n->pos);
    fix->cond = compare2(s, n->pos, down ? OP_GT : OP_LT, mk_var(s, tlo, n->pos), mk_var(s, thi, n->pos));
    IrExpr *inc = x->step ? x->step : coerce(s, mk_int(s, 1, TY_INT, n->pos), v->ty);
    cy_vec_push(s->a, &fix->body, assign_stmt(s, mk_var(s, v, n->pos), inc, n->pos, OP_ADD));
    cy_vec_push(s->a, &x->orelse, fix);
    if (var != v)
        cy_vec_push(s->a, &x->orelse, assign_stmt(s, mk_var(s, var, t->pos), box(s, mk_var(s, v, t->pos)), t->pos, OP_NONE));
    lower_block(s, &n->orelse, &x->orelse);
    cy_vec_push(s->a, out, x);
}

/* Before a parallel region (the outermost): each `v.attr` its body reads,
 * v a variable of a cdef class type and attr a C attribute other than an
 * object, is loaded into a local the region then reads instead.  Stores to
 * such an attribute inside the region would not reach the instance. */
static void hoist_walk(S *s, ANode *n, CyVec *out, int target);

static void hoist_vec(S *s, CyVec *v, CyVec *out) {
    for (int i = 0; i < v->len; i++) hoist_walk(s, v->items[i], out, 0);
}

static IrVar *hoist_attr(S *s, IrVar *obj, IrAttr *at, CyPos pos, CyVec *out) {
    for (int i = 0; i < s->hoists.len; i++) {
        Hoist *h = s->hoists.items[i];
        if (h->obj == obj && !strcmp(h->attr, at->name)) return h->local;
    }
    Hoist *h = cy_alloc(s->a, sizeof *h);
    h->obj = obj;
    h->attr = at->name;
    h->local = synth_var(s, cy_fmt(s->a, "%s.%s$%d", obj->name, at->name, s->ntmp), at->ty, pos);
    IrExpr *sl = mk1(s, E_SLOT, at->ty, pos, mk_var(s, obj, pos));
    sl->sval = at->name;
    sl->ival = 0; /* a region that never runs must not raise: its accesses are bounds-checked instead */
    cy_vec_push(s->a, out, assign_stmt(s, mk_var(s, h->local, pos), sl, pos, OP_NONE));
    cy_vec_push(s->a, &s->hoists, h);
    return h->local;
}

static void flat_scan(Flat *f, ANode *n, const char *self, const IrClass *c, int target);

static void flat_vec(Flat *f, CyVec *v, const char *self, const IrClass *c) {
    for (int i = 0; i < v->len; i++) flat_scan(f, v->items[i], self, c, 0);
}

static void flat_scan(Flat *f, ANode *n, const char *self, const IrClass *c, int target) {
    if (!n || !f->ok) return;
    if (n->kind == A_ATTR && n->obj->kind == A_NAME && !strcmp(n->obj->name, self)) {
        IrAttr *at = class_attr(c, n->name);
        if (!at || is_obj(at->ty) || at->ty->kind == TY_ARRAY || target) {
            f->ok = 0;
            return;
        }
        for (int i = 0; i < f->attrs.len; i++)
            if (f->attrs.items[i] == at) return;
        cy_vec_push(f->a, &f->attrs, at);
        return;
    }
    if (n->kind == A_NAME && !strcmp(n->name, self)) {
        f->ok = 0;
        return;
    }
    flat_scan(f, n->obj, self, c, 0);
    flat_scan(f, n->lhs, self, c, n->kind == S_AUGASSIGN);
    flat_scan(f, n->rhs, self, c, 0);
    flat_scan(f, n->cond, self, c, 0);
    flat_scan(f, n->then, self, c, 0);
    flat_scan(f, n->other, self, c, 0);
    flat_scan(f, n->value, self, c, 0);
    flat_vec(f, &n->items, self, c);
    flat_vec(f, &n->values, self, c);
    for (int i = 0; i < n->targets.len; i++) flat_scan(f, n->targets.items[i], self, c, n->kind == S_ASSIGN);
    flat_vec(f, &n->inits, self, c);
    flat_vec(f, &n->body, self, c);
    flat_vec(f, &n->orelse, self, c);
    flat_vec(f, &n->handlers, self, c);
    flat_vec(f, &n->tryelse, self, c);
    for (int i = 0; i < n->with_items.len; i++) flat_scan(f, ((AWithItem *)n->with_items.items[i])->expr, self, c, 0);
}

static Flat *flat_of(S *s, IrFunc *m) {
    Flat *f = cy_pmap_get(&s->flats, m);
    if (f) return f->ok ? f : NULL;
    f = cy_alloc(s->a, sizeof *f);
    f->a = s->a;
    f->m = m;
    cy_pmap_put(s->a, &s->flats, m, f);
    for (int i = 0; i + 1 < s->methods.len; i += 2)
        if (s->methods.items[i + 1] == m) f->af = s->methods.items[i];
    f->ok = f->af && m->kind != F_DEF && m->is_nogil && !m->with_gil && !m->overrides.len && m->cls;
    if (!f->ok) return NULL;
    flat_vec(f, &f->af->body, ((IrVar *)m->params.items[0])->name, m->cls);
    if (!f->ok) return NULL;
    IrFunc *g = cy_alloc(s->a, sizeof *g);
    *g = *m;
    g->params = g->param_defaults = g->param_not_none = g->locals = g->body = g->regions = g->overrides = (CyVec){0};
    g->cls = NULL;
    g->vroot = NULL;
    g->kind = F_CDEF;
    g->cname = cy_fmt(s->a, "%s_flat", m->cname);
    for (int i = 0; i < f->attrs.len; i++) {
        IrAttr *at = f->attrs.items[i];
        IrVar *p = new_var(s, cy_fmt(s->a, "self.%s", at->name), at->ty, V_PARAM, m->pos);
        p->cname = cy_fmt(s->a, "v_self_%s", at->name);
        cy_vec_push(s->a, &g->params, p);
        cy_vec_push(s->a, &g->param_defaults, NULL);
        cy_vec_push(s->a, &g->param_not_none, NULL);
    }
    for (int i = 1; i < m->params.len; i++) {
        IrVar *op = m->params.items[i];
        cy_vec_push(s->a, &g->params, new_var(s, op->name, op->ty, V_PARAM, op->pos));
        cy_vec_push(s->a, &g->param_defaults, m->param_defaults.items[i]);
        cy_vec_push(s->a, &g->param_not_none, m->param_not_none.items[i]);
    }
    g->npos = g->params.len;
    f->fn = g;
    cy_vec_push(s->a, &s->m->funcs, g);
    cy_vec_push(s->a, &s->flat_todo, f);
    return f;
}

static void hoist_walk(S *s, ANode *n, CyVec *out, int target) {
    if (!n) return;
    if (n->kind == A_CALL && n->obj->kind == A_ATTR && n->obj->obj->kind == A_NAME) {
        /* self.f(...) of a method with a flat version: what it reads of self too */
        Sym *y = lookup(s, n->obj->obj->name);
        IrFunc *mf = y && y->kind == SY_VAR && y->var && y->var->ty->cls ? class_method(y->var->ty->cls, n->obj->name)
                                                                         : NULL;
        Flat *fl = mf && mf->kind != F_DEF ? flat_of(s, mf) : NULL;
        if (fl) {
            for (int i = 0; i < fl->attrs.len; i++) hoist_attr(s, y->var, fl->attrs.items[i], n->pos, out);
            hoist_vec(s, &n->items, out);
            hoist_vec(s, &n->values, out);
            return;
        }
    }
    if (n->kind == A_ATTR && n->obj->kind == A_NAME) {
        Sym *y = lookup(s, n->obj->name);
        IrAttr *at = y && y->kind == SY_VAR && y->var && y->var->ty->cls ? class_attr(y->var->ty->cls, n->name) : NULL;
        if (at && target) {
            err(s, n->pos, "assignment to attribute '%s' of a cdef class instance inside a parallel region is not "
                           "supported by cyocl (assign a local, then the attribute after the region)", n->name);
            /* reported: its uses in the region are errors without another message */
            Hoist *h = cy_alloc(s->a, sizeof *h);
            h->obj = y->var;
            h->attr = at->name;
            cy_vec_push(s->a, &s->hoists, h);
            return;
        }
        if (at && !is_obj(at->ty) && at->ty->kind != TY_ARRAY) {
            hoist_attr(s, y->var, at, n->pos, out);
            return;
        }
    }
    hoist_walk(s, n->obj, out, 0);
    hoist_walk(s, n->lhs, out, n->kind == S_AUGASSIGN);
    hoist_walk(s, n->rhs, out, 0);
    hoist_walk(s, n->cond, out, 0);
    hoist_walk(s, n->then, out, 0);
    hoist_walk(s, n->other, out, 0);
    hoist_walk(s, n->value, out, 0);
    hoist_vec(s, &n->items, out);
    hoist_vec(s, &n->values, out);
    for (int i = 0; i < n->targets.len; i++) hoist_walk(s, n->targets.items[i], out, n->kind == S_ASSIGN);
    hoist_vec(s, &n->inits, out);
    hoist_vec(s, &n->body, out);
    hoist_vec(s, &n->orelse, out);
    hoist_vec(s, &n->handlers, out);
    hoist_vec(s, &n->tryelse, out);
    for (int i = 0; i < n->with_items.len; i++) hoist_walk(s, ((AWithItem *)n->with_items.items[i])->expr, out, 0);
}

static void lower_for(S *s, ANode *n, CyVec *out) {
    int is_prange;
    ANode *t = n->targets.items[0], *it = n->value;
    if (n->for_from) {
        lower_for_from(s, n, out);
        return;
    }
    if (!is_range_call(s, it, &is_prange)) {
        CyType *vt = probe_type(s, it);
        if (is_view(vt) && vt->ndim >= 2) {
            /* Cython iterates its memoryview object: the sub-views along the
               first axis, taken from the view as it was when the loop began:
               for $i in range(V.shape[0]): t = V[$i] */
            if (!need_gil(s, n->pos, "Iterating over Python object")) return;
            IrExpr *seq = lower_expr(s, it);
            if (seq->ty == TY_ERR) return;
            const char *vn = cy_fmt(s->a, "$itv%d", s->ntmp), *in = cy_fmt(s->a, "$iti%d", s->ntmp);
            IrVar *vv = synth_var(s, vn, seq->ty, n->pos);
            synth_var(s, in, cy_type_scalar(TY_SSIZE), n->pos);
            cy_vec_push(s->a, out, assign_stmt(s, mk_var(s, vv, n->pos), seq, n->pos, OP_NONE));
            /* a None view is None to iterate, as Cython converts it */
            ANode *base = an(s, A_ATTR, n->pos), *none = an(s, A_COMPARE, n->pos), *chk = an(s, S_IF, n->pos);
            base->obj = an_name(s, vn, n->pos);
            base->name = "base";
            cy_vec_push(s->a, &none->items, base);
            cy_vec_push(s->a, &none->items, an(s, A_NONE, n->pos));
            cy_vec_push(s->a, &none->kwnames, (void *)"is");
            ANode *exc = an(s, A_CALL, n->pos), *msg = an(s, A_STR, n->pos), *rs = an(s, S_RAISE, n->pos);
            exc->obj = an_name(s, "TypeError", n->pos);
            msg->sval = "'NoneType' is not iterable"; /* Cython's wording */
            msg->slen = (int)strlen(msg->sval);
            cy_vec_push(s->a, &exc->items, msg);
            rs->value = exc;
            chk->cond = none;
            cy_vec_push(s->a, &chk->body, rs);
            lower_stmt(s, chk, out);
            ANode *f = an(s, S_FOR, n->pos);
            cy_vec_push(s->a, &f->targets, an_name(s, in, n->pos));
            ANode *call = an(s, A_CALL, n->pos);
            call->obj = an_name(s, "range", n->pos);
            call->synthetic = 2;
            cy_vec_push(s->a, &call->items, an_shape(s, vn, 0, n->pos));
            f->value = call;
            ANode *row = an(s, A_INDEX, n->pos);
            row->obj = an_name(s, vn, n->pos);
            cy_vec_push(s->a, &row->items, an_name(s, in, n->pos));
            ANode *as = an(s, S_ASSIGN, t->pos);
            cy_vec_push(s->a, &as->targets, t);
            as->value = row;
            cy_vec_push(s->a, &f->body, as);
            for (int i = 0; i < n->body.len; i++) cy_vec_push(s->a, &f->body, n->body.items[i]);
            f->orelse = n->orelse;
            lower_for(s, f, out);
            return;
        }
        /* Python iteration */
        if (!need_gil(s, n->pos, "Iterating over Python object")) return;
        IrExpr *seq = lower_expr(s, it);
        int view1 = is_view(seq->ty) && seq->ty->ndim == 1 && !cy_type_is_complex(seq->ty->base);
        seq = box(s, seq);
        if (view1 && seq->ty != TY_ERR) {
            /* Cython iterates its own memoryview object: Python numbers, not
               the exporter's items (numpy scalars); so does Python's memoryview */
            IrExpr *c = mk(s, E_OBJ_CALL, cy_type_scalar(TY_OBJECT), it->pos);
            IrExpr *callee = mk(s, E_PYGLOBAL, cy_type_scalar(TY_OBJECT), it->pos);
            callee->sval = "memoryview";
            c->nargs = 2;
            c->args = cy_alloc(s->a, 2 * sizeof(IrExpr *));
            c->args[0] = callee;
            c->args[1] = seq;
            seq = c;
        }
        IrStmt *x = st(s, ST_FOR_ITER, n->pos);
        x->value = seq;
        IrVar *tmp = new_temp(s, cy_type_scalar(TY_OBJECT), n->pos);
        x->var = tmp;
        s->loop_depth++;
        assign_to(s, t, mk_var(s, tmp, n->pos), &x->body, n->pos);
        lower_block(s, &n->body, &x->body);
        s->loop_depth--;
        lower_block(s, &n->orelse, &x->orelse);
        cy_vec_push(s->a, out, x);
        return;
    }
    const char *what = is_prange ? "prange" : "range";
    int npos = it->items.len;
    if (npos < 1 || npos > 3) {
        err(s, it->pos, "%s() takes 1 to 3 positional arguments (%d given)", what, npos);
        return;
    }
    IrVar *v = loop_var(s, t, what);
    if (!v) return;
    if (!cy_type_is_int(v->ty) || v->ty->kind == TY_BINT) {
        if (is_prange || !is_obj(v->ty)) {
            err(s, t->pos, "%s() loop variable '%s' must be a C integer, not '%s'", what, v->name, v->ty->name);
            return;
        }
        /* object target: iterate the Python range */
        if (!need_gil(s, n->pos, "Iterating over Python object")) return;
        IrStmt *x = st(s, ST_FOR_ITER, n->pos);
        x->value = lower_expr(s, it);
        x->var = v;
        record_assign(s, v, t->pos, OP_NONE);
        s->loop_depth++;
        lower_block(s, &n->body, &x->body);
        s->loop_depth--;
        lower_block(s, &n->orelse, &x->orelse);
        cy_vec_push(s->a, out, x);
        return;
    }
    IrExpr *b[3];
    for (int i = 0; i < npos; i++) {
        b[i] = lower_expr(s, it->items.items[i]);
        if (b[i]->ty != TY_ERR && !cy_type_is_int(b[i]->ty)) {
            if (is_obj(b[i]->ty) && !(is_prange && s->nogil)) b[i] = coerce(s, b[i], v->ty);
            else {
                err(s, b[i]->pos, "%s() arguments must be C integers, not '%s'", what, b[i]->ty->name);
                b[i] = mk_err(s, b[i]->pos);
            }
        }
    }
    IrExpr *start = npos == 1 ? mk_int(s, 0, TY_LONG, it->pos) : b[0];
    IrExpr *stop = npos == 1 ? b[0] : b[1];
    IrExpr *step = npos == 3 ? b[2] : NULL;
    IrExpr *cstart = npos == 1 ? NULL : start, *cstop = stop, *cstep = step;
    start = coerce(s, start, v->ty);
    stop = coerce(s, stop, v->ty);
    if (step) step = coerce(s, step, v->ty);
    if (step && is_zero_const(step)) {
        err(s, step->pos, "%s() step must not be zero", what);
        return;
    }
    if (!is_prange || s->prange_depth > 0) {
        /* a serial loop (a prange nested in a prange runs serially, as
           OpenMP runs a nested parallel region with one thread) */
        for (int i = 0; is_prange && i < it->kwnames.len; i++) {
            int nk = 0;
            if (!strcmp(it->kwnames.items[i], "nogil") && bool_literal(it->values.items[i], &nk) && nk &&
                s->nogil_block)
                err(s, it->pos, "Trying to release the GIL while it was previously released.");
        }
        IrExpr *given[3] = {cstart, cstop, cstep};
        CyType *ct;
        IrStmt *x;
        if (is_prange && cython_count_type(v, given, &ct)) {
            x = nested_prange(s, n->pos, v, given, ct, out);
        } else {
            x = st(s, ST_FOR_RANGE, n->pos);
            x->var = v;
            x->start = start;
            x->stop = stop;
            x->step = step;
            x->step_sign = step_sign_of(step);
        }
        record_assign(s, v, t->pos, OP_NONE);
        s->loop_depth++;
        s->serial_prange += is_prange;
        lower_block(s, &n->body, &x->body);
        s->serial_prange -= is_prange;
        s->loop_depth--;
        lower_block(s, &n->orelse, &x->orelse);
        cy_vec_push(s->a, out, x);
        return;
    }
    /* prange: a parallel region */
    int hoist_mark = s->hoists.len;
    if (!s->rctx) hoist_vec(s, &n->body, out);
    IrRegion *r = new_region(s, n->pos, 1);
    r->from_slice = it->synthetic == 1;
    r->index = v;
    r->start = start;
    r->stop = stop;
    r->step = step;
    r->step_sign = step_sign_of(step);
    IrExpr *given[3] = {cstart, cstop, cstep};
    CyType *ct;
    if (cython_count_type(v, given, &ct)) {
        r->cstart = cstart;
        r->cstop = cstop;
        r->cstep = cstep;
        r->ctype = ct;
    }
    int nogil_kw = 0;
    for (int i = 0; i < it->kwnames.len; i++) {
        const char *kw = it->kwnames.items[i];
        ANode *val = it->values.items[i];
        CyPos kp = *(CyPos *)it->kwpos.items[i];
        if (!strcmp(kw, "nogil")) {
            if (!bool_literal(val, &nogil_kw)) err(s, val->pos, "nogil argument to prange must be True or False");
        } else if (!strcmp(kw, "schedule")) {
            const char *sc = val->kind == A_STR ? val->sval : NULL;
            if (sc && !strcmp(sc, "static")) r->schedule = SCHED_STATIC;
            else if (sc && !strcmp(sc, "dynamic")) r->schedule = SCHED_DYNAMIC;
            else if (sc && !strcmp(sc, "guided")) r->schedule = SCHED_GUIDED;
            else if (sc && !strcmp(sc, "runtime")) r->schedule = SCHED_RUNTIME;
            else if (sc) err(s, val->pos, "Invalid schedule argument to prange: '%s'", sc);
            else err(s, val->pos, "Invalid schedule argument to prange: must be a string literal");
        } else if (!strcmp(kw, "chunksize") || !strcmp(kw, "num_threads")) {
            IrExpr *e = lower_expr(s, val);
            if (e->ty != TY_ERR && !cy_type_is_int(e->ty)) {
                err(s, val->pos, "%s must be a C integer, not '%s'", kw, e->ty->name);
                continue;
            }
            if (e->ty != TY_ERR) e = coerce(s, e, cy_type_scalar(TY_INT));
            if (kw[0] == 'c') r->chunksize = e;
            else r->num_threads = e;
        } else if (!strcmp(kw, "use_threads_if")) {
            r->use_threads_if = as_cond(s, lower_expr(s, val));
        } else {
            err(s, kp, "Invalid keyword argument to prange: %s", kw);
        }
    }
    if (r->chunksize && r->schedule == SCHED_RUNTIME)
        err(s, r->chunksize->pos, "Must provide schedule with chunksize other than 'runtime'");
    if (r->chunksize && r->schedule == SCHED_DEFAULT)
        err(s, r->chunksize->pos, "Must provide schedule with chunksize");
    /* a prange directly in a parallel() block runs on the block's team
       (Cython's ParallelStatNode; "must de declared" is its spelling) */
    if (s->rctx && !s->rctx->r->is_prange) {
        if (r->use_threads_if) err(s, it->pos, "'use_threads_if' must de declared in the parent parallel section");
        if (r->num_threads)
            err(s, it->pos, s->rctx->r->num_threads ? "num_threads already declared in outer section"
                                                    : "num_threads must be declared in the parent parallel section");
    }
    /* a nogil function's body may say nogil=True; a `with nogil:` block may not */
    if (nogil_kw && s->nogil_block) err(s, it->pos, "Trying to release the GIL while it was previously released.");
    if (!nogil_kw && !s->nogil) {
        r->gil_warning = 1;
        warn(s, it->pos, "prange() without nogil=True: the body must not use Python objects; the loop runs in parallel without the GIL");
    }
    r->nogil = 1;
    RegionCtx rc = {r, NULL, s->rctx, 0, {0}};
    int saved_nogil = s->nogil, saved_depth = s->loop_depth, saved_block = s->nogil_block;
    s->rctx = &rc;
    s->nogil = s->nogil_block = 1;
    s->prange_depth++;
    s->loop_depth = 0;
    record_assign(s, v, t->pos, OP_NONE);
    IrStmt *x = st(s, ST_PRANGE, n->pos);
    x->region = r;
    x->var = v;
    lower_block(s, &n->body, &x->body);
    s->loop_depth = saved_depth;
    s->prange_depth--;
    s->nogil = saved_nogil;
    s->nogil_block = saved_block;
    s->rctx = rc.outer;
    classify(s, &rc);
    if (n->orelse.len) lower_block(s, &n->orelse, &x->orelse);
    cy_vec_push(s->a, out, x);
    s->hoists.len = hoist_mark;
}

/* ---- comprehensions and generator expressions ----------------------------------
 *
 * [e for x in it if c], {e ...}, {k: v ...}, and any()/all() of a generator
 * expression become the loops Cython inlines: an E_STMTS whose statements
 * fill a new list/set/dict (or decide a bint), lowered through lower_for so
 * range() over C integers is a C loop.  The loop variables are the
 * comprehension's own (they do not leak).  Their types are Cython 3.3's: a
 * list/set/dict comprehension's variable takes the type of a declared
 * variable of that name outside it (cdef, argument, module cdef), else, in
 * a function, the widest C integer type of range()'s arguments when those
 * are C integers (no overflow check: [k*k for k in range(n)] with an int n
 * is int arithmetic, as in Cython), else object.  A generator expression's
 * variables are objects (Cython infers C types there only where results
 * cannot differ).  Other builtins that consume a whole generator expression
 * (sum, min, max, ...) get it as a list, built first. */

typedef struct Comp {
    ANode *n;
    int kind;               /* 'l' list, 's' set, 'd' dict, 'a' any, 'A' all, 'n' next() */
    int genexpr;
    IrVar *acc;             /* the container, or any()/all()'s bint, or next()'s value */
    IrVar *found;           /* next(): a value was found (a bint) */
    ANode *it0;             /* the first iterable, lowered in the enclosing scope */
    Scope *outer;
    struct Comp *up;
} Comp;

/* The first iterable is evaluated where the comprehension stands. */
static ANode *comp_first_iter(S *s, ANode *it) {
    int isp;
    if (is_range_call(s, it, &isp) && !isp && !it->synthetic) {
        ANode *c = an(s, A_CALL, it->pos);
        *c = *it;
        memset(&c->items, 0, sizeof c->items);
        for (int i = 0; i < it->items.len; i++) {
            ANode *w = an(s, A_IR, ((ANode *)it->items.items[i])->pos);
            w->ir = lower_expr(s, it->items.items[i]);
            cy_vec_push(s->a, &c->items, w);
        }
        return c;
    }
    ANode *w = an(s, A_IR, it->pos);
    w->ir = lower_expr(s, it);
    return w;
}

static CyType *comp_var_type(S *s, Comp *cp, ANode *t, ANode *iter) {
    CyType *obj = cy_type_scalar(TY_OBJECT);
    if (cp->genexpr) return obj;
    for (Scope *sc = cp->outer; sc; sc = sc->parent) {
        Sym *y = lookup_in(sc, t->name);
        if (!y) continue;
        if (y->kind == SY_VAR && y->var && y->var->kind != V_PYGLOBAL && !is_ndarray(y->var->ty)) return y->var->ty;
        break;
    }
    int isp;
    if (!s->fn || t->kind != A_NAME || !is_range_call(s, iter, &isp) || isp || !iter->items.len || iter->items.len > 3)
        return obj;
    CyType *span = NULL;
    for (int i = 0; i < iter->items.len && i < 2; i++) {
        CyType *at = probe_type(s, iter->items.items[i]);
        if (!cy_type_is_int(at) || at->kind == TY_BINT) return obj;
        span = span ? cy_type_span(span, at) : at;
    }
    if (iter->items.len == 3) {
        CyType *st3 = probe_type(s, iter->items.items[2]);
        if (!cy_type_is_int(st3) || st3->kind == TY_BINT) return obj;
        span = cy_type_span(span, cy_type_arith(probe_type(s, iter->items.items[0]), st3));
    }
    return span ? span : obj;
}

static void comp_declare(S *s, Comp *cp, ANode *t, ANode *iter) {
    if (t->kind == A_TUPLE || t->kind == A_LIST) {
        for (int i = 0; i < t->items.len; i++) comp_declare(s, cp, t->items.items[i], NULL);
        return;
    }
    if (t->kind != A_NAME) return; /* an attribute or item target: assigned as in a for loop */
    CyType *ty = iter ? comp_var_type(s, cp, t, iter) : cy_type_scalar(TY_OBJECT);
    if (!iter && !cp->genexpr) {
        for (Scope *sc = cp->outer; sc; sc = sc->parent) {
            Sym *y = lookup_in(sc, t->name);
            if (!y) continue;
            if (y->kind == SY_VAR && y->var && y->var->kind != V_PYGLOBAL && !is_ndarray(y->var->ty)) ty = y->var->ty;
            break;
        }
    }
    IrVar *v = new_var(s, t->name, ty, V_LOCAL, t->pos);
    v->cname = cy_fmt(s->a, "cy_c%d_%s", s->ntmp++, t->name);
    if (s->fn) cy_vec_push(s->a, &s->fn->locals, v);
    else cy_vec_push(s->a, &s->m->init_locals, v);
    Sym *y = declare(s, s->scope, t->name, SY_VAR);
    y->var = v;
}

static void comp_clauses(S *s, Comp *cp, int idx, CyVec *out) {
    ANode *n = cp->n;
    if (idx == n->items.len) {
        CyPos p = n->then->pos;
        if (cp->kind == 'n') {
            IrExpr *v = box(s, lower_expr(s, n->then));
            if (v->ty == TY_ERR) return;
            cy_vec_push(s->a, out, assign_stmt(s, mk_var(s, cp->acc, p), v, p, OP_NONE));
            cy_vec_push(s->a, out, assign_stmt(s, mk_var(s, cp->found, p), mk_int(s, 1, TY_BINT, p), p, OP_NONE));
            cy_vec_push(s->a, out, st(s, ST_BREAK, p));
            return;
        }
        if (cp->kind == 'a' || cp->kind == 'A') {
            IrExpr *c = as_cond(s, lower_expr(s, n->then));
            if (c->ty == TY_ERR) return;
            IrStmt *x = st(s, ST_IF, p);
            x->cond = cp->kind == 'a' ? c : mk1(s, E_NOT, cy_type_scalar(TY_BINT), p, c);
            cy_vec_push(s->a, &x->body, assign_stmt(s, mk_var(s, cp->acc, p), mk_int(s, cp->kind == 'a', TY_BINT, p), p, OP_NONE));
            cy_vec_push(s->a, &x->body, st(s, ST_BREAK, p));
            cy_vec_push(s->a, out, x);
            return;
        }
        IrExpr *k = box(s, lower_expr(s, n->then));
        IrExpr *v = cp->kind == 'd' ? box(s, lower_expr(s, n->other)) : NULL;
        if (k->ty == TY_ERR || (v && v->ty == TY_ERR)) return;
        IrExpr *e = mk(s, E_COMP_ADD, cy_type_scalar(TY_VOID), p);
        e->ival = (uint64_t)cp->kind;
        e->nargs = v ? 3 : 2;
        e->args = cy_alloc(s->a, 3 * sizeof(IrExpr *));
        e->args[0] = mk_var(s, cp->acc, p);
        e->args[1] = k;
        e->args[2] = v;
        IrStmt *x = st(s, ST_EXPR, p);
        x->value = e;
        cy_vec_push(s->a, out, x);
        return;
    }
    ANode *c = n->items.items[idx];
    if (c->kind == S_IF) {
        IrExpr *cond = as_cond(s, lower_expr(s, c->cond));
        if (cond->ty == TY_ERR) return;
        IrStmt *x = st(s, ST_IF, c->pos);
        x->cond = cond;
        comp_clauses(s, cp, idx + 1, &x->body);
        cy_vec_push(s->a, out, x);
        return;
    }
    ANode *iter = idx == 0 ? cp->it0 : c->obj;
    int isp;
    if (is_range_call(s, iter, &isp) && isp) {
        err(s, iter->pos, "prange() can only be used as part of a for loop");
        return;
    }
    comp_declare(s, cp, c->lhs, iter);
    ANode *f = an(s, S_FOR, c->pos);
    cy_vec_push(s->a, &f->targets, c->lhs);
    f->value = iter;
    ANode *nx = an(s, S_COMP_NEXT, c->pos);
    nx->ival = (uint64_t)(idx + 1);
    cy_vec_push(s->a, &f->body, nx);
    int before = out->len;
    lower_for(s, f, out);
    if (idx > 0 && (cp->kind == 'a' || cp->kind == 'A' || cp->kind == 'n') && out->len > before) {
        /* decided in an inner loop: leave this one too */
        IrStmt *x = st(s, ST_IF, c->pos);
        IrExpr *r = mk_var(s, cp->kind == 'n' ? cp->found : cp->acc, c->pos);
        x->cond = cp->kind != 'A' ? r : mk1(s, E_NOT, cy_type_scalar(TY_BINT), c->pos, r);
        cy_vec_push(s->a, &x->body, st(s, ST_BREAK, c->pos));
        cy_vec_push(s->a, out, x);
    }
}

static IrExpr *lower_comp(S *s, ANode *n, int kind) { return lower_comp_next(s, n, kind, NULL); }

/* kind 'n': next(genexpr[, next_default]), the first value, computed alone */
static IrExpr *lower_comp_next(S *s, ANode *n, int kind, ANode *next_default) {
    int anyall = kind == 'a' || kind == 'A';
    CyType *rt = cy_type_scalar(anyall ? TY_BINT : TY_OBJECT);
    if (s->quiet) return anyall ? mk_int(s, 0, TY_BINT, n->pos) : mk(s, E_NONE, rt, n->pos);
    int genexpr = n->op[0] == 'g';
    if (s->rctx) {
        err(s, n->pos, "%s inside a parallel region are not supported by cyocl",
            genexpr ? "generator expressions" : "comprehensions");
        return mk_err(s, n->pos);
    }
    static const char *const what[] = {"Constructing Python list", "Constructing Python set",
                                       "Constructing Python dict", "Constructing Python generator"};
    if (!need_gil(s, n->pos, what[genexpr ? 3 : kind == 'l' ? 0 : kind == 's' ? 1 : 2])) return mk_err(s, n->pos);
    Comp cp = {n, kind, genexpr, NULL, NULL, NULL, s->scope, s->comp};
    cp.it0 = comp_first_iter(s, ((ANode *)n->items.items[0])->obj);
    cp.acc = new_temp(s, rt, n->pos);
    IrExpr *e = mk1(s, E_STMTS, rt, n->pos, mk_var(s, cp.acc, n->pos));
    if (kind == 'n') {
        cp.found = new_temp(s, cy_type_scalar(TY_BINT), n->pos);
        cy_vec_push(s->a, &e->stmts, assign_stmt(s, mk_var(s, cp.found, n->pos), mk_int(s, 0, TY_BINT, n->pos), n->pos, OP_NONE));
    } else if (anyall)
        cy_vec_push(s->a, &e->stmts, assign_stmt(s, mk_var(s, cp.acc, n->pos), mk_int(s, kind == 'A', TY_BINT, n->pos), n->pos, OP_NONE));
    else
        e->ival = (uint64_t)kind;
    Scope sc = {s->scope, NULL, NULL, 0, 0};
    int saved_loop = s->loop_depth;
    s->scope = &sc;
    s->comp = &cp;
    s->loop_depth = 0;
    comp_clauses(s, &cp, 0, &e->stmts);
    s->loop_depth = saved_loop;
    s->scope = cp.outer;
    s->comp = cp.up;
    if (kind == 'n') {
        /* exhausted: next()'s default, else StopIteration */
        IrStmt *x = st(s, ST_IF, n->pos);
        x->cond = mk1(s, E_NOT, cy_type_scalar(TY_BINT), n->pos, mk_var(s, cp.found, n->pos));
        if (next_default) {
            cy_vec_push(s->a, &x->body, assign_stmt(s, mk_var(s, cp.acc, n->pos), box(s, lower_expr(s, next_default)), n->pos, OP_NONE));
        } else {
            IrStmt *r = st(s, ST_RAISE, n->pos);
            r->value = mk(s, E_PYGLOBAL, cy_type_scalar(TY_OBJECT), n->pos);
            r->value->sval = "StopIteration";
            cy_vec_push(s->a, &x->body, r);
        }
        cy_vec_push(s->a, &e->stmts, x);
    }
    return e;
}

static IrRegion *innermost_prange(S *s) {
    for (RegionCtx *rc = s->rctx; rc; rc = rc->outer)
        if (rc->r->is_prange) return rc->r;
    return NULL;
}

static int directive_call(S *s, ANode *e, Directives *d, int apply);

static void lower_with(S *s, ANode *n, int item, CyVec *out) {
    if (item == n->with_items.len) {
        lower_block(s, &n->body, out);
        return;
    }
    AWithItem *wi = n->with_items.items[item];
    ANode *e = wi->expr;
    const char *wq = e->kind == A_ATTR ? qual_of(s, e) : NULL; /* pure-Python mode: with cython.nogil: */
    if (wq && (!strcmp(wq, "cython.nogil") || !strcmp(wq, "cython.gil"))) wq += 7;
    else wq = NULL;
    if (wq || (e->kind == A_NAME && (!strcmp(e->name, "nogil") || !strcmp(e->name, "gil")) && !lookup(s, e->name))) {
        int release = (wq ? wq : e->name)[0] == 'n';
        if (release && s->nogil) {
            err(s, e->pos, "Trying to release the GIL while it was previously released.");
            return;
        }
        if (!release && !s->nogil) {
            err(s, e->pos, "Trying to acquire the GIL while it is already held.");
            return;
        }
        if (!release) region_flag(s, 4);
        IrStmt *x = st(s, release ? ST_NOGIL : ST_GIL, n->pos);
        int saved = s->nogil, saved_block = s->nogil_block;
        s->nogil = s->nogil_block = release;
        lower_with(s, n, item + 1, &x->body);
        s->nogil = saved;
        s->nogil_block = saved_block;
        cy_vec_push(s->a, out, x);
        return;
    }
    const char *q = e->kind == A_CALL ? qual_of(s, e->obj) : qual_of(s, e);
    if (q && !strcmp(q, "cython.parallel.parallel")) {
        if (e->kind != A_CALL) {
            err(s, e->pos, "parallel must be called: parallel()");
            return;
        }
        if (s->parallel_depth || s->prange_depth) {
            err(s, e->pos, "Nested parallel sections are not allowed: nested parallel() inside a parallel region");
            return;
        }
        if (!s->nogil) {
            err(s, e->pos, "parallel() blocks must be used with nogil (with nogil, parallel(): ...)");
            return;
        }
        IrRegion *r = new_region(s, e->pos, 0);
        r->nogil = 1;
        for (int i = 0; i < e->kwnames.len; i++) {
            const char *kw = e->kwnames.items[i];
            if (!strcmp(kw, "num_threads")) {
                IrExpr *nt = lower_expr(s, e->values.items[i]);
                if (nt->ty != TY_ERR && !cy_type_is_int(nt->ty)) err(s, nt->pos, "num_threads must be a C integer");
                else if (nt->ty != TY_ERR) r->num_threads = coerce(s, nt, cy_type_scalar(TY_INT));
            } else if (!strcmp(kw, "use_threads_if")) {
                r->use_threads_if = as_cond(s, lower_expr(s, e->values.items[i]));
            } else {
                err(s, *(CyPos *)e->kwpos.items[i], "Invalid keyword argument to parallel: %s", kw);
            }
        }
        if (e->items.len) err(s, e->pos, "parallel() takes only keyword arguments");
        int hoist_mark = s->hoists.len;
        if (!s->rctx) hoist_vec(s, &n->body, out);
        RegionCtx rc = {r, NULL, s->rctx, s->loop_depth, {0}};
        s->rctx = &rc;
        s->parallel_depth++;
        IrStmt *x = st(s, ST_PARALLEL, n->pos);
        x->region = r;
        lower_with(s, n, item + 1, &x->body);
        s->parallel_depth--;
        s->rctx = rc.outer;
        classify(s, &rc);
        cy_vec_push(s->a, out, x);
        s->hoists.len = hoist_mark;
        return;
    }
    Directives saved = s->dir;
    if (e->kind == A_CALL && directive_call(s, e, &s->dir, 1)) {
        lower_with(s, n, item + 1, out);
        s->dir = saved;
        return;
    }
    err(s, e->pos, "with statements on Python objects (context managers) are not supported");
}

static const IrStmt *find_region_stmt(const CyVec *v) {
    for (int i = 0; i < v->len; i++) {
        const IrStmt *x = v->items[i], *r;
        if (x->kind == ST_PRANGE || x->kind == ST_PARALLEL) return x;
        if ((r = find_region_stmt(&x->body)) || (r = find_region_stmt(&x->orelse))) return r;
    }
    return NULL;
}

/* try: ... except T as e: ... else: ...  Each handler's type is evaluated
 * when an exception reaches it (in order, until one matches); the 'as'
 * target gets the exception first and is deleted when the handler ends. */
static IrStmt *lower_try_except(S *s, ANode *n) {
    if (!need_gil(s, n->pos, "Try-except statement")) return NULL;
    IrStmt *x = st(s, ST_TRY_EXCEPT, n->pos);
    lower_block(s, &n->body, &x->body);
    int ok = 1;
    for (int i = 0; i < n->handlers.len; i++) {
        ANode *h = n->handlers.items[i];
        IrStmt *e = st(s, ST_EXCEPT, h->pos);
        if (!h->value && i + 1 < n->handlers.len) {
            err(s, ((ANode *)n->handlers.items[i + 1])->pos, "default 'except:' must be last");
            return NULL;
        }
        if (h->value) {
            e->value = box(s, lower_expr(s, h->value));
            if (e->value->ty == TY_ERR) ok = 0;
        }
        if (h->name) {
            CyPos np = *(CyPos *)h->name_pos.items[0];
            ANode tn = {.kind = A_NAME, .pos = np, .name = h->name};
            Sym *y = lookup(s, h->name);
            if (y && (y->kind == SY_VAR || y->kind == SY_PYVAR) && y->var && !is_obj(y->var->ty)) {
                /* the name is deleted when the handler ends */
                err(s, np, "Deletion of non-Python, non-C++ object");
                return NULL;
            }
            if (y && y->kind == SY_VAR && y->var && (y->var->kind == V_PARAM || y->var->kind == V_MODULE)) {
                /* deleted when the handler ends: cyocl deletes only locals and module globals */
                err(s, np, "an 'except ... as' target that is a %s is not supported by cyocl",
                    y->var->kind == V_PARAM ? "function argument" : "module-level cdef variable");
                return NULL;
            }
            e->target = lower_target(s, &tn, OP_NONE);
            if (!e->target) return NULL;
            IrExpr *caught = mk(s, E_CNAME, cy_type_scalar(TY_OBJECT), h->pos);
            caught->sval = "cy_caught";
            cy_vec_push(s->a, &e->body, assign_stmt(s, e->target, caught, h->pos, OP_NONE));
        }
        lower_block(s, &h->body, &e->body);
        cy_vec_push(s->a, &x->orelse, e);
    }
    if (n->tryelse.len) {
        IrStmt *b = st(s, ST_BLOCK, ((ANode *)n->tryelse.items[0])->pos);
        lower_block(s, &n->tryelse, &b->body);
        cy_vec_push(s->a, &x->orelse, b);
    }
    return ok ? x : NULL;
}

/* del a, d[k], o.x, ...: each target in turn, as Python does.  A name is
 * an object local (bound afterwards no more: reads check it, as for an
 * 'except ... as' name) or a module global; an item or attribute of an
 * object is PyObject_DelItem / PyObject_DelAttr.  C variables, view
 * elements and cdef attributes are Cython's error. */
static void lower_del(S *s, ANode *n, CyVec *out) {
    for (int i = 0; i < n->targets.len; i++) {
        ANode *t = n->targets.items[i];
        IrExpr *e = NULL;
        if (t->kind == A_NAME) {
            Sym *y = lookup(s, t->name);
            IrVar *v = y && (y->kind == SY_VAR || y->kind == SY_PYVAR) ? y->var : NULL;
            if (v && v->kind != V_PYGLOBAL && !is_obj(v->ty)) {
                err(s, t->pos, "Deletion of non-Python, non-C++ object");
                continue;
            }
            if (v && (v->kind == V_PARAM || v->kind == V_MODULE)) {
                err(s, t->pos, "'del' of a %s is not supported by cyocl (only of locals and module globals)",
                    v->kind == V_PARAM ? "function argument" : "module-level cdef variable");
                continue;
            }
            if (!need_gil(s, t->pos, "Deleting Python object")) continue;
            e = lower_target(s, t, OP_NONE);
            if (e && e->kind == E_VAR && e->var->kind == V_LOCAL) e->var->is_deleted = 1;
        } else if (t->kind == A_INDEX || t->kind == A_ATTR) {
            e = lower_expr(s, t);
            if (e->ty == TY_ERR) continue;
            if (e->kind != E_OBJ_INDEX && e->kind != E_OBJ_ATTR) {
                err(s, t->pos, "Deletion of non-Python, non-C++ object");
                continue;
            }
        } else {
            err(s, t->pos, "cannot delete this expression");
            continue;
        }
        if (!e) continue;
        IrStmt *x = st(s, ST_DEL, t->pos);
        x->target = e;
        cy_vec_push(s->a, out, x);
    }
}

static void lower_stmt1(S *s, ANode *n, CyVec *out);

/* v[...] and v[..., 0] of a memoryview: the Ellipsis stands for as many
 * full slices as the axes not given (numpy's and Cython's meaning),
 * written into the statement's expressions before anything reads them. */
static void expand_ellipsis(S *s, ANode *n) {
    if (!n || n->kind == S_FUNC || n->kind == A_LAMBDA) return;
    if (n->kind == A_INDEX) {
        int at = -1, count = 0;
        for (int i = 0; i < n->items.len; i++)
            if (((ANode *)n->items.items[i])->kind == A_ELLIPSIS) at = i, count++;
        CyType *t = count == 1 ? probe_type(s, n->obj) : NULL;
        if (t && is_view(t) && n->items.len - 1 <= t->ndim) {
            CyVec items = {0};
            for (int i = 0; i < n->items.len; i++) {
                if (i != at) {
                    cy_vec_push(s->a, &items, n->items.items[i]);
                    continue;
                }
                for (int k = 0; k < t->ndim - (n->items.len - 1); k++) {
                    ANode *sl = an(s, A_SLICE, ((ANode *)n->items.items[i])->pos);
                    cy_vec_push(s->a, &items, sl);
                }
            }
            n->items = items;
        }
    }
    ANode *kids[] = {n->obj, n->lhs, n->rhs, n->cond, n->then, n->other, n->value};
    for (int i = 0; i < 7; i++) expand_ellipsis(s, kids[i]);
    for (int i = 0; i < n->items.len; i++) expand_ellipsis(s, n->items.items[i]);
    for (int i = 0; i < n->values.len; i++) expand_ellipsis(s, n->values.items[i]);
    for (int i = 0; i < n->targets.len; i++) expand_ellipsis(s, n->targets.items[i]);
    for (int i = 0; i < n->inits.len; i++) expand_ellipsis(s, n->inits.items[i]);
}

static void lower_stmt(S *s, ANode *n, CyVec *out) {
    int mark = s->sum_undo.len;
    expand_ellipsis(s, n); /* its expressions only: nested blocks are their statements' */
    lower_stmt1(s, n, out);
    for (int i = s->sum_undo.len - 2; i >= mark; i -= 2)
        *(ANode *)s->sum_undo.items[i] = *(ANode *)s->sum_undo.items[i + 1];
    s->sum_undo.len = mark;
}

static void lower_stmt1(S *s, ANode *n, CyVec *out) {
    switch (n->kind) {
    case S_EXPR: case S_ASSIGN: case S_AUGASSIGN: case S_RETURN:
        lower_array_sums(s, n->value, out);
        if (n->kind == S_AUGASSIGN) lower_array_sums(s, n->rhs, out);
        break;
    case S_IF: lower_array_sums(s, n->cond, out); break;
    case S_CDEF:
        for (int i = 0; i < n->inits.len; i++) lower_array_sums(s, n->inits.items[i], out);
        break;
    default: break;
    }
    switch (n->kind) {
    case S_COMP_NEXT:
        comp_clauses(s, s->comp, (int)n->ival, out);
        return;
    case S_EXPR: {
        if (n->value && n->value->kind == A_STR) return; /* a bare string: documentation */
        const char *iq = n->value && n->value->kind == A_CALL ? qual_of(s, n->value->obj) : NULL;
        if (iq && !strncmp(iq, "cython.operator.", 16) && strstr(iq, "crement") && n->value->items.len == 1 &&
            !n->value->kwnames.len) {
            /* preincrement(x) as a statement: x += 1 (p += 1 for a pointer) */
            ANode *a = an(s, S_AUGASSIGN, n->pos);
            a->op = strstr(iq, "incr") ? "+" : "-";
            a->lhs = n->value->items.items[0];
            a->rhs = an(s, A_INT, n->pos);
            a->rhs->ival = 1;
            lower_augassign(s, a, out);
            return;
        }
        IrExpr *e = lower_expr(s, n->value);
        if (e->ty == TY_ERR) return;
        IrStmt *x = st(s, ST_EXPR, n->pos);
        x->value = e;
        cy_vec_push(s->a, out, x);
        return;
    }
    case S_ASSIGN: lower_assign(s, n, out); return;
    case S_AUGASSIGN: lower_augassign(s, n, out); return;
    case S_CDEF:
        for (int i = 0; i < n->names.len; i++) {
            ANode *init = n->inits.items[i];
            if (!init) continue;
            Sym *y = lookup(s, n->names.items[i]);
            if (!y || !y->var) continue;
            if (y->var->ty->kind == TY_ARRAY) {
                record_assign(s, y->var, *(CyPos *)n->name_pos.items[i], OP_NONE);
                lower_array_literal(s, mk_var(s, y->var, *(CyPos *)n->name_pos.items[i]), init, out);
                continue;
            }
            IrExpr *v = (init->kind == A_DICT || init->kind == A_TUPLE) && y->var->ty->kind == TY_STRUCT
                            ? lower_for_type(s, init, y->var->ty)
                        : c_big_literal(s, init, y->var->ty) ? c_big_literal(s, init, y->var->ty)
                                                             : lower_expr(s, init);
            if (v->ty == TY_ERR) continue;
            if (is_obj(y->var->ty) && !need_gil(s, init->pos, "Assignment of Python object")) continue;
            record_assign(s, y->var, *(CyPos *)n->name_pos.items[i], OP_NONE);
            cy_vec_push(s->a, out, assign_stmt(s, mk_var(s, y->var, *(CyPos *)n->name_pos.items[i]),
                                                coerce(s, v, y->var->ty), n->pos, OP_NONE));
        }
        return;
    case S_IF: {
        int taken;
        if (fused_test(s, n->cond, &taken)) {
            /* only the branch this specialisation takes is compiled */
            lower_block(s, taken ? &n->body : &n->orelse, out);
            return;
        }
        IrStmt *x = st(s, ST_IF, n->pos);
        x->cond = as_cond(s, lower_expr(s, n->cond));
        lower_block(s, &n->body, &x->body);
        lower_block(s, &n->orelse, &x->orelse);
        if (x->cond->ty != TY_ERR) cy_vec_push(s->a, out, x);
        return;
    }
    case S_WHILE: {
        IrStmt *x = st(s, ST_WHILE, n->pos);
        x->cond = as_cond(s, lower_expr(s, n->cond));
        s->loop_depth++;
        lower_block(s, &n->body, &x->body);
        s->loop_depth--;
        lower_block(s, &n->orelse, &x->orelse);
        if (x->cond->ty != TY_ERR) cy_vec_push(s->a, out, x);
        return;
    }
    case S_FOR: lower_for(s, n, out); return;
    case S_BREAK: case S_CONTINUE: {
        if (s->loop_depth == 0) {
            IrRegion *r = innermost_prange(s);
            if (!r) {
                err(s, n->pos, "'%s' outside loop", n->kind == S_BREAK ? "break" : "continue");
                return;
            }
            if (n->kind == S_BREAK && !s->quiet) r->has_break = 1;
        }
        cy_vec_push(s->a, out, st(s, n->kind == S_BREAK ? ST_BREAK : ST_CONTINUE, n->pos));
        return;
    }
    case S_PASS: return;
    case S_RETURN: {
        if (!s->fn) {
            err(s, n->pos, "'return' outside function");
            return;
        }
        if (s->parallel_depth && !s->prange_depth) {
            err(s, n->pos, "'return' inside a parallel() block is not allowed");
            return;
        }
        IrStmt *x = st(s, ST_RETURN, n->pos);
        CyType *rt = s->fn->ret;
        if (n->value) {
            if (rt->kind == TY_VOID) {
                err(s, n->value->pos, "Return with value in void function");
                return;
            }
            IrExpr *v = lower_for_type(s, n->value, rt);
            if (v->ty == TY_ERR) return;
            x->value = coerce(s, v, rt);
            if (x->value->ty == TY_ERR) return;
        } else if (is_obj(rt)) {
            x->value = mk(s, E_NONE, rt, n->pos);
        } else if (rt->kind != TY_VOID) {
            err(s, n->pos, "Return value required");
            return;
        }
        IrRegion *r = innermost_prange(s);
        if (r && !s->quiet) r->has_return = 1;
        cy_vec_push(s->a, out, x);
        return;
    }
    case S_RAISE: {
        if (!need_gil(s, n->pos, "Raising exception")) return;
        IrStmt *x = st(s, ST_RAISE, n->pos);
        if (n->value) {
            x->value = box(s, lower_expr(s, n->value));
            if (x->value->ty == TY_ERR) return;
        }
        if (n->rhs) {
            x->target = box(s, lower_expr(s, n->rhs));
            if (x->target->ty == TY_ERR) return;
        }
        cy_vec_push(s->a, out, x);
        return;
    }
    case S_ASSERT: {
        IrStmt *x = st(s, ST_ASSERT, n->pos);
        x->cond = as_cond(s, lower_expr(s, n->cond));
        if (n->value) {
            if (!need_gil(s, n->value->pos, "Constructing assertion message")) return;
            x->value = box(s, lower_expr(s, n->value));
        }
        if (x->cond->ty != TY_ERR) cy_vec_push(s->a, out, x);
        return;
    }
    case S_WITH: lower_with(s, n, 0, out); return;
    case S_IMPORT: case S_FROMIMPORT: case S_CIMPORT:
        if (n->kind == S_CIMPORT || n->is_cimport || is_cython_mod(n->module)) {
            if (s->fn && !s->quiet) err(s, n->pos, "cimport is only allowed at module level");
            return;
        }
        if (!need_gil(s, n->pos, "Importing a module")) return;
        if (n->kind == S_IMPORT) {
            for (int i = 0; i < (n->names.len ? n->names.len : 1); i++) {
                const char *mod = n->names.len ? n->names.items[i] : n->module;
                const char *alias = n->aliases.len > i ? n->aliases.items[i] : NULL;
                IrExpr *imp = mk(s, E_IMPORT, cy_type_scalar(TY_OBJECT), n->pos);
                imp->sval = mod;
                imp->import_top = alias == NULL;
                char top[256];
                snprintf(top, sizeof top, "%s", mod);
                char *dot = strchr(top, '.');
                if (dot) *dot = 0;
                ANode tn = {.kind = A_NAME, .pos = n->pos, .name = alias ? alias : cy_strdup(s->a, top)};
                assign_to(s, &tn, imp, out, n->pos);
            }
        } else {
            IrVar *mv = new_temp(s, cy_type_scalar(TY_OBJECT), n->pos);
            IrExpr *imp = mk(s, E_IMPORT, cy_type_scalar(TY_OBJECT), n->pos);
            imp->sval = n->module;
            cy_vec_push(s->a, out, assign_stmt(s, mk_var(s, mv, n->pos), imp, n->pos, OP_NONE));
            for (int i = 0; i < n->names.len; i++) {
                const char *alias = n->aliases.items[i] ? n->aliases.items[i] : n->names.items[i];
                IrExpr *a = mk1(s, E_OBJ_ATTR, cy_type_scalar(TY_OBJECT), n->pos, mk_var(s, mv, n->pos));
                a->sval = n->names.items[i];
                ANode tn = {.kind = A_NAME, .pos = *(CyPos *)n->name_pos.items[i], .name = alias};
                assign_to(s, &tn, a, out, n->pos);
            }
        }
        return;
    case S_GLOBAL: return;
    case S_NONLOCAL:
        err(s, n->pos, s->fn ? "no binding for nonlocal '%s' found" : "nonlocal declaration not allowed at module level",
            (const char *)n->names.items[0]);
        return;
    case S_FUNC:
        if (!s->fn) return;
        if (n->func->kind != FN_DEF || n->func->decorators.len) {
            err(s, n->pos, n->func->kind != FN_DEF ? "cdef statement not allowed here"
                                                   : "a decorated function nested in a function is not supported by cyocl");
            return;
        }
        if (s->rctx) {
            err(s, n->pos, "a function nested in a parallel region is not supported by cyocl");
            return;
        }
        {
            /* def inner(...): a Python function object assigned to the local name */
            IrExpr *fo = make_function(s, n->func, n->func->pos, "nested def");
            if (fo->ty == TY_ERR) return;
            ANode *v = an(s, A_IR, n->pos);
            v->ir = fo;
            ANode *t = an(s, A_NAME, n->func->pos);
            t->name = n->func->name;
            ANode *as = an(s, S_ASSIGN, n->pos);
            cy_vec_push(s->a, &as->targets, t);
            as->value = v;
            lower_assign(s, as, out);
        }
        return;
    case S_CLASS: err(s, n->pos, "%s are not supported", n->what ? n->what : "class definitions"); return;
    case S_CDEF_CLASS: err(s, n->pos, "cdef statement not allowed here"); return;
    case S_DEL: lower_del(s, n, out); return;
    case S_UNSUPPORTED: err(s, n->pos, "%s is not supported", n->what ? n->what : "this statement"); return;
    case S_CTYPEDEF: case S_EXTERN: case S_ENUM: case S_STRUCT:
        if (s->fn) err(s, n->pos, "this declaration is only allowed at module level");
        return;
    case S_FUSED: err(s, n->pos, "Fused type definition not allowed here"); return;
    case S_DEF:
        if (s->fn) err(s, n->pos, "'DEF' inside a function is not supported by cyocl (only at module level)");
        return;
    case S_TRY: {
        IrStmt *x = st(s, ST_TRY, n->pos);
        if (n->handlers.len) {
            IrStmt *te = lower_try_except(s, n);
            if (!te) return;
            if (!n->orelse.len) {
                cy_vec_push(s->a, out, te);
                return;
            }
            /* try/except/finally is try: (try/except) finally:, as in Python */
            cy_vec_push(s->a, &x->body, te);
        } else {
            lower_block(s, &n->body, &x->body);
        }
        lower_block(s, &n->orelse, &x->orelse);
        const IrStmt *r = find_region_stmt(&x->orelse);
        if (r) {
            /* the backends emit the finally statements once per way out */
            err(s, r->pos, "a prange or parallel() block inside a finally clause is not supported by cyocl");
            return;
        }
        cy_vec_push(s->a, out, x);
        return;
    }
    default:
        err(s, n->pos, "this statement is not supported");
        return;
    }
}

static void lower_block(S *s, CyVec *in, CyVec *out) {
    for (int i = 0; i < in->len; i++) lower_stmt(s, in->items[i], out);
}

/* ---- directives --------------------------------------------------------------- */

static int set_directive(S *s, Directives *d, const char *key, int val, CyPos p) {
    if (!strcmp(key, "boundscheck")) d->boundscheck = val;
    else if (!strcmp(key, "wraparound")) d->wraparound = val;
    else if (!strcmp(key, "cdivision")) d->cdivision = val;
    else if (!strcmp(key, "initializedcheck")) d->initializedcheck = val;
    else if (!strcmp(key, "nonecheck")) d->nonecheck = val;
    else if (!strcmp(key, "cpow")) d->cpow = val ? 1 : 2;
    else {
        static const char *ignored[] = {"language_level", "infer_types", "cpow", "embedsignature", "binding",
                                        "profile", "linetrace", "overflowcheck", "always_allow_keywords",
                                        "c_string_type", "c_string_encoding", "freethreading_compatible",
                                        "annotation_typing", "auto_pickle", "emit_code_comments",
                                        "unraisable_tracebacks", "optimize.use_switch", "cdivision_warnings",
                                        "legacy_implicit_noexcept", "warn.undeclared", "warn.unused",
                                        "warn.maybe_uninitialized", "initializedcheck", "final",
                                        "type_version_tag", "show_performance_hints", NULL};
        for (int i = 0; ignored[i]; i++)
            if (!strcmp(ignored[i], key)) return 1;
        warn(s, p, "unknown directive '%s' ignored", key);
        return 0;
    }
    return 1;
}

static int directive_call(S *s, ANode *e, Directives *d, int apply) {
    const char *q = qual_of(s, e->obj);
    if (!q || strncmp(q, "cython.", 7)) return 0;
    const char *key = q + 7;
    if (!strcmp(key, "boundscheck") || !strcmp(key, "wraparound") || !strcmp(key, "cdivision") ||
        !strcmp(key, "initializedcheck") || !strcmp(key, "nonecheck") || !strcmp(key, "infer_types") ||
        !strcmp(key, "profile") || !strcmp(key, "linetrace") || !strcmp(key, "overflowcheck") ||
        !strcmp(key, "cpow") || !strcmp(key, "embedsignature") || !strcmp(key, "binding") ||
        !strcmp(key, "always_allow_keywords")) {
        int v = 1;
        if (e->items.len != 1 || !bool_literal(e->items.items[0], &v)) {
            err(s, e->pos, "cython.%s() takes one argument, True or False", key);
            return 1;
        }
        if (apply) set_directive(s, d, key, v, e->pos);
        return 1;
    }
    return 0;
}

static void file_directives(S *s, AModule *am) {
    for (int i = 0; i < am->directive_keys.len; i++) {
        const char *k = am->directive_keys.items[i], *v = am->directive_values.items[i];
        CyPos p = *(CyPos *)am->directive_pos.items[i];
        int val;
        if (!strcmp(v, "True") || !strcmp(v, "true") || !strcmp(v, "1")) val = 1;
        else if (!strcmp(v, "False") || !strcmp(v, "false") || !strcmp(v, "0")) val = 0;
        else {
            if (strcmp(k, "language_level") && strcmp(k, "c_string_type") && strcmp(k, "c_string_encoding") &&
                strcmp(k, "infer_types") && strcmp(k, "cpow"))
                warn(s, p, "directive '%s' expects True or False, not '%s'", k, v);
            continue;
        }
        set_directive(s, &s->dir, k, val, p);
    }
}

/* ---- functions ---------------------------------------------------------------- */

/* Does this statement list assign an element of `name` (a[i] = ..., a[i] += ...)? */
static int writes_elem(ANode *t, const char *name) {
    if (!t) return 0;
    if (t->kind == A_INDEX) return t->obj->kind == A_NAME && !strcmp(t->obj->name, name);
    if (t->kind == A_TUPLE || t->kind == A_LIST)
        for (int i = 0; i < t->items.len; i++)
            if (writes_elem(t->items.items[i], name)) return 1;
    return 0;
}

static int body_writes_elem(CyVec *body, const char *name) {
    for (int i = 0; body && i < body->len; i++) {
        ANode *n = body->items[i];
        if (n->kind == S_ASSIGN || n->kind == S_AUGASSIGN || n->kind == S_FOR)
            for (int k = 0; k < n->targets.len; k++)
                if (writes_elem(n->targets.items[k], name)) return 1;
        if (body_writes_elem(&n->body, name) || body_writes_elem(&n->orelse, name) ||
            body_writes_elem(&n->handlers, name) || body_writes_elem(&n->tryelse, name))
            return 1;
    }
    return 0;
}

/* The view through which buffer variable v's elements are accessed: read-only
 * unless the function assigns an element, so that read-only arrays are
 * accepted where Cython accepts them ("buffer source array is read-only"
 * otherwise, at acquisition, from numpy). */
static IrVar *buffer_view(S *s, IrVar *v) {
    CyType *vt = v->ty->base;
    int ro = !body_writes_elem(s->fbody, v->name);
    IrVar *b = new_var(s, v->name, cy_type_view(s->a, vt->base, vt->ndim, vt->axes, ro), V_LOCAL, v->pos);
    b->cname = cy_fmt(s->a, "cybuf_%s", v->name);
    cy_vec_push(s->a, &s->fn->locals, b);
    cy_vec_push(s->a, &s->bufvars, v);
    cy_vec_push(s->a, &s->bufvars, b);
    return b;
}

/* After every assignment of a buffer variable, its view is acquired again
 * (None gives an empty view, as in Cython indexing it raises IndexError). */
static IrStmt *buffer_acquire(S *s, IrVar *v, CyPos p) {
    for (int i = 0; i + 1 < s->bufvars.len; i += 2)
        if (s->bufvars.items[i] == v) {
            IrVar *b = s->bufvars.items[i + 1];
            return assign_stmt(s, mk_var(s, b, p), mk1(s, E_VIEW_FROM_OBJ, b->ty, p, mk_var(s, v, p)), p, OP_NONE);
        }
    return NULL;
}

static void buffer_reacquire(S *s, CyVec *body) {
    CyVec out = {0};
    for (int i = 0; i < body->len; i++) {
        IrStmt *x = body->items[i];
        buffer_reacquire(s, &x->body);
        buffer_reacquire(s, &x->orelse);
        if (x->kind == ST_FOR_ITER && x->var) {
            IrStmt *a = buffer_acquire(s, x->var, x->pos);
            if (a) {
                CyVec nb = {0};
                cy_vec_push(s->a, &nb, a);
                for (int k = 0; k < x->body.len; k++) cy_vec_push(s->a, &nb, x->body.items[k]);
                x->body = nb;
            }
        }
        cy_vec_push(s->a, &out, x);
        if (x->kind == ST_ASSIGN && x->target->kind == E_VAR) {
            IrStmt *a = buffer_acquire(s, x->target->var, x->pos);
            if (a) cy_vec_push(s->a, &out, a);
        }
    }
    *body = out;
}

typedef struct Untyped {
    const char *name;
    CyPos pos;
    int only_range;   /* every assignment is a range()/prange() loop target */
    int only_float;   /* every assignment is a C floating-point value */
    CyVec values;     /* ANode* right-hand sides */
    CyVec augvals;    /* ANode* right-hand sides of in-place operators on the name */
    int decided;      /* its type is settled (infer_untyped) */
    int other;        /* assigned in a way that needs an object (unpacking, import, for-in) */
    int prange;       /* a prange() loop target */
    int overflow;     /* used where Cython's MarkOverflowingArithmetic sees a possible overflow */
    int nogil_use;    /* used without the GIL */
    struct Untyped *next;
} Untyped;

typedef struct {
    S *s;
    Untyped *list;
    Scope *scope;
    CyVec globals; /* names declared global */
} Pre;

static int is_global_decl(Pre *pr, const char *name) {
    for (int i = 0; i < pr->globals.len; i++)
        if (!strcmp(pr->globals.items[i], name)) return 1;
    return 0;
}

static Untyped *untyped(Pre *pr, const char *name, CyPos p) {
    if (lookup_in(pr->scope, name) || is_global_decl(pr, name)) return NULL;
    for (Untyped *u = pr->list; u; u = u->next)
        if (!strcmp(u->name, name)) return u;
    Untyped *u = cy_alloc(pr->s->a, sizeof *u);
    u->name = name;
    u->pos = p;
    u->only_range = u->only_float = 1;
    Untyped **tail = &pr->list;
    while (*tail) tail = &(*tail)->next;
    *tail = u;
    return u;
}

static void pre_target(Pre *pr, ANode *t, ANode *value, int kind /* 0 assign, 1 range, 2 other */) {
    if (t->kind == A_TUPLE || t->kind == A_LIST) {
        for (int i = 0; i < t->items.len; i++) pre_target(pr, t->items.items[i], NULL, 2);
        return;
    }
    if (t->kind != A_NAME) return;
    Untyped *u = untyped(pr, t->name, t->pos);
    if (!u) return;
    if (kind != 1) u->only_range = 0;
    if (kind == 2 || !value) u->other = 1;
    if (kind == 0 && value) cy_vec_push(pr->s->a, &u->values, value);
    if (kind == 1) {
        u->only_float = 0;
        if (value) cy_vec_push(pr->s->a, &u->values, value);
    }
}

static void pre_block(Pre *pr, CyVec *body);

/* Calls f for each assignment expression (x := v) in the expressions of
 * statement or expression n (not in the statements of its blocks, nor in
 * lambdas; in comprehensions, whose := binds outside them). */
static void each_walrus(ANode *n, void (*f)(void *, ANode *), void *ctx) {
    if (!n || n->kind == A_LAMBDA) return;
    if (n->kind == A_WALRUS) f(ctx, n);
    ANode *kids[] = {n->lhs, n->rhs, n->obj, n->cond, n->then, n->other, n->value};
    for (int i = 0; i < 7; i++) each_walrus(kids[i], f, ctx);
    CyVec *vs[] = {&n->items, &n->values, &n->targets, &n->inits};
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < vs[k]->len; i++) each_walrus(vs[k]->items[i], f, ctx);
}

static void pre_walrus(void *ctx, ANode *w) { pre_target(ctx, w->lhs, w->rhs, 0); }

static void pre_stmt(Pre *pr, ANode *n) {
    S *s = pr->s;
    if (n->kind != S_CDEF_CLASS && n->kind != S_FUNC) each_walrus(n, pre_walrus, pr);
    switch (n->kind) {
    case S_CDEF: {
        s->buf_ok++;
        CyType *t = resolve_type(s, n->type);
        s->buf_ok--;
        for (int i = 0; i < n->names.len; i++) {
            const char *name = n->names.items[i];
            CyPos p = *(CyPos *)n->name_pos.items[i];
            Sym *old = lookup_in(pr->scope, name);
            if (old) {
                err(s, p, "'%s' redeclared", name);
                continue;
            }
            if (t->kind == TY_VOID && t != TY_ERR) {
                err(s, p, "Variable type 'void' is incomplete");
                continue;
            }
            Sym *y = declare(s, pr->scope, name, SY_VAR);
            y->var = new_var(s, name, t, V_LOCAL, p);
            cy_vec_push(s->a, &s->fn->locals, y->var);
            if (is_buffer(t)) y->buf = buffer_view(s, y->var);
        }
        return;
    }
    case S_GLOBAL:
        for (int i = 0; i < n->names.len; i++) cy_vec_push(s->a, &pr->globals, n->names.items[i]);
        return;
    case S_FUNC: {
        /* a def nested in the function: its name is a local (an object) */
        ANode tn = {.kind = A_NAME, .pos = n->func->pos, .name = n->func->name};
        pre_target(pr, &tn, NULL, 2);
        return;
    }
    case S_ASSIGN:
        for (int i = 0; i < n->targets.len; i++) pre_target(pr, n->targets.items[i], n->value, 0);
        return;
    case S_AUGASSIGN:
        if (n->lhs && n->lhs->kind == A_NAME) {
            Untyped *u = untyped(pr, n->lhs->name, n->lhs->pos);
            if (u) {
                u->only_range = 0;
                cy_vec_push(s->a, &u->values, n->rhs);
                cy_vec_push(s->a, &u->augvals, n->rhs);
            }
        }
        return;
    case S_FOR: {
        int is_prange;
        ANode *t = n->targets.items[0];
        if (is_range_call(s, n->value, &is_prange)) {
            pre_target(pr, t, n->value, 1);
            Untyped *u = t->kind == A_NAME && is_prange ? untyped(pr, t->name, t->pos) : NULL;
            if (u) u->prange = 1;
        } else {
            pre_target(pr, t, NULL, 2);
        }
        pre_block(pr, &n->body);
        pre_block(pr, &n->orelse);
        return;
    }
    case S_IMPORT:
        if (!is_cython_mod(n->module)) {
            for (int i = 0; i < (n->names.len ? n->names.len : 1); i++) {
                const char *mod = n->names.len ? n->names.items[i] : n->module;
                const char *alias = n->aliases.len > i ? n->aliases.items[i] : NULL;
                if (!mod) continue;
                char top[256];
                snprintf(top, sizeof top, "%s", mod);
                char *dot = strchr(top, '.');
                if (dot) *dot = 0;
                ANode tn = {.kind = A_NAME, .pos = n->pos, .name = alias ? alias : cy_strdup(s->a, top)};
                pre_target(pr, &tn, NULL, 2);
            }
        }
        return;
    case S_FROMIMPORT:
        if (!n->is_cimport && !is_cython_mod(n->module))
            for (int i = 0; i < n->names.len; i++) {
                ANode tn = {.kind = A_NAME, .pos = n->pos,
                            .name = n->aliases.items[i] ? n->aliases.items[i] : n->names.items[i]};
                pre_target(pr, &tn, NULL, 2);
            }
        return;
    case S_IF: case S_WHILE:
        pre_block(pr, &n->body);
        pre_block(pr, &n->orelse);
        return;
    case S_TRY:
        pre_block(pr, &n->body);
        for (int i = 0; i < n->handlers.len; i++) {
            ANode *h = n->handlers.items[i];
            if (h->name) {
                ANode tn = {.kind = A_NAME, .pos = h->pos, .name = h->name};
                pre_target(pr, &tn, NULL, 2);
            }
            pre_block(pr, &h->body);
        }
        pre_block(pr, &n->tryelse);
        pre_block(pr, &n->orelse);
        return;
    case S_WITH:
        pre_block(pr, &n->body);
        return;
    case S_DEL:
        /* a deleted name is an object (Cython infers no C type for it) */
        for (int i = 0; i < n->targets.len; i++) {
            ANode *t = n->targets.items[i];
            if (t->kind == A_NAME) pre_target(pr, t, NULL, 2);
        }
        return;
    default:
        return;
    }
}

static void pre_block(Pre *pr, CyVec *body) {
    for (int i = 0; i < body->len; i++) pre_stmt(pr, body->items[i]);
}

/* Cython's MarkOverflowingArithmetic: a name under an arithmetic operator
 * (not & | ^), a unary minus, abs() or an in-place assignment, through
 * calls (positional arguments only) but not through any other node
 * (indexing, comparisons, attributes ...), might overflow in C; such a
 * range() counter stays an object.  Names used without the GIL are noted:
 * Cython would reject them as objects there, cyocl keeps them C. */
static Untyped *find_untyped(Pre *pr, const char *name) {
    for (Untyped *u = pr->list; u; u = u->next)
        if (!strcmp(u->name, name)) return u;
    return NULL;
}

static void mo_expr(Pre *pr, ANode *e, int danger, int nogil) {
    if (!e) return;
    int d = 0;
    switch (e->kind) {
    case A_NAME: {
        Untyped *u = find_untyped(pr, e->name);
        if (u && danger) u->overflow = 1;
        if (u && nogil) u->nogil_use = 1;
        return;
    }
    case A_BINOP: d = strcmp(e->op, "&") && strcmp(e->op, "|") && strcmp(e->op, "^") ? 1 : danger; break;
    case A_UNOP: d = !strcmp(e->op, "-") ? 1 : danger; break;
    case A_CALL:
        d = e->kwnames.len ? 0 : e->obj && e->obj->kind == A_NAME && !strcmp(e->obj->name, "abs") ? 1 : danger;
        break;
    default: break;
    }
    ANode *kids[] = {e->lhs, e->rhs, e->obj, e->cond, e->then, e->other};
    for (size_t i = 0; i < sizeof kids / sizeof kids[0]; i++) mo_expr(pr, kids[i], d, nogil);
    for (int i = 0; i < e->items.len; i++) mo_expr(pr, e->items.items[i], d, nogil);
    for (int i = 0; i < e->values.len; i++) mo_expr(pr, e->values.items[i], d, nogil);
}

static void mo_block(Pre *pr, CyVec *body, int nogil);

static void mo_stmt(Pre *pr, ANode *n, int nogil) {
    switch (n->kind) {
    case S_AUGASSIGN:
        mo_expr(pr, n->lhs, 1, nogil);
        mo_expr(pr, n->rhs, 1, nogil);
        return;
    case S_ASSIGN:
        for (int i = 0; i < n->targets.len; i++) mo_expr(pr, n->targets.items[i], 0, nogil);
        mo_expr(pr, n->value, 0, nogil);
        return;
    case S_EXPR: case S_RETURN: case S_RAISE: mo_expr(pr, n->value, 0, nogil); return;
    case S_ASSERT: mo_expr(pr, n->cond, 0, nogil); mo_expr(pr, n->value, 0, nogil); return;
    case S_CDEF:
        for (int i = 0; i < n->inits.len; i++) mo_expr(pr, n->inits.items[i], 0, nogil);
        return;
    case S_IF: case S_WHILE:
        mo_expr(pr, n->cond, 0, nogil);
        mo_block(pr, &n->body, nogil);
        mo_block(pr, &n->orelse, nogil);
        return;
    case S_TRY:
        mo_block(pr, &n->body, nogil);
        for (int i = 0; i < n->handlers.len; i++) {
            ANode *h = n->handlers.items[i];
            mo_expr(pr, h->value, 0, nogil);
            mo_block(pr, &h->body, nogil);
        }
        mo_block(pr, &n->tryelse, nogil);
        mo_block(pr, &n->orelse, nogil);
        return;
    case S_FOR: {
        int is_prange;
        int in_range = is_range_call(pr->s, n->value, &is_prange);
        mo_expr(pr, n->targets.items[0], 0, nogil || (in_range && is_prange));
        mo_expr(pr, n->value, 0, nogil);
        mo_block(pr, &n->body, nogil || (in_range && is_prange));
        mo_block(pr, &n->orelse, nogil);
        return;
    }
    case S_WITH: {
        int ng = nogil;
        for (int i = 0; i < n->with_items.len; i++) {
            ANode *x = ((AWithItem *)n->with_items.items[i])->expr;
            const char *nm = x->kind == A_NAME ? x->name : x->kind == A_ATTR ? x->name : NULL;
            if (nm && !strcmp(nm, "nogil")) ng = 1;
            if (nm && !strcmp(nm, "gil")) ng = 0;
        }
        mo_block(pr, &n->body, ng);
        return;
    }
    default: return;
    }
}

static void mo_block(Pre *pr, CyVec *body, int nogil) {
    for (int i = 0; i < body->len; i++) mo_stmt(pr, body->items[i], nogil);
}

/* Does e read an untyped local whose type is not settled yet, or self? */
static int needs_undecided(Pre *pr, const ANode *e, const Untyped *self) {
    if (!e) return 0;
    if (e->kind == A_NAME) {
        Untyped *u = find_untyped(pr, e->name);
        return u && (!u->decided || u == self);
    }
    const ANode *kids[] = {e->lhs, e->rhs, e->obj, e->cond, e->then, e->other};
    for (size_t i = 0; i < sizeof kids / sizeof kids[0]; i++)
        if (needs_undecided(pr, kids[i], self)) return 1;
    for (int i = 0; i < e->items.len; i++)
        if (needs_undecided(pr, e->items.items[i], self)) return 1;
    for (int i = 0; i < e->values.len; i++)
        if (needs_undecided(pr, e->values.items[i], self)) return 1;
    return 0;
}

static int is_aug_value(const Untyped *u, const ANode *v) {
    for (int i = 0; i < u->augvals.len; i++)
        if (u->augvals.items[i] == v) return 1;
    return 0;
}

/* The spanning type of the values assigned to u (Cython's
 * find_spanning_type: one type as it is, different ones spanned), NULL for
 * an object.  In the first pass the values that read the variable itself
 * or other variables still undecided are skipped (counted in *skipped);
 * then they are typed with the provisional type of the others, as Cython's
 * partial inference does.  Literals beyond 32 bits are Python ints, and
 * len() a Py_ssize_t, as in Cython. */
static CyType *span_values(Pre *pr, Untyped *u, int first_pass, int *skipped, int *differ, int *nbool) {
    S *s = pr->s;
    CyType *span = NULL;
    for (int i = 0; i < u->values.len; i++) {
        ANode *v = u->values.items[i];
        int dep = is_aug_value(u, v) || needs_undecided(pr, v, u);
        if (first_pass && dep) {
            (*skipped)++;
            continue;
        }
        if (dep) *differ = 1; /* Cython's partial types are other type objects: spanned */
        CyType *vt;
        if (v->kind == A_INT && (v->int_overflow || v->ival > 0x7fffffffu)) return NULL;
        if (v->kind == A_CALL && v->obj && v->obj->kind == A_NAME && !strcmp(v->obj->name, "len") &&
            v->items.len == 1 && !v->kwnames.len && !lookup(s, "len"))
            vt = cy_type_scalar(TY_SSIZE);
        else
            vt = probe_type(s, v);
        if (vt->kind == TY_BINT) {
            if (v->kind != A_TRUE && v->kind != A_FALSE) return NULL;
            (*nbool)++;
        }
        int num = cy_type_cython_rank(vt) >= 0 || vt->kind == TY_BINT;
        if (!num && vt->kind != TY_PTR && vt->kind != TY_STRUCT) return NULL;
        if (!span) {
            span = vt;
            continue;
        }
        if (cy_type_equal(span, vt)) continue;
        int snum = cy_type_cython_rank(span) >= 0 || span->kind == TY_BINT;
        if (!num || !snum || span->kind == TY_BINT || vt->kind == TY_BINT) return NULL;
        span = cy_type_span(span, vt);
        *differ = 1;
    }
    return span;
}

/* Cython's safe_spanning_type: double, float (double when spanned),
 * double complex, pointers, structs, bint (True/False only: Cython infers
 * comparisons as objects) and C integers that cannot overflow (mo_expr)
 * stay C; anything else is an object (NULL). */
static CyType *safe_span(const Untyped *u, CyType *span, int differ, int nbool) {
    if (!span) return NULL;
    if (differ && (span->kind == TY_FLOAT || span->kind == TY_DOUBLE)) return cy_type_scalar(TY_DOUBLE);
    switch (span->kind) {
    case TY_FLOAT: case TY_DOUBLE: case TY_CDOUBLE: case TY_PTR: case TY_STRUCT: return span;
    case TY_BINT: return nbool ? span : NULL;
    default: return cy_type_is_int(span) && !u->overflow ? span : NULL;
    }
}

/* Cython's "safe" type inference: a C type only where no Python semantics
 * can differ — loop counters of range() over C integers (unless they might
 * overflow, see mo_expr), and variables assigned only values of the types
 * span_values keeps.  A variable whose values read other variables still
 * being inferred stays an object, except when they read only itself:
 * typed from its other values first, then checked with all of them. */
static void infer_untyped(Pre *pr) {
    S *s = pr->s;
    int saved = s->nogil;
    s->nogil = 0;
    for (Untyped *u = pr->list; u; u = u->next) {
        CyType *t = cy_type_scalar(TY_OBJECT);
        Sym *y = declare(s, pr->scope, u->name, SY_PYVAR);
        y->var = new_var(s, u->name, t, V_LOCAL, u->pos);
        if (!u->other && u->values.len) {
            if (u->only_range) {
                int ok = 1;
                for (int i = 0; i < u->values.len && ok; i++) {
                    ANode *call = u->values.items[i];
                    for (int j = 0; j < call->items.len; j++) {
                        CyType *bt = probe_type(s, call->items.items[j]);
                        if (!cy_type_is_int(bt)) ok = 0;
                    }
                }
                if (ok && (!u->overflow || u->prange || u->nogil_use)) t = cy_type_scalar(TY_SSIZE);
            } else {
                int skipped = 0, differ = 0, nbool = 0;
                CyType *span = span_values(pr, u, 1, &skipped, &differ, &nbool);
                if (span && skipped) {
                    /* the values reading the variable itself, typed with the provisional type */
                    y->var->ty = span;
                    u->decided = 1;
                    differ = nbool = 0;
                    span = span_values(pr, u, 0, &skipped, &differ, &nbool);
                    u->decided = 0;
                }
                span = safe_span(u, span, differ, nbool);
                if (span) t = span;
            }
        }
        y->var->ty = t;
        u->decided = 1;
        cy_vec_push(s->a, &s->fn->locals, y->var);
    }
    s->nogil = saved;
}

/* ---- privates of a parallel() block read after it ----------------------
 * Cython's flow analysis (FlowControl) leaves a variable assigned in a
 * `with parallel():` block (outside its pranges: theirs are lastprivate)
 * unbound after it, and a read where it is unbound on every path is its
 * error "local variable 'x' referenced before assignment".  cyocl follows
 * the statements after the block in order and reports where Cython surely
 * does: a read before any statement that may assign the variable, leave,
 * or take its address (there it stops: Cython may see a path that binds
 * it, and then it only warns). */

typedef struct {
    const IrVar *v;
    const IrExpr **hit;
} VarFind;

static int is_var_ref(const IrExpr *e, const void *arg) {
    const VarFind *f = arg;
    if (e->kind == E_ADDR && e->nargs > 0 && e->args[0]->kind == E_VAR && e->args[0]->var == f->v) return 1;
    if (e->kind != E_VAR || e->var != f->v) return 0;
    *f->hit = e;
    return 1;
}

/* 1: e reads v (*at: where); -1: e takes v's address; 0: neither */
static int expr_reads(const IrExpr *e, const IrVar *v, const IrExpr **at) {
    if (!e) return 0;
    const IrExpr *hit = NULL;
    VarFind f = {v, &hit};
    if (!cy_ir_expr_any(e, is_var_ref, &f)) return 0;
    if (!hit) return -1;
    *at = hit;
    return 1;
}

/* May s (and what it holds) assign v? */
static int stmt_assigns(const IrStmt *x, const IrVar *v, int in_prange) {
    if (x->kind == ST_ASSIGN && x->target && x->target->kind == E_VAR && x->target->var == v) return 1;
    if (x->kind == ST_FOR_RANGE && x->var == v) return 1;
    if (x->kind == ST_PRANGE && x->region && x->region->index == v) return in_prange;
    for (int i = 0; i < x->ntargets; i++)
        if (x->targets[i] && x->targets[i]->kind == E_VAR && x->targets[i]->var == v) return 1;
    if (x->kind == ST_FOR_ITER && x->var == v) return 1;
    if (x->kind == ST_PRANGE && !in_prange) return 0;
    for (int i = 0; i < x->body.len; i++)
        if (stmt_assigns(x->body.items[i], v, in_prange)) return 1;
    for (int i = 0; i < x->orelse.len; i++)
        if (stmt_assigns(x->orelse.items[i], v, in_prange)) return 1;
    return 0;
}

/* The first read of v in s, in evaluation order; -1 where s takes its address */
static int stmt_reads(const IrStmt *x, const IrVar *v, const IrExpr **at) {
    const IrExpr *es[] = {x->value, x->cond, x->start, x->stop, x->step,
                          x->region ? x->region->start : NULL, x->region ? x->region->stop : NULL,
                          x->region ? x->region->step : NULL, x->region ? x->region->num_threads : NULL,
                          x->region ? x->region->chunksize : NULL, x->region ? x->region->use_threads_if : NULL};
    for (size_t i = 0; i < sizeof es / sizeof es[0]; i++) {
        int r = expr_reads(es[i], v, at);
        if (r) return r;
    }
    if (x->target) {
        if (x->target->kind == E_VAR && x->target->var == v) {
            if (x->op) {
                *at = x->target;
                return 1;
            }
        } else {
            int r = expr_reads(x->target, v, at);
            if (r) return r;
        }
    }
    for (int i = 0; i < x->ntargets; i++) {
        int r = x->targets[i] && x->targets[i]->kind != E_VAR ? expr_reads(x->targets[i], v, at) : 0;
        if (r) return r;
    }
    for (int i = 0; i < x->body.len; i++) {
        int r = stmt_reads(x->body.items[i], v, at);
        if (r) return r;
    }
    for (int i = 0; i < x->orelse.len; i++) {
        int r = stmt_reads(x->orelse.items[i], v, at);
        if (r) return r;
    }
    return 0;
}

/* The statements body[from..] with v unbound: 1 when that is settled
 * (a read reported, or a statement after which Cython may see v bound),
 * 0 when the end of body is reached with v still unbound. */
static int unbound_after(S *s, const CyVec *body, int from, const IrVar *v) {
    for (int k = from; k < body->len; k++) {
        const IrStmt *x = body->items[k];
        const IrExpr *at = NULL;
        int assigns = stmt_assigns(x, v, 1);
        int simple = x->kind == ST_ASSIGN || x->kind == ST_EXPR || x->kind == ST_RETURN || x->kind == ST_RAISE ||
                     x->kind == ST_ASSERT;
        /* a compound statement that assigns v may bind it before a read */
        if (assigns && !simple) return 1;
        int r = stmt_reads(x, v, &at);
        if (r > 0) {
            err(s, at->pos, "local variable '%s' referenced before assignment", v->name);
            return 1;
        }
        if (r < 0 || assigns) return 1;
        if (x->kind == ST_RETURN || x->kind == ST_RAISE || x->kind == ST_BREAK || x->kind == ST_CONTINUE) return 1;
    }
    return 0;
}

/* Checks every parallel() block in body; returns the privates still
 * unbound at body's end (in *pend), for a `with nogil:` around it. */
static void check_parallel_privates(S *s, const CyVec *body, CyVec *pend) {
    for (int k = 0; k < body->len; k++) {
        const IrStmt *x = body->items[k];
        CyVec inner = {0};
        if (x->kind == ST_PARALLEL && x->region) {
            for (int i = 0; i < x->region->vars.len; i++) {
                IrVarUse *u = x->region->vars.items[i];
                if (u->cls != RC_PRIVATE || u->var->kind != V_LOCAL) continue;
                int direct = 0;
                for (int j = 0; j < x->body.len && !direct; j++) direct = stmt_assigns(x->body.items[j], u->var, 0);
                if (direct) cy_vec_push(s->a, &inner, u->var);
            }
            /* a nested block's own privates: settled inside it */
            CyVec none = {0};
            check_parallel_privates(s, &x->body, &none);
        } else {
            CyVec sub = {0};
            check_parallel_privates(s, &x->body, &sub);
            check_parallel_privates(s, &x->orelse, &sub);
            /* only a straight-line wrapper carries them on */
            if (x->kind == ST_NOGIL || x->kind == ST_GIL || x->kind == ST_BLOCK) inner = sub;
        }
        for (int i = 0; i < inner.len; i++)
            if (!unbound_after(s, body, k + 1, inner.items[i])) cy_vec_push(s->a, pend, inner.items[i]);
    }
}

/* ---- last values read after a prange that breaks ------------------------
 * After a break out of a prange, Cython's lastprivates hold what the
 * thread that owns the loop's last iteration had (the iterations after the
 * break are skipped, not the copy-out): which iteration that was depends on
 * the schedule, the thread count and the timing, and cyocl's native and
 * OpenCL runs pick others again. Valid Cython, so a warning where such a
 * value is read after the loop. */

typedef struct BreakFrame {
    const CyVec *body;
    int k;
    const struct BreakFrame *up;
} BreakFrame;

static int read_after(S *s, const CyVec *body, int from, const BreakFrame *up, const IrVar *v, const IrStmt *loop) {
    for (int k = from; k < body->len; k++) {
        const IrStmt *x = body->items[k];
        /* a loop over v assigns it before its body reads it */
        if ((x->kind == ST_PRANGE && x->region && x->region->index == v) ||
            ((x->kind == ST_FOR_RANGE || x->kind == ST_FOR_ITER) && x->var == v))
            return 1;
        const IrExpr *at = NULL;
        int r = stmt_reads(x, v, &at);
        if (r > 0) {
            warn(s, at->pos,
                 "'%s' is read after the prange of line %d, whose body may break: after a break its value is the "
                 "one the thread owning the loop's last iteration had (Cython's lastprivate), which depends on the "
                 "schedule, the number of threads and their timing (and differs between Cython's build, cyocl's "
                 "native run and OpenCL); store what the breaking iteration found in an array element instead",
                 v->name, loop->pos.line);
            return 1;
        }
        if (r < 0 || stmt_assigns(x, v, 1) || x->kind == ST_RETURN || x->kind == ST_RAISE) return 1;
    }
    return up ? read_after(s, up->body, up->k + 1, up->up, v, loop) : 0;
}

static void check_break_lastprivates(S *s, const CyVec *body, const BreakFrame *up) {
    for (int k = 0; k < body->len; k++) {
        const IrStmt *x = body->items[k];
        if (x->kind == ST_PRANGE && x->region && x->region->has_break)
            for (int i = 0; i < x->region->vars.len; i++) {
                IrVarUse *u = x->region->vars.items[i];
                if (u->cls == RC_LASTPRIVATE && (u->var->kind == V_LOCAL || u->var->kind == V_PARAM) &&
                    u->var->name[0] != '$')
                    read_after(s, body, k + 1, up, u->var, x);
            }
        if (x->kind == ST_PRANGE) continue; /* a prange inside runs serially: its breaks are plain */
        BreakFrame f = {body, k, up};
        check_break_lastprivates(s, &x->body, &f);
        check_break_lastprivates(s, &x->orelse, &f);
    }
}

static void make_cells(S *s, AFunc *af);

static void lower_function(S *s, AFunc *af, IrFunc *fn) {
    if (!af->cells_done) {
        af->cells_done = 1;
        make_cells(s, af);
    }
    Scope fsc = {s->mscope, NULL, NULL, 0, 0};
    s->scope = &fsc;
    s->fscope = &fsc;
    s->fn = fn;
    Directives saved = s->dir;
    for (int i = 0; i < af->decorators.len; i++) {
        ANode *d = af->decorators.items[i];
        if (fn->cls && d->kind == A_NAME && !strcmp(d->name, "property")) continue; /* declare_class's */
        if (fn->static_of && d->kind == A_NAME && !strcmp(d->name, "staticmethod")) continue;
        if (fn->is_classmethod && d->kind == A_NAME && !strcmp(d->name, "classmethod")) continue;
        if (fn->cls && d->kind == A_ATTR && d->obj->kind == A_NAME && !strcmp(d->obj->name, fn->name) &&
            (!strcmp(d->name, "setter") || !strcmp(d->name, "deleter")))
            continue; /* a property's setter or deleter: declare_class's */
        if (d->kind == A_CALL && directive_call(s, d, &s->dir, 1)) continue;
        /* silently dropping a decorator would change what the function does */
        err(s, d->pos, "this decorator is not supported (only cython directives such as "
                       "@cython.boundscheck(False), with 'cimport cython')");
    }
    s->fbody = &af->body;
    s->bufvars.len = 0;
    for (int i = 0; i < fn->params.len; i++) {
        IrVar *p = fn->params.items[i];
        if (lookup_in(&fsc, p->name)) {
            err(s, p->pos, "duplicate argument '%s' in function definition", p->name);
            continue;
        }
        Sym *y = declare(s, &fsc, p->name, SY_VAR);
        y->var = p;
        if (i == 0 && fn->cls) continue; /* the instance: Python's method descriptor tested it */
        if (!is_ndarray(p->ty) && !is_builtin_obj(p->ty)) continue;
        /* a def argument is type-tested on entry (cdef callers test what they pass) */
        if (fn->kind != F_CDEF) {
            IrStmt *x = st(s, ST_EXPR, p->pos);
            x->value = mk1(s, E_PYTYPE_TEST, p->ty, p->pos, mk_var(s, p, p->pos));
            x->value->sval = p->name;
            /* 'not None': Cython's message is the type test's ("... got NoneType") */
            x->value->ival = (uint64_t)(intptr_t)fn->param_not_none.items[i];
            fn->param_not_none.items[i] = (void *)(intptr_t)0;
            cy_vec_push(s->a, &fn->body, x);
        }
        if (!is_buffer(p->ty)) continue;
        y->buf = buffer_view(s, p);
        cy_vec_push(s->a, &fn->body, buffer_acquire(s, p, p->pos));
    }
    int hoist_mark = s->hoists.len;
    if (s->flat) {
        /* self is only its attributes' parameters here */
        Flat *f = s->flat;
        IrVar *self = f->m->params.items[0];
        IrVar *dummy = new_var(s, self->name, self->ty, V_LOCAL, self->pos);
        declare(s, &fsc, self->name, SY_VAR)->var = dummy;
        for (int i = 0; i < f->attrs.len; i++) {
            Hoist *h = cy_alloc(s->a, sizeof *h);
            h->obj = dummy;
            h->attr = ((IrAttr *)f->attrs.items[i])->name;
            h->local = fn->params.items[i];
            cy_vec_push(s->a, &s->hoists, h);
        }
    }
    Pre pr = {s, NULL, &fsc, {0}};
    pre_block(&pr, &af->body);
    mo_block(&pr, &af->body, af->is_nogil);
    infer_untyped(&pr);
    s->nogil = fn->is_nogil && !fn->with_gil;
    s->nogil_block = 0;
    s->loop_depth = 0;
    lower_block(s, &af->body, &fn->body);
    CyVec pend = {0};
    check_parallel_privates(s, &fn->body, &pend);
    check_break_lastprivates(s, &fn->body, NULL);
    if (s->bufvars.len) buffer_reacquire(s, &fn->body);
    s->hoists.len = hoist_mark;
    s->dir = saved;
    s->scope = s->mscope;
    s->fn = NULL;
    s->nogil = 0;
}

static int uses_name(ANode *n, const char *name);

static int uses_vec(CyVec *v, const char *name) {
    for (int i = 0; i < v->len; i++)
        if (uses_name(v->items[i], name)) return 1;
    return 0;
}

/* Does the statement or expression n mention name (as a name)? */
static int uses_name(ANode *n, const char *name) {
    if (!n) return 0;
    if (n->kind == A_NAME) return !strcmp(n->name, name);
    if (n->kind == S_FUNC) return 0;
    for (int i = 0; i < n->with_items.len; i++)
        if (uses_name(((AWithItem *)n->with_items.items[i])->expr, name)) return 1;
    return uses_name(n->obj, name) || uses_name(n->lhs, name) || uses_name(n->rhs, name) || uses_name(n->cond, name) ||
           uses_name(n->then, name) || uses_name(n->other, name) || uses_name(n->value, name) ||
           uses_vec(&n->items, name) || uses_vec(&n->values, name) || uses_vec(&n->targets, name) ||
           uses_vec(&n->inits, name) || uses_vec(&n->body, name) || uses_vec(&n->orelse, name) ||
           uses_vec(&n->handlers, name) || uses_vec(&n->tryelse, name);
}

static IrFunc *declare_function(S *s, AFunc *af, int is_extern) {
    IrFunc *fn = cy_alloc(s->a, sizeof *fn);
    fn->kind = is_extern ? F_EXTERN : af->kind == FN_DEF ? F_DEF : af->kind == FN_CDEF ? F_CDEF : F_CPDEF;
    fn->name = af->name;
    fn->cname = is_extern ? (af->cname ? af->cname : af->name) : cident(s, "cy_f_", af->name);
    fn->pos = af->pos;
    fn->is_nogil = af->is_nogil;
    fn->is_inline = af->is_inline;
    fn->with_gil = af->with_gil;
    fn->noexcept = af->is_noexcept || is_extern;
    fn->docstring = af->docstring;
    if (af->kind == FN_DEF) {
        fn->ret = cy_type_scalar(TY_OBJECT);
        if (af->is_nogil) err(s, af->pos, "def functions cannot be nogil");
    } else {
        if (af->ret && af->ret->buf_dtype && names_ndarray(s, af->ret->name) && !af->ret->ptr)
            fn->ret = ndarray_type(s, NULL); /* Cython: a returned buffer is only its ndarray type */
        else
            fn->ret = af->ret ? resolve_type(s, af->ret) : cy_type_scalar(TY_OBJECT);
        if (is_view(fn->ret) && af->kind != FN_CDEF) fn->ret = fn->ret;
    }
    if (fn->ret->kind == TY_ARRAY) {
        err(s, af->ret->pos, "Function cannot return an array");
        fn->ret = TY_ERR;
    }
    if (af->kind == FN_CPDEF && (fn->ret->kind == TY_PTR || fn->ret->kind == TY_ARRAY || fn->ret->kind == TY_OPAQUE))
        err(s, af->ret->pos, "Cannot convert '%s' to Python object", fn->ret->name);
    if (af->is_nogil && is_obj(fn->ret) && !is_extern)
        err(s, af->pos, "Function with Python return type cannot be declared nogil");
    int seen_default = 0;
    fn->npos = af->params.len;
    for (int i = 0; i < af->params.len; i++) {
        AParam *ap = af->params.items[i];
        ATypeSyn *aty = ap->type;
        if (ap->kwonly && fn->npos == af->params.len) fn->npos = i;
        const char *pname = ap->name;
        if (!aty && pname && (af->kind == FN_CDEF || is_extern)) {
            /* `double sqrt(DTYPE_t)`: a lone name that is a type is the
               type of an unnamed argument, as Cython reads it */
            Sym *ty_sym = lookup(s, pname);
            if (ty_sym && ty_sym->kind == SY_TYPE) {
                aty = cy_alloc(s->a, sizeof *aty);
                memset(aty, 0, sizeof *aty);
                aty->pos = ap->pos;
                aty->name = pname;
                pname = NULL;
            }
        }
        s->buf_ok += !is_extern;
        CyType *t = resolve_type(s, aty);
        s->buf_ok -= !is_extern;
        if (t->kind == TY_VOID && t != TY_ERR) {
            err(s, ap->pos, "argument '%s' cannot be void", ap->name);
            t = TY_ERR;
        }
        if (af->is_nogil && is_obj(t) && !is_extern && !(i == 0 && s->decl_method))
            err(s, ap->pos, "Function with Python argument '%s' cannot be declared nogil", ap->name);
        /* what Python calls must come from a Python object */
        if (af->kind != FN_CDEF && !is_extern && ((t->kind == TY_PTR && !is_char_ptr(t)) || t->kind == TY_ARRAY ||
                                                  t->kind == TY_OPAQUE)) {
            err(s, ap->type ? ap->type->pos : ap->pos, "Cannot convert Python object argument to type '%s'", t->name);
            t = TY_ERR;
        }
        IrVar *p = new_var(s, pname ? pname : cy_fmt(s->a, "arg%d", i), t, V_PARAM, ap->pos);
        if (ap->star) {
            if (af->kind != FN_DEF || is_extern)
                err(s, ap->pos, "'%s' parameters are only supported by cyocl in def functions",
                    ap->star == 1 ? "*args" : "**kwargs");
            if (ap->star == 1) fn->star_arg = i + 1;
            else fn->kwstar_arg = i + 1;
        }
        cy_vec_push(s->a, &fn->params, p);
        IrExpr *d = NULL;
        if (ap->deflt) {
            seen_default = 1;
            Scope *sv = s->scope;
            s->scope = s->mscope;
            IrExpr *v = lower_expr(s, ap->deflt);
            s->scope = sv;
            int konst = v->kind == E_INT || v->kind == E_FLOAT || v->kind == E_IMAG || v->kind == E_NONE ||
                        v->kind == E_STR || v->kind == E_BYTES || v->kind == E_CNAME || v->kind == E_BIGINT ||
                        v->kind == E_PYBOOL;
            if (v->ty == TY_ERR || t == TY_ERR) {
            } else if (konst) {
                d = coerce(s, v, t);
            } else if (s->nfb || is_extern) {
                err(s, ap->deflt->pos, "default argument values must be constants%s",
                    is_extern ? "" : " in a fused function (cyocl)");
            } else if (!is_obj(t) && !is_cnum(t)) {
                err(s, ap->deflt->pos, "a default value of type '%s' that is not a constant is not supported by cyocl", t->name);
            } else {
                LateDefault *ld = cy_alloc(s->a, sizeof *ld);
                ld->af = af;
                ld->pos = ap->deflt->pos;
                ld->var = new_var(s, cy_fmt(s->a, "%s.%s default", af->name, p->name), t, V_MODULE, ap->deflt->pos);
                ld->var->cname = cy_fmt(s->a, "cy_argdef%d", s->ntmp++);
                ld->value = coerce(s, v, t);
                cy_vec_push(s->a, &s->m->module_vars, ld->var);
                cy_vec_push(s->a, &s->late_defaults, ld);
                d = mk_var(s, ld->var, ap->deflt->pos);
            }
            if (!d) d = mk_err(s, ap->deflt->pos);
        } else if (seen_default && !is_extern && !ap->kwonly) {
            err(s, ap->pos, "non-default argument '%s' follows default argument", ap->name);
        }
        cy_vec_push(s->a, &fn->param_defaults, d);
        cy_vec_push(s->a, &fn->param_not_none, (void *)(intptr_t)ap->not_none);
    }
    return fn;
}

/* ---- fused functions ----------------------------------------------------------- */

/* A function with fused arguments is declared and lowered once per
 * combination of their types (Cython's FusedCFuncDefNode copies the
 * function the same way), with the fused types bound in s->fb_*; the
 * copies are ordinary functions to everything after sema.  The group is
 * what the name means: calls in the module pick a copy at compile time, and
 * for def/cpdef it is the Python function that picks one at call time. */
typedef struct FusedFn {
    IrFunc *group;
    int nf;          /* distinct fused types of the arguments, in order of first use */
    Fused **f;
    int *pslot;      /* per parameter: its fused type (index into f) or -1 */
    CyVec binds;     /* per specialisation: CyType *[nf] */
} FusedFn;

static void fused_bind(S *s, FusedFn *ff, int j) {
    s->fb_from = ff->f;
    s->fb_to = ff->binds.items[j];
    s->nfb = ff->nf;
}

/* Cython's ranks for overload resolution (0 for what has none). */
static int cy_rank2(const CyType *t) {
    int r = cy_type_cython_rank(t);
    return r < 0 ? 0 : r;
}

/* CNumericType.__lt__ and CComplexType.__lt__ */
static int fused_before(const CyType *a, const CyType *b) {
    if (cy_type_is_complex(a))
        return cy_type_is_complex(b) && a->kind == TY_CDOUBLE && b->kind == TY_CFLOAT;
    return cy_rank2(a) > cy_rank2(b) && (a->is_signed || a->kind == TY_CHAR) >= (b->is_signed || b->kind == TY_CHAR);
}

/* NULL when no argument has a fused type. */
static IrFunc *declare_fused(S *s, AFunc *af) {
    int np = af->params.len, nf = 0;
    Fused **fs = cy_alloc(s->a, (size_t)(np + 1) * sizeof *fs);
    int *pslot = cy_alloc(s->a, (size_t)(np + 1) * sizeof *pslot);
    for (int i = 0; i < np; i++) {
        AParam *ap = af->params.items[i];
        Fused *f = !ap->type ? NULL
                   : ap->type->buf_dtype ? fused_named(s, ap->type->buf_dtype->name) /* np.ndarray[floating, ndim=2] */
                                         : fused_named(s, ap->type->name);
        pslot[i] = -1;
        if (!f) continue;
        int k = 0;
        while (k < nf && fs[k] != f) k++;
        if (k == nf) fs[nf++] = f;
        pslot[i] = k;
    }
    Fused *rf = af->ret ? fused_named(s, af->ret->name) : NULL;
    if (rf) {
        int k = 0;
        while (k < nf && fs[k] != rf) k++;
        if (k == nf) {
            err(s, af->ret->pos, "Return type is not specified as argument type");
            return NULL;
        }
    }
    if (!nf) return NULL;
    for (int k = 0; k < nf; k++)
        if (!fs[k]->types.len) return NULL; /* all its types were refused (reported) */
    long total = 1;
    for (int k = 0; k < nf && total <= 256; k++) total *= fs[k]->types.len;
    if (total > 256) {
        err(s, af->pos, "more than 256 specialisations of fused types are not supported by cyocl");
        return NULL;
    }
    IrFunc *g = cy_alloc(s->a, sizeof *g);
    g->kind = af->kind == FN_DEF ? F_DEF : af->kind == FN_CDEF ? F_CDEF : F_CPDEF;
    g->name = af->name;
    g->cname = cident(s, "cy_f_", af->name);
    g->pos = af->pos;
    g->docstring = af->docstring;
    g->is_nogil = af->is_nogil;
    FusedFn *ff = cy_alloc(s->a, sizeof *ff);
    ff->group = g;
    ff->nf = nf;
    ff->f = fs;
    ff->pslot = pslot;
    for (int j = 0; j < total; j++) {
        /* the first fused type varies slowest, as in Cython */
        CyType **to = cy_alloc(s->a, (size_t)nf * sizeof *to);
        for (int k = nf - 1, r = j; k >= 0; k--) {
            to[k] = fs[k]->types.items[r % fs[k]->types.len];
            r /= fs[k]->types.len;
        }
        cy_vec_push(s->a, &ff->binds, to);
        fused_bind(s, ff, j);
        IrFunc *sp = declare_function(s, af, 0);
        s->nfb = 0;
        sp->cname = cy_fmt(s->a, "cy_fs%d_%s", j, af->name);
        sp->fused_of = g;
        CyBuf b = {0};
        for (int i = 0; i < np; i++)
            if (pslot[i] >= 0) {
                /* without spaces: one word in listings ("f[float[:,::1]]") */
                cy_buf_puts(&b, b.len ? "," : "");
                for (const char *c = ((IrVar *)sp->params.items[i])->ty->name; *c; c++)
                    if (*c != ' ' || !strchr(",:", c[-1])) cy_buf_put(&b, c, 1);
            }
        sp->spec_name = cy_fmt(s->a, "%s[%s]", af->name, b.s ? b.s : "");
        cy_buf_free(&b);
        cy_vec_push(s->a, &g->fused_specs, sp);
        cy_vec_push(s->a, &s->m->funcs, sp);
    }
    IrFunc *sp0 = g->fused_specs.items[0];
    g->params = sp0->params;
    g->param_defaults = sp0->param_defaults;
    g->npos = sp0->npos;
    g->param_not_none = sp0->param_not_none;
    g->ret = sp0->ret;
    for (int k = 0; k < nf; k++) {
        int i = 0;
        while (pslot[i] != k) i++;
        cy_vec_push(s->a, &g->fused_slots, (void *)(intptr_t)i);
        /* Cython's dispatch sorts the types (CNumericType.__lt__: higher
           rank first, signed before unsigned; complex by its real type) and
           takes the first for each Python type */
        int n = fs[k]->types.len, *ord = cy_alloc(s->a, (size_t)n * sizeof *ord), pick[3] = {-1, -1, -1};
        for (int q = 0; q < n; q++) ord[q] = q;
        for (int q = 1; q < n; q++)
            for (int r = q; r > 0 && fused_before(fs[k]->types.items[ord[r]], fs[k]->types.items[ord[r - 1]]); r--) {
                int t = ord[r];
                ord[r] = ord[r - 1];
                ord[r - 1] = t;
            }
        for (int q = 0; q < n; q++) {
            CyType *t = fs[k]->types.items[ord[q]];
            int c = cy_type_is_complex(t) ? 2 : cy_type_is_float(t) ? 1 : 0;
            if (pick[c] < 0) pick[c] = ord[q];
        }
        for (int c = 0; c < 3; c++) cy_vec_push(s->a, &g->fused_pick, (void *)(intptr_t)pick[c]);
        /* a missing argument is its default value as a Python object */
        AParam *ap = af->params.items[i];
        ANode *d = ap->deflt;
        while (d && d->kind == A_UNOP) d = d->obj;
        int dp = -3;
        if (d) {
            AParam *ap0 = af->params.items[i];
            dp = d->kind == A_INT || d->kind == A_TRUE || d->kind == A_FALSE ? pick[0]
                 : d->kind == A_FLOAT ? pick[1] : d->kind == A_IMAG ? pick[2]
                 : d->kind == A_NONE && ap0->type->ndim && !ap0->not_none ? 0 : -1;
        }
        cy_vec_push(s->a, &g->fused_dflt, (void *)(intptr_t)dp);
    }
    cy_pmap_put(s->a, &s->fused_fns, g, ff);
    return g;
}

/* Cython's best_match (PyrexTypes.py) over the fused arguments: exact
 * beats promotion beats conversion; a tie is ambiguous; a Python object
 * matches no specialisation. */
static IrFunc *fused_select(S *s, ANode *n, IrFunc *g) {
    FusedFn *ff = cy_pmap_get(&s->fused_fns, g);
    int np = g->params.len, best = -1, tie = 0, given = 0;
    int bscore[3] = {0, 0, 0};
    CyType **at = cy_alloc(s->a, (size_t)(np + 1) * sizeof *at);
    for (int i = 0; i < np; i++) {
        at[i] = NULL;
        if (ff->pslot[i] < 0) continue;
        ANode *an = NULL;
        if (i < n->items.len) an = n->items.items[i];
        for (int k = 0; !an && k < n->kwnames.len; k++)
            if (!strcmp(n->kwnames.items[k], ((IrVar *)g->params.items[i])->name)) an = n->values.items[k];
        if (an) at[i] = probe_type(s, an);
        if (at[i] == TY_ERR) return NULL;
        given |= an != NULL;
    }
    /* no fused argument given: the call is wrong anyway, func_call says how */
    if (!given) return g->fused_specs.items[0];
    for (int j = 0; j < g->fused_specs.len; j++) {
        IrFunc *sp = g->fused_specs.items[j];
        int score[3] = {0, 0, 0}, ok = 1;
        for (int i = 0; i < np && ok; i++) {
            CyType *src = at[i], *dst = ((IrVar *)sp->params.items[i])->ty;
            if (!src) continue;
            if (cy_type_equal(src, dst)) continue;
            if (is_view(dst)) {
                if (is_view(src) && view_assignable(dst, src)) score[1]++;
                else ok = 0;
            } else if (!is_cnum(src) || !is_cnum(dst)) {
                ok = 0;
            } else if ((dst->kind == TY_INT && cy_type_is_int(src) && src->kind != TY_BINT &&
                        !src->is_signed + cy_rank2(src) / 2 < 2) ||
                       (dst->kind == TY_DOUBLE && cy_type_is_float(src) && cy_rank2(src) <= cy_rank2(dst))) {
                score[2]++; /* promotion */
            } else if ((cy_type_is_int(src) && cy_type_is_int(dst)) || (cy_type_is_float(src) && cy_type_is_float(dst))) {
                int rs = cy_rank2(src) / 2 + !!src->is_signed, rd = cy_rank2(dst) / 2 + !!dst->is_signed;
                score[2] += abs(rd - rs) + 1;
                if (!src->is_signed != !dst->is_signed || cy_rank2(dst) < cy_rank2(src)) score[1]++;
            } else {
                score[1]++;
            }
        }
        if (!ok) continue;
        int c = best < 0 ? -1 : memcmp(score, bscore, sizeof score) ? 0 : 2;
        if (c == 0) {
            c = 1;
            for (int k = 0; k < 3; k++)
                if (score[k] != bscore[k]) {
                    c = score[k] < bscore[k] ? -1 : 1;
                    break;
                }
        }
        if (c < 0) {
            best = j;
            tie = 0;
            memcpy(bscore, score, sizeof score);
        } else if (c == 2) {
            tie = 1;
        }
    }
    if (best < 0) {
        err(s, n->pos, "no suitable method found (candidates: %d)", g->fused_specs.len);
        return NULL;
    }
    if (tie) {
        err(s, n->pos, "ambiguous overloaded method");
        return NULL;
    }
    return g->fused_specs.items[best];
}

/* f[double](...): the specialisation named by types, in the order of the
 * function's fused types. */
static IrFunc *fused_index(S *s, ANode *idx, IrFunc *g) {
    FusedFn *ff = cy_pmap_get(&s->fused_fns, g);
    if (idx->items.len != ff->nf) {
        err(s, idx->pos, "Wrong number of types: expected %d, got %d", ff->nf, idx->items.len);
        return NULL;
    }
    CyType **want = cy_alloc(s->a, (size_t)ff->nf * sizeof *want);
    for (int k = 0; k < ff->nf; k++) {
        ANode *t = idx->items.items[k];
        const char *nm = t->kind == A_NAME ? t->name
                         : t->kind == A_ATTR && t->obj->kind == A_NAME ? cy_fmt(s->a, "%s.%s", t->obj->name, t->name)
                                                                       : NULL;
        want[k] = nm ? scalar_by_name(s, nm) : NULL;
        if (!want[k]) {
            err(s, t->pos, "Can only index fused functions with types");
            return NULL;
        }
        int in = 0;
        for (int m = 0; m < ff->f[k]->types.len; m++) in |= ((CyType *)ff->f[k]->types.items[m])->kind == want[k]->kind;
        if (!in) {
            err(s, t->pos, "Type not in fused type");
            return NULL;
        }
    }
    for (int j = 0; j < ff->binds.len; j++) {
        CyType **to = ff->binds.items[j];
        int k = 0;
        while (k < ff->nf && to[k]->kind == want[k]->kind) k++;
        if (k == ff->nf) return g->fused_specs.items[j];
    }
    return NULL;
}

/* `real_t is double` (is not, ==, !=) in a specialisation: a constant,
 * as Cython's ReplaceFusedTypeChecks makes it.  0: not such a test. */
static int fused_test(S *s, ANode *n, int *val) {
    if (n->kind != A_COMPARE || n->kwnames.len != 1) return 0;
    const char *op = n->kwnames.items[0];
    if (!strcmp(op, "in") || !strcmp(op, "not in")) {
        for (int i = 0; i < 2; i++) {
            ANode *t = n->items.items[i];
            if (t->kind == A_NAME && fused_named(s, t->name)) {
                err(s, n->pos, "an '%s' test on fused types is not supported by cyocl", op);
                *val = 0;
                return 1;
            }
        }
        return 0;
    }
    if (strcmp(op, "is") && strcmp(op, "is not") && strcmp(op, "==") && strcmp(op, "!=")) return 0;
    const char *nm[2];
    int fused = 0;
    for (int i = 0; i < 2; i++) {
        ANode *t = n->items.items[i];
        nm[i] = t->kind == A_NAME ? t->name
                : t->kind == A_ATTR && t->obj->kind == A_NAME ? cy_fmt(s->a, "%s.%s", t->obj->name, t->name)
                                                              : NULL;
        if (!nm[i]) return 0;
        fused |= fused_named(s, nm[i]) != NULL;
    }
    if (!fused) return 0;
    CyType *t0 = scalar_by_name(s, nm[0]), *t1 = scalar_by_name(s, nm[1]);
    if (!t0 || !t1) {
        err(s, n->pos, "a fused type test is only possible inside a function of that fused type");
        *val = 0;
        return 1;
    }
    *val = cy_type_equal(t0, t1) == (op[0] == 'i' ? !strcmp(op, "is") : !strcmp(op, "=="));
    return 1;
}

/* ---- exceptions: which expressions, regions and functions may raise ----------- */

static int raises_stmts(CyVec *v);

static int raises_expr(IrExpr *e) {
    if (!e) return 0;
    int r = 0;
    for (int i = 0; i < e->nargs; i++) r |= raises_expr(e->args[i]);
    for (int i = 0; i < e->nkw; i++) r |= raises_expr(e->kwargs[i]);
    if (e->kind == E_VIEW_SLICE && e->args[0]->ty->kind == TY_VIEW)
        for (int i = 0; i < e->args[0]->ty->ndim; i++) {
            r |= raises_expr(e->slices[i].start) | raises_expr(e->slices[i].stop) | raises_expr(e->slices[i].step);
        }
    switch (e->kind) {
    case E_VIEW_ELEM: r |= e->boundscheck; break;
    case E_VIEW_SLICE: r = 1; break;
    case E_BINOP: if (e->op == OP_DIV && !e->cdivision) r = 1; break;
    case E_PYFLOORDIV: case E_PYMOD: if (!e->cdivision) r = 1; break;
    case E_POW: if (e->soft_pow == 1 || e->soft_pow == 2) r = 1; break;
    case E_CALL: r |= e->fn->can_raise; break;
    case E_STR: case E_BYTES: case E_BIGINT: case E_NONE: case E_PYBOOL: break;
    case E_PYGLOBAL: case E_VIEW_FROM_OBJ: case E_OBJ_FROM_VIEW: case E_BOX: case E_UNBOX: case E_OBJ_BINOP:
    case E_OBJ_UNOP: case E_OBJ_NOT: case E_OBJ_TRUTH: case E_OBJ_CMP: case E_OBJ_CMP_BINT: case E_OBJ_ATTR:
    case E_OBJ_CALL: case E_OBJ_INDEX: case E_OBJ_SLICE: case E_TUPLE: case E_LIST: case E_SET: case E_DICT:
    case E_OBJ_AND: case E_OBJ_OR: case E_OBJ_COND: case E_IMPORT: case E_PYTYPE_TEST:
    case E_COMP_ADD:
        r = 1;
        break;
    case E_STMTS:
        raises_stmts(&e->stmts);
        r = 1;
        break;
    case E_VAR: r |= e->var->ty->kind == TY_OBJECT && e->var->kind == V_LOCAL; break; /* unbound local */
    default: break;
    }
    e->can_raise = r;
    return r;
}

static int raises_stmts(CyVec *v);

static int raises_stmt(IrStmt *x) {
    int r = raises_expr(x->target) | raises_expr(x->value) | raises_expr(x->cond) | raises_expr(x->start) |
            raises_expr(x->stop) | raises_expr(x->step);
    for (int i = 0; i < x->ntargets; i++) r |= raises_expr(x->targets[i]);
    r |= raises_stmts(&x->body) | raises_stmts(&x->orelse);
    switch (x->kind) {
    case ST_RAISE: case ST_ASSERT: case ST_UNPACK: case ST_FOR_ITER: case ST_DEL: r = 1; break;
    case ST_FOR_RANGE: if (x->step_sign == 0) r = 1; break; /* a zero step raises */
    case ST_PRANGE: case ST_PARALLEL: {
        IrRegion *g = x->region;
        r |= raises_expr(g->start) | raises_expr(g->stop) | raises_expr(g->step) | raises_expr(g->chunksize) |
             raises_expr(g->num_threads) | raises_expr(g->use_threads_if);
        if (x->kind == ST_PRANGE && g->step_sign == 0) r = 1;
        g->can_raise = raises_stmts(&x->body);
        r |= g->can_raise;
        break;
    }
    default: break;
    }
    return r;
}

static int raises_stmts(CyVec *v) {
    int r = 0;
    for (int i = 0; i < v->len; i++) r |= raises_stmt(v->items[i]);
    return r;
}

static void compute_raises(IrModule *m) {
    for (int i = 0; i < m->funcs.len; i++) {
        IrFunc *f = m->funcs.items[i];
        f->can_raise = f->kind == F_DEF;
    }
    for (int changed = 1, iter = 0; changed && iter < 1000; iter++) {
        changed = 0;
        for (int i = 0; i < m->funcs.len; i++) {
            IrFunc *f = m->funcs.items[i];
            int r = raises_stmts(&f->body) || f->kind == F_DEF;
            for (int j = 0; j < f->param_defaults.len; j++) raises_expr(f->param_defaults.items[j]);
            if (f->noexcept && f->kind != F_DEF) r = 0;
            /* a method and its overrides share one C convention */
            if (f->vroot) r |= f->vroot->can_raise;
            for (int j = 0; j < f->overrides.len; j++) r |= ((IrFunc *)f->overrides.items[j])->can_raise;
            if (r != f->can_raise) {
                f->can_raise = r;
                changed = 1;
            }
        }
    }
    raises_stmts(&m->init);
}

/* ---- module ------------------------------------------------------------------- */

/* `from M cimport *`: every name cyocl knows of M, as Cython's .pxd
 * would give them; names the file declared first are kept. */
static void cimport_star(S *s, ANode *n, const char *mod) {
    CyPos p = *(CyPos *)n->name_pos.items[0];
    CyVec names = {0};
    if (!strcmp(mod, "cython.parallel")) {
        static const char *const par[] = {"prange", "parallel", "threadid"};
        for (int i = 0; i < 3; i++) cy_vec_push(s->a, &names, (void *)par[i]);
    } else if (!strcmp(mod, "libc.math")) {
        for (int i = 0; cy_libm_table[i].name; i++) cy_vec_push(s->a, &names, (void *)cy_libm_table[i].name);
        for (int i = 0; math_consts[i]; i++) cy_vec_push(s->a, &names, (void *)math_consts[i]);
    } else {
        for (int i = 0; libc_fns[i].mod; i++)
            if (!strcmp(libc_fns[i].mod, mod)) cy_vec_push(s->a, &names, (void *)libc_fns[i].name);
        for (int i = 0; c_consts[i].mod; i++)
            if (!strcmp(c_consts[i].mod, mod)) cy_vec_push(s->a, &names, (void *)c_consts[i].name);
    }
    if (!names.len) {
        err(s, p, "'%s *' from %s is not supported by cyocl", n->is_cimport ? "cimport" : "import", mod);
        return;
    }
    for (int i = 0; i < names.len; i++) {
        if (lookup_in(s->mscope, names.items[i])) continue;
        Sym *y = declare(s, s->mscope, names.items[i], SY_CNAME);
        y->qual = cy_fmt(s->a, "%s.%s", mod, (const char *)names.items[i]);
    }
}

/* What an M.pxd beside the source declares of M's own .pyx (a function
 * without a body, a cdef class, a module variable), by name, or NULL. */
static ANode *pxd_foreign(ANode *n, const char *name) {
    for (int i = 0; i < n->decls.len; i++) {
        ANode *d = n->decls.items[i];
        if (d->kind == S_FUNC && !strcmp(d->func->name, name)) return d;
        if (d->kind == S_CDEF_CLASS && !strcmp(d->name, name)) return d;
        for (int k = 0; d->kind == S_CDEF && k < d->names.len; k++)
            if (!strcmp(d->names.items[k], name)) return d;
    }
    return NULL;
}

/* `from M cimport a, b as c` of a user's M.pxd: the parser spliced its
 * declarations in before this node, so a and b are module names now;
 * an alias is another name of the same symbol. */
static void user_cimport_names(S *s, ANode *n) {
    if (n->kind == S_CIMPORT) {
        const char *alias = n->aliases.len ? n->aliases.items[0] : NULL;
        if (!alias && strchr(n->module, '.')) {
            err(s, *(CyPos *)n->name_pos.items[0],
                "'cimport %s' of a .pxd file in a package is not supported by cyocl without 'as NAME'", n->module);
            return;
        }
        const char *bind = alias ? alias : n->module;
        Sym *y = lookup_in(s->mscope, bind);
        if (y && !(y->kind == SY_CMOD && y->qual && !strcmp(y->qual + 4, n->module))) {
            err(s, *(CyPos *)n->name_pos.items[0], "'%s' redeclared", bind);
            return;
        }
        if (!y) {
            y = declare(s, s->mscope, bind, SY_CMOD);
            y->qual = cy_fmt(s->a, "pxd:%s", n->module);
            y->defval = n; /* the cimport: what the other module's .pyx defines (n->decls) */
        }
        return;
    }
    for (int i = 0; !n->star && i < n->names.len; i++) {
        const char *name = n->names.items[i];
        const char *alias = n->aliases.items[i] ? n->aliases.items[i] : name;
        CyPos p = *(CyPos *)n->name_pos.items[i];
        ANode *f = pxd_foreign(n, name);
        if (f) {
            const char *what = f->kind == S_FUNC ? "function" : f->kind == S_CDEF_CLASS ? "extension type" : "variable";
            err(s, p, "cimport of the cdef %s '%s' of module '%s' (defined in %s.pyx) is not supported by cyocl: it "
                      "builds one module at a time and does not link modules (a 'cdef inline' function, a ctypedef, "
                      "struct, enum or extern block in %s.pxd is supported)",
                what, name, n->module, n->module, n->module);
            if (!lookup_in(s->mscope, alias)) declare(s, s->mscope, alias, SY_PYGLOBAL); /* no follow-on errors */
            continue;
        }
        Sym *y = lookup_in(s->mscope, name);
        if (!y) {
            err(s, p, "Name '%s' not declared in module '%s'", name, n->module);
            continue;
        }
        if (alias != name && strcmp(alias, name)) {
            if (lookup_in(s->mscope, alias)) {
                err(s, p, "'%s' redeclared", alias);
                continue;
            }
            Sym *z = declare(s, s->mscope, alias, y->kind);
            Sym *next = z->next;
            *z = *y;
            z->name = alias;
            z->next = next;
        }
    }
}

static void cimport_names(S *s, ANode *n) {
    const char *mod = n->module;
    int cimp = n->is_cimport || n->kind == S_CIMPORT;
    if (n->user_pxd) {
        user_cimport_names(s, n);
        return;
    }
    /* pure-Python mode: `from cython.cimports.libc.stdlib import malloc` */
    if (!strncmp(mod, "cython.cimports.", 16)) mod += 16, cimp = 1;
    int known = is_known_module(mod);
    if (!known && cimp) {
        err(s, n->pos, "cimport of '%s' is not supported by cyocl (known: cython, cython.parallel, libc.math, "
                       "libc.stdlib, libc.string, libc.stdio, libc.stdint, libc.limits, libc.float, libc.time, numpy, "
                       "openmp, cpython.mem)",
            mod);
        return;
    }
    if (n->star) {
        cimport_star(s, n, mod);
        return;
    }
    for (int i = 0; i < n->names.len; i++) {
        const char *name = n->names.items[i];
        const char *alias = n->aliases.items[i] ? n->aliases.items[i] : name;
        CyPos p = *(CyPos *)n->name_pos.items[i];
        const char *q = cy_fmt(s->a, "%s.%s", mod, name);
        if (!strcmp(mod, "numpy") && !strcmp(name, "ndarray")) {
            Sym *y = declare(s, s->mscope, alias, SY_TYPE);
            y->ty = ndarray_type(s, NULL);
            continue;
        }
        if (is_numpy_init(q)) {
            Sym *y = declare(s, s->mscope, alias, SY_CNAME);
            y->qual = q;
            continue;
        }
        if (!strcmp(mod, "libc.stdint") || (!strcmp(mod, "numpy") && module_type(s, mod, name))) {
            CyType *t = module_type(s, mod, name);
            if (!t) {
                err(s, p, "'%s' is not a known type in %s", name, mod);
                continue;
            }
            Sym *y = declare(s, s->mscope, alias, SY_TYPE);
            y->ty = t;
            continue;
        }
        if (!strcmp(mod, "cython") && builtin_fused(s, name)) {
            Sym *y = declare(s, s->mscope, alias, SY_FUSED);
            y->fused = builtin_fused(s, name);
            continue;
        }
        if (!strcmp(mod, "cython") && !strcmp(name, "parallel")) {
            Sym *y = declare(s, s->mscope, alias, SY_CMOD);
            y->qual = "cython.parallel";
            continue;
        }
        if (is_known_module(q)) { /* from libc cimport stdlib */
            Sym *y = declare(s, s->mscope, alias, SY_CMOD);
            y->qual = q;
            continue;
        }
        if (!strcmp(mod, "libcpp") && !strcmp(name, "bool")) {
            /* C++'s bool: 0 or 1 and a Python bool, as bint is */
            Sym *y = declare(s, s->mscope, alias, SY_TYPE);
            y->ty = alias_type(s, cy_type_scalar(TY_BINT), "bool");
            continue;
        }
        if (!strcmp(mod, "openmp") && !strcmp(name, "omp_lock_t")) {
            Sym *y = declare(s, s->mscope, alias, SY_TYPE);
            y->ty = alias_type(s, cy_type_scalar(TY_OPAQUE), "omp_lock_t");
            continue;
        }
        int ok = libc_fn(q) != NULL || c_const(q) != NULL;
        if (!strcmp(mod, "libc.math")) {
            int f;
            ok = math_fn(q, &f) || is_math_const(q);
        } else {
            for (int j = 0; special_names[j]; j++) ok |= !strcmp(special_names[j], q);
        }
        if (!ok && is_py_builtin(name) && !strcmp(alias, name) && strncmp(mod, "cython", 6)) {
            /* Cython looks a name the .pxd lacks up among the builtins:
               `from libc.math cimport abs` (scikit-image does) is abs() */
            continue;
        }
        if (!ok) {
            err(s, p, "'%s' from %s is not supported by cyocl", name, mod);
            continue;
        }
        Sym *y = declare(s, s->mscope, alias, SY_CNAME);
        y->qual = q;
    }
}

/* cdef enum NAME: the enumerators are int constants of the enum's type;
 * a variable of it is the integer type GCC gives the enum (unsigned int
 * unless an enumerator is negative), which is what Cython's C holds. */
static void declare_enum(S *s, ANode *n) {
    if (n->name && lookup_in(s->mscope, n->name)) {
        err(s, n->pos, "'%s' redeclared", n->name);
        return;
    }
    CyType *ct = cy_type_scalar(TY_INT);
    if (n->name) {
        ct = cy_alloc(s->a, sizeof *ct);
        *ct = *cy_type_scalar(TY_INT);
        ct->name = n->name;
        ct->is_enum = 1;
    }
    long long next = 0;
    int neg = 0;
    for (int k = 0; k < n->names.len; k++) {
        ANode *init = n->inits.items[k];
        CyPos pos = *(CyPos *)n->name_pos.items[k];
        long long v = next;
        if (init && !const_dim(s, init, &v)) continue;
        if (v < INT32_MIN || v > INT32_MAX) {
            err(s, init ? init->pos : pos, "enumerator values outside the range of int are not supported by cyocl");
            continue;
        }
        next = v + 1;
        neg |= v < 0;
        if (lookup_in(s->mscope, n->names.items[k])) {
            err(s, pos, "'%s' redeclared", (const char *)n->names.items[k]);
            continue;
        }
        Sym *y = declare(s, s->mscope, n->names.items[k], SY_ENUMC);
        y->cval = v;
        y->ty = ct;
    }
    if (n->name) {
        CyType *vt = cy_alloc(s->a, sizeof *vt);
        *vt = *cy_type_scalar(neg ? TY_INT : TY_UINT);
        vt->name = n->name;
        vt->is_enum = 1;
        Sym *y = declare(s, s->mscope, n->name, SY_TYPE);
        y->ty = vt;
        if (n->is_cpdef) cy_vec_push(s->a, &s->cpdef_enums, (void *)n->name);
    }
}

/* cpdef enum Color: the module gets Color, an IntEnum (Cython 3's
 * __Pyx_FlexibleEnumBase, the prelude's cyrt_enum_base(): a value without a
 * member converts to a pseudo-member), made where the enum stands; an
 * anonymous cpdef enum gives its enumerators as module ints. */
static void lower_cpdef_enum(S *s, ANode *n, CyVec *out) {
    if (!n->name) {
        for (int k = 0; k < n->names.len; k++) {
            ANode *nm = an_name(s, n->names.items[k], *(CyPos *)n->name_pos.items[k]);
            IrExpr *t = mk(s, E_PYGLOBAL, cy_type_scalar(TY_OBJECT), nm->pos);
            t->sval = nm->name;
            IrExpr *v = lower_expr(s, nm);
            if (v->ty != TY_ERR) cy_vec_push(s->a, out, assign_stmt(s, t, box(s, v), n->pos, OP_NONE));
        }
        return;
    }
    ANode *members = an(s, A_LIST, n->pos);
    for (int k = 0; k < n->names.len; k++) {
        CyPos p = *(CyPos *)n->name_pos.items[k];
        ANode *pair = an(s, A_TUPLE, p), *key = an(s, A_STR, p);
        key->sval = n->names.items[k];
        key->slen = (int)strlen(key->sval);
        ANode *val = an(s, A_CAST, p);
        val->type = cy_alloc(s->a, sizeof(ATypeSyn));
        val->type->name = "int";
        val->type->pos = p;
        val->obj = an_name(s, n->names.items[k], p);
        cy_vec_push(s->a, &pair->items, key);
        cy_vec_push(s->a, &pair->items, val);
        cy_vec_push(s->a, &members->items, pair);
    }
    ANode *call = an(s, A_CALL, n->pos), *base = an(s, A_IR, n->pos), *name = an(s, A_STR, n->pos);
    base->ir = mk(s, E_CNAME, cy_type_scalar(TY_OBJECT), n->pos);
    base->ir->sval = "cyrt_enum_base()";
    name->sval = n->name;
    name->slen = (int)strlen(n->name);
    call->obj = base;
    cy_vec_push(s->a, &call->items, name);
    cy_vec_push(s->a, &call->items, members);
    cy_vec_push(s->a, &call->kwnames, (void *)"module");
    cy_vec_push(s->a, &call->values, an_name(s, "__name__", n->pos));
    cy_vec_push(s->a, &call->kwpos, cy_alloc(s->a, sizeof(CyPos)));
    IrExpr *v = lower_expr(s, call);
    IrExpr *t = mk(s, E_PYGLOBAL, cy_type_scalar(TY_OBJECT), n->pos);
    t->sval = n->name;
    if (v->ty != TY_ERR) cy_vec_push(s->a, out, assign_stmt(s, t, v, n->pos, OP_NONE));
}

/* cdef struct NAME / ctypedef struct NAME: the type is declared before its
 * fields are resolved, so a field may point to the struct itself. */
static void declare_struct(S *s, ANode *n) {
    if (lookup_in(s->mscope, n->name)) {
        err(s, n->pos, "'%s' redeclared", n->name);
        return;
    }
    CyType *t = cy_alloc(s->a, sizeof *t);
    t->kind = TY_STRUCT;
    t->name = n->name;
    t->cname = cy_fmt(s->a, "cys_%s", n->name);
    t->packed = n->is_packed;
    Sym *y = declare(s, s->mscope, n->name, SY_TYPE);
    y->ty = t;
    CyVec names = {0}, types = {0};
    long long size = 0, align = 1;
    for (int i = 0; i < n->body.len; i++) {
        ANode *d = n->body.items[i];
        if (d->kind != S_CDEF) {
            err(s, d->pos, "only field declarations are allowed in a struct");
            continue;
        }
        CyType *ft = resolve_type(s, d->type);
        if (ft == TY_ERR) continue;
        const CyType *sc = cy_type_array_scalar(ft);
        if (sc->kind == TY_OBJECT || is_view(sc)) {
            err(s, *(CyPos *)d->name_pos.items[0], sc->kind == TY_OBJECT ? "C struct/union member cannot be a Python object"
                                                  : "memoryview fields are not supported by cyocl");
            continue;
        }
        if (sc == t || sc->kind == TY_VOID || (sc->kind == TY_STRUCT && !sc->nfields)) {
            err(s, d->pos, "Variable type '%s' is incomplete", sc->name);
            continue;
        }
        for (int k = 0; k < d->names.len; k++) {
            if (d->inits.items[k]) {
                err(s, ((ANode *)d->inits.items[k])->pos, "C struct/union member cannot be declared with an initial value");
                continue;
            }
            for (int j = 0; j < names.len; j++)
                if (!strcmp(names.items[j], d->names.items[k]))
                    err(s, *(CyPos *)d->name_pos.items[k], "'%s' redeclared", (const char *)d->names.items[k]);
            cy_vec_push(s->a, &names, d->names.items[k]);
            cy_vec_push(s->a, &types, ft);
            long long a = sc->kind == TY_STRUCT ? sc->alen : sc->size ? sc->size : 1;
            if (t->packed) a = 1;
            size = (size + a - 1) / a * a + ft->size;
            if (a > align) align = a;
        }
    }
    if (!names.len) {
        err(s, n->pos, "a struct without fields is not supported by cyocl");
        return;
    }
    t->nfields = names.len;
    t->fnames = (const char **)names.items;
    t->ftypes = (CyType **)types.items;
    t->size = (int)((size + align - 1) / align * align);
    t->alen = align; /* a struct's alignment, for the sizes of structs holding it */
    cy_vec_push(s->a, &s->m->structs, t);
}

static void declare_block(S *s, CyVec *stmts);

/* The names a module-level compound statement's blocks bind are module
 * globals too (try: import x / except ImportError as e: ...). */
static void declare_nested(S *s, ANode *n) {
    switch (n->kind) {
    case S_IF: case S_WHILE: case S_FOR: case S_WITH: case S_TRY:
        break;
    default:
        return;
    }
    declare_block(s, &n->body);
    declare_block(s, &n->orelse);
    declare_block(s, &n->tryelse);
    for (int i = 0; i < n->handlers.len; i++) {
        ANode *h = n->handlers.items[i];
        if (h->name && !lookup_in(s->mscope, h->name)) declare(s, s->mscope, h->name, SY_PYGLOBAL);
        declare_block(s, &h->body);
    }
}

/* A number a DEF value folded to: an int or float literal, negated by a
 * unary minus. */
static int def_num(const ANode *n, int *is_int, int64_t *iv, double *fv) {
    int neg = 0;
    if (n->kind == A_UNOP && n->op[0] == '-') {
        neg = 1;
        n = n->obj;
    }
    if (n->kind == A_INT && !n->int_overflow && n->ival <= (uint64_t)INT64_MAX && !n->op) {
        *is_int = 1;
        *iv = neg ? -(int64_t)n->ival : (int64_t)n->ival;
        return 1;
    }
    if (n->kind == A_FLOAT) {
        *is_int = 0;
        *fv = neg ? -n->fval : n->fval;
        return 1;
    }
    if (!neg && (n->kind == A_TRUE || n->kind == A_FALSE)) {
        *is_int = 1;
        *iv = n->kind == A_TRUE;
        return 1;
    }
    return 0;
}

static ANode *def_lit(S *s, CyPos p, int is_int, int64_t iv, double fv) {
    ANode *r = cy_alloc(s->a, sizeof *r);
    r->pos = p;
    int neg = is_int ? iv < 0 : (fv < 0 || (fv == 0 && 1 / fv < 0));
    r->kind = is_int ? A_INT : A_FLOAT;
    r->ival = is_int ? (uint64_t)(neg ? -(uint64_t)iv : (uint64_t)iv) : 0;
    r->fval = neg ? -fv : fv;
    if (!neg) return r;
    ANode *u = cy_alloc(s->a, sizeof *u);
    u->pos = p;
    u->kind = A_UNOP;
    u->op = "-";
    u->obj = r;
    return u;
}

/* DEF's compile-time evaluation, as Cython's (Python arithmetic on ints,
 * floats, bools and other DEF names; a string or None stands as it is):
 * the value as a literal node, or NULL with an error. */
static ANode *def_fold(S *s, ANode *n) {
    int ia, ib;
    int64_t x, y;
    double fx, fy;
    switch (n->kind) {
    case A_INT: case A_FLOAT: case A_STR: case A_TRUE: case A_FALSE: case A_NONE:
        if (n->kind == A_INT && !def_num(n, &ia, &x, &fx)) break;
        return n;
    case A_NAME: {
        Sym *sy = lookup(s, n->name);
        if (sy && sy->kind == SY_DEFC) return sy->defval;
        err(s, n->pos, "Compile-time name '%s' not defined", n->name);
        return NULL;
    }
    case A_UNOP: {
        ANode *a = def_fold(s, n->obj);
        if (!a) return NULL;
        if (!def_num(a, &ia, &x, &fx) || (n->op[0] == '~' && !ia)) break;
        if (n->op[0] == '-') return def_lit(s, n->pos, ia, -x, -fx);
        if (n->op[0] == '~') return def_lit(s, n->pos, 1, ~x, 0);
        return def_lit(s, n->pos, ia, x, fx);
    }
    case A_BINOP: {
        ANode *a = def_fold(s, n->lhs), *b = a ? def_fold(s, n->rhs) : NULL;
        if (!a || !b) return NULL;
        if (!def_num(a, &ia, &x, &fx) || !def_num(b, &ib, &y, &fy)) break;
        const char *op = n->op;
        if (ia && ib) {
            int64_t v;
            if (!strcmp(op, "+")) v = x + y;
            else if (!strcmp(op, "-")) v = x - y;
            else if (!strcmp(op, "*")) v = x * y;
            else if (!strcmp(op, "//") && y) v = x / y - ((x % y != 0) && ((x < 0) != (y < 0)));
            else if (!strcmp(op, "%") && y) v = (x % y + y) % y;
            else if (!strcmp(op, "<<") && y >= 0 && y < 62) v = x << y;
            else if (!strcmp(op, ">>") && y >= 0 && y < 63) v = x >> y;
            else if (!strcmp(op, "&")) v = x & y;
            else if (!strcmp(op, "|")) v = x | y;
            else if (!strcmp(op, "^")) v = x ^ y;
            else if (!strcmp(op, "**") && y >= 0 && y < 63) {
                v = 1;
                for (int64_t k = 0; k < y; k++) v *= x;
            } else if (!strcmp(op, "/") && y) {
                return def_lit(s, n->pos, 0, 0, (double)x / (double)y);
            } else break;
            return def_lit(s, n->pos, 1, v, 0);
        }
        double u = ia ? (double)x : fx, w = ib ? (double)y : fy, v;
        if (!strcmp(op, "+")) v = u + w;
        else if (!strcmp(op, "-")) v = u - w;
        else if (!strcmp(op, "*")) v = u * w;
        else if (!strcmp(op, "/") && w != 0) v = u / w;
        else break;
        return def_lit(s, n->pos, 0, 0, v);
    }
    default: break;
    }
    err(s, n->pos, "this 'DEF' value is not supported by cyocl (an int or float expression, "
                   "a string, True, False or None)");
    return NULL;
}

static void declare_def(S *s, ANode *n) {
    ANode *v = def_fold(s, n->value);
    if (!v) return;
    if (lookup_in(s->mscope, n->name)) {
        err(s, n->pos, "'%s' redeclared", n->name);
        return;
    }
    Sym *y = declare(s, s->mscope, n->name, SY_DEFC);
    y->defval = v;
}

static void declare_module(S *s, AModule *am) { declare_block(s, &am->stmts); }

/* cdef class: the instance type, its C attributes and its methods (each a
 * function whose first parameter is the instance). */
static int attr_type_ok(const CyType *t) {
    if (is_cnum(t) || t->kind == TY_BINT || is_view(t) || t->kind == TY_PTR) return 1;
    if (t->kind == TY_ARRAY) return is_cnum(cy_type_array_scalar(t));
    if (is_obj(t)) return !is_buffer(t);
    if (t->kind == TY_STRUCT) {
        for (int i = 0; i < t->nfields; i++)
            if (is_obj(t->ftypes[i]) || is_view(t->ftypes[i])) return 0;
        return 1;
    }
    return 0;
}

/* An override of a cdef/cpdef method keeps its C signature: a call through
 * the base's goes to it unchanged. */
static int override_ok(S *s, IrFunc *base, IrFunc *fn) {
    int ok = base->kind == fn->kind && base->params.len == fn->params.len && cy_type_equal(base->ret, fn->ret) &&
             base->noexcept == fn->noexcept && base->is_nogil == fn->is_nogil && base->with_gil == fn->with_gil;
    for (int i = 1; ok && i < fn->params.len; i++)
        ok = cy_type_equal(((IrVar *)base->params.items[i])->ty, ((IrVar *)fn->params.items[i])->ty);
    if (!ok)
        err(s, fn->pos, "Signature not compatible with previous declaration (cyocl: an override keeps the kind, "
                        "argument and result types, noexcept and nogil of '%s.%s')", base->cls->name, base->name);
    return ok;
}

/* Every cdef class of a block is a type from the start of the block (a
 * method or function may name a class declared after it, as in Cython). */
static void declare_class_names(S *s, CyVec *stmts) {
    for (int i = 0; i < stmts->len; i++) {
        ANode *n = stmts->items[i];
        if (n->kind != S_CDEF_CLASS || lookup_in(s->mscope, n->name)) continue;
        IrClass *c = cy_alloc(s->a, sizeof *c);
        c->name = n->name;
        c->cname = cident(s, "cy_obj_", n->name);
        c->pos = n->pos;
        CyType *t = cy_alloc(s->a, sizeof *t);
        *t = *cy_type_scalar(TY_OBJECT);
        t->pyclass = cy_fmt(s->a, "%s.%s", s->m->name, n->name);
        t->name = n->name;
        t->cls = c;
        c->shell = t;
        Sym *y = declare(s, s->mscope, n->name, SY_TYPE);
        y->ty = t;
    }
}

static void declare_class(S *s, ANode *n) {
    IrClass *base = NULL;
    if (n->value && !(n->value->kind == A_NAME && !strcmp(n->value->name, "object") && !lookup(s, "object"))) {
        Sym *by = n->value->kind == A_NAME ? lookup(s, n->value->name) : NULL;
        if (!by || by->kind != SY_TYPE || !by->ty->cls) {
            err(s, n->value->pos, "a base class other than a cdef class declared before in the module is not "
                                  "supported by cyocl");
            return;
        }
        base = by->ty->cls;
        base->is_base = 1;
    }
    Sym *y = lookup_in(s->mscope, n->name);
    IrClass *c = y && y->kind == SY_TYPE && y->ty->cls && y->ty->cls->pos.line == n->pos.line &&
                         y->ty->cls->pos.col == n->pos.col && y->ty->cls->pos.file == n->pos.file ? y->ty->cls : NULL;
    if (!c) {
        err(s, n->pos, "'%s' redeclared", n->name);
        return;
    }
    if (base && !base->ty) {
        err(s, n->value->pos, "the base class '%s' must be declared before '%s' (cyocl)", base->name, n->name);
        return;
    }
    c->base = base;
    CyType *t = c->ty = c->shell;
    cy_vec_push(s->a, &s->m->classes, c);
    for (int i = 0; i < n->body.len; i++) {
        ANode *b = n->body.items[i];
        switch (b->kind) {
        case S_PASS: break;
        case S_EXPR:
            if (b->value->kind == A_STR) {
                if (i == 0) c->docstring = b->value->sval;
                break;
            }
            err(s, b->pos, "this statement in a cdef class body is not supported by cyocl (only attribute "
                           "declarations, methods and a docstring)");
            break;
        case S_CDEF: {
            CyType *at = resolve_type(s, b->type);
            if (at != TY_ERR && !attr_type_ok(at)) {
                err(s, b->type->pos, "an attribute of type '%s' in a cdef class is not supported by cyocl", at->name);
                at = TY_ERR;
            }
            for (int k = 0; k < b->names.len; k++) {
                const char *name = b->names.items[k];
                CyPos p = *(CyPos *)b->name_pos.items[k];
                if (b->inits.items[k]) {
                    err(s, p,
                        "Cannot assign default value to fields in cdef classes, structs or unions");
                    continue;
                }
                if (class_attr(c, name) || class_method(c, name)) {
                    err(s, p, "'%s' redeclared", name);
                    continue;
                }
                if (at == TY_ERR) continue;
                if (b->is_public && !(is_cnum(at) || at->kind == TY_BINT || is_view(at) || is_obj(at))) {
                    err(s, p, "C attribute of type '%s' cannot be accessed from Python", at->name);
                    continue;
                }
                IrAttr *a = cy_alloc(s->a, sizeof *a);
                a->owner = c;
                a->name = name;
                a->ty = at;
                a->vis = b->is_public;
                a->pos = p;
                cy_vec_push(s->a, &c->attrs, a);
            }
            break;
        }
        case S_FUNC: {
            AFunc *af = b->func;
            int special = !strncmp(af->name, "__", 2) && strlen(af->name) > 4 &&
                          !strcmp(af->name + strlen(af->name) - 2, "__");
            int sargs = special ? cy_special_method_args(af->name) : 0;
            if (special && sargs == -2 && strcmp(af->name, "__init__") && strcmp(af->name, "__cinit__") &&
                strcmp(af->name, "__dealloc__")) {
                err(s, af->pos, "special method '%s' of a cdef class is not supported by cyocl", af->name);
                break;
            }
            if (special && sargs >= 0 && af->kind == FN_DEF && af->params.len != sargs) {
                /* the slot's C signature fixes the arguments (Cython: "wrong number of arguments") */
                err(s, af->pos, "Special method %s has wrong number of arguments (%d declared, %d expected)", af->name,
                    af->params.len, sargs);
                break;
            }
            if (special && af->kind != FN_DEF) {
                err(s, af->pos, "Special methods must be declared with 'def', not 'cdef'");
                break;
            }
            ANode *sdec = af->decorators.len == 1 ? af->decorators.items[0] : NULL;
            if (sdec && sdec->kind == A_NAME && !strcmp(sdec->name, "staticmethod") && !lookup(s, "staticmethod") &&
                !special) {
                /* a function in the class's namespace: Cls.f(...) (a cdef one is a
                   direct C call), def ones also through instances */
                if (af->kind == FN_CPDEF) {
                    err(s, sdec->pos, "a cpdef @staticmethod is not supported by cyocl (def or cdef)");
                    break;
                }
                if (class_attr(c, af->name) || class_method(c, af->name) || class_static(c, af->name)) {
                    err(s, af->pos, "'%s' redeclared", af->name);
                    break;
                }
                IrFunc *fn = declare_function(s, af, 0);
                fn->static_of = c;
                fn->cname = cident(s, "cy_m_", cy_fmt(s->a, "%s_%s", c->name, af->name));
                cy_vec_push(s->a, &c->statics, fn);
                cy_vec_push(s->a, &s->m->funcs, fn);
                cy_vec_push(s->a, &s->methods, af);
                cy_vec_push(s->a, &s->methods, fn);
                break;
            }
            if (!af->params.len) {
                err(s, af->pos, "method '%s' has no 'self' argument", af->name);
                break;
            }
            AParam *sp = af->params.items[0];
            if (sp->type || sp->deflt || sp->kwonly) {
                err(s, sp->pos, "a 'self' argument with a type, a default or after '*' is not supported by cyocl");
                break;
            }
            ANode *dec = af->decorators.len ? af->decorators.items[0] : NULL;
            int prop = dec && af->decorators.len == 1 && dec->kind == A_NAME && !strcmp(dec->name, "property") &&
                       !lookup(s, "property") && af->kind == FN_DEF;
            /* @classmethod def m(cls, ...): cls is the class (or the subclass it is called on) */
            int clsm = dec && af->decorators.len == 1 && dec->kind == A_NAME && !strcmp(dec->name, "classmethod") &&
                       !lookup(s, "classmethod") && !special;
            if (clsm && af->kind != FN_DEF) {
                err(s, dec->pos, "a %s @classmethod is not supported by cyocl (def only)",
                    af->kind == FN_CPDEF ? "cpdef" : "cdef");
                break;
            }
            /* @x.setter / @x.deleter of a property x of this class (also
               what a `property x:` block's __set__ / __del__ become) */
            int accessor = 0;
            if (dec && af->decorators.len == 1 && dec->kind == A_ATTR && dec->obj->kind == A_NAME &&
                !strcmp(dec->obj->name, af->name) && af->kind == FN_DEF &&
                (!strcmp(dec->name, "setter") || !strcmp(dec->name, "deleter"))) {
                IrFunc *g = NULL;
                for (int k = 0; k < c->props.len; k++)
                    if (!strcmp(((IrFunc *)c->props.items[k])->name, af->name)) g = c->props.items[k];
                if (!g) {
                    err(s, dec->pos, "'%s' is not a property of '%s' declared above", af->name, c->name);
                    break;
                }
                accessor = dec->name[0] == 's' ? 2 : 3;
                CyVec *acc = accessor == 2 ? &c->setters : &c->deleters;
                for (int k = 0; k < acc->len; k++)
                    if (!strcmp(((IrFunc *)acc->items[k])->name, af->name)) {
                        err(s, af->pos, "'%s' redeclared", af->name);
                        accessor = -1;
                    }
                if (accessor < 0) break;
                if (af->params.len != (accessor == 2 ? 2 : 1)) {
                    err(s, af->pos, "a property %s takes %s", accessor == 2 ? "setter" : "deleter",
                        accessor == 2 ? "self and the value" : "no arguments other than self");
                    break;
                }
            }
            if (dec && !prop && !accessor && !clsm) {
                err(s, dec->pos, "decorators on methods other than @property (its setter and deleter), "
                                 "@staticmethod and @classmethod are not supported by cyocl");
                break;
            }
            if (prop && af->params.len != 1) {
                err(s, af->pos, "a @property takes no arguments other than self");
                break;
            }
            IrFunc *prev = class_method(c, af->name);
            if (!accessor && (class_attr(c, af->name) || (prev && prev->cls == c))) {
                err(s, af->pos, "'%s' redeclared", af->name);
                break;
            }
            if (prev && !special && (prev->kind == F_DEF) != (af->kind == FN_DEF)) {
                err(s, af->pos, "'%s' of '%s' overridden by a %s method", af->name, prev->cls->name,
                    af->kind == FN_DEF ? "def" : "cdef/cpdef");
                break;
            }
            s->decl_method = 1;
            IrFunc *fn = declare_function(s, af, 0);
            s->decl_method = 0;
            fn->cls = c;
            fn->cname = cident(s, "cy_m_", cy_fmt(s->a, "%s_%s%s", c->name, af->name,
                                                  accessor == 2 ? "_set" : accessor == 3 ? "_del" : ""));
            if (clsm) fn->is_classmethod = 1;
            else ((IrVar *)fn->params.items[0])->ty = t;
            if (prev && !special && prev->kind != F_DEF && !override_ok(s, prev, fn)) break;
            if (prev && !special && prev->kind != F_DEF) {
                /* each class's version above it dispatches to this one for its instances */
                fn->vroot = prev->vroot ? prev->vroot : prev;
                for (IrClass *k = c->base; k; k = k->base)
                    for (int j = 0; j < k->methods.len; j++) {
                        IrFunc *km = k->methods.items[j];
                        if (!strcmp(km->name, fn->name)) cy_vec_push(s->a, &km->overrides, fn);
                    }
            }
            if (!strcmp(af->name, "__dealloc__") && fn->params.len != 1)
                err(s, af->pos, "__dealloc__ takes no arguments other than self");
            if (!strcmp(af->name, "__init__")) c->init = fn;
            if (!strcmp(af->name, "__cinit__")) c->cinit = fn;
            if (!strcmp(af->name, "__dealloc__")) c->dealloc = fn;
            if (prop) cy_vec_push(s->a, &c->props, fn);
            if (accessor) cy_vec_push(s->a, accessor == 2 ? &c->setters : &c->deleters, fn);
            cy_vec_push(s->a, &c->methods, fn);
            cy_vec_push(s->a, &s->m->funcs, fn);
            cy_vec_push(s->a, &s->methods, af);
            cy_vec_push(s->a, &s->methods, fn);
            break;
        }
        default:
            err(s, b->pos, "this statement in a cdef class body is not supported by cyocl (only attribute "
                           "declarations, methods and a docstring)");
        }
    }
}

static void declare_walrus(void *ctx, ANode *w) {
    S *s = ctx;
    if (!lookup_in(s->mscope, w->lhs->name)) declare(s, s->mscope, w->lhs->name, SY_PYGLOBAL);
}

static void declare_block(S *s, CyVec *stmts) {
    IrModule *m = s->m;
    declare_class_names(s, stmts);
    for (int i = 0; i < stmts->len; i++) {
        ANode *n = stmts->items[i];
        if (n->kind != S_CDEF_CLASS && n->kind != S_FUNC) each_walrus(n, declare_walrus, s);
        if (n->kind == S_DEF) {
            declare_def(s, n);
            continue;
        }
        declare_nested(s, n);
        switch (n->kind) {
        case S_CIMPORT:
        case S_IMPORT: {
            if (n->user_pxd) {
                user_cimport_names(s, n);
                break;
            }
            int count = n->names.len ? n->names.len : 1;
            for (int k = 0; k < count; k++) {
                const char *mod = n->names.len ? n->names.items[k] : n->module;
                const char *alias = n->aliases.len > k ? n->aliases.items[k] : NULL;
                if (!mod) continue;
                int special = is_known_module(mod) && (n->kind == S_CIMPORT || n->is_cimport ||
                                                       !strncmp(mod, "cython", 6));
                char top[256];
                snprintf(top, sizeof top, "%s", mod);
                char *dot = strchr(top, '.');
                if (dot) *dot = 0;
                const char *bind = alias ? alias : cy_strdup(s->a, top);
                Sym *y = lookup_in(s->mscope, bind);
                if (special) {
                    if (y && y->kind == SY_PYGLOBAL) { y->qual = alias ? mod : cy_strdup(s->a, top); continue; }
                    if (!y) {
                        y = declare(s, s->mscope, bind, SY_CMOD);
                        y->qual = alias ? mod : cy_strdup(s->a, top);
                    }
                } else if (n->kind == S_CIMPORT || n->is_cimport) {
                    err(s, n->pos, "cimport of '%s' is not supported", mod);
                } else {
                    if (y && y->kind == SY_CMOD) {
                        y->kind = SY_PYGLOBAL; /* cimport numpy as np + import numpy as np */
                    } else if (!y) {
                        declare(s, s->mscope, bind, SY_PYGLOBAL);
                    }
                }
            }
            break;
        }
        case S_FROMIMPORT:
            if (n->is_cimport || is_cython_mod(n->module)) {
                cimport_names(s, n);
            } else if (n->star) {
                err(s, *(CyPos *)n->name_pos.items[0], "'import *' is not supported");
            } else {
                for (int k = 0; k < n->names.len; k++) {
                    const char *alias = n->aliases.items[k] ? n->aliases.items[k] : n->names.items[k];
                    if (!lookup_in(s->mscope, alias)) declare(s, s->mscope, alias, SY_PYGLOBAL);
                }
            }
            break;
        case S_CTYPEDEF: {
            Fused *fu = n->type && !n->type->ptr && !n->type->ndim && !n->type->narr && !n->type->buf_dtype
                            ? fused_named(s, n->type->name) : NULL;
            if (fu) {
                /* ctypedef cython.floating real: another name of that fused type */
                if (lookup_in(s->mscope, n->name)) {
                    err(s, n->pos, "'%s' redeclared", n->name);
                    break;
                }
                Sym *y = declare(s, s->mscope, n->name, SY_FUSED);
                y->fused = fu;
                break;
            }
            CyType *t = resolve_type(s, n->type);
            if (lookup_in(s->mscope, n->name)) {
                err(s, n->pos, "'%s' redeclared", n->name);
                break;
            }
            Sym *y = declare(s, s->mscope, n->name, SY_TYPE);
            y->ty = t == TY_ERR ? t : alias_type(s, t, n->name);
            break;
        }
        case S_ENUM: declare_enum(s, n); break;
        case S_STRUCT: declare_struct(s, n); break;
        case S_CDEF_CLASS: declare_class(s, n); break;
        case S_EXTERN:
            if (n->header) cy_vec_push(s->a, &m->headers, (void *)n->header);
            if (n->verbatim) cy_vec_push(s->a, &m->verbatim, (void *)n->verbatim);
            for (int k = 0; k < n->decls.len; k++) {
                ANode *d = n->decls.items[k];
                if (d->kind == S_FUNC) {
                    if (lookup_in(s->mscope, d->func->name)) {
                        err(s, d->func->pos, "'%s' redeclared", d->func->name);
                        continue;
                    }
                    IrFunc *fn = declare_function(s, d->func, 1);
                    fn->header = n->header;
                    cy_vec_push(s->a, &m->externs, fn);
                    Sym *y = declare(s, s->mscope, fn->name, SY_FUNC);
                    y->fn = fn;
                } else if (d->kind == S_CTYPEDEF) {
                    CyType *t = resolve_type(s, d->type);
                    Sym *y = declare(s, s->mscope, d->name, SY_TYPE);
                    y->ty = t == TY_ERR ? t : alias_type(s, t, d->name);
                } else if (d->kind == S_PASS) {
                } else if (d->kind == S_CDEF) {
                    /* a C number the header defines (M_PI): a constant to cyocl */
                    CyType *t = resolve_type(s, d->type);
                    for (int j = 0; j < d->names.len && t != TY_ERR; j++) {
                        const char *name = d->names.items[j];
                        CyPos p = *(CyPos *)d->name_pos.items[j];
                        if (!(cy_type_is_int(t) || t->kind == TY_FLOAT || t->kind == TY_DOUBLE)) {
                            err(s, p, "an extern variable of type '%s' is not supported by cyocl", t->name);
                        } else if (lookup_in(s->mscope, name)) {
                            err(s, p, "'%s' redeclared", name);
                        } else {
                            Sym *y = declare(s, s->mscope, name, SY_CNAME);
                            y->ty = t;
                            y->qual = j < d->cnames.len && d->cnames.items[j] ? d->cnames.items[j] : name;
                        }
                    }
                } else {
                    err(s, d->pos, "only functions, ctypedefs and C numbers are supported in 'cdef extern' blocks");
                }
            }
            break;
        case S_FUNC: {
            AFunc *af = n->func;
            if (lookup_in(s->mscope, af->name)) {
                err(s, af->pos, "'%s' redeclared", af->name);
                break;
            }
            IrFunc *fn = declare_fused(s, af);
            if (!fn) fn = declare_function(s, af, 0);
            if (fn->kind != F_CDEF || !fn->fused_specs.len) cy_vec_push(s->a, &m->funcs, fn);
            Sym *y = declare(s, s->mscope, fn->name, SY_FUNC);
            y->fn = fn;
            break;
        }
        case S_FUSED: {
            if (lookup_in(s->mscope, n->name)) {
                err(s, n->pos, "'%s' redeclared", n->name);
                break;
            }
            Fused *f = cy_alloc(s->a, sizeof *f);
            f->name = n->name;
            for (int k = 0; k < n->fused_types.len; k++) {
                ATypeSyn *ts = n->fused_types.items[k];
                Fused *inner = ts->ndim || ts->ptr ? NULL : fused_named(s, ts->name);
                CyVec one = {0};
                if (inner) {
                    one = inner->types;
                } else {
                    CyType *t = resolve_type(s, ts);
                    if (t == TY_ERR) continue;
                    if (!is_cnum(t) || t->kind == TY_BINT || t->kind == TY_LDOUBLE) {
                        err(s, ts->pos, "a fused type of '%s' is not supported by cyocl (only C numbers: "
                                        "integers, float, double and their complex)", t->name);
                        continue;
                    }
                    cy_vec_push(s->a, &one, t);
                }
                for (int i = 0; i < one.len; i++) {
                    CyType *t = one.items[i];
                    int dup = 0;
                    for (int j = 0; j < f->types.len; j++)
                        dup |= cy_type_equal(f->types.items[j], t) && !strcmp(((CyType *)f->types.items[j])->name, t->name);
                    if (!dup) cy_vec_push(s->a, &f->types, t);
                }
            }
            Sym *y = declare(s, s->mscope, n->name, SY_FUSED);
            y->fused = f;
            break;
        }
        case S_CDEF: {
            if (n->type && fused_named(s, n->type->name)) {
                err(s, n->type->pos, "Fused types not allowed here");
                break;
            }
            CyType *t = resolve_type(s, n->type);
            for (int k = 0; k < n->names.len; k++) {
                const char *name = n->names.items[k];
                CyPos p = *(CyPos *)n->name_pos.items[k];
                if (lookup_in(s->mscope, name)) {
                    err(s, p, "'%s' redeclared", name);
                    continue;
                }
                Sym *y = declare(s, s->mscope, name, SY_VAR);
                y->var = new_var(s, name, t, V_MODULE, p);
                cy_vec_push(s->a, &m->module_vars, y->var);
            }
            break;
        }
        case S_ASSIGN:
            for (int k = 0; k < n->targets.len; k++) {
                ANode *t = n->targets.items[k];
                CyVec names = {0};
                if (t->kind == A_NAME) cy_vec_push(s->a, &names, t);
                else if (t->kind == A_TUPLE || t->kind == A_LIST)
                    for (int j = 0; j < t->items.len; j++) cy_vec_push(s->a, &names, t->items.items[j]);
                for (int j = 0; j < names.len; j++) {
                    ANode *nm = names.items[j];
                    if (nm->kind == A_NAME && !lookup_in(s->mscope, nm->name))
                        declare(s, s->mscope, nm->name, SY_PYGLOBAL);
                }
            }
            break;
        case S_AUGASSIGN:
        case S_FOR:
            if (n->kind == S_FOR && ((ANode *)n->targets.items[0])->kind == A_NAME &&
                !lookup_in(s->mscope, ((ANode *)n->targets.items[0])->name))
                declare(s, s->mscope, ((ANode *)n->targets.items[0])->name, SY_PYGLOBAL);
            break;
        default:
            break;
        }
    }
}

/* Forward declarations of functions (`cdef double f(double x)` without a
 * body, from the module's .pxd or in the .pyx) stand for the definition
 * in the same statement list, which declares it: they are dropped; one
 * without a definition is an error. */
static void drop_forward_decls(S *s, CyVec *stmts, int in_class) {
    int k = 0;
    for (int i = 0; i < stmts->len; i++) {
        ANode *n = stmts->items[i];
        if (n->kind == S_CDEF_CLASS) drop_forward_decls(s, &n->body, 1);
        if (n->kind != S_FUNC || !n->func->decl_only) {
            stmts->items[k++] = n;
            continue;
        }
        int defined = 0;
        for (int j = 0; j < stmts->len && !defined; j++) {
            ANode *x = stmts->items[j];
            defined = x->kind == S_FUNC && !x->func->decl_only && !strcmp(x->func->name, n->func->name);
        }
        if (!defined)
            err(s, n->func->pos, "C %s '%s' is declared but not defined", in_class ? "method" : "function",
                n->func->name);
    }
    stmts->len = k;
}

struct IrModule *cy_sema(CyArena *a, CyDiag *d, AModule *am) {
    S s0 = {0}, *s = &s0;
    s->a = a;
    s->d = d;
    s->m = cy_alloc(a, sizeof *s->m);
    s->m->name = am->src->modname;
    s->m->src = am->src;
    Scope *ms = cy_alloc(a, sizeof *ms);
    s->mscope = s->scope = ms;
    s->dir.boundscheck = s->dir.wraparound = s->dir.initializedcheck = 1;
    file_directives(s, am);
    drop_forward_decls(s, &am->stmts, 0);
    declare_module(s, am);
    int fi = 0;
    for (int i = 0; i < am->stmts.len; i++) {
        ANode *n = am->stmts.items[i];
        if (n->kind != S_FUNC) continue;
        Sym *y = lookup_in(s->mscope, n->func->name);
        if (!y || y->kind != SY_FUNC || y->fn->pos.line != n->func->pos.line || y->fn->pos.col != n->func->pos.col ||
            y->fn->pos.file != n->func->pos.file)
            continue;
        FusedFn *ff = cy_pmap_get(&s->fused_fns, y->fn);
        /* as Cython, the first specialisation with errors is the last one
           lowered: the others would only repeat them */
        for (int j = 0, e0 = d->nerrors; ff && j < ff->binds.len && d->nerrors == e0; j++) {
            fused_bind(s, ff, j);
            lower_function(s, n->func, ff->group->fused_specs.items[j]);
            s->nfb = 0;
        }
        if (!ff) lower_function(s, n->func, y->fn);
        fi++;
    }
    for (int i = 0; i + 1 < s->methods.len; i += 2) lower_function(s, s->methods.items[i], s->methods.items[i + 1]);
    for (int i = 0; i < s->flat_todo.len; i++) {
        s->flat = s->flat_todo.items[i];
        lower_function(s, s->flat->af, s->flat->fn);
        s->flat = NULL;
    }
    for (int i = 0; i < am->stmts.len; i++) {
        ANode *n = am->stmts.items[i];
        switch (n->kind) {
        case S_FUNC:
            for (int k = 0; k < s->late_defaults.len; k++) {
                LateDefault *ld = s->late_defaults.items[k];
                if (ld->af == n->func)
                    cy_vec_push(s->a, &s->m->init, assign_stmt(s, mk_var(s, ld->var, ld->pos), ld->value, n->func->pos, OP_NONE));
            }
            break;
        case S_ENUM:
            if (n->is_cpdef) lower_cpdef_enum(s, n, &s->m->init);
            break;
        case S_CDEF_CLASS:
            for (int j = 0; j < n->body.len; j++) {
                ANode *b = n->body.items[j];
                for (int k = 0; b->kind == S_FUNC && k < s->late_defaults.len; k++) {
                    LateDefault *ld = s->late_defaults.items[k];
                    if (ld->af == b->func)
                        cy_vec_push(s->a, &s->m->init, assign_stmt(s, mk_var(s, ld->var, ld->pos), ld->value, n->pos, OP_NONE));
                }
            }
            break;
        case S_CTYPEDEF: case S_FUSED: case S_EXTERN: case S_CIMPORT: case S_STRUCT: break;
        case S_FROMIMPORT:
            if (!n->is_cimport && !is_cython_mod(n->module)) lower_stmt(s, n, &s->m->init);
            break;
        case S_IMPORT: {
            int count = n->names.len ? n->names.len : 1, special = 0;
            for (int k = 0; k < count; k++) {
                const char *mod = n->names.len ? n->names.items[k] : n->module;
                if (mod && !strncmp(mod, "cython", 6)) special = 1;
            }
            if (!special && !n->is_cimport) lower_stmt(s, n, &s->m->init);
            break;
        }
        case S_CDEF:
            for (int k = 0; k < n->names.len; k++) {
                ANode *init = n->inits.items[k];
                Sym *y = lookup_in(s->mscope, n->names.items[k]);
                if (!init || !y || !y->var) continue;
                if (y->var->ty->kind == TY_ARRAY) {
                    lower_array_literal(s, mk_var(s, y->var, init->pos), init, &s->m->init);
                    continue;
                }
                IrExpr *v = lower_expr(s, init);
                if (v->ty == TY_ERR) continue;
                cy_vec_push(s->a, &s->m->init, assign_stmt(s, mk_var(s, y->var, init->pos), coerce(s, v, y->var->ty), n->pos, OP_NONE));
            }
            break;
        default:
            lower_stmt(s, n, &s->m->init);
        }
    }
    (void)fi;
    /* a lambda met in them adds its own (nested lambdas too) */
    for (int i = 0; i + 1 < s->lambdas.len; i += 2) lower_function(s, s->lambdas.items[i], s->lambdas.items[i + 1]);
    if (d->nerrors) return NULL;
    compute_raises(s->m);
    check_fn_addrs(s);
    if (d->nerrors) return NULL;
    return s->m;
}
