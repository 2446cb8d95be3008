#!/usr/bin/env bash
# Context benchmark on the issue-localization dev set
# (../shared/bench/localization): `cairn context` packs scored by
# score_context.py at 4k, 8k, 16k and 32k tokens, with the bm25-concat
# baseline (BM25's top files concatenated to the budget) and cairn-concat
# (cairn search's own files concatenated, bench/context/concat.py) in the
# same run;
# then pack latency at 16k on mono1m (one-shot, p50/p95).
#   bench/context/run.sh [--no-latency|--latency]   (--latency: pack latency only)
# Needs the trees: ../shared/bench/localization/prepare.sh TREES CLONES,
# and mono1m indexed at $MONO_IDX (bench/index/run.sh builds it).
source "$(dirname "$0")/../lib.sh"
build_cairn
export PATH="$(dirname "$CAIRN"):$PATH"
LOC="$REPO_ROOT/../shared/bench/localization"
TREES=${LOC_TREES:-$WORK/loc/trees}
OUT="$WORK/loc/out"; mkdir -p "$OUT"
machine
if [ "${1:-}" != "--latency" ]; then
python3 "$LOC/score_context.py" --repos-root "$TREES" \
  --prep-cmd "cairn index -q {repo_dir}" \
  --cmd "cairn context --json --repo {repo_dir} --query-file {query_file} --budget {budget}" \
  --budgets 4000,8000,16000,32000 --baseline bm25-concat --markdown \
  --out "$OUT/context.json" > "$OUT/context.md" 2>&1
cat "$OUT/context.md"
# the same ranking's whole files concatenated (cairn search's file ranking,
# chars/4 tokens, no citations): a pack must cover at least this per
# language at every budget
python3 "$LOC/score_context.py" --repos-root "$TREES" \
  --cmd "python3 $BENCH_ROOT/context/concat.py $CAIRN {repo_dir} {query_file} {budget}" \
  --budgets 4000,8000,16000,32000 --markdown \
  --out "$OUT/context-concat.json" > "$OUT/context-concat.md" 2>&1
echo "== cairn-concat (cairn search's files, whole, concatenated)"
grep "^| engine" "$OUT/context-concat.md" | sed 's/^| engine /| cairn-concat /'
fi
[ "${1:-}" = "--no-latency" ] && exit 0
# pack latency at 16k on mono1m: a fixed set of issue-style tasks, one-shot
MONO=${MONO:-$WORK/mono1m}
MONO_IDX=${MONO_IDX:-$WORK/mono1m.idx}
tasks=(
  "http handler returns 500 when the request body is empty"
  "scrape target labels are dropped after relabeling"
  "zod schema refine error message is lost for nested objects"
  "django queryset filter on related field ignores the default manager"
  "ConcurrentHashMap computeIfAbsent deadlocks when the mapping function recurses"
  "gopls completion panics on a nil type in a generic function"
  "flask url_for builds the wrong URL behind a proxy with SCRIPT_NAME"
  "rxjs switchMap leaks the inner subscription on error"
  "requests session does not rebuild proxies after a redirect"
  "matplotlib legend ignores the handler map for collections"
)
lat=()
for round in 1 2 3; do
  for t in "${tasks[@]}"; do
    s=$(date +%s%N)
    cairn context --repo "$MONO" --index-dir "$MONO_IDX" --json --budget 16000 "$t" > /dev/null
    e=$(date +%s%N)
    lat+=($(( (e - s) / 1000000 )))
  done
done
printf '%s\n' "${lat[@]}" | sort -n | awk '{a[NR]=$1} END {printf "pack latency at 16k on mono1m, one-shot, %d runs: p50 %d ms, p95 %d ms, max %d ms\n", NR, a[int(NR*0.5+0.5)], a[int(NR*0.95+0.5)], a[NR]}'
