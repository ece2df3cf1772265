#!/usr/bin/env bash
# foxopt report on a tiny agent study and a Branin study: the table's rows are the trials in the
# ranking computed here from trials.csv (complete by the objective, pruned by epochs then the
# objective, running, failed), --top limits them, --csv holds every trial in trials.csv's
# columns, the figure files (SVG and PNG) are real images, and
# exit 0, a missing OUTDIR is exit 3 naming it, a bad --top is exit 2.
. "$(dirname "$0")/lib.sh"

"$FOXOPT" synth -o "$WORK/s.csv" --bars 12000 --seed 5 >/dev/null
"$FOXOPT" import "$WORK/s.csv" -o "$WORK/s.h5" >/dev/null
# Nine trials in one round of successive halving over 1, 3, 9 epochs: complete trials, trials
# pruned at two rungs, and failed ones (ppo.n_steps = 100000 leaves PPO no full rollout).
cat >"$WORK/agent.yaml" <<YAML
data: {path: $WORK/s.h5}
env: {num_envs: 8, episode_bars: 256}
train: {algo: ppo, epochs: 9, steps_per_epoch: 1024}
dqn: {learning_starts: 256, buffer_size: 4096, batch_size: 32, hidden: [16, 16]}
ppo: {n_steps: 32, hidden: [16, 16]}
study: {name: rt, seed: SEED, trials: 9, round_size: 9, sampler: tpe,
        objective: {metric: val.sharpe, direction: maximize},
        scheduler: {name: successive_halving, min_epochs: 1, max_epochs: 9, eta: 3}}
parameters:
  train.algo: {values: [dqn, ppo]}
  dqn.lr: {distribution: log_uniform, min: 1e-4, max: 1e-2}
  ppo.lr: {distribution: log_uniform, min: 1e-4, max: 1e-2}
  ppo.n_steps: {values: [32, 100000]}
  barrier.pt: {distribution: uniform, min: 1.0, max: 3.0}
YAML
cat >"$WORK/branin.yaml" <<YAML
study: {name: br, seed: 3, trials: 40, sampler: tpe,
        objective: {function: branin, direction: minimize}}
parameters: {x0: {distribution: uniform, min: -5, max: 10}, x1: {distribution: uniform, min: 0, max: 15}}
YAML
# column NAME CSV: the 1-based index of a column of a CSV header (no quoted commas in these).
column() { head -1 "$2" | tr ',' '\n' | grep -nx "$1" | cut -d: -f1; }
# 1 when a trial pruned after 1 epoch has a better val.sharpe than one pruned after 3: a row
# the ranking must put below it all the same.
inverted() {
  awk -F, -v m="$(column val.sharpe "$1")" '
    $2 == "pruned" && $5 == 3 && (lo == "" || $m < lo) { lo = $m }
    $2 == "pruned" && $5 == 1 && (hi == "" || $m > hi) { hi = $m }
    END { print (lo != "" && hi != "" && hi > lo) }' "$1"
}
# Which study seed holds that case depends on every number of training: take the first of a
# few that does, so that the test keeps its case when the agents change.
for seed in 8 5 6 7 9 10 11 12; do
  sed "s/seed: SEED/seed: $seed/" "$WORK/agent.yaml" >"$WORK/agent_s.yaml"
  rm -rf "$WORK/agent"
  run_rc 0 "$FOXOPT" run "$WORK/agent_s.yaml" -o "$WORK/agent"
  [ "$(inverted "$WORK/agent/trials.csv")" = 1 ] && break
done
echo "agent study: study.seed $seed"
run_rc 0 "$FOXOPT" run "$WORK/branin.yaml" -o "$WORK/branin"

# expected_order CSV METRIC DIRECTION: trial ids best first, computed from trials.csv alone.
expected_order() {
  local m s e
  m=$(column "$2" "$1"); s=$(column status "$1"); e=$(column epochs "$1")
  awk -F, -v m="$m" -v s="$s" -v e="$e" -v max="$3" 'NR > 1 {
      g = $s == "complete" ? 0 : $s == "pruned" ? 1 : $s == "running" ? 2 : 3
      ep = (g == 1 || g == 2) ? -$e : 0
      v = ($m == "" || g == 3 || $e == 0) ? "1e308" : (max == "maximize" ? -$m : $m)
      print g, ep, v, $1 }' "$1" | sort -k1,1n -k2,2n -k3,3g -k4,4n | awk '{ print $4 }'
}

