/* ir.h: the typed IR shared by every backend.
 *
 * A structured tree, not a CFG: loop nests stay analysable (bounds, index
 * expressions, which views a loop reads and writes), which the OpenCL backend
 * needs to tile and coalesce, and which lets the C backend emit readable C.
 *
 * Contract from sema (what a backend may rely on):
 *  - every IrExpr has a type; every implicit conversion is explicit
 *    (E_CAST between C types, E_BOX C->object, E_UNBOX object->C,
 *    E_VIEW_FROM_OBJ object->view, E_OBJ_FROM_VIEW view->object);
 *  - arithmetic E_BINOP operands both have the result type (after usual
 *    arithmetic conversions), comparisons have both operands of one C type
 *    and type bint; shifts: lhs of result type, rhs any integer;
 *  - view indices are Py_ssize_t (or an unsigned type: then no wraparound);
 *  - object operations appear only where the GIL is held;
 *  - prange/parallel regions carry their variable classes and view uses. */
#ifndef CY_IR_H
#define CY_IR_H

#include "base.h"
#include <stdint.h>

/* ---- types ------------------------------------------------------------ */

typedef enum {
    TY_VOID,
    TY_BINT,                          /* C int holding 0/1; Python bool */
    TY_CHAR, TY_SCHAR, TY_UCHAR,
    TY_SHORT, TY_USHORT, TY_INT, TY_UINT,
    TY_LONG, TY_ULONG, TY_LLONG, TY_ULLONG,
    TY_SSIZE, TY_SIZE,                /* Py_ssize_t, size_t */
    TY_FLOAT, TY_DOUBLE, TY_LDOUBLE,
    TY_CFLOAT, TY_CDOUBLE,            /* float complex, double complex */
    TY_PTR,                           /* base = pointee */
    TY_ARRAY,                         /* fixed-size C array: base = element, alen elements
                                         (int[2][3] is an array of 2 int[3]) */
    TY_VIEW,                          /* typed memoryview: base = dtype */
    TY_OBJECT,                        /* PyObject* (owned references) */
    TY_OPAQUE,                        /* a C type known only by its name (omp_lock_t): declared,
                                         its address taken, nothing else */
    TY_STRUCT,                        /* cdef struct / ctypedef struct: fields; cname its C name */
    TY_FUNC,                          /* a cdef/extern function (only as callee) */
} TypeKind;

#define CY_MAX_NDIM 4

typedef struct CyType {
    TypeKind kind;
    int size;            /* bytes of a C value; views/objects: pointer size */
    int is_signed;
    int is_const;        /* const dtype of a view (read-only buffer allowed) */
    struct CyType *base; /* TY_PTR pointee, TY_VIEW dtype */
    int ndim;            /* TY_VIEW */
    char axes[CY_MAX_NDIM]; /* TY_VIEW: 1 = contiguous ('::1') on this axis */
    const char *name;    /* Cython spelling: "double", "Py_ssize_t", "double[:, ::1]",
                            a ctypedef alias keeps its own name */
    long long alen;      /* TY_ARRAY: number of elements */
    const char *pyclass; /* TY_OBJECT of a known extension type ("numpy.ndarray"):
                            values assigned to it are type-tested (E_PYTYPE_TEST);
                            base is then its buffer's view type, or NULL (no buffer) */
    int is_enum;         /* a C enum (TY_UINT when no enumerator is negative, as GCC
                            chooses, else TY_INT; its enumerators are TY_INT constants of
                            the same name): Cython ranks it below char, and only its own
                            enumerators convert to it implicitly */
    /* TY_STRUCT: fields in declared order (the arrays identify the struct:
       a ctypedef alias shares them), and the C name the backends declare */
    int nfields;
    const char **fnames;
    struct CyType **ftypes;
    const char *cname;
    int packed;
    int is_ctuple;       /* TY_STRUCT: Cython's ctuple "(double, int)", fields f0, f1 ...: a Python
                            tuple as an object, built from a tuple display, indexed t[0] */
    struct IrClass *cls; /* TY_OBJECT: an instance of this cdef class of the module (pyclass is
                            its qualified name "mod.Name") */
    /* A TY_FUNC made by cy_type_func (the target of a function pointer type):
       base is its result, nfields/ftypes its argument types. */
} CyType;

/* Canonical singletons (cy_type_* return shared objects for scalars). */
CyType *cy_type_scalar(TypeKind k);
CyType *cy_type_view(CyArena *a, CyType *dtype, int ndim, const char *axes, int is_const);
CyType *cy_type_ptr(CyArena *a, CyType *base);
CyType *cy_type_array(CyArena *a, CyType *elem, long long n);
/* A C function type (RET (ARGS)), for pointers to it: "double (*)(double)". */
CyType *cy_type_func(CyArena *a, CyType *ret, CyType **args, int nargs);
/* The scalar under any number of array dimensions (int for int[2][3]). */
const CyType *cy_type_array_scalar(const CyType *t);
int cy_type_is_int(const CyType *t);      /* char..size_t and bint */
int cy_type_is_float(const CyType *t);    /* float, double, long double */
int cy_type_is_complex(const CyType *t);
/* E_CNAME constants: a libc.math one (M_PI, INFINITY, NAN, HUGE_VAL: double,
 * with a float spelling in OpenCL C), and whether OpenCL C defines the name
 * (limits.h/float.h macros do; RAND_MAX, EXIT_*, LLONG_* and NULL do not). */
int cy_cname_is_math(const char *name);
int cy_cname_in_opencl(const char *name);
int cy_type_is_numeric(const CyType *t);  /* int, float or complex */
int cy_type_equal(const CyType *a, const CyType *b);
const char *cy_type_cname(CyArena *a, const CyType *t); /* C spelling: "Py_ssize_t", "double _Complex", "double *",
                                                           arrays as a type name: "int[2][3]" */
/* Usual arithmetic conversions, Cython's rules (C's, with Py_ssize_t
 * ranking as long and complex winning over floats). */
