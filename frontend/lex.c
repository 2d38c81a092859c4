/* lex.c: source text -> tokens.
 *
 * Python 3 tokenization (indentation, implicit and explicit line joining,
 * number and string literals) with Cython's few additions: '?' for checked
 * casts, C integer suffixes, '# cython:' directive comments.  The whole file
 * is tokenized before parsing starts, so a lexical error anywhere wins over
 * a syntax error (as in CPython, where tokenizer errors override the
 * parser's generic ones).  Errors unwind with longjmp: every allocation is in
 * the arena, so there is nothing to clean up. */
#define _POSIX_C_SOURCE 200809L
#include "frontend.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* CPython's limits: deeper nesting is rejected rather than risking the
 * parser's stack on hostile input. */
#define MAX_INDENT 100
#define MAX_BRACKETS 200
/* Lines and columns are ints; refusing huge files keeps them meaningful. */
#define MAX_SOURCE ((size_t)1 << 30)

typedef struct {
    CyArena *a;
    CyDiag *d;
    const char *s;
    size_t len, i;
    int line;
    size_t line_start; /* byte offset of the current line */
    TokenList *out;
    int cap;
    int indent[MAX_INDENT + 1], altindent[MAX_INDENT + 1], nindent;
    int brackets[MAX_BRACKETS], nbrackets;
    int seen_code;      /* a code token was emitted: no more directives */
    int logical_tokens; /* tokens since the last NEWLINE */
    int file;           /* CyPos.file of the source's positions */
    jmp_buf jb;
} Lexer;

static const char *const keywords[] = {
    "False", "None", "True", "and", "as", "assert", "async", "await", "break",
    "class", "continue", "def", "del", "elif", "else", "except", "finally",
    "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
    "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
    /* Cython */
    "cdef", "cpdef", "ctypedef", "cimport", "include", "DEF", "IF", "ELIF",
    "ELSE", NULL,
};

/* Longest first, so the first match is the longest one. */
static const char *const puncts[] = {
    "**=", "//=", ">>=", "<<=", "...",
    "**", "//", ">>", "<<", "<=", ">=", "==", "!=", "->", ":=", "+=", "-=",
    "*=", "/=", "%=", "&=", "|=", "^=", "@=",
    "+", "-", "*", "/", "%", "@", "&", "|", "^", "~", "<", ">", "(", ")",
    "[", "]", "{", "}", ",", ":", ";", ".", "=", "?", NULL,
};

static int ch(const Lexer *L, size_t j) {
    return j < L->len ? (unsigned char)L->s[j] : -1;
}

static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int is_alnum(int c) { return is_alpha(c) || is_digit(c); }
static int is_newline(int c) { return c == '\n' || c == '\r'; }

