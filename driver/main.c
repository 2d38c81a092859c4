/* main.c: the `cyocl` command — argument handling, files and subprocesses
 * around the compiler library (frontend -> IR -> C backend).
 *
 * Exit status: 0 success, 1 a source error (diagnostics printed), 2 a usage
 * or environment error.  Outputs are written to a temporary name in the
 * target directory and renamed, so no reader ever sees a partial file. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* mkstemps */
#endif

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../backends/c/cgen.h"
#include "../cache/cache.h"
#include "../backends/opencl/oclgen.h"
#include "../frontend/frontend.h"
#include "../ir/ir.h"
#include "../runtime/cyrt.h"
#include "annotate.h"

#ifndef CYOCL_VERSION
#define CYOCL_VERSION "0.0.0-dev"
#endif

extern char **environ;

enum { EXIT_OK = 0, EXIT_SOURCE = 1, EXIT_ENV = 2 };

static const char *USAGE =
    "usage: cyocl COMMAND [OPTIONS]\n"
    "\n"
    "Compiles Cython (.pyx) modules to CPython extension modules in C with\n"
    "OpenMP.\n"
    "\n"
    "commands:\n"
    "  compile [-o OUT.c] [--no-opencl] [--no-opencl-gpu] [--fp-contract] [-I DIR] [-v] [--dump-ir]\n"
    "          [--emit-opencl FILE.cl] FILE.pyx\n"
    "        translate FILE.pyx to C (default output: FILE.c beside the input)\n"
    "  build [-o OUTDIR] [--no-opencl] [--no-opencl-gpu] [--fp-contract] [-O LEVEL] [--keep-c] [-v] FILE.pyx\n"
    "        translate and compile to OUTDIR/NAME<EXT_SUFFIX>, importable as NAME\n"
    "        (default OUTDIR: the directory of FILE.pyx)\n"
    "  devices [--no-opencl-gpu]\n"
    "        list the usable OpenCL devices (exit 0 when one is used)\n"
    "  annotate [-o REPORT.html] [--trace TRACE.jsonl] [--no-opencl] [--no-opencl-gpu] [--fp-contract]\n"
    "           [-I DIR] FILE.pyx\n"
    "        an HTML page of every parallel region: OpenCL or native only (why), its C\n"
    "        and OpenCL C, and with a CYOCL_TRACE file its calls (default: FILE.html)\n"
    "  cache stats|list|clear|prune [--max-size SIZE] [--calibration]\n"
    "        inspect or clear the OpenCL kernel cache\n"
    "  cache warm [--no-opencl-gpu] MODULE_OR_DIR...\n"
    "        build the kernels of built or installed modules into the cache\n"
    "  --version, --help\n"
    "\n"
    "options:\n"
    "  -o PATH           output file (compile) or directory (build)\n"
    "  --no-opencl       emit no OpenCL code; the module has no OpenCL dependency\n"
    "  --no-opencl-gpu   OpenCL may run only on CPU devices\n"
    "  --fp-contract     allow a * b + c to become one fused multiply-add (both\n"
    "                    sides; default: every operation rounded on its own)\n"
    "  -I DIR            add DIR to the search path for .pxd files\n"
    "  -O LEVEL          C optimisation level for build (0 1 2 3 s fast g; default 3)\n"
    "  --keep-c          build: keep the generated C as OUTDIR/NAME.c\n"
    "  -v                verbose: phases, timings, the C compiler command\n"
    "  --dump-ir         compile: print the typed IR to standard output\n"
    "  --emit-opencl F   compile: also write the module's OpenCL program to F\n"
    "  --trace FILE      annotate: the calls recorded in FILE (CYOCL_TRACE) per region\n"
    "\n"
    "environment:\n"
    "  CC                C compiler for build (default: cc)\n"
    "  CYOCL_PYTHON      Python whose headers and extension suffix build uses\n"
    "                    (default: the python3 beside cyocl, as in a virtual\n"
    "                    environment, else python3 on PATH)\n"
    "  CYOCL_LIBCLANG    libclang used to check the generated OpenCL kernels\n"
    "                    (default: the newest found; a path that cannot be\n"
    "                    loaded skips the check)\n"
    "exit status: 0 ok, 1 errors in the source, 2 usage or environment error\n";

static void errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void errorf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("cyocl: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("cyocl: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs("\n(run 'cyocl --help' for usage)\n", stderr);
    va_end(ap);
    return EXIT_ENV;
}

static char *xstrdup(const char *s) {
    char *p = strdup(s);
    if (!p) {
        fputs("cyocl: out of memory\n", stderr);
        exit(EXIT_ENV);
    }
    return p;
}

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xasprintf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *p = NULL;
    int n = vasprintf(&p, fmt, ap);
    va_end(ap);
    if (n < 0) {
        fputs("cyocl: out of memory\n", stderr);
        exit(EXIT_ENV);
    }
    return p;
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---- paths ------------------------------------------------------------ */

static const char *path_base(const char *path) {
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Directory part of path ("." when there is none). */
static char *path_dir(const char *path) {
    const char *s = strrchr(path, '/');
    if (!s)
        return xstrdup(".");
    if (s == path)
        return xstrdup("/");
    return strndup(path, (size_t)(s - path));
}

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* "dir/name.pyx" -> "name"; any other extension is kept, so the module
 * name check below rejects "name.txt" with a clear message. */
static char *module_name(const char *path) {
    const char *b = path_base(path);
    size_t n = strlen(b);
    if (ends_with(b, ".pyx"))
        n -= 4;
    else if (ends_with(b, ".py"))
        n -= 3;
    return strndup(b, n);
}

/* The module name becomes PyInit_<name> and the import name: it must be an
 * ASCII identifier. */
static int valid_identifier(const char *s) {
    if (!*s || (*s >= '0' && *s <= '9'))
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_'))
            return 0;
    return 1;
}

static int mkdir_p(const char *dir) {
    struct stat st;
    if (stat(dir, &st) == 0)
        return S_ISDIR(st.st_mode) ? 0 : (errno = ENOTDIR, -1);
    char *tmp = xstrdup(dir);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0777) != 0 && errno != EEXIST) {
            free(tmp);
            return -1;
        }
        *p = '/';
    }
    int rc = mkdir(tmp, 0777);
    free(tmp);
    return rc != 0 && errno != EEXIST ? -1 : 0;
}

/* ---- temporary files, removed on failure and on a fatal signal --------- */

#define MAX_TEMPS 8
static char *temps[MAX_TEMPS];
static mode_t saved_umask;

static void temp_track(char *path) {
    for (int i = 0; i < MAX_TEMPS; i++)
        if (!temps[i]) {
            temps[i] = path;
            return;
        }
}

static void temp_untrack(const char *path) {
    for (int i = 0; i < MAX_TEMPS; i++)
        if (temps[i] == path)
            temps[i] = NULL;
}

/* Removes a temporary file and forgets it (path is freed). */
static void temp_remove(char *path) {
    if (!path)
        return;
    temp_untrack(path);
    unlink(path);
    free(path);
}

