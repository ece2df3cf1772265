#!/bin/bash
# The command-line conventions (issue 25): --opt=value and --opt value alike, foxopt help CMD,
# -V/--version, "did you mean" for options, commands and config keys, one message prefix; and
# what `foxopt gen` writes from the same tables: man pages that render and name every option
# --help prints and every config key, bash completion that completes, and docs/config-keys.md
# equal to the committed one.
source "$(dirname "$0")/lib.sh"
cd "$WORK"
F=$FOXOPT
CMDS="synth import info train backtest run report export gen"

# -V, --version
run_rc 0 "$F" -V
V=$OUT_TXT
run_rc 0 "$F" --version
check "-V and --version agree" [ "$V" = "$OUT_TXT" ]
check "version line" grep -Eq '^foxopt [0-9]+\.[0-9]+\.[0-9]+$' <<<"$V"

# help CMD = CMD --help = CMD -h, each listing the command's own synopsis
for c in $CMDS; do
  run_rc 0 "$F" help "$c"
  H=$OUT_TXT
  run_rc 0 "$F" "$c" --help
  check "help $c = $c --help" [ "$H" = "$OUT_TXT" ]
  run_rc 0 "$F" "$c" -h
  check "help $c = $c -h" [ "$H" = "$OUT_TXT" ]
  contains "$H" "usage: foxopt $c "
  contains "$H" "exit codes: "
done
run_rc 0 "$F" help
contains "$OUT_TXT" "commands:"
run_rc 2 "$F" help repot
contains "$ERR_TXT" "did you mean 'report'?"
run_rc 2 "$F" rn
contains "$ERR_TXT" "unknown command 'rn': did you mean 'run'"

# --opt=value and --opt value give the same file; -o=FILE too
run_rc 0 "$F" synth --bars=2600 --seed=7 -o=a.csv
run_rc 0 "$F" synth --bars 2600 --seed 7 -o b.csv
check "--opt=value = --opt value" cmp -s a.csv b.csv
run_rc 0 "$F" import a.csv --split=0.6,0.2,0.2 -o=a.h5
run_rc 0 "$F" import a.csv --split 0.6,0.2,0.2 -o b.h5
run_rc 0 "$F" info a.h5
A=$(sed 1d <<<"$OUT_TXT")
run_rc 0 "$F" info b.h5
check "import --split=... = --split ..." [ "$A" = "$(sed 1d <<<"$OUT_TXT")" ]

# Bad options: the nearest names, not the whole list; one prefix
run_rc 2 "$F" run --sett x=1
contains "$ERR_TXT" "unknown option '--sett': did you mean '--set'?"
run_rc 2 "$F" report --jsn d
contains "$ERR_TXT" "did you mean '--json'"
run_rc 2 "$F" report d --json=1
contains "$ERR_TXT" "--json takes no value"
run_rc 2 "$F" train x.yaml --set
contains "$ERR_TXT" "--set needs a value"
run_rc 2 "$F" info -- -x.h5
contains "$ERR_TXT" "'--' is not taken"
run_rc 2 "$F" synth -o= --bars 10
contains "$ERR_TXT" "-o= needs a value"
run_rc 2 "$F" run --help=1
contains "$ERR_TXT" "--help takes no value"
run_rc 0 "$F" help help
contains "$OUT_TXT" "commands:"
run_rc 2 "$F" --versoin
contains "$ERR_TXT" "unknown option '--versoin': did you mean '--version'?"
run_rc 2 "$F" import a.csv --frobnicate
contains "$ERR_TXT" "unknown option '--frobnicate' (foxopt help import lists them)"
# A value may start with '-' (it is the option's, not an option).
run_rc 2 "$F" synth -o c.csv --bars -5
contains "$ERR_TXT" "--bars -5: expected a value in"
cat >t.yaml <<YAML
data: {path: a.h5}
train: {epochs: 1, steps_per_epoch: 64}
env: {num_envs: 4}
YAML
run_rc 2 "$F" train t.yaml --set dqn.lrr=1e-3
contains "$ERR_TXT" "unknown key 'dqn.lrr': did you mean 'dqn.lr'?"
check "no whole key list" [ "${#ERR_TXT}" -lt 400 ]
run_rc 2 "$F" train t.yaml --set=dqn.activatoin=relu
contains "$ERR_TXT" "did you mean 'dqn.activation'"
printf 'data: {path: a.h5}\ndqn:\n  gama: 0.9\n' >u.yaml
run_rc 2 "$F" train u.yaml
contains "$ERR_TXT" "u.yaml:3: unknown key 'dqn.gama': did you mean 'dqn.gamma'?"
printf 'data: {path: a.h5}\nstudy: {trials: 2}\nparameters:\n  dqn.lrr: {uniform: [1e-4, 1e-3]}\n' >s.yaml
run_rc 2 "$F" run s.yaml -o st
contains "$ERR_TXT" "s.yaml:4: unknown parameter 'dqn.lrr': not a config key: did you mean 'dqn.lr'?"
run_rc 2 "$F" backtest a.h5 --actions x.csv --set market.fe=1
contains "$ERR_TXT" "did you mean 'market.fee'?"
contains "$ERR_TXT" "known here: market.initial_capital"
for c in "run --sett" "report" "export d" "train" "import" "backtest" "synth" "info"; do
  "$F" $c >/dev/null 2>err.txt
  cmd=${c%% *}
  check "$cmd: one prefix ($(head -1 err.txt))" \
    grep -Eq "^foxopt $cmd: error: " err.txt
  check "$cmd: no second prefix" not grep -Eq "error: ($cmd|foxopt): " err.txt
