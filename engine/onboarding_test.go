package engine_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/engine/enginetest"
)

// onboardingApp is a small polyglot service with one entry point of each
// kind and imports between its own packages.
var onboardingApp = map[string]string{
	"go.mod": "module example.com/app\n\ngo 1.22\n",
	"cmd/app/main.go": `package main

import (
	"net/http"

	"example.com/app/api"
	"example.com/app/jobs"
	"github.com/robfig/cron/v3"
	"github.com/spf13/cobra"
)

func main() {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /tasks", api.ListTasks)
	c := cron.New()
	c.AddFunc("@hourly", jobs.Sweep)
	root := &cobra.Command{Use: "app", RunE: serve}
	root.Execute()
	http.ListenAndServe(":8080", mux)
}

func serve(cmd *cobra.Command, args []string) error { return nil }
`,
	"api/api.go": `package api

import (
	"net/http"

	"example.com/app/store"
)

// ListTasks lists the tasks.
func ListTasks(w http.ResponseWriter, r *http.Request) { store.All(); fail(w) }

// Health answers probes; nothing registers it by name.
func Health(w http.ResponseWriter, r *http.Request) {}

func helper() {}

// fail takes a ResponseWriter but is a helper: ListTasks calls it.
func fail(w http.ResponseWriter) {}

// fetch is a client: it returns an *http.Response.
func fetch(c *http.Client, req *http.Request) (*http.Response, error) { return c.Do(req) }
`,
	"api/api_test.go": `package api

import "testing"

func TestListTasks(t *testing.T) { helper() }
`,
	"store/store.go": "package store\n\n// All lists every task.\nfunc All() []string { return nil }\n",
	"jobs/jobs.go": `package jobs

import "example.com/app/store"

// Sweep runs every hour.
func Sweep() { store.All() }
`,
	"py/app.py": `from flask import Flask
import click

app = Flask(__name__)


@app.route("/health")
def health():
    return "ok"


@click.command()
def report():
    print("report")


def width():
    return 3


opts = {}
w = opts.get("width", width)
`,
	"py/tool.py": `import argparse

from celery import shared_task


def serve(args):
    print(args)


@shared_task
def cleanup():
    pass


def cli():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    p = sub.add_parser("serve")
    p.set_defaults(func=serve)
    return parser
`,
	"web/src/store.ts": "export const taskStore = { tasks: [] as string[] };\n",
	"web/src/ui/button.ts": `import { taskStore } from "../store";

export function renderButton(): string {
  return "<button>" + taskStore.tasks.length + "</button>";
}
`,
}

