#!/usr/bin/env bash
# Hostile configs (issue 12), each generated here: nesting 4,000 deep, 10 levels of 10 aliases,
# 80,000 keys, a 40 MB list, a NUL byte, a second document, an unclosed --set list, bytes that
# are not UTF-8 and control characters are exit 2 at once with FILE:LINE and what was expected
# (they crashed, hung, took 39 s or 1.6 GB, or were read as another config); the same text
# stored as study.h5's or trial.h5's config attribute is exit 3 from report, run --resume and
# backtest --policy, naming the attribute. Every run has 60 s: a hang is a failure, not a wait.
. "$(dirname "$0")/lib.sh"
PY=${FOX_PYTHON:-python3}

# refused RC FILE.yaml WHAT [ARGS...]: `train` refuses the file with exit RC and WHAT.
refused() {
  local rc=$1 file=$2 what=$3
  shift 3
  run_rc "$rc" timeout -s KILL 60 "$FOXOPT" train "$file" -o "$WORK/out" "$@"
  contains "$ERR_TXT" "$what"
}

awk 'BEGIN { printf "train: "; for (i = 0; i < 4000; i++) printf "{a: ";
             printf "1"; for (i = 0; i < 4000; i++) printf "}"; print "" }' >"$WORK/deep.yaml"
refused 2 "$WORK/deep.yaml" "$WORK/deep.yaml:1: nested more than 64 levels deep"
awk 'BEGIN { pad = ""; for (i = 0; i < 100; i++) { print pad "k" i ":"; pad = pad "  " } }' \
  >"$WORK/blocks.yaml"
refused 2 "$WORK/blocks.yaml" "$WORK/blocks.yaml:65: nested more than 64 levels deep"

# Ten levels of ten aliases: 10^10 values expanded.
awk 'BEGIN { print "a0: &a0 [x, x, x, x, x, x, x, x, x, x]";
             for (i = 1; i < 10; i++) { s = "a" i ": &a" i " [*a" i - 1;
               for (j = 1; j < 10; j++) s = s ", *a" i - 1; print s "]" } }' >"$WORK/laughs.yaml"
refused 2 "$WORK/laughs.yaml" "$WORK/laughs.yaml:4: alias *a2 repeats 1111 values, past the 10000"
# The same under parameters:, which `run` reads with the search space.
{ echo "parameters:"; sed 's/^/  /' "$WORK/laughs.yaml"; } >"$WORK/laughs_p.yaml"
run_rc 2 timeout -s KILL 60 "$FOXOPT" run "$WORK/laughs_p.yaml" -o "$WORK/out"
contains "$ERR_TXT" "$WORK/laughs_p.yaml:5: alias *a2 repeats 1111 values"
printf 'train: &a {epochs: 2, again: *a}\n' >"$WORK/cycle.yaml"
refused 2 "$WORK/cycle.yaml" "$WORK/cycle.yaml:1: alias *a inside the node it names (a cycle)"

awk 'BEGIN { print "market:"; for (i = 0; i < 80000; i++) print "  k" i ": 1" }' >"$WORK/keys.yaml"
refused 2 "$WORK/keys.yaml" "$WORK/keys.yaml:5000: more than 10000 values"
yes -- '- 1' | head -n 10000000 >"$WORK/list.yaml"
refused 2 "$WORK/list.yaml" "$WORK/list.yaml:262144: the config goes on past 1048575 bytes"
rm -f "$WORK/list.yaml"

# Read as another config than written: everything after the NUL, or the second document, was
# dropped with exit 0.
printf 'train:\n  epochs: 2\n\0  epochs: 3\nbogus: {x: 1}\n' >"$WORK/nul.yaml"
refused 2 "$WORK/nul.yaml" "$WORK/nul.yaml:3:1: a NUL byte"
printf 'train:\n  epochs: 2\n---\nbogus: {x: 1}\n' >"$WORK/docs.yaml"
refused 2 "$WORK/docs.yaml" "$WORK/docs.yaml:3: a second YAML document"
printf 'train:\n  epochs: 2\n' >"$WORK/ok.yaml"
refused 2 "$WORK/ok.yaml" "--set dqn.hidden = '[1,2': expected a list of 1 to 8 layer widths" \
  --set 'dqn.hidden=[1,2'
refused 2 "$WORK/ok.yaml" "--set 'data.path=a.h5': byte 0x0A after it is a control character" \
  --set "data.path=a.h5
study.trials=5"
# Placed on their line, not at 1:1.
printf 'train:\n  epochs: 2\n  seed: \377\376\n' >"$WORK/latin.yaml"
refused 2 "$WORK/latin.yaml" "$WORK/latin.yaml:3:9: invalid leading UTF-8 octet (byte 0xFF)"
printf 'train:\n  epochs: 2\n  seed: a\001b\n' >"$WORK/ctl.yaml"
refused 2 "$WORK/ctl.yaml" "$WORK/ctl.yaml:3:10: control characters are not allowed (U+0001)"
# Issue 28, defect 4: a YAML escape makes a control character libyaml lets through; a name
# holding ESC would reach the terminal through report, info and the progress line.
for esc in 'x1b[31m' 'u009b' 't' 'x7f'; do
  printf 'study:\n  name: "a\\%sb"\n' "$esc" >"$WORK/esc.yaml"
  run_rc 2 timeout -s KILL 60 "$FOXOPT" run "$WORK/esc.yaml" -o "$WORK/esc"
  contains "$ERR_TXT" "$WORK/esc.yaml:2: 'a': byte 0x"
  contains "$ERR_TXT" "after it is a control character or not UTF-8"
