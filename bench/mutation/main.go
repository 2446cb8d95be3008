package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Mutation is one semantic mutation of the list.
type Mutation struct {
	ID      string
	File    string   // repository-relative
	Pkgs    []string // packages whose tests run, "./x/y"
	Run     string   // optional go test -run regexp (a package too slow to run whole)
	Bug     string   // the user-visible bug
	Find    string   // exact text, occurring once in File
	Replace string
	Line    int // of the "##" line in the list, for messages
}

// Outcome of one mutation.
type Outcome int

const (
	Caught Outcome = iota + 1
	Survived
	BuildBroken
)

func (o Outcome) String() string {
	switch o {
	case Caught:
		return "caught"
	case Survived:
		return "SURVIVED"
	case BuildBroken:
		return "build-broken"
	}
	return "?"
}

// Result is a mutation's outcome.
type Result struct {
	M       Mutation
	Outcome Outcome
	By      string // the first failing test, or "timeout"
	Took    time.Duration
}

func main() {
	list := flag.String("list", "bench/mutation/mutations.txt", "the mutation list (relative to the repository root)")
	only := flag.String("only", "", "comma-separated ids to run (default: all)")
	out := flag.String("out", "", "write a Markdown report here")
	timeout := flag.Duration("timeout", 3*time.Minute, "go test -timeout of one mutation (a mutant that hangs a test is caught by it)")
	baseline := flag.Bool("baseline", true, "first run the unmutated packages' tests (they must pass)")
	keep := flag.Bool("keep", false, "leave the scratch worktree in place (for debugging)")
	check := flag.Bool("check", false, "only check that every snippet occurs once in the files of this checkout (uncommitted changes included), run nothing")
	flag.Parse()
	if *check {
		os.Exit(checkOnly(*list))
	}
	os.Exit(run(*list, *only, *out, *timeout, *baseline, *keep))
}

func run(listPath, only, out string, timeout time.Duration, baseline, keep bool) int {
	top, err := git("", "rev-parse", "--show-toplevel")
	if err != nil {
		return fail("not in a git checkout: %v", err)
	}
	top = strings.TrimSpace(top)
	if !filepath.IsAbs(listPath) {
		listPath = filepath.Join(top, listPath)
	}
	muts, err := parseFile(listPath)
	if err != nil {
		return fail("%v", err)
	}
	if only != "" {
		want := strings.Split(only, ",")
		muts = slices.DeleteFunc(muts, func(m Mutation) bool { return !slices.Contains(want, m.ID) })
		if len(muts) != len(want) {
			return fail("-only %s: %d of %d ids are in the list", only, len(muts), len(want))
		}
	}
	head, err := git(top, "rev-parse", "--short", "HEAD")
	if err != nil {
		return fail("%v", err)
	}
	head = strings.TrimSpace(head)

	scratch, cleanup, err := scratchWorktree(top)
	if err != nil {
		return fail("%v", err)
	}
	if !keep {
		defer cleanup()
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		s := <-sig
		fmt.Fprintf(os.Stderr, "mutation: %v: stopping, removing %s\n", s, scratch)
		cancel()
		time.Sleep(2 * time.Second) // let the running go test be killed
		cleanup()
		os.Exit(130)
	}()

	// Every snippet must be found exactly once before anything runs: a
	// mutation that no longer applies is a list to fix, not a pass.
	if bad := unapplied(scratch, muts); len(bad) > 0 {
		return fail("the list does not apply to HEAD %s:\n  %s", head, strings.Join(bad, "\n  "))
	}

	if baseline {
		// the packages as the mutations run them: those run whole in one
		// go test, each -run filter with its packages in its own
		var whole []string
		filtered := map[string][]string{}
		for _, m := range muts {
			for _, p := range m.Pkgs {
				if m.Run == "" && !slices.Contains(whole, p) {
					whole = append(whole, p)
				} else if m.Run != "" && !slices.Contains(filtered[m.Run], p) {
					filtered[m.Run] = append(filtered[m.Run], p)
				}
			}
		}
		slices.Sort(whole)
		var runs []string
		if len(whole) > 0 {
			runs = append(runs, "") // no -run: the packages run whole
		}
		for r := range filtered {
			runs = append(runs, r)
		}
		slices.Sort(runs)
		start := time.Now()
		for _, r := range runs {
			pkgs := whole
			if r != "" {
				pkgs = filtered[r]
			}
			fmt.Fprintf(os.Stderr, "mutation: baseline: go test -run %q %s\n", r, strings.Join(pkgs, " "))
			res, outText := goTest(ctx, scratch, pkgs, r, timeout)
			if res != Survived { // "survived" = the tests passed
				fmt.Fprintln(os.Stderr, outText)
				return fail("the unmutated tests do not pass (%v): fix them first", res)
			}
		}
		fmt.Fprintf(os.Stderr, "mutation: baseline passed in %s\n", time.Since(start).Round(time.Second))
	}

	var results []Result
	for i, m := range muts {
		if ctx.Err() != nil {
			break
		}
		r, err := apply(ctx, scratch, m, timeout)
		if err != nil {
			return fail("%s: %v", m.ID, err)
		}
		results = append(results, r)
		fmt.Fprintf(os.Stderr, "mutation: [%d/%d] %-28s %-12s %6s  %s\n", i+1, len(muts), m.ID, r.Outcome, r.Took.Round(time.Second), r.By)
	}
	caught, survived, broken := tally(results)
	fmt.Fprintf(os.Stderr, "mutation: %d caught, %d survived, %d build-broken of %d (%s)\n", caught, survived, broken, len(results), percent(caught, caught+survived))
	if out != "" {
		if !filepath.IsAbs(out) {
			if wd, err := os.Getwd(); err == nil {
				out = filepath.Join(wd, out)
			}
		}
		if err := os.WriteFile(out, report(results, head, strings.Join(os.Args, " ")), 0o644); err != nil {
			return fail("%v", err)
		}
	}
	if survived > 0 || broken > 0 {
		return 1
	}
	return 0
}

