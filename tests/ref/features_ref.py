#!/usr/bin/env python3
"""Independent reference for foxopt's 51 market features (spec: /work/shared/FEATURES.md).

Written from the published definitions: TA-Lib's C algorithms re-implemented in numpy and
plain Python. It never calls talib to compute a feature, so that a test can tell foxopt's C
code apart from a misunderstanding shared with it; TA-Lib is only the judge in --talib.

  features_ref.py --talib IN.csv[.gz] [--fill-gaps]
        self-check: reference vs the installed TA-Lib wrapper on the same series
  features_ref.py --csv IN.csv[.gz] --h5 DATASET.h5 [--fill-gaps]
        check a dataset written by `foxopt import IN.csv -o DATASET.h5` against the reference
Exit 0 when everything agrees, 1 on any mismatch (printed with feature, bar and both values).

As a module: compute(ts, o, h, l, c, v) -> float64 [N, 51], rows < WARMUP are NaN. Its inputs
must already be open-repaired (load_csv does it).

TA-Lib version matters. The `talib` 0.8.2 wheel bundles TA-Lib C 0.8.1, which differs from
the 0.4/0.6 library most write-ups (and FEATURES.md's wording) describe in the degenerate
cases only: TA_EPSILON is 1e-14 (was 1e-8), and the zero tests on quantities that carry the
quote unit are exact or scale-relative (its issues #243/#244/#253), so a cheap instrument is
no longer zeroed: RSI is 0 only when gain+loss == 0, ADX skips DX only when the smoothed TR
== 0, MFI is 0 only when the window's total flow == 0 (not < 1), the BBANDS variance is never
clamped by an absolute epsilon, and STOCHF's flat test is |HH-LL| <= 1e-14 (|HH|+|LL|).
CCI and ADX's DI sum keep the absolute 1e-14 band. All ordinary values are unchanged.
"""
import argparse
import gzip
import io
import math
import sys
import time

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

WARMUP = 1441          # ret_1440 needs C[t-1440]; vol_1440 needs r1 from bar t-1439 >= 1
NF = 51
RET_K = [1, 2, 3, 5, 10, 15, 30, 60, 120, 240, 1440]
VOL_K = [15, 60, 240, 1440]
MA_K = [10, 30, 60, 240]
NAMES = ([f"ret_{k}" for k in RET_K] + [f"vol_{k}" for k in VOL_K] + ["ewm_vol"]
         + ["rsi_7", "rsi_14", "rsi_28", "macd", "macd_signal", "macd_hist", "bb_pctb",
            "bb_width", "atr_14", "atr_60"]
         + [f"sma_ratio_{k}" for k in MA_K] + [f"ema_ratio_{k}" for k in MA_K]
         + ["stoch_k", "stoch_d", "willr_14", "cci_20", "adx_14", "mfi_14", "obv_z",
            "volume_z", "volume_ratio", "range", "body", "upper_wick", "lower_wick",
            "tod_sin", "tod_cos", "dow_sin", "dow_cos"])
assert len(NAMES) == NF
IDX = {n: i for i, n in enumerate(NAMES)}
TA_EPS = 1e-14         # TA-Lib 0.8.1's TA_EPSILON (TA_IS_ZERO is -eps < x < eps)
NAN = float("nan")


# ----------------------------------------------------------------------------- input
def load_csv(path, fill_gaps=False):
    """`timestamp,open,high,low,close,volume` (seconds) or a Binance kline CSV (12 columns,
    open time in ms, or us as in Binance's 2025+ spot files); header optional; gzip or plain.
    Returns int64 ts and float64 o, h, l, c, v with the open repair applied."""
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    text = raw.decode("utf-8-sig")
    lines = text.split("\n", 2)
    try:
        float(lines[0].split(",")[0])
        skip = 0
    except ValueError:
        skip = 1
    ncol = len(lines[min(skip, len(lines) - 1)].split(","))
    a = np.loadtxt(io.StringIO(text), delimiter=",", skiprows=skip, usecols=range(6), ndmin=2)
    ts = np.round(a[:, 0]).astype(np.int64)
    if ncol >= 12:
        ts //= 1_000_000 if (len(ts) and ts[0] >= 10**14) else 1000
    o, h, l, c, v = (a[:, i].copy() for i in range(1, 6))
    # BitMEX's open is the previous close and lies outside [L, H] in ~3% of bars: foxopt
    # import widens H/L to include it before anything else, so the reference does too.
    h, l = np.maximum(h, o), np.minimum(l, o)
    if fill_gaps and len(ts) > 1:
        ts, o, h, l, c, v = fill_gap_bars(ts, o, h, l, c, v)
    return ts, o, h, l, c, v


