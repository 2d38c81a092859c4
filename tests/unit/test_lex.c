/* test_lex.c: the lexer.  Token streams of representative snippets
 * (indentation, line joining, numbers, strings, directives) and the lexical
 * errors with their exact line:col. */
#define _POSIX_C_SOURCE 200809L
#include "../../frontend/frontend.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

typedef struct {
    CyArena *a;
    CySource src;
    CyDiag d;
    char *diag;
    size_t diaglen;
    FILE *out;
    TokenList toks;
    int rc;
} Lex;

static void lex(Lex *l, const char *text, size_t len) {
    memset(l, 0, sizeof *l);
    l->a = cy_arena_new();
    l->src.path = l->src.name = "t.pyx";
    l->src.modname = "t";
    l->src.text = text;
    l->src.len = len;
    l->out = open_memstream(&l->diag, &l->diaglen);
    l->d.src = &l->src;
    l->d.out = l->out;
    l->rc = cy_lex(l->a, &l->d, &l->src, &l->toks);
    fflush(l->out);
}

static void done(Lex *l) {
    fclose(l->out);
    free(l->diag);
    cy_arena_free(l->a);
}

/* Compact rendering: names as-is, keywords as %kw, numbers as #text,
 * strings as "decoded", NEWLINE/INDENT/DEDENT as NL/IN/DE; EOF omitted. */
static char *render(const TokenList *tl) {
    size_t cap = 64, len = 0;
    char *s = malloc(cap);
    s[0] = '\0';
    for (int k = 0; k < tl->n; k++) {
        const Token *t = &tl->toks[k];
        char piece[512];
        switch (t->kind) {
        case TK_NAME: snprintf(piece, sizeof piece, "%s", t->text); break;
        case TK_KW: snprintf(piece, sizeof piece, "%%%s", t->text); break;
        case TK_INT:
        case TK_FLOAT:
        case TK_IMAG: snprintf(piece, sizeof piece, "#%s", t->text); break;
        case TK_PUNCT: snprintf(piece, sizeof piece, "%s", t->text); break;
        case TK_NEWLINE: snprintf(piece, sizeof piece, "NL"); break;
        case TK_INDENT: snprintf(piece, sizeof piece, "IN"); break;
        case TK_DEDENT: snprintf(piece, sizeof piece, "DE"); break;
        case TK_EOF: continue;
        case TK_STR: {
            size_t o = (size_t)snprintf(piece, sizeof piece, "%s\"", t->str_prefix);
            for (int j = 0; j < t->slen && o < sizeof piece - 8; j++) {
                unsigned char c = (unsigned char)t->sval[j];
                if (c >= 0x20 && c < 0x7f && c != '\\')
                    piece[o++] = (char)c;
                else
                    o += (size_t)snprintf(piece + o, 8, "\\x%02x", c);
            }
            piece[o++] = '"';
            piece[o] = '\0';
            break;
        }
        }
        size_t pl = strlen(piece);
        if (len + pl + 2 > cap) {
            cap = (len + pl + 2) * 2;
            s = realloc(s, cap);
        }
        if (len)
            s[len++] = ' ';
        memcpy(s + len, piece, pl + 1);
        len += pl;
    }
    return s;
}

static void toks(int line, const char *text, const char *want) {
    Lex l;
    lex(&l, text, strlen(text));
    char *got = l.rc == 0 ? render(&l.toks) : NULL;
    if (!got || strcmp(got, want) != 0) {
        failures++;
        fprintf(stderr, "test_lex.c:%d: tokens of:\n%s\n  want: %s\n  got:  %s\n  diag: %s\n", line, text, want,
                got ? got : "(error)", l.diag ? l.diag : "");
    }
    free(got);
    done(&l);
}
#define TOKS(text, want) toks(__LINE__, text, want)

