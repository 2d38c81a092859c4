/* cache.h: the on-disk kernel cache (DESIGN §7, docs/cache.md) — bytes in,
 * bytes out; no OpenCL here.  The runtime (runtime/device.c) keys program
 * binaries with it, the driver (`cyocl cache`) inspects and trims it.
 *
 * An entry is one file DIR/<sha256 of the key, hex>.clbin:
 *
 *   magic "CYOCLKC1" | u32 format version | u32 0 | u64 key length |
 *   u64 binary length | u64 build ns | key text | binary |
 *   SHA-256 of everything before it
 *
 * (integers little-endian).  The key text is echoed so that an entry
 * renamed into place for another key, or a hash collision, is not loaded.
 * Files are written to DIR/.tmp-*.XXXXXX and renamed, so a reader sees a
 * whole entry or none.  Least recently used = oldest mtime: a hit touches it.
 *
 * Nothing here prints or exits: problems come back as a status and, where
 * the user should hear of them, as a warning text for the caller to give. */
#ifndef CYRT_CACHE_H
#define CYRT_CACHE_H

#include <stddef.h>
#include <stdint.h>

#define CYRT_CACHE_DEFAULT_MAX ((uint64_t)256 << 20) /* 256 MiB */
#define CYRT_CACHE_SUFFIX ".clbin"
/* The dispatcher's calibration files in the same directory (runtime/dispatch.c):
 * DIR/dispatch-<32 hex digits>.calib.  They are measurements, not build
 * products: the size cap, clear and prune leave them alone;
 * cyrt_cache_clear_calibration removes them. */
#define CYRT_CALIB_PREFIX "dispatch-"
#define CYRT_CALIB_SUFFIX ".calib"

/* One part of a key: a label ("source", "device", ...) and its bytes. */
typedef struct {
    const char *label;
    const char *data;
    size_t len;
} cyrt_cache_part;

enum {
    CYRT_CACHE_OFF = 0, /* CYOCL_CACHE=0, no usable directory: nothing read or written */
    CYRT_CACHE_RW,      /* entries are loaded and stored */
    CYRT_CACHE_RO,      /* loaded only: the directory is not writable by us */
    CYRT_CACHE_UNSAFE,  /* others can write the directory: nothing loaded or stored */
};

typedef struct {
    char *dir;          /* malloc'ed; NULL when no directory could be named */
    int mode;           /* CYRT_CACHE_* */
    uint64_t max_bytes; /* the size cap */
} cyrt_cache;

typedef enum {
    CYRT_CACHE_HIT = 0,
    CYRT_CACHE_MISS,     /* no entry */
    CYRT_CACHE_BAD,      /* damaged or foreign entry: rebuild, the store replaces it */
    CYRT_CACHE_REFUSED,  /* an entry others can write, or the cache is off/unsafe: store nothing */
    CYRT_CACHE_ERR,      /* out of memory, unreadable file */
} cyrt_cache_result;

/* Resolves the cache from the environment: CYOCL_CACHE=0 (or "off",
 * "false", "no") turns it off (the directory is still named, for `cyocl
 * cache`); CYOCL_CACHE_DIR, else $HOME/.cython/opencl;
 * CYOCL_CACHE_MAX_SIZE (see cyrt_cache_parse_size) the cap.  dir != NULL
 * overrides the directory (tests).  With create, a missing directory is
 * made private (0700).  Returns 0, or -1 when out of memory.  *warn
 * (malloc'ed or NULL; lines) explains a mode of OFF (except CYOCL_CACHE=0)
 * or UNSAFE, and a bad CYOCL_CACHE_MAX_SIZE.  A read-only directory (RO)
 * is told of by the first store, since a prepared cache may never need one. */
int cyrt_cache_open(cyrt_cache *c, const char *dir, int create, char **warn);
void cyrt_cache_close(cyrt_cache *c);

/* "123", "64K", "100M", "1G", "2T" (also "100MB", "100MiB"; powers of
 * 1024).  Returns 0 and sets *bytes, or -1. */
int cyrt_cache_parse_size(const char *s, uint64_t *bytes);

/* The key text of parts (what an entry echoes) and its hash (65 bytes: 64
 * hex digits and a NUL).  Returns 0 or -1 (out of memory). */
int cyrt_cache_key(const cyrt_cache_part *parts, size_t nparts, char **text, size_t *len,
                   char hex[65]);

/* Looks the key up.  On a hit *bin (malloc'ed, the caller frees it),
 * *len and *build_ns (the entry's recorded build time) are set and the
 * entry's mtime is touched.  *warn as for cyrt_cache_open (an entry others
 * can write). */
cyrt_cache_result cyrt_cache_lookup(cyrt_cache *c, const cyrt_cache_part *parts, size_t nparts,
                                    unsigned char **bin, size_t *len, uint64_t *build_ns,
                                    char **warn);

/* Stores bin under the key atomically, then evicts least recently used
 * entries until the cache holds at most max_bytes.  Returns 0, or -1 with
 * *warn saying why (not writable, disk full, larger than the cap, ...). */
int cyrt_cache_store(cyrt_cache *c, const cyrt_cache_part *parts, size_t nparts,
                     const unsigned char *bin, size_t len, uint64_t build_ns, char **warn);

/* ---- inspection (cyocl cache, cyocl.cache_info()) ---------------------------- */
typedef struct {
    char name[80];    /* file name */
    uint64_t size;    /* bytes on disk */
    int64_t mtime;    /* last use, seconds since the epoch */
    int valid;        /* the header, lengths and checksum are right */
    uint64_t build_ns;
    char device[128]; /* from the key echo ("?" when damaged) */
    char platform[128];
    char version[32]; /* cyocl version */
} cyrt_cache_entry;

typedef struct {
    uint64_t entries, bytes; /* *.clbin files and their size */
    uint64_t temps;          /* temporary files (writers in progress or crashed ones) */
    uint64_t calib_files, calib_bytes; /* the dispatcher's calibration files */
} cyrt_cache_usage;

/* Counts the entries (cheap: no file is read).  Returns 0, or -1 when
 * the directory cannot be read (a missing one is empty). */
int cyrt_cache_usage_get(const cyrt_cache *c, cyrt_cache_usage *u);
/* Every entry, most recently used first; with verify each is read and
 * checked.  *list is malloc'ed.  Returns 0 or -1 (errno set). */
int cyrt_cache_list(const cyrt_cache *c, int verify, cyrt_cache_entry **list, size_t *n);
/* Removes every entry and temporary file.  Returns 0 or -1 (errno of the
 * first failure); *removed / *bytes count what went. */
int cyrt_cache_clear(const cyrt_cache *c, uint64_t *removed, uint64_t *bytes);
/* Removes the dispatcher's calibration files (the next process
 * recalibrates).  Returns 0 or -1; *removed / *bytes count what went. */
int cyrt_cache_clear_calibration(const cyrt_cache *c, uint64_t *removed, uint64_t *bytes);
/* Removes damaged entries and stale temporary files, then least recently
 * used entries until at most max_bytes remain. */
int cyrt_cache_prune(const cyrt_cache *c, uint64_t max_bytes, uint64_t *removed, uint64_t *bytes);

/* SHA-256 (FIPS 180-4), exposed for the tests. */
typedef struct {
    uint32_t h[8];
    uint64_t n;
    unsigned char buf[64];
    size_t nbuf;
} cyrt_sha256;
void cyrt_sha256_init(cyrt_sha256 *s);
void cyrt_sha256_update(cyrt_sha256 *s, const void *data, size_t len);
void cyrt_sha256_final(cyrt_sha256 *s, unsigned char out[32]);

#endif
