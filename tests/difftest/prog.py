"""Program model of the differential tester: expression/statement trees,
their static types, and rendering to Cython (with the cyocl slice-expression
extension expanded into loops for Cython, or kept for cyocl).

Expressions (tuples):
  ('const', value, ctname)  ('var', name)  ('idx', arr, (e, ...))
  ('bin', op, a, b)  ('un', op, a)  ('call', fn, (a, ...))  ('cast', ctname, e)
  ('cond', c, a, b)  ('shape', arr, k)  ('sum', sexpr)
  ('hcall', k, (a, ...)): fn['helpers'][k], a module-level cdef inline noexcept
  nogil function {'params': ((name, ctname), ...), 'ret': ctname, 'body': e}
Slice expressions (cyocl extension): ('sref', arr, ((lo, hi), ...)) with
  lo >= 0, hi <= 0 (a[lo:len+hi]), or hi None (a[lo:lo+1], an axis of extent
  at most 1 that broadcasts as numpy's does), or ('at', e): an integer index
  that removes the axis (a[i, 1:], evaluated once before the loops); consts,
  vars, 'bin', 'un', 'call', 'cast'. Operands are read as if copied before the target is written
  (numpy's rule for overlapping operands).
Statements:
  ('assign', target, op, e)  target: ('var', n) | ('idx', arr, idxs); op '=', '+=', ...
  ('if', cond, (then...), (else...))
  ('for', var, start, stop, step, par, opts, (body...))   par: True for prange,
      'parallel' for `with nogil, parallel(): for var in prange(...)`
  ('while', var, start, stop, step, cond or None, (), (body...)): var = start;
      while var < stop (> for step < 0) [and cond]: body; var = var + step
  ('break',)  ('continue',)
  ('sassign', sref, op, sexpr)
  ('carr', name, (e, ...)): a fixed-size C array assigned whole (`t = [...]`);
      ('cidx', name, e) reads or assigns one element (C indexing)
  ('paddr', p, ('idx', arr, idxs)): p = &arr[...];  ('padv', p, k): p = p + k;
      ('pidx', p, e): p[e], read or assigned
  ('nogil', (body...)): `with nogil:`
  ('try', (body...), exc, (handler...)): try: body / except exc: handler
A function is a dict (see gen.py); a module is a list of functions.
"""
from ctypes_ import T, arith, promote, DOUBLE, FLOAT, INT, SSIZE

CMP = ("<", "<=", "==", "!=", ">", ">=")
FUSED = ("real_t", "cython.floating")   # fused types of cdef helpers (float, double)
MATH1 = ("fabs", "floor", "ceil", "sqrt")
MATH2 = ("fmin", "fmax")

_RANKNAME = {1: "unsigned char", 2: "unsigned short", 3: "unsigned int",
             4: "unsigned long", 5: "unsigned long long"}


def cy_widest(a, b):
    """Cython's widest_numeric_type (min/max, conditional expressions)."""
    if a.kind == "f" or b.kind == "f":
        return DOUBLE if (a is DOUBLE or b is DOUBLE or a.kind == "i" and b.kind == "i") else (
            a if a.kind == "f" else b)
    if a.rank != b.rank:
        return a if a.rank > b.rank else b
    if a.signed != b.signed:
        return a if not a.signed else b
    return a


def typeof(e, env):
    """env(name) -> CT for variables; arrays via env('@' + arr)."""
    k = e[0]
    if k == "const":
        return T[e[2]]
    if k == "var":
        return env(e[1])
    if k == "idx":
        return env("@" + e[1])
    if k == "sref":
        return env("@" + e[1])
    if k == "cidx":
        return env("[]" + e[1])
    if k == "pidx":
        return env("*" + e[1])
    if k == "shape":
        return SSIZE
    if k == "cast":
        return T[e[1]]
    if k == "sum":
        t = typeof(e[1], env)
        return DOUBLE if t.kind == "f" else T["long long"]
    if k == "bin":
        op = e[1]
        if op in CMP or op in ("and", "or"):
            return INT
        ta, tb = typeof(e[2], env), typeof(e[3], env)
        if op == "/":
            if ta.kind == "i" and tb.kind == "i":
                return DOUBLE
            return arith(ta, tb)
        if op in ("<<", ">>"):
            return promote(ta)
        return arith(ta, tb)
    if k == "un":
        if e[1] == "not":
            return INT
        return promote(typeof(e[2], env))
    if k == "call":
        fn = e[1]
        if fn in ("min", "max"):
            t = typeof(e[2][0], env)
            for a in e[2][1:]:
                t = cy_widest(t, typeof(a, env))
            return t
        if fn in MATH1 or fn in MATH2:
            return DOUBLE
        if fn == "abs":
            return typeof(e[2][0], env)
        raise ValueError(fn)
    if k == "cond":
        return cy_widest(typeof(e[2], env), typeof(e[3], env))
    if k == "hcall":
        t = env("()%d" % e[1])
        # a fused helper: the specialisation of its (cast) first argument
        return t if t is not None else typeof(e[2][0], env)
    raise ValueError(e)


