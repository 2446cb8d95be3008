#!/usr/bin/env python3
"""Impact benchmark on golang.org/x/tools: for each chosen function, compare
the affected test set `cairn impact` selects with the tests that fail when
the function is broken on purpose.

  breakit.py XTOOLS_COPY FUNC... (FUNC = dir:Name or dir:Type.Method)

For each function: `cairn impact --json` gives the selected tests; the
function gets `panic("cairn-bench: broken")` as its first statement; every
package whose test binary links the function's package (go list -test -deps)
is tested with go test -json, and a test that panics is skipped (-skip) and
the package rerun until it finishes, so every failing test is counted, not
just the first. Failures that also happen on the unbroken tree are left
out. Reported: recall of failing tests by the selection, the selection's
size and precision, against the whole suite's size.

The failing tests of a broken function depend on x/tools and Go only, not on
cairn: they are kept in FAIL_CACHE (JSON, keyed by function and Go version),
so that a later run scores a new selection against them without running the
tests again (delete the file to measure them anew).
"""
import json, os, re, subprocess, sys, time

ROOT = sys.argv[1]
FUNCS = sys.argv[2:]
CAIRN = os.environ.get("CAIRN", "cairn")
ENV = dict(os.environ, GOFLAGS="-mod=mod", CGO_ENABLED="0")
TIMEOUT = int(os.environ.get("PKG_TIMEOUT", "300"))


def sh(args, **kw):
    return subprocess.run(args, cwd=ROOT, env=ENV, capture_output=True, text=True, **kw)


def module():
    return sh(["go", "list", "-m"]).stdout.strip()


def reverse_test_deps(pkg):
    """packages whose test binaries link pkg"""
    out = sh(["go", "list", "-e", "-test", "-f", "{{.ImportPath}}\t{{join .Deps \" \"}}", "./..."]).stdout
    pkgs = set()
    for line in out.splitlines():
        ip, _, deps = line.partition("\t")
        if not ip.endswith(".test"):
            continue
        p = ip[:-5]
        if p == pkg or pkg in deps.split():
            pkgs.add(p)
    return sorted(pkgs)


def failing(pkg):
    """top-level tests of pkg that fail, rerunning past panics"""
    fails, skip, rounds = set(), [], 0
    while rounds < 60:
        rounds += 1
        args = ["go", "test", "-json", "-count=1", "-timeout", f"{TIMEOUT}s"]
        if skip:
            args += ["-skip", "^(" + "|".join(re.escape(s) for s in skip) + ")$"]
        try:
            r = sh(args + [pkg], timeout=TIMEOUT + 120)
        except subprocess.TimeoutExpired:
            return fails, "timeout"
        started, done, new = set(), set(), set()
        build_failed = False
        for line in r.stdout.splitlines():
            try:
                e = json.loads(line)
            except ValueError:
                continue
            t = e.get("Test")
            if e.get("Action") == "build-fail" or (e.get("Action") == "output" and "[build failed]" in e.get("Output", "")):
                build_failed = True
            if not t:
                continue
            top = t.split("/")[0]
            if e["Action"] == "run":
                started.add(top)
            if e["Action"] in ("pass", "fail", "skip") and "/" not in t:
                done.add(top)
                if e["Action"] == "fail":
                    new.add(top)
        if build_failed:
            return fails, "build failed"
        fails |= new
        # a panic ends the binary: the test running then has no result
        crashed = started - done
        if r.returncode == 0 or not (new - set(skip)) and not crashed:
            return fails, None
        fails |= crashed
        more = (new | crashed) - set(skip)
        if not more:
            return fails, None
        skip += sorted(more)
    return fails, "too many rounds"


def impact(name):
    r = subprocess.run([CAIRN, "impact", "--json", "--repo", ROOT, name], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"cairn impact {name}: {r.stderr}")
    return json.loads(r.stdout)


def definition(d, name):
    r = subprocess.run([CAIRN, "def", "--json", "--repo", ROOT, name], capture_output=True, text=True)
    for s in json.loads(r.stdout)["results"] if r.returncode == 0 else []:
        if os.path.dirname(s["path"]) == d:
            return s
    sys.exit(f"no definition of {name} in {d}")


