/* The one grammar of numbers that foxopt reads from people (config values, --set, search-space
 * bounds, constraints, command-line options, CSV fields): decimal only. strtod alone would also
 * take hexadecimal (0x10, 0x1p-10), "inf", "nan" and leading blanks, which one place refused
 * and the next accepted. */
#ifndef FOX_NUMBER_H
#define FOX_NUMBER_H

/* 1 when all of s is [+-] digits [. digits] [e|E [+-] digits] (digits on at least one side of
 * the point), 0 otherwise. */
int number_is_decimal(const char *s);
/* s as a finite double: 0; -1 when s is not a decimal number; -2 when it overflows. */
int number_parse(const char *s, double *x);

#endif
