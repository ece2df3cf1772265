#!/usr/bin/env python3
"""Independent reference for foxopt's 51 market features (spec: FEATURES.md).

Written from the published definitions (TA-Lib's C algorithms, re-implemented in numpy and
plain Python; this module never calls talib to compute a feature), so that a test can tell
foxopt's C implementation apart from a shared misunderstanding.

  features_ref.py --talib IN.csv[.gz] [--fill-gaps]
        self-check: reference vs the real TA-Lib wrapper on the same series (exit 1 on mismatch)
  features_ref.py --csv IN.csv[.gz] --h5 DATASET.h5 [--fill-gaps]
        check a dataset written by `foxopt import` against the reference (exit 1 on mismatch)

As a module: compute(ts, o, h, l, c, v) -> float64 [N, 51], rows < WARMUP are NaN.
Inputs to compute() must already be open-repaired (load_csv does it).
"""
import argparse
import gzip
import io
import math
import sys
import time

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

WARMUP = 1441          # longest lookback: ret_1440 needs C[t-1440]; vol_1440 needs r1 from t-1439
NF = 51
RET_K = [1, 2, 3, 5, 10, 15, 30, 60, 120, 240, 1440]
VOL_K = [15, 60, 240, 1440]
MA_K = [10, 30, 60, 240]
NAMES = ([f"ret_{k}" for k in RET_K] + [f"vol_{k}" for k in VOL_K] + ["ewm_vol"]
         + ["rsi_7", "rsi_14", "rsi_28", "macd", "macd_signal", "macd_hist", "bb_pctb", "bb_width",
            "atr_14", "atr_60"]
         + [f"sma_ratio_{k}" for k in MA_K] + [f"ema_ratio_{k}" for k in MA_K]
         + ["stoch_k", "stoch_d", "willr_14", "cci_20", "adx_14", "mfi_14", "obv_z", "volume_z",
            "volume_ratio", "range", "body", "upper_wick", "lower_wick",
            "tod_sin", "tod_cos", "dow_sin", "dow_cos"])
assert len(NAMES) == NF
IDX = {n: i for i, n in enumerate(NAMES)}
# TA-Lib C 0.8.1 (what the `talib` 0.8.2 wheel bundles) is NOT the 0.4/0.6 library most
# write-ups describe: TA_EPSILON is 1e-14 (was 1e-8) and, since its issue #253/#244/#243, the
# tests on quantities that carry the quote unit (RSI's gain+loss, ADX's TR sum, MFI's flow
# total, the BBANDS variance, the STOCHF range) are exact or scale-relative, so cheap coins
# are not zeroed. Only CCI and ADX's DI sum still use the fixed band below.
TA_EPS = 1e-14
NAN = float("nan")


# ----------------------------------------------------------------------------- input
def load_csv(path, fill_gaps=False):
    """Read `timestamp,open,high,low,close,volume` (s) or a Binance kline CSV (12 columns, open
    time in ms, or us for Binance's 2025+ spot files), header optional, gzip or plain.
    Returns int64 ts and float64 o,h,l,c,v with the open repair applied (H/L widened to O)."""
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    text = raw.decode("utf-8-sig")
    first = text.split("\n", 1)[0].strip()
    cells = first.split(",")
    try:
        float(cells[0])
        skip = 0
    except ValueError:
        skip = 1
        cells = text.split("\n", 2)[1].split(",") if text.count("\n") > 1 else cells
    ncol = len(cells)
    a = np.loadtxt(io.StringIO(text), delimiter=",", skiprows=skip, usecols=range(6),
                   dtype=np.float64, ndmin=2)
    ts = np.round(a[:, 0]).astype(np.int64)
    if ncol >= 12:      # Binance: the same first six columns, open time in ms (or us)
        ts //= 1_000_000 if (len(ts) and ts[0] >= 10**14) else 1000
    o, h, l, c, v = (a[:, i].copy() for i in range(1, 6))
    # BitMEX reports open = previous close, outside [L, H] in ~3% of bars; foxopt widens.
    h = np.maximum(h, o)
    l = np.minimum(l, o)
    if fill_gaps and len(ts) > 1:
        ts, o, h, l, c, v = fill_gap_bars(ts, o, h, l, c, v)
    return ts, o, h, l, c, v


