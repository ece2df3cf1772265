#!/usr/bin/env python3
"""PyTorch reference for the training benchmark: CleanRL-style DQN (dqn.py) and PPO (ppo.py)
over the same market as foxopt (DESIGN.md s5, vectorised in numpy over the environments), with
the same networks and hyperparameters, reading the same dataset.h5. Prints env-steps/s.

  torch_ref.py --algo dqn|ppo --h5 DATA.h5 --steps N [--envs 64] [--threads 1] [--json]

It measures the training loop only (no evaluation), as foxopt's epoch line does.
"""
import argparse
import json
import time

import h5py
import numpy as np
import torch
import torch.nn as nn


class Market:
    """N long-only environments over the train split, one bar per step (DESIGN.md s5)."""

    def __init__(self, path, n, episode_bars, seed, cap=10000.0, spread=5e-4, fee=4e-4,
                 reserve=0.05, pt=2.0, sl=2.0, horizon=60, scale=None):
        """scale: the rewards' factor; None is reward.scale auto (as foxopt's default)."""
        with h5py.File(path, "r") as f:
            feat = f["features"][:]
            mean, std = f["norm/mean"][:], f["norm/std"][:]
            self.px = f["prices"][:].astype(np.float64)
            self.b, self.e = (int(x) for x in f.attrs["split_train"])
            close = f["bars/close"][self.b:self.e]
        self.scale = 1.0 / np.std(np.diff(np.log(close))) if scale is None else scale
        with np.errstate(invalid="ignore", divide="ignore"):
            z = np.where(std > 0, (feat - mean) / np.where(std > 0, std, 1), 0)
        self.norm = np.nan_to_num(np.clip(z, -10, 10)).astype(np.float32)
        self.sigma = feat[:, 15].astype(np.float64)
        self.n, self.ep, self.rng = n, episode_bars, np.random.default_rng(seed)
        self.cap, self.sp, self.fee, self.res = cap, spread, fee, reserve
        self.pt, self.sl, self.h = pt, sl, horizon
        self.t = np.zeros(n, np.int64)
        self.end = np.zeros(n, np.int64)
        for name in ("cash", "units", "entry", "upper", "lower", "equity"):
            setattr(self, name, np.zeros(n))
        self.entry_bar = np.zeros(n, np.int64)
        self.vertical = np.zeros(n, np.int64)
        self.reset(np.ones(n, bool))

    def reset(self, mask):
        k = int(mask.sum())
        self.t[mask] = self.rng.integers(self.b, self.e - 1, k)
        self.end[mask] = np.minimum(self.t[mask] + self.ep, self.e - 1)
        self.cash[mask], self.units[mask], self.equity[mask] = self.cap, 0.0, self.cap

    def obs(self):
        long_ = self.units > 0
        close = self.px[self.t, 3]
        pf = np.stack([long_.astype(np.float64),
                       np.where(long_, np.log(close / np.where(long_, self.entry, 1)), 0),
                       np.where(long_, (self.t - self.entry_bar) / self.h, 0)], 1)
        return np.concatenate([self.norm[self.t], pf.astype(np.float32)], 1)

    def _close(self, mask, price):
        proceeds = self.units * price * (1 - self.sp / 2) * (1 - self.fee)
        self.cash = np.where(mask, self.cash + proceeds, self.cash)
        self.units = np.where(mask, 0.0, self.units)

    def step(self, a):
        k = self.t + 1
        o, hi, lo, c = (self.px[k, j] for j in range(4))
        prev = self.equity
        long_ = self.units > 0
        buy, sell = (a == 1) & ~long_, (a == 2) & long_
        ask = o * (1 + self.sp / 2)
        outlay = (1 - self.res) * self.cash
        w = self.sigma[self.t] * np.sqrt(self.h)
        self.units = np.where(buy, outlay / ((1 + self.fee) * ask), self.units)
        self.cash = np.where(buy, self.cash - outlay, self.cash)
        self.entry = np.where(buy, ask, self.entry)
        self.entry_bar = np.where(buy, k, self.entry_bar)
        self.upper = np.where(buy, ask * (1 + self.pt * w), self.upper)
        self.lower = np.where(buy, ask * (1 - self.sl * w), self.lower)
        self.vertical = np.where(buy, k + self.h, self.vertical)
        self._close(sell, o)
        long_ = self.units > 0
        stop = long_ & (lo <= self.lower)
        take = long_ & ~stop & (hi >= self.upper)
        tout = long_ & ~stop & ~take & (k >= self.vertical)
        self._close(stop, np.minimum(o, self.lower))
        self._close(take, np.maximum(o, self.upper))
        self._close(tout, c)
        self.equity = self.cash + self.units * c
        r = self.scale * np.log(self.equity / prev)
        term = self.equity < 0.01 * self.cap
        done = term | (k >= self.end)
        self.t = k
        next_obs = self.obs()
        if done.any():
            self.reset(done)
        return self.obs(), next_obs, r.astype(np.float32), term, done


