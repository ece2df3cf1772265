#!/usr/bin/env bash
# foxopt report --html on an agent study (repeats, folds, pruned trials, a test look) and a
# test-function study with every kind of parameter: OUTDIR/report.html is one self-contained
# file (nothing fetched: no address but the SVG namespace, no script, link, image, import or
# url()), its table rows are trials.csv's ranking (--top cuts them), a study name with <b>&"
# comes out escaped, it composes with --json, --test and the plots, a missing dataset is said in
# the page, and it is written atomically (no temporary left; a write that fails halfway and an
# OUTDIR the user cannot write are exit 1 naming report.html and keep the old page). Then Chromium, headless, JavaScript off,
# opens each page as a desktop and as a phone through the DevTools protocol
# (html_browser.py): one request (the file itself), no console error, the rows and the plots
# drawn, nothing wider than a phone's screen but the table that scrolls, and real screenshots
# (kept in $FOX_HTML_SHOTS when it names a directory). Without Chromium or the websocket-client
# module the browser part is skipped (exit 77) after the rest has passed.
. "$(dirname "$0")/lib.sh"

"$FOXOPT" synth -o "$WORK/s.csv" --bars 16000 --seed 4 >/dev/null
"$FOXOPT" import "$WORK/s.csv" -o "$WORK/s.h5" >/dev/null
# Nine configurations in one round of successive halving, 2 repeats x 2 folds: 3 complete and
# 6 pruned, the selection figures with a PBO. The name holds what HTML must escape.
cat >"$WORK/agent.yaml" <<YAML
data: {path: $WORK/s.h5}
env: {num_envs: 8, episode_bars: 256}
train: {algo: ppo, epochs: 3, steps_per_epoch: 2048}
dqn: {learning_starts: 256, buffer_size: 4096, batch_size: 32, hidden: [16, 16]}
ppo: {n_steps: 32, hidden: [16, 16]}
eval: {folds: 2}
study:
  name: 'h <b>&"x'
  seed: 3
  trials: 9
  round_size: 9
  repeats: 2
  objective: {metric: val.sharpe, direction: maximize}
  sampler: {name: random}
  scheduler: {name: successive_halving, min_epochs: 1, max_epochs: 3, eta: 3}
parameters:
  ppo.hidden: {values: [[16], [8]]}   # no comma: trials.csv is split on commas here
  ppo.lr: {distribution: log_uniform, min: 1e-4, max: 3e-2}
  ppo.ent_coef: {distribution: uniform, min: 0.0, max: 0.05}
YAML
cat >"$WORK/mixed.yaml" <<YAML
study: {name: mx, seed: 3, trials: 40, sampler: tpe,
        objective: {function: mixed, direction: minimize}}
parameters:
  x0: {distribution: uniform, min: -5, max: 10}
  x1: {distribution: uniform, min: 0, max: 15}
  x2: {values: [0, 1, 2, 3]}
  x3: {distribution: log_uniform, min: 1e-6, max: 1}
  x4: {distribution: int_uniform, min: 0, max: 20}
YAML
run_rc 0 "$FOXOPT" run "$WORK/agent.yaml" -o "$WORK/agent"
run_rc 0 "$FOXOPT" run "$WORK/mixed.yaml" -o "$WORK/mixed"

# column NAME CSV: the 1-based index of a column of a CSV header (no quoted commas in these).
column() { head -1 "$2" | tr ',' '\n' | grep -nx "$1" | cut -d: -f1; }
# expected_order CSV METRIC DIRECTION: trial ids best first, from trials.csv alone (report.sh's).
expected_order() {
  local m s e
  m=$(column "$2" "$1"); s=$(column status "$1"); e=$(column epochs "$1")
  awk -F, -v m="$m" -v s="$s" -v e="$e" -v max="$3" 'NR > 1 {
      g = $s == "complete" ? 0 : $s == "pruned" ? 1 : $s == "running" ? 2 : 3
      ep = (g == 1 || g == 2) ? -$e : 0
      v = ($m == "" || g == 3 || $e == 0) ? "1e308" : (max == "maximize" ? -$m : $m)
      print g, ep, v, $1 }' "$1" | sort -k1,1n -k2,2n -k3,3g -k4,4n | awk '{ print $4 }' |
    tr '\n' ' '
}
# page_ids PAGE: the first column of the page's table of best trials, in order.
page_ids() {
  sed -n '/<table id="best">/,/<\/table>/p' "$1" | grep -o '^<tr class="[a-z]*"><td>[0-9]*' |
    sed 's/.*<td>//' | tr '\n' ' '
}
# self_contained PAGE: nothing in it that a browser would fetch or run.
self_contained() {
  local p=$1 bad
  bad=$(grep -o -i -E 'https?://[^" ]*' "$p" | grep -v -x 'http://www.w3.org/2000/svg')
  check "$p: no address but the SVG namespace ($bad)" test -z "$bad"
  for pat in '<script' '<link' '<img' '<iframe' '<object' '<embed' '@import' 'url(' 'src=' \
             'srcset' 'href=' '<meta http-equiv' 'javascript:'; do
    check "$p: no '$pat'" not grep -q -i -F "$pat" "$p"
  done
  check "$p: an HTML document" grep -q -x '<!DOCTYPE html>' "$p"
  check "$p: ends with </html>" test "$(tail -1 "$p")" = "</html>"
  check "$p: phone viewport" grep -q -F '<meta name="viewport" content="width=device-width, initial-scale=1">' "$p"
}

