package trace_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/graph/embedded"
	"github.com/cairn-dev/cairn/indexer"
	"github.com/cairn-dev/cairn/retrieval/trace"
)

// indexTree indexes root into a fresh store and opens it.
func indexTree(t *testing.T, root string) *embedded.Store {
	t.Helper()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "idx")
	w, err := embedded.NewWriter(ctx, embedded.WriterOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := indexer.Run(ctx, w, indexer.Options{Root: root, StateDir: dir, NoSCIPDiscovery: true}); err != nil {
		t.Fatal(err)
	}
	s, err := embedded.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func locs(ss []trace.Site) []string {
	var out []string
	for _, s := range ss {
		out = append(out, fmt.Sprintf("%s:%d", s.Path, s.StartLine))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func fields(comment, key string) ([]string, bool) {
	for _, line := range strings.Split(comment, "\n") {
		if v, ok := strings.CutPrefix(line, key+":"); ok {
			return strings.Fields(v), true
		}
	}
	return nil, false
}

// TestFixtures runs the per-language fixtures in testdata: each names a
// target and the exact write and read sites (path:line) and gaps a trace
// must find; exact-writes are the writes spelled as the target is (not
// Normalized), first-write the one listed first, read-flow the functions
// of the first read flow, gap-says words a gap's message holds, unresolved what the
// result says the index lacks (Result.Unresolved; none unless given).
func TestFixtures(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txtar")
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txtar"), func(t *testing.T) {
			ar, root := unpackTxtar(t, f)
			s := indexTree(t, root)
			comment := string(ar.Comment)
			target, _ := fields(comment, "target")
			res, err := trace.Trace(context.Background(), s, target[0], trace.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var text bytes.Buffer
			res.WriteText(&text)
			check := func(kind string, got []string) {
				want, ok := fields(comment, kind)
				if !ok {
					return
				}
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Errorf("%s:\n got  %v\n want %v\n%s", kind, got, want, text.String())
				}
			}
			check("writes", locs(res.Writes))
			check("reads", locs(res.Reads))
			if want, ok := fields(comment, "read-flow"); ok {
				var got []string
				for _, f := range res.Flows {
					if f.Kind == "read" {
						got = stepNames(f)
						break
					}
				}
				if !slices.Equal(got, want) {
					t.Errorf("read-flow:\n got  %v\n want %v\n%s", got, want, text.String())
				}
			}
			if want, ok := fields(comment, "unresolved"); ok {
				if got := strings.Join(strings.Fields(res.Unresolved), " "); got != strings.Join(want, " ") {
					t.Errorf("unresolved:\n got  %q\n want %q", got, strings.Join(want, " "))
				}
			} else if res.Unresolved != "" {
				t.Errorf("unresolved %q, want none", res.Unresolved)
			}
			// the writes spelled as the target is, and that they come first
			var exact []trace.Site
			for _, s := range res.Writes {
				if !s.Normalized {
					exact = append(exact, s)
				}
			}
			var drops []trace.Site
			for _, s := range res.Reads {
				if s.Drops {
					drops = append(drops, s)
				}
			}
			check("drop-reads", locs(drops))
			check("exact-writes", locs(exact))
			var variants []trace.Site
			for _, s := range res.Writes {
				if s.Normalized {
					variants = append(variants, s)
					if s.Variant == "" {
						t.Errorf("variant write %s:%d has no Variant label", s.Path, s.StartLine)
					}
				}
			}
			check("variant-writes", locs(variants))
			if len(variants) > 0 && !strings.Contains(text.String(), "variant spelling") {
				t.Errorf("the text does not label the variants\n%s", text.String())
			}
			if len(res.Writes) > 0 {
				check("first-write", locs(res.Writes[:1]))
			}
			for i := 1; i < len(res.Writes); i++ {
				if res.Writes[i-1].Normalized && !res.Writes[i].Normalized {
					t.Errorf("write %s:%d spelled as the target comes after a normalized one\n%s", res.Writes[i].Path, res.Writes[i].StartLine, text.String())
				}
			}
			if want, ok := fields(comment, "gap-says"); ok {
				phrase := strings.Join(want, " ")
				if !slices.ContainsFunc(res.Gaps, func(g trace.Gap) bool { return strings.Contains(g.Message, phrase) }) {
					t.Errorf("no gap says %q\n%s", phrase, text.String())
				}
			}
			if want, ok := fields(comment, "gaps"); ok {
				var got []string
				for _, g := range res.Gaps {
					got = append(got, fmt.Sprintf("%s@%s:%d", g.Kind, g.Path, g.StartLine))
				}
				slices.Sort(got)
				if len(want) == 1 && want[0] == "none" {
					want = nil
				}
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Errorf("gaps:\n got  %v\n want %v\n%s", got, want, text.String())
				}
			}
		})
	}
}