static void lex_err(int line, const char *text, size_t len, int el, int ec, const char *words) {
    Lex l;
    lex(&l, text, len);
    char want[64];
    snprintf(want, sizeof want, "t.pyx:%d:%d: error: ", el, ec);
    const char *diag = l.diag ? l.diag : "";
    if (l.rc != -1 || l.d.nerrors != 1 || strncmp(diag, want, strlen(want)) != 0 || !strstr(diag, words)) {
        failures++;
        fprintf(stderr, "test_lex.c:%d: expected error %d:%d '%s' for:\n%s\n  got rc=%d: %s\n", line, el, ec,
                words, text, l.rc, diag);
    }
    done(&l);
}
#define LEXERR(text, l, c, words) lex_err(__LINE__, text, strlen(text), l, c, words)

/* ---- tests ---------------------------------------------------------------- */

static void test_basic(void) {
    TOKS("", "");
    TOKS("\n\n  \n# only a comment\n", "");
    TOKS("x = 1", "x = #1 NL");
    TOKS("def f(a, b):\n    return a\n", "%def f ( a , b ) : NL IN %return a NL DE");
    TOKS("cdef double x\ncpdef f()\nctypedef int t\ncimport c\n",
         "%cdef double x NL %cpdef f ( ) NL %ctypedef int t NL %cimport c NL");
    TOKS("with nogil:\n pass\n", "%with nogil : NL IN %pass NL DE");
    TOKS("f(nogil=True, gil=None)", "f ( nogil = %True , gil = %None ) NL");
    TOKS("extern inline noexcept const public readonly struct sizeof print exec",
         "extern inline noexcept const public readonly struct sizeof print exec NL");
    TOKS("a **= b //= c >>= d <<= e -> f := g ... h @ i & j ? k",
         "a **= b //= c >>= d <<= e -> f := g ... h @ i & j ? k NL");
    TOKS("a<=b>=c==d!=e<f>g", "a <= b >= c == d != e < f > g NL");
    TOKS("x+=1;y-=2", "x += #1 ; y -= #2 NL");
    TOKS("<double?>x", "< double ? > x NL");
    TOKS("double[:, ::1]", "double [ : , : : #1 ] NL");
    TOKS("a[::2]", "a [ : : #2 ] NL");
    TOKS("x # comment\ny", "x NL y NL");
}

static void test_indentation(void) {
    TOKS("if a:\n    if b:\n        c\n    d\ne\n",
         "%if a : NL IN %if b : NL IN c NL DE d NL DE e NL");
    TOKS("if a:\n    if b:\n        c\n", "%if a : NL IN %if b : NL IN c NL DE DE");
    /* blank and comment lines do not count, whatever their indentation */
    TOKS("if a:\n  b\n        # deep comment\n\n  c\n", "%if a : NL IN b NL c NL DE");
    /* a tab goes to the next multiple of 8 */
    TOKS("if a:\n\tif b:\n\t\tc\n\td\n", "%if a : NL IN %if b : NL IN c NL DE d NL DE");
    /* Python 3: a tab and 8 spaces are the same column but not the same
     * indentation (TabError) */
    LEXERR("if a:\n\tb\n        c\n", 3, 9, "inconsistent use of tabs and spaces");
    TOKS("if a:\n    b\r\n    c\r\n", "%if a : NL IN b NL c NL DE");
    TOKS("if a:\n  b\n\x0c  c\n", "%if a : NL IN b NL c NL DE");
    /* line joining */
    TOKS("x = (1,\n  2,\n3)\ny", "x = ( #1 , #2 , #3 ) NL y NL");
    TOKS("x = [\n  # comment\n  1]\n", "x = [ #1 ] NL");
    TOKS("x = 1 + \\\n  2\n", "x = #1 + #2 NL");
    TOKS("if a:\n    x = {1:\n2}\n    y\n", "%if a : NL IN x = { #1 : #2 } NL y NL DE");
}

