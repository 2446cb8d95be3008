#!/usr/bin/env bash
# The history generator on the localization dev set: history trees against
# plain trees with the same facts, the generator alone and off, and the
# cost of reading a real history at index time.
#   CLONES_FILE=clones.txt PLAIN_TREES=DIR bash bench/retrieval/history.sh
# PLAIN_TREES: prepare.sh's plain trees, already indexed (bench/eval/run.sh
# leaves them so); CLONES_FILE: prepare.sh's "OWNER/NAME PATH" lines (full
# histories). Each history tree (HISTORY=1 prepare.sh) gets a copy of its
# plain tree's index, brought up to date by `cairn index` (0 files parsed,
# the history read): the history is then the only difference.
source "$(dirname "$0")/../lib.sh"
LOC="$REPO_ROOT/../shared/bench/localization"
PLAIN=${PLAIN_TREES:?PLAIN_TREES: the indexed plain trees}
HIST="$WORK/hist/trees"; OUT="$WORK/hist/out"; mkdir -p "$OUT"
machine
build_cairn
HISTORY=1 bash "$LOC/prepare.sh" "$HIST" "${CLONES_FILE:?CLONES_FILE}" | tail -1
(cd "$HIST" && for d in */*@*; do
  case "$d" in *.ready|*.missing) continue;; esac
  [ -f "$d/.cairn/CURRENT" ] || cp -a "$PLAIN/$d/.cairn" "$d/.cairn"
  nice "$CAIRN" index -q "$d" || echo "index failed: $d" >&2
done)
score() { # NAME TREES [SEARCH FLAGS]
  local name=$1 trees=$2; shift 2
  python3 "$LOC/score.py" --repos-root "$trees" \
    --cmd "$CAIRN search --json --repo {repo_dir} --query-file {query_file} --limit 20 $*" \
    --out "$OUT/$name.json" > "$OUT/$name.txt" 2>&1
  echo "== $name"; grep -E "^(group|ALL|lang:)" "$OUT/$name.txt"
}
score plain "$PLAIN"
score history "$HIST"
score history-off "$HIST" --only text,file,title,vector,symbol,path,message,graph,rank
score history-alone "$HIST" --only history
# tune.py over the history trees' rankings (weights, ablation, cross-validation)
export PATH="$(dirname "$CAIRN"):$PATH"
python3 "$REPO_ROOT/bench/retrieval/tune.py" dump "$HIST" "$WORK/hist/dump" 2>/dev/null
python3 "$REPO_ROOT/bench/retrieval/tune.py" cv "$WORK/hist/dump" history | tail -1
# the cost at index time on a real history: grpc-go at its newest commit,
# cold, with and without history, interleaved
G="$WORK/hist/grpc-go"
GIT=$(awk '$1 == "grpc/grpc-go" {print $2}' "$CLONES_FILE")
[ -d "$G" ] || git clone -q --shared "$GIT" "$G"
echo "grpc-go: $(git -C "$G" rev-list --count HEAD) commits"
for r in 1 2; do for h in 0 5000; do
  rm -rf "$WORK/hist/gidx"
  /usr/bin/time -f "history=$h run $r: wall %e s, user %U s, sys %S s, peak RSS %M KB" \
    "$CAIRN" index -q --history "$h" --repo "$G" --index-dir "$WORK/hist/gidx" 2>&1 | tail -1
done; done
# the last index above has the history: opening it, and one query
(cd "$REPO_ROOT" && CAIRN_HISTORY_BENCH=$(ls "$WORK"/hist/gidx/epoch-*/history-*.gob | head -1) \
  go test -run XXX -bench . -benchmem ./retrieval/history/ | grep Benchmark)
