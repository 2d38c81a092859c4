/* prelude.h: support code that the C backend copies verbatim into every
 * generated module (between the "cyocl prelude" marker lines).
 *
 * It is compiled as part of the generated file, after <Python.h>, so it
 * may use the CPython API freely; everything is static to the module.
 * Naming: cyrt_ for functions and types, cy_view for the memoryview slice.
 *
 * Error helpers take the GIL themselves (PyGILState_Ensure is reentrant),
 * so generated code calls them the same way with or without the GIL. */
#include <structmember.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CYRT_FN static __attribute__((unused))
#define CYRT_COLD static __attribute__((unused, cold, noinline))
#define CYRT_INLINE static inline __attribute__((unused))
#define cyrt_likely(x) __builtin_expect(!!(x), 1)
#define cyrt_unlikely(x) __builtin_expect(!!(x), 0)

#ifdef _OPENMP
#define cyrt_thread_num() omp_get_thread_num()
#else
#define cyrt_thread_num() 0
#endif

#define CYRT_MAX_NDIM 4

/* Python's min()/max()/abs() on C numbers; each argument evaluated once.
 * min keeps the first of equal values, as Python does. */
#define cyrt_min(a, b) __extension__({ __typeof__(a) cyrt_x_ = (a); __typeof__(b) cyrt_y_ = (b); \
    cyrt_y_ < cyrt_x_ ? cyrt_y_ : cyrt_x_; })
#define cyrt_max(a, b) __extension__({ __typeof__(a) cyrt_x_ = (a); __typeof__(b) cyrt_y_ = (b); \
    cyrt_y_ > cyrt_x_ ? cyrt_y_ : cyrt_x_; })
#define cyrt_abs(a) __extension__({ __typeof__(a) cyrt_x_ = (a); cyrt_x_ > 0 ? cyrt_x_ : -cyrt_x_; })

#define CYRT_CMPLX(re, im) __builtin_complex((double)(re), (double)(im))
#define CYRT_CMPLXF(re, im) __builtin_complex((float)(re), (float)(im))

/* Py_XSETREF for every supported Python: the old value is released after
 * the new one is stored (a destructor may look at the variable). */
#define CYRT_XSETREF(dst, src) do { PyObject *cyrt_old_ = (PyObject *)(dst); (dst) = (src); Py_XDECREF(cyrt_old_); } while (0)

/* ---- module state --------------------------------------------------------- */

static PyObject *cyrt_mdict;        /* the module's dict (owned) */
static PyObject *cyrt_builtins;     /* builtins module dict (owned) */
static const char *cyrt_modname = "?";
/* GNU OpenMP (libgomp) keeps the thread pool of a thread that led a
 * parallel region, and in a forked child (multiprocessing's default on
 * Linux) that thread's next region waits forever for pool threads that
 * stayed in the parent.  With one thread it does not: once a region ran,
 * a forked child runs the forking thread's regions on one thread (other
 * threads have no pool; LLVM's libomp handles fork itself). */
static int cyrt_omp_ran;
static void cyrt_fork_child(void) {
#ifdef _OPENMP
    if (cyrt_omp_ran) omp_set_num_threads(1);
#endif
}
static int cyrt_trace_fd = -1;      /* CYOCL_TRACE file, or -1 */
static int cyrt_force_env;          /* CYOCL_FORCE: 0 auto, 1 native, 2 opencl */
/* Where regions run: the module's own reading of CYOCL_FORCE, or, with
 * the runtime, the runtime's word, which cyocl.force() changes while the
 * process runs (cyrt_ocl_init). */
static const int *cyrt_force_p = &cyrt_force_env;
#define cyrt_force (__atomic_load_n(cyrt_force_p, __ATOMIC_RELAXED))

/* ---- errors (GIL-safe) ---------------------------------------------------- */

CYRT_COLD void cyrt_raise_str(PyObject *type, const char *msg) {
    PyGILState_STATE g = PyGILState_Ensure();
    PyErr_SetString(type, msg);
    PyGILState_Release(g);
}

CYRT_COLD void cyrt_raise_fmt(PyObject *type, const char *fmt, ...) {
    va_list ap;
    PyGILState_STATE g = PyGILState_Ensure();
    va_start(ap, fmt);
    PyErr_FormatV(type, fmt, ap);
    va_end(ap);
    PyGILState_Release(g);
}

CYRT_COLD void cyrt_err_bounds(int axis) {
    cyrt_raise_fmt(PyExc_IndexError, "Out of bounds on buffer access (axis %d)", axis);
}

CYRT_COLD void cyrt_err_zerodiv(const char *msg) { cyrt_raise_str(PyExc_ZeroDivisionError, msg); }

CYRT_COLD void cyrt_err_unbound(const char *name) {
    cyrt_raise_fmt(PyExc_UnboundLocalError, "local variable '%s' referenced before assignment", name);
}

/* An exception escaping a noexcept function is printed, then dropped. */
CYRT_COLD void cyrt_write_unraisable(const char *fname) {
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *n = PyUnicode_FromString(fname);
    PyErr_WriteUnraisable(n);
    Py_XDECREF(n);
    PyGILState_Release(g);
}

/* Re-raises the current exception with " (argument 'NAME')" appended to its
 * message, keeping its type (argument checks at the Python boundary). */
CYRT_COLD void cyrt_err_add_arg(const char *arg) {
    PyObject *t, *v, *tb, *msg, *nm;
    PyErr_Fetch(&t, &v, &tb);
    PyErr_NormalizeException(&t, &v, &tb);
    if (!t || !v || !(t == PyExc_ValueError || t == PyExc_TypeError || t == PyExc_BufferError)) {
        PyErr_Restore(t, v, tb);
        return;
    }
    msg = PyObject_Str(v);
    nm = msg ? PyUnicode_FromFormat("%U (argument '%s')", msg, arg) : NULL;
    Py_XDECREF(msg);
    if (!nm) {
        PyErr_Clear();
        PyErr_Restore(t, v, tb);
        return;
    }
    Py_DECREF(v);
    Py_XDECREF(tb);
    PyErr_SetObject(t, nm);
    Py_DECREF(t);
    Py_DECREF(nm);
}

/* raise X: a class is instantiated by Python, an instance is raised as is. */
CYRT_FN void cyrt_raise(PyObject *exc) {
    if (PyExceptionClass_Check(exc)) {
        PyObject *inst = PyObject_CallNoArgs(exc);
        if (!inst) return;
        if (!PyExceptionInstance_Check(inst)) {
            PyErr_Format(PyExc_TypeError, "calling %R should have returned an instance of BaseException, not %s",
                         exc, Py_TYPE(inst)->tp_name);
        } else {
            PyErr_SetObject(exc, inst);
        }
        Py_DECREF(inst);
    } else if (PyExceptionInstance_Check(exc)) {
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
    } else {
        PyErr_SetString(PyExc_TypeError, "exceptions must derive from BaseException");
    }
}

/* The base class of cpdef enums: Cython 3's __Pyx_FlexibleEnumBase, an
 * IntEnum whose unknown values are pseudo-members (<Color: 7>).  Made on
 * first use and kept for the module's life; a borrowed reference, or None
 * (calling it raises) if it cannot be made. */
static PyObject *cyrt_enum_base_obj;
CYRT_FN PyObject *cyrt_enum_base(void) {
    if (cyrt_enum_base_obj) return cyrt_enum_base_obj;
    static const char src[] =
        "import enum\n"
        "class __Pyx_FlexibleEnumBase(enum.IntEnum):\n"
        "    @classmethod\n"
        "    def _missing_(cls, value):\n"
        "        pseudo_member = int.__new__(cls, value)\n"
        "        if not hasattr(pseudo_member, '_value_'):\n"
        "            pseudo_member._value_ = value\n"
        "        pseudo_member._name_ = None\n"
        "        value2member_map = getattr(cls, '_value2member_map_', None)\n"
        "        if value2member_map is not None:\n"
        "            pseudo_member = value2member_map.setdefault(value, pseudo_member)\n"
        "        return pseudo_member\n"
        "    def __repr__(self):\n"
        "        if self._name_ is None:\n"
        "            return f'<{self.__class__.__name__}: {self._value_!r}>'\n"
        "        return super().__repr__()\n";
    PyObject *g = PyDict_New(), *r = NULL;
    if (g && PyDict_SetItemString(g, "__builtins__", PyEval_GetBuiltins()) == 0 &&
        PyDict_SetItemString(g, "__name__", PyDict_GetItemString(cyrt_mdict, "__name__")) == 0)
        r = PyRun_String(src, Py_file_input, g, g);
    if (r) cyrt_enum_base_obj = PyDict_GetItemString(g, "__Pyx_FlexibleEnumBase");
    Py_XINCREF(cyrt_enum_base_obj);
    Py_XDECREF(r);
    Py_XDECREF(g);
    if (!cyrt_enum_base_obj) {
        PyErr_Clear();
        return Py_None;
    }
    return cyrt_enum_base_obj;
}

/* raise exc from cause: the cause (instantiated if a class, None to
 * suppress the context) becomes the exception's __cause__, as in Python. */
CYRT_FN void cyrt_raise_from(PyObject *exc, PyObject *cause) {
    PyObject *inst = exc;
    if (PyExceptionClass_Check(exc)) {
        inst = PyObject_CallNoArgs(exc);
        if (!inst) return;
        if (!PyExceptionInstance_Check(inst)) {
            PyErr_Format(PyExc_TypeError, "calling %R should have returned an instance of BaseException, not %s",
                         exc, Py_TYPE(inst)->tp_name);
            Py_DECREF(inst);
            return;
        }
    } else if (PyExceptionInstance_Check(exc)) {
        Py_INCREF(inst);
    } else {
        PyErr_SetString(PyExc_TypeError, "exceptions must derive from BaseException");
        return;
    }
    PyObject *c = cause;
    if (PyExceptionClass_Check(cause)) {
        c = PyObject_CallNoArgs(cause);
        if (!c) {
            Py_DECREF(inst);
            return;
        }
        if (!PyExceptionInstance_Check(c)) {
            PyErr_Format(PyExc_TypeError, "calling %R should have returned an instance of BaseException, not %s",
                         cause, Py_TYPE(c)->tp_name);
            Py_DECREF(c);
            Py_DECREF(inst);
            return;
        }
    } else if (cause == Py_None || PyExceptionInstance_Check(cause)) {
        Py_INCREF(c);
    } else {
        PyErr_SetString(PyExc_TypeError, "exception causes must derive from BaseException");
        Py_DECREF(inst);
        return;
    }
    if (c == Py_None) {
        Py_DECREF(c);
        c = NULL;
    }
    PyException_SetCause(inst, c); /* steals c; sets __suppress_context__ */
    PyErr_SetObject((PyObject *)Py_TYPE(inst), inst);
    Py_DECREF(inst);
}