static int hexval(int c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static CyPos pos_at(const Lexer *L, size_t j) {
    CyPos p = {L->line, (int)(j - L->line_start) + 1, L->file};
    return p;
}

static _Noreturn void lex_error(Lexer *L, CyPos p, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static _Noreturn void lex_error(Lexer *L, CyPos p, const char *fmt, ...) {
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    cy_error(L->d, p, "%s", buf);
    longjmp(L->jb, 1);
}

/* Consumes one line break ("\n", "\r\n" or a lone "\r") at L->i. */
static void newline(Lexer *L) {
    if (ch(L, L->i) == '\r' && ch(L, L->i + 1) == '\n')
        L->i += 2;
    else
        L->i++;
    L->line++;
    L->line_start = L->i;
}

static Token *push(Lexer *L, TokKind kind, CyPos pos, size_t start, size_t end) {
    TokenList *out = L->out;
    if (out->n == L->cap) {
        int cap = L->cap ? L->cap * 2 : 256;
        Token *toks = cy_alloc(L->a, sizeof(Token) * (size_t)cap);
        if (out->n)
            memcpy(toks, out->toks, sizeof(Token) * (size_t)out->n);
        out->toks = toks; /* the old array stays in the arena */
        L->cap = cap;
    }
    Token *t = &out->toks[out->n++];
    memset(t, 0, sizeof *t);
    t->kind = kind;
    t->pos = pos;
    t->text = cy_strndup(L->a, L->s + start, end - start);
    t->len = (int)(end - start);
    t->open_bracket = L->nbrackets ? L->brackets[L->nbrackets - 1] : -1;
    if (kind != TK_NEWLINE && kind != TK_INDENT && kind != TK_DEDENT && kind != TK_EOF) {
        L->seen_code = 1;
        L->logical_tokens++;
    }
    return t;
}

/* ---- UTF-8 ---------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s[j] (decoding it into *cp), or 0. */
static int utf8_seq(const Lexer *L, size_t j, unsigned *cp) {
    int c = ch(L, j);
    int n;
    unsigned v, min;
    if (c < 0)
        return 0;
    if (c < 0x80) {
        *cp = (unsigned)c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF)
        n = 2, v = (unsigned)c & 0x1F, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3, v = (unsigned)c & 0x0F, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4, v = (unsigned)c & 0x07, min = 0x10000;
    else
        return 0;
    for (int k = 1; k < n; k++) {
        int cc = ch(L, j + (size_t)k);
        if (cc < 0 || (cc & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | ((unsigned)cc & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return n;
}

/* Python decodes the whole file first: NUL bytes and bad UTF-8 anywhere,
 * comments and strings included, make the file invalid. */
static void check_encoding(Lexer *L) {
    int line = 1;
    size_t ls = 0;
    for (size_t j = 0; j < L->len;) {
        int c = ch(L, j);
        if (c == '\n' || (c == '\r' && ch(L, j + 1) != '\n')) {
            line++;
            ls = ++j;
            continue;
        }
        CyPos p = {line, (int)(j - ls) + 1, L->file};
        if (c == 0)
            lex_error(L, p, "source code cannot contain null bytes");
        unsigned cp;
        int n = utf8_seq(L, j, &cp);
        if (!n)
            lex_error(L, p, "invalid character: byte 0x%02X is not valid UTF-8", (unsigned)c);
        j += (size_t)n;
    }
}

static size_t put_utf8(char *o, unsigned cp) {
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xC0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* ---- comments and directives --------------------------------------------- */

static size_t skip_blank(const Lexer *L, size_t j, size_t end) {
    while (j < end && (L->s[j] == ' ' || L->s[j] == '\t'))
        j++;
    return j;
}

static size_t trim_end(const Lexer *L, size_t start, size_t end) {
    while (end > start && (L->s[end - 1] == ' ' || L->s[end - 1] == '\t'))
        end--;
    return end;
}

/* "# cython: key=value, key2=value2" before any code.  Like Cython, the
 * comment counts only if it starts like a directive (name '='), so prose
 * such as "# cython: notes" is left alone. */
static void directive(Lexer *L, size_t start, size_t end) {
    size_t j = skip_blank(L, start + 1, end);
    if (end - j < 6 || memcmp(L->s + j, "cython", 6) != 0)
        return;
    j = skip_blank(L, j + 6, end);
    if (j >= end || L->s[j] != ':')
        return;
    j = skip_blank(L, j + 1, end);
    size_t k = j;
    while (k < end && (is_alnum((unsigned char)L->s[k]) || L->s[k] == '.'))
        k++;
    if (k == j || skip_blank(L, k, end) >= end || L->s[skip_blank(L, k, end)] != '=')
        return;
    TokenList *out = L->out;
    while (j < end) {
        size_t pe = j;
        while (pe < end && L->s[pe] != ',')
            pe++;
        size_t ps = skip_blank(L, j, pe), pend = trim_end(L, ps, pe);
        if (ps < pend) {
            size_t eq = ps;
            while (eq < pend && L->s[eq] != '=')
                eq++;
            const char *key, *val;
            if (eq < pend) {
                key = cy_strndup(L->a, L->s + ps, trim_end(L, ps, eq) - ps);
                size_t vs = skip_blank(L, eq + 1, pend);
                val = cy_strndup(L->a, L->s + vs, pend - vs);
            } else {
                key = cy_strndup(L->a, L->s + ps, pend - ps);
                val = "";
            }
            CyPos *p = cy_alloc(L->a, sizeof *p);
            *p = pos_at(L, ps);
            cy_vec_push(L->a, &out->directive_keys, (void *)key);
            cy_vec_push(L->a, &out->directive_values, (void *)val);
            cy_vec_push(L->a, &out->directive_pos, p);
        }
        j = pe + 1;
    }
}

/* Skips a comment up to (not including) the line break. */
static void comment(Lexer *L) {
    size_t start = L->i;
    while (L->i < L->len && !is_newline(ch(L, L->i)))
        L->i++;
    if (!L->seen_code)
        directive(L, start, L->i);
}

/* ---- indentation ---------------------------------------------------------- */

/* At the start of a line outside brackets: measures the indentation and
 * emits INDENT/DEDENT.  Returns 1 if the line was blank or a comment (then
 * consumed, line break included), 0 if it holds code. */
static int indentation(Lexer *L) {
    int col = 0, alt = 0;
    size_t j = L->i;
    for (;; j++) {
        int c = ch(L, j);
        if (c == ' ')
            col++, alt++;
        else if (c == '\t')
            col = (col / 8 + 1) * 8, alt++;
        else if (c == '\f')
            col = alt = 0;
        else
            break;
    }
    L->i = j;
    int c = ch(L, j);
    if (c < 0)
        return 0;
    if (c == '#' || is_newline(c)) {
        if (c == '#')
            comment(L);
        if (L->i < L->len)
            newline(L);
        return 1;
    }
    CyPos p = pos_at(L, j);
    int top = L->indent[L->nindent - 1], alttop = L->altindent[L->nindent - 1];
    if (col > top) {
        if (alt <= alttop)
            lex_error(L, p, "inconsistent use of tabs and spaces in indentation");
        if (L->nindent > MAX_INDENT)
            lex_error(L, p, "too many levels of indentation");
        L->indent[L->nindent] = col;
        L->altindent[L->nindent] = alt;
        L->nindent++;
        push(L, TK_INDENT, p, j, j);
    } else if (col < top) {
        while (L->nindent > 1 && col < L->indent[L->nindent - 1]) {
            L->nindent--;
            push(L, TK_DEDENT, p, j, j);
        }
        if (col != L->indent[L->nindent - 1])
            lex_error(L, p, "unindent does not match any outer indentation level");
        if (alt != L->altindent[L->nindent - 1])
            lex_error(L, p, "inconsistent use of tabs and spaces in indentation");
    } else if (alt != alttop) {
        lex_error(L, p, "inconsistent use of tabs and spaces in indentation");
    }
    return 0;
}

/* ---- numbers -------------------------------------------------------------- */

static int digit_in(int c, int base) {
    int v = hexval(c);
    return v >= 0 && v < base;
}

/* A run of digits with single underscores between them; returns the count. */
static int digits(Lexer *L, int base, CyPos p, const char *kind) {
    int n = 0;
    for (;;) {
        int c = ch(L, L->i);
        if (c == '_') {
            if (n == 0 || !digit_in(ch(L, L->i + 1), base))
                lex_error(L, p, "invalid %s literal", kind);
            L->i++;
            continue;
        }
        if (!digit_in(c, base))
            return n;
        L->i++;
        n++;
    }
}

/* C suffixes on integers (Cython accepts 10L, 10UL, 10LL, 10ULL). */
static void int_suffix(Lexer *L) {
    int nu = 0, nl = 0;
    for (;;) {
        int c = ch(L, L->i);
        if ((c == 'u' || c == 'U') && !nu)
            nu++;
        else if ((c == 'l' || c == 'L') && nl < 2)
            nl++;
        else
            break;
        L->i++;
    }
}

static void lex_number(Lexer *L) {
    size_t st = L->i;
    CyPos p = pos_at(L, st);
    int c = ch(L, st), c1 = ch(L, st + 1);
    if (c == '0' && c1 > 0 && strchr("xXoObB", c1)) {
        int base = (c1 == 'x' || c1 == 'X') ? 16 : (c1 == 'o' || c1 == 'O') ? 8 : 2;
        const char *kind = base == 16 ? "hexadecimal" : base == 8 ? "octal" : "binary";
        L->i += 2;
        if (ch(L, L->i) == '_')
            L->i++; /* 0x_ff is valid */
        size_t ds = L->i;
        if (!digits(L, base, p, kind))
            lex_error(L, p, "invalid %s literal", kind);
        size_t de = L->i;
        int_suffix(L);
        if (is_alnum(ch(L, L->i)))
            lex_error(L, p, "invalid %s literal", kind);
        uint64_t v = 0;
        int ovf = 0;
        for (size_t j = ds; j < de; j++) {
            int d = hexval(ch(L, j));
            if (d < 0)
                continue; /* '_' */
            if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
                ovf = 1, v = UINT64_MAX;
            else if (!ovf)
                v = v * (uint64_t)base + (uint64_t)d;
        }
        Token *t = push(L, TK_INT, p, st, L->i);
        t->ival = v;
        t->int_overflow = ovf;
        return;
    }

    int is_float = 0, nint = 0;
    if (c != '.')
        nint = digits(L, 10, p, "decimal");
    if (ch(L, L->i) == '.') {
        is_float = 1;
        L->i++;
        digits(L, 10, p, "decimal");
    }
    int e = ch(L, L->i);
    if (e == 'e' || e == 'E') {
        size_t j = L->i + 1;
        if (ch(L, j) == '+' || ch(L, j) == '-')
            j++;
        if (!is_digit(ch(L, j)))
            lex_error(L, p, "invalid decimal literal");
        L->i = j;
        digits(L, 10, p, "decimal");
        is_float = 1;
    }
    int imag = 0;
    size_t numend = L->i;
    if (ch(L, L->i) == 'j' || ch(L, L->i) == 'J') {
        imag = 1;
        L->i++;
    } else if (!is_float) {
        int_suffix(L);
    }
    if (is_alnum(ch(L, L->i)))
        lex_error(L, p, "invalid decimal literal");

    if (is_float || imag) {
        char *buf = cy_alloc(L->a, numend - st + 1), *o = buf;
        for (size_t j = st; j < numend; j++)
            if (L->s[j] != '_')
                *o++ = L->s[j];
        *o = '\0';
        Token *t = push(L, imag ? TK_IMAG : TK_FLOAT, p, st, L->i);
        t->fval = strtod(buf, NULL);
        return;
    }
    uint64_t v = 0;
    int ovf = 0, nonzero = 0;
    for (size_t j = st; j < numend; j++) {
        int d = ch(L, j);
        if (d == '_')
            continue;
        d -= '0';
        if (d)
            nonzero = 1;
        if (v > (UINT64_MAX - (uint64_t)d) / 10)
            ovf = 1, v = UINT64_MAX;
        else if (!ovf)
            v = v * 10 + (uint64_t)d;
    }
    if (c == '0' && nint > 1 && nonzero)
        lex_error(L, p, "leading zeros in decimal integer literals are not permitted; "
                        "use an 0o prefix for octal integers");
    Token *t = push(L, TK_INT, p, st, L->i);
    t->ival = v;
    t->int_overflow = ovf;
}

/* ---- strings -------------------------------------------------------------- */

static int is_str_prefix(const char *s, size_t n) {
    /* c: Cython's char literal c'a' (alone: Cython's lexer combines it with no other) */
    static const char *const ok[] = {"r", "u", "b", "f", "c", "br", "rb", "fr", "rf", NULL};
    if (n == 0 || n > 2)
        return 0;
    for (int k = 0; ok[k]; k++) {
        if (strlen(ok[k]) != n)
            continue;
        size_t j = 0;
        while (j < n && (s[j] | 0x20) == ok[k][j])
            j++;
        if (j == n)
            return 1;
    }
    return 0;
}

/* Decodes the escapes of [cs, ce), which the scan already delimited.  The
 * decoded text is never longer than the source text: the longest expansion,
 * a code point from \xhh or \ooo, takes 2 UTF-8 bytes for >= 4 source bytes. */
static void decode_string(Lexer *L, Token *t, size_t cs, size_t ce, int line0, size_t ls0,
                          int raw, int bytes) {
    char *o = cy_alloc(L->a, ce - cs + 1), *o0 = o;
    int line = line0;
    size_t ls = ls0;
    for (size_t j = cs; j < ce;) {
        int c = ch(L, j);
        CyPos p = {line, (int)(j - ls) + 1, L->file};
        if (c == '\r' || c == '\n') {
            /* universal newlines: the value holds "\n" whatever the file has */
            j += (c == '\r' && ch(L, j + 1) == '\n') ? 2 : 1;
            line++;
            ls = j;
            *o++ = '\n';
            continue;
        }
        if (c >= 0x80 && bytes)
            lex_error(L, p, "bytes can only contain ASCII literal characters");
        if (c != '\\') {
            *o++ = (char)c;
            j++;
            continue;
        }
        int e = ch(L, j + 1);
        if (raw) {
            /* a backslash only keeps the next character from ending the
             * literal; both stay in the value */
            *o++ = '\\';
            j++;
            continue;
        }
        j += 2;
        switch (e) {
        case '\r':
        case '\n':
            if (e == '\r' && ch(L, j) == '\n')
                j++;
            line++;
            ls = j;
            break; /* line continuation inside the literal */
        case '\\': *o++ = '\\'; break;
        case '\'': *o++ = '\''; break;
        case '"': *o++ = '"'; break;
        case 'a': *o++ = '\a'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'v': *o++ = '\v'; break;
        case '0': case '1': case '2': case '3':
        case '4': case '5': case '6': case '7': {
            unsigned v = (unsigned)(e - '0');
            for (int k = 0; k < 2 && j < ce && ch(L, j) >= '0' && ch(L, j) <= '7'; k++)
                v = v * 8 + (unsigned)(ch(L, j++) - '0');
            if (bytes) {
                if (v > 0xFF)
                    lex_error(L, p, "octal escape value out of range in bytes literal");
                *o++ = (char)v;
            } else {
                o += put_utf8(o, v);
            }
            break;
        }
        case 'x': {
            int h1 = j < ce ? hexval(ch(L, j)) : -1, h2 = j + 1 < ce ? hexval(ch(L, j + 1)) : -1;
            if (h1 < 0 || h2 < 0)
                lex_error(L, p, "truncated \\xXX escape");
            unsigned v = (unsigned)(h1 * 16 + h2);
            j += 2;
            if (bytes)
                *o++ = (char)v;
            else
                o += put_utf8(o, v);
            break;
        }
        case 'u':
        case 'U': {
            if (bytes) {
                /* not an escape in bytes: kept as written */
                *o++ = '\\';
                *o++ = (char)e;
                break;
            }
            int n = e == 'u' ? 4 : 8;
            unsigned v = 0;
            for (int k = 0; k < n; k++) {
                int h = j < ce ? hexval(ch(L, j)) : -1;
                if (h < 0)
                    lex_error(L, p, "truncated \\%cXXXX escape", e);
                v = v * 16 + (unsigned)h;
                j++;
            }
            if (v > 0x10FFFF)
                lex_error(L, p, "illegal Unicode character");
            if (v >= 0xD800 && v <= 0xDFFF)
                lex_error(L, p, "surrogate code points are not supported in string literals");
            o += put_utf8(o, v);
            break;
        }
        case 'N':
            if (!bytes)
                lex_error(L, p, "\\N{...} escapes are not supported");
            /* fallthrough */
        default:
            /* unknown escapes keep the backslash, as in Python */
            *o++ = '\\';
            j--;
            break;
        }
    }
    *o = '\0';
    t->sval = o0;
    t->slen = (int)(o - o0);
}

/* L->i is at the opening quote; the prefix (if any) started at st. */
static void lex_string(Lexer *L, size_t st) {
    CyPos p = pos_at(L, st);
    char prefix[4] = {0};
    for (size_t j = st; j < L->i && j - st < 3; j++)
        prefix[j - st] = (char)(L->s[j] | 0x20);
    int raw = strchr(prefix, 'r') != NULL, bytes = strchr(prefix, 'b') != NULL || strchr(prefix, 'c') != NULL;
    int q = ch(L, L->i);
    int triple = ch(L, L->i + 1) == q && ch(L, L->i + 2) == q;
    L->i += triple ? 3 : 1;
    size_t cs = L->i;
    int line0 = L->line;
    size_t ls0 = L->line_start;
    for (;;) {
        int c = ch(L, L->i);
        if (c < 0) {
            if (triple)
                lex_error(L, p, "unterminated triple-quoted string literal (detected at line %d)",
                          L->line);
            lex_error(L, p, "unterminated string literal (detected at line %d)", L->line);
        }
        if (c == '\\') {
            L->i++;
            if (is_newline(ch(L, L->i)))
                newline(L);
            else if (L->i < L->len)
                L->i++;
            continue;
        }
        if (is_newline(c)) {
            if (!triple)
                lex_error(L, p, "unterminated string literal (detected at line %d)", L->line);
            newline(L);
            continue;
        }
        if (c == q && (!triple || (ch(L, L->i + 1) == q && ch(L, L->i + 2) == q)))
            break;
        L->i++;
    }
    size_t ce = L->i;
    L->i += triple ? 3 : 1;
    Token *t = push(L, TK_STR, p, st, L->i);
    /* normalised: "rb" -> "br", "rf" -> "fr" */
    const char *canon = strchr(prefix, 'c') ? "c"
                        : bytes ? (raw ? "br" : "b")
                        : strchr(prefix, 'f') ? (raw ? "fr" : "f")
                        : raw ? "r" : strchr(prefix, 'u') ? "u" : "";
    memcpy(t->str_prefix, canon, strlen(canon) + 1);
    t->triple = triple;
    decode_string(L, t, cs, ce, line0, ls0, raw, bytes);
}

/* ---- punctuation and brackets --------------------------------------------- */

static void lex_punct(Lexer *L) {
    size_t st = L->i;
    CyPos p = pos_at(L, st);
    const char *m = NULL;
    size_t n = 0;
    for (int k = 0; puncts[k]; k++) {
        if (puncts[k][0] != L->s[st]) /* st < len here: a character was seen */
            continue;
        n = strlen(puncts[k]);
        if (st + n <= L->len && memcmp(L->s + st, puncts[k], n) == 0) {
            m = puncts[k];
            break;
        }
    }
    if (!m) {
        int c = ch(L, st);
        if (c >= 0x80) {
            unsigned cp = 0;
            int len = utf8_seq(L, st, &cp);
            lex_error(L, p, "invalid character '%.*s' (U+%04X)", len ? len : 1, L->s + st, cp);
        }
        if (c >= 0x20 && c < 0x7F)
            lex_error(L, p, "invalid character '%c' (U+%04X)", c, (unsigned)c);
        lex_error(L, p, "invalid non-printable character U+%04X", (unsigned)c);
    }
    L->i += n;
    char c = m[0];
    if (n == 1 && (c == ')' || c == ']' || c == '}')) {
        if (!L->nbrackets)
            lex_error(L, p, "unmatched '%c'", c);
        const Token *o = &L->out->toks[L->brackets[L->nbrackets - 1]];
        char want = o->text[0] == '(' ? ')' : o->text[0] == '[' ? ']' : '}';
        if (c != want) {
            if (o->pos.line != p.line)
                lex_error(L, p, "closing parenthesis '%c' does not match opening parenthesis '%c' on line %d",
                          c, o->text[0], o->pos.line);
            lex_error(L, p, "closing parenthesis '%c' does not match opening parenthesis '%c'", c,
                      o->text[0]);
        }
        push(L, TK_PUNCT, p, st, L->i);
        L->nbrackets--;
        return;
    }
    push(L, TK_PUNCT, p, st, L->i);
    if (n == 1 && (c == '(' || c == '[' || c == '{')) {
        if (L->nbrackets == MAX_BRACKETS)
            lex_error(L, p, "too many nested parentheses");
        L->brackets[L->nbrackets++] = L->out->n - 1;
    }
}

/* ---- main loop ------------------------------------------------------------ */

static int is_keyword(const char *s, size_t n) {
    for (int k = 0; keywords[k]; k++)
        if (keywords[k][0] == s[0] && strlen(keywords[k]) == n && memcmp(keywords[k], s, n) == 0)
            return 1;
    return 0;
}

/* kept out of line: locals of an inlined body would be live across setjmp */
__attribute__((noinline)) static void lex_all(Lexer *L) {
    if (L->len > MAX_SOURCE) {
        CyPos p = {0, 0, L->file};
        lex_error(L, p, "source file too large");
    }
    check_encoding(L);
    if (L->len >= 3 && memcmp(L->s, "\xEF\xBB\xBF", 3) == 0)
        L->i = L->line_start = 3;
    int bol = 1;
    for (;;) {
        if (bol) {
            bol = 0;
            if (L->nbrackets == 0 && indentation(L)) {
                bol = 1;
                continue;
            }
        }
        while (ch(L, L->i) == ' ' || ch(L, L->i) == '\t' || ch(L, L->i) == '\f')
            L->i++;
        size_t st = L->i;
        int c = ch(L, st);
        if (c < 0)
            break;
        if (c == '#') {
            comment(L);
            continue;
        }
        if (is_newline(c)) {
            if (L->nbrackets == 0) {
                if (L->logical_tokens)
                    push(L, TK_NEWLINE, pos_at(L, st), st, st);
                L->logical_tokens = 0;
                bol = 1;
            }
            newline(L);
            continue;
        }
        if (c == '\\') {
            int c1 = ch(L, st + 1);
            if (is_newline(c1)) {
                L->i++;
                newline(L);
                continue;
            }
            if (c1 < 0)
                lex_error(L, pos_at(L, st), "unexpected EOF while parsing");
            lex_error(L, pos_at(L, st), "unexpected character after line continuation character");
        }
        if (is_alpha(c)) {
            while (is_alnum(ch(L, L->i)))
                L->i++;
            int q = ch(L, L->i);
            if ((q == '"' || q == '\'') && is_str_prefix(L->s + st, L->i - st)) {
                lex_string(L, st);
                continue;
            }
            push(L, is_keyword(L->s + st, L->i - st) ? TK_KW : TK_NAME, pos_at(L, st), st, L->i);
            continue;
        }
        if (is_digit(c) || (c == '.' && is_digit(ch(L, st + 1)))) {
            lex_number(L);
            continue;
        }
        if (c == '"' || c == '\'') {
            lex_string(L, st);
            continue;
        }
        lex_punct(L);
    }
    CyPos p = pos_at(L, L->i);
    if (L->nbrackets) {
        const Token *o = &L->out->toks[L->brackets[L->nbrackets - 1]];
        lex_error(L, o->pos, "'%c' was never closed", o->text[0]);
    }
    if (L->logical_tokens)
        push(L, TK_NEWLINE, p, L->i, L->i);
    while (L->nindent > 1) {
        L->nindent--;
        push(L, TK_DEDENT, p, L->i, L->i);
    }
    push(L, TK_EOF, p, L->i, L->i);
}

int cy_lex(CyArena *a, CyDiag *d, const CySource *src, TokenList *out) {
    memset(out, 0, sizeof *out);
    Lexer *L = cy_alloc(a, sizeof *L);
    L->a = a;
    L->d = d;
    L->s = src->text ? src->text : "";
    L->len = src->text ? src->len : 0;
    L->line = 1;
    L->file = src->id;
    L->out = out;
    L->nindent = 1;
    if (setjmp(L->jb))
        return -1;
    lex_all(L);
    return 0;
}