# check_page DIR METRIC DIRECTION N: report --html against trials.csv.
check_page() {
  local dir=$1 page=$1/report.html want before after
  want=$(expected_order "$dir/trials.csv" "$2" "$3")
  before=$(ls -A "$dir")
  run_rc 0 "$FOXOPT" report "$dir" --html --no-plots --top 1000
  contains "$OUT_TXT" "wrote $page"
  after=$(ls -A "$dir")
  check "$dir: one new file, report.html (before: $before; after: $after)" \
    test "$(comm -13 <(echo "$before") <(echo "$after"))" = report.html
  self_contained "$page"
  check "$dir: page rows in trials.csv's ranking (want '$want', got '$(page_ids "$page")')" \
    test "$(page_ids "$page")" = "$want"
  check "$dir: the text table's rows too" test "$(echo "$OUT_TXT" | grep -v -e '^#' -e '^wrote' |
    awk '{ printf "%s ", $1 }')" = "$want"
  check "$dir: $4 rows" test "$(page_ids "$page" | wc -w)" -eq "$4"
  # the text table's columns, in order
  local heads cols
  heads=$(sed -n '/<table id="best">/,/<\/thead>/p' "$page" | grep -o '<th[^>]*>[^<]*</th>' |
    sed 's/<[^>]*>//g' | tr '\n' ' ')
  cols=$(echo "$OUT_TXT" | grep '^# id ' | sed 's/^# //' | tr -s ' ' | sed 's/$/ /')
  check "$dir: the page's columns are the text table's ('$heads' vs '$cols')" \
    test "$heads" = "$(echo "$cols" | sed 's/&/\&amp;/g')"
  run_rc 0 "$FOXOPT" report "$dir" --html --no-plots --top 3
  check "$dir: --top 3 rows" test "$(page_ids "$page")" = "$(echo "$want" | cut -d' ' -f1-3) "
  check "$dir: no temporary file left" test -z "$(ls -A "$dir" | grep -e '\.tmp\.' -e report.tmp)"
  check "$dir: no Pareto section with one objective" not grep -q 'id="pareto"' "$page"
  run_rc 0 "$FOXOPT" report "$dir" --html --no-plots --top 1000
}
check_page "$WORK/agent" val.sharpe maximize 9
# The equity over time: the x axis of the best trial's equity is the split's UTC times, every
# tick inside the split's first and last bar.
if [ -n "${FOX_PYTHON:-}" ] && "$FOX_PYTHON" -c 'import h5py' 2>/dev/null; then
  if "$FOX_PYTHON" - "$WORK/agent/report.html" "$WORK/s.h5" >"$WORK/eq.txt" 2>&1 <<'PY'
import calendar, re, sys, time, h5py
page = open(sys.argv[1]).read()
sec = page[page.index('<h2 id="equity">'):]
sec = sec[:sec.index("</figure>")]
assert "time (UTC) of the val split" in sec, "no time axis"
ticks = re.findall(r'text-anchor="middle">(\d{4}-\d\d-\d\d|\d\d-\d\d \d\d:\d\d)</text>', sec)
assert len(ticks) >= 2, ticks
with h5py.File(sys.argv[2]) as f:
    b, e = f.attrs["split_val"]
    ts = f["bars/timestamp"][:]