/* raise TYPE(msg) (assert with a message) */
CYRT_FN void cyrt_raise_msg(PyObject *type, PyObject *msg) {
    PyObject *inst = PyObject_CallOneArg(type, msg);
    if (!inst) return;
    PyErr_SetObject(type, inst);
    Py_DECREF(inst);
}

CYRT_COLD void cyrt_raise_none(PyObject *type) {
    PyGILState_STATE g = PyGILState_Ensure();
    PyErr_SetNone(type);
    PyGILState_Release(g);
}

/* A bare raise: the exception being handled (sys.exc_info(), also that of
 * a Python caller's except clause), as Python 3 does. */
CYRT_FN void cyrt_reraise(void) {
    PyObject *t, *v, *tb;
    PyErr_GetExcInfo(&t, &v, &tb);
    if (!t || t == Py_None) {
        Py_XDECREF(t);
        Py_XDECREF(v);
        Py_XDECREF(tb);
        PyErr_SetString(PyExc_RuntimeError, "No active exception to reraise");
        return;
    }
    PyErr_Restore(t, v, tb);
}

/* The end of an 'except ... as name' handler at module level: the name is
 * deleted (if still there), whatever exception is on its way. */
CYRT_FN void cyrt_del_global(PyObject *name) {
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);
    if (PyDict_DelItem(cyrt_mdict, name) < 0) PyErr_Clear();
    PyErr_Restore(t, v, tb);
}

/* ---- integer and float helpers (Python semantics) -------------------------- */

/* Floor division and modulo; the callers check b == 0 (and the overflowing
 * MIN // -1) first unless cdivision is on. */
CYRT_INLINE int cyrt_fdiv_i(int a, int b) { int q = a / b, r = a % b; return q - ((r != 0) & ((r ^ b) < 0)); }
CYRT_INLINE long long cyrt_fdiv_ll(long long a, long long b) {
    long long q = a / b, r = a % b;
    return q - ((r != 0) & ((r ^ b) < 0));
}
CYRT_INLINE int cyrt_mod_i(int a, int b) {
    if (b == -1) return 0;
    int r = a % b;
    return r + ((r != 0) & ((r ^ b) < 0)) * b;
}
CYRT_INLINE long long cyrt_mod_ll(long long a, long long b) {
    if (b == -1) return 0;
    long long r = a % b;
    return r + ((r != 0) & ((r ^ b) < 0)) * b;
}

/* C floating // and % as Cython writes them (not Python's float_divmod):
 * floor(a / b), the quotient rounded in the operands' type first (1.0 //
 * 0.1 is 10.0, Python's 9.0); fmod(a, b) moved to b's sign by adding b,
 * times 0 or 1 (so 7.0 % inf is nan, 0.0 % -1.0 is 0.0), as its
 * __Pyx_mod_double and __Pyx_mod_float. */
/* a ** b of C floats that Cython 3 (cpow=False) leaves a "soft complex"
 * (__Pyx_c_pow_double: glibc's cpow with CYTHON_CCOMPLEX): a non-zero
 * imaginary part is a TypeError where a double is wanted, a complex as an
 * object */
#ifdef _Complex_I
CYRT_INLINE double _Complex cyrt_soft_pow(double a, double b) {
    return cpow(a + 0.0 * _Complex_I, b + 0.0 * _Complex_I);
}
CYRT_INLINE PyObject *cyrt_soft_pow_obj(double a, double b) {
    double _Complex z = cpow(a + 0.0 * _Complex_I, b + 0.0 * _Complex_I);
    return cimag(z) != 0 ? PyComplex_FromDoubles(creal(z), cimag(z)) : PyFloat_FromDouble(creal(z));
}
#endif
CYRT_COLD void cyrt_err_soft_pow(void) {
    cyrt_raise_str(PyExc_TypeError, "Cannot convert 'complex' with non-zero imaginary component to 'double' (this "
                                    "most likely comes from the '**' operator; use 'cython.cpow(True)' to return "
                                    "'nan' instead of a complex number).");
}
CYRT_INLINE double cyrt_mod_d(double a, double b) {
    double r = fmod(a, b);
    r += ((r != 0) & ((r < 0) ^ (b < 0))) * b;
    return r;
}
CYRT_INLINE double cyrt_fdiv_d(double a, double b) { return floor(a / b); }
CYRT_INLINE float cyrt_mod_f(float a, float b) {
    float r = fmodf(a, b);
    r += ((r != 0) & ((r < 0) ^ (b < 0))) * b;
    return r;
}
CYRT_INLINE float cyrt_fdiv_f(float a, float b) { return (float)floor(a / b); }

/* Integer power by squaring (wrapping like C arithmetic). */
CYRT_INLINE long long cyrt_ipow_ll(long long b, long long e) {
    unsigned long long r = 1, x = (unsigned long long)b;
    if (e < 0) return b == 1 ? 1 : b == -1 ? ((e & 1) ? -1 : 1) : 0;
    while (e) {
        if (e & 1) r *= x;
        x *= x;
        e >>= 1;
    }
    return (long long)r;
}
CYRT_INLINE unsigned long long cyrt_ipow_ull(unsigned long long b, unsigned long long e) {
    unsigned long long r = 1;
    while (e) {
        if (e & 1) r *= b;
        b *= b;
        e >>= 1;
    }
    return r;
}

/* Complex power as Cython computes it where the C compiler has complex
 * numbers (CYTHON_CCOMPLEX, so with gcc and C11 always): __Pyx_c_pow_double
 * is C's cpow, glibc's (its own polar-form code, used only without C
 * complex support, differs: (1+2j) ** 2 is -3+4.000000000000002j by cpow,
 * and it lost (-8) ** (1/3.)'s complex root here). */
CYRT_FN double _Complex cyrt_cpow(double _Complex a, double _Complex b) { return __builtin_cpow(a, b); }
CYRT_FN float _Complex cyrt_cpowf(float _Complex a, float _Complex b) { return __builtin_cpowf(a, b); }
/* ... as an object (Cython's soft complex): a float where the imaginary
 * part is zero */
CYRT_FN PyObject *cyrt_soft_cobj(double _Complex z) {
    return __imag__ z != 0 ? PyComplex_FromDoubles(__real__ z, __imag__ z) : PyFloat_FromDouble(__real__ z);
}

/* ---- conversions object -> C ---------------------------------------------- */

CYRT_INLINE double cyrt_as_double(PyObject *o) {
    return PyFloat_CheckExact(o) ? PyFloat_AS_DOUBLE(o) : PyFloat_AsDouble(o);
}

/* Signed integers: full-width types keep Python's own OverflowError; narrower
 * ones get Cython's "value too large to convert to T". */
CYRT_FN int cyrt_as_sll(PyObject *o, long long lo, long long hi, const char *tname, long long *out) {
#if LONG_MAX == LLONG_MAX
    /* as Cython: "Python int too large to convert to C long" */
    long long v = PyLong_AsLong(o);
#else
    long long v = PyLong_AsLongLong(o);
#endif
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v < lo || v > hi) {
        PyErr_Format(PyExc_OverflowError, "value too large to convert to %s", tname);
        return -1;
    }
    *out = v;
    return 0;
}

CYRT_FN int cyrt_as_ull(PyObject *o, unsigned long long hi, const char *tname, unsigned long long *out) {
    PyObject *i = PyNumber_Index(o);
    unsigned long long v;
    int neg;
    if (!i) return -1;
    neg = _PyLong_Sign(i) < 0;
    if (neg) {
        Py_DECREF(i);
        PyErr_Format(PyExc_OverflowError, "can't convert negative value to %s", tname);
        return -1;
    }
    v = PyLong_AsUnsignedLongLong(i);
    Py_DECREF(i);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    if (v > hi) {
        PyErr_Format(PyExc_OverflowError, "value too large to convert to %s", tname);
        return -1;
    }
    *out = v;
    return 0;
}

/* char: an int in range, or a bytes object of length 1. */
CYRT_FN int cyrt_as_char(PyObject *o, char *out) {
    long long v;
    if (PyBytes_Check(o)) {
        if (PyBytes_GET_SIZE(o) != 1) {
            PyErr_Format(PyExc_ValueError, "only single character unicode strings or bytes can be converted to char, got length %zd",
                         PyBytes_GET_SIZE(o));
            return -1;
        }
        *out = PyBytes_AS_STRING(o)[0];
        return 0;
    }
    if (cyrt_as_sll(o, CHAR_MIN, CHAR_MAX, "char", &v) < 0) return -1;
    *out = (char)v;
    return 0;
}

CYRT_FN int cyrt_as_complex(PyObject *o, double _Complex *out) {
    Py_complex c = PyComplex_AsCComplex(o);
    if (c.real == -1.0 && PyErr_Occurred()) return -1;
    *out = CYRT_CMPLX(c.real, c.imag);
    return 0;
}

CYRT_INLINE int cyrt_truth(PyObject *o) {
    if (o == Py_True) return 1;
    if (o == Py_False || o == Py_None) return 0;
    return PyObject_IsTrue(o);
}

/* Rich comparison as a C truth value (no identity shortcut, like Python's
 * `if a == b`). */
CYRT_FN int cyrt_cmp_bint(PyObject *a, PyObject *b, int op) {
    PyObject *r = PyObject_RichCompare(a, b, op);
    int t;
    if (!r) return -1;
    t = cyrt_truth(r);
    Py_DECREF(r);
    return t;
}

/* ---- Python globals -------------------------------------------------------- */

CYRT_FN PyObject *cyrt_get_global(PyObject *name) {
    PyObject *r = PyDict_GetItemWithError(cyrt_mdict, name);
    if (!r && !PyErr_Occurred()) r = PyDict_GetItemWithError(cyrt_builtins, name);
    if (r) {
        Py_INCREF(r);
        return r;
    }
    if (!PyErr_Occurred()) PyErr_Format(PyExc_NameError, "name '%U' is not defined", name);
    return NULL;
}

CYRT_FN PyObject *cyrt_import(const char *name, int top) {
    if (top) return PyImport_ImportModuleLevel(name, cyrt_mdict, NULL, NULL, 0);
    return PyImport_ImportModule(name);
}