// appTrace indexes a fixture application and traces the artifact field.
func appTrace(t *testing.T, app, target string) *trace.Result {
	t.Helper()
	s := indexTree(t, filepath.Join("..", "..", "testdata", "apps", app))
	res, err := trace.Trace(context.Background(), s, target, trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// stepNames lists a flow's functions in order.
func stepNames(f trace.Flow) []string {
	var out []string
	for _, s := range f.Steps {
		out = append(out, s.Name)
	}
	return out
}

func flowOf(res *trace.Result, kind, entry string) *trace.Flow {
	for i, f := range res.Flows {
		if f.Kind == kind && strings.Contains(f.Entry.Label, entry) {
			return &res.Flows[i]
		}
	}
	return nil
}

// TestArtifactDropped: the response mapper drops the artifact URL. The
// trace shows the write path (completion handler → SQL UPDATE), the read
// path from the route loader through the HTTP route, the query, the
// mapper, the client store and the renderer, and the gap at the mapper.
func TestArtifactDropped(t *testing.T) {
	res := appTrace(t, "artifact-dropped", "Task.ArtifactURL")
	var text bytes.Buffer
	res.WriteText(&text)
	w := flowOf(res, "write", "POST /tasks/{id}/complete")
	if w == nil {
		t.Fatalf("no write flow from the completion route:\n%s", text.String())
	}
	if got := stepNames(*w); !slices.Equal(got, []string{"Handler.CompleteTask", "Store.CompleteTask"}) {
		t.Errorf("write path %v", got)
	}
	if !slices.ContainsFunc(w.Steps[1].Does, func(d string) bool { return strings.Contains(d, "SQL UPDATE tasks") }) {
		t.Errorf("write path does not end in the UPDATE: %v", w.Steps[1].Does)
	}
	r := flowOf(res, "read", "loadTaskRoute")
	if r == nil {
		t.Fatalf("no read flow from the route loader:\n%s", text.String())
	}
	want := []string{"loadTaskRoute", "fetchTask", "Handler.GetTask", "Store.LoadTask", "ToResponse", "TaskStore.setTask", "renderTask"}
	if got := stepNames(*r); !slices.Equal(got, want) {
		t.Errorf("read path\n got  %v\n want %v", got, want)
	}
	if r.Steps[2].Via != "http GET /tasks/{id}" {
		t.Errorf("the client reaches the handler via %q", r.Steps[2].Via)
	}
	if !slices.ContainsFunc(r.AlsoFrom, func(e trace.Entry) bool { return e.Kind == "ui" && e.Func.Name == "onRefreshClick" }) {
		t.Errorf("the refresh button does not lead into the read path: %+v", r.AlsoFrom)
	}
	if len(res.Gaps) == 0 || res.Gaps[0].Kind != "dropped" || res.Gaps[0].Path != "server/mapper.go" || res.Gaps[0].Func.Name != "ToResponse" {
		t.Fatalf("first gap is not the mapper:\n%s", text.String())
	}
	if r.Steps[4].Gap == "" {
		t.Errorf("the mapper step is not marked as the gap")
	}
	// the mapper is on the read side itself, not only in the gaps
	if !slices.ContainsFunc(res.Reads, func(s trace.Site) bool {
		return s.Drops && s.Func != nil && s.Func.Name == "ToResponse" && len(s.Paths) > 0
	}) {
		t.Errorf("the reads do not list the mapper that drops the value, with its paths:\n%s", text.String())
	}
	if !slices.ContainsFunc(r.Steps[4].Does, func(d string) bool { return strings.Contains(d, "drops it") }) {
		t.Errorf("the mapper step does not say it drops the value: %v", r.Steps[4].Does)
	}
	for _, g := range res.Gaps {
		if g.Kind == "not-persisted" {
			t.Errorf("the artifact is persisted here, yet: %s", g.Message)
		}
		if g.Certainty != "certain" {
			t.Errorf("gap certainty %q with every file analysed", g.Certainty)
		}
	}
}

// TestArtifactUnsaved: the mapper is right but the completion handler
// sets the URL on a loaded copy and never stores it: the trace points at
// that write and at the UPDATE that leaves the column out.
func TestArtifactUnsaved(t *testing.T) {
	res := appTrace(t, "artifact-unsaved", "Task.ArtifactURL")
	var text bytes.Buffer
	res.WriteText(&text)
	if len(res.Gaps) == 0 {
		t.Fatalf("no gap:\n%s", text.String())
	}
	g := res.Gaps[0]
	if g.Kind != "not-persisted" || g.Path != "server/handlers.go" || g.StartLine != 31 || g.Func.Name != "Handler.CompleteTask" {
		t.Fatalf("first gap %+v, want not-persisted at server/handlers.go:31\n%s", g, text.String())
	}
	if !slices.ContainsFunc(g.Evidence, func(l trace.Loc) bool { return l.Path == "server/store.go" && l.StartLine == 12 }) {
		t.Errorf("the gap does not cite the UPDATE that leaves the column out: %+v", g.Evidence)
	}
	for _, g := range res.Gaps {
		if g.Kind == "dropped" {
			t.Errorf("the mapper copies the field, yet: %s", g.Message)
		}
	}
	if flowOf(res, "write", "POST /tasks/{id}/complete") == nil {
		t.Errorf("no write flow from the completion route")
	}
}

// TestUnknownWhenNotAnalysed: a file that mentions the key but could not
// be parsed turns "none" into "unknown".
func TestUnknownWhenNotAnalysed(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join("..", "..", "testdata", "apps", "artifact-unsaved")
	if err := os.CopyFS(root, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	// a Go file the indexer leaves out for its size, which may well store
	// the artifact
	big := "package main\n\nfunc save(t *Task) { db.Exec(`UPDATE tasks SET artifact_url = $1`, t.ArtifactURL) }\n" + strings.Repeat("// padding\n", 200000)
	os.WriteFile(filepath.Join(root, "server", "worker.go"), []byte(big), 0o644)
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "idx")
	w, err := embedded.NewWriter(ctx, embedded.WriterOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := indexer.Run(ctx, w, indexer.Options{Root: root, StateDir: dir, NoSCIPDiscovery: true, MaxFileSize: 1 << 20}); err != nil {
		t.Fatal(err)
	}
	s, err := embedded.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := trace.Trace(ctx, s, "Task.ArtifactURL", trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Unknown) == 0 || !strings.Contains(res.Unknown[0], "server/worker.go") {
		t.Fatalf("files that were not analysed are not reported: %v", res.Unknown)
	}
	if len(res.Gaps) == 0 {
		t.Fatalf("no gaps")
	}
	for _, g := range res.Gaps {
		if g.Certainty != "unknown" {
			t.Errorf("gap %s is %q although files mentioning the key were not analysed", g.Kind, g.Certainty)
		}
	}
}

// TestRenderings: JSON round-trips; Mermaid and DOT name the gap step.
func TestRenderings(t *testing.T) {
	res := appTrace(t, "artifact-dropped", "tasks.artifact_url")
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var back trace.Result
	if err := json.Unmarshal(b, &back); err != nil || len(back.Flows) != len(res.Flows) {
		t.Fatalf("json round trip: %v", err)
	}
	var m, d bytes.Buffer
	res.WriteMermaid(&m)
	res.WriteDot(&d)
	if !strings.HasPrefix(m.String(), "flowchart LR") || !strings.Contains(m.String(), "ToResponse") || !strings.Contains(m.String(), "stroke:#d00") {
		t.Errorf("mermaid:\n%s", m.String())
	}
	if !strings.HasPrefix(d.String(), "digraph trace {") || !strings.Contains(d.String(), "color=red") {
		t.Errorf("dot:\n%s", d.String())
	}
	if _, err := trace.Trace(context.Background(), nil, " ", trace.Options{}); err == nil {
		t.Errorf("an empty target is accepted")
	}
	_ = graph.ConfPrecise
}

// TestAlikeSitesFolded: a generated file holding the key thousands of
// times lists the first sites of each kind and counts the rest, in the
// JSON and in the text rendering; a file under the bound lists them all.
func TestAlikeSitesFolded(t *testing.T) {
	root := t.TempDir()
	var rules strings.Builder
	rules.WriteString("groups:\n  - name: big\n    rules:\n")
	for i := range 500 {
		fmt.Fprintf(&rules, "      - record: r%d\n        labels:\n          job: j%d\n", i, i)
	}
	os.WriteFile(filepath.Join(root, "rules.yml"), []byte(rules.String()), 0o644)
	os.WriteFile(filepath.Join(root, "small.yml"), []byte("a:\n  labels: 1\nb:\n  labels: 2\n"), 0o644)
	os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n\ntype Rule struct{ Labels map[string]string }\n\nfunc main() {\n\tr := Rule{}\n\tr.Labels = map[string]string{}\n\tprintln(len(r.Labels))\n}\n"), 0o644)
	s := indexTree(t, root)
	res, err := trace.Trace(context.Background(), s, "labels", trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	listed, alike, small := 0, 0, 0
	for _, w := range res.Writes {
		switch w.Path {
		case "rules.yml":
			listed++
			alike += w.Alike
		case "small.yml":
			small++
			if w.Alike != 0 {
				t.Errorf("small.yml folded: %+v", w)
			}
		}
	}
	if listed != 20 || alike != 480 || small != 2 {
		t.Errorf("rules.yml: %d listed + %d alike (want 20 + 480); small.yml %d (want 2)", listed, alike, small)
	}
	if got := locs(res.Writes); !slices.Contains(got, "main.go:7") {
		t.Errorf("the Go write is lost among the config entries: %v", got)
	}
	var b bytes.Buffer
	res.WriteText(&b)
	if !strings.Contains(b.String(), "… and 480 more like it in this file") {
		t.Errorf("text rendering does not count the folded sites:\n%.2000s", b.String())
	}
}

// TestTableOfTypeIsDeterministic: when two tables match a type's name
// (edges and gen_edges for Edge, as in a project with two stores), the
// field is stored in the one named closest to the type, on every run —
// the choice once depended on a map's order, and the embedded and the
// PostgreSQL store answered the same trace differently.
func TestTableOfTypeIsDeterministic(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"go.mod": "module shop\n\ngo 1.22\n",
		"edge.go": `package shop

type Edge struct {
	Confidence int
}

func loadLocal(db DB) (Edge, error) {
	var e Edge
	err := db.QueryRow("SELECT confidence FROM edges WHERE id = 1").Scan(&e.Confidence)
	return e, err
}

func loadShared(db DB) (Edge, error) {
	var e Edge
	err := db.QueryRow("SELECT confidence FROM gen_edges WHERE id = 1").Scan(&e.Confidence)
	return e, err
}

type DB interface{ QueryRow(q string) Row }
type Row interface{ Scan(...any) error }
`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := indexTree(t, root)
	for range 20 {
		res, err := trace.Trace(context.Background(), s, "Edge.Confidence", trace.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var tables []string
		for _, c := range res.Carriers {
			if c.Kind == "field" && c.Name == "Edge.Confidence" {
				tables = append(tables, c.Table)
			}
		}
		if !slices.Equal(tables, []string{"edges"}) {
			t.Fatalf("Edge.Confidence stored in %v, want [edges]", tables)
		}
	}
}

// TestUnresolvedType: a target naming a type the index lacks, or a type
// without the field, says so, whether or not the bare key is found.
func TestUnresolvedType(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "api"), 0o755)
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/api\n\ngo 1.22\n"), 0o644)
	os.WriteFile(filepath.Join(root, "api", "api.go"), []byte(`package api

type Client struct {
	Token string
}

type Server struct{}

func New(tok string) *Client { return &Client{Token: tok} }
`), 0o644)
	s := indexTree(t, root)
	ctx := context.Background()
	res, err := trace.Trace(ctx, s, "Server.Token", trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := `type Server (api/api.go:7) has no field spelled Token: traced the key "token" wherever it is spelled instead`; res.Unresolved != want {
		t.Errorf("Server.Token: unresolved %q, want %q", res.Unresolved, want)
	}
	if res, err := trace.Trace(ctx, s, "Client.Token", trace.Options{}); err != nil || res.Unresolved != "" {
		t.Errorf("Client.Token: unresolved %q, %v; want none", res.Unresolved, err)
	}
	for target, want := range map[string]string{
		"zzqq.yy":     `no type or table "zzqq" in the index, and no field, column, key or config entry spells "yy"`,
		"Client.nope": `no field, column, key or config entry spells "Client.nope"`,
	} {
		_, err := trace.Trace(ctx, s, target, trace.Options{})
		if !errors.Is(err, trace.ErrNoTarget) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want ErrNoTarget saying %s", target, err, want)
		}
	}
}

// TestEvidence: the functions a task's context admits for the value, in
// the order of its paths, the gap first, each with its reason.
func TestEvidence(t *testing.T) {
	res := appTrace(t, "artifact-dropped", "Task.ArtifactURL")
	ev := res.Evidence(8)
	var got []string
	for _, e := range ev {
		got = append(got, e.Role+" "+e.Name)
	}
	want := []string{"gap ToResponse", "write Handler.CompleteTask", "persist Store.CompleteTask", "query Store.LoadTask", "mapper TaskStore.setTask", "consumer renderTask"}
	if !slices.Equal(got, want) {
		t.Errorf("evidence\n got  %v\n want %v", got, want)
	}
	if len(ev) > 0 && !strings.Contains(ev[0].Reason, "read path of Task.ArtifactURL: ToResponse drops it → gap") {
		t.Errorf("the gap's reason: %q", ev[0].Reason)
	}
	for _, e := range ev {
		t.Log(e.Reason)
	}
}

// TestDeadlineCutsPaths: past Options.Deadline the trace still answers —
// carriers, sites and the mapper's gap whole — without call paths or
// flows, and says so (Result.Partial), in JSON and in the text form.
func TestDeadlineCutsPaths(t *testing.T) {
	s := indexTree(t, filepath.Join("..", "..", "testdata", "apps", "artifact-dropped"))
	whole, err := trace.Trace(context.Background(), s, "Task.ArtifactURL", trace.Options{Deadline: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if whole.Partial != "" || len(whole.Flows) == 0 {
		t.Fatalf("in time: partial %q, %d flows", whole.Partial, len(whole.Flows))
	}
	cut, err := trace.Trace(context.Background(), s, "Task.ArtifactURL", trace.Options{Deadline: time.Now().Add(-time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(cut.Partial, "call paths followed for 0 of") || len(cut.Flows) != 0 {
		t.Fatalf("past the deadline: partial %q, %d flows", cut.Partial, len(cut.Flows))
	}
	if len(cut.Writes) != len(whole.Writes) || len(cut.Reads) != len(whole.Reads) || len(cut.Carriers) != len(whole.Carriers) {
		t.Errorf("sites: %d writes, %d reads, %d carriers; in time %d, %d, %d", len(cut.Writes), len(cut.Reads), len(cut.Carriers),
			len(whole.Writes), len(whole.Reads), len(whole.Carriers))
	}
	if len(cut.Gaps) == 0 || cut.Gaps[0].Func == nil || cut.Gaps[0].Func.Name != "ToResponse" {
		t.Errorf("the mapper's gap is not kept: %+v", cut.Gaps)
	}
	var text bytes.Buffer
	cut.WriteText(&text)
	if !strings.Contains(text.String(), "partial: call paths followed for 0 of") {
		t.Errorf("the text form does not say it is partial:\n%s", text.String())
	}
}

// unpackTxtar writes a txtar fixture's files into a temporary directory.
func unpackTxtar(t *testing.T, path string) (*txtar.Archive, string) {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	for _, af := range ar.Files {
		p := filepath.Join(root, af.Name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, af.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ar, root
}

// txtarTrace indexes a txtar fixture of testdata and traces target.
func txtarTrace(t *testing.T, name, target string) *trace.Result {
	t.Helper()
	_, root := unpackTxtar(t, filepath.Join("testdata", name))
	res, err := trace.Trace(context.Background(), indexTree(t, root), target, trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestTypeScriptMapperDrops: a TypeScript mapper whose object literal is
// typed as the view (by its result type, an arrow's, an annotation,
// satisfies or as) and leaves the view's artifactUrl (or artifact_url) out
// is a dropped gap at the mapper and a read site that drops the value;
// mappers that set it, by the literal, a member assignment or a spread,
// and mappers into a type without the field, are not.
func TestTypeScriptMapperDrops(t *testing.T) {
	for _, target := range []string{"Task.artifactUrl", "TaskView.artifactUrl"} {
		t.Run(target, func(t *testing.T) {
			res := txtarTrace(t, "typescript-dropped-mapper.txtar", target)
			var text bytes.Buffer
			res.WriteText(&text)
			into := map[string]string{"toView": "TaskView", "annotated": "TaskView", "checked": "TaskView", "cast": "TaskView",
				"arrow": "TaskView", "toCard": "TaskView", "toRow": "TaskRow", "logged": "TaskRow"}
			got := map[string]bool{}
			for _, g := range res.Gaps {
				if g.Kind != "dropped" {
					continue
				}
				if g.Func == nil {
					t.Errorf("dropped gap without its function: %s", g.Message)
					continue
				}
				got[g.Func.Name] = true
				view, ok := into[g.Func.Name]
				if !ok {
					t.Errorf("false dropped gap at %s: %s", g.Func.Name, g.Message)
				} else if !strings.Contains(g.Message, "to "+view+" ") {
					t.Errorf("gap at %s does not name %s: %s", g.Func.Name, view, g.Message)
				}
			}
			for fn := range into {
				if !got[fn] {
					t.Errorf("no dropped gap at %s\n%s", fn, text.String())
				}
				if !slices.ContainsFunc(res.Reads, func(s trace.Site) bool { return s.Drops && s.Func != nil && s.Func.Name == fn }) {
					t.Errorf("the reads do not list %s as dropping the value", fn)
				}
			}
			for _, s := range res.Reads {
				if s.Drops && s.Func != nil && into[s.Func.Name] == "" {
					t.Errorf("%s is listed as dropping the value", s.Func.Name)
				}
			}
		})
	}
}
