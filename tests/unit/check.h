/* check.h: the one assertion macro of the C unit tests.
 *
 *   CHECK(cond)                  counts a check; on failure prints where and what
 *   CHECK(cond, "fmt", args...)  and also a message
 *
 * Each test's main() ends by reporting `failures` (and `checks`). */
#ifndef CY_TEST_CHECK_H
#define CY_TEST_CHECK_H

#include <stdarg.h>
#include <stdio.h>

static int failures, checks;

static void check_note(const char *fmt, ...) {
    if (!*fmt) return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* "" __VA_ARGS__ pastes an empty format in front of the optional message */
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);               \
            check_note("" __VA_ARGS__);                                                            \
        }                                                                                          \
    } while (0)

/* OpenCL drivers keep allocations until the process ends (PoCL, LLVM,
 * the loader); they are not ours, and LeakSanitizer is told so by a test
 * that loads a driver putting CY_TEST_DRIVER_LEAKS_ARE_NOT_OURS("") (or
 * more "leak:NAME\n" patterns) at file scope.  Our own leaks are still
 * reported. */
#define CY_TEST_DRIVER_LEAKS_ARE_NOT_OURS(more)                                                     \
    const char *__lsan_default_suppressions(void);                                                 \
    const char *__lsan_default_suppressions(void) {                                                \
        return "leak:libpocl\nleak:libLLVM\nleak:libclang\nleak:libOpenCL\nleak:libhwloc\n"       \
               "leak:pocl\n" more;                                                                 \
    }

#endif
