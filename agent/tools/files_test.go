package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

const fixedMapper = "\t\tStatus: t.Status,\n\t\tArtifactURL: t.ArtifactURL,\n"

func TestNames(t *testing.T) {
	f := newFixture(t, Env{})
	want := []string{"search", "definition", "references", "callers", "callees", "trace", "impact", "build_context",
		"read", "list", "edit", "create", "shell", "run_tests", "diff", "revert", "note", "plan", "finish"}
	if !slices.Equal(f.order, want) {
		t.Fatalf("tools %v\nwant %v", f.order, want)
	}
	for _, name := range want {
		var s struct {
			Type                 string         `json:"type"`
			Properties           map[string]any `json:"properties"`
			Required             []string       `json:"required"`
			AdditionalProperties *bool          `json:"additionalProperties"`
		}
		tl := f.tools[name]
		if err := json.Unmarshal(tl.Schema(), &s); err != nil || s.Type != "object" || s.AdditionalProperties == nil || *s.AdditionalProperties {
			t.Errorf("%s: schema %s (%v)", name, tl.Schema(), err)
		}
		for _, r := range s.Required {
			if _, ok := s.Properties[r]; !ok {
				t.Errorf("%s: required %s is not a property", name, r)
			}
		}
		if tl.Description() == "" {
			t.Errorf("%s: no description", name)
		}
	}
}

func TestEdit(t *testing.T) {
	f := newFixture(t, Env{})
	// unique: applied, written, re-indexed and recorded
	var out editOut
	f.ok(t, "edit", args("path", "server/mapper.go", "old", "\t\tStatus: t.Status,\n", "new", fixedMapper), &out)
	if out.Status != "edited" || out.StartLine != 7 || out.EndLine != 8 || !strings.Contains(out.Text, "8\t\t\tArtifactURL: t.ArtifactURL,") {
		t.Errorf("edit answer %+v", out)
	}
	if got := f.file(t, "server/mapper.go"); !strings.Contains(got, fixedMapper) {
		t.Errorf("file not edited:\n%s", got)
	}
	if !slices.Contains(f.rec.modified, "server/mapper.go") {
		t.Errorf("modified %v", f.rec.modified)
	}
	// the mode is kept, and the owner: the sandbox's user can still write it
	fi, _ := os.Stat(filepath.Join(f.ws.Dir, "server/mapper.go"))
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", fi.Mode())
	}
	if own, ok := statOwner(fi); ok {
		if o := sharedExecutor(t).Owner(); o != nil && (own[0] != o.UID || own[1] != o.GID) {
			t.Errorf("owner %v, want %v", own, *o)
		}
	}

	// already applied: the same edit again succeeds, changing nothing
	before := f.file(t, "server/mapper.go")
	f.ok(t, "edit", args("path", "server/mapper.go", "old", "\t\tStatus: t.Status,\n", "new", fixedMapper), &out)
	if out.Status != "already_applied" || out.StartLine != 7 || f.file(t, "server/mapper.go") != before {
		t.Errorf("re-issued edit: %+v", out)
	}

	// already applied where new replaced old whole (a resumed run repeating
	// the edit it made before it was killed)
	os.WriteFile(filepath.Join(f.ws.Dir, "rename.txt"), []byte("one\nold name\nthree\n"), 0o644)
	f.ok(t, "edit", args("path", "rename.txt", "old", "old name", "new", "new title"), &out)
	f.ok(t, "edit", args("path", "rename.txt", "old", "old name", "new", "new title"), &out)
	if out.Status != "already_applied" || out.StartLine != 2 || f.file(t, "rename.txt") != "one\nnew title\nthree\n" {
		t.Errorf("re-issued replacing edit: %+v\n%s", out, f.file(t, "rename.txt"))
	}

	// applied, with old inside new, and old elsewhere too: refused, not doubled
	os.WriteFile(filepath.Join(f.ws.Dir, "notes.txt"), []byte("a\nb\nX a\nb Y\n"), 0o644)
	if msg := f.refused(t, "edit", args("path", "notes.txt", "old", "a\nb", "new", "X a\nb Y")); !strings.Contains(msg, "already applied at line 3") || !strings.Contains(msg, "also occurs at line 1") {
		t.Errorf("applied and fresh: %s", msg)
	}
	// ambiguous: refused with the lines of every match
	msg := f.refused(t, "edit", args("path", "server/mapper_test.go", "old", "func Test", "new", "func Check"))
	if !strings.Contains(msg, "occurs 3 times") || !strings.Contains(msg, "lines 5, 11, 18") {
		t.Errorf("ambiguous: %s", msg)
	}

	// no match: the closest region, with its lines; whitespace named
	msg = f.refused(t, "edit", args("path", "server/handlers.go", "old", "func (h *Handler) GetTask(w http.ResponseWriter, r *http.Request) {\n    id := pathID(r)\n", "new", "x"))
	if !strings.Contains(msg, "closest region is lines") {
		t.Errorf("no match: %s", msg)
	}
	msg = f.refused(t, "edit", args("path", "server/mapper.go", "old", "ID: t.ID,\n  Status: t.Status,", "new", "ID: t.ID,"))
	if !strings.Contains(msg, "closest region is lines 6-7") || !strings.Contains(msg, "only in whitespace") {
		t.Errorf("whitespace-only mismatch: %s", msg)
	}

	// a syntax error the original did not have: not kept
	before = f.file(t, "server/mapper.go")
	msg = f.refused(t, "edit", args("path", "server/mapper.go", "old", "\t\tID:     t.ID,\n", "new", "\t\tID:     t.ID,,\n\t}\n"))
	if !strings.Contains(msg, "was not kept") || !strings.Contains(msg, "line 6") {
		t.Errorf("syntax error: %s", msg)
	}
	if f.file(t, "server/mapper.go") != before {
		t.Error("a refused edit changed the file")
	}
	// a file that already had errors may keep them (not more)
	os.WriteFile(filepath.Join(f.ws.Dir, "web/src/broken.ts"), []byte("let a = ;\nlet b = 1;\n"), 0o644)
	f.ok(t, "edit", args("path", "web/src/broken.ts", "old", "let b = 1;", "new", "let b = 2;"), nil)
	f.refused(t, "edit", args("path", "web/src/broken.ts", "old", "let b = 2;", "new", "let b = (;"))

	// bad requests the model can fix
	for _, in := range []string{
		args("path", "server/mapper.go", "old", "", "new", "x"),
		args("path", "server/mapper.go", "old", "same", "new", "same"),
		args("path", "server/none.go", "old", "a", "new", "b"),
		args("path", "server", "old", "a", "new", "b"),
	} {
		f.refused(t, "edit", in)
	}
}