CyType *cy_type_arith(const CyType *a, const CyType *b);
/* The type of `x if c else y` and of min()/max() on C numbers: Cython's
 * widest_numeric_type, with no promotion to int (min(signed char, unsigned
 * short) is an unsigned short, so -2 becomes 65534).  With a bint and
 * another type (Cython: a Python object) or a complex: cy_type_arith. */
CyType *cy_type_span(const CyType *a, const CyType *b);
/* Cython's rank of a C number (PyrexTypes.rank_to_type_name), doubled so
 * that Py_ssize_t and size_t (long + 0.5) and the complex types fit; -1
 * for anything else. */
int cy_type_cython_rank(const CyType *t);

/* ---- variables and functions ------------------------------------------ */

typedef enum {
    V_LOCAL,    /* C local of a function (cdef'd, or an inferred C type) */
    V_PARAM,
    V_MODULE,   /* module-level cdef variable: a static C global */
    V_PYGLOBAL, /* module-level Python name: lives in the module dict (E_PYGLOBAL) */
} VarKind;

typedef struct IrVar {
    const char *name;
    const char *cname;   /* unique C identifier chosen by sema */
    CyType *ty;
    VarKind kind;
    CyPos pos;
    int id;
    int is_assigned;     /* assigned anywhere after its declaration (params: reassigned) */
    int is_deleted;      /* an object local some `del x` unbinds: every read checks it is bound */
} IrVar;

typedef struct IrFunc IrFunc;

/* ---- operators ---------------------------------------------------------
 * One enum for every operator the IR carries (E_BINOP, E_UNOP, E_CMP,
 * E_MINMAX, the E_OBJ_ forms, an in-place ST_ASSIGN, a reduction); backends
 * switch on it.
 * The unary ones are their own members: `-x` is OP_NEG, not OP_SUB. */

typedef enum {
    OP_NONE,                          /* no operator (a plain assignment) */
    OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_FLOORDIV, OP_MOD, OP_POW, OP_MATMUL,
    OP_SHL, OP_SHR, OP_BITAND, OP_BITOR, OP_BITXOR,
    OP_NEG, OP_POS, OP_INVERT,        /* unary - + ~ */
    OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE,
    OP_IN, OP_NOT_IN, OP_IS, OP_IS_NOT,
    OP_MIN, OP_MAX,                   /* min() / max() of C numbers (E_MINMAX) */
    OP_COUNT_
} IrOp;

/* Python's (and, for the C ones, C's) spelling: "+", "//", "not in"; "" for OP_NONE. */
const char *cy_op_name(IrOp op);
/* The operator a binary (unary) spelling denotes, OP_NONE for none. */
IrOp cy_op_binary(const char *spelling);
IrOp cy_op_unary(const char *spelling);
int cy_op_is_cmp(IrOp op);            /* < <= > >= == != */

/* ---- expressions ------------------------------------------------------ */

