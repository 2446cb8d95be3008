#!/usr/bin/env bash
# Foundation benchmark: cold index, no-op re-index, one-file re-index and
# one-shot `cairn def` / `cairn search`, on mono1m (1.66M lines) and the Go
# standard library. Baselines in the same run, interleaved with cairn:
# universal-ctags (Debian's, `ctags -R` / `readtags`) and, when ZOEKT_BIN is
# set, zoekt (`zoekt-index` for the cold index, one-shot `zoekt` for text and
# `sym:` queries).
#   bench/index/run.sh [--latency|--cold] [ROUNDS]
#     --latency: the one-shot timings only (needs the mono1m index)
#     --cold:    the cold-index comparison only
#     ROUNDS:    cold-index rounds, each tool once per round (default 2)
# GOSTD=0 leaves out the Go standard library part; CAIRN_BASE=BINARY adds an
# earlier cairn's one-shot def and search (a before/after in the same run).
# ZOEKT_BIN: a directory holding `zoekt` and `zoekt-index` built, outside
# this repository, from a snapshot of github.com/sourcegraph/zoekt (no zoekt
# code, binary or build recipe is committed here). zoekt-index finds
# universal-ctags through CTAGS_COMMAND for its symbols (sym: queries), as
# its builder documents; the script sets it to Debian's ctags.
# Results on stdout; copy them to RESULTS.md.
source "$(dirname "$0")/../lib.sh"
need ctags universal-ctags
build_cairn
mono1m
machine
echo "corpus: mono1m $(cd "$MONO" && git rev-parse HEAD) ($(cd "$MONO" && git ls-files | wc -l) files)"
MODE=${1:-}
case "$MODE" in --latency|--cold) shift ;; *) MODE= ;; esac
ROUNDS=${1:-2}

ZOEKT=
if [ -n "${ZOEKT_BIN:-}" ] && [ -x "$ZOEKT_BIN/zoekt" ] && [ -x "$ZOEKT_BIN/zoekt-index" ]; then
  ZOEKT=$ZOEKT_BIN
  export CTAGS_COMMAND=${CTAGS_COMMAND:-$(command -v ctags)}
else
  echo "zoekt: not compared (set ZOEKT_BIN to a directory with zoekt and zoekt-index)"
fi

IDX="$WORK/mono1m.idx"
ZIDX="$WORK/mono1m.zoekt"

# cpu_of LABEL CMD...: one run's wall s, CPU s (user + system) and peak RSS,
# appended to $WORK/cold-LABEL.txt
cpu_of() {
  local label=$1; shift
  /usr/bin/time -o "$WORK/time.txt" -f "%e %U %S %M" "$@" >/dev/null 2>"$WORK/timed.err" || echo "$label: FAILED: $(tail -3 "$WORK/timed.err")"
  local s u y kb; read -r s u y kb < "$WORK/time.txt"
  local cpu; cpu=$(awk -v u="$u" -v y="$y" 'BEGIN{printf "%.2f", u + y}')
  echo "$s $cpu $((kb / 1024))" >> "$WORK/cold-$label.txt"
  echo "  $label: ${s}s wall, ${cpu}s CPU, $((kb / 1024)) MB peak RSS (load $(cut -d' ' -f1 /proc/loadavg))"
}

# median_of LABEL: the medians of the cold runs of LABEL (wall CPU RSS)
median_of() {
  python3 - "$WORK/cold-$1.txt" <<'PY'
import sys, statistics
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
print(" ".join(f"{statistics.median(c):g}" for c in zip(*rows)))
PY
}

if [ "$MODE" != "--latency" ]; then
echo "== cold index, $ROUNDS interleaved rounds (load average $(cut -d' ' -f1-3 /proc/loadavg))"
rm -f "$WORK"/cold-*.txt
for r in $(seq "$ROUNDS"); do
  echo "round $r"
  rm -rf "$IDX"; cpu_of cairn "$CAIRN" index -q --index-dir "$IDX" "$MONO"
  if [ -n "$ZOEKT" ]; then
    rm -rf "$ZIDX"; cpu_of zoekt "$ZOEKT/zoekt-index" -index "$ZIDX" "$MONO"
  fi
  cpu_of ctags ctags -R -f "$WORK/mono1m.tags" "$MONO"
  rm -rf "$WORK/mono1m-noemb.idx"
  cpu_of cairn-noemb "$CAIRN" index -q --embedder none --index-dir "$WORK/mono1m-noemb.idx" "$MONO"
done
rm -rf "$WORK/mono1m-noemb.idx"
echo "medians (wall s, CPU s, peak RSS MB):"
for t in cairn cairn-noemb zoekt ctags; do
  [ -f "$WORK/cold-$t.txt" ] && echo "  $t: $(median_of "$t")"
done
ratio() { # A B: CPU and RSS ratios of A's medians over B's
  python3 - "$(median_of "$1")" "$(median_of "$2")" "$1" "$2" <<'PY'
import sys
a = list(map(float, sys.argv[1].split())); b = list(map(float, sys.argv[2].split()))
print(f"  {sys.argv[3]} / {sys.argv[4]}: wall {a[0]/b[0]:.2f}x, CPU {a[1]/b[1]:.2f}x, peak RSS {a[2]/b[2]:.2f}x")
PY
}
if [ -n "$ZOEKT" ]; then ratio cairn zoekt; ratio cairn-noemb zoekt; fi
ratio cairn ctags
"$CAIRN" status --index-dir "$IDX" | sed -n '3,6p'
[ "$MODE" = "--cold" ] && exit 0