static void test_open_bracket(void) {
    Lex l;
    const char *t = "f(a[1], (b))\nc";
    lex(&l, t, strlen(t));
    CHECK(l.rc == 0, "lex failed");
    /* f ( a [ 1 ] , ( b ) ) NL c NL EOF */
    int want[] = {-1, -1, 1, 1, 3, 3, 1, 1, 7, 7, 1, -1, -1, -1, -1};
    CHECK(l.toks.n == 15, "n=%d", l.toks.n);
    for (int k = 0; k < l.toks.n && k < 15; k++)
        CHECK(l.toks.toks[k].open_bracket == want[k], "token %d (%s): open_bracket %d, want %d", k,
              l.toks.toks[k].text, l.toks.toks[k].open_bracket, want[k]);
    done(&l);

}

static void test_positions(void) {
    Lex l;
    const char *t = "def f():\n    s = 'a'  # c\n\tx\n";
    lex(&l, t, strlen(t));
    /* 'def' 1:1, 'f' 1:5, NEWLINE 1:9, INDENT 2:5, s 2:5, = 2:7, str 2:9 */
    CHECK(l.rc == -1, "mixed tabs and spaces: %s", l.diag);
    done(&l);
    t = "def f():\n    s = 'a'  # c\n    x\n";
    lex(&l, t, strlen(t));
    CHECK(l.rc == 0, "lex failed");
    const Token *k = l.toks.toks;
    CHECK(k[0].pos.line == 1 && k[0].pos.col == 1, "def");
    CHECK(k[1].pos.col == 5, "f");
    CHECK(k[5].kind == TK_NEWLINE && k[5].pos.line == 1 && k[5].pos.col == 9, "newline %d:%d", k[5].pos.line,
          k[5].pos.col);
    CHECK(k[6].kind == TK_INDENT && k[6].pos.line == 2 && k[6].pos.col == 5, "indent");
    CHECK(k[7].pos.line == 2 && k[7].pos.col == 5, "s");
    CHECK(k[9].kind == TK_STR && k[9].pos.col == 9 && !strcmp(k[9].text, "'a'"), "str");
    done(&l);
    /* a triple-quoted string spanning lines keeps counting lines */
    t = "x = '''a\nb'''; y\n";
    lex(&l, t, strlen(t));
    CHECK(l.rc == 0 && l.toks.toks[4].kind == TK_NAME && l.toks.toks[4].pos.line == 2 &&
              l.toks.toks[4].pos.col == 7,
          "y after triple string");
    done(&l);
}

static void test_numbers(void) {
    Lex l;
    const char *t = "0 42 1_000_000 0x_FF 0o17 0b1010 10L 7UL 5LL 18446744073709551615 "
                    "18446744073709551616 0xFFFFFFFFFFFFFFFFF 00 0_0";
    lex(&l, t, strlen(t));
    CHECK(l.rc == 0, "lex failed: %s", l.diag);
    uint64_t want[] = {0, 42, 1000000, 255, 15, 10, 10, 7, 5, UINT64_MAX, UINT64_MAX, UINT64_MAX, 0, 0};
    int ovf[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0};
    for (int k = 0; k < 14; k++) {
        const Token *tk = &l.toks.toks[k];
        CHECK(tk->kind == TK_INT && tk->ival == want[k] && tk->int_overflow == ovf[k], "int %d (%s): %llu ovf %d",
              k, tk->text, (unsigned long long)tk->ival, tk->int_overflow);
    }
    done(&l);
    t = "1.5 .25 3. 1e3 1E-2 2.5e+1 1_0.0_1 3j 1.5J 1e400";
    lex(&l, t, strlen(t));
    CHECK(l.rc == 0, "lex failed: %s", l.diag);
    double fw[] = {1.5, 0.25, 3.0, 1000.0, 0.01, 25.0, 10.01, 3.0, 1.5};
    TokKind kw[] = {TK_FLOAT, TK_FLOAT, TK_FLOAT, TK_FLOAT, TK_FLOAT, TK_FLOAT, TK_FLOAT, TK_IMAG, TK_IMAG};
    for (int k = 0; k < 9; k++) {
        const Token *tk = &l.toks.toks[k];
        CHECK(tk->kind == kw[k] && tk->fval == fw[k], "float %d (%s): %g", k, tk->text, tk->fval);
    }
    CHECK(l.toks.toks[9].kind == TK_FLOAT && l.toks.toks[9].fval > 1e300, "1e400 is inf");
    done(&l);
    TOKS("a.b 1..real x[1:2]", "a . b #1. . real x [ #1 : #2 ] NL");
}

