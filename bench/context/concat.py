#!/usr/bin/env python3
"""The same-ranking whole-file baseline for bench/context/run.sh.

    concat.py CAIRN REPO_DIR QUERY_FILE BUDGET

Ranks files with `cairn search` (its fused file ranking) and concatenates
whole files in that order while they fit the budget, cutting the next at
the last line that fits; tokens are ceil(chars / 4) and nothing is spent
on citations, as score_context.py's bm25-concat counts them. A pack that
covers less than this at some budget loses to handing the model its own
ranking's files. Prints the items as JSON for score_context.py."""
import json
import math
import os
import subprocess
import sys


def main():
    cairn, repo, query_file, budget = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    out = subprocess.run([cairn, "search", "--json", "-q", "--repo", repo, "--query-file", query_file,
                          "--files", "60", "--limit", "1"], capture_output=True, text=True, check=True)
    files = [r["path"] for r in json.loads(out.stdout).get("files", [])]
    items, used = [], 0
    for rel in files:
        try:
            with open(os.path.join(repo, rel), encoding="utf-8", errors="replace") as fh:
                text = fh.read()
        except OSError:
            continue
        if not text:
            continue
        lines = text.split("\n")
        if text.endswith("\n"):
            lines.pop()
        cost = math.ceil(len(text) / 4)
        if used + cost <= budget:
            items.append({"path": rel, "start_line": 1, "end_line": len(lines)})
            used += cost
            continue
        chars = k = 0
        for ln in lines:
            if math.ceil((chars + len(ln) + 1) / 4) > budget - used:
                break
            chars += len(ln) + 1
            k += 1
        if k:
            items.append({"path": rel, "start_line": 1, "end_line": k})
            used += math.ceil(chars / 4)
        break
    print(json.dumps({"items": items, "used_tokens": used}))


if __name__ == "__main__":
    main()
