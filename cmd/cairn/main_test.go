package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/cairn-dev/cairn/graph/postgres/pgtest"
	"github.com/cairn-dev/cairn/internal/diagram/diagramtest"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"cairn": func() { os.Exit(Main(os.Args[1:])) },
	})
}

// TestScripts runs the CLI scenarios in testdata/script/*.txtar.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("CAIRN_INDEX_DIR", "")
			return setApps(env)
		},
		Cmds:      scriptCmds,
		Condition: toolsCondition,
	})
}

// scriptCmds are the script commands beyond testscript's own.
var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"waitfor":      waitFor,
	"exits":        exits,
	"validdot":     validGraph("dot", diagramtest.Dot),
	"validmermaid": validGraph("mermaid", diagramtest.Mermaid),
}

// exits is the script command
//
//	exits CODE PROGRAM ARGS...
//
// which runs the program and requires it to exit with CODE (its standard
// output and error are kept for stdout and stderr, as exec keeps them):
// the exit codes are part of the interface (0 found, 1 failure, 2 usage,
// 3 nothing found).
func exits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROGRAM ARGS...")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("%s: %v", args[1], err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d\nstderr: %s", strings.Join(args[1:], " "), got, want, ts.ReadFile("stderr"))
	}
}

// toolsCondition is the script condition [graphtools]: graphviz's dot and
// the mermaid parser are installed (.ci/deps.sh); under CI their absence
// fails the script instead of skipping its graph checks.
func toolsCondition(cond string) (bool, error) {
	if cond != "graphtools" {
		return false, fmt.Errorf("unknown condition %q", cond)
	}
	why := diagramtest.Missing()
	if why != "" && os.Getenv("CI") != "" {
		return false, fmt.Errorf("%s", why)
	}
	return why == "", nil
}

// validGraph is the script command
//
//	validdot|validmermaid [LABEL-REGEXP...]
//
// which parses the last command's standard output with the real tool
// (diagramtest: every node declared once, with a label) and requires, for
// each regexp, a node whose label (lines joined by spaces) matches it.
func validGraph(tool string, parse func(string) (*diagramtest.Graph, error)) func(ts *testscript.TestScript, neg bool, args []string) {
	return func(ts *testscript.TestScript, neg bool, args []string) {
		if neg {
			ts.Fatalf("valid%s does not take !", tool)
		}
		text := ts.ReadFile("stdout")
		g, err := parse(text)
		if err != nil {
			ts.Fatalf("%s refuses the graph: %v\n%s", tool, err, text)
		}
		for _, a := range args {
			re := regexp.MustCompile(a)
			found := false
			for _, l := range g.Labels {
				found = found || re.MatchString(strings.ReplaceAll(l, "\n", " "))
			}
			if !found {
				ts.Fatalf("%s: no node label matches %q\n%s", tool, a, text)
			}
		}
	}
}

// TestScriptsPostgres runs the scenarios of testdata/script-pg against the
// shared store: each script gets a database of its own in CAIRN_STORE.
func TestScriptsPostgres(t *testing.T) {
	pgtest.URL(t) // skips without a server (see pgtest)
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script-pg",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("CAIRN_INDEX_DIR", "")
			env.Setenv("CAIRN_STORE", pgtest.NewDB(t))
			env.Setenv("XDG_CACHE_HOME", t.TempDir()) // outside the watched worktree
			return setApps(env)
		},
		Cmds:      scriptCmds,
		Condition: toolsCondition,
	})
}

// setApps points $APPS at the fixture applications of testdata/apps, for
// scripts to copy.
func setApps(env *testscript.Env) error {
	apps, err := filepath.Abs(filepath.Join("..", "..", "testdata", "apps"))
	if err != nil {
		return err
	}
	env.Setenv("APPS", apps)
	return nil
}

// waitFor is the script command
//
//	waitfor DURATION [-stdout REGEXP] PROGRAM ARGS...
//
// which runs the program again and again until it succeeds (and its
// standard output matches) — with !, until it fails — and fails itself
// after DURATION: a condition with a deadline, for what a background
// `cairn watch` makes true.
func waitFor(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: [!] waitfor DURATION [-stdout REGEXP] PROGRAM ARGS...")
	}
	d, err := time.ParseDuration(args[0])
	ts.Check(err)
	args = args[1:]
	var re *regexp.Regexp
	if len(args) > 2 && args[0] == "-stdout" {
		re = regexp.MustCompile(args[1])
		args = args[2:]
	}
	deadline := time.Now().Add(d)
	for {
		err := ts.Exec(args[0], args[1:]...)
		ok := err == nil && (re == nil || re.MatchString(ts.ReadFile("stdout")))
		if ok != neg {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("waitfor %s: %v still not true (last error: %v)", d, args, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