func TestCreate(t *testing.T) {
	f := newFixture(t, Env{})
	body := "package main\n\nimport \"testing\"\n\nfunc TestNew(t *testing.T) {}\n"
	f.ok(t, "create", args("path", "server/sub/dir/new_test.go", "content", body), nil)
	if f.file(t, "server/sub/dir/new_test.go") != body {
		t.Error("content")
	}
	if !slices.Contains(f.rec.modified, "server/sub/dir/new_test.go") {
		t.Errorf("modified %v", f.rec.modified)
	}
	if msg := f.refused(t, "create", args("path", "server/mapper.go", "content", "package main\n")); !strings.Contains(msg, "use edit") && !strings.Contains(msg, "with edit") {
		t.Errorf("existing: %s", msg)
	}
	if msg := f.refused(t, "create", args("path", "server/bad.go", "content", "package main\n\nfunc {\n")); !strings.Contains(msg, "line 3") {
		t.Errorf("syntax: %s", msg)
	}
	if _, err := os.Stat(filepath.Join(f.ws.Dir, "server/bad.go")); err == nil {
		t.Error("a refused create left the file")
	}
	f.refused(t, "create", args("path", "server/bin.dat", "content", "a\x00b"))
}

func TestRead(t *testing.T) {
	f := newFixture(t, Env{MaxRead: 5})
	var out readOut
	f.ok(t, "read", args("path", "server/handlers.go", "start_line", 3), &out)
	lines := strings.Split(strings.TrimSuffix(out.Text, "\n"), "\n")
	src := strings.Split(f.file(t, "server/handlers.go"), "\n")
	if len(lines) != 5 || out.StartLine != 3 || out.EndLine != 7 || !out.Truncated || out.NextStartLine != 8 || out.TotalLines != len(src)-1 {
		t.Fatalf("read %+v", out)
	}
	for i, l := range lines {
		if want := strings.TrimSpace(strings.Fields(l)[0]); want != strconv.Itoa(3+i) || !strings.HasSuffix(l, src[2+i]) {
			t.Errorf("line %d: %q, want number %d and %q", i, l, 3+i, src[2+i])
		}
	}
	if !strings.HasPrefix(out.Trust, "material") {
		t.Errorf("trust %q", out.Trust)
	}
	// a planted secret is redacted and reported
	out = readOut{}
	f.ok(t, "read", args("path", "server/config.go"), &out)
	if strings.Contains(out.Text, fakeSecret) || !strings.Contains(out.Text, "[REDACTED:") || len(out.Redactions) != 1 || out.Redactions[0].Line != 4 {
		t.Errorf("secret: %+v", out)
	}
	if !slices.Contains(f.rec.read, "server/config.go") {
		t.Errorf("read %v", f.rec.read)
	}
	// a binary file, a directory, past the end
	os.WriteFile(filepath.Join(f.ws.Dir, "blob.bin"), []byte{1, 2, 0, 3}, 0o644)
	if msg := f.refused(t, "read", args("path", "blob.bin")); !strings.Contains(msg, "binary") {
		t.Errorf("binary: %s", msg)
	}
	if msg := f.refused(t, "read", args("path", "server")); !strings.Contains(msg, "use list") {
		t.Errorf("directory: %s", msg)
	}
	f.refused(t, "read", args("path", "server/mapper.go", "start_line", 500))
	f.refused(t, "read", args("path", "server/mapper.go", "start_line", 5, "end_line", 2))
}

