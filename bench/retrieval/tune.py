#!/usr/bin/env python3
"""Offline evaluation of cairn's rank fusion on the localization dev set.

  tune.py dump   TREES DUMPDIR        run `cairn search --dump-generators` once per task
  tune.py eval   DUMPDIR [k=v ...]    fuse the dumped rankings with given settings, score them
  tune.py ablate DUMPDIR              each generator alone, and fused without each one
  tune.py cv     DUMPDIR              two-fold cross-validation of a grid over the graph,
                                      vector and symbol weights and the RRF k (5 splits)
  tune.py cv     DUMPDIR GEN [k=v]    the same over one generator's weight alone (e.g. history),
                                      or another setting's (length: the function length prior),
                                      with other settings fixed at k=v (nofile_change=1)
  TASKS=FILE...  another task set than the dev set's (commit_tasks.py's)

The fusion here mirrors retrieval/fuse (reciprocal-rank fusion with per-
generator weights, file scores from file-level generators plus each chunk
generator's best chunk per file, a test-path penalty, a file share added to
chunk scores); scoring uses the benchmark's own score.py. Settings found
here are global (one per generator), never per repository or task; the
defaults in fuse.go are what `eval` prints with no arguments.
"""
import hashlib, itertools, json, os, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
LOC = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "bench", "localization"))
sys.path.insert(0, LOC)
import score  # noqa: E402  (the benchmark's scorer)

DEFAULTS = {"text": 0.5, "file": 0.5, "title": 0.4, "vector": 0.6, "symbol": 0.4, "path": 0.6, "message": 0.5, "history": 0.5, "unwritten": 0.5, "change": 1.0, "graph": 0.5, "rank": 0.4,
            "k": 30.0, "share": 0.5, "test": 0.4, "doc": 0.3, "vendor": 0.5, "graphchunks": 0.6,
            "length": 0.25}

