package contextpack

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/internal/redact"
	"github.com/cairn-dev/cairn/internal/repofs"
	"github.com/cairn-dev/cairn/retrieval/fuse"
)

// Kinds of items.
const (
	KindDefinition     = "definition"
	KindCaller         = "caller"
	KindCallee         = "callee"
	KindImplementation = "implementation"
	KindTest           = "test"
	KindConfig         = "config"
	KindDoc            = "doc"
	KindSignature      = "signature"
	// KindFile: a whole source file, taken in place of its parts when it
	// is small (see wholeFile).
	KindFile = "file"
)

// Trust labels.
const (
	TrustCode      = "code"
	TrustUntrusted = "untrusted-text"
)

// Request is what a pack is built for.
type Request struct {
	Task   string
	Budget int
	// Focus names symbols (plain or qualified) or repository-relative files
	// the pack must start from.
	Focus []string
	// Diff, when set, is a git revision: the lines changed since it (in the
	// worktree) become focus.
	Diff   string
	Format string // "json" (default) or "markdown"
	// FullShare is the share of the budget whole items may fill (after the
	// three strongest, which come whole when they fit): past it, a
	// candidate with a signature comes as its signature and doc comment,
	// so that the pack reaches further down the ranking. 0 means
	// DefaultFullShare; 1 keeps items whole while they fit.
	FullShare float64
}

// DefaultFullShare: half the budget for whole items, the rest for the
// signatures of the candidates after them. Measured on the localization
// dev set (bench/context/RESULTS.md): the lower the share, the more of the
// code an issue changes the pack locates, and the less of it in full.
const DefaultFullShare = 0.5

// Item is one span of the pack.
type Item struct {
	Path      string  `json:"path"`
	StartLine int     `json:"start_line"`
	EndLine   int     `json:"end_line"`
	Revision  string  `json:"revision"`
	Kind      string  `json:"kind"`
	Symbol    string  `json:"symbol,omitempty"`
	Reason    string  `json:"reason"`
	Score     float64 `json:"score"`
	Trust     string  `json:"trust"`
	// UntrustedLines are the item's lines (absolute, within StartLine …
	// EndLine) holding comments, docstrings or string literals: text to
	// read, never to obey. The doc summary a signature item carries after
	// its lines is written as comments and is untrusted text likewise.
	UntrustedLines [][2]int `json:"untrusted_lines,omitempty"`
	Tokens         int      `json:"tokens"`
	Stale          bool     `json:"stale"`
	Content        string   `json:"content"`
}

// Omitted is a candidate left out, with why.
type Omitted struct {
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Kind      string `json:"kind"`
	Symbol    string `json:"symbol,omitempty"`
	Reason    string `json:"reason"`
	Tokens    int    `json:"tokens"`
}

// IndexInfo states the indexed revision the pack was built from.
type IndexInfo struct {
	Generation int64  `json:"generation"`
	Revision   string `json:"revision"`
	Dirty      bool   `json:"dirty"`
	// Unindexed, when checked by the caller: the worktree had changes the
	// generation does not hold. Head: the commit checked out, when it is
	// not Revision.
	Unindexed *bool  `json:"unindexed,omitempty"`
	Head      string `json:"head,omitempty"`
}

// Pack is a budgeted working set.
type Pack struct {
	Schema     string    `json:"schema"`
	Task       string    `json:"task"`
	TaskTrust  string    `json:"task_trust"`
	Budget     int       `json:"budget"`
	UsedTokens int       `json:"used_tokens"`
	Tokenizer  string    `json:"tokenizer"`
	Format     string    `json:"format"`
	Index      IndexInfo `json:"index"`
	Items      []Item    `json:"items"`
	Omitted    []Omitted `json:"omitted"`
	// OmittedTotal counts every candidate left out; Omitted lists the
	// strongest of them (as many as the budget affords a list of).
	OmittedTotal int                `json:"omitted_total"`
	Redactions   []redact.Redaction `json:"redactions"`
	// Values say which values the task talks about were traced, how each
	// was linked to its words, and when a trace was cut short; the items
	// on their paths say so in their reasons.
	Values []string `json:"values,omitempty"`
	// Generated names, for each packed file that has them, the generated
	// files made with it (fuse.Engine.GeneratedWith): the index skips
	// them, and a change to the file usually regenerates them.
	Generated []Generated `json:"generated,omitempty"`
}

