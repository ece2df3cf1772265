#!/usr/bin/env bash
# A study on the CUDA backend (DQN and PPO, successive halving, two trials at once sharing the
# device from their own threads and streams) gives one table however its work reaches the
# device and interleaves there: chunks of steps as graphs (the default) or every kernel launched
# one by one (train.graphs false), one trial at a time or two at once, and, on the emulation, the
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
  trials: 6
  round_size: 6
  trials_per_device: 2
  objective: {metric: val.total_return, direction: maximize}
  sampler: {name: random}
  scheduler: {name: successive_halving, min_epochs: 1, max_epochs: 3, eta: 3}
parameters:
  train.algo: {values: [dqn, ppo]}
  dqn.lr: {distribution: log_uniform, min: 1e-4, max: 1e-2}
  ppo.lr: {distribution: log_uniform, min: 1e-4, max: 1e-2}
  dqn.double: {values: [true, false]}
YAML
FOX_CUDA_EMU_ASYNC=0 "$FOXOPT" run "$WORK/c.yaml" -o "$WORK/ref" >"$WORK/ref.out" 2>"$WORK/ref.err"
rc=$?
if [ $rc -ne 0 ] && grep -q "backend cuda:" "$WORK/ref.err"; then
  echo "skipped: $(cat "$WORK/ref.err")"
  exit 77
fi
check "reference study (exit $rc: $(tail -1 "$WORK/ref.err"))" test $rc -eq 0
check "6 trials and their promotions" test "$(($(wc -l <"$WORK/ref/trials.csv") - 1))" -ge 6
run_rc 0 "$FOXOPT" run "$WORK/c.yaml" -o "$WORK/two"
same_table "two trials at once (FOX_CUDA_EMU_ASYNC=${FOX_CUDA_EMU_ASYNC:-0} seed ${FOX_CUDA_EMU_SEED:-1})" \
  "$WORK/ref/trials.csv" "$WORK/two/trials.csv"
run_rc 0 "$FOXOPT" run "$WORK/c.yaml" -o "$WORK/one" --set study.trials_per_device=1
same_table "one trial at a time" "$WORK/ref/trials.csv" "$WORK/one/trials.csv"
run_rc 0 "$FOXOPT" run "$WORK/c.yaml" -o "$WORK/nog" --set train.graphs=false
same_table "no graphs: every kernel launched one by one" "$WORK/ref/trials.csv" \
  "$WORK/nog/trials.csv"
done_
