#!/usr/bin/env bash
# Impact benchmark on golang.org/x/tools (from mono1m, ../shared/bench/corpora):
# breaks chosen functions on purpose, runs the tests that can fail, and
# compares them with the affected test set `cairn impact` selects (recall
# of failing tests, size of the selection against the whole suite). Then
# trace and impact latency on the mono1m index, one-shot.
#   bench/impact/run.sh [FUNC...]     FUNC = dir:Name, default below
#   bench/impact/run.sh --latency     the mono1m timings only
source "$(dirname "$0")/../lib.sh"
build_cairn
export CAIRN
MONO=${MONO:-$WORK/mono1m}
MONO_IDX=${MONO_IDX:-$WORK/mono1m.idx}
XT="$WORK/impact/x-tools"
machine
if [ "${1:-}" != "--latency" ]; then
rm -rf "$XT"; mkdir -p "$(dirname "$XT")"
cp -r "$MONO/go/x-tools" "$XT"
(cd "$XT" && GOFLAGS=-mod=mod go mod download >/dev/null 2>&1 || true)
"$CAIRN" index -q --repo "$XT"
funcs=("$@")
if [ ${#funcs[@]} -eq 0 ]; then
  # a function each of narrow (1 package), middling (4, 9) and wide (81 test
  # packages link it) reach
  funcs=(cover:ParseProfiles refactor/satisfy:Finder.Find go/cfg:New go/ast/astutil:AddNamedImport)
fi
FAIL_CACHE="$WORK/impact-failing.json" OUT="$WORK/impact/breakit.json" python3 "$REPO_ROOT/bench/impact/breakit.py" "$XT" "${funcs[@]}"
fi

# latency on mono1m, one-shot processes
oneshot() { # LABEL CMD...
  local label=$1; shift
  local lat=()
  for i in 1 2 3 4 5 6 7 8 9 10; do
    s=$(date +%s%N); "$@" > /dev/null || { echo "$label: FAILED"; return 0; }; e=$(date +%s%N)
    lat+=($(( (e - s) / 1000000 )))
  done
  printf '%s\n' "${lat[@]}" | sort -n | awk -v l="$label" '{a[NR]=$1} END {printf "%-44s p50 %4d ms  p95 %4d ms  max %4d ms\n", l, a[int(NR*0.5+0.5)], a[int(NR*0.95+0.5)], a[NR]}'
}
echo "latency on mono1m ($MONO_IDX), one-shot, 10 runs each, load average $(cut -d' ' -f1-3 /proc/loadavg):"
for t in ParseFile Config.Load Labels.Hash; do
  oneshot "impact --depth 3 $t" "$CAIRN" impact --repo "$MONO" --index-dir "$MONO_IDX" --json --depth 3 "$t"
done
for t in Labels.Hash labels.Labels config.ScrapeInterval Request.url; do
  oneshot "trace $t" "$CAIRN" trace --repo "$MONO" --index-dir "$MONO_IDX" --json "$t"
done
