#!/usr/bin/env bash
# Watcher benchmark on mono1m (1.66M lines): save → queryable while
# `cairn watch` runs, against the one-shot baseline (save, `cairn index`,
# query) in the same run, with the same edits:
#   - single-file edits of N random source files (Go, Python, Java,
#     TypeScript): a new definition found by def, a changed body found by
#     search (BM25), the definition removed and gone from def;
#   - a checkout of a branch that changes 1,000 files, and back;
#   - the watcher's idle CPU and memory.
#   bench/watch/run.sh [N]      (N single-file edits, default 40)
# Runs under flock /work/bench.lock so benchmarks do not overlap.
if [ -z "${BENCH_LOCKED:-}" ] && [ -e /work/bench.lock ]; then
  exec env BENCH_LOCKED=1 flock /work/bench.lock "$0" "$@"
fi
source "$(dirname "$0")/../lib.sh"
N=${1:-40}
build_cairn
W="$WORK/watch"; mkdir -p "$W"
LAT="$W/latency"
(cd "$REPO_ROOT" && go build -o "$LAT" ./bench/watch/latency)

# A private clone of mono1m: the benchmark edits it.
SRC="$REPO_ROOT/../corpora/mono1m"
if [ ! -d "$SRC/.git" ]; then mono1m; SRC=$MONO; fi
REPO="$W/mono1m"
[ -d "$REPO/.git" ] || git clone -q "$SRC" "$REPO"
git -C "$REPO" checkout -q -f main
git -C "$REPO" clean -fdq
IDX="$W/mono1m.idx"
rm -f "$IDX/watch.json"
machine
echo "corpus: mono1m $(git -C "$REPO" rev-parse --short HEAD) ($(git -C "$REPO" ls-files | wc -l) files), load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ ! -f "$IDX/CURRENT" ]; then
  timed "cairn index (cold, once)" "$CAIRN" index -q --index-dir "$IDX" "$REPO"
fi
"$CAIRN" index -q --index-dir "$IDX" "$REPO"
if ! git -C "$REPO" rev-parse -q --verify bench-1000 >/dev/null; then
  "$LAT" -make-branch bench-1000 -files 1000 -repo "$REPO" -index "$IDX"
fi

echo "== baseline: save, then cairn index and the query as one-shot processes"
"$LAT" -mode oneshot -cairn "$CAIRN" -repo "$REPO" -index "$IDX" -n "$N" -branch bench-1000 -out "$W/oneshot.json"
echo "== cairn watch: save → queryable"
"$LAT" -mode watch -cairn "$CAIRN" -repo "$REPO" -index "$IDX" -n "$N" -branch bench-1000 -idle 60s -out "$W/watch.json"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

# The shared store, when the PostgreSQL server of make deps runs: each batch
# is a build of the next generation restricted to the change set. Measured
# with one-shot `cairn def --store` polls (each poll is a process: the
# figures are upper bounds, about 0.2 s coarser than the embedded ones).
PGURL=${CAIRN_BENCH_PG:-postgres://cairn:cairn@127.0.0.1:5432/cairn_watch?sslmode=disable}
ADMIN=${PGURL%/*}/postgres?sslmode=disable
DBNAME=${PGURL##*/}; DBNAME=${DBNAME%%\?*}
if psql -qAtX "$ADMIN" -c "SELECT 1" >/dev/null 2>&1; then
  echo "== cairn watch on PostgreSQL ($(psql -qAtX "$ADMIN" -c "SELECT version()" | cut -d, -f1)): save → found by cairn def --store"
  psql -qAtX "$ADMIN" -c "DROP DATABASE IF EXISTS $DBNAME WITH (FORCE)" -c "CREATE DATABASE $DBNAME" >/dev/null
  "$CAIRN" migrate --store "$PGURL" >/dev/null
  git -C "$REPO" checkout -q -f main
  export XDG_CACHE_HOME="$W/pgcache"
  PGSTATE="$W/pg-state"; rm -rf "$PGSTATE"
  timed "cairn index --store (cold, once)" "$CAIRN" index -q --store "$PGURL" --repo "$REPO"
  "$CAIRN" watch -q --store "$PGURL" --repo "$REPO" --index-dir "$PGSTATE" > "$W/watch-pg.log" 2>&1 &
  WPID=$!
  until "$CAIRN" status --store "$PGURL" --repo "$REPO" --index-dir "$PGSTATE" 2>/dev/null | grep -q 'watcher: watching'; do sleep 0.2; done
  : > "$W/pg-lat.txt"
  for f in $(git -C "$REPO" ls-files 'go/prometheus/*.go' | grep -v _test | awk 'NR % 37 == 0' | head -"$(( (N + 1) / 2 ))"); do
    cp "$REPO/$f" "$W/pg-orig.go"
    name="CairnPG$RANDOM$RANDOM"
    s=$(date +%s%N); printf '\nfunc %s() int { return 1 }\n' "$name" >> "$REPO/$f"
    until CAIRN_WORKTREE_CHECK=0 "$CAIRN" def -q --store "$PGURL" --repo "$REPO" "$name" >/dev/null 2>&1; do :; done
    e=$(date +%s%N); echo "$(( (e - s) / 1000 ))" | awk '{printf "%.1f\n", $1/1000}' >> "$W/pg-lat.txt"
    cp "$W/pg-orig.go" "$REPO/$f"; touch "$REPO/$f"
    sleep 1
  done
  echo -n "add→def (one-shot polls): "; percentiles "$W/pg-lat.txt"
  for rev in bench-1000 main; do
    s=$(date +%s%N); git -C "$REPO" checkout -q "$rev"; head=$(git -C "$REPO" rev-parse HEAD)
    until CAIRN_WORKTREE_CHECK=0 "$CAIRN" status --json --store "$PGURL" --repo "$REPO" --index-dir "$PGSTATE" 2>/dev/null | python3 -c "
import json,sys; d=json.load(sys.stdin); i=d['index']; sys.exit(0 if i.get('revision')=='$head' and not i.get('dirty') else 1)"; do sleep 0.2; done
    e=$(date +%s%N); echo "checkout $rev (1000 files changed): reflected $(( (e - s) / 1000000 )) ms after the checkout began"
  done
  sleep 20
  echo "idle RSS of the watcher: $(awk '/VmRSS/{print int($2/1024)" MB"}' /proc/$WPID/status) (peak $(awk '/VmHWM/{print int($2/1024)" MB"}' /proc/$WPID/status))"
  kill -INT $WPID; wait $WPID || true
  echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
else
  echo "== (no PostgreSQL at $ADMIN: the shared-store watcher is not measured; run make deps)"
fi