# ---------------------------------------------------------------- rendering
def lit(v, ctname):
    t = T[ctname]
    if t.kind == "f":
        if v != v:
            s = "NAN"
        elif v in (float("inf"), float("-inf")):
            s = "INFINITY" if v > 0 else "(-INFINITY)"
        else:
            s = repr(float(v))
            if s.startswith("-"):
                s = "(%s)" % s
        return s if t is DOUBLE else "<float>%s" % s
    if ctname in ("int", "long", "Py_ssize_t") and -2**31 < v < 2**31:
        return str(v) if v >= 0 else "(%d)" % v
    return "<%s>%s" % (ctname, (str(v) if v >= 0 else "(%d)" % v))


def rexpr(e, ctx):
    k = e[0]
    if k == "const":
        return lit(e[1], e[2])
    if k == "var":
        return e[1]
    if k == "idx":
        return "%s[%s]" % (e[1], ", ".join(rexpr(i, ctx) for i in e[2]))
    if k == "shape":
        return "%s.shape[%d]" % (e[1], e[2])
    if k in ("cidx", "pidx"):
        return "%s[%s]" % (e[1], rexpr(e[2], ctx))
    if k == "bin":
        return "(%s %s %s)" % (rexpr(e[2], ctx), e[1], rexpr(e[3], ctx))
    if k == "un":
        return "(%s%s%s)" % (e[1], " " if e[1] == "not" else "", rexpr(e[2], ctx))
    if k == "call":
        return "%s(%s)" % (e[1], ", ".join(rexpr(a, ctx) for a in e[2]))
    if k == "cast":
        return "(<%s>%s)" % (e[1], rexpr(e[2], ctx))
    if k == "cond":
        return "(%s if %s else %s)" % (rexpr(e[2], ctx), rexpr(e[1], ctx), rexpr(e[3], ctx))
    if k == "hcall":
        return "%s(%s)" % (helper_name(ctx.fn, e[1]), ", ".join(rexpr(a, ctx) for a in e[2]))
    if k == "sum":
        if ctx.mode == "cyocl":
            return "sum(%s)" % rsexpr(e[1], ctx, None)
        return ctx.sum_temp(e)
    if k == "sref":
        if ctx.mode == "cyocl":
            return rsref(e, ctx)
        return rsexpr(e, ctx, ctx.cur_pos)
    raise ValueError(e)


def is_at(item):
    return item[0] == "at"


def slice_items(e):
    """(axis, (lo, hi)) of a sref's slice items (the axes it has as a view)."""
    return [(a, it) for a, it in enumerate(e[2]) if not is_at(it)]


def rsref(e, ctx=None):
    parts = []
    for it in e[2]:
        if is_at(it):
            parts.append(rexpr(it[1], ctx))
            continue
        lo, hi = it
        if hi is None:
            parts.append("%d:%d" % (lo, lo + 1))
        else:
            parts.append("%s:%s" % (lo if lo else "", hi if hi else ""))
    return "%s[%s]" % (e[1], ", ".join(parts))