typedef enum {
    /* constants */
    E_INT,          /* ival (as unsigned bits) of type ty */
    E_FLOAT,        /* fval */
    E_IMAG,         /* fval * 1j, type double complex */
    E_STR,          /* Python str constant (object); sval/slen, UTF-8 */
    E_BYTES,        /* Python bytes constant (object) */
    E_BIGINT,       /* Python int too big for C: text in sval (object) */
    E_NONE,         /* Py_None (object) */
    E_PYBOOL,       /* Py_True/Py_False from ival (object) */
    E_VAR,          /* var */
    E_CNAME,        /* a C constant from a header (M_PI, INFINITY): sval, of type ty */
    E_PYGLOBAL,     /* module-global or builtin Python name `name` (object):
                       module dict first, then builtins, NameError otherwise */
    /* C arithmetic */
    E_BINOP,        /* op: + - * / % << >> & | ^ with C semantics (a / of
                       floats is C division); see E_PYDIV/E_PYMOD for Python's */
    E_PYFLOORDIV,   /* a // b: Python semantics on ints (floor), floor(a/b) on floats */
    E_PYMOD,        /* a % b: Python semantics (sign of divisor) */
    E_POW,          /* a ** b on C numbers: pow()/cpow(); ints: integer power */
    E_MINMAX,       /* op OP_MIN / OP_MAX: Python's min(a, b) / max(a, b) of two C numbers
                       of type ty, Cython's `b < a ? b : a` (the first of equal ones; a
                       NaN b gives a), each argument evaluated once; a min()/max() of
                       more arguments nests them, the outermost with IrExpr.order */
    E_UNOP,         /* op: - + ~ */
    E_NOT,          /* logical not, type bint */
    E_AND, E_OR,    /* short-circuit on C values, type bint */
    E_VAND, E_VOR,  /* Python's and/or on C numbers, type ty: the operand that
                       decides (`a or b` is a when a is true, else b); args[0]
                       is evaluated once, args[1] only when needed; args[2],
                       args[3]: the operands before their conversion (as E_COND) */
    E_CMP,          /* op: < <= > >= == != ; type bint */
    E_COND,         /* cond ? a : b; args[3], args[4]: a and b before their conversion to
                       the node's type (sema converts them to a destination instead, as
                       Cython's CondExprNode.coerce_to does) */
    E_CAST,         /* C conversion of a[0] to ty */
    E_SIZEOF,       /* sizeof(ty2), type size_t */
    E_ADDR,         /* &a[0] */
    E_DEREF,        /* *a[0] (p[i] is E_PTR_INDEX) */
    E_FIELD,        /* field sval of struct a[0] (an lvalue where a[0] is one) */
    E_STRUCT_LIT,   /* a struct value of type ty from args, one per field in order (converted) */
    E_PTR_INDEX,    /* a[0][a[1]] */
    /* memoryviews */
    E_VIEW_ELEM,    /* view element: view = args[0] (a view-typed expression,
                       usually E_VAR), indices = args[1..ndim]; flags
                       wraparound/boundscheck as in effect at this point */
    E_VIEW_SLICE,   /* new view from args[0]; per axis in `slices` */
    E_VIEW_T,       /* view.T: args[0] with its axes reversed (shape and strides) */
    E_VIEW_SHAPE,   /* view.shape[axis]: args[0] view, args[1] axis expression, Py_ssize_t */
    E_VIEW_STRIDE,  /* view.strides[axis] */
    E_VIEW_NDIM,    /* constant in practice, kept for clarity */
    E_VIEW_FROM_OBJ,/* acquire a buffer from object args[0] as view type ty
                       (dtype/ndim/contiguity/writability checked; messages as Cython);
                       None gives an uninitialised view (data NULL, shape 0) */
    E_OBJ_FROM_VIEW,/* view args[0] as a Python object (the exporter if it is the
                       whole buffer, else a memoryview over the same memory);
                       ival 1: the view's base, the exporting object (None: no view) */
    /* calls */
    E_CALL,         /* direct call of a cdef/cpdef function fn (args converted) */
    E_CALL_PTR,     /* call through a C function pointer: args[0] the pointer, args[1..]
                       the arguments (converted); the function cannot raise */
    E_CALL_C,       /* call of an extern / libc function sval (no Python error check);
                       also the prelude's type-generic cyrt_abs(a) (evaluated once) */
    E_THREADID,     /* cython.parallel.threadid(): int */
    /* Python objects (only with the GIL) */
    E_BOX,          /* C value args[0] -> new object */
    E_UNBOX,        /* object args[0] -> C value of type ty (TypeError/OverflowError as Cython) */
    E_OBJ_BINOP,    /* op as E_BINOP plus "//" "**" "@" */
    E_OBJ_UNOP,     /* - + ~ */
    E_OBJ_NOT,      /* not x -> bint */
    E_OBJ_TRUTH,    /* bool(x) -> bint */
    E_OBJ_CMP,      /* op: < <= > >= == != in "not in" is "is not" -> object (rich compare) */
    E_OBJ_CMP_BINT, /* same, directly as bint (in conditions) */
    E_OBJ_ATTR,     /* args[0].name */
    E_OBJ_CALL,     /* args[0](args[1..nargs], kwnames[i]=kwargs[i]); an argument E_STARRED is
                       unpacked (*it), a NULL kwnames[i] merges the mapping kwargs[i] (**m) */
    E_STARRED,      /* args[0] unpacked: only as an argument of E_OBJ_CALL */
    E_OBJ_INDEX,    /* args[0][args[1]] */
    E_OBJ_SLICE,    /* slice object from args[0..2] (each may be E_NONE) */
    E_TUPLE, E_LIST,/* from args */
    E_SET,          /* a new set of args, added in order */
    E_DICT,         /* keys args[2k], values args[2k+1] */
    E_OBJ_AND, E_OBJ_OR, /* Python and/or on objects: returns one operand */
    E_OBJ_COND,     /* cond (bint) ? a : b, objects */
    E_IMPORT,       /* import module sval (object): the top-level package when
                       import_top (`import a.b` binds a), else the module itself;
                       `import numpy as np` is ST_ASSIGN(E_PYGLOBAL np, E_IMPORT numpy),
                       `from m import x` is ST_ASSIGN(x, E_OBJ_ATTR(E_IMPORT m, "x")) */
    E_CSTR,         /* a string literal passed to C (printf's format): sval/slen, type char * */
    E_STMTS,        /* a comprehension: the statements in stmts run, then the value is args[0]
                       (an E_VAR: an object one is moved out, left NULL); ival 'w', an assignment
                       expression (x := v): args[0] is any expression (x read), an object one a new
                       reference, the variable keeps its own */
    E_COMP_ADD,     /* comprehension step (no value): PyList_Append / PySet_Add of args[1] to
                       args[0], or PyDict_SetItem(args[0], args[1], args[2]) (ival 'l', 's', 'd') */
    E_CARRAY_VIEW,  /* a Python memoryview over the memory of C array args[0] (no copy), cast to
                       format sval and the array's shape: Cython's view.array over it */
    E_PYTYPE_TEST,  /* args[0] itself, after a TypeError unless it is None or an instance of
                       ty->pyclass; sval: the def argument it is ("Argument 'a' has incorrect
                       type ...") or NULL ("Cannot convert list to numpy.ndarray"); ival 1: None is
                       refused too (a def argument declared 'not None') */
    E_SLOT,         /* attribute sval of the cdef class instance args[0] (type cls, never
                       None: Cython does not check either), of type ty: the C field of its
                       object struct, an lvalue (object and view stores count references);
                       ival 1: a view read with the GIL raises Cython's AttributeError when the
                       attribute was never set (initializedcheck) */
} ExprKind;

typedef struct IrSliceAxis {
    int is_index;              /* a single index drops the axis */
    struct IrExpr *start, *stop, *step; /* may be NULL: default */
} IrSliceAxis;

typedef struct IrExpr {
    ExprKind kind;
    CyType *ty;
    CyPos pos;
    IrOp op;                   /* E_BINOP, E_UNOP, E_CMP, E_MINMAX, E_OBJ_BINOP/UNOP/CMP[_BINT] */
    uint64_t ival;
    double fval;
    const char *sval;          /* E_STR/E_BYTES/E_BIGINT text, E_PYGLOBAL/E_OBJ_ATTR name,
                                  E_CALL_C C name */
    int slen;
    IrVar *var;                /* E_VAR */
    IrFunc *fn;                /* E_CALL */
    struct IrExpr **args;
    int nargs;
    const char **kwnames;      /* E_OBJ_CALL */
    struct IrExpr **kwargs;
    int nkw;
    IrSliceAxis *slices;       /* E_VIEW_SLICE: one per source axis */
    CyType *ty2;               /* E_SIZEOF operand type */
    int boundscheck, wraparound; /* E_VIEW_ELEM, E_VIEW_SLICE */
    int cdivision;             /* E_BINOP '/' and '%', E_PYFLOORDIV, E_PYMOD: no zero check */
    int soft_pow;              /* E_POW of C floats that Cython 3 (cpow=False) computes as a complex
                                  power (a base that may be negative, an exponent that may not be
                                  an integer) inside an expression: glibc's cpow, whose non-zero
                                  imaginary part raises TypeError; typed double (1; 2: under an
                                  explicit cpow=False). 4: complex ** a non-integer, a complex
                                  that as an object is a float where its imaginary part is 0 */
    int can_raise;             /* computed by sema: evaluating this (sub)tree may set an exception */
    int import_top;            /* E_IMPORT */
    CyVec stmts;               /* E_STMTS: IrStmt* */
    /* the outermost E_MINMAX of a min()/max(): its arguments in the
     * order Cython evaluates them (the 2nd .. last, then the 1st) */
    struct IrExpr **order;
    int norder;
    CyType *cyty;              /* an integer operation whose type for Cython (widest_numeric_type)
                                  is not C's: what its C value becomes where Cython stores or
                                  converts it (a temporary, //, %, min/max, a Python object) */
} IrExpr;

