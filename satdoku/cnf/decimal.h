/* The decimal text of a number, shared by the compiled modules that write DIMACS literals
 * (cnf/_dimacs.c: formulas and models; pipeline/_batch.c: SatOutput's v lines and the TSV's
 * search counts). */
#ifndef SATDOKU_DECIMAL_H
#define SATDOKU_DECIMAL_H

#include <stddef.h>

/* the decimal digits of v at p (a '-' first when negative); the characters written (at most
 * 20, no terminator) */
static inline size_t decimal_text(char *p, long long v) {
    char digits[24];
    size_t k = 0, at = 0;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do {
        digits[k++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) p[at++] = '-';
    while (k) p[at++] = digits[--k];
    return at;
}

#endif