static void test_strings(void) {
    TOKS("'a' \"b\" '''c\"d''' \"\"\"e\nf\"\"\"", "\"a\" \"b\" \"c\"d\" \"e\\x0af\" NL");
    TOKS("'\\n\\t\\\\\\'\\\"\\a\\0\\x41\\101\\u00e9\\U0001F600'",
         "\"\\x0a\\x09\\x5c'\"\\x07\\x00AA\\xc3\\xa9\\xf0\\x9f\\x98\\x80\" NL");
    LEXERR("b'\\777'", 1, 3, "octal escape value out of range");
    TOKS("'\\xe9' b'\\xe9\\101'", "\"\\xc3\\xa9\" b\"\\xe9A\" NL");
    TOKS("r'\\n\\'' R\"\\d\" rb'\\x' BR'a' Rb'b' u'x' U'y' f'{x}' F'z' rf'\\{y}'",
         "r\"\\x5cn\\x5c'\" r\"\\x5cd\" br\"\\x5cx\" br\"a\" br\"b\" u\"x\" u\"y\" f\"{x}\" f\"z\" fr\"\\x5c{y}\" NL");
    TOKS("'a\\\nb'", "\"ab\" NL");
    TOKS("'\\q'", "\"\\x5cq\" NL"); /* unknown escapes stay */
    TOKS("b'\\u1234'", "b\"\\x5cu1234\" NL");
    TOKS("'\xc3\xa9t\xc3\xa9'", "\"\\xc3\\xa9t\\xc3\\xa9\" NL");
    TOKS("'''a\r\nb'''", "\"a\\x0ab\" NL");
    TOKS("ur", "ur NL");
    Lex l;
    const char *t = "x = b'a\\x00b'";
    lex(&l, t, strlen(t));
    CHECK(l.rc == 0 && l.toks.toks[2].slen == 3 && l.toks.toks[2].sval[1] == 0 &&
              !strcmp(l.toks.toks[2].str_prefix, "b") && !strcmp(l.toks.toks[2].text, "b'a\\x00b'"),
          "bytes with NUL");
    done(&l);
    t = "'''x'''";
    lex(&l, t, strlen(t));
    CHECK(l.rc == 0 && l.toks.toks[0].triple, "triple flag");
    done(&l);
}

static void test_directives(void) {
    Lex l;
    const char *t = "#!/usr/bin/env python\n"
                    "# cython: boundscheck=False, wraparound = False ,cdivision=True\n"
                    "# some prose\n"
                    "#cython: language_level=3\n"
                    "# cython: not a directive\n"
                    "x = 1  # cython: nonheader=True\n"
                    "# cython: late=True\n";
    lex(&l, t, strlen(t));
    CHECK(l.rc == 0, "lex failed");
    const char *keys[] = {"boundscheck", "wraparound", "cdivision", "language_level"};
    const char *vals[] = {"False", "False", "True", "3"};
    int cols[] = {11, 30, 50, 10};
    int lines[] = {2, 2, 2, 4};
    CHECK(l.toks.directive_keys.len == 4, "directives: %d", l.toks.directive_keys.len);
    for (int k = 0; k < 4 && k < l.toks.directive_keys.len; k++) {
        CyPos *p = l.toks.directive_pos.items[k];
        CHECK(!strcmp(l.toks.directive_keys.items[k], keys[k]) && !strcmp(l.toks.directive_values.items[k], vals[k]),
              "directive %d: %s=%s", k, (char *)l.toks.directive_keys.items[k],
              (char *)l.toks.directive_values.items[k]);
        CHECK(p->line == lines[k] && p->col == cols[k], "directive %d pos %d:%d", k, p->line, p->col);
    }
    done(&l);
    /* after a docstring: code has started */
    t = "'''doc'''\n# cython: boundscheck=False\n";
    lex(&l, t, strlen(t));
    CHECK(l.rc == 0 && l.toks.directive_keys.len == 0, "directive after code");
    done(&l);
}