def rsexpr(e, ctx, pos):
    """Slice expression: as written (pos None, cyocl) or at element position
    pos (tuple of loop variable names, Cython expansion)."""
    k = e[0]
    if k == "sref":
        if pos is None:
            return rsref(e, ctx)
        nd = len(slice_items(e))
        off = len(pos) - nd   # fewer dimensions: trailing axes
        arr = ctx.copies.get(e[1], e[1])
        idx = []
        k = 0
        for a, it in enumerate(e[2]):
            if is_at(it):
                idx.append(rexpr(it[1], ctx))
                continue
            lo, hi = it
            p = pos[off + k]
            k += 1
            if hi is None:
                idx.append(str(lo))
                continue
            # an operand axis of extent 1 stretches (numpy's broadcasting)
            ext = "%s.shape[%d]%s%s" % (arr, a, " - %d" % lo if lo else "", " - %d" % -hi if hi else "")
            p = "(%s if %s != 1 else 0)" % (p, ext)
            idx.append("%s + %d" % (p, lo) if lo else p)
        return "%s[%s]" % (arr, ", ".join(idx))
    if k == "bin":
        return "(%s %s %s)" % (rsexpr(e[2], ctx, pos), e[1], rsexpr(e[3], ctx, pos))
    if k == "un":
        return "(%s%s%s)" % (e[1], " " if e[1] == "not" else "", rsexpr(e[2], ctx, pos))
    if k == "call":
        return "%s(%s)" % (e[1], ", ".join(rsexpr(a, ctx, pos) for a in e[2]))
    if k == "cast":
        return "(<%s>%s)" % (e[1], rsexpr(e[2], ctx, pos))
    if k == "cond":
        return "(%s if %s else %s)" % (rsexpr(e[2], ctx, pos), rsexpr(e[1], ctx, pos),
                                     rsexpr(e[3], ctx, pos))
    return rexpr(e, ctx)


def sref_arrays(e):
    """Names of the arrays a slice expression reads, in order, once each."""
    out = []
    def walk(x):
        if isinstance(x, tuple) and x and isinstance(x[0], str):
            if x[0] == "sref":
                if x[1] not in out:
                    out.append(x[1])
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


def first_sref(e):
    if e[0] == "sref":
        return e
    best = None
    for c in e[1:]:
        if isinstance(c, tuple) and c and isinstance(c[0], str):
            r = first_sref(c)
            if r is not None and (best is None or len(slice_items(r)) > len(slice_items(best))):
                best = r
        elif isinstance(c, tuple):
            for cc in c:
                if isinstance(cc, tuple) and cc and isinstance(cc[0], str):
                    r = first_sref(cc)
                    if r is not None and (best is None or len(slice_items(r)) > len(slice_items(best))):
                        best = r
    return best


class RCtx:
    def __init__(self, mode, fn):
        self.mode = mode
        self.fn = fn
        self.lines = []
        self.ptemps = 0      # _pK loop variables used
        self.stemps = []     # (name, ctname)
        self.cur_pos = None
        self.pending = []    # statements to emit before the current one
        self.copies = {}     # operand array -> its copy, inside a slice assignment
        self.ctemps = []     # (name, declaration) of those copies
        self.btemps = []     # (name, ctname): malloc'd buffers (rpar_sassign)
        self.in_par = False  # rendering a prange body or parallel() block

    def sum_temp(self, e):
        t = typeof(e[1], self.fn["env"])
        name = "_s%d" % len(self.stemps)
        ctn = "double" if t.kind == "f" else "long long"
        self.stemps.append((name, ctn))
        ref = first_sref(e[1])
        arr = ref[1]
        items = slice_items(ref)
        nd = len(items)
        pos = tuple("_p%d" % a for a in range(nd))
        self.ptemps = max(self.ptemps, nd)
        pre = ["%s = 0" % name]
        ind = ""
        for k, (a, (lo, hi)) in enumerate(items):
            ext = "%s.shape[%d]%s%s" % (arr, a, " - %d" % lo if lo else "", " - %d" % -hi if hi else "")
            if k == 0 and not self.in_par:
                pre.append("for _p0 in prange(%s, nogil=True):" % ext)
            else:
                pre.append(ind + "for _p%d in range(%s):" % (k, ext))
            ind += "    "
        if self.in_par:
            # not +=: in a prange that would make the temporary a reduction
            pre.append(ind + "%s = %s + %s" % (name, name, rsexpr(e[1], self, pos)))
        else:
            pre.append(ind + "%s += %s" % (name, rsexpr(e[1], self, pos)))
        self.pending.extend(pre)
        return name


