#!/usr/bin/env bash
# Foundation benchmark: cold index, no-op re-index, one-file re-index and
# one-shot `cairn def`, on mono1m (1.66M lines) and the Go standard library,
# with universal-ctags as the baseline in the same run.
#   bench/index/run.sh [--latency]   (results on stdout; copy them to RESULTS.md;
#                                     --latency: the one-shot def timing only)
source "$(dirname "$0")/../lib.sh"
need ctags universal-ctags
build_cairn
mono1m
machine
echo "corpus: mono1m $(cd "$MONO" && git rev-parse HEAD) ($(cd "$MONO" && git ls-files | wc -l) files)"

IDX="$WORK/mono1m.idx"
if [ "${1:-}" != "--latency" ]; then
rm -rf "$IDX"
echo "== cold index (wall s, peak RSS KB)"
timed "cairn index (cold)" "$CAIRN" index -q --index-dir "$IDX" "$MONO"
timed "ctags -R (baseline)" ctags -R -f "$WORK/mono1m.tags" "$MONO"
rm -rf "$WORK/mono1m-noemb.idx"
timed "cairn index (cold, --embedder none: symbols, graph, BM25)" "$CAIRN" index -q --embedder none --index-dir "$WORK/mono1m-noemb.idx" "$MONO"
rm -rf "$WORK/mono1m-noemb.idx"
"$CAIRN" status --index-dir "$IDX" | sed -n '3,6p'

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

echo "== one-shot def (process start to output), 30 runs each, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo -n "cairn def ListenAndServe: "; oneshot 30 "$CAIRN" def --index-dir "$IDX" ListenAndServe
echo -n "cairn def QuerySet.filter --json: "; oneshot 30 "$CAIRN" def --json --index-dir "$IDX" QuerySet.filter
echo -n "readtags ListenAndServe (baseline): "; oneshot 30 readtags -t "$WORK/mono1m.tags" ListenAndServe

[ "${1:-}" = "--latency" ] && exit 0
echo "== Go standard library"
GOSRC="$WORK/gostd"
if [ ! -d "$GOSRC" ]; then cp -r "$(go env GOROOT)/src" "$GOSRC"; fi
rm -rf "$WORK/gostd.idx"
timed "cairn index (cold, GOROOT/src)" "$CAIRN" index -q --index-dir "$WORK/gostd.idx" "$GOSRC"
timed "ctags -R (baseline)" ctags -R -f "$WORK/gostd.tags" "$GOSRC"
"$CAIRN" status --index-dir "$WORK/gostd.idx" | sed -n '3,4p'
echo -n "cairn def ListenAndServe: "; oneshot 30 "$CAIRN" def --index-dir "$WORK/gostd.idx" http.ListenAndServe
