#!/usr/bin/env bash
# Changes a query names ("Fixes regression from #6560", a commit hash) on
# trees with history: tasks of commits whose message names an earlier
# change (commit_tasks.py --kind refs), each tree a clone at the commit's
# parent with the history before it (HISTORY=1 prepare.sh); cairn at HEAD
# against a revision without named changes (BASE, default 613b24d) in the
# same run. Both read the same facts, text index and vectors: the
# baseline's index directory is a copy of HEAD's whose history index its
# own binary rebuilds (no cited numbers, no merges), outside the tree.
#   CLONES_FILE=clones.txt [BASE=rev] bench/retrieval/refs.sh [PER_REPO]
# CLONES_FILE lists "OWNER/NAME /path/to/git [LANG]" a line (as
# commits.sh); PER_REPO tasks each (default 6), from the newest 6000
# first-parent commits. REFS_WORK (default $WORK/refs) holds the tasks,
# trees, indexes and results.
source "$(dirname "$0")/../lib.sh"
build_cairn
LOC="$REPO_ROOT/../shared/bench/localization"
: "${CLONES_FILE:?set CLONES_FILE to a file of OWNER/NAME PATH lines}"
PER=${1:-6}
BASE=${BASE:-613b24d}
RW=${REFS_WORK:-$WORK/refs}
TREES="$RW/trees"; OUT="$RW/out"; BASEIDX="$RW/base-idx"; mkdir -p "$TREES" "$OUT" "$BASEIDX"
TASKS="$RW/tasks.jsonl"
machine

# the baseline binary, built from a temporary worktree of BASE
BASEBIN="$WORK/bin/cairn-base"
SRC="$RW/base-src"
rm -rf "$SRC"; git -C "$REPO_ROOT" worktree add -q --detach "$SRC" "$BASE"
(cd "$SRC" && go build -o "$BASEBIN" ./cmd/cairn)
git -C "$REPO_ROOT" worktree remove --force "$SRC"
echo "head $(git -C "$REPO_ROOT" rev-parse --short HEAD), base $BASE"

: > "$TASKS"
while read -r repo dir lang; do
  [ -n "$repo" ] || continue
  python3 "$BENCH_ROOT/retrieval/commit_tasks.py" "$dir" "$repo" --max "$PER" \
    --lang "${lang:-go}" --kind refs --scan 6000 >> "$TASKS"
done < "$CLONES_FILE"
echo "tasks: $(wc -l < "$TASKS") ($TASKS)"
TASKS="$TASKS" HISTORY=1 bash "$LOC/prepare.sh" "$TREES" "$CLONES_FILE" 2>&1 | { grep -E "^trees:|absent" || true; }

(cd "$TREES" && for d in */*@*; do
  case "$d" in *.ready|*.missing) continue;; esac
  "$CAIRN" index -q "$d" || { echo "index failed: $d" >&2; continue; }
  b="$BASEIDX/$(basename "$d")"
  if [ ! -d "$b" ]; then
    cp -a "$d/.cairn" "$b" && rm -f "$b"/epoch-*/history-*
    "$BASEBIN" index -q --index-dir "$b" "$d" || echo "baseline index failed: $d" >&2
  fi
done)

score() { # NAME BIN INDEX-DIR-OPTION
  python3 "$LOC/score.py" --tasks "$TASKS" --repos-root "$TREES" \
    --cmd "$2 search --json --repo {repo_dir} $3 --query-file {query_file} --limit 20" \
    --out "$OUT/$1.json" > "$OUT/$1.txt" 2>&1
  echo "== $1"; grep -E "^(group|ALL|lang:)" "$OUT/$1.txt"
}
score base "$BASEBIN" "--index-dir $BASEIDX/\$(basename {repo_dir})"
score head "$CAIRN" ""
# the tasks whose ranking differs, and how many name a change the history holds
python3 - "$OUT/base.json" "$OUT/head.json" <<'EOF'
import json, sys
a = {r["id"]: r for r in json.load(open(sys.argv[1]))["tasks"]}
b = {r["id"]: r for r in json.load(open(sys.argv[2]))["tasks"]}
moved = [i for i in a if a[i]["top_files"][:10] != b[i]["top_files"][:10]]
print(f"{len(moved)} of {len(a)} tasks rank their first ten files differently")
for i in moved:
    print(f"  {i}: first gold file {a[i]['first_gold_rank']} -> {b[i]['first_gold_rank']}, "
          f"Acc@5 {a[i]['acc@5']:.0f} -> {b[i]['acc@5']:.0f}")
EOF
