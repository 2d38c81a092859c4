/* cache_procs.c: the kernel cache through the runtime, across processes, on
 * a real OpenCL device (PoCL here; exit 77 when there is none):
 *
 *   - 8 processes started together on an empty cache all get a working
 *     program and leave exactly one valid entry and no temporary file;
 *   - a later process loads it (how == CYRT_BUILD_CACHE) and builds nothing;
 *   - a damaged entry, and one whose checksum is right but whose binary the
 *     driver refuses, are rebuilt and replaced;
 *   - a read-only cache directory loads its entries, and builds what it
 *     lacks with exactly one warning;
 *   - CYOCL_CACHE=0 and a directory others can write: programs still build,
 *     nothing is stored, the latter with exactly one warning.
 *
 * Every process is a fresh fork that opens OpenCL itself (none is opened
 * in the parent: drivers do not survive fork). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cache/cache.h"
#include "runtime/cyrt.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

CY_TEST_DRIVER_LEAKS_ARE_NOT_OURS("")

static const char *SRC =
    "kernel void triple(global int *x, ulong off, int salt) {\n"
    "    size_t i = get_global_id(0);\n"
    "    x[off + i] = x[off + i] * 3 + salt;\n"
    "}\n";

/* the same kernel under another key */
static const char *SRC2 =
    "/* another program */\n"
    "kernel void triple(global int *x, ulong off, int salt) {\n"
    "    size_t i = get_global_id(0);\n"
    "    x[off + i] = x[off + i] * 3 + salt;\n"
    "}\n";

enum { EXIT_NODEV = 77, EXIT_BASE = 10 }; /* success: EXIT_BASE + how */

/* What a child checks beyond a working program. */
typedef struct {
    int want_how;      /* 0: either */
    int want_warnings; /* -1: don't care; else the number of cache warning lines */
    int twice;         /* get the program a second time in the same runtime */
    const char *src;   /* NULL: SRC */
    int as_other_user; /* run as nobody when we are root (a cache prepared by root) */
} expect;

static int pick_device(cyrt_rt *rt, int *index) {
    const cyrt_devinfo *list;
    int n;
    if (cyrt_devices(rt, &list, &n, NULL) != CYRT_OK || n == 0)
        return -1;
    *index = 0;
    for (int i = 0; i < n; i++)
        if (strcasestr(list[i].platform, "Portable Computing Language")) {
            *index = i;
            break;
        }
    return 0;
}

static int count_lines(const char *s, const char *what) {
    int n = 0;
    for (const char *p = s; p && *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (memmem(p, len, what, strlen(what)))
            n++;
        p = e ? e + 1 : p + len;
    }
    return n;
}