func TestList(t *testing.T) {
	f := newFixture(t, Env{})
	var out listOut
	f.ok(t, "list", `{}`, &out)
	var names []string
	for _, e := range out.Entries {
		names = append(names, e.Name)
	}
	if !slices.Equal(names, []string{"README.md", "server/", "web/"}) {
		t.Errorf("root: %v", names)
	}
	f.ok(t, "list", args("path", "server"), &out)
	if out.Path != "server" || out.Total != 9 {
		t.Errorf("server: %+v", out)
	}
	f.refused(t, "list", args("path", "server/mapper.go"))
}

// TestHostilePaths: every tool that takes a path refuses what leaves the
// workspace, reaches git's metadata, goes through a link that leads out,
// or is not a path at all; nothing outside is read or written.
func TestHostilePaths(t *testing.T) {
	f := newFixture(t, Env{})
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("outside\n"), 0o644)
	if err := os.Symlink(outside, filepath.Join(f.ws.Dir, "leak")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(f.ws.Dir, "leak.txt")); err != nil {
		t.Fatal(err)
	}
	hostile := []string{
		"/etc/passwd", filepath.Join(f.ws.Dir, "server/mapper.go"), "../repo/server/mapper.go", "server/../../x",
		".git/config", ".git", "leak/secret.txt", "leak.txt", "leak/new.go", "a\x00b", strings.Repeat("a/", 1<<19), "", ".",
	}
	for _, p := range hostile {
		for _, call := range []struct{ tool, in string }{
			{"read", args("path", p)},
			{"edit", args("path", p, "old", "outside", "new", "inside")},
			{"create", args("path", p, "content", "x\n")},
			{"revert", args("path", p)},
		} {
			res := f.call(t, call.tool, call.in)
			if !res.IsError {
				t.Errorf("%s %.60q: not refused: %.200s", call.tool, p, res.Content)
			}
			if len(res.Content) > 2000 {
				t.Errorf("%s %.60q: a %d-byte refusal", call.tool, p, len(res.Content))
			}
		}
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret.txt")); string(b) != "outside\n" {
		t.Error("the file outside was changed")
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 1 {
		t.Errorf("files created outside: %v", ents)
	}
	for _, p := range []string{"leak", "/", "..", ".git"} {
		f.refused(t, "list", args("path", p))
	}
}

