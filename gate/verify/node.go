package verify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/gate/sandbox"
)

// The jest and vitest runners share the selector, the choice between them,
// the dependency install and the report: vitest's JSON reporter writes
// jest's format (testResults[].assertionResults[]).
//
// A selector is test files (paths relative to the repository root, with a
// JS/TS extension) and an optional -t PATTERN (also --testNamePattern, as
// "-t P" or "-t=P"); words are split as a shell would (quotes, backslash),
// so -t "adds two numbers" is one pattern. Any other flag is refused. The
// files must belong to one package: the nearest directory at or above them
// with a package.json (the repository root's for a bare -t). That package
// is the command's directory and decides the runner (nodeRunnerFor).

// jsExt matches the file extensions a jest/vitest selector names.
var jsExt = regexp.MustCompile(`\.(js|jsx|ts|tsx|mjs|cjs|mts|cts)$`)

// nodeSelector is a parsed jest/vitest selector.
type nodeSelector struct {
	Files   []string // relative to the repository root
	Pattern string   // the -t pattern, "" for none
}

// isNodeSelector reports whether a selector is written for jest or vitest:
// a word names a JS/TS file, or the first word is -t.
func isNodeSelector(selector string) bool {
	words, err := shellWords(selector)
	if err != nil {
		words = strings.Fields(selector) // parseNodeSelector says what is wrong
	}
	if len(words) == 0 {
		return false
	}
	if w := words[0]; w == "-t" || w == "--testNamePattern" || strings.HasPrefix(w, "-t=") || strings.HasPrefix(w, "--testNamePattern=") {
		return true
	}
	return slices.ContainsFunc(words, func(w string) bool { return !strings.HasPrefix(w, "-") && jsExt.MatchString(w) })
}

func parseNodeSelector(selector string) (nodeSelector, error) {
	var s nodeSelector
	words, err := shellWords(selector)
	if err != nil {
		return s, fmt.Errorf("jest/vitest selector: %w", err)
	}
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "-t" || w == "--testNamePattern":
			if i+1 == len(words) {
				return s, fmt.Errorf("jest/vitest selector: %s needs a pattern", w)
			}
			s.Pattern = words[i+1]
			i++
		case strings.HasPrefix(w, "-t=") || strings.HasPrefix(w, "--testNamePattern="):
			s.Pattern = w[strings.Index(w, "=")+1:]
		case strings.HasPrefix(w, "-"):
			return s, fmt.Errorf("jest/vitest selector: flag %q is not allowed (only -t)", w)
		default:
			c := path.Clean(w)
			if path.IsAbs(c) || c == ".." || strings.HasPrefix(c, "../") {
				return s, fmt.Errorf("jest/vitest selector: %q leaves the repository", w)
			}
			if !jsExt.MatchString(c) {
				return s, fmt.Errorf("jest/vitest selector: %q is not a test file (a JS/TS file, or -t PATTERN)", w)
			}
			s.Files = append(s.Files, c)
		}
	}
	if len(s.Files) == 0 && s.Pattern == "" {
		return s, errors.New("jest/vitest selector: no test file and no -t pattern")
	}
	return s, nil
}

// shellWords splits s as a POSIX shell splits words: blanks separate,
// '…' is literal, "…" keeps \" and \\, a backslash outside quotes escapes
// the next character. No expansion of any kind.
func shellWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words, inWord = append(words, cur.String()), false
				cur.Reset()
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated ' quote")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i, inWord = i+1+j, true
		case c == '"':
			inWord = true
			for i++; ; i++ {
				if i == len(s) {
					return nil, errors.New(`unterminated " quote`)
				}
				if s[i] == '"' {
					break
				}
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				cur.WriteByte(s[i])
			}
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// packageDir is the package the selector's files belong to: the nearest
// directory at or above each with a package.json, the same for all.
func packageDir(root string, sel nodeSelector) (string, error) {
	if len(sel.Files) == 0 {
		if _, err := os.Stat(filepath.Join(root, "package.json")); err != nil {
			return "", errors.New("jest/vitest selector: no package.json at the repository root; name a test file")
		}
		return ".", nil
	}
	dir := ""
	for _, f := range sel.Files {
		d := path.Dir(f)
		for {
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(d), "package.json")); err == nil {
				break
			}
			if d == "." {
				return "", fmt.Errorf("jest/vitest selector: no package.json at or above %s", f)
			}
			d = path.Dir(d)
		}
		if dir != "" && d != dir {
			return "", fmt.Errorf("jest/vitest selector: %s (package %s) and the other files (package %s) are in different packages", f, d, dir)
		}
		dir = d
	}
	return dir, nil
}

