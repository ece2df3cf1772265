#!/usr/bin/env bash
# The agents learn at their defaults: on a market with a real, learnable edge (a noisy 120-bar
# price wave) both DQN and PPO, with every agent, reward and network setting left at its
# default (only the run's length is set), must beat buy-and-hold and a random policy on the
# validation split by a clear margin (0.2 in total return; the wave allows far more) on each of
# 3 seeds, in well under a CPU minute each.
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
train: {epochs: 2}
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
  steps=80000
  [ $algo = ppo ] && steps=200000
  for seed in 1 2 3; do
    run_rc 0 "$FOXOPT" train "$WORK/learn.yaml" -o "$WORK/$algo$seed" --set train.algo=$algo \
      --set train.steps_per_epoch=$steps --set train.seed=$seed --json
    got=$(echo "$OUT_TXT" | sed -n 's/.*"val.total_return": \([^,}]*\).*/\1/p')
    echo "$algo seed $seed val.total_return $got"
    check "$algo seed $seed beats buy-and-hold by 0.2 ($got vs $bh)" \
      awk -v a="$got" -v b="$bh" 'BEGIN { exit !(a > b + 0.2) }'
    check "$algo seed $seed beats random by 0.2 ($got vs $rnd)" \
      awk -v a="$got" -v b="$rnd" 'BEGIN { exit !(a > b + 0.2) }'
  done
done
# reward.scale auto as it was resolved and recorded: 1 / the population std of the train
# split's one-bar log returns of close, recomputed here from dataset.h5 with numpy.
if [ -n "${FOX_PYTHON:-}" ] && "$FOX_PYTHON" -c 'import numpy, h5py' 2>/dev/null; then
  run_rc 0 "$FOX_PYTHON" -c '
import h5py, numpy as np, sys
d = h5py.File(sys.argv[1]); b, e = (int(x) for x in d.attrs["split_train"])
c = d["bars/close"][b:e]; want = 1 / np.std(np.diff(np.log(c)))
got = h5py.File(sys.argv[2]).attrs["reward_scale"]
print(f"reward_scale recorded {got!r}, numpy {want!r}")
sys.exit(int(abs(got - want) > 1e-9 * want))' "$WORK/wave.h5" "$WORK/dqn1/trial.h5"
  echo "$OUT_TXT"
  contains "$(h5dump -a /config "$WORK/dqn1/trial.h5")" "scale: $("$FOX_PYTHON" -c 'import h5py,sys; print(repr(float(h5py.File(sys.argv[1]).attrs["reward_scale"])))' "$WORK/dqn1/trial.h5" | cut -c1-12)"
fi
done_
