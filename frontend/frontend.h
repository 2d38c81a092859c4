/* frontend.h: the Cython-subset frontend — tokens, AST, and the three
 * phases lex -> parse -> sema (sema lowers the AST to the IR, ir/ir.h).
 *
 * The AST is syntax only: names are unresolved and nothing is typed.  Every
 * node carries the position of its first character, which is where a
 * diagnostic about it points. */
#ifndef CY_FRONTEND_H
#define CY_FRONTEND_H

#include "../ir/base.h"
#include <stdint.h>

/* ---- tokens ---------------------------------------------------------- */

typedef enum {
    TK_NAME,    /* identifier (keywords are TK_KW) */
    TK_KW,      /* Python/Cython keyword: def cdef cpdef if for ... (see lex.c) */
    TK_INT,     /* integer literal; ival; suffixes like 'L'/'U' accepted */
    TK_FLOAT,   /* float literal; fval */
    TK_IMAG,    /* imaginary literal 2j; fval */
    TK_STR,     /* string literal; adjacent literals are NOT joined here */
    TK_PUNCT,   /* operator or delimiter, text holds it: "+", "**=", "->", ... */
    TK_NEWLINE, /* end of a logical line */
    TK_INDENT,
    TK_DEDENT,
    TK_EOF,
} TokKind;

typedef struct Token {
    TokKind kind;
    CyPos pos;
    const char *text; /* NUL-terminated copy of the token's source text */
    int len;
    uint64_t ival;    /* TK_INT (saturates; overflow flagged below) */
    int int_overflow;
    double fval;      /* TK_FLOAT, TK_IMAG */
    /* TK_STR: decoded value (escapes processed unless raw), may hold NULs */
    const char *sval;
    int slen;
    char str_prefix[4]; /* lower-cased prefix letters: "", "b", "r", "br", "f", "u", "c" */
    int triple;         /* triple-quoted */
    /* index of the innermost unclosed bracket token around this one, or -1:
     * lets the parser say "'(' was never closed" at the bracket */
    int open_bracket;
} Token;

typedef struct {
    Token *toks;
    int n;
    /* "# cython: boundscheck=False, wraparound=False" comments at the top of
     * the file (before any code), as raw "key=value" pieces with positions */
    CyVec directive_keys;   /* const char* */
    CyVec directive_values; /* const char* */
    CyVec directive_pos;    /* CyPos* */
} TokenList;

/* Returns 0 on success; on a lexical error reports it to d and returns -1.
 * Python's indentation rules: tabs to multiples of 8, "unindent does not
 * match any outer indentation level", "unexpected indent"; newlines inside
 * brackets and after a backslash are joined. */
int cy_lex(CyArena *a, CyDiag *d, const CySource *src, TokenList *out);

/* ---- AST -------------------------------------------------------------- */

/* Type syntax: "double", "unsigned long long", "const float[:, ::1]",
 * "double complex", "Py_ssize_t", "np.float64_t", "double *", "object". */
typedef struct ATypeSyn {
    CyPos pos;
    const char *name;   /* canonical words joined by one space: "unsigned char",
                           "long long", "double complex", or a (dotted) typedef
                           name "np.float64_t" */
    int is_const;
    int ptr;            /* number of '*' */
    int ndim;           /* > 0: a typed memoryview */
    char axes[8];       /* per axis: 0 = ':' (strided), 1 = '::1' (contiguous) */
    CyPos axes_pos[8];
    int narr;           /* > 0: a C array "double[3]" / "int[2][3]" (also "double v[3]"):
                           dimension expressions, outermost first */
    struct ANode *arr[8];
    /* buffer syntax on an ndarray: "np.ndarray[DTYPE_t, ndim=2, mode='c']"
       (name is the ndarray's; buf_dtype NULL: no buffer) */
    struct ATypeSyn *buf_dtype;
    int buf_ndim;             /* default 1 */
    const char *buf_mode;     /* "c", "fortran", "strided", "full"; NULL: default (strided) */
    CyPos buf_pos;            /* of the '[' */
    /* a pointer to a C function, "ctypedef double (*f_t)(double, int) nogil":
       fn_ret its result type, fn_args the argument types (ATypeSyn*) */
    struct ATypeSyn *fn_ret;
    CyVec fn_args;
    CyVec tuple_items;  /* a ctuple "(double, int)": its item types (ATypeSyn*); name is the spelling */
} ATypeSyn;

