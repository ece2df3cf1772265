/* TA-Lib-equal indicators on a full double series (TA-Lib's default compatibility, no unstable
 * period): same seeding, same smoothing, same degenerate-window rules. Outputs have length n
 * and hold NaN before each indicator's first value. */
#ifndef FOX_TA_H
#define FOX_TA_H

#include <stddef.h>

void ta_sma(const double *in, size_t n, int k, double *out);
/* EMA seeded by the SMA of the k values from `start` (the input's first valid index). */
void ta_ema(const double *in, size_t n, size_t start, int k, double *out);
void ta_rsi(const double *close, size_t n, int k, double *out);
/* MACD(12, 26, 9) with TA-Lib's seeding: both EMAs seeded at bar slow-1. */
void ta_macd(const double *close, size_t n, int fast, int slow, int signal, double *macd,
             double *sig, double *hist);
/* Bollinger bands around SMA(k) with population std; a constant window gives std 0. */
void ta_bbands(const double *close, size_t n, int k, double nbdev, double *upper, double *middle,
               double *lower);
void ta_atr(const double *h, const double *l, const double *c, size_t n, int k, double *out);
void ta_stochf(const double *h, const double *l, const double *c, size_t n, int fastk, int fastd,
               double *k_out, double *d_out);
void ta_willr(const double *h, const double *l, const double *c, size_t n, int k, double *out);
void ta_cci(const double *h, const double *l, const double *c, size_t n, int k, double *out);
void ta_adx(const double *h, const double *l, const double *c, size_t n, int k, double *out);
void ta_mfi(const double *h, const double *l, const double *c, const double *v, size_t n, int k,
            double *out);
void ta_obv(const double *c, const double *v, size_t n, double *out);

#endif