// packageJSON is what the runner choice reads of a package.json.
type packageJSON struct {
	Jest            json.RawMessage   `json:"jest"`
	Dependencies    map[string]string `json:"dependencies"`
	DevDependencies map[string]string `json:"devDependencies"`
	Scripts         map[string]string `json:"scripts"`
}

var configExts = []string{"js", "ts", "mjs", "cjs", "mts", "cts", "json"}

// nodeRunnerFor picks jest or vitest for a selector from its package:
//
//  1. a config file: jest.config.* or vitest.config.* (one kind only);
//  2. a "jest" key in package.json: jest;
//  3. the dependencies: jest or vitest in devDependencies or dependencies
//     (one of the two only);
//  4. the test script: "vitest" or "jest" in scripts.test (one only).
//
// Both or neither at the first rule that finds any is an error naming
// what was found: the gate does not guess.
func nodeRunnerFor(root, selector string) (Runner, error) {
	sel, err := parseNodeSelector(selector)
	if err != nil {
		return nil, err
	}
	dir, err := packageDir(root, sel)
	if err != nil {
		return nil, err
	}
	abs := filepath.Join(root, filepath.FromSlash(dir))
	data, err := os.ReadFile(filepath.Join(abs, "package.json"))
	if err != nil {
		return nil, fmt.Errorf("jest/vitest selector: %w", err)
	}
	var pkg packageJSON
	if err := json.Unmarshal(data, &pkg); err != nil {
		return nil, fmt.Errorf("jest/vitest selector: %s/package.json: %w", dir, err)
	}
	pick := func(jest, vitest bool, what string) (Runner, bool, error) {
		switch {
		case jest && vitest:
			return nil, true, fmt.Errorf("jest/vitest selector: package %s has both jest and vitest %s; the gate does not guess which runs these tests", dir, what)
		case jest:
			return jestRunner{dir: dir}, true, nil
		case vitest:
			return vitestRunner{dir: dir}, true, nil
		}
		return nil, false, nil
	}
	has := func(prefix string) bool {
		for _, ext := range configExts {
			if _, err := os.Stat(filepath.Join(abs, prefix+".config."+ext)); err == nil {
				return true
			}
		}
		return false
	}
	dep := func(name string) bool { return pkg.DevDependencies[name] != "" || pkg.Dependencies[name] != "" }
	script := pkg.Scripts["test"]
	for _, rule := range []struct {
		jest, vitest bool
		what         string
	}{
		{has("jest"), has("vitest"), "config files"},
		{len(pkg.Jest) > 0, false, `"jest" key`},
		{dep("jest"), dep("vitest"), "dependencies"},
		{regexp.MustCompile(`\bjest\b`).MatchString(script), regexp.MustCompile(`\bvitest\b`).MatchString(script), "in scripts.test"},
	} {
		if r, ok, err := pick(rule.jest, rule.vitest, rule.what); ok {
			return r, err
		}
	}
	return nil, fmt.Errorf("jest/vitest selector: package %s names neither jest nor vitest (no jest.config.*/vitest.config.*, no dependency on either)", dir)
}

// nodePlan is the part of a jest/vitest command both share: the parsed
// selector (or the tests of only), the installed binary, a fresh report.
type nodePlan struct {
	Files   []string // relative to the package directory
	Pattern string
	Bin     string // relative to the package directory
	Report  string // the report's file name, in the package directory
}

