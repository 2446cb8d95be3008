package indexer_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	scippb "github.com/scip-code/scip/bindings/go/scip"
	"google.golang.org/protobuf/proto"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/indexer"
	"github.com/cairn-dev/cairn/indexer/scip"
)

// The .scip files under scip/testdata were made by the real indexers
// (scip/testdata/gen.sh: scip-go v0.2.9, scip-python 0.6.6,
// scip-typescript 0.4.0) from the projects next to them.

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		b, _ := os.ReadFile(p)
		writeFiles(t, to, map[string]string{filepath.ToSlash(rel): string(b)})
		return nil
	})
}

func scipFile(name string) string {
	abs, _ := filepath.Abs(filepath.Join("scip", "testdata", name))
	return abs
}

func refsTo(t *testing.T, r graph.Reader, name string) []graph.Reference {
	t.Helper()
	_, refs, err := graph.FindReferences(context.Background(), r, name, graph.RefOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return refs
}

func TestSCIPGo(t *testing.T) {
	root, dir := t.TempDir(), t.TempDir()
	copyTree(t, "scip/testdata/gomod", root)
	res := index(t, root, dir, indexer.Options{SCIP: []scip.Spec{{File: scipFile("go.scip")}}})
	if res.SCIP.Merged != 2 || len(res.SCIP.Stale) != 0 {
		t.Fatalf("scip stats %+v, want 2 merged, none stale", res.SCIP)
	}
	s := open(t, dir)
	ctx := context.Background()
	// Definitions carry scip-go's symbols; an interface method has no ().
	put, err := graph.FindDefinitions(ctx, s, "Store.Put")
	if err != nil || len(put) != 1 || !strings.HasSuffix(string(put[0].ID), "/Store#Put.") || put[0].ID.IsHeuristic() {
		t.Fatalf("Store.Put = %+v, %v", put, err)
	}
	// Every init of the package shares one symbol.
	inits, _ := graph.FindDefinitions(ctx, s, "init")
	if len(inits) != 2 || inits[0].ID != inits[1].ID {
		t.Errorf("init definitions %v: want two sharing one symbol", inits)
	}
	// References are precise, with roles from tree-sitter (calls, writes).
	var call, write bool
	for _, r := range refsTo(t, s, "Mem.Put") {
		if r.Confidence != graph.ConfPrecise {
			t.Errorf("ref %s:%d is %s, want precise", r.Path, r.Range.StartLine, r.Confidence)
		}
	}
	for _, r := range refsTo(t, s, "Order.Total") {
		if r.Role&graph.RoleWrite != 0 && r.Confidence == graph.ConfPrecise {
			write = true
		}
	}
	for _, r := range refsTo(t, s, "Checkout") {
		if r.Role&graph.RoleCall != 0 && r.Confidence == graph.ConfPrecise && r.Path == "shop_test.go" {
			call = true
		}
	}
	if !call || !write {
		t.Errorf("call from the test found: %v, write of Total found: %v", call, write)
	}
	// Implementations come from the index's relationships, precisely.
	hops, err := graph.Implementations(ctx, s, []graph.SymbolID{put[0].ID}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(hops) != 1 || hops[0].Def == nil || hops[0].Def.QualifiedName() != "Mem.Put" || hops[0].Confidence != graph.ConfPrecise {
		t.Errorf("implementations of Store.Put = %+v", hops)
	}
	callers, err := graph.Callers(ctx, s, []graph.SymbolID{put[0].ID}, graph.TraverseOptions{Depth: 1})
	if err != nil || len(callers) != 1 || callers[0].Def.Name != "Checkout" || callers[0].Confidence != graph.ConfPrecise {
		t.Errorf("callers of Store.Put = %+v, %v", callers, err)
	}
}

func TestSCIPPythonAndTypeScript(t *testing.T) {
	for _, tc := range []struct {
		dir, index, name, impl, implOf string
	}{
		{"pyproj", "python.scip", "Order.save", "Order.save", "Base.save"},
		{"tsproj", "ts.scip", "Store.put", "MemStore", "Store"},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			root, dir := t.TempDir(), t.TempDir()
			copyTree(t, "scip/testdata/"+tc.dir, root)
			res := index(t, root, dir, indexer.Options{SCIP: []scip.Spec{{File: scipFile(tc.index)}}})
			if res.SCIP.Merged < 2 || len(res.SCIP.Stale) != 0 {
				t.Fatalf("scip stats %+v", res.SCIP)
			}
			s := open(t, dir)
			refs := refsTo(t, s, tc.name)
			if len(refs) == 0 {
				t.Fatalf("no references to %s", tc.name)
			}
			for _, r := range refs {
				if r.Confidence != graph.ConfPrecise {
					t.Errorf("%s:%d is %s, want precise", r.Path, r.Range.StartLine, r.Confidence)
				}
			}
			ids := roots(t, s, tc.implOf)
			hops, err := graph.Implementations(context.Background(), s, ids, 1)
			if err != nil {
				t.Fatal(err)
			}
			if got := hopNames(hops); len(got) != 1 || got[0] != tc.impl {
				t.Errorf("implementations of %s = %v, want [%s]", tc.implOf, got, tc.impl)
			}
		})
	}
}