def mlp(sizes, head_gain, act=nn.ReLU, ortho=True):
    """CleanRL's networks: dqn.py's plain nn.Linear layers (ortho=False) with ReLU, or ppo.py's
    layer_init (orthogonal, sqrt 2 body, head_gain on the head, zero biases) with tanh."""
    layers = []
    for i in range(len(sizes) - 1):
        lin = nn.Linear(sizes[i], sizes[i + 1])
        last = i == len(sizes) - 2
        if ortho:
            nn.init.orthogonal_(lin.weight, head_gain if last else np.sqrt(2))
            nn.init.constant_(lin.bias, 0.0)
        layers += [lin] if last else [lin, act()]
    return nn.Sequential(*layers)


def run_dqn(env, steps, seed, hidden=(128, 128), lr=2.5e-4, gamma=0.99, batch=128,
            buffer=100000, learning_starts=10000, train_freq=4, target_update=1000,
            eps_start=1.0, eps_end=0.05, eps_fraction=0.5, max_grad_norm=10.0):
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    q = mlp([54, *hidden, 3], 1.0, nn.ReLU, ortho=False)
    tq = mlp([54, *hidden, 3], 1.0, nn.ReLU, ortho=False)
    tq.load_state_dict(q.state_dict())
    opt = torch.optim.Adam(q.parameters(), lr=lr)
    S = np.zeros((buffer, 54), np.float32)
    S2 = np.zeros((buffer, 54), np.float32)
    A = np.zeros(buffer, np.int64)
    R = np.zeros(buffer, np.float32)
    T = np.zeros(buffer, np.float32)
    pos = size = 0
    obs = env.obs()
    done_steps, updates, credit = 0, 0, 0.0
    t0 = time.perf_counter()
    while done_steps < steps:
        eps = eps_start + min(1.0, done_steps / (eps_fraction * steps)) * (eps_end - eps_start)
        with torch.no_grad():
            greedy = q(torch.from_numpy(obs)).argmax(1).numpy()
        a = np.where(rng.random(env.n) < eps, rng.integers(0, 3, env.n), greedy)
        new_obs, nxt, r, term, _ = env.step(a)
        idx = (pos + np.arange(env.n)) % buffer
        S[idx], S2[idx], A[idx], R[idx], T[idx] = obs, nxt, a, r, term
        pos, size = (pos + env.n) % buffer, min(size + env.n, buffer)
        obs = new_obs
        done_steps += env.n
        if done_steps < learning_starts:
            continue
        credit += env.n
        while credit >= train_freq:
            credit -= train_freq
            j = rng.integers(0, size, batch)
            s, s2 = torch.from_numpy(S[j]), torch.from_numpy(S2[j])
            with torch.no_grad():
                a_star = q(s2).argmax(1, keepdim=True)  # Double DQN
                y = torch.from_numpy(R[j]) + gamma * (1 - torch.from_numpy(T[j])) * \
                    tq(s2).gather(1, a_star).squeeze(1)
            pred = q(s).gather(1, torch.from_numpy(A[j]).unsqueeze(1)).squeeze(1)
            loss = nn.functional.smooth_l1_loss(pred, y)
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(q.parameters(), max_grad_norm)
            opt.step()
            updates += 1
            if updates % target_update == 0:
                tq.load_state_dict(q.state_dict())
    return done_steps / (time.perf_counter() - t0), updates