typedef enum {
    /* expressions */
    A_NAME, A_INT, A_FLOAT, A_IMAG, A_STR, A_NONE, A_TRUE, A_FALSE,
    A_ATTR,      /* obj.name */
    A_CALL,      /* fn(args, kw=value) */
    A_INDEX,     /* obj[i, j:k, ...]: items are exprs or A_SLICE */
    A_SLICE,     /* lo:hi:step inside A_INDEX; each part may be NULL */
    A_BINOP,     /* op: "+", "-", "*", "/", "//", "%", "**", "@", "<<", ">>", "&", "|", "^" */
    A_UNOP,      /* op: "-", "+", "~" */
    A_NOT,
    A_AND, A_OR, /* lhs, rhs */
    A_COMPARE,   /* chain: operands[0] ops[0] operands[1] ops[1] ...;
                    ops: "<" "<=" ">" ">=" "==" "!=" "in" "not in" "is" "is not" */
    A_COND,      /* then if cond else other */
    A_TUPLE, A_LIST, A_DICT, /* items (DICT: keys in items, values in values) */
    A_SET,       /* {a, b}: items */
    A_CAST,      /* <type>expr or <type?>expr */
    A_SIZEOF,    /* sizeof(type) or sizeof(expr); sizeof(name) and sizeof(a.b) come as
                    expr (obj), as the parser cannot tell a typedef from a variable */
    A_ADDR,      /* &expr */
    A_DEREF,     /* a Cython spelling not in Python: kept for pointer work (p[0] is A_INDEX) */
    A_COMP,      /* comprehension / generator expression: op "list", "set", "dict", "generator";
                    then = element (dict: key), other = dict value; items = clauses in order:
                    S_FOR (lhs target, obj iterable) or S_IF (cond) */
    A_IR,        /* made by sema only: an expression already lowered (ir) */
    A_ELLIPSIS,  /* `...`: in a memoryview's index, the axes not given (sema expands it); else Python's
                    Ellipsis */
    A_LAMBDA,    /* lambda params: body -- func (FN_DEF named as Cython names it, "lambda", "lambda1"
                    ... in source order; body [S_RETURN expr]) */
    A_WALRUS,    /* (lhs := rhs): lhs an A_NAME; binds in the enclosing function (or module), also from
                    inside a comprehension, as PEP 572 says */
    A_STARRED,   /* f(*obj): a positional argument unpacked (only in a call's items); f(**m) is
                    the keyword name "**" with value m */

    /* statements */
    S_EXPR,      /* the expression in value */
    S_ASSIGN,    /* targets (a = b = value: targets = [a, b]) */
    S_AUGASSIGN, /* target op= value; op without '=' */
    S_CDEF,      /* cdef TYPE name [= init], name2 [= init] ...  (local or module);
                    '*' binds to each name as in C: "cdef double *p, q" gives two nodes */
    S_IF,        /* cond, body, orelse (elif = S_IF alone in orelse) */
    S_FOR,       /* target in iter: body, orelse */
    S_WHILE,     /* cond: body, orelse */
    S_BREAK, S_CONTINUE, S_PASS,
    S_RETURN,    /* value may be NULL */
    S_RAISE,     /* value may be NULL (re-raise); rhs: the cause of 'raise value from rhs' */
    S_ASSERT,    /* cond, msg */
    S_WITH,      /* items: with nogil, gil, parallel(...), cython.boundscheck(False) ...; body */
    S_IMPORT,    /* import a.b.c [as x]: module, alias in aliases.items[0] (and name);
                    one node per module of "import a, b"; name_pos[0] = module's pos */
    S_FROMIMPORT,/* from module import/cimport names [as aliases]; is_cimport */
    S_CIMPORT,   /* cimport a.b [as x]: as S_IMPORT */
    S_FUNC,      /* def / cdef / cpdef function */
    S_EXTERN,    /* cdef extern from "header.h" / from *: verbatim + declarations */
    S_CTYPEDEF,  /* ctypedef TYPE name: type, name, name_pos[0] */
    S_DEF,       /* DEF NAME = value (a compile-time constant): name, value */
    S_FUSED,     /* ctypedef fused name: one type per line in fused_types; name, name_pos[0] */
    S_TRY,       /* try: body; handlers (S_EXCEPT); tryelse (else:); orelse (finally:, so that
                    walkers of body and orelse see it) */
    S_EXCEPT,    /* except [value [as name]]: body (value NULL: a bare except); name_pos[0]: the name's */
    S_ENUM,      /* cdef/cpdef/ctypedef enum [name]: enumerators in names/name_pos, values (ANode*
                    or NULL) in inits; is_typedef, is_cpdef */
    S_STRUCT,    /* cdef/ctypedef [packed] struct name: fields as S_CDEF nodes in body;
                    name_pos[0] the name's; is_typedef, is_packed */
    S_CDEF_CLASS,/* cdef class name[(base)]: body of S_CDEF attributes (is_public 1 public,
                    2 readonly), S_FUNC methods, docstrings and pass; value the base or NULL */
    S_CLASS,     /* parsed only to be rejected by sema: name (or NULL), what = plural
                    ("class definitions", "cdef classes": "%s are not supported") */
    S_GLOBAL,    /* global a, b */
    S_NONLOCAL,  /* nonlocal a, b (names, name_pos): sema rewrites the variables as cells */
    S_DEL,       /* targets */
    S_COMP_NEXT, /* made by sema only: the rest of a comprehension's clauses, from ival on */
    S_UNSUPPORTED, /* a construct the parser recognised but cyocl rejects; what says which,
                      as "%s is not supported" ("a struct definition", "'include'") */
} ANodeKind;

