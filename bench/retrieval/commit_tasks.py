#!/usr/bin/env python3
"""Localization tasks from the fix commits of a repository's history.

The dev set's Go tasks all come from one repository (grpc-go), whose files
are large; issue 20's private set says Go behaves differently on
repositories the engine has never seen, where files are small. This makes
tasks of the same format as ../shared/bench/localization/tasks_*.jsonl from
any git repository, so that score.py and score_context.py (and their
baselines) run on them unchanged:

  python3 bench/retrieval/commit_tasks.py GITDIR OWNER/NAME [--lang go]
      [--max 25] [--scan 4000] > tasks.jsonl

A task is a commit on the first-parent history whose subject says it fixes
something ("fix", "fixes", "bug", "panic", "crash", "regression") and is
not about docs, comments, typos, lint or licences, that
changes one to six existing non-test files of the language (no other code
file; tests may change too) and at most 200 lines of them, inside at least
one definition. The query is the
commit's message without trailers and pull-request numbers; the base is its
parent; gold files and functions are derived exactly as the dev set's
(evalcommon: tests left out, the pre-image scopes the diff touches).

With --kind change the commits are those whose subject asks to rename,
deprecate, export or unexport a code-shaped name ("deprecate
WithSharedWriteBuffer", "Rename IndexBuilder -> ShardBuilder", "remove
deprecated `lookup_srv`"), fix or not, changing up to eight files and 400
lines: the tasks where every place that uses a name changes with it.

With --kind refs the commits are those whose message, once its own
pull-request number and "Fixes #N" lines are taken out, still names
another change — a commit hash ("regression from 1a2b3c4d"), a pull
request or issue ("follow-up to #3165", "see gh-812") — as the engine's
query parser finds them (retrieval/query Refs); reverts left out. On
trees with history (HISTORY=1 prepare.sh) they measure what the history
generator makes of a change the text names.

What this is not: an issue. A commit message is written by whoever fixed
the bug and names the fix's identifiers more often than a report does, so
Acc@k here is an easier, different measure than on issues; it is used to
compare rankings and packs with each other and with BM25 on the same
tasks, not as a score to quote against the dev set. Deterministic: the
newest qualifying commits, every STEP-th so that the tasks spread over the
scanned history.
"""
import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "shared", "bench", "localization"))
import evalcommon as ec  # noqa: E402

EXT = {"go": (".go",), "python": (".py",)}
FIX = re.compile(r"\b(fix(es|ed)?|bug|panic|crash|regression)\b", re.I)
SKIP = re.compile(r"^(revert|merge|bump|chore|docs?|ci|build|deps)\b|dependabot|"
                  r"\b(typos?|docs?|docstrings?|comments?|lint|linters?|spelling|grammar|grammatical|"
                  r"license|whitespace|readme|changelog)\b", re.I)
TRAILER = re.compile(r"^[A-Za-z-]+: .*$")
# --kind change: a commit whose subject asks to rename, deprecate, export or
# unexport something code-shaped (backticked, a dotted name, snake_case or
# camelCase with a capital inside: "deprecate WithDialer", "rename
# IndexBuilder -> ShardBuilder"), fix or not; "chore:" may prefix it.
CHANGE = re.compile(r"\b(renam(e|es|ed|ing)|deprecat(e|es|ed|ing)|(un)?export(s|ed|ing)?)\s+"
                    r"(the\s+)?((func(tion)?|method|type|field|var(iable)?|const(ant)?|interface|struct|option)\s+)?"
                    r"`?(?P<name>[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*)`?", re.I)
CHANGE_SKIP = re.compile(r"^(revert|merge|bump|docs?|ci|build|deps)\b|dependabot|\b(module|package|packages|directory|repo(sitory)?)\b", re.I)


def code_shaped(name, quoted):
    if quoted or "." in name or "_" in name.strip("_"):
        return True
    return re.search(r"[a-z][A-Z]|[A-Z][a-z]+[A-Z]", name) is not None


def change_subject(subject):
    """The code-shaped name a change commit's subject asks to rename,
    deprecate, export or unexport, or None."""
    if CHANGE_SKIP.search(subject):
        return None
    for m in CHANGE.finditer(subject):
        name = m.group("name")
        if code_shaped(name, "`" in m.group(0)):
            return name
    return None


# --kind refs: the engine's reading of a named change (retrieval/query refs):
# a number after "#" (not inside a word), "gh-", "PR", "pull request",
# "issue"; a hash of 7-12 or 40 hex digits with a letter and a digit, not
# inside a link other than a commit's.
URL = re.compile(r"\bhttps?://[^\s<>\"'`)\]]+")
REF_LINK = re.compile(r"/(?:pulls?|issues|merge_requests)/\d+|/commits?/[0-9a-f]{7,40}")
NUMBER = re.compile(r"(?i)(?:(?:^|[\s(\[,;:])#|\bgh-|\b(?:PR|pull request|pull|issue|MR|merge request)[\s/]*#?\s*)\d{2,7}\b")
HEX = re.compile(r"\b[0-9a-f]{7,40}\b")


