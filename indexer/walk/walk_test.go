package walk

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-dev/cairn/graph"
)

// writeTree creates files from a map of path → content.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func walkAll(t *testing.T, opts Options) (kept []string, skipped map[string]string) {
	t.Helper()
	w, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	skipped = map[string]string{}
	err = w.Walk(context.Background(), func(e Entry) error {
		kept = append(kept, e.Path)
		return nil
	}, func(s graph.Skip) error {
		p := s.Path
		if s.Dir {
			p += "/"
		}
		skipped[p] = s.Reason.String()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return kept, skipped
}

func TestWalkIgnores(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		".gitignore":              "*.log\n/build/\n!keep.log\n# comment\n",
		"main.go":                 "package main\n",
		"debug.log":               "x",
		"keep.log":                "x",
		"build/out.go":            "package out\n",
		"sub/build/in.go":         "package in\n", // /build/ is anchored to the root
		"sub/.gitignore":          "secret.go\ngen/\n",
		"sub/secret.go":           "package sub\n",
		"sub/ok.go":               "package sub\n",
		"sub/gen/x.go":            "package gen\n",
		"other/secret.go":         "package other\n", // sub/.gitignore does not reach here
		".cairnignore":            "vendor/\n",
		"vendor/v.go":             "package v\n",
		"node_modules/m/index.js": "x",
		".git/config":             "x",
		"package-lock.json":       "{}",
		"static/app.min.js":       "x",
		"img/logo.png":            "x",
		"notes.unknownext":        "x",
		"big.go":                  strings.Repeat("// x\n", 1000),
		"docs/README.md":          "# hi\n",
		"sub/deeper/.cairnignore": "*.py\n",
		"sub/deeper/a.py":         "x = 1\n",
		"sub/deeper/b.go":         "package deeper\n",
		"keep/!important.go":      "package keep\n",
		"keep/nested/.gitignore":  "!*.log\n",
		"keep/nested/trace.log":   "x", // re-included by the nested file
	})
	kept, skipped := walkAll(t, Options{Root: root, MaxFileSize: 2000})
	wantKept := []string{".cairnignore", ".gitignore", "docs/README.md", "keep/!important.go", "keep/nested/.gitignore",
		"keep.log", "main.go", "other/secret.go", "sub/.gitignore", "sub/build/in.go", "sub/deeper/.cairnignore",
		"sub/deeper/b.go", "sub/ok.go"}
	// The ignore files have no known type: they are skipped as unknown.
	var gotKept []string
	for _, k := range kept {
		gotKept = append(gotKept, k)
	}
	for _, p := range []string{".cairnignore", ".gitignore", "keep/nested/.gitignore", "sub/.gitignore", "sub/deeper/.cairnignore", "keep.log"} {
		if skipped[p] != "unknown-type" {
			t.Errorf("%s: skip = %q, want unknown-type", p, skipped[p])
		}
		wantKept = remove(wantKept, p)
	}
	if diff := cmp.Diff(wantKept, gotKept); diff != "" {
		t.Errorf("kept (-want +got):\n%s", diff)
	}
	wantSkips := map[string]string{
		"debug.log":             "gitignore",
		"build/":                "gitignore",
		"sub/secret.go":         "gitignore",
		"sub/gen/":              "gitignore",
		"vendor/":               "cairnignore",
		"sub/deeper/a.py":       "cairnignore",
		"node_modules/":         "default-ignore",
		".git/":                 "default-ignore",
		"package-lock.json":     "lockfile",
		"static/app.min.js":     "minified",
		"img/logo.png":          "binary",
		"notes.unknownext":      "unknown-type",
		"big.go":                "oversized",
		"keep/nested/trace.log": "unknown-type", // re-included, then skipped for its type
	}
	for p, want := range wantSkips {
		if got := skipped[p]; got != want {
			t.Errorf("%s: skip = %q, want %q", p, got, want)
		}
	}
}

func remove(xs []string, x string) []string {
	out := xs[:0:0]
	for _, v := range xs {
		if v != x {
			out = append(out, v)
		}
	}
	return out
}

