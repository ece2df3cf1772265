#!/usr/bin/env bash
# An agent learns `foxopt synth --kind regimes`: a short DQN run at its defaults, with the default
# market (spread, fees, triple-barrier exits), must beat buy-and-hold on the untouched test split
# by 0.1 in total return and make money on each of 2 data seeds, in under a minute on two cores;
# the walk of the same seed is the control, where buy-and-hold is not beaten by that margin.
# Measured at the commit that added it: regimes +0.063 and +0.111 against buy-and-hold's -0.187
# and -0.190; walk -0.135 and -0.086 against -0.038 and -0.048 (seeds 3-6 of regimes: the agent
# +0.04 .. +0.13, above buy-and-hold each time, by 0.02 where buy-and-hold made +0.11).
. "$(dirname "$0")/lib.sh"

ret() { sed 's/, "folds".*//' | sed -n 's/.*"total_return": \([^,}]*\).*/\1/p'; }
for seed in 1 2; do
  for kind in regimes walk; do
    d="$WORK/$kind$seed"
    run_rc 0 "$FOXOPT" synth -o "$d.csv" --bars 30000 --seed $seed --kind $kind
    run_rc 0 "$FOXOPT" import "$d.csv" -o "$d.h5"
    n=$("$FOXOPT" info "$d.h5" | sed -n 's/^ *test *\[.*) *\([0-9]*\) bars.*/\1/p')
    awk -v n="$n" 'BEGIN { print "action"; print 1; for (i = 1; i < n; i++) print 0 }' >"$d-bh.csv"
    bh=$("$FOXOPT" backtest "$d.h5" --actions "$d-bh.csv" --split test --set barrier.enforce=false --json | ret)
    printf 'data: {path: %s.h5}\ntrain: {algo: dqn, epochs: 2, steps_per_epoch: 40000, seed: %d}\n' \
      "$d" $seed >"$d.yaml"
    run_rc 0 "$FOXOPT" train "$d.yaml" -o "$d.out"
    got=$("$FOXOPT" backtest "$d.h5" --policy "$d.out/trial.h5" --split test --json | ret)
    echo "$kind seed $seed: test.total_return dqn $got, buy-and-hold $bh ($n bars)"
    if [ $kind = regimes ]; then
      check "regimes seed $seed: dqn makes 3 % and beats buy-and-hold by 0.1 ($got vs $bh)" \
        awk -v a="$got" -v b="$bh" 'BEGIN { exit !(a > b + 0.1 && a > 0.03) }'
    else
      check "walk seed $seed: dqn does not beat buy-and-hold by 0.1 ($got vs $bh)" \
        awk -v a="$got" -v b="$bh" 'BEGIN { exit !(a < b + 0.1) }'
    fi
  done
done
done_
