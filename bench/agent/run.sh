#!/usr/bin/env bash
# The agent harness's own costs, the model excluded:
#   - per step: policy, events (fsync), tool dispatch, sandbox snapshot and
#     checkpoint for a step whose tool does almost nothing (note), measured
#     as a whole run's wall time minus the time spent inside the model
#     calls, which go through the real Anthropic SDK client to the scripted
#     model server on loopback (reported beside it: the baseline a step
#     cannot go below with any model);
#   - a run's setup (worktree, index of the fixture, brief) before its first
#     model call;
#   - resume after kill -9: from loop.Resume to the first model call.
# Corpus: testdata/apps/artifact-dropped (a 13-file Go and TypeScript app).
#   bash bench/agent/run.sh [COUNT]
source "$(dirname "$0")/../lib.sh"
count=${1:-5}
machine
cd "$REPO_ROOT"
go test -run '^$' -bench 'BenchmarkHarnessStep|BenchmarkResume' -benchtime "${count}x" -count 1 ./agent/loop/ | grep -E '^(Benchmark|ok|FAIL)'
