#!/usr/bin/env python3
"""foxopt's market (DESIGN.md s5) as a Stable-Baselines3 VecEnv, for the learning benchmark
(tests/bench/bench_learn.sh): SB3 trains on the same market at the same hyperparameters, and
its greedy policy is measured by foxopt's own backtest.

  sb3_market.py scale DATA.h5
      reward.scale auto: 1 / population std of the train split's one-bar log returns
  sb3_market.py check DATA.h5 [--foxopt BIN] [--seed S] [--set market.K=V|barrier.K=V]...
      one environment of the wrapper through the val split (random actions, flat start) against
      `foxopt backtest --actions` (per-bar equity to 1e-9 relative, states to 1e-5), plus the
      VecEnv's episode bookkeeping; exit 1 on a mismatch
  sb3_market.py run DATA.h5 --trial TRIAL.h5 --seed S --work DIR [--foxopt BIN]
      SB3 (DQN or PPO, as TRIAL.h5's resolved config says) trained at the hyperparameters of
      that config, then greedy on its eval split through `foxopt backtest --actions`; prints
      one JSON object (foxopt's metrics as `val.total_return`, ..., and `train_seconds`)

The market itself is tests/bench/torch_ref.py's numpy `Market` (N environments, train split,
random episode starts); this file adds the reward scale, SB3's VecEnv protocol (truncation
with `TimeLimit.truncated` and `terminal_observation`, so that SB3 bootstraps) and the
backtest semantics (action i decided after bar b+i's close, the last bar closes the position).
"""
import argparse
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import h5py
import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "ref"))
import market_ref                      # noqa: E402  (DEFAULTS, params, gen_actions, load_actions)
from torch_ref import Market           # noqa: E402  (imports torch, which SB3 needs anyway)

import torch                           # noqa: E402
import torch.nn as nn                  # noqa: E402
from gymnasium import spaces           # noqa: E402
from stable_baselines3.common.vec_env import VecEnv   # noqa: E402

STATE_DIM, NACT = 54, 3


def foxopt_bin(arg):
    return arg or os.environ.get("FOXOPT") or str(HERE.parent.parent / "build/default/foxopt")


def auto_scale(path):
    """reward.scale auto (DESIGN.md s8): 1 / np.std (ddof 0) of log(close_t / close_{t-1}) for t
    in (b, e) of the train split, from the imported float64 closes."""
    with h5py.File(path, "r") as f:
        c = f["bars/close"][...].astype(np.float64)
        b, e = (int(x) for x in f.attrs["split_train"])
    return 1.0 / float(np.std(np.log(c[b + 1:e] / c[b:e - 1])))


def market_kw(p):
    """torch_ref.Market's keyword arguments from market_ref.params()-style keys."""
    if not p["barrier.enforce"] or p["barrier.bonus"] != 0:
        raise SystemExit("sb3_market: the wrapper implements barrier.enforce=true, bonus=0 only")
    return dict(cap=p["market.initial_capital"], spread=p["market.spread"], fee=p["market.fee"],
                reserve=p["market.cash_reserve"], pt=p["barrier.pt"], sl=p["barrier.sl"],
                horizon=int(p["barrier.horizon"]))


def set_args(p):
    """The same market for `foxopt backtest`."""
    out = []
    for k, v in p.items():
        out += ["--set", f"{k}={str(v).lower() if isinstance(v, bool) else repr(v)}"]
    return out


