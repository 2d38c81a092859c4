/* ops.c: the operator enum's spellings.  Sema turns the parser's spellings
 * into IrOp here, once; everything after it compares enum values. */
#include "ir.h"
#include <string.h>

static const char *const names[OP_COUNT_] = {
    [OP_NONE] = "",      [OP_ADD] = "+",     [OP_SUB] = "-",       [OP_MUL] = "*",     [OP_DIV] = "/",
    [OP_FLOORDIV] = "//", [OP_MOD] = "%",    [OP_POW] = "**",      [OP_MATMUL] = "@",  [OP_SHL] = "<<",
    [OP_SHR] = ">>",     [OP_BITAND] = "&",  [OP_BITOR] = "|",     [OP_BITXOR] = "^",  [OP_NEG] = "-",
    [OP_POS] = "+",      [OP_INVERT] = "~",  [OP_LT] = "<",        [OP_LE] = "<=",     [OP_GT] = ">",
    [OP_GE] = ">=",      [OP_EQ] = "==",     [OP_NE] = "!=",       [OP_IN] = "in",     [OP_NOT_IN] = "not in",
    [OP_IS] = "is",      [OP_IS_NOT] = "is not", [OP_MIN] = "min",  [OP_MAX] = "max",
};

const char *cy_op_name(IrOp op) { return (unsigned)op < OP_COUNT_ && names[op] ? names[op] : "?"; }

static int unary(IrOp op) { return op == OP_NEG || op == OP_POS || op == OP_INVERT; }

IrOp cy_op_binary(const char *spelling) {
    for (int i = OP_NONE + 1; i < OP_COUNT_; i++)
        if (!unary((IrOp)i) && !strcmp(names[i], spelling)) return (IrOp)i;
    return OP_NONE;
}

IrOp cy_op_unary(const char *spelling) {
    for (int i = OP_NONE + 1; i < OP_COUNT_; i++)
        if (unary((IrOp)i) && !strcmp(names[i], spelling)) return (IrOp)i;
    return OP_NONE;
}

int cy_op_is_cmp(IrOp op) { return op >= OP_LT && op <= OP_NE; }
