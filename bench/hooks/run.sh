#!/usr/bin/env bash
# bench/hooks/run.sh: the latency of `cairn hook` as an agent client pays it,
# one process per call, on mono1m (1.66M lines, 8,927 files) indexed once into
# a scratch directory outside the repository. Baselines in the same harness:
# `true` (the cost of starting any process) and `cairn --version` (the cost
# of starting cairn). N calls each, p50/p95/max of wall time.
#   bench/hooks/run.sh [N]          (default N=200 for pre-tool, 10 for session-start)
source "$(dirname "$0")/../lib.sh"
N=${1:-200}
build_cairn
mono1m
SCRATCH="$WORK/hooks"
mkdir -p "$SCRATCH"
# a clone of its own: the hooks write their session state under .cairn/
if [ ! -d "$SCRATCH/mono1m/.git" ]; then
  git clone -q --local "$MONO" "$SCRATCH/mono1m"
fi
MONO="$SCRATCH/mono1m"
IDX="$SCRATCH/index"
if [ ! -d "$IDX" ]; then
  timed "index mono1m once (into $IDX)" "$CAIRN" index -q --repo "$MONO" --index-dir "$IDX"
fi
machine
echo "cairn: $("$CAIRN" --version)"
echo "corpus: $MONO ($(git -C "$MONO" ls-files | wc -l) files)"

python3 - "$CAIRN" "$MONO" "$IDX" "$N" <<'PY'
import json, subprocess, sys, time, statistics
cairn, mono, idx, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])

def call(name, argv, stdin=b"", runs=n, want=None):
    ts = []
    for i in range(runs):
        t = time.perf_counter()
        p = subprocess.run(argv, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        ts.append((time.perf_counter() - t) * 1000)
        if want is not None and want not in p.stdout.decode():
            sys.exit(f"{name}: unexpected answer: {p.stdout!r} {p.stderr!r}")
    ts.sort()
    p95 = ts[min(len(ts) - 1, int(round(0.95 * len(ts))) - 1)]
    print(f"{name:58s} n={runs:4d}  p50 {statistics.median(ts):7.1f} ms  p95 {p95:7.1f} ms  max {ts[-1]:7.1f} ms")

def tool(name, inp):
    return json.dumps({"session_id": "bench", "transcript_path": "/tmp/t.jsonl", "cwd": mono,
                       "hook_event_name": "PreToolUse", "tool_name": name, "tool_input": inp}).encode()

hook = [cairn, "hook", "pre-tool", "--client", "claude-code"]
call("baseline: true", ["true"])
call("baseline: cairn --version", [cairn, "--version"])
call("pre-tool Edit go/x-tools/go/ssa/ssa.go (allowed, silent)", hook,
     tool("Edit", {"file_path": f"{mono}/go/x-tools/go/ssa/ssa.go", "old_string": "a", "new_string": "b"}), want="")
call("pre-tool Write .github/workflows/ci.yml (denied)", hook,
     tool("Write", {"file_path": f"{mono}/.github/workflows/ci.yml", "content": "x"}), want='"deny"')
call("pre-tool Bash cd go && go test ./... 2>&1 | tail (silent)", hook,
     tool("Bash", {"command": "cd go/x-tools && go test ./go/ssa/... 2>&1 | tail -20"}), want="")
call("pre-tool Bash rm -rf python/django/tests/* (glob; denied)", hook,
     tool("Bash", {"command": "rm -rf python/django/tests/*"}), want='"deny"')
ss = [cairn, "hook", "session-start", "--index-dir", idx]
start = json.dumps({"session_id": "bench", "cwd": mono, "hook_event_name": "SessionStart", "source": "startup"}).encode()
call("session-start (incremental re-index of mono1m, brief)", ss, start, runs=max(3, n // 20), want="additionalContext")
PY
