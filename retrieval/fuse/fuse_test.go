package fuse_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/graph/embedded"
	"github.com/cairn-dev/cairn/graph/store"
	"github.com/cairn-dev/cairn/indexer"
	"github.com/cairn-dev/cairn/retrieval/bm25"
	"github.com/cairn-dev/cairn/retrieval/embed"
	"github.com/cairn-dev/cairn/retrieval/fuse"
	"github.com/cairn-dev/cairn/retrieval/vector"
)

var repo = map[string]string{
	"go.mod": "module example.com/shop\n\ngo 1.22\n",
	"billing/invoice.go": `package billing

// RoundTotal rounds an invoice total to cents; negative totals are refunds.
func RoundTotal(cents float64) int64 {
	if cents < 0 {
		return -int64(-cents + 0.5)
	}
	return int64(cents + 0.5)
}

// Invoice is what a customer owes.
type Invoice struct {
	Lines []float64
}

// Total adds the lines and rounds.
func (i *Invoice) Total() int64 {
	var sum float64
	for _, l := range i.Lines {
		sum += l
	}
	return RoundTotal(sum)
}
`,
	"billing/invoice_test.go": `package billing

import "testing"

// TestRoundTotal checks rounding of invoice totals, negative refunds too.
func TestRoundTotal(t *testing.T) {
	if RoundTotal(1.5) != 2 || RoundTotal(-1.5) != -2 {
		t.Fatal("rounding of invoice totals is wrong")
	}
}
`,
	"shipping/label.go": `package shipping

// PrintLabel renders a shipping label for a parcel.
func PrintLabel(name, address string) string {
	return name + "\n" + address
}

// Weight of a parcel in grams.
func Weight(items []int) int {
	w := 0
	for _, i := range items {
		w += i
	}
	return w
}
`,
	"docs/notes.md": "# Notes\n\nShipping labels are printed by the warehouse.\n",
}

func open(t *testing.T) *fuse.Opened {
	t.Helper()
	return openWith(t, nil)
}

