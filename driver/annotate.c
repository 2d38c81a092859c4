/* annotate.c: `cyocl annotate` — the trace reader (a small JSON parser
 * that takes any bytes) and the HTML page (annotate.h).
 *
 * The page has no dependency: CSS and script are inline, nothing is
 * fetched.  Regions are <details> elements, so a click opens them without
 * the script; the script only opens what a URL fragment names (#region-N,
 * scrolled to; #open=region-N,region-M without scrolling; #all) and offers
 * "open all" / "close all".  Tests and tools
 * read the page through stable hooks: every region is an element with class
 * "region" and data-region (id), data-decision ("opencl" or "native"),
 * data-reason (native only), data-kind ("prange", "parallel", "slice"),
 * data-line, data-function; its calls are rows of class "call" with
 * data-impl. */
#include "annotate.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- JSON ------------------------------------------------------------------- */

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } JKind;

typedef struct JVal {
    JKind kind;
    double num;
    int is_int;          /* J_NUM: an integer that fits a long long */
    long long i;
    const char *s;       /* J_STR: UTF-8, NUL-terminated (an escaped NUL becomes U+FFFD) */
    int n;               /* J_ARR / J_OBJ: items */
    const char **keys;   /* J_OBJ */
    struct JVal **items;
} JVal;

typedef struct {
    CyArena *a;
    const char *p, *end;
    int depth;
} JP;

enum { JSON_MAX_DEPTH = 64 };

static void jws(JP *j) {
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\r' || *j->p == '\n')) j->p++;
}

static int jlit(JP *j, const char *w) {
    size_t n = strlen(w);
    if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n) != 0) return 0;
    j->p += n;
    return 1;
}

static void put_utf8(CyBuf *b, unsigned cp) {
    char u[4];
    if (cp < 0x80) {
        u[0] = (char)cp;
        cy_buf_put(b, u, 1);
    } else if (cp < 0x800) {
        u[0] = (char)(0xC0 | cp >> 6), u[1] = (char)(0x80 | (cp & 0x3F));
        cy_buf_put(b, u, 2);
    } else if (cp < 0x10000) {
        u[0] = (char)(0xE0 | cp >> 12), u[1] = (char)(0x80 | ((cp >> 6) & 0x3F)), u[2] = (char)(0x80 | (cp & 0x3F));
        cy_buf_put(b, u, 3);
    } else {
        u[0] = (char)(0xF0 | cp >> 18), u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), u[3] = (char)(0x80 | (cp & 0x3F));
        cy_buf_put(b, u, 4);
    }
}

static int jhex4(JP *j, unsigned *v) {
    if (j->end - j->p < 4) return 0;
    *v = 0;
    for (int k = 0; k < 4; k++) {
        char c = j->p[k];
        unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
                   : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                   : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 16u;
        if (d > 15) return 0;
        *v = *v << 4 | d;
    }
    j->p += 4;
    return 1;
}

/* After the opening quote.  Returns the string (arena) or NULL. */
static const char *jstring(JP *j) {
    CyBuf b = {0};
    while (j->p < j->end) {
        unsigned char c = (unsigned char)*j->p++;
        if (c == '"') {
            const char *s = cy_strndup(j->a, b.s ? b.s : "", b.len);
            cy_buf_free(&b);
            return s;
        }
        if (c < 0x20) break;
        if (c != '\\') {
            char ch = (char)c;
            cy_buf_put(&b, &ch, 1);
            continue;
        }
        if (j->p >= j->end) break;
        char e = *j->p++;
        const char *simple = strchr("\"\\/bfnrt", e);
        if (e && simple) {
            static const char out[] = "\"\\/\b\f\n\r\t";
            cy_buf_put(&b, &out[simple - "\"\\/bfnrt"], 1);
            continue;
        }
        unsigned cp;
        if (e != 'u' || !jhex4(j, &cp)) break;
        if (cp >= 0xD800 && cp < 0xDC00) {
            unsigned lo;
            if (j->end - j->p >= 6 && j->p[0] == '\\' && j->p[1] == 'u') {
                j->p += 2;
                if (!jhex4(j, &lo)) break;
                cp = lo >= 0xDC00 && lo < 0xE000 ? 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00) : 0xFFFD;
            } else {
                cp = 0xFFFD;
            }
        } else if ((cp >= 0xDC00 && cp < 0xE000) || cp == 0) {
            cp = 0xFFFD; /* a lone surrogate; NUL would cut the C string */
        }
        put_utf8(&b, cp);
    }
    cy_buf_free(&b);
    return NULL;
}

static int jdigits(JP *j) {
    const char *s = j->p;
    while (j->p < j->end && *j->p >= '0' && *j->p <= '9') j->p++;
    return j->p > s;
}

static JVal *jnumber(JP *j) {
    const char *s = j->p;
    int integral = 1;
    if (j->p < j->end && *j->p == '-') j->p++;
    if (j->p < j->end && *j->p == '0') j->p++;
    else if (!jdigits(j)) return NULL;
    if (j->p < j->end && *j->p == '.') {
        j->p++;
        integral = 0;
        if (!jdigits(j)) return NULL;
    }
    if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
        j->p++;
        integral = 0;
        if (j->p < j->end && (*j->p == '+' || *j->p == '-')) j->p++;
        if (!jdigits(j)) return NULL;
    }
    size_t n = (size_t)(j->p - s);
    char buf[400];
    if (n >= sizeof buf) return NULL; /* no trace writes such a number */
    memcpy(buf, s, n);
    buf[n] = 0;
    JVal *v = cy_alloc(j->a, sizeof *v);
    v->kind = J_NUM;
    v->num = strtod(buf, NULL);
    if (integral && n <= 18) {
        v->is_int = 1;
        v->i = strtoll(buf, NULL, 10);
    }
    return v;
}

