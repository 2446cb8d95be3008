#!/usr/bin/env bash
# Issue 53: cairn's cold index of mono1m side by side with two peers, in
# interleaved rounds: codebase-memory-mcp (C: tree-sitter + SQLite) and
# zoekt's indexer (Go: trigram code search). Per round and tool: wall, CPU
# (user+sys) and peak RSS under /usr/bin/time -v; then the medians and the
# ratios to cairn, with the load average.
#   bench/scale/peers.sh          (ROUNDS=3; PEER_MODE=full|moderate|fast: the
#   peer's index_repository mode, full by default as the peer's own; ZOEKT_CTAGS=0:
#   zoekt without universal-ctags symbols)
# Neither peer is vendored here, nor fetched by this script: each is built
# from a snapshot of its public repository that lies outside this repository
# (a directory or a bare git dir), into $WORK (bench/lib.sh), and cached.
#   PEER_SRC   codebase-memory-mcp's source; default: the snapshot at
#              /work/.mirror/DeusData+codebase-memory-mcp/repo (a bare git
#              dir, as the session tool `fetch github:DeusData/codebase-memory-mcp`
#              leaves it). PEER_REV: the commit to take (HEAD).
#   ZOEKT_SRC  zoekt's source; default: /work/.mirror/sourcegraph+zoekt/repo
#              (`fetch github:sourcegraph/zoekt`). The Go module proxy serves
#              no version of github.com/sourcegraph/zoekt here (403), so
#              `go install ...@version` cannot be used; its dependencies come
#              from the proxy as usual. ZOEKT_REV: the commit (HEAD).
#              Its symbols come from universal-ctags (Debian's ctags), as
#              zoekt's indexers use it; ZOEKT_CTAGS=0 indexes trigrams only.
# The peer's snapshot lacks its large generated files (~58 tree-sitter
# parser.c files, the SQLite amalgamation, and the 30 MB token-vector blob
# vendored/nomic/code_vectors.bin). They are filled in like this:
#   - typescript/tsx parser.c: from `npm pack tree-sitter-typescript@0.23.2`,
#     checked against the peer's scripts/vendored-checksums.txt (must match);
#   - sqlite3.c: SQLite 3.51.3 from `npm pack better-sqlite3@12.8.0`, with that
#     package's own patch reversed and the peer's PATCHES.md patch applied
#     (MAX_PATHNAME 4096); its checksum is printed against the recorded one
#     (better-sqlite3 builds its amalgamation with its own options, so the
#     bytes can differ; the peer compiles it with its own flags either way);
#   - every other missing grammar: a weak tree_sitter_<lang>() returning NULL
#     (the peer skips the files of a language whose grammar is NULL);
#   - code_vectors.bin: the right shape (header [count][dim], then zeros),
#     since its content is a model's vectors that no registry here ships;
#     the peer's semantic pass reads it, so that pass runs on zero vectors.
# The build log says which grammars are real and which are stubbed
# ($WORK/peer/BUILD.txt); the run prints it.
# The peer's CLI hands indexing to a detached daemon; what is timed here is
# its index worker itself, run in the foreground with the argv its
# supervisor gives it (`cli --index-worker --index-worker-build <sha256 of
# the binary> index_repository <json> --response-out <file>`), with its
# cache dir (CBM_CACHE_DIR) fresh per round.
# Run it nice'd on a shared machine.
source "$(dirname "$0")/../lib.sh"
ROUNDS=${ROUNDS:-3}
PEER_SRC=${PEER_SRC:-/work/.mirror/DeusData+codebase-memory-mcp/repo}
PEER_REV=${PEER_REV:-HEAD}
ZOEKT_SRC=${ZOEKT_SRC:-/work/.mirror/sourcegraph+zoekt/repo}
ZOEKT_REV=${ZOEKT_REV:-HEAD}
PEER_MODE=${PEER_MODE:-full}
PEER_DIR="$WORK/peer"
PEER="$PEER_DIR/codebase-memory-mcp"
ZOEKT_INDEX="$WORK/bin/zoekt-index"