func planNode(ws *sandbox.Workspace, name, dir, selector string, only []TestID) (nodePlan, error) {
	sel, err := parseNodeSelector(selector)
	if err != nil {
		return nodePlan{}, err
	}
	if d, err := packageDir(ws.Dir, sel); err != nil {
		return nodePlan{}, err
	} else if d != dir {
		return nodePlan{}, fmt.Errorf("%s selector: package %s, not %s", name, d, dir)
	}
	if len(only) > 0 {
		// Exactly these tests: their files, their full names anchored.
		sel = nodeSelector{}
		var names []string
		for _, t := range only {
			sel.Files = append(sel.Files, t.Package)
			names = append(names, regexp.QuoteMeta(t.Name))
		}
		slices.Sort(names)
		sel.Pattern = "^(" + strings.Join(slices.Compact(names), "|") + ")$"
	}
	p := nodePlan{Pattern: sel.Pattern, Bin: "node_modules/.bin/" + name, Report: ".cairn-" + name + ".json"}
	abs := filepath.Join(ws.Dir, filepath.FromSlash(dir))
	slices.Sort(sel.Files)
	for _, f := range slices.Compact(sel.Files) {
		if _, err := os.Stat(filepath.Join(ws.Dir, filepath.FromSlash(f))); err != nil {
			return nodePlan{}, fmt.Errorf("%s selector: test file %s is not in the workspace", name, f)
		}
		rel := f
		if dir != "." {
			rel = strings.TrimPrefix(f, dir+"/")
		}
		p.Files = append(p.Files, rel)
	}
	if _, err := os.Stat(filepath.Join(abs, filepath.FromSlash(p.Bin))); err != nil {
		return nodePlan{}, fmt.Errorf("%s is not installed in %s: %s is missing", name, dir, path.Join(dir, p.Bin))
	}
	if err := os.Remove(filepath.Join(abs, p.Report)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nodePlan{}, err
	}
	return p, nil
}

// nodeEnv keeps the runners' output plain and non-interactive. V8 reserves
// 10 GiB of address space for each WebAssembly memory unless its trap
// handler is off, which the sandbox's address-space limit (8 GiB by
// default) refuses: vitest (es-module-lexer's wasm) died with "Cannot
// allocate Wasm memory" before this flag (Node ≥ 20.15).
var nodeEnv = []string{"CI=true", "NO_COLOR=1", "FORCE_COLOR=0", "NODE_OPTIONS=--disable-wasm-trap-handler"}

// prepareNode installs a package's dependencies for its runner (see
// sandbox.PrepareNode), once per workspace.
func prepareNode(ctx context.Context, ws *sandbox.Workspace, dir, cache string) error {
	return sandbox.PrepareNode(ctx, ws, dir, filepath.Join(cache, "node"))
}

// jestReport is jest's --json report, which vitest's json reporter writes
// too. Statuses: passed, failed, pending (skipped), todo, skipped and
// disabled (vitest), focused (a file's status when .only left tests out).
type jestReport struct {
	TestResults []struct {
		Name             string `json:"name"` // the file's absolute path
		Status           string `json:"status"`
		Message          string `json:"message"`
		AssertionResults []struct {
			AncestorTitles  []string `json:"ancestorTitles"`
			Title           string   `json:"title"`
			FullName        string   `json:"fullName"`
			Status          string   `json:"status"`
			Duration        *float64 `json:"duration"` // milliseconds; null when it did not run
			FailureMessages []string `json:"failureMessages"`
		} `json:"assertionResults"`
	} `json:"testResults"`
}

// fileFailure names the failure of a test file outside its tests.
const fileFailure = "(the file failed outside its tests)"

// ansi matches the terminal escapes a runner may put in its messages.
var ansi = regexp.MustCompile("\x1b\\[[0-9;]*[A-Za-z]")