func TestSCIPStaleDocumentIsNotMerged(t *testing.T) {
	root, dir := t.TempDir(), t.TempDir()
	copyTree(t, "scip/testdata/gomod", root)
	// The file changed after the index was made: lines moved.
	src, _ := os.ReadFile(filepath.Join(root, "shop.go"))
	edited := strings.Replace(string(src), "// Store keeps orders.", "// Store keeps orders.\n\n// Extra was added later.\nvar Extra = 1\n", 1)
	writeFiles(t, root, map[string]string{"shop.go": edited})
	res := index(t, root, dir, indexer.Options{SCIP: []scip.Spec{{File: scipFile("go.scip")}}})
	if len(res.SCIP.Stale) != 1 || !strings.HasPrefix(res.SCIP.Stale[0], "shop.go: ") || !strings.Contains(res.SCIP.Stale[0], "another revision") {
		t.Fatalf("stale = %v, want shop.go reported", res.SCIP.Stale)
	}
	s := open(t, dir)
	defs, _ := graph.FindDefinitions(context.Background(), s, "Checkout")
	if len(defs) != 1 || !defs[0].ID.IsHeuristic() {
		t.Errorf("Checkout = %+v: the stale document must not be merged", defs)
	}
	f, _ := s.File(context.Background(), "shop.go")
	if f.SCIP != "" {
		t.Errorf("shop.go records SCIP document %q", f.SCIP)
	}
}

// TestSCIPNoGuessesInCoveredFiles: where the SCIP index covering a file
// gives no symbol to a reference, the reference stays unresolved: no
// name-only guess is added to the precise facts.
func TestSCIPNoGuessesInCoveredFiles(t *testing.T) {
	root, dir := t.TempDir(), t.TempDir()
	copyTree(t, "scip/testdata/gomod", root)
	var idx scippb.Index
	b, _ := os.ReadFile(scipFile("go.scip"))
	if err := proto.Unmarshal(b, &idx); err != nil {
		t.Fatal(err)
	}
	dropped := 0
	for _, d := range idx.Documents {
		if d.RelativePath != "shop_test.go" {
			continue
		}
		var keep []*scippb.Occurrence
		for _, o := range d.Occurrences {
			if strings.HasSuffix(o.Symbol, "/Checkout().") && o.SymbolRoles&int32(scippb.SymbolRole_Definition) == 0 {
				dropped++
				continue
			}
			keep = append(keep, o)
		}
		d.Occurrences = keep
	}
	if dropped == 0 {
		t.Fatal("the index has no reference to Checkout in shop_test.go")
	}
	out, _ := proto.Marshal(&idx)
	f := filepath.Join(t.TempDir(), "partial.scip")
	os.WriteFile(f, out, 0o644)
	res := index(t, root, dir, indexer.Options{SCIP: []scip.Spec{{File: f}}})
	if res.SCIP.Merged != 2 || len(res.SCIP.Stale) != 0 {
		t.Fatalf("scip stats %+v, want 2 merged, none stale", res.SCIP)
	}
	s := open(t, dir)
	for _, r := range refsTo(t, s, "Checkout") {
		if r.Path == "shop_test.go" || r.Confidence != graph.ConfPrecise {
			t.Errorf("reference %s:%d (%s) to Checkout: a guess in a file the index covers", r.Path, r.Range.StartLine, r.Confidence)
		}
	}
	ids := roots(t, s, "Checkout")
	callers, err := graph.Callers(context.Background(), s, ids, graph.TraverseOptions{Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range callers {
		t.Errorf("caller %s of Checkout (%s): a guessed edge in a file the index covers", c.Def.QualifiedName(), c.Confidence)
	}
}

// TestSCIPAddedLater: an index given on a later run is merged into the
// files it covers though they did not change since the last run.
func TestSCIPAddedLater(t *testing.T) {
	root, dir := t.TempDir(), t.TempDir()
	copyTree(t, "scip/testdata/gomod", root)
	ageFiles(t, root)
	index(t, root, dir, indexer.Options{})
	res := index(t, root, dir, indexer.Options{SCIP: []scip.Spec{{File: scipFile("go.scip")}}})
	if res.SCIP.Merged != 2 {
		t.Fatalf("scip stats %+v: the new index was not merged into the unchanged files", res.SCIP)
	}
	defs, _ := graph.FindDefinitions(context.Background(), open(t, dir), "Checkout")
	if len(defs) != 1 || defs[0].ID.IsHeuristic() {
		t.Errorf("Checkout = %+v, want scip-go's symbol", defs)
	}
}

func TestSCIPMalformedKeepsIndex(t *testing.T) {
	root, dir := t.TempDir(), t.TempDir()
	copyTree(t, "scip/testdata/gomod", root)
	index(t, root, dir, indexer.Options{})
	good, _ := os.ReadFile(scipFile("go.scip"))
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"truncated", good[:len(good)*2/3], "malformed or truncated at document"},
		{"garbage", append([]byte{0x12, 0x40}, []byte("not a protobuf message at all, just text that claims 64 bytes")...), "malformed or truncated"},
		{"empty", nil, "holds no documents"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := filepath.Join(t.TempDir(), "bad.scip")
			os.WriteFile(bad, tc.data, 0o644)
			writeFiles(t, root, map[string]string{"extra.go": "package shop\n\nfunc Extra() {}\n"})
			_, err := tryIndex(root, dir, false, indexer.Options{SCIP: []scip.Spec{{File: bad}}})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "bad.scip") {
				t.Fatalf("err = %v, want %q naming the index", err, tc.want)
			}
			s := open(t, dir)
			m, _ := s.Meta(context.Background())
			if m.Generation != 1 {
				t.Errorf("generation %d after a failed run", m.Generation)
			}
			if d := defPaths(t, s, "Extra"); len(d) != 0 {
				t.Errorf("the failed run leaked %v", d)
			}
		})
	}
}

