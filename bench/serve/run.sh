#!/usr/bin/env bash
# MCP server load test on loopback: `cairn serve mcp --http` over the mono1m
# index, driven by 32 concurrent MCP clients (Go SDK, streamable HTTP) with a
# mixed search / callers / build_context (8k budget) workload for 60 s.
# Bounded: fixed client count, fixed duration, loopback only. The server runs
# as deployed, its embedded watcher included.
#   bench/serve/run.sh [CLIENTS] [DURATION] [THINK]     (defaults 32 60s 2s)
source "$(dirname "$0")/../lib.sh"
CLIENTS=${1:-32}; DURATION=${2:-60s}; THINK=${3:-2s}
PORT=${SERVE_PORT:-7040}
build_cairn
LOAD="$WORK/bin/cairn-load"
(cd "$REPO_ROOT" && go build -o "$LOAD" ./bench/serve/load)
mono1m
IDX="$MONO/.cairn"
[ -f "$IDX/CURRENT" ] || IDX=${SERVE_INDEX:-$WORK/serve/mono1m.idx}
# up to date with this cairn (incremental: about a second when it already is)
"$CAIRN" index -q --index-dir "$IDX" "$MONO"
machine
echo "corpus: mono1m $(cd "$MONO" && git rev-parse --short HEAD), index $IDX ($("$CAIRN" status --index-dir "$IDX" | sed -n 3p))"
# all tools: the load client asks repo_map, which the default lean profile leaves out
"$CAIRN" serve mcp --repo "$MONO" --index-dir "$IDX" --http "127.0.0.1:$PORT" --tools all 2>"$WORK/serve.log" &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q "serving MCP" "$WORK/serve.log" && break; sleep 0.1; done
grep "serving MCP" "$WORK/serve.log"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
flock /work/bench.lock "$LOAD" -url "http://127.0.0.1:$PORT/mcp" -clients "$CLIENTS" -duration "$DURATION" -think "$THINK" -budget 8000 -pid "$SERVER"
status=$?
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
kill "$SERVER"; wait "$SERVER" 2>/dev/null || true
exit $status