# check_report DIR METRIC DIRECTION TRIALS: the table against trials.csv.
check_report() {
  local dir=$1 metric=$2 dir_word=$3 n=$4 csv=$1/trials.csv want got best row m st
  run_rc 0 "$FOXOPT" report "$dir" --top 1000 --no-plots
  want="objective $metric ($dir_word); $n/$n trials done:"
  for st in complete pruned failed running; do
    m=$(awk -F, -v st="$st" 'NR > 1 && $2 == st' "$csv" | wc -l)
    want="$want $m $st,"
  done
  contains "$OUT_TXT" "${want%,}"
  contains "$OUT_TXT" "ranked best first: complete trials by $metric"
  want=$(expected_order "$csv" "$metric" "$dir_word" | tr '\n' ' ')
  got=$(echo "$OUT_TXT" | grep -v '^#' | awk '{ print $1 }' | tr '\n' ' ')
  check "$dir: rows in the ranking of trials.csv (want '$want', got '$got')" test "$want" = "$got"
  # the first row: the best trial's status, epochs and objective as trials.csv has them
  best=${want%% *}
  row=$(echo "$OUT_TXT" | grep -v '^#' | head -1)
  m=$(column "$metric" "$csv")
  want=$(awk -F, -v id="$best" -v m="$m" 'NR > 1 && $1 == id { print $2, $5, $m }' "$csv")
  got=$(echo "$row" | awk '{ print $2, $3, $4 }')
  check "$dir: best row '$row' is trial $best: $want" \
    awk -v a="$want" -v b="$got" 'BEGIN { split(a, x, " "); split(b, y, " ")
      d = x[3] - y[3]; if (d < 0) d = -d; t = x[3] < 0 ? -x[3] : x[3]
      exit !(x[1] == y[1] && x[2] == y[2] && d <= 1e-5 * t + 1e-12) }'
  # --top K: the first K of the same rows
  run_rc 0 "$FOXOPT" report "$dir" --top 3 --no-plots
  got=$(echo "$OUT_TXT" | grep -v '^#' | awk '{ print $1 }' | tr '\n' ' ')
  check "$dir: --top 3 rows ($got)" test "$got" = "$(expected_order "$csv" "$metric" "$dir_word" |
    head -3 | tr '\n' ' ')"
  contains "$OUT_TXT" "the best 3 of $n trials"
  # --csv: every trial, trials.csv's header, best first
  run_rc 0 "$FOXOPT" report "$dir" --csv "$WORK/out.csv" --no-plots
  contains "$OUT_TXT" "wrote $WORK/out.csv ($n trials, best first)"
  check "$dir: --csv header is trials.csv's" test "$(head -1 "$WORK/out.csv")" = "$(head -1 "$csv")"
  check "$dir: --csv has $n rows" test "$(($(wc -l <"$WORK/out.csv") - 1))" -eq "$n"
  check "$dir: --csv rows are trials.csv's" \
    diff <(tail -n +2 "$csv" | sort) <(tail -n +2 "$WORK/out.csv" | sort)
  check "$dir: --csv best first" test "$(sed -n 2p "$WORK/out.csv" | cut -d, -f1)" = "$best"
  check "$dir: no temporary file left" test -z "$(ls "$WORK" | grep '\.tmp\.')"
}
check_report "$WORK/agent" val.sharpe maximize 9
# the study above is meant to hold every kind of row the ranking orders
for st in complete pruned failed; do
  check "agent study has $st trials" grep -q ",$st," "$WORK/agent/trials.csv"
done
# ... and a trial pruned after 1 epoch with a better value than one pruned after 3, which
# must rank below it all the same
check "agent study: a 1-epoch pruned trial beats a 3-epoch one" \
  test "$(inverted "$WORK/agent/trials.csv")" = 1