echo "== re-index, nothing changed"
for i in 1 2 3; do timed "cairn index (no change)" "$CAIRN" index -q --index-dir "$IDX" "$MONO"; done

echo "== re-index, one file changed (edit, index, query sees it)"
F="$MONO/go/prometheus/tsdb/head.go"
cp "$F" "$WORK/head.go.orig"
for i in 1 2 3; do
  printf '\nfunc benchAdded%d() {}\n' "$i" >> "$F"
  s=$(date +%s%N)
  "$CAIRN" index -q --index-dir "$IDX" "$MONO"
  "$CAIRN" def --index-dir "$IDX" "benchAdded$i" >/dev/null
  e=$(date +%s%N)
  echo "edit→index→def: $(( (e - s) / 1000000 )) ms"
done
cp "$WORK/head.go.orig" "$F"
"$CAIRN" index -q --index-dir "$IDX" "$MONO"
fi

# One-shot answers, process start to output, the tools interleaved run by
# run (the machine's load moves; interleaving spreads it over all of them).
# Each command runs once untimed first (page cache, the freshness
# snapshot); failures are counted.
N=${ONESHOT_RUNS:-30}
if [ -n "$ZOEKT" ] && [ ! -d "$ZIDX" ]; then "$ZOEKT/zoekt-index" -index "$ZIDX" "$MONO" >/dev/null 2>&1; fi
[ -f "$WORK/mono1m.tags" ] || ctags -R -f "$WORK/mono1m.tags" "$MONO"
labels=() cmds=()
add() { labels+=("$1"); cmds+=("$2"); }
add "cairn def ListenAndServe" "\"$CAIRN\" def --index-dir \"$IDX\" ListenAndServe"
add "cairn def QuerySet.filter --json" "\"$CAIRN\" def --json --index-dir \"$IDX\" QuerySet.filter"
add "cairn def ListenAndServe (full freshness scan)" "env CAIRN_WORKTREE_CHECK=full \"$CAIRN\" def --index-dir \"$IDX\" ListenAndServe"
add "cairn def ListenAndServe (no freshness check)" "env CAIRN_WORKTREE_CHECK=0 \"$CAIRN\" def --index-dir \"$IDX\" ListenAndServe"
if [ -n "${CAIRN_BASE:-}" ]; then # an earlier cairn binary, for a before/after in the same run
  add "base cairn def ListenAndServe" "\"$CAIRN_BASE\" def --index-dir \"$IDX\" ListenAndServe"
  add "base cairn search ListenAndServe" "\"$CAIRN_BASE\" search --repo \"$MONO\" --index-dir \"$IDX\" ListenAndServe"
fi
[ -n "$ZOEKT" ] && add "zoekt sym:ListenAndServe" "\"$ZOEKT/zoekt\" -index_dir \"$ZIDX\" sym:ListenAndServe"
add "readtags ListenAndServe" "readtags -t \"$WORK/mono1m.tags\" ListenAndServe"
for q in ListenAndServe QuerySet newRangeQuery; do
  add "cairn search $q" "\"$CAIRN\" search --repo \"$MONO\" --index-dir \"$IDX\" $q"
  [ -n "$ZOEKT" ] && add "zoekt $q" "\"$ZOEKT/zoekt\" -index_dir \"$ZIDX\" $q"
done
echo "== one-shot answers, $N interleaved runs each, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
for i in "${!cmds[@]}"; do : > "$WORK/oneshot-$i.txt"; : > "$WORK/oneshot-$i.fail"; bash -c "${cmds[$i]}" >/dev/null 2>&1 || true; done
for _ in $(seq "$N"); do
  for i in "${!cmds[@]}"; do
    s=$(date +%s%N)
    bash -c "exec ${cmds[$i]}" >/dev/null 2>&1 || echo x >> "$WORK/oneshot-$i.fail"
    e=$(date +%s%N)
    echo "$(( (e - s) / 1000 ))" | awk '{printf "%.3f\n", $1/1000}' >> "$WORK/oneshot-$i.txt"
  done
done
for i in "${!cmds[@]}"; do
  f=$(wc -l < "$WORK/oneshot-$i.fail")
  echo -n "${labels[$i]}: "; [ "$f" -gt 0 ] && echo -n "FAILED $f of $N runs: "
  percentiles "$WORK/oneshot-$i.txt"
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

[ "$MODE" = "--latency" ] && exit 0
[ "${GOSTD:-1}" = 0 ] && exit 0
echo "== Go standard library"
GOSRC="$WORK/gostd"
if [ ! -d "$GOSRC" ]; then cp -r "$(go env GOROOT)/src" "$GOSRC"; fi
rm -rf "$WORK/gostd.idx"
timed "cairn index (cold, GOROOT/src)" "$CAIRN" index -q --index-dir "$WORK/gostd.idx" "$GOSRC"
timed "ctags -R (baseline)" ctags -R -f "$WORK/gostd.tags" "$GOSRC"
"$CAIRN" status --index-dir "$WORK/gostd.idx" | sed -n '3,4p'
echo -n "cairn def ListenAndServe: "; oneshot 30 "$CAIRN" def --index-dir "$WORK/gostd.idx" http.ListenAndServe