def rstmts(stmts, ctx, ind, in_par):
    for s in stmts:
        rstmt(s, ctx, ind, in_par)


def rstmt(s, ctx, ind, in_par):
    ctx.in_par = in_par
    k = s[0]
    pad = "    " * ind
    out = ctx.lines
    if k == "assign":
        ctx.pending = []
        line = "%s %s %s" % (rexpr(s[1], ctx), s[2], rexpr(s[3], ctx))
        for p in ctx.pending:
            out.append(pad + p)
        out.append(pad + line)
    elif k == "if":
        ctx.pending = []
        c = rexpr(s[1], ctx)
        for p in ctx.pending:
            out.append(pad + p)
        out.append(pad + "if %s:" % c)
        if s[2]:
            rstmts(s[2], ctx, ind + 1, in_par)
        else:
            out.append(pad + "    pass")
        if s[3]:
            out.append(pad + "else:")
            rstmts(s[3], ctx, ind + 1, in_par)
    elif k == "for":
        _, var, start, stop, step, par, opts, body = s
        ctx.pending = []
        a = [rexpr(start, ctx), rexpr(stop, ctx)]
        if step != 1:
            a.append(str(step))
        for p in ctx.pending:
            out.append(pad + p)
        if par == "parallel":
            extra = "".join(", %s=%s" % (kk, repr(vv)) for kk, vv in opts)
            out.append(pad + "with nogil, parallel():")
            pad += "    "
            ind += 1
            out.append(pad + "for %s in prange(%s%s):" % (var, ", ".join(a), extra))
        elif par:
            extra = "".join(", %s=%s" % (kk, repr(vv)) for kk, vv in opts)
            out.append(pad + "for %s in prange(%s, nogil=True%s):" % (var, ", ".join(a), extra))
        else:
            out.append(pad + "for %s in range(%s):" % (var, ", ".join(a)))
        if body:
            rstmts(body, ctx, ind + 1, in_par or par)
        else:
            out.append(pad + "    pass")
    elif k == "while":
        _, var, start, stop, step, cond, _, body = s
        ctx.pending = []
        a = rexpr(start, ctx)
        b = rexpr(stop, ctx)
        c = rexpr(cond, ctx) if cond is not None else None
        for p in ctx.pending:
            out.append(pad + p)
        out.append(pad + "%s = %s" % (var, a))
        test = "%s %s %s" % (var, "<" if step > 0 else ">", b)
        out.append(pad + "while %s:" % (test if c is None else "%s and %s" % (test, c)))
        rstmts(body, ctx, ind + 1, in_par)
        # not +=: in a prange that would make the counter a reduction
        out.append(pad + "    %s = %s %s %d" % (var, var, "+" if step > 0 else "-", abs(step)))
    elif k == "carr":
        out.append(pad + "%s = [%s]" % (s[1], ", ".join(rexpr(x, ctx) for x in s[2])))
    elif k == "paddr":
        out.append(pad + "%s = &%s" % (s[1], rexpr(s[2], ctx)))
    elif k == "padv":
        out.append(pad + "%s = %s %s %d" % (s[1], s[1], "+" if s[2] > 0 else "-", abs(s[2])))
    elif k == "nogil":
        out.append(pad + "with nogil:")
        rstmts(s[1], ctx, ind + 1, in_par)
    elif k == "try":
        out.append(pad + "try:")
        rstmts(s[1], ctx, ind + 1, in_par)
        out.append(pad + "except %s:" % s[2])
        rstmts(s[3], ctx, ind + 1, in_par)
    elif k == "break":
        out.append(pad + "break")
    elif k == "continue":
        out.append(pad + "continue")
    elif k == "sassign":
        _, tgt, op, e = s
        if ctx.mode == "cyocl":
            ctx.pending = []
            line = "%s %s %s" % (rsref(tgt, ctx), op, rsexpr(e, ctx, None))
            for p in ctx.pending:
                out.append(pad + p)
            out.append(pad + line)
            return
        if in_par:
            rpar_sassign(s, ctx, pad)
            return
        arr, sl = tgt[1], tgt[2]
        nd = len(sl)
        ctx.ptemps = max(ctx.ptemps, nd)
        pos = tuple("_p%d" % a for a in range(nd))
        ctx.pending = []
        # numpy reads the operands as if copied before the target is written
        ctx.copies = {}
        for name in sref_arrays(e):
            c = "_c%d" % len(ctx.ctemps)
            p = [q for q in ctx.fn["params"] if q[0] == name][0]
            ctx.ctemps.append((c, "%s[%s]" % (p[2], ", ".join([":"] * p[3]))))
            ctx.copies[name] = c
            out.append(pad + "%s = np.array(%s, copy=True)" % (c, name))
        rhs = rsexpr(e, ctx, pos)
        ctx.copies = {}
        for p in ctx.pending:
            out.append(pad + p)
        ip = pad
        for a, (lo, hi) in enumerate(sl):
            ext = "%s.shape[%d]%s%s" % (arr, a, " - %d" % lo if lo else "", " - %d" % -hi if hi else "")
            if a == 0 and not in_par:
                out.append(ip + "for _p0 in prange(%s, nogil=True):" % ext)
            else:
                out.append(ip + "for _p%d in range(%s):" % (a, ext))
            ip += "    "
        tidx = ", ".join(("%s + %d" % (pos[a], lo) if lo else pos[a]) for a, (lo, hi) in enumerate(sl))
        out.append(ip + "%s[%s] %s %s" % (arr, tidx, op, rhs))
    else:
        raise ValueError(s)


