#!/usr/bin/env bash
# The cold index's floor on mono1m: what reading the files, parsing them
# with cairn's tree-sitter grammars, running its extraction queries over the
# trees, and the whole extraction (every fact but resolution) cost as whole
# processes, interleaved round by round with zoekt-index (with ctags, as
# bench/index/run.sh runs it) and a cold `cairn index`. Each stage is
# indexer/treesitter's TestFloor, built once with `go test -c`; CPU is user
# + system of the process.
#   ZOEKT_BIN=DIR bench/index/floor.sh [ROUNDS]    (ZOEKT_BIN as for run.sh)
source "$(dirname "$0")/../lib.sh"
need ctags universal-ctags
build_cairn
mono1m
machine
ROUNDS=${1:-3}
FLOOR="$WORK/bin/floor.test"
(cd "$REPO_ROOT" && go test -c -o "$FLOOR" ./indexer/treesitter)
echo "corpus: mono1m $(cd "$MONO" && git rev-parse HEAD)"
OUT="$WORK/floor"; rm -rf "$OUT"; mkdir -p "$OUT"

run() { # LABEL CMD...: wall, CPU and peak RSS of one process, kept in $OUT/LABEL
  local label=$1; shift
  /usr/bin/time -o "$OUT/time" -f "%e %U %S %M" "$@" >"$OUT/log" 2>&1 || { echo "$label: FAILED"; tail -5 "$OUT/log"; return; }
  local s u y kb; read -r s u y kb < "$OUT/time"
  local cpu; cpu=$(awk -v u="$u" -v y="$y" 'BEGIN{printf "%.2f", u + y}')
  echo "$s $cpu $((kb / 1024))" >> "$OUT/$label"
  printf '  %-10s %6.2fs wall %7.2fs CPU %6d MB\n' "$label" "$s" "$cpu" $((kb / 1024))
  if [ "$label" = query ]; then grep -E "floor_test.go:[0-9]+:" "$OUT/log" | sed 's/^ *floor_test.go:[0-9]*: /    /'; fi
}

labels=(read parse query extract cairn)
if [ -n "${ZOEKT_BIN:-}" ] && [ -x "$ZOEKT_BIN/zoekt-index" ]; then
  export CTAGS_COMMAND=${CTAGS_COMMAND:-$(command -v ctags)}
  labels+=(zoekt)
else
  echo "zoekt: not compared (set ZOEKT_BIN)"
fi
for r in $(seq "$ROUNDS"); do
  echo "round $r (load $(cut -d' ' -f1 /proc/loadavg))"
  for s in read parse query extract; do
    CAIRN_FLOOR="$s:$MONO" run "$s" "$FLOOR" -test.run '^TestFloor$' -test.v
  done
  rm -rf "$OUT/idx"; run cairn "$CAIRN" index -q --full --index-dir "$OUT/idx" "$MONO"
  if [[ " ${labels[*]} " == *" zoekt "* ]]; then
    rm -rf "$OUT/zidx"; run zoekt "$ZOEKT_BIN/zoekt-index" -index "$OUT/zidx" "$MONO"
  fi
done
rm -rf "$OUT/idx" "$OUT/zidx"
echo "medians (wall s, CPU s, peak RSS MB), CPU as a multiple of zoekt-index's:"
python3 - "$OUT" "${labels[@]}" <<'PY'
import statistics, sys, os
out, labels = sys.argv[1], sys.argv[2:]
med = {}
for l in labels:
    rows = [list(map(float, x.split())) for x in open(os.path.join(out, l)) if x.strip()]
    med[l] = [statistics.median(c) for c in zip(*rows)]
z = med.get("zoekt")
for l in labels:
    w, c, m = med[l]
    ratio = f"  {c / z[1]:.2f}x zoekt" if z else ""
    print(f"  {l:10s} {w:6.2f} {c:7.2f} {m:6.0f}{ratio}")
PY
