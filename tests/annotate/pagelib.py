"""Reading `cyocl annotate` pages (driver/annotate.c) with html.parser, and
what every page must satisfy: the hooks docs/annotate.md gives (class
"region" with data-region, data-decision, data-reason for native-only
regions, data-kind; rows of class "call" with data-impl), every source line,
nothing fetched from elsewhere."""
import html.parser, re, subprocess


class Page(html.parser.HTMLParser):
    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.regions = {}      # id -> attributes of the region's <details>
        self.lines = []        # data-line of each source line, in order
        self.calls = {}        # region id -> [data-impl of each call row]
        self.callsum = {}      # region id -> data-calls of its summary
        self.syncs = 0
        self.fetches = []      # anything that would load from elsewhere
        self.tags = 0
        self._region = []      # stack of open region ids
        self._depth = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags += 1
        cls = (a.get("class") or "").split()
        for k in ("src", "href", "action", "data", "poster"):
            v = a.get(k)
            if v is not None and not v.startswith("#"):
                self.fetches.append("%s %s=%s" % (tag, k, v))
        if tag in ("link", "iframe", "embed", "object", "img", "base"):
            self.fetches.append(tag)
        if tag == "script" and "src" in a:
            self.fetches.append("script src")
        if tag == "details" and "region" in cls:
            rid = int(a["data-region"])
            assert rid not in self.regions, "region %d twice" % rid
            self.regions[rid] = a
        if tag == "div" and "line" in cls:
            self.lines.append(int(a["data-line"]))
        if tag == "tr" and "call" in cls:
            rid = self._current_region()
            self.calls.setdefault(rid, []).append(a["data-impl"])
        if tag == "tr" and "sync" in cls:
            self.syncs += 1
        if "callsum" in cls:
            self.callsum[int(a["data-region"])] = int(a["data-calls"])
        if tag == "details":
            self._region.append(int(a["data-region"]) if "region" in cls else None)

    def handle_endtag(self, tag):
        if tag == "details" and self._region:
            self._region.pop()

    def _current_region(self):
        for r in reversed(self._region):
            if r is not None:
                return r
        return None

    def handle_data(self, data):
        if re.search(r"@import|url\(", data):
            self.fetches.append("css fetch: " + data[:60])


def regions_of(cyocl, pyx, extra=()):
    """`cyocl compile -v`'s list: {id: (line, function, 'opencl' or reason)}."""
    p = subprocess.run([cyocl, "compile", "-v", *extra, "-o", "/dev/null", pyx], capture_output=True, text=True)
    out = {}
    for m in re.finditer(r"^\S+:(\d+): region (\d+) \(function (.+?)\): (opencl|native only: (.*))$",
                         p.stderr, re.M):
        out[int(m.group(2))] = (int(m.group(1)), m.group(3), "opencl" if m.group(4) == "opencl" else m.group(5))
    return p.returncode, out


def check_page(page, expected, nlines):
    """Problems of a page against compile -v's regions; [] when none."""
    bad = []
    if page.lines != list(range(1, nlines + 1)):
        bad.append("source lines: %d shown, %d in the file" % (len(page.lines), nlines))
    if set(page.regions) != set(expected):
        bad.append("regions marked %s, compile -v lists %s" % (sorted(page.regions), sorted(expected)))
    for rid, (line, func, dec) in expected.items():
        a = page.regions.get(rid)
        if not a:
            continue
        if int(a["data-line"]) != line or a["data-function"] != func:
            bad.append("region %d at %s in %s, expected %d in %s" % (rid, a["data-line"], a["data-function"], line, func))
        if dec == "opencl":
            if a["data-decision"] != "opencl" or "data-reason" in a:
                bad.append("region %d: %s, expected opencl" % (rid, a["data-decision"]))
        elif a["data-decision"] != "native" or a.get("data-reason") != dec:
            bad.append("region %d: %s (%r), expected native only: %r" % (rid, a["data-decision"],
                                                                         a.get("data-reason"), dec))
        if a.get("data-kind") not in ("prange", "parallel", "slice"):
            bad.append("region %d: kind %r" % (rid, a.get("data-kind")))
    if page.fetches:
        bad.append("fetches from elsewhere: %s" % page.fetches[:3])
    return bad