/* a, b, c = seq: exactly n items, Python's messages. */
CYRT_FN int cyrt_unpack(PyObject *seq, Py_ssize_t n, PyObject **const *outs) {
    Py_ssize_t i, got;
    PyObject *it, *extra;
    if (PyTuple_CheckExact(seq) || PyList_CheckExact(seq)) {
        got = PySequence_Fast_GET_SIZE(seq);
        if (got != n) {
            if (got > n) PyErr_Format(PyExc_ValueError, "too many values to unpack (expected %zd)", n);
            else PyErr_Format(PyExc_ValueError, "not enough values to unpack (expected %zd, got %zd)", n, got);
            return -1;
        }
        for (i = 0; i < n; i++) {
            PyObject *x = PySequence_Fast_GET_ITEM(seq, i);
            Py_INCREF(x);
            CYRT_XSETREF(*outs[i], x);
        }
        return 0;
    }
    it = PyObject_GetIter(seq);
    if (!it) {
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "cannot unpack non-iterable %.200s object", Py_TYPE(seq)->tp_name);
        }
        return -1;
    }
    for (i = 0; i < n; i++) {
        PyObject *x = PyIter_Next(it);
        if (!x) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "not enough values to unpack (expected %zd, got %zd)", n, i);
            Py_DECREF(it);
            return -1;
        }
        CYRT_XSETREF(*outs[i], x);
    }
    extra = PyIter_Next(it);
    Py_DECREF(it);
    if (extra) {
        Py_DECREF(extra);
        PyErr_Format(PyExc_ValueError, "too many values to unpack (expected %zd)", n);
        return -1;
    }
    return PyErr_Occurred() ? -1 : 0;
}

/* ---- def arguments ----------------------------------------------------------- */

CYRT_COLD void cyrt_err_nargs(const char *fname, Py_ssize_t nreq, Py_ssize_t nmax, Py_ssize_t given) {
    const char *more = nreq == nmax ? "exactly" : given < nreq ? "at least" : "at most";
    Py_ssize_t n = given < nreq ? nreq : nmax;
    PyErr_Format(PyExc_TypeError, "%.200s() takes %s %zd positional argument%s (%zd given)", fname, more, n,
                 n == 1 ? "" : "s", given);
}

/* The keyword arguments of a vectorcall into vals (positional ones
 * already there), with Python's TypeErrors for an unknown name or a
 * second value. */
CYRT_FN int cyrt_bind_kwargs(const char *fname, const char *const *names, Py_ssize_t nparams, PyObject *const *args,
                             Py_ssize_t nargs, PyObject *kwnames, PyObject **vals) {
    Py_ssize_t i, k, nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (k = 0; k < nkw; k++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, k);
        for (i = 0; i < nparams; i++)
            if (PyUnicode_CompareWithASCIIString(key, names[i]) == 0) break;
        if (i == nparams) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", fname, key);
            return -1;
        }
        if (vals[i]) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for keyword argument '%U'", fname, key);
            return -1;
        }
        vals[i] = args[nargs + k];
    }
    return 0;
}

/* Fills vals[0..nparams) with borrowed references (NULL: not given) from a
 * vectorcall argument list. */
CYRT_FN int cyrt_parse_args(const char *fname, const char *const *names, Py_ssize_t nparams, Py_ssize_t nreq,
                            PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **vals) {
    Py_ssize_t i;
    for (i = 0; i < nparams; i++) vals[i] = i < nargs ? args[i] : NULL;
    if (nargs > nparams) {
        cyrt_err_nargs(fname, nreq, nparams, nargs);
        return -1;
    }
    if (cyrt_bind_kwargs(fname, names, nparams, args, nargs, kwnames, vals) < 0)
        return -1;
    for (i = 0; i < nreq; i++)
        if (!vals[i]) {
            cyrt_err_nargs(fname, nreq, nparams, nargs);
            return -1;
        }
    return 0;
}

/* cyrt_parse_args for a def with keyword-only parameters (after a bare
 * '*'): the first npos by position or keyword, the rest by keyword only;
 * req[i] == '1' where parameter i has no default. */
CYRT_FN int cyrt_parse_args_kw(const char *fname, const char *const *names, Py_ssize_t nparams, Py_ssize_t npos,
                               Py_ssize_t nreq, const char *req, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames, PyObject **vals) {
    Py_ssize_t i;
    for (i = 0; i < nparams; i++) vals[i] = i < nargs && i < npos ? args[i] : NULL;
    if (nargs > npos) {
        cyrt_err_nargs(fname, nreq, npos, nargs);
        return -1;
    }
    if (cyrt_bind_kwargs(fname, names, nparams, args, nargs, kwnames, vals) < 0)
        return -1;
    for (i = 0; i < nparams; i++)
        if (!vals[i] && req[i] == '1') {
            if (i < npos)
                cyrt_err_nargs(fname, nreq, npos, nargs);
            else
                PyErr_Format(PyExc_TypeError, "%s() needs keyword-only argument %s", fname, names[i]);
            return -1;
        }
    return 0;
}

/* cyrt_parse_args_kw for a def with *args and/or **kwargs (the indices
 * star and kwstar of their parameters, -1 for none): the positional
 * arguments beyond npos become a new tuple in vals[star], the keywords that
 * name no other parameter a new dict in vals[kwstar] (the caller releases
 * both); nothing is left to release when it fails. */
CYRT_FN int cyrt_parse_args_star(const char *fname, const char *const *names, Py_ssize_t nparams, Py_ssize_t npos,
                                 Py_ssize_t nreq, const char *req, Py_ssize_t star, Py_ssize_t kwstar,
                                 PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **vals) {
    Py_ssize_t i, k, nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    PyObject *t = NULL, *d = NULL;
    for (i = 0; i < nparams; i++) vals[i] = i < nargs && i < npos ? args[i] : NULL;
    if (nargs > npos && star < 0) {
        cyrt_err_nargs(fname, nreq, npos, nargs);
        return -1;
    }
    if (star >= 0) {
        t = PyTuple_New(nargs > npos ? nargs - npos : 0);
        if (!t) return -1;
        for (i = npos; i < nargs; i++) {
            Py_INCREF(args[i]);
            PyTuple_SET_ITEM(t, i - npos, args[i]);
        }
    }
    if (kwstar >= 0 && !(d = PyDict_New())) goto bad;
    for (k = 0; k < nkw; k++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, k);
        for (i = 0; i < nparams; i++)
            if (i != star && i != kwstar && PyUnicode_CompareWithASCIIString(key, names[i]) == 0) break;
        if (i == nparams) {
            if (!d) {
                PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", fname, key);
                goto bad;
            }
            if (PyDict_SetItem(d, key, args[nargs + k]) < 0) goto bad;
            continue;
        }
        if (vals[i]) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for keyword argument '%U'", fname, key);
            goto bad;
        }
        vals[i] = args[nargs + k];
    }
    for (i = 0; i < nparams; i++)
        if (!vals[i] && req[i] == '1' && i != star && i != kwstar) {
            if (i < npos)
                cyrt_err_nargs(fname, nreq, star >= 0 ? PY_SSIZE_T_MAX : npos, nargs);
            else
                PyErr_Format(PyExc_TypeError, "%s() needs keyword-only argument %s", fname, names[i]);
            goto bad;
        }
    if (star >= 0) vals[star] = t;
    if (kwstar >= 0) vals[kwstar] = d;
    return 0;
bad:
    Py_XDECREF(t);
    Py_XDECREF(d);
    return -1;
}

/* f(*it): it's items appended to the call's positional arguments. */
CYRT_FN int cyrt_list_extend(PyObject *l, PyObject *it) {
    PyObject *t = PySequence_Tuple(it);
    int r;
    if (!t) return -1;
    r = PyList_SetSlice(l, PY_SSIZE_T_MAX, PY_SSIZE_T_MAX, t);
    Py_DECREF(t);
    return r;
}

/* A keyword of a call that unpacks: Python's error for a second value. */
CYRT_FN int cyrt_kw_add(PyObject *f, PyObject *d, PyObject *k, PyObject *v) {
    int c = PyDict_Contains(d, k);
    if (c < 0) return -1;
    if (c) {
        PyErr_Format(PyExc_TypeError, "%s%s got multiple values for keyword argument '%U'", PyEval_GetFuncName(f),
                     PyEval_GetFuncDesc(f), k);
        return -1;
    }
    return PyDict_SetItem(d, k, v);
}

/* f(**m): the mapping's items as keywords (strings only); anything else
 * goes through dict(m), whose errors Cython's code gives too. */
CYRT_FN int cyrt_kw_merge(PyObject *f, PyObject *d, PyObject *m) {
    PyObject *src, *k, *v;
    Py_ssize_t pos = 0;
    if (PyDict_Check(m)) {
        src = m;
        Py_INCREF(src);
    } else if (!(src = PyObject_CallOneArg((PyObject *)&PyDict_Type, m))) {
        return -1;
    }
    while (PyDict_Next(src, &pos, &k, &v)) {
        if (!PyUnicode_Check(k)) {
            PyErr_SetString(PyExc_TypeError, "keywords must be strings");
            goto bad;
        }
        if (cyrt_kw_add(f, d, k, v) < 0) goto bad;
    }
    Py_DECREF(src);
    return 0;
bad:
    Py_DECREF(src);
    return -1;
}

/* ---- memoryviews ------------------------------------------------------------ */

/* The acquired buffer behind one or more views, shared with an atomic
 * count; the last release takes the GIL to give the buffer back. */
typedef struct cyrt_owner {
    long refcnt;
    Py_buffer buf;  /* buf.obj holds the exporter */
} cyrt_owner;

/* A typed memoryview slice, passed by value.  Uninitialised: all zero. */
typedef struct {
    char *data;
    cyrt_owner *owner;
    Py_ssize_t shape[CYRT_MAX_NDIM];
    Py_ssize_t strides[CYRT_MAX_NDIM];
} cy_view;

/* Set when the OpenCL runtime is there: a buffer about to be given back may
 * have its only valid copy on a device. */
static void (*cyrt_owner_hook)(const Py_buffer *b);

CYRT_COLD void cyrt_owner_free(cyrt_owner *o) {
    PyGILState_STATE g;
    if (cyrt_owner_hook) cyrt_owner_hook(&o->buf);
    g = PyGILState_Ensure();
    PyBuffer_Release(&o->buf);
    PyGILState_Release(g);
    PyMem_RawFree(o);
}

CYRT_INLINE void cyrt_owner_incref(cyrt_owner *o) {
    if (o) __atomic_add_fetch(&o->refcnt, 1, __ATOMIC_RELAXED);
}

CYRT_INLINE void cyrt_owner_decref(cyrt_owner *o) {
    if (o && __atomic_sub_fetch(&o->refcnt, 1, __ATOMIC_ACQ_REL) == 0) cyrt_owner_free(o);
}

CYRT_INLINE void cyrt_view_release(cy_view *v) {
    cyrt_owner *o = v->owner;
    memset(v, 0, sizeof *v);
    cyrt_owner_decref(o);
}

/* dst = src, both references counted */
CYRT_INLINE void cyrt_view_copy(cy_view *dst, const cy_view *src) {
    cyrt_owner *old = dst->owner;
    cyrt_owner_incref(src->owner);
    *dst = *src;
    cyrt_owner_decref(old);
}