typedef enum { FN_DEF, FN_CDEF, FN_CPDEF } FuncKind;

typedef struct AParam {
    CyPos pos;              /* of the name (type->pos is the type's) */
    const char *name;
    ATypeSyn *type;         /* NULL: untyped (a Python object in def) */
    struct ANode *deflt;    /* default value or NULL */
    int not_none;           /* "double[:] a not None" */
    int or_none;
    int kwonly;             /* after a bare '*': passed by keyword only */
    int star;               /* def f(*args) 1, (**kwargs) 2: the tuple / dict of the rest */
} AParam;

typedef struct AFunc {
    FuncKind kind;
    const char *name;
    const char *cname;      /* extern: the C name of `double c_sqrt "sqrt"(double)`, else NULL */
    CyPos pos;              /* of the name */
    CyVec params;           /* AParam* */
    ATypeSyn *ret;          /* cdef/cpdef return type; NULL = object */
    int is_inline, is_nogil, is_noexcept, with_gil;
    /* except clause: except VALUE / except? VALUE / except * / except + */
    int has_except;         /* 0 none, 1 'except VALUE', 2 'except? VALUE', 3 'except *' */
    struct ANode *except_value;
    CyVec decorators;       /* ANode* expressions after '@' */
    CyVec body;             /* ANode* statements */
    const char *docstring;  /* or NULL */
    CyPos star_pos;         /* the first '*' of *args / **kwargs (AParam.star), if any */
    int decl_only;          /* `cdef double f(double x)` without a body: a forward declaration (a .pxd's,
                               or one in the .pyx) of a function defined elsewhere */
    const char *pxd_module; /* declared in a .pxd: the module it belongs to (the .pxd's name) */
    int cells_done;         /* sema: its nested defs' nonlocal variables were made cells */
} AFunc;

typedef struct AWithItem {
    CyPos pos;
    struct ANode *expr;     /* A_NAME "nogil"/"gil" or A_CALL parallel(...) / cython.xxx(...) */
} AWithItem;