def names_change(text):
    text = re.sub(r"(?s)```.*?```", " ", text)
    if any(REF_LINK.search(u) for u in URL.findall(text)):
        return True
    prose = URL.sub(" ", text)
    if NUMBER.search(prose):
        return True
    return any((len(h) <= 12 or len(h) == 40) and re.search(r"[a-f]", h) and re.search(r"\d", h)
               for h in HEX.findall(prose))


def git(gitdir, *args, ok=(0,)):
    p = subprocess.run(["git", "--git-dir", gitdir, *args], capture_output=True)
    if p.returncode not in ok:
        raise RuntimeError(f"git {' '.join(args)}: {p.stderr.decode(errors='replace')}")
    return p.stdout.decode("utf-8", errors="replace")


def query_of(subject, body):
    subject = re.sub(r"\s*\(#\d+\)\s*$", "", subject).strip()
    lines = []
    for ln in body.splitlines():
        s = ln.strip()
        if TRAILER.match(s) and re.match(r"^(Signed-off-by|Co-authored-by|Reviewed-by|Change-Id|Fixes|Closes|Updates|Refs?)\b", s, re.I):
            continue
        if re.fullmatch(r"(fix(es)?|close[sd]?|resolve[sd]?)?\s*#\d+\.?", s, re.I):
            continue
        lines.append(ln.rstrip())
    body = "\n".join(lines).strip()
    return subject + ("\n\n" + body if body else "")


def task_of(gitdir, repo, lang, sha, parent, subject, body, max_files=6, max_lines=200, dataset="fix-commits"):
    exts = EXT[lang]
    names = git(gitdir, "diff", "--name-status", "--no-renames", parent, sha).splitlines()
    gold, code = [], 0
    for row in names:
        st, _, path = row.partition("\t")
        if not ec.is_code_file(path):
            continue
        code += 1
        if not path.endswith(exts):
            return None  # another language changes too
        if ec.is_test_path(path):
            continue
        if st != "M" or "vendor/" in path or path.endswith((".pb.go", "_generated.go")):
            return None  # a new, deleted or generated file: not something to find
        gold.append(path)
    if not 1 <= len(gold) <= max_files:
        return None
    diff = git(gitdir, "diff", "--unified=0", "--no-renames", parent, sha, "--", *gold)
    recs = ec.parse_unified_diff(diff)
    changed = sum(len(r["removed"]) + sum(len(a) for _, a in r["inserts"]) for r in recs)
    if changed > max_lines:
        return None
    funcs = []
    for r in recs:
        path = r["old"] or r["new"]
        pre = git(gitdir, "show", f"{parent}:{path}")
        funcs += [f"{path}::{s}" for s in ec.changed_symbols(path, pre, r)]
    if not funcs:
        return None  # nothing inside a definition changed: no function to find
    q = query_of(subject, body)
    if len(q) < 20:
        return None
    return {
        "id": f"{repo.replace('/', '__')}-{sha[:10]}",
        "repo": repo,
        "base_commit": parent,
        "query": q,
        "gold_files": sorted(gold),
        "gold_functions": funcs,
        "other_changed_files": [],
        "language": lang,
        "dataset": dataset,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("gitdir")
    ap.add_argument("repo", help="OWNER/NAME, as prepare.sh's clones file names it")
    ap.add_argument("--lang", default="go", choices=sorted(EXT))
    ap.add_argument("--max", type=int, default=25, help="tasks to write")
    ap.add_argument("--scan", type=int, default=4000, help="first-parent commits to look at")
    ap.add_argument("--kind", default="fix", choices=["fix", "change", "refs"],
                    help="fix commits, or commits that rename, deprecate, export or unexport a named "
                         "definition (up to 8 files and 400 changed lines)")
    args = ap.parse_args()
    gd = args.gitdir
    if os.path.isdir(os.path.join(gd, ".git")):
        gd = os.path.join(gd, ".git")
    log = git(gd, "log", "--first-parent", "--no-merges", f"-{args.scan}",
              "--format=%H%x00%P%x00%s%x00%b%x1e", "HEAD")
    found = []
    for rec in log.split("\x1e"):
        rec = rec.strip("\n")
        if not rec:
            continue
        sha, parents, subject, body = (rec.split("\x00") + ["", "", ""])[:4]
        parents = parents.split()
        if len(parents) != 1:
            continue
        if args.kind == "fix":
            if SKIP.search(subject) or not FIX.search(subject):
                continue
            t = task_of(gd, args.repo, args.lang, sha, parents[0], subject, body)
        elif args.kind == "refs":
            if SKIP.search(subject) or not names_change(query_of(subject, body)):
                continue
            t = task_of(gd, args.repo, args.lang, sha, parents[0], subject, body, dataset="ref-commits")
        else:
            if change_subject(subject) is None:
                continue
            t = task_of(gd, args.repo, args.lang, sha, parents[0], subject, body,
                        max_files=8, max_lines=400, dataset="change-commits")
        if t:
            found.append(t)
    step = max(1, len(found) // args.max)
    picked = found[::step][: args.max]
    print(f"{args.repo}: {len(found)} qualifying commits, {len(picked)} tasks", file=sys.stderr)
    for t in picked:
        print(json.dumps(t))


if __name__ == "__main__":
    main()