/* dst = src, taking over src's reference */
CYRT_INLINE void cyrt_view_move(cy_view *dst, cy_view *src) {
    cyrt_owner *old = dst->owner;
    *dst = *src;
    memset(src, 0, sizeof *src);
    cyrt_owner_decref(old);
}

typedef struct {
    int ndim;
    char kind;        /* 'i' signed int, 'u' unsigned int, 'f' real, 'c' complex, 'C' char, '?' bool */
    int itemsize;
    char contig;      /* 'C', 'F' or 0 */
    char writable;
    const char *name; /* dtype as written in the .pyx, for messages */
} cyrt_vspec;

/* Cython's names for struct format codes, for the "but got" side. */
CYRT_FN const char *cyrt_fmt_name(const char *code) {
    static const struct { const char *c, *n; } t[] = {
        {"d", "double"}, {"f", "float"}, {"g", "long double"}, {"b", "signed char"}, {"B", "unsigned char"},
        {"h", "short"}, {"H", "unsigned short"}, {"i", "int"}, {"I", "unsigned int"}, {"l", "long"},
        {"L", "unsigned long"}, {"q", "long long"}, {"Q", "unsigned long long"}, {"n", "Py_ssize_t"},
        {"N", "size_t"}, {"?", "bool"}, {"c", "char"}, {"Zf", "complex float"}, {"Zd", "complex double"},
        {"Zg", "complex long double"}, {"O", "Python object"}, {NULL, NULL}};
    for (int i = 0; t[i].c; i++)
        if (!strcmp(t[i].c, code)) return t[i].n;
    return code;
}

/* Parses a single-item struct format into its code ("d", "Zd") and kind.
 * Returns 0, or -1 when the format is not one plain native-order item. */
CYRT_FN int cyrt_fmt_parse(const char *f, char code[3], char *kind) {
    const char *p = f ? f : "B";
    int foreign = 0;
    while (*p == '@' || *p == '=' || *p == '<' || *p == '>' || *p == '!') {
#if PY_BIG_ENDIAN
        foreign |= *p == '<';
#else
        foreign |= *p == '>' || *p == '!';
#endif
        p++;
    }
    if (*p == '1' && p[1] && (p[1] < '0' || p[1] > '9')) p++; /* an explicit count of 1 */
    code[0] = *p;
    code[1] = code[2] = 0;
    if (*p == 'Z' && p[1]) {
        code[1] = p[1];
        p++;
    }
    if (!code[0] || p[1]) return -1;
    if (foreign) return -2;
    switch (code[0]) {
    case 'b': case 'h': case 'i': case 'l': case 'q': case 'n': case 's': *kind = 'i'; break;
    case 'B': case 'H': case 'I': case 'L': case 'Q': case 'N': *kind = 'u'; break;
    case 'f': case 'd': case 'g': *kind = 'f'; break;
    case 'c': *kind = 'C'; break;
    case '?': *kind = '?'; break;
    case 'Z': *kind = code[1] == 'f' || code[1] == 'd' || code[1] == 'g' ? 'c' : 0; break;
    default: *kind = 0;
    }
    return *kind ? 0 : -1;
}

CYRT_FN int cyrt_is_contig(const Py_buffer *b, const Py_ssize_t *shape, const Py_ssize_t *strides, char order) {
    Py_ssize_t expect = b->itemsize;
    int i;
    for (i = 0; i < b->ndim; i++)
        if (shape[i] == 0) return 1;
    for (i = 0; i < b->ndim; i++) {
        int k = order == 'C' ? b->ndim - 1 - i : i;
        if (shape[k] != 1 && strides[k] != expect) return 0;
        expect *= shape[k];
    }
    return 1;
}

/* A value for an argument or variable declared numpy.ndarray: None (unless
 * not_none) or an instance, else Cython's TypeError.  The type is looked up by name first,
 * so the module needs neither numpy's C API nor a cached type object. */
CYRT_FN int cyrt_ndarray_check(PyObject *o, const char *arg, int not_none) {
    PyObject *np, *t;
    int r = 0;
    if ((o == Py_None && !not_none) || !strcmp(Py_TYPE(o)->tp_name, "numpy.ndarray")) return 0;
    if (o == Py_None) goto wrong;
    np = PyImport_ImportModule("numpy");
    if (!np) return -1;
    t = PyObject_GetAttrString(np, "ndarray");
    Py_DECREF(np);
    if (!t) return -1;
    r = PyObject_IsInstance(o, t);
    Py_DECREF(t);
    if (r) return r < 0 ? -1 : 0;
wrong:
    if (arg)
        PyErr_Format(PyExc_TypeError, "Argument '%s' has incorrect type (expected numpy.ndarray, got %.200s)", arg,
                     Py_TYPE(o)->tp_name);
    else
        PyErr_Format(PyExc_TypeError, "Cannot convert %.200s to numpy.ndarray", Py_TYPE(o)->tp_name);
    return -1;
}

/* A char * from bytes or bytearray, borrowed from the object (Cython's
 * __Pyx_PyObject_AsString). */
CYRT_FN int cyrt_as_cstr(PyObject *o, char **out) {
    if (PyBytes_Check(o)) {
        *out = PyBytes_AS_STRING(o);
        return 0;
    }
    if (PyByteArray_Check(o)) {
        *out = PyByteArray_AS_STRING(o);
        return 0;
    }
    PyErr_Format(PyExc_TypeError, "expected bytes, %.200s found", Py_TYPE(o)->tp_name);
    return -1;
}

/* A writable memoryview over n bytes of C memory (a C array), cast to
 * format fmt and the given shape; it borrows the memory, as Cython's
 * view.array over a C array does. */
CYRT_FN PyObject *cyrt_carray_view(char *p, Py_ssize_t n, const char *fmt, int ndim, const Py_ssize_t *shape) {
    PyObject *mv = PyMemoryView_FromMemory(p, n, PyBUF_WRITE), *sh, *r;
    int i;
    if (!mv) return NULL;
    sh = PyTuple_New(ndim);
    for (i = 0; sh && i < ndim; i++) {
        PyObject *d = PyLong_FromSsize_t(shape[i]);
        if (!d) {
            Py_CLEAR(sh);
            break;
        }
        PyTuple_SET_ITEM(sh, i, d);
    }
    r = sh ? PyObject_CallMethod(mv, "cast", "sO", fmt, sh) : NULL;
    Py_XDECREF(sh);
    Py_DECREF(mv);
    return r;
}

/* Cython's exact type test of a builtin-typed variable or argument. */
CYRT_FN int cyrt_builtin_check(PyObject *o, PyTypeObject *t, const char *arg, int not_none) {
    if (Py_TYPE(o) == t || (o == Py_None && !not_none)) return 0;
    if (arg)
        PyErr_Format(PyExc_TypeError, "Argument '%s' has incorrect type (expected %s, got %.200s)", arg, t->tp_name,
                     Py_TYPE(o)->tp_name);
    else
        PyErr_Format(PyExc_TypeError, "Expected %s, got %.200s", t->tp_name, Py_TYPE(o)->tp_name);
    return -1;
}

/* An instance of the module's cdef class t (or a subclass), or None unless
 * not_none; the messages are Cython's. */
CYRT_FN int cyrt_ext_check(PyObject *o, PyTypeObject *t, const char *arg, int not_none) {
    if (PyObject_TypeCheck(o, t) || (o == Py_None && !not_none)) return 0;
    if (arg)
        PyErr_Format(PyExc_TypeError, "Argument '%s' has incorrect type (expected %s, got %.200s)", arg, t->tp_name,
                     Py_TYPE(o)->tp_name);
    else
        PyErr_Format(PyExc_TypeError, "Cannot convert %.200s to %s", Py_TYPE(o)->tp_name, t->tp_name);
    return -1;
}

/* A memoryview attribute of a cdef class read before it was set (Cython's
 * initializedcheck); returns 1 for use in a condition. */
CYRT_COLD int cyrt_err_view_uninit(void) {
    PyErr_SetString(PyExc_AttributeError, "Memoryview is not initialized");
    return 1;
}

typedef PyObject *(*cyrt_fastcall)(PyObject *, PyObject *const *, Py_ssize_t, PyObject *);

/* f(self, *args, **kw) for a METH_FASTCALL | METH_KEYWORDS function f: how
 * tp_new and tp_init reach __cinit__ and __init__. */
CYRT_FN PyObject *cyrt_call_tuple(cyrt_fastcall f, PyObject *self, PyObject *args, PyObject *kw) {
    Py_ssize_t n = PyTuple_GET_SIZE(args), nk = kw ? PyDict_GET_SIZE(kw) : 0, i, pos = 0;
    PyObject **v, *kn, *key, *val, *r;
    if (!nk) return f(self, ((PyTupleObject *)args)->ob_item, n, NULL);
    v = (PyObject **)PyMem_Malloc((size_t)(n + nk) * sizeof *v);
    kn = PyTuple_New(nk);
    if (!v || !kn) {
        PyMem_Free(v);
        Py_XDECREF(kn);
        return PyErr_NoMemory();
    }
    for (i = 0; i < n; i++) v[i] = PyTuple_GET_ITEM(args, i);
    for (i = 0; PyDict_Next(kw, &pos, &key, &val); i++) {
        Py_INCREF(key);
        PyTuple_SET_ITEM(kn, i, key);
        v[n + i] = val;
    }
    r = f(self, v, n, kn);
    PyMem_Free(v);
    Py_DECREF(kn);
    return r;
}

/* Acquires obj's buffer as a view of spec's type, with Cython's checks and
 * messages.  arg names the def argument for the message, or NULL. */
