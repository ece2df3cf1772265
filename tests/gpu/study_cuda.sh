#!/usr/bin/env bash
# A study on the CUDA backend (DQN and PPO, successive halving, five trials at once trained as
# populations: the trials of one shape and phase step together, members pruned by the scheduler
# leave and the next item of that shape joins at an epoch boundary) gives one table however its
# work reaches the device and interleaves there: chunks of steps as graphs (the default) or every
# kernel launched one by one (train.graphs false), one trial at a time, two or five at once
# (populations of up to that many members), and, on the emulation, the
# synchronous engine against this run's own (the asynchronous one with its delay seed, in the
# _async variants: every stream on a thread of its own, the sanitizer on). Skips (77) without a
# CUDA build or device.
. "$(dirname "$0")/../e2e/lib.sh"
"$FOXOPT" synth -o "$WORK/s.csv" --bars 6000 --seed 9 >/dev/null
"$FOXOPT" import "$WORK/s.csv" -o "$WORK/s.h5" >/dev/null
cat >"$WORK/c.yaml" <<YAML
data: {path: $WORK/s.h5}
env: {num_envs: 8, episode_bars: 256}
train: {algo: dqn, steps_per_epoch: 384, epochs: 3, backend: cuda}
dqn: {hidden: [16, 16], buffer_size: 1000, learning_starts: 64, batch_size: 32,
      target_update: 20}
ppo: {hidden: [16], n_steps: 16, minibatches: 2}
study:
  name: cuda
  seed: 3
  trials: 9
  round_size: 9
  trials_per_device: 5
  objective: {metric: val.total_return, direction: maximize}
  sampler: {name: random}
  scheduler: {name: successive_halving, min_epochs: 1, max_epochs: 3, eta: 3}
parameters:
  train.algo: {values: [dqn, ppo]}
  dqn.lr: {distribution: log_uniform, min: 1e-4, max: 1e-2}
  ppo.lr: {distribution: log_uniform, min: 1e-4, max: 1e-2}
  dqn.double: {values: [true, false]}
  dqn.gamma: {distribution: uniform, min: 0.9, max: 0.99}
  env.episode_bars: {values: [128, 256]}
YAML
FOX_CUDA_EMU_ASYNC=0 "$FOXOPT" run "$WORK/c.yaml" -o "$WORK/ref" --set study.trials_per_device=1 >"$WORK/ref.out" 2>"$WORK/ref.err"
rc=$?
if [ $rc -ne 0 ] && grep -q "backend cuda:" "$WORK/ref.err"; then
  echo "skipped: $(cat "$WORK/ref.err")"
  exit 77
fi
check "reference study (exit $rc: $(tail -1 "$WORK/ref.err"))" test $rc -eq 0
check "9 trials and their promotions" test "$(($(wc -l <"$WORK/ref/trials.csv") - 1))" -ge 9
run_rc 0 "$FOXOPT" run "$WORK/c.yaml" -o "$WORK/five"
same_table "five trials at once as populations (FOX_CUDA_EMU_ASYNC=${FOX_CUDA_EMU_ASYNC:-0} seed ${FOX_CUDA_EMU_SEED:-1})" \
  "$WORK/ref/trials.csv" "$WORK/five/trials.csv"
# The trial files say which population each epoch trained in and what the device did.
if [ -n "${FOX_PYTHON:-}" ] && "$FOX_PYTHON" -c "import h5py" 2>/dev/null; then
  "$FOX_PYTHON" - "$WORK/ref" "$WORK/five" <<'PY' && ok || bad "populations in the trial files"
import glob, sys
import h5py
def members(d):
    out = []
    for p in sorted(glob.glob(f"{d}/trials/*.h5")):
        with h5py.File(p) as f:
            if f.attrs["status"] not in (b"complete", "complete"):
                continue
            out += list(f["curve/members"][()])
            names = [n.decode() if isinstance(n, bytes) else n for n in f["device"].attrs["names"]]
            train = dict(zip(names, f["device"][0]))
            if train["kernels"] <= 0 or train["host_calls"] <= 0:
                sys.exit(f"{p}: no device work recorded: {train}")
    return out
one, five = members(sys.argv[1]), members(sys.argv[2])
if set(one) != {1}:
    sys.exit(f"trials_per_device 1 trained in populations {sorted(set(one))}")
if max(five) < 2 or max(five) > 5:
    sys.exit(f"trials_per_device 5 trained in populations {sorted(set(five))}")
print(f"# epochs by population size with 5 per device: "
      f"{ {m: five.count(m) for m in sorted(set(five))} }")
PY
fi
run_rc 0 "$FOXOPT" run "$WORK/c.yaml" -o "$WORK/two" --set study.trials_per_device=2
same_table "two at once" "$WORK/ref/trials.csv" "$WORK/two/trials.csv"
run_rc 0 "$FOXOPT" run "$WORK/c.yaml" -o "$WORK/nog" --set train.graphs=false
same_table "no graphs: every kernel launched one by one" "$WORK/ref/trials.csv" \
  "$WORK/nog/trials.csv"
done_
