#!/usr/bin/env bash
# The agents learn: on a market with a real, learnable edge (a noisy 120-bar price wave) both
# DQN and PPO must beat buy-and-hold and a random policy on the validation split by a clear
# margin (0.2 in total return; the wave allows far more), in well under a CPU minute each.
. "$(dirname "$0")/lib.sh"

awk -v N=30000 -v P=120 -v A=0.01 'BEGIN { srand(5); print "timestamp,open,high,low,close,volume"
  prev = 100
  for (t = 0; t < N; t++) {
    lp = log(100) + A * sin(6.283185307179586 * t / P) + 0.0007 * (rand() + rand() + rand() - 1.5)
    c = exp(lp); o = prev; h = (o > c ? o : c) * 1.0002; l = (o < c ? o : c) * 0.9998
    printf "%d,%.6f,%.6f,%.6f,%.6f,%d\n", 1514764800 + 60 * t, o, h, l, c, 100 + int(rand() * 50)
    prev = c
  } }' >"$WORK/wave.csv"
"$FOXOPT" import "$WORK/wave.csv" -o "$WORK/wave.h5" >/dev/null
cat >"$WORK/learn.yaml" <<YAML
data: {path: $WORK/wave.h5}
barrier: {enforce: false}
reward: {scale: 100}
env: {num_envs: 16, episode_bars: 512}
train: {algo: dqn, epochs: 3, steps_per_epoch: 100000, seed: 1}
dqn: {hidden: [64, 64], lr: 0.001, learning_starts: 5000, buffer_size: 50000, target_update: 500, eps_fraction: 0.3}
ppo: {hidden: [64, 64], lr: 0.0003, n_steps: 128}
YAML

# Baselines on the same split with the same market: buy at the first bar and hold; random.
n=4283 # val bars: U = 28559, floor(0.15 U)
{ echo action; echo 1; for _ in $(seq $((n - 1))); do echo 0; done; } >"$WORK/bh.csv"
awk -v n=$n 'BEGIN { srand(9); print "action"; for (i = 0; i < n; i++) print int(rand() * 3) }' >"$WORK/rand.csv"
ret() { sed 's/, "folds".*//' | sed -n 's/.*"total_return": \([^,}]*\).*/\1/p'; }
bh=$("$FOXOPT" backtest "$WORK/wave.h5" --actions "$WORK/bh.csv" --set barrier.enforce=false --json | ret)
rnd=$("$FOXOPT" backtest "$WORK/wave.h5" --actions "$WORK/rand.csv" --set barrier.enforce=false --json | ret)
echo "buy-and-hold val.total_return $bh, random $rnd"

for algo in dqn ppo; do
  steps=100000
  [ $algo = ppo ] && steps=400000
  run_rc 0 "$FOXOPT" train "$WORK/learn.yaml" -o "$WORK/$algo" --set train.algo=$algo \
    --set train.steps_per_epoch=$steps --json
  got=$(echo "$OUT_TXT" | sed -n 's/.*"val.total_return": \([^,}]*\).*/\1/p')
  echo "$algo val.total_return $got"
  check "$algo beats buy-and-hold by 0.2 ($got vs $bh)" awk -v a="$got" -v b="$bh" 'BEGIN { exit !(a > b + 0.2) }'
  check "$algo beats random by 0.2 ($got vs $rnd)" awk -v a="$got" -v b="$rnd" 'BEGIN { exit !(a > b + 0.2) }'
done
done_