def suite_size():
    n, pk = 0, set()
    for dp, dn, fn in os.walk(ROOT):
        dn[:] = [x for x in dn if x not in (".git", ".cairn", "testdata")]
        for f in fn:
            if f.endswith("_test.go"):
                for line in open(os.path.join(dp, f), errors="replace"):
                    if re.match(r"^func (Test|Example|Fuzz)\w*\(", line) and not line.startswith("func TestMain("):
                        n += 1
                        pk.add(dp)
    return n, len(pk)


CACHE_FILE = os.environ.get("FAIL_CACHE", "")
CACHE = json.load(open(CACHE_FILE)) if CACHE_FILE and os.path.exists(CACHE_FILE) else {}
GOVERSION = subprocess.run(["go", "env", "GOVERSION"], capture_output=True, text=True).stdout.strip()


def report(rows, spec, failed, sel, ncands, notes, t0, total_tests):
    hit = failed & sel
    recall = len(hit) / len(failed) if failed else float("nan")
    prec = len(hit) / len(sel) if sel else float("nan")
    missed = sorted(failed - sel)
    rows.append(dict(function=spec, failing=len(failed), selected=len(sel), hit=len(hit), recall=recall,
                     precision=prec, candidates=ncands, seconds=round(time.time() - t0), missed=missed[:15], notes=notes))
    print(f"{spec}: failing {len(failed)}, selected {len(sel)} ({len(sel)/total_tests:.1%} of the suite), "
          f"recall {recall:.3f}, precision {prec:.3f}, packages tested {ncands}, {time.time()-t0:.0f}s")
    if missed:
        print("  missed:", ", ".join(f"{a}.{b}" for a, b in missed[:15]))
    for n in notes:
        print("  note:", n)


def main():
    mod = module()
    total_tests, total_pkgs = suite_size()
    print(f"suite: {total_tests} tests in {total_pkgs} packages ({mod})")
    rows = []
    for spec in FUNCS:
        d, name = spec.split(":")
        s = definition(d, name)
        t0 = time.time()
        imp = impact(name)
        sel = {(os.path.dirname(t["path"]), t["name"]) for t in imp["tests"] if os.path.dirname(t["path"]) }
        sel = {x for x in sel if not x[1].startswith("Benchmark")}
        pkg = mod + "/" + d
        key = f"{spec} {GOVERSION}"
        if key in CACHE:
            c = CACHE[key]
            failed = {tuple(x) for x in c["failed"]}
            report(rows, spec, failed, sel, c["candidates"], c["notes"] + ["failing tests from FAIL_CACHE"], t0, total_tests)
            continue
        cands = reverse_test_deps(pkg)
        path = os.path.join(ROOT, s["path"])
        src = open(path).read()
        lines = src.split("\n")
        i = s["start_line"] - 1
        while not lines[i].rstrip().endswith("{"):
            i += 1
        lines.insert(i + 1, '\tpanic("cairn-bench: broken")')
        base_fail, broke_fail, notes = {}, {}, []
        try:
            for p in cands:
                base_fail[p] = set()
            open(path, "w").write("\n".join(lines))
            for p in cands:
                f, err = failing(p)
                broke_fail[p] = f
                if err:
                    notes.append(f"{p}: {err}")
        finally:
            open(path, "w").write(src)
        # failures on the unbroken tree, only where the broken run failed
        for p in cands:
            if broke_fail[p]:
                base_fail[p], _ = failing(p)
        failed = set()
        for p in cands:
            rel = p[len(mod) + 1:] if p != mod else "."
            for t in broke_fail[p] - base_fail[p]:
                failed.add((rel, t))
        CACHE[key] = dict(failed=sorted(failed), candidates=len(cands), notes=notes)
        if CACHE_FILE:
            json.dump(CACHE, open(CACHE_FILE, "w"), indent=1)
        report(rows, spec, failed, sel, len(cands), notes, t0, total_tests)
    f = sum(r["failing"] for r in rows)
    h = sum(r["hit"] for r in rows)
    s = sum(r["selected"] for r in rows)
    print(f"ALL: failing {f}, selected {s}, recall {h/f if f else float('nan'):.3f}, precision {h/s if s else float('nan'):.3f}, "
          f"mean selection {s/len(rows)/total_tests:.1%} of {total_tests} tests")
    json.dump(rows, open(os.environ.get("OUT", "/dev/null"), "w"), indent=1)


main()
