#!/usr/bin/env python3
"""Offline evaluation of cairn's rank fusion on the localization dev set.

  tune.py dump   TREES DUMPDIR        run `cairn search --dump-generators` once per task
  tune.py eval   DUMPDIR [k=v ...]    fuse the dumped rankings with given settings, score them
  tune.py ablate DUMPDIR              each generator alone, and fused without each one

The fusion here mirrors retrieval/fuse (reciprocal-rank fusion with per-
generator weights, file scores from file-level generators plus each chunk
generator's best chunk per file, a test-path penalty, a file share added to
chunk scores); scoring uses the benchmark's own score.py. Settings found
here are global (one per generator), never per repository or task; the
defaults in fuse.go are what `eval` prints with no arguments.
"""
import json, os, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
LOC = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "bench", "localization"))
sys.path.insert(0, LOC)
import score  # noqa: E402  (the benchmark's scorer)

DEFAULTS = {"text": 0.5, "file": 0.5, "vector": 0.7, "symbol": 0.3, "path": 0.6, "graph": 0.4, "rank": 0.4,
            "k": 20.0, "share": 0.5, "test": 0.4, "doc": 0.3}

# the extensions of the languages cairn parses (fuse.go codeExts)
CODE = (".go", ".py", ".pyi", ".pyx", ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".java", ".rs",
        ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh")


def penalty(p, cfg):
    f = cfg["test"] if is_test(p) else 1.0
    if not p.endswith(CODE):
        f *= cfg["doc"]
    return f

TEST_DIRS = ("/test/", "/tests/", "/testing/", "/__tests__/", "/testdata/")


def is_test(p):
    b = os.path.basename(p)
    if (b.endswith("_test.go") or (b.startswith("test_") and b.endswith(".py")) or b.endswith("_test.py")
            or b == "conftest.py" or ".test." in b or ".spec." in b):
        return True
    return any(d in "/" + p for d in TEST_DIRS)


def tasks():
    out = []
    for f in ("tasks_python.jsonl", "tasks_go.jsonl"):
        for line in open(os.path.join(LOC, f)):
            if line.strip():
                out.append(json.loads(line))
    return out


def dump(trees, dumpdir):
    os.makedirs(dumpdir, exist_ok=True)
    for t in tasks():
        out = os.path.join(dumpdir, t["id"] + ".json")
        if os.path.exists(out):
            continue
        repo = os.path.join(trees, t["repo"] + "@" + t["base_commit"])
        subprocess.run(["cairn", "index", "-q", repo], check=True)
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as q:
            q.write(t["query"])
        r = subprocess.run(["cairn", "search", "--repo", repo, "--query-file", q.name, "--dump-generators",
                            "--limit", "100", "--files", "50"], capture_output=True, text=True)
        os.unlink(q.name)
        if r.returncode != 0:
            print(t["id"], r.stderr, file=sys.stderr)
            continue
        with open(out, "w") as fh:
            fh.write(r.stdout)
        print("dumped", t["id"], file=sys.stderr)


def fuse(gens, cfg, only=None, drop=None):
    """gens: list of dump entries -> list of (path, symbol) like score.py items."""
    def on(g):
        return (only is None or g in only) and g != drop
    k = cfg["k"]
    chunk = {}   # chunk id -> [path, symbol, {gen: rank}]
    file_rank = {}  # gen -> {path: rank}
    for e in gens:
        g = e["gen"]
        if not on(g):
            continue
        if e.get("file"):
            file_rank.setdefault(g, {})[e["path"]] = e["rank"]
        else:
            c = chunk.setdefault(e["chunk"], [e["path"], e.get("symbol"), {}])
            c[2][g] = min(c[2].get(g, 10 ** 9), e["rank"])
    fscore = {}
    for g, m in file_rank.items():
        for p, r in m.items():
            fscore[p] = fscore.get(p, 0) + cfg[g] / (k + r)
    best = {}
    for _, (p, _, ranks) in chunk.items():
        for g, r in ranks.items():
            b = best.setdefault(g, {})
            b[p] = min(b.get(p, 10 ** 9), r)
    for g, m in best.items():
        for p, r in m.items():
            fscore[p] = fscore.get(p, 0) + cfg[g] / (k + r)
    for p in fscore:
        fscore[p] *= penalty(p, cfg)
    files = sorted(fscore, key=lambda p: (-fscore[p], p))[:10]
    scored = []
    for cid, (p, sym, ranks) in chunk.items():
        s = sum(cfg[g] / (k + r) for g, r in ranks.items())
        s *= penalty(p, cfg)
        s += cfg["share"] * fscore.get(p, 0)
        scored.append((-s, p, cid, sym))
    scored.sort()
    items = [(p, None) for p in files] + [(p, sym) for _, p, _, sym in scored[:20]]
    return items


def evaluate(dumpdir, cfg, only=None, drop=None, verbose=True):
    rows = {"ALL": [], "python": [], "go": []}
    for t in tasks():
        f = os.path.join(dumpdir, t["id"] + ".json")
        if not os.path.exists(f):
            continue
        d = json.load(open(f))
        items = fuse(d.get("generators") or [], cfg, only, drop)
        r = score.score_task(t, items)
        rows["ALL"].append(r)
        rows[t["language"]].append(r)
    summ = {}
    for g, rs in rows.items():
        if not rs:
            continue
        s = {"n": len(rs)}
        for key in ("acc@1", "acc@5", "acc@10", "mrr"):
            s[key] = sum(r[key] for r in rs) / len(rs)
        fn = [r for r in rs if "fn_acc@10" in r]
        for key in ("fn_acc@1", "fn_acc@5", "fn_acc@10"):
            s[key] = sum(r[key] for r in fn) / len(fn) if fn else float("nan")
        summ[g] = s
    if verbose:
        for g, s in summ.items():
            print(f"  {g:7s} n={s['n']:3d} acc@1={s['acc@1']:.3f} acc@5={s['acc@5']:.3f} acc@10={s['acc@10']:.3f} "
                  f"mrr={s['mrr']:.3f} fn@1={s['fn_acc@1']:.3f} fn@5={s['fn_acc@5']:.3f} fn@10={s['fn_acc@10']:.3f}")
    return summ


def main():
    cmd = sys.argv[1]
    if cmd == "dump":
        dump(sys.argv[2], sys.argv[3])
        return
    dumpdir = sys.argv[2]
    cfg = dict(DEFAULTS)
    for kv in sys.argv[3:]:
        k, v = kv.split("=")
        cfg[k] = float(v)
    if cmd == "eval":
        print(cfg)
        evaluate(dumpdir, cfg)
    elif cmd == "ablate":
        gens = ["text", "file", "vector", "symbol", "path", "graph", "rank"]
        for g in gens:
            print(f"{g} alone:")
            evaluate(dumpdir, cfg, only={g})
        print("all fused:")
        evaluate(dumpdir, cfg)
        for g in gens:
            print(f"without {g}:")
            evaluate(dumpdir, cfg, drop=g)


if __name__ == "__main__":
    main()
