/* test_cache.c: the kernel cache's files (cache/cache.c) — SHA-256, keys,
 * store and lookup, every kind of damaged entry, atomic replacement under
 * a concurrent reader, the permission rules (read-only directory, a
 * directory or entry others can write, a path through a directory others
 * can write, sticky directories, symbolic links), LRU eviction under the cap, the
 * `cyocl cache` operations and the environment variables.  No OpenCL. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cache/cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static char root[] = "/tmp/cyocl-test-cache-XXXXXX";

static void sha_hex(const void *data, size_t len, char out[65]) {
    unsigned char d[32];
    cyrt_sha256 s;
    cyrt_sha256_init(&s);
    cyrt_sha256_update(&s, data, len);
    cyrt_sha256_final(&s, d);
    for (int i = 0; i < 32; i++)
        sprintf(out + 2 * i, "%02x", d[i]);
}

static void test_sha256(void) {
    char h[65];
    sha_hex("", 0, h);
    CHECK(strcmp(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") == 0, "%s", h);
    sha_hex("abc", 3, h);
    CHECK(strcmp(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") == 0, "%s", h);
    const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    sha_hex(m, strlen(m), h);
    CHECK(strcmp(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1") == 0, "%s", h);
    /* a million 'a' fed in odd pieces: the buffering across updates */
    char *a = malloc(1000000);
    memset(a, 'a', 1000000);
    unsigned char d[32];
    cyrt_sha256 s;
    cyrt_sha256_init(&s);
    for (size_t at = 0, step = 1; at < 1000000; at += step, step = step * 3 % 997 + 1)
        cyrt_sha256_update(&s, a + at, at + step > 1000000 ? 1000000 - at : step);
    cyrt_sha256_final(&s, d);
    for (int i = 0; i < 32; i++)
        sprintf(h + 2 * i, "%02x", d[i]);
    CHECK(strcmp(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0") == 0, "%s", h);
    free(a);
}

static void test_parse_size(void) {
    uint64_t b = 0;
    CHECK(cyrt_cache_parse_size("123", &b) == 0 && b == 123);
    CHECK(cyrt_cache_parse_size("64K", &b) == 0 && b == 65536);
    CHECK(cyrt_cache_parse_size("100M", &b) == 0 && b == 100u << 20);
    CHECK(cyrt_cache_parse_size("1G", &b) == 0 && b == 1u << 30);
    CHECK(cyrt_cache_parse_size("2g", &b) == 0 && b == (uint64_t)2 << 30);
    CHECK(cyrt_cache_parse_size("100MiB", &b) == 0 && b == 100u << 20);
    CHECK(cyrt_cache_parse_size("100MB", &b) == 0 && b == 100u << 20);
    CHECK(cyrt_cache_parse_size("0", &b) == 0 && b == 0);
    CHECK(cyrt_cache_parse_size("", &b) != 0);
    CHECK(cyrt_cache_parse_size("M", &b) != 0);
    CHECK(cyrt_cache_parse_size("-5", &b) != 0);
    CHECK(cyrt_cache_parse_size("12Q", &b) != 0);
    CHECK(cyrt_cache_parse_size("1.5G", &b) != 0);
    CHECK(cyrt_cache_parse_size("99999999999999999999", &b) != 0);
    CHECK(cyrt_cache_parse_size("99999999999T", &b) != 0);
}

/* A key like the runtime's: device, options, source. */
#define NPARTS 4
static void make_parts(cyrt_cache_part p[NPARTS], const char *dev, const char *opts, const char *src) {
    p[0] = (cyrt_cache_part){"cyocl", "0.1.0", 5};
    p[1] = (cyrt_cache_part){"device", dev, strlen(dev)};
    p[2] = (cyrt_cache_part){"options", opts, strlen(opts)};
    p[3] = (cyrt_cache_part){"source", src, strlen(src)};
}

static void key_hex(const cyrt_cache_part *p, size_t n, char hex[65]) {
    char *text;
    size_t len;
    CHECK(cyrt_cache_key(p, n, &text, &len, hex) == 0);
    free(text);
}

static void test_keys(void) {
    cyrt_cache_part p[NPARTS], q[NPARTS];
    char a[65], b[65];
    make_parts(p, "dev", "-O2", "kernel void k() {}");
    key_hex(p, NPARTS, a);
    CHECK(strlen(a) == 64);
    make_parts(q, "dev", "-O2", "kernel void k() {}");
    key_hex(q, NPARTS, b);
    CHECK(strcmp(a, b) == 0, "the same parts give the same key");
    /* each part, its label and the split between parts change the key */
    const char *alt[NPARTS] = {"0.1.1", "dev2", "-O2 -DX", "kernel void k() { }"};
    for (int i = 0; i < NPARTS; i++) {
        make_parts(q, "dev", "-O2", "kernel void k() {}");
        q[i].data = alt[i];
        q[i].len = strlen(alt[i]);
        key_hex(q, NPARTS, b);
        CHECK(strcmp(a, b) != 0, "part %d", i);
        make_parts(q, "dev", "-O2", "kernel void k() {}");
        q[i].label = "other";
        key_hex(q, NPARTS, b);
        CHECK(strcmp(a, b) != 0, "label %d", i);
    }
    cyrt_cache_part s1[2] = {{"x", "ab", 2}, {"y", "c", 1}}, s2[2] = {{"x", "a", 1}, {"y", "bc", 2}};
    key_hex(s1, 2, a);
    key_hex(s2, 2, b);
    CHECK(strcmp(a, b) != 0, "length-prefixed parts");
}

/* ---- helpers over a cache directory ---- */

static int count_files(const char *dir, const char *prefix, const char *suffix) {
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t l = strlen(de->d_name), sl = strlen(suffix);
        if (strncmp(de->d_name, prefix, strlen(prefix)) == 0 && l >= sl &&
            strcmp(de->d_name + l - sl, suffix) == 0 && strcmp(de->d_name, ".") != 0 &&
            strcmp(de->d_name, "..") != 0)
            n++;
    }
    closedir(d);
    return n;
}