/* One process: get the program, run it, check the result. */
static int child(const expect *ex) {
    const char *src = ex->src ? ex->src : SRC;
    cyrt_config cfg = {.quiet = 1};
    cyrt_rt *rt;
    if (cyrt_rt_new(&cfg, &rt) != CYRT_OK)
        return 1;
    int dev, rc = 1;
    if (pick_device(rt, &dev) != 0) {
        cyrt_rt_free(rt, NULL);
        return EXIT_NODEV;
    }
    cyrt_err err = {0};
    struct _cl_program *prog = NULL;
    struct _cl_kernel *k = NULL;
    cyrt_handle *h = NULL;
    char *log = NULL;
    int how = -1;
    int x[1000];
    for (int i = 0; i < 1000; i++)
        x[i] = i;
    if (cyrt_program_get(rt, dev, src, "-cl-std=CL1.2", &prog, &how, &log, &err) != CYRT_OK) {
        fprintf(stderr, "cyrt_program_get: %s\n%s\n", err.msg, log ? log : "");
        goto out;
    }
    if (ex->twice) {
        struct _cl_program *p2 = NULL;
        int how2;
        if (cyrt_program_get(rt, dev, src, "-cl-std=CL1.2", &p2, &how2, NULL, &err) != CYRT_OK) {
            fprintf(stderr, "second cyrt_program_get: %s\n", err.msg);
            goto out;
        }
        cyrt_program_release(rt, p2);
    }
    ptrdiff_t shape = 1000, stride = sizeof(int);
    unsigned mode = CYRT_RW;
    cyrt_devref ref;
    unsigned long long off;
    int salt = 7;
    size_t global = 1000;
    if (cyrt_use_device(rt, dev, &err) != CYRT_OK ||
        cyrt_kernel_create(rt, prog, "triple", &k, &err) != CYRT_OK ||
        cyrt_register(rt, x, 1, &shape, &stride, sizeof(int), &h, NULL, &err) != CYRT_OK ||
        cyrt_device_acquire(rt, 1, &h, &mode, &ref, NULL, &err) != CYRT_OK) {
        fprintf(stderr, "setup: %s\n", err.msg);
        goto out;
    }
    off = ref.elem_offset;
    cyrt_status st = cyrt_kernel_arg(rt, k, 0, sizeof(void *), &ref.mem, &err);
    if (st == CYRT_OK)
        st = cyrt_kernel_arg(rt, k, 1, sizeof off, &off, &err);
    if (st == CYRT_OK)
        st = cyrt_kernel_arg(rt, k, 2, sizeof salt, &salt, &err);
    if (st == CYRT_OK)
        st = cyrt_kernel_launch(rt, dev, k, 1, &global, NULL, NULL, &err);
    cyrt_device_done(rt, 1, &h);
    if (st != CYRT_OK || cyrt_host_acquire(rt, h, CYRT_READ, NULL, &err) != CYRT_OK) {
        fprintf(stderr, "run: %s\n", err.msg);
        goto out;
    }
    for (int i = 0; i < 1000; i++)
        if (x[i] != i * 3 + 7) {
            fprintf(stderr, "x[%d] = %d, want %d\n", i, x[i], i * 3 + 7);
            goto out;
        }
    cyrt_cache_info info;
    cyrt_cache_info_get(rt, &info);
    if (ex->want_how && how != ex->want_how) {
        fprintf(stderr, "how = %d, want %d\n", how, ex->want_how);
        goto out;
    }
    if (how == CYRT_BUILD_CACHE && (info.hits != 1u + (unsigned)ex->twice || info.misses != 0 ||
                                    info.compile_ns != 0 || info.stores != 0)) {
        fprintf(stderr, "a cached program still compiled: hits %llu misses %llu compile %llu ns\n",
                (unsigned long long)info.hits, (unsigned long long)info.misses,
                (unsigned long long)info.compile_ns);
        goto out;
    }
    if (how == CYRT_BUILD_COMPILED && info.enabled == 1 && (info.misses < 1 || info.compile_ns == 0)) {
        fprintf(stderr, "a compiled program was not counted\n");
        goto out;
    }
    if (ex->want_warnings >= 0) {
        char *w = cyrt_warnings(rt);
        int n = count_lines(w, "kernel cache");
        if (n != ex->want_warnings) {
            fprintf(stderr, "%d cache warnings, want %d:\n%s", n, ex->want_warnings, w ? w : "");
            free(w);
            goto out;
        }
        free(w);
    }
    rc = EXIT_BASE + how;
out:
    if (h)
        cyrt_release(rt, h, NULL, NULL);
    cyrt_kernel_release(rt, k);
    cyrt_program_release(rt, prog);
    free(log);
    cyrt_rt_free(rt, NULL);
    return rc;
}

/* child() as ex says: as nobody when we are root and ex->as_other_user. */
static int child_as(const expect *ex) {
    if (!ex->as_other_user || geteuid() != 0)
        return child(ex);
    if (setgid(65534) != 0 || setuid(65534) != 0) {
        perror("setuid");
        return 1;
    }
    /* nobody has no home for PoCL's own cache, which PoCL insists on */
    char pocl_dir[] = "/tmp/cyocl-test-pocl-XXXXXX";
    if (!mkdtemp(pocl_dir))
        return 1;
    setenv("POCL_CACHE_DIR", pocl_dir, 1);
    setenv("POCL_KERNEL_CACHE", "0", 1);
    int rc = child(ex);
    char cmd[100];
    snprintf(cmd, sizeof cmd, "rm -rf %s", pocl_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", pocl_dir);
    return rc;
}

/* Starts n children at once (they wait on a pipe) and collects their exit codes. */
static void run_children(int n, const expect *ex, int *codes) {
    int gate[2];
    if (pipe(gate) != 0) {
        perror("pipe");
        exit(1);
    }
    pid_t pids[16];
    fflush(stdout);
    fflush(stderr);
    for (int i = 0; i < n; i++) {
        pids[i] = fork();
        if (pids[i] == 0) {
            close(gate[1]);
            char c;
            while (read(gate[0], &c, 1) > 0) {
            }
            close(gate[0]);
            _exit(child_as(ex));
        }
    }
    close(gate[0]);
    close(gate[1]); /* go */
    for (int i = 0; i < n; i++) {
        int st;
        waitpid(pids[i], &st, 0);
        codes[i] = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    }
}

static int run_one(const expect *ex) {
    int code;
    run_children(1, ex, &code);
    return code;
}

static int count_files(const char *dir, const char *prefix, const char *suffix) {
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t l = strlen(de->d_name), sl = strlen(suffix);
        if (de->d_name[0] != '.' || prefix[0] == '.')
            if (strncmp(de->d_name, prefix, strlen(prefix)) == 0 && l >= sl &&
                strcmp(de->d_name + l - sl, suffix) == 0)
                n++;
    }
    closedir(d);
    return n;
}