static void on_fatal_signal(int sig) {
    for (int i = 0; i < MAX_TEMPS; i++)
        if (temps[i])
            unlink(temps[i]); /* async-signal-safe */
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_signal_handlers(void) {
    int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}

/* Creates "DIR/.STEM.XXXXXX SUFFIX" and returns its (tracked) path and fd. */
static char *temp_create(const char *dir, const char *stem, const char *suffix, int *fd) {
    char *path = xasprintf("%s/.%s.XXXXXX%s", dir, stem, suffix);
    *fd = mkstemps(path, (int)strlen(suffix));
    if (*fd < 0) {
        free(path);
        return NULL;
    }
    temp_track(path);
    return path;
}

static int write_all(int fd, const char *data, size_t len) {
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        data += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Writes data to a new temporary file in dir; returns its path (tracked)
 * or NULL after printing why. */
static char *write_temp(const char *dir, const char *stem, const char *suffix, const char *data,
                        size_t len) {
    int fd;
    char *tmp = temp_create(dir, stem, suffix, &fd);
    if (!tmp) {
        errorf("cannot create a file in '%s': %s", dir, strerror(errno));
        return NULL;
    }
    int err = write_all(fd, data, len) != 0 ? errno : 0;
    if (!err && fchmod(fd, 0666 & ~saved_umask) != 0)
        err = errno;
    if (close(fd) != 0 && !err)
        err = errno;
    if (err) {
        errorf("cannot write '%s': %s", tmp, strerror(err));
        temp_remove(tmp);
        return NULL;
    }
    return tmp;
}

/* Renames the tracked temporary tmp to path; frees tmp either way. */
static int commit_temp(char *tmp, const char *path) {
    if (rename(tmp, path) != 0) {
        errorf("cannot write '%s': %s", path, strerror(errno));
        temp_remove(tmp);
        return -1;
    }
    temp_untrack(tmp);
    free(tmp);
    return 0;
}

/* ---- subprocesses ------------------------------------------------------ */

/* Runs argv (PATH search) and waits.  With capture != NULL its standard
 * output is collected there.  Returns the exit status, 127 when the
 * program could not be started (errno set), 128+N when killed by signal N. */
static int run_program(char *const argv[], CyBuf *capture) {
    int pipefd[2] = {-1, -1};
    if (capture && pipe(pipefd) != 0)
        return 127;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (capture) {
        posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
        posix_spawn_file_actions_addclose(&fa, pipefd[0]);
        posix_spawn_file_actions_addclose(&fa, pipefd[1]);
    }
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (capture)
        close(pipefd[1]);
    if (rc != 0) {
        if (capture)
            close(pipefd[0]);
        errno = rc;
        return 127;
    }
    if (capture) {
        char buf[4096];
        for (;;) {
            ssize_t n = read(pipefd[0], buf, sizeof buf);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            cy_buf_put(capture, buf, (size_t)n);
        }
        close(pipefd[0]);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return errno = ECHILD, 127;
    if (WIFEXITED(status)) {
        if (WEXITSTATUS(status) == 127)
            errno = ENOENT; /* the shell convention for "not found" */
        return WEXITSTATUS(status);
    }
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return 127;
}

static void print_argv(char *const argv[]) {
    fputs("cyocl:", stderr);
    for (int i = 0; argv[i]; i++)
        fprintf(stderr, " %s", argv[i]);
    fputc('\n', stderr);
}

/* ---- options ----------------------------------------------------------- */

typedef struct {
    const char *input;
    const char *output;
    int no_opencl, no_opencl_gpu, verbose, dump_ir, keep_c;
    int fp_contract; /* --fp-contract: a * b + c may become one fused multiply-add */
    const char *opt_level;
    const char *includes[64];
    int nincludes;
    const char *max_size;
    const char *emit_opencl;
    const char *trace;   /* annotate --trace */
} Options;

/* Parses the options of compile/build (allowed is "compile" or "build").
 * Returns 0, or EXIT_ENV after a message. */
static int parse_options(int argc, char **argv, const char *cmd, Options *o) {
    int is_build = strcmp(cmd, "build") == 0, is_annotate = strcmp(cmd, "annotate") == 0;
    int only_files = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *val = NULL;
        if (only_files || a[0] != '-' || strcmp(a, "-") == 0) {
            if (o->input)
                return usage_error("%s: one input file only ('%s' and '%s' given)", cmd, o->input, a);
            o->input = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            only_files = 1;
        } else if (strcmp(a, "--no-opencl") == 0) {
            o->no_opencl = 1;
        } else if (strcmp(a, "--no-opencl-gpu") == 0) {
            o->no_opencl_gpu = 1;
        } else if (strcmp(a, "--fp-contract") == 0) {
            o->fp_contract = 1;
        } else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
            o->verbose = 1;
        } else if (!is_build && !is_annotate && strcmp(a, "--dump-ir") == 0) {
            o->dump_ir = 1;
        } else if (is_annotate && strncmp(a, "--trace", 7) == 0 && (a[7] == '=' || !a[7])) {
            if (a[7] == '=') {
                val = a + 8;
            } else {
                if (i + 1 >= argc)
                    return usage_error("%s: option '%s' needs a value", cmd, a);
                val = argv[++i];
            }
            if (!*val)
                return usage_error("%s: --trace needs a file name", cmd);
            o->trace = val;
        } else if (!is_build && !is_annotate && strncmp(a, "--emit-opencl", 13) == 0 && (a[13] == '=' || !a[13])) {
            if (a[13] == '=') {
                val = a + 14;
            } else {
                if (i + 1 >= argc)
                    return usage_error("%s: option '%s' needs a value", cmd, a);
                val = argv[++i];
            }
            if (!*val)
                return usage_error("%s: --emit-opencl needs a file name", cmd);
            o->emit_opencl = val;
        } else if (is_build && strcmp(a, "--keep-c") == 0) {
            o->keep_c = 1;
        } else if (a[1] == 'o' || a[1] == 'I' || (is_build && a[1] == 'O') ||
                   strncmp(a, "--output", 8) == 0) {
            /* -o X, -oX, --output X, --output=X */
            char letter = a[1] == '-' ? 'o' : a[1];
            const char *rest = a[1] == '-' ? a + 8 : a + 2;
            if (a[1] == '-' && *rest && *rest != '=')
                return usage_error("%s: unknown option '%s'", cmd, a);
            if (*rest == '=')
                rest++;
            if (*rest) {
                val = rest;
            } else {
                if (i + 1 >= argc)
                    return usage_error("%s: option '%s' needs a value", cmd, a);
                val = argv[++i];
            }
            if (letter == 'o') {
                o->output = val;
            } else if (letter == 'I') {
                if (o->nincludes == (int)(sizeof o->includes / sizeof o->includes[0]))
                    return usage_error("%s: too many -I directories", cmd);
                o->includes[o->nincludes++] = val;
            } else {
                static const char *levels[] = {"0", "1", "2", "3", "s", "fast", "g", "z"};
                int ok = 0;
                for (size_t k = 0; k < sizeof levels / sizeof levels[0]; k++)
                    ok |= strcmp(val, levels[k]) == 0;
                if (!ok)
                    return usage_error("build: -O takes 0, 1, 2, 3, s, fast, g or z, not '%s'", val);
                o->opt_level = val;
            }
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(USAGE, stdout);
            exit(EXIT_OK);
        } else {
            return usage_error("%s: unknown option '%s'", cmd, a);
        }
    }
    if (!o->input)
        return usage_error("%s: no input file (cyocl %s [OPTIONS] FILE.pyx)", cmd, cmd);
    if (o->emit_opencl && o->no_opencl)
        return usage_error("%s: --emit-opencl and --no-opencl exclude each other", cmd);
    return 0;
}

/* ---- the compiler pipeline ---------------------------------------------- */

/* Reads a whole file, NUL-terminated.  Returns NULL after a message. */
static char *read_file(const char *path, size_t *len) {
    struct stat st;
    if (stat(path, &st) != 0) {
        errorf("cannot read '%s': %s", path, strerror(errno));
        return NULL;
    }
    if (S_ISDIR(st.st_mode)) {
        errorf("cannot read '%s': it is a directory", path);
        return NULL;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        errorf("cannot read '%s': %s", path, strerror(errno));
        return NULL;
    }
    CyBuf b = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        cy_buf_put(&b, chunk, n);
    int err = ferror(f) ? errno : 0;
    fclose(f);
    if (err) {
        errorf("cannot read '%s': %s", path, strerror(err ? err : EIO));
        cy_buf_free(&b);
        return NULL;
    }
    cy_buf_put(&b, "", 0); /* a NUL even for an empty file */
    *len = b.len;
    return b.s;
}

/* `-v`: where each parallel region runs, and why not on OpenCL; the
 * schedules planned for it (ir/plan.c), and why a plain loop where one is. */
static void list_regions(const CyDiag *d, const IrModule *ir, int opencl) {
    for (int i = 0; i < ir->regions.len; i++) {
        IrRegion *r = ir->regions.items[i];
        /* a region in an included .pxi names that file */
        const CySource *src = cy_pos_source(d, r->pos);
        fprintf(stderr, "%s:%d: region %d (function %s): ", src->name, r->pos.line, r->id,
                r->func ? (r->func->spec_name ? r->func->spec_name : r->func->name) : "<module>");
        if (!opencl)
            fputs("native only: built with --no-opencl\n", stderr);
        else if (r->ocl_ok && r->plan_gpu) {
            /* the schedule for GPUs (ir/plan.c; CPU devices keep the 1-D
               one), on a line of its own: tools read the region lines */
            CyBuf b = {0};
            cy_ir_plan_describe(&b, r, r->plan_gpu);
            fprintf(stderr, "opencl\n    schedule on GPUs: %s\n", b.s);
            cy_buf_free(&b);
        } else if (r->ocl_ok)
            fputs("opencl\n", stderr);
        else
            fprintf(stderr, "native only: %s\n", r->ocl_reason ? r->ocl_reason : "?");
        if (r->plan_native && r->plan_native->kind == PLAN_BLOCK) {
            CyBuf b = {0};
            cy_ir_plan_describe(&b, r, r->plan_native);
            fprintf(stderr, "    native schedule: %s\n", b.s);
            cy_buf_free(&b);
        } else if (r->plan_native && r->plan_native->why) {
            fprintf(stderr, "    native schedule: the plain loop (%s)\n", r->plan_native->why);
        }
    }
}

/* The OpenCL program of the analysed module: generated, and its libclang
 * check started (in a child process: the C module is generated meanwhile;
 * opencl_finish waits for the check).  Returns an exit status; *program is
 * set on success ("" when no region is eligible). */
typedef struct {
    CyOclProgram prog;
    CyOclOptions oopt;
    CyClJob job;
    CyClResult res;
    int checking;
    double t0;
} OclState;

static int opencl_program(const Options *o, CyArena *arena, CyDiag *diag, IrModule *ir, OclState *st,
                          const char **program) {
    st->oopt = (CyOclOptions){.version = CYOCL_VERSION, .fp_contract = o->fp_contract};
    st->res.status = CY_CLCHECK_OK;
    st->t0 = now_ms();
    if (cy_emit_opencl(arena, diag, ir, &st->oopt, &st->prog) != 0)
        return EXIT_ENV; /* an internal error, reported */
    *program = st->prog.source;
    if (!st->prog.nkernels)
        return EXIT_OK;
    cy_ocl_check_start(&st->prog, &st->job);
    st->checking = 1;
    return EXIT_OK;
}

/* The check parsed one kernel of each form (clcheck.c); the kernels of the
 * same form as the one rejected at program line `line` are rejected with
 * it, rather than one per round of generating and checking again. */
static void reject_same_form(const CyOclProgram *p, int line, const IrRegion *failed, CyArena *arena,
                             CyDiag *diag) {
    int n = p->spans.len, at = -1;
    for (int i = 0; i < n && at < 0; i++) {
        const CyOclSpan *s = p->spans.items[i];
        if (line >= s->first_line && line <= s->last_line) at = i;
    }
    if (at < 0 || ((const CyOclSpan *)p->spans.items[at])->kind != CY_SPAN_KERNEL) return;
    int *cls = malloc((size_t)n * sizeof *cls);
    if (!cls) return; /* they fail one by one instead */
    cy_ocl_span_classes(p, cls);
    for (int i = 0; i < n; i++) {
        IrRegion *r = ((const CyOclSpan *)p->spans.items[i])->region;
        if (i == at || cls[i] != cls[at] || !r || !r->ocl_ok) continue;
        r->ocl_ok = 0;
        r->ocl_reason = cy_fmt(arena, "%s, in the kernel of region %d, which has the same form", failed->ocl_reason,
                               failed->id);
        cy_warning(diag, r->pos, "this prange runs natively only: %s", r->ocl_reason);
    }
    free(cls);
}

/* The libclang check's outcome.  A kernel libclang rejects (a limit of
 * OpenCL C, such as its bracket nesting) leaves its region native, with
 * the reason and a warning, and the program is made and checked again
 * without it (at most once per region); *redo then says that the C module,
 * made alongside, must be made again (it embeds the program and launches
 * that region).  Returns an exit status; *program is the final program. */
static int opencl_finish(const Options *o, const CySource *src, CyArena *arena, CyDiag *diag, IrModule *ir,
                         OclState *st, const char **program, int *redo) {
    *redo = 0;
    if (st->checking) {
        st->checking = 0;
        cy_ocl_check_finish(&st->job, &st->res);
        while (st->res.status == CY_CLCHECK_ERROR) {
            IrRegion *r = cy_ocl_region_at(&st->prog, st->res.line);
            if (!r || !r->ocl_ok) {
                fprintf(stderr, "%s:%d:%d: internal error: generated OpenCL kernel for region %d does not compile: %s\n",
                        src->name, r ? r->pos.line : 0, r ? r->pos.col : 0, r ? r->id : -1, st->res.msg);
                fprintf(stderr, "cyocl: (program line %d; --emit-opencl FILE.cl writes the program)\n", st->res.line);
                return EXIT_ENV;
            }
            r->ocl_ok = 0;
            r->ocl_reason = cy_fmt(arena, "the OpenCL C compiler rejects its kernel (program line %s)", st->res.msg);
            cy_warning(diag, r->pos, "this prange runs natively only: %s", r->ocl_reason);
            reject_same_form(&st->prog, st->res.line, r, arena, diag);
            *redo = 1;
            if (cy_emit_opencl(arena, diag, ir, &st->oopt, &st->prog) != 0)
                return EXIT_ENV;
            st->res.status = CY_CLCHECK_OK;
            if (st->prog.nkernels)
                cy_ocl_check(&st->prog, &st->res);
        }
    }
    *program = st->prog.source;
    if (o->emit_opencl) {
        char *dir = path_dir(o->emit_opencl);
        const char *base = path_base(o->emit_opencl);
        char *tmp = *base ? write_temp(dir, base, "", st->prog.source, st->prog.len) : NULL;
        if (!*base)
            errorf("'%s' is not a file name", o->emit_opencl);
        free(dir);
        if (!tmp || commit_temp(tmp, o->emit_opencl) != 0)
            return EXIT_ENV;
    }
    if (!st->prog.nkernels)
        return EXIT_OK;
    if (st->res.status == CY_CLCHECK_SKIPPED)
        fprintf(stderr, "cyocl: note: %s; the generated OpenCL kernels are not checked\n", st->res.msg);
    if (o->verbose)
        fprintf(stderr, "cyocl: %s: OpenCL: %d kernel(s), %zu bytes, %s in %.1f ms (alongside the C backend)\n",
                src->name, st->prog.nkernels, st->prog.len,
                st->res.status != CY_CLCHECK_OK ? "not checked"
                : st->res.checked < st->res.parts
                    ? cy_fmt(arena, "checked with libclang (%d of %d kernels and helpers parsed, the others "
                             "differ from those only in names)", st->res.checked, st->res.parts)
                    : "checked with libclang",
                now_ms() - st->t0);
    return EXIT_OK;
}

/* `cyocl annotate`: the trace (NULL: none) and where the page goes. */
typedef struct {
    const CyTrace *trace;
    const char *flags;
    CyBuf *html;
} Annotation;

/* The page, from the module as translate() made it.  Returns an exit
 * status (a trace of another module or version is refused). */
static int annotate_module(const Options *o, const CySource *src, const IrModule *ir, const char **region_code,
                           const CyOclProgram *ocl, const Annotation *ann) {
    CyReport rep = {.src = src, .ir = ir, .opencl = !o->no_opencl, .flags = ann->flags,
                    .region_code = region_code, .ocl = o->no_opencl ? NULL : ocl,
                    .trace_path = o->trace, .trace = ann->trace};
    if (ann->trace) {
        char why[1024];
        if (cy_trace_check(&rep, why, sizeof why) != 0) {
            errorf("annotate: %s; no report written", why);
            return EXIT_ENV;
        }
        int first, skipped = cy_trace_skipped(ann->trace, &first);
        if (skipped)
            fprintf(stderr, "cyocl: warning: %s:%d: %d line%s that %s skipped\n", o->trace, first, skipped,
                    skipped == 1 ? "" : "s", skipped == 1 ? "is not a trace line is" : "are not trace lines are");
    }
    cy_report_html(ann->html, &rep);
    return EXIT_OK;
}

/* Translates o->input to C in out (and, with ann, makes the annotated
 * page from the result).  Returns an exit status. */
static int translate(const Options *o, const char *modname, CyBuf *out, const Annotation *ann) {
    size_t len;
    char *text = read_file(o->input, &len);
    if (!text)
        return EXIT_ENV;
    CySource src = {
        .path = o->input, .name = path_base(o->input), .modname = modname, .text = text, .len = len};
    CyDiag diag = {.src = &src, .out = stderr};
    CyArena *arena = cy_arena_new();
    int rc = EXIT_SOURCE;
    const char *phase = "parse";
    double t0 = now_ms(), t1, t2, t3;

    AModule *ast = cy_parse_source(arena, &diag, &src);
    t1 = now_ms();
    IrModule *ir = NULL;
    if (ast && diag.nerrors == 0) {
        phase = "sema";
        ir = cy_sema(arena, &diag, ast);
    }
    t2 = now_ms();
    if (ir && diag.nerrors == 0) {
        phase = "C backend";
        ir->fp_contract = o->fp_contract;
        cy_ir_analyze(arena, ir);
        if (o->dump_ir) {
            CyBuf dump = {0};
            cy_ir_dump(&dump, ir);
            if (dump.len)
                fwrite(dump.s, 1, dump.len, stdout);
            fflush(stdout);
            cy_buf_free(&dump);
        }
        const char *program = NULL;
        int orc = EXIT_OK;
        OclState ocl = {0};
        if (!o->no_opencl) {
            phase = "OpenCL backend";
            orc = opencl_program(o, arena, &diag, ir, &ocl, &program);
        }
        phase = "C backend";
        CyCOptions copt = {
            .line_directives = 1,
            .opencl = !o->no_opencl,
            .no_opencl_gpu = o->no_opencl_gpu,
            .fp_contract = o->fp_contract,
            .version = CYOCL_VERSION,
            .opencl_source = program,
            .region_code = ann ? cy_alloc(arena, (size_t)(ir->nregions + 1) * sizeof(char *)) : NULL,
        };
        if (orc == EXIT_ENV)
            rc = EXIT_ENV;
        else if (orc == EXIT_OK && cy_emit_c(arena, &diag, ir, &copt, out) == 0 && diag.nerrors == 0)
            rc = EXIT_OK;
        /* the check ran while the C was generated; its error wins */
        int redo = 0;
        if (!o->no_opencl && orc == EXIT_OK) {
            phase = "OpenCL backend";
            if (opencl_finish(o, &src, arena, &diag, ir, &ocl, &program, &redo) == EXIT_ENV) {
                rc = EXIT_ENV;
            } else if (redo && rc == EXIT_OK) {
                phase = "C backend";
                out->len = 0; /* the C made alongside embeds the old program */
                if (out->s) out->s[0] = 0;
                copt.opencl_source = program;
                if (cy_emit_c(arena, &diag, ir, &copt, out) != 0 || diag.nerrors)
                    rc = EXIT_SOURCE;
            }
        }
        if (o->verbose)
            list_regions(&diag, ir, !o->no_opencl);
        if (ann && rc == EXIT_OK)
            rc = annotate_module(o, &src, ir, copt.region_code, &ocl.prog, ann);
    }
    t3 = now_ms();
    if (rc == EXIT_SOURCE && diag.nerrors == 0)
        fprintf(stderr, "%s: error: internal compiler error: %s failed without a diagnostic\n",
                src.name, phase);
    if (o->verbose)
        fprintf(stderr, "cyocl: %s: parse %.1f ms, sema %.1f ms, analyze+emit %.1f ms; "
                        "%d error(s), %d warning(s)\n",
                src.name, t1 - t0, t2 - t1, t3 - t2, diag.nerrors, diag.nwarnings);
    cy_arena_free(arena);
    free(text);
    return rc;
}

/* Checks the input and derives the module name.  Returns 0 or EXIT_ENV. */
static int check_input(const Options *o, char **modname) {
    if (access(o->input, R_OK) != 0) {
        errorf("cannot read '%s': %s", o->input, strerror(errno));
        return EXIT_ENV;
    }
    *modname = module_name(o->input);
    if (!valid_identifier(*modname)) {
        errorf("'%s': the module name '%s' (the file name without .pyx) must be an identifier: "
               "letters, digits and '_', not starting with a digit",
               o->input, *modname);
        free(*modname);
        *modname = NULL;
        return EXIT_ENV;
    }
    return 0;
}

static int same_file(const char *a, const char *b) {
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static int cmd_compile(int argc, char **argv) {
    Options o = {0};
    int rc = parse_options(argc, argv, "compile", &o);
    if (rc)
        return rc;
    char *modname;
    if ((rc = check_input(&o, &modname)))
        return rc;

    char *out_path;
    if (o.output) {
        out_path = xstrdup(o.output);
    } else {
        size_t n = strlen(o.input);
        if (ends_with(o.input, ".pyx"))
            n -= 4;
        out_path = xasprintf("%.*s.c", (int)n, o.input);
    }
    if (same_file(out_path, o.input)) {
        errorf("the output '%s' is the input file", out_path);
        free(out_path);
        free(modname);
        return EXIT_ENV;
    }

    CyBuf c = {0};
    rc = translate(&o, modname, &c, NULL);
    if (rc == EXIT_OK) {
        char *dir = path_dir(out_path);
        const char *base = path_base(out_path);
        char *tmp = *base ? write_temp(dir, base, "", c.s ? c.s : "", c.len) : NULL;
        if (!*base)
            errorf("'%s' is not a file name", out_path);
        if (!tmp || commit_temp(tmp, out_path) != 0)
            rc = EXIT_ENV;
        else if (o.verbose)
            fprintf(stderr, "cyocl: wrote %s (%zu bytes)\n", out_path, c.len);
        free(dir);
    }
    cy_buf_free(&c);
    free(out_path);
    free(modname);
    return rc;
}

/* `cyocl annotate`: the module is translated as `compile` does (same
 * diagnostics, same exit status on errors) and the page is written only
 * when that and the trace check succeed. */
static int cmd_annotate(int argc, char **argv) {
    Options o = {0};
    int rc = parse_options(argc, argv, "annotate", &o);
    if (rc)
        return rc;
    char *modname;
    if ((rc = check_input(&o, &modname)))
        return rc;
    char *out_path;
    if (o.output) {
        out_path = xstrdup(o.output);
    } else {
        size_t n = strlen(o.input);
        if (ends_with(o.input, ".pyx"))
            n -= 4;
        out_path = xasprintf("%.*s.html", (int)n, o.input);
    }
    CyTrace *trace = NULL;
    if (same_file(out_path, o.input) || (o.trace && same_file(out_path, o.trace))) {
        errorf("the output '%s' is an input file", out_path);
        rc = EXIT_ENV;
        goto done;
    }
    if (o.trace) {
        size_t len;
        char *text = read_file(o.trace, &len);
        if (!text) {
            rc = EXIT_ENV;
            goto done;
        }
        trace = cy_trace_parse(text, len);
        free(text);
        if (!trace) {
            errorf("out of memory");
            rc = EXIT_ENV;
            goto done;
        }
    }
    CyBuf flags = {0};
    cy_buf_puts(&flags, "");
    if (o.no_opencl)
        cy_buf_puts(&flags, " --no-opencl");
    if (o.no_opencl_gpu)
        cy_buf_puts(&flags, " --no-opencl-gpu");
    if (o.fp_contract)
        cy_buf_puts(&flags, " --fp-contract");
    CyBuf c = {0}, html = {0};
    Annotation ann = {.trace = trace, .flags = flags.s + (flags.len > 0), .html = &html};
    rc = translate(&o, modname, &c, &ann);
    if (rc == EXIT_OK) {
        char *dir = path_dir(out_path);
        const char *base = path_base(out_path);
        char *tmp = *base ? write_temp(dir, base, "", html.s ? html.s : "", html.len) : NULL;
        if (!*base)
            errorf("'%s' is not a file name", out_path);
        if (!tmp || commit_temp(tmp, out_path) != 0)
            rc = EXIT_ENV;
        else if (o.verbose)
            fprintf(stderr, "cyocl: wrote %s (%zu bytes)\n", out_path, html.len);
        free(dir);
    }
    cy_buf_free(&c);
    cy_buf_free(&html);
    cy_buf_free(&flags);
done:
    cy_trace_free(trace);
    free(out_path);
    free(modname);
    return rc;
}

/* The directory of this executable (NULL when unknown). */
static char *exe_dir(void) {
    char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0)
        return NULL;
    exe[len] = '\0';
    return path_dir(exe);
}

/* The target Python: $CYOCL_PYTHON, else the python3 beside this executable
 * (a virtual environment's bin/, where `pip install` puts cyocl), else
 * python3 on PATH.  The result is static or leaked (once per process). */
static const char *target_python(void) {
    static char *beside;
    const char *py = getenv("CYOCL_PYTHON");
    if (py && *py)
        return py;
    if (!beside) {
        char *dir = exe_dir();
        beside = dir ? xasprintf("%s/python3", dir) : xstrdup("");
        free(dir);
        if (*beside && access(beside, X_OK) != 0)
            *beside = '\0';
    }
    return *beside ? beside : "python3";
}

/* Include directory and extension suffix of the target Python, and where
 * it finds the `cyocl` package (*pkg: "" when it does not; the current
 * directory is left out of its path). */
static int query_python(const Options *o, char **include, char **suffix, char **pkg) {
    const char *py = target_python();
    char *argv[] = {(char *)py, "-c",
                    "import sysconfig,sys;print(sysconfig.get_paths()['include']);"
                    "print(sysconfig.get_config_var('EXT_SUFFIX'))\n"
                    "try:\n"
                    " import importlib.util as u\n"
                    " if sys.path and sys.path[0]=='': del sys.path[0]\n"
                    " s=u.find_spec('cyocl');print(s.origin if s and s.submodule_search_locations else '')\n"
                    "except Exception: print('')\n",
                    NULL};
    if (o->verbose)
        fprintf(stderr, "cyocl: asking %s for its include directory and extension suffix\n", py);
    CyBuf out = {0};
    int st = run_program(argv, &out);
    if (st != 0) {
        if (st == 127)
            errorf("cannot run Python '%s': %s (set CYOCL_PYTHON to a python3 executable)", py,
                   strerror(errno));
        else
            errorf("Python '%s' failed (exit %d) when asked for its configuration", py, st);
        cy_buf_free(&out);
        return EXIT_ENV;
    }
    char *s = out.s ? out.s : (char *)"";
    char *nl = strchr(s, '\n');
    char *nl2 = nl ? strchr(nl + 1, '\n') : NULL;
    if (!nl || !nl2 || nl == s || nl2 == nl + 1 || strncmp(nl + 1, "None", 4) == 0) {
        errorf("Python '%s' did not report an include directory and extension suffix", py);
        cy_buf_free(&out);
        return EXIT_ENV;
    }
    *nl = *nl2 = '\0';
    *include = xstrdup(s);
    *suffix = xstrdup(nl + 1);
    char *nl3 = strchr(nl2 + 1, '\n');
    if (nl3)
        *nl3 = '\0';
    *pkg = xstrdup(nl3 ? nl2 + 1 : "");
    cy_buf_free(&out);

    char *header = xasprintf("%s/Python.h", *include);
    int ok = access(header, R_OK) == 0;
    free(header);
    if (!ok) {
        errorf("Python.h is not in '%s' (install the Python development headers, e.g. "
               "python3-dev)",
               *include);
        return EXIT_ENV;
    }
    return 0;
}

#ifndef CYOCL_INSTALL_PYDIR
#define CYOCL_INSTALL_PYDIR ""
#endif

/* Copies the runtime module file from to OUTDIR/cyocl<suffix>. */
static void copy_runtime_file(const char *from, const char *outdir, const char *suffix) {
    char *to = xasprintf("%s/cyocl%s", outdir, suffix);
    FILE *f = fopen(from, "rb");
    char *data = NULL;
    size_t n = 0, cap = 0;
    if (f) {
        for (;;) {
            if (n == cap) {
                cap = cap ? cap * 2 : 1 << 20;
                char *nd = realloc(data, cap);
                if (!nd)
                    break;
                data = nd;
            }
            size_t r = fread(data + n, 1, cap - n, f);
            if (!r)
                break;
            n += r;
        }
        fclose(f);
    }
    char *tmp = data ? write_temp(outdir, "cyocl", suffix, data, n) : NULL;
    if (tmp) {
        chmod(tmp, 0777 & ~saved_umask);
        commit_temp(tmp, to); /* frees tmp; a failure was reported */
    } else if (!data) {
        fprintf(stderr, "cyocl: warning: cannot read the runtime module %s; the module will run natively\n",
                from);
    }
    free(data);
    free(to);
}

/* The `cyocl` runtime module (runtime/pymod.c) that modules built with
 * OpenCL import.  In a build tree it is next to this executable in
 * cyocl_runtime/ and is copied into OUTDIR, so that a plain `python3` there
 * finds it.  Installed (`pip install`, `cmake --install`) it is the package
 * `cyocl` (the same file as cyocl/_runtime<suffix>): nothing is copied when
 * the target Python finds the package (pkg), else the prefix's copy is.
 * Missing, the modules still work (natively, with one warning at import). */
static void copy_runtime_module(const Options *o, const char *outdir, const char *suffix, const char *pkg) {
    char *dir = exe_dir();
    if (!dir)
        return;
    char *from = xasprintf("%s/cyocl_runtime/cyocl%s", dir, suffix);
    if (access(from, R_OK) == 0) {
        copy_runtime_file(from, outdir, suffix);
    } else if (*pkg) {
        if (o->verbose)
            fprintf(stderr, "cyocl: the runtime is the installed package %s\n", pkg);
    } else {
        free(from);
        from = *CYOCL_INSTALL_PYDIR ? xasprintf("%s/../%s/cyocl/_runtime%s", dir, CYOCL_INSTALL_PYDIR, suffix)
                                    : NULL;
        if (from && access(from, R_OK) == 0)
            copy_runtime_file(from, outdir, suffix);
        else
            fprintf(stderr,
                    "cyocl: warning: %s cannot import the runtime package 'cyocl' (install cyocl for it: "
                    "pip install); the module will run natively\n",
                    target_python());
    }
    free(from);
    free(dir);
}

static int cmd_build(int argc, char **argv) {
    Options o = {0};
    int rc = parse_options(argc, argv, "build", &o);
    if (rc)
        return rc;
    char *modname;
    if ((rc = check_input(&o, &modname)))
        return rc;
    char *outdir = o.output ? xstrdup(o.output) : path_dir(o.input);
    size_t n = strlen(outdir);
    while (n > 1 && outdir[n - 1] == '/')
        outdir[--n] = '\0';

    CyBuf c = {0};
    char *pyinc = NULL, *suffix = NULL, *pkg = NULL, *tmp_c = NULL, *tmp_so = NULL, *final_so = NULL;
    char **cc_argv = NULL;
    char *cc_copy = NULL;
    rc = translate(&o, modname, &c, NULL);
    if (rc != EXIT_OK)
        goto done;
    rc = EXIT_ENV;
    if (query_python(&o, &pyinc, &suffix, &pkg) != 0)
        goto done;
    if (mkdir_p(outdir) != 0) {
        errorf("cannot create the output directory '%s': %s", outdir, strerror(errno));
        goto done;
    }
    if (!(tmp_c = write_temp(outdir, modname, ".c", c.s ? c.s : "", c.len)))
        goto done;
    int fd;
    if (!(tmp_so = temp_create(outdir, modname, suffix, &fd))) {
        errorf("cannot create a file in '%s': %s", outdir, strerror(errno));
        goto done;
    }
    close(fd);
    final_so = xasprintf("%s/%s%s", outdir, modname, suffix);

    /* $CC may carry its own arguments ("ccache gcc", "gcc -m64") */
    const char *cc = getenv("CC");
    if (!cc || !*cc)
        cc = "cc";
    cc_copy = xstrdup(cc);
    int max_args = (int)strlen(cc_copy) + 32;
    cc_argv = calloc((size_t)max_args, sizeof(char *));
    if (!cc_argv)
        goto done;
    int k = 0;
    for (char *save = NULL, *t = strtok_r(cc_copy, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
        cc_argv[k++] = t;
    if (k == 0) {
        errorf("CC is empty");
        goto done;
    }
    char *opt = xasprintf("-O%s", o.opt_level ? o.opt_level : "3");
    char *incflag = xasprintf("-I%s", pyinc);
    /* a * b + c rounds twice unless --fp-contract, as OpenCL kernels do
       (docs/language.md); -Ofast asks for the opposite itself */
    const char *contract = o.fp_contract || (o.opt_level && !strcmp(o.opt_level, "fast")) ? "-ffp-contract=fast"
                                                                                          : "-ffp-contract=off";
    /* -fwrapv: signed overflow wraps, as in Cython's modules (CPython's CFLAGS carry it) */
    char *fixed[] = {opt, "-fopenmp", "-fPIC", "-shared", "-std=gnu11", "-fno-strict-aliasing", "-fwrapv", (char *)contract,
                     "-w", incflag, "-o", tmp_so, tmp_c, "-lm"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        cc_argv[k++] = fixed[i];
    cc_argv[k] = NULL;
    if (o.verbose)
        print_argv(cc_argv);
    int st = run_program(cc_argv, NULL);
    int started = !(st == 127 && errno == ENOENT);
    free(opt);
    free(incflag);
    if (st != 0) {
        if (!started) {
            errorf("cannot run the C compiler '%s': %s (install one, or set CC)", cc_argv[0],
                   strerror(errno));
            rc = EXIT_ENV;
        } else {
            /* cyocl produced C the compiler rejected (or a header named in
             * 'cdef extern from' is missing): keep the C for the report */
            errorf("the C compiler '%s' failed (exit %d) on the code generated from '%s'",
                   cc_argv[0], st, o.input);
            char *kept = xasprintf("%s/%s.c", outdir, modname);
            if (commit_temp(tmp_c, kept) == 0)
                fprintf(stderr, "cyocl: the generated C is kept in %s\n", kept);
            tmp_c = NULL;
            free(kept);
            rc = EXIT_SOURCE;
        }
        goto done;
    }
    struct stat sst;
    if (stat(tmp_so, &sst) != 0 || sst.st_size == 0) {
        errorf("the C compiler '%s' reported success but wrote no module", cc_argv[0]);
        goto done;
    }
    chmod(tmp_so, 0777 & ~saved_umask);
    if (commit_temp(tmp_so, final_so) != 0) {
        tmp_so = NULL;
        goto done;
    }
    tmp_so = NULL;
    if (o.keep_c || o.verbose) {
        char *kept = xasprintf("%s/%s.c", outdir, modname);
        if (commit_temp(tmp_c, kept) == 0)
            fprintf(stderr, "cyocl: generated C: %s\n", kept);
        tmp_c = NULL;
        free(kept);
    }
    if (o.verbose)
        fprintf(stderr, "cyocl: built %s\n", final_so);
    if (!o.no_opencl)
        copy_runtime_module(&o, outdir, suffix, pkg);
    rc = EXIT_OK;

done:
    temp_remove(tmp_c);
    temp_remove(tmp_so);
    free(cc_argv);
    free(cc_copy);
    free(final_so);
    free(pyinc);
    free(suffix);
    free(pkg);
    cy_buf_free(&c);
    free(outdir);
    free(modname);
    return rc;
}

/* `cyocl devices`: the OpenCL devices the runtime finds that pass
 * CYOCL_DEVICE_TYPE (and --no-opencl-gpu), '*' on the one CYOCL_DEVICE or
 * the default picks.  Exit 0 (a usable device) tells the conformance
 * runner that regions forced onto OpenCL run there. */
static int cmd_devices(int argc, char **argv) {
    unsigned allowed = CYRT_DEV_ALL;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--no-opencl-gpu") == 0)
            allowed = CYRT_DEV_CPU;
        else
            return usage_error("devices: unknown option '%s' (cyocl devices [--no-opencl-gpu])",
                               argv[i]);
    }
    cyrt_rt *rt = cyrt_rt_global();
    const cyrt_devinfo *list;
    int n;
    cyrt_err err = {0};
    if (cyrt_devices(rt, &list, &n, &err) != CYRT_OK) {
        printf("no OpenCL devices: %s\n", err.msg);
        cyrt_rt_free(rt, NULL);
        return 1;
    }
    unsigned mask = cyrt_allowed_types(rt, allowed);
    int chosen = -1;
    cyrt_select_device(rt, allowed, &chosen, NULL);
    int shown = 0;
    for (int i = 0; i < n; i++) {
        const cyrt_devinfo *d = &list[i];
        if (!(d->type & mask))
            continue;
        if (shown++ == 0)
            printf("  %-3s %-28s %-44s %-5s %-4s %9s  %s\n", "#", "platform", "device", "type",
                   "fp64", "memory", "OpenCL C / driver");
        printf("%c %-3d %-28.28s %-44.44s %-5s %-4s %5.1f GiB  %s / %s\n", i == chosen ? '*' : ' ',
               d->index, d->platform, d->name, cyrt_device_type_name(d->type),
               d->fp64 ? "yes" : "no", (double)d->global_mem / (1024.0 * 1024.0 * 1024.0),
               d->clc_version, d->driver);
    }
    const char *filter = allowed == CYRT_DEV_CPU ? "--no-opencl-gpu / CYOCL_DEVICE_TYPE"
                                                 : "CYOCL_DEVICE_TYPE";
    if (shown == 0) {
        printf("no usable OpenCL device: the %d found are left out by %s\n", n, filter);
    } else {
        if (shown < n)
            printf("(%d more left out by %s)\n", n - shown, filter);
    }
    cyrt_rt_free(rt, NULL);
    return shown > 0 ? 0 : 1;
}

/* ---- cyocl cache ---------------------------------------------------------- */

static const char *CACHE_USAGE =
    "usage: cyocl cache stats|list|clear|prune [--max-size SIZE]\n"
    "       cyocl cache clear --calibration\n"
    "       cyocl cache warm [--no-opencl-gpu] MODULE_OR_DIR...\n"
    "\n"
    "  stats   where the OpenCL kernel cache is, its entries, size and cap\n"
    "  list    every entry, most recently used first: size, last use, device,\n"
    "          build time (entries that fail their checks are marked damaged)\n"
    "  clear   remove every entry (the dispatcher's calibration files stay:\n"
    "          with --calibration they go too, and the next process recalibrates)\n"
    "  prune   remove damaged entries and stale temporary files, then the least\n"
    "          recently used entries until the cache fits its cap\n"
    "  warm    build the OpenCL programs of modules (files, directories, module\n"
    "          names) for the usable devices into the cache ('cache warm --help')\n"
    "\n"
    "  --max-size SIZE   prune: the size to fit (bytes, or 64K, 100M, 1G, ...;\n"
    "                    default: CYOCL_CACHE_MAX_SIZE, else 256M)\n"
    "\n"
    "environment: CYOCL_CACHE_DIR (default ~/.cython/opencl), CYOCL_CACHE=0 (off),\n"
    "CYOCL_CACHE_MAX_SIZE (the cap kept by every store)\n";

static void human_size(uint64_t b, char *out, size_t n) {
    if (b < 1024)
        snprintf(out, n, "%llu B", (unsigned long long)b);
    else if (b < ((uint64_t)1 << 20))
        snprintf(out, n, "%.1f KiB", (double)b / 1024);
    else if (b < ((uint64_t)1 << 30))
        snprintf(out, n, "%.1f MiB", (double)b / (1 << 20));
    else
        snprintf(out, n, "%.2f GiB", (double)b / (1 << 30));
}

/* ---- cyocl cache warm ------------------------------------------------------ */

/* Every generated module carries its OpenCL program as one NUL-terminated
 * string (cgen.c's cy_ocl_source) that starts with oclgen.c's header line;
 * `cache warm` finds it in the module's file and builds it through the
 * runtime's cached path, with the options the runtime's launches use
 * (runtime/launch.c), so that the entries are the ones a launch looks up. */
#define WARM_MARK "/* Generated by cyocl "
#define WARM_MARK2 ": OpenCL C 1.2 kernels, one per parallel region."
#define WARM_OPTIONS "-cl-std=CL1.2"

typedef struct {
    char **files;
    int n, cap;
} FileList;

static void files_add(FileList *l, const char *path) {
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->files[i], path) == 0)
            return;
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 16;
        char **nf = realloc(l->files, (size_t)l->cap * sizeof *nf);
        if (!nf) {
            fputs("cyocl: out of memory\n", stderr);
            exit(EXIT_ENV);
        }
        l->files = nf;
    }
    l->files[l->n++] = xstrdup(path);
}