/* ---- statements -------------------------------------------------------- */

typedef enum {
    ST_BLOCK,       /* body */
    ST_EXPR,        /* e (value discarded) */
    ST_ASSIGN,      /* target = value; or target op= value when op != OP_NONE
                       (C types; the target is evaluated once).  target is
                       E_VAR, E_VIEW_ELEM, E_PTR_INDEX, E_DEREF, E_OBJ_ATTR
                       (setattr), E_OBJ_INDEX (setitem), E_PYGLOBAL (module
                       dict store) */
    ST_UNPACK,      /* targets[] = value (object sequence of exactly ntargets) */
    ST_IF,          /* cond (bint/C scalar): body else orelse */
    ST_WHILE,       /* cond: body; orelse runs when the loop ends without break */
    ST_FOR_RANGE,   /* serial C loop: var from start to stop by step (evaluated once,
                       Python semantics: var keeps the last value; unchanged
                       if no iteration).  step_sign: +1/-1 if known, 0: runtime */
    ST_FOR_ITER,    /* for var in object: (Python iteration); targets if unpacking */
    ST_PRANGE,      /* parallel loop region: see IrRegion */
    ST_PARALLEL,    /* `with parallel(...)` block region: see IrRegion */
    ST_BREAK, ST_CONTINUE,
    ST_RETURN,      /* value may be NULL (return None / void) */
    ST_RAISE,       /* value: exception class or instance object; NULL: re-raise;
                       target: the cause of 'raise value from target' (or NULL) */
    ST_ASSERT,      /* cond, msg (may be NULL); skipped when asserts are off */
    ST_NOGIL,       /* body runs with the GIL released */
    ST_GIL,         /* body runs with the GIL held (PyGILState_Ensure) */
    ST_TRY,         /* try: body, finally: orelse — the finally statements run when the body
                       ends, returns, breaks, continues or raises (then the exception
                       is re-raised after them, unless they leave by a jump) */
    ST_TRY_EXCEPT,  /* try: body, then orelse: the handlers (ST_EXCEPT) in order, and last an
                       ST_BLOCK with the else clause when there is one (so that walkers of
                       body and orelse see them); needs the GIL.  A finally clause is an
                       ST_TRY around it */
    ST_EXCEPT,      /* except value (the class or tuple; NULL: bare) [as target]: body, whose
                       first statement assigns target from the caught exception (E_CNAME
                       "cy_caught"); target (E_VAR or E_PYGLOBAL) is deleted when it ends */
    ST_DECLARE,     /* a cdef declaration point with no initialiser: views are
                       set to "uninitialised" here (only for clarity) */
    ST_DEL,         /* del target: an object local (E_VAR: unbound after; UnboundLocalError if
                       it is not bound), a module global (E_VAR V_PYGLOBAL or E_PYGLOBAL:
                       NameError if absent), E_OBJ_INDEX (delitem) or E_OBJ_ATTR (delattr);
                       needs the GIL */
} StmtKind;

typedef enum { RC_SHARED, RC_PRIVATE, RC_LASTPRIVATE, RC_REDUCTION, RC_FIRSTPRIVATE } VarClass;

typedef struct IrVarUse {
    IrVar *var;
    VarClass cls;
    IrOp redop;                /* RC_REDUCTION: OP_ADD, OP_MUL, OP_SUB, OP_BITAND, OP_BITOR, OP_BITXOR */
} IrVarUse;

typedef struct IrViewUse {
    IrVar *view;               /* a view variable */
    int read, written;
} IrViewUse;

/* The arguments a region's OpenCL kernel takes, in order (analyze.c): the
 * one order the OpenCL backend declares them in, the native backend passes
 * them to the runtime in, and the runtime sets them in.  Views first (in
 * IrRegion.views order), then shared C scalars, then reductions, then
 * lastprivate variables other than the loop index. */
typedef enum { RA_VIEW, RA_SCALAR, RA_REDUCTION, RA_LASTPRIVATE } RegionArgKind;

typedef struct IrRegionArg {
    RegionArgKind kind;
    IrVar *var;
    IrOp redop;                /* RA_REDUCTION */
    int read, written;         /* RA_VIEW */
    /* RA_VIEW (ir/nest.c): the kernel writes every element of the view
       when its shape is the iteration space's: the region is quiet (no
       error, break, return), has no continue, never reads the view, and
       a statement of the prange's body assigns view[i] (covers 1), or one
       of its collapsed loop's body (bounds from 0 by 1) view[i, j]
       (covers 2), i and j the loops' own variables.  The runtime then
       need not upload the view (launch.c checks the shape, the start and
       step, and that the view is the whole of its memory). */
    int covers;
} IrRegionArg;

typedef enum { SCHED_DEFAULT, SCHED_STATIC, SCHED_DYNAMIC, SCHED_GUIDED, SCHED_RUNTIME } Schedule;

