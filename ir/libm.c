/* libm.c: libc.math's functions — the one table sema types their calls
 * with, the OpenCL eligibility check accepts and the OpenCL backend maps to
 * its built-ins (the same name, overloaded, but for the few tg_libm maps). */
#include "ir.h"
#include <string.h>

/* a function of doubles: its double arguments, its double result */
#define D1(n) {#n, 1, TY_DOUBLE, TY_DOUBLE, TY_VOID, 0}
#define D2(n) {#n, 2, TY_DOUBLE, TY_DOUBLE, TY_VOID, 0}

const CyLibm cy_libm_table[] = {
    D1(sqrt), D1(exp), D1(exp2), D1(expm1), D1(log), D1(log2), D1(log10), D1(log1p),
    D1(sin), D1(cos), D1(tan), D1(asin), D1(acos), D1(atan), D1(sinh), D1(cosh),
    D1(tanh), D1(asinh), D1(acosh), D1(atanh), D1(fabs), D1(floor), D1(ceil), D1(round),
    D1(trunc), D1(rint), D1(cbrt), D1(erf), D1(erfc), D1(tgamma), D1(lgamma), D1(nearbyint),
    D1(logb),
    D2(pow), D2(atan2), D2(fmod), D2(hypot), D2(fmin), D2(fmax), D2(copysign), D2(fdim),
    D2(remainder), D2(nextafter),
    {"fma", 3, TY_DOUBLE, TY_DOUBLE, TY_VOID, 0}, {"ilogb", 1, TY_INT, TY_DOUBLE, TY_VOID, 0},
    {"ldexp", 2, TY_DOUBLE, TY_DOUBLE, TY_INT, 0}, {"scalbn", 2, TY_DOUBLE, TY_DOUBLE, TY_INT, 0},
    {"lround", 1, TY_LONG, TY_DOUBLE, TY_VOID, 0}, {"lrint", 1, TY_LONG, TY_DOUBLE, TY_VOID, 0},
    /* as Cython's libc/math.pxd declares them: isinf an int (-1 for -inf,
       glibc's __builtin_isinf_sign), the others bint (True as objects);
       C's type-generic macros, without float variants */
    {"isnan", 1, TY_BINT, TY_DOUBLE, TY_VOID, 1}, {"isinf", 1, TY_INT, TY_DOUBLE, TY_VOID, 1},
    {"isfinite", 1, TY_BINT, TY_DOUBLE, TY_VOID, 1}, {"signbit", 1, TY_BINT, TY_DOUBLE, TY_VOID, 1},
    {NULL, 0, TY_VOID, TY_VOID, TY_VOID, 0},
};
#undef D1
#undef D2

const CyLibm *cy_libm(const char *name, int *is_float) {
    *is_float = 0;
    for (int i = 0; cy_libm_table[i].name; i++)
        if (!strcmp(cy_libm_table[i].name, name)) return &cy_libm_table[i];
    /* the float variants sqrtf, expf, ilogbf, lroundf ... of the functions
       of a double (math.pxd declares each; the macros have none) */
    size_t l = strlen(name);
    if (l > 1 && name[l - 1] == 'f')
        for (int i = 0; cy_libm_table[i].name; i++)
            if (!cy_libm_table[i].generic && strlen(cy_libm_table[i].name) == l - 1 && !strncmp(cy_libm_table[i].name, name, l - 1)) {
                *is_float = 1;
                return &cy_libm_table[i];
            }
    return NULL;
}
