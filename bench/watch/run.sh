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

# The same on the shared store, when the PostgreSQL server of make deps runs:
# each batch is a build of the next generation restricted to the change set.
PGURL=${CAIRN_BENCH_PG:-postgres://cairn:cairn@127.0.0.1:5432/cairn_watch?sslmode=disable}
ADMIN=${PGURL%/*}/postgres?sslmode=disable
DBNAME=${PGURL##*/}; DBNAME=${DBNAME%%\?*}
if psql -qAtX "$ADMIN" -c "SELECT 1" >/dev/null 2>&1; then
  echo "== cairn watch on PostgreSQL ($(psql -qAtX "$ADMIN" -c "SELECT version()" | cut -d, -f1)): save → queryable"
  psql -qAtX "$ADMIN" -c "DROP DATABASE IF EXISTS $DBNAME WITH (FORCE)" -c "CREATE DATABASE $DBNAME" >/dev/null
  "$CAIRN" migrate --store "$PGURL" >/dev/null
  git -C "$REPO" checkout -q -f main
  export XDG_CACHE_HOME="$W/pgcache"
  timed "cairn index --store (cold, once)" "$CAIRN" index -q --store "$PGURL" --repo "$REPO"
  "$LAT" -mode watch -store "$PGURL" -cairn "$CAIRN" -repo "$REPO" -index "$W/pg-state" -n "$(( (N + 1) / 2 ))" -branch bench-1000 -idle 20s -out "$W/watch-pg.json"
  echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
else
  echo "== (no PostgreSQL at $ADMIN: the shared-store watcher is not measured; run make deps)"
fi