// unapplied lists the mutations whose snippet does not occur exactly once
// in their file under dir.
func unapplied(dir string, muts []Mutation) []string {
	var bad []string
	for _, m := range muts {
		b, err := os.ReadFile(filepath.Join(dir, m.File))
		if err != nil {
			bad = append(bad, fmt.Sprintf("%s (line %d): %v", m.ID, m.Line, err))
			continue
		}
		if n := bytes.Count(b, []byte(m.Find)); n != 1 {
			bad = append(bad, fmt.Sprintf("%s (line %d): the snippet occurs %d times in %s, want exactly once", m.ID, m.Line, n, m.File))
		}
	}
	return bad
}

func checkOnly(listPath string) int {
	top, err := git("", "rev-parse", "--show-toplevel")
	if err != nil {
		return fail("not in a git checkout: %v", err)
	}
	top = strings.TrimSpace(top)
	if !filepath.IsAbs(listPath) {
		listPath = filepath.Join(top, listPath)
	}
	muts, err := parseFile(listPath)
	if err != nil {
		return fail("%v", err)
	}
	if bad := unapplied(top, muts); len(bad) > 0 {
		return fail("the list does not apply to this checkout:\n  %s", strings.Join(bad, "\n  "))
	}
	fmt.Fprintf(os.Stderr, "mutation: all %d mutations apply\n", len(muts))
	return 0
}

func fail(format string, a ...any) int {
	fmt.Fprintf(os.Stderr, "mutation: "+format+"\n", a...)
	return 2
}

func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(b), nil
}

// scratchWorktree adds a detached worktree of HEAD at a fixed path (one per
// checkout, so the build cache's entries for its packages are reused), first
// removing what a killed run left there.
func scratchWorktree(top string) (string, func(), error) {
	sum := sha256.Sum256([]byte(top))
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("cairn-mutation-%x", sum[:6]))
	remove := func() {
		git(top, "worktree", "remove", "--force", dir)
		os.RemoveAll(dir)
		git(top, "worktree", "prune")
	}
	remove()
	if _, err := git(top, "worktree", "add", "--detach", dir, "HEAD"); err != nil {
		return "", nil, err
	}
	var once sync.Once
	return dir, func() { once.Do(remove) }, nil
}