static char *entry_file(const cyrt_cache *c, const cyrt_cache_part *p) {
    char hex[65], *path = NULL;
    key_hex(p, NPARTS, hex);
    if (asprintf(&path, "%s/%s.clbin", c->dir, hex) < 0)
        abort();
    return path;
}

static void open_dir(cyrt_cache *c, const char *dir) {
    char *warn = NULL;
    CHECK(cyrt_cache_open(c, dir, 1, &warn) == 0);
    CHECK(warn == NULL, "unexpected warning: %s", warn);
    free(warn);
}

static unsigned char *make_bin(size_t n, unsigned seed) {
    unsigned char *b = malloc(n);
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(seed * 131 + i * 7 + (i >> 8));
    return b;
}

static cyrt_cache_result lookup(cyrt_cache *c, const cyrt_cache_part *p, const unsigned char *want,
                                size_t wlen) {
    unsigned char *bin = NULL;
    size_t len = 0;
    uint64_t ns = 0;
    char *warn = NULL;
    cyrt_cache_result r = cyrt_cache_lookup(c, p, NPARTS, &bin, &len, &ns, &warn);
    if (r == CYRT_CACHE_HIT && want)
        CHECK(len == wlen && memcmp(bin, want, len) == 0, "the binary comes back as stored");
    if (r != CYRT_CACHE_HIT)
        CHECK(bin == NULL && len == 0);
    free(bin);
    free(warn);
    return r;
}

static int store(cyrt_cache *c, const cyrt_cache_part *p, const unsigned char *bin, size_t len) {
    char *warn = NULL;
    int rc = cyrt_cache_store(c, p, NPARTS, bin, len, 12345678, &warn);
    CHECK(rc != 0 || warn == NULL, "%s", warn);
    free(warn);
    return rc;
}

static void test_round_trip(void) {
    char dir[256];
    snprintf(dir, sizeof dir, "%s/a/b/cache", root); /* parents made too */
    cyrt_cache c;
    open_dir(&c, dir);
    CHECK(c.mode == CYRT_CACHE_RW);
    struct stat st;
    CHECK(stat(dir, &st) == 0 && (st.st_mode & 0777) == 0700, "the directory is created private");
    cyrt_cache_part p[NPARTS], q[NPARTS];
    make_parts(p, "dev", "-O2", "kernel void k() {}");
    make_parts(q, "dev", "-O3", "kernel void k() {}");
    CHECK(lookup(&c, p, NULL, 0) == CYRT_CACHE_MISS);
    unsigned char *bin = make_bin(5000, 1);
    CHECK(store(&c, p, bin, 5000) == 0);
    unsigned char *got = NULL;
    size_t len = 0;
    uint64_t ns = 0;
    CHECK(cyrt_cache_lookup(&c, p, NPARTS, &got, &len, &ns, NULL) == CYRT_CACHE_HIT);
    CHECK(len == 5000 && got && memcmp(got, bin, 5000) == 0);
    CHECK(ns == 12345678, "the build time is recorded: %llu", (unsigned long long)ns);
    free(got);
    CHECK(lookup(&c, q, NULL, 0) == CYRT_CACHE_MISS, "another key misses");
    char *path = entry_file(&c, p);
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "entries are private");
    free(path);
    CHECK(count_files(dir, ".tmp-", "") == 0, "no temporary file is left");
    CHECK(count_files(dir, "", ".clbin") == 1);
    CHECK(cyrt_cache_store(&c, p, NPARTS, bin, 0, 0, NULL) != 0, "an empty binary is not stored");
    free(bin);
    cyrt_cache_close(&c);
}

