/* cache.c: the kernel cache's files — the directory and its safety rules,
 * keys, entries, atomic stores and least-recently-used eviction.  See
 * cache.h for the entry format and docs/cache.md for the user's view. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* mkstemp, fstatat, futimens, O_NOFOLLOW, vasprintf */
#endif
#include "cache.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define MAGIC "CYOCLKC1"
#define FORMAT_VERSION 1u
#define HEADER 40            /* magic 8, version 4, reserved 4, key 8, binary 8, build ns 8 */
#define TRAILER 32           /* SHA-256 of the rest */
#define MAX_ENTRY ((uint64_t)1 << 31)
#define TEMP_PREFIX ".tmp-"
#define STALE_TEMP_S 3600    /* a temporary file this old belongs to a writer that died */

/* Appends a line to *warn (malloc'ed); out of memory loses the line. */
static void add_warn(char **warn, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_warn(char **warn, const char *fmt, ...) {
    if (!warn)
        return;
    char *line = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if (!*warn) {
        *warn = line;
        return;
    }
    char *both = NULL;
    if (asprintf(&both, "%s\n%s", *warn, line) >= 0) {
        free(*warn);
        *warn = both;
    }
    free(line);
}

/* ---- sizes and the directory ---------------------------------------------- */

int cyrt_cache_parse_size(const char *s, uint64_t *bytes) {
    if (!s)
        return -1;
    while (isspace((unsigned char)*s))
        s++;
    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    unsigned shift = 0;
    switch (toupper((unsigned char)*end)) {
    case 'K': shift = 10, end++; break;
    case 'M': shift = 20, end++; break;
    case 'G': shift = 30, end++; break;
    case 'T': shift = 40, end++; break;
    default: break;
    }
    if (shift && (*end == 'i' || *end == 'I'))
        end++;
    if (*end == 'B' || *end == 'b')
        end++;
    while (isspace((unsigned char)*end))
        end++;
    if (*end || (shift && v > (UINT64_MAX >> shift)))
        return -1;
    *bytes = (uint64_t)v << shift;
    return 0;
}

/* mkdir -p, each new component private. */
static int mkdir_private(const char *dir) {
    char *tmp = strdup(dir);
    if (!tmp)
        return errno = ENOMEM, -1;
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0700) != 0 && errno != EEXIST) {
            free(tmp);
            return -1;
        }
        *p = '/';
    }
    int rc = mkdir(tmp, 0700);
    free(tmp);
    return rc != 0 && errno != EEXIST ? -1 : 0;
}

/* A file or directory that only we (or root, e.g. an image's prepared
 * cache) can change: what a cached binary may be loaded from. */
static int safe_owner_mode(const struct stat *st) {
    return (st->st_uid == geteuid() || st->st_uid == 0) && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/* Whether a directory's whole path is safe to load code from, as ssh's
 * StrictModes checks a home directory: the path is resolved (symbolic
 * links followed: realpath) and every directory from / down to the cache
 * directory itself must be owned by root or us and writable by nobody
 * else, since whoever can write a directory can rename what is in it and
 * put a directory of theirs in its place.  One exception: a directory with
 * the sticky bit (/tmp, 1777), root's or ours, may be writable by all as an
 * ancestor, for there only the owner of an entry can rename it, and the
 * next component must be ours or root's like every other.
 * Returns 1 (safe; *resolved malloc'ed: the path to use from now on, so
 * that a symbolic link changed later cannot redirect the cache), 0 (unsafe;
 * *why malloc'ed names the culprit) or -1 (errno: out of memory, or the
 * path cannot be resolved). */
/* lstat of path's first n bytes (path is written to and restored). */
static int lstat_prefix(char *path, size_t n, struct stat *st) {
    char c = path[n];
    path[n] = '\0';
    int rc = lstat(path, st);
    path[n] = c;
    return rc;
}

static int path_safe(const char *dir, char **resolved, char **why) {
    *resolved = NULL;
    *why = NULL;
    char *real = realpath(dir, NULL);
    if (!real)
        return -1;
    /* the prefixes to check, by length: "/", "/a", "/a/b", ..., real */
    size_t len = strlen(real), n = 0;
    size_t *ends = malloc((len + 1) * sizeof *ends);
    if (!ends) {
        free(real);
        return errno = ENOMEM, -1;
    }
    ends[n++] = 1;
    for (size_t i = 1; i < len; i++)
        if (real[i] == '/')
            ends[n++] = i;
    if (len > 1)
        ends[n++] = len;
    uid_t me = geteuid();
    int rc = 1;
    for (size_t k = 0; k < n && rc == 1; k++) {
        struct stat st;
        if (lstat_prefix(real, ends[k], &st) != 0) {
            rc = -1;
            break;
        }
        const char *what = NULL;
        int owner_ok = st.st_uid == me || st.st_uid == 0;
        if (S_ISLNK(st.st_mode))
            what = "became a symbolic link"; /* since realpath: someone is at work */
        else if (!owner_ok)
            what = "belongs to another user";
        else if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(k + 1 < n && (st.st_mode & S_ISVTX)))
            /* a sticky ancestor passes: in it only an entry's owner can
             * rename the entry, and the next component, checked next,
             * must be ours or root's */
            what = "can be written by other users";
        if (what) {
            if (asprintf(why, "'%.*s' %s", (int)ends[k], real, what) < 0)
                *why = NULL;
            rc = 0;
        }
    }
    free(ends);
    if (rc == 1)
        *resolved = real;
    else
        free(real);
    return rc;
}

