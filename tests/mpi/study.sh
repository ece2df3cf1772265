#!/usr/bin/env bash
# foxopt run as an MPI job (DESIGN.md s9), oversubscribed on one machine: the same trials.csv
# (rank and seconds aside) with 1, 2, 3 and 4 ranks for a test-function and an agent study;
# each trial's file naming the rank trials.csv names; each rank file's /dataset the crc32 of the
# dataset's features and prices as f32, its host's one stored copy (dataset-0000.h5) equal to
# them; SIGTERM to one rank stops every rank with 75 and --resume (on
# another rank count) completes the uninterrupted table; kill -9 of a rank ends the job in
# under 10 s and --resume loses nothing.
. "$(dirname "$0")/../e2e/lib.sh"
need_python
MPIEXEC=${FOX_MPIEXEC:-mpiexec}
mpi() { local n=$1; shift; "$MPIEXEC" -n "$n" "$@"; }
# Every trial file of OUTDIR naming the rank trials.csv names; /dataset as uploaded, one copy.
rank_files_ok() {
  "$FOX_PYTHON" - "$1" "${2:-}" <<'PY'
import csv, glob, sys, zlib
import h5py, numpy as np
out, data = sys.argv[1], sys.argv[2]
rows = {int(r["id"]): int(r["rank"]) for r in csv.DictReader(open(f"{out}/trials.csv"))}
where = {}
for p in glob.glob(f"{out}/trials/*.h5"):
    with h5py.File(p) as f:
        where[int(p.rsplit("/", 1)[1][:-3])] = int(f.attrs["rank"])
copies = set()
for p in sorted(glob.glob(f"{out}/rank-*.h5")):
    with h5py.File(p) as f:
        if data:
            # one stored copy for the host; each rank file the sums of what its device holds
            g = f["dataset"]
            if "features" in g or "prices" in g:
                sys.exit(f"{p}: /dataset holds arrays: the host's copy is {g.attrs['copy']}")
            copies.add(g.attrs["copy"].decode() if isinstance(g.attrs["copy"], bytes)
                       else g.attrs["copy"])
            with h5py.File(data) as d:
                for name in ("features", "prices"):
                    want = zlib.crc32(np.ascontiguousarray(d[name][:], dtype=np.float32).tobytes())
                    if int(g.attrs[name + "_crc32"]) != want:
                        sys.exit(f"{p}: /dataset {name}_crc32 {int(g.attrs[name + '_crc32']):08x}"
                                 f", {data}:/{name} has {want:08x}")
if data:
    if copies != {"dataset-0000.h5"} or sorted(glob.glob(f"{out}/dataset-*.h5")) != [f"{out}/dataset-0000.h5"]:
        sys.exit(f"rank files name the copies {sorted(copies)}, {out} holds "
                 f"{sorted(glob.glob(f'{out}/dataset-*.h5'))}: one host, one copy")
    with h5py.File(f"{out}/dataset-0000.h5") as c, h5py.File(data) as d:
        for name in ("features", "prices"):
            a, b = c[name][:], d[name][:]
            if a.dtype != np.float32 or not np.array_equal(a, b, equal_nan=True):
                sys.exit(f"{out}/dataset-0000.h5: /{name} differs from {data}:/{name}")
if where != rows:
    sys.exit(f"trial files say {sorted(where.items())}, trials.csv says {sorted(rows.items())}")
PY
}

cat >"$WORK/f.yaml" <<YAML
train: {epochs: 9}
study:
  name: branin
  seed: 4
  trials: 20
  round_size: 5
  trials_per_device: 2
  objective: {function: branin, direction: minimize}
  sampler: {name: tpe, n_startup_trials: 5}
  scheduler: {name: hyperband, min_epochs: 1, eta: 3}
parameters:
  x0: {distribution: uniform, min: -5, max: 10}
  x1: {distribution: uniform, min: 0, max: 15}
YAML
for n in 1 2 3 4; do
  run_rc 0 mpi $n "$FOXOPT" run "$WORK/f.yaml" -o "$WORK/f$n"
  [ $n -gt 1 ] && same_table "function study, $n ranks" "$WORK/f1/trials.csv" "$WORK/f$n/trials.csv"
  check "function study, $n ranks: rank files" rank_files_ok "$WORK/f$n"
done
contains "$OUT_TXT" "4 rank files"
# Ranks pull as they are free, so which ranks run what varies; several must have taken work.
check "the trials spread over the ranks" test "$(cut -d, -f7 "$WORK/f4/trials.csv" | sort -u | grep -c '^[0-3]$')" -ge 2

