#!/usr/bin/env python3
"""Independent reference for foxopt's market, backtest and metrics (DESIGN.md sections 4-6).

Written from the rules text, not from the C code, so that a test can tell a bug in foxopt
apart from a misunderstanding shared with it. A plain per-bar float64 loop on purpose: it is
the easiest form to check by eye against the rules.

  market_ref.py gen-actions --n N --seed S -o A.csv [--p-buy 0.05 --p-sell 0.05]
  market_ref.py check --h5 DATA.h5 --actions A.csv --split S [--folds K] [--set k=v]...
                      --got-json FOXOPT.json [--got-exp EXP.h5]
  market_ref.py selftest        hand-computed micro cases (and empyrical, when installed)
Exit 0 when everything agrees, 1 on any mismatch, 2 on bad usage or input.
"""
import argparse
import json
import math
import sys
import time

import numpy as np

NF, SIGMA_COL = 51, 15          # feature count; column of ewm_vol, the barrier's sigma
METRICS = ["total_return", "sharpe", "sortino", "max_drawdown", "annual_return", "calmar",
           "trades", "win_rate", "profit_factor", "exposure", "final_equity", "bars"]
DEFAULTS = {"market.initial_capital": 10000.0, "market.spread": 0.0005, "market.fee": 0.0004,
            "market.cash_reserve": 0.05, "barrier.pt": 2.0, "barrier.sl": 2.0,
            "barrier.horizon": 60, "barrier.enforce": True, "barrier.bonus": 0.0}
HOLD, BUY, SELL = 0, 1, 2


def params(sets=()):
    p = dict(DEFAULTS)
    for kv in sets:
        k, eq, v = kv.partition("=")
        if not eq or k not in p:
            raise SystemExit(f"market_ref: bad --set {kv!r} (keys: {', '.join(p)})")
        if k == "barrier.enforce":
            if v.lower() not in ("true", "false", "1", "0"):
                raise SystemExit(f"market_ref: barrier.enforce wants true/false/1/0, got {v!r}")
            p[k] = v.lower() in ("true", "1")
        elif k == "barrier.horizon":
            p[k] = int(v)
        else:
            p[k] = float(v)
    return p


# ----------------------------------------------------------------------------- market
def simulate(O, H, L, C, sig, acts, b, e, p):
    """One backtest over bars [b, e) from initial capital. O..sig are float64 sequences indexed
    by absolute bar; acts[i] is the decision after bar b+i's close. Returns per-bar arrays and
    the round-trip pnls."""
    cap, sp, fee = p["market.initial_capital"], p["market.spread"], p["market.fee"]
    res, pt, sl = p["market.cash_reserve"], p["barrier.pt"], p["barrier.sl"]
    hz, enforce, bonus = p["barrier.horizon"], p["barrier.enforce"], p["barrier.bonus"]
    sqh = math.sqrt(hz)
    n = e - b
    eq, pos, rew, lab = [cap], [0], [0.0], [0]
    inpos, ulr, held = [0.0], [0.0], [0.0]
    pnls = []
    cash, units, long_, active = cap, 0.0, False, False
    entry = outlay = upper = lower = 0.0
    entry_bar = vertical = 0

    def close_at(price):                 # every exit (agent, barrier, forced) pays bid and fee
        nonlocal cash, units, long_, active
        proceeds = units * price * (1 - sp / 2) * (1 - fee)
        cash += proceeds
        units, long_, active = 0.0, False, False
        pnls.append(proceeds - outlay)

    for k in range(b + 1, e):
        a = acts[k - b - 1]
        o, h, l, c = O[k], H[k], L[k], C[k]
        # 1. last bar's decision at this open
        if a == BUY and not long_:
            ask = o * (1 + sp / 2)
            outlay = (1 - res) * cash
            units = outlay / ((1 + fee) * ask)
            cash -= outlay
            entry, entry_bar, long_ = ask, k, True
            s = sig[k - 1]               # sigma known at decision time, not bar k's own
            upper, lower = entry * (1 + pt * s * sqh), entry * (1 - sl * s * sqh)
            vertical, active = k + hz, True
        elif a == SELL and long_:
            close_at(o)
        # 2. barriers, entry bar included; stop first because the bar's path is unknown and
        #    the pessimistic reading is the safe one
        label, extra = 0, 0.0
        if long_ and active:
            if l <= lower:
                label, x = 2, min(o, lower)
            elif h >= upper:
                label, x = 1, max(o, upper)
            elif k >= vertical:
                label, x = 3, c
            if label:
                active = False           # with enforce off: labelled once, position kept
                if enforce:
                    close_at(x)
                    extra = bonus if label == 1 else -bonus if label == 2 else 0.0
        # 3. nothing may stay open past the split (or fold)
        if k == e - 1 and long_:
            close_at(c)
        # 4. mark to the close, no spread
        E = cash + units * c
        rew.append(math.log(E / eq[-1]) + extra)
        eq.append(E)
        pos.append(1 if long_ else 0)
        lab.append(label)
        inpos.append(1.0 if long_ else 0.0)
        ulr.append(math.log(c / entry) if long_ else 0.0)
        held.append((k - entry_bar) / hz if long_ else 0.0)
    assert len(eq) == n
    return {"equity": np.array(eq), "position": np.array(pos, np.uint8),
            "rewards": np.array(rew), "labels": np.array(lab, np.int8),
            "port": np.array([inpos, ulr, held]).T, "pnls": pnls}