CYRT_FN int cyrt_view_from_obj(PyObject *obj, cy_view *out, const cyrt_vspec *sp, const char *arg, int not_none) {
    cyrt_owner *o;
    Py_buffer *b;
    Py_ssize_t shape[CYRT_MAX_NDIM], strides[CYRT_MAX_NDIM];
    char code[3], kind = 0;
    int i, pr;
    if (obj == Py_None) {
        if (not_none) {
            PyErr_Format(PyExc_TypeError, "Argument '%s' must not be None", arg ? arg : "?");
            return -1;
        }
        memset(out, 0, sizeof *out);
        return 0;
    }
    o = (cyrt_owner *)PyMem_RawMalloc(sizeof *o);
    if (!o) {
        PyErr_NoMemory();
        return -1;
    }
    b = &o->buf;
    if (PyObject_GetBuffer(obj, b, PyBUF_RECORDS_RO | (sp->writable ? PyBUF_WRITABLE : 0)) < 0) {
        PyMem_RawFree(o);
        goto fail;
    }
    if (b->ndim > CYRT_MAX_NDIM || b->ndim != sp->ndim) {
        PyErr_Format(PyExc_ValueError, "Buffer has wrong number of dimensions (expected %d, got %d)", sp->ndim, b->ndim);
        goto fail_release;
    }
    pr = cyrt_fmt_parse(b->format, code, &kind);
    if (pr == -2) {
        PyErr_SetString(PyExc_ValueError, "Big-endian buffer not supported on little-endian compiler");
        goto fail_release;
    }
    /* chars don't care about sign (Cython's __Pyx_BufFmt_ProcessTypeChunk):
       a 'c' buffer is a view of any 1-byte integer type, and a plain char
       view takes a 1-byte integer of char's signedness ('b' or 's' on x86:
       np.int8, numpy's S1) */
    if (pr == 0 && kind != sp->kind && b->itemsize == 1 && sp->itemsize == 1 &&
        ((kind == 'C' && (sp->kind == 'i' || sp->kind == 'u')) || (sp->kind == 'C' && kind == (CHAR_MIN < 0 ? 'i' : 'u'))))
        kind = sp->kind;
    if (pr < 0 || kind != sp->kind || (kind != 'C' && kind != '?' && b->itemsize != sp->itemsize)) {
        PyErr_Format(PyExc_ValueError, "Buffer dtype mismatch, expected '%s' but got '%s'", sp->name,
                     pr < 0 ? (b->format ? b->format : "B") : cyrt_fmt_name(code));
        goto fail_release;
    }
    if (b->itemsize != sp->itemsize) {
        PyErr_Format(PyExc_ValueError, "Item size of buffer (%zd byte%s) does not match size of '%s' (%d byte%s)",
                     b->itemsize, b->itemsize == 1 ? "" : "s", sp->name, sp->itemsize, sp->itemsize == 1 ? "" : "s");
        goto fail_release;
    }
    for (i = 0; i < b->ndim; i++) shape[i] = b->shape ? b->shape[i] : b->len / b->itemsize;
    if (b->strides) {
        for (i = 0; i < b->ndim; i++) strides[i] = b->strides[i];
    } else {
        Py_ssize_t s = b->itemsize;
        for (i = b->ndim - 1; i >= 0; i--) {
            strides[i] = s;
            s *= shape[i];
        }
    }
    if (b->suboffsets) {
        for (i = 0; i < b->ndim; i++)
            if (b->suboffsets[i] >= 0) {
                PyErr_SetString(PyExc_ValueError, "Buffer with indirect dimensions (suboffsets) is not supported");
                goto fail_release;
            }
    }
    if (sp->contig && !cyrt_is_contig(b, shape, strides, sp->contig)) {
        PyErr_SetString(PyExc_ValueError,
                        sp->contig == 'C' ? "ndarray is not C-contiguous" : "ndarray is not Fortran contiguous");
        goto fail_release;
    }
    o->refcnt = 1;
    memset(out, 0, sizeof *out);
    out->data = (char *)b->buf;
    out->owner = o;
    for (i = 0; i < b->ndim; i++) {
        out->shape[i] = shape[i];
        out->strides[i] = strides[i];
    }
    return 0;
fail_release:
    PyBuffer_Release(b);
    PyMem_RawFree(o);
fail:
    if (arg) cyrt_err_add_arg(arg);
    return -1;
}

/* ---- fused def functions: Cython's dispatch (Compiler/FusedNode.py) ---------- */

/* The argument a fused type is read from: positional i, or by name; NULL
 * without an exception when it is missing and has a default. */
CYRT_FN PyObject *cyrt_fused_arg(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, Py_ssize_t i,
                                 const char *name, Py_ssize_t min_pos, int has_default) {
    Py_ssize_t k, nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    if (i < nargs) return args[i];
    for (k = 0; k < nkw; k++)
        if (PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, k), name) == 0) return args[nargs + k];
    if (has_default) return NULL;
    PyErr_Format(PyExc_TypeError, "Expected at least %zd argument%s, got %zd", min_pos, min_pos != 1 ? "s" : "",
                 nargs);
    return NULL;
}

/* A scalar argument: the type Cython prefers for a Python int, float or
 * complex (each index -1 when the fused type has none); -1: no match. */
CYRT_FN int cyrt_fused_scalar(PyObject *arg, int for_int, int for_float, int for_complex) {
    if (PyFloat_Check(arg)) return for_float;
    if (PyLong_Check(arg)) return for_int;
    if (PyComplex_Check(arg)) return for_complex;
    return -1;
}

CYRT_FN int cyrt_is_ndarray(PyObject *o) {
    for (PyTypeObject *t = Py_TYPE(o); t; t = t->tp_base)
        if (!strcmp(t->tp_name, "numpy.ndarray")) return 1;
    return 0;
}

/* A buffer argument, candidates c[0..n): a numpy array by its dtype's kind,
 * item size and ndim; None as the first; then any buffer of a fitting
 * item size and ndim that converts.  -1: no match, -2: an error. */
CYRT_FN int cyrt_fused_view(PyObject *arg, const cyrt_vspec *const *c, int n, int accept_none) {
    Py_ssize_t itemsize = -1;
    int i;
    if (cyrt_is_ndarray(arg)) {
        PyObject *dt = PyObject_GetAttrString(arg, "dtype"), *is = NULL, *kd = NULL, *nd = NULL;
        Py_ssize_t ndim = -1;
        int kind = 0;
        if (dt && (is = PyObject_GetAttrString(dt, "itemsize")) && (kd = PyObject_GetAttrString(dt, "kind")) &&
            (nd = PyObject_GetAttrString(arg, "ndim"))) {
            itemsize = PyLong_AsSsize_t(is);
            ndim = PyLong_AsSsize_t(nd);
            if (PyUnicode_Check(kd) && PyUnicode_GET_LENGTH(kd) == 1) kind = (int)PyUnicode_READ_CHAR(kd, 0);
        }
        Py_XDECREF(dt);
        Py_XDECREF(is);
        Py_XDECREF(kd);
        Py_XDECREF(nd);
        if (PyErr_Occurred()) return -2;
        for (i = 0; i < n; i++) {
            char k = c[i]->kind;
            int cat = k == 'f' ? kind == 'f' : k == 'c' ? kind == 'c'
                    : (kind == 'i' || kind == 'u') && (kind == 'i') == (k == 'i' || k == 'C');
            if (cat && c[i]->itemsize == itemsize && c[i]->ndim == ndim) return i;
        }
    }
    if (accept_none && arg == Py_None) return 0;
    PyObject *mv = PyMemoryView_FromObject(arg);
    if (!mv) {
        if (!PyErr_ExceptionMatches(PyExc_TypeError) && !PyErr_ExceptionMatches(PyExc_ValueError)) return -2;
        PyErr_Clear();
        return -1;
    }
    Py_buffer *b = PyMemoryView_GET_BUFFER(mv);
    for (i = 0; i < n; i++) {
        if (!((itemsize == -1 && b->itemsize == c[i]->itemsize) || itemsize == c[i]->itemsize) || b->ndim != c[i]->ndim)
            continue;
        cyrt_vspec sp = *c[i];
        cy_view v;
        sp.writable = 0; /* only the match here: the specialisation checks the rest */
        if (cyrt_view_from_obj(mv, &v, &sp, NULL, 0) == 0) {
            cyrt_view_release(&v);
            Py_DECREF(mv);
            return i;
        }
        PyErr_Clear();
    }
    Py_DECREF(mv);
    return -1;
}

/* The specialisation whose types (table[j * nslots + k]) fit the
 * arguments' (sig[k], -1 for unknown: with several fused types it fits
 * any), with Cython's TypeErrors; -1 after raising. */
CYRT_FN int cyrt_fused_pick(const int *sig, int nslots, const int *table, int nspecs) {
    int j, k, found = -1;
    for (j = 0; j < nspecs; j++) {
        for (k = 0; k < nslots; k++)
            if (table[j * nslots + k] != sig[k] && (nslots == 1 || sig[k] != -1)) break;
        if (k < nslots) continue;
        if (found >= 0) {
            PyErr_SetString(PyExc_TypeError, "Function call with ambiguous argument types");
            return -1;
        }
        found = j;
    }
    if (found < 0) PyErr_SetString(PyExc_TypeError, "No matching signature found");
    return found;
}

/* A fused def/cpdef function as Python sees it (Cython's FusedFunction):
 * calls go to the dispatcher; f["double"], f[cython.double], f[float] (a
 * type: its __name__) and f["double", "long"] pick the specialisation whose
 * __signatures__ key is the names joined by '|' (else dict's KeyError). */
typedef struct {
    PyObject_HEAD
    PyObject *func; /* the dispatcher */
    PyObject *sigs; /* dict: "double|long" -> the specialisation */
    vectorcallfunc vectorcall;
} cyrt_fusedfunc;

static PyTypeObject *cyrt_fusedfunc_type;

CYRT_FN PyObject *cyrt_fusedfunc_vcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    return PyObject_Vectorcall(((cyrt_fusedfunc *)self)->func, args, nargsf, kwnames);
}

CYRT_FN PyObject *cyrt_fusedfunc_key(PyObject *o) {
    if (PyUnicode_CheckExact(o)) {
        Py_INCREF(o);
        return o;
    }
    if (PyType_Check(o)) return PyObject_GetAttrString(o, "__name__");
    return PyObject_Str(o);
}

CYRT_FN PyObject *cyrt_fusedfunc_getitem(PyObject *self, PyObject *idx) {
    PyObject *sig, *r;
    if (PyTuple_Check(idx)) {
        Py_ssize_t n = PyTuple_GET_SIZE(idx), i;
        PyObject *l = PyList_New(n), *sep;
        if (!l) return NULL;
        for (i = 0; i < n; i++) {
            PyObject *s = cyrt_fusedfunc_key(PyTuple_GET_ITEM(idx, i));
            if (!s) {
                Py_DECREF(l);
                return NULL;
            }
            PyList_SET_ITEM(l, i, s);
        }
        sep = PyUnicode_FromString("|");
        sig = sep ? PyUnicode_Join(sep, l) : NULL;
        Py_XDECREF(sep);
        Py_DECREF(l);
    } else {
        sig = cyrt_fusedfunc_key(idx);
    }
    if (!sig) return NULL;
    r = PyObject_GetItem(((cyrt_fusedfunc *)self)->sigs, sig);
    Py_DECREF(sig);
    return r;
}

/* __signatures__ is the object's own; __name__, __doc__ ... the dispatcher's */
CYRT_FN PyObject *cyrt_fusedfunc_getattro(PyObject *self, PyObject *name) {
    if (PyUnicode_Check(name) && PyUnicode_CompareWithASCIIString(name, "__signatures__") == 0) {
        Py_INCREF(((cyrt_fusedfunc *)self)->sigs);
        return ((cyrt_fusedfunc *)self)->sigs;
    }
    return PyObject_GetAttr(((cyrt_fusedfunc *)self)->func, name);
}

