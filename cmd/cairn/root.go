package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/indexer/watch"
)

// globals are the flags every command takes.
type globals struct {
	repo     string
	indexDir string
	json     bool
	quiet    bool
	stdout   io.Writer
	stderr   io.Writer
	// store is --store: "" for the embedded store (in indexDir), or a
	// postgres:// URL; repoName names the repository there (pgstore.go).
	store    string
	repoName string
	// worktree is the freshness every answer states, checked once per
	// command against the generation indexed (output.go, indexOf).
	worktree *watch.Worktree
	indexed  graph.Meta
}

// exitError carries an exit code through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// notFound and usageError quote their arguments bounded (engine.Sprintf).
func notFound(format string, args ...any) error {
	return &exitError{code: 3, err: errors.New(engine.Sprintf(format, args...))}
}

func usageError(format string, args ...any) error {
	return &exitError{code: 2, err: errors.New(engine.Sprintf(format, args...))}
}

// Main runs the cairn command line and returns the exit code.
func Main(args []string) int {
	return run(args, os.Stdout, os.Stderr)
}

func run(args []string, stdout, stderr io.Writer) int {
	return runWith(args, os.Stdin, stdout, stderr)
}

// runWith is run with the standard input given (cairn hook reads the
// client's JSON there).
func runWith(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	g := &globals{stdout: stdout, stderr: stderr}
	root := &cobra.Command{
		Use:   "cairn",
		Short: "cairn: a code-intelligence context engine",
		Long: `cairn keeps an index of a repository (symbols, references, chunks) and answers
what you must know before changing code: where is X, who uses it, what to read.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version,
	}
	root.SetVersionTemplate(versionLine())
	root.SetArgs(args)
	// cobra suggests commands by edit distance, quadratic in the argument:
	// a 5 MB "command" took over a minute to refuse.
	for _, a := range args {
		root.DisableSuggestions = root.DisableSuggestions || len(a) > 64
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	pf := root.PersistentFlags()
	pf.StringVar(&g.repo, "repo", ".", "repository root")
	pf.StringVar(&g.indexDir, "index-dir", os.Getenv("CAIRN_INDEX_DIR"), "index directory (default <repo>/.cairn)")
	pf.BoolVar(&g.json, "json", false, "print JSON")
	pf.BoolVarP(&g.quiet, "quiet", "q", false, "no progress output")
	pf.StringVar(&g.store, "store", os.Getenv("CAIRN_STORE"), "a shared PostgreSQL store, postgres://USER:PASSWORD@HOST[:PORT]/DB (default: the embedded store in --index-dir)")
	pf.StringVar(&g.repoName, "repo-name", os.Getenv("CAIRN_REPO_NAME"), "the repository's name in a shared store (default: the repository's absolute path)")

	root.AddCommand(
		indexCmd(g),
		statusCmd(g),
		defCmd(g),
		refsCmd(g),
		symbolsCmd(g),
		callersCmd(g),
		calleesCmd(g),
		implementationsCmd(g),
		pathCmd(g),
		mapCmd(g),
		entriesCmd(g),
		packagesCmd(g),
		searchCmd(g),
		contextCmd(g),
		serveCmd(g),
		traceCmd(g),
		impactCmd(g),
		watchCmd(g),
		migrateCmd(g),
		workerCmd(g),
		verifyCmd(g),
		agentCmd(g),
		versionCmd(g),
		evalCmd(g),
		setupCmd(g),
		hookCmd(g),
	)
	if path := os.Getenv("CAIRN_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil {
			pprof.StartCPUProfile(f)
			defer func() { pprof.StopCPUProfile(); f.Close() }()
		}
	}
	if c, _, err := root.Find(args); err == nil && oneShot[c.Name()] && c.Parent() == root {
		defer lessGC()()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := root.ExecuteContext(ctx)
	if line := g.freshnessLine(); line != "" && !g.json && !g.quiet {
		fmt.Fprintln(stderr, "cairn:", line)
	}
	if err == nil {
		return 0
	}
	if msg := err.Error(); msg != "" { // "": the command said it already (cairn hook)
		fmt.Fprintln(stderr, "cairn:", engine.BoundMessage(msg)) // bounded and redacted
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	if isUsage(err) {
		return 2
	}
	return 1
}

// oneShot are the commands that answer one question and exit.
var oneShot = map[string]bool{"status": true, "def": true, "refs": true, "symbols": true, "callers": true, "callees": true,
	"implementations": true, "path": true, "map": true, "entries": true, "packages": true, "search": true, "context": true,
	"trace": true, "impact": true, "hook": true}

// lessGC makes the collector run less in a one-shot answer, unless GOGC is
// set: such a process lives for a fraction of a second, allocates most of
// what it will ever hold while opening the index, and the collector's
// concurrent marking was a fifth of its CPU. On astropy (1,551 files), 20
// paired runs, CPU p50: search 130 → 120 ms, context 300 → 265 ms, def
// unchanged at 40 ms; peak RSS +3 to +5 MB. The memory limit keeps a
// large index's answer from growing its heap five-fold: near it the
// collector runs as often as it needs to. It returns the function that
// restores the settings (tests run many commands in one process).
func lessGC() (restore func()) {
	if _, set := os.LookupEnv("GOGC"); set {
		return func() {}
	}
	pct := debug.SetGCPercent(400)
	limit := debug.SetMemoryLimit(-1)
	if limit == math.MaxInt64 {
		debug.SetMemoryLimit(1 << 30)
	}
	return func() {
		debug.SetGCPercent(pct)
		debug.SetMemoryLimit(limit)
	}
}

func isUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand", "accepts ", "requires at least", "invalid argument", "flag needs an argument"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// repoRoot returns the absolute repository root.
func (g *globals) repoRoot() (string, error) {
	abs, err := filepath.Abs(g.repo)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", usageError("repository %s: %v", g.repo, err)
	}
	if !st.IsDir() {
		return "", usageError("repository %s is not a directory", g.repo)
	}
	return abs, nil
}

// dir returns the index directory.
func (g *globals) dir() (string, error) {
	if g.indexDir != "" {
		return filepath.Abs(g.indexDir)
	}
	root, err := g.repoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, ".cairn"), nil
}