"$FOXOPT" synth -o "$WORK/s.csv" --bars 12000 --seed 9 >/dev/null
"$FOXOPT" import "$WORK/s.csv" -o "$WORK/s.h5" >/dev/null
cat >"$WORK/a.yaml" <<YAML
data: {path: $WORK/s.h5}
env: {num_envs: 8, episode_bars: 256}
train: {algo: ppo, steps_per_epoch: 2048}
dqn: {learning_starts: 500, buffer_size: 4000, batch_size: 32, hidden: [16, 16]}
ppo: {n_steps: 32, hidden: [16, 16]}
study:
  name: agents
  seed: 6
  trials: 8
  round_size: 4
  objective: {metric: val.total_return, direction: maximize}
  sampler: {name: tpe, n_startup_trials: 4}
  scheduler: {name: successive_halving, min_epochs: 1, max_epochs: 4, eta: 2}
parameters:
  train.algo: {values: [dqn, ppo]}
  dqn.lr: {distribution: log_uniform, min: 1e-4, max: 1e-2}
  ppo.lr: {distribution: log_uniform, min: 1e-4, max: 1e-2}
  barrier.pt: {distribution: uniform, min: 1.0, max: 3.0}
YAML
for n in 1 2 3 4; do
  run_rc 0 mpi $n "$FOXOPT" run "$WORK/a.yaml" -o "$WORK/a$n"
  [ $n -gt 1 ] && same_table "agent study, $n ranks" "$WORK/a1/trials.csv" "$WORK/a$n/trials.csv"
  check "agent study, $n ranks: rank files and /dataset" rank_files_ok "$WORK/a$n" "$WORK/s.h5"
done
# Repeats (3 seeds per configuration, 2 folds, median): the same table on 1 and 3 ranks, and
# each (trial, repeat) file naming the rank study.h5 records for that repeat.
for n in 1 3; do
  run_rc 0 mpi $n "$FOXOPT" run "$WORK/a.yaml" -o "$WORK/r$n" --set study.repeats=3 \
    --set eval.folds=2 --set study.objective.aggregate=median --set study.trials=4
  [ $n -gt 1 ] && same_table "repeats, $n ranks" "$WORK/r1/trials.csv" "$WORK/r$n/trials.csv"
done
"$FOX_PYTHON" - "$WORK/r3" <<'PY' && ok || bad "repeats on 3 ranks: trial files and study.h5 disagree"
import sys
import h5py
out = sys.argv[1]
with h5py.File(f"{out}/study.h5") as f:
    ranks = f["trials/repeats/rank"][:]
seen = set()
for i in range(ranks.shape[0]):
    for r in range(3):
        name = f"{out}/trials/{i}.h5" if r == 0 else f"{out}/trials/{i}-r{r}.h5"
        with h5py.File(name) as t:
            if int(t.attrs["rank"]) != ranks[i, r] or int(t.attrs["repeat"]) != r:
                sys.exit(f"{name}: rank {t.attrs['rank']} repeat {t.attrs['repeat']}, "
                         f"study.h5 says rank {ranks[i, r]}")
        seen.add(int(ranks[i, r]))
if len(seen) < 2:
    sys.exit(f"the repeats ran on ranks {sorted(seen)} only")
PY

# nsga2 with two objectives and constraints: the same table on 1 and 3 ranks.
cat >"$WORK/mo.yaml" <<YAML
study:
  seed: 11
  trials: 40
  round_size: 8
  objective:
    - {metric: f0, direction: minimize, function: binh_korn}
    - {metric: f1, direction: minimize}
  constraints: ["c0 <= 20", "c1 >= 7.7"]
  sampler: {name: nsga2, population_size: 8}
parameters:
  x0: {distribution: uniform, min: 0, max: 5}
  x1: {distribution: uniform, min: 0, max: 3}
YAML
for n in 1 3; do
  run_rc 0 mpi $n "$FOXOPT" run "$WORK/mo.yaml" -o "$WORK/mo$n"
done
same_table "nsga2, 3 ranks" "$WORK/mo1/trials.csv" "$WORK/mo3/trials.csv"

# PBT (8 members, 4 generations): the same table on 1 to 4 ranks; with several ranks the
# states some segments continue from move between ranks (study.h5 /pbt/transfers), and none
# on one. Every segment's policy, wherever it ran, reproduces its row.
cat >"$WORK/p.yaml" <<YAML
data: {path: $WORK/s.h5}
env: {num_envs: 8, episode_bars: 256}
train: {algo: dqn, steps_per_epoch: 1024, epochs: 4}
dqn: {hidden: [16], buffer_size: 2000, learning_starts: 200, batch_size: 32}
study:
  name: pbt
  seed: 6
  trials_per_device: 2
  objective: {metric: val.total_return, direction: maximize}
  sampler: {name: random}
  scheduler: {name: pbt, population: 8, interval: 1}