/* ---- damaged entries ---- */

enum { TRUNC_END, TRUNC_HALF, TRUNC_HEADER, FLIP_BIN, FLIP_MAGIC, FLIP_BUILD_NS, FLIP_KEY,
       FLIP_SUM, FOREIGN, EMPTY, GARBAGE, SYMLINK, DIRECTORY, NDAMAGE };
static const char *damage_name[NDAMAGE] = {
    "truncated at the end", "truncated to half", "truncated in the header", "bit flip in the binary",
    "bit flip in the magic", "bit flip in the build time", "bit flip in the key echo",
    "bit flip in the checksum", "another key's entry", "zero-length file", "garbage",
    "a symbolic link", "a directory"};

static void flip(const char *path, long off) {
    int fd = open(path, O_RDWR);
    struct stat st;
    fstat(fd, &st);
    if (off < 0)
        off += st.st_size;
    unsigned char b;
    CHECK(pread(fd, &b, 1, off) == 1);
    b ^= 0x10;
    CHECK(pwrite(fd, &b, 1, off) == 1);
    close(fd);
}

static void damage(int kind, const char *path, cyrt_cache *c, const cyrt_cache_part *other) {
    struct stat st;
    stat(path, &st);
    switch (kind) {
    case TRUNC_END: CHECK(truncate(path, st.st_size - 1) == 0); break;
    case TRUNC_HALF: CHECK(truncate(path, st.st_size / 2) == 0); break;
    case TRUNC_HEADER: CHECK(truncate(path, 20) == 0); break;
    case FLIP_BIN: flip(path, -100); break;
    case FLIP_MAGIC: flip(path, 2); break;
    case FLIP_BUILD_NS: flip(path, 33); break;
    case FLIP_KEY: flip(path, 45); break;
    case FLIP_SUM: flip(path, -1); break;
    case FOREIGN: {
        unsigned char *b = make_bin(3000, 9);
        CHECK(store(c, other, b, 3000) == 0);
        free(b);
        char *op = entry_file(c, other);
        CHECK(rename(op, path) == 0);
        free(op);
        break;
    }
    case EMPTY: CHECK(truncate(path, 0) == 0); break;
    case GARBAGE: {
        FILE *f = fopen(path, "wb");
        for (int i = 0; i < 4000; i++)
            fputc((i * 7919) & 255, f);
        fclose(f);
        break;
    }
    case SYMLINK: {
        unsigned char *b = make_bin(3000, 9);
        CHECK(store(c, other, b, 3000) == 0);
        free(b);
        char *op = entry_file(c, other);
        CHECK(unlink(path) == 0 && symlink(op, path) == 0);
        free(op);
        break;
    }
    case DIRECTORY: CHECK(unlink(path) == 0 && mkdir(path, 0700) == 0); break;
    }
}

