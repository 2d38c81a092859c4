/* base.c: arena, vectors, text buffers and diagnostics (see base.h). */
#include "base.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- arena ------------------------------------------------------------ */

/* Chunks are big so that a whole compilation usually fits in a handful of
 * mallocs; an allocation larger than a chunk gets a chunk of its own. */
#define CHUNK_SIZE (256 * 1024)
#define ALIGN 16

typedef struct Chunk {
    struct Chunk *next;
    size_t used, cap;
    /* the union forces the payload to start on a 16-byte boundary */
    union {
        long double ld;
        max_align_t ma;
        char c[ALIGN];
    } data[];
} Chunk;

struct CyArena {
    Chunk *head;
};

/* Out of memory is not a diagnostic the compiler can recover from, and the
 * callers are not written to check for NULL: stop here, loudly. */
static void oom(size_t n) {
    fprintf(stderr, "cyocl: out of memory (allocating %zu bytes)\n", n);
    abort();
}

static Chunk *chunk_new(size_t cap) {
    Chunk *c = calloc(1, sizeof(Chunk) + cap);
    if (!c)
        oom(cap);
    c->cap = cap;
    return c;
}

CyArena *cy_arena_new(void) {
    CyArena *a = calloc(1, sizeof(CyArena));
    if (!a)
        oom(sizeof(CyArena));
    return a;
}