def fill_gap_bars(ts, o, h, l, c, v):
    """Insert flat bars (O=H=L=C = previous close, V=0) at every missing point of the grid
    whose step is the most common timestamp difference."""
    d = np.diff(ts)
    vals, cnt = np.unique(d, return_counts=True)
    step = int(vals[np.argmax(cnt)])
    rep = np.ones(len(ts), np.int64)
    rep[:-1] += np.where(d > step, (d - 1) // step, 0)     # grid points strictly inside a gap
    src = np.repeat(np.arange(len(ts)), rep)                # the real bar each row follows
    k = np.arange(len(src)) - np.repeat(np.cumsum(rep) - rep, rep)   # 0 real, 1.. inserted
    fill = k > 0
    o, h, l, c = (np.where(fill, c[src], x[src]) for x in (o, h, l, c))
    return ts[src] + k * step, o, h, l, c, np.where(fill, 0.0, v[src])


# ----------------------------------------------------------------------------- rolling windows
# Value at t over the window [t-k+1, t]; NaN where the window is incomplete.
def roll_sum(x, k):
    """Difference of long-double prefix sums (80-bit on x86-64: ~1e-19 per step, so even
    1440-bar windows of r1^2 keep ~10 more digits than the tests need)."""
    cs = np.concatenate(([0], np.cumsum(x, dtype=np.longdouble)))
    out = np.full(len(x), NAN)
    out[k - 1:] = (cs[k:] - cs[:-k]).astype(np.float64)
    return out


def roll_max(x, k):
    """van Herk / Gil-Werman: O(N) from per-block prefix and suffix maxima."""
    n = len(x)
    b = np.full(-(-n // k) * k, -np.inf)
    b[:n] = x
    b = b.reshape(-1, k)
    pre = np.maximum.accumulate(b, axis=1).ravel()
    suf = np.maximum.accumulate(b[:, ::-1], axis=1)[:, ::-1].ravel()
    out = np.full(n, NAN)
    s = np.arange(n - k + 1)
    out[k - 1:] = np.maximum(suf[s], pre[s + k - 1])
    return out


def roll_min(x, k):
    return -roll_max(-x, k)


def is_const(x, k):
    """Window-is-constant test (max == min): exact and scale-free, unlike std < eps."""
    return roll_max(x, k) == roll_min(x, k)


def roll_apply(x, k, fn, chunk=1 << 15):
    """fn(rows of windows) -> one value per row, in chunks to bound memory: two-pass
    statistics for short windows, where prefix-sum differences would cancel badly."""
    w = sliding_window_view(x, k)
    out = np.full(len(x), NAN)
    for i in range(0, len(w), chunk):
        part = w[i:i + chunk]
        out[k - 1 + i:k - 1 + i + len(part)] = fn(part)
    return out


def _pstd(w):
    d = w - w.mean(axis=1)[:, None]
    return np.sqrt((d * d).mean(axis=1))


def zscore(x, k):
    """(x_t - mean)/population std over the window incl. t; 0 on a constant window."""
    with np.errstate(invalid="ignore", divide="ignore"):
        z = (x - roll_sum(x, k) / k) / roll_apply(x, k, _pstd)
    return np.where(is_const(x, k), 0.0, z)


# ----------------------------------------------------------------------------- TA-Lib algorithms
def ema(x, k, seed_end):
    """TA-Lib EMA, alpha 2/(k+1): seeded at bar seed_end by the SMA of the k values ending
    there (sequential sum, as TA-Lib), then prev = (x - prev)*alpha + prev."""
    xs, n = x.tolist(), len(x)
    out = [NAN] * n
    a = 2.0 / (k + 1)
    prev = 0.0
    for i in range(seed_end - k + 1, seed_end + 1):
        prev += xs[i]
    prev /= k
    out[seed_end] = prev
    for t in range(seed_end + 1, n):
        prev = (xs[t] - prev) * a + prev
        out[t] = prev
    return np.array(out)


def wilder(x, k):
    """Wilder smoothing as TA-Lib's RSI and ATR do it: the first value, at bar k, is the
    plain mean of x[1..k] (x[0] has no previous bar); then prev = (prev*(k-1) + x)/k."""
    xs, n = x.tolist(), len(x)
    out = [NAN] * n
    prev = 0.0
    for t in range(1, k + 1):
        prev += xs[t]
    prev /= k
    out[k] = prev
    for t in range(k + 1, n):
        prev = (prev * (k - 1) + xs[t]) / k
        out[t] = prev
    return np.array(out)


def sma(x, k):
    return roll_sum(x, k) / k


def rsi(c, k):
    """TA-Lib RSI = 100 g/(g+l), g and l the Wilder means of gains and losses; 0 when
    g + l == 0 exactly (TA-Lib 0.8.1; older versions zeroed any g + l < 1e-8)."""
    d = np.zeros(len(c))
    d[1:] = c[1:] - c[:-1]
    g, l = wilder(np.maximum(d, 0.0), k), wilder(np.maximum(-d, 0.0), k)
    s = g + l
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(s > 0.0, 100.0 * (g / s), np.where(np.isnan(s), NAN, 0.0))


def macd(c):
    """TA-Lib MACD(12,26,9). Quirk: both EMAs start at bar 25 (the slow lookback), so the
    fast EMA is seeded by the SMA of bars 14..25, not 0..11 as a plain EMA(12) would be.
    The signal EMA(9) is seeded by the SMA of macd[25..33]; all three start at bar 33."""
    line = ema(c, 12, 25) - ema(c, 26, 25)
    sig = np.full(len(c), NAN)
    sig[25:] = ema(line[25:], 9, 8)
    line[:33] = NAN
    return line, sig, line - sig


def atr(h, l, c, k):
    """TA-Lib ATR: TRANGE from bar 1, first value at bar k = mean TR[1..k], then Wilder."""
    tr = np.zeros(len(c))
    tr[1:] = np.maximum(np.maximum(h[1:] - l[1:], np.abs(c[:-1] - h[1:])),
                        np.abs(l[1:] - c[:-1]))
    return wilder(tr, k)


def bbands(c, k=20, dev=2.0):
    """TA-Lib BBANDS(k, dev, dev, SMA) with the population std. TA-Lib 0.8.1 keeps a shifted
    running variance that it re-seeds when cancellation threatens, so only a constant window
    has zero width (0.6 zeroed any variance < 1e-14, 0.4 any < 1e-8). Two-pass here."""
    mid = sma(c, k)
    sd = np.where(is_const(c, k), 0.0, roll_apply(c, k, _pstd))
    return mid + sd * dev, mid, mid - sd * dev


def stochf(h, l, c, k=14, d=3):
    """TA-Lib STOCHF(k, d, SMA): fastk = (C - LL)/((HH - LL)/100), 0 where the window is
    flat (|HH - LL| <= 1e-14 (|HH| + |LL|), TA-Lib 0.8.1's test); fastd = SMA(fastk, d)."""
    hh, ll = roll_max(h, k), roll_min(l, k)
    flat = np.abs(hh - ll) <= TA_EPS * (np.abs(hh) + np.abs(ll))
    with np.errstate(invalid="ignore", divide="ignore"):
        fk = np.where(flat, 0.0, (c - ll) / ((hh - ll) / 100.0))
    fk[:k - 1] = NAN
    fd = sma(np.nan_to_num(fk), d)
    fd[:k + d - 2] = NAN
    return fk, fd


def willr(h, l, c, k=14):
    """TA-Lib WILLR: (HH - C)/((HH - LL)/-100), 0 when HH == LL (an exact test here, unlike
    STOCHF). C == HH gives -0.0, as TA-Lib does."""
    hh, ll = roll_max(h, k), roll_min(l, k)
    diff = (hh - ll) / -100.0
    with np.errstate(invalid="ignore", divide="ignore"):
        w = np.where(diff != 0.0, (hh - c) / diff, 0.0)
    w[:k - 1] = NAN
    return w


def cci(h, l, c, k=20):
    """TA-Lib CCI: (tp - mean)/(0.015 mean|tp - mean|), tp = (H+L+C)/3; 0 when tp - mean or
    the sum of |tp - mean| is within TA_IS_ZERO's 1e-14. FEATURES.md also makes it 0 on a
    constant tp, where TA-Lib < 0.8 divided rounding residue by residue (+-66.7, its #7)."""
    tp = (h + l + c) / 3.0

    def f(w):
        m = w.mean(axis=1)
        mad = np.abs(w - m[:, None]).mean(axis=1)
        x = w[:, -1] - m
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where((np.abs(x) >= TA_EPS) & (mad * k >= TA_EPS),
                            x / (0.015 * mad), 0.0)
    return np.where(is_const(tp, k), 0.0, roll_apply(tp, k, f))


def adx(h, l, c, p=14):
    """TA-Lib ADX statement for statement. Bars 1..p-1: +DM, -DM and TR are summed. Bars
    p..2p-1: Wilder-smoothed (x -= x/p; x += new) while DX is summed; ADX(2p-1) = sumDX/p.
    Later bars: ADX = (ADX (p-1) + DX)/p. Where DX is undefined (smoothed TR == 0, or
    +DI + -DI within 1e-14) it adds nothing to sumDX, and ADX keeps its last value."""
    H, L, C = h.tolist(), l.tolist(), c.tolist()
    out = [NAN] * len(C)
    pm = pp = tr = sdx = a = 0.0
    for t in range(1, len(C)):
        dp, dm = H[t] - H[t - 1], L[t - 1] - L[t]
        if t >= p:
            pm -= pm / p
            pp -= pp / p
        if dm > 0 and dp < dm:
            pm += dm
        elif dp > 0 and dp > dm:
            pp += dp
        r = max(H[t] - L[t], abs(H[t] - C[t - 1]), abs(L[t] - C[t - 1]))
        tr = tr - tr / p + r if t >= p else tr + r
        if t < p:
            continue
        dx = None
        if tr > 0.0:
            mdi, pdi = 100.0 * (pm / tr), 100.0 * (pp / tr)
            s = mdi + pdi
            if not -TA_EPS < s < TA_EPS:
                dx = 100.0 * (abs(mdi - pdi) / s)
        if t < 2 * p:
            sdx += dx if dx is not None else 0.0
            if t == 2 * p - 1:
                a = out[t] = sdx / p
            continue
        if dx is not None:
            a = (a * (p - 1) + dx) / p
        out[t] = a
    return np.array(out)


def mfi(h, l, c, v, k=14):
    """TA-Lib MFI over the flows tp*V of bars t-k+1..t, positive or negative by the sign of
    the tp change; first value at bar k. TA-Lib 0.8.1: a change within 1e-14 (|tp| +
    |tp_prev|) counts as none; the index is 0 only when the total flow is 0 (TA-Lib <= 0.6:
    below 1.0, a constant in the quote unit; its #244)."""
    tp = (h + l + c) / 3.0
    d = np.zeros(len(c))
    d[1:] = tp[1:] - tp[:-1]
    d[1:][np.abs(d[1:]) <= TA_EPS * (np.abs(tp[1:]) + np.abs(tp[:-1]))] = 0.0
    ps = roll_apply(np.where(d > 0, tp * v, 0.0), k, lambda w: w.sum(axis=1))
    tot = ps + roll_apply(np.where(d < 0, tp * v, 0.0), k, lambda w: w.sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(tot > 0.0, 100.0 * (ps / tot), 0.0)
    out[:k] = NAN
    return out


def obv(c, v):
    """TA-Lib OBV: starts at V[0] (not 0); +V on an up close, -V on a down close."""
    s = np.ones(len(c))
    s[1:] = np.sign(c[1:] - c[:-1])
    return np.cumsum(s * v)


# ----------------------------------------------------------------------------- the 51 features
def compute(ts, o, h, l, c, v):
    ts = np.asarray(ts, np.int64)
    o, h, l, c, v = (np.asarray(x, np.float64) for x in (o, h, l, c, v))
    n = len(c)
    F = np.full((n, NF), NAN)
    if n <= WARMUP:
        return F
    r1 = np.zeros(n)
    r1[1:] = np.log(c[1:] / c[:-1])      # r1[0] is undefined; it only reaches bars < warmup
    for j, k in enumerate(RET_K):
        F[k:, j] = np.log(c[k:] / c[:-k])
    for j, k in enumerate(VOL_K):
        s1, s2 = roll_sum(r1, k), roll_sum(r1 * r1, k)
        var = np.maximum((s2 - s1 * s1 / k) / (k - 1), 0.0)
        F[:, 11 + j] = np.where(is_const(r1, k), 0.0, np.sqrt(var))
    a, rr = 2.0 / 101.0, (r1 * r1).tolist()
    ev = [NAN] * n
    x = ev[1] = rr[1]                    # "v at the first return = r1^2"
    for t in range(2, n):
        x = ev[t] = (1.0 - a) * x + a * rr[t]
    F[:, 15] = np.sqrt(ev)
    for j, k in enumerate([7, 14, 28]):
        F[:, 16 + j] = rsi(c, k)
    m, s, hist = macd(c)
    F[:, 19], F[:, 20], F[:, 21] = m / c, s / c, hist / c
    up, mid, lo = bbands(c)
    with np.errstate(invalid="ignore", divide="ignore"):
        F[:, 22] = np.where(up == lo, 0.5, (c - lo) / (up - lo))
    F[:, 23] = (up - lo) / mid
    F[:, 24], F[:, 25] = atr(h, l, c, 14) / c, atr(h, l, c, 60) / c
    for j, k in enumerate(MA_K):
        F[:, 26 + j] = c / sma(c, k) - 1.0
        F[:, 30 + j] = c / ema(c, k, k - 1) - 1.0
    F[:, 34], F[:, 35] = stochf(h, l, c)
    F[:, 36], F[:, 37], F[:, 38] = willr(h, l, c), cci(h, l, c), adx(h, l, c)
    F[:, 39] = mfi(h, l, c, v)
    F[:, 40], F[:, 41] = zscore(obv(c, v), 60), zscore(v, 60)
    F[:, 42] = np.log((v + 1.0) / (sma(v, 60) + 1.0))
    F[:, 43], F[:, 44] = (h - l) / c, (c - o) / c
    F[:, 45], F[:, 46] = (h - np.maximum(o, c)) / c, (np.minimum(o, c) - l) / c
    tod = 2.0 * np.pi * (ts % 86400) / 86400.0
    dow = 2.0 * np.pi * ((ts // 86400 + 3) % 7) / 7.0     # 1970-01-01 was a Thursday
    F[:, 47], F[:, 48], F[:, 49], F[:, 50] = np.sin(tod), np.cos(tod), np.sin(dow), np.cos(dow)
    F[:WARMUP] = NAN
    return F


# ----------------------------------------------------------------------------- --talib
def _scale(x):
    """Robust magnitude of a feature: 99th percentile of |x| over finite values (>= 1e-12)."""
    x = np.abs(x[np.isfinite(x)])
    return max(float(np.percentile(x, 99)) if len(x) else 0.0, 1e-12)


def _spread(x):
    x = x[np.isfinite(x)]
    return float(np.percentile(x, 99) - np.percentile(x, 1)) if len(x) else 1.0


def talib_check(ts, o, h, l, c, v):
    """Reference vs TA-Lib on bars >= WARMUP: |ref - ta| <= 1e-5 max(|ta|, 1e-3 scale), i.e.
    1e-5 relative with an absolute floor of 1e-8 of the feature's scale where it is ~0;
    bb_pctb: 1e-5 of its spread (FEATURES.md's allowance for TA-Lib's running sums)."""
    import talib
    if len(c) <= WARMUP + 1:
        print(f"only {len(c)} bars: nothing after warmup ({WARMUP}) to compare")
        return True
    F = compute(ts, o, h, l, c, v)
    T = {f"rsi_{k}": talib.RSI(c, k) for k in (7, 14, 28)}
    m, s, hh = talib.MACD(c, 12, 26, 9)
    T.update(macd=m / c, macd_signal=s / c, macd_hist=hh / c)
    up, mid, lo = talib.BBANDS(c, 20, 2.0, 2.0, 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        T.update(bb_pctb=(c - lo) / (up - lo), bb_width=(up - lo) / mid)
    T.update(atr_14=talib.ATR(h, l, c, 14) / c, atr_60=talib.ATR(h, l, c, 60) / c)
    for k in MA_K:
        T[f"sma_ratio_{k}"] = c / talib.SMA(c, k) - 1.0
        T[f"ema_ratio_{k}"] = c / talib.EMA(c, k) - 1.0
    T["stoch_k"], T["stoch_d"] = talib.STOCHF(h, l, c, 14, 3, 0)
    T.update(willr_14=talib.WILLR(h, l, c, 14), cci_20=talib.CCI(h, l, c, 20),
             adx_14=talib.ADX(h, l, c, 14), mfi_14=talib.MFI(h, l, c, v, 14))
    T["obv_z"] = zscore(talib.OBV(c, v), 60)     # same z-score code: this checks the OBV
    # On a constant 20-bar close TA-Lib's bands meet and its %b is 0/0 = NaN, where
    # FEATURES.md defines 0.5. (CCI on a constant tp needs no exclusion: TA-Lib 0.8.1 says 0.)
    excl = {"bb_pctb": is_const(c, 20)[WARMUP:]}
    ok = True
    print(f"{'feature':<14}{'max abs err':>13}{'max rel err':>13}{'worst bar':>11}{'excl':>7}")
    for name, ta in T.items():
        ref, ta = F[WARMUP:, IDX[name]], ta[WARMUP:]
        keep = ~excl.get(name, np.zeros(len(ta), bool))
        d = np.where(keep, np.abs(ref - ta), 0.0)
        d[keep & ~(np.isfinite(ref) & np.isfinite(ta))] = np.inf
        if name == "bb_pctb":
            den = _spread(ta[keep])
        else:
            den = np.maximum(np.abs(ta), 1e-3 * _scale(ta[keep]))
        rel = d / den
        w = int(np.argmax(rel))
        bad = not rel[w] <= 1e-5
        print(f"{name:<14}{d.max():13.3e}{rel[w]:13.3e}{w + WARMUP:11d}{int((~keep).sum()):7d}"
              + ("  FAIL" if bad else ""))
        if bad:
            ok = False
            print(f"  MISMATCH {name} bar {w + WARMUP}: reference {ref[w]:.17g} "
                  f"talib {ta[w]:.17g}")
    return spot_check(ts, o, h, l, c, v, F) and ok


def spot_check(ts, o, h, l, c, v, F, nbars=400):
    """The non-TA-Lib features, recomputed naively (slices, datetime) at random bars."""
    import datetime
    rng = np.random.default_rng(1)
    bars = np.unique(np.r_[WARMUP, len(c) - 1, rng.integers(WARMUP, len(c), nbars)])
    r1 = np.log(c[1:] / c[:-1])          # r1[i] is the return of bar i+1
    evs, ev = [NAN, r1[0] ** 2], r1[0] ** 2
    for x in r1[1:]:                     # v += a (r^2 - v): the same recursion, other order
        ev += 2.0 / 101.0 * (x * x - ev)
        evs.append(ev)
    obvs = np.cumsum(np.r_[v[0], np.sign(np.diff(c)) * v[1:]])
    worst, ok = 0.0, True
    for t in bars:
        e = {f"ret_{k}": math.log(c[t] / c[t - k]) for k in RET_K}
        e.update({f"vol_{k}": float(np.std(r1[t - k:t], ddof=1)) for k in VOL_K})
        e["ewm_vol"] = math.sqrt(evs[t])
        for name, x in (("obv_z", obvs), ("volume_z", v)):
            w = x[t - 59:t + 1]
            e[name] = 0.0 if w.max() == w.min() else float((x[t] - w.mean()) / w.std())
        e["volume_ratio"] = math.log((v[t] + 1) / (v[t - 59:t + 1].mean() + 1))
        e.update(range=(h[t] - l[t]) / c[t], body=(c[t] - o[t]) / c[t],
                 upper_wick=(h[t] - max(o[t], c[t])) / c[t],
                 lower_wick=(min(o[t], c[t]) - l[t]) / c[t])
        dt = datetime.datetime.fromtimestamp(int(ts[t]), datetime.timezone.utc)
        sod = 2 * math.pi * (dt.hour * 3600 + dt.minute * 60 + dt.second) / 86400
        wd = 2 * math.pi * dt.weekday() / 7
        e.update(tod_sin=math.sin(sod), tod_cos=math.cos(sod),
                 dow_sin=math.sin(wd), dow_cos=math.cos(wd))
        for name, x in e.items():
            err = abs(F[t, IDX[name]] - x) / max(abs(x), 1e-6)
            worst = max(worst, err)
            if not err <= 1e-7:
                ok = False
                print(f"  MISMATCH {name} bar {t}: reference {F[t, IDX[name]]:.17g} "
                      f"naive {x:.17g}")
    print(f"spot check of the {len(e)} non-TA-Lib features at {len(bars)} bars: "
          f"max rel err {worst:.3e}" + ("" if ok else "  FAIL"))
    return ok


# ----------------------------------------------------------------------------- --h5
def h5_check(ts, o, h, l, c, v, path):
    """Compare a foxopt dataset with the reference; returns True when everything agrees."""
    import h5py
    F, n, fails = compute(ts, o, h, l, c, v), len(c), []
    try:
        with h5py.File(path, "r") as f:
            G = f["/features"][...]
            names = f["/features"].attrs.get("names")
            warm = int(np.ravel(f.attrs["warmup"])[0])
            tb, te = (int(x) for x in np.ravel(f.attrs["split_train"]))
            bars = {k: f[f"/bars/{k}"][...] for k in
                    ("timestamp", "open", "high", "low", "close", "volume")}
            P, nmean, nstd = f["/prices"][...], f["/norm/mean"][...], f["/norm/std"][...]
    except (KeyError, OSError) as e:
        print(f"FAIL {path}: cannot read what DESIGN.md section 4 promises: {e}")
        return False
    if G.shape != (n, NF):
        print(f"FAIL {path}:/features has shape {G.shape}, the CSV gives ({n}, {NF})")
        return False
    if G.dtype != np.float32:
        fails.append(f"/features dtype {G.dtype}, expected float32")
    if names is not None:
        names = [x.decode() if isinstance(x, bytes) else str(x) for x in np.ravel(names)]
        if len(names) == 1:
            names = names[0].split(",")
        if names != NAMES:
            fails.append(f"/features attribute names {names} != FEATURES.md's {NAMES}")
    if warm != WARMUP:
        fails.append(f"root attribute warmup = {warm}, expected {WARMUP}")
    for key, ref in zip(bars, (ts, o, h, l, c, v)):
        got = bars[key]
        if got.shape != ref.shape:
            fails.append(f"/bars/{key} has shape {got.shape}, expected {ref.shape}")
        elif not np.array_equal(got, ref):
            i = int(np.argmax(got != ref))
            fails.append(f"/bars/{key} differs from the repaired CSV first at bar {i}: "
                         f"{got[i]:.17g} vs {ref[i]:.17g}")
    Pref = np.stack([o, h, l, c], axis=1).astype(np.float32)
    if P.dtype != np.float32 or P.shape != Pref.shape or not np.array_equal(P, Pref):
        fails.append(f"/prices ({P.dtype} {P.shape}) != f32(O, H, L, C) {Pref.shape}")
    nan_got, nan_ref = np.isnan(G), np.isnan(F)
    if not np.array_equal(nan_got, nan_ref):
        i, j = np.argwhere(nan_got != nan_ref)[0]
        fails.append(f"/features NaN pattern differs first at bar {i} feature {NAMES[j]}: "
                     f"got {G[i, j]:.9g}, reference {F[i, j]:.9g}")
    if np.isinf(G).any():
        fails.append("/features holds inf")
    # |got - ref| <= 2e-5 |ref| + 1e-6 scale_f; float32 storage alone costs ~6e-8 relative
    print(f"{'feature':<14}{'max abs err':>13}{'max rel err':>13}{'worst bar':>11}")
    for j, name in enumerate(NAMES if n > WARMUP else []):
        ref, got = F[WARMUP:, j], G[WARMUP:, j].astype(np.float64)
        atol = 1e-6 * _scale(ref)
        if name == "bb_pctb":            # FEATURES.md: running sums drift ~1e-5 of the spread
            atol = max(atol, 1e-5 * _spread(ref))
        d = np.abs(got - ref)
        d[np.isnan(d)] = np.inf
        excess = d - (2e-5 * np.abs(ref) + atol)
        rel = d / np.maximum(np.abs(ref), atol / 2e-5)
        w = int(np.argmax(excess))       # worst bar: the one furthest past the tolerance
        wb = w if excess[w] > 0 else int(np.argmax(rel))
        print(f"{name:<14}{d.max():13.3e}{rel.max():13.3e}{wb + WARMUP:11d}"
              + ("  FAIL" if excess[w] > 0 else ""))
        if excess[w] > 0:
            fails.append(f"feature {j} {name} bar {w + WARMUP}: got {got[w]:.9g}, "
                         f"reference {ref[w]:.12g} (tolerance 2e-5*|ref| + {atol:.3g})")
    if not WARMUP <= tb < te <= n:
        fails.append(f"split_train [{tb}, {te}) is not a non-empty part of [{WARMUP}, {n})")
    else:   # population statistics. A mean is judged against |mean| + std (it is often ~0);
        # a std against itself plus 1e-10 |mean|: a feature constant over the split (dow in a
        # one-day split) has a true std of 0 that float64 rounding turns into ~1e-15.
        mu, sd = F[tb:te].mean(axis=0), F[tb:te].std(axis=0)
        for j, name in enumerate(NAMES):
            if not abs(nmean[j] - mu[j]) <= 1e-4 * (abs(mu[j]) + sd[j]):
                fails.append(f"/norm/mean[{j}] {name} = {nmean[j]:.9g}, reference {mu[j]:.12g}")
            if not abs(nstd[j] - sd[j]) <= 1e-4 * sd[j] + 1e-10 * abs(mu[j]):
                fails.append(f"/norm/std[{j}] {name} = {nstd[j]:.9g}, reference {sd[j]:.12g}")
    for msg in fails:
        print("FAIL " + msg)
    print(f"{path}: {'OK' if not fails else f'{len(fails)} failure(s)'} ({n} bars)")
    return not fails


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--talib", metavar="CSV", help="self-check against the TA-Lib wrapper")
    ap.add_argument("--csv", help="the CSV that was given to foxopt import")
    ap.add_argument("--h5", help="the dataset.h5 foxopt import wrote")
    ap.add_argument("--fill-gaps", action="store_true", help="as foxopt import --fill-gaps")
    a = ap.parse_args(argv)
    if not a.talib and not (a.csv and a.h5):
        ap.error("give --talib CSV, or --csv IN.csv --h5 DATASET.h5")
    t0 = time.time()
    bars = load_csv(a.talib or a.csv, a.fill_gaps)
    t1 = time.time()
    print(f"loaded {len(bars[0])} bars in {t1 - t0:.1f} s")
    ok = talib_check(*bars) if a.talib else h5_check(*bars, a.h5)
    print(f"{'PASS' if ok else 'FAIL'} ({time.time() - t1:.1f} s)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