CYRT_FN PyObject *cyrt_fusedfunc_repr(PyObject *self) { return PyObject_Repr(((cyrt_fusedfunc *)self)->func); }

CYRT_FN int cyrt_fusedfunc_traverse(PyObject *self, visitproc visit, void *arg) {
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(((cyrt_fusedfunc *)self)->func);
    Py_VISIT(((cyrt_fusedfunc *)self)->sigs);
    return 0;
}

CYRT_FN int cyrt_fusedfunc_clear(PyObject *self) {
    Py_CLEAR(((cyrt_fusedfunc *)self)->func);
    Py_CLEAR(((cyrt_fusedfunc *)self)->sigs);
    return 0;
}

CYRT_FN void cyrt_fusedfunc_dealloc(PyObject *self) {
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    cyrt_fusedfunc_clear(self);
    PyObject_GC_Del(self);
    Py_DECREF(tp);
}

/* A new fused function of dispatcher func and signatures sigs (both borrowed). */
CYRT_FN PyObject *cyrt_fusedfunc_new(PyObject *func, PyObject *sigs) {
    cyrt_fusedfunc *f;
    if (!cyrt_fusedfunc_type) {
        static PyMemberDef members[] = {
            {"__vectorcalloffset__", T_PYSSIZET, offsetof(cyrt_fusedfunc, vectorcall), READONLY, NULL},
            {NULL, 0, 0, 0, NULL}};
        static PyType_Slot slots[] = {
            {Py_tp_dealloc, (void *)cyrt_fusedfunc_dealloc}, {Py_tp_call, (void *)PyVectorcall_Call},
            {Py_tp_getattro, (void *)cyrt_fusedfunc_getattro}, {Py_tp_repr, (void *)cyrt_fusedfunc_repr},
            {Py_tp_traverse, (void *)cyrt_fusedfunc_traverse}, {Py_tp_clear, (void *)cyrt_fusedfunc_clear},
            {Py_mp_subscript, (void *)cyrt_fusedfunc_getitem}, {Py_tp_members, (void *)members}, {0, NULL}};
        static PyType_Spec spec = {"cyocl.fused_function", sizeof(cyrt_fusedfunc), 0,
                                   Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL, slots};
        cyrt_fusedfunc_type = (PyTypeObject *)PyType_FromSpec(&spec);
        if (!cyrt_fusedfunc_type) return NULL;
    }
    f = PyObject_GC_New(cyrt_fusedfunc, cyrt_fusedfunc_type);
    if (!f) return NULL;
    Py_INCREF(func);
    Py_INCREF(sigs);
    f->func = func;
    f->sigs = sigs;
    f->vectorcall = cyrt_fusedfunc_vcall;
    PyObject_GC_Track((PyObject *)f);
    return (PyObject *)f;
}

/* One axis of a view slice with Python's slice semantics: start/stop/step
 * clamped, negative values counted from the end. */
CYRT_FN int cyrt_slice_axis(const cy_view *src, int axis, int has_start, Py_ssize_t start, int has_stop,
                            Py_ssize_t stop, int has_step, Py_ssize_t step, cy_view *dst, int daxis,
                            Py_ssize_t *offset) {
    Py_ssize_t len = src->shape[axis], n;
    if (!has_step) step = 1;
    if (step == 0) {
        cyrt_raise_fmt(PyExc_ValueError, "Step may not be zero (axis %d)", axis);
        return -1;
    }
    if (!has_start) {
        start = step < 0 ? len - 1 : 0;
    } else if (start < 0) {
        start += len;
        if (start < 0) start = step < 0 ? -1 : 0;
    } else if (start >= len) {
        start = step < 0 ? len - 1 : len;
    }
    if (!has_stop) {
        stop = step < 0 ? -1 : len;
    } else if (stop < 0) {
        stop += len;
        if (stop < 0) stop = step < 0 ? -1 : 0;
    } else if (stop >= len) {
        stop = step < 0 ? len - 1 : len;
    }
    if (step < 0) n = stop < start ? (start - stop - 1) / (-step) + 1 : 0;
    else n = start < stop ? (stop - start - 1) / step + 1 : 0;
    dst->shape[daxis] = n;
    dst->strides[daxis] = src->strides[axis] * step;
    if (n > 0) *offset += start * src->strides[axis];
    return 0;
}

/* One indexed axis of a view slice (the axis is dropped). */
CYRT_FN int cyrt_index_axis(const cy_view *src, int axis, Py_ssize_t i, int wrap, int check, Py_ssize_t *offset) {
    Py_ssize_t len = src->shape[axis];
    if (wrap && i < 0) i += len;
    if (check && (i < 0 || i >= len)) {
        cyrt_raise_fmt(PyExc_IndexError, "Index out of bounds (axis %d)", axis);
        return -1;
    }
    *offset += i * src->strides[axis];
    return 0;
}

/* view -> Python object: the exporter itself when the view is its whole,
 * unchanged buffer; else a memoryview over the same memory that keeps the
 * buffer alive. */
typedef struct {
    PyObject_HEAD
    cy_view view;
    int ndim;
} cyrt_viewobj;

static void cyrt_viewobj_dealloc(PyObject *self) {
    cyrt_view_release(&((cyrt_viewobj *)self)->view);
    PyObject_Free(self);
}

static int cyrt_viewobj_getbuffer(PyObject *self, Py_buffer *b, int flags) {
    cyrt_viewobj *v = (cyrt_viewobj *)self;
    Py_buffer *src = &v->view.owner->buf;
    Py_ssize_t len = src->itemsize;
    int i, c = cyrt_is_contig(src, v->view.shape, v->view.strides, 'C');
    for (i = 0; i < v->ndim; i++) len *= v->view.shape[i];
    if ((flags & PyBUF_WRITABLE) == PyBUF_WRITABLE && src->readonly) {
        PyErr_SetString(PyExc_BufferError, "buffer is read-only");
        return -1;
    }
    if ((flags & PyBUF_STRIDES) != PyBUF_STRIDES && !c) {
        PyErr_SetString(PyExc_BufferError, "buffer is not C-contiguous");
        return -1;
    }
    if ((flags & PyBUF_C_CONTIGUOUS) == PyBUF_C_CONTIGUOUS && !c) {
        PyErr_SetString(PyExc_BufferError, "buffer is not C-contiguous");
        return -1;
    }
    if ((flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS &&
        !cyrt_is_contig(src, v->view.shape, v->view.strides, 'F')) {
        PyErr_SetString(PyExc_BufferError, "buffer is not Fortran contiguous");
        return -1;
    }
    if ((flags & PyBUF_ANY_CONTIGUOUS) == PyBUF_ANY_CONTIGUOUS && !c &&
        !cyrt_is_contig(src, v->view.shape, v->view.strides, 'F')) {
        PyErr_SetString(PyExc_BufferError, "buffer is not contiguous");
        return -1;
    }
    b->buf = v->view.data;
    b->obj = self;
    Py_INCREF(self);
    b->len = len;
    b->readonly = src->readonly;
    b->itemsize = src->itemsize;
    b->format = (flags & PyBUF_FORMAT) ? (src->format ? src->format : (char *)"B") : NULL;
    b->ndim = v->ndim;
    b->shape = (flags & PyBUF_ND) == PyBUF_ND ? v->view.shape : NULL;
    b->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? v->view.strides : NULL;
    b->suboffsets = NULL;
    b->internal = NULL;
    return 0;
}

static PyBufferProcs cyrt_viewobj_as_buffer = {cyrt_viewobj_getbuffer, NULL};

static PyTypeObject cyrt_viewobj_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "cyocl._view",
    .tp_basicsize = sizeof(cyrt_viewobj),
    .tp_dealloc = cyrt_viewobj_dealloc,
    .tp_as_buffer = &cyrt_viewobj_as_buffer,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "a cyocl memoryview slice exported through the buffer protocol",
};

/* memoryview.base: the exporter of the buffer the view (or the view it
 * was sliced from) was acquired from; None for a None view. */
CYRT_FN PyObject *cyrt_view_base(const cy_view *v) {
    PyObject *o = v->owner && v->owner->buf.obj ? v->owner->buf.obj : Py_None;
    Py_INCREF(o);
    return o;
}

CYRT_FN PyObject *cyrt_view_to_obj(const cy_view *v, int ndim) {
    cyrt_viewobj *e;
    PyObject *mv;
    int i, whole;
    if (!v->owner) {
        Py_INCREF(Py_None);
        return Py_None;
    }
    {
        Py_buffer *b = &v->owner->buf;
        whole = b->obj && v->data == (char *)b->buf && b->ndim == ndim;
        for (i = 0; whole && i < ndim; i++)
            whole = v->shape[i] == (b->shape ? b->shape[i] : b->len / b->itemsize) &&
                    (!b->strides || v->strides[i] == b->strides[i]);
        if (whole) {
            Py_INCREF(b->obj);
            return b->obj;
        }
    }
    e = PyObject_New(cyrt_viewobj, &cyrt_viewobj_type);
    if (!e) return NULL;
    memset(&e->view, 0, sizeof e->view);
    cyrt_view_copy(&e->view, v);
    e->ndim = ndim;
    mv = PyMemoryView_FromObject((PyObject *)e);
    Py_DECREF(e);
    return mv;
}

/* Do two views' memory extents (from the lowest to the highest byte of
 * their elements) share a byte?  ndims: a's dimensions * 16 + b's; isa,
 * isb: item sizes.  A view with no elements meets nothing. */
CYRT_FN int cyrt_views_meet(cy_view a, cy_view b, int ndims, Py_ssize_t isa, Py_ssize_t isb) {
    char *lo[2], *hi[2];
    cy_view *v[2] = {&a, &b};
    Py_ssize_t is[2] = {isa, isb};
    int nd[2] = {ndims / 16, ndims % 16};
    int i, k;
    for (k = 0; k < 2; k++) {
        lo[k] = hi[k] = v[k]->data;
        for (i = 0; i < nd[k]; i++) {
            Py_ssize_t span;
            if (v[k]->shape[i] <= 0) return 0;
            span = (v[k]->shape[i] - 1) * v[k]->strides[i];
            if (span < 0) lo[k] += span;
            else hi[k] += span;
        }
        hi[k] += is[k];
    }
    return !(hi[0] <= lo[1] || hi[1] <= lo[0]);
}

/* Do two views' memory extents overlap other than element for element?
 * (out[:] = out[:] * 2 reads each element where it writes it; out[1:] =
 * out[:-1] reads elements written before.)  Element-wise expressions on
 * slices copy the operand first in the second case. */
CYRT_FN int cyrt_views_overlap(cy_view a, cy_view b, int ndims, Py_ssize_t isa, Py_ssize_t isb) {
    int i;
    if (!cyrt_views_meet(a, b, ndims, isa, isb)) return 0;
    if (a.data != b.data || isa != isb || ndims / 16 != ndims % 16) return 1;
    for (i = 0; i < ndims / 16; i++)
        if (a.shape[i] != b.shape[i] || a.strides[i] != b.strides[i]) return 1;
    return 0;
}