lo, hi = int(ts[b]), int(ts[e - 1])
year = time.gmtime(lo).tm_year
for t in ticks:
    v = calendar.timegm(time.strptime(t, "%Y-%m-%d") if len(t) == 10 else
                        time.strptime(f"{year}-{t}", "%Y-%m-%d %H:%M"))
    assert lo <= v <= hi, (t, lo, hi)
print("ok", ticks)
PY
  then ok; else bad "the equity's time axis: $(cat "$WORK/eq.txt")"; fi
fi
# Learning curves: a line for each trial that trained past its first epoch, as many points as
# it has epochs, its title naming the trial, its status and its parameters as trials.csv has
# them; a pruned trial marked where it stopped; the rungs drawn.
if [ -n "${FOX_PYTHON:-}" ]; then
  if "$FOX_PYTHON" - "$WORK/agent/report.html" "$WORK/agent/trials.csv" >"$WORK/lc.txt" 2>&1 <<'PY'
import csv, re, sys
page, table = open(sys.argv[1]).read(), list(csv.DictReader(open(sys.argv[2])))
sec = page[page.index('<h2 id="curves">'):]
sec = sec[:sec.index("</figure>")]
lines = re.findall(r'<path class="lc ([cpr])" d="([^"]*)"><title>([^<]*)</title></path>', sec)
want = [r for r in table if int(r["epochs"]) > 1]
assert len(lines) == len(want), (len(lines), len(want))
keys = [k for k in table[0] if k not in ("id", "status", "round", "rung", "epochs", "seed",
                                          "rank", "seconds", "start", "end", "value", "reason")
        and not k.startswith("val.") and not k.startswith("train.")]
seen = set()
for cls, d, title in lines:
    m = re.match(r"trial (\d+) \((\w+), (\d+) epochs?\)(.*)", title.replace("&quot;", '"'))
    assert m, title
    row = table[int(m.group(1))]
    assert m.group(2) == row["status"] and cls == row["status"][0], (title, row["status"])
    points = len(re.findall(r"[ML]", d))
    assert points == int(row["epochs"]) == int(m.group(3)), (title, points, row["epochs"])
    for k in keys:
        if row[k]:
            assert f"{k}={row[k]}" in m.group(4), (k, row[k], title)
    seen.add(int(m.group(1)))
assert seen == {int(r["id"]) for r in want}
assert sec.count('class="rung"') >= 1, "no rung drawn"
print("ok", len(lines), "lines")
PY
  then ok; else bad "learning curves: $(cat "$WORK/lc.txt")"; fi
fi
# A large study's page stays a file to keep: the points of the first 2,000 trials have titles,
# the rest are marks alone (as the learning curves and the timeline stop at 2,000).
cat >"$WORK/big.yaml" <<YAML
study: {name: big, seed: 3, trials: 2050, sampler: random,
        objective: {function: branin, direction: minimize}}
parameters:
  x0: {distribution: uniform, min: -5, max: 10}
  x1: {distribution: uniform, min: 0, max: 15}
YAML
run_rc 0 "$FOXOPT" run "$WORK/big.yaml" -o "$WORK/big"
run_rc 0 "$FOXOPT" report "$WORK/big" --html --no-plots
if [ -n "${FOX_PYTHON:-}" ]; then
  "$FOX_PYTHON" - "$WORK/big/report.html" <<'PY' && ok || bad "a large study's hover titles"
import re, sys
page = open(sys.argv[1]).read()
hist = page[page.index('<h2 id="history">'):page.index('<h2 id="timeline">')]
titled = [int(t) for t in re.findall(r'r="3.2"><title>trial (\d+) ', hist)]
bare = len(re.findall(r'r="3.2"/>', hist))
assert sorted(titled) == list(range(2000)) and bare == 50, (len(titled), bare)
PY
fi
# The timeline: a bar for each trial that ran, from trials.csv's start to its end (UTC, which
# study.h5's /trials/start and /trials/end and the repeats' spans agree with), at its id, by
# status; a linear time axis (every bar end on one line through the CSV's times).
if [ -n "${FOX_PYTHON:-}" ]; then
  if "$FOX_PYTHON" - "$WORK/agent/report.html" "$WORK/agent/trials.csv" "$WORK/agent/study.h5" \
      >"$WORK/tl.txt" 2>&1 <<'PY'
