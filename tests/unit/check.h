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

#endif