done

# foxopt gen man: a page per command that renders, naming every option --help prints
run_rc 0 "$F" gen man man1
for c in $CMDS; do
  page=man1/foxopt-$c.1
  check "page $page" [ -s "$page" ]
  if command -v groff >/dev/null; then
    groff -man -Tutf8 -ww -z "$page" >groff.txt 2>&1
    check "$page renders without a warning: $(head -3 groff.txt)" not [ -s groff.txt ]
  fi
  plain=$(sed 's/\\-/-/g; s/\\f[BIR]//g' "$page")
  for o in $("$F" "$c" --help | sed -n 's/^  \(-[-a-z]*\).*/\1/p'); do
    contains "$plain" "$o"
  done
done
check "page foxopt.1" [ -s man1/foxopt.1 ]
if command -v groff >/dev/null; then
  groff -man -Tutf8 -ww -z man1/foxopt.1 >groff.txt 2>&1
  check "foxopt.1 renders without a warning: $(head -3 groff.txt)" not [ -s groff.txt ]
fi
if command -v man >/dev/null; then
  MANWIDTH=100 man -l man1/foxopt-run.1 >man.txt 2>&1
  check "man -l foxopt-run.1: $(head -3 man.txt)" grep -q "^ *--resume" man.txt
fi

# Every config key: in foxopt.1 and in docs/config-keys.md, with a doc; the committed
# reference is what the binary writes.
run_rc 0 "$F" gen config-md
echo "$OUT_TXT" >keys.md
KEYS=$(sed -n 's/^| `\([a-z_.]*\)` |.*/\1/p' keys.md)
check "config-md lists keys" [ "$(wc -w <<<"$KEYS")" -gt 90 ]
man1=$(sed 's/\\-/-/g; s/\\f[BIR]//g' man1/foxopt.1)
for k in $KEYS; do
  contains "$man1" "$k (default "
done
check "every key has a doc" not grep -q ' |  |$' keys.md
check "docs/config-keys.md is foxopt gen config-md's (regenerate it with foxopt gen config-md)" \
  cmp -s keys.md "$FOX_SRC/docs/config-keys.md"
# An output that cannot be written names the user's file, not the temporary one.
run_rc 1 "$F" gen bash "$WORK/no/such/dir/foxopt.bash"
contains "$ERR_TXT" "foxopt gen: error: $WORK/no/such/dir/foxopt.bash: cannot be written: No such file"
check "no temporary name in: $ERR_TXT" not grep -q '\.tmp' "$WORK/err.txt"
# The guide and the reference: no link leaves the repository, every relative link resolves,
# and the README stays a guide.
for md in "$FOX_SRC/README.md" "$FOX_SRC"/docs/*.md; do
  check "$md: no link outside the repository" not grep -Eq '\]\((https?|ftp|mailto):' "$md"
  for t in $(grep -o '](\([^)#]*\)' "$md" | sed 's/^](//'); do
    check "$md: link $t resolves" test -e "$(dirname "$md")/$t"
  done
done
check "README.md is a guide (at most ~200 lines)" test "$(wc -l <"$FOX_SRC/README.md")" -le 210
run_rc 2 "$F" gen pdf
run_rc 2 "$F" gen man

# Bash completion: a subcommand, an option, a key after --set, a choice after KEY=
run_rc 0 "$F" gen bash
echo "$OUT_TXT" >foxopt.bash
comp() {
  bash --norc -c 'source ./foxopt.bash
    COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _foxopt; echo "${COMPREPLY[*]}"' \
    _ "$@"
}
check "completes a command" [ "$(comp foxopt ru)" = run ]
check "completes after help" [ "$(comp foxopt help rep)" = report ]
check "completes an option" [ "$(comp foxopt report a --js)" = --json ]
check "completes a key" [ "$(comp foxopt run c.yaml --set dqn.gam)" = dqn.gamma= ]
check "completes a choice" [ "$(comp foxopt run c.yaml --set train.algo = p)" = ppo ]
check "completes a backend" [ "$(comp foxopt run c.yaml --backend cu)" = cuda ]
check "no backend where the command has none" [ -z "$(comp foxopt train c.yaml --backend c)" ]
check "gen's words" [ "$(comp foxopt gen co)" = config-md ]
check "backtest's --set takes the market's keys only" [ -z "$(comp foxopt backtest d.h5 --set dqn.l)" ]
check "backtest's --set: a market key" [ "$(comp foxopt backtest d.h5 --set market.f)" = market.fee= ]
check "--set=KEY" [ "$(comp foxopt run c.yaml --set = dqn.gam)" = dqn.gamma= ]
run_rc 0 "$F" gen zsh
echo "$OUT_TXT" >_foxopt
contains "$(head -1 _foxopt)" "#compdef foxopt"
if command -v zsh >/dev/null; then
  check "zsh -n _foxopt" zsh -n _foxopt
fi
done_
