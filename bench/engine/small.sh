#!/usr/bin/env bash
# Base against head on small corpora, for when mono1m and the whole dev set
# are out of reach (a loaded machine, an hour): cairn built at BASE and at
# the checkout, each indexing into its own index directories, then
#   - localization (score.py) on the dev-set tasks of REPOS only (default
#     grpc/grpc-go and psf/requests; the trees from
#     ../shared/bench/localization/prepare.sh);
#   - one-shot latency, interleaved base/head run by run (wall and the
#     process's CPU, p50), on grpc's root package and the packages its calls
#     name most (the real-code suite's grpc-core view, from the module cache)
#     and on cairn's own tree at HEAD.
#   bench/engine/small.sh BASE_COMMIT [--latency|--localization]
source "$(dirname "$0")/../lib.sh"
BASE=${1:?usage: small.sh BASE_COMMIT [--latency|--localization]}
MODE=${2:-all}
REPOS=${REPOS:-grpc/grpc-go psf/requests}
N=${N:-11}
machine
echo "base $BASE, head $(git -C "$REPO_ROOT" rev-parse --short HEAD)$(git -C "$REPO_ROOT" diff --quiet || echo '+dirty')"
mkdir -p "$WORK/bin"
if [ ! -x "$WORK/bin/cairn-$BASE" ]; then
  wt="$WORK/base-src-$BASE"
  [ -d "$wt" ] || git -C "$REPO_ROOT" worktree add -q --detach "$wt" "$BASE"
  (cd "$wt" && go build -o "$WORK/bin/cairn-$BASE" ./cmd/cairn)
fi
(cd "$REPO_ROOT" && go build -o "$WORK/bin/cairn-head" ./cmd/cairn)
OUT="$WORK/small"; mkdir -p "$OUT"

if [ "$MODE" != "--latency" ]; then
  LOC="$REPO_ROOT/../shared/bench/localization"
  TREES=${LOC_TREES:-$WORK/loc/trees}
  for repo in $REPOS; do
    for v in "$BASE" head; do
      tag="$(echo "$repo" | tr / _)-$v"
      python3 "$LOC/score.py" --repos-root "$TREES" --repo "$repo" --timeout 300 \
        --prep-cmd "$WORK/bin/cairn-$v index -q --repo {repo_dir} --index-dir {repo_dir}.idx-$v" \
        --cmd "$WORK/bin/cairn-$v search --json --repo {repo_dir} --index-dir {repo_dir}.idx-$v --query-file {query_file} --limit 20" \
        --out "$OUT/$tag.json" >"$OUT/$tag.txt" 2>&1
      echo "== localization $repo, $v"; grep -E "^(ALL|lang:)" "$OUT/$tag.txt"
    done
  done
fi
[ "$MODE" = "--localization" ] && exit 0

# the corpora: grpc-core (as engine/testdata/realcode/corpora.txt pins grpc)
# and cairn's own tree, each a git repository
grpc_version=$(awk '$1 == "grpc" {print $4}' "$REPO_ROOT/engine/testdata/realcode/corpora.txt")
grpc="$(go env GOMODCACHE)/google.golang.org/grpc@$grpc_version"
[ -d "$grpc" ] || bash "$REPO_ROOT/.ci/realcode.sh"
rm -rf "$OUT/grpc" "$OUT/self" "$OUT"/*.idx-*
mkdir -p "$OUT/grpc"
(cd "$grpc" && cp --parents -r go.mod ./*.go status codes internal/status grpclog internal/grpclog "$OUT/grpc/")
chmod -R u+w "$OUT/grpc"
git -C "$REPO_ROOT" archive --prefix=self/ HEAD | tar -x -C "$OUT"
for c in grpc self; do
  git -C "$OUT/$c" init -q && git -C "$OUT/$c" add . && git -C "$OUT/$c" -c user.name=b -c user.email=b@example.com commit -qm corpus
  for v in "$BASE" head; do
    timed "index $c, $v" "$WORK/bin/cairn-$v" index -q --repo "$OUT/$c" --index-dir "$OUT/$c.idx-$v"
  done
done
python3 - "$OUT" "$BASE" "$N" <<'PY'
import os, statistics, subprocess, sys, time
out, base, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
work = os.path.dirname(out)
bins = {base: f"{work}/bin/cairn-{base}", "head": f"{work}/bin/cairn-head"}
demo = "where is a generation of the index committed atomically, and what happens to a run killed halfway"
qs = [
    ("grpc", "def Server.Serve", ["def", "Server.Serve"]),
    ("grpc", "callers --depth 3 toRPCErr", ["callers", "--depth", "3", "toRPCErr"]),
    ("grpc", "refs status.Error", ["refs", "status.Error"]),
    ("grpc", "search (an issue title)", ["search", "--json", "stream is closed before the trailer is received"]),
    ("grpc", "context 16k (same)", ["context", "--json", "--budget", "16000", "stream is closed before the trailer is received"]),
    ("grpc", "trace Status.s", ["trace", "--json", "Status.s"]),
    ("grpc", "impact toRPCErr", ["impact", "--json", "toRPCErr"]),
    ("self", "def Writer.Commit", ["def", "Writer.Commit"]),
    ("self", "search (README demo)", ["search", "--json", demo]),
    ("self", "context 16k (README demo)", ["context", "--json", "--budget", "16000", demo]),
    ("self", "trace Meta.Root", ["trace", "--json", "Meta.Root"]),
    ("self", "impact Writer.Commit", ["impact", "--json", "Writer.Commit", "--path", "graph/embedded"]),
]
print(f"| corpus | question | base wall p50 | head wall p50 | ratio | base CPU p50 | head CPU p50 | ratio |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
for corpus, name, args in qs:
    wall = {b: [] for b in bins}
    cpu = {b: [] for b in bins}
    for i in range(n):
        for b in (list(bins) if i % 2 == 0 else list(reversed(list(bins)))):
            cmd = [bins[b]] + args + ["--repo", f"{out}/{corpus}", "--index-dir", f"{out}/{corpus}.idx-{b}"]
            s = time.perf_counter()
            p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            _, status, ru = os.wait4(p.pid, 0)
            wall[b].append(time.perf_counter() - s)
            cpu[b].append(ru.ru_utime + ru.ru_stime)
            if os.waitstatus_to_exitcode(status) != 0:
                print(f"{b} {' '.join(args)}: exit {os.waitstatus_to_exitcode(status)}", file=sys.stderr)
    w = {b: statistics.median(wall[b]) * 1000 for b in bins}
    c = {b: statistics.median(cpu[b]) * 1000 for b in bins}
    print(f"| {corpus} | `{name}` | {w[base]:.0f} ms | {w['head']:.0f} ms | {w['head'] / w[base]:.2f} | {c[base]:.0f} ms | {c['head']:.0f} ms | {c['head'] / c[base]:.2f} |", flush=True)
PY