static JVal *jvalue(JP *j);

/* Arrays and objects, after the opening bracket. */
static JVal *jcompound(JP *j, int obj) {
    if (++j->depth > JSON_MAX_DEPTH) return NULL;
    CyVec keys = {0}, items = {0};
    char close = obj ? '}' : ']';
    jws(j);
    if (j->p < j->end && *j->p == close) {
        j->p++;
    } else {
        for (;;) {
            jws(j);
            if (obj) {
                if (j->p >= j->end || *j->p != '"') return NULL;
                j->p++;
                const char *k = jstring(j);
                if (!k) return NULL;
                jws(j);
                if (j->p >= j->end || *j->p != ':') return NULL;
                j->p++;
                cy_vec_push(j->a, &keys, (void *)k);
            }
            JVal *v = jvalue(j);
            if (!v) return NULL;
            cy_vec_push(j->a, &items, v);
            jws(j);
            if (j->p < j->end && *j->p == ',') {
                j->p++;
                continue;
            }
            if (j->p < j->end && *j->p == close) {
                j->p++;
                break;
            }
            return NULL;
        }
    }
    j->depth--;
    JVal *v = cy_alloc(j->a, sizeof *v);
    v->kind = obj ? J_OBJ : J_ARR;
    v->n = items.len;
    v->items = (JVal **)items.items;
    v->keys = (const char **)keys.items;
    return v;
}

static JVal *jvalue(JP *j) {
    jws(j);
    if (j->p >= j->end) return NULL;
    char c = *j->p;
    if (c == '{' || c == '[') {
        j->p++;
        return jcompound(j, c == '{');
    }
    if (c == '"') {
        j->p++;
        const char *s = jstring(j);
        if (!s) return NULL;
        JVal *v = cy_alloc(j->a, sizeof *v);
        v->kind = J_STR;
        v->s = s;
        return v;
    }
    if (c == '-' || (c >= '0' && c <= '9')) return jnumber(j);
    JVal *v = cy_alloc(j->a, sizeof *v);
    if (jlit(j, "null")) v->kind = J_NULL;
    else if (jlit(j, "true")) v->kind = J_BOOL, v->i = 1;
    else if (jlit(j, "false")) v->kind = J_BOOL;
    else return NULL;
    return v;
}

/* One whole text as one JSON value, or NULL. */
static JVal *json_parse(CyArena *a, const char *s, size_t n) {
    JP j = {.a = a, .p = s, .end = s + n};
    JVal *v = jvalue(&j);
    jws(&j);
    return v && j.p == j.end ? v : NULL;
}

static const JVal *jget(const JVal *o, const char *key) {
    if (!o || o->kind != J_OBJ) return NULL;
    for (int i = 0; i < o->n; i++)
        if (!strcmp(o->keys[i], key)) return o->items[i];
    return NULL;
}

static const char *jstr(const JVal *o, const char *key) {
    const JVal *v = jget(o, key);
    return v && v->kind == J_STR ? v->s : NULL;
}

/* An integer member: 1 and *out, else 0 (missing, null, not an integer). */
static int jint(const JVal *o, const char *key, long long *out) {
    const JVal *v = jget(o, key);
    if (!v || v->kind != J_NUM) return 0;
    if (v->is_int) *out = v->i;
    else if (isfinite(v->num) && fabs(v->num) < 9e18 && v->num == floor(v->num)) *out = (long long)v->num;
    else return 0;
    return 1;
}

/* ---- the trace ------------------------------------------------------------------- */

typedef struct {
    int lineno;                /* in the trace file, 1-based */
    const char *module, *function, *event, *impl, *device, *build, *reason, *kernel, *variant;
    long long line, region, n, to_dev, to_host, ns, kernel_ns;
    long long pred_native, pred_opencl; /* -1: not predicted */
} TRec;

struct CyTrace {
    CyArena *a;
    CyVec recs;                /* TRec* */
    int nlines, nskipped, first_skipped;
};

static long long opt_int(const JVal *o, const char *key, long long dflt) {
    long long v;
    return jint(o, key, &v) ? v : dflt;
}

CyTrace *cy_trace_parse(const char *text, size_t len) {
    CyTrace *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->a = cy_arena_new();
    size_t i = 0;
    int lineno = 0;
    while (i < len) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t e = nl ? (size_t)(nl - text) : len;
        lineno++;
        const char *s = text + i;
        size_t n = e - i;
        i = e + 1;
        size_t k = 0;
        while (k < n && (s[k] == ' ' || s[k] == '\t' || s[k] == '\r')) k++;
        if (k == n) continue; /* blank */
        t->nlines++;
        JVal *o = json_parse(t->a, s, n);
        TRec *r = cy_alloc(t->a, sizeof *r);
        r->lineno = lineno;
        int ok = o && o->kind == J_OBJ && (r->module = jstr(o, "module")) && jint(o, "line", &r->line);
        if (ok) {
            r->event = jstr(o, "event");
            r->function = jstr(o, "function");
            r->reason = jstr(o, "reason");
            r->to_dev = opt_int(o, "bytes_to_device", 0);
            r->to_host = opt_int(o, "bytes_to_host", 0);
            r->ns = opt_int(o, "ns", -1);
            if (!r->event)
                ok = jint(o, "region", &r->region) && (r->impl = jstr(o, "impl")) &&
                     (!strcmp(r->impl, "native") || !strcmp(r->impl, "opencl"));
        }
        if (ok && !r->event) {
            r->device = jstr(o, "device");
            r->build = jstr(o, "build");
            r->kernel = jstr(o, "kernel");
            r->variant = jstr(o, "variant");
            r->n = opt_int(o, "n", -1);
            r->kernel_ns = opt_int(o, "kernel_ns", 0);
            const JVal *p = jget(o, "predicted_ns");
            r->pred_native = opt_int(p, "native", -1);
            r->pred_opencl = opt_int(p, "opencl", -1);
        }
        if (!ok) {
            if (!t->nskipped++) t->first_skipped = lineno;
            continue;
        }
        cy_vec_push(t->a, &t->recs, r);
    }
    return t;
}