static int off_value(const char *v) {
    return strcmp(v, "0") == 0 || strcasecmp(v, "off") == 0 || strcasecmp(v, "false") == 0 ||
           strcasecmp(v, "no") == 0;
}

static int on_value(const char *v) {
    return !*v || strcmp(v, "1") == 0 || strcasecmp(v, "on") == 0 || strcasecmp(v, "true") == 0 ||
           strcasecmp(v, "yes") == 0;
}

int cyrt_cache_open(cyrt_cache *c, const char *dir, int create, char **warn) {
    memset(c, 0, sizeof *c);
    if (warn)
        *warn = NULL;
    c->max_bytes = CYRT_CACHE_DEFAULT_MAX;
    const char *ms = getenv("CYOCL_CACHE_MAX_SIZE");
    if (ms && *ms && cyrt_cache_parse_size(ms, &c->max_bytes) != 0) {
        c->max_bytes = CYRT_CACHE_DEFAULT_MAX;
        add_warn(warn, "CYOCL_CACHE_MAX_SIZE='%s' is not a size (e.g. 256M, 1G): using 256M", ms);
    }
    const char *on = getenv("CYOCL_CACHE");
    int off = on && off_value(on);
    if (on && !off && !on_value(on))
        add_warn(warn, "CYOCL_CACHE='%s' is not 0 or 1: the kernel cache stays on", on);

    const char *env = getenv("CYOCL_CACHE_DIR");
    if (dir)
        c->dir = strdup(dir);
    else if (env && *env)
        c->dir = strdup(env);
    else {
        const char *home = getenv("HOME");
        if (!home || !*home) {
            c->mode = CYRT_CACHE_OFF;
            if (!off)
                add_warn(warn, "HOME is not set and CYOCL_CACHE_DIR is not given: no kernel cache");
            return 0;
        }
        if (asprintf(&c->dir, "%s/.cython/opencl", home) < 0)
            c->dir = NULL;
    }
    if (!c->dir)
        return -1;
    size_t n = strlen(c->dir);
    while (n > 1 && c->dir[n - 1] == '/')
        c->dir[--n] = '\0';
    if (off) { /* named (for `cyocl cache clear`), never created, read or written */
        c->mode = CYRT_CACHE_OFF;
        return 0;
    }

    struct stat st;
    if (stat(c->dir, &st) != 0) {
        if (errno == ENOENT && !create) {
            c->mode = CYRT_CACHE_RW; /* nothing there yet: empty */
            return 0;
        }
        if (errno != ENOENT || mkdir_private(c->dir) != 0 || stat(c->dir, &st) != 0) {
            c->mode = CYRT_CACHE_OFF;
            add_warn(warn, "cannot create the kernel cache directory '%s' (%s): no kernel cache",
                     c->dir, strerror(errno));
            return 0;
        }
    }
    if (!S_ISDIR(st.st_mode)) {
        c->mode = CYRT_CACHE_OFF;
        add_warn(warn, "the kernel cache path '%s' is not a directory: no kernel cache", c->dir);
        return 0;
    }
    if (!safe_owner_mode(&st)) {
        c->mode = CYRT_CACHE_UNSAFE;
        add_warn(warn,
                 "the kernel cache directory '%s' can be written by other users: cached "
                 "binaries are neither loaded nor stored (make it yours and 'chmod go-w' it)",
                 c->dir);
        return 0;
    }
    /* the directory is only as safe as the path to it (DESIGN §7) */
    char *real = NULL, *why = NULL;
    int safe = path_safe(c->dir, &real, &why);
    if (safe < 0) {
        c->mode = CYRT_CACHE_OFF;
        add_warn(warn, "cannot check the path of the kernel cache directory '%s' (%s): no kernel cache",
                 c->dir, strerror(errno));
        return 0;
    }
    if (!safe) {
        c->mode = CYRT_CACHE_UNSAFE;
        add_warn(warn,
                 "the kernel cache directory '%s' is not safe: %s, so other users could put "
                 "their files in its place: cached binaries are neither loaded nor stored (use "
                 "a directory whose every parent is yours or root's and not writable by others)",
                 c->dir, why ? why : "a parent directory can be written by other users");
        free(why);
        return 0;
    }
    free(c->dir);
    c->dir = real;
    c->mode = access(c->dir, W_OK | X_OK) == 0 ? CYRT_CACHE_RW : CYRT_CACHE_RO;
    return 0;
}

