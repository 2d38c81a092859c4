"""The validator: runs a generated function serially on its concrete inputs
with C/Cython semantics and rejects it (Invalid) where its result would not be
determined by the source: undefined behaviour (signed overflow of constants, which Cython
folds; other signed + - * wrap as with -fwrapv; division by
zero under cdivision, out-of-range float->int, shifts), a data race between
prange iterations (per-address read/write sets, aliasing views included), a
read of an unassigned private, a reduction whose result depends on the order
(inexact floats, possible signed overflow in some order), a `break` taken in a
prange, and float operations that are not exact (so the rounding of the other
side, FMA contraction, summation order cannot matter).  It also yields the
serial result, used as a check of the tester itself (oracle)."""
import builtins
import math
from fractions import Fraction
import numpy as np
from ctypes_ import T, arith, promote, DOUBLE, FLOAT, INT, SSIZE
from prog import typeof, CMP, cy_widest, FUSED
from inputs import make_inputs


class Invalid(Exception):
    pass


class PyExc(Exception):
    def __init__(self, typ, msg):
        super().__init__(typ, msg)
        self.typ, self.msg = typ, msg


class BreakSig(Exception):
    pass


class ContSig(Exception):
    pass


UNDEF = object()
STEP_LIMIT = 400000


def to_f32(x):
    return float(np.float32(x))


def exact_check(r, exact, t):
    if r != r or r in (math.inf, -math.inf):
        raise Invalid("non-finite result of finite operands")
    if Fraction(r) != exact:
        raise Invalid("inexact float operation")
    if t is FLOAT and to_f32(r) != r:
        raise Invalid("inexact float operation (float)")


def convert(v, src, dst):
    if dst.kind == "i":
        if src.kind == "f":
            if v != v or v in (math.inf, -math.inf):
                raise Invalid("non-finite float to int")
            tv = math.trunc(v)
            if not dst.fits(tv):
                raise Invalid("float to int out of range")
            return tv
        return dst.wrap(v)
    # to float
    if src.kind == "i":
        v = float(v) if abs(v) < 2**53 else float(Fraction(v))
    if dst is FLOAT:
        with np.errstate(over="ignore"):
            return to_f32(v)
    return float(v)


def frac_bits(x):
    d = Fraction(x).denominator
    return d.bit_length() - 1


