/* clcheck.c: the generated OpenCL program through libclang's front end,
 * so that a kernel the backend got wrong is an internal error at compile
 * time, not a build failure on the user's device.
 *
 * libclang is opened with dlopen (no build-time dependency; any version
 * 14-18 works: the few C-API functions used are declared here), in a
 * forked child: a crash, a hang in static destructors or leak reports of
 * LLVM cannot affect cyocl.  The child writes a CyClResult into a pipe.
 *
 * The program is parsed as OpenCL C 1.2 with clang's default header (the
 * built-in declarations); when that header is missing, again with the
 * small set of declarations below, which covers everything oclgen.c emits.
 * CYOCL_LIBCLANG=PATH picks the library (a path that cannot be loaded
 * skips the check); CYOCL_CLCHECK_OWN_DECLS=1 forces the fallback
 * declarations (for the tests). */
#define _GNU_SOURCE
#include "oclgen.h"
#include <dlfcn.h>
#include <errno.h>
#include <glob.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- the libclang C API (clang-c/Index.h), declared by hand ----------- */

typedef void *CXIndex;
typedef void *CXTranslationUnit;
typedef void *CXDiagnostic;
typedef struct {
    const void *data;
    unsigned private_flags;
} CXString;
struct CXUnsavedFile {
    const char *Filename;
    const char *Contents;
    unsigned long Length;
};
enum { CXDiagnostic_Error = 3, CXDiagnostic_Fatal = 4 };
enum { CXDiagnostic_DisplaySourceLocation = 1, CXDiagnostic_DisplayColumn = 2 };

typedef struct {
    CXIndex (*createIndex)(int, int);
    CXTranslationUnit (*parse)(CXIndex, const char *, const char *const *, int, struct CXUnsavedFile *, unsigned,
                               unsigned);
    unsigned (*numDiagnostics)(CXTranslationUnit);
    CXDiagnostic (*getDiagnostic)(CXTranslationUnit, unsigned);
    int (*severity)(CXDiagnostic);
    CXString (*format)(CXDiagnostic, unsigned);
    const char *(*cstring)(CXString);
    void (*disposeString)(CXString);
    void (*disposeDiagnostic)(CXDiagnostic);
    void (*disposeTU)(CXTranslationUnit);
    void (*disposeIndex)(CXIndex);
} Clang;

#define PROGRAM_NAME "cyocl_kernels.cl"
#define DECLS_NAME "/cyocl-virtual/cyocl_opencl_decls.h"

/* Declarations of the OpenCL built-ins oclgen.c uses, for a libclang
 * without its opencl-c.h. */