def fill_gap_bars(ts, o, h, l, c, v):
    """Insert flat bars (O=H=L=C=previous close, V=0) on the grid of the most common step."""
    d = np.diff(ts)
    vals, cnt = np.unique(d, return_counts=True)
    step = int(vals[np.argmax(cnt)])
    # bars to insert after bar i: the grid points strictly between ts[i] and ts[i+1]
    nins = np.where(d > step, (d - 1) // step, 0)
    if nins.sum() == 0:
        return ts, o, h, l, c, v
    rep = np.ones(len(ts), np.int64)
    rep[:-1] += nins
    src = np.repeat(np.arange(len(ts)), rep)                 # the real bar each row comes from
    k = np.arange(len(src)) - np.repeat(np.cumsum(rep) - rep, rep)   # 0 real, 1.. inserted
    fill = k > 0
    ts2 = ts[src] + k * step
    cprev = c[src]
    o2, h2, l2, c2 = (np.where(fill, cprev, x[src]) for x in (o, h, l, c))
    v2 = np.where(fill, 0.0, v[src])
    return ts2, o2, h2, l2, c2, v2


# ----------------------------------------------------------------------------- rolling helpers
# All return length-N arrays, value at t over the window [t-k+1, t], NaN where incomplete.
def roll_sum(x, k):
    """Windowed sum via a long-double prefix sum (80-bit on x86: ~1e-19 relative per step,
    so the difference of two prefix sums keeps far more than the 1e-5 we test)."""
    cs = np.concatenate(([0], np.cumsum(x, dtype=np.longdouble)))
    out = np.full(len(x), NAN)
    out[k - 1:] = (cs[k:] - cs[:-k]).astype(np.float64)
    return out


def roll_max(x, k):
    """van Herk / Gil-Werman: O(N) windowed max from per-block prefix and suffix maxima."""
    n = len(x)
    m = -(-n // k) * k
    b = np.full(m, -np.inf)
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


def roll_apply(x, k, fn, chunk=1 << 15):
    """fn(window_matrix) -> one value per row, applied in chunks to bound memory (two-pass,
    exact statistics for short windows, where a prefix-sum difference would cancel badly)."""
    w = sliding_window_view(x, k)
    out = np.full(len(x), NAN)
    for i in range(0, len(w), chunk):
        out[k - 1 + i:k - 1 + i + len(w[i:i + chunk])] = fn(w[i:i + chunk])
    return out


def _pstd(w):
    m = w.mean(axis=1)
    d = w - m[:, None]
    return np.sqrt((d * d).mean(axis=1))


def zscore(x, k):
    """(x_t - mean)/population std over the window incl. t; 0 on a constant window (tested
    as max == min: a std < eps test would depend on the series' scale)."""
    mean = roll_sum(x, k) / k
    sd = roll_apply(x, k, _pstd)
    const = roll_max(x, k) == roll_min(x, k)
    with np.errstate(invalid="ignore", divide="ignore"):
        z = (x - mean) / sd
    return np.where(const, 0.0, z)


# ----------------------------------------------------------------------------- TA-Lib algorithms
def ema(x, k, seed_end):
    """TA-Lib EMA (alpha 2/(k+1)): seeded at bar seed_end by the SMA of the k values ending
    there, then prev = (x - prev)*alpha + prev (TA-Lib's operation order)."""
    n = len(x)
    out = [NAN] * n
    if seed_end >= n:
        return np.array(out)
    a = 2.0 / (k + 1)
    xs = x.tolist()
    prev = 0.0
    for i in range(seed_end - k + 1, seed_end + 1):    # sequential sum, as TA-Lib
        prev += xs[i]
    prev /= k
    out[seed_end] = prev
    for t in range(seed_end + 1, n):
        prev = (xs[t] - prev) * a + prev
        out[t] = prev
    return np.array(out)


def sma(x, k):
    return roll_sum(x, k) / k


def rsi(c, k):
    """TA-Lib RSI: first value at bar k from the plain means of the gains/losses of bars 1..k,
    then Wilder smoothing; 0 when gain+loss is exactly 0 (TA-Lib 0.8.1: no epsilon band; a
    1e-8 band, as in TA-Lib <= 0.6, zeroes a decaying flat stretch of a cheap instrument)."""
    n = len(c)
    out = [NAN] * n
    cs = c.tolist()
    g = l = 0.0
    for t in range(1, k + 1):
        d = cs[t] - cs[t - 1]
        if d < 0:
            l -= d
        else:
            g += d
    g /= k
    l /= k
    s = g + l
    out[k] = 100.0 * (g / s) if s > 0.0 else 0.0
    for t in range(k + 1, n):
        d = cs[t] - cs[t - 1]
        l *= k - 1
        g *= k - 1
        if d < 0:
            l -= d
        else:
            g += d
        l /= k
        g /= k
        s = g + l
        out[t] = 100.0 * (g / s) if s > 0.0 else 0.0
    return np.array(out)


def macd(c):
    """TA-Lib MACD(12,26,9). Quirk: both EMAs start at bar 25 (the slow lookback); the fast
    EMA is seeded there by the SMA of bars 14..25, NOT of bars 0..11 as a plain EMA(12)
    would be. The signal EMA(9) is seeded by the SMA of macd[25..33]; output from bar 33."""
    fast = ema(c, 12, 25)
    slow = ema(c, 26, 25)
    line = fast - slow
    sig = np.full(len(c), NAN)
    sig[25:] = ema(line[25:], 9, 8)
    line[:33] = NAN
    return line, sig, line - sig


def true_range(h, l, c):
    """TA-Lib TRANGE (bar 0 has no previous close: NaN)."""
    tr = np.full(len(c), NAN)
    pc = c[:-1]
    tr[1:] = np.maximum(np.maximum(h[1:] - l[1:], np.abs(pc - h[1:])), np.abs(l[1:] - pc))
    return tr


def atr(h, l, c, k):
    """TA-Lib ATR: first value at bar k = mean of TR[1..k], then Wilder (prev*(k-1)+TR)/k."""
    tr = true_range(h, l, c).tolist()
    n = len(c)
    out = [NAN] * n
    prev = 0.0
    for t in range(1, k + 1):
        prev += tr[t]
    prev /= k
    out[k] = prev
    for t in range(k + 1, n):
        prev = (prev * (k - 1) + tr[t]) / k
        out[t] = prev
    return np.array(out)


def bbands(c, k=20, dev=2.0):
    """TA-Lib BBANDS(k, dev, dev, SMA), population std. TA-Lib 0.8.1 keeps a shifted running
    variance that it re-seeds when cancellation threatens, and zeroes it only when it is
    below 1e-12 of the window's mean square deviation (0.6 zeroed any variance < 1e-14, 0.4
    any < 1e-8: absolute). So the bands meet only on a constant window; two-pass here."""
    mid = sma(c, k)
    sd = roll_apply(c, k, _pstd)
    sd = np.where(roll_max(c, k) == roll_min(c, k), 0.0, sd)
    t = sd * dev
    return mid + t, mid, mid - t


def stochf(h, l, c, k=14, d=3):
    """TA-Lib STOCHF(k, d, SMA): fastk = (C-LL)/((HH-LL)/100); 0 when the range is within
    1e-14 of |HH|+|LL| (TA-Lib 0.8.1's scale-relative test; in practice HH == LL)."""
    hh, ll = roll_max(h, k), roll_min(l, k)
    diff = (hh - ll) / 100.0
    flat = np.abs(hh - ll) <= TA_EPS * (np.abs(hh) + np.abs(ll))
    with np.errstate(invalid="ignore", divide="ignore"):
        fk = np.where(flat, 0.0, (c - ll) / diff)
    fk[:k - 1] = NAN
    fd = sma(np.nan_to_num(fk), d)
    fd[:k + d - 2] = NAN
    return fk, fd


def willr(h, l, c, k=14):
    """TA-Lib WILLR: (HH-C)/((HH-LL)/-100), 0 when HH == LL (an exact test, unlike STOCHF).
    HH == C gives -0.0, as TA-Lib does."""
    hh, ll = roll_max(h, k), roll_min(l, k)
    diff = (hh - ll) / -100.0
    with np.errstate(invalid="ignore", divide="ignore"):
        w = np.where(diff != 0, (hh - c) / diff, 0.0)
    w[:k - 1] = NAN
    return w


def cci(h, l, c, k=20):
    """TA-Lib CCI: (tp - mean)/(0.015 * mean |tp - mean|), tp = (H+L+C)/3; 0 when tp - mean
    or the sum of |tp - mean| is within the fixed band 1e-14 (TA-Lib 0.8.1 still uses it
    here). On a constant tp, older TA-Lib divided rounding residue by rounding residue
    (+-66.7, its issue #7), and at prices > ~100 the residue can exceed 1e-14: the feature is
    defined as 0 there, tested as max == min."""
    tp = (h + l + c) / 3.0

    def f(w):
        m = w.mean(axis=1)
        mad = np.abs(w - m[:, None]).mean(axis=1)
        x = w[:, -1] - m
        with np.errstate(invalid="ignore", divide="ignore"):
            ok = (np.abs(x) >= TA_EPS) & (mad * k >= TA_EPS)
            return np.where(ok, x / (0.015 * mad), 0.0)
    out = roll_apply(tp, k, f)
    const = roll_max(tp, k) == roll_min(tp, k)
    return np.where(const, 0.0, out)


def adx(h, l, c, p=14):
    """TA-Lib ADX, statement for statement: DM and TR summed over bars 1..p-1, Wilder-smoothed
    (x -= x/p; x += new) over bars p..2p-1 while summing DX; first ADX = sumDX/p at bar 2p-1;
    then ADX = (ADX*(p-1)+DX)/p, kept unchanged where DX is undefined: the smoothed TR is
    exactly 0, or +DI + -DI (dimensionless, 0..200) is within the fixed band 1e-14."""
    H, L, C = h.tolist(), l.tolist(), c.tolist()
    n = len(C)
    out = [NAN] * n

    def iz(x):
        return -TA_EPS < x < TA_EPS

    def step(t, pm, pp, ptr, smooth):
        dp = H[t] - H[t - 1]
        dm = L[t - 1] - L[t]
        if smooth:
            pm -= pm / p
            pp -= pp / p
        if dm > 0 and dp < dm:
            pm += dm
        elif dp > 0 and dp > dm:
            pp += dp
        tr = H[t] - L[t]
        x = abs(H[t] - C[t - 1])
        if x > tr:
            tr = x
        x = abs(L[t] - C[t - 1])
        if x > tr:
            tr = x
        ptr = ptr - ptr / p + tr if smooth else ptr + tr
        dx = None
        if ptr > 0.0:
            mdi = 100.0 * (pm / ptr)
            pdi = 100.0 * (pp / ptr)
            s = mdi + pdi
            if not iz(s):
                dx = 100.0 * (abs(mdi - pdi) / s)
        return pm, pp, ptr, dx

    pm = pp = ptr = 0.0
    for t in range(1, p):
        pm, pp, ptr, _ = step(t, pm, pp, ptr, False)
    sdx = 0.0
    for t in range(p, 2 * p):
        pm, pp, ptr, dx = step(t, pm, pp, ptr, True)
        if dx is not None:
            sdx += dx
    a = sdx / p
    out[2 * p - 1] = a
    for t in range(2 * p, n):
        pm, pp, ptr, dx = step(t, pm, pp, ptr, True)
        if dx is not None:
            a = (a * (p - 1) + dx) / p
        out[t] = a
    return np.array(out)


def mfi(h, l, c, v, k=14):
    """TA-Lib MFI: flows tp*V of the k bars t-k+1..t, positive/negative by the sign of the tp
    change; first value at bar k. TA-Lib 0.8.1: a change within 1e-14 of |tp|+|tp_prev|
    counts as none, and the index is 0 only when the window's total flow is 0 (TA-Lib <= 0.6
    zeroed any total below 1.0, a constant in the quote unit: its issue #244)."""
    tp = (h + l + c) / 3.0
    d = np.full(len(c), 0.0)
    d[1:] = tp[1:] - tp[:-1]
    d[1:][np.abs(d[1:]) <= TA_EPS * (np.abs(tp[1:]) + np.abs(tp[:-1]))] = 0.0
    fl = tp * v
    pos = np.where(d > 0, fl, 0.0)
    neg = np.where(d < 0, fl, 0.0)
    ps = roll_apply(pos, k, lambda w: w.sum(axis=1))
    ns = roll_apply(neg, k, lambda w: w.sum(axis=1))
    tot = ps + ns
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(tot > 0.0, 100.0 * (ps / tot), 0.0)
    out[:k] = NAN
    return out


def obv(c, v):
    """TA-Lib OBV: starts at V[0] (not 0); +V on an up close, -V on a down close."""
    s = np.zeros(len(c))
    s[1:] = np.sign(c[1:] - c[:-1])
    s[0] = 1.0
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
    r1[1:] = np.log(c[1:] / c[:-1])          # r1[0] undefined; only reaches bars < warmup
    for j, k in enumerate(RET_K):
        F[k:, j] = np.log(c[k:] / c[:-k])
    for j, k in enumerate(VOL_K):
        s1, s2 = roll_sum(r1, k), roll_sum(r1 * r1, k)
        var = np.maximum((s2 - s1 * s1 / k) / (k - 1), 0.0)
        const = roll_max(r1, k) == roll_min(r1, k)
        F[:, 11 + j] = np.where(const, 0.0, np.sqrt(var))
    a = 2.0 / 101.0
    rr = (r1 * r1).tolist()
    ev = [NAN] * n
    x = rr[1]                                 # "v at the first return = r1^2"
    ev[1] = x
    for t in range(2, n):
        x = (1.0 - a) * x + a * rr[t]
        ev[t] = x
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
    F[:, 36] = willr(h, l, c)
    F[:, 37] = cci(h, l, c)
    F[:, 38] = adx(h, l, c)
    F[:, 39] = mfi(h, l, c, v)
    F[:, 40] = zscore(obv(c, v), 60)
    F[:, 41] = zscore(v, 60)
    F[:, 42] = np.log((v + 1.0) / (sma(v, 60) + 1.0))
    F[:, 43] = (h - l) / c
    F[:, 44] = (c - o) / c
    F[:, 45] = (h - np.maximum(o, c)) / c
    F[:, 46] = (np.minimum(o, c) - l) / c
    tod = 2.0 * np.pi * (ts % 86400) / 86400.0
    dow = 2.0 * np.pi * ((ts // 86400 + 3) % 7) / 7.0    # 1970-01-01 was a Thursday (3)
    F[:, 47], F[:, 48], F[:, 49], F[:, 50] = np.sin(tod), np.cos(tod), np.sin(dow), np.cos(dow)
    F[:WARMUP] = NAN
    return F


# ----------------------------------------------------------------------------- --talib self-check
def _scale(x):
    """Robust magnitude of a feature: 99th percentile of |x| over finite values (>= 1e-12)."""
    x = np.abs(x[np.isfinite(x)])
    return max(float(np.percentile(x, 99)) if len(x) else 0.0, 1e-12)


def talib_check(ts, o, h, l, c, v):
    """Reference vs real TA-Lib on bars >= WARMUP. Pass: |ref - ta| <= 1e-5 * max(|ta|, floor),
    floor = 1e-3 * scale (an absolute floor of 1e-8 * scale where the value is ~0)."""
    import talib
    F = compute(ts, o, h, l, c, v)
    T = {}
    for k in (7, 14, 28):
        T[f"rsi_{k}"] = talib.RSI(c, k)
    m, s, hh = talib.MACD(c, 12, 26, 9)
    T["macd"], T["macd_signal"], T["macd_hist"] = m / c, s / c, hh / c
    up, mid, lo = talib.BBANDS(c, 20, 2.0, 2.0, 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        T["bb_pctb"] = (c - lo) / (up - lo)
    T["bb_width"] = (up - lo) / mid
    T["atr_14"], T["atr_60"] = talib.ATR(h, l, c, 14) / c, talib.ATR(h, l, c, 60) / c
    for k in MA_K:
        T[f"sma_ratio_{k}"] = c / talib.SMA(c, k) - 1.0
        T[f"ema_ratio_{k}"] = c / talib.EMA(c, k) - 1.0
    T["stoch_k"], T["stoch_d"] = talib.STOCHF(h, l, c, 14, 3, 0)
    T["willr_14"] = talib.WILLR(h, l, c, 14)
    T["cci_20"] = talib.CCI(h, l, c, 20)
    T["adx_14"] = talib.ADX(h, l, c, 14)
    T["mfi_14"] = talib.MFI(h, l, c, v, 14)
    T["obv_z"] = zscore(talib.OBV(c, v), 60)      # same z-score code: this tests OBV itself
    # On a constant 20-bar close TA-Lib's bands meet and its %b is 0/0 = NaN; FEATURES.md
    # defines 0.5 there. (CCI on a constant tp needs no exclusion: TA-Lib 0.8.1 gives 0.)
    excl = {"bb_pctb": roll_max(c, 20) == roll_min(c, 20)}
    ok = True
    print(f"{'feature':<14}{'max abs err':>13}{'max rel err':>13}{'worst bar':>11}{'excl':>7}")
    for name, ta in T.items():
        j = IDX[name]
        ref = F[WARMUP:, j]
        ta = ta[WARMUP:]
        keep = ~excl.get(name, np.zeros(len(c), bool))[WARMUP:]
        d = np.where(keep, np.abs(ref - ta), 0.0)
        d[keep & ~(np.isfinite(ref) & np.isfinite(ta))] = np.inf
        sc = _scale(ta[keep])
        if name == "bb_pctb":     # FEATURES.md: TA-Lib's running sum drifts ~1e-5 of the spread
            fin = ta[keep & np.isfinite(ta)]
            den = np.full(len(ta), float(np.percentile(fin, 99) - np.percentile(fin, 1)))
        else:
            den = np.maximum(np.abs(ta), 1e-3 * sc)
        rel = d / den
        w = int(np.argmax(rel))
        bad = rel[w] > 1e-5
        print(f"{name:<14}{d.max():13.3e}{rel[w]:13.3e}{w + WARMUP:11d}{int((~keep).sum()):7d}"
              + ("  FAIL" if bad else ""))
        if bad:
            ok = False
            print(f"  MISMATCH {name} bar {w + WARMUP}: reference {ref[w]:.17g} talib {ta[w]:.17g}")
    ok &= spot_check(ts, o, h, l, c, v, F)
    return ok


def spot_check(ts, o, h, l, c, v, F, nbars=400):
    """The non-TA-Lib features, recomputed naively (slices, datetime) at random bars."""
    import datetime
    rng = np.random.default_rng(1)
    bars = np.unique(np.concatenate(([WARMUP, len(c) - 1],
                                     rng.integers(WARMUP, len(c), nbars))))
    r1 = np.log(c[1:] / c[:-1])
    ev = r1[0] ** 2
    evs = [NAN, ev]
    for x in r1[1:]:                          # v += a (r^2 - v): same recursion, other order
        ev += 2.0 / 101.0 * (x * x - ev)
        evs.append(ev)
    obvs = np.cumsum(np.concatenate(([v[0]], np.sign(np.diff(c)) * v[1:])))
    worst = 0.0
    ok = True
    for t in bars:
        exp = {f"ret_{k}": math.log(c[t] / c[t - k]) for k in RET_K}
        exp.update({f"vol_{k}": float(np.std(r1[t - k:t], ddof=1)) for k in VOL_K})
        exp["ewm_vol"] = math.sqrt(evs[t])
        for name, x in (("obv_z", obvs), ("volume_z", v)):
            w = x[t - 59:t + 1]
            exp[name] = 0.0 if w.max() == w.min() else float((x[t] - w.mean()) / w.std())
        exp["volume_ratio"] = math.log((v[t] + 1) / (v[t - 59:t + 1].mean() + 1))
        exp.update(range=(h[t] - l[t]) / c[t], body=(c[t] - o[t]) / c[t],
                   upper_wick=(h[t] - max(o[t], c[t])) / c[t],
                   lower_wick=(min(o[t], c[t]) - l[t]) / c[t])
        dt = datetime.datetime.fromtimestamp(int(ts[t]), datetime.timezone.utc)
        sod = dt.hour * 3600 + dt.minute * 60 + dt.second
        exp.update(tod_sin=math.sin(2 * math.pi * sod / 86400),
                   tod_cos=math.cos(2 * math.pi * sod / 86400),
                   dow_sin=math.sin(2 * math.pi * dt.weekday() / 7),
                   dow_cos=math.cos(2 * math.pi * dt.weekday() / 7))
        for name, e in exp.items():
            err = abs(F[t, IDX[name]] - e) / max(abs(e), 1e-6)
            worst = max(worst, err)
            if not err <= 1e-7:
                ok = False
                print(f"  MISMATCH {name} bar {t}: reference {F[t, IDX[name]]:.17g} naive {e:.17g}")
    print(f"spot check of the {len(exp)} non-TA-Lib features at {len(bars)} bars: "
          f"max rel err {worst:.3e}" + ("" if ok else "  FAIL"))
    return ok


# ----------------------------------------------------------------------------- --h5 comparison
def h5_check(ts, o, h, l, c, v, path):
    import h5py
    fails = []
    F = compute(ts, o, h, l, c, v)
    n = len(c)
    with h5py.File(path, "r") as f:
        G = f["/features"][...]
        if G.shape != (n, NF):
            print(f"FAIL {path}:/features shape {G.shape}, expected ({n}, {NF}) from the CSV")
            return False
        if G.dtype != np.float32:
            fails.append(f"/features dtype {G.dtype}, expected float32")
        names = f["/features"].attrs.get("names")
        if names is not None:
            names = [x.decode() if isinstance(x, bytes) else str(x) for x in np.ravel(names)]
            if names != NAMES:
                fails.append(f"/features attribute names {names} != FEATURES.md's {NAMES}")
        warm = int(np.ravel(f.attrs.get("warmup", [-1]))[0])
        if warm != WARMUP:
            fails.append(f"root attribute warmup = {warm}, expected {WARMUP}")
        for key, ref in (("timestamp", ts), ("open", o), ("high", h), ("low", l),
                         ("close", c), ("volume", v)):
            got = f[f"/bars/{key}"][...]
            if got.shape != ref.shape or not np.array_equal(got, ref):
                i = int(np.argmax(got != ref)) if got.shape == ref.shape else -1
                fails.append(f"/bars/{key} differs from the repaired CSV"
                             + (f" at bar {i}: {got[i]:.17g} vs {ref[i]:.17g}" if i >= 0 else
                                f" (shape {got.shape} vs {ref.shape})"))
        P = f["/prices"][...]
        Pref = np.stack([o, h, l, c], axis=1).astype(np.float32)
        if P.shape != Pref.shape or P.dtype != np.float32 or not np.array_equal(P, Pref):
            fails.append(f"/prices ({P.dtype} {P.shape}) != f32(O,H,L,C)")
        tb, te = (int(x) for x in np.ravel(f.attrs["split_train"]))
        nmean, nstd = f["/norm/mean"][...], f["/norm/std"][...]
    # NaN exactly where the reference is NaN (bars < warmup)
    nan_got, nan_ref = np.isnan(G), np.isnan(F)
    if not np.array_equal(nan_got, nan_ref):
        i, j = np.argwhere(nan_got != nan_ref)[0]
        fails.append(f"/features NaN pattern differs first at bar {i} feature {NAMES[j]}: "
                     f"got {G[i, j]:.9g}, reference {F[i, j]:.9g}")
    if np.isinf(G).any():
        fails.append("/features holds inf")
    print(f"{'feature':<14}{'max abs err':>13}{'max rel err':>13}{'worst bar':>11}")
    Gd = G.astype(np.float64)
    for j, name in enumerate(NAMES):
        ref = F[WARMUP:, j]
        got = Gd[WARMUP:, j]
        if len(ref) == 0:
            break
        atol = 1e-6 * _scale(ref)
        if name == "bb_pctb":   # FEATURES.md: running sums make this drift ~1e-5 of the spread
            atol = max(atol, 1e-5 * float(np.percentile(ref, 99) - np.percentile(ref, 1)))
        d = np.abs(got - ref)
        d = np.where(np.isnan(d), np.inf, d)
        excess = d - (2e-5 * np.abs(ref) + atol)
        w = int(np.argmax(excess))
        rel = d / np.maximum(np.abs(ref), atol / 2e-5)
        bad = excess[w] > 0
        print(f"{name:<14}{d.max():13.3e}{rel.max():13.3e}{int(np.argmax(rel)) + WARMUP:11d}"
              + ("  FAIL" if bad else ""))
        if bad:
            fails.append(f"feature {j} {name} bar {w + WARMUP}: got {got[w]:.9g}, "
                         f"reference {ref[w]:.12g} (tolerance 2e-5*|ref| + {atol:.3g})")
    # normalisation statistics: population mean/std over the train split
    if not (WARMUP <= tb <= te <= n):
        fails.append(f"split_train [{tb}, {te}) is not inside [warmup, N) = [{WARMUP}, {n})")
    elif te > tb:
        X = F[tb:te]
        mu, sd = X.mean(axis=0), X.std(axis=0)
        for j, name in enumerate(NAMES):
            # mean errors are judged in units of the feature's spread (a mean of ~0 is normal)
            if abs(nmean[j] - mu[j]) > 1e-4 * (abs(mu[j]) + sd[j]) + 1e-30:
                fails.append(f"/norm/mean[{j}] {name} = {nmean[j]:.9g}, reference {mu[j]:.12g}")
            if abs(nstd[j] - sd[j]) > 1e-4 * sd[j] + 1e-30:
                fails.append(f"/norm/std[{j}] {name} = {nstd[j]:.9g}, reference {sd[j]:.12g}")
    for msg in fails:
        print("FAIL " + msg)
    print(f"{path}: {'OK' if not fails else f'{len(fails)} failure(s)'} ({n} bars)")
    return not fails


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--talib", metavar="CSV", help="self-check against the TA-Lib wrapper")
    ap.add_argument("--csv", help="input CSV given to foxopt import")
    ap.add_argument("--h5", help="dataset.h5 written by foxopt import")
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
