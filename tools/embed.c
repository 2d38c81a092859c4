/* embed.c: build-time tool that turns a text file into a C array
 * definition, so the compiler carries its prelude without reading files at
 * run time.
 *
 *   embed INPUT OUTPUT SYMBOL   ->   const char SYMBOL[] = "..." "...";
 *
 * One string literal per source line keeps every literal short (compilers
 * have limits on a single literal, not on a concatenation).  Every '?' is
 * escaped so no trigraph can form, and bytes outside printable ASCII become
 * three-digit octal escapes, which cannot swallow a following digit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int put_escaped(FILE *out, int c) {
    switch (c) {
    case '\\': return fputs("\\\\", out);
    case '"': return fputs("\\\"", out);
    case '?': return fputs("\\?", out);
    case '\t': return fputs("\\t", out);
    case '\n': return fputs("\\n", out);
    case '\r': return fputs("\\r", out);
    default:
        if (c >= 0x20 && c < 0x7f)
            return fputc(c, out);
        return fprintf(out, "\\%03o", (unsigned)c & 0xffu);
    }
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: embed INPUT OUTPUT SYMBOL\n");
        return 2;
    }
    FILE *in = fopen(argv[1], "rb");
    if (!in) {
        perror(argv[1]);
        return 1;
    }
    /* write beside the target and rename: a failed run leaves no half file
     * that the build would take as up to date */
    size_t n = strlen(argv[2]);
    char *tmp = malloc(n + 5);
    if (!tmp)
        return 1;
    memcpy(tmp, argv[2], n);
    memcpy(tmp + n, ".tmp", 5);
    FILE *out = fopen(tmp, "wb");
    if (!out) {
        perror(tmp);
        return 1;
    }
    fprintf(out, "/* generated from %s by tools/embed.c: do not edit */\n", argv[1]);
    fprintf(out, "#include <stddef.h>\n\n");
    fprintf(out, "extern const char %s[];\nextern const size_t %s_len;\n\n", argv[3], argv[3]);
    fprintf(out, "const char %s[] =\n", argv[3]);
    int c, at_line_start = 1, nlines = 0;
    while ((c = fgetc(in)) != EOF) {
        if (at_line_start) {
            fputs("    \"", out);
            at_line_start = 0;
        }
        put_escaped(out, c);
        if (c == '\n') {
            fputs("\"\n", out);
            at_line_start = 1;
            nlines++;
        }
    }
    if (!at_line_start) {
        fputs("\"\n", out);
        nlines++;
    }
    if (nlines == 0)
        fputs("    \"\"\n", out);
    fprintf(out, "    ;\nconst size_t %s_len = sizeof(%s) - 1;\n", argv[3], argv[3]);
    int bad = ferror(in) || ferror(out);
    fclose(in);
    if (fclose(out) != 0 || bad) {
        fprintf(stderr, "embed: error writing %s\n", tmp);
        remove(tmp);
        return 1;
    }
    if (rename(tmp, argv[2]) != 0) {
        perror(argv[2]);
        remove(tmp);
        return 1;
    }
    free(tmp);
    return 0;
}