parameters:
  dqn.lr: {distribution: log_uniform, min: 1e-4, max: 1e-2}
  dqn.gamma: {distribution: uniform, min: 0.9, max: 0.999}
  dqn.batch_size: {values: [16, 32, 64]}
YAML
moves() { # moves OUTDIR: the states moved between ranks, over every generation
  "$FOX_PYTHON" -c 'import h5py, sys; print(int(h5py.File(sys.argv[1])["pbt/transfers"][:].sum()))' \
    "$1/study.h5"
}
for n in 1 2 3 4; do
  run_rc 0 mpi $n "$FOXOPT" run "$WORK/p.yaml" -o "$WORK/p$n"
  [ $n -gt 1 ] && same_table "pbt, $n ranks" "$WORK/p1/trials.csv" "$WORK/p$n/trials.csv"
  check "pbt, $n ranks: rank files" rank_files_ok "$WORK/p$n" "$WORK/s.h5"
done
check "pbt on one rank moved no state" test "$(moves "$WORK/p1")" -eq 0
check "pbt on 4 ranks moved states ($(moves "$WORK/p4"))" test "$(moves "$WORK/p4")" -gt 0
# Each of generations 1-3's 8 segments continues from a state. With 8 trials at a time on one
# rank every one was copied within the backend from the trial that made it (still open there,
# 8 held at most); at 2 a rank (the runs above) some were; on 4 ranks the states that moved
# came as bytes, so at most as many were copied as did not move.
copied() {
  "$FOX_PYTHON" -c 'import h5py, sys; print(int(h5py.File(sys.argv[1])["pbt/copied"][:].sum()))' \
    "$1/study.h5"
}
run_rc 0 mpi 1 "$FOXOPT" run "$WORK/p.yaml" -o "$WORK/p1t8" --set study.trials_per_device=8
same_table "pbt, 8 at a time" "$WORK/p1/trials.csv" "$WORK/p1t8/trials.csv"
check "pbt, 8 at a time: 24 states copied ($(copied "$WORK/p1t8"))" \
  test "$(copied "$WORK/p1t8")" -eq 24
for n in 1 4; do
  check "pbt on $n ranks: $(copied "$WORK/p$n") copied, $(moves "$WORK/p$n") moved" \
    test "$(copied "$WORK/p$n")" -ge 1 -a $(($(copied "$WORK/p$n") + $(moves "$WORK/p$n"))) -le 24
done
"$FOX_PYTHON" - "$WORK/p4" <<'PY' && ok || bad "pbt on 4 ranks: exploited rows"
import csv, sys
rows = list(csv.DictReader(open(f"{sys.argv[1]}/trials.csv")))
ex = [r for r in rows if r["exploited"] == "1"]
# ceil(8 x 0.25) = 2 bottom members copy a top one in each of generations 1-3
if len(ex) != 6 or {r["generation"] for r in ex} != {"1", "2", "3"}:
    sys.exit(f"{len(ex)} exploits: {[(r['id'], r['generation'], r['parent']) for r in ex]}")
PY
for id in 9 17 30; do
  run_rc 0 "$FOXOPT" backtest "$WORK/s.h5" --study "$WORK/p4" --trial "$id" --json
  want=$(awk -F, -v id="$id" 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "val.total_return") c = i}
         NR > 1 && $1 == id {print $c}' "$WORK/p4/trials.csv")
  got=$(echo "$OUT_TXT" | "$FOX_PYTHON" -c "import json, sys; print(repr(json.load(sys.stdin)['total_return']))")
  check "pbt: backtest --study --trial $id: total_return $got vs $want" \
    "$FOX_PYTHON" -c "import sys; sys.exit(float('$got') != float('$want'))"
done

# A promoted trial's policy, wherever it ran, reproduces its row.
best=$("$FOXOPT" info "$WORK/a3/study.h5" | sed -n 's/.*best *trial \([0-9]*\):.*/\1/p')
run_rc 0 "$FOXOPT" backtest "$WORK/s.h5" --study "$WORK/a3" --trial "$best" --json
want=$(awk -F, -v id="$best" 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "val.total_return") c = i}
       NR > 1 && $1 == id {print $c}' "$WORK/a3/trials.csv")
got=$(echo "$OUT_TXT" | "$FOX_PYTHON" -c "import json, sys; print(repr(json.load(sys.stdin)['total_return']))")
check "backtest --study trial $best: total_return $got vs $want" \
  "$FOX_PYTHON" -c "import sys; sys.exit(float('$got') != float('$want'))"

# The ranks of a running job, as the children of mpiexec (started here without a subshell).
ranks_of() { pgrep -P "$1" | sort -n; }
wait_for() { local i; for i in $(seq 600); do [ -e "$1" ] && return 0; sleep 0.05; done; return 1; }