void cy_trace_free(CyTrace *t) {
    if (!t) return;
    cy_arena_free(t->a);
    free(t);
}

int cy_trace_skipped(const CyTrace *t, int *first_line) {
    if (first_line) *first_line = t ? t->first_skipped : 0;
    return t ? t->nskipped : 0;
}

/* The function as the trace and `compile -v` name it (a fused
 * specialisation: "f[double[::1]]"). */
static const char *func_name(const IrRegion *r) {
    return r->func ? (r->func->spec_name ? r->func->spec_name : r->func->name) : "<module>";
}


static int has_function(const IrModule *m, const char *name) {
    if (!strcmp(name, "<module>")) return 1;
    for (int i = 0; i < m->funcs.len; i++)
        if (!strcmp(((IrFunc *)m->funcs.items[i])->name, name) ||
            (((IrFunc *)m->funcs.items[i])->spec_name && !strcmp(((IrFunc *)m->funcs.items[i])->spec_name, name)))
            return 1;
    return 0;
}

/* The source's line count (a last line without '\n' counts). */
static int source_lines(const CySource *s) {
    int n = 0;
    for (size_t i = 0; i < s->len; i++) n += s->text[i] == '\n';
    return n + (s->len && s->text[s->len - 1] != '\n');
}

int cy_trace_check(const CyReport *rep, char *why, size_t n) {
    const CyTrace *t = rep->trace;
    const IrModule *m = rep->ir;
    const char *mod = rep->src->modname, *tp = rep->trace_path ? rep->trace_path : "the trace";
    int mine = 0, others = 0, nlines = source_lines(rep->src);
    const char *other = NULL;
    for (int i = 0; i < t->recs.len; i++) {
        TRec *r = t->recs.items[i];
        if (strcmp(r->module, mod) != 0) {
            others++;
            if (!other) other = r->module;
            continue;
        }
        mine++;
        const char *fn = r->function ? r->function : "?";
        if (r->event) {
            if (r->line < 1 || r->line > nlines || !has_function(m, fn)) {
                snprintf(why, n, "%s:%d: a transfer of module '%s' in %s() at line %lld, but %s has %s: "
                         "the trace was made from another version of the file",
                         tp, r->lineno, mod, fn, r->line, rep->src->name,
                         has_function(m, fn) ? "fewer lines" : "no such function");
                return -1;
            }
            continue;
        }
        if (r->region < 0 || r->region >= m->regions.len) {
            snprintf(why, n, "%s:%d: region %lld of module '%s' (line %lld, in %s()), but %s has %d parallel region%s: "
                     "the trace was made from another version of the file", tp, r->lineno, r->region, mod, r->line, fn,
                     rep->src->name, m->regions.len, m->regions.len == 1 ? "" : "s");
            return -1;
        }
        IrRegion *g = m->regions.items[r->region];
        if (g->pos.line != r->line || strcmp(func_name(g), fn) != 0) {
            snprintf(why, n, "%s:%d: region %lld of module '%s' ran at line %lld in %s(), but in %s region %lld is at "
                     "line %d in %s(): the trace was made from another version of the file",
                     tp, r->lineno, r->region, mod, r->line, fn, rep->src->name, r->region, g->pos.line, func_name(g));
            return -1;
        }
    }
    if (!mine) {
        if (others)
            snprintf(why, n, "%s has no line of module '%s' (%d line%s of other modules, e.g. '%s'%s): "
                     "it is not a trace of %s", tp, mod, others, others == 1 ? "" : "s", other,
                     t->nskipped ? ", and lines that are not trace lines" : "", rep->src->name);
        else if (t->nskipped)
            snprintf(why, n, "%s is not a CYOCL_TRACE file: %d of its %d non-blank lines are not trace lines "
                     "(docs/trace.md; the first: line %d)", tp, t->nskipped, t->nlines, t->first_skipped);
        else
            snprintf(why, n, "%s is empty: run the module with CYOCL_TRACE=%s first", tp, tp);
        return -1;
    }
    return 0;
}

/* ---- HTML ------------------------------------------------------------------------ */

static void esc_n(CyBuf *b, const char *s, size_t n) {
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        const char *r = NULL;
        switch (s[i]) {
        case '&': r = "&amp;"; break;
        case '<': r = "&lt;"; break;
        case '>': r = "&gt;"; break;
        case '"': r = "&quot;"; break;
        case '\'': r = "&#39;"; break;
        case '\0': r = "\xEF\xBF\xBD"; break;
        default: break;
        }
        if (!r) continue;
        cy_buf_put(b, s + run, i - run);
        cy_buf_puts(b, r);
        run = i + 1;
    }
    cy_buf_put(b, s + run, n - run);
}

