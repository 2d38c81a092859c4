"""Every function of native_block.pyx against the same file built by Cython 3
+ OpenMP, bit for bit: the blocked native schedule keeps each element's
operations in Cython's order.  The Cython build is made once per version of
the file (kept in the temporary directory); without Cython the test is
skipped only for that comparison: the float64 products are also checked
against an ordered numpy sum, and an aliasing call against its serial
meaning."""
import glob, hashlib, importlib.util, os, shutil, subprocess, sys, tempfile, textwrap
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PYX = os.path.join(HERE, "native_block.pyx")


def cython_module():
    try:
        import Cython  # noqa: F401
    except ImportError:
        print("native_block: no Cython, comparing with numpy only")
        return None
    src = open(PYX, "rb").read()
    d = os.path.join(tempfile.gettempdir(), "cyocl-e2e-native-block-%s-%d" % (hashlib.sha256(src).hexdigest()[:16], os.getuid()))
    if not glob.glob(os.path.join(d, "native_block*.so")):
        tmp = tempfile.mkdtemp(prefix="cyocl-e2e-nb-")
        shutil.copy(PYX, tmp)
        with open(os.path.join(tmp, "setup.py"), "w") as f:
            f.write(textwrap.dedent("""
                from setuptools import setup, Extension
                from Cython.Build import cythonize
                setup(script_args=["build_ext", "--inplace", "-q"],
                      ext_modules=cythonize([Extension("native_block", ["native_block.pyx"],
                          extra_compile_args=["-O3", "-fopenmp"], extra_link_args=["-fopenmp"])],
                          language_level=3, quiet=True))
            """))
        subprocess.run([sys.executable, "setup.py"], cwd=tmp, check=True, capture_output=True)
        try:
            os.rename(tmp, d)  # atomic: a concurrent run keeps its own
        except OSError:
            pass
        if not os.path.isdir(d):
            d = tmp
    so = glob.glob(os.path.join(d, "native_block*.so"))[0]
    spec = importlib.util.spec_from_file_location("native_block", so)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def same(got, want, what):
    if isinstance(got, np.ndarray):
        assert got.shape == want.shape and got.tobytes() == want.tobytes(), \
            "%s: %d elements differ" % (what, np.count_nonzero(got != want))
    else:
        assert repr(got) == repr(want), "%s: %r != %r" % (what, got, want)


def serial(a, b):
    s = np.zeros((a.shape[0], b.shape[1]), a.dtype)
    for k in range(a.shape[1]):
        s = s + np.multiply.outer(a[:, k], b[k, :]).astype(a.dtype)
    return s


def both(mod, cy, name, args, outs, what):
    """Calls name on copies of args with both modules; the returned values
    and the arrays at positions outs must be equal."""
    def call(m):
        a = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
        try:
            return a, getattr(m, name)(*a)
        except Exception as e:  # the exception must be Cython's too
            return a, (type(e).__name__, str(e))
    a1, r1 = call(mod)
    if cy is None:
        return a1
    a2, r2 = call(cy)
    same(r1, r2, "%s %s: return value or exception" % (name, what))
    for o in outs:
        same(a1[o], a2[o], "%s %s: argument %d" % (name, what, o))
    return a1


