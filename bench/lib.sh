# Shared helpers for cairn's benchmark scripts. Source it.
set -euo pipefail
BENCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$BENCH_ROOT/.." && pwd)
WORK=${CAIRN_BENCH_WORK:-$HOME/cairn-bench}
mkdir -p "$WORK"

# build_cairn: an optimised binary at $CAIRN
build_cairn() {
  CAIRN="$WORK/bin/cairn"
  (cd "$REPO_ROOT" && go build -o "$CAIRN" ./cmd/cairn)
  export CAIRN
}

# mono1m: the polyglot corpus (built once, cached in $WORK)
mono1m() {
  MONO="$WORK/mono1m"
  if [ ! -f "$MONO/MANIFEST.txt" ]; then
    local shared="$REPO_ROOT/../shared/bench/corpora"
    (command -v apt-get >/dev/null && apt-get update -qq >/dev/null 2>&1) || true
    bash "$shared/assemble-mono1m.sh" "$MONO" "$WORK/mono1m.cache" >&2
  fi
  export MONO
}

need() { # need CMD DEBIAN_PACKAGE
  command -v "$1" >/dev/null 2>&1 || apt-get install -y -qq "$2" >/dev/null
}

machine() {
  echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GB RAM, $(uname -sr), $(go version | cut -d' ' -f3)"
}

# timed LABEL CMD...: wall seconds and peak RSS of one command
timed() {
  local label=$1; shift
  /usr/bin/time -o "$WORK/time.txt" -f "%e %M" "$@" >/dev/null 2>"$WORK/timed.err" || echo "$label: FAILED: $(tail -3 "$WORK/timed.err")"
  local s kb; read -r s kb < "$WORK/time.txt"
  echo "$label: ${s}s wall, $((kb / 1024)) MB peak RSS"
}

# percentiles FILE: p50 and p95 of one number per line (milliseconds)
percentiles() {
  python3 - "$1" <<'PY'
import sys, statistics
xs = sorted(float(l) for l in open(sys.argv[1]) if l.strip())
def p(q): return xs[min(len(xs)-1, int(round(q*(len(xs)-1))))]
print(f"n={len(xs)} p50={p(0.5):.1f}ms p95={p(0.95):.1f}ms min={xs[0]:.1f}ms max={xs[-1]:.1f}ms")
PY
}

# oneshot N CMD...: run a command N times, print latency percentiles (a
# command that fails is timed too, and the failures are counted: a timing of
# an error answer is not a timing of the query)
oneshot() {
  local n=$1; shift
  local f="$WORK/oneshot.txt"; : > "$f"
  local failed=0
  # one untimed run first: a binary just built, or index files another
  # step evicted, are read from disk once — what a machine that uses cairn
  # has in its page cache already (a cold start after a reboot is not this)
  "$@" >/dev/null 2>&1 || true
  for _ in $(seq "$n"); do
    local s e
    s=$(date +%s%N); "$@" >/dev/null 2>&1 || failed=$((failed + 1)); e=$(date +%s%N)
    echo "$(( (e - s) / 1000 ))" | awk '{printf "%.3f\n", $1/1000}' >> "$f"
  done
  if [ "$failed" -gt 0 ]; then echo -n "FAILED $failed of $n runs: "; fi
  percentiles "$f"
}
