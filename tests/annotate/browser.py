#!/usr/bin/env python3
"""The annotate page in a real browser: headless Chromium loads the page the
trace test left (tests/annotate/trace.py) with two regions opened through
the URL fragment, and
  - its DOM after the script ran (--dump-dom) must still be a whole page
    (every line and region, as pagelib checks), with exactly those two
    regions open, their C and OpenCL C side by side, their calls listed;
  - its screenshot must be a PNG of the window's size that is not blank.
--save PATH copies the screenshot there (docs/annotate.png is made so).
Exit 77 (skipped) when no Chromium is installed (./dev setup installs it).

Usage: browser.py --cyocl PATH --page DIR/traced.html --work DIR [--save PNG]"""
import argparse, os, shutil, struct, subprocess, sys, zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import pagelib

W, H = 1400, 1700


def find_browser():
    for name in (os.environ.get("CYOCL_CHROMIUM"), "chromium", "chromium-browser", "google-chrome",
                 "google-chrome-stable"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def browse(browser, work, *args):
    # a profile of its own; --no-sandbox: the tests may run as root (CI containers)
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
           "--user-data-dir=" + os.path.join(work, "profile"), "--window-size=%d,%d" % (W, H), *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180)


def png_pixels(path):
    """(width, height, raw scanlines) of an 8-bit PNG."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    w = h = 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    return w, h, zlib.decompress(idat)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--page", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--save")
    a = ap.parse_args()
    browser = find_browser()
    if not browser:
        print("SKIP: no Chromium (chromium, chromium-browser, google-chrome; ./dev setup installs it)")
        return 77
    if not os.path.exists(a.page):
        print("no page at %s (tests/annotate/trace.py makes it)" % a.page)
        return 1
    os.makedirs(a.work, exist_ok=True)
    fails = []

    def check(cond, what):
        print(("PASS " if cond else "FAIL ") + what)
        if not cond:
            fails.append(what)

    url = "file://" + os.path.abspath(a.page) + "#open=region-0,region-3"
    r = browse(browser, a.work, "--virtual-time-budget=3000", "--dump-dom", url)
    check(r.returncode == 0 and "</html>" in r.stdout, "the page loads (%s)" % r.stderr.strip()[-200:])
    dom = pagelib.Page(r.stdout)
    with open(a.page, encoding="utf-8") as f:
        static = pagelib.Page(f.read())
    check(set(dom.regions) == set(static.regions) and dom.lines == static.lines and dom.lines,
          "the DOM has every line (%d) and region (%d)" % (len(dom.lines), len(dom.regions)))
    opened = sorted(rid for rid, at in dom.regions.items() if "open" in at)
    check(opened == [0, 3], "the script opened the regions the URL names: %s" % opened)
    check(dom.calls == static.calls and dom.calls.get(0), "their calls are listed")
    check(r.stdout.count('class="side c"') == len(dom.regions) and r.stdout.count('class="side ocl"') == len(dom.regions),
          "each region has its C and OpenCL C side by side")
    check(not dom.fetches, "nothing fetched: %s" % dom.fetches[:3])

    shot = os.path.join(a.work, "annotate.png")
    if os.path.exists(shot):
        os.unlink(shot)
    r = browse(browser, a.work, "--virtual-time-budget=3000", "--screenshot=" + shot, url)
    check(r.returncode == 0 and os.path.exists(shot), "a screenshot is taken (%s)" % r.stderr.strip()[-200:])
    if os.path.exists(shot):
        w, h, raw = png_pixels(shot)
        check((w, h) == (W, H), "the screenshot is %dx%d" % (w, h))
        # a blank (or all-one-colour) page compresses to a handful of distinct byte values per row
        check(len(set(raw[: len(raw) // 2])) > 64, "the screenshot is not blank")
        if a.save:
            shutil.copy(shot, a.save)
            print("saved", a.save)
    print("%d failures" % len(fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