// TestMalformed: arguments that are not what the schema says are error
// results saying what to send, never a Go error or a panic.
func TestMalformed(t *testing.T) {
	f := newFixture(t, Env{})
	cases := []struct{ tool, in, want string }{
		{"read", `not json`, "one JSON object"},
		{"read", `[1,2]`, "one JSON object"},
		{"read", `null`, "one JSON object"},
		{"read", `{"path": 5}`, `"path" of read must be a string`},
		{"read", `{"paht": "x"}`, `no argument "paht"`},
		{"read", `{}`, `needs the argument "path"`},
		{"read", `{"path": null}`, `needs the argument "path"`},
		{"read", `{"path": "server/mapper.go", "start_line": "3"}`, "must be an integer"},
		{"read", `{"path": "server/mapper.go", "start_line": 1.5}`, "must be an integer"},
		{"edit", `{"path": "server/mapper.go", "old": "x"}`, `needs the argument "new"`},
		{"shell", `{"argv": "go test ./..."}`, "must be an array of strings"},
		{"shell", `{"argv": []}`, "argv is empty"},
		{"shell", `{"argv": [1]}`, "must be an array of strings"},
		{"plan", `{"steps": [""]}`, "step 1 is empty"},
		{"note", `{"kind": "rumour", "text": "x"}`, "kind must be one of"},
		{"diff", `{"x": 1}`, "takes none"},
		{"search", `{"query": "x", "limit": 1000}`, "limit must be between 1 and 50"},
		{"callers", `{"symbol": "ToResponse", "depth": 99}`, "depth must be between 1 and 4"},
		{"callers", `{"name": "ToResponse"}`, `no argument "name"`},
		{"callers", `{"symbol": "ToResponse", "depth": "2"}`, `"depth" of callers must be an integer`},
		{"impact", `{}`, "exactly one of a symbol"},
		{"impact", `{"symbol": "ToResponse", "working": true}`, "exactly one of a symbol"},
		{"run_tests", `{"selector": "./server -count=5"}`, "not allowed"},
		{"run_tests", `{"selector": "web/src/api.test.ts"}`, "No runner"},
		{"read", `{"path": "` + strings.Repeat("x", 3<<20) + `"}`, "more than the"},
	}
	for _, c := range cases {
		if msg := f.refused(t, c.tool, c.in); !strings.Contains(msg, c.want) {
			t.Errorf("%s %.80s: %q, want %q", c.tool, c.in, msg, c.want)
		}
		// the policy's Guard sees the same problem in Effects
		if _, err := f.tools[c.tool].Effects(json.RawMessage(c.in)); err == nil && (c.tool == "shell" || c.tool == "edit" || c.tool == "run_tests") {
			t.Errorf("%s %.80s: Effects accepted it", c.tool, c.in)
		}
	}
}

func TestEffects(t *testing.T) {
	f := newFixture(t, Env{})
	eff := func(tool, in string) string {
		t.Helper()
		e, err := f.tools[tool].Effects(json.RawMessage(in))
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatalf("%s: encode the effects: %v", tool, err)
		}
		return string(b)
	}
	for _, c := range []struct{ tool, in, want string }{
		{"edit", args("path", "server/mapper.go", "old", "a", "new", "b"), `{"writes":["server/mapper.go"]}`},
		{"create", args("path", "server/x.go", "content", "package main\n"), `{"writes":["server/x.go"]}`},
		{"shell", `{"argv": ["go", "vet", "./..."]}`, `{"run":[["go","vet","./..."]]}`},
		{"run_tests", `{"selector": "./server/... -run ^TestA$"}`, `{"run":[["go","test","-json","-count=1","-run","^TestA$","./..."]]}`},
		{"revert", args("path", "server/mapper.go"), `{"writes":["server/mapper.go"]}`},
		{"read", args("path", "server/mapper.go"), `{}`},
		{"trace", args("target", "Task.ArtifactURL"), `{}`},
	} {
		if got := eff(c.tool, c.in); got != c.want {
			t.Errorf("%s effects %s, want %s", c.tool, got, c.want)
		}
	}
	// a file the base does not have is deleted by revert
	f.ok(t, "create", args("path", "server/extra.go", "content", "package main\n"), nil)
	if got := eff("revert", args("path", "server/extra.go")); got != `{"deletes":["server/extra.go"]}` {
		t.Errorf("revert of an added file: %s", got)
	}
	if got := eff("revert", args("path", "server")); got != `{"writes":["server"],"deletes":["server"]}` {
		t.Errorf("revert of a directory: %s", got)
	}
}