static void esc(CyBuf *b, const char *s) {
    if (s) esc_n(b, s, strlen(s));
}

static void fmt_ns(char *out, size_t n, long long ns) {
    if (ns < 0) snprintf(out, n, "–");
    else if (ns < 1000) snprintf(out, n, "%lld ns", ns);
    else if (ns < 1000000) snprintf(out, n, "%.1f µs", (double)ns / 1e3);
    else if (ns < 1000000000) snprintf(out, n, "%.2f ms", (double)ns / 1e6);
    else snprintf(out, n, "%.2f s", (double)ns / 1e9);
}

static void fmt_bytes(char *out, size_t n, long long b) {
    if (b <= 0) snprintf(out, n, "0");
    else if (b < 1024) snprintf(out, n, "%lld B", b);
    else if (b < (1LL << 20)) snprintf(out, n, "%.1f KiB", (double)b / 1024);
    else if (b < (1LL << 30)) snprintf(out, n, "%.1f MiB", (double)b / (1 << 20));
    else snprintf(out, n, "%.2f GiB", (double)b / (1 << 30));
}

static const char *region_kind(const IrRegion *r) {
    return r->from_slice ? "slice" : r->is_prange ? "prange" : "parallel";
}

static const char *kind_words(const IrRegion *r) {
    return r->from_slice ? "slice expression" : r->is_prange ? "prange" : "parallel() block";
}

static const char *native_reason(const CyReport *rep, const IrRegion *r) {
    if (!rep->opencl) return "built with --no-opencl";
    return r->ocl_reason ? r->ocl_reason : "not eligible";
}

/* The last source line of a statement tree. */
static int last_line(const CyVec *body, int line) {
    for (int i = 0; i < body->len; i++) {
        const IrStmt *s = body->items[i];
        if (s->pos.line > line) line = s->pos.line;
        line = last_line(&s->body, line);
        line = last_line(&s->orelse, line);
    }
    return line;
}

typedef struct {
    int first, last;           /* source lines */
    CyVec calls;               /* TRec* */
    CyVec kernels;             /* CyOclSpan*: its kernels in the program */               /* TRec* */
} RInfo;

/* qsort has no context argument in C11: the page being written. */
static const RInfo *sort_info;

static int cmp_first(const void *x, const void *y) {
    const RInfo *a = &sort_info[*(const int *)x], *b = &sort_info[*(const int *)y];
    if (a->first != b->first) return a->first < b->first ? -1 : 1;
    return *(const int *)x - *(const int *)y;
}

static int cmp_last(const void *x, const void *y) {
    const RInfo *a = &sort_info[*(const int *)x], *b = &sort_info[*(const int *)y];
    if (a->last != b->last) return a->last < b->last ? -1 : 1;
    if (a->first != b->first) return a->first > b->first ? -1 : 1;
    return *(const int *)x - *(const int *)y;
}

static const char *CSS =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#1d232a;background:#f6f7f9}"
    "header{padding:14px 22px;background:#22303c;color:#eef2f5}"
    "header h1{font-size:19px;margin:0 0 4px}header .sub{color:#b8c4ce;font-size:13px}"
    "main{padding:14px 22px}"
    ".summary{display:flex;gap:10px;flex-wrap:wrap;margin:0 0 12px}"
    ".chip{padding:3px 10px;border-radius:12px;font-size:12.5px;border:1px solid #c9d1d8;background:#fff}"
    ".chip.ocl,.badge.ocl{background:#e3f6e8;border-color:#7cc893;color:#145a2a}"
    ".chip.native,.badge.native{background:#fdeedd;border-color:#eab072;color:#7a3d00}"
    ".tools button{font-size:12px;margin-right:6px;padding:2px 8px}"
    ".src{background:#fff;border:1px solid #d5dbe0;border-radius:6px;overflow:hidden}"
    ".line{display:flex;font:12.5px/1.5 ui-monospace,'DejaVu Sans Mono',Menlo,monospace;white-space:pre}"
    ".line .ln{flex:0 0 46px;text-align:right;padding-right:10px;color:#8a96a0;background:#f0f2f4;user-select:none}"
    ".line .code{padding-left:10px;border-left:4px solid transparent;flex:1}"
    ".line.in-ocl .code{border-left-color:#3fae63;background:#f3fbf5}"
    ".line.in-native .code{border-left-color:#e08a2c;background:#fff8f0}"
    "details.region{margin:0 0 0 46px;border-left:4px solid #999}"
    "details.region[data-decision=opencl]{border-left-color:#3fae63}"
    "details.region[data-decision=native]{border-left-color:#e08a2c}"
    "details.region>summary{cursor:pointer;list-style:none;padding:2px 10px;font-size:12.5px;background:#eef1f4}"
    "details.region>summary::-webkit-details-marker{display:none}"
    "details.region>summary:before{content:'\\25B6';font-size:9px;margin-right:6px;color:#66727c}"
    "details.region[open]>summary:before{content:'\\25BC'}"
    ".badge{display:inline-block;padding:0 8px;border-radius:9px;border:1px solid;font-weight:600;margin-right:6px}"
    ".rmark{margin-left:14px;padding:0 7px;border-radius:8px;font:11px system-ui,sans-serif;text-decoration:none;"
    "border:1px solid}.rmark.ocl{color:#145a2a;background:#e3f6e8;border-color:#7cc893}"
    ".rmark.native{color:#7a3d00;background:#fdeedd;border-color:#eab072}"
    ".reason{color:#7a3d00}.calls-n{color:#40505c;margin-left:8px}"
    ".panel{padding:8px 10px 12px;background:#fbfcfd;border-top:1px solid #e1e5e9}"
    ".sides{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:10px}"
    ".side h4{margin:2px 0 4px;font-size:12.5px;color:#33414d}"
    ".side pre{margin:0;max-height:330px;overflow:auto;background:#1e252c;color:#dfe6ec;padding:8px;border-radius:5px;"
    "font:11.5px/1.4 ui-monospace,'DejaVu Sans Mono',Menlo,monospace}"
    ".side .none{padding:8px;border:1px dashed #e0a060;border-radius:5px;color:#7a3d00;background:#fff8f0}"
    "table.calls{border-collapse:collapse;margin-top:10px;font-size:12px;background:#fff}"
    "table.calls th,table.calls td{border:1px solid #d9dee3;padding:2px 7px;text-align:right;white-space:nowrap}"
    "table.calls th{background:#eef1f4}table.calls td.l{text-align:left}"
    "tr.call[data-impl=opencl] td.impl{color:#145a2a;font-weight:600}"
    "tr.call[data-impl=native] td.impl{color:#7a3d00;font-weight:600}"
    ".callsum{margin-top:8px;font-size:12.5px}"
    "section.extra{margin-top:16px}section.extra pre{background:#1e252c;color:#dfe6ec;padding:8px;border-radius:5px;"
    "max-height:500px;overflow:auto;font:11.5px/1.4 ui-monospace,monospace}"
    ".note{color:#5a6670;font-size:12.5px}";

