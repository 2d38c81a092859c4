/* base.h: what every compiler phase shares — arena memory, growable
 * vectors and strings, source files and diagnostics.
 *
 * The compiler allocates everything from one arena per compilation and frees
 * the arena at the end; nodes are never freed one by one.  Nothing here calls
 * exit(): errors are counted in CyDiag and the caller decides. */
#ifndef CY_BASE_H
#define CY_BASE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

typedef struct CyArena CyArena;
CyArena *cy_arena_new(void);
void cy_arena_free(CyArena *a);
void *cy_alloc(CyArena *a, size_t n);           /* zeroed */
char *cy_strndup(CyArena *a, const char *s, size_t n);
char *cy_strdup(CyArena *a, const char *s);
char *cy_fmt(CyArena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Vector of pointers, storage in the arena. */
typedef struct {
    void **items;
    int len, cap;
} CyVec;
void cy_vec_push(CyArena *a, CyVec *v, void *item);
#define CY_VEC_AT(v, i) ((v).items[(i)])

/* Hash map, storage in the arena: keys are byte strings (kept by
 * reference: they must outlive the map) or, with the cy_pmap_ calls, the
 * identity of a pointer.  For every table a phase would otherwise search
 * linearly while it grows with the input (names, constants, functions). */
typedef struct {
    const void *key;  /* NULL: free slot */
    size_t len;       /* SIZE_MAX: pointer key */
    void *val;
    unsigned hash;
} CyMapEnt;
typedef struct {
    CyMapEnt *ents;
    int cap, len;
} CyMap;
void *cy_map_get(const CyMap *m, const void *key, size_t len);
void cy_map_put(CyArena *a, CyMap *m, const void *key, size_t len, void *val);
void *cy_pmap_get(const CyMap *m, const void *key);
void cy_pmap_put(CyArena *a, CyMap *m, const void *key, void *val);

/* Growable text buffer on the heap (the backends build large outputs). */
typedef struct {
    char *s;
    size_t len, cap;
} CyBuf;
void cy_buf_put(CyBuf *b, const char *s, size_t n);
void cy_buf_puts(CyBuf *b, const char *s);
void cy_buf_printf(CyBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cy_buf_vprintf(CyBuf *b, const char *fmt, va_list ap);
void cy_buf_free(CyBuf *b);

typedef struct {
    int line, col; /* 1-based; col counts bytes */
    int file;      /* 0: the main source; k > 0: CyDiag.files[k - 1] (an `include`d .pxi, a cimported
                      .pxd), whose text the position is in */
} CyPos;

typedef struct {
    const char *path;    /* as given on the command line */
    const char *name;    /* basename, used in diagnostics */
    const char *modname; /* basename without .pyx: the extension module name */
    const char *text;    /* NUL-terminated */
    size_t len;
    int id;              /* CyPos.file of its positions: 0 for the main source */
    CyPos included_at;   /* id > 0: where the file was brought in (the `include` / `cimport`) */
} CySource;

/* Diagnostics: "FILE.pyx:LINE:COL: error: MESSAGE", then the source line
 * and a caret.  out == NULL silences printing (the fuzzer). */
typedef struct {
    const CySource *src;
    FILE *out;
    int nerrors, nwarnings;
    int max_errors; /* stop reporting after this many (0: 50) */
    CyVec files;    /* CySource*: the other files positions may point into (CyPos.file - 1) */
} CyDiag;

/* The source a position is in (d->src for the main file). */
const CySource *cy_pos_source(const CyDiag *d, CyPos p);
/* Whether a comes before b in the order the compiler reads the source: an
 * included file's text stands where it was included. */
int cy_pos_before(const CyDiag *d, CyPos a, CyPos b);

void cy_error(CyDiag *d, CyPos p, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void cy_warning(CyDiag *d, CyPos p, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void cy_note(CyDiag *d, CyPos p, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