func TestDiffRevert(t *testing.T) {
	f := newFixture(t, Env{})
	var d diffOut
	f.ok(t, "diff", `{}`, &d)
	if len(d.Changed) != 0 || d.Diff != "" {
		t.Fatalf("a fresh workspace has changes: %+v", d)
	}
	f.ok(t, "edit", args("path", "server/mapper.go", "old", "\t\tStatus: t.Status,\n", "new", fixedMapper), nil)
	f.ok(t, "create", args("path", "server/extra.go", "content", "package main\n\nvar leaked = \""+fakeSecret+"\"\n"), nil)
	f.ok(t, "diff", `{}`, &d)
	if len(d.Changed) != 2 || d.Changed[0].Path != "server/extra.go" || d.Changed[0].Status != "A" || d.Changed[1].Status != "M" ||
		!strings.Contains(d.Diff, "+\t\tArtifactURL: t.ArtifactURL,") || strings.Contains(d.Diff, fakeSecret) {
		t.Errorf("diff %+v", d)
	}
	var r revertOut
	f.ok(t, "revert", args("path", "server"), &r)
	if !slices.Equal(r.Reverted, []string{"server/extra.go", "server/mapper.go"}) {
		t.Errorf("reverted %v", r.Reverted)
	}
	f.ok(t, "diff", `{}`, &d)
	if len(d.Changed) != 0 {
		t.Errorf("after revert: %+v", d.Changed)
	}
	f.refused(t, "revert", args("path", "server/mapper.go")) // nothing to revert
	// a long diff is cut to MaxOutput
	g := newFixture(t, Env{MaxOutput: 1000})
	g.ok(t, "create", args("path", "big.txt", "content", strings.Repeat("line of text\n", 500)), nil)
	g.ok(t, "diff", `{}`, &d)
	if !d.Truncated || len(d.Diff) > 1100 || d.Bytes < 6000 {
		t.Errorf("long diff: truncated %v, %d bytes shown of %d", d.Truncated, len(d.Diff), d.Bytes)
	}
}

func TestStateTools(t *testing.T) {
	f := newFixture(t, Env{})
	f.ok(t, "note", args("kind", "hypothesis", "text", "ToResponse drops ArtifactURL"), nil)
	f.ok(t, "plan", `{"steps": ["trace", "fix the mapper", "test"]}`, nil)
	f.ok(t, "finish", args("root_cause", "server/mapper.go:4 drops the field", "summary", "mapped it"), nil)
	if len(f.rec.notes) != 1 || f.rec.notes[0] != [2]string{"hypothesis", "ToResponse drops ArtifactURL"} ||
		len(f.rec.plan) != 3 || f.rec.finished[0] != "server/mapper.go:4 drops the field" {
		t.Errorf("recorded %+v", f.rec)
	}
	f.refused(t, "finish", args("root_cause", " ", "summary", "x"))
}

// TestEditHuge: a huge old that matches nothing is refused quickly.
func TestEditHuge(t *testing.T) {
	f := newFixture(t, Env{})
	big := strings.Repeat("x := 1\n", 250000) // 1.75 MB
	os.WriteFile(filepath.Join(f.ws.Dir, "big.txt"), []byte(big), 0o644)
	start := time.Now()
	msg := f.refused(t, "edit", args("path", "big.txt", "old", strings.Repeat("y := 2\n", 200000), "new", "z"))
	if !strings.Contains(msg, "too long") || time.Since(start) > 10*time.Second {
		t.Errorf("huge old: %.200s after %v", msg, time.Since(start))
	}
}