def metrics(eq, pos, pnls, bpy):
    n = len(eq)
    r = eq[1:] / eq[:-1] - 1
    m = {"bars": n, "final_equity": float(eq[-1]), "total_return": float(eq[-1] / eq[0] - 1)}
    sd = float(np.std(r, ddof=1)) if len(r) >= 2 else 0.0
    m["sharpe"] = float(np.mean(r)) / sd * math.sqrt(bpy) if sd > 0 else 0.0
    dd = math.sqrt(float(np.mean(np.minimum(r, 0) ** 2))) if len(r) else 0.0
    m["sortino"] = float(np.mean(r)) / dd * math.sqrt(bpy) if dd > 0 else 0.0
    m["max_drawdown"] = float(np.min(eq / np.maximum.accumulate(eq) - 1))
    # empyrical: years = number of returns / bpy; with no return there is no year (0 here)
    # a short, lucky run overflows to inf (as C's pow does), which JSON can only write as null
    with np.errstate(over="ignore"):
        m["annual_return"] = (float(np.float64(1 + m["total_return"]) ** (bpy / (n - 1)) - 1)
                              if n > 1 else 0.0)
    m["calmar"] = m["annual_return"] / abs(m["max_drawdown"]) if m["max_drawdown"] != 0 else 0.0
    wins = sum(x for x in pnls if x > 0)
    loss = -sum(x for x in pnls if x < 0)
    m["trades"] = len(pnls)
    m["win_rate"] = sum(1 for x in pnls if x > 0) / len(pnls) if pnls else 0.0
    m["profit_factor"] = (wins / loss if loss > 0 else math.inf if wins > 0 else 0.0)
    m["exposure"] = float(np.mean(pos))
    return m