typedef struct ANode {
    ANodeKind kind;
    CyPos pos;
    /* expressions */
    const char *name;       /* A_NAME, A_ATTR (attribute), S_CDEF name list in names */
    const char *op;         /* A_BINOP, A_UNOP, S_AUGASSIGN; A_INT: its C suffix ("UL") or NULL */
    uint64_t ival;          /* A_INT */
    int int_overflow;
    const char *int_text;   /* A_INT: source text without a C suffix (big Python ints go through PyLong_FromString) */
    double fval;            /* A_FLOAT, A_IMAG */
    const char *sval;       /* A_STR (adjacent literals joined); is_bytes if b"" */
    int slen, is_bytes, is_fstring;
    int is_char;            /* A_INT: Cython's char literal c'a', of type char */
    struct ANode *lhs, *rhs;/* A_BINOP, A_AND, A_OR, S_AUGASSIGN (target, value) */
    struct ANode *obj;      /* A_ATTR, A_INDEX, A_CALL (callee), A_UNOP/A_NOT/A_ADDR/A_CAST operand */
    struct ANode *cond, *then, *other; /* A_COND; A_SLICE uses then=lo other=hi cond=step */
    CyVec items;            /* A_INDEX indices, A_CALL positional args, A_TUPLE/A_LIST, A_DICT keys, A_COMPARE operands */
    CyVec values;           /* A_DICT values, A_CALL keyword values */
    CyVec kwnames;          /* A_CALL keyword names (const char*), A_COMPARE ops (const char*) */
    CyVec kwpos;            /* A_CALL keyword positions (CyPos*) */
    ATypeSyn *type;         /* A_CAST, A_SIZEOF (NULL if sizeof(expr): then obj) */
    int checked_cast;       /* <type?> */
    int synthetic;          /* A_CALL made by sema (array expressions): 1 prange, 2 range, whatever
                               the names prange/range mean in the file */
    int parenthesized;      /* (expr): a tuple needs a trailing comma, not parens */
    int height;             /* expression subtree height (a leaf: 1); 0 until the parser measured it */

    /* statements */
    CyVec targets;          /* S_ASSIGN targets; S_FOR target in targets[0] */
    int for_from;           /* S_FOR `for i from a <= i < b by s`: cond the comparison chain,
                               other the step or NULL; value a synthetic range(a, b) */
    struct ANode *value;    /* S_ASSIGN/S_AUGASSIGN/S_RETURN/S_RAISE value, S_ASSERT msg, S_FOR iter */
    CyVec body, orelse;     /* ANode* statements */
    CyVec handlers, tryelse; /* S_TRY */
    CyVec names;            /* S_CDEF names, S_FROMIMPORT names, S_GLOBAL, S_CTYPEDEF new name in name */
    CyVec inits;            /* S_CDEF initialisers (ANode* or NULL), parallel to names */
    CyVec name_pos;         /* S_CDEF / S_FROMIMPORT positions (CyPos*) */
    CyVec cnames;           /* S_CDEF in an extern block: the C names (`double X "C_X"`; const char* or
                               NULL), parallel to names */
    CyVec aliases;          /* S_FROMIMPORT / S_IMPORT aliases (const char* or NULL) */
    const char *module;     /* S_IMPORT, S_FROMIMPORT, S_CIMPORT dotted module */
    int is_cimport;
    int user_pxd;           /* S_FROMIMPORT / S_CIMPORT of MODULE.pxd beside the source: its declarations
                               were spliced into the module before this node, except those of what the
                               other module's .pyx defines (decl-only functions, cdef classes and
                               variables), which are in decls, as cyocl cannot link to them */
    int star;               /* S_FROMIMPORT: from m import * / cimport * (name_pos[0]: the '*') */
    int is_public;          /* S_CDEF: 1 'cdef public', 2 'cdef readonly' (ignored at module level) */
    int is_typedef, is_cpdef, is_packed; /* S_ENUM, S_STRUCT */
    CyVec with_items;       /* S_WITH: AWithItem* */
    AFunc *func;            /* S_FUNC */
    /* S_EXTERN */
    const char *header;     /* NULL for 'from *' */
    const char *verbatim;   /* the docstring block of 'cdef extern from *' or NULL */
    CyVec decls;            /* S_EXTERN: ANode* (S_FUNC with kind FN_CDEF and no body, S_CDEF, S_CTYPEDEF);
                               S_FROMIMPORT / S_CIMPORT with user_pxd: see there */
    CyVec fused_types;      /* S_FUSED: ATypeSyn* in declared order */
    const char *what;       /* S_UNSUPPORTED/S_CLASS: "class definitions", "lambda", ... */
    struct IrExpr *ir;      /* A_IR */
} ANode;

typedef struct {
    const CySource *src;
    CyVec stmts;            /* ANode* module-level statements */
    /* file-level directives, from '# cython:' comments (as lexed) */
    CyVec directive_keys, directive_values, directive_pos;
} AModule;

/* Parses tokens into a module.  `include "file.pxi"` is read (beside the
 * including file) and its statements stand in its place; `cimport M` /
 * `from M cimport ...` of an M.pxd beside the main source, and the main
 * source's own MODNAME.pxd, have their declarations spliced in (see
 * ANode.user_pxd).  The files read are added to d->files.  Returns NULL
 * after reporting a syntax error (the first one; the parser does not
 * recover).  Unsupported Python
 * (class, lambda, generators/yield, try, async, ...) becomes S_UNSUPPORTED /
 * S_CLASS nodes, or is reported directly as "... is not supported". */
AModule *cy_parse(CyArena *a, CyDiag *d, const TokenList *toks);

/* Convenience: source text -> AST (lex + parse). */
AModule *cy_parse_source(CyArena *a, CyDiag *d, const CySource *src);

struct IrModule;
/* Checks names, types and the Cython rules (prange, nogil, reductions, ...)
 * and lowers the module to the typed IR.  Returns NULL if any error was
 * reported (several may be, where recovery is sound). */
struct IrModule *cy_sema(CyArena *a, CyDiag *d, AModule *m);

#endif