class FoxVecEnv(VecEnv):
    """N environments of the foxopt market on the train split, as one SB3 VecEnv. Each episode
    starts at a uniformly random bar of the split (torch_ref.Market.reset) and runs
    episode_bars steps or to the split's end (a truncation: SB3 bootstraps from
    `terminal_observation`); equity below 1 % of the capital is terminal (no bootstrap).
    Rewards are reward_scale * log(E_k / E_{k-1})."""

    def __init__(self, path, n, episode_bars, seed, scale, kw):
        self.m = Market(path, n, episode_bars, seed, scale=1.0, **kw)  # raw log ratios
        self.scale = np.float32(scale)
        self._a = np.zeros(n, np.int64)
        obs_space = spaces.Box(-np.inf, np.inf, (STATE_DIM,), np.float32)
        self.render_mode = None
        super().__init__(n, obs_space, spaces.Discrete(NACT))

    def reset(self):
        self.m.reset(np.ones(self.num_envs, bool))
        return self.m.obs()

    def step_async(self, actions):
        self._a = np.asarray(actions, np.int64).reshape(self.num_envs)

    def step_wait(self):
        obs, nxt, r, term, done = self.m.step(self._a)
        infos = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(done):
            infos[i]["terminal_observation"] = nxt[i]
            infos[i]["TimeLimit.truncated"] = bool(not term[i])
        return obs, (r * self.scale).astype(np.float32), done.copy(), infos

    def close(self):
        pass

    def get_attr(self, attr_name, indices=None):
        return [getattr(self, attr_name)] * len(self._get_indices(indices))

    def set_attr(self, attr_name, value, indices=None):
        setattr(self, attr_name, value)

    def env_method(self, method_name, *args, indices=None, **kwargs):
        raise NotImplementedError("FoxVecEnv has no sub-environments")

    def env_is_wrapped(self, wrapper_class, indices=None):
        return [False] * len(self._get_indices(indices))


def backtest(path, kw, split, decide):
    """One environment over `split` [b, e) from a flat start, as `foxopt backtest`: action i
    = decide(i, state of bar b+i) executes at open_{b+i+1}; the last bar closes an open
    position at its close (bid, fee); the last action never executes. Returns the actions,
    the equity series (n values) and the states (n x 54)."""
    m = Market(path, 1, 1, 0, **kw)
    with h5py.File(path, "r") as f:
        b, e = (int(x) for x in f.attrs["split_" + split])
    n = e - b
    m.reset = lambda mask: None        # a backtest never restarts (not even below 1 %)
    m.t[:], m.end[:] = b, e            # end = e is never reached: the last step lands on e-1
    m.cash[:], m.units[:], m.equity[:] = m.cap, 0.0, m.cap
    acts = np.zeros(n, np.uint8)
    eq = np.zeros(n)
    states = np.zeros((n, STATE_DIM), np.float32)
    eq[0], states[0] = m.cap, m.obs()[0]
    for i in range(n):
        acts[i] = decide(i, states[i])
        if i == n - 1:
            break
        m.step(np.array([acts[i]], np.int64))
        if i + 1 == n - 1 and m.units[0] > 0:          # the last bar closes the position
            m._close(np.ones(1, bool), m.px[e - 1, 3])
            m.equity = m.cash + m.units * m.px[e - 1, 3]
        eq[i + 1], states[i + 1] = m.equity[0], m.obs()[0]
    return acts, eq, states


def run_cmd(argv):
    p = subprocess.run(argv, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"sb3_market: {' '.join(argv)}: exit {p.returncode}\n{p.stderr}")
    return p.stdout


def write_actions(path, acts):
    with open(path, "w") as f:
        f.write("action\n" + "".join(f"{int(a)}\n" for a in acts))


# ----------------------------------------------------------------------------- check
def vec_check(path, kw, bad, n=8, episode_bars=50, steps=400):
    """The VecEnv's bookkeeping on random actions: every episode ends after episode_bars steps
    (or at the split's end) as a truncation with terminal_observation, the next state is a
    fresh flat one, and rewards are scale x log(E_k / E_{k-1})."""
    env = FoxVecEnv(path, n, episode_bars, 3, 2.5, kw)
    obs = env.reset()
    rng = np.random.default_rng(4)
    start, length, ends, nbad = env.m.t.copy(), np.zeros(n, int), 0, len(bad)
    for _ in range(steps):
        prev = env.m.equity.copy()
        obs, r, done, infos = env.step(rng.integers(0, NACT, n))
        length += 1
        for i in range(n):
            if not done[i]:
                want = np.float32(2.5 * math.log(env.m.equity[i] / prev[i]))
                if abs(r[i] - want) > 1e-6 * max(1.0, abs(want)):
                    bad.append(f"vec: env {i} reward {r[i]!r}, want {want!r}")
                continue
            ends += 1
            info = infos[i]
            if "terminal_observation" not in info or not info.get("TimeLimit.truncated"):
                bad.append(f"vec: env {i}: an episode end without truncation info: {info}")
            if length[i] != min(episode_bars, env.m.e - 1 - start[i]):
                bad.append(f"vec: env {i}: an episode of {length[i]} steps from bar {start[i]}")
            if obs[i, 51] != 0 or env.m.equity[i] != env.m.cap:
                bad.append(f"vec: env {i} does not restart flat")
            start[i], length[i] = env.m.t[i], 0
    if ends < n:
        bad.append(f"vec: only {ends} episode ends in {steps} steps")
    print(f"  VecEnv: {n} envs x {steps} steps, {ends} truncations with terminal_observation, "
          f"rewards = scale x log ratio: {'ok' if len(bad) == nbad else 'MISMATCH'}")


