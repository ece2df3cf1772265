#!/usr/bin/env bash
# foxopt run end to end: the same seed gives the same trials.csv (seconds aside) whatever the
# number of threads (test functions, and successive halving over trained agents); SIGTERM
# mid-study is exit 75 and --resume finishes with the table of an uninterrupted run
# (test-function and agent studies, the latter continuing promoted trials from checkpoints),
# and SIGKILL as a segment replaces a trial's file loses nothing after --resume;
# failed trials are recorded and the study goes on; backtest --study
# reproduces every trial's recorded metrics; bad studies are refused with FILE:LINE.
. "$(dirname "$0")/lib.sh"
PY=${FOX_PYTHON:-python3}

# --- Test-function studies: determinism over threads, stop and resume -----------------------
# The first line is a user's comment that once passed for a stored --set on resume.
{ echo '#--set study.trials=30'; branin_sh_yaml branin 3 24 6 6; } >"$WORK/f.yaml"
run_rc 0 "$FOXOPT" run "$WORK/f.yaml" -o "$WORK/f1"
contains "$OUT_TXT" "trials 24/24"
check "24 trials recorded" test "$(($(wc -l <"$WORK/f1/trials.csv") - 1))" -eq 24
# Successive halving with eta 3 over rounds of 6: 2 reach rung 1, 1 completes per round.
check "4 complete" test "$(grep -c ',complete,' "$WORK/f1/trials.csv")" -eq 4
check "20 pruned" test "$(grep -c ',pruned,' "$WORK/f1/trials.csv")" -eq 20
run_rc 0 "$FOXOPT" run "$WORK/f.yaml" -o "$WORK/f2" --set study.trials_per_device=4
same_table "1 vs 4 threads" "$WORK/f1/trials.csv" "$WORK/f2/trials.csv"
run_rc 0 "$FOXOPT" run "$WORK/f.yaml" -o "$WORK/f3"
same_table "a second run" "$WORK/f1/trials.csv" "$WORK/f3/trials.csv"
run_rc 2 "$FOXOPT" run "$WORK/f.yaml" -o "$WORK/f3"
contains "$ERR_TXT" "study.h5 exists: add --resume"

# Each epoch of a trial takes 30 ms.
stop_when "$WORK/fs/study.h5" "$FOXOPT" run "$WORK/f.yaml" -o "$WORK/fs" \
  --set study.objective.seconds=0.03 \
  --set study.trials_per_device=2
check "SIGTERM: exit 75 (got $RC)" test "$RC" -eq 75
contains "$(cat "$WORK/stop.err")" "--resume"
done_rows=$(grep -c -E ',(complete|pruned),' "$WORK/fs/trials.csv")
check "stopped part-way ($done_rows finished)" test "$done_rows" -gt 0 -a "$done_rows" -lt 24
run_rc 2 "$FOXOPT" run "$WORK/f.yaml" -o "$WORK/fs" --resume
contains "$ERR_TXT" "another config or other --set overrides than the study's"
run_rc 2 "$FOXOPT" run -o "$WORK/fs" --resume --set study.seed=5
contains "$ERR_TXT" "--set study.seed=5 without CONFIG.yaml"
run_rc 0 "$FOXOPT" run -o "$WORK/fs" --resume
same_table "stop + resume" "$WORK/f1/trials.csv" "$WORK/fs/trials.csv"

# SIGKILL (a node lost, a preemption past its grace) just as a segment's file replaces a trial's
# earlier one (its kept version appears), three times, each followed by --resume: a file ahead
# of study.h5 gives way to the kept one the study recorded, so no trial's outputs are lost on
# the way, the table is the uninterrupted one and no kept file is left.
kill_at_version() { # CMD...: runs CMD, SIGKILLs it once a trials/*.h5.eE appears
  "$@" >"$WORK/kill.out" 2>>"$WORK/kill.err" &
  local pid=$! i
  for i in $(seq 400); do
    compgen -G "$WORK/fk/trials/*.h5.e*" >/dev/null && break
    sleep 0.02
  done
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
}
rm -rf "$WORK/fk" "$WORK/kill.err"
kill_at_version "$FOXOPT" run "$WORK/f.yaml" -o "$WORK/fk" --set study.objective.seconds=0.03 \
  --set study.trials_per_device=2
for i in 1 2; do
  [ -e "$WORK/fk/study.h5" ] && kill_at_version "$FOXOPT" run -o "$WORK/fk" --resume
