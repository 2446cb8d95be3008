package walk

import (
	"context"
	"os"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-dev/cairn/graph"
)

// record is one callback of a walk, as a line.
func recordWalk(t *testing.T, w *Walker, fn func(dir func(string) error, keep func(Entry) error, skip func(graph.Skip) error) error) (files, dirs []string) {
	t.Helper()
	err := fn(func(rel string) error {
		dirs = append(dirs, rel+"/")
		return nil
	}, func(e Entry) error {
		files = append(files, "keep "+e.Path)
		return nil
	}, func(s graph.Skip) error {
		files = append(files, "skip "+s.Path+" "+s.Reason.String())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files, dirs
}

func under(line, p string) bool {
	f := strings.Fields(line)
	q := f[0]
	if len(f) > 1 {
		q = f[1]
	}
	q = strings.TrimSuffix(q, "/")
	return p == "" || q == p || strings.HasPrefix(q, p+"/")
}

// TestWalkPathsMatchesWalk: walking any single path (file or directory)
// yields exactly the part of the full walk below that path — the ignore
// files of its ancestors apply, ignored directories are not entered.
func TestWalkPathsMatchesWalk(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		".gitignore":              "*.log\n/build/\n!keep.log\n",
		"main.go":                 "package main\n",
		"debug.log":               "x",
		"build/out.go":            "package out\n",
		"sub/build/in.go":         "package in\n",
		"sub/.gitignore":          "secret.go\ngen/\n",
		"sub/secret.go":           "package sub\n",
		"sub/ok.go":               "package sub\n",
		"sub/gen/x.go":            "package gen\n",
		"sub/deeper/.cairnignore": "*.py\n",
		"sub/deeper/a.py":         "x = 1\n",
		"sub/deeper/b.go":         "package deeper\n",
		"sub/deeper/c/d/e.go":     "package d\n",
		"other/secret.go":         "package other\n",
		"node_modules/m/index.js": "x",
		"keep/nested/.gitignore":  "!*.log\n",
		"keep/nested/trace.log":   "x",
		"idx/CURRENT":             "x",
		".git/info/exclude":       "excluded.go\n",
		"excluded.go":             "package x\n",
	})
	if err := os.Mkdir(root+"/empty", 0o755); err != nil {
		t.Fatal(err)
	}
	opts := Options{Root: root, ExcludeDirs: []string{"idx"}}
	w, _ := New(opts)
	all, allDirs := recordWalk(t, w, func(d func(string) error, k func(Entry) error, s func(graph.Skip) error) error {
		return w.WalkDirs(context.Background(), d, k, s)
	})
	if !slices.Contains(allDirs, "empty/") || !slices.Contains(allDirs, "/") || slices.Contains(allDirs, "build/") {
		t.Fatalf("directories entered: %v", allDirs)
	}
	// every path the walk mentions, its directories, and some that do not exist
	probe := map[string]bool{"": true, "nope.go": true, "sub/nope": true, "build/out.go": true,
		"sub/gen/x.go": true, "node_modules/m/index.js": true, ".git/config": true, "idx/CURRENT": true}
	for _, l := range all {
		p := strings.Fields(l)[1]
		for q := p; q != "."; q = path.Dir(q) {
			probe[q] = true
		}
	}
	for _, d := range allDirs {
		probe[strings.TrimSuffix(d, "/")] = true
	}
	for p := range probe {
		var want, wantDirs []string
		for _, l := range all {
			if under(l, p) {
				want = append(want, l)
			}
		}
		for _, d := range allDirs {
			if under(d, p) && (p == "" || d != "/") {
				wantDirs = append(wantDirs, d)
			}
		}
		w, _ := New(opts)
		got, gotDirs := recordWalk(t, w, func(d func(string) error, k func(Entry) error, s func(graph.Skip) error) error {
			return w.WalkPaths(context.Background(), []string{p}, d, k, s)
		})
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("WalkPaths(%q) (-want +got):\n%s", p, diff)
		}
		if diff := cmp.Diff(wantDirs, gotDirs); diff != "" {
			t.Errorf("WalkPaths(%q) directories (-want +got):\n%s", p, diff)
		}
		if len(w.layers) != 1 { // .git/info/exclude only
			t.Errorf("WalkPaths(%q) left %d ignore layers", p, len(w.layers))
		}
	}
}

func TestTopPaths(t *testing.T) {
	got := topPaths([]string{"b/c", "a", "b", "./a/x", "b/c/d", "../up", "/abs", "ab"})
	if diff := cmp.Diff([]string{"a", "ab", "b"}, got); diff != "" {
		t.Error(diff)
	}
	if got := topPaths([]string{"x", "."}); !slices.Equal(got, []string{""}) {
		t.Errorf("root: %q", got)
	}
}
