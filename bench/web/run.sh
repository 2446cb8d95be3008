#!/usr/bin/env bash
# Latency of `cairn serve http` — its pages and its JSON API — against the
# CLI's one-shot answer to the same question, on mono1m (default) or on
# cairn's own source (CORPUS=self). The server runs on loopback without a
# watcher, warmed by one untimed request per question; each row is N timed
# sequential requests (curl's total time) and N one-shot CLI runs (process
# start to output), interleaved so both see the same machine load.
#   bench/web/run.sh [N]            (default 10)
#   CORPUS=self bench/web/run.sh 5
source "$(dirname "$0")/../lib.sh"
N=${1:-10}
PORT=${WEB_PORT:-7791}
build_cairn
if [ "${CORPUS:-mono1m}" = self ]; then
  TREE="$WORK/web/self"
  rm -rf "$TREE"; mkdir -p "$TREE"
  git -C "$REPO_ROOT" archive HEAD | tar -x -C "$TREE"
  (cd "$TREE" && git init -q && git add . && git -c user.name=b -c user.email=b@b commit -qm self)
  IDX="$WORK/web/self.idx"
  Q_DEF=Snapshot.Trace; Q_CALLERS=Engine.Acquire; Q_SEARCH="fused search with reciprocal rank fusion"
  Q_TRACE=Options.Root; Q_IMPACT=ReadSpan; Q_TASK="the web UI refuses a foreign Origin header"
else
  mono1m; TREE="$MONO"; IDX="$WORK/web/mono1m.idx"
  Q_DEF=ListenAndServe; Q_CALLERS=Labels.Hash; Q_SEARCH="ListenAndServe TLS config"
  Q_TRACE=config.ScrapeInterval; Q_IMPACT=Config.Load; Q_TASK="flask url_for builds the wrong URL behind a proxy with SCRIPT_NAME"
fi
mkdir -p "$WORK/web"
"$CAIRN" index -q --index-dir "$IDX" "$TREE"
machine
echo "corpus: $TREE ($("$CAIRN" status --repo "$TREE" --index-dir "$IDX" | sed -n 3p))"
"$CAIRN" serve http --repo "$TREE" --index-dir "$IDX" --addr "127.0.0.1:$PORT" --watch=false 2>"$WORK/web/serve.log" &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null || true' EXIT
for _ in $(seq 200); do grep -q "serving" "$WORK/web/serve.log" && break; sleep 0.1; done
grep "serving" "$WORK/web/serve.log"
BASE="http://127.0.0.1:$PORT"
enc() { python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$1"; }
OUT="$WORK/web"
# row LABEL URL_PATH API_PATH CLI_ARGS...: page, API and CLI latency
row() {
  local label=$1 pagep=$2 apip=$3; shift 3
  curl -s -o /dev/null "$BASE$pagep"; curl -s -o /dev/null "$BASE$apip"
  "$CAIRN" "$@" --repo "$TREE" --index-dir "$IDX" >/dev/null 2>&1 || true
  : > "$OUT/page.txt"; : > "$OUT/api.txt"; : > "$OUT/cli.txt"
  for _ in $(seq "$N"); do
    curl -s -o /dev/null -w '%{http_code} %{time_total}\n' "$BASE$pagep" >> "$OUT/page.txt"
    curl -s -o /dev/null -w '%{http_code} %{time_total}\n' "$BASE$apip" >> "$OUT/api.txt"
    s=$(date +%s%N)
    "$CAIRN" "$@" --repo "$TREE" --index-dir "$IDX" >/dev/null 2>"$OUT/cli.err" || true
    e=$(date +%s%N)
    echo "200 $(( (e - s) / 1000 ))e-6" >> "$OUT/cli.txt"
  done
  python3 - "$label" "$OUT/page.txt" "$OUT/api.txt" "$OUT/cli.txt" <<'PY'
import sys
def p(xs, q): return xs[min(len(xs)-1, int(round(q*(len(xs)-1))))]
label, files = sys.argv[1], sys.argv[2:]
cols = []
for f in files:
    rows = [l.split() for l in open(f) if l.strip()]
    bad = sum(1 for c, _ in rows if c != "200")
    xs = sorted(float(t) * 1000 for _, t in rows)
    cols.append((p(xs, .5), p(xs, .95), bad))
(pg, api, cli) = cols
note = "".join(f" [{n} non-200 {w}]" for (_, _, n), w in zip(cols, ("page", "api", "cli")) if n)
print(f"{label:34s} page p50 {pg[0]:7.1f} p95 {pg[1]:7.1f} | api p50 {api[0]:7.1f} p95 {api[1]:7.1f} | cli p50 {cli[0]:7.1f} p95 {cli[1]:7.1f} ms | page/cli {pg[0]/cli[0]:.2f} api/cli {api[0]/cli[0]:.2f}{note}")
PY
}
echo "== latency, $N requests each, load average $(cut -d' ' -f1-3 /proc/loadavg)"
# the first home page computes what the generation's caches then hold
# (centrality, entry points, the package graph): timed once, cold
echo "first / after start (cold): $(curl -s -o /dev/null -w '%{http_code} %{time_total}' "$BASE/") s"
row "status (/ vs index_status)" "/" "/api/index_status" status --json
row "entry points (/ vs entry_points)" "/" "/api/entry_points" entries --json
row "package graph (/ vs package_graph)" "/" "/api/package_graph" packages --json
row "def $Q_DEF" "/symbol?name=$(enc "$Q_DEF")" "/api/definition?symbol=$(enc "$Q_DEF")" def --json "$Q_DEF"
row "callers $Q_CALLERS" "/symbol?name=$(enc "$Q_CALLERS")&kind=method" "/api/callers?symbol=$(enc "$Q_CALLERS")&all=true" callers --json --all "$Q_CALLERS"
row "search" "/search?q=$(enc "$Q_SEARCH")" "/api/search?query=$(enc "$Q_SEARCH")" search --json "$Q_SEARCH"
row "trace $Q_TRACE" "/trace?target=$(enc "$Q_TRACE")" "/api/trace?target=$(enc "$Q_TRACE")" trace --json "$Q_TRACE"
row "impact $Q_IMPACT" "/impact?target=$(enc "$Q_IMPACT")&all=true" "/api/impact?symbol=$(enc "$Q_IMPACT")&all=true" impact --json --all "$Q_IMPACT"
row "context 8k" "/context?task=$(enc "$Q_TASK")&budget=8000" "/api/build_context?task=$(enc "$Q_TASK")&budget=8000&format=json" context --json --budget 8000 "$Q_TASK"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
