#!/usr/bin/env bash
# cairn eval on the localization dev set, beside the Python scorers (the
# reference) on the same trees and the same cairn answers, and the agent
# suite's full scripted set.
#   bash bench/eval/run.sh [TASKS_FILE]     # default ../shared/bench/localization/tasks_go.jsonl
# Needs the trees of prepare.sh: the grpc-go mirror (GRPC_GO_GIT, default
# the fetch tool's /work/.mirror/grpc+grpc-go/repo) serves the Go tasks;
# for the Python tasks give CLONES_FILE (prepare.sh's OWNER/NAME PATH lines).
source "$(dirname "$0")/../lib.sh"
LOC="$REPO_ROOT/../shared/bench/localization"
TASKS=${1:-$LOC/tasks_go.jsonl}
OUT="$WORK/eval"; TREES="$OUT/trees"; mkdir -p "$OUT"
CLONES=${CLONES_FILE:-$OUT/clones.txt}
[ -n "${CLONES_FILE:-}" ] || echo "grpc/grpc-go ${GRPC_GO_GIT:-/work/.mirror/grpc+grpc-go/repo}" > "$CLONES"
machine
build_cairn
TASKS="$TASKS" bash "$LOC/prepare.sh" "$TREES" "$CLONES" | tail -1
stamp=$(date -u +%Y%m%dT%H%MZ)
nice -n 10 "$CAIRN" eval localize -q --tasks "$TASKS" --repos-root "$TREES" --out "$OUT/localize-$stamp" >/dev/null
nice -n 10 python3 "$LOC/score.py" --quiet --tasks "$TASKS" --repos-root "$TREES" \
  --cmd "$CAIRN search --json --repo {repo_dir} --query-file {query_file} --limit {topk}" --out "$OUT/localize-$stamp/python.json" >/dev/null
nice -n 10 "$CAIRN" eval context -q --tasks "$TASKS" --repos-root "$TREES" --out "$OUT/context-$stamp" >/dev/null
nice -n 10 python3 "$LOC/score_context.py" --quiet --tasks "$TASKS" --repos-root "$TREES" \
  --cmd "$CAIRN context --json --repo {repo_dir} --query-file {query_file} --budget {budget}" --out "$OUT/context-$stamp/python.json" >/dev/null
# the two scorers, metric by metric and group by group (latency aside:
# two processes, two clocks)
python3 - "$OUT/localize-$stamp" "$OUT/context-$stamp" <<'PY'
import json, sys
loc, ctx = sys.argv[1], sys.argv[2]
bad = n = 0
def groups(d):
    return {g["group"]: g for g in json.load(open(d + "/summary.json"))["detail"]["groups"]}
def norm(name):  # score_context.py names repository groups repo:OWNER/NAME
    return name[5:] if name.startswith("repo:") else name
py = json.load(open(loc + "/python.json"))["summary"]
for name, g in sorted(groups(loc).items()):
    for k, v in sorted(g["metrics"].items()):
        if "latency" in k or "prep" in k: continue
        n += 1; p = py.get(name, {}).get(k)
        if p is None or abs(p - v) > 1e-6: bad += 1; print(f"localize {name} {k}: cairn eval {v}, score.py {p}")
py = {norm(k): v for k, v in json.load(open(ctx + "/python.json"))["summary"]["engine"].items()}
for g in json.load(open(ctx + "/summary.json"))["detail"]["groups"]:
    name, b = g["group"], str(g["budget"])
    for m, v in sorted(g["metrics"].items()):
        if "latency" in m: continue
        n += 1; p = py.get(norm(name), {}).get(b, {}).get(m)
        if p is None or abs(p - v) > 1e-6: bad += 1; print(f"context {name} @{b} {m}: cairn eval {v}, score_context.py {p}")
print(f"{n} metrics compared (every group), {bad} differ")
PY
cat "$OUT/localize-$stamp/report.md" "$OUT/context-$stamp/report.md" | head -80
# the agent suite's scripted set (oracle, test editor, done without tests,
# network and protected-path violator) through the real providers
(cd "$REPO_ROOT" && CAIRN_EVAL_AGENT_FULL=1 CAIRN_EVAL_REPORT_DIR="$OUT/agent-$stamp" nice -n 10 go test -count=1 -timeout 60m -run TestAgentSuiteScripted ./agent/eval/) | tail -2
echo "reports: $OUT/{localize,context,agent}-$stamp/report.html"