def check(args):
    p = market_ref.params(args.set)
    kw = market_kw(p)
    fox = foxopt_bin(args.foxopt)
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    with h5py.File(args.h5, "r") as f:
        b, e = (int(x) for x in f.attrs["split_val"])
    n = e - b
    a_csv, exp = work / "check_actions.csv", work / "check_exp.h5"
    market_ref.gen_actions(argparse.Namespace(n=n, seed=args.seed, o=str(a_csv),
                                              p_buy=0.05, p_sell=0.02))
    acts_in = np.array(market_ref.load_actions(str(a_csv)), np.uint8)
    acts, eq, states = backtest(args.h5, kw, "val", lambda i, s: acts_in[i])
    got = json.loads(run_cmd([fox, "backtest", args.h5, "--actions", str(a_csv), "--split", "val",
                              "--output", str(exp), "--set", "output.experience=full", "--json",
                              *set_args(p)]))
    with h5py.File(exp, "r") as f:
        feq, fst = f["backtest/equity"][...], f["experience/states"][...]
        labels = f["experience/barrier_labels"][...]
    bad = []
    if feq.shape != eq.shape:
        bad.append(f"equity: foxopt {feq.shape}, wrapper {eq.shape}")
    else:
        rel = np.abs(eq - feq) / np.abs(feq)
        worst = float(rel.max())
        if worst > 1e-9:
            i = int(np.argmax(rel > 1e-9))
            bad.append(f"equity: {int((rel > 1e-9).sum())} bars differ by more than 1e-9 "
                       f"relative; first bar {b + i}: wrapper {eq[i]!r}, foxopt {feq[i]!r}")
        dst = float(np.abs(states - fst).max()) if fst.shape == states.shape else math.inf
        if dst > 1e-5:
            bad.append(f"states: worst absolute difference {dst:.3g} > 1e-5")
        tr = eq[-1] / eq[0] - 1
        if abs(tr - got["total_return"]) > 1e-9 * max(1.0, abs(tr)):
            bad.append(f"total_return: wrapper {tr!r}, foxopt {got['total_return']!r}")
        print(f"  backtest: val [{b}, {e}) {n} bars, {int(got['trades'])} trades "
              f"(exits: {int((labels == 1).sum())} take, {int((labels == 2).sum())} stop, "
              f"{int((labels == 3).sum())} time-out), final equity {eq[-1]:.6f}; worst equity "
              f"difference {worst:.2e} relative, states {dst:.1e}: "
              f"{'ok' if not bad else 'MISMATCH'}")
    vec_check(args.h5, kw, bad)
    for m in bad:
        print("MISMATCH " + m)
    print(f"check {'FAIL' if bad else 'ok'}: {args.h5} {' '.join(args.set)}")
    return 1 if bad else 0


# ----------------------------------------------------------------------------- run
def trial_config(path):
    import yaml
    with h5py.File(path, "r") as f:
        c = f.attrs["config"]
    return yaml.safe_load(c.decode() if isinstance(c, bytes) else c)


def run_transitions(cfg, train_bars):
    """foxopt's count (src/train/trial.c): ceil(steps_per_epoch / num_envs) vector steps per
    epoch, all epochs; `auto` = the train split's bars."""
    spe = cfg["train"]["steps_per_epoch"]
    spe = train_bars if spe in ("auto", 0) else int(spe)
    n = int(cfg["env"]["num_envs"])
    return (spe + n - 1) // n * cfg["train"]["epochs"], n