static const char *SCRIPT =
    "(function(){"
    "function all(o){document.querySelectorAll('details.region').forEach(function(d){d.open=o;});}"
    "document.getElementById('open-all').onclick=function(){all(true);};"
    "document.getElementById('close-all').onclick=function(){all(false);};"
    "function fromHash(){var h=decodeURIComponent(location.hash.slice(1));"
    "if(h==='all'){all(true);return;}"
    "var quiet=h.indexOf('open=')===0;"
    "(quiet?h.slice(5).split(','):[h]).forEach(function(id){var d=document.getElementById(id);"
    "if(d&&d.tagName==='DETAILS'){d.open=true;if(!quiet)d.scrollIntoView();}});}"
    "window.addEventListener('hashchange',fromHash);fromHash();"
    "})();";

static void code_block(CyBuf *b, const char *title, const char *cls, const char *text, size_t n) {
    cy_buf_printf(b, "<div class=\"side %s\"><h4>", cls);
    esc(b, title);
    cy_buf_puts(b, "</h4><pre>");
    esc_n(b, text, n);
    cy_buf_puts(b, "</pre></div>");
}

/* The OpenCL program by lines: where each starts (line_off[nlines] = len). */
typedef struct {
    const char *text;
    size_t len;
    size_t *line_off;
    int nlines;
} ProgLines;

static int prog_lines_init(ProgLines *p, const CyOclProgram *ocl) {
    memset(p, 0, sizeof *p);
    if (!ocl || !ocl->len) return 0;
    p->text = ocl->source;
    p->len = ocl->len;
    int n = 1;
    for (size_t i = 0; i < p->len; i++) n += p->text[i] == '\n';
    if (!(p->line_off = malloc((size_t)(n + 1) * sizeof *p->line_off))) return -1;
    int k = 0;
    p->line_off[k++] = 0;
    for (size_t i = 0; i < p->len; i++)
        if (p->text[i] == '\n') p->line_off[k++] = i + 1;
    p->nlines = k;
    p->line_off[k] = p->len;
    return 0;
}

static void opencl_side(CyBuf *b, const CyReport *rep, const IrRegion *r, const CyVec *kernels, const ProgLines *p) {
    if (!rep->opencl || !r->ocl_ok || !rep->ocl) {
        cy_buf_puts(b, "<div class=\"side ocl\"><h4>OpenCL C</h4><div class=\"none\">No kernel: this region runs "
                       "natively only (");
        esc(b, native_reason(rep, r));
        cy_buf_puts(b, ").</div></div>");
        return;
    }
    CyBuf k = {0};
    for (int i = 0; i < kernels->len; i++) {
        const CyOclSpan *sp = kernels->items[i];
        int first = sp->first_line < 1 ? 1 : sp->first_line, last = sp->last_line > p->nlines ? p->nlines : sp->last_line;
        if (first > last) continue;
        if (k.len) cy_buf_puts(&k, "\n");
        cy_buf_printf(&k, "/* program lines %d-%d */\n", sp->first_line, sp->last_line);
        cy_buf_put(&k, p->text + p->line_off[first - 1], p->line_off[last] - p->line_off[first - 1]);
    }
    if (!k.len) cy_buf_puts(&k, "(no kernel found)");
    code_block(b, "OpenCL C (kernel, runs on the device)", "ocl", k.s, k.len);
    cy_buf_free(&k);
}