// apply mutates one file of the scratch worktree, runs the tests and
// restores the file, whatever happened.
func apply(ctx context.Context, scratch string, m Mutation, timeout time.Duration) (Result, error) {
	path := filepath.Join(scratch, m.File)
	orig, err := os.ReadFile(path)
	if err != nil {
		return Result{}, err
	}
	if n := bytes.Count(orig, []byte(m.Find)); n != 1 {
		return Result{}, fmt.Errorf("the snippet occurs %d times in %s", n, m.File)
	}
	mutated := bytes.Replace(orig, []byte(m.Find), []byte(m.Replace), 1)
	if err := os.WriteFile(path, mutated, 0o644); err != nil {
		return Result{}, err
	}
	defer os.WriteFile(path, orig, 0o644)
	start := time.Now()
	res, text := goTest(ctx, scratch, m.Pkgs, m.Run, timeout)
	r := Result{M: m, Took: time.Since(start)}
	switch res {
	case Survived:
		r.Outcome = Survived
	case BuildBroken:
		r.Outcome = BuildBroken
		r.By = firstLine(text)
	default:
		r.Outcome = Caught
		r.By = failedBy(text)
	}
	return r, nil
}

var failRE = regexp.MustCompile(`(?m)^\s*--- FAIL: (\S+)`)

func failedBy(text string) string {
	if strings.Contains(text, "panic: test timed out") {
		return "timeout"
	}
	var names []string
	for _, m := range failRE.FindAllStringSubmatch(text, -1) {
		if name := m[1]; !slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(name, n+"/") }) && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		if strings.Contains(text, "panic:") {
			return "panic"
		}
		return "go test failed"
	}
	if len(names) > 3 {
		return strings.Join(names[:3], ", ") + fmt.Sprintf(" (+%d)", len(names)-3)
	}
	return strings.Join(names, ", ")
}

func firstLine(text string) string {
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			return l
		}
	}
	return ""
}

var buildFailed = regexp.MustCompile(`(?m)^FAIL\s+\S+ \[(build|setup) failed\]$`)

// goTest runs the packages' tests in dir and says whether they passed
// (Survived, for a mutant), failed (Caught) or did not build.
func goTest(ctx context.Context, dir string, pkgs []string, run string, timeout time.Duration) (Outcome, string) {
	ctx, cancel := context.WithTimeout(ctx, timeout+time.Minute)
	defer cancel()
	// -failfast: a mutant is caught by its first failing test; the
	// package's slow tests after it need not run
	args := []string{"test", "-vet=off", "-failfast", "-timeout", timeout.String()}
	if run != "" {
		args = append(args, "-run", run)
	}
	args = append(args, pkgs...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	text := buf.String()
	if err == nil {
		return Survived, text
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) && ctx.Err() == nil {
		return BuildBroken, err.Error()
	}
	// go test's own line, at the start of a line: a test's log may quote
	// such text (the gate's tests print reports of builds that failed)
	if buildFailed.MatchString(text) {
		return BuildBroken, text
	}
	if ctx.Err() != nil {
		return Caught, "panic: test timed out (killed)"
	}
	return Caught, text
}

func tally(rs []Result) (caught, survived, broken int) {
	for _, r := range rs {
		switch r.Outcome {
		case Caught:
			caught++
		case Survived:
			survived++
		case BuildBroken:
			broken++
		}
	}
	return
}

func percent(a, b int) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f %%", 100*float64(a)/float64(b))
}