// TestEntryPoints: routes first, then commands, jobs and mains in path
// order; one entry point of each kind, each found by the rule
// doc.go of retrieval/trace's EntryPoints names — a route registration,
// a command and a job bound by a call, a decorated route and command, a Go
// handler by its signature, a main — and no test, no helper (fail takes an
// http.ResponseWriter, but ListTasks calls it), no client (fetch returns
// an *http.Response), no dictionary lookup (opts.get("width", width)).
func TestEntryPoints(t *testing.T) {
	ctx := context.Background()
	root := enginetest.RepoOf(t, onboardingApp)
	s, err := open(t, root).Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Release()
	res, err := s.EntryPoints(ctx, engine.EntryPointsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range res.EntryPoints {
		reg := ""
		if e.Registered != nil {
			reg = fmt.Sprintf(" @%s:%d", e.Registered.Path, e.Registered.StartLine)
		}
		got = append(got, fmt.Sprintf("%s %s → %s %s:%d%s", e.Kind, e.Label, e.Func.Name, e.Func.Path, e.Func.StartLine, reg))
	}
	want := []string{
		"http GET /tasks → ListTasks api/api.go:10 @cmd/app/main.go:14",
		"http HTTP handler Health → Health api/api.go:13",
		"http /health → health py/app.py:8",
		"main cmd/app/main.go main → main cmd/app/main.go:12",
		"cli serve → serve cmd/app/main.go:22 @cmd/app/main.go:17",
		"job Sweep → Sweep jobs/jobs.go:6 @cmd/app/main.go:16",
		"cli report → report py/app.py:13",
		"cli serve → serve py/tool.py:6 @py/tool.py:19",
		"job cleanup → cleanup py/tool.py:11",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("entry points (-want +got):\n%s", diff)
	}
	if res.Counts["http"] != 3 || res.Counts["cli"] != 3 || res.Counts["job"] != 2 || res.Counts["main"] != 1 {
		t.Errorf("counts %v", res.Counts)
	}

	// narrowed by kind, directory and limit
	only, err := s.EntryPoints(ctx, engine.EntryPointsOptions{Kinds: []string{"job", "main"}, Under: "cmd"})
	if err != nil || len(only.EntryPoints) != 1 || only.EntryPoints[0].Kind != "main" {
		t.Errorf("main under cmd: %+v, %v", only, err)
	}
	tests, err := s.EntryPoints(ctx, engine.EntryPointsOptions{Kinds: []string{"test"}})
	if err != nil || len(tests.EntryPoints) != 0 {
		t.Errorf("tests are not listed (test files are left out): %+v, %v", tests, err)
	}
	cut, err := s.EntryPoints(ctx, engine.EntryPointsOptions{Limit: 2})
	if err != nil || len(cut.EntryPoints) != 2 || !cut.Truncated || cut.Counts["http"] != 3 {
		t.Errorf("limit 2: %+v, %v", cut, err)
	}
	for _, bad := range []engine.EntryPointsOptions{{Kinds: []string{"cron"}}, {Limit: -1}, {Limit: engine.MaxEntryPoints + 1}} {
		if _, err := s.EntryPoints(ctx, bad); category(err) != engine.InvalidArgument {
			t.Errorf("%+v: %v, want invalid_argument", bad, err)
		}
	}
	if _, err := s.EntryPoints(ctx, engine.EntryPointsOptions{Under: "../x"}); category(err) != engine.OutsideRepository {
		t.Errorf("under ../x: %v", err)
	}
	if _, err := s.EntryPoints(ctx, engine.EntryPointsOptions{Under: "nowhere"}); category(err) != engine.NotFound {
		t.Errorf("under nowhere: %v", err)
	}
}

// TestPackageGraph: a node per directory of code (test files left out),
// an edge per import of the project's own code — Go through go.mod,
// TypeScript through a relative specifier — and libraries counted, not
// drawn; collapsing and the node limit keep a large tree small.
func TestPackageGraph(t *testing.T) {
	ctx := context.Background()
	root := enginetest.RepoOf(t, onboardingApp)
	s, err := open(t, root).Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Release()
	g, err := s.PackageGraph(ctx, engine.PackageGraphOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var nodes, edges []string
	for _, n := range g.Packages {
		nodes = append(nodes, fmt.Sprintf("%s %d files %s", n.Path, n.Files, strings.Join(n.Languages, ",")))
	}
	for _, e := range g.Imports {
		edges = append(edges, fmt.Sprintf("%s → %s (%d)", e.From, e.To, e.Imports))
	}
	wantNodes := []string{"api 1 files go", "cmd/app 1 files go", "jobs 1 files go", "py 2 files python", "store 1 files go", "web/src 1 files typescript", "web/src/ui 1 files typescript"}
	wantEdges := []string{"api → store (1)", "cmd/app → api (1)", "cmd/app → jobs (1)", "jobs → store (1)", "web/src/ui → web/src (1)"}
	if diff := cmp.Diff(wantNodes, nodes); diff != "" {
		t.Errorf("nodes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantEdges, edges); diff != "" {
		t.Errorf("edges (-want +got):\n%s", diff)
	}
	// net/http, cron, cobra, flask, click
	if g.Depth != 0 || g.Directories != 7 || g.External < 5 {
		t.Errorf("depth %d, %d directories, %d external imports", g.Depth, g.Directories, g.External)
	}

	// depth 1: cmd/app and web/src/ui fold into cmd and web; the edge
	// inside web is gone
	g1, err := s.PackageGraph(ctx, engine.PackageGraphOptions{Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	var web engine.PackageNode
	for _, n := range g1.Packages {
		if n.Path == "web" {
			web = n
		}
	}
	if web.Files != 2 || web.Collapsed != 2 || len(g1.Packages) != 6 {
		t.Errorf("depth 1: %+v", g1.Packages)
	}
	if slices.ContainsFunc(g1.Imports, func(e engine.PackageEdge) bool { return e.From == "web" }) || len(g1.Imports) != 4 {
		t.Errorf("depth 1 imports: %+v", g1.Imports)
	}
	// a limit of 4 chooses depth 1 (6 nodes) and still cuts: the
	// smallest are left out, counted with their imports
	g4, err := s.PackageGraph(ctx, engine.PackageGraphOptions{Limit: 4})
	if err != nil {
		t.Fatal(err)
	}
	if g4.Depth != 1 || len(g4.Packages) != 4 || g4.Omitted != 2 || g4.OmittedImports == 0 {
		t.Errorf("limit 4: depth %d, %d nodes, %d omitted, %d omitted imports", g4.Depth, len(g4.Packages), g4.Omitted, g4.OmittedImports)
	}
	// under a directory
	gw, err := s.PackageGraph(ctx, engine.PackageGraphOptions{Under: "web"})
	if err != nil || len(gw.Packages) != 2 || len(gw.Imports) != 1 {
		t.Errorf("under web: %+v, %v", gw, err)
	}
	if _, err := s.PackageGraph(ctx, engine.PackageGraphOptions{Under: "/etc"}); category(err) != engine.OutsideRepository {
		t.Errorf("under /etc: %v", err)
	}
	if _, err := s.PackageGraph(ctx, engine.PackageGraphOptions{Depth: -1}); category(err) != engine.InvalidArgument {
		t.Errorf("depth -1: %v", err)
	}
}