# export_src SRC REV DEST: a snapshot's files into DEST. A bare git dir's
# blobs that the snapshot lacks are skipped and listed in DEST.missing.
export_src() {
  local src=$1 rev=$2 dest=$3
  rm -rf "$dest" "$dest.missing"; mkdir -p "$dest"
  if [ -d "$src/objects" ] || [ -f "$src/HEAD" ]; then
    python3 - "$src" "$rev" "$dest" <<'PY'
import os, subprocess, sys
git, rev, dest = sys.argv[1:]
tree = subprocess.run(["git", "--git-dir", git, "ls-tree", "-r", "-z", rev],
                      check=True, capture_output=True).stdout.split(b"\0")
entries = []
for e in tree:
    if not e: continue
    meta, path = e.split(b"\t", 1)
    mode, kind, sha = meta.split()
    if kind == b"blob": entries.append((mode, sha, path.decode()))
p = subprocess.Popen(["git", "--git-dir", git, "cat-file", "--batch"],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)
import threading
def feed():
    p.stdin.write(b"".join(sha + b"\n" for _, sha, _ in entries)); p.stdin.close()
threading.Thread(target=feed, daemon=True).start()
missing = []
for mode, sha, path in entries:
    head = p.stdout.readline().split()
    if head[-1] == b"missing":
        missing.append(path); continue
    data = p.stdout.read(int(head[2])); p.stdout.read(1)
    out = os.path.join(dest, path)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    if mode == b"120000":
        os.symlink(data.decode(), out)
    else:
        open(out, "wb").write(data)
        if mode == b"100755": os.chmod(out, 0o755)
p.wait()
open(dest.rstrip("/") + ".missing", "w").write("".join(m + "\n" for m in missing))
PY
  else
    cp -a "$src/." "$dest/"; rm -rf "$dest/.git"; : > "$dest.missing"
  fi
}

