"""Random generator of valid Cython functions in cyocl's subset (prog.py
trees) together with their inputs (inputs.py specs).  Generation is loose;
interp.validate() rejects the programs whose result the source does not
determine."""
import random
from ctypes_ import T, INT_TYPES, FLOAT_TYPES, DOUBLE, FLOAT, SSIZE, arith
from prog import typeof, make_env, CMP, first_sref, FUSED
from inputs import recipe

WEIGHTED_TYPES = (["double"] * 6 + ["float"] * 3 + ["int"] * 3 + ["long"] * 2 + ["int64_t"] * 2 +
                  ["int32_t"] * 2 + ["int8_t", "int16_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
                   "Py_ssize_t", "size_t", "short", "signed char", "unsigned char", "unsigned short",
                   "unsigned int", "unsigned long", "long long", "unsigned long long", "cnp.int64_t",
                   "cnp.uint64_t", "cnp.intp_t", "cnp.int32_t", "cnp.uint8_t"])
SCHEDULES = ("static", "dynamic", "guided")
ABS_INT = ("int", "long", "long long", "unsigned int", "unsigned long", "unsigned long long")


class G:
    def __init__(self, rng, features=None):
        self.r = rng
        self.ext = True if features is None else features.get("ext", True)
        self.par_block = False
        self.carrs = []    # fixed-size C arrays in scope: (name, CT, N)
        self.ptrs = []     # pointers in scope: (name, array tuple)

    # ------------------------------------------------------------ helpers
    def chance(self, p):
        return self.r.random() < p

    def pick(self, seq):
        return self.r.choice(seq)

    def new_local(self, ctn, init=0):
        name = "v%d" % len(self.fn["locals"])
        self.fn["locals"].append((name, ctn, init))
        self.types[name] = T[ctn]
        return name

    def env(self, name):
        return self.types[name]

    def coerce(self, e, t):
        """Cython assigns a C float to a C integer only through a cast."""
        if t.kind == "i" and typeof(e, self.env).kind == "f":
            return ("cast", t.name, e)
        return e

    # ------------------------------------------------------------ function
    def function(self, name, large=False):
        r = self.r
        D = r.choice((1, 1, 1, 2, 2, 3))
        if large:
            D = 1
        if D == 1:
            S = [r.choice((0, 1, 2, 3, 5, 8, 13, 17, 24, 31, 40))]
        elif D == 2:
            S = [r.randint(1, 9), r.randint(1, 9)]
            if not large and self.chance(0.3):
                m = r.choice((2, 3, 5, 8, 9, 13, 17, 24))
                S = [m, m]
        else:
            S = [r.randint(1, 5), r.randint(1, 5), r.randint(1, 5)]
        if large:
            S = [r.choice((17, 24, 37))]
        self.large = large
        fn = self.fn = {"name": name, "params": [], "directives": {}, "locals": [], "globals": [],
                        "ivars": [], "body": (), "ret": (), "shape": S, "large": large, "helpers": [],
                        "carrays": [], "pointers": []}
        self.types = {}
        self.carrs, self.ptrs = [], []
        self.D = D
        narr = r.choice((1, 2, 2, 3, 3, 4))
        self.arrays = []
        base_t = self.pick(WEIGHTED_TYPES)
        # square and floating point only: the matrix-product shape that the
        # planners block, often enough to also run at their block sizes
        fp_only = S[0] == S[-1] and D == 2 and self.chance(0.35)
        for k in range(narr):
            if fp_only:
                ctn = self.pick(("double", "double", "float"))
            else:
                ctn = base_t if self.chance(0.6) else self.pick(WEIGHTED_TYPES)
            nd = D if self.chance(0.85) else r.randint(1, D)
            contig = self.chance(0.2)
            pname = "a%d" % k
            fn["params"].append((pname, "arr", ctn, nd, contig))
            self.types["@" + pname] = T[ctn]
            self.arrays.append((pname, T[ctn], nd))
        # a fused def function: its floating-point views all of one fused
        # type, the specialisation chosen by the arrays' dtype at the call
        fts = {a[1].name for a in self.arrays if a[1].kind == "f"}
        if len(fts) == 1 and self.chance(0.2):
            fn["fused"] = self.pick(FUSED)
        self.scalars = []
        for k in range(r.choice((0, 0, 1, 1, 2))):
            ctn = self.pick(WEIGHTED_TYPES)
            pname = "s%d" % k
            fn["params"].append((pname, "scalar", ctn))
            self.types[pname] = T[ctn]
            self.scalars.append(pname)
        for d, p in (("boundscheck", 0.3), ("wraparound", 0.3), ("cdivision", 0.3)):
            if self.chance(p):
                fn["directives"][d] = (d != "cdivision") is False
        # shape variables n0.. of the first array with the most dimensions
        big = max(self.arrays, key=lambda a: a[2])
        body = []
        self.nvars = []
        for ax in range(big[2]):
            v = "n%d" % ax
            fn["ivars"].append(v)
            self.types[v] = SSIZE
            self.nvars.append(v)
            body.append(("assign", ("var", v), "=", ("shape", big[0], ax)))
        self.glob = None
        if self.chance(0.2):
            ctn = self.pick(("long", "double", "int", "long long", "uint32_t", "int64_t"))
            g = "g_%s" % name
            fn["globals"].append((g, ctn, self.const_val(T[ctn])))
            self.types[g] = T[ctn]
            self.glob = g
        self.rets = []
        self.loopvars = []   # (name, axis or None, lo, hi)
        self.in_while = False  # the innermost loop is a while: no continue in it
        self.ivar_count = 0
        nblocks = r.choice((1, 1, 2, 2, 3))
        if D == 2 and S[0] == S[1] and any(a[2] == 2 for a in self.arrays) and self.chance(0.7):
            # the shape of a matrix product, which the native planner blocks
            # where it can prove that exact (ir/plan.c): no raising indexing
            if self.chance(0.7):
                fn["directives"]["boundscheck"] = False
            body.append(self.product_nest())
            nblocks -= 1
        for _ in range(nblocks):
            if large and self.chance(0.7):
                body.append(self.single_trip_block())
            else:
                body.extend(self.block())
        fn["body"] = tuple(body)
        rets = list(dict.fromkeys(self.rets))
        if self.glob and self.glob not in rets:
            rets.append(self.glob)
        fn["ret"] = tuple(rets[:4])
        fn["env"] = make_env(fn)
        fn["aliasing"] = self.chance(0.8 if large else 0.4)
        # some arrays as numpy buffer arguments (`cnp.ndarray[T, ndim=N]`)
        fn["buf"] = tuple(p[0] for p in fn["params"] if p[1] == "arr" and self.chance(0.25))
        fn["seed"] = r.randrange(1 << 30)
        return fn

    def new_ivar(self):
        v = "i%d" % self.ivar_count
        self.ivar_count += 1
        self.fn["ivars"].append(v)
        self.types[v] = SSIZE
        return v

    def const_val(self, t):
        if t.kind == "f":
            return float(self.r.choice((0, 1, 2, -1, 3, 0.5, -2.5, 4, 0.25)))
        lo = max(t.min, -5)
        return self.r.randint(lo, min(t.max, 9))

    # ------------------------------------------------------------ blocks
    def block(self):
        r = self.r
        k = r.random()
        if k < 0.55:
            return [self.prange_block()]
        if k < 0.65:
            return [self.single_trip_block()]
        if k < 0.8 or not self.ext:
            return self.serial_block()
        return self.ext_block()

    def range_bounds(self, ax):
        """(start, stop, step, lo, hi) over axis ax's extent (concrete lo/hi of the var)."""
        r = self.r
        E = self.fn["shape"][ax] if ax < len(self.fn["shape"]) else 1
        nv = ("var", self.nvars[ax]) if ax < len(self.nvars) else ("const", 1, "Py_ssize_t")
        lo = r.choice((0, 0, 0, 1, 2))
        hi = r.choice((0, 0, 0, 1, 2))
        stop = nv if hi == 0 else ("bin", "-", nv, ("const", hi, "Py_ssize_t"))
        step = r.choice((1, 1, 1, 1, 2, 3, -1, -2))
        if step > 0:
            return ("const", lo, "Py_ssize_t"), stop, step, lo, E - hi - 1
        # reversed: range(stop-1, lo-1, step)
        start = ("bin", "-", stop, ("const", 1, "Py_ssize_t"))
        return start, ("const", lo - 1, "Py_ssize_t"), step, lo, E - hi - 1

    def popts(self):
        opts = []
        if self.chance(0.3):
            opts.append(("schedule", self.pick(SCHEDULES)))
            if self.chance(0.4):
                opts.append(("chunksize", self.r.choice((1, 2, 3, 16))))
        if self.chance(0.1):
            opts.append(("num_threads", self.r.choice((1, 2, 4))))
        return tuple(opts)

    def prange_block(self):
        v = self.new_ivar()
        start, stop, step, lo, hi = self.range_bounds(0)
        self.owner = (v, 0)
        self.loopvars.append((v, 0, lo, hi))
        self.in_par = True
        self.readable = set(self.scalars) | set(self.nvars)
        self.written = set()       # arrays written in this prange
        self.reductions = {}
        self.privates = set()
        # `with nogil, parallel(): for v in prange(...)`: the same loop, but
        # what the body assigns is private to the parallel block, with no
        # value after it (Cython): no lastprivate is returned
        self.par_block = self.chance(0.15)
        pro = self.prologue()
        body = pro + self.stmts(self.r.randint(1, 4), depth=0, top=True)
        self.carrs, self.ptrs = [], []
        self.loopvars.pop()
        self.in_par = False
        if self.chance(0.3) and not self.par_block:
            self.rets.append(v)
        for red in self.reductions:
            self.rets.append(red)
        self.owner = None
        opts = self.popts()
        if self.par_block:
            self.par_block = False
            return ("for", v, start, stop, step, "parallel",
                    tuple(o for o in opts if o[0] != "num_threads"), tuple(body))
        return ("for", v, start, stop, step, True, opts, tuple(body))

    def product_nest(self):
        """for i in prange: for j in range(c, n1 - h): pre; for k in range(c2,
        n1 - h2): accumulators op= e; post (writes at [i, j]).  The shape is
        square so i, j and k index either axis; reads of a written view, the
        same array passed twice and overlapping views test the planner's
        independence and aliasing checks."""
        r = self.r
        i, j, k = self.new_ivar(), self.new_ivar(), self.new_ivar()
        start, stop, step, lo, hi = self.range_bounds(0)
        E = self.fn["shape"][0]
        n1 = ("var", self.nvars[1])
        def rng(v):
            c0, c1 = r.choice((0, 0, 0, 1, 2)), r.choice((0, 0, 0, 1))
            st = n1 if c1 == 0 else ("bin", "-", n1, ("const", c1, "Py_ssize_t"))
            for ax in (0, 1):
                self.loopvars.append((v, ax, c0, E - c1 - 1))
            return ("const", c0, "Py_ssize_t"), st
        self.owner = (i, 0)
        self.loopvars.append((i, 0, lo, hi))
        self.in_par = True
        self.readable = set(self.scalars) | set(self.nvars)
        self.written, self.reductions, self.privates = set(), {}, set()
        two = [a for a in self.arrays if a[2] == 2]
        outs = [self.pick(two)]
        if len(two) > 1 and self.chance(0.2):
            outs.append(self.pick(two))
        if self.chance(0.5):
            self.written.update(o[0] for o in outs)   # reads of the output at own row only
        j0, j1 = rng(j)
        pre, accs = [], []
        for _ in range(r.choice((1, 1, 1, 2))):
            # mostly the output's type, as people write `cdef double s`: a
            # floating-point output then gives an all-float nest, the one
            # that also runs at the planner's block sizes
            ctn = outs[0][1].name if self.chance(0.8) else self.pick(WEIGHTED_TYPES)
            acc = self.new_local(ctn, self.const_val(T[ctn]))
            init = ("const", self.const_val(T[ctn]), ctn) if self.chance(0.6) else \
                self.coerce(self.expr(T[ctn], 1), T[ctn])
            pre.append(("assign", ("var", acc), "=", init))
            accs.append(acc)
        if self.chance(0.2):
            ctn = self.pick(WEIGHTED_TYPES)
            tmp = self.new_local(ctn, self.const_val(T[ctn]))
            pre.append(("assign", ("var", tmp), "=", self.coerce(self.expr(T[ctn], 1), T[ctn])))
            self.readable.add(tmp)
        k0, k1 = rng(k)
        kbody = []
        for acc in accs:
            t = self.types[acc]
            # `s += e` would make s a reduction of the prange (Cython): the
            # product nest is written s = s + e, as people write it
            op = self.pick(("+", "+", "-") + (("|", "^") if t.kind == "i" else ()))
            ins = [a for a in self.arrays if a not in outs and self.chance(0.9)] or self.arrays
            if self.chance(0.7):
                e = ("bin", "*", self.read(self.pick(ins)), self.read(self.pick(ins)))
            else:
                e = self.expr(t, 2)
            e = ("bin", op, ("var", acc), self.coerce(e, t) if op in "|^" else e)
            kbody.append(("assign", ("var", acc), "=", self.coerce(e, t)))
        for _ in range(2):
            self.loopvars.pop()
        kloop = ("for", k, k0, k1, 1, False, (), tuple(kbody))
        for acc in accs:
            self.readable.add(acc)
        post = []
        for o in outs:
            self.written.add(o[0])
            e = self.coerce(self.expr(o[1], 2) if self.chance(0.3) else
                            ("bin", "+", ("var", self.pick(accs)), self.expr(o[1], 1)) if self.chance(0.4) else
                            ("var", self.pick(accs)), o[1])
            op = "=" if self.chance(0.8) else "+="
            post.append(("assign", ("idx", o[0], (("var", i), ("var", j))), op, self.coerce(e, o[1])))
        for _ in range(2):
            self.loopvars.pop()
        self.loopvars.pop()
        jloop = ("for", j, j0, j1, 1, False, (), tuple(pre + [kloop] + post))
        # all floating point: no undefined behaviour at any size, so it may
        # also run at sizes the blocked code's full blocks need
        self.fn["square"] = True
        self.fn["product"] = all(a[1].kind == "f" for a in self.arrays) and \
            all(self.types[v].kind == "f" for v in accs)
        self.in_par = False
        self.owner = None
        return ("for", i, start, stop, step, True, self.popts(), (jloop,))

    def single_trip_block(self):
        """prange(1) around a serial loop: no race between iterations, so any
        aliasing is allowed; the serial loop keeps its order (the shift bug)."""
        v = self.new_ivar()
        self.in_par = True
        self.owner = None
        self.readable = set(self.scalars) | set(self.nvars)
        self.written, self.reductions, self.privates = set(), {}, set()
        self.loopvars.append((v, None, 0, 0))
        inner = self.loop_stmt(depth=1, axis=0, free=True)
        self.loopvars.pop()
        self.in_par = False
        return ("for", v, ("const", 0, "Py_ssize_t"), ("const", 1, "Py_ssize_t"), 1, True, (), (inner,))

    def serial_block(self):
        self.in_par = False
        self.owner = None
        self.readable = set(self.scalars) | set(self.nvars) | {l[0] for l in self.fn["locals"]}
        self.written, self.reductions, self.privates = set(), {}, set()
        out = self.prologue()
        for _ in range(self.r.randint(1, 2)):
            if self.chance(0.6):
                st = self.loop_stmt(depth=0, axis=0, free=True)
            else:
                ctn = self.pick(WEIGHTED_TYPES)
                loc = self.new_local(ctn, self.const_val(T[ctn]))
                st = ("assign", ("var", loc), "=", self.coerce(self.expr(T[ctn], 2), T[ctn]))
                self.rets.append(loc)
                self.readable.add(loc)
            if self.chance(0.2):
                st = self.try_stmt(st)
            out.append(st)
        self.carrs, self.ptrs = [], []
        if self.chance(0.15) and not any(x[0] in ("sassign", "try") or "'sum'" in repr(x) for x in out):
            # the same statements in `with nogil:` (no Python objects in them)
            return [("nogil", tuple(out))]
        return out

    def try_stmt(self, st):
        """try: st / except E: flag = k (with the GIL, serial code): what st
        wrote before it raised stays written, as in Python."""
        flag = self.new_local("int", 0)
        self.rets.append(flag)
        body = [st]
        if self.chance(0.5):
            # an integer division by an element, which may be zero
            ia = [a for a in self.arrays if a[1].kind == "i"]
            if ia:
                loc = self.new_local("long long", 0)
                self.rets.append(loc)
                e = ("bin", self.pick(("//", "%")), ("cast", "long long", self.read(self.pick(ia))),
                     ("cast", "long long", self.read(self.pick(ia))))
                body.insert(self.r.randint(0, 1), ("assign", ("var", loc), "=", e))
        exc = self.pick(("ZeroDivisionError", "ZeroDivisionError", "IndexError", "ArithmeticError",
                         "Exception", "(IndexError, ZeroDivisionError)"))
        return ("try", tuple(body), exc, (("assign", ("var", flag), "=", ("const", self.r.randint(1, 9), "int")),))

    def prologue(self):
        """At the top of a prange body or serial block: a fixed-size C array
        assigned as a whole (`t = [e0, e1, ...]`, private in a prange, as in
        Cython) and a pointer into a C-contiguous view (`p = &a[i, 0]`);
        the statements after it index both with loop variables."""
        out = []
        if self.chance(0.25):
            ctn = self.pick(WEIGHTED_TYPES)
            n = self.r.choice((2, 3, 4))
            name = "t%d" % len(self.fn["carrays"])
            self.fn["carrays"].append((name, ctn, n))
            self.types["[]" + name] = T[ctn]
            els = tuple(self.coerce(self.expr(T[ctn], 1), T[ctn]) for _ in range(n))
            out.append(("carr", name, els))
            self.carrs.append((name, T[ctn], n))
        contig = [a for a in self.arrays if [p for p in self.fn["params"] if p[0] == a[0]][0][4]]
        if contig and self.chance(0.3):
            a = self.pick(contig)
            name = "p%d" % len(self.fn["pointers"])
            self.fn["pointers"].append((name, a[1].name))
            self.types["*" + name] = a[1]
            idx = self.index(a, write=True)
            if a[2] > 1:
                idx[-1] = ("const", self.r.choice((0, 0, 1)), "Py_ssize_t")
            out.append(("paddr", name, ("idx", a[0], tuple(idx))))
            if self.chance(0.3):
                out.append(("padv", name, self.r.choice((1, -1))))
            self.ptrs.append((name, a))
        return out

    def cindex(self, n):
        """An index of a C array of n elements: a loop variable (never
        negative) modulo n, or a constant."""
        lvs = [lv[0] for lv in self.loopvars] + ([self.owner[0]] if self.in_par and self.owner else [])
        if lvs and self.chance(0.7):
            return ("bin", "%", ("var", self.pick(lvs)), ("const", n, "Py_ssize_t"))
        return ("const", self.r.randint(0, n - 1), "Py_ssize_t")

    def pindex(self, a):
        """An index through a pointer into a's last axis: a loop variable of
        that axis or a small constant (the validator rejects one that leaves
        the row)."""
        ax = a[2] - 1
        cands = [lv for lv in self.loopvars if lv[1] == ax]
        if cands and self.chance(0.7):
            return ("var", self.pick(cands)[0])
        return ("const", self.r.randint(0, 2), "Py_ssize_t")

    # ------------------------------------------------------------ statements
    def stmts(self, n, depth, top=False):
        out = []
        for _ in range(n):
            s = self.stmt(depth, top)
            if s is not None:
                out.append(s)
        return out

    def stmt(self, depth, top):
        r = self.r
        k = r.random()
        if k < 0.25:
            return self.private_assign(top)
        if self.ext and self.in_par and self.owner is not None and self.chance(0.18):
            return self.row_sassign() if self.chance(0.75) else self.row_sum()
        if self.ext and self.in_par and self.owner is None and not self.large and self.chance(0.12):
            st = self.ext_block(in_par=True)[0]
            if st[0] == "sassign":
                self.written.add(st[1][1])
            return st
        if self.carrs and self.chance(0.15):
            name, t, n = self.pick(self.carrs)
            return ("assign", ("cidx", name, self.cindex(n)), "=", self.coerce(self.expr(t, 2), t))
        if self.ptrs and self.chance(0.12):
            name, a = self.pick(self.ptrs)
            self.written.add(a[0])
            return ("assign", ("pidx", name, self.pindex(a)), "=", self.coerce(self.expr(a[1], 2), a[1]))
        if k < 0.5:
            return self.array_write()
        if k < 0.65 and self.in_par:
            return self.reduction()
        if k < 0.8 and depth < 2 and not (self.large and self.loopvars and self.loopvars[-1][1] is not None):
            axis = min(depth + 1, self.D - 1) if self.D > 1 else 0
            if self.chance(0.25):
                return self.while_stmt(depth + 1, axis)
            return self.loop_stmt(depth + 1, axis)
        if k < 0.9 and depth < 3:
            c = self.cond()
            a = self.stmts(r.randint(1, 2), depth + 1)
            b = self.stmts(r.randint(0, 1), depth + 1)
            return ("if", c, tuple(a), tuple(b))
        if k < 0.95 and (depth > 0 or self.in_par):
            c = self.cond()
            # a continue in a while loop would skip its counter's step
            kind = "continue" if self.chance(0.5) and not self.in_while else "break"
            return ("if", c, ((kind,),), ())
        return self.array_write()

    def private_assign(self, top):
        ctn = self.pick(WEIGHTED_TYPES)
        loc = self.new_local(ctn, self.const_val(T[ctn]))
        e = self.coerce(self.expr(T[ctn], 2), T[ctn])
        self.readable.add(loc)
        if self.in_par and top and self.owner is not None and not self.par_block:
            self.rets.append(loc)    # lastprivate
        elif not self.in_par:
            self.rets.append(loc)
        return ("assign", ("var", loc), "=", e)

    def reduction(self):
        r = self.r
        if self.glob and self.chance(0.3) and self.glob not in self.readable:
            acc = self.glob
        else:
            ctn = self.pick(WEIGHTED_TYPES)
            acc = self.new_local(ctn, self.const_val(T[ctn]))
        t = self.types[acc]
        if acc in self.reductions:
            op = self.reductions[acc]
        else:
            ops = ["+", "+", "-"] + ([] if self.large else ["*"]) + (["&", "|", "^"] if t.kind == "i" else [])
            op = self.pick(ops)
            self.reductions[acc] = op
        if op == "*":
            e = self.small_factor(t)
        else:
            e = self.coerce(self.expr(t, 2, kind=t.kind), t)
        self.readable.discard(acc)
        return ("assign", ("var", acc), op + "=", e)

    def small_factor(self, t):
        a = self.pick(self.arrays)
        e = self.read(a)
        if t.kind == "f":
            return ("cond", ("bin", ">", e, ("const", 0, a[1].name)), ("const", 2.0 if self.chance(0.3) else 1.0, "double"),
                    ("const", -1.0, "double"))
        return ("cond", ("bin", ">", e, ("const", 0, a[1].name)), ("const", 1, t.name), ("const", -1 if t.signed else 3, t.name))

    def while_stmt(self, depth, axis):
        """v = start; while v < stop [and cond]: body; v = v + step — a
        counted loop as people write it with while, sometimes ended early by
        a data-dependent condition (mandelbrot's escape test)."""
        v = self.new_ivar()
        start, stop, step, lo, hi = self.range_bounds(axis)
        self.loopvars.append((v, axis, lo, hi))
        saved, self.in_while = self.in_while, True
        body = self.stmts(self.r.randint(1, 3), depth)
        self.in_while = saved
        cond = self.cond() if self.chance(0.4) else None
        self.loopvars.pop()
        if not self.in_par:
            self.readable.add(v)
        return ("while", v, start, stop, step, cond, (), tuple(body))

    def loop_stmt(self, depth, axis, free=False):
        v = self.new_ivar()
        start, stop, step, lo, hi = self.range_bounds(axis)
        self.loopvars.append((v, axis, lo, hi))
        saved_owner = self.owner
        if free:
            self.owner = None
        saved_while, self.in_while = self.in_while, False
        body = self.stmts(self.r.randint(1, 3), depth)
        self.in_while = saved_while
        self.owner = saved_owner
        self.loopvars.pop()
        if not self.in_par:
            self.readable.add(v)
        return ("for", v, start, stop, step, False, (), tuple(body))

    def safe_index(self, ax):
        """An index of axis ax without array reads (a slice statement's index
        items are evaluated once by cyocl, per element by the Cython
        rendering: they must not read what the statement writes)."""
        for _ in range(4):
            e = self.index1(ax, False)
            if "'idx'" not in repr(e):
                return e
        E = self.fn["shape"][ax] if ax < len(self.fn["shape"]) else 1
        return ("const", self.r.randint(0, max(E - 1, 0)), "Py_ssize_t")

    def row_sum(self):
        """v = sum(a[i, :] * b[i, :]) in a prange body: a row's dot product
        (the loops are serial there)."""
        tgts = [a for a in self.arrays if a[2] >= 2]
        if not tgts:
            return self.private_assign(False)
        tgt = self.pick(tgts)
        S = self.fn["shape"]
        text = [S[ax] for ax in range(1, tgt[2])]
        first = ("sref", tgt[0], (("at", ("var", self.owner[0])),) + ((0, 0),) * (tgt[2] - 1))
        e = self.row_expr(tgt, text)
        e = ("bin", self.pick(("*", "+", "-")), first, e)
        ctn = "double" if typeof(e, self.env).kind == "f" else "long long"
        loc = self.new_local(ctn, 0)
        self.readable.add(loc)
        return ("assign", ("var", loc), "=", ("sum", e))

    def row_sassign(self):
        """A slice statement in a prange body (or parallel() block) over the
        iteration's own row: c[i, lo:hi] = a[i, :] * b[j, lo2:hi2] + s, with
        numpy's broadcasting of extent-1 axes and operands that may overlap
        the target (read as if copied first)."""
        r = self.r
        tgts = [a for a in self.arrays if a[2] >= 2]
        if not tgts:
            return self.array_write()
        tgt = self.pick(tgts)
        S = self.fn["shape"]
        items = [("at", ("var", self.owner[0]))]
        for ax in range(1, tgt[2]):
            items.append((r.choice((0, 0, 1)), r.choice((0, 0, -1))))
        if tgt[2] == 3 and self.chance(0.3):
            ax = r.choice((1, 2))
            items[ax] = ("at", self.safe_index(ax))
        text = [S[ax] - it[0] + it[1] for ax, it in enumerate(items) if it[0] != "at"]
        e = self.row_expr(tgt, text)
        self.written.add(tgt[0])
        op = "=" if self.chance(0.8) else self.pick(("+=", "-="))
        return ("sassign", ("sref", tgt[0], tuple(items)), op, self.coerce(e, tgt[1]))

    def row_expr(self, tgt, text):
        """The right side of a row statement whose target has the extents
        text (trailing axes)."""
        r = self.r
        S = self.fn["shape"]

        def operand():
            a = self.pick(self.arrays)
            k = a[2]
            m = r.randint(1, min(k, len(text)))
            sax = list(range(k - m, k)) if self.chance(0.6) else sorted(r.sample(range(k), m))
            osl = []
            j = 0
            for ax in range(k):
                if ax not in sax:
                    if ax == 0 and self.chance(0.7):
                        osl.append(("at", ("var", self.owner[0])))
                    else:
                        osl.append(("at", self.safe_index(ax)))
                    continue
                want = text[len(text) - m + j]
                j += 1
                span = S[ax] - want
                if span < 0 or self.chance(0.12):
                    # a[lo:lo+1]: stretches over the target's axis
                    osl.append((r.choice((0, 0, 1)), None))
                    continue
                nlo = r.randint(0, span)
                osl.append((nlo, -(span - nlo)))
            return ("sref", a[0], tuple(osl))

        def sexpr(d):
            if d == 0 or self.chance(0.3):
                if self.chance(0.7):
                    return operand()
                vs = sorted(self.readable) + [self.owner[0]]
                if self.chance(0.5):
                    return ("var", self.pick(vs))
                return ("const", self.const_val(tgt[1]), tgt[1].name)
            k = r.random()
            if k < 0.7:
                a, b = sexpr(d - 1), sexpr(d - 1)
                ops = ("+", "-", "*") if self.chance(0.85) else ("//", "%")
                op = self.pick(ops)
                if op in ("//", "%") and (self.fn["directives"].get("cdivision") or
                                          "f" in (typeof(a, self.env).kind, typeof(b, self.env).kind)):
                    op = "+"
                return ("bin", op, a, b)
            if k < 0.8:
                return ("un", "-", sexpr(d - 1))
            if k < 0.9:
                a, b = sexpr(d - 1), sexpr(d - 1)
                ta = typeof(a, self.env)
                if ta is not typeof(b, self.env):
                    b = ("cast", ta.name, b)
                return ("call", self.pick(("min", "max")), (a, b))
            return ("cast", tgt[1].name, sexpr(d - 1))
        e = sexpr(2)
        if not _has_sref(e):
            e = ("bin", "+", operand(), e)
        return e

    def array_write(self):
        a = self.pick(self.arrays)
        idx = self.index(a, write=True)
        op = "="
        if self.chance(0.15):
            op = self.pick(("+=", "-=", "*=")) if a[1].kind == "f" else self.pick(("+=", "-=", "&=", "|=", "^="))
        e = self.coerce(self.expr(a[1], 3), a[1])
        self.written.add(a[0])
        return ("assign", ("idx", a[0], tuple(idx)), op, e)

    # ------------------------------------------------------------ indices
    def index(self, a, write=False):
        out = []
        for ax in range(a[2]):
            out.append(self.index1(ax, write and ax == 0))
        return out

    def index1(self, ax, own):
        r = self.r
        E = self.fn["shape"][ax] if ax < len(self.fn["shape"]) else 1
        wa = self.fn["directives"].get("wraparound", True)
        nvar = ("var", self.nvars[ax]) if ax < len(self.nvars) else None
        if own and self.in_par and self.owner is not None:
            return ("var", self.owner[0])
        cands = [lv for lv in self.loopvars if lv[1] == ax]
        k = r.random()
        if cands and k < 0.7:
            v, _, lo, hi = cands[-1] if self.chance(0.7) else r.choice(cands)
            # v + c within range
            cmin, cmax = -lo, E - 1 - hi
            if wa and self.chance(0.2):
                cmin = -lo - E
            if cmin > cmax:
                return ("var", v)
            c = r.randint(max(cmin, -2), min(cmax, 2)) if max(cmin, -2) <= min(cmax, 2) else cmin
            if c == 0:
                return ("var", v)
            return ("bin", "+" if c > 0 else "-", ("var", v), ("const", abs(c), "Py_ssize_t"))
        if k < 0.85 and nvar is not None and self.loopvars:
            # non-affine: (expr) % n
            e = self.int_expr(2)
            return ("bin", "%", e, nvar)
        if E > 0:
            if wa and self.chance(0.3):
                return ("const", -r.randint(1, E), "Py_ssize_t")
            return ("const", r.randint(0, E - 1), "Py_ssize_t")
        return ("const", 0, "Py_ssize_t")

    def int_expr(self, depth):
        lvs = [("var", lv[0]) for lv in self.loopvars if lv[1] is not None or not self.in_par]
        if self.in_par and self.owner is not None:
            lvs.append(("var", self.owner[0]))
        leaves = lvs + [("const", self.r.randint(0, 7), "Py_ssize_t")]
        e = self.pick(leaves)
        for _ in range(self.r.randint(0, depth)):
            op = self.pick(("+", "*", "+", "-", "^"))
            e = ("bin", op, e, self.pick(leaves))
        if self.chance(0.15):
            ia = [a for a in self.arrays if a[1].kind == "i"]
            if ia:
                e = ("bin", "+", e, self.read(self.pick(ia)))
        return e

    # ------------------------------------------------------------ expressions
    def read(self, a):
        return ("idx", a[0], tuple(self.index(a, write=False) if not (self.in_par and self.owner is not None
                                                                      and a[0] in self.written)
                                   else self.index(a, write=True)))

    def leaf(self, t, kind):
        r = self.r
        k = r.random()
        if k < 0.55:
            if self.carrs and self.chance(0.2):
                name, _, n = self.pick(self.carrs)
                return ("cidx", name, self.cindex(n))
            if self.ptrs and self.chance(0.2):
                name, a = self.pick(self.ptrs)
                return ("pidx", name, self.pindex(a))
            cands = [a for a in self.arrays if kind is None or a[1].kind == kind] or self.arrays
            return self.read(self.pick(cands))
        if k < 0.75:
            vs = [v for v in self.readable if self.types[v].kind == kind or kind is None]
            vs += [lv[0] for lv in self.loopvars if kind in (None, "i")]
            if vs:
                return ("var", self.pick(sorted(vs)))
        ct = t if t.kind == (kind or t.kind) else (DOUBLE if kind == "f" else T["int"])
        return ("const", self.const_val(ct), ct.name)

    def expr(self, t, depth, kind=None):
        r = self.r
        if depth <= 0 or self.chance(0.3):
            return self.leaf(t, kind or (t.kind if self.chance(0.8) else None))
        k = r.random()
        want = kind or t.kind
        if k < 0.55:
            a = self.expr(t, depth - 1, kind)
            b = self.expr(t, depth - 1, kind)
            ta, tb = typeof(a, self.env), typeof(b, self.env)
            ct = arith(ta, tb)
            if ct.kind == "f":
                op = self.pick(("+", "-", "*", "+", "-", "/", "//", "%"))
                if op == "/":
                    b = ("const", self.pick((2.0, 4.0, 0.5, -2.0)), "double")
                if op in ("//", "%") and self.fn["directives"].get("cdivision"):
                    op = "+"
            else:
                op = self.pick(("+", "-", "*", "+", "-", "&", "|", "^", "//", "%", "<<", ">>", "/"))
                if op in ("<<", ">>"):
                    b = ("const", r.randint(0, 5), "int")
                if op == "/" and want == "i":
                    op = "//"
            return ("bin", op, a, b)
        if k < 0.65:
            a = self.expr(t, depth - 1, kind)
            ta = typeof(a, self.env)
            return ("un", "-" if ta.kind == "f" or self.chance(0.7) else "~", a)
        if k < 0.75:
            a = self.expr(t, depth - 1, kind)
            b = self.expr(t, depth - 1, kind)
            ta, tb = typeof(a, self.env), typeof(b, self.env)
            if ta is not tb and self.chance(0.8):
                b = ("cast", ta.name, b)
            return ("call", self.pick(("min", "max")), (a, b))
        if k < 0.78:
            # abs() of a C number: the argument's type
            a = self.expr(t, depth - 1, kind)
            ta = typeof(a, self.env)
            if ta.kind == "i" and not (ta.name in ABS_INT and a[0] in ("var", "idx")):
                # Cython: abs() without the GIL only of C's own integer types
                # (the type it gives an expression may be another typedef)
                a = ("cast", ("int" if ta.bits <= 32 else "long long") if ta.signed else
                     ("unsigned int" if ta.bits <= 32 else "unsigned long long"), a)
            return ("call", "abs", (a,))
        if k < 0.82:
            if want == "f":
                fn = self.pick(("fabs", "floor", "ceil", "sqrt", "fmin", "fmax"))
                if fn in ("fmin", "fmax"):
                    return ("call", fn, (self.expr(t, depth - 1, "f"), self.expr(t, depth - 1, "f")))
                if fn == "sqrt":
                    a = self.expr(t, depth - 1, "f")
                    return ("call", "sqrt", (("bin", "*", a, a),))
                return ("call", fn, (self.expr(t, depth - 1, "f"),))
            return ("cast", t.name, self.expr(DOUBLE, depth - 1, "f"))
        if k < 0.9:
            ct = self.pick(WEIGHTED_TYPES)
            return ("cast", ct, self.expr(T[ct], depth - 1, kind))
        if k < 0.95:
            return self.helper_call(t, depth, kind)
        return ("cond", self.cond(), self.expr(t, depth - 1, kind), self.expr(t, depth - 1, kind))

    # ------------------------------------------------------------ cdef helpers
    def helper_call(self, t, depth, kind):
        """A call of a module-level `cdef inline ... noexcept nogil` function:
        arguments converted to the parameter types, the result to the return
        type (both as C does), inside and outside prange bodies."""
        hs = self.fn["helpers"]
        if hs and self.chance(0.5):
            idx = self.r.randrange(len(hs))
        elif self.chance(0.25):
            idx = self.new_helper(None)
        else:
            rt = t if kind in (None, t.kind) else (DOUBLE if kind == "f" else T["int"])
            if self.chance(0.3):
                rt = T[self.pick(WEIGHTED_TYPES)]
            idx = self.new_helper(rt)
        args = []
        spec = self.pick(("float", "double"))
        for _, ptn in hs[idx]["params"]:
            if ptn in FUSED:
                # one specialisation per call: every fused argument cast to it
                a = self.expr(T[spec], depth - 1, "f" if self.chance(0.7) else None)
                args.append(("cast", spec, a))
                continue
            pt = T[ptn]
            a = self.expr(pt, depth - 1, pt.kind if self.chance(0.7) else None)
            args.append(self.coerce(a, pt))
        return ("hcall", idx, tuple(args))

    def new_helper(self, rt):
        """rt None: a fused helper (`real_t` or `cython.floating` parameters
        and result, sometimes a plain C parameter too), called with both
        float and double arguments."""
        fused = rt is None
        if fused:
            fname = self.pick(FUSED)
            params = tuple(("x%d" % k, fname if k == 0 or self.chance(0.7) else self.pick(WEIGHTED_TYPES))
                           for k in range(self.r.randint(1, 3)))
            rt = DOUBLE   # the body is generated for double, run at both
            henv = {p: (DOUBLE if c in FUSED else T[c]) for p, c in params}
        else:
            params = tuple(("x%d" % k, self.pick(WEIGHTED_TYPES)) for k in range(self.r.randint(1, 3)))
            henv = {p: T[c] for p, c in params}
        body = self.hexpr(rt, 2, henv)
        if rt.kind == "i" and typeof(body, henv.__getitem__).kind == "f":
            body = ("cast", rt.name, body)
        hs = self.fn["helpers"]
        hs.append({"params": params, "ret": fname if fused else rt.name, "body": body})
        self.types["()%d" % (len(hs) - 1)] = None if fused else rt
        return len(hs) - 1

    def hexpr(self, t, depth, henv):
        """A helper's body: its parameters and constants under operators that
        cannot raise (the function is noexcept)."""
        r = self.r
        env = henv.__getitem__
        if depth <= 0 or self.chance(0.25):
            vs = sorted(p for p in henv if henv[p].kind == t.kind or self.chance(0.3))
            if vs and self.chance(0.8):
                return ("var", self.pick(vs))
            return ("const", self.const_val(t), t.name)
        k = r.random()
        if k < 0.5:
            a, b = self.hexpr(t, depth - 1, henv), self.hexpr(t, depth - 1, henv)
            if arith(typeof(a, env), typeof(b, env)).kind == "f":
                op = self.pick(("+", "-", "*", "+", "-", "/"))
                if op == "/":
                    b = ("const", self.pick((2.0, 4.0, 0.5, -2.0)), "double")
            else:
                op = self.pick(("+", "-", "*", "&", "|", "^", "<<", ">>"))
                if op in ("<<", ">>"):
                    b = ("const", r.randint(0, 5), "int")
            return ("bin", op, a, b)
        if k < 0.6:
            a = self.hexpr(t, depth - 1, henv)
            return ("un", "-" if typeof(a, env).kind == "f" or self.chance(0.7) else "~", a)
        if k < 0.75:
            a, b = self.hexpr(t, depth - 1, henv), self.hexpr(t, depth - 1, henv)
            ta, tb = typeof(a, env), typeof(b, env)
            if ta is not tb and self.chance(0.8):
                b = ("cast", ta.name, b)
            return ("call", self.pick(("min", "max")), (a, b))
        if k < 0.85:
            ct = self.pick(WEIGHTED_TYPES)
            return ("cast", ct, self.hexpr(T[ct], depth - 1, henv))
        ca = self.hexpr(DOUBLE if self.chance(0.5) else T["int"], 1, henv)
        c = ("bin", self.pick(CMP), ca, self.hexpr(typeof(ca, env), 1, henv))
        return ("cond", c, self.hexpr(t, depth - 1, henv), self.hexpr(t, depth - 1, henv))

    def cond(self):
        a = self.expr(DOUBLE if self.chance(0.5) else T["int"], 1)
        b = self.expr(typeof(a, self.env), 1)
        c = ("bin", self.pick(CMP), a, b)
        if self.chance(0.2):
            c2 = ("bin", self.pick(CMP), self.expr(T["int"], 1), self.expr(T["int"], 1))
            c = ("bin", self.pick(("and", "or")), c, c2)
        if self.chance(0.1):
            c = ("un", "not", c)
        return c

    # ------------------------------------------------------------ extension
    def ext_block(self, in_par=False):
        """cyocl's element-wise slice expressions (compared against the loops
        they mean, rendered for Cython); in_par: a statement of a one-trip
        prange body (its loops serial, copies of overlapping operands taken
        with the GIL)."""
        self.in_par = in_par
        cands = self.arrays
        tgt = self.pick(cands)
        nd = tgt[2]
        sl = tuple((self.r.choice((0, 0, 1)), self.r.choice((0, 0, -1))) for _ in range(nd))
        def operand():
            same = [a for a in self.arrays if a[2] <= nd]
            a = self.pick(same)
            k = a[2]
            osl = []
            for ax in range(k):
                lo, hi = sl[nd - k + ax]
                if self.chance(0.12):
                    # a[lo:lo+1]: stretches over the target's axis
                    osl.append((self.r.choice((0, 0, 1)), None))
                    continue
                span = lo - hi
                nlo = self.r.randint(0, span)
                osl.append((nlo, -(span - nlo)))
            return ("sref", a[0], tuple(osl))
        def sexpr(d):
            if d == 0 or self.chance(0.3):
                if self.chance(0.7):
                    return operand()
                if self.scalars and self.chance(0.5):
                    return ("var", self.pick(self.scalars))
                return ("const", self.const_val(tgt[1]), tgt[1].name)
            k = self.r.random()
            if k < 0.7:
                ops = ("+", "-", "*") if self.chance(0.8) else (("//", "%", "&") if tgt[1].kind == "i" else ("//", "%"))
                a, b = sexpr(d - 1), sexpr(d - 1)
                op = self.pick(ops)
                if op == "&" and "f" in (typeof(a, self.env).kind, typeof(b, self.env).kind):
                    op = "+"
                return ("bin", op, a, b)
            if k < 0.8:
                return ("un", "-", sexpr(d - 1))
            if k < 0.9:
                return ("call", self.pick(("min", "max")), (sexpr(d - 1), ("cast", "double" if tgt[1].kind == "f" else tgt[1].name, sexpr(d - 1))))
            return ("cast", tgt[1].name, sexpr(d - 1))
        e = sexpr(2)
        if e[0] != "sref" and not _has_sref(e):
            e = ("bin", "+", operand(), e)
        if self.chance(0.25) and all(hi is not None for _, hi in first_sref(e)[2]):
            # (a sum loops over its first operand's extents, so that one
            # does not broadcast)
            ctn = "double" if typeof(e, self.env).kind == "f" else "long long"
            loc = self.new_local(ctn, 0)
            self.rets.append(loc)
            return [("assign", ("var", loc), "=", ("sum", e))]
        op = "=" if self.chance(0.8) else self.pick(("+=", "-="))
        return [("sassign", ("sref", tgt[0], sl), op, self.coerce(e, tgt[1]))]