typedef struct IrRegion {
    int id;                    /* unique in the module: kernels and traces name it */
    CyPos pos;                 /* of the 'for' (prange) or 'with' (parallel) */
    int is_prange;
    int from_slice;            /* the loops of an element-wise slice expression (sema's rewrite) */
    /* prange iteration space: index var from start to stop by step (all Py_ssize_t-converted
       to the index var's type); n = max(0, ceil((stop-start)/step)) */
    IrVar *index;
    struct IrExpr *start, *stop, *step;
    int step_sign;             /* +1, -1, or 0 when only known at run time */
    /* Where the index or a bound is unsigned, Cython's count is its C
       formula (stop - start + step - step/abs(step)) / step on the bounds
       in their own types (literals as Cython spells them: 0 an int, -1 a
       long), held in ctype, Cython's widest type of the index and the
       bounds given: prange(n, 0, -1) over an unsigned int n runs no
       iteration, prange(n - 1, -1, -1) with an int n runs n.  cstart,
       cstop, cstep are then those bounds (start, stop, step their
       conversions; NULL where not given); ctype is NULL elsewhere (the
       count is max(0, ceil((stop - start) / step))). */
    struct IrExpr *cstart, *cstop, *cstep;
    struct CyType *ctype;
    Schedule schedule;
    struct IrExpr *chunksize;  /* or NULL */
    struct IrExpr *num_threads;/* or NULL */
    struct IrExpr *use_threads_if; /* or NULL: when false at run time, one thread runs the
                                  iterations in order (natively: OpenMP's if clause) */
    int nogil;                 /* the region runs without the GIL (prange(nogil=True) or inside nogil) */
    int gil_warning;           /* prange without nogil (Cython >= 3.1 accepts it, with a warning) */
    CyVec vars;                /* IrVarUse*: every variable the body touches, classified */
    CyVec views;               /* IrViewUse*: every view variable read/written */
    struct IrRegion *parent;   /* a prange inside a parallel() block */
    struct IrRegion *as_prange;/* a parallel() block that held only this prange (after assignments
                                  every thread computes alike): ir/parallel.c made the block a plain
                                  one and the prange a top-level region */
    int has_break, has_return, can_raise, has_with_gil;
    int calls_external, calls_recursive, uses_threadid, uses_objects, uses_complex;
    /* OpenCL eligibility and kernel ABI, decided by ir/analyze.c: */
    CyVec args;                /* IrRegionArg*, kernel argument order (only when ocl_ok) */
    int uses_fp64;             /* the kernel needs cl_khr_fp64 */
    int ocl_ok;
    const char *ocl_reason;    /* why not, when !ocl_ok */
    /* The kernel reports nothing (ir/analyze.c): no check in the body can
       fail, no break, no reduction or last value comes back.  Its launch
       then needs no read of the result buffer: the runtime returns once
       the kernel is enqueued (runtime/launch.c). */
    int ocl_quiet;
    /* Loop-nest facts (ir/nest.c), for OpenCL regions: the range() loop
       that may run as one iteration space with the prange (NULL: none).
       Its bounds need no code and use nothing the region assigns, so the
       host can count the work-items the kernel wants (n times the loop's
       trip count) before the launch.  Exact only when, for each pair
       (args[2k], args[2k+1]) of view arguments in collapse_pairs (indices
       into args, as (void *)(intptr_t)), the two views' memory does not
       overlap: the runtime checks that per call and otherwise runs the
       kernel that keeps the loop serial. */
    struct IrStmt *collapse;
    CyVec collapse_pairs;
    /* The work of one iteration as the range() loops its body runs whose
       bounds the host can count before the launch (nest.c): work_loops
       (IrStmt*) outer before inner, work_parent[k] the index in work_loops
       of loop k's nearest enclosing such loop ((void *)(intptr_t), -1
       none).  A call's size for the dispatcher is n * (1 + the sum over
       the top loops of trip count * (1 + the same over its children)):
       a prange's count alone says 1000 for a 1000x1000 stencil and 10x
       the work for 10x the count of a 2-D nest (cgen.c, cy_olN.work). */
    CyVec work_loops, work_parent;
    struct IrNest *nest;       /* ir/loops.c (prange regions) */
    struct IrPlan *plan_gpu;   /* ir/plan.c: the schedule for GPU devices (never NULL for an
                                  OpenCL region; PLAN_LINEAR: today's 1-D schedule) */
    struct IrPlan *plan_native; /* ir/plan.c: the native schedule of a top-level prange (NULL: the
                                  plain loop; PLAN_LINEAR: the plain loop, and why) */
    struct IrFunc *func;       /* enclosing function */
} IrRegion;

typedef struct IrStmt {
    StmtKind kind;
    CyPos pos;
    struct IrExpr *target, *value, *cond;
    IrOp op;                   /* ST_ASSIGN in-place operator (OP_ADD, OP_FLOORDIV, ...) or OP_NONE */
    CyVec body, orelse;        /* IrStmt* */
    IrVar *var;                /* ST_FOR_RANGE / ST_FOR_ITER loop variable */
    struct IrExpr *start, *stop, *step;
    int step_sign;
    struct IrExpr **targets;   /* ST_UNPACK, ST_FOR_ITER unpacking */
    int ntargets;
    IrRegion *region;          /* ST_PRANGE, ST_PARALLEL */
} IrStmt;

/* ---- loop nests (ir/loops.c) -------------------------------------------
 * The nest of a prange region as the planner sees it: loops, affine
 * accesses, per-loop read/write sets and reductions (see loops.c). */
#define IR_MAX_LOOPS 8
#define IR_MAX_TERMS 4

/* An index: konst + sum coef[k] * (loop k's variable) + sum tcoef[t] *
 * term[t], each term an expression the nest does not change (n, a.shape[0]).
 * affine == 0: none of that holds (an index read from memory, i * j, ...). */
typedef struct IrAffine {
    int affine;
    int64_t coef[IR_MAX_LOOPS];
    int64_t konst;
    const struct IrExpr *term[IR_MAX_TERMS];
    int64_t tcoef[IR_MAX_TERMS];
    int nterms;
} IrAffine;

typedef struct IrLoop IrLoop;

typedef struct IrAccess {
    IrVar *view;               /* NULL: an element of a view expression (a slice) */
    int write;
    CyPos pos;
    int ndim;
    IrAffine idx[CY_MAX_NDIM];
    IrLoop *loop;              /* the innermost loop around it */
} IrAccess;

typedef struct IrLoopRed {
    IrVar *var;
    IrOp op;                   /* OP_ADD, OP_MUL, OP_SUB, OP_BITAND, OP_BITOR, OP_BITXOR */
} IrLoopRed;

