package contextpack_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/cairn-dev/cairn/graph/embedded"
	"github.com/cairn-dev/cairn/graph/store"
	"github.com/cairn-dev/cairn/indexer"
	"github.com/cairn-dev/cairn/retrieval/bm25"
	"github.com/cairn-dev/cairn/retrieval/contextpack"
	"github.com/cairn-dev/cairn/retrieval/fuse"
	"github.com/cairn-dev/cairn/retrieval/vector"
	"github.com/cairn-dev/cairn/schema"
)

var update = flag.Bool("update", false, "rewrite golden packs")

// fixture is a small service: a store, a handler, a test, configuration
// with secrets and a README.
var fixture = map[string]string{
	"go.mod": "module example.com/tasks\n\ngo 1.22\n",
	"store/store.go": `package store

// Task is an asynchronous job and what it produced.
type Task struct {
	ID          int
	Status      string
	ArtifactURL string
}

// Store keeps tasks in memory.
type Store struct {
	tasks map[int]*Task
}

// New returns an empty store.
func New() *Store { return &Store{tasks: map[int]*Task{}} }

// Complete marks a task done and records its artifact.
func (s *Store) Complete(id int, url string) {
	t := s.tasks[id]
	t.Status = "done"
	t.ArtifactURL = url
}

// Load returns a task by id.
func (s *Store) Load(id int) *Task { return s.tasks[id] }
`,
	"api/handler.go": `package api

import "example.com/tasks/store"

const apiKey = "AKIAIOSFODNN7EXAMPLE"

// TaskView is what the API returns for a task.
type TaskView struct {
	ID     int    ` + "`json:\"id\"`" + `
	Status string ` + "`json:\"status\"`" + `
}

// ToView maps a task for the response: it drops the artifact URL.
func ToView(t *store.Task) TaskView {
	return TaskView{ID: t.ID, Status: t.Status}
}

// GetTask serves GET /tasks/{id}.
func GetTask(s *store.Store, id int) TaskView {
	return ToView(s.Load(id))
}
`,
	"api/handler_test.go": `package api

import (
	"testing"

	"example.com/tasks/store"
)

func TestGetTask(t *testing.T) {
	s := store.New()
	s.Complete(1, "s3://bucket/a")
	if v := GetTask(s, 1); v.Status != "done" {
		t.Fatal(v)
	}
}
`,
	"config/settings.yaml": "database:\n  host: db.internal\n  password: hunter2-Xy9q!ZZ\nartifacts:\n  bucket: s3://bucket\n",
	".env":                 "API_TOKEN=zxcv-12345-SECRET-qwer\nDEBUG=1\n",
	"config/tls.yaml":      "tls:\n  cert: /etc/tls/cert.pem\n  key: |\n    -----BEGIN RSA PRIVATE KEY-----\n    MIIEowIBAAKCAQEA1234567890abcdef\n    -----END RSA PRIVATE KEY-----\n",
	"README.md":            "# tasks\n\nAfter a page refresh the artifact disappears: the API drops the artifact URL.\n",
}

func writeRepo(t testing.TB, root string) {
	t.Helper()
	for p, c := range fixture {
		abs := filepath.Join(root, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(abs), 0o755)
		if err := os.WriteFile(abs, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-time.Hour)
		os.Chtimes(abs, old, old)
	}
}