static void test_errors(void) {
    /* errors/e08_string.pyx */
    LEXERR("# expect-error: 3:9 string\ndef f():\n    s = \"unterminated\n    return s\n", 3, 9,
           "unterminated string literal");
    LEXERR("x = rb'abc\n", 1, 5, "unterminated string literal");
    LEXERR("x = '''abc\n\n", 1, 5, "unterminated triple-quoted string literal");
    LEXERR("x = 'abc\\", 1, 5, "unterminated string literal");
    /* errors/e02_syntax.pyx: the bracket is still open at the end */
    LEXERR("def f(double[:] a):\n    cdef Py_ssize_t i\n    a[0] = (a[1] + a[2]\n    return a[0]\n", 3, 12,
           "'(' was never closed");
    LEXERR("x = [1, {2,\n", 1, 9, "'{' was never closed");
    LEXERR("x = 1)\n", 1, 6, "unmatched ')'");
    LEXERR("x = (1]\n", 1, 7, "closing parenthesis ']' does not match opening parenthesis '('");
    LEXERR("x = (1,\n2]\n", 2, 2, "does not match opening parenthesis '(' on line 1");
    LEXERR("if a:\n        b\n    c\n", 3, 5, "unindent does not match any outer indentation level");
    LEXERR("if a:\n    b\n\tc\n", 3, 2, "inconsistent use of tabs and spaces");
    LEXERR("x = $\n", 1, 5, "invalid character '$'");
    LEXERR("x = a!b\n", 1, 6, "invalid character '!'");
    LEXERR("x = `a`\n", 1, 5, "invalid character");
    LEXERR("caf\xc3\xa9 = 1\n", 1, 4, "invalid character '\xc3\xa9' (U+00E9)");
    LEXERR("x = 1\n# \xff\n", 2, 3, "not valid UTF-8");
    LEXERR("x = '\xc3('\n", 1, 6, "not valid UTF-8");
    lex_err(__LINE__, "x = 1\ny = \0\n", 11, 2, 5, "null bytes");
    LEXERR("x = 1 \\ y\n", 1, 7, "unexpected character after line continuation character");
    LEXERR("x = 1 \\", 1, 7, "unexpected EOF");
    LEXERR("x = 1abc\n", 1, 5, "invalid decimal literal");
    LEXERR("x = 1__0\n", 1, 5, "invalid decimal literal");
    LEXERR("x = 1_\n", 1, 5, "invalid decimal literal");
    LEXERR("x = 1e\n", 1, 5, "invalid decimal literal");
    LEXERR("x = 0x\n", 1, 5, "invalid hexadecimal literal");
    LEXERR("x = 0b102\n", 1, 5, "invalid binary literal");
    LEXERR("x = 0777\n", 1, 5, "leading zeros");
    LEXERR("x = 1.0L\n", 1, 5, "invalid decimal literal");
    LEXERR("x = '\\N{DASH}'\n", 1, 6, "not supported");
    LEXERR("x = '\\x4'\n", 1, 6, "truncated \\xXX escape");
    LEXERR("x = '\\u12'\n", 1, 6, "truncated");
    LEXERR("x = '\\U00110000'\n", 1, 6, "illegal Unicode character");
    LEXERR("x = b'\xc3\xa9'\n", 1, 7, "bytes can only contain ASCII");
    LEXERR("x = '''a\n  \\x4'''\n", 2, 3, "truncated");
}