# the extensions of the languages cairn parses (fuse.go codeExts)
CODE = (".go", ".py", ".pyi", ".pyx", ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".java", ".rs",
        ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh")


VENDOR_DIRS = {"vendor", "vendors", "_vendor", "vendored", "third_party", "thirdparty", "third-party", "3rdparty",
               "extern", "externals", "node_modules", "bower_components"}


def is_vendored(p):
    """fuse.go isVendored; its Python rule (a package named "packages" in a
    package) is approximated by the name alone here."""
    dirs = p.split("/")[:-1]
    return any(d in VENDOR_DIRS for d in dirs) or (p.endswith(".py") and "packages" in dirs[1:])


def penalty(p, cfg):
    f = cfg["test"] if is_test(p) else 1.0
    if is_vendored(p):
        f *= cfg["vendor"]
    if not p.endswith(CODE):
        f *= cfg["doc"]
    elif p.split("/")[0] in ("doc", "docs", "documentation", "Documentation"):
        f *= cfg.get("docdir", 1.0)
    return f

TEST_DIRS = ("/test/", "/tests/", "/testing/", "/__tests__/", "/testdata/")


def is_test(p):
    b = os.path.basename(p)
    if (b.endswith("_test.go") or (b.startswith("test_") and b.endswith(".py")) or b.endswith("_test.py")
            or b == "conftest.py" or ".test." in b or ".spec." in b):
        return True
    return any(d in "/" + p for d in TEST_DIRS)


def tasks():
    """The dev set's tasks, or those of the files $TASKS names (space
    separated; another set of the same format, such as commit_tasks.py's)."""
    out = []
    files = os.environ.get("TASKS", "").split() or [os.path.join(LOC, f) for f in ("tasks_python.jsonl", "tasks_go.jsonl")]
    for f in files:
        for line in open(f):
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


def fuse(gens, cfg, only=None, drop=None, cochange=None):
    """cochange: the task's co-change counts (the experimental cochange knob)."""
    """gens: list of dump entries -> list of (path, symbol) like score.py items."""
    def on(g):
        return (only is None or g in only) and g != drop
    def kk(g):
        return cfg.get("k_" + g, cfg["k"])
    chunk = {}   # chunk id -> [path, symbol, {gen: rank}]
    lines = {}   # chunk id -> its length in lines
    file_rank = {}  # gen -> {path: rank}
    for e in gens:
        g = e["gen"]
        if not on(g):
            continue
        if e.get("file"):
            if cfg.get("nofile_" + g, 0) == 0:
                file_rank.setdefault(g, {})[e["path"]] = e["rank"]
        else:
            c = chunk.setdefault(e["chunk"], [e["path"], e.get("symbol"), {}, e.get("kind")])
            lines[e["chunk"]] = e.get("lines", 1)
            c[2][g] = min(c[2].get(g, 10 ** 9), e["rank"])
    fscore = {}
    for g, m in file_rank.items():
        for p, r in m.items():
            fscore[p] = fscore.get(p, 0) + cfg[g] / (kk(g) + r)
    best = {}
    for _, (p, _, ranks, _) in chunk.items():
        for g, r in ranks.items():
            best.setdefault(g, {}).setdefault(p, []).append(r)
    decay = cfg.get("decay", 0.0)
    depth = int(cfg.get("depth", 1))
    for g, m in best.items():
        if cfg.get("fg_" + g, 1.0) == 0:
            continue
        for p, rs in m.items():
            rs.sort()
            for j, r in enumerate(rs[:depth]):
                fscore[p] = fscore.get(p, 0) + (decay ** j) * cfg[g] / (kk(g) + r)
    for p in fscore:
        fscore[p] *= penalty(p, cfg)
    # experimental set completion (off at 0): a test file's score passes to
    # the code file it tests (foo_test.go -> foo.go, test_foo.py -> foo.py
    # in the same directory); files of one directory (a Go package) share a
    # part of each other's scores
    tx = cfg.get("testxfer", 0.0)
    if tx:
        add = {}
        for p, sc in fscore.items():
            d, b = os.path.split(p)
            cands = []
            if b.endswith("_test.go"):
                cands.append(os.path.join(d, b[:-8] + ".go"))
            elif b.startswith("test_") and b.endswith(".py"):
                cands.append(os.path.join(d, b[5:]))
            for c in cands:
                if c in fscore:
                    add[c] = add.get(c, 0) + tx * sc / max(penalty(p, cfg), 1e-9)
        for c, v in add.items():
            fscore[c] += v * penalty(c, cfg)
    ds = cfg.get("dirshare", 0.0)
    if ds:
        bydir = {}
        for p, sc in fscore.items():
            if not is_test(p) and (cfg.get("dirgo", 0) == 0 or p.endswith(".go")):
                bydir.setdefault(os.path.dirname(p), []).append(sc)
        top = int(cfg.get("dirtop", 3))
        base = dict(fscore)
        for p in fscore:
            if is_test(p) or (cfg.get("dirgo", 0) and not p.endswith(".go")):
                continue
            others = sorted(bydir.get(os.path.dirname(p), []), reverse=True)
            mine = base[p]
            others.remove(mine)
            fscore[p] = base[p] + ds * sum(others[:top])
    cc = cfg.get("cochange", 0.0)
    if cc and cochange:
        data = cochange
        ranked = sorted(fscore, key=lambda p: (-fscore[p], p))
        add = {}
        for h in ranked[:int(cfg.get("cctop", 1))]:
            nh = data["n"].get(h, 0)
            if nh < cfg.get("ccmin", 3):
                continue
            for g2, c in data["pair"].get(h, {}).items():
                if g2 in fscore and not is_test(g2):
                    add[g2] = add.get(g2, 0) + cc * fscore[h] * c / nh
        for g2, v in add.items():
            fscore[g2] += v
    files = sorted(fscore, key=lambda p: (-fscore[p], p))[:10]
    scored = []
    for cid, (p, sym, ranks, kind) in chunk.items():
        # centrality counts for files only (fuse.go chunkWeight), the
        # graph's evidence in part (fuse.go graphChunks)
        s = sum(cfg[g] * (cfg["graphchunks"] if g == "graph" else 1) / (kk(g) + r) for g, r in ranks.items() if g != "rank")
        s *= penalty(p, cfg)
        if kind == "function" and only is None:
            # a function's length in lines, to a power (fuse.go lengthPrior;
            # off when Options.Only names generators)
            s *= max(lines.get(cid, 1), 1) ** cfg["length"]
        s += cfg["share"] * fscore.get(p, 0)
        if kind == "type":
            s *= cfg.get("typef", 1.0)
        scored.append((-s, p, cid, sym))
    scored.sort()
    items = [(p, None) for p in files] + [(p, sym) for _, p, _, sym in scored[:int(cfg.get("nchunks", 20))]]
    return items


def evaluate(dumpdir, cfg, only=None, drop=None, verbose=True):
    rows = {"ALL": [], "python": [], "go": []}
    for t in tasks():
        f = os.path.join(dumpdir, t["id"] + ".json")
        if not os.path.exists(f):
            continue
        d = json.load(open(f))
        ccf = os.path.join(dumpdir, t["id"] + ".cochange.json")
        cochange = json.load(open(ccf)) if cfg.get("cochange") and os.path.exists(ccf) else None
        items = fuse(d.get("generators") or [], cfg, only, drop, cochange)
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


def cv(dumpdir, splits=5, weight_of=None, fixed=None):
    """Choose grid settings on one half of the tasks, score them on the
    other: does what tuning finds carry to tasks it did not see? The
    objective is the sum of the three targets (file Acc@1 and Acc@5,
    function Acc@10); every setting's per-task scores are computed once."""
    ts = [t for t in tasks() if os.path.exists(os.path.join(dumpdir, t["id"] + ".json"))]
    gens = {t["id"]: json.load(open(os.path.join(dumpdir, t["id"] + ".json"))).get("generators") or [] for t in ts}
    grid = [dict(graph=g, vector=v, symbol=s, rank=r, k=k) for g, v, s, r, k in
            itertools.product([0.4, 0.5, 0.6], [0.5, 0.6, 0.7], [0.3, 0.4, 0.5], [0.2, 0.3, 0.4], [20.0, 30.0])]
    if weight_of:  # one generator's weight alone (0: off)
        grid = [{weight_of: w} for w in (0.0, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0, 1.2, 1.5)]

    def key(g):
        return tuple(sorted(g.items()))

    def objective(r):
        return r["acc@1"] + r["acc@5"] + r.get("fn_acc@10", 0.0)

    per = {}
    for g in grid + [{}]:
        cfg = {**DEFAULTS, **(fixed or {}), **g}
        per[key(g)] = {t["id"]: objective(score.score_task(t, fuse(gens[t["id"]], cfg))) for t in ts}

    def mean(g, ids):
        return sum(per[key(g)][i] for i in ids) / len(ids)

    gains = []
    for seed in range(splits):
        half = {t["id"]: hashlib.md5((t["id"] + str(seed)).encode()).digest()[0] % 2 for t in ts}
        for f in (0, 1):
            train = [i for i, h in half.items() if h == f]
            test = [i for i, h in half.items() if h != f]
            # ties go to the settings nearest the defaults
            best = max(grid, key=lambda g: (mean(g, train), -sum(abs(g[k] - DEFAULTS[k]) for k in g)))
            tuned, default = mean(best, test), mean({}, test)
            gains.append(tuned - default)
            print(f"split {seed} half {f}: chose {best}; held-out objective {tuned:.3f} (defaults {default:.3f})")
    print(f"mean held-out gain of tuning: {sum(gains) / len(gains):+.3f} (acc@1 + acc@5 + fn_acc@10)")


def main():
    cmd = sys.argv[1]
    if cmd == "dump":
        dump(sys.argv[2], sys.argv[3])
        return
    if cmd == "cv":
        extra = [a for a in sys.argv[3:] if "=" in a]
        gen = [a for a in sys.argv[3:] if "=" not in a]
        cv(sys.argv[2], weight_of=gen[0] if gen else None,
           fixed={k: float(v) for k, v in (a.split("=", 1) for a in extra)})
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
        gens = ["text", "file", "title", "vector", "symbol", "path", "message", "history", "unwritten", "change", "graph", "rank"]
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