static const char OWN_DECLS[] =
    "typedef unsigned char uchar;\n"
    "typedef unsigned short ushort;\n"
    "typedef unsigned int uint;\n"
    "typedef unsigned long ulong;\n"
    "typedef __SIZE_TYPE__ size_t;\n"
    "typedef uint cl_mem_fence_flags;\n"
    "#define CLK_LOCAL_MEM_FENCE 0x01\n"
    "#define CLK_GLOBAL_MEM_FENCE 0x02\n"
    "#ifndef cl_khr_fp64\n#define cl_khr_fp64 1\n#endif\n"
    "#define CY_OVL __attribute__((overloadable))\n"
    "#define CY_CONST __attribute__((overloadable, const))\n"
    "size_t __attribute__((const)) get_global_id(uint);\n"
    "size_t __attribute__((const)) get_global_size(uint);\n"
    "size_t __attribute__((const)) get_local_id(uint);\n"
    "size_t __attribute__((const)) get_local_size(uint);\n"
    "size_t __attribute__((const)) get_group_id(uint);\n"
    "void barrier(cl_mem_fence_flags);\n"
    "int CY_OVL atomic_cmpxchg(volatile __global int *, int, int);\n"
    "uint CY_OVL atomic_cmpxchg(volatile __global uint *, uint, uint);\n"
    "#define CY_F1(n) float CY_CONST n(float); double CY_CONST n(double);\n"
    "#define CY_F2(n) float CY_CONST n(float, float); double CY_CONST n(double, double);\n"
    "#define CY_I1(n) int CY_CONST n(float); int CY_CONST n(double);\n"
    "CY_F1(sqrt) CY_F1(exp) CY_F1(exp2) CY_F1(expm1) CY_F1(log) CY_F1(log2) CY_F1(log10) CY_F1(log1p)\n"
    "CY_F1(sin) CY_F1(cos) CY_F1(tan) CY_F1(asin) CY_F1(acos) CY_F1(atan) CY_F1(sinh) CY_F1(cosh)\n"
    "CY_F1(tanh) CY_F1(asinh) CY_F1(acosh) CY_F1(atanh) CY_F1(fabs) CY_F1(floor) CY_F1(ceil)\n"
    "CY_F1(round) CY_F1(trunc) CY_F1(rint) CY_F1(cbrt) CY_F1(erf) CY_F1(erfc) CY_F1(tgamma) CY_F1(lgamma)\n"
    "CY_F2(pow) CY_F2(atan2) CY_F2(fmod) CY_F2(hypot) CY_F2(fmin) CY_F2(fmax) CY_F2(copysign)\n"
    "CY_F2(fdim) CY_F2(remainder) CY_F1(logb) CY_F2(nextafter) CY_I1(ilogb)\n"
    "float CY_CONST ldexp(float, int); double CY_CONST ldexp(double, int);\n"
    "float CY_CONST fma(float, float, float); double CY_CONST fma(double, double, double);\n"
    "CY_I1(isnan) CY_I1(isinf) CY_I1(isfinite) CY_I1(signbit)\n"
    "#define CY_MM(t, u) t CY_CONST min(t, t); t CY_CONST max(t, t); u CY_CONST abs(t);\n"
    "CY_MM(char, uchar) CY_MM(uchar, uchar) CY_MM(short, ushort) CY_MM(ushort, ushort)\n"
    "CY_MM(int, uint) CY_MM(uint, uint) CY_MM(long, ulong) CY_MM(ulong, ulong)\n"
    "#define INT_MAX 2147483647\n"
    "#define INT_MIN (-2147483647 - 1)\n"
    "#define LONG_MAX 0x7fffffffffffffffL\n"
    "#define LONG_MIN (-0x7fffffffffffffffL - 1)\n"
    "#define INFINITY __builtin_inff()\n"
    "#define NAN __builtin_nanf(\"\")\n"
    "#define HUGE_VALF __builtin_huge_valf()\n"
    "#define HUGE_VAL __builtin_huge_val()\n"
    "#define M_E 2.718281828459045090796\n"
    "#define M_LOG2E 1.442695040888963387005\n"
    "#define M_LOG10E 0.434294481903251816668\n"
    "#define M_LN2 0.693147180559945286227\n"
    "#define M_LN10 2.302585092994045901094\n"
    "#define M_PI 3.141592653589793115998\n"
    "#define M_PI_2 1.570796326794896557999\n"
    "#define M_PI_4 0.785398163397448278999\n"
    "#define M_1_PI 0.318309886183790691216\n"
    "#define M_2_PI 0.636619772367581382433\n"
    "#define M_2_SQRTPI 1.128379167095512558561\n"
    "#define M_SQRT2 1.414213562373095145475\n"
    "#define M_SQRT1_2 0.707106781186547572737\n"
    "#define M_E_F 2.71828174591064f\n"
    "#define M_LOG2E_F 1.44269502162933f\n"
    "#define M_LOG10E_F 0.43429449200630f\n"
    "#define M_LN2_F 0.69314718246460f\n"
    "#define M_LN10_F 2.30258512496948f\n"
    "#define M_PI_F 3.14159274101257f\n"
    "#define M_PI_2_F 1.57079637050629f\n"
    "#define M_PI_4_F 0.78539818525314f\n"
    "#define M_1_PI_F 0.31830987334251f\n"
    "#define M_2_PI_F 0.63661974668503f\n"
    "#define M_2_SQRTPI_F 1.12837922573090f\n"
    "#define M_SQRT2_F 1.41421353816986f\n"
    "#define M_SQRT1_2_F 0.70710676908493f\n";