done
printf 'parameters:\n  "dqn.lr\\e": {values: [1]}\n' >"$WORK/esckey.yaml"
run_rc 2 timeout -s KILL 60 "$FOXOPT" run "$WORK/esckey.yaml" -o "$WORK/esc"
contains "$ERR_TXT" "$WORK/esckey.yaml:2: 'dqn.lr': byte 0x1B"
check "no study from an escaped name" not test -e "$WORK/esc"

# The stored configs: the deep text and the aliases as study.h5's and trial.h5's attribute
# (fixed-length strings, as foxopt writes them; an attribute holds 64 KB, so no 80,000 keys).
if ! "$PY" -c 'import h5py' 2>/dev/null; then
  echo "skipped the stored configs: no Python with h5py (run scripts/test.sh to make .venv)"
  done_
  exit
fi
# store FILE.h5 TEXT_FILE: writes the text as FILE.h5's root attribute `config`.
store() {
  "$PY" - "$1" "$2" <<'PY'
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "a") as f:
    del f.attrs["config"]
    f.attrs.create("config", np.bytes_(open(sys.argv[2], "rb").read()))
PY
}
cat >"$WORK/study.yaml" <<YAML
train: {epochs: 1}
study: {name: h, trials: 2, round_size: 2, sampler: random,
        objective: {function: branin, direction: minimize}}
parameters:
  x0: {distribution: uniform, min: -5, max: 10}
  x1: {distribution: uniform, min: 0, max: 15}
YAML
run_rc 0 "$FOXOPT" run "$WORK/study.yaml" -o "$WORK/st"
for bad in deep laughs docs; do
  cp -r "$WORK/st" "$WORK/st_$bad"
  store "$WORK/st_$bad/study.h5" "$WORK/$bad.yaml"
done
for cmd in "report" "run --resume -o"; do
  run_rc 3 timeout -s KILL 60 "$FOXOPT" $cmd "$WORK/st_deep"
  contains "$ERR_TXT" "$WORK/st_deep/study.h5:/config:1: nested more than 64 levels deep"
  run_rc 3 timeout -s KILL 60 "$FOXOPT" $cmd "$WORK/st_laughs"
  contains "$ERR_TXT" "$WORK/st_laughs/study.h5:/config:4: alias *a2 repeats 1111 values"
  run_rc 3 timeout -s KILL 60 "$FOXOPT" $cmd "$WORK/st_docs"
  contains "$ERR_TXT" "$WORK/st_docs/study.h5:/config:3: a second YAML document"
done

"$FOXOPT" synth -o "$WORK/s.csv" --bars 3000 --seed 4 >/dev/null
"$FOXOPT" import "$WORK/s.csv" -o "$WORK/s.h5" >/dev/null
cat >"$WORK/t.yaml" <<YAML
data: {path: $WORK/s.h5}
env: {num_envs: 4, episode_bars: 128}
train: {algo: ppo, epochs: 1, steps_per_epoch: 256}
ppo: {hidden: [8], n_steps: 32}
YAML
# A file edited by hand: its strings are printed with every control character but newline and
# tab as '?', never raw.
cp "$WORK/s.h5" "$WORK/esc.h5"
"$PY" - "$WORK/esc.h5" <<'PY'
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "a") as f:
    f.attrs["source"] = np.bytes_(b"bars\x1b[31m\xc2\x9bred.csv")
PY
run_rc 0 "$FOXOPT" info "$WORK/esc.h5"
check "info: no ESC or C1 byte from an edited file" not grep -q "$(printf '\033')\|$(printf '\302\233')" "$WORK/out.txt"
contains "$OUT_TXT" "bars?[31m??red.csv"
run_rc 0 "$FOXOPT" train "$WORK/t.yaml" -o "$WORK/t"
store "$WORK/t/trial.h5" "$WORK/deep.yaml"
run_rc 3 timeout -s KILL 60 "$FOXOPT" backtest "$WORK/s.h5" --policy "$WORK/t/trial.h5"
contains "$ERR_TXT" "$WORK/t/trial.h5:/config:1: nested more than 64 levels deep"
# A NUL inside a stored config (a file edited with h5py): refused, not read up to the NUL.
printf 'train: {epochs: 1}\0bogus: [\n' >"$WORK/nul.yaml"
store "$WORK/t/trial.h5" "$WORK/nul.yaml"
run_rc 3 "$FOXOPT" backtest "$WORK/s.h5" --policy "$WORK/t/trial.h5"
contains "$ERR_TXT" "holds a NUL byte at offset 18 inside its text"

# A UTF-8 byte order mark (Windows editors) is not text; one key written two ways is refused.
printf '\xef\xbb\xbf' >"$WORK/bom.yaml" && cat "$WORK/t.yaml" >>"$WORK/bom.yaml"
run_rc 0 "$FOXOPT" train "$WORK/bom.yaml" -o "$WORK/bom"
cat >"$WORK/twice.yaml" <<YAML
train: {epochs: 1}
study:
  name: d
  trials: 2
  objective: {function: branin, direction: minimize}
  sampler: {name: grid}
  sampler.name: random
parameters:
  x0: {distribution: uniform, min: -5, max: 10}
  x1: {distribution: uniform, min: 0, max: 15}
YAML
run_rc 2 "$FOXOPT" run "$WORK/twice.yaml" -o "$WORK/twice"
contains "$ERR_TXT" "twice.yaml:7: study.sampler.name: given twice (first at line 6)"
done_
