/* test_sema.c: names, types and Cython's prange rules, checked through the
 * IR dump and the diagnostics of small programs. */
#define _GNU_SOURCE
#include "frontend/frontend.h"
#include "ir/ir.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"

typedef struct {
    char *diag; /* malloc'd */
    char *dump; /* malloc'd, NULL when sema failed */
    int nerrors;
} Result;

static Result compile(const char *text) {
    Result r = {0};
    CyArena *a = cy_arena_new();
    CySource src = {.path = "t.pyx", .name = "t.pyx", .modname = "t", .text = text, .len = strlen(text)};
    size_t dlen = 0;
    FILE *out = open_memstream(&r.diag, &dlen);
    CyDiag d = {.src = &src, .out = out};
    AModule *am = cy_parse_source(a, &d, &src);
    IrModule *m = am ? cy_sema(a, &d, am) : NULL;
    if (m) {
        cy_ir_analyze(a, m);
        CyBuf b = {0};
        cy_ir_dump(&b, m);
        r.dump = strdup(b.s ? b.s : "");
        cy_buf_free(&b);
    }
    fclose(out);
    r.nerrors = d.nerrors;
    cy_arena_free(a);
    return r;
}

static void done(Result *r) {
    free(r->diag);
    free(r->dump);
}

static void expect_ok(const char *text, const char **needles) {
    Result r = compile(text);
    CHECK(r.dump && r.nerrors == 0, "unexpected errors:\n%s\nsource:\n%s", r.diag, text);
    for (int i = 0; r.dump && needles[i]; i++)
        CHECK(strstr(r.dump, needles[i]) != NULL, "missing '%s' in dump:\n%s", needles[i], r.dump);
    done(&r);
}

static void expect_error(const char *text, const char *where, const char *words) {
    Result r = compile(text);
    CHECK(r.nerrors > 0 && strstr(r.diag, where) && strstr(r.diag, words),
          "expected error at %s with '%s', got:\n%s", where, words, r.diag ? r.diag : "");
    done(&r);
}