/* Extension modules (*.so) under dir, recursively (no symbolic links followed). */
static void files_walk(FileList *l, const char *dir, int depth) {
    if (depth > 32)
        return;
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "cyocl: warning: cannot read '%s': %s\n", dir, strerror(errno));
        return;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
            continue;
        char *p = xasprintf("%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(p, &st) == 0) {
            if (S_ISDIR(st.st_mode))
                files_walk(l, p, depth + 1);
            else if (S_ISREG(st.st_mode) && ends_with(e->d_name, ".so"))
                files_add(l, p);
        }
        free(p);
    }
    closedir(d);
}

/* A module name (pkg.mod, or a package: every module under it), through
 * the target Python.  Returns 0, or -1 after a message. */
static int files_from_module(FileList *l, const char *name) {
    char *code = xasprintf(
        "import importlib.util,sys\n"
        "try:\n"
        " s=importlib.util.find_spec(sys.argv[1])\n"
        "except Exception as e:\n"
        " s=None\n"
        "if s is None: sys.exit(3)\n"
        "for p in (s.submodule_search_locations or []): print('D'+p)\n"
        "if s.origin and not s.submodule_search_locations: print('F'+s.origin)\n");
    char *argv[] = {(char *)target_python(), "-c", code, (char *)name, NULL};
    CyBuf out = {0};
    int st = run_program(argv, &out);
    free(code);
    if (st != 0) {
        if (st == 3)
            errorf("cache warm: '%s' is neither a file, a directory nor a module %s can import", name,
                   target_python());
        else
            errorf("cache warm: cannot ask %s where the module '%s' is (exit %d)", target_python(), name, st);
        cy_buf_free(&out);
        return -1;
    }
    char *save = NULL;
    for (char *line = strtok_r(out.s ? out.s : (char *)"", "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == 'D')
            files_walk(l, line + 1, 0);
        else if (line[0] == 'F')
            files_add(l, line + 1);
    }
    cy_buf_free(&out);
    return 0;
}

/* The OpenCL program embedded in a module file: a malloc'ed copy, or NULL. */
static char *embedded_program(const char *path) {
    size_t len;
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    CyBuf b = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        cy_buf_put(&b, chunk, n);
    fclose(f);
    len = b.len;
    char *found = NULL;
    size_t ml = strlen(WARM_MARK);
    for (size_t i = 0; b.s && i + ml < len && !found; i++) {
        if (b.s[i] != '/' || memcmp(b.s + i, WARM_MARK, ml) != 0)
            continue;
        const char *end = memchr(b.s + i, '\0', len - i);
        const char *eol = memchr(b.s + i, '\n', len - i);
        if (!end || !eol || eol > end)
            continue;
        /* the header line of a program, not oclgen.c's format string */
        size_t hl = (size_t)(eol - (b.s + i));
        char *head = strndup(b.s + i, hl);
        if (head && strstr(head, WARM_MARK2) && !strchr(head, '%'))
            found = strndup(b.s + i, (size_t)(end - (b.s + i)));
        free(head);
    }
    cy_buf_free(&b);
    return found;
}

static const char *WARM_USAGE =
    "usage: cyocl cache warm [--no-opencl-gpu] MODULE_OR_DIR...\n"
    "\n"
    "Builds the OpenCL program of every cyocl module found (a module file, every\n"
    "*.so under a directory, or a module or package name the target Python can\n"
    "import) for every usable device (CYOCL_DEVICE: that one only;\n"
    "CYOCL_DEVICE_TYPE, --no-opencl-gpu: those types only) into the kernel cache,\n"
    "so that the modules' first calls load their kernels instead of compiling them.\n"
    "Exit status: 0 every program is in the cache, 1 some could not be built or\n"
    "there was nothing to build, 2 usage or environment error.\n";

static int cmd_cache_warm(int argc, char **argv) {
    unsigned allowed = CYRT_DEV_ALL;
    FileList files = {0};
    int ntargets = 0, rc = EXIT_OK;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(WARM_USAGE, stdout);
            return EXIT_OK;
        }
        if (strcmp(argv[i], "--no-opencl-gpu") == 0) {
            allowed = CYRT_DEV_CPU;
            continue;
        }
        if (argv[i][0] == '-')
            return usage_error("cache warm: unknown option '%s'", argv[i]);
        ntargets++;
    }
    if (!ntargets)
        return usage_error("cache warm needs a module file, a directory or a module name");
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] == '-')
            continue;
        struct stat st;
        if (stat(a, &st) == 0) {
            if (S_ISDIR(st.st_mode))
                files_walk(&files, a, 0);
            else
                files_add(&files, a);
        } else if (strchr(a, '/') || files_from_module(&files, a) != 0) {
            if (strchr(a, '/'))
                errorf("cache warm: cannot read '%s': %s", a, strerror(errno));
            rc = EXIT_ENV;
        }
    }
    /* the programs, once each */
    char **progs = NULL;
    const char **owners = NULL;
    int nprogs = 0;
    for (int i = 0; i < files.n; i++) {
        char *p = embedded_program(files.files[i]);
        if (!p)
            continue;
        int dup = 0;
        for (int k = 0; k < nprogs && !dup; k++)
            dup = strcmp(progs[k], p) == 0;
        if (dup) {
            free(p);
            continue;
        }
        char **np = realloc(progs, (size_t)(nprogs + 1) * sizeof *np);
        const char **no = realloc(owners, (size_t)(nprogs + 1) * sizeof *no);
        if (np)
            progs = np;
        if (no)
            owners = no;
        if (!np || !no) {
            fputs("cyocl: out of memory\n", stderr);
            exit(EXIT_ENV);
        }
        progs[nprogs] = p;
        owners[nprogs++] = files.files[i];
    }
    cyrt_rt *rt = cyrt_rt_global();
    if (rc == EXIT_OK && nprogs == 0) {
        printf("no cyocl module with OpenCL kernels among the %d file(s) found\n", files.n);
        rc = 1;
    }
    /* the cache must be there to be warmed */
    if (rc == EXIT_OK) {
        cyrt_cache c;
        char *warn = NULL;
        if (cyrt_cache_open(&c, NULL, 0, &warn) != 0) {
            errorf("out of memory");
            rc = EXIT_ENV;
        } else {
            if (warn)
                fprintf(stderr, "cyocl: warning: %s\n", warn);
            if (c.mode != CYRT_CACHE_RW) {
                errorf("cache warm: the kernel cache %s%s is %s: nothing can be stored", c.dir ? "in " : "",
                       c.dir ? c.dir : "",
                       c.mode == CYRT_CACHE_OFF ? "off" : c.mode == CYRT_CACHE_RO ? "read-only" : "unsafe");
                rc = EXIT_ENV;
            }
            cyrt_cache_close(&c);
        }
        free(warn);
    }
    const cyrt_devinfo *list = NULL;
    int ndev = 0, chosen = -1;
    cyrt_err err = {0};
    unsigned mask = 0;
    if (rc == EXIT_OK) {
        if (cyrt_devices(rt, &list, &ndev, &err) != CYRT_OK) {
            printf("no OpenCL devices: %s\n", err.msg);
            rc = 1;
        } else {
            mask = cyrt_allowed_types(rt, allowed);
            if (getenv("CYOCL_DEVICE") && *getenv("CYOCL_DEVICE"))
                cyrt_select_device(rt, allowed, &chosen, NULL);
        }
    }
    int built = 0, cached = 0, failed = 0, skipped = 0, usable = 0;
    for (int d = 0; rc == EXIT_OK && d < ndev; d++) {
        const cyrt_devinfo *dv = &list[d];
        if (!(dv->type & mask) || (chosen >= 0 && d != chosen))
            continue;
        usable++;
        for (int k = 0; k < nprogs; k++) {
            const char *base = path_base(owners[k]);
            if (!dv->fp64 && strstr(progs[k], "double")) {
                printf("%s: skipped on %s / %s: the program uses double, the device has no fp64\n", base,
                       dv->platform, dv->name);
                skipped++;
                continue;
            }
            struct _cl_program *prog = NULL;
            int how = 0;
            char *log = NULL;
            cyrt_err e = {0};
            double t0 = now_ms();
            cyrt_status st = cyrt_program_get(rt, d, progs[k], WARM_OPTIONS, &prog, &how, &log, &e);
            double ms = now_ms() - t0;
            if (st != CYRT_OK) {
                printf("%s: FAILED on %s / %s: %s\n", base, dv->platform, dv->name, e.msg);
                if (log && *log)
                    fprintf(stderr, "%s\n", log);
                failed++;
            } else if (how == CYRT_BUILD_CACHE) {
                printf("%s: already in the cache for %s / %s\n", base, dv->platform, dv->name);
                cached++;
            } else {
                printf("%s: built for %s / %s in %.0f ms and stored\n", base, dv->platform, dv->name, ms);
                built++;
            }
            free(log);
            if (prog)
                cyrt_program_release(rt, prog);
        }
    }
    if (rc == EXIT_OK) {
        if (!usable) {
            printf("no usable OpenCL device: the %d found are left out by CYOCL_DEVICE_TYPE%s\n", ndev,
                   allowed == CYRT_DEV_CPU ? " / --no-opencl-gpu" : "");
            rc = 1;
        } else {
            cyrt_cache_info ci;
            cyrt_cache_info_get(rt, &ci);
            printf("%d program(s) from %d module file(s) on %d device(s): %d built and stored, %d already "
                   "cached, %d failed, %d skipped (cache: %s)\n",
                   nprogs, files.n, usable, built, cached, failed, skipped, ci.dir);
            if (failed)
                rc = 1;
        }
    }
    for (int k = 0; k < nprogs; k++)
        free(progs[k]);
    free(progs);
    free(owners);
    for (int i = 0; i < files.n; i++)
        free(files.files[i]);
    free(files.files);
    cyrt_rt_free(rt, NULL);
    return rc;
}