struct IrLoop {
    IrVar *var;
    struct IrStmt *stmt;       /* ST_PRANGE (loop 0) or ST_FOR_RANGE */
    int depth;                 /* 0: the prange */
    int parallel;
    IrLoop *parent;
    struct IrExpr *start, *stop, *step;
    int invariant_bounds;      /* start, stop and step are the same in every iteration of the nest */
    int64_t trip;              /* constant trip count, or -1 */
    CyVec reads, writes;       /* IrAccess* anywhere inside this loop */
    CyVec reductions;          /* IrLoopRed*: scalars this (serial) loop reduces */
};

typedef struct IrNest {
    CyVec loops;               /* IrLoop*, preorder: loops[0] is the prange */
    CyVec accesses;            /* IrAccess*, in evaluation order */
    CyVec alias;               /* IrVar* pairs (a view the nest writes, another view it accesses):
                                  nothing here proves their memory disjoint, so a schedule that
                                  reorders the nest's iterations is exact only where the runtime
                                  finds it so in the call (the pairs a plan checks come from these) */
    int too_deep;              /* deeper than IR_MAX_LOOPS: the inner loops are left out */
} IrNest;

/* ---- schedules (ir/plan.c) ---------------------------------------------
 * What the planner chose for a region on a class of device: the backends
 * emit it, the runtime launches its geometry. */
typedef enum { CY_DEV_CPU, CY_DEV_GPU } CyDevClass;

typedef enum {
    PLAN_LINEAR, /* 1-D NDRange over the iterations (or collapsed (i, j) pairs) */
    PLAN_TILE2D, /* 2-D NDRange over (j, i) with local-memory tiles along the reduction loop */
    PLAN_BLOCK,  /* native: blocks of rows (i) x columns (j) x reduction steps (k) for the caches,
                    a register tile of mr x nr accumulators advancing together along k */
} PlanKind;

/* A view element the reduction loop reads, staged tile by tile in local
 * memory: side 0 varies with the prange and k only (rows of a tile), side
 * 1 with the collapsed loop and k only (columns). */
typedef struct IrPlanOperand {
    IrExpr *elem;
    int side;
    int twin;                  /* an earlier operand with the same element, whose tile it reads, or -1 */
    int gdir;                  /* the loop along which its element's address may move by one element
                                  (the index of the last axis is that loop's variable plus invariants, the
                                  loop counting by 1): 1 the tile's wide one (i for rows, j for columns),
                                  2 k, 0 none.  The kernel checks per run that it does (strides,
                                  alignment, bounds) before it loads a run as one vector */
} IrPlanOperand;

/* PLAN_BLOCK: a bounds-checked index on one axis of a view element, of
 * the form var + off (var one of the nest's three loop variables) or off
 * alone (var NULL): the blocked code runs only when a check before it
 * proves it in bounds for every iteration, and then checks it no more. */
typedef struct IrPlanCheck {
    IrExpr *elem;
    int axis;
    IrVar *var;
    int64_t off;
    int in_k;                  /* in the reduction loop's body (else in pre or post) */
    int int32;                 /* var + off is computed as a 32-bit int: it must not pass INT_MAX */
} IrPlanCheck;

typedef struct IrPlan {
    PlanKind kind;
    const char *why;           /* PLAN_LINEAR: why nothing else applied */
    /* PLAN_TILE2D: for i in prange: for j in range (jloop, the region's collapse):
       pre; for k in range (kloop, body[kpos]): reductions; post */
    IrStmt *jloop, *kloop;
    int kpos;
    CyVec reds;                /* IrLoopRed* of kloop: one accumulator per element each */
    CyVec operands;            /* IrPlanOperand* */
    int local[2];              /* work-group size: [0] along j, [1] along i */
    int reg[2];                /* elements per work-item: [0] along j, [1] along i */
    int tk;                    /* iterations of k per local-memory tile */
    int pad;                   /* elements after each k-row of a row tile: its copy writes a column
                                  (tk consecutive k of one i), so an unpadded tile's rows would
                                  fall into one local-memory bank */
    int prefetch;              /* each work-item loads the next tile into registers while the
                                  group computes this one (tiles divide evenly among work-items) */
    int dbuf;                  /* with prefetch: two local copies of each tile, alternating, so that
                                  a tile's copy needs no barrier after the previous tile's updates
                                  (one barrier per tile instead of two) */
    int vec[2];                /* a work-item's elements come in runs of vec[0] adjacent j (and
                                  vec[1] adjacent i), runs LOCAL*vec apart: its operands of one k
                                  are then vector loads from local memory (16 bytes, no bank
                                  conflict); 1: elements LOCAL apart */
    int gload;                 /* copy an operand with gdir in runs of 16 bytes (cy_ir_plan_gvec) */
    int fused;                 /* --fp-contract: the program may fuse a * b + c (the shapes are
                                  chosen for one fused multiply-add per update; the updates are
                                  the same statements in the same order either way) */
    struct IrPlan *small;      /* the same schedule with fewer elements per work-item (its own
                                  kernel), for calls whose grid of work-groups would not fill the
                                  device (a batch of 128 rows through a layer); NULL none */
    /* PLAN_BLOCK (also jloop, kloop, kpos, reds): a thread takes mc rows at
       a time, in column blocks of nc and reduction blocks of kc; within
       them a register tile of mr rows x nr columns */
    int mr, nr, mc, nc, kc;
    CyVec pre, post;           /* IrStmt*: jloop's body before and after kloop */
    CyVec privs;               /* IrVar*: scalars pre and post assign other than the accumulators
                                  (each element's own) */
    CyVec alias;               /* IrVar* pairs (written view, other view): the blocked code runs
                                  only when their memory is disjoint in the call, else the plain loop */
    CyVec checks;              /* IrPlanCheck*: bounds checks proved before the blocked code */
    CyVec unit, unit_axis;     /* views (IrVar*) the reduction loop reads along an axis
                                  ((void *)(intptr_t)axis) whose index moves with j by 1: the
                                  blocked code has a version for unit strides there */
} IrPlan;

/* The schedule of OpenCL region r on a device of class dc.  Needs the
 * nest (loops.c) and the collapse facts (nest.c). */
IrPlan *cy_ir_plan(CyArena *a, IrRegion *r, CyDevClass dc, int fp_contract);
/* The native schedule of prange region r, whose statement is x: a
 * PLAN_BLOCK, or a PLAN_LINEAR saying why not.  Needs the nest (loops.c). */