def activation(sec):
    # foxopt before the activation/init keys used CleanRL's orthogonal layer_init and ReLU for
    # both agents; with the keys, whatever the config says.
    return ({"relu": nn.ReLU, "tanh": nn.Tanh}[sec.get("activation", "relu")],
            sec.get("init", "orthogonal"))


def make_dqn(cfg, env, seed):
    from stable_baselines3 import DQN
    d, n = cfg["dqn"], env.num_envs
    if d["double"] or d["dueling"]:
        raise SystemExit("sb3_market: SB3's DQN has neither Double DQN nor a dueling head: run "
                         "foxopt with dqn.double=false, dqn.dueling=false")
    if n % d["train_freq"]:
        raise SystemExit(f"sb3_market: env.num_envs {n} is not a multiple of dqn.train_freq")
    act, init = activation(d)
    # foxopt counts learning_starts and train_freq in transitions (all envs), target_update in
    # gradient updates, epsilon over eps_fraction of all transitions. SB3 counts train_freq in
    # vector steps (gradient_steps updates each), target_update_interval in transitions (a copy
    # every max(interval // n_envs, 1) vector steps), learning_starts and the exploration
    # schedule in transitions. So: train_freq 1 vector step with n_envs / train_freq gradient
    # steps (64 envs, train_freq 4: 16 updates per vector step in both), and a target copy every
    # target_update x train_freq transitions (= target_update updates). SB3 trains once
    # num_timesteps > learning_starts (foxopt: >=), one vector step later; before that it acts
    # uniformly at random (foxopt: epsilon-greedy at epsilon ~ 1, or uniform with
    # dqn.uniform_warmup), and one coin a vector step decides whether all its environments
    # explore (foxopt: a coin each, or one with dqn.eps_per_env false).
    model = DQN("MlpPolicy", env, learning_rate=d["lr"], buffer_size=d["buffer_size"],
                learning_starts=d["learning_starts"], batch_size=d["batch_size"], tau=d["tau"],
                gamma=d["gamma"], train_freq=(1, "step"), gradient_steps=n // d["train_freq"],
                target_update_interval=d["target_update"] * d["train_freq"],
                exploration_fraction=d["eps_fraction"], exploration_initial_eps=d["eps_start"],
                exploration_final_eps=d["eps_end"], max_grad_norm=d["max_grad_norm"],
                policy_kwargs=dict(net_arch=list(d["hidden"]), activation_fn=act),
                seed=seed, device="cpu", verbose=0)
    if init == "orthogonal":           # CleanRL's layer_init: sqrt(2) body, 1.0 on the Q head
        lin = [x for x in model.q_net.q_net if isinstance(x, nn.Linear)]
        for j, layer in enumerate(lin):
            nn.init.orthogonal_(layer.weight, 1.0 if j == len(lin) - 1 else math.sqrt(2))
            nn.init.zeros_(layer.bias)
        model.q_net_target.load_state_dict(model.q_net.state_dict())
    # SB3's default for DQN is nn.Linear's own initialisation (init: default) and Adam eps 1e-8
    return model


def make_ppo(cfg, env, seed, updates):
    from stable_baselines3 import PPO
    p, n = cfg["ppo"], env.num_envs
    act, init = activation(p)
    lr = p["lr"]
    # foxopt anneals to lr (1 - u / U) at update u = 0 .. U-1 (CleanRL); SB3 evaluates the
    # schedule at progress_remaining = 1 - (u + 1) / U, after the rollout: shift by 1 / U.
    sched = (lambda rem: lr * min(1.0, rem + 1.0 / updates)) if p["anneal_lr"] else lr
    # Minibatch size = rollout / minibatches. ppo.value_loss: SB3 takes the squared error of
    # the prediction clipped to old +- clip_range_vf (`clipped`), or unclipped when that is
    # None (`unclipped`, SB3's default); it has no CleanRL max of the two (`max`: the clipped
    # one is the nearest). SB3 drops CleanRL's 0.5 (foxopt: 0.5 e), so vf_coef / 2 gives the
    # critic the same gradient scale under the shared global-norm clip. Separate actor and
    # critic nets; Adam eps 1e-5 (SB3's default for PPO).
    vf_clip = None if p.get("value_loss", "max") == "unclipped" else p["clip"]
    return PPO("MlpPolicy", env, learning_rate=sched, n_steps=p["n_steps"],
               batch_size=p["n_steps"] * n // p["minibatches"], n_epochs=p["epochs"],
               gamma=p["gamma"], gae_lambda=p["gae_lambda"], clip_range=p["clip"],
               clip_range_vf=vf_clip, normalize_advantage=True, ent_coef=p["ent_coef"],
               vf_coef=p["vf_coef"] / 2, max_grad_norm=p["max_grad_norm"],
               policy_kwargs=dict(net_arch=dict(pi=list(p["hidden"]), vf=list(p["hidden"])),
                                  activation_fn=act, ortho_init=init == "orthogonal"),
               seed=seed, device="cpu", verbose=0)