# npm_pack PKG@VER DIR: the package's files under DIR/package (cached)
npm_pack() {
  local dir=$2
  if [ ! -f "$dir/package/package.json" ]; then
    rm -rf "$dir"; mkdir -p "$dir"
    (cd "$dir" && npm pack --silent "$1" >/dev/null && tar xzf ./*.tgz)
  fi
}

build_peer() {
  [ -x "$PEER" ] && [ -f "$PEER_DIR/BUILD.txt" ] && return 0
  echo "building codebase-memory-mcp from $PEER_SRC ($PEER_REV) into $PEER_DIR" >&2
  local src="$WORK/peer-src" npm="$WORK/peer-npm"
  export_src "$PEER_SRC" "$PEER_REV" "$src"
  local missing=$src.missing sums="$src/scripts/vendored-checksums.txt"
  local G=internal/cbm/vendored/grammars
  rm -rf "$PEER_DIR"; mkdir -p "$PEER_DIR"
  local log="$PEER_DIR/BUILD.txt"
  {
    echo "codebase-memory-mcp: $( [ -d "$PEER_SRC/objects" ] && git --git-dir="$PEER_SRC" rev-parse "$PEER_REV" || echo "$PEER_SRC")"
    echo "files the snapshot lacks: $(wc -l < "$missing")"
  } > "$log"
  # typescript / tsx
  npm_pack tree-sitter-typescript@0.23.2 "$npm/ts"
  local l
  for l in typescript tsx; do
    cp "$npm/ts/package/$l/src/parser.c" "$src/$G/$l/parser.c"
    local want got
    want=$(awk -v p="$G/$l/parser.c" '$2 == p {print $1}' "$sums")
    got=$(sha256sum "$src/$G/$l/parser.c" | cut -d' ' -f1)
    [ "$want" = "$got" ] || { echo "$l/parser.c: checksum $got, the peer records $want" >&2; return 1; }
    echo "grammar $l: parser.c from tree-sitter-typescript@0.23.2 (checksum matches the peer's record)" >> "$log"
  done
  # SQLite
  npm_pack better-sqlite3@12.8.0 "$npm/bs3"
  local bs="$npm/bs3/package"
  patch -s -R -o "$src/vendored/sqlite3/sqlite3.c" "$bs/deps/sqlite3/sqlite3.c" < "$bs/deps/patches/1208.patch"
  sed -i 's/^#define MAX_PATHNAME 512$/#define MAX_PATHNAME 4096/' "$src/vendored/sqlite3/sqlite3.c"
  grep -q '^#define MAX_PATHNAME 4096$' "$src/vendored/sqlite3/sqlite3.c" || { echo "sqlite3.c: MAX_PATHNAME patch did not apply" >&2; return 1; }
  local ssum rsum
  ssum=$(sha256sum "$src/vendored/sqlite3/sqlite3.c" | cut -d' ' -f1)
  rsum=$(awk '$2 == "vendored/sqlite3/sqlite3.c" {print $1}' "$sums")
  echo "sqlite3.c: $(grep -m1 '^#define SQLITE_VERSION ' "$src/vendored/sqlite3/sqlite3.c" | awk '{print $3}') from better-sqlite3@12.8.0 (its patch 1208 reversed, PATCHES.md's MAX_PATHNAME 4096 applied); sha256 $ssum, the peer records $rsum$( [ "$ssum" = "$rsum" ] && echo ' (match)' || echo ' (differs: better-sqlite3 generates its amalgamation with its own options)')" >> "$log"
  # the token-vector blob: right shape, zero vectors
  if grep -qx vendored/nomic/code_vectors.bin "$missing"; then
    python3 - "$src/vendored/nomic" <<'PY'
import re, struct, sys
h = open(sys.argv[1] + "/code_vectors.h").read()
n = int(re.search(r"#define PRETRAINED_TOKEN_COUNT (\d+)", h).group(1))
d = int(re.search(r"#define PRETRAINED_DIM (\d+)", h).group(1))
with open(sys.argv[1] + "/code_vectors.bin", "wb") as f:
    f.write(struct.pack("<ii", n, d)); f.truncate(8 + n * d)
PY
    echo "vendored/nomic/code_vectors.bin: absent from the snapshot; a zero blob of its shape stands in (the semantic pass runs on zero vectors)" >> "$log"
  fi
  # every other missing grammar: its wrapper compiles to nothing, and each
  # tree_sitter_<lang>() that the sources declare but no present parser.c
  # defines gets a weak stub returning NULL (grammar_zz_bench_stubs.c, taken
  # in by the Makefile's grammar_*.c wildcard)
  local stubbed=() real=() w d
  for w in "$src"/internal/cbm/grammar_*.c; do
    d=$(grep -o 'vendored/grammars/[^/]*/parser.c' "$w" | head -1 | cut -d/ -f3 || true)
    [ -n "$d" ] || continue
    if [ -f "$src/$G/$d/parser.c" ]; then real+=("$d"); continue; fi
    echo "/* bench: $G/$d/parser.c is absent from the snapshot; stubbed */" > "$w"
    stubbed+=("$d")
  done
  local fns
  fns=$(comm -23 \
    <(grep -rhoE 'extern const TSLanguage \*tree_sitter_[A-Za-z0-9_]+\(void\)' --include=*.c --include=*.h "$src/internal" "$src/src" | grep -oE 'tree_sitter_[A-Za-z0-9_]+' | sort -u) \
    <(cat "$src"/$G/*/parser.c | grep -oE 'TSLanguage \*tree_sitter_[A-Za-z0-9_]+\(void\) *\{' | grep -oE 'tree_sitter_[A-Za-z0-9_]+' | sort -u))
  {
    echo "/* bench: weak stubs for the grammars whose parser.c the snapshot lacks;"
    echo "   the peer skips the files of a language whose grammar is NULL. */"
    echo "#include <stddef.h>"
    echo "typedef struct TSLanguage TSLanguage;"
    for fn in $fns; do echo "__attribute__((weak)) const TSLanguage *$fn(void) { return NULL; }"; done
  } > "$src/internal/cbm/grammar_zz_bench_stubs.c"
  echo "grammars real (${#real[@]}): ${real[*]}" >> "$log"
  echo "grammars stubbed to NULL (${#stubbed[@]}): ${stubbed[*]}" >> "$log"
  echo "functions stubbed ($(echo $fns | wc -w)): $(echo $fns)" >> "$log"
  local mono_langs="" x
  for x in c cpp go python java javascript typescript tsx kotlin rust; do
    if printf '%s\n' "${stubbed[@]}" | grep -qx "$x"; then mono_langs+=" $x=stub"; else mono_langs+=" $x=real"; fi
  done
  echo "grammars of note:$mono_langs" >> "$log"
  # the peer's own Makefile, production target
  if ! (cd "$src" && nice -n 10 make -f Makefile.cbm -j"$(nproc)" cbm CC=gcc CXX=g++ > "$PEER_DIR/make.log" 2>&1); then
    echo "peer build FAILED: $(tail -20 "$PEER_DIR/make.log")" >&2; return 1
  fi
  cp "$src/build/c/codebase-memory-mcp" "$PEER"
  echo "binary: $PEER ($(du -m "$PEER" | cut -f1) MB; make -f Makefile.cbm cbm, gcc $(gcc -dumpfullversion))" >> "$log"
}

build_zoekt() {
  [ -x "$ZOEKT_INDEX" ] && return 0
  echo "building zoekt-index from $ZOEKT_SRC ($ZOEKT_REV)" >&2
  local src="$WORK/zoekt-src"
  export_src "$ZOEKT_SRC" "$ZOEKT_REV" "$src"
  [ -s "$src.missing" ] && echo "zoekt snapshot lacks: $(cat "$src.missing")" >&2
  mkdir -p "$WORK/bin"
  (cd "$src" && nice -n 10 go build -trimpath -o "$ZOEKT_INDEX" ./cmd/zoekt-index)
  { [ -d "$ZOEKT_SRC/objects" ] && git --git-dir="$ZOEKT_SRC" rev-parse "$ZOEKT_REV" || echo "$ZOEKT_SRC"; } > "$WORK/bin/zoekt-index.rev"
}

build_cairn
build_peer
build_zoekt
mono1m
machine
echo "corpus: mono1m ($MONO): $(cd "$MONO" && git ls-files | wc -l) files, $(cd "$MONO" && git ls-files -z | xargs -0 cat 2>/dev/null | wc -l) lines"
sed 's/^/peer build: /' "$PEER_DIR/BUILD.txt"
echo "zoekt-index: $ZOEKT_INDEX (built from sourcegraph/zoekt $(cat "$WORK/bin/zoekt-index.rev"), $(go version | cut -d' ' -f3))"

# the worker checks that --index-worker-build names its own build: the
# sha256 of its executable
FP=$(sha256sum "$PEER" | cut -d' ' -f1)
echo "peer: index_repository mode $PEER_MODE (the peer's default is full: all files, similarity and semantic edges); no memory budget flag (the worker's default, a fraction of RAM)"
# zoekt's symbols come from universal-ctags; it looks for a binary named
# universal-ctags, which Debian installs as ctags
ZENV=() ZFLAGS=()
if [ "${ZOEKT_CTAGS:-1}" = 1 ] && ctags --version 2>/dev/null | grep -q 'Universal Ctags'; then
  ZENV=(CTAGS_COMMAND="$(command -v ctags)"); ZFLAGS=(-require_ctags)
  echo "zoekt: with symbols ($(ctags --version | head -1 | cut -d, -f1-2)); ZOEKT_CTAGS=0 leaves them out"
else
  ZENV=(CTAGS_COMMAND=); ZFLAGS=(-disable_ctags)
  echo "zoekt: without symbols (no universal-ctags, or ZOEKT_CTAGS=0): trigrams only"
fi
T="$WORK/peers"; mkdir -p "$T"; : > "$T/results.txt"

# run TOOL ROUND CMD...: one timed cold index; appends "tool wall cpu rss"
run() {
  local tool=$1 round=$2; shift 2
  local t="$T/$tool.time" out="$T/$tool.out"
  if ! /usr/bin/time -v -o "$t" "$@" > "$out" 2>&1; then
    echo "round $round $tool: FAILED: $(tail -3 "$out")"; return 0
  fi
  python3 - "$t" "$tool" "$round" "$(cut -d' ' -f1-3 /proc/loadavg)" "$T/results.txt" <<'PY'
import sys, re
t = open(sys.argv[1]).read()
def g(k): return re.search(re.escape(k) + r": (.*)", t).group(1).strip()
def secs(s):
    return sum(float(v) * 60 ** i for i, v in enumerate(reversed(s.split(":"))))
wall = secs(g("Elapsed (wall clock) time (h:mm:ss or m:ss)"))
cpu = float(g("User time (seconds)")) + float(g("System time (seconds)"))
rss = int(g("Maximum resident set size (kbytes)")) / 1024
print(f"round {sys.argv[3]} {sys.argv[2]:<6}: {wall:6.1f} s wall, {cpu:6.1f} s CPU, {rss:6.0f} MB peak RSS (load {sys.argv[4]})")
open(sys.argv[5], "a").write(f"{sys.argv[2]} {wall} {cpu} {rss}\n")
PY
}

echo "== $ROUNDS interleaved rounds, cold index of mono1m (load average $(cut -d' ' -f1-3 /proc/loadavg))"
for r in $(seq "$ROUNDS"); do
  rm -rf "$T/cairn.idx"
  run cairn "$r" "$CAIRN" index -q --index-dir "$T/cairn.idx" "$MONO"
  rm -rf "$T/peer.cache"; mkdir -p "$T/peer.cache"
  run peer "$r" env CBM_CACHE_DIR="$T/peer.cache" HOME="$T/peer.cache" "$PEER" cli --index-worker \
    --index-worker-build "$FP" index_repository "{\"repo_path\":\"$MONO\",\"mode\":\"$PEER_MODE\"}" --response-out "$T/peer.response"
  rm -rf "$T/zoekt.idx"; mkdir -p "$T/zoekt.idx"
  run zoekt "$r" env "${ZENV[@]}" "$ZOEKT_INDEX" "${ZFLAGS[@]}" -index "$T/zoekt.idx" "$MONO"
done

echo "== what each took in (last round)"
"$CAIRN" status --index-dir "$T/cairn.idx" --repo "$MONO" 2>&1 | sed -n '1,8p' | sed 's/^/cairn: /'
python3 - "$T/peer.response" "$T/peer.out" <<'PY'
import json, re, sys
try:
    r = json.load(open(sys.argv[1])).get("structuredContent", {})
except Exception as e:
    r = {"error": str(e)}
log = open(sys.argv[2], errors="replace").read()
disc = re.search(r"msg=pipeline.discover files=(\d+)", log)
print(f"peer: discovered {disc.group(1) if disc else '?'} files; skipped {r.get('skipped_count')}, "
      f"not indexed {r.get('not_indexed_files_count')}, parse_partial {r.get('parse_partial_count')}; "
      f"{r.get('nodes')} nodes, {r.get('edges')} edges; status {r.get('status')}")
PY
lf=$(ls "$T"/peer.cache/logs/*.log 2>/dev/null | head -1 || true)
[ -n "$lf" ] && echo "peer: files it found no grammar for, by extension (its log): $(awk -F'\t' '$2 == "no tree-sitter grammar" {print $3}' "$lf" | sed -n 's/.*\.\([A-Za-z0-9]*\)$/\1/p' | sort | uniq -c | sort -rn | head -8 | awk '{printf "%s %s, ", $2, $1}')"
echo "peer: grammars stubbed to NULL: $(sed -n 's/^grammars stubbed to NULL ([0-9]*): //p' "$PEER_DIR/BUILD.txt" | wc -w) (see above); mono1m's languages: $(sed -n 's/^grammars of note: //p' "$PEER_DIR/BUILD.txt")"
echo "peer: cache $(du -sm "$T/peer.cache" | cut -f1) MB"
echo "zoekt: $(grep -o '[0-9]* files processed' "$T/zoekt.out" | awk '{n += $1} END {print n + 0}') files in $(ls "$T/zoekt.idx" | wc -l) shards, $(du -sm "$T/zoekt.idx" | cut -f1) MB; $(grep -o 'symbols=[0-9]*' "$T/zoekt.out" | awk -F= '{n += $2} END {print n + 0}') symbols"

echo "== medians over $ROUNDS rounds, ratios to cairn (load average $(cut -d' ' -f1-3 /proc/loadavg))"
python3 - "$T/results.txt" <<'PY'
import sys, statistics
rows = {}
for l in open(sys.argv[1]):
    t, *v = l.split(); rows.setdefault(t, []).append(list(map(float, v)))
med = {t: [statistics.median(r[i] for r in rs) for i in range(3)] for t, rs in rows.items()}
c = med.get("cairn")
for t, (w, cpu, rss) in med.items():
    ratio = f"; x cairn: wall {w / c[0]:.2f}, CPU {cpu / c[1]:.2f}, RSS {rss / c[2]:.2f}" if c and t != "cairn" else ""
    print(f"{t:<6} median of {len(rows[t])}: {w:6.1f} s wall, {cpu:6.1f} s CPU, {rss:6.0f} MB peak RSS{ratio}")
PY