func TestSCIPSubdirAndDiscovery(t *testing.T) {
	root, dir := t.TempDir(), t.TempDir()
	copyTree(t, "scip/testdata/gomod", filepath.Join(root, "services", "shop"))
	writeFiles(t, root, map[string]string{"README.md": "# mono\n"})
	res := index(t, root, dir, indexer.Options{SCIP: []scip.Spec{scip.ParseSpec(scipFile("go.scip") + ":services/shop")}})
	if res.SCIP.Merged != 2 {
		t.Fatalf("subdir: merged %d, want 2 (%+v)", res.SCIP.Merged, res.SCIP)
	}
	// An index.scip inside the repository is found without being named.
	root2, dir2 := t.TempDir(), t.TempDir()
	copyTree(t, "scip/testdata/gomod", filepath.Join(root2, "svc"))
	b, _ := os.ReadFile(scipFile("go.scip"))
	writeFiles(t, root2, map[string]string{"svc/index.scip": string(b)})
	res = index(t, root2, dir2, indexer.Options{})
	if res.SCIP.Merged != 2 || len(res.SCIP.Indexes) != 1 {
		t.Fatalf("discovery: %+v", res.SCIP)
	}
	// Unchanged files are not re-read on the next run...
	res = index(t, root2, dir2, indexer.Options{})
	if res.Parsed != 0 {
		t.Errorf("second run re-parsed %d files", res.Parsed)
	}
}

// TestSCIPDocumentsOutsideProject: scip-go writes documents for generated
// test mains in the Go build cache, with paths that leave the project. They
// are skipped and counted, and nothing is written outside the repository.
func TestSCIPDocumentsOutsideProject(t *testing.T) {
	root, dir := t.TempDir(), t.TempDir()
	copyTree(t, "scip/testdata/gomod", root)
	var idx scippb.Index
	b, _ := os.ReadFile(scipFile("go.scip"))
	if err := proto.Unmarshal(b, &idx); err != nil {
		t.Fatal(err)
	}
	idx.Documents = append(idx.Documents,
		&scippb.Document{RelativePath: "../../../root/.cache/go-build/ab/abcdef-d/_testmain.go", Language: "go"},
		&scippb.Document{RelativePath: "/etc/passwd", Language: "go"})
	out, _ := proto.Marshal(&idx)
	f := filepath.Join(t.TempDir(), "with-escapes.scip")
	os.WriteFile(f, out, 0o644)
	// The real scip-go index already holds one such document (the
	// generated test main of shop_test.go).
	plain := index(t, root, t.TempDir(), indexer.Options{SCIP: []scip.Spec{{File: scipFile("go.scip")}}})
	if plain.SCIP.Escaped != 1 || !strings.Contains(strings.Join(plain.SCIP.Problems, "\n"), "go-build") {
		t.Errorf("real index: escaped %d (%v), want the build-cache test main", plain.SCIP.Escaped, plain.SCIP.Problems)
	}
	res := index(t, root, dir, indexer.Options{SCIP: []scip.Spec{{File: f}}})
	if res.SCIP.Escaped != 3 || res.SCIP.Merged != 2 {
		t.Fatalf("escaped %d merged %d, want 3 and 2", res.SCIP.Escaped, res.SCIP.Merged)
	}
	files, _ := open(t, dir).Files(context.Background())
	for _, fl := range files {
		if strings.HasPrefix(fl.Path, "..") || strings.HasPrefix(fl.Path, "/") {
			t.Errorf("indexed %s", fl.Path)
		}
	}
}