func TestWalkSymlinks(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	writeTree(t, root, map[string]string{"real/a.go": "package real\n"})
	writeTree(t, outside, map[string]string{"secret.go": "package secret\n"})
	links := map[string]string{
		"to-outside":      outside,
		"to-outside-file": filepath.Join(outside, "secret.go"),
		"loop":            "loop",
		"ancestor":        ".",
		"dup":             "real",
		"dangling":        "nowhere",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	kept, skipped := walkAll(t, Options{Root: root})
	if diff := cmp.Diff([]string{"real/a.go"}, kept); diff != "" {
		t.Errorf("kept (-want +got):\n%s", diff)
	}
	want := map[string]string{
		"to-outside":      "symlink-outside-repo",
		"to-outside-file": "symlink-outside-repo",
		"loop":            "symlink-loop",
		"ancestor":        "symlink-loop",
		"dup":             "symlink-duplicate",
		"dangling":        "unreadable",
	}
	if diff := cmp.Diff(want, skipped); diff != "" {
		t.Errorf("skips (-want +got):\n%s", diff)
	}
}

func TestClassify(t *testing.T) {
	long := "x" + strings.Repeat("a", MaxLineLength+10)
	minified := strings.Repeat("var a=1;", 1000) + "\n" + strings.Repeat("var b=2;", 1000)
	for _, tc := range []struct {
		path, content string
		lang          graph.Language
		reason        graph.SkipReason
		wantLang      graph.Language
	}{
		{"a.go", "package a\n", graph.LangGo, graph.SkipNone, graph.LangGo},
		{"a.go", "// Code generated by protoc-gen-go. DO NOT EDIT.\npackage a\n", graph.LangGo, graph.SkipGenerated, graph.LangGo},
		{"a.ts", "/* @generated */\nexport const x = 1\n", graph.LangTypeScript, graph.SkipGenerated, graph.LangTypeScript},
		{"gen.go", "package gen\n// this tool writes \"Code generated\" headers\n", graph.LangGo, graph.SkipNone, graph.LangGo},
		{"old.pb.go", "// Code generated by protoc-gen-go.\n// source: test.proto\n// DO NOT EDIT!\n\npackage grpc_testing\n", graph.LangGo, graph.SkipGenerated, graph.LangGo},
		{"gen2.go", "// Code generated by hand-rolled scripts, reviewed.\npackage gen\n\n// DO NOT EDIT the table below without the script.\n", graph.LangGo, graph.SkipNone, graph.LangGo},
		// the marker in a string literal: the generator that writes it, or its test, is hand-written
		{"header.go", "package gen\n\nconst header = \"// Code generated by gen. DO NOT EDIT.\\n\"\n", graph.LangGo, graph.SkipNone, graph.LangGo},
		{"emit.py", "HEADER = (\n    \"# Code generated by emit.py. DO NOT EDIT.\\n\"\n)\n", graph.LangPython, graph.SkipNone, graph.LangPython},
		{"banner.ts", "export const banner = `/* @generated */`\n", graph.LangTypeScript, graph.SkipNone, graph.LangTypeScript},
		{"a.c", "int x;\x00\x01", graph.LangC, graph.SkipBinary, graph.LangC},
		{"a.js", long, graph.LangJavaScript, graph.SkipLongLines, graph.LangJavaScript},
		{"a.js", minified, graph.LangJavaScript, graph.SkipMinified, graph.LangJavaScript},
		{"a.h", "int f(void);\n", graph.LangC, graph.SkipNone, graph.LangC},
		{"a.h", "namespace x { class Y {}; }\n", graph.LangC, graph.SkipNone, graph.LangCpp},
		{"latin1.py", "s = '\xe9t\xe9'\n", graph.LangPython, graph.SkipNone, graph.LangPython},
	} {
		lang, reason, _ := Classify(tc.path, tc.lang, []byte(tc.content))
		if reason != tc.reason || lang != tc.wantLang {
			t.Errorf("Classify(%s, %.30q) = %s, %s; want %s, %s", tc.path, tc.content, lang, reason, tc.wantLang, tc.reason)
		}
	}
}

// FuzzClassify checks that classification never panics and that the line
// statistics it relies on are consistent.
func FuzzClassify(f *testing.F) {
	f.Add("a.go", []byte("package a\n"))
	f.Add("a.js", []byte(strings.Repeat("x", 100)))
	f.Add("a.h", []byte("class A {};"))
	f.Fuzz(func(t *testing.T, p string, b []byte) {
		lang, _, _ := Classify(p, LanguageOf(p), b)
		_ = lang
		lines, longest := lineStats(b)
		if lines < 1 || longest > len(b) {
			t.Fatalf("lineStats = %d, %d for %d bytes", lines, longest, len(b))
		}
	})
}