done
[ -e "$WORK/fk/study.h5" ] || run_rc 0 "$FOXOPT" run "$WORK/f.yaml" -o "$WORK/fk" \
  --set study.objective.seconds=0.03 --set study.trials_per_device=2
run_rc 0 "$FOXOPT" run -o "$WORK/fk" --resume
echo "$ERR_TXT" >>"$WORK/kill.err"
same_table "SIGKILL x 3 + resume" "$WORK/f1/trials.csv" "$WORK/fk/trials.csv"
check "SIGKILL x 3: no trial's outputs lost ($(grep -c lacks "$WORK/kill.err"))" \
  test "$(grep -c lacks "$WORK/kill.err")" -eq 0
check "SIGKILL x 3: no kept file left" test -z "$(compgen -G "$WORK/fk/trials/*.h5.e*")"
check "SIGKILL x 3: every trial's file" test "$(ls "$WORK/fk/trials" | wc -l)" -eq 24

# Files damaged behind foxopt's back (foxopt itself only renames finished files into place): a
# rank file is written anew by the resume; an unreadable trial file is removed and named.
cp -r "$WORK/f1" "$WORK/fd" && truncate -s 3000 "$WORK/fd/rank-0000.h5"
truncate -s 100 "$WORK/fd/trials/3.h5"
run_rc 0 "$FOXOPT" run -o "$WORK/fd" --resume
contains "$ERR_TXT" "$WORK/fd/trials/3.h5 cannot be read: removed"
contains "$ERR_TXT" "$WORK/fd/trials lacks 1 trial the study recorded (3)"
same_table "resume over damaged files" "$WORK/f1/trials.csv" "$WORK/fd/trials.csv"
run_rc 0 "$FOXOPT" info "$WORK/fd/rank-0000.h5"
run_rc 0 "$FOXOPT" info "$WORK/fd/trials/5.h5"
contains "$OUT_TXT" "foxopt study trial, "
# A study written before trial files (its outputs in the rank file's /trials groups) is not
# resumed here: that would rewrite the rank file without them.
if "$PY" -c 'import h5py' 2>/dev/null; then
  cp -r "$WORK/f1" "$WORK/fo"
  "$PY" -c 'import h5py, sys; h5py.File(sys.argv[1], "a").create_group("trials/0")' \
    "$WORK/fo/rank-0000.h5"
  run_rc 3 "$FOXOPT" run -o "$WORK/fo" --resume
  contains "$ERR_TXT" "the layout of a foxopt before trial files"
fi
# A study.h5 moved away from a study that recorded steps: --resume with the config refuses to
# start afresh over its files.
cp -r "$WORK/f1" "$WORK/fm" && mv "$WORK/fm/study.h5" "$WORK/fm.study.h5"
run_rc 3 "$FOXOPT" run "$WORK/f.yaml" -o "$WORK/fm" --resume
contains "$ERR_TXT" "restore study.h5 to resume it"
check "its trial files kept" test "$(ls "$WORK/fm/trials" | wc -l)" -eq 24
# Rank files without a study.h5 (a run killed before its first step) are not reused.
mkdir -p "$WORK/fr" && cp "$WORK/f1/rank-0000.h5" "$WORK/fr/" && cp "$WORK/f1/rank-0000.h5" "$WORK/fr/rank-0005.h5"
run_rc 0 "$FOXOPT" run "$WORK/f.yaml" -o "$WORK/fr" --set study.trials=6
contains "$ERR_TXT" "removed $WORK/fr/rank-0005.h5"
check "stale rank files gone" test ! -e "$WORK/fr/rank-0005.h5"
check "6 trial files" test "$(ls "$WORK/fr/trials" | wc -l)" -eq 6

# --- Agent studies ----------------------------------------------------------------------------
"$FOXOPT" synth -o "$WORK/s.csv" --bars 16000 --seed 8 >/dev/null
"$FOXOPT" import "$WORK/s.csv" -o "$WORK/s.h5" >/dev/null
cat >"$WORK/a.yaml" <<YAML
data: {path: $WORK/s.h5}
env: {num_envs: 16, episode_bars: 512}
train: {algo: ppo, steps_per_epoch: 6144}
dqn: {learning_starts: 1000, buffer_size: 8000, batch_size: 64, hidden: [32, 32]}
ppo: {n_steps: 64, hidden: [32, 32]}
study:
  name: agents
  seed: 5
  trials: 6
  round_size: 3
  objective: {metric: val.total_return, direction: maximize}
  sampler: {name: tpe, n_startup_trials: 3}
  scheduler: {name: successive_halving, min_epochs: 1, max_epochs: 3, eta: 3}
parameters:
  train.algo: {values: [dqn, ppo]}
  dqn.lr: {distribution: log_uniform, min: 1e-4, max: 1e-2}
  dqn.dueling: {values: [false, true]}
  ppo.lr: {distribution: log_uniform, min: 1e-4, max: 1e-2}
  ppo.clip: {distribution: q_uniform, min: 0.1, max: 0.3, q: 0.05}
  barrier.pt: {distribution: uniform, min: 1.0, max: 3.0}
YAML
run_rc 0 "$FOXOPT" run "$WORK/a.yaml" -o "$WORK/a1"
check "6 agent trials" test "$(($(wc -l <"$WORK/a1/trials.csv") - 1))" -eq 6
check "2 complete" test "$(grep -c ',complete,' "$WORK/a1/trials.csv")" -eq 2
run_rc 0 "$FOXOPT" info "$WORK/a1/study.h5"
contains "$OUT_TXT" "2 complete, 4 pruned, 0 failed, 0 running"
run_rc 0 "$FOXOPT" info "$WORK/a1/rank-0000.h5"
contains "$OUT_TXT" "16000 bars x 51 features"
check "6 trial files" test "$(ls "$WORK/a1/trials" | wc -l)" -eq 6
# An agent trial's file is a trial.h5: info reads it.
run_rc 0 "$FOXOPT" info "$WORK/a1/trials/0.h5"
contains "$OUT_TXT" "foxopt trial"
check "no checkpoint left" test -z "$(ls "$WORK/a1/state")"

# Every trial's policy reproduces its row of trials.csv, digit for digit.
for id in 0 1 2 3 4 5; do
  run_rc 0 "$FOXOPT" backtest "$WORK/s.h5" --study "$WORK/a1" --trial $id --json
  echo "$OUT_TXT" >"$WORK/bt$id.json"
done
"$PY" - "$WORK" <<'PY' && ok || bad "backtest --study differs from trials.csv"
import csv, json, sys
w = sys.argv[1]
rows = list(csv.DictReader(open(f"{w}/a1/trials.csv")))
for r in rows:
    bt = json.load(open(f"{w}/bt{r['id']}.json"))
    for m in ("total_return", "sharpe", "max_drawdown", "trades", "final_equity"):
        got, want = bt[m], float(r["val." + m])
        if got != want:
            sys.exit(f"trial {r['id']} {m}: backtest {got!r}, trials.csv {want!r}")
PY

# Stopped while promoted trials continue from their checkpoints, resumed: the same table.
stop_when "$WORK/a2/study.h5" "$FOXOPT" run "$WORK/a.yaml" -o "$WORK/a2"
check "agent SIGTERM: exit 75 (got $RC)" test "$RC" -eq 75
# Where the stop lands is timing: the invariant is that every trial left running part-way (1 of
# its 3 epochs: a later rung may continue it) has its checkpoint at those epochs, and nothing
# else is kept (a trial at 3 epochs awaits only the rung's decision).
"$PY" - "$WORK/a2" <<'PY' && ok || bad "checkpoints kept are not those of the trials still running"
import csv, os, sys
d = sys.argv[1]
want = {f"trial-{r['id']}-e{r['epochs']}.h5" for r in csv.DictReader(open(f"{d}/trials.csv"))
        if r["status"] == "running" and 0 < int(r["epochs"]) < 3}
have = set(os.listdir(f"{d}/state"))
if want != have:
    sys.exit(f"state/ holds {sorted(have)}, the running trials need {sorted(want)}")
PY
run_rc 0 "$FOXOPT" run "$WORK/a.yaml" -o "$WORK/a2" --resume
same_table "agents stop + resume" "$WORK/a1/trials.csv" "$WORK/a2/trials.csv"
check "6 trial files after the resume" test "$(ls "$WORK/a2/trials" | wc -l)" -eq 6

# A parameter that makes some trials unusable: recorded as failed with the reason, the rest run.
cat >"$WORK/fail.yaml" <<YAML
data: {path: $WORK/s.h5}
env: {num_envs: 16, episode_bars: 512}
train: {algo: ppo, epochs: 1, steps_per_epoch: 4096}
ppo: {hidden: [16, 16]}
study: {name: f, seed: 2, trials: 4, round_size: 4, sampler: grid}
parameters:
  ppo.n_steps: {values: [32, 100000]}
  ppo.lr: {values: [0.001, 0.0001]}
YAML
run_rc 0 "$FOXOPT" run "$WORK/fail.yaml" -o "$WORK/ff"
check "2 failed" test "$(grep -c ',failed,' "$WORK/ff/trials.csv")" -eq 2
check "2 complete" test "$(grep -c ',complete,' "$WORK/ff/trials.csv")" -eq 2
contains "$(cat "$WORK/ff/trials.csv")" "no rollout would finish"
contains "$OUT_TXT" "failed 2"

# --- Refusals ---------------------------------------------------------------------------------
printf 'study: {trials: 3}\nparameters:\n  dqn.lr: {distribution: uniform, min: 0.1, max: 0.01}\n' \
  >"$WORK/bad1.yaml"
run_rc 2 "$FOXOPT" run "$WORK/bad1.yaml" -o "$WORK/b1"
contains "$ERR_TXT" "bad1.yaml:3: parameters.dqn.lr: min 0.1 must be below max 0.01"
printf 'parameters:\n  dqn.lrr: {distribution: uniform, min: 0.1, max: 0.2}\n' >"$WORK/bad2.yaml"
run_rc 2 "$FOXOPT" run "$WORK/bad2.yaml" -o "$WORK/b2"
contains "$ERR_TXT" "bad2.yaml:2: unknown parameter 'dqn.lrr'"
printf 'study: {objective: {metric: val.sharp}}\n' >"$WORK/bad3.yaml"
run_rc 2 "$FOXOPT" run "$WORK/bad3.yaml" -o "$WORK/b3"
contains "$ERR_TXT" "study.objective.metric = 'val.sharp'"
check "nothing written for a bad study" test ! -e "$WORK/b1/study.h5"
mkdir -p "$WORK/corrupt" && echo "not hdf5" >"$WORK/corrupt/study.h5"
run_rc 3 "$FOXOPT" run -o "$WORK/corrupt" --resume
contains "$ERR_TXT" "corrupt/study.h5: not an HDF5 file"
run_rc 3 "$FOXOPT" backtest "$WORK/s.h5" --study "$WORK/a1" --trial 6
contains "$ERR_TXT" "no trial 6"
run_rc 3 "$FOXOPT" backtest "$WORK/s.h5" --study "$WORK/f1" --trial 0
contains "$ERR_TXT" "test-function study"

# Training studies through the population code (train/pop.c: on the CPU a thread per item, each
# a population of one): successive halving over DQN and PPO of mixed shapes, the same table
# with 1 and 5 trials at once, and every epoch recorded as trained alone.
cat >"$WORK/sh.yaml" <<YAML
data: {path: $WORK/s.h5}
env: {num_envs: 8, episode_bars: 256}
train: {algo: dqn, steps_per_epoch: 384, epochs: 3, backend: cpu}
dqn: {hidden: [16, 16], buffer_size: 1000, learning_starts: 64, batch_size: 32,
      target_update: 20}
ppo: {hidden: [16], n_steps: 16, minibatches: 2}
study:
  name: sh
  seed: 3
  trials: 9
  round_size: 9
  objective: {metric: val.total_return, direction: maximize}
  sampler: {name: random}
  scheduler: {name: successive_halving, min_epochs: 1, max_epochs: 3, eta: 3}
parameters:
  train.algo: {values: [dqn, ppo]}
  dqn.lr: {distribution: log_uniform, min: 1e-4, max: 1e-2}
  ppo.lr: {distribution: log_uniform, min: 1e-4, max: 1e-2}
  dqn.double: {values: [true, false]}
  env.episode_bars: {values: [128, 256]}
YAML
run_rc 0 "$FOXOPT" run "$WORK/sh.yaml" -o "$WORK/sh1" --set study.trials_per_device=1
run_rc 0 "$FOXOPT" run "$WORK/sh.yaml" -o "$WORK/sh5" --set study.trials_per_device=5
check "successive halving: 9 trials and promotions" \
  test "$(($(wc -l <"$WORK/sh1/trials.csv") - 1))" -ge 9
same_table "successive halving on the CPU: 1 vs 5 at once" "$WORK/sh1/trials.csv" \
  "$WORK/sh5/trials.csv"
if "$PY" -c 'import h5py' 2>/dev/null; then
  "$PY" - "$WORK/sh5" <<'PY' && ok || bad "the CPU's trials train as populations of one"
import glob, sys
import h5py
for p in glob.glob(f"{sys.argv[1]}/trials/*.h5"):
    with h5py.File(p) as f:
        m = set(int(x) for x in f["curve/members"][()])
        dev = f["device"][()]
        if m - {1} or dev.any():
            sys.exit(f"{p}: members {sorted(m)}, device counts {dev.tolist()}")
PY
fi
done_