def rpar_sassign(s, ctx, pad):
    """A slice assignment in a prange body or parallel() block, for Cython
    (no Python objects there): numpy's meaning, every element of the right
    side computed before any is stored, as two passes over the target's
    extents through a buffer that the iteration mallocs (a pointer assigned
    in the body is private)."""
    _, tgt, op, e = s
    out = ctx.lines
    arr = tgt[1]
    items = slice_items(tgt)
    nd = len(items)
    ctx.ptemps = max(ctx.ptemps, nd)
    pos = tuple("_p%d" % a for a in range(nd))
    ctn = typeof(e, ctx.fn["env"]).name
    buf = "_b%d" % len(ctx.btemps)
    ctx.btemps.append((buf, ctn))
    exts = ["%s.shape[%d]%s%s" % (arr, a, " - %d" % lo if lo else "", " - %d" % -hi if hi else "")
            for a, (lo, hi) in items]
    out.append(pad + "%s = <%s *>malloc(sizeof(%s) * (%s + 1))" % (
        buf, ctn, ctn, " * ".join("(%s)" % x for x in exts) or "1"))
    tidx = []
    k = 0
    for a, it in enumerate(tgt[2]):
        if is_at(it):
            tidx.append(rexpr(it[1], ctx))
        else:
            tidx.append("%s + %d" % (pos[k], it[0]) if it[0] else pos[k])
            k += 1
    for store in (False, True):
        out.append(pad + "_q = 0")
        ip = pad
        for a, x in enumerate(exts):
            out.append(ip + "for _p%d in range(%s):" % (a, x))
            ip += "    "
        if store:
            out.append(ip + "%s[%s] %s %s[_q]" % (arr, ", ".join(tidx), op, buf))
        else:
            out.append(ip + "%s[_q] = %s" % (buf, rsexpr(e, ctx, pos)))
        out.append(ip + "_q = _q + 1")
    out.append(pad + "free(%s)" % buf)


def uses_ext(fn):
    def walk(x):
        if isinstance(x, tuple):
            if x and x[0] in ("sassign", "sum"):
                return True
            return any(walk(c) for c in x)
        return False
    return walk(fn["body"])


