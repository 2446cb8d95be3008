#!/usr/bin/env bash
# Issue 53: cairn on the Linux kernel (Debian's linux-source-6.1, ~75k
# files, ~31.6M lines of C). A cold index under /usr/bin/time -v (wall,
# CPU, peak RSS; with CAIRN_MEMPROFILE its phase-by-phase memory and heap
# profiles), then the one-shot question set with p50s. The baseline is
# mono1m's cold index in the same script: its CPU and wall per line of
# code, so the kernel's are quoted as ratios of it.
#   bench/scale/run.sh [--cold|--latency|--watch]
#     --cold:    the cold index (and the baseline) only
#     --latency: the question set, then the watch measurements (needs the
#                kernel's index)
#     --watch:   the watch measurements only: `cairn watch` on the tree,
#                WATCH_EDITS single-file edits (20) save → queryable, and a
#                checkout of a branch changing BRANCH_FILES files (3,000)
#                and back, one question asked right after each checkout
#                (it must say the index is behind); bench/watch/latency
#     --postgres: the PostgreSQL store (make deps starts it): a cold build
#                by two workers (`cairn index --jobs 16 --workers 1` and
#                `cairn worker --workers 1`), each under time -v, the
#                database's size, then the question set with --store
#                (CAIRN_BENCH_PG names the database, dropped and made anew;
#                PG_BUILD=0 keeps the database an earlier --postgres run
#                built and runs the question set only)
# SUBSET=kernel,mm,fs/ext4,include/linux indexes only those directories
# (a repository of their own, cached in $WORK) for fast iteration.
# BASELINE=0 leaves out mono1m (its numbers from an earlier run are
# then not printed). CPUPROFILE=FILE writes the kernel's cold index's CPU
# profile there. MEMPROFILE=DIR keeps the index run's memory profile
# (cmd/cairn/memprofile.go) in DIR. ONESHOT_RUNS: runs per question (10).
# The index is written under $WORK (bench/lib.sh), never into the corpus.
# Run it nice'd on a shared machine.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/corpus.sh"
build_cairn
machine
MODE=${1:-}
if [ -n "${SUBSET:-}" ]; then kernel_subset "$SUBSET"; LABEL="linux-6.1 subset $SUBSET"; else kernel_corpus; LABEL="linux-6.1"; fi
IDX="$WORK/$(basename "$KERNEL").idx"
lines_of() { (cd "$1" && git ls-files -z | xargs -0 cat 2>/dev/null | wc -l); }
echo "corpus: $LABEL ($(cd "$KERNEL" && git ls-files | wc -l) files, $(lines_of "$KERNEL") lines)"

# cold LABEL DIR REPO: cold index of REPO into DIR under time -v; prints
# wall, CPU, peak RSS and CPU/wall per million lines; sets COLD_CPU etc.
cold() {
  local label=$1 dir=$2 repo=$3
  rm -rf "$dir"
  local t="$WORK/scale-time.txt"
  local env=()
  [ -n "${MEMPROFILE:-}" ] && [ "$label" != mono1m ] && { rm -rf "$MEMPROFILE"; env=(env "CAIRN_MEMPROFILE=$MEMPROFILE"); }
  [ -n "${CPUPROFILE:-}" ] && [ "$label" != mono1m ] && env=(env "${env[@]:1}" "CAIRN_CPUPROFILE=$CPUPROFILE")
  if ! /usr/bin/time -v -o "$t" "${env[@]}" "$CAIRN" index -q --index-dir "$dir" "$repo" >/dev/null 2>"$WORK/scale-index.err"; then
    echo "$label: cold index FAILED: $(tail -3 "$WORK/scale-index.err")"; return 1
  fi
  python3 - "$t" "$label" "$(lines_of "$repo")" "$(cut -d' ' -f1-3 /proc/loadavg)" <<'PY'
import sys, re
t = open(sys.argv[1]).read()
def g(k): return re.search(re.escape(k) + r": (.*)", t).group(1).strip()
def secs(s):
    p = [float(x) for x in s.split(":")]
    return sum(v * 60 ** i for i, v in enumerate(reversed(p)))
wall, cpu = secs(g("Elapsed (wall clock) time (h:mm:ss or m:ss)")), float(g("User time (seconds)")) + float(g("System time (seconds)"))
rss, lines = int(g("Maximum resident set size (kbytes)")) / 1024, int(sys.argv[3])
print(f"{sys.argv[2]}: cold index {wall:.1f} s wall, {cpu:.1f} s CPU, {rss:.0f} MB peak RSS; "
      f"{lines:,} lines: {cpu / lines * 1e6:.2f} s CPU and {wall / lines * 1e6:.2f} s wall per M lines (load {sys.argv[4]})")
open(sys.argv[1] + "." + sys.argv[2].split()[0], "w").write(f"{wall} {cpu} {rss} {lines}\n")
PY
}