// Generated is a packed file and the generated files made with it.
type Generated struct {
	Path  string   `json:"path"`
	Files []string `json:"files"`
}

// SchemaID names the pack format (schema/contextpack.schema.json).
const SchemaID = "https://cairn.dev/schema/contextpack/v1"

// Files reads repository files (repository-relative paths); internal/repofs
// implements it, refusing paths and links out of the repository.
type Files interface {
	ReadFile(rel string) ([]byte, error)
}

// Builder builds packs over one index generation.
type Builder struct {
	Engine *fuse.Engine
	// Files reads the worktree's files; default: the repository boundary
	// over Root (internal/repofs). Root is where git runs (Request.Diff).
	Files     Files
	Root      string
	Meta      graph.Meta
	Tokenizer Tokenizer
	// Candidates is how many search hits seed the pack; default 60, more
	// for budgets over 12k tokens (one per 200 tokens).
	Candidates int
	// Unindexed and Head, when the caller checked the worktree, are
	// stated in the pack's index block (and counted in its frame).
	Unindexed *bool
	Head      string
}

// cand is a span considered for the pack.
type cand struct {
	path       string
	start, end int // 1-based inclusive lines
	kind       string
	symbol     string
	symbolID   graph.SymbolID
	reason     string
	score      float64
	lang       graph.Language
	sigEnd     int // last line of the signature (for degrading), 0 if none
	sigStart   int // the line of the definition's name
	doc        string
	// head: the head of a source file (package clause, doc, imports) before
	// its first definition, not the whole file; firstImport is the line of
	// its first import, 0 if none.
	head                    bool
	firstImport, lastImport int
	// wholeOf: for a whole file, the kind of the candidate it was taken
	// for (a test file reads after the definitions, as its tests would)
	wholeOf string
	// value: a function on a traced value's path (valueShare)
	value bool
}

// Build makes a pack for req.
func (b *Builder) Build(ctx context.Context, req Request) (*Pack, error) {
	if req.Budget <= 0 {
		return nil, fmt.Errorf("%w: budget must be positive", ErrInvalidRequest)
	}
	if req.Format == "" {
		req.Format = "json"
	}
	if req.Format != "json" && req.Format != "markdown" {
		return nil, fmt.Errorf("%w: unknown format %q (want json or markdown)", ErrInvalidRequest, req.Format)
	}
	tok := b.Tokenizer
	if tok == nil {
		var err error
		if tok, err = NewTokenizer(""); err != nil {
			return nil, err
		}
	}
	files, err := b.Engine.Files(ctx)
	if err != nil {
		return nil, err
	}
	fileInfo := make(map[string]graph.File, len(files))
	for _, f := range files {
		fileInfo[f.Path] = f
	}
	cands, values, err := b.candidates(ctx, req, fileInfo)
	if err != nil {
		return nil, err
	}
	p := &Pack{
		Schema: SchemaID, Task: req.Task, TaskTrust: TrustUntrusted, Budget: req.Budget, Tokenizer: tok.Name(),
		Format: req.Format, Index: IndexInfo{Generation: b.Meta.Generation, Revision: b.Meta.Revision, Dirty: b.Meta.Dirty,
			Unindexed: b.Unindexed, Head: b.Head},
		Items: []Item{}, Omitted: []Omitted{}, Redactions: []redact.Redaction{}, Values: values,
	}
	// The pack's frame (the task echoed, headers) must fit before any item:
	// a long task is shortened in the echo, a budget too small for even an
	// empty pack is an error. The echo says which task the pack answers;
	// the reader has the task already, so it takes at most a 32nd of the
	// budget and the code the rest.
	p.Task = capTask(p.Task, max(p.Budget/taskShare, 32), tok)
	if err := b.fitFrame(p, tok); err != nil {
		return nil, err
	}
	repo := b.Files
	if repo == nil {
		repo = repofs.New(b.Root)
	}
	fc := &fileCache{repo: repo, files: fileInfo, content: map[string][]string{}}
	fullShare := req.FullShare
	if fullShare <= 0 {
		fullShare = DefaultFullShare
	}
	b.pack(p, cands, fc, tok, min(fullShare, 1))
	return p, nil
}