def render_function(fn, mode):
    """mode: 'cython' (extension expanded to loops) or 'cyocl'."""
    ctx = RCtx(mode, fn)
    rstmts(fn["body"], ctx, 1, False)
    body = ctx.lines
    lines = []
    for d, v in sorted(fn["directives"].items()):
        lines.append("@cython.%s(%s)" % (d, v))
    ps = []
    bufs = () if uses_ext(fn) else fn.get("buf", ())   # slices of a buffer are numpy objects
    for p in fn["params"]:
        ctn = p[2]
        if fn.get("fused") and p[1] == "arr" and T[ctn].kind == "f":
            ctn = fn["fused"]
        if p[1] == "arr" and p[0] in bufs:
            ps.append("cnp.ndarray[%s, ndim=%d%s] %s" % (ctn, p[3], ', mode="c"' if p[4] else "", p[0]))
        elif p[1] == "arr":
            nd, contig = p[3], p[4]
            axes = [":"] * nd
            if contig:
                axes[-1] = "::1"
            ps.append("%s[%s] %s" % (ctn, ", ".join(axes), p[0]))
        else:
            ps.append("%s %s" % (p[2], p[0]))
    lines.append("def %s(%s):" % (fn["name"], ", ".join(ps)))
    if fn["globals"]:
        lines.append("    global " + ", ".join(g[0] for g in fn["globals"]))
    for g in fn["globals"]:
        lines.append("    %s = %s" % (g[0], lit(g[2], g[1])))
    idx = [v for v in fn["ivars"]] + ["_p%d" % a for a in range(ctx.ptemps)]
    if idx:
        lines.append("    cdef Py_ssize_t " + ", ".join(idx))
    for name, ctn, init in fn["locals"]:
        lines.append("    cdef %s %s = %s" % (ctn, name, lit(init, ctn)))
    for name, ctn, n in fn.get("carrays", ()):
        lines.append("    cdef %s[%d] %s" % (ctn, n, name))
    for name, ctn in fn.get("pointers", ()):
        if fn.get("fused") and T[ctn].kind == "f":
            ctn = fn["fused"]   # a pointer into a fused view
        lines.append("    cdef %s *%s" % (ctn, name))
    for name, ctn in ctx.stemps:
        lines.append("    cdef %s %s = 0" % (ctn, name))
    for name, decl in ctx.ctemps:
        lines.append("    cdef %s %s" % (decl, name))
    if ctx.btemps:
        lines.append("    cdef Py_ssize_t _q")
    for name, ctn in ctx.btemps:
        lines.append("    cdef %s *%s" % (ctn, name))
    lines.extend(body)
    if fn["ret"]:
        lines.append("    return (%s,)" % ", ".join(fn["ret"]))
    else:
        lines.append("    return None")
    return "\n".join(lines) + "\n"


HEADER = """# generated by tests/difftest (cyocl differential tester)
cimport cython
from cython.parallel import prange, parallel
from libc.math cimport fabs, floor, ceil, sqrt, fmin, fmax, NAN, INFINITY
from libc.stdlib cimport malloc, free
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
cimport numpy as cnp
import numpy as np

ctypedef fused real_t:
    float
    double
"""


def helper_name(fn, idx):
    return "h_%s_%d" % (fn["name"], idx)


def render_helpers(fn, mode):
    out = []
    for idx, h in enumerate(fn.get("helpers", ())):
        ps = ", ".join("%s %s" % (c, p) for p, c in h["params"])
        out.append("cdef inline %s %s(%s) noexcept nogil:\n    return %s\n\n" % (
            h["ret"], helper_name(fn, idx), ps, rexpr(h["body"], RCtx(mode, fn))))
    return "".join(out)


def render_module(fns, mode):
    out = [HEADER]
    for fn in fns:
        for g in fn["globals"]:
            out.append("cdef %s %s = 0\n" % (g[1], g[0]))
    out.append("\n")
    starts = {}
    text = "".join(out)
    for fn in fns:
        text += render_helpers(fn, mode)
        src = render_function(fn, mode)
        starts[fn["name"]] = text.count("\n") + 1
        text += "\n" + src
        starts[fn["name"]] += 1
    return text, starts


def make_env(fn):
    types = {}
    for p in fn["params"]:
        if p[1] == "arr":
            types["@" + p[0]] = T[p[2]]
        else:
            types[p[0]] = T[p[2]]
    for v in fn["ivars"]:
        types[v] = SSIZE
    for name, ctn, _ in fn["locals"]:
        types[name] = T[ctn]
    for name, ctn, _ in fn["globals"]:
        types[name] = T[ctn]
    for idx, h in enumerate(fn.get("helpers", ())):
        types["()%d" % idx] = None if h["ret"] in FUSED else T[h["ret"]]
    for name, ctn, _ in fn.get("carrays", ()):
        types["[]" + name] = T[ctn]
    for name, ctn in fn.get("pointers", ()):
        types["*" + name] = T[ctn]
    return types.__getitem__
