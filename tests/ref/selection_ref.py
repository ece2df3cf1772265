#!/usr/bin/env python3
"""Independent reference for foxopt's selection statistics (src/report/selection.h).

Written from the papers, not from the C code: Bailey & Lopez de Prado (2012) "The Sharpe ratio
efficient frontier" (PSR, MinTRL), Bailey & Lopez de Prado (2014) "The deflated Sharpe ratio"
(SR*_0, DSR) and Bailey, Borwein, Lopez de Prado & Zhu (2017) "The probability of backtest
overfitting" (CSCV). The straightforward way on purpose: scipy's moments and normal
distribution, itertools' combinations, and every half's Sharpe from its concatenated rows.

  selection_ref.py gen KIND --t T --n N --seed S -o M.csv
        KIND: noise, edge, heavy, offset, ties (random matrices in returns' real scale)
  selection_ref.py check --csv M.csv --got OUT.json --blocks S [--sr-star X] [--alpha A]
  selection_ref.py ppf-grid                    probabilities for `selection_cli --ppf`
  selection_ref.py ppf-check --grid P --got OUT.json
  selection_ref.py selftest                    the DSR paper's numerical example
Exit 0 when everything agrees, 1 on any mismatch, 2 on bad usage.
"""
import argparse
import itertools
import json
import math
import sys

import numpy as np
from scipy import stats
from scipy.stats import norm

RTOL, ATOL = 1e-9, 1e-12