def check(mod):
    cy = cython_module()
    # a module built with OpenCL imports the runtime module
    native_only = os.environ.get("CYOCL_FORCE") == "native" or "cyocl" not in sys.modules
    rng = np.random.default_rng(6)
    sizes = [(1, 1, 1), (2, 3, 2), (5, 7, 9), (33, 129, 257), (67, 300, 70), (130, 5, 3), (4, 0, 5), (0, 4, 4),
             (70, 260, 300)]
    for n, k, m in sizes:
        a, b = rng.standard_normal((n, k)), rng.standard_normal((k, m))
        c = np.full((n, m), np.nan)
        got = both(mod, cy, "matmul", [a, b, c], [2], (n, k, m))[2]
        same(got, serial(a, b), "matmul %s against numpy" % ((n, k, m),))
        both(mod, cy, "matmul", [np.asfortranarray(a), b[::-1, ::-1].copy()[::-1, ::-1], c], [2], "F")
        big = rng.standard_normal((2 * k + 1, 3 * m + 2))
        both(mod, cy, "matmul", [a, big[::2, 1::3][:k, :m], c], [2], "strided")
        a32, b32 = a.astype(np.float32), b.astype(np.float32)
        both(mod, cy, "matmul_f32", [a32, b32, np.zeros((n, m), np.float32)], [2], (n, k, m))
        al = rng.integers(-1000, 1000, (n, k)).astype(np.int_)
        bl = rng.integers(-1000, 1000, (k, m)).astype(np.int_)
        both(mod, cy, "matmul_long", [al, bl[:, ::-1], np.zeros((n, m), np.int_)], [2], (n, k, m))
        # exp() on an OpenCL device is the device's, not libm's: bit for bit
        # only where the native code runs
        bias = rng.standard_normal(m)
        if native_only:
            both(mod, cy, "sigmoid_layer", [a, b, bias, np.zeros((n, m))], [3], (n, k, m))
        elif cy is not None:
            o1, o2 = np.zeros((n, m)), np.zeros((n, m))
            mod.sigmoid_layer(a, b, bias, o1)
            cy.sigmoid_layer(a, b, bias, o2)
            assert np.allclose(o1, o2, rtol=1e-13, atol=0), "sigmoid_layer %s" % ((n, k, m),)
        if n and m and k:
            both(mod, cy, "two_sums", [a, b, np.zeros((n, m))], [2], (n, k, m))
        if n > 1 and k > 2 and m > 1:
            for start, step in ((0, 1), (1, 2), (min(3, n - 1), 5)):
                both(mod, cy, "stepped", [a, b, rng.standard_normal((n, m)), start, step], [2], (n, k, m, start, step))
        if m:
            both(mod, cy, "wrapped", [a, b, np.zeros((n, m))], [2], (n, k, m))

    # bounds checks: in range (blocked), and each way out of range (the
    # plain loop raises Cython's IndexError; which rows ran first is not
    # fixed, so only the exception is compared there)
    for n, k, m in ((5, 7, 9), (40, 33, 70), (70, 130, 300)):
        A, B = rng.standard_normal((n + 1, k)), rng.standard_normal((max(k, 3), m + 2))
        C = rng.standard_normal((n, m + 1))
        both(mod, cy, "checked", [A, B, C, n, m + 1, k], [2], (n, k, m))
        both(mod, cy, "checked", [A, B[:, ::-1], C, n, m, k], [2], (n, k, m, "reversed"))
        for nn, mm, kk in ((n + 1, m + 1, k), (n, m + 2, k), (n, m + 1, k + 1)):
            if cy is not None:
                try:
                    mod.checked(A.copy(), B.copy(), C.copy(), nn, mm, kk)
                    e1 = None
                except IndexError as e:
                    e1 = str(e)
                try:
                    cy.checked(A.copy(), B.copy(), C.copy(), nn, mm, kk)
                    e2 = None
                except IndexError as e:
                    e2 = str(e)
                assert e1 == e2 and e1 is not None, "checked %s: %r != %r" % ((nn, mm, kk), e1, e2)

    # the output is the left operand: row i's earlier columns are
    # overwritten before later ones read them; the blocked code would read
    # them first, so the plain loop runs (the views meet)
    for n in (65, 300):
        x, b = rng.standard_normal((n, n)), rng.standard_normal((n, n))
        want = x.copy()
        for j in range(n):
            s = np.zeros(n)
            for kk in range(n):
                s = s + want[:, kk] * b[kk, j]
            want[:, j] = s
        got = x.copy()
        mod.matmul(got, b, got)
        same(got, want, "matmul with c = a (%d)" % n)
        if cy is not None:
            x2 = x.copy()
            cy.matmul(x2, b, x2)
            same(got, x2, "matmul with c = a (%d) against Cython" % n)