void cy_arena_free(CyArena *a) {
    if (!a)
        return;
    for (Chunk *c = a->head, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    free(a);
}

void *cy_alloc(CyArena *a, size_t n) {
    if (n == 0)
        n = 1;
    if (n > SIZE_MAX - ALIGN)
        oom(n);
    size_t need = (n + ALIGN - 1) & ~(size_t)(ALIGN - 1);
    Chunk *c = a->head;
    if (!c || c->cap - c->used < need) {
        if (need > CHUNK_SIZE / 4) {
            /* a big block gets its own chunk, kept behind the current one so
             * the current chunk's free tail stays in use */
            Chunk *big = chunk_new(need);
            big->used = need;
            if (c) {
                big->next = c->next;
                c->next = big;
            } else {
                a->head = big;
            }
            return big->data;
        }
        c = chunk_new(CHUNK_SIZE);
        c->next = a->head;
        a->head = c;
    }
    void *p = (char *)c->data + c->used;
    c->used += need;
    return p; /* calloc'd and never reused: already zero */
}

char *cy_strndup(CyArena *a, const char *s, size_t n) {
    char *p = cy_alloc(a, n + 1);
    if (n)
        memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *cy_strdup(CyArena *a, const char *s) {
    return cy_strndup(a, s, strlen(s));
}

char *cy_fmt(CyArena *a, const char *fmt, ...) {
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    char *p = cy_alloc(a, (size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return p;
}

/* ---- vectors ---------------------------------------------------------- */

void cy_vec_push(CyArena *a, CyVec *v, void *item) {
    if (v->len == v->cap) {
        int cap = v->cap ? v->cap * 2 : 8;
        void **items = cy_alloc(a, sizeof(void *) * (size_t)cap);
        if (v->len)
            memcpy(items, v->items, sizeof(void *) * (size_t)v->len);
        v->items = items; /* the old storage stays in the arena */
        v->cap = cap;
    }
    v->items[v->len++] = item;
}

/* ---- hash maps -------------------------------------------------------- */

static unsigned bytes_hash(const void *key, size_t len) {
    const unsigned char *p = key;
    unsigned h = 2166136261u;
    for (size_t i = 0; i < len; i++) h = (h ^ p[i]) * 16777619u;
    return h;
}

static unsigned ptr_hash(const void *key) {
    uint64_t x = (uint64_t)(uintptr_t)key;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (unsigned)x;
}

static CyMapEnt *map_slot(const CyMap *m, const void *key, size_t len, unsigned h) {
    unsigned mask = (unsigned)m->cap - 1;
    for (unsigned i = h & mask;; i = (i + 1) & mask) {
        CyMapEnt *e = &m->ents[i];
        if (!e->key) return e;
        if (e->hash == h && e->len == len &&
            (len == SIZE_MAX ? e->key == key : !memcmp(e->key, key, len)))
            return e;
    }
}

static void *map_get(const CyMap *m, const void *key, size_t len, unsigned h) {
    if (!m->cap) return NULL;
    CyMapEnt *e = map_slot(m, key, len, h);
    return e->key ? e->val : NULL;
}

static void map_put(CyArena *a, CyMap *m, const void *key, size_t len, unsigned h, void *val) {
    if (2 * (m->len + 1) > m->cap) {
        CyMap old = *m;
        m->cap = m->cap ? m->cap * 2 : 16;
        m->ents = cy_alloc(a, (size_t)m->cap * sizeof *m->ents); /* the old table stays in the arena */
        m->len = 0;
        for (int i = 0; i < old.cap; i++)
            if (old.ents[i].key) map_put(a, m, old.ents[i].key, old.ents[i].len, old.ents[i].hash, old.ents[i].val);
    }
    CyMapEnt *e = map_slot(m, key, len, h);
    if (!e->key) {
        e->key = key;
        e->len = len;
        e->hash = h;
        m->len++;
    }
    e->val = val;
}

/* A zero-length byte key still needs a non-NULL address (NULL marks a free slot). */
void *cy_map_get(const CyMap *m, const void *key, size_t len) {
    return map_get(m, len ? key : "", len, bytes_hash(key, len));
}
void cy_map_put(CyArena *a, CyMap *m, const void *key, size_t len, void *val) {
    map_put(a, m, len ? key : "", len, bytes_hash(key, len), val);
}
void *cy_pmap_get(const CyMap *m, const void *key) { return map_get(m, key, SIZE_MAX, ptr_hash(key)); }
void cy_pmap_put(CyArena *a, CyMap *m, const void *key, void *val) { map_put(a, m, key, SIZE_MAX, ptr_hash(key), val); }

/* ---- text buffers ----------------------------------------------------- */

static void buf_reserve(CyBuf *b, size_t extra) {
    if (extra > SIZE_MAX - b->len - 1)
        oom(extra);
    size_t need = b->len + extra + 1; /* always room for the NUL */
    if (need <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    char *s = realloc(b->s, cap);
    if (!s)
        oom(cap);
    b->s = s;
    b->cap = cap;
}

void cy_buf_put(CyBuf *b, const char *s, size_t n) {
    buf_reserve(b, n);
    if (n)
        memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void cy_buf_puts(CyBuf *b, const char *s) {
    cy_buf_put(b, s, strlen(s));
}

void cy_buf_vprintf(CyBuf *b, const char *fmt, va_list ap) {
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    if (n > 0) {
        buf_reserve(b, (size_t)n);
        vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap2);
        b->len += (size_t)n;
    } else {
        buf_reserve(b, 0);
        b->s[b->len] = '\0';
    }
    va_end(ap2);
}

void cy_buf_printf(CyBuf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    cy_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

void cy_buf_free(CyBuf *b) {
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
}

/* ---- diagnostics ------------------------------------------------------ */

/* Finds line `line` (1-based) of the source; returns its start and sets
 * *len to its length without the newline (and without a '\r' before it). */
static const char *find_line(const CySource *src, int line, size_t *len) {
    if (!src || !src->text || line < 1)
        return NULL;
    const char *p = src->text, *end = src->text + src->len;
    for (int l = 1; l < line; l++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            return NULL;
        p = nl + 1;
    }
    if (p > end)
        return NULL;
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *e = nl ? nl : end;
    if (e > p && e[-1] == '\r')
        e--;
    if (e == p && !nl && p == end && line > 1)
        return NULL; /* past the last line */
    *len = (size_t)(e - p);
    return p;
}

/* Longer lines (a generated chain of 20,000 operands) show a window of
 * about SHOW_WIDTH bytes around the column, with "..." where it is cut. */
enum { SHOW_WIDTH = 160, SHOW_BEFORE = 80 };

static void show_source(FILE *out, const CySource *src, CyPos p) {
    size_t len;
    const char *s = find_line(src, p.line, &len);
    if (!s)
        return;
    size_t col = p.col > 0 ? (size_t)p.col - 1 : 0, from = 0, to = len;
    if (len > SHOW_WIDTH) {
        from = col > SHOW_BEFORE ? col - SHOW_BEFORE : 0;
        while (from > 0 && from < len && ((unsigned char)s[from] & 0xC0) == 0x80)
            from--; /* not in the middle of a UTF-8 character */
        to = from + SHOW_WIDTH < len ? from + SHOW_WIDTH : len;
        while (to < len && ((unsigned char)s[to] & 0xC0) == 0x80)
            to++;
    }
    fputs(from > 0 ? "    ..." : "    ", out);
    for (size_t i = from; i < to; i++)
        fputc(s[i] ? s[i] : ' ', out);
    fputs(to < len ? "...\n    " : "\n    ", out);
    if (from > 0)
        fputs("   ", out);
    /* col counts bytes; pad with one column per character, keeping tabs so
     * the caret lines up however the terminal expands them */
    for (size_t i = from; i < col; i++) {
        unsigned char ch = i < len ? (unsigned char)s[i] : ' ';
        if ((ch & 0xC0) == 0x80)
            continue; /* UTF-8 continuation byte: same character */
        fputc(ch == '\t' ? '\t' : ' ', out);
    }
    fputs("^\n", out);
}

const CySource *cy_pos_source(const CyDiag *d, CyPos p) {
    if (d && p.file > 0 && p.file <= d->files.len)
        return d->files.items[p.file - 1];
    return d ? d->src : NULL;
}

/* The chain of positions from the main file down to p: p's file's
 * inclusion point, its includer's, ... (at most depth entries, outermost first). */
static int pos_chain(const CyDiag *d, CyPos p, CyPos *chain, int depth) {
    int n = 0;
    CyPos tmp[32];
    while (n < 32) {
        tmp[n++] = p;
        const CySource *s = p.file > 0 ? cy_pos_source(d, p) : NULL;
        if (!s || s->id == 0)
            break;
        p = s->included_at;
    }
    int k = 0;
    for (int i = n - 1; i >= 0 && k < depth; i--)
        chain[k++] = tmp[i];
    return k;
}

int cy_pos_before(const CyDiag *d, CyPos a, CyPos b) {
    if (a.file == b.file)
        return a.line < b.line || (a.line == b.line && a.col < b.col);
    CyPos ca[32], cb[32];
    int na = pos_chain(d, a, ca, 32), nb = pos_chain(d, b, cb, 32);
    for (int i = 0; i < na && i < nb; i++) {
        if (ca[i].line != cb[i].line || ca[i].col != cb[i].col || ca[i].file != cb[i].file)
            return ca[i].line < cb[i].line || (ca[i].line == cb[i].line && ca[i].col < cb[i].col);
    }
    return na < nb; /* the include statement comes before the text it brings in */
}

static void report(CyDiag *d, const char *kind, CyPos p, const char *fmt, va_list ap) {
    FILE *out = d->out;
    if (!out)
        return;
    const CySource *src = cy_pos_source(d, p);
    const char *name = src && src->name ? src->name : "<input>";
    if (p.line > 0 && p.col > 0)
        fprintf(out, "%s:%d:%d: %s: ", name, p.line, p.col, kind);
    else if (p.line > 0)
        fprintf(out, "%s:%d: %s: ", name, p.line, kind);
    else
        fprintf(out, "%s: %s: ", name, kind);
    vfprintf(out, fmt, ap);
    fputc('\n', out);
    if (p.line > 0)
        show_source(out, src, p);
    fflush(out);
}

static int limit(const CyDiag *d) {
    return d->max_errors > 0 ? d->max_errors : 50;
}

void cy_error(CyDiag *d, CyPos p, const char *fmt, ...) {
    d->nerrors++;
    if (d->nerrors > limit(d)) {
        if (d->nerrors == limit(d) + 1 && d->out) {
            const char *name = d->src && d->src->name ? d->src->name : "<input>";
            fprintf(d->out, "%s: too many errors, stopping here\n", name);
            fflush(d->out);
        }
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    report(d, "error", p, fmt, ap);
    va_end(ap);
}

void cy_warning(CyDiag *d, CyPos p, const char *fmt, ...) {
    d->nwarnings++;
    if (d->nerrors > limit(d))
        return;
    va_list ap;
    va_start(ap, fmt);
    report(d, "warning", p, fmt, ap);
    va_end(ap);
}

void cy_note(CyDiag *d, CyPos p, const char *fmt, ...) {
    /* a note belongs to the diagnostic before it: silent once errors are */
    if (d->nerrors > limit(d))
        return;
    va_list ap;
    va_start(ap, fmt);
    report(d, "note", p, fmt, ap);
    va_end(ap);
}
