#!/usr/bin/env bash
# The gate benchmark on grpc-go (Multi-SWE-bench, ../shared/bench/gate):
# `cairn eval gate` — every instance × variant through the verification
# gate, beside the plain `go test -run` of the instance's tests (--naive).
#   bench/gate/run.sh [--limit N] [--only ID,…] [--until HH:MM] [--variants a,b]
# Needs the repository fetched as a bare git dir (GRPC_GO_GIT, default the
# fetch tool's /work/.mirror/grpc+grpc-go/repo), bubblewrap and go. Writes
# $WORK/gate/runs/STAMP/{rows.jsonl,summary.json,report.html,report.md},
# compared with the previous run ($WORK/gate/last) when there is one.
source "$(dirname "$0")/../lib.sh"
GIT_DIR_GRPC=${GRPC_GO_GIT:-/work/.mirror/grpc+grpc-go/repo}
OUT="$WORK/gate"; ROOT="$OUT/repos-root"
mkdir -p "$ROOT/grpc" "$OUT/runs"
ln -sfn "$GIT_DIR_GRPC" "$ROOT/grpc/grpc-go"
machine
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)  cairn $(git -C "$REPO_ROOT" rev-parse --short HEAD)$(git -C "$REPO_ROOT" diff --quiet || echo '+dirty')  started $(date -u +%H:%M)Z"
build_cairn
RUN="$OUT/runs/$(date -u +%Y%m%dT%H%MZ)"
BASELINE=()
[ -f "$OUT/last/summary.json" ] && BASELINE=(--baseline "$(readlink -f "$OUT/last")")
nice -n 10 "$CAIRN" eval gate --tasks "$REPO_ROOT/../shared/bench/gate/grpc-go.jsonl" \
  --repos-root "$ROOT" --work "$OUT/work" --naive --out "$RUN" "${BASELINE[@]}" "$@"
ln -sfn "$RUN" "$OUT/last"
echo "finished $(date -u +%H:%M)Z, load: $(cut -d' ' -f1-3 /proc/loadavg); report: $RUN/report.html"