static int cmd_cache(int argc, char **argv) {
    if (argc > 0 && strcmp(argv[0], "warm") == 0)
        return cmd_cache_warm(argc - 1, argv + 1);
    static const char *subs[] = {"stats", "list", "clear", "prune"};
    const char *sub = NULL, *max_size = NULL;
    int calibration = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--calibration") == 0) {
            calibration = 1;
            continue;
        }
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(CACHE_USAGE, stdout);
            return EXIT_OK;
        }
        if (strncmp(a, "--max-size", 10) == 0 && (a[10] == '=' || !a[10])) {
            if (a[10] == '=')
                max_size = a + 11;
            else if (i + 1 < argc)
                max_size = argv[++i];
            else
                return usage_error("cache: --max-size needs a size (e.g. 100M)");
            continue;
        }
        if (a[0] == '-')
            return usage_error("cache: unknown option '%s'", a);
        if (sub)
            return usage_error("cache: one subcommand only ('%s' and '%s' given)", sub, a);
        sub = a;
    }
    int ok = 0;
    for (size_t i = 0; sub && i < sizeof subs / sizeof subs[0]; i++)
        ok |= strcmp(sub, subs[i]) == 0;
    if (!ok)
        return usage_error("cache needs one of: stats, list, clear, prune [--max-size SIZE]");
    uint64_t max_bytes = 0;
    if (max_size && strcmp(sub, "prune") != 0)
        return usage_error("cache %s: --max-size is an option of 'cache prune'", sub);
    if (calibration && strcmp(sub, "clear") != 0)
        return usage_error("cache %s: --calibration is an option of 'cache clear'", sub);
    if (max_size && cyrt_cache_parse_size(max_size, &max_bytes) != 0)
        return usage_error("cache: --max-size '%s' is not a size (bytes, or e.g. 64K, 100M, 1G)",
                           max_size);

    cyrt_cache c;
    char *warn = NULL;
    if (cyrt_cache_open(&c, NULL, 0, &warn) != 0) {
        errorf("out of memory");
        return EXIT_ENV;
    }
    if (warn)
        fprintf(stderr, "cyocl: warning: %s\n", warn);
    free(warn);
    if (!max_size)
        max_bytes = c.max_bytes;
    const char *dir = c.dir ? c.dir : "(none)";
    int rc = EXIT_OK;
    char s1[32], s2[32];
    if (strcmp(sub, "stats") == 0) {
        cyrt_cache_usage u = {0};
        if (c.dir && cyrt_cache_usage_get(&c, &u) != 0) {
            errorf("cannot read the kernel cache directory '%s': %s", dir, strerror(errno));
            rc = EXIT_ENV;
        } else {
            static const char *modes[] = {"off", "on", "read-only (nothing is stored)",
                                          "unsafe (writable by other users: not used)"};
            human_size(u.bytes, s1, sizeof s1);
            human_size(c.max_bytes, s2, sizeof s2);
            printf("directory: %s\n", dir);
            printf("state:     %s%s\n", modes[c.mode],
                   c.mode == CYRT_CACHE_OFF && getenv("CYOCL_CACHE") ? " (CYOCL_CACHE)" : "");
            printf("entries:   %llu\n", (unsigned long long)u.entries);
            printf("size:      %s (%llu bytes)\n", s1, (unsigned long long)u.bytes);
            printf("cap:       %s (%llu bytes)\n", s2, (unsigned long long)c.max_bytes);
            if (u.temps)
                printf("temporary: %llu file(s) (writers at work, or left by a crash: "
                       "'cyocl cache prune')\n", (unsigned long long)u.temps);
            human_size(u.calib_bytes, s1, sizeof s1);
            printf("calibration: %llu file(s), %s (the dispatcher's measurements: outside the cap, kept by clear "
                   "and prune; 'cyocl cache clear --calibration' removes them)\n",
                   (unsigned long long)u.calib_files, s1);
        }
    } else if (strcmp(sub, "list") == 0) {
        cyrt_cache_entry *list = NULL;
        size_t n = 0;
        if (cyrt_cache_list(&c, 1, &list, &n) != 0) {
            errorf("cannot read the kernel cache directory '%s': %s", dir, strerror(errno));
            rc = EXIT_ENV;
        } else {
            if (n)
                printf("%-16s  %10s  %-19s  %9s  %s\n", "entry", "size", "last used", "build",
                       "device");
            for (size_t i = 0; i < n; i++) {
                char when[32] = "?";
                time_t t = (time_t)list[i].mtime;
                struct tm tm;
                if (localtime_r(&t, &tm))
                    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
                human_size(list[i].size, s1, sizeof s1);
                if (list[i].valid)
                    printf("%.16s  %10s  %-19s  %7.0fms  %s / %s (cyocl %s)\n", list[i].name, s1,
                           when, (double)list[i].build_ns / 1e6, list[i].platform,
                           list[i].device, list[i].version);
                else
                    printf("%.16s  %10s  %-19s  %9s  damaged or foreign: rebuilt at its next use\n",
                           list[i].name, s1, when, "-");
            }
            printf("%zu entr%s in %s\n", n, n == 1 ? "y" : "ies", dir);
        }
        free(list);
    } else {
        uint64_t removed = 0, bytes = 0;
        int r = strcmp(sub, "clear") == 0 ? cyrt_cache_clear(&c, &removed, &bytes)
                                          : cyrt_cache_prune(&c, max_bytes, &removed, &bytes);
        if (r != 0) {
            errorf("cannot %s the kernel cache in '%s': %s", sub, dir, strerror(errno));
            rc = EXIT_ENV;
        }
        human_size(bytes, s1, sizeof s1);
        printf("removed %llu entr%s (%s) from %s\n", (unsigned long long)removed,
               removed == 1 ? "y" : "ies", s1, dir);
        if (calibration) {
            if (cyrt_cache_clear_calibration(&c, &removed, &bytes) != 0) {
                errorf("cannot remove the calibration files in '%s': %s", dir, strerror(errno));
                rc = EXIT_ENV;
            }
            human_size(bytes, s1, sizeof s1);
            printf("removed %llu calibration file%s (%s): the next process recalibrates\n",
                   (unsigned long long)removed, removed == 1 ? "" : "s", s1);
        }
    }
    cyrt_cache_close(&c);
    return rc;
}

int main(int argc, char **argv) {
    saved_umask = umask(0);
    umask(saved_umask);
    install_signal_handlers();
    if (argc < 2) {
        fputs(USAGE, stderr);
        return EXIT_ENV;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        fputs(USAGE, stdout);
        return EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("cyocl %s\n", CYOCL_VERSION);
        return EXIT_OK;
    }
    if (strcmp(cmd, "compile") == 0)
        return cmd_compile(argc - 2, argv + 2);
    if (strcmp(cmd, "build") == 0)
        return cmd_build(argc - 2, argv + 2);
    if (strcmp(cmd, "annotate") == 0)
        return cmd_annotate(argc - 2, argv + 2);
    if (strcmp(cmd, "devices") == 0)
        return cmd_devices(argc - 2, argv + 2);
    if (strcmp(cmd, "cache") == 0)
        return cmd_cache(argc - 2, argv + 2);
    return usage_error("unknown command '%s'", cmd);
}