// valueShare is the most of the budget the functions on traced values'
// paths may take (trace.Result.Evidence: the gap, write site, persistence
// write, read query, mapper and consumer): they come before the search's
// hits, and the rest of the budget is the search's. At 4k tokens, 35%
// holds five or six functions of a few dozen lines as they are, or their
// signatures.
const valueShare = 0.35

// mergeGap: a candidate at most this many lines from a picked item of
// its file joins it (an item's citation costs about as many tokens as ten
// lines of code).
const mergeGap = 6

// maxOmittedListed is how many omitted candidates a pack names (the rest
// are counted): the strongest few tell a reader what to ask for next
// without spending the budget on a list.
func maxOmittedListed(budget int) int { return min(max(budget/2000, 3), 10) }

// ErrBudgetTooSmall is returned when not even an empty pack fits.
var ErrBudgetTooSmall = errors.New("budget too small for a pack")

// ErrInvalidRequest is returned for a request Build cannot make a pack
// for: a budget that is not positive, an unknown format, a Diff git cannot
// diff against.
var ErrInvalidRequest = errors.New("invalid pack request")

// taskShare: the task echo takes at most 1/taskShare of the budget.
const taskShare = 32

// taskTruncated ends a shortened task echo.
const taskTruncated = "…[task truncated]"

// capTask shortens task to its longest prefix (whole runes) that, with the
// truncation mark, counts at most limit tokens.
func capTask(task string, limit int, tok Tokenizer) string {
	if tok.Count(task) <= limit {
		return task
	}
	return truncated(task, func(s string) bool { return tok.Count(s) <= limit })
}

// truncated returns the longest prefix of s (whole runes) that, with the
// truncation mark, fits; fits must hold for shorter prefixes whenever it
// holds for longer ones.
func truncated(s string, fits func(string) bool) string {
	runes := []rune(s)
	lo, hi := 0, len(runes)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if fits(string(runes[:mid]) + taskTruncated) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return string(runes[:lo]) + taskTruncated
}

func (b *Builder) fitFrame(p *Pack, tok Tokenizer) error {
	full := p.Task
	if b.settle(p, tok) <= p.Budget {
		return nil
	}
	p.Task = truncated(full, func(t string) bool {
		p.Task = t
		return b.settle(p, tok) <= p.Budget
	})
	if n := b.settle(p, tok); n > p.Budget {
		p.Task = full
		return fmt.Errorf("%w: an empty %s pack takes %d tokens", ErrBudgetTooSmall, p.Format, n)
	}
	return nil
}

// wholeFileShare: a whole file may be taken for its strongest candidate
// when it costs at most 1/wholeFileShare of the budget, the most any item
// but the three strongest may cost; past the full share, when it costs at
// most 1/wholeTailShare (at 16k, 1,000 tokens: about what eight signature
// items cost with their citations). On the localization dev set
// (bench/context/RESULTS.md) whole files took context recall at 16k from
// 0.722 to 0.788 (Go 0.524 → 0.619, Python 0.868 → 0.912) and at 32k
// from 0.778 to 0.864; other shares (a fifth or a third; in the tail an
// 8th to a 32nd) covered less, and so did taking a file only when its
// candidates held half its lines or more.
const (
	wholeFileShare = 4
	wholeTailShare = 16
)