static int load_syms(void *h, Clang *c) {
#define SYM(field, name) \
    if (!(*(void **)&c->field = dlsym(h, name))) return -1;
    SYM(createIndex, "clang_createIndex")
    SYM(parse, "clang_parseTranslationUnit")
    SYM(numDiagnostics, "clang_getNumDiagnostics")
    SYM(getDiagnostic, "clang_getDiagnostic")
    SYM(severity, "clang_getDiagnosticSeverity")
    SYM(format, "clang_formatDiagnostic")
    SYM(cstring, "clang_getCString")
    SYM(disposeString, "clang_disposeString")
    SYM(disposeDiagnostic, "clang_disposeDiagnostic")
    SYM(disposeTU, "clang_disposeTranslationUnit")
    SYM(disposeIndex, "clang_disposeIndex")
#undef SYM
    return 0;
}

static void *try_open(const char *path, Clang *c, CyClResult *res) {
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) return NULL;
    if (load_syms(h, c) < 0) {
        dlclose(h);
        return NULL;
    }
    snprintf(res->library, sizeof res->library, "%s", path);
    return h;
}

static int version_of(const char *path) {
    const char *p = strstr(path, "llvm-");
    return p ? atoi(p + 5) : 0;
}

static int by_version_desc(const void *a, const void *b) {
    return version_of(*(char *const *)b) - version_of(*(char *const *)a);
}

/* The library: CYOCL_LIBCLANG, else the usual names, newest first. */
static void *open_libclang(Clang *c, CyClResult *res) {
    const char *env = getenv("CYOCL_LIBCLANG");
    if (env && *env) {
        void *h = try_open(env, c, res);
        if (!h) snprintf(res->msg, sizeof res->msg, "cannot load libclang '%s' (CYOCL_LIBCLANG)", env);
        return h;
    }
    static const char *const names[] = {"libclang.so",       "libclang-18.so.1", "libclang-17.so.1",
                                        "libclang-16.so.1",  "libclang-15.so.1", "libclang-14.so.1",
                                        "libclang.so.1",     NULL};
    for (int i = 0; names[i]; i++) {
        void *h = try_open(names[i], c, res);
        if (h) return h;
    }
    glob_t g;
    void *h = NULL;
    if (glob("/usr/lib/llvm-*/lib/libclang*.so*", 0, NULL, &g) == 0) {
        qsort(g.gl_pathv, g.gl_pathc, sizeof(char *), by_version_desc);
        for (size_t i = 0; i < g.gl_pathc && !h; i++)
            if (!strstr(g.gl_pathv[i], "libclang-cpp")) h = try_open(g.gl_pathv[i], c, res);
        globfree(&g);
    }
    if (!h) snprintf(res->msg, sizeof res->msg, "libclang not found (install libclang1, or set CYOCL_LIBCLANG)");
    return h;
}

/* "FILE:LINE:COL: error: MSG" -> line, col, and res->msg without FILE */
static void record_error(const char *text, CyClResult *res) {
    res->status = CY_CLCHECK_ERROR;
    const char *p = text;
    size_t n = strlen(PROGRAM_NAME);
    if (!strncmp(p, PROGRAM_NAME ":", n + 1)) {
        char *end;
        res->line = (int)strtol(p + n + 1, &end, 10);
        if (*end == ':') res->col = (int)strtol(end + 1, NULL, 10);
        p += n + 1;
    }
    snprintf(res->msg, sizeof res->msg, "%s", p);
}

