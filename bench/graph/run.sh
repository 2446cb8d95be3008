#!/usr/bin/env bash
# Code-graph benchmark: accuracy of heuristic resolution against real SCIP
# indexes (precision/recall of call and reference edges per language), SCIP
# ingestion time, and one-shot `cairn callers --depth 3` latency on mono1m.
#   bench/graph/run.sh [--latency]     (--latency: the callers timing only)
source "$(dirname "$0")/../lib.sh"
build_cairn
mono1m
machine
ACC="$WORK/bin/accuracy"
(cd "$REPO_ROOT" && go build -o "$ACC" ./bench/graph/accuracy)

# Real SCIP indexers and indexes (see ../shared/bench/corpora/README.md).
TOOLS="$WORK/tools"; SCIP="$WORK/scip"
mkdir -p "$TOOLS"
[ -x "$TOOLS/bin/scip-go" ] || GOBIN="$TOOLS/bin" go install github.com/scip-code/scip-go/cmd/scip-go@v0.2.9
[ -x "$TOOLS/node_modules/.bin/scip-python" ] || (cd "$TOOLS" && npm install --silent @sourcegraph/scip-typescript@0.4.0 @sourcegraph/scip-python@0.6.6 >/dev/null)
if [ ! -f "$SCIP/ts-zod.scip" ]; then
  bash "$REPO_ROOT/../shared/bench/corpora/make-scip.sh" "$MONO" "$SCIP" "$TOOLS"
fi

if [ "${1:-}" != "--latency" ]; then
echo "== accuracy of heuristic edges against SCIP (same tree, indexed twice)"
echo "| project | indexer | call P | call R | ref P | ref R | call edges (heur/precise/both) | unverifiable call edges |"
echo "|---|---|---:|---:|---:|---:|---|---:|"
for spec in "go/x-tools:x-tools:scip-go" "python/django:py-django:scip-python" "python/flask:py-flask:scip-python" \
            "python/requests:py-requests:scip-python" "ts/zod:ts-zod:scip-typescript" "ts/rxjs:ts-rxjs:scip-typescript"; do
  IFS=: read -r dir idx tool <<< "$spec"
  H="$WORK/acc-$idx-h.idx"; P="$WORK/acc-$idx-p.idx"
  "$CAIRN" index -q --full --no-scip-discovery --index-dir "$H" "$MONO/$dir"
  "$CAIRN" index -q --full --no-scip-discovery --index-dir "$P" --scip "$SCIP/$idx.scip" "$MONO/$dir"
  "$ACC" -heuristic "$H" -precise "$P" -label "$dir" | python3 -c "
import json,sys
d=json.load(sys.stdin); c=d['calls']; r=d['references']
print(f\"| {d['label']} | $tool | {c['Precision']:.3f} | {c['Recall']:.3f} | {r['Precision']:.3f} | {r['Recall']:.3f} | {c['Heuristic']}/{c['Precise']}/{c['Both']} | {c['Unverifiable']} |\")"
done

echo "== SCIP ingestion: x/tools (23 MB index)"
timed "index x/tools, tree-sitter only" "$CAIRN" index -q --full --no-scip-discovery --index-dir "$WORK/xt-h.idx" "$MONO/go/x-tools"
timed "index x/tools with the SCIP index" "$CAIRN" index -q --full --no-scip-discovery --index-dir "$WORK/xt-p.idx" --scip "$SCIP/x-tools.scip" "$MONO/go/x-tools"

fi

echo "== one-shot callers --depth 3 on mono1m (30 runs each), load average $(cut -d' ' -f1-3 /proc/loadavg)"
IDX="$WORK/mono1m.idx"
"$CAIRN" index -q --index-dir "$IDX" "$MONO"   # brings the index up to date (no-op when it is)
for q in "Function.Pos" "QuerySet.filter" "ZodType.parse" "Observable.subscribe" "analysis.Pass"; do
  n=$( ("$CAIRN" callers --depth 3 --index-dir "$IDX" "$q" 2>/dev/null || true) | wc -l)
  echo -n "cairn callers --depth 3 $q ($n results): "; oneshot 30 "$CAIRN" callers --depth 3 --index-dir "$IDX" "$q"
done
echo -n "cairn def ListenAndServe (baseline for process start + open): "; oneshot 30 "$CAIRN" def --index-dir "$IDX" ListenAndServe