static void test_damage(void) {
    char dir[256];
    snprintf(dir, sizeof dir, "%s/damage", root);
    cyrt_cache c;
    open_dir(&c, dir);
    cyrt_cache_part p[NPARTS], other[NPARTS];
    make_parts(p, "dev", "-O2", "kernel void k(global float *x) { x[0] = 1; }");
    make_parts(other, "dev", "-O2", "kernel void other() {}");
    unsigned char *bin = make_bin(4096, 3);
    char *path = entry_file(&c, p);
    for (int k = 0; k < NDAMAGE; k++) {
        CHECK(store(&c, p, bin, 4096) == 0, "%s", damage_name[k]);
        CHECK(lookup(&c, p, bin, 4096) == CYRT_CACHE_HIT, "%s", damage_name[k]);
        damage(k, path, &c, other);
        CHECK(lookup(&c, p, NULL, 0) == CYRT_CACHE_BAD, "%s is not loaded", damage_name[k]);
        cyrt_cache_entry *list;
        size_t n;
        CHECK(cyrt_cache_list(&c, 1, &list, &n) == 0);
        for (size_t i = 0; i < n; i++)
            if (strncmp(list[i].name, path + strlen(dir) + 1, 64) == 0 && k != DIRECTORY &&
                k != SYMLINK)
                CHECK(!list[i].valid, "list marks %s as damaged", damage_name[k]);
        free(list);
        if (k == DIRECTORY)
            rmdir(path); /* rename cannot replace a directory with a file */
        /* the rebuild's store replaces it */
        CHECK(store(&c, p, bin, 4096) == 0, "%s: replaced", damage_name[k]);
        CHECK(lookup(&c, p, bin, 4096) == CYRT_CACHE_HIT, "%s: replaced", damage_name[k]);
    }
    /* prune drops damaged entries and keeps good ones */
    flip(path, -50);
    uint64_t removed = 0, bytes = 0;
    CHECK(cyrt_cache_prune(&c, c.max_bytes, &removed, &bytes) == 0);
    CHECK(removed >= 1);
    CHECK(lookup(&c, p, NULL, 0) == CYRT_CACHE_MISS, "prune removed the damaged entry");
    CHECK(lookup(&c, other, NULL, 0) == CYRT_CACHE_HIT, "and kept the good one");
    free(path);
    free(bin);
    cyrt_cache_close(&c);
}

/* ---- atomicity: a reader never sees a partial entry ---- */

static void test_atomic(void) {
    char dir[256];
    snprintf(dir, sizeof dir, "%s/atomic", root);
    cyrt_cache c;
    open_dir(&c, dir);
    cyrt_cache_part p[NPARTS];
    make_parts(p, "dev", "", "kernel void big() {}");
    size_t n = 1 << 20;
    pid_t pid = fork();
    if (pid == 0) {
        /* writers replace the entry again and again, with different binaries */
        unsigned char *b = make_bin(n, 0);
        for (int i = 0; i < 40; i++) {
            b[i % n] ^= 1;
            if (cyrt_cache_store(&c, p, NPARTS, b, n, 1, NULL) != 0)
                _exit(1);
        }
        _exit(0);
    }
    int hits = 0, bad = 0;
    for (int i = 0; i < 400; i++) {
        cyrt_cache_result r = lookup(&c, p, NULL, 0);
        hits += r == CYRT_CACHE_HIT;
        bad += r == CYRT_CACHE_BAD;
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid) {
            CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
            pid = 0;
            break;
        }
    }
    if (pid) {
        int st;
        waitpid(pid, &st, 0);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    CHECK(bad == 0, "%d lookups saw a partial entry", bad);
    CHECK(lookup(&c, p, NULL, 0) == CYRT_CACHE_HIT);
    CHECK(count_files(dir, ".tmp-", "") == 0, "no temporary file is left");
    CHECK(count_files(dir, "", ".clbin") == 1);
    (void)hits;
    cyrt_cache_close(&c);
}

/* ---- permissions ---- */

/* Runs f as a user other than root (nobody) when we are root, since root
 * writes anywhere; returns whether it passed. */
static int as_user(void (*f)(const char *), const char *dir) {
    if (geteuid() != 0) {
        int before = failures;
        f(dir);
        return failures == before;
    }
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        if (setgid(65534) != 0 || setuid(65534) != 0) {
            perror("setuid");
            _exit(3);
        }
        f(dir);
        _exit(failures ? 1 : 0);
    }
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static void read_only_checks(const char *dir) {
    cyrt_cache c;
    char *warn = NULL;
    CHECK(cyrt_cache_open(&c, dir, 1, &warn) == 0);
    CHECK(c.mode == CYRT_CACHE_RO, "mode %d", c.mode);
    CHECK(warn == NULL, "no warning before anything needs storing: %s", warn);
    free(warn);
    cyrt_cache_part p[NPARTS], q[NPARTS];
    make_parts(p, "dev", "", "kernel void k() {}");
    make_parts(q, "dev", "", "kernel void q() {}");
    unsigned char *bin = make_bin(1000, 5);
    CHECK(lookup(&c, p, bin, 1000) == CYRT_CACHE_HIT, "a read-only cache still loads");
    CHECK(lookup(&c, q, NULL, 0) == CYRT_CACHE_MISS);
    warn = NULL;
    CHECK(cyrt_cache_store(&c, q, NPARTS, bin, 1000, 1, &warn) != 0);
    CHECK(warn && strstr(warn, "not writable") && !strchr(warn, '\n'), "one warning: %s", warn);
    free(warn);
    CHECK(count_files(dir, ".tmp-", "") == 0);
    free(bin);
    cyrt_cache_close(&c);
}

