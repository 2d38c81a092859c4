/* test_annotate.c: `cyocl annotate`'s trace reader and page (driver/annotate.c)
 * on a small module: a real trace line is read field by field; the check
 * accepts the module's own lines and refuses other modules, other lines and
 * other region numbers; and no input crashes the reader, the check or the
 * page — every truncation and byte change of valid lines, random bytes,
 * deep nesting, long and odd strings (the sanitizer build runs this too). */
#define _POSIX_C_SOURCE 200809L
#include "backends/c/cgen.h"
#include "backends/opencl/oclgen.h"
#include "driver/annotate.h"
#include "frontend/frontend.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static const char SRC[] =
    "from cython.parallel import prange, parallel, threadid\n"
    "def f(double[:] x, double[:] y):\n"
    "    cdef Py_ssize_t i\n"
    "    for i in prange(x.shape[0], nogil=True):\n"
    "        y[i] = 2 * x[i]\n"
    "    y[:] = x[:] + 1.0\n"
    "    cdef int t\n"
    "    with nogil, parallel():\n"
    "        t = threadid()\n"
    "        for i in prange(x.shape[0]):\n"
    "            y[i] += 1 + 0 * t\n";

static const char LINE0[] =
    "{\"module\":\"m\",\"function\":\"f\",\"line\":4,\"region\":0,\"impl\":\"opencl\",\"device\":\"dev \\\"A\\\" \\u00e9\","
    "\"n\":100,\"bytes_to_device\":1600,\"bytes_to_host\":8,\"build\":\"cache\",\"reason\":\"auto\","
    "\"predicted_ns\":{\"native\":1000,\"opencl\":500},\"ns\":700,\"kernel_ns\":300,\"kernel\":\"cyk_0\","
    "\"variant\":\"collapsed\"}\n";
static const char LINE1[] =
    "{\"module\":\"m\",\"function\":\"f\",\"line\":6,\"region\":1,\"impl\":\"native\",\"device\":null,\"n\":100,"
    "\"bytes_to_device\":0,\"bytes_to_host\":0,\"build\":\"none\",\"reason\":\"calibrating\",\"predicted_ns\":{},"
    "\"ns\":12345}\n";
static const char SYNC[] =
    "{\"event\":\"sync\",\"module\":\"m\",\"function\":\"f\",\"line\":2,\"reason\":\"return\",\"bytes_to_device\":0,"
    "\"bytes_to_host\":800,\"ns\":99}\n";

static unsigned long long rng = 88172645463325252ULL;
static unsigned rnd(void) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (unsigned)(rng >> 11);
}

typedef struct {
    CyReport rep;
    CyArena *a;
    CyOclProgram prog;
    const char **code;
} Mod;

static int build(Mod *m, CySource *src) {
    static CyDiag diag;
    diag = (CyDiag){.src = src, .out = stderr};
    m->a = cy_arena_new();
    AModule *ast = cy_parse_source(m->a, &diag, src);
    IrModule *ir = ast && !diag.nerrors ? cy_sema(m->a, &diag, ast) : NULL;
    if (!ir || diag.nerrors) return -1;
    cy_ir_analyze(m->a, ir);
    CyOclOptions oo = {.version = "test"};
    if (cy_emit_opencl(m->a, &diag, ir, &oo, &m->prog) != 0) return -1;
    m->code = cy_alloc(m->a, (size_t)(ir->nregions + 1) * sizeof *m->code);
    CyCOptions co = {.line_directives = 1, .opencl = 1, .version = "test", .opencl_source = m->prog.source,
                     .region_code = m->code};
    CyBuf c = {0};
    int rc = cy_emit_c(m->a, &diag, ir, &co, &c);
    cy_buf_free(&c);
    m->rep = (CyReport){.src = src, .ir = ir, .opencl = 1, .flags = "", .region_code = m->code, .ocl = &m->prog,
                        .trace_path = "t.jsonl"};
    return rc;
}

/* Parses text as a trace, checks it against the module and makes the page;
 * returns the check's result. */
static int run(Mod *m, const char *text, size_t len, CyBuf *html) {
    CyTrace *t = cy_trace_parse(text, len);
    CHECK(t != NULL);
    if (!t) return -1;
    m->rep.trace = t;
    char why[1024];
    int rc = cy_trace_check(&m->rep, why, sizeof why);
    CHECK(strlen(why) < sizeof why);
    CyBuf local = {0};
    cy_report_html(html ? html : &local, &m->rep);
    cy_buf_free(&local);
    m->rep.trace = NULL;
    cy_trace_free(t);
    return rc;
}

static int count(const char *hay, const char *needle) {
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p++) n++;
    return n;
}