IrPlan *cy_ir_plan_native(CyArena *a, IrRegion *r, IrStmt *x);
/* PLAN_TILE2D: the elements of operand o one work-item copies into its
 * tile as one vector load from global memory where the kernel finds them
 * adjacent and aligned (else one by one), or 0: loads of single elements. */
int cy_ir_plan_gvec(const IrPlan *p, const IrPlanOperand *o);
/* One line describing p, for `cyocl compile -v`. */
void cy_ir_plan_describe(CyBuf *out, const IrRegion *r, const IrPlan *p);

/* ---- functions and module ---------------------------------------------- */

typedef enum { F_DEF, F_CDEF, F_CPDEF, F_EXTERN } IrFuncKind;

struct IrFunc {
    IrFuncKind kind;
    const char *name;          /* Python name */
    const char *cname;         /* C name of the implementation */
    CyPos pos;
    CyType *ret;               /* TY_OBJECT for def; TY_VOID allowed for cdef */
    CyVec params;              /* IrVar* */
    CyVec param_defaults;      /* IrExpr* or NULL, parallel to params (def/cpdef) */
    CyVec param_not_none;      /* (void*)(intptr_t) flags, parallel to params */
    CyVec locals;              /* IrVar*: all locals incl. temporaries (not params) */
    CyVec body;                /* IrStmt* */
    CyVec regions;             /* IrRegion* of this function, in source order */
    int is_nogil;              /* callable without the GIL */
    int is_inline;
    int with_gil;              /* acquires the GIL on entry */
    int noexcept;              /* declared noexcept: exceptions are printed, not propagated */
    int can_raise;             /* may propagate an exception to its caller (sema, fixpoint) */
    int is_recursive;          /* calls itself, directly or not */
    int npos;                  /* def: parameters that may be passed by position (the others are
                                  keyword-only, after a bare '*') */
    int calls_external;
    const char *docstring;
    struct IrClass *cls;       /* a method of this cdef class: params[0] is the instance */
    int is_classmethod;        /* a @classmethod def method of cls: params[0] is the class (an object),
                                  METH_CLASS in tp_methods */
    int is_lambda;             /* a lambda: a def ("lambda", "lambda1" ...) whose function object (cname "_obj") the
                                  module makes at import, in no namespace; also a def nested in a function */
    int is_dynfunc;            /* a lambda / nested def whose function object is made where it is evaluated,
                                  carrying a list of values (its self): "_obj" is then the factory the
                                  evaluation calls with those values */
    int self_item;             /* a nested def that reads its own name (recursion): 1 + the item of its list
                                  that is the function object itself (a cycle the GC collects), else 0 */
    CyVec param_dyn;           /* per parameter (intptr; missing: 0): k > 0, a default evaluated with the
                                  function object, item k - 1 of its list; k < 0, a variable of the enclosing
                                  function it reads (a closure), item -k - 1, a hidden keyword-only parameter */
    int star_arg, kwstar_arg;  /* a def's *args / **kwargs: 1 + the index of that parameter (an object:
                                  the tuple / dict its wrapper makes), 0 for none */
    struct IrClass *static_of; /* a @staticmethod of this class: a plain function (cls NULL) in the
                                  class's namespace, not the module's */
    CyVec overrides;           /* a cdef/cpdef method: the same method of the classes deriving from
                                  cls, in declaration order (a call picks by the instance's type) */
    struct IrFunc *vroot;      /* an override: the method of the topmost class it overrides */
    /* F_EXTERN */
    const char *header;
    /* Fused types (sema): a function with fused arguments is one function
       per combination of their types, each pointing to its group by
       fused_of.  A def/cpdef group is in funcs too, with no body: the Python
       function, which picks a specialisation by its arguments at call time
       as Cython's fused dispatch does. */
    struct IrFunc *fused_of;
    const char *spec_name;     /* a specialisation: Cython's name for it, "f[double[:],double]" */
    CyVec fused_specs;         /* the group: IrFunc*, in Cython's order (first fused type slowest) */
    CyVec fused_slots;         /* the group: per fused type, its first parameter ((void *)(intptr_t)index) */
    CyVec fused_pick;          /* the group: per fused type, the index among its types that a Python int,
                                  float and complex picks (three (void *)(intptr_t), -1: none) */
    CyVec fused_dflt;          /* the group: per fused type, the index its argument's default value picks
                                  when the argument is missing (-1: none, -3: the argument has no default) */
};

/* A cdef class of the module: an extension type whose instances are a C
 * struct of its attributes.  Its methods are in IrModule.funcs with cls set,
 * their first parameter the instance. */
typedef struct IrAttr {
    const char *name;
    CyType *ty;
    int vis;                   /* 0: C only, 1: cdef public, 2: cdef readonly */
    CyPos pos;
    struct IrClass *owner;     /* the class that declares it (a base of the instance's, or its own) */
} IrAttr;

typedef struct IrClass {
    const char *name;          /* Python name */
    const char *cname;         /* C name stem: the struct is cname, the type object cname_type */
    CyPos pos;
    const char *docstring;
    CyType *ty;                /* an instance (TY_OBJECT, cls = this) */
    CyType *shell;             /* sema: the same type, from before the class is declared */
    struct IrClass *base;      /* the cdef class it derives from, or NULL: its struct begins the
                                  instance's, its attributes and methods are inherited */
    int is_base;               /* another class of the module derives from it (Py_TPFLAGS_BASETYPE) */
    CyVec attrs;               /* IrAttr*, declared order (its own, not its base's) */
    CyVec methods;             /* IrFunc*: def/cpdef (in tp_methods) and cdef, including the special ones */
    IrFunc *init, *cinit, *dealloc; /* __init__, __cinit__, __dealloc__ or NULL */
    CyVec props;               /* IrFunc*: def methods decorated @property (getters, not in tp_methods) */
    CyVec setters, deleters;   /* IrFunc*: @x.setter / @x.deleter of those (named as the property; not in
                                  tp_methods) */
    CyVec statics;             /* IrFunc*: @staticmethod def (METH_STATIC in tp_methods) and cdef ones */
} IrClass;

