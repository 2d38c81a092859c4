/* test_base.c: the arena, vectors, buffers and the diagnostic format. */
#include "ir/base.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static void test_arena(void) {
    CyArena *a = cy_arena_new();
    for (size_t n = 0; n < 3000; n += 7) {
        unsigned char *p = cy_alloc(a, n);
        CHECK(((uintptr_t)p & 15) == 0);
        int zero = 1;
        for (size_t i = 0; i < n; i++)
            zero &= p[i] == 0;
        CHECK(zero);
        memset(p, 0xAB, n);
    }
    /* larger than a chunk, then small ones again */
    char *big = cy_alloc(a, 5u << 20);
    CHECK(big && ((uintptr_t)big & 15) == 0 && big[(5u << 20) - 1] == 0);
    char *small = cy_alloc(a, 3);
    CHECK(((uintptr_t)small & 15) == 0 && small[0] == 0);
    CHECK(strcmp(cy_strdup(a, "hello"), "hello") == 0);
    CHECK(strcmp(cy_strndup(a, "hello", 3), "hel") == 0);
    CHECK(strcmp(cy_fmt(a, "%s-%d", "x", 42), "x-42") == 0);
    char *longer = cy_fmt(a, "%0999d", 7);
    CHECK(strlen(longer) == 999 && longer[998] == '7');
    cy_arena_free(a);
    cy_arena_free(NULL);
}

static void test_vec(void) {
    CyArena *a = cy_arena_new();
    CyVec v = {0};
    static int items[1000];
    for (int i = 0; i < 1000; i++)
        cy_vec_push(a, &v, &items[i]);
    CHECK(v.len == 1000 && v.cap >= 1000);
    int ok = 1;
    for (int i = 0; i < 1000; i++)
        ok &= CY_VEC_AT(v, i) == &items[i];
    CHECK(ok);
    cy_arena_free(a);
}

static void test_buf(void) {
    CyBuf b = {0};
    cy_buf_puts(&b, "");
    CHECK(b.len == 0 && b.s && b.s[0] == '\0');
    cy_buf_puts(&b, "ab");
    cy_buf_put(&b, "cdef", 2);
    cy_buf_printf(&b, "[%d]", 5);
    CHECK(b.len == 7 && strcmp(b.s, "abcd[5]") == 0);
    for (int i = 0; i < 10000; i++)
        cy_buf_printf(&b, "%04d", i % 10000);
    CHECK(b.len == 7 + 40000 && memcmp(b.s + b.len - 4, "9999", 4) == 0 && b.s[b.len] == '\0');
    cy_buf_free(&b);
    CHECK(b.s == NULL && b.len == 0);
}

/* Runs fn's diagnostics into a string. */
static char *capture(const char *text, void (*fn)(CyDiag *), CyDiag *out_d) {
    CySource src = {.path = "dir/t.pyx", .name = "t.pyx", .modname = "t", .text = text, .len = strlen(text)};
    FILE *f = tmpfile();
    CyDiag d = {.src = &src, .out = f};
    fn(&d);
    long n = ftell(f);
    rewind(f);
    char *s = calloc(1, (size_t)n + 1);
    if (fread(s, 1, (size_t)n, f) != (size_t)n)
        s[0] = '\0';
    fclose(f);
    *out_d = d;
    out_d->src = NULL;
    return s;
}

static void diag_basic(CyDiag *d) {
    cy_error(d, (CyPos){2, 5, 0}, "undeclared name '%s'", "y");
    cy_warning(d, (CyPos){1, 1, 0}, "just a warning");
    cy_note(d, (CyPos){3, 3, 0}, "a note");
}

static void diag_many(CyDiag *d) {
    d->max_errors = 3;
    for (int i = 0; i < 10; i++)
        cy_error(d, (CyPos){1, 1, 0}, "error %d", i);
}

static void diag_silent(CyDiag *d) {
    d->out = NULL;
    cy_error(d, (CyPos){1, 1, 0}, "not shown");
    cy_warning(d, (CyPos){1, 1, 0}, "not shown");
}

static void diag_long(CyDiag *d) { cy_error(d, (CyPos){1, 1001, 0}, "deep"); }
static void diag_long_start(CyDiag *d) { cy_error(d, (CyPos){1, 3, 0}, "start"); }

static void test_diag(void) {
    CyDiag d;
    char *s = capture("x = 1\n\tf(y)\r\nz\n", diag_basic, &d);
    const char *want = "t.pyx:2:5: error: undeclared name 'y'\n"
                       "    \tf(y)\n"
                       "    \t   ^\n"
                       "t.pyx:1:1: warning: just a warning\n"
                       "    x = 1\n"
                       "    ^\n"
                       "t.pyx:3:3: note: a note\n"
                       "    z\n"
                       "      ^\n";
    CHECK(strcmp(s, want) == 0);
    if (strcmp(s, want) != 0)
        fprintf(stderr, "got:\n%s", s);
    CHECK(d.nerrors == 1 && d.nwarnings == 1);
    free(s);

    s = capture("a\n", diag_many, &d);
    CHECK(d.nerrors == 10);
    CHECK(strstr(s, "error 2") && !strstr(s, "error 3"));
    free(s);

    /* a 4000-byte line: a window around the column, the caret under it */
    {
        char line[4002];
        for (int i = 0; i < 4000; i++)
            line[i] = (char)('a' + i % 26);
        line[4000] = '\n';
        line[4001] = '\0';
        s = capture(line, diag_long, &d);
        const char *l2 = strchr(s, '\n') + 1, *l3 = strchr(l2, '\n') + 1;
        size_t shown = (size_t)(strchr(l2, '\n') - l2);
        CHECK(!strncmp(l2, "    ...", 7) && shown < 180 && !strncmp(l2 + shown - 3, "...", 3), "%.*s", (int)shown, l2);
        const char *caret = strchr(l3, '^');
        /* column 1001 is byte 1000: 'a' + 1000 % 26 */
        CHECK(caret && l2[caret - l3] == (char)('a' + 1000 % 26));
        free(s);
        s = capture(line, diag_long_start, &d);
        l2 = strchr(s, '\n') + 1;
        l3 = strchr(l2, '\n') + 1;
        CHECK(!strncmp(l2, "    abc", 7) && !strncmp(l3, "      ^\n", 8));
        free(s);
    }

    s = capture("a\n", diag_silent, &d);
    CHECK(d.nerrors == 1 && d.nwarnings == 1 && s[0] == '\0');
    free(s);
}

int main(void) {
    test_arena();
    test_vec();
    test_buf();
    test_diag();
    printf("test_base: %d checks, %d failed\n", checks, failures);
    return failures != 0;
}
