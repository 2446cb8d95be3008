#!/usr/bin/env bash
# The move to one engine (issue 16), paired against the commit before it in
# the same script: the same binary built at BASE and at HEAD, each indexing
# the same trees into its own index directory, then
#   - localization on the dev set (../shared/bench/localization) with both
#     binaries: the ALL/lang rows and every task's top files compared;
#   - one-shot latency on mono1m (process start to output, freshness check
#     on), interleaved base/head per run: def, search, context at 16k, trace.
#   bench/engine/run.sh [BASE_COMMIT] [--latency|--localization]
# Needs the trees (../shared/bench/localization/prepare.sh TREES CLONES) and
# mono1m (bench/lib.sh assembles it).
source "$(dirname "$0")/../lib.sh"
BASE=${1:-39b4065}
MODE=${2:-all}
machine
echo "base $BASE, head $(git -C "$REPO_ROOT" rev-parse --short HEAD)$(git -C "$REPO_ROOT" diff --quiet || echo '+dirty')"

# two binaries: base from a temporary worktree, head from this checkout
mkdir -p "$WORK/bin"
if [ ! -x "$WORK/bin/cairn-$BASE" ]; then
  wt="$WORK/base-src-$BASE"
  [ -d "$wt" ] || git -C "$REPO_ROOT" worktree add -q --detach "$wt" "$BASE"
  (cd "$wt" && go build -o "$WORK/bin/cairn-$BASE" ./cmd/cairn)
fi
OLD="$WORK/bin/cairn-$BASE"
# HEAD_BIN names the head binary (another name lets a second run build
# while a first one still uses its binary)
HEAD_BIN=${HEAD_BIN:-cairn-head}
(cd "$REPO_ROOT" && go build -o "$WORK/bin/$HEAD_BIN" ./cmd/cairn)
NEW="$WORK/bin/$HEAD_BIN"

LOC="$REPO_ROOT/../shared/bench/localization"
TREES=${LOC_TREES:-$WORK/loc/trees}
OUT="$WORK/engine"; mkdir -p "$OUT"

localize() { # NAME BINARY
  if [ "$1" = base ] && [ -s "$OUT/loc-base.json" ] && [ -z "${FRESH_BASE:-}" ]; then
    echo "== localization, base (kept from an earlier run of this script; FRESH_BASE=1 reruns it)"
    grep -E "^(group|ALL|lang:)" "$OUT/loc-base.txt"; return
  fi
  python3 "$LOC/score.py" --repos-root "$TREES" \
    --prep-cmd "$2 index -q --index-dir $WORK/engine/idx-$1/{commit} {repo_dir}" \
    --cmd "$2 search --json --repo {repo_dir} --index-dir $WORK/engine/idx-$1/{commit} --query-file {query_file} --limit 20" \
    --out "$OUT/loc-$1.json" > "$OUT/loc-$1.txt" 2>&1
  echo "== localization, $1"; grep -E "^(group|ALL|lang:)" "$OUT/loc-$1.txt"
}
if [ "$MODE" != "--latency" ]; then
  localize base "$OLD"
  localize head "$NEW"
  python3 - "$OUT/loc-base.json" "$OUT/loc-head.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
def rows(d):
    ts = d["tasks"] if isinstance(d, dict) and "tasks" in d else d
    return {t["id"]: (t.get("top_files"), t.get("top_symbols")) for t in ts}
ra, rb = rows(a), rows(b)
diff = [k for k in ra if ra[k] != rb.get(k)]
print(f"tasks whose top files or symbols differ: {len(diff)} of {len(ra)}", *diff[:20])
PY
fi

[ "$MODE" = "--localization" ] && exit 0
mono1m
for v in base head; do
  bin=$OLD; [ $v = head ] && bin=$NEW
  [ -f "$OUT/mono-$v.idx/CURRENT" ] || "$bin" index -q --repo "$MONO" --index-dir "$OUT/mono-$v.idx"
done
# paired one-shot latency: each run times base then head (then head then
# base on the next run), so both see the same machine load. --all (every
# definition of an ambiguous name) is what the base did without asking; it
# is passed to head only.
paired() { # LABEL N ARGS...
  local label=$1 n=$2; shift 2
  local head_args=("$@") base_args=()
  for a in "$@"; do [ "$a" = --all ] || base_args+=("$a"); done
  : > "$OUT/lat-base.txt"; : > "$OUT/lat-head.txt"
  for v in base head; do # one untimed run each: the page cache
    bin=$OLD; args=("${base_args[@]}"); [ $v = head ] && bin=$NEW && args=("${head_args[@]}")
    "$bin" "${args[@]}" --repo "$MONO" --index-dir "$OUT/mono-$v.idx" >/dev/null 2>&1 || true
  done
  for i in $(seq "$n"); do
    order="base head"; [ $((i % 2)) = 0 ] && order="head base"
    for v in $order; do
      bin=$OLD; args=("${base_args[@]}"); [ $v = head ] && bin=$NEW && args=("${head_args[@]}")
      s=$(date +%s%N)
      "$bin" "${args[@]}" --repo "$MONO" --index-dir "$OUT/mono-$v.idx" >/dev/null 2>"$OUT/err-$v.txt" || echo "  $v FAILED: $(head -c 300 "$OUT/err-$v.txt")"
      e=$(date +%s%N)
      echo $(( (e - s) / 1000 )) | awk '{printf "%.3f\n", $1/1000}' >> "$OUT/lat-$v.txt"
    done
  done
  python3 - "$label" "$OUT/lat-base.txt" "$OUT/lat-head.txt" <<'PY'
import sys
def p(xs, q): return xs[min(len(xs)-1, int(round(q*(len(xs)-1))))]
label = sys.argv[1]
a, b = (sorted(float(l) for l in open(f) if l.strip()) for f in sys.argv[2:4])
print(f"{label:52s} base p50 {p(a,.5):7.1f} p95 {p(a,.95):7.1f} | head p50 {p(b,.5):7.1f} p95 {p(b,.95):7.1f} ms | head/base p50 {p(b,.5)/p(a,.5):.2f}")
PY
}
echo "== one-shot latency on mono1m, paired, load average $(cut -d' ' -f1-3 /proc/loadavg)"
paired "def ListenAndServe" 20 def ListenAndServe
paired "def QuerySet.filter --json" 20 def --json QuerySet.filter
paired "refs Labels.Hash --json" 10 refs --json Labels.Hash
paired "callers Labels.Hash --depth 2 --json" 10 callers --json --all --depth 2 Labels.Hash
paired "search 'ListenAndServe TLS config'" 20 search --json "ListenAndServe TLS config"
paired "search 'scrape target labels are dropped…'" 20 search --json "scrape target labels are dropped after relabeling"
paired "context --budget 16000 (flask url_for …)" 10 context --json --budget 16000 "flask url_for builds the wrong URL behind a proxy with SCRIPT_NAME"
paired "trace Labels.Hash" 10 trace --json Labels.Hash
paired "trace config.ScrapeInterval" 10 trace --json config.ScrapeInterval
paired "impact --depth 3 Config.Load" 10 impact --json --all --depth 3 Config.Load
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
