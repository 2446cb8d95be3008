#!/usr/bin/env bash
# Paired latency of the three surfaces — one-shot CLI, HTTP API, MCP —
# against an earlier commit (default: 456483c, the commit before the
# catalogue move of issue 50), on mono1m. Both binaries are built here,
# each indexes mono1m into its own index, and every measurement alternates
# base and new run by run, so both see the same machine load. Prints each
# row's median for base and new and their ratio (new / base: below 1.00 is
# faster).
#   bench/serve/paired.sh [BASE_REV] [N]      (defaults 456483c 15)
#   PARTS=cli,http,mcp (default all three); NEW_REV=REV compares REV instead of the worktree
source "$(dirname "$0")/../lib.sh"
BASE_REV=${1:-456483c}
N=${2:-15}
# at_rev REV: a binary of REV (built once from git archive)
at_rev() {
  local bin="$WORK/bin/cairn-$1" src="$WORK/src-$1"
  if [ ! -x "$bin" ]; then
    rm -rf "$src"; mkdir -p "$src"
    git -C "$REPO_ROOT" archive "$1" | tar -x -C "$src"
    (cd "$src" && go build -o "$bin" ./cmd/cairn)
  fi
  echo "$bin"
}
if [ -n "${NEW_REV:-}" ]; then # NEW_REV=REV: the new side is that commit, not the worktree
  NEW=$(at_rev "$NEW_REV")
else
  build_cairn
  NEW="$CAIRN"
fi
BASE=$(at_rev "$BASE_REV")
mono1m
mkdir -p "$WORK/paired"
IB="$WORK/paired/base.idx"; IN="$WORK/paired/new${NEW_REV:+-$NEW_REV}.idx"
"$BASE" index -q --index-dir "$IB" "$MONO"
"$NEW" index -q --index-dir "$IN" "$MONO"
machine
echo "corpus: mono1m $(cd "$MONO" && git rev-parse --short HEAD); base $BASE_REV ($("$BASE" --version)), new ${NEW_REV:-$(git -C "$REPO_ROOT" rev-parse --short HEAD)} ($("$NEW" --version))"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

ms() { date +%s%N; }
# pair LABEL BASECMD NEWCMD: N alternating runs of two shell commands
# (eval'd; one untimed run of each first), medians and the ratio
pair() {
  local label=$1 bc=$2 nc=$3 fb="$WORK/paired/b.txt" fn="$WORK/paired/n.txt"
  : >"$fb"; : >"$fn"
  eval "$bc" >/dev/null 2>&1 || true
  eval "$nc" >/dev/null 2>&1 || true
  for i in $(seq "$N"); do
    for side in b n; do
      local c=$bc f=$fb
      [ $side = n ] && c=$nc f=$fn
      local s e; s=$(ms)
      eval "$c" >/dev/null 2>&1 || echo "FAILED ($side): $c" >&2
      e=$(ms)
      echo $(((e - s) / 1000)) >>"$f"
    done
  done
  local mb mn
  mb=$(sort -n "$fb" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]/1000}')
  mn=$(sort -n "$fn" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]/1000}')
  printf "%-34s base %8.1f ms   new %8.1f ms   ratio %.2f\n" "$label" "$mb" "$mn" "$(awk -v a="$mn" -v b="$mb" 'BEGIN{print a/b}')"
}

PARTS=${PARTS:-cli,http,mcp}
if [[ $PARTS == *cli* ]]; then
echo "== one-shot CLI (process start to output, --json)"
cli() { echo "\"$1\" $2 --repo \"$MONO\" --index-dir \"$3\" --json"; }
for q in "def ListenAndServe" "refs Labels.Hash" "callers Labels.Hash --depth 2" \
         "search 'ListenAndServe TLS config'" "search 'queryset filter related field manager'" \
         "trace config.ScrapeInterval" "context 'flask url_for builds the wrong URL behind a proxy' --budget 8000"; do
  pair "cli $q" "$(cli "$BASE" "$q" "$IB")" "$(cli "$NEW" "$q" "$IN")"
done

fi
if [[ $PARTS == *http* ]]; then
echo "== HTTP API (serve http, loopback, no watcher; curl total time)"
PB=7811; PN=7812
"$BASE" serve http --repo "$MONO" --index-dir "$IB" --addr "127.0.0.1:$PB" --watch=false 2>"$WORK/paired/http-b.log" &
SB=$!
"$NEW" serve http --repo "$MONO" --index-dir "$IN" --addr "127.0.0.1:$PN" --watch=false 2>"$WORK/paired/http-n.log" &
SN=$!
trap 'kill $SB $SN 2>/dev/null || true' EXIT
for _ in $(seq 300); do grep -q serving "$WORK/paired/http-b.log" && grep -q serving "$WORK/paired/http-n.log" && break; sleep 0.1; done
get() { echo "curl -sf -o /dev/null 'http://127.0.0.1:$1/api/$2'"; }
for p in "definition?symbol=ListenAndServe" "references?symbol=Labels.Hash" "callers?symbol=Labels.Hash&depth=2" \
         "search?query=ListenAndServe%20TLS%20config" "search?query=queryset%20filter%20related%20field%20manager" \
         "trace?target=config.ScrapeInterval" "build_context?task=flask%20url_for%20builds%20the%20wrong%20URL&budget=8000"; do
  pair "http /api/$p" "$(get $PB "$p")" "$(get $PN "$p")"
done
kill $SB $SN 2>/dev/null || true; wait $SB $SN 2>/dev/null || true

fi
if [[ $PARTS == *mcp* ]]; then
echo "== MCP (serve mcp --http, one client, no think time: search, callers, build_context)"
LOAD="$WORK/bin/cairn-load"
(cd "$REPO_ROOT" && go build -o "$LOAD" ./bench/serve/load)
for round in 1 2; do
  for side in base new; do
    bin=$BASE idx=$IB port=7813
    [ $side = new ] && bin=$NEW idx=$IN port=7814
    tools=() # the load client asks repo_map too: all tools where --tools exists (lean is the default)
    help=$("$bin" serve mcp --help 2>&1 || true)
    case "$help" in *--tools*) tools=(--tools all) ;; esac
    "$bin" serve mcp --repo "$MONO" --index-dir "$idx" --http "127.0.0.1:$port" "${tools[@]}" 2>"$WORK/paired/mcp-$side.log" &
    S=$!
    for _ in $(seq 300); do grep -q "serving MCP" "$WORK/paired/mcp-$side.log" && break; sleep 0.1; done
    trap 'kill $S 2>/dev/null || true' EXIT
    echo "-- round $round, $side"
    "$LOAD" -url "http://127.0.0.1:$port/mcp" -clients 1 -duration 20s -think 1ms -budget 8000 -pid $S | grep -E 'p50|calls='
    kill $S; wait $S 2>/dev/null || true
  done
done
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
