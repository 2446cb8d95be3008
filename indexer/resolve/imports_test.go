package resolve

import (
	"context"
	"slices"
	"testing"

	"github.com/cairn-dev/cairn/graph"
)

// TestImportedDirsNoGoMod: without go.mod, a Go import path maps by a
// suffix of two elements, or to a top-level package whose name is its
// last element (the root's too); another package's path maps to none.
func TestImportedDirsNoGoMod(t *testing.T) {
	files := []graph.File{
		{Path: "api.go", Lang: graph.LangGo, Package: "zoekt"},
		{Path: "shards/shards.go", Lang: graph.LangGo, Package: "shards"},
		{Path: "shards/shards_test.go", Lang: graph.LangGo, Package: "shards_test"},
		{Path: "build/sub/sub.go", Lang: graph.LangGo, Package: "sub"},
		{Path: "cmd/zoekt/main.go", Lang: graph.LangGo, Package: "main"},
		{Path: "logx/log.go", Lang: graph.LangGo, Package: "log"},
	}
	x := NewIndex(context.Background(), NewMemSource(nil), files)
	from := &files[4]
	for mod, want := range map[string][]string{
		"github.com/google/zoekt/shards":    {"shards"},
		"github.com/google/zoekt":           {"."},
		"github.com/google/zoekt/build/sub": {"build/sub"},
		"github.com/pkg/errs":               nil,
		"github.com/other/log":              nil, // logx/ is package log, but not a directory named log
		"shards":                            {"shards"},
	} {
		if got := x.ImportedDirs(from, graph.Import{Module: mod}); !slices.Equal(got, want) {
			t.Errorf("imports %s: %v, want %v", mod, got, want)
		}
	}
	// with a go.mod the modules decide, and the loose match is off
	x.SetGoModules(map[string]string{"example.com/other": "."})
	if got := x.ImportedDirs(from, graph.Import{Module: "github.com/google/zoekt/shards"}); got != nil {
		t.Errorf("with go.mod: %v, want none", got)
	}
}

// TestImportedDirs: each language's imports map to the directories the
// resolver would look in; imports of libraries map to none.
func TestImportedDirs(t *testing.T) {
	files := []graph.File{
		{Path: "cmd/app/main.go", Lang: graph.LangGo, Package: "main"},
		{Path: "api/api.go", Lang: graph.LangGo, Package: "api"},
		{Path: "svc/web/__init__.py", Lang: graph.LangPython, Package: "web.__init__"},
		{Path: "svc/web/views.py", Lang: graph.LangPython, Package: "web.views"},
		{Path: "svc/web/db/models.py", Lang: graph.LangPython, Package: "web.db.models"},
		{Path: "svc/tools/report.py", Lang: graph.LangPython, Package: "tools.report"},
		{Path: "ui/src/store.ts", Lang: graph.LangTypeScript},
		{Path: "ui/src/parts/index.ts", Lang: graph.LangTypeScript},
		{Path: "ui/src/app/main.tsx", Lang: graph.LangTSX},
		{Path: "java/src/com/acme/model/Task.java", Lang: graph.LangJava, Package: "com.acme.model"},
		{Path: "java/src/com/acme/App.java", Lang: graph.LangJava, Package: "com.acme"},
		{Path: "c/include/util.h", Lang: graph.LangC},
		{Path: "c/src/main.c", Lang: graph.LangC},
		{Path: "c/src/local.h", Lang: graph.LangC},
	}
	x := NewIndex(context.Background(), NewMemSource(nil), files)
	x.SetGoModules(map[string]string{"example.com/app": "."})
	at := func(p string) *graph.File {
		i := slices.IndexFunc(files, func(f graph.File) bool { return f.Path == p })
		return &files[i]
	}
	for _, tc := range []struct {
		from string
		im   graph.Import
		want []string
	}{
		{"cmd/app/main.go", graph.Import{Module: "example.com/app/api"}, []string{"api"}},
		{"cmd/app/main.go", graph.Import{Module: "example.com/app/nowhere"}, nil},
		{"cmd/app/main.go", graph.Import{Module: "net/http"}, nil},
		{"svc/tools/report.py", graph.Import{Module: "web.db.models", Name: "Task"}, []string{"svc/web/db"}},
		{"svc/tools/report.py", graph.Import{Module: "web", Name: "views"}, []string{"svc/web"}},
		{"svc/tools/report.py", graph.Import{Module: "web"}, []string{"svc/web"}},
		{"svc/web/views.py", graph.Import{Module: ".db.models", Name: "Task"}, []string{"svc/web/db"}},
		{"svc/web/views.py", graph.Import{Module: "django.db"}, nil},
		{"ui/src/app/main.tsx", graph.Import{Module: "../store", Name: "taskStore"}, []string{"ui/src"}},
		{"ui/src/app/main.tsx", graph.Import{Module: "../parts"}, []string{"ui/src/parts"}},
		{"ui/src/app/main.tsx", graph.Import{Module: "react"}, nil},
		{"java/src/com/acme/App.java", graph.Import{Module: "com.acme.model.Task"}, []string{"java/src/com/acme/model"}},
		{"java/src/com/acme/App.java", graph.Import{Module: "com.acme.model", Name: "*"}, []string{"java/src/com/acme/model"}},
		{"java/src/com/acme/App.java", graph.Import{Module: "java.util.List"}, nil},
		{"c/src/main.c", graph.Import{Module: "local.h"}, []string{"c/src"}},
		{"c/src/main.c", graph.Import{Module: "util.h"}, []string{"c/include"}},
		{"c/src/main.c", graph.Import{Module: "stdio.h"}, nil},
	} {
		if got := x.ImportedDirs(at(tc.from), tc.im); !slices.Equal(got, tc.want) {
			t.Errorf("%s imports %+v: %v, want %v", tc.from, tc.im, got, tc.want)
		}
	}
}

// TestIsPyModuleUnderSourceRoot: a module is known whole, as a package
// (its __init__), or as a dotted suffix of a module named from a root above
// its source root — never by a suffix that cuts a name in two.
func TestIsPyModuleUnderSourceRoot(t *testing.T) {
	files := []graph.File{
		{Path: "svc/web/__init__.py", Lang: graph.LangPython, Package: "svc.web.__init__"},
		{Path: "svc/web/views.py", Lang: graph.LangPython, Package: "svc.web.views"},
		{Path: "svc/web/db/models.py", Lang: graph.LangPython, Package: "svc.web.db.models"},
		{Path: "tools.py", Lang: graph.LangPython, Package: "tools"},
	}
	c := &fileCtx{x: NewIndex(context.Background(), NewMemSource(nil), files)}
	for mod, want := range map[string]bool{
		"svc.web.views": true, "web.views": true, "views": true, "web": true, "svc.web": true,
		"web.db.models": true, "db.models": true, "db": false, "tools": true,
		"eb.views": false, "web.view": false, "views.x": false, "b.models": false, "ools": false,
	} {
		if got := c.isPyModule(mod); got != want {
			t.Errorf("isPyModule(%q) = %v, want %v", mod, got, want)
		}
	}
}