static void call_row(CyBuf *b, const TRec *c) {
    char pn[32], po[32], ns[32], kns[32], bd[32], bh[32];
    fmt_ns(pn, sizeof pn, c->pred_native);
    fmt_ns(po, sizeof po, c->pred_opencl);
    fmt_ns(ns, sizeof ns, c->ns);
    if (c->kernel_ns > 0) fmt_ns(kns, sizeof kns, c->kernel_ns);
    else snprintf(kns, sizeof kns, "–");
    fmt_bytes(bd, sizeof bd, c->to_dev);
    fmt_bytes(bh, sizeof bh, c->to_host);
    cy_buf_printf(b, "<tr class=\"call\" data-impl=\"%s\" data-ns=\"%lld\"><td>%d</td><td class=\"l\">",
                  !strcmp(c->impl, "opencl") ? "opencl" : "native", c->ns, c->lineno);
    esc(b, c->function);
    cy_buf_printf(b, "()</td><td>%lld</td><td class=\"l impl\">", c->n);
    esc(b, c->impl);
    if (c->kernel) {
        cy_buf_puts(b, " <span class=\"note\">");
        esc(b, c->kernel);
        if (c->variant) {
            cy_buf_puts(b, ", ");
            esc(b, c->variant);
        }
        cy_buf_puts(b, "</span>");
    }
    cy_buf_puts(b, "</td><td class=\"l\">");
    esc(b, c->device ? c->device : "host (OpenMP)");
    cy_buf_puts(b, "</td><td class=\"l\">");
    esc(b, c->reason ? c->reason : "");
    cy_buf_printf(b, "</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td class=\"l\">", pn, po,
                  ns, kns, bd, bh);
    esc(b, c->build ? c->build : "");
    cy_buf_puts(b, "</td></tr>\n");
}

enum { MAX_ROWS = 200 }; /* per region; the summary covers every call */

static void calls_table(CyBuf *b, const RInfo *ri, int id) {
    long long n_ocl = 0, n_nat = 0, t_ocl = 0, t_nat = 0, to_dev = 0, to_host = 0, compiled = 0, cached = 0;
    for (int i = 0; i < ri->calls.len; i++) {
        const TRec *c = ri->calls.items[i];
        int ocl = !strcmp(c->impl, "opencl");
        if (ocl) n_ocl++, t_ocl += c->ns > 0 ? c->ns : 0;
        else n_nat++, t_nat += c->ns > 0 ? c->ns : 0;
        to_dev += c->to_dev;
        to_host += c->to_host;
        if (c->build && !strcmp(c->build, "compiled")) compiled++;
        if (c->build && !strcmp(c->build, "cache")) cached++;
    }
    char a[32], bb[32], d1[32], d2[32];
    fmt_ns(a, sizeof a, n_ocl ? t_ocl / n_ocl : -1);
    fmt_ns(bb, sizeof bb, n_nat ? t_nat / n_nat : -1);
    fmt_bytes(d1, sizeof d1, to_dev);
    fmt_bytes(d2, sizeof d2, to_host);
    cy_buf_printf(b, "<div class=\"callsum\" data-region=\"%d\" data-calls=\"%d\"><b>%d call%s</b>: %lld on OpenCL "
                  "(mean %s), %lld native (mean %s); %s to the device, %s back; OpenCL program %lld× built, "
                  "%lld× from the kernel cache.</div>\n",
                  id, ri->calls.len, ri->calls.len, ri->calls.len == 1 ? "" : "s", n_ocl, a, n_nat, bb, d1, d2,
                  compiled, cached);
    cy_buf_printf(b, "<table class=\"calls\" data-region=\"%d\"><tr><th>trace line</th><th>function</th><th>n</th>"
                     "<th>impl</th><th>device</th><th>reason</th><th>predicted native</th><th>predicted OpenCL</th>"
                     "<th>measured</th><th>kernel</th><th>to device</th><th>to host</th><th>build</th></tr>\n", id);
    for (int i = 0; i < ri->calls.len && i < MAX_ROWS; i++) call_row(b, ri->calls.items[i]);
    cy_buf_puts(b, "</table>\n");
    if (ri->calls.len > MAX_ROWS)
        cy_buf_printf(b, "<p class=\"note\">The first %d of %d calls are listed.</p>\n", MAX_ROWS, ri->calls.len);
}

static void region_block(CyBuf *b, const CyReport *rep, const IrRegion *r, const RInfo *ri, const ProgLines *p) {
    int ocl = rep->opencl && r->ocl_ok;
    cy_buf_printf(b, "<details class=\"region\" id=\"region-%d\" data-region=\"%d\" data-decision=\"%s\" "
                     "data-kind=\"%s\" data-line=\"%d\" data-last-line=\"%d\" data-function=\"",
                  r->id, r->id, ocl ? "opencl" : "native", region_kind(r), r->pos.line, ri->last);
    esc(b, func_name(r));
    cy_buf_puts(b, "\"");
    if (!ocl) {
        cy_buf_puts(b, " data-reason=\"");
        esc(b, native_reason(rep, r));
        cy_buf_puts(b, "\"");
    }
    if (rep->trace) cy_buf_printf(b, " data-calls=\"%d\"", ri->calls.len);
    cy_buf_printf(b, "><summary>region %d · %s in ", r->id, kind_words(r));
    esc(b, func_name(r));
    cy_buf_puts(b, "() · ");
    if (ocl) {
        cy_buf_puts(b, "<span class=\"badge ocl\">OpenCL and native</span>the dispatcher picks per call");
    } else {
        cy_buf_puts(b, "<span class=\"badge native\">native only</span><span class=\"reason\">");
        esc(b, native_reason(rep, r));
        cy_buf_puts(b, "</span>");
    }
    if (rep->trace)
        cy_buf_printf(b, "<span class=\"calls-n\">· %d call%s traced</span>", ri->calls.len,
                      ri->calls.len == 1 ? "" : "s");
    cy_buf_puts(b, "</summary><div class=\"panel\"><div class=\"sides\">");
    const char *c = rep->region_code ? rep->region_code[r->id] : NULL;
    /* a block that is its prange (ir/parallel.c) has no code of its own */
    char none[96];
    if (!c && r->as_prange) {
        snprintf(none, sizeof none, "(none: the block runs as its prange, region %d)", r->as_prange->id);
        c = none;
    }
    code_block(b, "C (native: OpenMP, and the host side of a launch)", "c", c ? c : "(not generated)",
               strlen(c ? c : "(not generated)"));
    opencl_side(b, rep, r, &ri->kernels, p);
    cy_buf_puts(b, "</div>");
    if (rep->trace) {
        if (ri->calls.len)
            calls_table(b, ri, r->id);
        else if (r->as_prange)
            cy_buf_printf(b, "<p class=\"note callsum\" data-region=\"%d\" data-calls=\"0\">This parallel() block "
                             "runs as its prange, region %d: the trace has that region's calls.</p>",
                          r->id, r->as_prange->id);
        else if (r->parent)
            cy_buf_printf(b, "<p class=\"note callsum\" data-region=\"%d\" data-calls=\"0\">This prange runs inside "
                             "the parallel() block of region %d, on its side: the trace has that region's calls.</p>",
                          r->id, r->parent->id);
        else
            cy_buf_printf(b, "<p class=\"note callsum\" data-region=\"%d\" data-calls=\"0\">No call of this region "
                             "in the trace.</p>", r->id);
    }
    cy_buf_puts(b, "</div></details>\n");
}

