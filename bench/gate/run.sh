#!/usr/bin/env bash
# The gate benchmark on grpc-go (Multi-SWE-bench, ../shared/bench/gate):
# every instance × variant through `cairn verify --diff BASE..VARIANT`,
# beside the plain `go test -run` of the instance's tests on the variant.
#   bench/gate/run.sh [--limit N] [--only ID,…] [--until HH:MM] [--variants a,b]
# Needs the repository fetched as a bare git dir (GRPC_GO_GIT, default the
# fetch tool's /work/.mirror/grpc+grpc-go/repo), bubblewrap and go.
source "$(dirname "$0")/../lib.sh"
GIT_DIR_GRPC=${GRPC_GO_GIT:-/work/.mirror/grpc+grpc-go/repo}
OUT="$WORK/gate"; mkdir -p "$OUT"
machine
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)  cairn $(git -C "$REPO_ROOT" rev-parse --short HEAD)$(git -C "$REPO_ROOT" diff --quiet || echo '+dirty')  started $(date -u +%H:%M)Z"
build_cairn
(cd "$REPO_ROOT" && go build -o "$WORK/bin/gate-bench" ./bench/gate)
nice -n 10 "$WORK/bin/gate-bench" --cairn "$CAIRN" --mirror "$GIT_DIR_GRPC" --work "$OUT" \
  --data "$REPO_ROOT/../shared/bench/gate/grpc-go.jsonl" "$@"
echo "finished $(date -u +%H:%M)Z, load: $(cut -d' ' -f1-3 /proc/loadavg)"