class Interp:
    def __init__(self, fn, args):
        self.fn = fn
        self.env = fn["env"]
        self.dirs = fn["directives"]
        self.bc = self.dirs.get("boundscheck", True)
        self.wa = self.dirs.get("wraparound", True)
        self.cd = self.dirs.get("cdivision", False)
        self.vars = {}
        self.arrs = {}
        for p, a in zip(fn["params"], args):
            if p[1] == "arr":
                self.arrs[p[0]] = a
            else:
                self.vars[p[0]] = convert(a, T[p[2]] if isinstance(a, int) is False else T["long long"], T[p[2]]) \
                    if False else self._param(a, T[p[2]])
        for v in fn["ivars"]:
            self.vars[v] = UNDEF
        for name, ctn, init in fn["locals"]:
            self.vars[name] = convert(init, T[ctn], T[ctn])
        for name, ctn, init in fn["globals"]:
            self.vars[name] = convert(init, T[ctn], T[ctn])
        self.acc = None          # (iteration, addr map) inside a prange
        self.red = None          # reduction terms inside a prange
        self.steps = 0
        self.exc_in_prange = False
        self.snap = None         # operand copies inside a slice assignment

    def _param(self, a, t):
        if t.kind == "i":
            if not isinstance(a, int) or not t.fits(a):
                raise PyExc("OverflowError", "param")
            return a
        return convert(float(a), DOUBLE, t)

    # ---------------------------------------------------------- memory
    def addr(self, arr, idx):
        a = self.arrs[arr]
        base = a.__array_interface__["data"][0]
        return base + sum(i * s for i, s in zip(idx, a.strides))

    def touch(self, arr, idx, write):
        if self.acc is None:
            return
        it, amap = self.acc
        ad = self.addr(arr, idx)
        ent = amap.get(ad)
        if ent is None:
            ent = amap[ad] = (set(), set())
        (ent[1] if write else ent[0]).add(it)

    def norm_index(self, arr, idxv, idxt):
        a = self.arrs[arr]
        out = []
        for ax, (v, t) in enumerate(zip(idxv, idxt)):
            n = a.shape[ax]
            if self.wa and t.signed and v < 0:
                v += n
            if not 0 <= v < n:
                if self.bc:
                    raise PyExc("IndexError", "Out of bounds on buffer access (axis %d)" % ax)
                raise Invalid("out of bounds with boundscheck off")
            out.append(v)
        return tuple(out)

    def element(self, e):
        arr = e[1]
        vals = [self.ev(i) for i in e[2]]
        types = [typeof(i, self.env) for i in e[2]]
        for t in types:
            if t.kind != "i":
                raise Invalid("float index")
        return arr, self.norm_index(arr, vals, types)

    def load(self, arr, idx):
        self.touch(arr, idx, False)
        v = self.arrs[arr][idx]
        return v.item()

    def store(self, arr, idx, v, vt):
        t = self.env("@" + arr)
        cv = convert(v, vt, t)
        self.touch(arr, idx, True)
        if not self.arrs[arr].flags.writeable:
            raise Invalid("read-only")
        self.arrs[arr][idx] = cv

    # ---------------------------------------------------------- expressions
    def ev(self, e):
        self.steps += 1
        if self.steps > STEP_LIMIT:
            raise Invalid("too many steps")
        k = e[0]
        if k == "const":
            t = T[e[2]]
            return convert(e[1], t, t) if t.kind == "i" else (to_f32(e[1]) if t is FLOAT else float(e[1]))
        if k == "var":
            v = self.vars.get(e[1], UNDEF)
            if v is UNDEF:
                raise Invalid("read of undefined " + e[1])
            if self.red is not None and e[1] in self.red:
                raise Invalid("reduction variable read in body")
            return v
        if k == "idx":
            arr, idx = self.element(e)
            return self.load(arr, idx)
        if k == "shape":
            return self.arrs[e[1]].shape[e[2]]
        if k == "cidx":
            arrv, i = self.carr_slot(e)
            v = arrv[i]
            if v is UNDEF:
                raise Invalid("read of an unassigned C array element")
            return v
        if k == "pidx":
            arr, idx = self.ptr_elem(e)
            return self.load(arr, idx)
        if k == "cast":
            return convert(self.ev(e[2]), typeof(e[2], self.env), T[e[1]])
        if k == "cond":
            c = self.ev(e[1])
            rt = typeof(e, self.env)
            sub = e[2] if c else e[3]
            return convert(self.ev(sub), typeof(sub, self.env), rt)
        if k == "un":
            return self.unop(e)
        if k == "bin":
            return self.binop(e)
        if k == "call":
            return self.call(e)
        if k == "hcall":
            return self.hcall(e)
        if k == "sum":
            return self.do_sum(e)
        raise Invalid("unknown expression " + k)

    def carr_slot(self, e):
        arrv = self.vars.get(e[1], UNDEF)
        if arrv is UNDEF:
            raise Invalid("C array used before its assignment")
        i = self.ev(e[2])
        if not 0 <= i < len(arrv):
            raise Invalid("C array index out of range")
        return arrv, i

    def ptr_elem(self, e):
        """p[j]: the element j further along the (contiguous) last axis of
        the element p points to; leaving the row is left out."""
        pv = self.vars.get(e[1], UNDEF)
        if pv is UNDEF:
            raise Invalid("pointer used before its assignment")
        arr, idx = pv
        j = self.ev(e[2]) + idx[-1]
        if not 0 <= j < self.arrs[arr].shape[-1]:
            raise Invalid("pointer index leaves the row")
        if self.arrs[arr].strides[-1] != self.arrs[arr].itemsize:
            raise Invalid("pointer into a non-contiguous axis")
        return arr, idx[:-1] + (j,)

    def unop(self, e):
        op = e[1]
        v = self.ev(e[2])
        st = typeof(e[2], self.env)
        if op == "not":
            return int(not v)
        rt = promote(st)
        v = convert(v, st, rt)
        if op == "-":
            if rt.kind == "f":
                return -v
            r = -v
            if rt.signed and not rt.fits(r) and _is_const(e[2]):
                # Cython folds constants with Python's ints
                raise Invalid("signed overflow (neg) of a constant")
            # signed overflow wraps: Cython's modules build with CPython's
            # -fwrapv, cyocl natively too and in kernels by unsigned arithmetic
            return rt.wrap(r)
        if op == "~":
            return rt.wrap(~v)
        raise Invalid(op)

    def cmp(self, op, a, b):
        return {"<": a < b, "<=": a <= b, "==": a == b, "!=": a != b, ">": a > b, ">=": a >= b}[op]

    def binop(self, e):
        op = e[1]
        if op in ("and", "or"):
            a = self.ev(e[2])
            if op == "and":
                return int(bool(a) and bool(self.ev(e[3])))
            return int(bool(a) or bool(self.ev(e[3])))
        ta, tb = typeof(e[2], self.env), typeof(e[3], self.env)
        a, b = self.ev(e[2]), self.ev(e[3])
        if op in ("/", "//", "%") and b == 0 and _is_const(e[3]):
            # Cython leaves out the zero check for a constant divisor (SIGFPE)
            raise Invalid("division by a constant zero")
        if op in CMP:
            ct = arith(ta, tb)
            return int(self.cmp(op, convert(a, ta, ct), convert(b, tb, ct)))
        rt = typeof(e, self.env)
        if op in ("<<", ">>"):
            a = convert(a, ta, rt)
            if tb.kind != "i" or not 0 <= b < rt.bits:
                raise Invalid("shift count")
            if op == ">>":
                return a >> b
            if rt.signed:
                if a < 0 or not rt.fits(a << b):
                    raise Invalid("signed shift overflow")
                return a << b
            return rt.wrap(a << b)
        if op == "/" and ta.kind == "i" and tb.kind == "i":
            if b == 0:
                if self.cd:
                    raise Invalid("division by zero (cdivision)")
                raise PyExc("ZeroDivisionError", "float division")
            fa, fb = convert(a, ta, DOUBLE), convert(b, tb, DOUBLE)
            r = fa / fb
            exact_check(r, Fraction(fa) / Fraction(fb), DOUBLE)
            return r
        a, b = convert(a, ta, rt), convert(b, tb, rt)
        if rt.kind == "f":
            return self.fbin(op, a, b, rt)
        if op in "+-*":
            r = a + b if op == "+" else a - b if op == "-" else a * b
            if rt.signed and not rt.fits(r) and _is_const(e[2]) and _is_const(e[3]):
                raise Invalid("signed overflow of constants")
            return rt.wrap(r)   # -fwrapv, as above
        if op in ("&", "|", "^"):
            r = a & b if op == "&" else a | b if op == "|" else a ^ b
            return rt.wrap(r)
        if op in ("//", "%"):
            if b == 0:
                if self.cd:
                    raise Invalid("division by zero (cdivision)")
                raise PyExc("ZeroDivisionError", "integer division or modulo by zero")
            if rt.signed and a == rt.min and b == -1:
                if self.cd or op == "%":
                    raise Invalid("MIN / -1")
                raise PyExc("OverflowError", "value too large to perform division")
            if self.cd:
                q = abs(a) // abs(b)
                if (a < 0) != (b < 0):
                    q = -q
                return q if op == "//" else a - q * b
            return a // b if op == "//" else a % b
        raise Invalid("op " + op)

    def fbin(self, op, a, b, rt):
        finite = all(x == x and x not in (math.inf, -math.inf) for x in (a, b))
        if op in ("+", "-", "*"):
            if not finite:
                with np.errstate(all="ignore"):
                    fa, fb = (np.float32(a), np.float32(b)) if rt is FLOAT else (np.float64(a), np.float64(b))
                    r = fa + fb if op == "+" else fa - fb if op == "-" else fa * fb
                return float(r)
            fa, fb = Fraction(a), Fraction(b)
            ex = fa + fb if op == "+" else fa - fb if op == "-" else fa * fb
            r = float(ex) if abs(ex) < 1e300 else math.inf
            exact_check(r, ex, rt)
            return r
        if op == "/":
            if not finite:
                raise Invalid("non-finite division")
            if b == 0:
                if self.cd:
                    raise Invalid("float division by zero (cdivision)")
                raise PyExc("ZeroDivisionError", "float division")
            ex = Fraction(a) / Fraction(b)
            r = float(ex)
            exact_check(r, ex, rt)
            return r
        if op in ("//", "%"):
            if not finite or a != math.floor(a) or b != math.floor(b):
                raise Invalid("float // or % of non-integers")
            if b == 0:
                if self.cd:
                    raise Invalid("float // by zero (cdivision)")
                raise PyExc("ZeroDivisionError", "float division" if op == "//" else "float divmod()")
            if self.cd:
                raise Invalid("float // % under cdivision")
            return float(a // b) if op == "//" else float(a % b)
        raise Invalid("float op " + op)

    def call(self, e):
        fn, args = e[1], e[2]
        if fn in ("min", "max"):
            rt = typeof(e, self.env)
            best, bt = self.ev(args[0]), typeof(args[0], self.env)
            for a in args[1:]:
                v, t = self.ev(a), typeof(a, self.env)
                ct = arith(bt, t)
                x, y = convert(v, t, ct), convert(best, bt, ct)
                if (x < y) if fn == "min" else (x > y):
                    best, bt = v, t
            return convert(best, bt, rt)
        if fn == "abs":
            t = typeof(args[0], self.env)
            v = self.ev(args[0])
            if t.kind == "i" and t.signed and v == t.min:
                raise Invalid("abs of the most negative integer")
            return abs(v)
        vals = [convert(self.ev(a), typeof(a, self.env), DOUBLE) for a in args]
        if fn == "fabs":
            return abs(vals[0])
        if fn in ("floor", "ceil"):
            v = vals[0]
            if v != v or v in (math.inf, -math.inf):
                return v
            return float(math.floor(v) if fn == "floor" else math.ceil(v))
        if fn == "sqrt":
            v = vals[0]
            if not v >= 0 or v == math.inf:
                raise Invalid("sqrt domain")
            r = math.sqrt(v)
            if Fraction(r) * Fraction(r) != Fraction(v):
                raise Invalid("inexact sqrt")
            return r
        if fn in ("fmin", "fmax"):
            a, b = vals
            if a != a:
                return b
            if b != b:
                return a
            if a == b == 0:
                raise Invalid("fmin/fmax of signed zeros")
            return min(a, b) if fn == "fmin" else max(a, b)
        raise Invalid("call " + fn)

    def hcall(self, e):
        """Arguments left to right (Cython's temporaries), each converted to
        its parameter's type; the body under the module's default directives."""
        h = self.fn["helpers"][e[1]]
        # a fused helper runs at the specialisation its arguments select
        spec = typeof(e[2][0], self.env) if h["ret"] in FUSED else None
        ty = lambda ctn: spec if ctn in FUSED else T[ctn]
        vals = {}
        for (p, ctn), a in zip(h["params"], e[2]):
            vals[p] = convert(self.ev(a), typeof(a, self.env), ty(ctn))
        henv = {p: ty(ctn) for p, ctn in h["params"]}
        saved = (self.vars, self.env, self.cd, self.red)
        self.vars, self.env, self.cd, self.red = vals, henv.__getitem__, False, None
        try:
            v = self.ev(h["body"])
            bt = typeof(h["body"], self.env)
        finally:
            self.vars, self.env, self.cd, self.red = saved
        return convert(v, bt, ty(h["ret"]))

    # ---------------------------------------------------------- sums (extension)
    def sref_elems(self, sref):
        """Extents of a sref's slice items."""
        arr, sl = sref[1], sref[2]
        a = self.arrs[arr]
        ext = []
        for ax, it in enumerate(sl):
            if it[0] == "at":
                continue
            lo, hi = it
            n = max(0, min(a.shape[ax], lo + 1) - lo) if hi is None else a.shape[ax] - lo + hi
            if n < 0:
                raise Invalid("negative slice extent")
            ext.append(n)
        return ext

    def sref_at(self, sref):
        """The integer index items of a sref, normalised; cyocl evaluates and
        checks them once, before the loops (also for an empty target), where
        the Cython rendering checks them per element: out of range is left out."""
        arr = sref[1]
        n = self.arrs[arr].shape
        out = []
        for ax, it in enumerate(sref[2]):
            if it[0] != "at":
                out.append(None)
                continue
            v, t = self.ev(it[1]), typeof(it[1], self.env)
            if t.kind != "i":
                raise Invalid("float index")
            if self.wa and t.signed and v < 0:
                v += n[ax]
            if not 0 <= v < n[ax]:
                raise Invalid("slice index item out of range")
            out.append(v)
        return out

    def s_ev(self, e, pos):
        k = e[0]
        if k == "sref":
            arr, sl = e[1], e[2]
            ats = self.sref_at(e)
            nsl = sum(1 for a in ats if a is None)
            off = len(pos) - nsl
            # an axis of extent 1 stretches over the target's (numpy)
            ee = self.sref_elems(e)
            idx = []
            j = 0
            for a, it in enumerate(sl):
                if ats[a] is not None:
                    idx.append(ats[a])
                    continue
                idx.append((0 if ee[j] == 1 else pos[off + j]) + it[0])
                j += 1
            idx = tuple(idx)
            if self.snap is not None:
                # a slice assignment reads its operands as if copied first
                self.touch(arr, idx, False)
                return self.snap[arr][idx].item()
            return self.load(arr, idx)
        if k in ("bin", "un", "call", "cast", "cond"):
            # evaluate with sref leaves replaced by their values
            sub = self.subst(e, pos)
            return self.ev(sub)
        return self.ev(e)

    def subst(self, e, pos):
        if not isinstance(e, tuple) or not e:
            return e
        if e[0] == "sref":
            t = self.env("@" + e[1])
            v = self.s_ev(e, pos)
            return ("const", v, t.name)
        if e[0] == "call":
            return ("call", e[1], tuple(self.subst(a, pos) for a in e[2]))
        return tuple(self.subst(c, pos) if isinstance(c, tuple) else c for c in e)

    def shape_of(self, e):
        ref = _first_sref(e)
        return self.sref_elems(ref)

    def positions(self, ext):
        if not ext:
            yield ()
            return
        for p0 in range(ext[0]):
            for rest in self.positions(ext[1:]):
                yield (p0,) + rest

    def do_sum(self, e):
        t = typeof(e[1], self.env)
        rt = typeof(e, self.env)
        ext = self.shape_of(e[1])
        # the Cython rendering loops over the first operand's extents: it
        # must be the broadcast shape
        self.check_operands(e[1], ext)
        terms = []
        # a prange over the first axis, as in sassign: which row's exception
        # the sum raises is unspecified
        excs, failed = [], set()
        for pos in self.positions(ext):
            row = pos[0] if pos else 0
            if row in failed:
                continue
            try:
                terms.append(convert(self.s_ev(e[1], pos), t, rt))
            except PyExc as ex:
                excs.append((ex.typ, ex.msg))
                failed.add(row)
        if excs:
            if len(set(excs)) > 1:
                raise Invalid("several different exceptions in one sum()")
            self.exc_in_prange = True
            raise PyExc(*excs[0])
        check_reduction("+", 0, terms, rt)
        if rt.kind == "f":
            return float(sum(Fraction(x) for x in terms)) if all(_finite(x) for x in terms) else float(np.sum(terms))
        return rt.wrap(sum(terms)) if not rt.signed else sum(terms)

    def check_operands(self, e, ext):
        """Every slice operand must have the target's extents or 1 (numpy's
        broadcasting; trailing axes for fewer dimensions). Extents that do not
        match are cyocl's ValueError, which the tester leaves out. Operands
        that overlap the target are fine: they are read as if copied."""
        for ref in _all_srefs(e):
            ee = self.sref_elems(ref)
            te = ext[len(ext) - len(ee):]
            if len(te) != len(ee) or any(a != b and a != 1 for a, b in zip(ee, te)):
                raise Invalid("operand shape mismatch")

    # ---------------------------------------------------------- statements
    def run(self):
        self.block(self.fn["body"])
        out = []
        for r in self.fn["ret"]:
            v = self.vars.get(r, UNDEF)
            if v is UNDEF:
                raise Invalid("return of undefined " + r)
            out.append(v)
        return tuple(out)

    def block(self, stmts):
        for s in stmts:
            self.stmt(s)

    def assign_var(self, name, v, vt):
        t = self.env(name)
        self.vars[name] = convert(v, vt, t)

    def stmt(self, s):
        self.steps += 1
        k = s[0]
        if k == "assign":
            _, tgt, op, e = s
            if op == "=":
                v, vt = self.ev(e), typeof(e, self.env)
            else:
                bop = op[:-1]
                if tgt[0] == "var" and self.red is not None and tgt[1] in self.red:
                    # reduction: record the term, apply serially
                    term, tt = self.ev(e), typeof(e, self.env)
                    self.red[tgt[1]][1].append((term, tt))
                    cur = self.vars[tgt[1]]
                    v = self.binop(("bin", bop, ("const", cur, self.env(tgt[1]).name), ("const", term, tt.name)))
                    vt = typeof(("bin", bop, ("var", tgt[1]), e), self.env)
                    self.assign_var(tgt[1], v, vt)
                    return
                v = self.binop(("bin", bop, tgt, e))
                vt = typeof(("bin", bop, tgt, e), self.env)
            if tgt[0] == "var":
                self.assign_var(tgt[1], v, vt)
            elif tgt[0] == "cidx":
                arrv, i = self.carr_slot(tgt)
                arrv[i] = convert(v, vt, self.env("[]" + tgt[1]))
            elif tgt[0] == "pidx":
                arr, idx = self.ptr_elem(tgt)
                self.store(arr, idx, v, vt)
            else:
                arr, idx = self.element(tgt)
                self.store(arr, idx, v, vt)
        elif k == "if":
            if self.ev(s[1]):
                self.block(s[2])
            else:
                self.block(s[3])
        elif k == "break":
            raise BreakSig()
        elif k == "continue":
            raise ContSig()
        elif k == "for":
            if s[5] and self.acc is None:
                self.prange(s)
            else:
                self.serial_for(s)
        elif k == "while":
            self.while_loop(s)
        elif k == "sassign":
            self.sassign(s)
        elif k == "carr":
            # the list is evaluated before any element is stored
            t = self.env("[]" + s[1])
            vals = [convert(self.ev(x), typeof(x, self.env), t) for x in s[2]]
            self.vars[s[1]] = vals
        elif k == "paddr":
            self.vars[s[1]] = self.element(s[2])
        elif k == "padv":
            pv = self.vars.get(s[1], UNDEF)
            if pv is UNDEF:
                raise Invalid("pointer used before its assignment")
            arr, idx = pv
            j = idx[-1] + s[2]
            if not 0 <= j <= self.arrs[arr].shape[-1]:
                raise Invalid("pointer arithmetic out of the row")
            self.vars[s[1]] = (arr, idx[:-1] + (j,))
        elif k == "nogil":
            self.block(s[1])
        elif k == "try":
            try:
                self.block(s[1])
            except PyExc as ex:
                want = tuple(getattr(builtins, x.strip()) for x in s[2].strip("()").split(","))
                if not issubclass(getattr(builtins, ex.typ), want):
                    raise
                self.block(s[3])
        else:
            raise Invalid("stmt " + k)

    def while_loop(self, s):
        _, var, start, stop, step, cond, _, body = s
        self.vars[var] = self.ev(start)
        while True:
            self.steps += 1
            v, sv = self.vars[var], self.ev(stop)
            if not (v < sv if step > 0 else v > sv):
                break
            if cond is not None and not self.ev(cond):
                break
            try:
                self.block(body)
            except BreakSig:
                break
            self.vars[var] = v + step

    def loop_values(self, s):
        _, var, start, stop, step = s[:5]
        a, b = self.ev(start), self.ev(stop)
        return range(a, b, step)

    def serial_for(self, s):
        var, body = s[1], s[7]
        for v in self.loop_values(s):
            self.vars[var] = v
            try:
                self.block(body)
            except BreakSig:
                break
            except ContSig:
                continue

    def prange(self, s):
        var, body = s[1], s[7]
        rng = self.loop_values(s)
        reds, privs = classify(body)
        saved_red = self.red
        self.red = {}
        for r, op in reds.items():
            self.red[r] = (op, [])
        amap = {}
        excs = []
        last = None
        for it, v in enumerate(rng):
            for p in privs:
                self.vars[p] = UNDEF
            self.vars[var] = v
            self.acc = (it, amap)
            try:
                self.block(body)
            except BreakSig:
                raise Invalid("break taken in prange")
            except ContSig:
                pass
            except PyExc as ex:
                excs.append((ex.typ, ex.msg))
            last = {p: self.vars[p] for p in privs}
        self.acc = None
        red, self.red = self.red, saved_red
        # a race makes the outcome undefined, exception or not (an iteration
        # that raised may still have read what another one wrote)
        for ad, (rd, wr) in amap.items():
            if len(wr) > 1 or (wr and rd - wr):
                raise Invalid("race between prange iterations")
        if excs:
            if len(set(excs)) > 1:
                raise Invalid("several different exceptions in one prange")
            self.exc_in_prange = True
            raise PyExc(*excs[0])
        if last is None:
            for p in privs:
                if p in self.saved_before:
                    pass
            return
        for p, v in last.items():
            self.vars[p] = v
        for r, (op, terms) in red.items():
            check_reduction(op, self.vars_init.get(r), terms, self.env(r))

    def sassign(self, s):
        _, tgt, op, e = s
        ext = self.sref_elems(tgt)
        for r in [tgt] + _all_srefs(e):
            self.sref_at(r)
        self.check_operands(e, ext)
        self.snap = {r[1]: self.arrs[r[1]].copy() for r in _all_srefs(e)}
        try:
            self._sassign(tgt, op, e, ext)
        finally:
            self.snap = None

    def _sassign(self, tgt, op, e, ext):
        top = self.acc is None
        amap = {}
        t = self.env("@" + tgt[1])
        # at the top level the statement is a prange over the first axis:
        # a row stops at its first exception, the others go on, and which
        # exception the statement raises is unspecified (as in a prange)
        excs, failed = [], set()
        for pos in self.positions(ext):
            row = pos[0] if pos else 0
            if top:
                if row in failed:
                    continue
                self.acc = (row, amap)
                try:
                    self.sassign_elem(tgt, op, e, t, pos)
                except PyExc as ex:
                    excs.append((ex.typ, ex.msg))
                    failed.add(row)
            else:
                self.sassign_elem(tgt, op, e, t, pos)
        if top:
            self.acc = None
            for ad, (rd, wr) in amap.items():
                if len(wr) > 1 or (wr and rd - wr):
                    raise Invalid("race in slice assignment")
            if excs:
                if len(set(excs)) > 1:
                    raise Invalid("several different exceptions in one slice assignment")
                self.exc_in_prange = True
                raise PyExc(*excs[0])

    def sassign_elem(self, tgt, op, e, t, pos):
        v = self.s_ev(e, pos)
        vt = typeof(self.subst(e, pos), self.env)
        ats = self.sref_at(tgt)
        idx, j = [], 0
        for a, it in enumerate(tgt[2]):
            if ats[a] is not None:
                idx.append(ats[a])
            else:
                idx.append(pos[j] + it[0])
                j += 1
        idx = tuple(idx)
        if op != "=":
            cur = self.load(tgt[1], idx)
            v = self.binop(("bin", op[:-1], ("const", cur, t.name), ("const", v, vt.name)))
            vt = arith(t, vt) if op[:-1] != "/" else typeof(("bin", "/", ("const", 0, t.name), ("const", 0, vt.name)), self.env)
        self.store(tgt[1], idx, v, vt)


def _is_const(e):
    while e[0] == "cast":
        e = e[2]
    return e[0] == "const"


def _finite(x):
    return x == x and x not in (math.inf, -math.inf)


def check_reduction(op, init, terms, accT):
    """The result of a reduction must not depend on the order."""
    if not terms:
        return
    vals = [v for v, _ in terms] if isinstance(terms[0], tuple) else list(terms)
    types = [t for _, t in terms] if isinstance(terms[0], tuple) else [accT] * len(vals)
    ct = accT
    for t in types:
        ct = arith(ct, t)
    if ct.kind == "f":
        if not all(_finite(v) for v in vals):
            if any(v != v for v in vals):
                return
            if op in "+-" and math.inf in vals and -math.inf in vals:
                return
            if op == "*" and 0 in vals:
                raise Invalid("0 * inf in a reduction")
            return
        mant = ct.mant if ct is not None else 53
        if accT is FLOAT:
            mant = 24
        if op in "+-":
            F = max(frac_bits(v) for v in vals)
            tot = sum(abs(Fraction(v)) for v in vals) + abs(Fraction(init or 0))
            if tot * 2**F >= 2**mant:
                raise Invalid("float reduction may round")
        elif op == "*":
            num = 1
            for v in vals + [init or 1]:
                fr = Fraction(v)
                n = abs(fr.numerator)
                while n and n % 2 == 0:
                    n //= 2
                num *= n
            if num >= 2**mant:
                raise Invalid("float product may round")
            p = abs(Fraction(init if init is not None else 1))
            for v in vals:
                p *= abs(Fraction(v))
            if p != 0 and (p > Fraction(2)**120 or p < Fraction(1, 2**120)):
                raise Invalid("float product range")
        else:
            raise Invalid("float reduction op " + op)
        return
    # integers: the arithmetic type; narrow accumulators wrap (defined)
    if not ct.signed:
        return
    if accT.bits < ct.bits and op in "+-*&|^":
        # computed in int (or wider) and converted back each step: modular
        if op in "+-":
            tot = sum(abs(v) for v in vals) + (1 << accT.bits)
            if tot > ct.max:
                raise Invalid("reduction may overflow the arithmetic type")
        elif op == "*":
            p = 1 << accT.bits
            for v in vals:
                p *= max(1, abs(v))
                if p > ct.max:
                    raise Invalid("product reduction may overflow")
        return
    if op in "+-":
        tot = sum(abs(v) for v in vals) + abs(init or 0)
        if tot > ct.max:
            raise Invalid("signed reduction may overflow")
    elif op == "*":
        p = max(1, abs(init if init is not None else 1))
        for v in vals:
            p *= max(1, abs(v))
            if p > ct.max:
                raise Invalid("signed product reduction may overflow")


def classify(body):
    """Cython's classification inside a prange body: in-place operator on a
    variable -> reduction; assignment (or inner loop variable) -> private."""
    reds, privs = {}, set()
    def walk(stmts):
        for s in stmts:
            if s[0] == "assign" and s[1][0] == "var":
                if s[2] == "=":
                    privs.add(s[1][1])
                else:
                    reds[s[1][1]] = s[2][:-1]
            elif s[0] in ("carr", "paddr", "padv"):
                privs.add(s[1])
            elif s[0] == "if":
                walk(s[2]); walk(s[3])
            elif s[0] in ("for", "while"):
                privs.add(s[1])
                walk(s[7])
    walk(body)
    for r in list(reds):
        if r in privs:
            del reds[r]
    return reds, privs


def _first_sref(e):
    refs = _all_srefs(e)
    best = None
    for r in refs:
        if best is None or _nslice(r) > _nslice(best):
            best = r
    return best


def _nslice(r):
    return sum(1 for it in r[2] if it[0] != "at")


def _all_srefs(e):
    out = []
    def walk(x):
        if isinstance(x, tuple) and x:
            if x[0] == "sref":
                out.append(x)
                return
            for c in x[1:]:
                if isinstance(c, tuple):
                    if c and isinstance(c[0], str):
                        walk(c)
                    else:
                        for cc in c:
                            walk(cc)
    walk(e)
    return out


def validate(fn, spec=None):
    """Run fn serially on its inputs. Returns (outcome, interp) where outcome
    is ('ret', values) or ('exc', type, msg); raises Invalid."""
    args, bases = make_inputs(spec or fn["inputs"])
    it = Interp(fn, args)
    it.saved_before = {}
    it.vars_init = {}
    # reduction initial values: the value before the prange (for bounds)
    it.vars_init = _InitView(it)
    try:
        vals = it.run()
        return ("ret", vals if fn["ret"] else None), it, bases
    except PyExc as ex:
        return ("exc", ex.typ, ex.msg), it, bases


class _InitView:
    def __init__(self, it):
        self.it = it

    def get(self, name):
        v = self.it.vars.get(name)
        return 0 if v is UNDEF or v is None else v