static void test_read_only(void) {
    char dir[256];
    snprintf(dir, sizeof dir, "%s/ro", root);
    cyrt_cache c;
    open_dir(&c, dir);
    cyrt_cache_part p[NPARTS];
    make_parts(p, "dev", "", "kernel void k() {}");
    unsigned char *bin = make_bin(1000, 5);
    CHECK(store(&c, p, bin, 1000) == 0);
    free(bin);
    char *path = entry_file(&c, p);
    cyrt_cache_close(&c);
    if (geteuid() == 0) {
        /* prepared by root for another user, who can only read it */
        CHECK(chmod(dir, 0755) == 0 && chmod(path, 0644) == 0);
        CHECK(chmod(root, 0755) == 0); /* so that nobody can reach it */
    } else {
        CHECK(chmod(dir, 0500) == 0);
    }
    CHECK(as_user(read_only_checks, dir), "read-only directory");
    chmod(dir, 0700);
    free(path);
}

static void test_unsafe(void) {
    char dir[256];
    snprintf(dir, sizeof dir, "%s/unsafe", root);
    cyrt_cache c;
    open_dir(&c, dir);
    cyrt_cache_part p[NPARTS];
    make_parts(p, "dev", "", "kernel void k() {}");
    unsigned char *bin = make_bin(1000, 5);
    CHECK(store(&c, p, bin, 1000) == 0);
    char *path = entry_file(&c, p);
    cyrt_cache_close(&c);

    /* a directory others can write: nothing loaded or stored */
    CHECK(chmod(dir, 0777) == 0);
    char *warn = NULL;
    CHECK(cyrt_cache_open(&c, dir, 1, &warn) == 0);
    CHECK(c.mode == CYRT_CACHE_UNSAFE);
    CHECK(warn && strstr(warn, "other users") && !strchr(warn, '\n'), "one warning: %s", warn);
    free(warn);
    CHECK(lookup(&c, p, NULL, 0) == CYRT_CACHE_REFUSED);
    CHECK(cyrt_cache_store(&c, p, NPARTS, bin, 1000, 1, NULL) != 0);
    cyrt_cache_close(&c);
    CHECK(chmod(dir, 0770) == 0); /* group-writable is no better */
    CHECK(cyrt_cache_open(&c, dir, 1, NULL) == 0 && c.mode == CYRT_CACHE_UNSAFE);
    cyrt_cache_close(&c);
    CHECK(chmod(dir, 0700) == 0);

    /* an entry others can write: not loaded, a warning, and not replaced */
    open_dir(&c, dir);
    CHECK(chmod(path, 0666) == 0);
    unsigned char *got = NULL;
    size_t len;
    warn = NULL;
    CHECK(cyrt_cache_lookup(&c, p, NPARTS, &got, &len, NULL, &warn) == CYRT_CACHE_REFUSED);
    CHECK(got == NULL);
    CHECK(warn && strstr(warn, "other users"), "warning: %s", warn);
    free(warn);
    CHECK(chmod(path, 0600) == 0);
    CHECK(lookup(&c, p, bin, 1000) == CYRT_CACHE_HIT);
    if (geteuid() == 0) {
        /* an entry of another (non-root) user is not ours to trust */
        CHECK(chown(path, 65534, 65534) == 0);
        CHECK(lookup(&c, p, NULL, 0) == CYRT_CACHE_REFUSED);
        CHECK(chown(path, 0, 0) == 0);
        CHECK(lookup(&c, p, bin, 1000) == CYRT_CACHE_HIT);
    }
    free(path);
    free(bin);
    cyrt_cache_close(&c);
}

/* The mode a cache at dir opens in, its one-line warning in *warn (NULL if none). */
static int open_mode(const char *dir, char **warn) {
    cyrt_cache c;
    *warn = NULL;
    CHECK(cyrt_cache_open(&c, dir, 1, warn) == 0);
    CHECK(!*warn || !strchr(*warn, '\n'), "one warning: %s", *warn);
    int mode = c.mode;
    cyrt_cache_close(&c);
    return mode;
}

/* The whole path must be safe (DESIGN §7, as ssh's StrictModes): every
 * directory from / down, not only the cache directory itself. */
