#!/usr/bin/env python3
"""No recursion that input can drive (issue 15 item 3): very long
left-leaning chains (+, *, and, or, comparisons, subscripts, a[i] + a[i] ...
inside a prange) give a positioned error, and the deepest expressions the
parser allows go through every phase (parse, sema, analyze, --dump-ir, the C
and OpenCL backends, the libclang check) without a crash.  Run against the
sanitizer build too (ctest label unit).

Usage: deep.py --cyocl PATH [--work DIR]
Closing line: 'N passed, N failed'.
"""
import argparse, os, re, subprocess, sys, tempfile

LIMIT = 1000          # MAX_EXPR_HEIGHT in frontend/parse.c
LONG = 20000

HEAD = "from cython.parallel import prange\n"


def chain(term, op, n):
    return (" %s " % op).join([term] * n)


def cases():
    big = {
        "sum": "def f():\n    return %s\n" % chain("1", "+", LONG),
        "product": "def f():\n    return %s\n" % chain("1", "*", LONG),
        "and": "def f(int x):\n    return %s\n" % chain("x", "and", LONG),
        "or": "def f(int x):\n    return %s\n" % chain("x", "or", LONG),
        "mixed": "def f(double x):\n    return %s\n" % chain("x", "-", LONG // 2) + "\n",
        "subscripts": "def f(a):\n    return a%s\n" % ("[0]" * LONG),
        "calls": "def f(g):\n    return g%s\n" % ("()" * LONG),
        "attributes": "def f(g):\n    return g%s\n" % (".x" * LONG),
        "parens": "def f():\n    return %s1%s\n" % ("(" * LONG, ")" * LONG),
        "unary": "def f(int x):\n    return %sx\n" % ("-" * LONG),
        "compare": "def f(int x):\n    return %s\n" % chain("x", "<", LONG),
        "not": "def f(int x):\n    return %sx\n" % ("not " * LONG),
        "prange_sum": HEAD + "def f(double[:] a, double[:] b):\n    cdef Py_ssize_t i\n"
                      "    for i in prange(a.shape[0], nogil=True):\n        b[i] = %s\n" % chain("a[i]", "+", LONG),
        "prange_reduction": HEAD + "def f(double[:] a):\n    cdef Py_ssize_t i\n    cdef double s = 0\n"
                            "    for i in prange(a.shape[0], nogil=True):\n        s += %s\n    return s\n"
                            % chain("a[i]", "*", LONG),
        "array_sum": "def f(double[:] a):\n    return sum(%s)\n" % chain("a[:]", "+", LONG),
        "for_target": "def f(a):\n    for a%s in range(3):\n        pass\n" % ("[0]" * LONG),
    }
    # the deepest expressions the limit allows (a leaf counts one level)
    n = LIMIT - 3
    deep = {
        "sum_limit": "def f():\n    return %s\n" % chain("1", "+", n),
        "and_limit": "def f(int x):\n    return %s\n" % chain("x > 0", "and", n),
        "or_limit": "def f(double x):\n    return %s\n" % chain("x < 0", "or", n),
        # and/or on C numbers give an operand (E_VAND/E_VOR): linear, not 2^n
        "value_and_limit": "def f(int x):\n    return %s\n" % chain("x", "and", n),
        "value_or_limit": HEAD + "def f(double[:] a, double[:] b):\n    cdef Py_ssize_t i\n"
                          "    for i in prange(a.shape[0], nogil=True):\n        b[i] = %s\n" % chain("a[i]", "or", n // 2),
        "product_limit": "def f(long x):\n    return %s\n" % chain("x", "*", n),
        "compare_limit": "def f(int x):\n    return %s\n" % chain("x", "<", n),
        "subscripts_limit": "def f(a):\n    return a%s\n" % ("[0]" * n),
        "prange_limit": HEAD + "def f(double[:] a, double[:] b):\n    cdef Py_ssize_t i\n"
                        "    for i in prange(a.shape[0], nogil=True):\n        b[i] = %s\n" % chain("a[i]", "+", n // 2),
        "prange_reduction_limit": HEAD + "def f(double[:] a):\n    cdef Py_ssize_t i\n    cdef double s = 0\n"
                                  "    for i in prange(a.shape[0], nogil=True):\n        s += %s\n    return s\n"
                                  % chain("a[i]", "+", n // 2),
        # (at most 64 memoryview operands in one array expression)
        "array_sum_limit": "def f(double[:] a):\n    return sum(a[:] + %s)\n" % chain("1.0", "+", n - 3),
        "array_assign_limit": "def f(double[:] a, double[:] b):\n    b[:] = a[:] * %s\n" % chain("a[0]", "*", n - 3),
        "nested_limit": "def f(double x):\n    return %s\n" % ("(" * 150 + chain("x", "+", n - 200) + ")" * 150),
    }
    return big, deep


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cyocl", required=True)
    ap.add_argument("--work")
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="cyocl-deep-")
    os.makedirs(work, exist_ok=True)
    big, deep = cases()
    ok = bad = 0

    def report(good, label, detail=""):
        nonlocal ok, bad
        if good:
            ok += 1
            print("PASS", label)
        else:
            bad += 1
            print("FAIL", label)
            print("    " + detail[-3000:].replace("\n", "\n    "))

    def run(name, text, extra):
        pyx = os.path.join(work, name + ".pyx")
        with open(pyx, "w") as f:
            f.write(text)
        cmd = [a.cyocl, "compile", "--dump-ir", "-o", os.path.join(work, name + ".c"), *extra, pyx]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        except subprocess.TimeoutExpired:
            return None, "timed out"
        return p.returncode, p.stderr

    for name, text in big.items():
        rc, err = run(name, text, ["--no-opencl"])
        # a positioned error in the .pyx (exit 1), never a crash
        m = re.search(r"^%s\.pyx:(\d+):(\d+): error: (.*)$" % name, err or "", re.M)
        report(rc == 1 and m is not None and ("too deeply nested" in m.group(3) or "too many nested" in m.group(3)
                                              or "not supported" in m.group(3) or "not allowed" in m.group(3)
                                              or "64 at most" in m.group(3)),
               "%s: %s" % (name, m.group(0) if m else "rc=%s" % rc), err or "")
    for name, text in deep.items():
        for extra in (["--no-opencl"], []):
            rc, err = run(name, text, extra)
            # compiles; with OpenCL a kernel OpenCL C cannot take (its
            # bracket nesting limit) leaves its region native, with a warning
            good = rc == 0 and "internal error" not in (err or "")
            report(good, "%s %s: rc=%s" % (name, " ".join(extra) or "(opencl)", rc), err or "")
    print("%d passed, %d failed" % (ok, bad))
    sys.exit(1 if bad or not ok else 0)


if __name__ == "__main__":
    main()