void cy_report_html(CyBuf *b, const CyReport *rep) {
    const IrModule *m = rep->ir;
    const CySource *src = rep->src;
    int nreg = m->regions.len;
    RInfo *info = calloc((size_t)(nreg ? nreg : 1), sizeof *info);
    CyArena *a = cy_arena_new();
    if (!info) {
        cy_arena_free(a);
        return;
    }
    int nocl = 0;
    for (int i = 0; i < nreg; i++) {
        IrRegion *r = m->regions.items[i];
        IrStmt *s = cy_ir_region_stmt(r->func ? &r->func->body : (CyVec *)&m->init, r);
        info[i].first = r->pos.line;
        info[i].last = s ? last_line(&s->body, r->pos.line) : r->pos.line;
        nocl += rep->opencl && r->ocl_ok;
    }
    for (int i = 0; rep->ocl && i < rep->ocl->spans.len; i++) {
        CyOclSpan *sp = rep->ocl->spans.items[i];
        if (sp->kind == CY_SPAN_KERNEL && sp->region && sp->region->id >= 0 && sp->region->id < nreg)
            cy_vec_push(a, &info[sp->region->id].kernels, sp);
    }
    CyVec syncs = {0};
    int ncalls = 0, nother = 0;
    if (rep->trace) {
        for (int i = 0; i < rep->trace->recs.len; i++) {
            TRec *t = rep->trace->recs.items[i];
            if (strcmp(t->module, src->modname) != 0) nother++;
            else if (t->event) cy_vec_push(a, &syncs, t);
            else if (t->region >= 0 && t->region < nreg) cy_vec_push(a, &info[t->region].calls, t), ncalls++;
        }
    }

    cy_buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>cyocl annotate: ");
    esc(b, src->name);
    cy_buf_printf(b, "</title>\n<style>%s</style>\n</head>\n<body>\n<header><h1>", CSS);
    esc(b, src->name);
    cy_buf_puts(b, "</h1><div class=\"sub\">cyocl annotate · module <code>");
    esc(b, src->modname);
    cy_buf_puts(b, "</code>");
    if (rep->flags && *rep->flags) {
        cy_buf_puts(b, " · <code>");
        esc(b, rep->flags);
        cy_buf_puts(b, "</code>");
    }
    if (rep->trace) {
        cy_buf_puts(b, " · trace <code>");
        esc(b, rep->trace_path);
        cy_buf_puts(b, "</code>");
    }
    cy_buf_puts(b, "</div></header>\n<main>\n");
    cy_buf_printf(b, "<div class=\"summary\" id=\"summary\" data-regions=\"%d\" data-opencl=\"%d\" data-native=\"%d\"%s>"
                     "<span class=\"chip\">%d parallel region%s</span><span class=\"chip ocl\">%d OpenCL and native"
                     "</span><span class=\"chip native\">%d native only</span>",
                  nreg, nocl, nreg - nocl, rep->trace ? " data-trace=\"1\"" : "", nreg, nreg == 1 ? "" : "s", nocl,
                  nreg - nocl);
    if (rep->trace)
        cy_buf_printf(b, "<span class=\"chip\">%d traced call%s, %d transfer%s outside regions%s</span>", ncalls,
                      ncalls == 1 ? "" : "s", syncs.len, syncs.len == 1 ? "" : "s",
                      nother ? " (lines of other modules left out)" : "");
    cy_buf_puts(b, "<span class=\"tools\"><button id=\"open-all\" type=\"button\">open all</button>"
                   "<button id=\"close-all\" type=\"button\">close all</button></span></div>\n");
    cy_buf_puts(b, "<p class=\"note\">Click a region to see the C that runs it natively (OpenMP) beside the OpenCL "
                   "kernel that runs it on a device. Regions marked <i>OpenCL and native</i> have both: the "
                   "dispatcher chooses per call (<code>CYOCL_FORCE</code> overrides it).</p>\n");

    /* the listing: each line, and after a region's last line its block
       (its lines carry its colour, the innermost region's, and its first
       line a link to the block) */
    cy_buf_puts(b, "<div class=\"src\" id=\"source\">\n");
    int nlines = source_lines(src);
    /* linear in lines + regions: the innermost region of each line (regions
       painted in order of their first line, so an inner one paints last),
       and the regions in the order of their first and of their last line */
    int *inner = malloc((size_t)(nlines + 2) * sizeof *inner);
    int *by_first = malloc((size_t)(nreg + 1) * sizeof *by_first);
    int *by_last = malloc((size_t)(nreg + 1) * sizeof *by_last);
    ProgLines prog;
    if (!inner || !by_first || !by_last || prog_lines_init(&prog, rep->ocl) != 0) {
        free(inner), free(by_first), free(by_last), free(info);
        cy_arena_free(a);
        return;
    }
    for (int i = 0; i < nreg; i++) by_first[i] = by_last[i] = i;
    sort_info = info;
    qsort(by_first, (size_t)nreg, sizeof *by_first, cmp_first);
    qsort(by_last, (size_t)nreg, sizeof *by_last, cmp_last);
    for (int ln = 0; ln <= nlines + 1; ln++) inner[ln] = -1;
    for (int k = 0; k < nreg; k++) {
        const RInfo *f = &info[by_first[k]];
        for (int ln = f->first < 1 ? 1 : f->first; ln <= f->last && ln <= nlines; ln++) inner[ln] = by_first[k];
    }
    size_t off = 0;
    int kf = 0, kl = 0;
    for (int ln = 1; ln <= nlines; ln++) {
        const char *s = src->text + off;
        const char *nl = memchr(s, '\n', src->len - off);
        size_t n = nl ? (size_t)(nl - s) : src->len - off;
        off += n + (nl != NULL);
        if (n && s[n - 1] == '\r') n--;
        const IrRegion *in = inner[ln] >= 0 ? m->regions.items[inner[ln]] : NULL;
        const char *cls = !in ? "" : rep->opencl && in->ocl_ok ? " in-ocl" : " in-native";
        cy_buf_printf(b, "<div class=\"line%s\" id=\"L%d\" data-line=\"%d\"><span class=\"ln\">%d</span>"
                         "<span class=\"code\">", cls, ln, ln, ln);
        esc_n(b, s, n);
        for (; kf < nreg && info[by_first[kf]].first <= ln; kf++) {
            const IrRegion *r = m->regions.items[by_first[kf]];
            cy_buf_printf(b, "<a class=\"rmark %s\" href=\"#region-%d\">region %d</a>",
                          rep->opencl && r->ocl_ok ? "ocl" : "native", r->id, r->id);
        }
        cy_buf_puts(b, n ? "</span></div>\n" : " </span></div>\n");
        /* the blocks of the regions ending here: an enclosing region (it
           starts earlier) after those inside it, else in region order */
        for (; kl < nreg && (info[by_last[kl]].last <= ln || ln == nlines); kl++)
            region_block(b, rep, m->regions.items[by_last[kl]], &info[by_last[kl]], &prog);
    }
    free(inner);
    free(by_first);
    free(by_last);
    free(prog.line_off);
    cy_buf_puts(b, "</div>\n");

    if (rep->trace && syncs.len) {
        cy_buf_puts(b, "<section class=\"extra\" id=\"transfers\"><h3>Data brought back outside regions</h3>"
                       "<table class=\"calls\"><tr><th>trace line</th><th>function</th><th>line</th><th>reason</th>"
                       "<th>to device</th><th>to host</th><th>time</th></tr>\n");
        for (int i = 0; i < syncs.len && i < 10 * MAX_ROWS; i++) {
            const TRec *t = syncs.items[i];
            char d1[32], d2[32], ns[32];
            fmt_bytes(d1, sizeof d1, t->to_dev);
            fmt_bytes(d2, sizeof d2, t->to_host);
            fmt_ns(ns, sizeof ns, t->ns);
            cy_buf_printf(b, "<tr class=\"sync\"><td>%d</td><td class=\"l\">", t->lineno);
            esc(b, t->function);
            cy_buf_printf(b, "()</td><td><a href=\"#L%lld\">%lld</a></td><td class=\"l\">", t->line, t->line);
            esc(b, t->reason);
            cy_buf_printf(b, "</td><td>%s</td><td>%s</td><td>%s</td></tr>\n", d1, d2, ns);
        }
        cy_buf_puts(b, "</table></section>\n");
    }
    if (rep->trace && rep->trace->nskipped)
        cy_buf_printf(b, "<p class=\"note\">%d line%s of the trace are not trace lines and were skipped (the first: "
                         "line %d).</p>\n", rep->trace->nskipped, rep->trace->nskipped == 1 ? "" : "s",
                      rep->trace->first_skipped);
    if (rep->ocl && rep->ocl->len) {
        cy_buf_printf(b, "<section class=\"extra\"><details id=\"opencl-program\"><summary>The module's whole OpenCL "
                         "program (%d kernel%s, with the helpers they share)</summary><pre>",
                      rep->ocl->nkernels, rep->ocl->nkernels == 1 ? "" : "s");
        esc_n(b, rep->ocl->source, rep->ocl->len);
        cy_buf_puts(b, "</pre></details></section>\n");
    }
    cy_buf_printf(b, "</main>\n<script>%s</script>\n</body></html>\n", SCRIPT);
    free(info);
    cy_arena_free(a);
}