/* Parses once; returns 1 when the default header was missing. */
static int parse_once(Clang *c, const char *src, size_t len, int own_decls, CyClResult *res) {
    const char *base_args[] = {"-x", "cl", "-cl-std=CL1.2", "-Xclang", "-finclude-default-header"};
    const char *own_args[] = {"-x", "cl", "-cl-std=CL1.2", "-cl-no-stdinc", "-include", DECLS_NAME};
    struct CXUnsavedFile files[2] = {{PROGRAM_NAME, src, len}, {DECLS_NAME, OWN_DECLS, sizeof OWN_DECLS - 1}};
    CXIndex idx = c->createIndex(0, 0);
    CXTranslationUnit tu = own_decls ? c->parse(idx, PROGRAM_NAME, own_args, 6, files, 2, 0)
                                     : c->parse(idx, PROGRAM_NAME, base_args, 5, files, 1, 0);
    int missing_header = 0;
    if (!tu) {
        res->status = CY_CLCHECK_SKIPPED;
        snprintf(res->msg, sizeof res->msg, "libclang (%s) could not parse the program", res->library);
        c->disposeIndex(idx);
        return 0;
    }
    res->status = CY_CLCHECK_OK;
    unsigned nd = c->numDiagnostics(tu);
    for (unsigned i = 0; i < nd && res->status == CY_CLCHECK_OK; i++) {
        CXDiagnostic dg = c->getDiagnostic(tu, i);
        int sev = c->severity(dg);
        if (sev == CXDiagnostic_Error || sev == CXDiagnostic_Fatal) {
            CXString s = c->format(dg, CXDiagnostic_DisplaySourceLocation | CXDiagnostic_DisplayColumn);
            const char *text = c->cstring(s);
            text = text ? text : "?";
            if (!own_decls && sev == CXDiagnostic_Fatal && strstr(text, "opencl-c") && strstr(text, "not found"))
                missing_header = 1;
            else
                record_error(text, res);
            c->disposeString(s);
        }
        c->disposeDiagnostic(dg);
    }
    c->disposeTU(tu);
    c->disposeIndex(idx);
    return missing_header;
}

/* ---- one of each kind of kernel ------------------------------------------
 *
 * A large module repeats a few kernel shapes many times: the same loop over
 * other arrays, other cdef functions of one form.  Two kernels (or helpers)
 * whose texts are equal once the names the backend made up are renamed
 * consistently are both valid OpenCL or both invalid, so the check parses
 * the first of each set and leaves blank lines for the others (the program's
 * line numbers stay valid).  The comparison is exact: comments become a
 * space and runs of blanks one (as C's translation phase 3 has it), newlines
 * stay; a name is renamed only when the backend made it up (prefix v_ or
 * cy_) and the shared part of the program (support code, prototypes) does
 * not declare it; a call of another helper becomes the set of that helper's
 * definition; literals, built-ins and types must be equal. */

typedef struct {
    const char *s;
    int len, id;
    unsigned gen;
} LocalName;

typedef struct {
    LocalName *ents;
    int cap, used;
    unsigned gen; /* entries of older generations are free: no clearing per span */
} Locals;