/* The one entry's path. */
static char *the_entry(const char *dir) {
    DIR *d = opendir(dir);
    char *path = NULL;
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL)
        if (strstr(de->d_name, ".clbin") && asprintf(&path, "%s/%s", dir, de->d_name) < 0)
            path = NULL;
    if (d)
        closedir(d);
    return path;
}

static unsigned char *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc(*n);
    if (fread(b, 1, *n, f) != *n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    return b;
}

static void spit(const char *path, const unsigned char *b, size_t n) {
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(b, 1, n, f) == n);
    if (f)
        fclose(f);
}

int main(void) {
    char root[] = "/tmp/cyocl-test-cacheprocs-XXXXXX";
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 1;
    }
    char dir[300];
    snprintf(dir, sizeof dir, "%s/cache", root);
    setenv("CYOCL_CACHE_DIR", dir, 1);
    unsetenv("CYOCL_CACHE");
    unsetenv("CYOCL_CACHE_MAX_SIZE");
    unsetenv("CYOCL_BUILD_OPTIONS");

    /* 8 at once on an empty cache */
    expect any = {0, -1, 0, NULL, 0};
    int codes[8];
    run_children(8, &any, codes);
    int compiled = 0;
    for (int i = 0; i < 8; i++) {
        if (codes[i] == EXIT_NODEV) {
            printf("cache_procs: no OpenCL device: skipped\n");
            char cmd[400];
            snprintf(cmd, sizeof cmd, "rm -rf %s", root);
            if (system(cmd) != 0)
                fprintf(stderr, "could not remove %s\n", root);
            return 77;
        }
        CHECK(codes[i] == EXIT_BASE + CYRT_BUILD_COMPILED || codes[i] == EXIT_BASE + CYRT_BUILD_CACHE,
              "process %d: exit %d", i, codes[i]);
        compiled += codes[i] == EXIT_BASE + CYRT_BUILD_COMPILED;
    }
    CHECK(compiled >= 1);
    CHECK(count_files(dir, "", ".clbin") == 1, "one entry per program: %d",
          count_files(dir, "", ".clbin"));
    CHECK(count_files(dir, ".tmp-", "") == 0, "no temporary file is left");
    struct stat st;
    CHECK(stat(dir, &st) == 0 && (st.st_mode & 0777) == 0700, "the directory is private");

    /* a fresh process loads it and compiles nothing (checked in the child) */
    expect cached = {CYRT_BUILD_CACHE, 0, 1, NULL, 0};
    CHECK(run_one(&cached) == EXIT_BASE + CYRT_BUILD_CACHE, "a second process uses the cache");

    /* damaged: rebuilt and replaced */
    char *path = the_entry(dir);
    CHECK(path != NULL);
    size_t n = 0;
    unsigned char *good = path ? slurp(path, &n) : NULL;
    CHECK(good != NULL && n > 200);
    if (good) {
        expect compiles = {CYRT_BUILD_COMPILED, 0, 0, NULL, 0};
        size_t cuts[] = {n / 2, n - 1, 0};
        for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
            spit(path, good, cuts[i]);
            CHECK(run_one(&compiles) == EXIT_BASE + CYRT_BUILD_COMPILED, "truncated to %zu", cuts[i]);
            CHECK(run_one(&cached) == EXIT_BASE + CYRT_BUILD_CACHE, "replaced after truncation");
        }
        unsigned char *bad = malloc(n);
        memcpy(bad, good, n);
        bad[n - 100] ^= 4; /* a bit in the binary */
        spit(path, bad, n);
        CHECK(run_one(&compiles) == EXIT_BASE + CYRT_BUILD_COMPILED, "bit flip");
        CHECK(run_one(&cached) == EXIT_BASE + CYRT_BUILD_CACHE, "replaced after a bit flip");

        /* a checksum-valid entry whose binary the driver refuses: rebuilt */
        memcpy(bad, good, n);
        uint64_t keylen = 0, binlen = 0;
        for (int i = 7; i >= 0; i--) {
            keylen = keylen << 8 | bad[16 + i];
            binlen = binlen << 8 | bad[24 + i];
        }
        CHECK(40 + keylen + binlen + 32 == n, "the entry layout of cache.h");
        if (40 + keylen + binlen + 32 == n) {
            for (uint64_t i = 0; i < binlen; i++)
                bad[40 + keylen + i] = (unsigned char)(i * 37 + 11);
            cyrt_sha256 s;
            cyrt_sha256_init(&s);
            cyrt_sha256_update(&s, bad, n - 32);
            cyrt_sha256_final(&s, bad + n - 32);
            spit(path, bad, n);
            CHECK(run_one(&compiles) == EXIT_BASE + CYRT_BUILD_COMPILED, "an unloadable binary");
            CHECK(run_one(&cached) == EXIT_BASE + CYRT_BUILD_CACHE, "replaced after refusal");
        }
        free(bad);
        free(good);
    }
    CHECK(count_files(dir, "", ".clbin") == 1 && count_files(dir, ".tmp-", "") == 0);

    /* a read-only cache (prepared by root for other users, or chmod'ed):
     * loads what it has; what it lacks is built with one warning */
    CHECK(chmod(root, 0755) == 0);
    if (geteuid() == 0) {
        char *entry = the_entry(dir);
        CHECK(entry && chmod(dir, 0755) == 0 && chmod(entry, 0644) == 0);
        free(entry);
    } else {
        CHECK(chmod(dir, 0500) == 0);
    }
    expect ro_hit = {CYRT_BUILD_CACHE, 0, 1, NULL, 1};
    int code = run_one(&ro_hit);
    CHECK(code == EXIT_BASE + CYRT_BUILD_CACHE, "a read-only cache loads: exit %d", code);
    expect ro_miss = {CYRT_BUILD_COMPILED, 1, 1, SRC2, 1};
    code = run_one(&ro_miss);
    CHECK(code == EXIT_BASE + CYRT_BUILD_COMPILED, "a read-only cache, one warning: exit %d", code);
    CHECK(count_files(dir, "", ".clbin") == 1 && count_files(dir, ".tmp-", "") == 0);
    CHECK(chmod(dir, 0700) == 0);

    /* CYOCL_CACHE=0: builds, stores nothing */
    char off_dir[300];
    snprintf(off_dir, sizeof off_dir, "%s/off", root);
    setenv("CYOCL_CACHE_DIR", off_dir, 1);
    setenv("CYOCL_CACHE", "0", 1);
    expect compiled_quiet = {CYRT_BUILD_COMPILED, 0, 1, NULL, 0};
    CHECK(run_one(&compiled_quiet) == EXIT_BASE + CYRT_BUILD_COMPILED, "CYOCL_CACHE=0");
    CHECK(stat(off_dir, &st) != 0, "CYOCL_CACHE=0 writes nothing");
    unsetenv("CYOCL_CACHE");

    /* a directory others can write: builds, one warning, nothing stored or loaded */
    char open_dir[300];
    snprintf(open_dir, sizeof open_dir, "%s/shared", root);
    CHECK(mkdir(open_dir, 0700) == 0 && chmod(open_dir, 0777) == 0);
    setenv("CYOCL_CACHE_DIR", open_dir, 1);
    expect warned = {CYRT_BUILD_COMPILED, 1, 1, NULL, 0};
    CHECK(run_one(&warned) == EXIT_BASE + CYRT_BUILD_COMPILED, "unsafe directory");
    CHECK(count_files(open_dir, "", ".clbin") == 0);

    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", root);
    free(path);
    printf("cache_procs: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