def fold_bounds(b, e, k):
    n = e - b
    return [(b + j * n // k, b + (j + 1) * n // k) for j in range(k)]


def backtest(O, H, L, C, sig, acts, b, e, p, bpy, k=1):
    """Walk-forward: each fold its own account from initial capital; means over folds."""
    folds, runs = [], []
    for fb, fe in fold_bounds(b, e, k):
        if fe <= fb:
            raise SystemExit(f"market_ref: fold [{fb}, {fe}) is empty (--folds too large)")
        run = simulate(O, H, L, C, sig, acts[fb - b:fe - b], fb, fe, p)
        run["acts"] = np.asarray(acts[fb - b:fe - b], np.uint8)
        runs.append(run)
        folds.append(dict(begin=fb, end=fe, **metrics(run["equity"], run["position"],
                                                      run["pnls"], bpy)))
    # an infinite profit factor in any fold makes the mean infinite (JSON null)
    mean = {m: float(np.mean([f[m] for f in folds])) for m in METRICS}
    return mean, folds, runs


# ----------------------------------------------------------------------------- files
def load_h5(path):
    import h5py
    with h5py.File(path, "r") as f:
        px = f["prices"][...].astype(np.float64)
        d = {"O": px[:, 0].tolist(), "H": px[:, 1].tolist(), "L": px[:, 2].tolist(),
             "C": px[:, 3].tolist(), "close": px[:, 3],
             "feat": f["features"][...], "mean": f["norm/mean"][...], "std": f["norm/std"][...],
             "bpy": float(f.attrs["bars_per_year"])}
        if d["feat"].shape[1] != NF or px.shape[1] != 4:
            raise SystemExit(f"market_ref: {path}: features {d['feat'].shape}, prices {px.shape}")
        d["sig"] = d["feat"][:, SIGMA_COL].astype(np.float64).tolist()
        for s in ("train", "val", "test"):
            d[s] = tuple(int(x) for x in f.attrs["split_" + s])
    return d


def norm_states(feat, mean, std, b, e):
    """The 51 normalised features in float32, as the states hold them."""
    x = feat[b:e].astype(np.float32)
    safe = np.where(std == 0, np.float32(1), std).astype(np.float32)
    z = np.clip((x - mean.astype(np.float32)) / safe, np.float32(-10), np.float32(10))
    z[:, std == 0] = 0
    return z.astype(np.float32)


def load_actions(path):
    vals = []
    with open(path) as f:
        for i, line in enumerate(f):
            t = line.strip()
            if not t or (i == 0 and t == "action"):
                continue
            if t not in ("0", "1", "2"):
                raise SystemExit(f"market_ref: {path}:{i + 1}: not an action: {t!r}")
            vals.append(int(t))
    return vals


def gen_actions(args):
    rng = np.random.default_rng(args.seed)
    u = rng.random(args.n)
    a = np.where(u < args.p_buy, BUY, np.where(u < args.p_buy + args.p_sell, SELL, HOLD))
    with open(args.o, "w") as f:
        f.write("action\n" + "".join(f"{x}\n" for x in a))
    return 0


# ----------------------------------------------------------------------------- comparing
def close(ref, got):
    if got is None:
        return math.isinf(ref)
    if math.isinf(ref) or isinstance(got, str):
        return got == ref
    return abs(got - ref) <= 1e-9 * abs(ref) + 1e-12


def fmt(v):
    return "null" if v is None else f"{v:.15g}" if isinstance(v, (int, float)) else str(v)


def compare_metrics(tag, ref, got, bad):
    for m in METRICS:
        g = got.get(m, "<missing>")
        ok = g != "<missing>" and close(ref[m], g)
        print(f"  {tag:<8}{m:<15}{fmt(ref[m]):>24}{fmt(g):>24}  {'ok' if ok else 'MISMATCH'}")
        if not ok:
            bad.append(f"{tag} {m}: ref {fmt(ref[m])} got {fmt(g)}")


def first_diff(name, ref, got, b, bad, rtol=0.0, atol=0.0):
    if got.shape != ref.shape:
        bad.append(f"{name}: shape {got.shape}, ref {ref.shape}")
        return
    r, g = ref.astype(np.float64), got.astype(np.float64)
    ok = np.abs(g - r) <= rtol * np.abs(r) + atol
    ok &= ~(np.isnan(g) | np.isnan(r)) | (np.isnan(g) & np.isnan(r))
    if not ok.all():
        i = np.argwhere(~ok)[0]
        where = f"bar {b + i[0]} (index {i[0]}" + (f", column {i[1]})" if len(i) > 1 else ")")
        bad.append(f"{name}: {int((~ok).sum())} differ; first at {where}: ref "
                   f"{fmt(float(r[tuple(i)]))} got {fmt(float(g[tuple(i)]))}")
    print(f"  {name:<28}{'ok' if ok.all() else 'MISMATCH'}")


def compare_exp(path, d, b, e, k, runs, bad):
    import h5py
    cat = lambda key: np.concatenate([r[key] for r in runs])
    with h5py.File(path, "r") as f:
        def get(name):
            if name not in f:
                bad.append(f"{path}: no {name}")
                return None
            return f[name][...]
        want = [("/backtest/equity", cat("equity"), 1e-12, 0.0),
                ("/backtest/position", cat("position"), 0, 0),
                ("/backtest/folds", np.array(fold_bounds(b, e, k), np.int64), 0, 0),
                ("/experience/actions", cat("acts"), 0, 0),
                ("/experience/barrier_labels", cat("labels"), 0, 0),
                ("/experience/rewards", cat("rewards").astype(np.float32), 1e-5, 1e-9)]
        for name, ref, rtol, atol in want:
            g = get(name)
            if g is not None:
                first_diff(name, ref, g, b, bad, rtol, atol)
        if "/experience/states" in f:
            st = np.concatenate([norm_states(d["feat"], d["mean"], d["std"], b, e),
                                 cat("port").astype(np.float32)], axis=1)
            first_diff("/experience/states", st, f["/experience/states"][...], b, bad,
                       0.0, 1e-5)
        else:
            print("  /experience/states          absent (not compared)")


def empyrical_check(runs, folds, bpy, bad):
    """Our metric conventions against empyrical on the same returns; where empyrical gives
    nan/inf we give 0 (documented), anything else must agree to 1e-9 relative."""
    try:
        import empyrical as ep
    except ImportError:
        print("empyrical not installed: cross-check skipped")
        return
    import warnings
    warnings.simplefilter("ignore", RuntimeWarning)   # empyrical's own nan/inf warnings
    worst = 0.0
    for j, (run, f) in enumerate(zip(runs, folds)):
        eq = run["equity"]
        r = eq[1:] / eq[:-1] - 1
        theirs = {"sharpe": ep.sharpe_ratio(r, annualization=bpy),
                  "sortino": ep.sortino_ratio(r, annualization=bpy),
                  "max_drawdown": ep.max_drawdown(r),
                  "annual_return": ep.annual_return(r, annualization=bpy),
                  "calmar": ep.calmar_ratio(r, annualization=bpy)}
        for m, t in theirs.items():
            t, ours = float(t), f[m]
            if not math.isfinite(t):     # 0 by our convention; inf on overflow (empyrical's
                if ours != 0.0 and math.isfinite(ours):       # calmar turns that into nan)
                    bad.append(f"fold {j} {m}: empyrical {t}, ours {ours} (want the 0 convention)")
                continue
            rel = abs(ours - t) / max(abs(t), 1e-300) if t != ours else 0.0
            worst = max(worst, rel)
            if abs(ours - t) > 1e-9 * abs(t) + 1e-15:
                bad.append(f"fold {j} {m}: empyrical {t!r}, ours {ours!r}")
    print(f"empyrical {getattr(ep, '__version__', '?')}: {len(runs)} fold(s), worst relative "
          f"difference {worst:.3g}")


def check(args):
    t0 = time.time()
    d = load_h5(args.h5)
    if args.split not in ("train", "val", "test"):
        raise SystemExit(f"market_ref: --split must be train, val or test, not {args.split!r}")
    b, e = d[args.split]
    acts = load_actions(args.actions)
    if len(acts) != e - b:
        raise SystemExit(f"market_ref: {len(acts)} actions for a {e - b}-bar split")
    p = params(args.set)
    t1 = time.time()
    mean, folds, runs = backtest(d["O"], d["H"], d["L"], d["C"], d["sig"], acts, b, e, p,
                                 d["bpy"], args.folds)
    t2 = time.time()
    with open(args.got_json) as fh:
        got = json.load(fh)
    bad = []
    print(f"{args.split} [{b}, {e}) {e - b} bars, {args.folds} fold(s); "
          f"load {t1 - t0:.2f} s, reference {t2 - t1:.2f} s")
    print(f"  {'':<8}{'metric':<15}{'ref':>24}{'got':>24}")
    compare_metrics("mean", mean, got, bad)
    if got.get("split") != args.split:
        bad.append(f"split: got {got.get('split')!r}, want {args.split!r}")
    gf = got.get("folds", [])
    if len(gf) != len(folds):
        bad.append(f"folds: got {len(gf)}, want {len(folds)}")
    for j, (rf, g) in enumerate(zip(folds, gf)):
        if (g.get("begin"), g.get("end")) != (rf["begin"], rf["end"]):
            bad.append(f"fold {j}: got [{g.get('begin')}, {g.get('end')}), "
                       f"want [{rf['begin']}, {rf['end']})")
        compare_metrics(f"fold {j}", rf, g, bad)
    if args.got_exp:
        compare_exp(args.got_exp, d, b, e, args.folds, runs, bad)
    empyrical_check(runs, folds, d["bpy"], bad)
    for m in bad:
        print("MISMATCH " + m)
    print(f"{'FAIL' if bad else 'ok'}: {len(bad)} mismatch(es), {time.time() - t0:.2f} s")
    return 1 if bad else 0


# ----------------------------------------------------------------------------- selftest
def selftest():
    """Micro cases whose numbers follow from the rules by hand. Round parameters: capital
    1000, spread 2% (ask = 1.01*open, bid = 0.99*price), fee 1%, reserve 50% (outlay 500),
    pt = sl = 1, H = 4, sigma 0.025 so that sigma*sqrt(H) = 0.05: a BUY at open 100 enters at
    101 with upper 106.05 and lower 95.95, and holds u = 500/(1.01*101) units."""
    P = params(["market.initial_capital=1000", "market.spread=0.02", "market.fee=0.01",
                "market.cash_reserve=0.5", "barrier.pt=1", "barrier.sl=1", "barrier.horizon=4"])
    u, net = 500 / (1.01 * 101), 0.99 * 0.99
    fails = []

    def run(bars, acts, over=(), sig=None):
        p = dict(P)
        for kv in over:                  # parse through params() so --set's rules apply
            p[kv.split("=")[0]] = params([kv])[kv.split("=")[0]]
        O, H, L, C = (list(map(float, x)) for x in zip(*bars))
        s = sig or [0.025] * len(bars)
        r = simulate(O, H, L, C, s, acts, 0, len(bars), p)
        r["m"] = metrics(r["equity"], r["position"], r["pnls"], 4.0)
        return r

    def eq(name, got, want, tol=1e-12):
        got, want = np.asarray(got, float), np.asarray(want, float)
        if got.shape != want.shape or not np.allclose(got, want, rtol=tol, atol=1e-12):
            fails.append(f"{name}: got {got.tolist()}, want {want.tolist()}")

    flat = (100, 100, 100, 100)
    # A. BUY at open 100, SELL at open 104; mark-to-close in between
    r = run([flat, (100, 102, 99, 101), (101, 103, 100, 102), (104, 105, 103, 104), flat],
            [BUY, HOLD, SELL, HOLD, HOLD])
    pnl = u * 104 * net - 500
    eq("A equity", r["equity"], [1000, 500 + u * 101, 500 + u * 102, 1000 + pnl, 1000 + pnl])
    eq("A pnls", r["pnls"], [pnl])
    eq("A position", r["position"], [0, 1, 1, 0, 0])
    eq("A labels", r["labels"], [0] * 5)
    eq("A rewards", r["rewards"][1:], np.log(r["equity"][1:] / r["equity"][:-1]))
    eq("A ulr", r["port"][:, 1], [0, math.log(101 / 101), math.log(102 / 101), 0, 0])
    eq("A held", r["port"][:, 2], [0, 0, 0.25, 0, 0])
    eq("A trades/win/pf/expo", [r["m"][k] for k in ("trades", "win_rate", "profit_factor",
                                                    "exposure")], [1, 0, 0, 0.4])
    # B. stop and take inside the entry bar: the stop wins at the lower barrier; sigma comes
    #    from bar k-1 (bar 1's huge sigma would put both barriers out of reach)
    r = run([flat, (100, 107, 95, 100), flat], [BUY, HOLD, HOLD], sig=[0.025, 10.0, 10.0])
    eq("B labels", r["labels"], [0, 2, 0])
    eq("B pnls", r["pnls"], [u * 95.95 * net - 500])
    eq("B position", r["position"], [0, 0, 0])
    # C. gap through the stop: filled at the open 90, not at 95.95
    r = run([flat, (100, 101, 99, 100), (90, 92, 89, 91), flat], [BUY, HOLD, HOLD, HOLD])
    eq("C labels/pnl", list(r["labels"]) + r["pnls"], [0, 0, 2, 0, u * 90 * net - 500])
    # D. gap through the take, with a bonus: filled at the open 110, reward + bonus
    r = run([flat, (100, 101, 99, 100), (110, 112, 109, 111), flat], [BUY, HOLD, HOLD, HOLD],
            ["barrier.bonus=0.1"])
    eq("D labels/pnl", list(r["labels"]) + r["pnls"], [0, 0, 1, 0, u * 110 * net - 500])
    eq("D reward", r["rewards"][2], math.log((1000 + r["pnls"][0]) / (500 + u * 100)) + 0.1)
    eq("D win/pf", [r["m"]["win_rate"], r["m"]["profit_factor"]], [1, math.inf])
    # E. time-out: entry bar 1, vertical 5, exit at close_5 (not the last bar)
    r = run([flat] + [(100, 101, 99, 100)] * 4 + [(100, 101, 99, 100.5), flat],
            [BUY] + [HOLD] * 6)
    eq("E labels/pnl", list(r["labels"]) + r["pnls"], [0, 0, 0, 0, 0, 3, 0, u * 100.5 * net - 500])
    # F. forced close at the last bar's close, label untouched, the final BUY never executes
    r = run([flat, (100, 101, 99, 100), (100, 101, 99, 102)], [BUY, HOLD, BUY])
    eq("F labels/pnl/pos", list(r["labels"]) + r["pnls"] + list(r["position"]),
       [0, 0, 0, u * 102 * net - 500, 0, 1, 0])
    eq("F final_equity", r["m"]["final_equity"], 500 + u * 102 * net)
    # G. enforce off: label once, keep the position (no bonus), forced close at the end
    r = run([flat, (100, 101, 99, 100), (90, 92, 89, 91), (91, 92, 80, 85), flat],
            [BUY, HOLD, HOLD, HOLD, HOLD], ["barrier.enforce=false", "barrier.bonus=0.1"])
    eq("G labels", r["labels"], [0, 0, 2, 0, 0])
    eq("G position", r["position"], [0, 1, 1, 1, 0])
    eq("G pnl", r["pnls"], [u * 100 * net - 500])
    eq("G reward", r["rewards"][2], math.log((500 + u * 91) / (500 + u * 100)))
    eq("G ulr", r["port"][3, 1], math.log(85 / 101))
    # H. SELL when flat and BUY when long do nothing
    #    (the SELL fills at bar 4's open 100, not at its close 103)
    r = run([flat, flat, (100, 101, 99, 100), (100, 101, 99, 101), (100, 104, 99, 103)],
            [SELL, BUY, BUY, SELL, HOLD])
    eq("H trips", r["pnls"], [u * 100 * net - 500])
    eq("H position", r["position"], [0, 0, 1, 1, 0])
    # I. a stop below the entry yet above the open (sl*sigma*sqrt(H) < spread/2): immediate
    #    stop at the open on the entry bar
    r = run([flat, (100, 100.5, 99.9, 100), flat], [BUY, HOLD, HOLD], ["barrier.sl=0.1"])
    eq("I labels/pnl", list(r["labels"]) + r["pnls"], [0, 2, 0, u * 100 * net - 500])
    # J. metrics of a known equity series, bpy = 4: r = [.1, -.1, .1]
    m = metrics(np.array([100, 110, 99, 108.9]), np.zeros(4), [5.0, -2.0, 1.0, 0.0], 4.0)
    eq("J sharpe/sortino", [m["sharpe"], m["sortino"]], [1 / math.sqrt(3), 2 / math.sqrt(3)])
    eq("J mdd/total", [m["max_drawdown"], m["total_return"]], [-0.1, 0.089])
    eq("J annual/calmar", [m["annual_return"], m["calmar"]],
       [1.089 ** (4 / 3) - 1, (1.089 ** (4 / 3) - 1) / 0.1])
    eq("J trips", [m["trades"], m["win_rate"], m["profit_factor"]], [4, 0.5, 3])
    # K. all HOLD: the 0 conventions
    m = run([flat] * 4, [HOLD] * 4)["m"]
    eq("K zeros", [m[k] for k in ("sharpe", "sortino", "max_drawdown", "calmar",
                                  "profit_factor", "win_rate", "annual_return")], [0] * 7)
    # L. folds: floor boundaries, each fold its own account, action index = bar - b
    eq("L bounds", fold_bounds(5, 15, 3), [(5, 8), (8, 11), (11, 15)])
    bars = [flat, (100, 101, 99, 100), flat, (100, 101, 99, 100)] * 3
    O, H, L, C = (list(map(float, x)) for x in zip(*bars))
    acts = [BUY, HOLD, HOLD, HOLD] * 3
    mean, folds, runs = backtest(O, H, L, C, [0.025] * 12, acts, 0, 12, P, 4.0, 3)
    eq("L trades", [f["trades"] for f in folds] + [mean["trades"]], [1, 1, 1, 1])
    eq("L fold starts", [r["equity"][0] for r in runs], [1000] * 3)
    eq("L fold 1 acts", runs[1]["acts"], acts[4:8])
    # M. empyrical agrees on random series (when installed)
    rng = np.random.default_rng(7)
    rs, fs = [], []
    for n in (2, 3, 50, 5000):
        e = 100 * np.cumprod(1 + rng.normal(2e-4, 1e-2, n))
        rs.append({"equity": e})
        fs.append(metrics(e, np.zeros(n), [], 525600.0))
    rs.append({"equity": np.full(5, 100.0)})
    fs.append(metrics(rs[-1]["equity"], np.zeros(5), [], 525600.0))
    empyrical_check(rs, fs, 525600.0, fails)
    for f in fails:
        print("FAIL " + f)
    print(f"selftest: {'FAIL' if fails else 'ok'} ({len(fails)} failure(s), cases A-M)")
    return 1 if fails else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen-actions")
    g.add_argument("--n", type=int, required=True)
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("-o", required=True)
    g.add_argument("--p-buy", type=float, default=0.05)
    g.add_argument("--p-sell", type=float, default=0.05)
    c = sub.add_parser("check")
    c.add_argument("--h5", required=True)
    c.add_argument("--actions", required=True)
    c.add_argument("--split", required=True)
    c.add_argument("--folds", type=int, default=1)
    c.add_argument("--set", action="append", default=[])
    c.add_argument("--got-json", required=True)
    c.add_argument("--got-exp")
    sub.add_parser("selftest")
    a = ap.parse_args(argv)
    if a.cmd == "gen-actions":
        return gen_actions(a)
    if a.cmd == "check":
        if a.folds < 1:
            raise SystemExit("market_ref: --folds must be >= 1")
        return check(a)
    return selftest()


if __name__ == "__main__":
    try:
        sys.exit(main())
    except SystemExit as ex:
        if isinstance(ex.code, str):
            print(ex.code, file=sys.stderr)
            sys.exit(2)
        raise
