package fleet

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCategoriesSharedBuild: a shared build on PostgreSQL stores each
// file's category, decided over every job's files (the jobs each see only
// their own paths), and an incremental build keeps the categories of the
// files it copies from the generation before and corrects those a
// package's coming or going changed.
func TestCategoriesSharedBuild(t *testing.T) {
	u, root := setup(t)
	ctx := context.Background()
	db := connect(t, u)
	for p, c := range map[string]string{
		"app/__init__.py":             "",
		"app/packages/__init__.py":    "",
		"app/packages/urllib/pool.py": "def pool(): pass\n",
		"p00/f0_test.go":              "package p00\n",
		"third_party/z/z.go":          "package z\n",
		"README.md":                   "# m\n",
	} {
		fp := filepath.Join(root, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(fp), 0o755)
		if err := os.WriteFile(fp, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	categories := func() map[string]string {
		t.Helper()
		s, err := db.Open(ctx, "m")
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		files, err := s.Files(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, f := range files {
			if c := f.Category.String(); c != "code" {
				out[f.Path] = c
			}
		}
		return out
	}
	o := opts(root, "w")
	o.Jobs = 8 // app/ and app/packages/ in jobs of their own
	if _, err := Run(ctx, db, o); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"app/packages/__init__.py": "vendored", "app/packages/urllib/pool.py": "vendored",
		"p00/f0_test.go": "test", "third_party/z/z.go": "vendored", "README.md": "docs", "go.mod": "docs",
	}
	if diff := cmp.Diff(want, categories()); diff != "" {
		t.Fatalf("first build (-want +got):\n%s", diff)
	}
	if err := os.Remove(filepath.Join(root, "app", "__init__.py")); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(ctx, db, o); err != nil {
		t.Fatal(err)
	}
	delete(want, "app/packages/__init__.py")
	delete(want, "app/packages/urllib/pool.py")
	if diff := cmp.Diff(want, categories()); diff != "" {
		t.Fatalf("after removing app/__init__.py (-want +got):\n%s", diff)
	}
}