static void test_path(void) {
    char base[200], dir[400], other[300], link[400], *warn;
    snprintf(base, sizeof base, "%s/path", root);
    CHECK(mkdir(base, 0700) == 0);

    /* a parent others can write: they could rename the cache away and put theirs there */
    snprintf(other, sizeof other, "%s/open", base);
    CHECK(mkdir(other, 0700) == 0 && chmod(other, 0777) == 0);
    snprintf(dir, sizeof dir, "%s/cache", other);
    CHECK(open_mode(dir, &warn) == CYRT_CACHE_UNSAFE);
    CHECK(warn && strstr(warn, other) && strstr(warn, "other users"), "names the parent: %s", warn);
    free(warn);
    /* and nothing is loaded or stored there */
    cyrt_cache c;
    CHECK(cyrt_cache_open(&c, dir, 1, NULL) == 0);
    cyrt_cache_part p[NPARTS];
    make_parts(p, "dev", "", "kernel void k() {}");
    unsigned char *bin = make_bin(100, 3);
    CHECK(cyrt_cache_store(&c, p, NPARTS, bin, 100, 1, NULL) != 0);
    CHECK(lookup(&c, p, NULL, 0) == CYRT_CACHE_REFUSED);
    CHECK(count_files(dir, "", CYRT_CACHE_SUFFIX) == 0);
    cyrt_cache_close(&c);
    /* group-writable is no better, a grandparent no better than a parent */
    CHECK(chmod(other, 0770) == 0);
    CHECK(open_mode(dir, &warn) == CYRT_CACHE_UNSAFE);
    free(warn);
    CHECK(chmod(other, 0755) == 0 && chmod(base, 0777) == 0);
    CHECK(open_mode(dir, &warn) == CYRT_CACHE_UNSAFE);
    CHECK(warn && strstr(warn, base), "names the grandparent: %s", warn);
    free(warn);
    CHECK(chmod(base, 0700) == 0);
    CHECK(open_mode(dir, &warn) == CYRT_CACHE_RW, "a safe path again: %s", warn);
    free(warn);

    /* a sticky parent (as /tmp) is fine when what is in it is ours */
    snprintf(other, sizeof other, "%s/sticky", base);
    CHECK(mkdir(other, 0700) == 0 && chmod(other, 01777) == 0);
    snprintf(dir, sizeof dir, "%s/cache", other);
    CHECK(open_mode(dir, &warn) == CYRT_CACHE_RW, "sticky parent: %s", warn);
    free(warn);
    /* but not as the cache directory itself: anyone could add entries */
    CHECK(chmod(dir, 01777) == 0);
    CHECK(open_mode(dir, &warn) == CYRT_CACHE_UNSAFE);
    free(warn);
    CHECK(chmod(dir, 0700) == 0);
    if (geteuid() == 0) {
        /* in a sticky directory, a component of another user: theirs to replace */
        char mid[400];
        snprintf(mid, sizeof mid, "%s/theirs", other);
        CHECK(mkdir(mid, 0755) == 0 && chown(mid, 65534, 65534) == 0);
        snprintf(dir, sizeof dir, "%s/theirs/cache", other);
        CHECK(mkdir(dir, 0700) == 0);
        CHECK(open_mode(dir, &warn) == CYRT_CACHE_UNSAFE);
        CHECK(warn && strstr(warn, "another user"), "names the owner: %s", warn);
        free(warn);
        /* a sticky directory that belongs to another user: its owner can rename anything in it */
        CHECK(chown(other, 65534, 65534) == 0);
        snprintf(dir, sizeof dir, "%s/cache", other);
        CHECK(open_mode(dir, &warn) == CYRT_CACHE_UNSAFE);
        free(warn);
        CHECK(chown(other, 0, 0) == 0);
    }

    /* symbolic links are followed, and the place they lead to is what counts */
    snprintf(other, sizeof other, "%s/open", base);
    CHECK(chmod(other, 0777) == 0);
    snprintf(dir, sizeof dir, "%s/open/cache", base);
    snprintf(link, sizeof link, "%s/to-unsafe", base);
    CHECK(symlink(dir, link) == 0);
    CHECK(open_mode(link, &warn) == CYRT_CACHE_UNSAFE, "a link to an unsafe place");
    CHECK(warn && strstr(warn, other), "names the unsafe parent: %s", warn);
    free(warn);
    /* a link that lives in an unsafe place but leads to a safe one: the
     * resolved path is used from then on, so a later change of the link
     * does not move the cache */
    char safe[300], real[PATH_MAX];
    snprintf(safe, sizeof safe, "%s/safe", base);
    CHECK(mkdir(safe, 0700) == 0);
    snprintf(link, sizeof link, "%s/open/to-safe", base);
    CHECK(symlink(safe, link) == 0);
    CHECK(cyrt_cache_open(&c, link, 1, &warn) == 0 && c.mode == CYRT_CACHE_RW, "mode %d: %s", c.mode, warn);
    free(warn);
    CHECK(realpath(safe, real) && c.dir && strcmp(c.dir, real) == 0, "dir %s", c.dir);
    CHECK(store(&c, p, bin, 100) == 0);
    cyrt_cache_close(&c);
    CHECK(count_files(safe, "", CYRT_CACHE_SUFFIX) == 1);
    CHECK(chmod(other, 0700) == 0);
    free(bin);
}