import csv, datetime, re, sys
import h5py, numpy as np
page, table = open(sys.argv[1]).read(), list(csv.DictReader(open(sys.argv[2])))
sec = page[page.index('<h2 id="timeline">'):]
sec = sec[:sec.index("</figure>")]
bars = re.findall(r'<path class="tl ([cprf])" d="M([-\d.]+) ([-\d.]+) L([-\d.]+) ([-\d.]+)">'
                  r'<title>trial (\d+) \((\w+)', sec)
def utc(v):
    return datetime.datetime.strptime(v, "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc).timestamp()
ran = [r for r in table if r["start"]]
assert len(ran) == len(table) == 9, (len(ran), len(table))
assert len(bars) == len(ran), (len(bars), len(ran))
with h5py.File(sys.argv[3], "r") as f:
    h5s, h5e = f["trials/start"][:], f["trials/end"][:]
    rs, re_ = f["trials/repeats/start"][:], f["trials/repeats/end"][:]
assert rs.shape == (9, 2), rs.shape
t, px, ys = [], [], {}
for cls, x0, y0, x1, y1, tid, status in bars:
    row = table[int(tid)]
    s, e = utc(row["start"]), utc(row["end"])
    assert row["status"] == status and cls == ("f" if status == "failed" else status[0]), (tid, cls)
    assert s <= e and float(row["seconds"]) <= e - s + 0.002, (tid, s, e, row["seconds"])
    k = int(tid)
    assert abs(h5s[k] - s) < 0.0015 and abs(h5e[k] - e) < 0.0015, (tid, h5s[k], s, h5e[k], e)
    assert h5s[k] == rs[k].min() and h5e[k] == re_[k].max(), (tid, rs[k], re_[k])
    assert y0 == y1, (tid, y0, y1)
    ys[k] = float(y0)
    t += [s, e]; px += [float(x0), float(x1)]
b, a = np.polyfit(t, px, 1)
resid = np.abs(np.array(px) - (a + b * np.array(t))).max()
assert b > 0 and resid < 0.3, (b, resid)
ids = sorted(ys)
assert all(ys[i] > ys[j] for i, j in zip(ids, ids[1:])), "rows by id, the first at the bottom"
print("ok", len(bars), "bars, residual %.3f px" % resid)
PY
  then ok; else bad "the timeline: $(cat "$WORK/tl.txt")"; fi
fi
check_page "$WORK/mixed" value minimize 40
# Hover titles on points: the history has one mark for each trial with a value, its title
# naming the trial, its status and parameters and the value trials.csv has (a linear y axis:
# every mark on one line through the values); the parameters' panels likewise.
if [ -n "${FOX_PYTHON:-}" ]; then
  if "$FOX_PYTHON" - "$WORK/mixed/report.html" "$WORK/mixed/trials.csv" >"$WORK/pt.txt" 2>&1 <<'PY'
import csv, re, sys
import numpy as np
page, table = open(sys.argv[1]).read(), list(csv.DictReader(open(sys.argv[2])))
def marks(sec):
    return re.findall(r'<circle cx="([-\d.]+)" cy="([-\d.]+)" r="3.2"><title>trial (\d+) '
                      r'\((\w+), \d+ epochs?\): ([^<]*); value ([-\d.e+]+)</title></circle>', sec)
hist = page[page.index('<h2 id="history">'):page.index('<h2 id="timeline">')]
m = marks(hist)
valued = [r for r in table if r["value"]]
assert len(m) == len(valued) == 40, (len(m), len(valued))
ys, vs = [], []
for cx, cy, tid, status, params, v in m:
    row = table[int(tid)]
    assert row["status"] == status and abs(float(v) - float(row["value"])) <= 1e-5 * max(1, abs(float(v))), (tid, v, row["value"])
    for k in ("x0", "x1", "x3"):
        assert f"{k}={row[k]}" in params, (k, row[k], params)
    ys.append(float(cy)); vs.append(float(row["value"]))
b, a = np.polyfit(vs, ys, 1)
assert b < 0 and np.abs(np.array(ys) - (a + b * np.array(vs))).max() < 0.2, "y is not the value"
# a panel's titles are short: the trial, its status, that panel's parameter, the value
panels = page[page.index('<h2 id="params">'):]
short = re.findall(r'<circle cx="[-\d.]+" cy="[-\d.]+" r="3.2"><title>trial (\d+) \((\w+)\): '
                   r'(x\d)=([^;<]*); value ([-\d.e+]+)</title></circle>', panels)
assert len(short) == 5 * 40, len(short)
for tid, status, k, v, val in short:
    row = table[int(tid)]
    assert row["status"] == status and row[k] == v, (tid, k, v, row[k])
print("ok")
PY
  then ok; else bad "the points' hover titles: $(cat "$WORK/pt.txt")"; fi
fi
# Parameter importance: a bar per parameter, in the text report's order, each bar's height
# and title its figure there; the agent study (3 complete trials of 9) says why it has none.
run_rc 0 "$FOXOPT" report "$WORK/mixed" --no-plots
printf '%s\n' "$OUT_TXT" >"$WORK/imp.txt"
if [ -n "${FOX_PYTHON:-}" ]; then
  if "$FOX_PYTHON" - "$WORK/mixed/report.html" "$WORK/imp.txt" >"$WORK/im.txt" 2>&1 <<'PY'
import re, sys
page, text = open(sys.argv[1]).read(), open(sys.argv[2]).read()
want = re.findall(r"^#   (x\d)\s+([\d.]+)\s+(\d+)", text, re.M)
assert len(want) == 5, want
sec = page[page.index('<h2 id="importance">'):]
sec = sec[:sec.index("</figure>")]
bars = re.findall(r'<rect class="bar" x="([\d.]+)" y="([\d.]+)" width="[\d.]+" '
                  r'height="([\d.]+)"><title>(x\d): ([\d.]+), rank (\d+)', sec)
assert [(b[3], b[4], b[5]) for b in bars] == want, (bars, want)
xs = [float(b[0]) for b in bars]
assert xs == sorted(xs), "bars left to right by rank"
h = [float(b[2]) for b in bars]
scale = h[0] / float(want[0][1])
for (k, v, r), hh in zip(want, h):
    assert abs(hh - scale * float(v)) <= 0.15, (k, v, hh, scale)
assert abs(sum(float(v) for _, v, _ in want) - 1) < 3e-4
print("ok", want)
PY
  then ok; else bad "parameter importance: $(cat "$WORK/im.txt")"; fi
fi
contains "$(sed -n '/id="importance"/,/<h2/p' "$WORK/agent/report.html")" \
  "val.sharpe: not computed: 3 complete trials with a value, fewer than 20"
# Parallel coordinates: a line for each complete trial through every parameter's axis and the
# objective's, at its place between the axis's ends; the best one on top.
if [ -n "${FOX_PYTHON:-}" ]; then
  for name in agent mixed; do
    run_rc 0 "$FOXOPT" report "$WORK/$name" --html --no-plots --top 1000
    if "$FOX_PYTHON" - "$WORK/$name/report.html" "$WORK/$name/trials.csv" "$WORK/$name.yaml" \
        >"$WORK/pc.txt" 2>&1 <<'PY'
import csv, math, re, sys
page, table = open(sys.argv[1]).read(), list(csv.DictReader(open(sys.argv[2])))
sec = page[page.index('<h2 id="parallel">'):]
sec = sec[:sec.index("</figure>")]
lines = re.findall(r'<path class="pc( top)?" d="([^"]*)"><title>trial (\d+) [^<]*</title>', sec)
complete = [r for r in table if r["status"] == "complete" and r.get("value", r.get("val.sharpe", "")) != ""]
assert len(lines) == len(complete), (len(lines), len(complete))
assert sum(1 for t, _, _ in lines if t) == 1, "one best"
assert lines[-1][0], "the best drawn last"
# the objective's axis: the line's last point orders the trials as their values do
metric = "value" if "value" in table[0] else "val.sharpe"
ys = {int(i): float(d.split()[-1]) for _, d, i in lines}
vals = {int(r["id"]): float(r[metric]) for r in complete}
order_px = sorted(ys, key=lambda i: -ys[i])   # smaller y pixel = higher value
order_v = sorted(vals, key=lambda i: vals[i])
assert [vals[i] for i in order_px] == sorted(vals.values()), "objective axis order"
# every axis named, however many
keys = [k for k in table[0] if k not in ("id", "status", "round", "rung", "epochs", "seed",
        "rank", "seconds", "start", "end", "reason") and k != metric and not k.startswith(("val.", "train.", "test."))]
for k in keys + [metric]:
    assert f">{k[:10] + '..' if len(k) > 12 else k}</text>" in sec, ("axis", k)
print("ok", len(lines))
PY
    then ok; else bad "$name: parallel coordinates: $(cat "$WORK/pc.txt")"; fi
  done
fi

# The agent page: every section, the name escaped everywhere, the parameters' axes.
A=$WORK/agent/report.html
for id in table history params equity selection test; do
  check "agent page: section $id" grep -q "<h2 id=\"$id\">" "$A"
done
check "agent page: the name escaped in the title" \
  grep -q -F '<title>foxopt report: study h &lt;b&gt;&amp;&quot;x</title>' "$A"
check "agent page: the name escaped in the facts" grep -q -F '<li>study h &lt;b&gt;&amp;&quot;x: objective val.sharpe' "$A"
check "agent page: no raw <b> from the name" not grep -q -F '<b>' "$A"
check "agent page: the std column (repeats x folds)" grep -q -F '<th>std</th>' "$A"
check "agent page: buy and hold beside the equity" grep -q -F 'buy and hold: ' "$A"
check "agent page: ppo.lr on a log axis" grep -q -F 'ppo.lr (log scale)' "$A"
check "agent page: ppo.hidden by choice" grep -q -F 'ppo.hidden (by choice)' "$A"
check "agent page: its choices label the axis" grep -q -F '>[16]</text>' "$A"
check "agent page: PSR, DSR with N, MinTRL, PBO, degradation" \
  test "$(grep -c -e '<dt>PSR(0)</dt>' -e '<dt>DSR</dt>' -e '<dt>MinTRL</dt>' -e '<dt>PBO</dt>' \
    -e '<dt>degradation</dt>' "$A")" -eq 5
contains "$(grep '<dt>DSR</dt>' "$A")" "Sharpe of N = 9 configurations"
check "agent page: the CSCV logits' histogram" grep -q 'CSCV logits over 12870 splits' "$A"
contains "$(grep -A1 '<h2 id="test">' "$A")" "Untouched"
check "mixed page: no equity, selection or test section for a test function" \
  test "$(grep -c -e 'id="equity"' -e 'id="selection"' -e 'id="test"' "$WORK/mixed/report.html")" -eq 0
check "mixed page: x3 on a log axis" grep -q -F 'x3 (log scale)' "$WORK/mixed/report.html"

# Composes: --json keeps stdout to the object; --test shows the look, a later page keeps it.
run_rc 0 "$FOXOPT" report "$WORK/agent" --html --json --no-plots
check "--json --html: stdout is the JSON object alone" test "${OUT_TXT:0:1}" = "{"
contains "$ERR_TXT" "wrote $A"
run_rc 0 "$FOXOPT" report "$WORK/agent" --html --test --top 2 --no-plots
contains "$OUT_TXT" "wrote $A"
rows_test() { sed -n '/<table id="test-rows">/,/<\/table>/p' "$1" | grep -o '^<tr><td>[0-9]*' |
  sed 's/.*<td>//' | tr '\n' ' '; }
want=$(expected_order "$WORK/agent/trials.csv" val.sharpe maximize | cut -d' ' -f1-2)
check "--test: the page's test rows are the 2 best ($(rows_test "$A"))" test "$(rows_test "$A")" = "$want "
contains "$(grep -A1 '<h2 id="test">' "$A")" "Looked at 1 time"
run_rc 0 "$FOXOPT" report "$WORK/agent" --html --no-plots
check "a later page shows the last look's rows" test "$(rows_test "$A")" = "$want "
# One plotting path: report --html also writes each figure as NAME.svg and NAME.png, and every
# plot in a file is, byte for byte, the page's inline <svg>; the file parses as XML with the
# page's heading and legend; the PNG is that SVG drawn (ink where the plot is).
for name in mixed agent; do
  run_rc 0 "$FOXOPT" report "$WORK/$name" --html --top 1000
  contains "$OUT_TXT" "wrote $WORK/$name/report.html"
  contains "$OUT_TXT" "wrote $WORK/$name/history.png"
  check "$name: no temporary left" test -z "$(ls -A "$WORK/$name" | grep -e report.tmp -e '\.tmp\.')"
  if [ -n "${FOX_PYTHON:-}" ]; then
    if "$FOX_PYTHON" - "$WORK/$name" "$FOX_SRC/tests/e2e/png_ink.py" >"$WORK/files.txt" 2>&1 <<'PY'
import glob, os, re, subprocess, sys
import xml.etree.ElementTree as ET
d, ink = sys.argv[1], sys.argv[2]
page = open(os.path.join(d, "report.html")).read()
part = r'<svg xmlns="http://www.w3.org/2000/svg" viewBox=.*?</svg>\n'
inline = re.findall(part, page, re.S)
files = sorted(glob.glob(os.path.join(d, "*.svg")))
assert len(files) >= 5, files
parts_total = 0
for f in files:
    text = open(f).read()
    ET.fromstring(text.encode())  # well-formed XML
    parts = re.findall(part, text, re.S)
    assert parts, f
    for p in parts:
        assert p in inline, (f, p[:200])
    parts_total += len(parts)
    png = f[:-4] + ".png"
    assert os.path.getsize(png) > 4000, png
    r = subprocess.run([sys.executable, ink, png, "16", "0.01"], capture_output=True, text=True)
    assert r.returncode == 0, (png, r.stdout, r.stderr)
# every figure of the page is in a file (the legends' swatches aside)
assert parts_total == len(inline), (parts_total, len(inline))
print("ok", len(files), "files", parts_total, "plots")
PY
    then ok; else bad "$name: the figure files: $(cat "$WORK/files.txt")"; fi
  fi
done

# No dataset: the page says so and draws the equity alone.
mv "$WORK/s.h5" "$WORK/s.h5.away"
run_rc 0 "$FOXOPT" report "$WORK/agent" --html --no-plots
mv "$WORK/s.h5.away" "$WORK/s.h5"
check "no dataset: the page says so" \
  grep -q -F "<p class=\"note\">no buy-and-hold: the dataset $WORK/s.h5 is missing" "$A"
contains "$ERR_TXT" "no buy-and-hold: the dataset $WORK/s.h5 is missing"
check "no dataset: the equity still drawn" grep -q 'class="eq"' "$A"
check "no dataset: no buy-and-hold line" not grep -q 'path class="bh"' "$A"
run_rc 0 "$FOXOPT" report "$WORK/agent" --html --no-plots
check "with the dataset: the buy-and-hold line" grep -q 'path class="bh"' "$A"

# A write that fails halfway (a file size limit of 8 KiB, the signal ignored so that write
# fails with EFBIG): exit 1 naming report.html, the old page whole, no temporary left.
cp "$A" "$WORK/page.before"
run_rc 1 bash -c 'trap "" XFSZ; ulimit -f 8; exec "$@"' - "$FOXOPT" report "$WORK/agent" --html --no-plots
contains "$ERR_TXT" "$A: writing it failed"
check "failed write: the old report.html kept" cmp -s "$A" "$WORK/page.before"
check "failed write: no temporary left" test -z "$(ls -A "$WORK/agent" | grep '\.tmp\.')"

# An OUTDIR the user cannot write: exit 1 naming report.html, the old page kept whole. Root
# writes anywhere, so root runs the report as nobody.
cp "$A" "$WORK/page.before"
as_user=()
if [ "$(id -u)" -eq 0 ]; then
  if command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
    chmod 755 "$WORK"
    as_user=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups)
  fi