// parseNodeReport reads the report a jest/vitest command wrote. A test is
// named by its file (relative to the repository root) and its full name
// (describe titles and title joined by spaces: what -t matches). A file
// that failed with no test in it did not load (a syntax or import error):
// a build failure; one that failed with none of its tests failing failed
// in a hook, a failing test named fileFailure. With a -t pattern, tests it deselected are left out, as
// go test -run leaves them out (both runners report them as skipped);
// fold is jest's case-insensitive match. A pattern that is an anchored
// list of literal names (what reruns write) makes those names Expected.
func parseNodeReport(ws *sandbox.Workspace, name, dir string, res *sandbox.Result, pattern string, fold bool) (*Run, error) {
	abs := filepath.Join(ws.Dir, filepath.FromSlash(dir))
	data, err := os.ReadFile(filepath.Join(abs, ".cairn-"+name+".json"))
	if err != nil {
		// No report: the runner died before it wrote one (a broken config,
		// a missing module, a kill): no test can be read, as a Go package
		// that does not build.
		return &Run{BuildFailed: []string{fmt.Sprintf("(%s wrote no report; exit %d)", name, res.ExitCode)}}, nil
	}
	var rep jestReport
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, fmt.Errorf("%s report: %w", name, err)
	}
	var keep *regexp.Regexp
	if pattern != "" {
		if fold {
			pattern = "(?i)" + pattern
		}
		keep, _ = regexp.Compile(pattern) // a JS-only pattern keeps every test
	}
	run := &Run{Expected: literalNames(pattern)}
	for _, f := range rep.TestResults {
		file := f.Name
		if rel, err := filepath.Rel(ws.Dir, f.Name); err == nil && !strings.HasPrefix(rel, "..") {
			file = filepath.ToSlash(rel)
		}
		if len(f.AssertionResults) == 0 && f.Status == "failed" {
			run.BuildFailed = append(run.BuildFailed, file)
			continue
		}
		failed := false
		for _, a := range f.AssertionResults {
			failed = failed || a.Status == "failed"
			full := a.FullName
			if full == "" {
				full = strings.Join(append(slices.Clone(a.AncestorTitles), a.Title), " ")
			}
			if keep != nil && !keep.MatchString(full) {
				continue
			}
			t := TestResult{Package: file, Name: full, Outcome: nodeOutcome(a.Status)}
			if a.Duration != nil {
				t.Elapsed = *a.Duration / 1000
			}
			if t.Outcome != OutcomePass {
				t.Output = excerpt(failureText(a.FailureMessages), 2<<10)
			}
			run.Tests = append(run.Tests, t)
		}
		if f.Status == "failed" && !failed {
			// The file failed outside its tests (a beforeAll or afterAll
			// hook threw): a failure of its own, never a pass.
			run.Tests = append(run.Tests, TestResult{Package: file, Name: fileFailure, Outcome: OutcomeFail,
				Output: excerpt(failureText([]string{f.Message}), 2<<10)})
		}
	}
	slices.Sort(run.BuildFailed)
	return run, nil
}

// failureText is a test's failure messages without terminal escapes and
// without the stack frames inside node_modules (the runner's own).
func failureText(msgs []string) string {
	var b strings.Builder
	for _, line := range strings.Split(ansi.ReplaceAllString(strings.Join(msgs, "\n"), ""), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "at ") && strings.Contains(line, "/node_modules/") {
			continue
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func nodeOutcome(status string) Outcome {
	switch status {
	case "passed":
		return OutcomePass
	case "failed":
		return OutcomeFail
	case "pending", "skipped", "todo", "disabled":
		return OutcomeSkip
	}
	return OutcomeNotRun
}

// literalNames are the names an anchored alternation of escaped literals
// selects exactly: ^(a|b\.c)$ → a, b.c; nil for any other pattern.
func literalNames(pattern string) []string {
	pattern = strings.TrimPrefix(pattern, "(?i)")
	body, ok := strings.CutPrefix(pattern, "^(")
	if !ok {
		return nil
	}
	if body, ok = strings.CutSuffix(body, ")$"); !ok {
		return nil
	}
	var names []string
	var cur strings.Builder
	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case c == '\\' && i+1 < len(body):
			i++
			cur.WriteByte(body[i])
		case c == '|':
			names = append(names, cur.String())
			cur.Reset()
		case strings.IndexByte(`.+*?()[]{}^$`, c) >= 0:
			return nil // a regular expression, not a list of names
		default:
			cur.WriteByte(c)
		}
	}
	return append(names, cur.String())
}

// argValue is the value of flag in argv ("flag V" or "flag=V").
func argValue(argv []string, flag string) string {
	for i, a := range argv {
		if a == flag && i+1 < len(argv) {
			return argv[i+1]
		}
		if v, ok := strings.CutPrefix(a, flag+"="); ok {
			return v
		}
	}
	return ""
}