void cyrt_cache_close(cyrt_cache *c) {
    free(c->dir);
    c->dir = NULL;
    c->mode = CYRT_CACHE_OFF;
}

/* ---- keys ------------------------------------------------------------------ */

static void to_hex(const unsigned char *d, size_t n, char *out) {
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[d[i] >> 4];
        out[2 * i + 1] = digits[d[i] & 15];
    }
    out[2 * n] = '\0';
}

/* Each part as "LABEL LENGTH\n" DATA "\n": no two different part lists
 * give the same text. */
int cyrt_cache_key(const cyrt_cache_part *parts, size_t nparts, char **text, size_t *len,
                   char hex[65]) {
    size_t total = 0;
    for (size_t i = 0; i < nparts; i++)
        total += strlen(parts[i].label) + parts[i].len + 32;
    char *t = malloc(total + 1);
    if (!t)
        return -1;
    size_t at = 0;
    for (size_t i = 0; i < nparts; i++) {
        at += (size_t)snprintf(t + at, total + 1 - at, "%s %zu\n", parts[i].label, parts[i].len);
        if (parts[i].len)
            memcpy(t + at, parts[i].data, parts[i].len);
        at += parts[i].len;
        t[at++] = '\n';
    }
    t[at] = '\0';
    unsigned char d[32];
    cyrt_sha256 s;
    cyrt_sha256_init(&s);
    cyrt_sha256_update(&s, t, at);
    cyrt_sha256_final(&s, d);
    to_hex(d, 32, hex);
    *text = t;
    *len = at;
    return 0;
}

/* The value of one part in a key text, NUL-terminated into out ("?" if absent). */
static void key_field(const unsigned char *t, size_t len, const char *label, char *out, size_t n) {
    size_t at = 0, ll = strlen(label);
    snprintf(out, n, "?");
    while (at < len) {
        const unsigned char *sp = memchr(t + at, ' ', len - at);
        if (!sp)
            return;
        size_t lablen = (size_t)(sp - (t + at));
        const unsigned char *end = sp + 1;
        uint64_t v = 0;
        while (end < t + len && isdigit(*end) && v < ((uint64_t)1 << 40))
            v = v * 10 + (uint64_t)(*end++ - '0');
        if (end >= t + len || *end != '\n')
            return;
        size_t data = (size_t)(end + 1 - t);
        if (v > len - data)
            return;
        if (lablen == ll && memcmp(t + at, label, ll) == 0) {
            size_t k = v < n - 1 ? (size_t)v : n - 1;
            memcpy(out, t + data, k);
            out[k] = '\0';
            return;
        }
        at = data + (size_t)v + 1;
    }
}

/* ---- entries ----------------------------------------------------------------- */