// build indexes root with the text and vector side indexes and opens a
// pack builder over it.
func build(t testing.TB, root string) (*contextpack.Builder, func()) {
	t.Helper()
	dir := filepath.Join(root, ".cairn")
	ctx := context.Background()
	w, err := embedded.NewWriter(ctx, embedded.WriterOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	sinks := []indexer.Sink{bm25.NewBuilder(nil, nil), vector.NewBuilder(nil, vector.Options{PPMI: embedPPMI()})}
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
	tok, err := contextpack.NewTokenizer("")
	if err != nil {
		t.Fatal(err)
	}
	return &contextpack.Builder{Engine: o.Engine, Root: o.Meta.Root, Meta: o.Meta, Tokenizer: tok}, o.Close
}

// fixtureBuilder indexes the fixture in a temporary directory and returns
// a builder over it (closed with the test) and the directory.
func fixtureBuilder(t *testing.T) (*contextpack.Builder, string) {
	t.Helper()
	root := t.TempDir()
	writeRepo(t, root)
	b, done := build(t, root)
	t.Cleanup(done)
	return b, root
}

const task = "After a page refresh the task's artifact URL disappears from GET /tasks/{id}. Where is ArtifactURL written and why is it missing from the response?"

func TestPackInvariantsAndSchema(t *testing.T) {
	b, _ := fixtureBuilder(t)
	tok, _ := contextpack.NewTokenizer("")
	c := jsonschema.NewCompiler()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(schema.ContextPackJSONSchema))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("contextpack.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("contextpack.json")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 3))
	budgets := []int{150, 400, 900, 2000, 5000}
	if _, err := b.Build(context.Background(), contextpack.Request{Task: task, Budget: 20, Format: "json"}); !errors.Is(err, contextpack.ErrBudgetTooSmall) {
		t.Errorf("budget 20: %v, want ErrBudgetTooSmall", err)
	} else {
		// just under the smallest empty pack is too small too, and the
		// smallest empty pack fits its own size
		var least int
		if _, serr := fmt.Sscanf(err.Error()[strings.LastIndex(err.Error(), "takes "):], "takes %d tokens", &least); serr != nil || least <= 20 {
			t.Fatalf("%v: no size of the empty pack (%v)", err, serr)
		}
		if p, err := b.Build(context.Background(), contextpack.Request{Task: task, Budget: least - 1, Format: "json"}); !errors.Is(err, contextpack.ErrBudgetTooSmall) {
			used := -1
			if p != nil {
				used = p.UsedTokens
			}
			t.Errorf("budget %d, one under the empty pack: %v (%d tokens used), want ErrBudgetTooSmall", least-1, err, used)
		}
	}
	for i := 0; i < 10; i++ {
		budgets = append(budgets, 100+rng.IntN(4000))
	}
	for _, budget := range budgets {
		for _, format := range []string{"json", "markdown"} {
			p, err := b.Build(context.Background(), contextpack.Request{Task: task, Budget: budget, Format: format})
			if errors.Is(err, contextpack.ErrBudgetTooSmall) && budget < 300 {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			rendered := p.Markdown()
			if format == "json" {
				rendered = string(p.JSON())
			}
			if n := tok.Count(rendered); n != p.UsedTokens || n > budget {
				t.Errorf("budget %d %s: rendered %d tokens, used_tokens %d", budget, format, n, p.UsedTokens)
			}
			// no line of the repository appears twice
			seen := map[string]bool{}
			for _, it := range p.Items {
				for l := it.StartLine; l <= it.EndLine; l++ {
					k := fmt.Sprintf("%s:%d", it.Path, l)
					if seen[k] {
						t.Errorf("budget %d: line %s in two items", budget, k)
					}
					seen[k] = true
				}
			}
			if format == "json" {
				inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(p.JSON()))
				if err != nil {
					t.Fatal(err)
				}
				if err := sch.Validate(inst); err != nil {
					t.Errorf("budget %d: pack does not match its schema: %v", budget, err)
				}
			}
		}
	}
}

// FuzzBudget: for any budget the rendered pack fits.
func FuzzBudget(f *testing.F) {
	root := f.TempDir()
	writeRepo(f, root)
	b, done := build(f, root)
	f.Cleanup(done)
	tok, _ := contextpack.NewTokenizer("")
	f.Add(uint16(300), false)
	f.Add(uint16(3000), true)
	f.Fuzz(func(t *testing.T, budget uint16, md bool) {
		if budget == 0 {
			return
		}
		format := "json"
		if md {
			format = "markdown"
		}
		p, err := b.Build(context.Background(), contextpack.Request{Task: task, Budget: int(budget), Format: format})
		if errors.Is(err, contextpack.ErrBudgetTooSmall) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		out := string(p.JSON())
		if md {
			out = p.Markdown()
		}
		if n := tok.Count(out); n > int(budget) && len(p.Items) > 0 {
			t.Fatalf("budget %d: %d tokens", budget, n)
		}
	})
}

func TestPackFindsTheEvidenceAndIsDeterministic(t *testing.T) {
	b, root := fixtureBuilder(t)
	p1, err := b.Build(context.Background(), contextpack.Request{Task: task, Budget: 4000, Format: "json"})
	if err != nil {
		t.Fatal(err)
	}
	p2, _ := b.Build(context.Background(), contextpack.Request{Task: task, Budget: 4000, Format: "json"})
	if !bytes.Equal(p1.JSON(), p2.JSON()) {
		t.Error("same index and input gave different packs")
	}
	var text strings.Builder
	for _, it := range p1.Items {
		text.WriteString(it.Content + "\n")
		if it.Path == "README.md" && it.Trust != contextpack.TrustUntrusted {
			t.Errorf("README item trusted as %s", it.Trust)
		}
		if it.Reason == "" || it.Revision == "" {
			t.Errorf("item without reason or revision: %+v", it)
		}
	}
	// the definitions the task is about, whole (in their files here: the
	// fixture's files are small)
	for _, want := range []string{"func ToView(t *store.Task) TaskView {", "func (s *Store) Complete(id int, url string) {"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("pack lacks %s:\n%s", want, text.String())
		}
	}
	golden := filepath.Join("testdata", "task.golden.md")
	p3, _ := b.Build(context.Background(), contextpack.Request{Task: task, Budget: 1500, Format: "markdown"})
	got := strings.ReplaceAll(p3.Markdown(), root, "$ROOT")
	if *update {
		os.WriteFile(golden, []byte(got), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if got != string(want) {
		t.Errorf("pack differs from %s; rerun with -update and review:\n%s", golden, got)
	}
}

func TestSecretsNeverLeave(t *testing.T) {
	b, _ := fixtureBuilder(t)
	p, err := b.Build(context.Background(), contextpack.Request{Task: "database password, API token, api key and the deploy private key in settings.yaml, .env, key.pem and handler.go",
		Budget: 6000, Format: "json", Focus: []string{"config/settings.yaml", ".env", "config/tls.yaml", "api/handler.go"}})
	if err != nil {
		t.Fatal(err)
	}
	out := string(p.JSON()) + p.Markdown()
	for _, secret := range []string{"hunter2-Xy9q!ZZ", "zxcv-12345-SECRET-qwer", "MIIEowIBAAKCAQEA1234567890abcdef", "AKIAIOSFODNN7EXAMPLE"} {
		if strings.Contains(out, secret) {
			t.Errorf("secret %q leaked", secret)
		}
	}
	kinds := map[string]bool{}
	for _, r := range p.Redactions {
		kinds[r.Path+" "+r.Kind] = true
	}
	for _, want := range []string{"config/settings.yaml credential-assignment", ".env env-value", "config/tls.yaml private-key", "api/handler.go aws-access-key"} {
		if !kinds[want] {
			t.Errorf("redactions %v lack %q", kinds, want)
		}
	}
	// values that are not secrets stay
	if !strings.Contains(out, "db.internal") || !strings.Contains(out, "/etc/tls/cert.pem") {
		t.Error("non-secret configuration was redacted")
	}
}

func TestStaleItems(t *testing.T) {
	b, root := fixtureBuilder(t)
	os.WriteFile(filepath.Join(root, "api/handler.go"), []byte(fixture["api/handler.go"]+"\n// edited after indexing\n"), 0o644)
	p, err := b.Build(context.Background(), contextpack.Request{Task: task, Budget: 4000})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, it := range p.Items {
		if it.Path == "api/handler.go" {
			n++
			if !it.Stale {
				t.Errorf("%s not marked stale", it.Cite())
			}
		} else if it.Stale {
			t.Errorf("%s marked stale", it.Cite())
		}
	}
	if n == 0 {
		t.Fatal("no item from the edited file")
	}
}

// TestTaskEchoCapped: a long task is echoed in at most a 32nd of the
// budget, marked as cut, and the pack is still found from the whole task
// (its last sentence names the symbol); a short task is echoed whole.
func TestTaskEchoCapped(t *testing.T) {
	b, _ := fixtureBuilder(t)
	tok, _ := contextpack.NewTokenizer("")
	long := strings.Repeat("The page shows an empty box where the download link used to be after a refresh. ", 60) + "Where is ArtifactURL written?"
	p, err := b.Build(context.Background(), contextpack.Request{Task: long, Budget: 4000, Format: "json"})
	if err != nil {
		t.Fatal(err)
	}
	if n := tok.Count(p.Task); n > 4000/32 || !strings.HasSuffix(p.Task, "…[task truncated]") || !strings.HasPrefix(long, strings.TrimSuffix(p.Task, "…[task truncated]")) {
		t.Errorf("echo of a %d-token task: %d tokens: %.80q", tok.Count(long), n, p.Task)
	}
	found := false
	for _, it := range p.Items {
		found = found || strings.Contains(it.Content, "ArtifactURL")
	}
	if !found {
		t.Errorf("the pack lost what only the end of the task asked for")
	}
	p, err = b.Build(context.Background(), contextpack.Request{Task: task, Budget: 4000, Format: "json"})
	if err != nil || p.Task != task {
		t.Errorf("short task echoed as %q (%v)", p.Task, err)
	}
}

// TestFullShare: past the full share of the budget, candidates come as
// their signatures, so a tight pack names more definitions; with a share
// of 1 every item that fits comes whole. Budgets hold either way. (The
// budget is one the signatures fill: room left over would give them their
// bodies back, TestLeftoverRoom.)
func TestFullShare(t *testing.T) {
	b, _ := fixtureBuilder(t)
	tok, _ := contextpack.NewTokenizer("")
	count := func(share float64) (sigs, items int) {
		p, err := b.Build(context.Background(), contextpack.Request{Task: task, Budget: 1200, Format: "json", FullShare: share})
		if err != nil {
			t.Fatal(err)
		}
		if n := tok.Count(string(p.JSON())); n > 1200 {
			t.Errorf("share %v: %d tokens over the budget", share, n)
		}
		for _, it := range p.Items {
			if it.Kind == contextpack.KindSignature {
				sigs++
				if !strings.Contains(it.Reason, "signature only") {
					t.Errorf("a signature item does not say so: %q", it.Reason)
				}
			}
		}
		return sigs, len(p.Items)
	}
	wholeSigs, wholeItems := count(1)
	tailSigs, tailItems := count(0.2)
	if tailSigs <= wholeSigs || tailItems <= wholeItems {
		t.Errorf("full share 0.2: %d signatures in %d items; full share 1: %d in %d", tailSigs, tailItems, wholeSigs, wholeItems)
	}
}

// TestSignatureCarriesDocSummary: a definition degraded to its signature
// keeps what its doc says first (the first paragraph, four lines at most,
// "…" when cut), not a docstring as long as the body — in Python, where
// the docstring follows the def, and in Go, where a long comment above
// gives way to its summary below the signature.
func TestSignatureCarriesDocSummary(t *testing.T) {
	root := t.TempDir()
	var params strings.Builder
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&params, "    param%d: what the refresh does with option %d of the artifact store\n", i, i)
	}
	files := map[string]string{
		"store.py": "def refresh_artifact(url, retries):\n    \"\"\"Refresh the artifact URL of a task.\n\n    Parameters:\n" + params.String() + "    \"\"\"\n" +
			strings.Repeat("    url = url.strip()  # refresh artifact\n", 60) + "    return url\n",
		"store.go": "package store\n\n// RefreshArtifact refreshes the artifact URL of a task.\n//\n" +
			strings.ReplaceAll(params.String(), "    ", "// ") + "func RefreshArtifact(url string) string {\n" +
			strings.Repeat("\turl = url + \"refresh artifact\"\n", 60) + "\treturn url\n}\n",
	}
	for p, c := range files {
		if err := os.WriteFile(filepath.Join(root, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, done := build(t, root)
	defer done()
	p, err := b.Build(context.Background(), contextpack.Request{Task: "refresh the artifact URL", Budget: 700, Format: "json", FullShare: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	sigs := 0
	for _, it := range p.Items {
		if it.Kind != contextpack.KindSignature {
			continue
		}
		sigs++
		if !strings.Contains(it.Content, "Refresh") && !strings.Contains(it.Content, "refreshes") {
			t.Errorf("%s: the summary is missing:\n%s", it.Path, it.Content)
		}
		if strings.Contains(it.Content, "param29") || !strings.Contains(it.Content, "…") {
			t.Errorf("%s: the whole doc, or no mark of the cut:\n%s", it.Path, it.Content)
		}
		if n := strings.Count(it.Content, "\n"); n > 6 {
			t.Errorf("%s: %d lines in a signature item:\n%s", it.Path, n+1, it.Content)
		}
		// the summary follows the signature's lines, but is no line of the file
		for _, r := range it.UntrustedLines {
			if r[0] < it.StartLine || r[1] > it.EndLine {
				t.Errorf("%s:%d-%d: untrusted lines %v outside the item's lines", it.Path, it.StartLine, it.EndLine, it.UntrustedLines)
			}
		}
	}
	if sigs == 0 {
		t.Fatalf("no signature items: %+v", p.Items)
	}
}

// TestInterfaceImplementations: for an interface among the strongest
// hits, the pack brings what implements it — the types and the methods
// that implement each of its methods — and a test's fake after the code's
// own implementation.
func TestInterfaceImplementations(t *testing.T) {
	root := t.TempDir()
	// long files of other matters around each implementation, so that
	// neither comes whole and search does not find them by themselves
	filler := func(prefix string) string {
		var sb strings.Builder
		for i := 0; i < 60; i++ {
			fmt.Fprintf(&sb, "\nfunc %sMetric%d(samples []float64) float64 {\n\ttotal := 0.0\n\tfor _, v := range samples {\n\t\ttotal += v * %d\n\t}\n\treturn total\n}\n", prefix, i, i)
		}
		return sb.String()
	}
	files := map[string]string{
		"go.mod": "module example.com/names\n\ngo 1.22\n",
		"resolver.go": `package names

// Resolver turns a target name into addresses and reports what it found
// to the connection.
type Resolver interface {
	// Resolve looks the target up again.
	Resolve(target string) ([]string, error)
	// Close stops watching the target.
	Close()
}
`,
		"dns.go": "package names\n\nimport \"net\"\n\ntype dnsLookup struct{ host string }\n\n" +
			"func (d *dnsLookup) Resolve(host string) ([]string, error) { return net.LookupHost(d.host) }\n\n" +
			"func (d *dnsLookup) Close() {}\n" + filler("dns"),
		"fake_test.go": "package names\n\ntype fakeLookup struct{ addrs []string }\n\n" +
			"func (f *fakeLookup) Resolve(host string) ([]string, error) { return f.addrs, nil }\n\n" +
			"func (f *fakeLookup) Close() {}\n" + filler("fake"),
	}
	for p, c := range files {
		if err := os.WriteFile(filepath.Join(root, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, done := build(t, root)
	defer done()
	p, err := b.Build(context.Background(), contextpack.Request{Task: "the Resolver interface cannot report failures to the connection", Budget: 1500, Format: "json"})
	if err != nil {
		t.Fatal(err)
	}
	// adjacent chunks come as one item, their reasons joined
	var dns, fake *contextpack.Item
	for i, it := range p.Items {
		switch {
		case it.Path == "dns.go" && strings.Contains(it.Reason, "implements"):
			dns = &p.Items[i]
		case it.Path == "fake_test.go":
			fake = &p.Items[i]
		}
	}
	switch {
	case dns == nil:
		t.Error("the code's implementation of Resolver is not in the pack")
	case !strings.Contains(dns.Reason, "implements Resolver (") || !strings.Contains(dns.Reason, "implements Resolver.Close (") || !strings.Contains(dns.Reason, "implements Resolver.Resolve ("):
		t.Errorf("dns.go's item does not say it implements Resolver and each of its methods: %q", dns.Reason)
	case fake != nil && fake.Score >= dns.Score:
		t.Errorf("the test's fake (%.3f) ranks with the code's implementation (%.3f)", fake.Score, dns.Score)
	}
	if t.Failed() {
		for _, it := range p.Items {
			t.Logf("%s %s %s %.3f %q", it.Path, it.Kind, it.Symbol, it.Score, it.Reason)
		}
	}
}
