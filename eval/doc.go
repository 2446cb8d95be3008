// Package eval is cairn's evaluations of the engine, and the framework
// every evaluation suite shares: one command after every change of model,
// prompt, policy or engine says what moved, as numbers per task and
// overall, compared with a previous run.
//
// It measures the engine's answers (search, context packs) and nothing of
// the agent: the agent's suites (the verification gate, agent runs) are in
// agent/eval, which builds on the framework here. It may import the engine
// and what is below it, never the gate or the agent.
//
// # Suites
//
// Each suite reads a task file, runs its tasks and returns rows (one per
// task, or per task and variant) and a Summary: the headline metrics (the
// numbers a baseline is compared on, in Order), and the suite's own detail.
// Write puts them in DIR/rows.jsonl (each row's own fields plus "key" and
// "outcome") and DIR/summary.json; Compare reads a previous DIR and gives
// the metrics' deltas and the rows whose outcome changed, was added or
// went away.
//
// # localize and context
//
// RunLocalize and RunContext compute the metrics of
// ../shared/bench/localization's score.py and score_context.py over the
// same task files and trees (TREES/OWNER/NAME@BASE_COMMIT) from an Engine's
// output text, read in every format those scorers read: file Acc@1/5/10,
// Recall@5/10, MRR and the function-level ones (score.py); fn_cov, fn_full,
// fn_sig, task_fn_cov, files_all, file_recall, used/est/content tokens per
// budget (score_context.py), grouped as they group (ALL, lang:X when there
// are several, each repository). Gold spans are found as evalcommon.py
// finds them: its Go declaration scan and go_block_end's brace matching
// are ported; Python's ast is replaced by tree-sitter's Python grammar (a
// definition's last line is its last statement's, as ast's end_lineno; a
// file that does not parse gets evalcommon's indentation fallback). The
// Python scorers stay the reference: the tests score the same answers
// with both and compare every metric and every gold span. The engine is
// cairn itself in the CLI (cmd/cairn runs its own index, search --json and
// context --json), or CommandEngine: score.py's command templates.
//
// # Reports
//
// Report is a run as sections of text, tables and plots; HTML renders it
// as one self-contained page — inline CSS and SVG (bars per task, the
// confusion matrix, latency strips with p50/p95, the baseline comparison),
// no script, a Content-Security-Policy that forbids every fetch — and
// Markdown renders its tables for a PR comment. A test opens the pages in
// Debian's chromium (chromedp, evaltest.CheckInChromium, which agent/eval's
// reports are checked by too) with the CSP bypassed and checks that they
// render, that every plot's data points have a size, and that the page
// requests nothing but itself. Report, the suites' Summary, Write, Compare
// and the statistics (Mean, Quantile, Round) are what agent/eval's suites
// use of this package.
package eval