func report(rs []Result, head, command string) []byte {
	var b bytes.Buffer
	caught, survived, broken := tally(rs)
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(&b, "## Run\n\n")
	fmt.Fprintf(&b, "- command: `%s`\n", command)
	fmt.Fprintf(&b, "- commit: %s\n", head)
	fmt.Fprintf(&b, "- date: %s\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(&b, "- machine: %s/%s, %d CPUs, load average at the end %s, %s\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), strings.Join(strings.Fields(string(load))[:min(3, len(strings.Fields(string(load))))], " "), runtime.Version())
	var total time.Duration
	for _, r := range rs {
		total += r.Took
	}
	fmt.Fprintf(&b, "- time in go test: %s\n\n", total.Round(time.Second))
	fmt.Fprintf(&b, "**%d caught, %d survived, %d build-broken of %d — %s caught** (of those that built)\n\n", caught, survived, broken, len(rs), percent(caught, caught+survived))
	fmt.Fprintf(&b, "| id | packages | result | caught by | time | the bug |\n|---|---|---|---|---|---|\n")
	for _, r := range rs {
		pkgs := strings.Join(r.M.Pkgs, " ")
		if r.M.Run != "" {
			pkgs += " -run " + r.M.Run
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", r.M.ID, pkgs, r.Outcome, cell(r.By), r.Took.Round(time.Second), cell(r.M.Bug))
	}
	return b.Bytes()
}

func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	if len(s) > 120 {
		s = s[:117] + "…"
	}
	return s
}

func parseFile(path string) ([]Mutation, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ms, err := parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ms, nil
}

// parse reads the list (its format is in doc.go).
func parse(r io.Reader) ([]Mutation, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var ms []Mutation
	var cur *Mutation
	var block *[]string // the find or replace lines being read
	var find, repl []string
	seen := map[string]bool{}
	n := 0
	finish := func() error {
		if cur == nil {
			return nil
		}
		m := *cur
		switch {
		case m.File == "" || len(m.Pkgs) == 0 || m.Bug == "":
			return fmt.Errorf("line %d: %s needs file:, pkg: and bug:", m.Line, m.ID)
		case find == nil || repl == nil:
			return fmt.Errorf("line %d: %s needs --- find, --- replace and --- end", m.Line, m.ID)
		}
		m.Find, m.Replace = strings.Join(find, "\n"), strings.Join(repl, "\n")
		if m.Find == "" || m.Find == m.Replace {
			return fmt.Errorf("line %d: %s: an empty snippet, or a replacement equal to it", m.Line, m.ID)
		}
		ms = append(ms, m)
		cur, find, repl = nil, nil, nil
		return nil
	}
	for sc.Scan() {
		n++
		line := sc.Text()
		if block != nil {
			if line == "--- replace" && block == &find {
				repl = []string{}
				block = &repl
				continue
			}
			if line == "--- end" {
				block = nil
				continue
			}
			*block = append(*block, line)
			continue
		}
		switch {
		case strings.HasPrefix(line, "## "):
			if err := finish(); err != nil {
				return nil, err
			}
			id := strings.TrimSpace(line[3:])
			if id == "" || seen[id] {
				return nil, fmt.Errorf("line %d: an empty or repeated id %q", n, id)
			}
			seen[id] = true
			cur = &Mutation{ID: id, Line: n}
		case cur == nil, strings.HasPrefix(line, "#"), strings.TrimSpace(line) == "":
		case strings.HasPrefix(line, "file:"):
			cur.File = strings.TrimSpace(line[5:])
		case strings.HasPrefix(line, "pkg:"):
			cur.Pkgs = strings.Fields(line[4:])
		case strings.HasPrefix(line, "run:"):
			cur.Run = strings.TrimSpace(line[4:])
		case strings.HasPrefix(line, "bug:"):
			cur.Bug = strings.TrimSpace(line[4:])
		case line == "--- find":
			find = []string{}
			block = &find
		default:
			return nil, fmt.Errorf("line %d: unexpected %q", n, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if block != nil {
		return nil, fmt.Errorf("an unterminated block at the end")
	}
	if err := finish(); err != nil {
		return nil, err
	}
	return ms, nil
}
