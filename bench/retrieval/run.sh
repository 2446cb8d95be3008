#!/usr/bin/env bash
# Retrieval benchmark on the issue-localization dev set
# (../shared/bench/localization): cairn search fused, and each candidate
# generator alone, against the BM25 baseline numbers in that README; plus
# query latency on mono1m (served from an open index and one-shot).
#   bench/retrieval/run.sh [--quick|--latency]   (--quick: fused only; --latency: latency only)
# Needs the trees: ../shared/bench/localization/prepare.sh TREES CLONES.
source "$(dirname "$0")/../lib.sh"
build_cairn
export PATH="$(dirname "$CAIRN"):$PATH"
LOC="$REPO_ROOT/../shared/bench/localization"
TREES=${LOC_TREES:-$WORK/loc/trees}
OUT="$WORK/loc/out"; mkdir -p "$OUT"
machine
run() { # NAME EXTRA-SEARCH-FLAGS
  local name=$1; shift
  python3 "$LOC/score.py" --repos-root "$TREES" \
    --prep-cmd "cairn index -q {repo_dir}" \
    --cmd "cairn search --json --repo {repo_dir} --query-file {query_file} --limit 20 $*" \
    --out "$OUT/$name.json" > "$OUT/$name.txt" 2>&1
  echo "== $name"; grep -E "^(group|ALL|lang:)" "$OUT/$name.txt"
}
if [ "${1:-}" != "--latency" ]; then
run fused
# the baseline in the same run: the benchmark's own BM25 over whole files,
# tests skipped (its stronger variant)
python3 "$LOC/score.py" --repos-root "$TREES" \
  --cmd "python3 $LOC/baseline_bm25.py --repo {repo_dir} --query-file {query_file} --limit {topk} --symbols --skip-tests" \
  --out "$OUT/bm25.json" > "$OUT/bm25.txt" 2>&1
echo "== baseline bm25 (skip tests)"; grep -E "^(group|ALL|lang:)" "$OUT/bm25.txt"
if [ "${1:-}" != "--quick" ]; then
  for g in text file title vector symbol path message; do run "only-$g" --only "$g"; done
fi
fi

# Query latency on mono1m (bench/index/run.sh builds $MONO_IDX): served from
# an open index (200 sampled definitions' doc-comment lines, issue-shaped
# texts and bare names, through fuse in one process; the same with only
# the text or only the vector generators; the identifier set scores where
# the definition lands), the same through engine snapshots as the MCP,
# LSP and HTTP adapters search, then one-shot `cairn search` processes
# (process start to output), prose and identifiers.
MONO=${MONO:-$WORK/mono1m}
MONO_IDX=${MONO_IDX:-$WORK/mono1m.idx}
if [ -f "$MONO_IDX/CURRENT" ]; then
  (cd "$REPO_ROOT" && go build -o "$WORK/bin/retrieval-latency" ./bench/retrieval/latency)
  echo "== latency on mono1m ($MONO_IDX), load average $(cut -d' ' -f1-3 /proc/loadavg)"
  "$WORK/bin/retrieval-latency" -index "$MONO_IDX" -n 200
  echo "== the same through engine snapshots"
  "$WORK/bin/retrieval-latency" -index "$MONO_IDX" -engine "$MONO" -n 200
  for q in "scrape target labels are dropped after relabeling" "ListenAndServe TLS config" \
           "zod refine error message nested object" "queryset filter related field manager" \
           ListenAndServe QuerySet newRangeQuery; do
    echo -n "one-shot cairn search '$q': "
    oneshot 10 "$CAIRN" search --repo "$MONO" --index-dir "$MONO_IDX" --json "$q"
  done
fi