// wholeFile returns the candidate for all of c's file after its license
// notice, reasoned by c, unless its length alone says it cannot fit in
// limit tokens (over 12 bytes a token: code averages three to four), so
// that a large file is never rendered and counted only to be refused.
func wholeFile(c cand, fc *fileCache, limit int) (cand, bool) {
	ls := fc.lines(c.path)
	first := fc.licenseEnd(c.path) + 1
	if first > len(ls) {
		return cand{}, false
	}
	n := 0
	for _, l := range ls[first-1:] {
		n += len(l) + 1
	}
	if n/12 > limit {
		return cand{}, false
	}
	w := c
	w.start, w.end, w.kind, w.symbol, w.symbolID, w.sigEnd, w.sigStart, w.doc = first, len(ls), KindFile, "", "", 0, 0, ""
	w.wholeOf = c.kind
	w.reason = "the whole file, for " + cmp.Or(c.symbol, fmt.Sprintf("lines %d-%d", c.start, c.end)) + ": " + c.reason
	return w, true
}

// revision is how an item cites its file (graph.CiteRevision).
func (b *Builder) revision(f graph.File) string { return graph.CiteRevision(b.Meta, f) }

// pack selects and renders items within the budget.
func (b *Builder) pack(p *Pack, cands []cand, fc *fileCache, tok Tokenizer, fullShare float64) {
	// A span that opens its file starts after the license notice.
	for i := range cands {
		if c := &cands[i]; c.start <= 1 {
			if e := fc.licenseEnd(c.path); e > 0 && e < c.end {
				c.start = e + 1
			}
		}
	}
	// A file's head is no definition: its imports enter a pack only as
	// context of a whole-file item (a focus file), and what is left of it
	// (a package doc, a module docstring) only when it says something.
	var heads []cand
	cands = slices.DeleteFunc(cands, func(c cand) bool {
		if c.head {
			heads = append(heads, splitHead(c, fc.lines(c.path))...)
		}
		return c.head
	})
	cands = append(cands, heads...)
	// Merge overlapping or adjacent candidates of a file.
	slices.SortStableFunc(cands, func(a, c cand) int {
		return cmp.Or(strings.Compare(a.path, c.path), cmp.Compare(a.start, c.start), cmp.Compare(c.end, a.end))
	})
	var merged []cand
	for _, c := range cands {
		if n := len(merged); n > 0 {
			last := &merged[n-1]
			if last.path == c.path && c.start <= last.end {
				if c.end > last.end {
					last.end = c.end
				}
				if c.score > last.score {
					last.kind, last.score, last.symbol, last.symbolID = c.kind, c.score, c.symbol, c.symbolID
				}
				switch {
				case strings.Contains(last.reason, c.reason):
				case c.value && !last.value:
					last.reason = c.reason + "; " + last.reason // the value's path first
				default:
					last.reason += "; " + c.reason
				}
				last.value = last.value || c.value
				if c.sigEnd > 0 && last.sigEnd == 0 {
					last.sigEnd = c.sigEnd
				}
				continue
			}
		}
		merged = append(merged, c)
	}
	// Priority: score, then a stable order.
	slices.SortStableFunc(merged, func(a, c cand) int {
		return cmp.Or(cmp.Compare(c.score, a.score), strings.Compare(a.path, c.path), cmp.Compare(a.start, c.start))
	})

	type chosen struct {
		item Item
		c    cand
		prio int
	}
	var picked []chosen
	var omitted []Omitted
	overhead := tok.Count(b.render(p, p.Format))
	// room for the list of omitted candidates
	overhead += maxOmittedListed(p.Budget) * 40
	used := overhead
	itemCost := func(it Item) int { return tok.Count(b.renderItem(it, p.Format)) + 2 }
	makeItem := func(c cand, degraded bool) (Item, []redact.Redaction) {
		start, end, kind := c.start, c.end, c.kind
		var summary string
		if degraded {
			var long bool
			summary, long = docSummary(c.doc)
			ls := fc.lines(c.path)
			end = max(signatureEnd(ls, start, c.sigEnd, c.end, c.lang), start)
			kind = KindSignature
			if long && c.sigStart > start && c.sigStart <= end {
				// a long doc comment above the signature gives way to
				// its summary below it; the decorators or annotations
				// between them stay
				start = pastComments(ls, start, c.sigStart, c.lang)
			}
		}
		content, s, e := fc.span(c.path, start, end)
		if degraded && c.doc != "" {
			// signature + doc: a short doc comment above the signature is
			// inside the span already; a docstring, or a long comment's
			// summary, follows it
			content = strings.TrimRight(content, "\n")
			if !strings.Contains(content, firstLine(c.doc)) {
				content += "\n" + indentDoc(summary, c.lang)
			}
		}
		f := fc.files[c.path]
		content, reds := redact.Content(c.path, s, content, f.Lang.HasParser())
		it := Item{Path: c.path, StartLine: s, EndLine: e, Revision: b.revision(f), Kind: kind, Symbol: c.symbol,
			Reason: c.reason, Score: math.Round(c.score*1000) / 1000, Trust: trustOf(f.Lang, kind),
			Stale: fc.isStale(c.path), Content: content}
		if it.Trust == TrustCode {
			it.UntrustedLines = untrustedLines(content, s, e, f.Lang)
		}
		it.Tokens = tok.Count(content)
		return it, reds
	}
	var allReds []redact.Redaction
	var pcost []int // the cost of each picked item
	valueUsed := 0  // what the functions on traced values' paths took
	valueLeft := func() int { return max(int(valueShare*float64(p.Budget))-valueUsed, 0) }
	take := func(it Item, c cand, prio, cost int, reds []redact.Redaction) {
		picked = append(picked, chosen{it, c, prio})
		pcost = append(pcost, cost)
		allReds = append(allReds, reds...)
		used += cost
		if c.value {
			valueUsed += cost
		}
	}
	// near returns the picked whole item of c's file that c would join
	// across a gap of at most mergeGap lines (no other item in between).
	near := func(c cand) int {
		for j := range picked {
			x := &picked[j]
			if x.c.path != c.path || x.item.Kind == KindSignature || c.head || x.c.head {
				continue // a file's head joins nothing: the gap would be its imports
			}
			gap := max(c.start-x.item.EndLine, x.item.StartLine-c.end) - 1
			if gap < 0 || gap > mergeGap {
				continue
			}
			lo, hi := min(c.start, x.item.StartLine), max(c.end, x.item.EndLine)
			clash := false
			for k := range picked {
				y := &picked[k]
				clash = clash || (k != j && y.c.path == c.path && y.item.StartLine <= hi && lo <= y.item.EndLine)
			}
			if !clash {
				return j
			}
		}
		return -1
	}
	// Once not even the smallest item fits, the rest is omitted; only the
	// few the pack lists need their spans read and counted.
	minCost := itemCost(Item{Path: "x", Revision: "x", Kind: KindSignature, Trust: TrustCode, Content: "x"}) - 2
	uncounted := 0
	wholeTried := map[string]bool{}
	for i, c := range merged {
		// A file's strongest candidate may bring the whole file instead:
		// when the file is no larger than any item may be (past the full
		// share, than a few signatures cost), its other definitions come
		// for the citation of one.
		if p.Budget-used < minCost && len(omitted) >= maxOmittedListed(p.Budget) {
			uncounted++
			continue
		}
		lim := p.Budget / wholeFileShare
		if float64(used) > fullShare*float64(p.Budget) {
			lim = p.Budget / wholeTailShare
		}
		if c.value {
			lim = min(lim, valueLeft())
		}
		if !wholeTried[c.path] && !c.head && used+minCost <= p.Budget {
			wholeTried[c.path] = true
			if wc, ok := wholeFile(c, fc, min(lim, p.Budget-used)); ok {
				wit, wreds := makeItem(wc, false)
				if wcost := itemCost(wit); wcost <= lim && used+wcost <= p.Budget {
					take(wit, wc, i, wcost, wreds)
					continue
				}
			}
		}
		// a join may have taken in a weaker candidate's lines already;
		// what remains of it (nothing, or a part at either end) goes on
		inside := false
		for _, x := range picked {
			if x.c.path != c.path || c.end < x.item.StartLine || x.item.EndLine < c.start {
				continue
			}
			switch {
			case x.item.StartLine <= c.start && c.end <= x.item.EndLine:
				inside = true
			case c.start < x.item.StartLine:
				c.end = x.item.StartLine - 1
			default:
				c.start = x.item.EndLine + 1
			}
		}
		if inside || c.end < c.start {
			continue
		}
		it, reds := makeItem(c, false)
		if it.Content == "" {
			continue
		}
		cost := itemCost(it)
		// A span a few lines from one already picked joins it: one item's
		// citation and reason cost more than the lines between them.
		if j := near(c); j >= 0 {
			x := picked[j]
			mc := x.c
			mc.start, mc.end = min(x.item.StartLine, c.start), max(x.item.EndLine, c.end)
			what := c.symbol
			if what == "" {
				what = fmt.Sprintf("lines %d-%d", c.start, c.end)
			}
			ev, _, _ := strings.Cut(c.reason, "; ")
			mc.reason += "; joins " + what + ": " + ev
			mc.sigEnd = 0
			mit, mreds := makeItem(mc, false)
			mcost := itemCost(mit)
			if delta := mcost - pcost[j]; used+delta <= p.Budget && mcost <= p.Budget/4 {
				picked[j], pcost[j] = chosen{mit, mc, min(x.prio, i)}, mcost
				allReds = append(allReds, mreds...)
				used += delta
				continue
			}
		}
		// The strongest items come whole when they fit; any other item
		// larger than a quarter of the budget is degraded to its signature
		// and doc before it is dropped.
		// Past the full share, a candidate with a signature comes as that.
		tail := i >= 3 && c.sigEnd > 0 && float64(used) > fullShare*float64(p.Budget)
		room := p.Budget - used
		if c.value {
			// the value's path has its share of the budget, no more
			room = min(room, valueLeft())
			tail = false
		}
		if !tail && cost <= room && (i < 3 || cost <= p.Budget/4) {
			take(it, c, i, cost, reds)
			continue
		}
		if c.sigEnd > 0 {
			sit, sreds := makeItem(c, true)
			if scost := itemCost(sit); scost <= room {
				sit.Reason = c.reason + " (signature only; whole: " + strconv.Itoa(it.Tokens) + " tokens)"
				take(sit, c, i, scost, sreds)
				continue
			}
		}
		omitted = append(omitted, Omitted{Path: c.path, StartLine: it.StartLine, EndLine: it.EndLine, Kind: c.kind,
			Symbol: c.symbol, Reason: "over budget (" + strconv.Itoa(it.Tokens) + " tokens)", Tokens: it.Tokens})
	}
	// Room left once every candidate had its turn: past the full share,
	// candidates came as signatures to make room for more of them, and
	// what is still unspent buys the strongest of them their bodies (one
	// no larger than any item may be, and not overlapping another item).
	for j := range picked {
		x := &picked[j]
		if x.item.Kind != KindSignature {
			continue
		}
		fit, freds := makeItem(x.c, false)
		fcost := itemCost(fit)
		if used-pcost[j]+fcost > p.Budget || fcost > p.Budget/wholeFileShare {
			continue
		}
		clash := false
		for k := range picked {
			y := &picked[k].item
			clash = clash || (k != j && y.Path == fit.Path && y.StartLine <= fit.EndLine && fit.StartLine <= y.EndLine)
		}
		if !clash {
			used += fcost - pcost[j]
			x.item, pcost[j] = fit, fcost
			allReds = append(allReds, freds...)
		}
	}
	// Reading order: files by their best item, definitions before uses,
	// then by line.
	fileRank := map[string]int{}
	for _, ch := range picked {
		if r, ok := fileRank[ch.item.Path]; !ok || ch.prio < r {
			fileRank[ch.item.Path] = ch.prio
		}
	}
	kindRank := func(k string) int {
		switch k {
		case KindFile, KindDefinition, KindSignature:
			return 0
		case KindImplementation:
			return 1
		case KindCallee, KindCaller:
			return 2
		case KindTest:
			return 3
		}
		return 4
	}
	order := func(a, c chosen) int {
		use := func(ch chosen) int { // tests and other uses after definitions
			k := ch.item.Kind
			if k == KindFile {
				k = ch.c.wholeOf
			}
			return min(kindRank(k)/3, 1)
		}
		return cmp.Or(cmp.Compare(use(a), use(c)),
			cmp.Compare(fileRank[a.item.Path], fileRank[c.item.Path]), strings.Compare(a.item.Path, c.item.Path),
			cmp.Compare(a.item.StartLine, c.item.StartLine))
	}
	slices.SortStableFunc(picked, order)
	// omitted is in priority order: list the strongest, count the rest.
	maxListed := maxOmittedListed(p.Budget)
	p.OmittedTotal = len(omitted) + uncounted
	p.Omitted = append([]Omitted{}, omitted[:min(len(omitted), maxListed)]...)
	// The rendered pack must fit: count it, and drop the lowest-priority
	// items until it does (each item's estimate can differ slightly from
	// its share of the whole).
	for {
		p.Items = p.Items[:0]
		p.Redactions = p.Redactions[:0]
		for _, ch := range picked {
			p.Items = append(p.Items, ch.item)
		}
		p.Generated = b.generated(p.Items)
		seenRed := map[redact.Redaction]bool{}
		for _, rd := range allReds {
			if seenRed[rd] { // a merged item redacts its parts again
				continue
			}
			seenRed[rd] = true
			for _, ch := range picked {
				if rd.Path == ch.item.Path && rd.Line >= ch.item.StartLine && rd.Line <= ch.item.EndLine {
					p.Redactions = append(p.Redactions, rd)
					break
				}
			}
		}
		n := b.settle(p, tok)
		if n <= p.Budget {
			break
		}
		if len(picked) == 0 {
			// Only the frame and the list of omissions are left: shorten
			// the list (it keeps its total), then the task echo.
			for len(p.Omitted) > 0 && b.settle(p, tok) > p.Budget {
				p.Omitted = p.Omitted[:len(p.Omitted)-1]
			}
			b.fitFrame(p, tok)
			break
		}
		// drop the lowest-priority item
		worst := 0
		for i, ch := range picked {
			if ch.prio > picked[worst].prio {
				worst = i
			}
		}
		w := picked[worst].item
		p.OmittedTotal++
		if len(p.Omitted) < maxListed {
			p.Omitted = append(p.Omitted, Omitted{Path: w.Path, StartLine: w.StartLine, EndLine: w.EndLine, Kind: w.Kind,
				Symbol: w.Symbol, Reason: "over budget once rendered", Tokens: w.Tokens})
		}
		picked = slices.Delete(picked, worst, worst+1)
	}
}

// generated lists the generated files made with the items' files, in the
// items' order (none when the engine cannot say: the search that chose
// the items read the same list).
func (b *Builder) generated(items []Item) []Generated {
	if b.Engine == nil {
		return nil
	}
	var out []Generated
	seen := map[string]bool{}
	for _, it := range items {
		if seen[it.Path] {
			continue
		}
		seen[it.Path] = true
		if gs, err := b.Engine.GeneratedWith(it.Path); err == nil && len(gs) > 0 {
			out = append(out, Generated{Path: it.Path, Files: gs})
		}
	}
	return out
}

// settle sets UsedTokens to the token count of the rendered pack, which
// includes the number itself: iterate to the fixed point.
func (b *Builder) settle(p *Pack, tok Tokenizer) int {
	p.UsedTokens = 0
	for i := 0; i < 5; i++ {
		n := tok.Count(b.render(p, p.Format))
		if n == p.UsedTokens {
			return n
		}
		p.UsedTokens = n
	}
	return p.UsedTokens
}
