#!/usr/bin/env bash
# PostgreSQL store benchmark on mono1m, with the embedded store as the
# baseline in the same run:
#   1. cold index: embedded vs PostgreSQL (one process, default settings);
#   2. one worker vs two workers on the same build (each --workers 1, the
#      build split into 8 jobs: `cairn index` plus `cairn worker`);
#   3. HNSW recall@10 against exact search, on the repository's own chunk
#      embeddings as queries, with latency;
#   4. `callers --depth 3` and `search` under 16 concurrent clients,
#      PostgreSQL vs embedded;
#   5. parity: what each store holds after the cold index.
#
#   bench/postgres/run.sh            (results on stdout; copy them to RESULTS.md)
#   bench/postgres/run.sh --load     (steps 3 and 4 only, on the database and
#                                     embedded index a full run left)
#
# Needs the PostgreSQL server of .ci/postgres.sh (`make deps`); the database
# CAIRN_BENCH_PG (default cairn_bench on it) is dropped and re-created.
# Every timed step holds /work/bench.lock (flock), so that benchmarks of
# different engineers do not overlap.
source "$(dirname "$0")/../lib.sh"
PGURL=${CAIRN_BENCH_PG:-postgres://cairn:cairn@127.0.0.1:5432/cairn_bench?sslmode=disable}
ADMIN=${PGURL%/*}/postgres?sslmode=disable
DBNAME=${PGURL##*/}; DBNAME=${DBNAME%%\?*}
LOCK=/work/bench.lock
exec 9>>"$LOCK"
lock() { flock 9; }     # held by this shell (and what it runs) until unlock
unlock() { flock -u 9; }
locked() { lock; "$@"; local rc=$?; unlock; return $rc; }

build_cairn
(cd "$REPO_ROOT" && go build -o "$WORK/bin/pgload" ./bench/postgres/load)
LOAD="$WORK/bin/pgload"
if [ -n "${MONO:-}" ]; then :; elif [ -f /work/corpora/mono1m/MANIFEST.txt ]; then MONO=/work/corpora/mono1m; else mono1m; fi
export XDG_CACHE_HOME="$WORK/pgcache"   # the side-index cache of the readers
machine
echo "corpus: mono1m at $MONO, $(cd "$MONO" && git rev-parse HEAD 2>/dev/null) ($(cd "$MONO" && git ls-files | wc -l) files)"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (machine shared with other engineers)"
psql -qAtX "$ADMIN" -c "SELECT 1" >/dev/null || { echo "no PostgreSQL at $ADMIN: run make deps"; exit 1; }
echo "postgres: $(psql -qAtX "$ADMIN" -c "SELECT version()" | cut -d, -f1), pgvector $(psql -qAtX "$ADMIN" -c "SELECT default_version FROM pg_available_extensions WHERE name = 'vector'")"
echo "postgres settings: $(psql -qAtX "$ADMIN" -c "SELECT string_agg(name || '=' || current_setting(name), ' ' ORDER BY name) FROM pg_settings WHERE name IN ('shared_buffers', 'work_mem', 'maintenance_work_mem', 'max_wal_size', 'synchronous_commit', 'fsync', 'max_parallel_maintenance_workers', 'max_parallel_workers_per_gather', 'effective_cache_size', 'max_connections')")"
echo "hnsw index: m=16 ef_construction=64 (cosine); searches: ef_search=100, iterative scans (relaxed order)"

fresh_db() {
  psql -qAtX "$ADMIN" -c "DROP DATABASE IF EXISTS $DBNAME WITH (FORCE)" -c "CREATE DATABASE $DBNAME" >/dev/null
  "$CAIRN" migrate --store "$PGURL" >/dev/null
  rm -rf "$XDG_CACHE_HOME"
}
secs() { # LABEL CMD...: wall seconds of one command
  local label=$1; shift
  local s e; s=$(date +%s.%N)
  "$@" >/dev/null 2>"$WORK/pg.err" || { echo "$label: FAILED: $(tail -3 "$WORK/pg.err")"; return 1; }
  e=$(date +%s.%N)
  python3 -c "print(f'{$e - $s:.1f}')"
}

if [ "${1:-}" != "--load" ]; then
echo "== 1. cold index (wall s)"
rm -rf "$WORK/mono1m.emb"
lock; EMB=$(secs emb "$CAIRN" index -q --index-dir "$WORK/mono1m.emb" "$MONO"); unlock
echo "embedded (baseline): ${EMB}s"
fresh_db
lock; PGS=$(secs pg "$CAIRN" index -q --store "$PGURL" --repo "$MONO"); unlock
echo "postgres: ${PGS}s  ($(python3 -c "print(f'{$PGS / $EMB:.2f}')")x the embedded store; target <= 2x)"
"$CAIRN" status --store "$PGURL" --repo "$MONO" | sed -n '3,4p'
psql -qAtX "$PGURL" -c "SELECT 'database size ' || pg_size_pretty(pg_database_size(current_database()))"

echo "== 5. parity after the cold index (embedded | postgres)"
python3 - "$CAIRN" "$WORK/mono1m.emb" "$PGURL" "$MONO" <<'PY'
import json, os, subprocess, sys
cairn, emb, pg, mono = sys.argv[1:]
def st(args):
    env = dict(os.environ, CAIRN_WORKTREE_CHECK="0")
    out = subprocess.run([cairn, "status", "--json", "--repo", mono] + args, capture_output=True, text=True, env=env).stdout
    d = json.loads(out)
    return {k: d[k] for k in ("files", "symbols", "chunks", "status", "languages", "skipped")}
a, b = st(["--index-dir", emb]), st(["--store", pg])
for k in a:
    print(f"{k}: {'same' if a[k] == b[k] else 'DIFFERENT'}: {a[k] if a[k] == b[k] else (a[k], b[k])}")
PY
EMBDB=$(ls -d "$WORK"/mono1m.emb/epoch-*)/index.db
echo "edges: $(sqlite3 "$EMBDB" 'SELECT count(*) FROM edges') | $(psql -qAtX "$PGURL" -c "SELECT (SELECT count(*) FROM edges e JOIN gen_files g ON g.res_id = e.res_id AND g.gen_id = r.current_gen) + (SELECT count(*) FROM gen_edges WHERE gen_id = r.current_gen) FROM repositories r")"

echo "== 2. one worker vs two workers (each --workers 1, build split into 8 jobs)"
fresh_db
lock; ONE=$(secs one "$CAIRN" index -q --workers 1 --jobs 8 --store "$PGURL" --repo "$MONO"); unlock
echo "one worker: ${ONE}s"
fresh_db
two() {
  "$CAIRN" index --workers 1 --jobs 8 --store "$PGURL" --repo "$MONO" --json > "$WORK/two-a.json" 2>/dev/null &
  local a=$!
  sleep 1
  "$CAIRN" worker --workers 1 --wait 60s --store "$PGURL" --repo "$MONO" --json > "$WORK/two-b.json" 2>/dev/null
  wait $a
}
lock; TWO=$(secs two two); unlock
echo "two workers: ${TWO}s  ($(python3 -c "print(f'{$ONE / $TWO:.2f}')")x faster than one)"
python3 - "$WORK/two-a.json" "$WORK/two-b.json" <<'PY'
import json, sys
for name, f in zip(("cairn index", "cairn worker"), sys.argv[1:]):
    d = json.load(open(f))
    print(f"  {name}: {d['jobs_done']} of {d['jobs']} jobs, finalized: {d['finalized']}")
PY

fi

# The builds' aftermath (autovacuum of the new rows, the checkpoint of
# their WAL) is not query latency: the database settles first.
psql -qAtX "$PGURL" -c "CHECKPOINT" -c "VACUUM ANALYZE" >/dev/null
echo "== 3. HNSW recall@10 vs exact search (200 stored chunk vectors as queries)"
locked "$LOAD" -store "$PGURL" -repo "$MONO" -mode recall -n 200

echo "== 4. 16 concurrent clients, 400 requests each kind (postgres | embedded baseline)"
# search three times, alternating stores: other tenants' load moves single
# runs by a quarter
for m in callers search search search; do
  echo -n "postgres  "; locked "$LOAD" -store "$PGURL" -repo "$MONO" -mode $m -clients 16 -n 400 | tail -1
  echo -n "embedded  "; locked "$LOAD" -index "$WORK/mono1m.emb" -mode $m -clients 16 -n 400 | tail -1
  echo "  (load average $(cut -d' ' -f1-3 /proc/loadavg))"
done
echo -n "postgres, vectors through HNSW (CAIRN_PG_ANN=1)  "; CAIRN_PG_ANN=1 locked "$LOAD" -store "$PGURL" -repo "$MONO" -mode search -clients 16 -n 400 | tail -1
for m in callers search; do
  echo -n "postgres, 1 client  "; locked "$LOAD" -store "$PGURL" -repo "$MONO" -mode $m -clients 1 -n 100 | tail -1
  echo -n "embedded, 1 client  "; locked "$LOAD" -index "$WORK/mono1m.emb" -mode $m -clients 1 -n 100 | tail -1
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