// openWith indexes the fixture repository plus extra files.
func openWith(t *testing.T, extra map[string]string) *fuse.Opened {
	t.Helper()
	root := t.TempDir()
	files := maps.Clone(repo)
	maps.Copy(files, extra)
	for p, c := range files {
		fp := filepath.Join(root, p)
		os.MkdirAll(filepath.Dir(fp), 0o755)
		if err := os.WriteFile(fp, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return indexTree(t, root, 8)
}

// indexTree indexes the repository at root (the index goes in
// root/.cairn) with a built-in embedding model of dim dimensions, and
// opens it.
func indexTree(t *testing.T, root string, dim int) *fuse.Opened {
	t.Helper()
	ctx := context.Background()
	dir := filepath.Join(root, ".cairn")
	w, err := embedded.NewWriter(ctx, embedded.WriterOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	sinks := []indexer.Sink{bm25.NewBuilder(nil, nil), vector.NewBuilder(nil, vector.Options{PPMI: embed.PPMIOptions{Dim: dim, MinCount: 1, Oversample: 4}})}
	if _, err := indexer.Run(ctx, w, indexer.Options{Root: root, StateDir: dir, Sinks: sinks, ExcludeDirs: []string{".cairn"}}); err != nil {
		t.Fatal(err)
	}
	src, err := store.Open(ctx, store.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	o, err := fuse.Open(ctx, src, fuse.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(o.Close)
	if len(o.Warnings) > 0 {
		t.Fatalf("side indexes missing: %v", o.Warnings)
	}
	return o
}

func names(hs []fuse.Hit) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.Name)
	}
	return out
}

// An issue naming a function and describing the bug finds the function's
// file first and the function among the first hits, with the evidence of
// several generators; the test file that repeats the same words ranks
// below the code.
func TestIssueFindsTheFunction(t *testing.T) {
	o := open(t)
	res, err := o.Engine.Search(context.Background(), "Refunds are rounded the wrong way: RoundTotal returns -1 for -1.5 on invoice totals", fuse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) == 0 || res.Files[0].Path != "billing/invoice.go" {
		t.Fatalf("files %+v", res.Files)
	}
	i := slices.IndexFunc(res.Hits, func(h fuse.Hit) bool { return h.Name == "RoundTotal" })
	if i < 0 || i > 2 {
		t.Fatalf("RoundTotal at %d in %v", i, names(res.Hits))
	}
	h := res.Hits[i]
	if h.Ranks[fuse.GenSymbol] != 1 || h.Ranks[fuse.GenText] == 0 {
		t.Errorf("RoundTotal's evidence %v", h.Ranks)
	}
	if h.Why == "" || h.Path != "billing/invoice.go" || h.StartLine != 3 {
		t.Errorf("hit %+v", h)
	}
	ti := slices.IndexFunc(res.Files, func(f fuse.FileHit) bool { return f.Path == "billing/invoice_test.go" })
	if ti >= 0 && ti < 1 {
		t.Errorf("the test file outranks the code: %+v", res.Files)
	}
	for _, f := range res.Files {
		if f.Path == "shipping/label.go" && f.Score > res.Files[0].Score/2 {
			t.Errorf("an unrelated file scores %.4f against %.4f", f.Score, res.Files[0].Score)
		}
	}
}

// A path in the query is matched exactly; Only restricts the generators;
// limits hold; Dump returns every generator's ranking.
func TestPathsOnlyLimitsDump(t *testing.T) {
	o := open(t)
	ctx := context.Background()
	res, err := o.Engine.Search(ctx, "the label printed by shipping/label.go is cut", fuse.Options{Only: []string{fuse.GenPath}})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		if len(h.Ranks) != 1 || h.Ranks[fuse.GenPath] == 0 {
			t.Errorf("a hit from another generator with Only=path: %+v", h)
		}
	}
	if len(res.Hits) == 0 || res.Hits[0].Path != "shipping/label.go" {
		t.Fatalf("path generator: %v", names(res.Hits))
	}
	res, err = o.Engine.Search(ctx, "invoice total rounding", fuse.Options{Limit: 2, Files: 1, Dump: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) > 2 || len(res.Files) > 1 {
		t.Errorf("limits: %d hits, %d files", len(res.Hits), len(res.Files))
	}
	gens := map[string]bool{}
	for _, d := range res.Dump {
		gens[d.Gen] = true
	}
	// (vectors from a model trained on five files are too weak to promise
	// a hit; that they are built and searched is checked by their package)
	if o.Engine.Vectors == nil {
		t.Errorf("no vector index")
	}
	for _, g := range []string{fuse.GenText, fuse.GenFile, fuse.GenRank} {
		if !gens[g] {
			t.Errorf("dump lacks %s: %v", g, gens)
		}
	}
	if _, err := o.Engine.Search(ctx, "   ", fuse.Options{}); err == nil {
		res, _ := o.Engine.Search(ctx, "   ", fuse.Options{})
		if len(res.Hits) != 0 {
			t.Errorf("an empty query found %v", names(res.Hits))
		}
	}
}

// FilesWithTerms finds the files that hold a whole identifier, and only
// those.
func TestFilesWithTerms(t *testing.T) {
	o := open(t)
	ps, err := o.FilesWithTerms(context.Background(), []string{"roundtotal"})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(ps)
	if strings.Join(ps, ",") != "billing/invoice.go,billing/invoice_test.go" {
		t.Errorf("files %v", ps)
	}
}

// TestInnermostFrameFileFirst: the files of a traceback rank innermost
// first — the outer frames are the dispatch every failure passes through —
// though they are named earlier in the text.
func TestInnermostFrameFileFirst(t *testing.T) {
	o := open(t)
	q := `crash when printing a label
Traceback (most recent call last):
  File "/srv/app/billing/invoice.go", line 19, in Total
  File "/srv/app/shipping/label.go", line 4, in PrintLabel
TypeError: bad address`
	res, err := o.Search(context.Background(), q, fuse.Options{Only: []string{fuse.GenPath}})
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, f := range res.Files {
		files = append(files, f.Path)
	}
	if len(files) != 2 || files[0] != "shipping/label.go" || files[1] != "billing/invoice.go" {
		t.Fatalf("files %v, want the innermost frame's file first", files)
	}
	if !strings.Contains(res.Files[0].Why, "stack frame") {
		t.Errorf("why: %q", res.Files[0].Why)
	}
}

// TestLinkedLines: a link to a line of code in the query — from any code
// host, at any revision, a branch name with slashes too — points the path
// generator at the chunk holding that line and at its file; a link into a
// path this repository lacks points nowhere.
func TestLinkedLines(t *testing.T) {
	o := open(t)
	q := `Total drops a line: https://github.com/acme/shop/blob/3f2a1c9/billing/invoice.go#L19
(as in https://gitlab.com/acme/shop/-/blob/release/1.2/shipping/label.go#L4-L6, and
https://github.com/other/lib/blob/main/pkg/round.go#L3)`
	res, err := o.Search(context.Background(), q, fuse.Options{Only: []string{fuse.GenPath}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) < 2 || res.Hits[0].Name != "Invoice.Total" || res.Hits[1].Name != "PrintLabel" {
		t.Fatalf("hits %v, want the linked lines' functions in order", names(res.Hits))
	}
	if !strings.Contains(res.Hits[0].Why, "linked in the query") {
		t.Errorf("why: %q", res.Hits[0].Why)
	}
	var files []string
	for _, f := range res.Files {
		files = append(files, f.Path)
	}
	if strings.Join(files, ",") != "billing/invoice.go,shipping/label.go" {
		t.Errorf("files %v", files)
	}
}

// TestVendoredBelow: a copy of another project kept in the repository —
// under vendor/, or a Python "packages" package inside a package — ranks
// below the project's own code that the same words find.
func TestVendoredBelow(t *testing.T) {
	vendored := `package round

// RoundTotal rounds invoice totals to cents; negative totals are refunds,
// rounded away from zero: refunds rounded the other way are rounded the
// wrong way.
func RoundTotal(cents float64) int64 { return int64(cents) }
`
	pyOwn := "def round_total(cents):\n    \"\"\"Round an invoice total.\"\"\"\n    return int(cents + 0.5)\n"
	pyCopy := "def round_total(cents):\n    \"\"\"Round an invoice total; refunds of invoice totals round away from zero.\"\"\"\n    return int(cents)\n"
	o := openWith(t, map[string]string{
		"vendor/example.com/money/round/round.go": vendored,
		"money/round.go":                 "package money\n\n// RoundTotal rounds a total to cents.\nfunc RoundTotal(cents float64) int64 { return int64(cents + 0.5) }\n",
		"app/__init__.py":                "",
		"app/money.py":                   pyOwn,
		"app/packages/__init__.py":       "",
		"app/packages/money/__init__.py": pyCopy,
		"packages/web/money.py":          pyCopy, // a monorepo's packages: its own code
	})
	res, err := o.Search(context.Background(), "Refunds are rounded the wrong way: RoundTotal and round_total on invoice totals", fuse.Options{Files: 20})
	if err != nil {
		t.Fatal(err)
	}
	rank := map[string]int{}
	for i, f := range res.Files {
		rank[f.Path] = i + 1
	}
	below := func(own, copy string) {
		t.Helper()
		if rank[own] == 0 || rank[copy] != 0 && rank[copy] < rank[own] {
			t.Errorf("%s (#%d) outranks %s (#%d): %v", copy, rank[copy], own, rank[own], rank)
		}
	}
	below("money/round.go", "vendor/example.com/money/round/round.go")
	below("app/money.py", "app/packages/money/__init__.py")
	// the same text in a monorepo's top-level packages/ is the project's
	// own: it ranks above its vendored twin
	below("packages/web/money.py", "app/packages/money/__init__.py")
}

// TestTitleGenerator: an issue's title is searched on its own, so that a
// long body about something else does not drown it; a one-line query has
// no title to search.
func TestTitleGenerator(t *testing.T) {
	o := open(t)
	ctx := context.Background()
	q := "Shipping labels lose the address\n\n" + strings.Repeat("Our invoice totals and refunds look fine, the rounding of invoice totals too. ", 5)
	res, err := o.Search(ctx, q, fuse.Options{Only: []string{fuse.GenTitle}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) == 0 || res.Files[0].Path != "shipping/label.go" || !strings.Contains(res.Files[0].Why, "title") {
		t.Fatalf("title generator's files: %+v", res.Files)
	}
	if len(res.Hits) == 0 || res.Hits[0].Name != "PrintLabel" || res.Hits[0].Ranks[fuse.GenTitle] != 1 {
		t.Fatalf("title generator's hits: %+v", res.Hits)
	}
	res, err = o.Search(ctx, "Shipping labels lose the address", fuse.Options{Only: []string{fuse.GenTitle}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 0 {
		t.Errorf("a one-line query searched as a title: %v", names(res.Hits))
	}
}

// TestMessageGenerator: an error message the query quotes finds the code
// that writes it, though values were formatted into it and the words are
// common; a test asserting the same message ranks below the code.
// TestSignatureErrorCallee: a traceback that ends in a TypeError of a
// call against a signature puts the definition it names first among the
// files, ahead of the frames' (the callers).
func TestSignatureErrorCallee(t *testing.T) {
	o := openWith(t, map[string]string{
		"report/writer.py":  "from report.formats import Table\n\n\ndef get_writer(fmt, **kwargs):\n    return Table(**kwargs)\n",
		"report/formats.py": "class Table:\n    \"\"\"A plain table.\"\"\"\n\n    def __init__(self, delimiter=None):\n        self.delimiter = delimiter\n",
	})
	q := "header rows in tables\n\nTraceback (most recent call last):\n  File \"/site-packages/report/writer.py\", line 5, in get_writer\n    return Table(**kwargs)\nTypeError: Table.__init__() got an unexpected keyword argument 'header_rows'\n"
	res, err := o.Search(context.Background(), q, fuse.Options{Only: []string{fuse.GenPath}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) < 2 || res.Files[0].Path != "report/formats.py" || res.Files[1].Path != "report/writer.py" {
		t.Fatalf("files %+v", res.Files)
	}
	if !strings.Contains(res.Files[0].Why, "signature error reports: Table.__init__") {
		t.Errorf("why: %q", res.Files[0].Why)
	}
}

// TestQuotedLiteralFound: a flag the query quotes is found where the code
// holds it verbatim, not in the tests that pass it; a literal more code
// files hold than a few names no place.
func TestQuotedLiteralFound(t *testing.T) {
	files := map[string]string{
		"cli/options.go": `package cli

import "flag"

// Register adds the collection flags.
func Register(fs *flag.FlagSet) {
	fs.Bool("collect-only", false, "only collect the tests, do not run them")
	fs.Bool("quiet-mode", false, "print less")
}

// Usage is the help text.
const Usage = "run tests; see --collect-only and --quiet-mode"
`,
		"cli/options_test.go": `package cli

import "testing"

func TestCollect(t *testing.T) { run(t, "--collect-only") }
`,
	}
	for i := 0; i < 6; i++ {
		files[fmt.Sprintf("cmd/tool%d/main.go", i)] = fmt.Sprintf("package main\n\n// main%d runs with --quiet-mode set.\nfunc main() { start(\"--quiet-mode\") }\n", i)
	}
	o := openWith(t, files)
	res, err := o.Search(context.Background(), "Collecting takes long\n\nI run `--collect-only` very often; a short flag would help.", fuse.Options{Only: []string{fuse.GenMessage}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].Path != "cli/options.go" {
		t.Fatalf("hits %v", res.Hits)
	}
	if !strings.Contains(res.Hits[0].Why, `holds "--collect-only", quoted in the query`) {
		t.Errorf("why: %q", res.Hits[0].Why)
	}
	for _, h := range res.Hits {
		if h.Path == "cli/options_test.go" {
			t.Errorf("the test that passes the flag is a hit: %+v", h)
		}
	}
	// seven code files hold --quiet-mode: too common to say where
	res, err = o.Search(context.Background(), "Quiet is not quiet\n\n`--quiet-mode` still prints.", fuse.Options{Only: []string{fuse.GenMessage}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 0 {
		t.Errorf("hits for a literal seven files hold: %v", names(res.Hits))
	}
}

func TestMessageGenerator(t *testing.T) {
	o := openWith(t, map[string]string{
		"shipping/zones.go": `package shipping

import "fmt"

// Carrier picks the carrier of a zone.
func Carrier(zone, grams int) (string, error) {
	switch {
	case zone < 3:
		return "post", nil
	case grams < 2000:
		return "courier", nil
	}
	return "", fmt.Errorf("shipping: no carrier for zone %d (weight %dg)", zone, grams)
}
`,
		"shipping/zones_test.go": `package shipping

import "testing"

func TestNoCarrier(t *testing.T) {
	if _, err := Carrier(9, 5000); err == nil || err.Error() != "shipping: no carrier for zone 9 (weight 5000g)" {
		t.Fatal(err)
	}
}
`,
	})
	q := "Heavy parcels can't be shipped\n\nerror: shipping: no carrier for zone 7 (weight 2300g)\n"
	res, err := o.Search(context.Background(), q, fuse.Options{Only: []string{fuse.GenMessage}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) < 2 || res.Hits[0].Name != "Carrier" || res.Hits[0].Path != "shipping/zones.go" {
		t.Fatalf("hits %v", res.Hits)
	}
	if !strings.Contains(res.Hits[0].Why, `holds the message "shipping: no carrier for zone"`) {
		t.Errorf("why: %q", res.Hits[0].Why)
	}
	if res.Hits[1].Path != "shipping/zones_test.go" {
		t.Errorf("second hit %+v, want the test", res.Hits[1])
	}
	// a message no file holds finds nothing
	res, err = o.Search(context.Background(), "x\n\nerror: the flux capacitor is out of plutonium", fuse.Options{Only: []string{fuse.GenMessage}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 0 {
		t.Errorf("hits for a message no file holds: %v", names(res.Hits))
	}
	// files deleted since indexing are no error: the message is not found
	// in them, and the other generators still answer
	if err := os.RemoveAll(filepath.Join(o.Meta.Root, "shipping")); err != nil {
		t.Fatal(err)
	}
	res, err = o.Search(context.Background(), q, fuse.Options{})
	if err != nil {
		t.Fatalf("search over deleted files: %v", err)
	}
	for _, h := range res.Hits {
		if h.Ranks[fuse.GenMessage] != 0 {
			t.Errorf("a message found in a deleted file: %+v", h)
		}
	}
	// (by their words: Carrier for "no carrier", Weight for "weight")
	if n := names(res.Hits); len(n) < 2 || !slices.Contains(n[:2], "Carrier") || !slices.Contains(n[:2], "Weight") {
		t.Errorf("the index no longer answers: %v", n)
	}
}

// TestFoldedCaseBelowExact: a definition whose name matches a query word
// only when case is ignored ranks below one the query names exactly,
// though the word comes first.
func TestFoldedCaseBelowExact(t *testing.T) {
	o := open(t)
	res, err := o.Search(context.Background(), "the ROUNDTOTAL column next to PrintLabel output", fuse.Options{Only: []string{fuse.GenSymbol}})
	if err != nil {
		t.Fatal(err)
	}
	if n := names(res.Hits); len(n) < 2 || n[0] != "PrintLabel" || n[1] != "RoundTotal" {
		t.Fatalf("symbol hits %v, want PrintLabel before RoundTotal", n)
	}
}

// recategorized is a writer that stores categories other than the
// walker's, to show that search reads the stored category and does not
// decide it again from the path.
type recategorized struct {
	*embedded.Writer
	category map[string]graph.FileCategory
}

func (w recategorized) PutFile(ctx context.Context, ff *graph.FileFacts) ([]int64, error) {
	if c, ok := w.category[ff.File.Path]; ok {
		ff.File.Category = c
	}
	return w.Writer.PutFile(ctx, ff)
}

// TestStoredCategory: search penalises the files the index says are tests,
// whatever their paths say. With the categories of billing/invoice.go and
// its test swapped, the test file ranks first (TestIssueFindsTheFunction
// has the code first with the walker's categories).
func TestStoredCategory(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	for p, c := range repo {
		fp := filepath.Join(root, p)
		os.MkdirAll(filepath.Dir(fp), 0o755)
		if err := os.WriteFile(fp, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(root, ".cairn")
	ew, err := embedded.NewWriter(ctx, embedded.WriterOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	w := recategorized{ew, map[string]graph.FileCategory{"billing/invoice.go": graph.FileTest, "billing/invoice_test.go": 0}}
	sinks := []indexer.Sink{bm25.NewBuilder(nil, nil), vector.NewBuilder(nil, vector.Options{PPMI: embed.PPMIOptions{Dim: 8, MinCount: 1, Oversample: 4}})}
	if _, err := indexer.Run(ctx, w, indexer.Options{Root: root, StateDir: dir, Sinks: sinks, ExcludeDirs: []string{".cairn"}}); err != nil {
		t.Fatal(err)
	}
	src, err := store.Open(ctx, store.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	o, err := fuse.Open(ctx, src, fuse.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	files, err := o.Engine.Files(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if want, ok := w.category[f.Path]; ok && f.Category != want {
			t.Errorf("%s stored as %v, want %v", f.Path, f.Category, want)
		}
	}
	res, err := o.Engine.Search(ctx, "Refunds are rounded the wrong way: RoundTotal returns -1 for -1.5 on invoice totals", fuse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) < 2 || res.Files[0].Path != "billing/invoice_test.go" {
		t.Fatalf("files %+v, want billing/invoice_test.go first (stored as code)", res.Files)
	}
}

// TestIdentifierSearch: a query that is one name is identifier search.
// The name's definitions rank first and their files first whatever the
// fusion's weights say (here the symbol generator's evidence is made
// almost worthless, and code that repeats the name's parts and calls it
// would win on evidence); embeddings and the graph are not asked; a
// question in prose still runs them (the graph; this tiny model's embeddings are
// too weak to pass the similarity floor).
func TestIdentifierSearch(t *testing.T) {
	o := openWith(t, map[string]string{"billing/report.go": `package billing

// RoundedTotals lists the totals rounded by RoundTotal, and RoundTotal
// of their sum: RoundTotal, RoundTotal, RoundTotal.
func RoundedTotals(totals []float64) (round []int64, total int64) {
	sum := 0.0
	for _, t := range totals {
		round = append(round, RoundTotal(t))
		sum += t
	}
	if RoundTotal(sum) != RoundTotal(-sum) {
		return round, RoundTotal(sum)
	}
	return round, 0
}

// Summary prints the round totals of a report.
func Summary(totals []float64) string {
	round, total := RoundedTotals(totals)
	_ = round
	return "total rounded " + string(rune(total))
}

// Audit checks the round totals twice.
func Audit(totals []float64) bool {
	a, _ := RoundedTotals(totals)
	b, _ := RoundedTotals(totals)
	return len(a) == len(b)
}
`})
	ctx := context.Background()
	o.Engine.Weights = map[string]float64{fuse.GenSymbol: 0, fuse.GenText: 0, fuse.GenRank: 0}
	for q, file := range map[string]string{"RoundTotal": "billing/invoice.go", "  RoundTotal()  ": "billing/invoice.go",
		"Weight": "shipping/label.go", "Summary": "billing/report.go"} {
		res, err := o.Search(ctx, q, fuse.Options{Dump: true})
		if err != nil {
			t.Fatal(err)
		}
		want := strings.TrimSuffix(strings.TrimSpace(q), "()")
		if len(res.Hits) == 0 || res.Hits[0].Name != want || res.Files[0].Path != file {
			t.Errorf("%q: hits %v, files %+v; want %s first, in %s", q, names(res.Hits), res.Files, want, file)
		}
		for _, d := range res.Dump {
			if d.Gen == fuse.GenVector || d.Gen == fuse.GenGraph {
				t.Errorf("%q: identifier search asked %s: %+v", q, d.Gen, d)
				break
			}
		}
	}
	res, err := o.Search(ctx, "which code rounds the totals of a report", fuse.Options{Dump: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(res.Dump, func(d fuse.DumpEntry) bool { return d.Gen == fuse.GenGraph }) {
		t.Errorf("a question in prose ran no graph search: %+v", res.Dump)
	}
}

// TestIdentifierUses: identifier search lists the name's definition and
// its uses, not a body that holds only the name's parts (listen, serve),
// which a question in those words still finds.
func TestIdentifierUses(t *testing.T) {
	o := openWith(t, map[string]string{
		"net/server.go": "package net\n\n// ListenAndServe serves addr.\nfunc ListenAndServe(addr string) error { return nil }\n\nfunc run() { ListenAndServe(\":80\") }\n\n" +
			"// shutdown stops the listen and serve loops.\nfunc shutdown() {\n\tlisten()\n\tserve()\n}\n",
		"net/listen/serve.go": "package listen\n\n// Serve serves; listen first.\nfunc Serve() { Listen(); ServeListen() }\n\n// Listen listens, to serve.\nfunc Listen() { ListenServe() }\n\n" +
			"// ServeListen serves what Listen listens to.\nfunc ServeListen() { Listen() }\n\n// ListenServe listens and serves.\nfunc ListenServe() { Serve() }\n",
		"cmd/web/main.go": "package main\n\nimport \"example.com/shop/net\"\n\nfunc main() {\n\tif err := net.ListenAndServe(\":8080\"); err != nil {\n\t\tpanic(err)\n\t}\n}\n",
		"net/loop.go": "package net\n\nfunc loop() {\n\tlisten()\n\tserve()\n}\n\nfunc listen() {}\n\nfunc serve() {}\n\n" +
			"// ServeListen serves and listens.\nfunc ServeListen() {}\n\n// ListenServe listens and serves.\nfunc ListenServe() {}\n",
	})
	ctx := context.Background()
	res, err := o.Search(ctx, "ListenAndServe", fuse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := names(res.Hits)
	if len(got) < 2 || got[0] != "ListenAndServe" || !slices.Contains(got, "run") || slices.Contains(got, "loop") {
		t.Errorf("identifier search: hits %v; want ListenAndServe first, run among them, not loop", got)
	}
	// the uses (run, main in another file) before what only shares the
	// definition's file and the name's parts (shutdown)
	if u, o := slices.Index(got, "main"), slices.Index(got, "shutdown"); u < 0 || (o >= 0 && o < u) || slices.Index(got, "run") > u {
		t.Errorf("identifier search: hits %v; want the uses run and main before shutdown", got)
	}
	if i := slices.IndexFunc(res.Hits, func(h fuse.Hit) bool { return h.Name == "main" }); i >= 0 && !strings.HasPrefix(res.Hits[i].Why, "holds ListenAndServe; ") {
		t.Errorf("identifier search: a use says %q, want why it ranks there first", res.Hits[i].Why)
	}
	if len(res.Files) < 2 || res.Files[1].Path != "cmd/web/main.go" {
		t.Errorf("identifier search: files %+v; want the definition's, then the use's", res.Files)
	}
	if res.Unresolved != "" {
		t.Errorf("a defined name: unresolved %q", res.Unresolved)
	}
	if res, err = o.Search(ctx, "code that does listen and serve", fuse.Options{Only: []string{fuse.GenText}}); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(names(res.Hits), "loop") {
		t.Errorf("a question in the parts' words: hits %v, want loop among them", names(res.Hits))
	}
	// a name nothing defines: the hits (its parts) come with a note
	res, err = o.Search(ctx, "ListenAndServeTLS", fuse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "no definition is named ListenAndServeTLS in the index: the hits are text that holds the name or its parts"; res.Unresolved != want || len(res.Hits) == 0 {
		t.Errorf("an undefined name: unresolved %q, %d hits; want %q and the parts' hits", res.Unresolved, len(res.Hits), want)
	}
	for _, q := range []string{"code that does listen and serve", "listenandserve"} {
		if res, err = o.Search(ctx, q, fuse.Options{}); err != nil || res.Unresolved != "" {
			t.Errorf("%q: unresolved %q (%v); want none (prose, or the name in another case)", q, res.Unresolved, err)
		}
	}
}

// TestPathBySuffix: a path named in a query resolves to the indexed file
// that shares the longest tail of directories with it, not to every file
// of that name.
func TestPathBySuffix(t *testing.T) {
	util := "package x\n\n// Clamp bounds n.\nfunc Clamp(n int) int { return n }\n"
	o := openWith(t, map[string]string{"a/x/util.go": util, "b/x/util.go": util, "b/y/util.go": util})
	for q, want := range map[string]string{
		"panic in /home/u/proj/b/x/util.go:4 after the upgrade": "b/x/util.go",
		"see a/x/util.go": "a/x/util.go",
	} {
		res, err := o.Search(context.Background(), q, fuse.Options{Only: []string{fuse.GenPath}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range res.Files {
			got = append(got, f.Path)
		}
		if len(got) != 1 || got[0] != want {
			t.Errorf("%q: files %v, want [%s]", q, got, want)
		}
	}
}

// An issue in Chinese puts its identifiers against the text without spaces
// and has no spaces between its words: the identifier is found as a word
// of its own, and the text meets the code's Chinese comments by pairs of
// characters — for the text search and for the embedding alike.
func TestChineseIssue(t *testing.T) {
	o := openWith(t, map[string]string{
		"pool/conn.go": `package pool

// Acquire 从连接池取出一个连接；连接池耗尽时等待超时后返回错误。
func Acquire(timeout int) error { return nil }

// Release 把连接放回连接池。
func Release() {}
`,
		"cache/memory.go": `package cache

// Sweep 定期清理本地内存缓存中已经过期的条目。
func Sweep() {}
`,
	})
	const q = "连接池耗尽后调用Acquire一直阻塞，没有等待超时"
	res, err := o.Search(context.Background(), q, fuse.Options{Only: []string{fuse.GenText}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].Name != "Acquire" || res.Hits[0].Path != "pool/conn.go" {
		t.Fatalf("text hits %v", names(res.Hits))
	}
	res, err = o.Search(context.Background(), "本地内存缓存过期", fuse.Options{Only: []string{fuse.GenText}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].Name != "Sweep" {
		t.Fatalf("text hits %v", names(res.Hits))
	}
	res, err = o.Search(context.Background(), q, fuse.Options{Only: []string{fuse.GenVector}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].Name != "Acquire" {
		t.Fatalf("embedding hits %v", names(res.Hits))
	}
}

// The sections of an issue template are not searched: their words are in
// every issue of the repository and match code the issue is not about.
func TestTemplateSectionsNotSearched(t *testing.T) {
	o := openWith(t, map[string]string{
		"release/version.go": "package release\n\n// Version reports which version you are using and what did you build it with.\nfunc Version() string { return tag }\n",
	})
	q := "Refunds rounded the wrong way\n<!-- What version are you using? -->\n### What version are you using?\n1.2\n### What did you do?\nRoundTotal on a refund of -1.5\n"
	for _, gen := range []string{fuse.GenText, fuse.GenFile, fuse.GenVector} {
		res, err := o.Search(context.Background(), q, fuse.Options{Only: []string{gen}})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range res.Files {
			if f.Path == "release/version.go" {
				t.Errorf("%s: the template's words find %s", gen, f.Path)
			}
		}
		if len(res.Files) == 0 {
			t.Errorf("%s: nothing found", gen)
		}
	}
}

// relay is a file whose short wrapper and long worker say the same thing
// in their doc comments: the worker is what a fix would change.
var relay = map[string]string{"mail/relay.go": `package mail

// Send hands a message to the relay.
func Send(m string) error { return write(m) }

// write hands a message to the relay.
func write(m string) error {
	var n int
	for i := 0; i < len(m); i++ {
		if m[i] == '\n' {
			n++
		}
	}
	if n > 1000 {
		return nil
	}
	buf := make([]byte, 0, len(m)+n)
	for i := 0; i < len(m); i++ {
		if m[i] == '\n' {
			buf = append(buf, '\r')
		}
		buf = append(buf, m[i])
	}
	_ = buf
	return nil
}
`}

// TestLengthPrior: of two functions that match a question equally, the
// long one ranks first in a search's answer (lengthPrior); asking for the
// generators' own rankings (Options.Only) or searching for an identifier
// both hold keeps the short one first, as the text ranks it.
func TestLengthPrior(t *testing.T) {
	o := openWith(t, relay)
	ctx := context.Background()
	order := func(q string, opts fuse.Options) []string {
		t.Helper()
		res, err := o.Search(ctx, q, opts)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, h := range res.Hits {
			if h.Name == "Send" || h.Name == "write" {
				out = append(out, h.Name)
			}
		}
		if len(out) != 2 {
			t.Fatalf("%+v: hits %v", opts, names(res.Hits))
		}
		return out
	}
	q := "the relay never gets a message handed to it"
	if got := order(q, fuse.Options{}); got[0] != "write" {
		t.Errorf("search: %v, want the long function first", got)
	}
	if got := order(q, fuse.Options{Only: fuse.AllGenerators}); got[0] != "Send" {
		t.Errorf("every generator by Only: %v, want the text's order", got)
	}
	// both hold the name; an identifier search ranks them by its evidence
	if got := order("error", fuse.Options{}); got[0] != "Send" {
		t.Errorf("identifier search: %v, want the text's order", got)
	}
}

// TestGeneratedWith: a file hit names the generated files made with it —
// skipped by the walker, in its directory, its name extended — and no
// other: not a generated file of another directory, not a hand-written
// file whose name extends it, not a generated file whose name only starts
// like it.
func TestGeneratedWith(t *testing.T) {
	gen := "// Code generated by \"stringer -type=Kind\"; DO NOT EDIT.\n\npackage billing\n\nfunc (k Kind) String() string { return \"\" }\n"
	o := openWith(t, map[string]string{
		"billing/invoice_string.go":  gen,
		"billing/invoicestring.go":   gen, // starts like it, no separator
		"billing/invoice_extra.go":   "package billing\n\n// Extra is hand-written.\nfunc Extra() {}\n",
		"shipping/invoice_string.go": strings.Replace(gen, "package billing", "package shipping", 1),
	})
	res, err := o.Search(context.Background(), "invoice totals of refunds are rounded the wrong way", fuse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(res.Files, func(f fuse.FileHit) bool { return f.Path == "billing/invoice.go" })
	if i < 0 {
		t.Fatalf("billing/invoice.go not among the files: %+v", res.Files)
	}
	if got := res.Files[i].Generated; !slices.Equal(got, []string{"billing/invoice_string.go"}) {
		t.Errorf("generated with billing/invoice.go: %v, want [billing/invoice_string.go]", got)
	}
	for _, f := range res.Files {
		if strings.Contains(f.Path, "invoice_string") || f.Path == "billing/invoicestring.go" {
			t.Errorf("a generated file was searched: %s", f.Path)
		}
		if f.Path != "billing/invoice.go" && len(f.Generated) > 0 {
			t.Errorf("%s: generated %v", f.Path, f.Generated)
		}
	}
}

// TestFlagFindsItsField: a flag the query names in hyphens ("--max-idle-conns")
// finds the field that holds its value (MaxIdleConns) by the symbol
// generator, in any case, as a name written in the code's case would.
func TestFlagFindsItsField(t *testing.T) {
	o := openWith(t, map[string]string{"pool/config.go": `package pool

// Config is the pool's configuration.
type Config struct {
	MaxIdleConns int
}

func register(fs *flagSet, c *Config) {
	fs.Int(&c.MaxIdleConns, "max-idle-conns", 2, "idle connections kept")
}

type flagSet struct{}

func (*flagSet) Int(p *int, name string, v int, usage string) { *p = v }
`})
	for _, q := range []string{"pool: --max-idle-conns is ignored", "pool: MAX_IDLE_CONNS is ignored"} {
		res, err := o.Search(context.Background(), q, fuse.Options{Only: []string{fuse.GenSymbol}})
		if err != nil {
			t.Fatal(err)
		}
		if n := names(res.Hits); len(n) == 0 || n[0] != "Config" {
			t.Errorf("%q: symbol hits %v, want Config (its field MaxIdleConns) first", q, n)
		}
	}
}