typedef struct IrModule {
    const char *name;          /* extension module name */
    const CySource *src;
    CyVec funcs;               /* IrFunc*: def/cdef/cpdef (not extern) in source order */
    CyVec externs;             /* IrFunc* F_EXTERN (cname = C symbol) */
    CyVec headers;             /* const char*: cdef extern from "x.h" includes, in order */
    CyVec verbatim;            /* const char*: C code blocks from 'cdef extern from *' */
    CyVec module_vars;         /* IrVar* V_MODULE (static C globals) */
    CyVec structs;             /* CyType* TY_STRUCT in declaration order (a field's struct first) */
    CyVec classes;             /* IrClass*: cdef classes, in source order */
    CyVec init;                /* IrStmt*: module-level statements, run at import */
    CyVec init_locals;         /* IrVar*: temporaries of the module init code */
    CyVec regions;             /* every IrRegion, by id */
    int uses_math;             /* libc.math used */
    int nregions;
    int fp_contract;           /* set before cy_ir_analyze: --fp-contract (a * b + c may be one fused
                                  multiply-add), which the GPU planner's shapes are chosen for */
} IrModule;

/* Region facts and OpenCL eligibility (ir/analyze.c); first it runs
 * cy_ir_flatten_parallel. */
void cy_ir_analyze(CyArena *a, IrModule *m);
/* Every `with parallel():` block holding only a prange, after assignments
 * of values every thread computes alike, becomes that prange (ir/parallel.c). */
void cy_ir_flatten_parallel(IrModule *m);
/* The ST_PRANGE / ST_PARALLEL statement of region r in body (nested at any depth), or NULL. */
IrStmt *cy_ir_region_stmt(CyVec *body, const IrRegion *r);

/* The special methods a cdef class may define (besides __init__, __cinit__
 * and __dealloc__): the number of arguments (self included) a type slot's
 * method takes, -1 for any (__call__; __reduce__ and the others that are
 * plain methods), -2 for a name cyocl does not support. */
int cy_special_method_args(const char *name);
/* 1 when the method fills a type slot (tp_repr, mp_subscript ...) rather
 * than an entry of tp_methods. */
int cy_special_method_is_slot(const char *name);

/* Loop-nest facts of region r, whose statement is x (ir/nest.c): sets
 * r->collapse, r->collapse_pairs, r->work_loops and r->work_parent.
 * Needs r->args (call after the
 * eligibility analysis). */
void cy_ir_nest(CyArena *a, IrRegion *r, IrStmt *x);

/* The range() loop alone in prange x (region R) whose iterations are
 * independent (nest.c: bounds the region does not change, no break, every
 * variable assigned before it is read, each written view accessed only at
 * one index tuple injective in the loop's variable), or NULL.  pairs gets
 * IrVar* pairs (a written view, another view the loop accesses) whose
 * memory must not overlap for that to hold. */
IrStmt *cy_ir_inner_independent(CyArena *a, IrRegion *R, IrStmt *x, CyVec *pairs);
/* A C function (E_CALL_C) without side effects that a kernel may call:
 * libc.math and the prelude's abs (analyze.c). */
int cy_ir_known_c(const char *name);
/* Does helper f (a function a kernel calls) need cl_khr_fp64, itself or
 * through the functions it calls?  The facts region->uses_fp64 comes from. */
int cy_ir_func_uses_fp64(CyArena *a, IrFunc *f);

/* libc.math (libm.c): a function by its C name, the double one (sqrt) or
 * the float variant of one of a double (sqrtf: *is_float = 1); NULL for
 * any other name.  OpenCL C has each as a built-in of the same name. */
typedef struct {
    const char *name;
    int nargs;
    TypeKind ret;  /* TY_DOUBLE, TY_INT, TY_LONG (the double function's) */
    TypeKind arg;
    TypeKind arg2; /* the second argument's type where it differs (ldexp's int); TY_VOID: arg */
    int generic;   /* C's type-generic macro (isnan ...): no float variant of its own */
} CyLibm;
const CyLibm *cy_libm(const char *name, int *is_float);
extern const CyLibm cy_libm_table[]; /* the double functions, ended by a NULL name */

/* The loop nest of prange region r, whose statement is x (ir/loops.c):
 * sets r->nest. */
void cy_ir_loops(CyArena *a, IrRegion *r, IrStmt *x);
/* The number of iterations of range(a, b, s), s != 0 (-1: more than an
 * int64_t holds): the formula backends/emit.c's cy_trip_count writes for
 * values known at run time. */
int64_t cy_trip_const(int64_t a, int64_t b, int64_t s);

/* The variables a statement list uses (first use first), assigns (targets
 * and loop variables), and counts up from >= 0 in range() loops. */
typedef struct {
    CyVec used, assigned, ranged; /* IrVar* */
} IrScan;
void cy_ir_scan(CyArena *a, IrScan *sc, CyVec *body);
/* May running body change v: assigned, a loop's or a region's variable, an
 * unpacking target, or its address taken (a callee may write through it)? */
int cy_ir_assigns(const CyVec *body, const IrVar *v);
/* Does e or a subexpression (keyword arguments and slice bounds included,
 * not an E_STMTS's statements) satisfy pred? */
int cy_ir_expr_any(const IrExpr *e, int (*pred)(const IrExpr *e, const void *arg), const void *arg);
/* Does a statement of body (recursively) other than skip read v?  A plain
 * assignment to v is no read; an in-place one is (ir/parallel.c). */
int cy_ir_read_elsewhere(const CyVec *body, const struct IrStmt *skip, const IrVar *v);

/* Same tree: kinds, types, variables, constants, operators and flags. */
int cy_ir_expr_eq(const IrExpr *a, const IrExpr *b);
/* An integer constant (through integer casts): 1 and its value, else 0. */
int cy_const_int(const IrExpr *e, int64_t *v);
/* A min()/max() whose arguments must be computed in IrExpr.order before it
 * compares them: two or more of them may raise. */
int cy_order_matters(const IrExpr *e);

/* Readable dump of the IR, for tests and `cyocl compile --dump-ir`. */
void cy_ir_dump(CyBuf *out, const IrModule *m);

#endif
