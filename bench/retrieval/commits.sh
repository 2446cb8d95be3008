#!/usr/bin/env bash
# Localization and context on repositories the dev set does not hold: tasks
# made from the fix commits of their history (commit_tasks.py says how, and
# why a commit message is an easier query than an issue), scored by the dev
# set's own scorers with their baselines in the same run — cairn search
# against BM25 over whole files (tests skipped), cairn context against
# bm25-concat and cairn-concat (cairn search's own files whole) at 4k–32k.
#   CLONES_FILE=clones.txt [KIND=change] [SCAN=N] bench/retrieval/commits.sh [PER_REPO]
# CLONES_FILE lists "OWNER/NAME /path/to/git [LANG]" a line (mirrors brought
# by the search tool's fetch, or any clone; LANG go by default, or python);
# PER_REPO tasks each (default 15). KIND=change makes the tasks of commits
# that rename, deprecate, export or unexport a name (commit_tasks.py), from
# the newest SCAN first-parent commits (default 4000).
# COMMITS_WORK (default $WORK/commits) holds the tasks, trees and results.
source "$(dirname "$0")/../lib.sh"
build_cairn
export PATH="$(dirname "$CAIRN"):$PATH"
LOC="$REPO_ROOT/../shared/bench/localization"
: "${CLONES_FILE:?set CLONES_FILE to a file of OWNER/NAME PATH lines}"
PER=${1:-15}
CW=${COMMITS_WORK:-$WORK/commits}
TREES="$CW/trees"; OUT="$CW/out"; mkdir -p "$TREES" "$OUT"
TASKS="$CW/tasks.jsonl"
machine
: > "$TASKS"
while read -r repo dir lang; do
  [ -n "$repo" ] || continue
  python3 "$BENCH_ROOT/retrieval/commit_tasks.py" "$dir" "$repo" --max "$PER" \
    --lang "${lang:-go}" --kind "${KIND:-fix}" --scan "${SCAN:-4000}" >> "$TASKS"
done < "$CLONES_FILE"
echo "tasks: $(wc -l < "$TASKS") ($TASKS)"
TASKS="$TASKS" bash "$LOC/prepare.sh" "$TREES" "$CLONES_FILE" 2>&1 | { grep -E "^trees:|absent" || true; }

python3 "$LOC/score.py" --tasks "$TASKS" --repos-root "$TREES" \
  --prep-cmd "cairn index -q {repo_dir}" \
  --cmd "cairn search --json --repo {repo_dir} --query-file {query_file} --limit 20" \
  --out "$OUT/fused.json" > "$OUT/fused.txt" 2>&1
echo "== cairn search"; grep -E "^(group|ALL|repo:)" "$OUT/fused.txt"
python3 "$LOC/score.py" --tasks "$TASKS" --repos-root "$TREES" \
  --cmd "python3 $LOC/baseline_bm25.py --repo {repo_dir} --query-file {query_file} --limit {topk} --symbols --skip-tests" \
  --out "$OUT/bm25.json" > "$OUT/bm25.txt" 2>&1
echo "== baseline bm25 (skip tests)"; grep -E "^(group|ALL|repo:)" "$OUT/bm25.txt"

python3 "$LOC/score_context.py" --tasks "$TASKS" --repos-root "$TREES" \
  --cmd "cairn context --json --repo {repo_dir} --query-file {query_file} --budget {budget}" \
  --budgets 4000,8000,16000,32000 --baseline bm25-concat --markdown \
  --out "$OUT/context.json" > "$OUT/context.md" 2>&1
echo "== cairn context, bm25-concat"; grep -E "^\| (engine|bm25|group|ALL)" "$OUT/context.md" | head -8
python3 "$LOC/score_context.py" --tasks "$TASKS" --repos-root "$TREES" \
  --cmd "python3 $BENCH_ROOT/context/concat.py $CAIRN {repo_dir} {query_file} {budget}" \
  --budgets 4000,8000,16000,32000 --markdown \
  --out "$OUT/context-concat.json" > "$OUT/context-concat.md" 2>&1
echo "== cairn-concat (cairn search's files, whole, concatenated)"
grep "^| engine" "$OUT/context-concat.md" | sed 's/^| engine /| cairn-concat /'