def run(args):
    torch.set_num_threads(1)
    cfg = trial_config(args.trial)
    algo = cfg["train"]["algo"]
    if cfg["reward"]["normalize"]:
        raise SystemExit("sb3_market: reward.normalize is not implemented in the wrapper")
    scale = cfg["reward"]["scale"]
    scale = auto_scale(args.h5) if scale in ("auto", 0) else float(scale)
    p = {k: cfg[k.split(".")[0]][k.split(".")[1]] for k in market_ref.DEFAULTS}
    kw = market_kw(p)
    with h5py.File(args.h5, "r") as f:
        tb, te = (int(x) for x in f.attrs["split_train"])
    vec_steps, n = run_transitions(cfg, te - tb)
    env = FoxVecEnv(args.h5, n, cfg["env"]["episode_bars"], args.seed, scale, kw)
    t0 = time.perf_counter()
    if algo == "dqn":
        model, total = make_dqn(cfg, env, args.seed), vec_steps * n
    else:
        rollout = cfg["ppo"]["n_steps"] * n
        updates = vec_steps // cfg["ppo"]["n_steps"]        # foxopt's count: whole rollouts
        model, total = make_ppo(cfg, env, args.seed, updates), updates * rollout
    model.learn(total_timesteps=total)
    train_s = time.perf_counter() - t0
    split = cfg["eval"]["split"]
    with torch.no_grad():
        acts, eq, _ = backtest(args.h5, kw, split,
                               lambda i, s: model.predict(s[None], deterministic=True)[0][0])
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    a_csv = work / f"sb3_{algo}_{args.seed}.csv"
    write_actions(a_csv, acts)
    got = json.loads(run_cmd([foxopt_bin(args.foxopt), "backtest", args.h5, "--actions",
                              str(a_csv), "--split", split, "--json", *set_args(p)]))
    if abs(got["final_equity"] - eq[-1]) > 1e-9 * abs(eq[-1]):
        raise SystemExit(f"sb3_market: foxopt's backtest of the greedy actions ends at "
                         f"{got['final_equity']!r}, the wrapper at {eq[-1]!r}")
    out = {f"{split}.{k}": v for k, v in got.items() if k not in ("folds", "split")}
    out.update(status="complete", algo=algo, seed=args.seed, transitions=total,
               train_seconds=train_s, reward_scale=scale)
    print(json.dumps(out))
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("scale")
    s.add_argument("h5")
    c = sub.add_parser("check")
    c.add_argument("h5")
    c.add_argument("--foxopt")
    c.add_argument("--seed", type=int, default=1)
    c.add_argument("--set", action="append", default=[])
    c.add_argument("--work", default=".")
    r = sub.add_parser("run")
    r.add_argument("h5")
    r.add_argument("--trial", required=True, help="a foxopt trial.h5: its resolved config")
    r.add_argument("--seed", type=int, required=True)
    r.add_argument("--work", default=".")
    r.add_argument("--foxopt")
    a = ap.parse_args(argv)
    if a.cmd == "scale":
        print(repr(auto_scale(a.h5)))
        return 0
    return check(a) if a.cmd == "check" else run(a)


if __name__ == "__main__":
    sys.exit(main())