/* ---- the size cap and LRU eviction ---- */

static void set_age(const char *path, int seconds_ago) {
    struct timespec t[2];
    clock_gettime(CLOCK_REALTIME, &t[0]);
    t[0].tv_sec -= seconds_ago;
    t[1] = t[0];
    CHECK(utimensat(AT_FDCWD, path, t, 0) == 0);
}

static void test_eviction(void) {
    char dir[256];
    snprintf(dir, sizeof dir, "%s/lru", root);
    cyrt_cache c;
    open_dir(&c, dir);
    cyrt_cache_part p[4][NPARTS];
    const char *srcs[4] = {"kernel void a() {}", "kernel void b() {}", "kernel void c() {}",
                           "kernel void d() {}"};
    unsigned char *bin = make_bin(10000, 7);
    char *paths[4];
    for (int i = 0; i < 4; i++) {
        make_parts(p[i], "dev", "", srcs[i]);
        paths[i] = entry_file(&c, p[i]);
    }
    for (int i = 0; i < 3; i++)
        CHECK(store(&c, p[i], bin, 10000) == 0);
    struct stat st;
    CHECK(stat(paths[0], &st) == 0);
    uint64_t one = (uint64_t)st.st_size;
    set_age(paths[0], 300);
    set_age(paths[1], 200);
    set_age(paths[2], 100);
    c.max_bytes = 3 * one + one / 2; /* three fit, four do not */
    CHECK(lookup(&c, p[0], bin, 10000) == CYRT_CACHE_HIT); /* a is recent again */
    CHECK(store(&c, p[3], bin, 10000) == 0);
    CHECK(stat(paths[1], &st) != 0, "b, the least recently used, was evicted");
    CHECK(stat(paths[0], &st) == 0 && stat(paths[2], &st) == 0 && stat(paths[3], &st) == 0);
    cyrt_cache_usage u;
    CHECK(cyrt_cache_usage_get(&c, &u) == 0);
    CHECK(u.entries == 3 && u.bytes == 3 * one && u.bytes <= c.max_bytes);

    /* list: most recently used first */
    set_age(paths[2], 50);
    cyrt_cache_entry *list;
    size_t n;
    CHECK(cyrt_cache_list(&c, 1, &list, &n) == 0 && n == 3);
    if (n == 3) {
        CHECK(strncmp(list[2].name, paths[2] + strlen(dir) + 1, 64) == 0, "c is the oldest");
        CHECK(list[0].valid && list[0].size == one && list[0].build_ns == 12345678);
        CHECK(strcmp(list[0].device, "dev") == 0 && strcmp(list[0].version, "0.1.0") == 0);
    }
    free(list);

    /* an entry larger than the cap is not stored at all */
    c.max_bytes = one / 2;
    char *warn = NULL;
    CHECK(cyrt_cache_store(&c, p[1], NPARTS, bin, 10000, 1, &warn) != 0);
    CHECK(warn && strstr(warn, "cap"), "%s", warn);
    free(warn);
    CHECK(stat(paths[1], &st) != 0);

    /* prune to a size; stale temporary files go, fresh ones stay */
    char tmp_old[300], tmp_new[300];
    snprintf(tmp_old, sizeof tmp_old, "%s/.tmp-0123456789abcdef.AAAAAA", dir);
    snprintf(tmp_new, sizeof tmp_new, "%s/.tmp-0123456789abcdef.BBBBBB", dir);
    fclose(fopen(tmp_old, "w"));
    fclose(fopen(tmp_new, "w"));
    set_age(tmp_old, 2 * 3600);
    CHECK(cyrt_cache_usage_get(&c, &u) == 0 && u.temps == 2);
    uint64_t removed = 0, bytes = 0;
    CHECK(cyrt_cache_prune(&c, one + one / 2, &removed, &bytes) == 0);
    CHECK(removed == 2 && bytes == 2 * one, "removed %llu", (unsigned long long)removed);
    CHECK(stat(paths[3], &st) == 0, "the most recently used entry stays");
    CHECK(stat(tmp_old, &st) != 0 && stat(tmp_new, &st) == 0);
    /* clear: everything */
    CHECK(cyrt_cache_clear(&c, &removed, &bytes) == 0 && removed == 1 && bytes == one);
    CHECK(cyrt_cache_usage_get(&c, &u) == 0 && u.entries == 0 && u.temps == 0 && u.bytes == 0);
    for (int i = 0; i < 4; i++)
        free(paths[i]);
    free(bin);
    cyrt_cache_close(&c);
}