int main(void) {
    CySource src = {.path = "m.pyx", .name = "m.pyx", .modname = "m", .text = SRC, .len = sizeof SRC - 1};
    Mod m = {0};
    CHECK(build(&m, &src) == 0);
    if (failures) return 1;
    CHECK(m.rep.ir->nregions == 4, "regions: %d", m.rep.ir->nregions);
    CHECK(((IrRegion *)m.rep.ir->regions.items[1])->from_slice, "the slice expression's region is marked");
    for (int i = 0; i < m.rep.ir->nregions; i++) CHECK(m.code[i] && strchr(m.code[i], '{'), "region %d has C", i);

    /* a good trace: the module's regions and a transfer, a line of another module */
    char good[4096];
    snprintf(good, sizeof good, "%s%s%s{\"module\":\"other\",\"line\":1,\"region\":9,\"impl\":\"native\"}\n", LINE0,
             LINE1, SYNC);
    CyBuf html = {0};
    CHECK(run(&m, good, strlen(good), &html) == 0);
    CHECK(html.s && count(html.s, "<details class=\"region\"") == 4);
    CHECK(html.s && count(html.s, "<tr class=\"call\" data-impl=\"opencl\"") == 1);
    CHECK(html.s && count(html.s, "<tr class=\"call\" data-impl=\"native\"") == 1);
    CHECK(html.s && strstr(html.s, "dev &quot;A&quot; \xc3\xa9"), "escaped strings come out escaped");
    CHECK(html.s && strstr(html.s, "data-kind=\"slice\""));
    CHECK(html.s && strstr(html.s, "data-kind=\"parallel\"") && strstr(html.s, "data-reason=\""));
    CHECK(html.s && strstr(html.s, "<tr class=\"sync\">"));
    CHECK(html.s && !strstr(html.s, "http://") && !strstr(html.s, "https://"), "nothing fetched");
    cy_buf_free(&html);

    /* refused: no line of the module, another line, another region number, garbage */
    const char *bad[] = {
        "{\"module\":\"other\",\"function\":\"f\",\"line\":4,\"region\":0,\"impl\":\"native\"}\n",
        "{\"module\":\"m\",\"function\":\"f\",\"line\":5,\"region\":0,\"impl\":\"native\"}\n",
        "{\"module\":\"m\",\"function\":\"g\",\"line\":4,\"region\":0,\"impl\":\"native\"}\n",
        "{\"module\":\"m\",\"function\":\"f\",\"line\":4,\"region\":4,\"impl\":\"native\"}\n",
        "{\"module\":\"m\",\"function\":\"f\",\"line\":4,\"region\":-1,\"impl\":\"native\"}\n",
        "{\"event\":\"sync\",\"module\":\"m\",\"function\":\"f\",\"line\":99,\"reason\":\"return\"}\n",
        "{\"event\":\"sync\",\"module\":\"m\",\"function\":\"nope\",\"line\":2,\"reason\":\"return\"}\n",
        "not json\n[1,2]\n",
        "",
        "\n\n  \n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(run(&m, bad[i], strlen(bad[i]), NULL) != 0, "bad trace %zu is refused", i);

    /* no input crashes: every prefix, every single-byte change, random bytes */
    size_t n0 = strlen(LINE0);
    for (size_t k = 0; k <= n0; k++) run(&m, LINE0, k, NULL);
    char buf[4096];
    for (size_t k = 0; k < n0; k++) {
        static const char subst[] = {'\0', '"', '\\', '{', '}', '[', ']', ',', ':', '-', '9', 'e', '.', 'u', '\n', (char)0xff};
        for (size_t s = 0; s < sizeof subst; s++) {
            memcpy(buf, LINE0, n0);
            buf[k] = subst[s];
            run(&m, buf, n0, NULL);
        }
    }
    for (int it = 0; it < 3000; it++) {
        size_t n = rnd() % 600;
        static const char alpha[] = "{}[]\",:0123456789.eE+-nultrfas\\u \n";
        for (size_t k = 0; k < n; k++) buf[k] = rnd() % 4 ? alpha[rnd() % (sizeof alpha - 1)] : (char)rnd();
        run(&m, buf, n, NULL);
    }
    /* deep nesting, long numbers and strings, odd escapes */
    size_t big = 200000;
    char *deep = malloc(big + 1);
    for (size_t k = 0; k < big; k++) deep[k] = k < big / 2 ? '[' : ']';
    CHECK(run(&m, deep, big, NULL) != 0);
    memset(deep, '7', big);
    CHECK(run(&m, deep, big, NULL) != 0);
    const char *odd[] = {
        "{\"module\":\"m\",\"function\":\"f\",\"line\":4,\"region\":0,\"impl\":\"native\",\"device\":\"\\ud800\\udc00\\ud800x\\udc00\\u0000\"}",
        "{\"module\":\"m\",\"function\":\"f\",\"line\":4.0,\"region\":0e0,\"impl\":\"native\",\"ns\":1e400,\"n\":-0}",
        "{\"module\":\"m\",\"function\":\"f\",\"line\":4,\"region\":99999999999999999999999,\"impl\":\"native\"}",
        "{\"module\":\"m\",\"module\":\"m\",\"function\":\"f\",\"line\":4,\"region\":0,\"impl\":\"native\",\"predicted_ns\":[1]}",
        "{\"module\":\"m\",\"function\":\"<script>\",\"line\":4,\"region\":0,\"impl\":\"native\"}",
    };
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) run(&m, odd[i], strlen(odd[i]), NULL);
    CHECK(run(&m, odd[1], strlen(odd[1]), NULL) == 0, "4.0 and 0e0 are the integers 4 and 0");
    free(deep);

    cy_arena_free(m.a);
    printf("test_annotate: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