else
  chmod a-w "$WORK/agent"
fi
if [ "$(id -u)" -ne 0 ] || [ ${#as_user[@]} -gt 0 ]; then
  run_rc 1 "${as_user[@]}" "$FOXOPT" report "$WORK/agent" --html --no-plots
  contains "$ERR_TXT" "$A: cannot be written"
  check "unwritable OUTDIR: the old report.html kept" cmp -s "$A" "$WORK/page.before"
  check "unwritable OUTDIR: no temporary left" test -z "$(ls -A "$WORK/agent" | grep '\.tmp\.')"
  # the figure files: exit 1 naming the first, and how to do without them; --no-plots reads it
  run_rc 1 "${as_user[@]}" "$FOXOPT" report "$WORK/agent"
  contains "$ERR_TXT" "history.svg: cannot be written"
  contains "$ERR_TXT" "(--no-plots leaves the figure files out)"
  run_rc 0 "${as_user[@]}" "$FOXOPT" report "$WORK/agent" --no-plots
else
  echo "note: root without setpriv: the unwritable OUTDIR check is skipped"
fi
chmod u+w "$WORK/agent"

run_rc 0 "$FOXOPT" report --help
contains "$OUT_TXT" "--html             also OUTDIR/report.html"

# The browser.
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
why=""
[ -n "$CHROMIUM" ] || why="no chromium on PATH (Debian: apt-get install chromium)"
if [ -z "$why" ] && ! { [ -n "${FOX_PYTHON:-}" ] && "$FOX_PYTHON" -c 'import websocket' 2>/dev/null; }; then
  why="no Python with the websocket-client module (scripts/setup.sh --python)"
fi
if [ -n "$why" ]; then
  done_ || exit 1
  echo "skipped: the browser part: $why"
  exit 77
fi
for name in agent mixed; do
  run_rc 0 "$FOXOPT" report "$WORK/$name" --html --no-plots --top 1000
  mkdir -p "$WORK/shots-$name"
  if ! timeout 180 "$FOX_PYTHON" "$FOX_SRC/tests/e2e/html_browser.py" "$CHROMIUM" \
      "$WORK/$name/report.html" "$WORK/shots-$name" >"$WORK/$name.json" 2>"$WORK/$name.err"; then
    bad "$name: the browser run failed: $(tail -5 "$WORK/$name.err")"
    continue
  fi
  want=$(expected_order "$WORK/$name/trials.csv" "$( [ $name = agent ] && echo val.sharpe || echo value)" \
    "$( [ $name = agent ] && echo maximize || echo minimize)")
  # agent: history, learning curves, timeline, parallel coordinates, 3 parameters, equity,
  # logits (3 complete trials: no importance, a sentence); mixed (no scheduler: one value a
  # trial, no curve): history, timeline, parallel coordinates, importance, 5 parameters
  "$FOX_PYTHON" - "$WORK/$name.json" "$want" "$( [ $name = agent ] && echo 9 || echo 9)" "$name" <<'PY' && ok || bad "$name: in the browser"
import json, sys
r = json.load(open(sys.argv[1]))
want, figures, name = sys.argv[2].split(), int(sys.argv[3]), sys.argv[4]
errors = []
for view, v in r["views"].items():
    def need(cond, what):
        if not cond:
            errors.append(f"{view}: {what}")
    need(v["requests"] == [r["url"]], f"requests {v['requests']}, expected the page alone")
    need(v["console_errors"] == [], f"console errors {v['console_errors']}")
    need(v["ids"] == want, f"rows {v['ids']}, expected {want}")
    need(v["scripts"] == 0, f"{v['scripts']} scripts")
    need(v["figures"] == figures and v["drawn"] == figures,
         f"{v['drawn']} of {v['figures']} plots drawn, expected {figures}")
    need(v["scroll_width"] <= v["inner_width"],
         f"the page is {v['scroll_width']} px wide in a {v['inner_width']} px window")
    need(v["widest_figure"] <= v["inner_width"], f"a plot reaches {v['widest_figure']} px")
    need(len(v["screenshots"]) >= 2, f"{len(v['screenshots'])} screenshots")
    need(v["h1"].startswith("foxopt report: study "), f"heading {v['h1']!r}")
if name == "agent":
    need = lambda c, w: c or errors.append(w)
    need(r["views"]["phone"]["table_scrolls"], "phone: the table does not scroll sideways")
    need(r["views"]["desktop"]["h1"] == 'foxopt report: study h <b>&"x',
         f"the name as text: {r['views']['desktop']['h1']!r}")
for e in errors:
    print(e, file=sys.stderr)
sys.exit(1 if errors else 0)
PY
  # the pieces from the top: PNG files, the first of each view a whole 1000 px
  check "$name: desktop-1.png is a PNG" is_png "$WORK/shots-$name/desktop-1.png"
  check "$name: phone-1.png is a PNG" is_png "$WORK/shots-$name/phone-1.png"
  for png in "$WORK/shots-$name"/*.png; do
    check "$png is a PNG" test "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a
  done
  check "$name: the first desktop screenshot is not blank" \
    test "$(wc -c <"$WORK/shots-$name/desktop-1.png")" -gt 40000
  if [ -n "${FOX_HTML_SHOTS:-}" ] && [ -d "${FOX_HTML_SHOTS}" ]; then
    cp "$WORK/shots-$name"/*.png "$FOX_HTML_SHOTS/" 2>/dev/null &&
      for f in "$WORK/shots-$name"/*.png; do mv "$FOX_HTML_SHOTS/$(basename "$f")" \
        "$FOX_HTML_SHOTS/$name-$(basename "$f")"; done
  fi
done
done_