int main(void) {
    /* reductions are inferred from in-place operators; assigned variables
       are lastprivate; only-read ones are shared */
    expect_ok("from cython.parallel import prange\n"
              "def f(double[:] a, double k):\n"
              "    cdef Py_ssize_t i\n"
              "    cdef double s = 0, t\n"
              "    cdef long c = 0\n"
              "    for i in prange(a.shape[0], nogil=True):\n"
              "        t = a[i] * k\n"
              "        s += t\n"
              "        c += 1\n"
              "    return s, t, c\n",
              (const char *[]){"var s reduction +", "var t lastprivate", "var c reduction +", "var k shared",
                               "var i lastprivate", "view a read", "ocl=yes", NULL});
    /* a written view is recorded as written */
    expect_ok("from cython.parallel import prange\n"
              "def f(double[:] a, double[:] b):\n"
              "    cdef Py_ssize_t i\n"
              "    for i in prange(a.shape[0], nogil=True):\n"
              "        b[i] *= a[i]\n",
              (const char *[]){"view b read written", "view a read", NULL});
    /* regions OpenCL cannot take say why */
    expect_ok("from cython.parallel import prange\n"
              "cdef extern from *:\n"
              "    double ext(double x) nogil\n"
              "cdef long fib(long k) noexcept nogil:\n"
              "    if k < 2:\n"
              "        return k\n"
              "    return fib(k - 1) + fib(k - 2)\n"
              "def f(double[:] a, long[:] b):\n"
              "    cdef Py_ssize_t i\n"
              "    for i in prange(a.shape[0], nogil=True):\n"
              "        a[i] = ext(a[i])\n"
              "    for i in prange(b.shape[0], nogil=True):\n"
              "        b[i] = fib(b[i])\n",
              (const char *[]){"external C function", "recursive function fib", NULL});
    /* types: true division of C ints, Python // and %, ** with a negative exponent */
    expect_ok("def f(int a, int b):\n"
              "    cdef double x = a / b\n"
              "    cdef int q = a // b\n"
              "    cdef int r = a % b\n"
              "    cdef double p = a ** -1\n"
              "    return x, q, r, p\n",
              (const char *[]){"(BINOP / (CAST a):double", "PYFLOORDIV", "PYMOD", "(POW ", NULL});
    /* safe inference: an untyped variable assigned only floats is a double */
    expect_ok("def f(double[:] a):\n"
              "    total = 0.0\n"
              "    for i in range(a.shape[0]):\n"
              "        total += a[i]\n"
              "    return total\n",
              (const char *[]){"local double total", "local Py_ssize_t i", NULL});
    /* slicing keeps C contiguity on the last axis */
    expect_ok("def f(double[:, ::1] a):\n"
              "    cdef double[::1] row = a[0]\n"
              "    cdef double[:] col = a[:, 0]\n"
              "    return row[0] + col[0]\n",
              (const char *[]){"double[::1]", NULL});

    /* errors: position and words */
    expect_error("from cython.parallel import prange\n"
                 "def f(double[:] a):\n"
                 "    cdef Py_ssize_t i\n"
                 "    cdef double s = 0\n"
                 "    for i in prange(a.shape[0], nogil=True):\n"
                 "        a[i] = s\n"
                 "        s += 1.0\n",
                 "t.pyx:6:16: error:", "Cannot read reduction variable");
    expect_error("from cython.parallel import prange\n"
                 "def f(double[:] a):\n"
                 "    cdef Py_ssize_t i\n"
                 "    for i in prange(a.shape[0], nogil=True):\n"
                 "        a[i] = a[i] * scale\n",
                 "t.pyx:5:23: error:", "undeclared name not builtin: scale");
    expect_error("def f(double[:] a):\n"
                 "    cdef float[:] c = a\n",
                 "t.pyx:2:23: error:", "Cannot assign type 'double[:]' to 'float[:]'");
    expect_error("def f(double[:, :] a):\n"
                 "    cdef double x\n"
                 "    x = a[1]\n",
                 "t.pyx:3:9: error:", "'double[:]'");
    expect_error("from cython.parallel import prange\n"
                 "def f(double[:] a):\n"
                 "    cdef Py_ssize_t i\n"
                 "    for i in prange(a.shape[0], nogil=True, schedule='fastest'):\n"
                 "        a[i] = 1.0\n",
                 "t.pyx:4:54: error:", "schedule");
    expect_error("from cython.parallel import prange\n"
                 "def f(double[:] a):\n"
                 "    cdef Py_ssize_t i\n"
                 "    for i in prange(a.shape[0], nogil=True):\n"
                 "        a[i] = len([1, 2, 3])\n",
                 "t.pyx:5:16: error:", "gil");
    expect_error("cdef double p(double x, double a) noexcept nogil:\n"
                 "    return a * x\n"
                 "def f(double[:] a):\n"
                 "    a[0] = p(a[0])\n",
                 "t.pyx:4:12: error:", "wrong number of arguments");
    expect_error("from cython.parallel import parallel\n"
                 "def f(double[:] a):\n"
                 "    with nogil, parallel():\n"
                 "        with parallel():\n"
                 "            a[0] = 1.0\n",
                 "t.pyx:4:14: error:", "nested parallel");
    expect_error("def f(double[:] a):\n"
                 "    cdef int x = a\n",
                 "t.pyx:2:18: error:", "Cannot assign type 'double[:]' to 'int'");
    expect_error("def f(double[:] a):\n"
                 "    with nogil:\n"
                 "        print(a[0])\n",
                 "t.pyx:3:9: error:", "gil");
    /* several errors in one run */
    {
        Result r = compile("def f():\n    x = y\n    z = w\n");
        CHECK(r.nerrors == 2, "expected 2 errors, got:\n%s", r.diag);
        done(&r);
    }
    printf("test_sema: %d checks, %d failed\n", checks, failures);
    /* Cython 3.3's classification (issue 15 item 2), module globals
       included: the last assignment decides; + - * & | ^ in place make a
       reduction, any other assignment a lastprivate, a read a shared */
#define G_HEAD "from cython.parallel import prange, parallel\n" \
               "cdef long total = 0\ncdef long last = 0\ncdef long ro = 5\ncdef double q = 1\n"
    expect_ok(G_HEAD "def f(long n):\n"
                     "    global total, last, q\n"
                     "    cdef long i, s = 0\n"
                     "    for i in prange(n, nogil=True):\n"
                     "        total += i\n"
                     "        last = i * ro\n"
                     "        q /= 2\n"
                     "        s ^= i\n"
                     "    return total + last + s\n",
              (const char *[]){"var total reduction +", "var last lastprivate", "var ro shared", "var q lastprivate",
                               "var s reduction ^", "ocl=yes", "reduction long total", "lastprivate long last", NULL});
    /* the last assignment decides, in either order */
    expect_ok(G_HEAD "def f(long n):\n"
                     "    global total, last\n"
                     "    cdef long i\n"
                     "    for i in prange(n, nogil=True):\n"
                     "        total += i\n"
                     "        total = 0\n"
                     "        total *= 2\n"
                     "        last += 1\n"
                     "        last = 3\n",
              (const char *[]){"var total reduction *", "var last lastprivate", NULL});
    /* module-level code (Cython's documentation example) */
    expect_ok("from cython.parallel import prange\n"
              "cdef int i\ncdef int n = 30\ncdef int sum = 0\n"
              "for i in prange(n, nogil=True):\n"
              "    sum += i\n",
              (const char *[]){"var sum reduction +", NULL});
    /* without `global` the name is a (Python object) local, as in Cython */
    expect_error(G_HEAD "def f(long n):\n"
                        "    cdef long i\n"
                        "    for i in prange(n, nogil=True):\n"
                        "        total += i\n",
                 "t.pyx:9:9: error:", "not allowed without gil");
    expect_error(G_HEAD "def f(long n):\n"
                        "    global total\n"
                        "    cdef long i, x = 0\n"
                        "    for i in prange(n, nogil=True):\n"
                        "        total += i\n"
                        "        x = total\n",
                 "t.pyx:11:13: error:", "Cannot read reduction variable in loop body");
    expect_error(G_HEAD "def f(long n):\n"
                        "    global q\n"
                        "    cdef long i\n"
                        "    cdef double x = 0\n"
                        "    for i in prange(n, nogil=True):\n"
                        "        q /= 2\n"
                        "        x = q\n",
                 "t.pyx:12:13: error:", "Cannot read reduction variable in loop body");
    expect_error(G_HEAD "def f(long n):\n"
                        "    global total\n"
                        "    cdef long i\n"
                        "    for i in prange(n, nogil=True):\n"
                        "        total += i\n"
                        "        total *= 2\n",
                 "t.pyx:11:9: error:", "Reduction operator '*' is inconsistent with previous reduction operator '+'");
    expect_error(G_HEAD "def f(long n):\n"
                        "    global total, last\n"
                        "    cdef long i\n"
                        "    with nogil, parallel():\n"
                        "        last += 1\n",
                 "t.pyx:10:9: error:", "Reductions not allowed for parallel blocks");
    expect_error(G_HEAD "def f(long n):\n"
                        "    global total\n"
                        "    cdef long i\n"
                        "    with nogil, parallel():\n"
                        "        total = 4\n"
                        "        for i in prange(n):\n"
                        "            total += i\n",
                 "t.pyx:12:13: error:", "Cannot assign to private of outer parallel block");
    /* a prange inside a parallel() block may reduce what the block does not assign */
    expect_ok(G_HEAD "def f(long n):\n"
                     "    global total\n"
                     "    cdef long i, x\n"
                     "    with nogil, parallel():\n"
                     "        x = 2\n"
                     "        for i in prange(n):\n"
                     "            total += i * x\n",
              (const char *[]){"var total reduction +", NULL});
    /* a cdef function that assigns a module global keeps a calling region native */
    expect_ok(G_HEAD "cdef void bump(long k) noexcept nogil:\n"
                     "    global last\n"
                     "    last = k\n"
                     "def f(long n):\n"
                     "    cdef long i\n"
                     "    for i in prange(n, nogil=True):\n"
                     "        bump(i)\n",
              (const char *[]){"ocl=no (calls bump(), which assigns module-level variable 'last')", NULL});
#undef G_HEAD

    return failures != 0;
}
