/* libm.c: libc.math's functions — the one table sema types their calls
 * with, the OpenCL eligibility check accepts and the OpenCL backend maps to
 * its built-ins (OpenCL C has each, overloaded, under the same name). */
#include "ir.h"
#include <string.h>

const CyLibm cy_libm_table[] = {
    {"sqrt", 1, TY_DOUBLE, TY_DOUBLE}, {"exp", 1, TY_DOUBLE, TY_DOUBLE}, {"exp2", 1, TY_DOUBLE, TY_DOUBLE},
    {"expm1", 1, TY_DOUBLE, TY_DOUBLE}, {"log", 1, TY_DOUBLE, TY_DOUBLE}, {"log2", 1, TY_DOUBLE, TY_DOUBLE},
    {"log10", 1, TY_DOUBLE, TY_DOUBLE}, {"log1p", 1, TY_DOUBLE, TY_DOUBLE}, {"sin", 1, TY_DOUBLE, TY_DOUBLE},
    {"cos", 1, TY_DOUBLE, TY_DOUBLE}, {"tan", 1, TY_DOUBLE, TY_DOUBLE}, {"asin", 1, TY_DOUBLE, TY_DOUBLE},
    {"acos", 1, TY_DOUBLE, TY_DOUBLE}, {"atan", 1, TY_DOUBLE, TY_DOUBLE}, {"sinh", 1, TY_DOUBLE, TY_DOUBLE},
    {"cosh", 1, TY_DOUBLE, TY_DOUBLE}, {"tanh", 1, TY_DOUBLE, TY_DOUBLE}, {"asinh", 1, TY_DOUBLE, TY_DOUBLE},
    {"acosh", 1, TY_DOUBLE, TY_DOUBLE}, {"atanh", 1, TY_DOUBLE, TY_DOUBLE}, {"fabs", 1, TY_DOUBLE, TY_DOUBLE},
    {"floor", 1, TY_DOUBLE, TY_DOUBLE}, {"ceil", 1, TY_DOUBLE, TY_DOUBLE}, {"round", 1, TY_DOUBLE, TY_DOUBLE},
    {"trunc", 1, TY_DOUBLE, TY_DOUBLE}, {"rint", 1, TY_DOUBLE, TY_DOUBLE}, {"cbrt", 1, TY_DOUBLE, TY_DOUBLE},
    {"erf", 1, TY_DOUBLE, TY_DOUBLE}, {"erfc", 1, TY_DOUBLE, TY_DOUBLE}, {"tgamma", 1, TY_DOUBLE, TY_DOUBLE},
    {"lgamma", 1, TY_DOUBLE, TY_DOUBLE}, {"pow", 2, TY_DOUBLE, TY_DOUBLE}, {"atan2", 2, TY_DOUBLE, TY_DOUBLE},
    {"fmod", 2, TY_DOUBLE, TY_DOUBLE}, {"hypot", 2, TY_DOUBLE, TY_DOUBLE}, {"fmin", 2, TY_DOUBLE, TY_DOUBLE},
    {"fmax", 2, TY_DOUBLE, TY_DOUBLE}, {"copysign", 2, TY_DOUBLE, TY_DOUBLE}, {"fdim", 2, TY_DOUBLE, TY_DOUBLE},
    {"remainder", 2, TY_DOUBLE, TY_DOUBLE}, {"fma", 3, TY_DOUBLE, TY_DOUBLE},
    /* as Cython's libc/math.pxd declares them: isinf an int (-1 for -inf,
       glibc's __builtin_isinf_sign), the others bint (True as objects) */
    {"isnan", 1, TY_BINT, TY_DOUBLE}, {"isinf", 1, TY_INT, TY_DOUBLE}, {"isfinite", 1, TY_BINT, TY_DOUBLE},
    {"signbit", 1, TY_BINT, TY_DOUBLE}, {"lround", 1, TY_LONG, TY_DOUBLE}, {"lrint", 1, TY_LONG, TY_DOUBLE},
    {NULL, 0, TY_VOID, TY_VOID},
};

const CyLibm *cy_libm(const char *name, int *is_float) {
    *is_float = 0;
    for (int i = 0; cy_libm_table[i].name; i++)
        if (!strcmp(cy_libm_table[i].name, name)) return &cy_libm_table[i];
    /* the float variants sqrtf, expf, ... of the functions of a double */
    size_t l = strlen(name);
    if (l > 1 && name[l - 1] == 'f')
        for (int i = 0; cy_libm_table[i].name; i++)
            if (cy_libm_table[i].ret == TY_DOUBLE && strlen(cy_libm_table[i].name) == l - 1 && !strncmp(cy_libm_table[i].name, name, l - 1)) {
                *is_float = 1;
                return &cy_libm_table[i];
            }
    return NULL;
}