def _has_sref(e):
    if isinstance(e, tuple) and e:
        if e[0] == "sref":
            return True
        return any(_has_sref(c) for c in e[1:] if isinstance(c, tuple))
    return False


# ---------------------------------------------------------------- inputs
def make_spec(fn, shape=None):
    """Inputs of fn: one base per array argument, or shared bases (aliasing)."""
    r = random.Random(fn["seed"])
    S = shape or fn["shape"]
    bases, args = [], []
    arr_params = [p for p in fn["params"] if p[1] == "arr"]
    recipes = {}
    groups = {}
    for p in fn["params"]:
        if p[1] != "arr":
            t = T[p[2]]
            if t.kind == "f":
                v = float(r.choice((0.0, 1.0, -1.0, 2.0, 0.5, 3.0, -4.0)))
            else:
                v = r.randint(max(t.min, -6), min(t.max, 9))
            args.append(("scalar", v))
            continue
        name, _, ctn, nd, contig = p
        ext = S[:nd]
        partner = None
        if fn.get("aliasing") and r.random() < 0.7:
            compat = [q for q in arr_params if q[0] in groups and q[2] == ctn and q[3] == nd
                      and q[4] == contig]
            if compat:
                partner = r.choice(compat)
        if partner is not None:
            bi = groups[partner[0]]
            prev = recipes[partner[0]]
            if r.random() < 0.5 or contig or partner[4]:
                steps_offs = prev if (r.random() < 0.6 or contig or partner[4]) else None
                if steps_offs is None or (contig and r.random() < 0.5):
                    steps_offs = [(1, r.randint(0, 2))] + [(1, 0)] * (nd - 1) if contig else prev
                elif r.random() < 0.5 and (contig or partner[4]):
                    steps_offs = [(1, prev[0][1] + r.choice((-1, 1)) if prev[0][1] > 0 else 1)] + list(prev[1:])
            else:
                steps_offs = [(r.choice((1, 1, -1, 2, -2)), r.randint(0, 2)) for _ in range(nd)]
            recipes[name] = steps_offs
            groups[name] = bi
        else:
            if contig:
                steps_offs = [(1, r.randint(0, 2))] + [(1, 0)] * (nd - 1)
            else:
                steps_offs = [(r.choice((1, 1, 1, -1, 2, -2, 3)), r.randint(0, 2)) for _ in range(nd)]
            recipes[name] = steps_offs
            bi = len(bases)
            groups[name] = bi
            t = T[ctn]
            if t.kind == "f":
                prof = r.choice((("float", -8, 8, 1), ("float", -8, 8, 1), ("float", -4, 4, 4), ("float", 0, 3, 1),
                                 ("fspecial", -5, 5)))
            else:
                lo = max(t.min, -8)
                prof = r.choice((("int", lo, 8), ("int", max(t.min, -100), min(t.max, 100)), ("int", 0, 3),
                                 ("edge", max(t.min, -4), min(t.max, 4))))
            order = "F" if (not contig and nd > 1 and r.random() < 0.2) else "C"
            bases.append([t.npname, None, order, prof, r.randrange(1 << 30), nd])
        args.append(("arr", groups[name], name))
    # base shapes: large enough for every recipe on them
    need = {}
    slices = {}
    for p in arr_params:
        name, nd = p[0], p[3]
        bi = groups[name]
        sl, nb = [], []
        for ax in range(nd):
            st, off = recipes[name][ax]
            s, n = recipe(S[ax], st, off)
            sl.append(s)
            nb.append(n)
        slices[name] = tuple(sl)
        cur = need.get(bi, [0] * nd)
        need[bi] = [max(a, b) for a, b in zip(cur, nb)]
    out_bases = []
    for bi, b in enumerate(bases):
        npn, _, order, prof, seed, nd = b
        shp = need[bi]
        # contiguous views need the base's trailing extents to be exact
        out_bases.append((npn, tuple(shp), order, prof, seed))
    out_args = []
    for a in args:
        if a[0] == "arr":
            out_args.append(("arr", a[1], slices[a[2]]))
        else:
            out_args.append(a)
    return {"bases": out_bases, "args": out_args}