# ----------------------------------------------------------------------------- definitions
def sharpe(x):
    """Per-bar Sharpe of each column of x (rows = bars): mean / std(ddof=1), 0 where std is 0."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 1:
        x = x[:, None]
    mu = x.mean(axis=0)
    sd = x.std(axis=0, ddof=1)
    out = np.zeros_like(mu)
    ok = sd > 0
    out[ok] = mu[ok] / sd[ok]
    return out


def moments(r):
    r = np.asarray(r, dtype=np.float64)
    with np.errstate(all="ignore"):
        sk = float(stats.skew(r, bias=True))
        ku = float(stats.kurtosis(r, fisher=False, bias=True))
    return len(r), float(sharpe(r)[0]), sk, ku


def var_term(sr, sk, ku):
    """1 - skew SR + (kurt - 1)/4 SR^2: (T - 1) times the variance of the SR estimate."""
    return 1.0 - sk * sr + (ku - 1.0) / 4.0 * sr * sr


def psr(t, sr, sk, ku, sr_star):
    v = var_term(sr, sk, ku)
    if t < 2 or not v > 0:
        return math.nan
    return float(norm.cdf((sr - sr_star) * math.sqrt(t - 1) / math.sqrt(v)))


def expected_max_sr(var_sr, n):
    if n < 1 or not var_sr >= 0:
        return math.nan
    if n == 1:
        return 0.0
    g = np.euler_gamma
    return math.sqrt(var_sr) * ((1 - g) * norm.ppf(1 - 1 / n) + g * norm.ppf(1 - 1 / (n * math.e)))


def min_trl(sr, sk, ku, sr_star, alpha):
    v = var_term(sr, sk, ku)
    if not (0 < alpha < 1) or not v > 0:
        return math.nan
    if sr <= sr_star:
        return math.inf
    return 1 + v * (norm.ppf(1 - alpha) / (sr - sr_star)) ** 2


def cscv(m, s):
    """PBO by CSCV: s blocks of T // s rows after dropping the T % s oldest rows; every choice
    of s/2 blocks as the in-sample half, its complement out of sample."""
    t, n = m.shape
    m = m[t % s:]
    size = t // s
    blocks = [m[b * size:(b + 1) * size] for b in range(s)]
    best, logits, is_sr, oos_sr = [], [], [], []
    for ins in itertools.combinations(range(s), s // 2):
        outs = [b for b in range(s) if b not in ins]
        sr_in = sharpe(np.concatenate([blocks[b] for b in ins]))
        sr_out = sharpe(np.concatenate([blocks[b] for b in outs]))
        j = int(np.argmax(sr_in))                      # first maximum: lowest index on ties
        rank = stats.rankdata(sr_out, method="average")[j]
        w = rank / (n + 1)
        best.append(j)
        logits.append(math.log(w / (1 - w)))
        is_sr.append(float(sr_in[j]))
        oos_sr.append(float(sr_out[j]))
    x, y = np.array(is_sr), np.array(oos_sr)
    if np.ptp(x) == 0:
        slope = intercept = r2 = math.nan
    else:
        fit = stats.linregress(x, y)
        slope, intercept = float(fit.slope), float(fit.intercept)
        r2 = float(fit.rvalue ** 2) if np.ptp(y) > 0 else math.nan
    return {"blocks": s, "block_rows": size, "dropped_rows": t % s, "combos": len(best),
            "pbo": float(np.mean(np.array(logits) <= 0)), "slope": slope, "intercept": intercept,
            "r2": r2, "prob_oos_loss": float(np.mean(y < 0)), "best": best, "logits": logits,
            "is_sr": is_sr, "oos_sr": oos_sr}


# ----------------------------------------------------------------------------- comparison
class Compare:
    def __init__(self):
        self.bad = 0
        self.n = 0

    def num(self, what, got, want, atol=ATOL):
        self.n += 1
        got, want = float(got), float(want)
        if math.isnan(want) or math.isnan(got):
            ok = math.isnan(want) and math.isnan(got)
        elif math.isinf(want) or math.isinf(got):
            ok = got == want
        else:
            ok = abs(got - want) <= atol + RTOL * max(abs(got), abs(want))
        if not ok:
            self.bad += 1
            if self.bad <= 20:
                print(f"MISMATCH {what}: foxopt {got!r}, reference {want!r}")

    def exact(self, what, got, want):
        self.n += 1
        if got != want:
            self.bad += 1
            if self.bad <= 20:
                print(f"MISMATCH {what}: foxopt {got!r}, reference {want!r}")


def check(args):
    m = np.loadtxt(args.csv, delimiter=",", ndmin=2)
    with open(args.got) as f:
        got = json.load(f)
    c = Compare()
    t, n = m.shape
    c.exact("t", got["t"], t)
    c.exact("n", got["n"], n)
    mo = [moments(m[:, j]) for j in range(n)]
    for j, (tt, sr, sk, ku) in enumerate(mo):
        g = got["columns"][j]
        c.num(f"column {j} sr", g["sr"], sr)
        # Each deviation r - mean carries ~eps |mean| of rounding, eps |mean| / std = eps |sr|
        # of the std: that much of skewness and kurtosis is not in the data, whoever computes
        # them (~1e-11 at the offset matrix's sr ~ 1e4, against a skewness of ~0.01).
        c.num(f"column {j} skew", g["skew"], sk, atol=ATOL + 1e-13 * abs(sr))
        c.num(f"column {j} kurt", g["kurt"], ku, atol=ATOL + 1e-13 * abs(sr))
        c.num(f"column {j} psr", g["psr"], psr(tt, sr, sk, ku, args.sr_star))
        c.num(f"column {j} min_trl", g["min_trl"], min_trl(sr, sk, ku, args.sr_star, args.alpha))
    srs = np.array([x[1] for x in mo])
    best = int(np.argmax(srs))
    var_sr = float(np.var(srs, ddof=1))
    emax = expected_max_sr(var_sr, n)
    c.exact("best", got["best"], best)
    c.num("var_sr", got["var_sr"], var_sr)
    c.num("expected_max_sr", got["expected_max_sr"], emax)
    tt, sr, sk, ku = mo[best]
    c.num("dsr", got["dsr"], psr(tt, sr, sk, ku, emax))
    ref = cscv(m, args.blocks)
    gp = got["pbo"]
    for k in ("blocks", "block_rows", "dropped_rows", "combos"):
        c.exact(k, gp[k], ref[k])
    for k in ("pbo", "slope", "intercept", "r2", "prob_oos_loss"):
        c.num(k, gp[k], ref[k])
    if len(gp["best"]) == ref["combos"]:
        for i in range(ref["combos"]):
            c.exact(f"combo {i} n*", gp["best"][i], ref["best"][i])
            for k in ("logits", "is_sr", "oos_sr"):
                c.num(f"combo {i} {k}", gp[k][i], ref[k][i])
    lg = np.array(ref["logits"])
    print(f"{args.csv}: T {t} N {n} S {args.blocks}: {ref['combos']} combos, "
          f"PBO {ref['pbo']:.4f}, logits in [{lg.min():.3f}, {lg.max():.3f}], "
          f"slope {ref['slope']:.4f}, DSR {psr(tt, sr, sk, ku, emax):.4f}: "
          f"{c.n - c.bad}/{c.n} figures agree")
    return 1 if c.bad else 0


# ----------------------------------------------------------------------------- inputs
def gen(args):
    """Returns of the size real per-bar series have (~1e-4 around ~1e-6), so that a
    sum-of-squares variance would lose its digits."""
    rng = np.random.default_rng(args.seed)
    t, n = args.t, args.n
    z = rng.standard_normal((t, n))
    if args.kind == "noise":
        m = 1e-6 + 1e-4 * z
    elif args.kind == "edge":
        m = 1e-6 + 1e-4 * z
        m[:, n // 3] += 0.15e-4                          # a real per-bar Sharpe of 0.15
    elif args.kind == "heavy":
        m = 1e-6 + 1e-4 * z
        h = n // 3
        m[:, :h] = 1e-6 + 1e-4 * rng.standard_t(3, (t, h)) / math.sqrt(3)
        e = rng.exponential(1.0, (t, h))              # negative skew: small gains, rare crashes
        m[:, h:2 * h] = 2e-5 + 1e-4 * (1.0 - e) * np.where(rng.random((t, h)) < 0.1, 4, 0.3)
        m[:, 2 * h:] += 1e-4 * np.where(rng.random((t, n - 2 * h)) < 0.02, 8.0, 0.0)
    elif args.kind == "offset":
        m = 1e-3 + 1e-7 * z                              # mean 1e4 times the std: Sharpe ~1e4
    elif args.kind == "ties":
        # Exact ties, the same bit pattern in any correct arithmetic: duplicated columns,
        # columns scaled by powers of 2 (the Sharpe is scale-free and the scaling exact), a
        # negated column, and all-zero columns (Sharpe 0 everywhere).
        base = 1e-6 + 1e-4 * z[:, :4]
        cols = [base[:, 0], base[:, 0], 2 * base[:, 0], -base[:, 0], np.zeros(t), np.zeros(t),
                base[:, 1], 0.5 * base[:, 1], base[:, 2], base[:, 2], 4 * base[:, 3],
                base[:, 3]]
        m = np.column_stack(cols[:max(n, 2)])
    else:
        raise SystemExit(f"selection_ref: unknown kind {args.kind!r}")
    np.savetxt(args.o, m, delimiter=",", fmt="%.17g")
    return 0


def ppf_grid():
    ps = [i / 2048 for i in range(1, 2048)]
    ps += [10.0 ** -k for k in range(1, 301, 3)] + [1 - 10.0 ** -k for k in range(1, 16)]
    ps += [0.425 + 0.075, 0.5 - 0.425, 0.5 + 0.425, math.exp(-25), 1 - 1 / (100 * math.e)]
    for p in ps:
        print(repr(p))
    for x in np.linspace(-38, 9, 189):
        print(repr(float(x)))
    return 0


def ppf_check(args):
    xs = [float(line) for line in open(args.grid) if line.strip()]
    with open(args.got) as f:
        got = json.load(f)
    worst_p = worst_c = 0.0
    bad = 0
    for x, gp, gc in zip(xs, got["ppf"], got["cdf"]):
        if 0 < x < 1:
            want = float(norm.ppf(x))
            err = abs(gp - want) / max(abs(want), 1e-300)
            worst_p = max(worst_p, err)
            if err > 1e-14:
                bad += 1
                print(f"MISMATCH ppf({x!r}): foxopt {gp!r}, scipy {want!r}")
        # Phi(x) = erfc(-x / sqrt 2) / 2: the rounding of x / sqrt 2 alone moves erfc by its
        # condition number, ~x^2, times eps, in both implementations (~3e-13 at x = -37).
        # scipy's ndtr flushes to 0 below ~1e-308, where erfc still gives subnormals.
        want = float(norm.cdf(x))
        if want < 1e-300:
            ok = gc < 1e-300
            err = 0.0
        else:
            err = abs(gc - want) / want
            ok = err <= 1e-15 * max(4.0, 2 * x * x)
        worst_c = max(worst_c, err)
        if not ok:
            bad += 1
            print(f"MISMATCH cdf({x!r}): foxopt {gc!r}, scipy {want!r}")
    print(f"ppf vs scipy.stats.norm.ppf: worst relative {worst_p:.2e}; cdf vs norm.cdf: "
          f"{worst_c:.2e}, over {len(xs)} points")
    return 1 if bad or len(xs) != len(got["ppf"]) else 0


def selftest():
    """Bailey & Lopez de Prado (2014), numerical example: annualised SR 2.5 over T = 1250 daily
    returns (250 a year) with skewness -3 and kurtosis 10, best of N = 100 trials whose
    annualised Sharpes have variance 0.5. The paper prints SR*_0 ~ 0.1132 (per day) and
    DSR ~ 0.9004."""
    sr, v = 2.5 / math.sqrt(250), 0.5 / 250
    sr0 = expected_max_sr(v, 100)
    dsr = psr(1250, sr, -3.0, 10.0, sr0)
    print(f"DSR example: SR = {sr!r} per day, SR*_0 = {sr0!r}, DSR = {dsr!r}")
    ok = abs(sr0 - 0.1132) <= 5e-5 and abs(dsr - 0.9004) <= 5e-5
    # The CSCV of the unit test's hand-worked 4-block matrix (tests/unit/test_selection.c).
    mu = {0: [1, 1, -1, -1], 1: [0, 0, 1, 1], 2: [0, 0, 0, 0]}
    m = np.array([[0.0 if j == 2 else mu[j][b] + d for j in range(3)]
                  for b in range(4) for d in (-1.0, 1.0)])
    r = cscv(m, 4)
    a, b = math.sqrt(3) / 2, math.sqrt(3 / 20)
    ok &= r["best"] == [0, 1, 1, 1, 1, 1] and abs(r["pbo"] - 1 / 3) < 1e-15
    ok &= np.allclose(r["logits"], [math.log(1 / 3)] + [math.log(3)] * 4 + [math.log(0.6)])
    ok &= abs(r["slope"] + (a + 2 * b) / (2 * (a - b))) < 1e-12
    print(f"hand-worked CSCV: logits {np.round(r['logits'], 6).tolist()}, slope {r['slope']!r}, "
          f"intercept {r['intercept']!r}, r2 {r['r2']!r}")
    print("selftest", "ok" if ok else "FAILED")
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("kind")
    g.add_argument("--t", type=int, required=True)
    g.add_argument("--n", type=int, required=True)
    g.add_argument("--seed", type=int, required=True)
    g.add_argument("-o", required=True)
    c = sub.add_parser("check")
    c.add_argument("--csv", required=True)
    c.add_argument("--got", required=True)
    c.add_argument("--blocks", type=int, required=True)
    c.add_argument("--sr-star", type=float, default=0.0)
    c.add_argument("--alpha", type=float, default=0.05)
    sub.add_parser("ppf-grid")
    p = sub.add_parser("ppf-check")
    p.add_argument("--grid", required=True)
    p.add_argument("--got", required=True)
    sub.add_parser("selftest")
    args = ap.parse_args()
    if args.cmd == "gen":
        return gen(args)
    if args.cmd == "check":
        return check(args)
    if args.cmd == "ppf-grid":
        return ppf_grid()
    if args.cmd == "ppf-check":
        return ppf_check(args)
    return selftest()


if __name__ == "__main__":
    sys.exit(main())