# The question set's commands take STORE_ARGS instead of the index dir
# when --postgres set them.
STORE_ARGS=""
if [ "$MODE" = "--postgres" ]; then
  PGURL=${CAIRN_BENCH_PG:-postgres://cairn:cairn@127.0.0.1:5432/cairn_scale?sslmode=disable}
  ADMIN=${PGURL%/*}/postgres?sslmode=disable
  DBNAME=${PGURL##*/}; DBNAME=${DBNAME%%\?*}
  psql -qAtX "$ADMIN" -c "SELECT 1" >/dev/null || { echo "no PostgreSQL at $ADMIN: run make deps"; exit 1; }
  echo "postgres: $(psql -qAtX "$ADMIN" -c "SELECT version()" | cut -d, -f1); $(psql -qAtX "$ADMIN" -c "SELECT string_agg(name || '=' || current_setting(name), ' ' ORDER BY name) FROM pg_settings WHERE name IN ('shared_buffers', 'work_mem', 'maintenance_work_mem', 'max_wal_size')")"
  if [ "${PG_BUILD:-1}" = 0 ]; then
    echo "== PostgreSQL: the database of an earlier build, $(psql -qAtX "$PGURL" -c "SELECT pg_size_pretty(pg_database_size(current_database()))")"
  else
  psql -qAtX "$ADMIN" -c "DROP DATABASE IF EXISTS $DBNAME WITH (FORCE)" -c "CREATE DATABASE $DBNAME" >/dev/null
  export XDG_CACHE_HOME="$WORK/scale-pgcache"; rm -rf "$XDG_CACHE_HOME"
  "$CAIRN" migrate --store "$PGURL" >/dev/null
  echo "== PostgreSQL cold build, two workers (load $(cut -d' ' -f1-3 /proc/loadavg))"
  s=$(date +%s)
  /usr/bin/time -v -o "$WORK/scale-pg-a.txt" "$CAIRN" index -q --workers 1 --jobs 16 --store "$PGURL" --repo "$KERNEL" > "$WORK/scale-pg-a.out" 2>&1 &
  a=$!
  sleep 2
  /usr/bin/time -v -o "$WORK/scale-pg-b.txt" "$CAIRN" worker -q --workers 1 --wait 120s --store "$PGURL" --repo "$KERNEL" > "$WORK/scale-pg-b.out" 2>&1 || echo "worker failed: $(tail -3 "$WORK/scale-pg-b.out")"
  wait $a || { echo "cairn index --store FAILED: $(tail -3 "$WORK/scale-pg-a.out")"; exit 1; }
  e=$(date +%s)
  for w in a b; do
    python3 - "$WORK/scale-pg-$w.txt" "$w" <<'PY'
import sys, re
t = open(sys.argv[1]).read()
def g(k): return re.search(re.escape(k) + r": (.*)", t).group(1).strip()
cpu = float(g("User time (seconds)")) + float(g("System time (seconds)"))
print(f"  {'cairn index' if sys.argv[2] == 'a' else 'cairn worker'}: {cpu:.1f} s CPU, {int(g('Maximum resident set size (kbytes)')) / 1024:.0f} MB peak RSS")
PY
  done
  echo "cold build: $((e - s)) s wall; database $(psql -qAtX "$PGURL" -c "SELECT pg_size_pretty(pg_database_size(current_database()))"); load $(cut -d' ' -f1-3 /proc/loadavg)"
  fi
  "$CAIRN" status --store "$PGURL" --repo "$KERNEL" | sed -n '3,6p'
  STORE_ARGS="--store \"$PGURL\""
fi

if [ -z "$MODE" ] || [ "$MODE" = "--cold" ]; then
  echo "== cold index (load average $(cut -d' ' -f1-3 /proc/loadavg))"
  if [ "${BASELINE:-1}" != 0 ]; then
    mono1m
    cold mono1m "$WORK/mono1m-scale.idx" "$MONO"
    rm -rf "$WORK/mono1m-scale.idx"
  fi
  cold kernel "$IDX" "$KERNEL"
  [ -n "${MEMPROFILE:-}" ] && { echo "phases ($MEMPROFILE/phases.tsv):"; column -t "$MEMPROFILE/phases.tsv"; }
  if [ -f "$WORK/scale-time.txt.mono1m" ]; then
    python3 - "$WORK/scale-time.txt.mono1m" "$WORK/scale-time.txt.kernel" <<'PY'
import sys
m = list(map(float, open(sys.argv[1]).read().split())); k = list(map(float, open(sys.argv[2]).read().split()))
cpu = (k[1] / k[3]) / (m[1] / m[3]); wall = (k[0] / k[3]) / (m[0] / m[3])
print(f"kernel / mono1m per line: CPU {cpu:.2f}x (target <= 1.5x), wall {wall:.2f}x; peak RSS {k[2]:.0f} MB against {m[2]:.0f} MB (target <= 4096 MB)")
PY
  fi
  "$CAIRN" status --index-dir "$IDX" --repo "$KERNEL" | sed -n '3,6p'
  [ "$MODE" = "--cold" ] && exit 0
fi

if [ "$MODE" != "--watch" ]; then
# The question set: one-shot commands, process start to output, the
# questions interleaved run by run; each runs once untimed first.
N=${ONESHOT_RUNS:-10}
labels=() cmds=()
add() { labels+=("$1"); cmds+=("$2"); }
# Q_TIMEOUT bounds one answer (600 s); a question past it counts as failed.
C="timeout ${Q_TIMEOUT:-600} \"$CAIRN\""; I="--index-dir \"$IDX\" --repo \"$KERNEL\""
[ -n "$STORE_ARGS" ] && I="$STORE_ARGS --repo \"$KERNEL\""
add "def task_struct"                    "$C def $I task_struct"
add "def kmalloc"                        "$C def $I kmalloc"
add "refs wake_up_process"               "$C refs $I wake_up_process"
add "callers --depth 2 wake_up_process"  "$C callers $I --all --depth 2 wake_up_process"
add "search 'scheduler pick next task'"  "$C search $I 'scheduler pick next task'"
add "search mutex_lock"                  "$C search $I mutex_lock"
add "context --budget 16000"             "$C context $I --budget 16000 'how does the scheduler choose the next task to run on a CPU'"
add "trace task_struct.pid"              "$C trace $I task_struct.pid"
add "impact kfree"                       "$C impact $I --all kfree"
echo "== one-shot questions, $N interleaved runs each, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
for i in "${!cmds[@]}"; do
  : > "$WORK/scale-q-$i.txt"; : > "$WORK/scale-q-$i.fail"
  bash -c "${cmds[$i]}" > "$WORK/scale-q-$i.out" 2>&1 || true
done
for _ in $(seq "$N"); do
  for i in "${!cmds[@]}"; do
    s=$(date +%s%N)
    bash -c "exec ${cmds[$i]}" >/dev/null 2>&1 || echo x >> "$WORK/scale-q-$i.fail"
    e=$(date +%s%N)
    echo "$(( (e - s) / 1000 ))" | awk '{printf "%.3f\n", $1/1000}' >> "$WORK/scale-q-$i.txt"
  done
done
for i in "${!cmds[@]}"; do
  f=$(wc -l < "$WORK/scale-q-$i.fail")
  echo -n "${labels[$i]}: "; [ "$f" -gt 0 ] && echo -n "FAILED $f of $N runs: "
  percentiles "$WORK/scale-q-$i.txt"
  echo "    $(grep -c . "$WORK/scale-q-$i.out") lines of answer; $(grep -im1 'partial\|truncat\|limit\|bounded' "$WORK/scale-q-$i.out" | cut -c1-140)"
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
fi

# Fresh: `cairn watch` keeps the kernel's index fresh. The corpus is a
# git repository of our own (corpus.sh); the branch commits a definition
# added to BRANCH_FILES files spread over the tree.
if [ "$MODE" != "--cold" ] && [ "$MODE" != "--postgres" ] && [ "${WATCH:-1}" != 0 ]; then
  LAT="$WORK/scale-latency"
  (cd "$REPO_ROOT" && go build -o "$LAT" ./bench/watch/latency)
  BF=${BRANCH_FILES:-3000}
  git -C "$KERNEL" checkout -q -f "$(git -C "$KERNEL" rev-parse --abbrev-ref HEAD)"
  "$CAIRN" index -q --index-dir "$IDX" "$KERNEL"
  if ! git -C "$KERNEL" rev-parse -q --verify "bench-$BF" >/dev/null; then
    "$LAT" -make-branch "bench-$BF" -files "$BF" -repo "$KERNEL" -index "$IDX"
  fi
  echo "== cairn watch on the kernel: save → queryable, checkout of $BF files and back (load $(cut -d' ' -f1-3 /proc/loadavg))"
  rm -f "$IDX/watch.json"
  "$LAT" -mode watch -cairn "$CAIRN" -repo "$KERNEL" -index "$IDX" -n "${WATCH_EDITS:-20}" -files "$BF" \
    -branch "bench-$BF" -idle 30s -wait 600s -out "$WORK/scale-watch.json"
  echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
fi