/* v with axis stretched to n elements that are all its one element (stride
 * 0): numpy's broadcasting of an extent-1 axis, for element-wise slice
 * expressions.  The owner's reference is the caller's to take. */
CYRT_FN cy_view cyrt_view_bcast(cy_view v, int axis, Py_ssize_t n) {
    v.shape[axis] = n;
    v.strides[axis] = 0;
    return v;
}

/* ---- parallel regions --------------------------------------------------------- */

/* Shared state of one region execution: why it stopped early (1 break,
 * 2 return, 3 exception) and the first exception, kept until the master
 * thread re-raises it after the region. */
typedef struct {
    int why;
    PyObject *type, *value, *tb;
} cyrt_par;

CYRT_INLINE int cyrt_par_stopped(cyrt_par *p) { return __atomic_load_n(&p->why, __ATOMIC_RELAXED); }

/* Records break (1) or return (2); returns 1 when this thread's was first. */
CYRT_INLINE int cyrt_par_set(cyrt_par *p, int why) {
    int expect = 0;
    return __atomic_compare_exchange_n(&p->why, &expect, why, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

/* Called by a thread whose iteration raised: keeps the first exception. */
CYRT_COLD void cyrt_par_error(cyrt_par *p) {
    PyGILState_STATE g = PyGILState_Ensure();
    if (!p->type) {
        PyErr_Fetch(&p->type, &p->value, &p->tb);
        if (!p->type) {
            p->type = PyExc_SystemError;
            Py_INCREF(p->type);
            p->value = PyUnicode_FromString("error return without exception set in a parallel region");
        }
    } else {
        PyErr_Clear();
    }
    __atomic_store_n(&p->why, 3, __ATOMIC_SEQ_CST);
    PyGILState_Release(g);
}

/* After the region, on the master thread (which may not hold the GIL). */
CYRT_COLD void cyrt_par_restore(cyrt_par *p) {
    PyGILState_STATE g = PyGILState_Ensure();
    PyErr_Restore(p->type, p->value, p->tb);
    p->type = p->value = p->tb = NULL;
    PyGILState_Release(g);
}

/* ---- trace (CYOCL_TRACE) -------------------------------------------------------- */

typedef struct {
    const char *function;
    int line;
    int region;
    int ocl_ok;         /* OpenCL could take this region */
    const char *reason; /* why not, when !ocl_ok (JSON-escaped) */
} cyrt_region_info;

CYRT_INLINE long long cyrt_now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* ---- OpenCL: the `cyocl` runtime module's API --------------------------------
 * The layout of runtime/cyocl_api.h (this file is self-contained): the two
 * change together, with the version. */
#define CYRT_OCL_API_VERSION 16
typedef struct {
    int kind;          /* 0 view, 1 scalar, 2 reduction, 3 lastprivate */
    char tkind;        /* 'i' signed, 'u' unsigned, 'f' real, 'c' complex */
    char op;           /* reduction operator */
    int size;
    int read, written;
    void *ptr;         /* a view's first element; else the C variable */
    int ndim;
    Py_ssize_t shape[8], strides[8];
    int covers;        /* written whole: 1 view[i], 2 view[i, j] (ir/nest.c) */
} cyrt_ocl_arg;

typedef struct {
    int version;
    const char *module, *function, *source, *kernel;
    int line, region, has_break, uses_fp64;
    long long start, step, n;
    long long inner;
    const char *kernel_serial;
    int npairs;
    const int *pairs;
    int nargs;
    cyrt_ocl_arg *args;
    long long break_it;
    char reason[256];
    char device[128];
    unsigned long long bytes_to_device, bytes_to_host;
    int build;         /* 0 none, 1 compiled, 2 from the kernel cache */
    int cpu_only;
    int failure;
    unsigned long long kernel_ns;
    int serial;
    void **dslot;      /* the dispatcher's record of this region (a static of the module) */
    long long pred_native, pred_opencl;
    void **lslot;      /* the runtime's launch state of this region (a static of the module) */
    int kernel_time;   /* the trace wants kernel_ns */
    const char *kernel_tiled; /* the GPU plan's 2-D kernel (ir/plan.c), NULL none */
    int tile_local[2], tile_elems[2];
    int tiled;         /* 1: kernel_tiled ran, 2: kernel_tiled_small */
    int quiet;         /* the kernel reports nothing (ir/analyze.c): no result read */
    const char *kernel_tiled_small; /* the same plan for grids that would not fill the device */
    int small_local[2], small_elems[2];
    int team_ok;       /* the dispatcher may size the native team (no num_threads given) */
    int team;          /* decide's choice for the native run: 0 the team (cyrt_team), 1 one thread */
    long long chunk_ns; /* the native run: thread 0's time over its share of the iterations (0 unknown) */
    int team_size;     /* and the team's size */
    long long work;    /* the dispatcher's size of the call: n times one iteration's loops (0: n) */
    int hot;           /* decide took the hot path to native: thread 0 need not time its share */
    long long end_ns;  /* the native run's end (the clock read that gave its ns) */
} cyrt_ocl_launch;

typedef struct {
    unsigned long long bytes_to_host;
    long long ns;
} cyrt_ocl_sync;

/* A view a host statement touches (host_views). */
typedef struct {
    const void *data;
    int ndim;
    const Py_ssize_t *shape, *strides;
    Py_ssize_t itemsize;
} cyrt_ocl_hview;

typedef struct {
    int version;
    int (*run_region)(cyrt_ocl_launch *L);
    const int *state;
    int (*enter)(void);
    int (*leave)(cyrt_ocl_sync *S);
    void (*host_use)(int write, cyrt_ocl_sync *S);
    void (*host_extent)(const void *data, int ndim, const Py_ssize_t *shape, const Py_ssize_t *strides,
                        Py_ssize_t itemsize);
    void (*native_ran)(long long ns);
    int (*decide)(cyrt_ocl_launch *L);
    void (*native_done)(cyrt_ocl_launch *L, long long ns);
    void (*host_views)(int write, int n, const cyrt_ocl_hview *v, cyrt_ocl_sync *S);
    uint64_t *native_regions;
    const int *force;
} cyrt_ocl_api;

/* The runtime's residency word (1: some data only on a device, 2: some
 * device copy valid), so that host accesses cost one load when nothing is
 * on a device; a module without the runtime reads a zero of its own.
 * 4: the device is starting in the background (cyrt_team). */
static const int cyrt_ocl_zero;
static const int *cyrt_ocl_state = &cyrt_ocl_zero;
static const cyrt_ocl_api *cyrt_ocl;  /* NULL: every region runs natively */
/* why a region forced onto OpenCL runs natively when there is no runtime */
static const char *cyrt_ocl_why = "fallback: OpenCL is not available in this build";

static void cyrt_ocl_owner_hook(const Py_buffer *b) {
    Py_ssize_t one_shape, one_stride;
    if (!(__atomic_load_n(cyrt_ocl_state, __ATOMIC_RELAXED) & 3) || !b->buf || b->itemsize <= 0) return;
    one_shape = b->len / b->itemsize;
    one_stride = b->itemsize;
    cyrt_ocl->host_extent(b->buf, b->ndim ? b->ndim : 1, b->ndim && b->shape ? b->shape : &one_shape,
                          b->ndim && b->strides ? b->strides : &one_stride, b->itemsize);
}

/* Module init (modules built with OpenCL): the runtime's API, or one
 * RuntimeWarning and native execution. */
CYRT_FN int cyrt_ocl_init(void) {
    PyObject *m = PyImport_ImportModule("cyocl");
    const cyrt_ocl_api *api = NULL;
    if (m) {
        PyObject *cap = PyObject_GetAttrString(m, "_api");
        if (cap) api = (const cyrt_ocl_api *)PyCapsule_GetPointer(cap, "cyocl._api");
        Py_XDECREF(cap);
        Py_DECREF(m);
    }
    if (api && (api->version != CYRT_OCL_API_VERSION || !api->state || !api->native_regions || !api->force)) api = NULL;
    if (!api) {
        PyErr_Clear();
        cyrt_ocl_why = "fallback: the cyocl runtime module is not available";
        return PyErr_WarnEx(PyExc_RuntimeWarning,
                            "cyocl: the runtime module 'cyocl' cannot be imported; every region runs natively", 1);
    }
    cyrt_ocl = api;
    cyrt_ocl_state = api->state;
    cyrt_force_p = api->force;
    cyrt_owner_hook = cyrt_ocl_owner_hook;
    return 0;
}

/* The team of a native region without num_threads: short of the cores
 * the OpenCL driver takes while the device starts in the background (a
 * team of every core would wait at its barrier for a thread that shares a
 * core with the driver: a scheduler slice, 12 ms for 10 us of work on the
 * H100, where one core short still left some; two short did not). */
CYRT_INLINE int cyrt_team(void) {
    int n = omp_get_max_threads();
    if (!(__atomic_load_n(cyrt_ocl_state, __ATOMIC_RELAXED) & 4)) return n;
    return n > 8 ? n - 2 : n > 1 ? n - 1 : n;
}

/* The team of a region the dispatcher decided: one thread where it measured
 * that faster (a short region's fork and barrier cost more than its work).
 * Forced native keeps Cython's team, whatever the device's driver does. */
CYRT_INLINE int cyrt_team_of(int team) {
    return team == 1 ? 1 : cyrt_force == 1 ? omp_get_max_threads() : cyrt_team();
}

CYRT_FN void cyrt_trace_line(const char *line, int len) {
    if (len > 0) {
        ssize_t w = write(cyrt_trace_fd, line, (size_t)len);
        (void)w;
    }
}

/* A trace line for data brought back outside any region. */
CYRT_COLD void cyrt_trace_sync(const char *function, int line, const char *why, const cyrt_ocl_sync *S) {
    char text[512];
    int len = snprintf(text, sizeof text,
                       "{\"event\":\"sync\",\"module\":\"%s\",\"function\":\"%s\",\"line\":%d,\"reason\":\"%s\","
                       "\"bytes_to_device\":0,\"bytes_to_host\":%llu,\"ns\":%lld}\n",
                       cyrt_modname, function, line, why, S->bytes_to_host, S->ns);
    if (len > 0 && (size_t)len < sizeof text) cyrt_trace_line(text, len);
}

/* Generated code touches view memory on the host (mask 1: reads, 3:
 * writes or hands it to Python): data on a device comes back first. */
CYRT_COLD void cyrt_host_sync(int mask, const char *function, int line) {
    cyrt_ocl_sync S = {0, 0};
    if (!cyrt_ocl) return;
    cyrt_ocl->host_use(mask & 2, &S);
    if (cyrt_trace_fd >= 0 && S.bytes_to_host) cyrt_trace_sync(function, line, "host use", &S);
}
#define CYRT_HOST(mask, function, line) \
    do { if (cyrt_unlikely(__atomic_load_n(cyrt_ocl_state, __ATOMIC_RELAXED) & (mask))) cyrt_host_sync((mask), (function), (line)); } while (0)

/* The same for a statement that touches only the n views listed
 * (CYRT_HV(view, ndim, itemsize), ...): only their data comes back, other
 * arrays stay where they are. */
CYRT_COLD void cyrt_host_sync_views(int mask, const char *function, int line, int n, const cyrt_ocl_hview *v) {
    cyrt_ocl_sync S = {0, 0};
    if (!cyrt_ocl) return;
    cyrt_ocl->host_views(mask & 2, n, v, &S);
    if (cyrt_trace_fd >= 0 && S.bytes_to_host) cyrt_trace_sync(function, line, "host use", &S);
}
#define CYRT_HV(view, nd, isz) {(view).data, (nd), (view).shape, (view).strides, (Py_ssize_t)(isz)}
#define CYRT_HOSTV(mask, function, line, n, ...)                                                 \
    do {                                                                                         \
        if (cyrt_unlikely(__atomic_load_n(cyrt_ocl_state, __ATOMIC_RELAXED) & (mask))) {         \
            const cyrt_ocl_hview cyrt_hv_[] = {__VA_ARGS__};                                     \
            cyrt_host_sync_views((mask), (function), (line), (n), cyrt_hv_);                     \
        }                                                                                        \
    } while (0)

/* A def that may run regions on a device: its arrays are brought back
 * before it returns to Python. */
CYRT_INLINE int cyrt_call_enter(void) { return cyrt_ocl ? cyrt_ocl->enter() : 0; }
CYRT_COLD int cyrt_call_leave(const char *function, int line) {
    cyrt_ocl_sync S = {0, 0};
    int rc;
    if (!cyrt_ocl) return 0;
    rc = cyrt_ocl->leave(&S);
    if (cyrt_trace_fd >= 0 && S.bytes_to_host) cyrt_trace_sync(function, line, "return", &S);
    return rc;
}

/* The trace's predicted_ns object: the sides the dispatcher considered. */
CYRT_FN void cyrt_trace_pred(char *buf, size_t n, const cyrt_ocl_launch *L) {
    int k = snprintf(buf, n, "{");
    if (L && L->pred_native >= 0 && k > 0 && (size_t)k < n)
        k += snprintf(buf + k, n - (size_t)k, "\"native\":%lld", L->pred_native);
    if (L && L->pred_opencl >= 0 && k > 0 && (size_t)k < n)
        k += snprintf(buf + k, n - (size_t)k, "%s\"opencl\":%lld", k > 1 ? "," : "", L->pred_opencl);
    if (k > 0 && (size_t)k < n) snprintf(buf + k, n - (size_t)k, "}");
}

CYRT_FN void cyrt_trace_ocl(const cyrt_region_info *ri, const cyrt_ocl_launch *L, long long ns) {
    char line[1200], dev[260], pred[96];
    size_t k = 0;
    int len;
    for (const char *p = L->device; *p && k + 2 < sizeof dev; p++) {
        if (*p == '"' || *p == '\\') dev[k++] = '\\';
        dev[k++] = (unsigned char)*p < 0x20 ? ' ' : *p;
    }
    dev[k] = 0;
    cyrt_trace_pred(pred, sizeof pred, L);
    char work[40] = "";
    if (L->work > 0 && L->work != L->n) snprintf(work, sizeof work, ",\"work\":%lld", L->work);
    len = snprintf(line, sizeof line,
                   "{\"module\":\"%s\",\"function\":\"%s\",\"line\":%d,\"region\":%d,\"impl\":\"opencl\","
                   "\"device\":\"%s\",\"n\":%lld,\"bytes_to_device\":%llu,\"bytes_to_host\":%llu,\"build\":\"%s\","
                   "\"reason\":\"%s\",\"predicted_ns\":%s,\"ns\":%lld,\"kernel_ns\":%llu,\"kernel\":\"%s\"%s%s}\n",
                   cyrt_modname, ri->function, ri->line, ri->region, dev, L->n, L->bytes_to_device,
                   L->bytes_to_host, L->build == 1 ? "compiled" : L->build == 2 ? "cache" : "none",
                   cyrt_force == 2 || !L->reason[0] ? "forced" : L->reason, pred, ns, L->kernel_ns,
                   L->serial ? L->kernel_serial : L->tiled == 2 ? L->kernel_tiled_small : L->tiled ? L->kernel_tiled : L->kernel,
                   L->serial  ? ",\"variant\":\"serial: views overlap\""
                   : L->tiled ? ",\"variant\":\"tiled: 2-D plan\""
                   : L->inner > 0 ? ",\"variant\":\"collapsed\"" : "", work);
    if (len > 0 && (size_t)len < sizeof line) {
        ssize_t w = write(cyrt_trace_fd, line, (size_t)len);
        (void)w;
    }
}

/* L: the region's launch when it could go to OpenCL (its reason: the
 * dispatcher's, or why a region sent to OpenCL runs natively); NULL
 * otherwise. */
CYRT_FN void cyrt_trace_region(const cyrt_region_info *ri, long long n, long long ns, const cyrt_ocl_launch *L) {
    char line[1200], pred[96];
    const char *reason, *why = L ? L->reason : NULL;
    char rbuf[512];
    int len;
    if (cyrt_force == 1) {
        reason = "forced";
    } else if (!ri->ocl_ok) {
        snprintf(rbuf, sizeof rbuf, "not-eligible: %s", ri->reason);
        reason = rbuf;
    } else if (why && why[0]) {
        reason = why;
    } else if (cyrt_force == 2 || !cyrt_ocl) {
        reason = cyrt_ocl_why;
    } else {
        reason = "auto";
    }
    cyrt_trace_pred(pred, sizeof pred, cyrt_force == 1 ? NULL : L);
    /* the team's size where the region timed its thread 0 (the
     * dispatcher's regions): a short or one-thread team shows */
    char team[72] = "";
    if (L && L->chunk_ns > 0) snprintf(team, sizeof team, ",\"team\":%d", L->team_size);
    /* the dispatcher's size of the call, where it is not n (cyocl_api.h) */
    if (L && L->work > 0 && L->work != n)
        snprintf(team + strlen(team), sizeof team - strlen(team), ",\"work\":%lld", L->work);
    len = snprintf(line, sizeof line,
                   "{\"module\":\"%s\",\"function\":\"%s\",\"line\":%d,\"region\":%d,\"impl\":\"native\","
                   "\"device\":null,\"n\":%lld,\"bytes_to_device\":0,\"bytes_to_host\":0,\"build\":\"none\","
                   "\"reason\":\"%s\",\"predicted_ns\":%s,\"ns\":%lld%s}\n",
                   cyrt_modname, ri->function, ri->line, ri->region, n, reason, pred, ns, team);
    if (len > 0 && (size_t)len < sizeof line) cyrt_trace_line(line, len);
}

/* Regions are timed for the trace and for the dispatcher (native_done;
 * stats()' native_ns is the time of the native runs timed).  A region the
 * dispatcher does not decide (CYOCL_FORCE=native, a region OpenCL cannot
 * take: cgen.c times those for the trace only) is counted but not timed:
 * its two clock reads (about 60 ns each on the H100's VM) and the runtime
 * call cost as much as a small region's work (bench/region_overhead.py,
 * jacobi 10x10 at 16 threads: 1.09x Cython with them, 1.02x without). */
CYRT_INLINE int cyrt_timing(void) { return cyrt_trace_fd >= 0 || (cyrt_ocl && cyrt_force != 1); }

CYRT_FN void cyrt_region_done(const cyrt_region_info *ri, long long n, long long t0, cyrt_ocl_launch *L) {
    long long end = cyrt_now_ns(), ns = end - t0;
    if (cyrt_trace_fd >= 0) cyrt_trace_region(ri, n, ns, L);
    if (!cyrt_ocl) return;
    /* the dispatcher learns from the regions it sent here */
    if (L && L->dslot) {
        L->end_ns = end; /* the dispatcher's clock read too */
        cyrt_ocl->native_done(L, ns);
    }
    else cyrt_ocl->native_ran(ns);
}

/* After a native region; t0: its start when timed, else 0 (a monotonic
 * clock is never 0).  Untimed: one add to stats()' native_regions, or,
 * while teams run short (the dispatcher of some other module started the
 * device), the runtime's call, whose idle check gives full teams back. */
CYRT_INLINE void cyrt_region_end(const cyrt_region_info *ri, long long n, long long t0, cyrt_ocl_launch *L) {
    if (t0) cyrt_region_done(ri, n, t0, L);
    else if (!cyrt_ocl) return;
    else if (cyrt_unlikely(__atomic_load_n(cyrt_ocl_state, __ATOMIC_RELAXED) & 4)) cyrt_ocl->native_ran(0);
    else __atomic_add_fetch(cyrt_ocl->native_regions, 1, __ATOMIC_RELAXED);
}

/* ---- module initialisation ------------------------------------------------------ */

CYRT_FN int cyrt_init(PyObject *module, const char *modname) {
    const char *force = getenv("CYOCL_FORCE"), *trace = getenv("CYOCL_TRACE");
    PyObject *bm;
    cyrt_modname = modname;
    if (pthread_atfork(NULL, NULL, cyrt_fork_child) != 0) return PyErr_NoMemory(), -1;
    cyrt_mdict = PyModule_GetDict(module);
    if (!cyrt_mdict) return -1;
    Py_INCREF(cyrt_mdict);
    bm = PyImport_ImportModule("builtins");
    if (!bm) return -1;
    cyrt_builtins = PyModule_GetDict(bm);
    Py_INCREF(cyrt_builtins);
    Py_DECREF(bm);
    if (PyType_Ready(&cyrt_viewobj_type) < 0) return -1;
    if (force && *force) {
        if (!strcmp(force, "native")) cyrt_force_env = 1;
        else if (!strcmp(force, "opencl")) cyrt_force_env = 2;
        else if (PyErr_WarnFormat(PyExc_RuntimeWarning, 1,
                                  "CYOCL_FORCE=%s is not understood (use 'native' or 'opencl'); choosing automatically",
                                  force) < 0)
            return -1;
    }
    if (trace && *trace) {
        cyrt_trace_fd = open(trace, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (cyrt_trace_fd < 0 &&
            PyErr_WarnFormat(PyExc_RuntimeWarning, 1, "CYOCL_TRACE=%s cannot be opened: %s; no trace is written",
                             trace, strerror(errno)) < 0)
            return -1;
    }
    return 0;
}