run_rc 0 "$FOXOPT" report "$WORK/agent" --top 100 --no-plots
# reward.scale auto, as the study resolved it for its dataset (also study.h5's reward_scale)
contains "$OUT_TXT" "# reward.scale "
contains "$OUT_TXT" "(auto: 1 / std of the train split's one-bar log returns)"
contains "$(h5dump -a /reward_scale "$WORK/agent/study.h5")" "DATASPACE  SCALAR"
check "a failed trial's metrics are '-'" test "$(echo "$OUT_TXT" | grep -v '^#' | tail -1 |
  awk '{ print $2, $4, $5, $6, $7 }')" = "failed - - - -"
check_report "$WORK/branin" value minimize 40
contains "$OUT_TXT" "value = branin(x0, x1)"
run_rc 0 "$FOXOPT" report "$WORK/agent" --no-plots
for col in id status epochs val.sharpe 'val.total_return[%]' 'val.max_drawdown[%]' val.trades \
           train.algo dqn.lr ppo.lr ppo.n_steps barrier.pt; do
  contains "$(echo "$OUT_TXT" | grep '^# id')" " $col"
done
check "--no-plots draws nothing" test -z "$(ls "$WORK/agent" | grep -e '\.png$' -e '\.svg$' -e report.tmp)"

# The figures as files: NAME.svg and its PNG, from the page's own drawing (report_html.sh
# compares them with the page); a test function has no equity, and no file for it.
run_rc 0 "$FOXOPT" report "$WORK/agent"
for p in history timeline parallel params best_equity; do
  check "agent study: $p.png is a PNG" is_png "$WORK/agent/$p.png"
  check "agent study: $p.svg is an SVG" grep -q '^<svg xmlns="http://www.w3.org/2000/svg"' "$WORK/agent/$p.svg"
  contains "$OUT_TXT" "wrote $WORK/agent/$p.png"
  contains "$OUT_TXT" "wrote $WORK/agent/$p.svg"
done
check "no temporary left" test -z "$(ls -a "$WORK/agent" | grep -e report.tmp -e '\.tmp\.')"
run_rc 0 "$FOXOPT" report "$WORK/branin" --top 2
for p in history params importance; do check "branin: $p.png is a PNG" is_png "$WORK/branin/$p.png"; done
check "branin: no best_equity file" test ! -e "$WORK/branin/best_equity.png" -a ! -e "$WORK/branin/best_equity.svg"
check "the table all the same" test "$(echo "$OUT_TXT" | grep -v -e '^#' -e '^wrote ' | wc -l)" -eq 2
if [ -n "${FOX_PYTHON:-}" ] && "$FOX_PYTHON" -c 'import numpy' 2>/dev/null; then
  for p in history params; do
    if "$FOX_PYTHON" "$(dirname "$0")/png_ink.py" "$WORK/branin/$p.png" >"$WORK/ink.txt" 2>&1; then ok
    else bad "branin: $p.png has no plot drawn: $(cat "$WORK/ink.txt")"; fi
  done
fi

# Errors: exit 3 naming the missing study, exit 2 for bad options.
run_rc 3 "$FOXOPT" report "$WORK/nowhere"
contains "$ERR_TXT" "$WORK/nowhere/study.h5"
mkdir "$WORK/empty"
run_rc 3 "$FOXOPT" report "$WORK/empty"
contains "$ERR_TXT" "$WORK/empty/study.h5"
run_rc 3 "$FOXOPT" report "$WORK/s.h5"
contains "$ERR_TXT" "$WORK/s.h5: not a directory"
run_rc 2 "$FOXOPT" report "$WORK/agent" --top 0
contains "$ERR_TXT" "--top 0"
run_rc 2 "$FOXOPT" report "$WORK/agent" --top x
contains "$ERR_TXT" "--top 'x'"
run_rc 2 "$FOXOPT" report "$WORK/agent" --top
run_rc 2 "$FOXOPT" report
run_rc 2 "$FOXOPT" report "$WORK/agent" --bogus
run_rc 1 "$FOXOPT" report "$WORK/agent" --no-plots --csv "$WORK/nodir/x.csv"
contains "$ERR_TXT" "$WORK/nodir/x.csv"
run_rc 0 "$FOXOPT" report --help
contains "$OUT_TXT" "exit codes"
done_