# Waits (up to 30 s) for a file matching the glob $1.
wait_glob() {
  local f
  for _ in $(seq 600); do
    for f in $1; do [ -e "$f" ] && return 0; done
    sleep 0.05
  done
  return 1
}

# term_one_rank OUTDIR RANK CONFIG [--set...]: a 3-rank run of CONFIG into OUTDIR, SIGTERM to
# the RANK-th rank (1-based, as mpiexec started them) once the first checkpoint is written:
# OUTDIR/study.h5, or with WAIT=state an agent's first segment state (study.h5 is rewritten at
# most every 2 s, so a short pbt study can be over before it first appears); sets RC, the output
# in OUTDIR.out and OUTDIR.err.
term_one_rank() {
  local out=$1 nth=$2 cfg=$3
  shift 3
  "$MPIEXEC" -n 3 "$FOXOPT" run "$cfg" -o "$out" "$@" >"$out.out" 2>"$out.err" &
  local job=$!
  if [ "${WAIT:-}" = state ]; then wait_glob "$out/state/trial-*.h5"; else wait_for "$out/study.h5"; fi
  kill -TERM "$(ranks_of $job | sed -n "${nth}p")"
  wait $job
  RC=$?
}

# SIGTERM to one rank: all agree, rank 0 checkpoints, every rank exits 75.
term_one_rank "$WORK/fs" 2 "$WORK/f.yaml" --set study.objective.seconds=0.05
check "SIGTERM to one rank: the job exits 75 (got $RC)" test "$RC" -eq 75
contains "$(cat "$WORK/fs.err")" "stopped by signal 15 after a clean checkpoint"
run_rc 0 mpi 2 "$FOXOPT" run -o "$WORK/fs" --resume
same_table "SIGTERM to one rank, resumed on 2" "$WORK/f1/trials.csv" "$WORK/fs/trials.csv"
check "resumed: rank files" rank_files_ok "$WORK/fs"

# PBT: SIGTERM to one rank mid-study (states held in memory are lost with the job); --resume
# on another rank count continues from OUTDIR/state and gives the uninterrupted table.
WAIT=state term_one_rank "$WORK/ps" 3 "$WORK/p.yaml"
check "pbt: SIGTERM to one rank: the job exits 75 (got $RC)" test "$RC" -eq 75
check "pbt: stopped mid-study" not grep -q '^31,complete' "$WORK/ps/trials.csv"
run_rc 0 mpi 2 "$FOXOPT" run -o "$WORK/ps" --resume
same_table "pbt: SIGTERM to one rank, resumed on 2" "$WORK/p1/trials.csv" "$WORK/ps/trials.csv"

# kill -9 of one rank: the job ends within 10 s, non-zero; --resume loses no finished trial.
"$MPIEXEC" -n 3 "$FOXOPT" run "$WORK/f.yaml" -o "$WORK/fk" --set study.objective.seconds=0.05 \
  >"$WORK/fk.out" 2>"$WORK/fk.err" &
job=$!
wait_for "$WORK/fk/study.h5"
before=$(grep -c -E ',(complete|pruned),' "$WORK/fk/trials.csv")
victim=$(ranks_of $job | sed -n 2p)
t0=$(date +%s.%N)
kill -KILL "$victim"
wait $job
RC=$?
secs=$("$FOX_PYTHON" -c "print(round($(date +%s.%N) - $t0, 2))")
check "kill -9: non-zero exit (got $RC)" test "$RC" -ne 0
check "kill -9: the job ended in $secs s (< 10)" "$FOX_PYTHON" -c "import sys; sys.exit($secs >= 10)"
"$FOX_PYTHON" - "$WORK" <<'PY' && ok || bad "a finished trial was lost by kill -9"
import csv, sys
w = sys.argv[1]
done = {r["id"]: r for r in csv.DictReader(open(f"{w}/fk/trials.csv"))
        if r["status"] in ("complete", "pruned")}
ref = {r["id"]: r for r in csv.DictReader(open(f"{w}/f1/trials.csv"))}
for i, r in done.items():
    if r["status"] != ref[i]["status"] or r["value"] != ref[i]["value"]:
        sys.exit(f"trial {i}: {r['status']} {r['value']} vs {ref[i]['status']} {ref[i]['value']}")
PY
run_rc 0 mpi 4 "$FOXOPT" run -o "$WORK/fk" --resume
same_table "kill -9, resumed on 4" "$WORK/f1/trials.csv" "$WORK/fk/trials.csv"
check "kill -9 resumed: rank files" rank_files_ok "$WORK/fk"
echo "# finished before the kill: $before"
done_