static void test_limits(void) {
    /* 200 nested brackets are fine, 201 are not */
    char buf[2048];
    size_t k = 0;
    for (int j = 0; j < 200; j++)
        buf[k++] = '(';
    buf[k++] = '1';
    for (int j = 0; j < 200; j++)
        buf[k++] = ')';
    buf[k] = '\0';
    Lex l;
    lex(&l, buf, k);
    CHECK(l.rc == 0, "200 brackets: %s", l.diag);
    done(&l);
    k = 0;
    for (int j = 0; j < 201; j++)
        buf[k++] = '[';
    buf[k] = '\0';
    lex_err(__LINE__, buf, k, 1, 201, "too many nested parentheses");

    /* indentation depth */
    char *s = malloc(200 * 220);
    k = 0;
    for (int d = 0; d < 101; d++) {
        for (int j = 0; j < d; j++)
            s[k++] = ' ';
        k += (size_t)sprintf(s + k, "if a:\n");
    }
    lex(&l, s, k);
    CHECK(l.rc == 0, "100 levels: %s", l.diag);
    done(&l);
    for (int j = 0; j < 101; j++)
        s[k++] = ' ';
    k += (size_t)sprintf(s + k, "x\n");
    lex_err(__LINE__, s, k, 102, 102, "too many levels of indentation");
    free(s);

    /* a huge integer saturates; a huge float is inf; both are fine */
    s = malloc(100010);
    memset(s, '9', 100000);
    s[100000] = '\0';
    lex(&l, s, 100000);
    CHECK(l.rc == 0 && l.toks.toks[0].int_overflow && l.toks.toks[0].ival == UINT64_MAX, "huge int");
    done(&l);
    s[50000] = '.';
    lex(&l, s, 100000);
    CHECK(l.rc == 0 && l.toks.toks[0].kind == TK_FLOAT, "huge float");
    done(&l);
    free(s);
}

/* Random bytes: an error or a token list ending in EOF, never a crash. */
static void test_random(void) {
    unsigned seed = 1;
    char buf[300];
    static const char alphabet[] = "abc (){}[]:.,=+-*/<>'\"\\#\n\n\t  0123456789xjeL_?@&!$\xc3\xa9\xff";
    for (int iter = 0; iter < 30000; iter++) {
        seed = seed * 1103515245u + 12345u;
        size_t n = (seed >> 16) % sizeof buf;
        for (size_t j = 0; j < n; j++) {
            seed = seed * 1103515245u + 12345u;
            buf[j] = iter % 5 == 0 ? (char)(seed >> 16) : alphabet[(seed >> 16) % (sizeof alphabet - 1)];
        }
        Lex l;
        lex(&l, buf, n);
        if (l.rc == 0) {
            CHECK(l.toks.n > 0 && l.toks.toks[l.toks.n - 1].kind == TK_EOF && l.d.nerrors == 0, "no EOF");
            int depth = 0;
            for (int k = 0; k < l.toks.n; k++) {
                const Token *t = &l.toks.toks[k];
                depth += t->kind == TK_INDENT ? 1 : t->kind == TK_DEDENT ? -1 : 0;
                CHECK(depth >= 0, "dedent below zero");
                CHECK(t->open_bracket < k, "open_bracket points forward");
            }
            CHECK(depth == 0, "unbalanced indents");
        } else {
            CHECK(l.d.nerrors == 1, "error without exactly one diagnostic");
        }
        done(&l);
    }
}

int main(void) {
    test_basic();
    test_indentation();
    test_open_bracket();
    test_positions();
    test_numbers();
    test_strings();
    test_directives();
    test_errors();
    test_limits();
    test_random();
    if (failures) {
        fprintf(stderr, "test_lex: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_lex: ok\n");
    return 0;
}