def run_ppo(env, steps, seed, hidden=(64, 64), lr=2.5e-4, n_steps=128, gamma=0.99, lam=0.95,
            clip=0.2, epochs=4, minibatches=4, ent_coef=0.01, vf_coef=0.5, max_grad_norm=0.5):
    torch.manual_seed(seed)
    actor, critic = mlp([54, *hidden, 3], 0.01, nn.Tanh), mlp([54, *hidden, 1], 1.0, nn.Tanh)
    params = list(actor.parameters()) + list(critic.parameters())
    opt = torch.optim.Adam(params, lr=lr, eps=1e-5)
    n = env.n
    batch = n_steps * n
    num_updates = max(1, steps // batch)
    obs = torch.from_numpy(env.obs())
    t0 = time.perf_counter()
    for upd in range(num_updates):
        opt.param_groups[0]["lr"] = (1.0 - upd / num_updates) * lr
        O = torch.zeros((n_steps, n, 54))
        Aa = torch.zeros((n_steps, n), dtype=torch.long)
        LP, V, Rw, D = (torch.zeros((n_steps, n)) for _ in range(4))
        for t in range(n_steps):
            O[t] = obs
            with torch.no_grad():
                dist = torch.distributions.Categorical(logits=actor(obs))
                a = dist.sample()
                LP[t], V[t] = dist.log_prob(a), critic(obs).squeeze(1)
            new_obs, nxt, r, term, done = env.step(a.numpy())
            trunc = done & ~term
            r = torch.from_numpy(r)
            if trunc.any():
                with torch.no_grad():
                    r = r + gamma * torch.from_numpy(trunc.astype(np.float32)) * \
                        critic(torch.from_numpy(nxt)).squeeze(1)
            Aa[t], Rw[t], D[t] = a, r, torch.from_numpy(done.astype(np.float32))
            obs = torch.from_numpy(new_obs)
        with torch.no_grad():
            nv = critic(obs).squeeze(1)
            adv = torch.zeros_like(Rw)
            last = 0
            for t in reversed(range(n_steps)):
                nextv = nv if t == n_steps - 1 else V[t + 1]
                nonterm = 1.0 - D[t]
                delta = Rw[t] + gamma * nextv * nonterm - V[t]
                last = delta + gamma * lam * nonterm * last
                adv[t] = last
            ret = adv + V
        bo, ba, blp = O.reshape(-1, 54), Aa.reshape(-1), LP.reshape(-1)
        badv, bret = adv.reshape(-1), ret.reshape(-1)
        mb = batch // minibatches
        for _ in range(epochs):
            perm = torch.randperm(batch)
            for s in range(0, batch, mb):
                i = perm[s:s + mb]
                dist = torch.distributions.Categorical(logits=actor(bo[i]))
                ratio = (dist.log_prob(ba[i]) - blp[i]).exp()
                a_ = (badv[i] - badv[i].mean()) / (badv[i].std() + 1e-8)
                pg = torch.max(-a_ * ratio, -a_ * ratio.clamp(1 - clip, 1 + clip)).mean()
                v = critic(bo[i]).squeeze(1)
                vl = 0.5 * ((v - bret[i]) ** 2).mean()  # ppo.value_loss: unclipped, the default
                loss = pg - ent_coef * dist.entropy().mean() + vf_coef * vl
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(params, max_grad_norm)
                opt.step()
    return num_updates * batch / (time.perf_counter() - t0), num_updates


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--algo", choices=["dqn", "ppo"], required=True)
    ap.add_argument("--h5", required=True)
    ap.add_argument("--steps", type=int, required=True)
    ap.add_argument("--envs", type=int, default=64)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    env = Market(args.h5, args.envs, 2048, args.seed)
    run = run_dqn if args.algo == "dqn" else run_ppo
    sps, updates = run(env, args.steps, args.seed)
    print(json.dumps({"algo": args.algo, "env_steps_per_s": sps, "updates": updates,
                      "torch": torch.__version__, "threads": args.threads}))


if __name__ == "__main__":
    main()
