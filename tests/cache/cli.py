#!/usr/bin/env python3
"""`cyocl cache stats|list|clear|prune` on a cache directory of entries
written here by hand in the format docs/cache.md gives (so the format is
checked too): listing, damaged entries, pruning to a size (least recently
used first), stale temporary files, clearing, the dispatcher's calibration
files (kept by prune and clear, removed by clear --calibration), usage
errors and exit codes.
No OpenCL needed.

Usage: cli.py [--cyocl PATH]
"""
import argparse, hashlib, os, struct, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def key_text(parts):
    return b"".join(b"%s %d\n%s\n" % (l.encode(), len(d), d) for l, d in parts)


def write_entry(d, src, binary, build_ns=5_000_000, age=0):
    key = key_text([("cyocl", b"0.1.0"), ("platform", b"Test Platform"),
                    ("device", b"test device"), ("source", src)])
    body = b"CYOCLKC1" + struct.pack("<IIQQQ", 1, 0, len(key), len(binary), build_ns) + key + binary
    data = body + hashlib.sha256(body).digest()
    path = os.path.join(d, hashlib.sha256(key).hexdigest() + ".clbin")
    with open(path, "wb") as f:
        f.write(data)
    os.chmod(path, 0o600)
    t = time.time() - age
    os.utime(path, (t, t))
    return path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cyocl", default=os.path.join(ROOT, "build", "cyocl"))
    a = ap.parse_args()
    fails = []

    def check(cond, what):
        print(("PASS " if cond else "FAIL ") + what)
        if not cond:
            fails.append(what)

    def cache(*args, env_extra=None):
        env = dict(os.environ, CYOCL_CACHE_DIR=d)
        for k in ("CYOCL_CACHE", "CYOCL_CACHE_MAX_SIZE"):
            env.pop(k, None)
        env.update(env_extra or {})
        p = subprocess.run([a.cyocl, "cache", *args], env=env, capture_output=True, text=True)
        return p.returncode, p.stdout, p.stderr

    with tempfile.TemporaryDirectory() as tmp:
        d = os.path.join(tmp, "cache")
        rc, out, err = cache("stats")
        check(rc == 0 and "entries:   0" in out, "stats on a missing directory")
        check(not os.path.exists(d), "stats creates nothing")
        os.mkdir(d, 0o700)

        old = write_entry(d, b"kernel void a() {}", b"A" * 10000, age=300)
        mid = write_entry(d, b"kernel void b() {}", b"B" * 10000, age=200)
        new = write_entry(d, b"kernel void c() {}", b"C" * 10000, age=100)
        bad = write_entry(d, b"kernel void d() {}", b"D" * 10000, age=50)
        with open(bad, "r+b") as f:
            f.seek(-40, 2)
            f.write(b"x")
        stale = os.path.join(d, ".tmp-0123456789abcdef.ABCDEF")
        open(stale, "w").close()
        t = time.time() - 7200
        os.utime(stale, (t, t))

        rc, out, err = cache("stats")
        size = os.path.getsize(old)
        check(rc == 0 and "entries:   4" in out and "(%d bytes)" % (4 * size) in out
              and "temporary: 1" in out, "stats counts entries, bytes and temporary files")
        rc, out, err = cache("list")
        lines = [l for l in out.splitlines() if l[:16] in
                 {os.path.basename(p)[:16] for p in (old, mid, new, bad)}]
        check(rc == 0 and len(lines) == 4, "list shows every entry")
        check(lines and lines[0].startswith(os.path.basename(bad)[:16]), "most recently used first")
        check(sum("damaged" in l for l in lines) == 1 and "damaged" in lines[0],
              "list marks the damaged entry")
        check(any("test device" in l and "5ms" in l for l in lines), "device and build time")

        # the dispatcher's calibration (runtime/dispatch.c) shares the directory:
        # prune and clear keep it, clear --calibration removes it
        calib = os.path.join(d, "dispatch-" + "0123456789abcdef" * 2 + ".calib")
        with open(calib, "w") as f:
            f.write("cyocl-dispatch 1\n" + "x" * 500)
        rc, out, err = cache("stats")
        check(rc == 0 and "calibration: 1 file(s), 517 B" in out and "entries:   4" in out,
              "stats counts the calibration file apart from the entries")
        rc, out, err = cache("prune", "--max-size", str(size + size // 2))
        check(rc == 0 and "removed 3 entries" in out, "prune: %s" % out.strip())
        check(os.path.exists(new) and not any(map(os.path.exists, (old, mid, bad, stale))),
              "prune keeps the most recently used entry, drops damaged and stale files")

        write_entry(d, b"kernel void a() {}", b"A" * 10000)
        rc, out, err = cache("prune", "--max-size=1G")
        check(rc == 0 and "removed 0 entries" in out, "prune under the cap removes nothing")
        rc, out, err = cache("clear")
        check(rc == 0 and "removed 2 entries" in out and os.listdir(d) == [os.path.basename(calib)],
              "clear removes every entry and keeps the calibration")
        # a directory with no entry (only the calibration) lists and prunes to nothing
        rc, out, err = cache("list")
        check(rc == 0 and "0 entries" in out, "list with no entry")
        rc, out, err = cache("prune")
        check(rc == 0 and "removed 0 entries" in out and os.path.exists(calib), "prune with no entry")
        rc, out, err = cache("clear", "--calibration")
        check(rc == 0 and "removed 0 entries" in out and "removed 1 calibration file (517 B)" in out
              and not os.listdir(d), "clear --calibration removes the calibration: %s" % out.strip())

        write_entry(d, b"kernel void e() {}", b"E" * 100)
        rc, out, err = cache("stats", env_extra={"CYOCL_CACHE": "0"})
        check(rc == 0 and "state:     off" in out and "entries:   1" in out,
              "CYOCL_CACHE=0: stats says off, and still counts")
        rc, out, err = cache("clear", env_extra={"CYOCL_CACHE": "0"})
        check(rc == 0 and "removed 1 entry" in out, "CYOCL_CACHE=0: clear still clears")
        rc, out, err = cache("stats", env_extra={"CYOCL_CACHE_MAX_SIZE": "64M"})
        check(rc == 0 and "(67108864 bytes)" in out, "CYOCL_CACHE_MAX_SIZE sets the cap")

        for args in (("frob",), (), ("prune", "--max-size", "lots"), ("stats", "--max-size", "1M"),
                     ("prune", "--max-size"), ("list", "list"), ("clear", "--force"),
                     ("prune", "--calibration"), ("stats", "--calibration")):
            rc, out, err = cache(*args)
            check(rc == 2 and "error" in err, "usage error exits 2: cache %s" % " ".join(args))
        rc, out, err = cache("--help")
        check(rc == 0 and "prune" in out, "cache --help")

    print("%d failure(s)" % len(fails) if fails else "PASS")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