static unsigned hash_bytes(const char *s, int n) {
    unsigned h = 2166136261u;
    for (int i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static int local_id(Locals *t, const char *s, int n) {
    if (t->used * 2 >= t->cap) { /* grow; keeps only the current generation */
        int cap = t->cap ? t->cap * 2 : 256;
        LocalName *e = calloc((size_t)cap, sizeof *e);
        if (!e) return -1;
        for (int i = 0; i < t->cap; i++)
            if (t->ents[i].s && t->ents[i].gen == t->gen) {
                unsigned k = hash_bytes(t->ents[i].s, t->ents[i].len) & (unsigned)(cap - 1);
                while (e[k].s) k = (k + 1) & (unsigned)(cap - 1);
                e[k] = t->ents[i];
            }
        free(t->ents);
        t->ents = e;
        t->cap = cap;
    }
    unsigned k = hash_bytes(s, n) & (unsigned)(t->cap - 1);
    for (;; k = (k + 1) & (unsigned)(t->cap - 1)) {
        LocalName *e = &t->ents[k];
        if (!e->s || e->gen != t->gen) {
            *e = (LocalName){s, n, t->used++, t->gen};
            return e->id;
        }
        if (e->len == n && !memcmp(e->s, s, (size_t)n)) return e->id;
    }
}

static int ident_start(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int ident_char(int c) { return ident_start(c) || (c >= '0' && c <= '9'); }

/* Calls f(ctx, p, n) for each identifier of text[0..len), comments and
 * literals skipped. */
static void each_ident(const char *t, size_t len, void (*f)(void *, const char *, int), void *ctx) {
    size_t i = 0;
    while (i < len) {
        char c = t[i];
        if (c == '/' && i + 1 < len && t[i + 1] == '*') {
            const char *e = memmem(t + i + 2, len - i - 2, "*/", 2);
            i = e ? (size_t)(e - t) + 2 : len;
        } else if (c == '/' && i + 1 < len && t[i + 1] == '/') {
            while (i < len && t[i] != '\n') i++;
        } else if (c == '"' || c == '\'') {
            for (i++; i < len && t[i] != c && t[i] != '\n'; i++)
                if (t[i] == '\\') i++;
            i++;
        } else if (c >= '0' && c <= '9') {
            while (i < len && (ident_char(t[i]) || t[i] == '.')) i++;
        } else if (ident_start(c)) {
            size_t b = i;
            while (i < len && ident_char(t[i])) i++;
            f(ctx, t + b, (int)(i - b));
        } else {
            i++;
        }
    }
}

typedef struct {
    CyArena *a;
    CyMap *globals;
} GlobalsCtx;

static void add_global(void *ctx, const char *s, int n) {
    GlobalsCtx *g = ctx;
    if (!cy_map_get(g->globals, s, (size_t)n)) cy_map_put(g->a, g->globals, s, (size_t)n, (void *)1);
}

static int made_up(const char *s, int n) {
    return (n > 2 && !memcmp(s, "v_", 2)) || (n > 3 && !memcmp(s, "cy_", 3));
}

/* The normalised text of one span into key (see above). */
static void span_key(const char *t, size_t len, const char *self, const CyMap *globals, const CyMap *helpers,
                     const int *cls, Locals *loc, CyBuf *key) {
    size_t selflen = self ? strlen(self) : 0;
    int blank = 0;
    key->len = 0;
    loc->gen++;
    loc->used = 0;
    size_t i = 0;
    while (i < len) {
        char c = t[i];
        if (c == '/' && i + 1 < len && t[i + 1] == '*') {
            const char *e = memmem(t + i + 2, len - i - 2, "*/", 2);
            i = e ? (size_t)(e - t) + 2 : len;
            blank = 1;
            continue;
        }
        if (c == '/' && i + 1 < len && t[i + 1] == '/') {
            while (i < len && t[i] != '\n') i++;
            blank = 1;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            i++;
            blank = 1;
            continue;
        }
        if (c == '\n') {
            cy_buf_put(key, "\n", 1);
            blank = 0;
            i++;
            continue;
        }
        if (blank) cy_buf_put(key, " ", 1);
        blank = 0;
        size_t b = i;
        if (c == '"' || c == '\'') {
            for (i++; i < len && t[i] != c && t[i] != '\n'; i++)
                if (t[i] == '\\') i++;
            i = i < len ? i + 1 : len;
            cy_buf_put(key, t + b, i - b);
        } else if (c >= '0' && c <= '9') {
            while (i < len && (ident_char(t[i]) || t[i] == '.' ||
                               ((t[i] == '+' || t[i] == '-') && strchr("eEpP", t[i - 1]))))
                i++;
            cy_buf_put(key, t + b, i - b);
        } else if (ident_start(c)) {
            while (i < len && ident_char(t[i])) i++;
            int n = (int)(i - b);
            void *h;
            if ((size_t)n == selflen && !memcmp(t + b, self, selflen)) {
                cy_buf_put(key, "\1S\2", 3);
            } else if ((h = cy_map_get(helpers, t + b, (size_t)n)) != NULL && cls[(intptr_t)h - 1] >= 0) {
                cy_buf_printf(key, "\1H%d\2", cls[(intptr_t)h - 1]);
            } else if (!cy_map_get(globals, t + b, (size_t)n) && made_up(t + b, n)) {
                cy_buf_printf(key, "\1L%d\2", local_id(loc, t + b, n));
            } else {
                cy_buf_put(key, t + b, (size_t)n);
            }
        } else {
            i++;
            cy_buf_put(key, t + b, 1);
        }
    }
}

int cy_ocl_span_classes(const CyOclProgram *p, int *cls) {
    int n = p->spans.len, distinct = 0;
    const char *src = p->source ? p->source : "";
    size_t len = p->len;
    /* line starts: a span is a range of lines */
    int nl = 1;
    for (size_t i = 0; i < len; i++) nl += src[i] == '\n';
    size_t *ls = malloc(((size_t)nl + 2) * sizeof *ls);
    char *shared = malloc((size_t)nl + 2); /* per line: outside every helper and kernel */
    CyArena *a = cy_arena_new();
    Locals loc = {0};
    CyBuf key = {0};
    if (!ls || !shared || !a) {
        for (int i = 0; i < n; i++) cls[i] = i;
        free(ls);
        free(shared);
        if (a) cy_arena_free(a);
        return n;
    }
    int ln = 1;
    ls[1] = 0;
    for (size_t i = 0; i < len; i++)
        if (src[i] == '\n') ls[++ln] = i + 1;
    ls[nl + 1] = len;
    memset(shared, 1, (size_t)nl + 2);
    CyMap helpers = {0}, globals = {0}, classes = {0};
    for (int i = 0; i < n; i++) {
        const CyOclSpan *s = p->spans.items[i];
        if (s->kind == CY_SPAN_SHARED || s->first_line < 1 || s->last_line > nl || s->first_line > s->last_line)
            continue;
        for (int l = s->first_line; l <= s->last_line; l++) shared[l] = 0;
        if (s->kind == CY_SPAN_HELPER && s->name)
            cy_map_put(a, &helpers, s->name, strlen(s->name), (void *)(intptr_t)(i + 1));
    }
    GlobalsCtx g = {a, &globals};
    for (int l = 1; l <= nl; l++) {
        if (!shared[l]) continue;
        int e = l;
        while (e + 1 <= nl && shared[e + 1]) e++;
        each_ident(src + ls[l], ls[e + 1] - ls[l], add_global, &g);
        l = e;
    }
    for (int i = 0; i < n; i++) cls[i] = -1;
    for (int i = 0; i < n; i++) {
        const CyOclSpan *s = p->spans.items[i];
        if (s->kind == CY_SPAN_SHARED || s->first_line < 1 || s->last_line > nl || s->first_line > s->last_line) {
            cls[i] = i;
            distinct++;
            continue;
        }
        const char *t = src + ls[s->first_line];
        span_key(t, ls[s->last_line + 1] - ls[s->first_line], s->name, &globals, &helpers, cls, &loc, &key);
        /* the kind (kernel or helper) is part of the key */
        cy_buf_put(&key, s->kind == CY_SPAN_KERNEL ? "K" : "F", 1);
        void *rep = cy_map_get(&classes, key.s, key.len);
        if (rep) {
            cls[i] = (int)(intptr_t)rep - 1;
        } else {
            cls[i] = i;
            distinct++;
            cy_map_put(a, &classes, cy_strndup(a, key.s, key.len), key.len, (void *)(intptr_t)(i + 1));
        }
    }
    cy_buf_free(&key);
    free(loc.ents);
    free(ls);
    free(shared);
    cy_arena_free(a);
    return distinct;
}

/* The program with only the first span of each class left (the others'
 * lines blank), malloc'ed; NULL when nothing is left out or out of memory. */
static char *one_of_each(const CyOclProgram *p, size_t *outlen, CyClResult *res) {
    int n = p->spans.len;
    res->parts = res->checked = 0;
    if (!n) return NULL;
    int *cls = malloc((size_t)n * sizeof *cls);
    if (!cls) return NULL;
    cy_ocl_span_classes(p, cls);
    const char *src = p->source;
    int nl = 1;
    for (size_t i = 0; i < p->len; i++) nl += src[i] == '\n';
    char *drop = calloc((size_t)nl + 2, 1);
    if (!drop) {
        free(cls);
        return NULL;
    }
    int dropped = 0;
    for (int i = 0; i < n; i++) {
        const CyOclSpan *s = p->spans.items[i];
        if (s->kind == CY_SPAN_SHARED) continue;
        res->parts++;
        if (cls[i] == i) {
            res->checked++;
            continue;
        }
        for (int l = s->first_line; l <= s->last_line && l <= nl; l++) drop[l] = 1;
        dropped = 1;
    }
    free(cls);
    char *out = dropped ? malloc(p->len + 1) : NULL;
    if (out) {
        size_t o = 0;
        int l = 1;
        for (size_t i = 0; i < p->len; i++) {
            if (!drop[l] || src[i] == '\n') out[o++] = src[i];
            l += src[i] == '\n';
        }
        out[o] = 0;
        *outlen = o;
    }
    free(drop);
    return out;
}

static void check_in_child(const CyOclProgram *p, CyClResult *res) {
    size_t len = p->len;
    char *reduced = one_of_each(p, &len, res);
    const char *src = reduced ? reduced : p->source;
    if (!reduced) len = p->len;
    Clang c;
    void *h = open_libclang(&c, res);
    if (!h) {
        res->status = CY_CLCHECK_SKIPPED;
        free(reduced);
        return;
    }
    const char *own = getenv("CYOCL_CLCHECK_OWN_DECLS");
    int force_own = own && *own && strcmp(own, "0");
    if (force_own || parse_once(&c, src, len, 0, res)) parse_once(&c, src, len, 1, res);
    free(reduced);
    /* no dlclose: LLVM's static destructors are not worth running */
}

static int write_all(int fd, const void *p, size_t n) {
    const char *s = p;
    while (n) {
        ssize_t k = write(fd, s, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        s += k;
        n -= (size_t)k;
    }
    return 0;
}

void cy_ocl_check_start(const CyOclProgram *p, CyClJob *c) {
    CyClResult *res = &c->res;
    memset(c, 0, sizeof *c);
    c->fd = -1;
    res->status = CY_CLCHECK_SKIPPED;
    int fds[2];
    if (pipe(fds) != 0) {
        snprintf(res->msg, sizeof res->msg, "cannot create a pipe: %s", strerror(errno));
        return;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(res->msg, sizeof res->msg, "cannot fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return;
    }
    if (pid == 0) {
        close(fds[0]);
        signal(SIGPIPE, SIG_IGN);
        alarm(120); /* a libclang that hangs: the check is skipped, not cyocl stuck */
        CyClResult r;
        memset(&r, 0, sizeof r);
        check_in_child(p, &r);
        int rc = write_all(fds[1], &r, sizeof r) == 0 ? 0 : 1;
        _exit(rc); /* no atexit handlers, no leak checks of LLVM's memory */
    }
    close(fds[1]);
    c->fd = fds[0];
    c->pid = (int)pid;
}

void cy_ocl_check_finish(CyClJob *c, CyClResult *res) {
    if (c->fd < 0) {
        *res = c->res;
        return;
    }
    CyClResult r;
    size_t got = 0;
    while (got < sizeof r) {
        ssize_t k = read(c->fd, (char *)&r + got, sizeof r - got);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        got += (size_t)k;
    }
    close(c->fd);
    c->fd = -1;
    int status = 0;
    while (waitpid((pid_t)c->pid, &status, 0) < 0 && errno == EINTR) {
    }
    *res = c->res;
    if (got == sizeof r) {
        *res = r;
        res->msg[sizeof res->msg - 1] = 0;
        res->library[sizeof res->library - 1] = 0;
        return;
    }
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
        snprintf(res->msg, sizeof res->msg, "libclang did not finish in 120 s");
    else if (WIFSIGNALED(status))
        snprintf(res->msg, sizeof res->msg, "libclang crashed (signal %d)", WTERMSIG(status));
    else
        snprintf(res->msg, sizeof res->msg, "the libclang check failed to report");
}

void cy_ocl_check(const CyOclProgram *p, CyClResult *res) {
    CyClJob c;
    cy_ocl_check_start(p, &c);
    cy_ocl_check_finish(&c, res);
}