static void put64(unsigned char *p, uint64_t v) {
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get64(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void put32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

typedef struct {
    const unsigned char *key, *bin;
    uint64_t keylen, binlen, build_ns;
} parsed;

/* Checks a whole entry: magic, version, lengths against the file size, checksum. */
static int parse_entry(const unsigned char *f, size_t size, parsed *e) {
    if (size < HEADER + TRAILER || memcmp(f, MAGIC, 8) != 0 || get32(f + 8) != FORMAT_VERSION ||
        get32(f + 12) != 0)
        return -1;
    e->keylen = get64(f + 16);
    e->binlen = get64(f + 24);
    e->build_ns = get64(f + 32);
    uint64_t body = size - HEADER - TRAILER;
    if (e->keylen > body || e->binlen != body - e->keylen || e->binlen == 0)
        return -1;
    unsigned char d[32];
    cyrt_sha256 s;
    cyrt_sha256_init(&s);
    cyrt_sha256_update(&s, f, size - TRAILER);
    cyrt_sha256_final(&s, d);
    if (memcmp(d, f + size - TRAILER, 32) != 0)
        return -1;
    e->key = f + HEADER;
    e->bin = e->key + e->keylen;
    return 0;
}

static int read_all(int fd, unsigned char *p, size_t n) {
    while (n > 0) {
        ssize_t k = read(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1; /* an error, or the file shrank under us */
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static int write_all(int fd, const void *data, size_t n) {
    const unsigned char *p = data;
    while (n > 0) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* Reads a regular file of at most MAX_ENTRY bytes; -1 with errno. */
static unsigned char *slurp(int fd, const struct stat *st, size_t *size) {
    if (!S_ISREG(st->st_mode) || (uint64_t)st->st_size > MAX_ENTRY)
        return errno = EINVAL, NULL;
    *size = (size_t)st->st_size;
    unsigned char *f = malloc(*size ? *size : 1);
    if (!f)
        return NULL;
    if (read_all(fd, f, *size) != 0) {
        free(f);
        return errno = EIO, NULL;
    }
    return f;
}

static char *entry_path(const cyrt_cache *c, const char *hex) {
    char *p = NULL;
    return asprintf(&p, "%s/%s%s", c->dir, hex, CYRT_CACHE_SUFFIX) < 0 ? NULL : p;
}

cyrt_cache_result cyrt_cache_lookup(cyrt_cache *c, const cyrt_cache_part *parts, size_t nparts,
                                    unsigned char **bin, size_t *len, uint64_t *build_ns,
                                    char **warn) {
    *bin = NULL;
    *len = 0;
    if (build_ns)
        *build_ns = 0;
    if (warn)
        *warn = NULL;
    if (c->mode != CYRT_CACHE_RW && c->mode != CYRT_CACHE_RO)
        return CYRT_CACHE_REFUSED;
    char *key, hex[65];
    size_t keylen;
    if (cyrt_cache_key(parts, nparts, &key, &keylen, hex) != 0)
        return CYRT_CACHE_ERR;
    char *path = entry_path(c, hex);
    if (!path) {
        free(key);
        return CYRT_CACHE_ERR;
    }
    cyrt_cache_result r = CYRT_CACHE_BAD;
    unsigned char *f = NULL;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0) {
        r = errno == ENOENT ? CYRT_CACHE_MISS : errno == ELOOP ? CYRT_CACHE_BAD : CYRT_CACHE_ERR;
        goto out;
    }
    if (fstat(fd, &st) != 0) {
        r = CYRT_CACHE_ERR;
        goto out;
    }
    if (S_ISREG(st.st_mode) && !safe_owner_mode(&st)) {
        add_warn(warn,
                 "the kernel cache entry '%s' can be written by other users: it is not used "
                 "(remove it with 'cyocl cache clear')",
                 path);
        r = CYRT_CACHE_REFUSED;
        goto out;
    }
    size_t size;
    if (!(f = slurp(fd, &st, &size))) {
        r = errno == ENOMEM ? CYRT_CACHE_ERR : CYRT_CACHE_BAD;
        goto out;
    }
    parsed e;
    if (parse_entry(f, size, &e) != 0 || e.keylen != keylen || memcmp(e.key, key, keylen) != 0)
        goto out; /* damaged, or another key's entry: CYRT_CACHE_BAD */
    if (!(*bin = malloc((size_t)e.binlen))) {
        r = CYRT_CACHE_ERR;
        goto out;
    }
    memcpy(*bin, e.bin, (size_t)e.binlen);
    *len = (size_t)e.binlen;
    if (build_ns)
        *build_ns = e.build_ns;
    if (c->mode == CYRT_CACHE_RW)
        futimens(fd, NULL); /* recently used: evicted last (a failure only ages it) */
    r = CYRT_CACHE_HIT;
out:
    if (fd >= 0)
        close(fd);
    free(f);
    free(key);
    free(path);
    return r;
}

/* ---- scanning and eviction ------------------------------------------------------ */

typedef struct {
    char name[80];
    uint64_t size;
    struct timespec mtime;
    int temp;
} item;

static int is_entry_name(const char *n) {
    size_t len = strlen(n), sl = strlen(CYRT_CACHE_SUFFIX);
    if (len != 64 + sl || strcmp(n + 64, CYRT_CACHE_SUFFIX) != 0)
        return 0;
    for (int i = 0; i < 64; i++)
        if (!isxdigit((unsigned char)n[i]))
            return 0;
    return 1;
}

static int is_temp_name(const char *n) {
    return strncmp(n, TEMP_PREFIX, strlen(TEMP_PREFIX)) == 0 && strlen(n) < 80;
}

static int is_calib_name(const char *n) {
    size_t len = strlen(n), pl = strlen(CYRT_CALIB_PREFIX), sl = strlen(CYRT_CALIB_SUFFIX);
    if (len != pl + 32 + sl || strncmp(n, CYRT_CALIB_PREFIX, pl) != 0 || strcmp(n + pl + 32, CYRT_CALIB_SUFFIX) != 0)
        return 0;
    for (size_t i = pl; i < pl + 32; i++)
        if (!isxdigit((unsigned char)n[i]))
            return 0;
    return 1;
}

/* Counts the calibration files (regular files only), removing them when
 * remove is set.  A missing directory has none. */
static int calib_walk(const cyrt_cache *c, int remove, uint64_t *files, uint64_t *bytes) {
    if (!c->dir)
        return 0;
    DIR *d = opendir(c->dir);
    if (!d)
        return errno == ENOENT ? 0 : -1;
    int rc = 0, err = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        struct stat st;
        if (!is_calib_name(de->d_name) || fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISREG(st.st_mode))
            continue;
        if (remove && unlinkat(dirfd(d), de->d_name, 0) != 0) {
            if (errno != ENOENT && !err)
                rc = -1, err = errno;
            continue;
        }
        (*files)++;
        *bytes += (uint64_t)st.st_size;
    }
    closedir(d);
    if (rc)
        errno = err;
    return rc;
}

/* The directory's entries and temporary files.  A missing directory is empty. */
static int scan(const cyrt_cache *c, item **out, size_t *n) {
    *out = NULL;
    *n = 0;
    if (!c->dir)
        return 0;
    DIR *d = opendir(c->dir);
    if (!d)
        return errno == ENOENT ? 0 : -1;
    size_t cap = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        int temp = is_temp_name(de->d_name);
        if (!temp && !is_entry_name(de->d_name))
            continue;
        struct stat st;
        if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue; /* removed meanwhile */
        if (*n == cap) {
            cap = cap ? 2 * cap : 32;
            item *g = realloc(*out, cap * sizeof *g);
            if (!g) {
                closedir(d);
                free(*out);
                *out = NULL;
                *n = 0;
                return errno = ENOMEM, -1;
            }
            *out = g;
        }
        item *it = &(*out)[(*n)++];
        memcpy(it->name, de->d_name, strlen(de->d_name) + 1); /* < 80: checked above */
        it->size = (uint64_t)st.st_size;
        it->mtime = st.st_mtim;
        it->temp = temp;
    }
    closedir(d);
    return 0;
}

static int older(const void *a, const void *b) {
    const item *x = a, *y = b;
    if (x->mtime.tv_sec != y->mtime.tv_sec)
        return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
    if (x->mtime.tv_nsec != y->mtime.tv_nsec)
        return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int remove_item(const cyrt_cache *c, const item *it, uint64_t *removed, uint64_t *bytes) {
    char *p = NULL;
    if (asprintf(&p, "%s/%s", c->dir, it->name) < 0)
        return errno = ENOMEM, -1;
    int rc = unlink(p);
    free(p);
    if (rc != 0 && errno != ENOENT) /* another process may have evicted it first */
        return -1;
    if (rc == 0 && !it->temp) {
        if (removed)
            (*removed)++;
        if (bytes)
            *bytes += it->size;
    }
    return 0;
}

/* Drops temporary files older than stale_s seconds (-1: all), then the
 * oldest entries until at most max_bytes remain. */
static int evict(const cyrt_cache *c, uint64_t max_bytes, long stale_s, uint64_t *removed,
                 uint64_t *bytes) {
    item *items;
    size_t n;
    if (scan(c, &items, &n) != 0)
        return -1;
    if (n) /* qsort(NULL, 0, ...) is undefined */
        qsort(items, n, sizeof *items, older);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    int rc = 0, err = 0;
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) {
        if (items[i].temp) {
            if ((stale_s < 0 || now.tv_sec - items[i].mtime.tv_sec > stale_s) &&
                remove_item(c, &items[i], removed, bytes) != 0 && !err)
                rc = -1, err = errno;
        } else {
            total += items[i].size;
        }
    }
    for (size_t i = 0; i < n && total > max_bytes; i++) {
        if (items[i].temp)
            continue;
        if (remove_item(c, &items[i], removed, bytes) != 0) {
            if (!err)
                rc = -1, err = errno;
            continue;
        }
        total -= items[i].size;
    }
    free(items);
    if (rc)
        errno = err;
    return rc;
}

/* ---- stores ----------------------------------------------------------------------- */

int cyrt_cache_store(cyrt_cache *c, const cyrt_cache_part *parts, size_t nparts,
                     const unsigned char *bin, size_t len, uint64_t build_ns, char **warn) {
    if (warn)
        *warn = NULL;
    if (c->mode == CYRT_CACHE_RO) {
        add_warn(warn, "the kernel cache directory '%s' is not writable: OpenCL programs built "
                       "here are not cached", c->dir);
        return -1;
    }
    if (c->mode != CYRT_CACHE_RW || !bin || len == 0)
        return -1;
    char *key, hex[65];
    size_t keylen;
    if (cyrt_cache_key(parts, nparts, &key, &keylen, hex) != 0)
        return -1;
    uint64_t size = HEADER + (uint64_t)keylen + len + TRAILER;
    if (size > c->max_bytes || size > MAX_ENTRY) {
        add_warn(warn, "an OpenCL program binary of %zu bytes does not fit the kernel cache's "
                       "size cap (%llu bytes): it is not cached", len,
                 (unsigned long long)c->max_bytes);
        free(key);
        return -1;
    }
    char *path = entry_path(c, hex), *tmp = NULL;
    if (!path || asprintf(&tmp, "%s/" TEMP_PREFIX "%.16s.XXXXXX", c->dir, hex) < 0) {
        free(key);
        free(path);
        return -1;
    }
    unsigned char head[HEADER], sum[32];
    memcpy(head, MAGIC, 8);
    put32(head + 8, FORMAT_VERSION);
    put32(head + 12, 0);
    put64(head + 16, keylen);
    put64(head + 24, len);
    put64(head + 32, build_ns);
    cyrt_sha256 s;
    cyrt_sha256_init(&s);
    cyrt_sha256_update(&s, head, HEADER);
    cyrt_sha256_update(&s, key, keylen);
    cyrt_sha256_update(&s, bin, len);
    cyrt_sha256_final(&s, sum);

    int rc = -1;
    int fd = mkstemp(tmp); /* 0600 */
    if (fd < 0) {
        add_warn(warn, "cannot write to the kernel cache directory '%s' (%s): OpenCL programs "
                       "built here are not cached", c->dir, strerror(errno));
        goto out;
    }
    /* No fsync: after a crash a torn entry fails its checksum and is rebuilt. */
    int werr = write_all(fd, head, HEADER) || write_all(fd, key, keylen) ||
                       write_all(fd, bin, len) || write_all(fd, sum, 32)
                   ? errno
                   : 0;
    if (close(fd) != 0 && !werr)
        werr = errno;
    if (!werr && rename(tmp, path) != 0)
        werr = errno;
    if (werr) {
        unlink(tmp);
        add_warn(warn, "cannot write the kernel cache entry '%s' (%s): it is not cached", path,
                 strerror(werr));
        goto out;
    }
    rc = 0;
    /* the new entry is the most recent: eviction takes others first */
    evict(c, c->max_bytes, STALE_TEMP_S, NULL, NULL);
out:
    free(key);
    free(path);
    free(tmp);
    return rc;
}

/* ---- inspection ---------------------------------------------------------------------- */

int cyrt_cache_usage_get(const cyrt_cache *c, cyrt_cache_usage *u) {
    memset(u, 0, sizeof *u);
    item *items;
    size_t n;
    if (scan(c, &items, &n) != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (items[i].temp) {
            u->temps++;
        } else {
            u->entries++;
            u->bytes += items[i].size;
        }
    }
    free(items);
    return calib_walk(c, 0, &u->calib_files, &u->calib_bytes);
}

static void describe(const cyrt_cache *c, const item *it, int verify, cyrt_cache_entry *e) {
    memset(e, 0, sizeof *e);
    snprintf(e->name, sizeof e->name, "%s", it->name);
    e->size = it->size;
    e->mtime = (int64_t)it->mtime.tv_sec;
    snprintf(e->device, sizeof e->device, "?");
    snprintf(e->platform, sizeof e->platform, "?");
    snprintf(e->version, sizeof e->version, "?");
    if (!verify)
        return;
    char *p = NULL;
    if (asprintf(&p, "%s/%s", c->dir, it->name) < 0)
        return;
    int fd = open(p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    free(p);
    struct stat st;
    size_t size;
    unsigned char *f = NULL;
    parsed pe;
    if (fd >= 0 && fstat(fd, &st) == 0 && (f = slurp(fd, &st, &size)) != NULL &&
        parse_entry(f, size, &pe) == 0) {
        /* the name must be the hash of the echoed key: else it is a foreign entry */
        char hex[65];
        unsigned char d[32];
        cyrt_sha256 s;
        cyrt_sha256_init(&s);
        cyrt_sha256_update(&s, pe.key, (size_t)pe.keylen);
        cyrt_sha256_final(&s, d);
        to_hex(d, 32, hex);
        if (strncmp(hex, it->name, 64) == 0) {
            e->valid = 1;
            e->build_ns = pe.build_ns;
            key_field(pe.key, (size_t)pe.keylen, "device", e->device, sizeof e->device);
            key_field(pe.key, (size_t)pe.keylen, "platform", e->platform, sizeof e->platform);
            key_field(pe.key, (size_t)pe.keylen, "cyocl", e->version, sizeof e->version);
        }
    }
    free(f);
    if (fd >= 0)
        close(fd);
}

int cyrt_cache_list(const cyrt_cache *c, int verify, cyrt_cache_entry **list, size_t *n) {
    *list = NULL;
    *n = 0;
    item *items;
    size_t m;
    if (scan(c, &items, &m) != 0)
        return -1;
    if (m)
        qsort(items, m, sizeof *items, older);
    size_t k = 0;
    for (size_t i = 0; i < m; i++)
        k += !items[i].temp;
    cyrt_cache_entry *out = calloc(k ? k : 1, sizeof *out);
    if (!out) {
        free(items);
        return errno = ENOMEM, -1;
    }
    size_t at = 0;
    for (size_t i = m; i-- > 0;) /* newest first */
        if (!items[i].temp)
            describe(c, &items[i], verify, &out[at++]);
    free(items);
    *list = out;
    *n = k;
    return 0;
}

int cyrt_cache_clear(const cyrt_cache *c, uint64_t *removed, uint64_t *bytes) {
    if (removed)
        *removed = 0;
    if (bytes)
        *bytes = 0;
    return evict(c, 0, -1, removed, bytes);
}

int cyrt_cache_clear_calibration(const cyrt_cache *c, uint64_t *removed, uint64_t *bytes) {
    uint64_t r = 0, b = 0;
    int rc = calib_walk(c, 1, &r, &b);
    if (removed)
        *removed = r;
    if (bytes)
        *bytes = b;
    return rc;
}

int cyrt_cache_prune(const cyrt_cache *c, uint64_t max_bytes, uint64_t *removed, uint64_t *bytes) {
    if (removed)
        *removed = 0;
    if (bytes)
        *bytes = 0;
    cyrt_cache_entry *list;
    size_t n;
    if (cyrt_cache_list(c, 1, &list, &n) != 0)
        return -1;
    int rc = 0, err = 0;
    for (size_t i = 0; i < n; i++) {
        if (list[i].valid)
            continue;
        item it = {.size = list[i].size};
        snprintf(it.name, sizeof it.name, "%s", list[i].name);
        if (remove_item(c, &it, removed, bytes) != 0 && !err)
            rc = -1, err = errno;
    }
    free(list);
    if (evict(c, max_bytes, STALE_TEMP_S, removed, bytes) != 0 && !err)
        rc = -1, err = errno;
    if (rc)
        errno = err;
    return rc;
}