/* ---- the environment ---- */

static void test_env(void) {
    char dir[256];
    snprintf(dir, sizeof dir, "%s/env", root);
    cyrt_cache c;
    char *warn = NULL;

    setenv("CYOCL_CACHE", "0", 1);
    setenv("CYOCL_CACHE_DIR", dir, 1);
    CHECK(cyrt_cache_open(&c, NULL, 1, &warn) == 0);
    CHECK(c.mode == CYRT_CACHE_OFF && warn == NULL);
    CHECK(c.dir && strcmp(c.dir, dir) == 0, "the directory is still named");
    struct stat st;
    CHECK(stat(dir, &st) != 0, "CYOCL_CACHE=0 creates nothing");
    cyrt_cache_part p[NPARTS];
    make_parts(p, "dev", "", "kernel void k() {}");
    unsigned char *bin = make_bin(100, 1);
    CHECK(lookup(&c, p, NULL, 0) == CYRT_CACHE_REFUSED);
    CHECK(cyrt_cache_store(&c, p, NPARTS, bin, 100, 1, NULL) != 0);
    cyrt_cache_close(&c);

    setenv("CYOCL_CACHE", "maybe", 1);
    CHECK(cyrt_cache_open(&c, NULL, 1, &warn) == 0);
    CHECK(c.mode == CYRT_CACHE_RW && warn && strstr(warn, "CYOCL_CACHE"), "%s", warn);
    CHECK(c.dir && strcmp(c.dir, dir) == 0, "CYOCL_CACHE_DIR names the directory");
    free(warn);
    cyrt_cache_close(&c);
    unsetenv("CYOCL_CACHE");

    setenv("CYOCL_CACHE_MAX_SIZE", "64K", 1);
    CHECK(cyrt_cache_open(&c, NULL, 0, &warn) == 0 && warn == NULL);
    CHECK(c.max_bytes == 65536);
    cyrt_cache_close(&c);
    setenv("CYOCL_CACHE_MAX_SIZE", "lots", 1);
    CHECK(cyrt_cache_open(&c, NULL, 0, &warn) == 0);
    CHECK(c.max_bytes == CYRT_CACHE_DEFAULT_MAX && warn && strstr(warn, "CYOCL_CACHE_MAX_SIZE"));
    free(warn);
    cyrt_cache_close(&c);
    unsetenv("CYOCL_CACHE_MAX_SIZE");

    /* the default: $HOME/.cython/opencl */
    unsetenv("CYOCL_CACHE_DIR");
    char home[256], want[300];
    snprintf(home, sizeof home, "%s/home", root);
    snprintf(want, sizeof want, "%s/.cython/opencl", home);
    setenv("HOME", home, 1);
    CHECK(cyrt_cache_open(&c, NULL, 0, &warn) == 0 && warn == NULL);
    CHECK(c.dir && strcmp(c.dir, want) == 0, "%s", c.dir);
    CHECK(stat(want, &st) != 0, "not created without create");
    cyrt_cache_close(&c);

    /* a path that cannot be a directory: off, one warning */
    snprintf(want, sizeof want, "%s/file", root);
    fclose(fopen(want, "w"));
    CHECK(cyrt_cache_open(&c, want, 1, &warn) == 0 && c.mode == CYRT_CACHE_OFF);
    CHECK(warn && !strchr(warn, '\n'), "%s", warn);
    free(warn);
    cyrt_cache_close(&c);
    strcat(want, "/sub");
    CHECK(cyrt_cache_open(&c, want, 1, &warn) == 0 && c.mode == CYRT_CACHE_OFF);
    CHECK(warn && strstr(warn, "cannot create"), "%s", warn);
    free(warn);
    cyrt_cache_close(&c);
    free(bin);
}

int main(void) {
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 1;
    }
    test_sha256();
    test_parse_size();
    test_keys();
    test_round_trip();
    test_damage();
    test_atomic();
    test_read_only();
    test_unsafe();
    test_path();
    test_eviction();
    test_env();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "chmod -R u+rwx %s 2>/dev/null; rm -rf %s", root, root);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", root);
    printf("test_cache: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
