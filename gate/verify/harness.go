package verify

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/typescript/typescript"

	"github.com/cairn-dev/cairn/gate/sandbox"
	"github.com/cairn-dev/cairn/gate/task"
)

// The test harness is not the change's to rewrite: what decides whether
// tests run and how their outcome reaches the gate — a Go TestMain, init
// functions, os.Exit, output that imitates go test's framing, pytest's
// conftest.py, hooks and configuration, jest's and vitest's configuration
// and setup files, the test targets of a Makefile or package.json — is a
// finding when the change edits it, unless the contract's allow.harness
// names the path. The tests a criterion names are the specification: a
// change to one's body is a finding unless allow.tests names it.

// The kinds of harness findings, which a new test file has as an old
// one does; allow.harness lifts each of them and build_constraint_added.
var harnessKinds = map[string]bool{"harness_changed": true, "exit_added": true, "framing_output": true}

// goHarness is what a Go test file does to the test binary rather than to
// the code under test.
type goHarness struct {
	Main    string   // TestMain, normalized ("" when there is none)
	Inits   []string // init functions, normalized
	Exits   []string // os.Exit, syscall.Exit and unix.Exit calls
	Framing []string // string literals holding go test's framing, but in the T's own calls
	Output  []string // writes to the binary's stdout or stderr in TestMain or init; fd-level writes anywhere
}

// framingText matches a string literal's text (its escapes unread) that
// imitates go test's or test2json's framing: the framing byte test2json
// marks its lines with (0x16, however spelled), a JSON event's "Action"
// key, or a line that starts as the framing lines do (=== RUN, --- PASS:,
// a PASS or FAIL line ending in a line break, ok and FAIL with a
// package). The T's own methods
// (t.Log, t.Errorf, t.Run …) are never framing: go test indents and
// prefixes their output, so they are not counted.
var framingText = regexp.MustCompile(`\\x16|\\026|\\u0016|\\U00000016|\x16|\\?"Action\\?"\s*:|` +
	`(^|\n|\\n)(=== (RUN|PAUSE|CONT|NAME) |--- (PASS|FAIL|SKIP|BENCH): |(PASS|FAIL)(\n|\\n)|ok  |ok\\t|ok\t|FAIL\\t|FAIL\t)`)

// tMethods are the calls of a test's T whose arguments are never framing.
var tMethods = map[string]bool{"Log": true, "Logf": true, "Error": true, "Errorf": true, "Fatal": true, "Fatalf": true,
	"Skip": true, "Skipf": true, "Run": true}

// goImportPaths maps a file's import names to their paths.
func goImportPaths(root *sitter.Node, src []byte) map[string]string {
	out := map[string]string{}
	var walk func(n *sitter.Node)
	walk = func(n *sitter.Node) {
		switch n.Type() {
		case "import_spec":
			p := n.ChildByFieldName("path")
			if p == nil {
				return
			}
			ip := strings.Trim(p.Content(src), "\"`")
			if name := n.ChildByFieldName("name"); name != nil {
				out[name.Content(src)] = ip
				return
			}
			elems := strings.Split(ip, "/")
			last := elems[len(elems)-1]
			if len(elems) > 1 && len(last) > 1 && last[0] == 'v' && strings.Trim(last[1:], "0123456789") == "" {
				last = elems[len(elems)-2]
			}
			if i := strings.Index(last, ".v"); i > 0 {
				last = last[:i]
			}
			out[strings.ReplaceAll(last, "-", "_")] = ip
			return
		case "import_declaration", "import_spec_list":
			for i := 0; i < int(n.NamedChildCount()); i++ {
				walk(n.NamedChild(i))
			}
		}
	}
	for i := 0; i < int(root.NamedChildCount()); i++ {
		if c := root.NamedChild(i); c.Type() == "import_declaration" {
			walk(c)
		}
	}
	return out
}

// goHarnessOf reads a Go test file's exits, framing literals and output
// writes (TestMain and init are read by goTests).
func goHarnessOf(h *goHarness, root *sitter.Node, src []byte, imports map[string]string) {
	pkgCall := func(fn *sitter.Node) (pkg, field string) {
		if fn == nil || fn.Type() != "selector_expression" {
			return "", ""
		}
		op := fn.ChildByFieldName("operand")
		if op == nil || op.Type() != "identifier" {
			return "", ""
		}
		return imports[op.Content(src)], fn.ChildByFieldName("field").Content(src)
	}
	var walk func(n *sitter.Node, harness, inT bool)
	walk = func(n *sitter.Node, harness, inT bool) {
		switch n.Type() {
		case "function_declaration":
			name := n.ChildByFieldName("name").Content(src)
			harness = name == "TestMain" || name == "init"
		case "func_literal":
			inT = false // t.Run's function is the test's own code
		case "interpreted_string_literal", "raw_string_literal":
			if lit := n.Content(src); !inT && len(lit) >= 2 && framingText.MatchString(lit[1:len(lit)-1]) {
				h.Framing = append(h.Framing, lit)
			}
			return
		case "selector_expression":
			if pkg, field := pkgCall(n); harness && pkg == "os" && (field == "Stdout" || field == "Stderr") {
				h.Output = append(h.Output, "os."+field+" in TestMain/init")
			}
		case "call_expression":
			fn := n.ChildByFieldName("function")
			pkg, field := pkgCall(fn)
			text := normalize(n.Content(src))
			switch {
			case field == "Exit" && (pkg == "os" || pkg == "syscall" || pkg == "golang.org/x/sys/unix"):
				h.Exits = append(h.Exits, text)
			case field == "Write" && (pkg == "syscall" || pkg == "golang.org/x/sys/unix"), pkg == "os" && field == "NewFile":
				h.Output = append(h.Output, text)
			case harness && (pkg == "fmt" && strings.HasPrefix(field, "Print") || pkg == "log" && strings.HasPrefix(field, "Print")):
				h.Output = append(h.Output, text)
			case harness && fn != nil && fn.Type() == "identifier" && (fn.Content(src) == "print" || fn.Content(src) == "println"):
				h.Output = append(h.Output, text)
			case fn != nil && fn.Type() == "selector_expression" && pkg == "" && tMethods[field]:
				// t.Log(…), t.Run(name, …): the T's own output
				walk(fn, harness, inT)
				if args := n.ChildByFieldName("arguments"); args != nil {
					walk(args, harness, true)
				}
				return
			}
		}
		for i := 0; i < int(n.NamedChildCount()); i++ {
			walk(n.NamedChild(i), harness, inT)
		}
	}
	walk(root, false, false)
}

// compareGoHarness lists the harness findings between a Go test file at
// the base and in the candidate.
func compareGoHarness(p string, base, cand *testFile) []Finding {
	var out []Finding
	b, c := base.Harness, cand.Harness
	if b.Main != c.Main {
		out = append(out, Finding{Kind: "harness_changed", Path: p, Test: "TestMain", Base: cmpOr(clip(b.Main), "no TestMain"), Candidate: cmpOr(clip(c.Main), "no TestMain")})
	}
	if !slices.Equal(sortedCopy(b.Inits), sortedCopy(c.Inits)) {
		out = append(out, Finding{Kind: "harness_changed", Path: p, Test: "init",
			Base: fmt.Sprintf("%d init functions", len(b.Inits)), Candidate: fmt.Sprintf("%d init functions: %s", len(c.Inits), clip(strings.Join(added(b.Inits, c.Inits), "; ")))})
	}
	if a := added(b.Exits, c.Exits); len(a) > 0 {
		out = append(out, Finding{Kind: "exit_added", Path: p, Base: fmt.Sprintf("%d exit calls", len(b.Exits)), Candidate: clip(strings.Join(a, "; "))})
	}
	if a := added(b.Framing, c.Framing); len(a) > 0 {
		out = append(out, Finding{Kind: "framing_output", Path: p, Base: fmt.Sprintf("%d framing literals", len(b.Framing)),
			Candidate: "go test framing in a string: " + clip(strings.Join(a, "; "))})
	}
	if a := added(b.Output, c.Output); len(a) > 0 {
		out = append(out, Finding{Kind: "framing_output", Path: p, Base: fmt.Sprintf("%d writes", len(b.Output)),
			Candidate: "writes to the test binary's output: " + clip(strings.Join(a, "; "))})
	}
	return out
}

// added is what cand has more of than base, as multisets, in cand's order.
func added(base, cand []string) []string {
	n := map[string]int{}
	for _, s := range base {
		n[s]++
	}
	var out []string
	for _, s := range cand {
		if n[s] > 0 {
			n[s]--
			continue
		}
		out = append(out, s)
	}
	return out
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

// clip shortens evidence to about 240 bytes, at a rune boundary.
func clip(s string) string {
	const max = 240
	if len(s) <= max {
		return s
	}
	i := max
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i] + "…"
}

// ---- harness files ----

// harnessWhole are files whose every change is a harness change.
var harnessWhole = regexp.MustCompile(`^(conftest\.py|pytest\.ini|tox\.ini|(jest|vitest)\.config\.[a-z]+|vitest\.(workspace|projects)\.[a-z]+|\.mocharc(\.[a-z]+)?|karma\.conf\.[a-z]+)$`)

// harnessParts are the parts of a file that make the test harness, by a
// name for the finding; ok is false for a file that has none. Whole files
// are one part named "".
func harnessParts(p string, src []byte) (parts map[string]string, ok bool) {
	base := path.Base(p)
	switch {
	case harnessWhole.MatchString(base):
		return map[string]string{"": string(src)}, true
	case base == "setup.cfg":
		return iniParts(src, func(sec string) bool { return sec == "tool:pytest" || sec == "pytest" }), true
	case base == "pyproject.toml":
		return iniParts(src, func(sec string) bool {
			sec = strings.Trim(sec, "[] ")
			return strings.HasPrefix(sec, "tool.pytest") || strings.Contains(sec, "pytest11")
		}), true
	case base == "package.json":
		return packageJSONParts(src), true
	case base == "Makefile" || base == "makefile" || base == "GNUmakefile" || strings.HasSuffix(base, ".mk"):
		return makeParts(src), true
	case strings.HasPrefix(base, "vite.config."):
		return jsConfigParts(base, src, map[string]bool{"test": true}, false), true
	case strings.HasSuffix(base, ".py"):
		return pyHookParts(src), true
	}
	return nil, false
}

var iniHeader = regexp.MustCompile(`^\s*\[+\s*([^\]]+?)\s*\]+\s*$`)

// iniParts are the sections of an INI or TOML file that want says are the
// test harness's, and any line naming pytest11 (the plugin entry point).
func iniParts(src []byte, want func(section string) bool) map[string]string {
	out := map[string]string{}
	sec := ""
	for _, line := range strings.Split(string(src), "\n") {
		if m := iniHeader.FindStringSubmatch(line); m != nil {
			sec = m[1]
			continue
		}
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, ";") {
			continue
		}
		switch {
		case want(sec):
			out["["+sec+"]"] += t + "\n"
		case strings.Contains(t, "pytest11"):
			out["pytest11"] += t + "\n"
		case sec == "tool" && strings.HasPrefix(t, "pytest"): // [tool] pytest.ini_options = {…}
			out["[tool] pytest"] += t + "\n"
		}
	}
	return out
}

// packageJSONParts: the jest and mocha keys, and every script whose name
// says test (test, pretest, posttest, test:unit …).
func packageJSONParts(src []byte) map[string]string {
	var pkg map[string]json.RawMessage
	if err := json.Unmarshal(src, &pkg); err != nil {
		return map[string]string{"": string(src)} // unreadable: all of it
	}
	out := map[string]string{}
	for _, k := range []string{"jest", "mocha"} {
		if v, ok := pkg[k]; ok {
			out[k] = normalize(string(v))
		}
	}
	var scripts map[string]json.RawMessage
	json.Unmarshal(pkg["scripts"], &scripts)
	for k, v := range scripts {
		if strings.Contains(strings.ToLower(k), "test") {
			out["scripts."+k] = string(v)
		}
	}
	return out
}

var (
	makeRule   = regexp.MustCompile(`^([^\s:=#][^:=#]*?)\s*::?(\s|$|[^=])`)
	makeAssign = regexp.MustCompile(`^\s*(?:export\s+|override\s+)?([A-Za-z0-9_.-]+)\s*(?:\?|:|::|\+|!)?=`)
	makeTest   = regexp.MustCompile(`(?i)test|check`)
)

// makeParts: the rules of a Makefile with a target that says test or check
// (their prerequisites and recipes), and the variables that say test.
func makeParts(src []byte) map[string]string {
	out := map[string]string{}
	cur := ""
	for _, line := range strings.Split(string(src), "\n") {
		if strings.HasPrefix(line, "\t") {
			if cur != "" {
				out[cur] += strings.TrimSpace(line) + "\n"
			}
			continue
		}
		cur = ""
		if m := makeAssign.FindStringSubmatch(line); m != nil {
			if makeTest.MatchString(m[1]) {
				out["variable "+m[1]] += strings.TrimSpace(line) + "\n"
			}
			continue
		}
		if m := makeRule.FindStringSubmatch(line); m != nil {
			for _, target := range strings.Fields(m[1]) {
				if makeTest.MatchString(target) {
					cur = "target " + target
					out[cur] += strings.TrimSpace(line) + "\n"
					break
				}
			}
		}
	}
	return out
}

// jsSetupKeys are the configuration keys of jest and vitest that name
// code the runner loads around the tests.
var jsSetupKeys = map[string]bool{"setupFiles": true, "setupFilesAfterEnv": true, "globalSetup": true, "globalTeardown": true,
	"testEnvironment": true, "environment": true, "reporters": true, "testRunner": true, "runner": true, "snapshotResolver": true,
	"testSequencer": true, "resolver": true, "sequence": true}

// jsConfigParts are the properties of a JS/TS configuration named in keys
// (anywhere in it), by name; with strs, the string literals under them
// instead, each a part named by itself.
func jsConfigParts(name string, src []byte, keys map[string]bool, strs bool) map[string]string {
	lang := javascript.GetLanguage()
	if strings.Contains(name, ".ts") || strings.Contains(name, ".mts") || strings.Contains(name, ".cts") {
		lang = typescript.GetLanguage()
	}
	parser := sitter.NewParser()
	defer parser.Close()
	parser.SetLanguage(lang)
	tree, err := parser.ParseCtx(context.Background(), nil, src)
	if err != nil {
		return map[string]string{"": string(src)}
	}
	defer tree.Close()
	out := map[string]string{}
	var strings_ func(n *sitter.Node)
	strings_ = func(n *sitter.Node) {
		if n.Type() == "string" || n.Type() == "template_string" {
			s := strings.Trim(n.Content(src), "'\"`")
			out[s] = s
			return
		}
		for i := 0; i < int(n.NamedChildCount()); i++ {
			strings_(n.NamedChild(i))
		}
	}
	var walk func(n *sitter.Node)
	walk = func(n *sitter.Node) {
		if n.Type() == "pair" {
			if k := n.ChildByFieldName("key"); k != nil && keys[strings.Trim(k.Content(src), "'\"")] {
				if v := n.ChildByFieldName("value"); v != nil {
					if strs {
						strings_(v)
					} else {
						out[strings.Trim(k.Content(src), "'\"")] += normalize(v.Content(src))
					}
					return
				}
			}
		}
		for i := 0; i < int(n.NamedChildCount()); i++ {
			walk(n.NamedChild(i))
		}
	}
	walk(tree.RootNode())
	return out
}

// pyHookParts: a Python file's pytest hooks (module-level def pytest_…)
// and its pytest_plugins list, by name.
func pyHookParts(src []byte) map[string]string {
	parser := sitter.NewParser()
	defer parser.Close()
	parser.SetLanguage(python.GetLanguage())
	tree, err := parser.ParseCtx(context.Background(), nil, src)
	if err != nil {
		return map[string]string{"": string(src)}
	}
	defer tree.Close()
	out := map[string]string{}
	root := tree.RootNode()
	for i := 0; i < int(root.NamedChildCount()); i++ {
		n := root.NamedChild(i)
		def := n
		if n.Type() == "decorated_definition" {
			def = n.ChildByFieldName("definition")
		}
		switch {
		case def != nil && def.Type() == "function_definition":
			if name := def.ChildByFieldName("name").Content(src); strings.HasPrefix(name, "pytest_") {
				out[name] = normalize(n.Content(src))
			}
		case n.Type() == "expression_statement" && n.NamedChildCount() > 0 && n.NamedChild(0).Type() == "assignment":
			a := n.NamedChild(0)
			if l := a.ChildByFieldName("left"); l != nil && l.Content(src) == "pytest_plugins" {
				out["pytest_plugins"] += normalize(n.Content(src))
			}
		}
	}
	return out
}

var runnerConfig = regexp.MustCompile(`^(jest|vitest|vite)\.config\.[a-z]+$|^package\.json$`)

// setupFiles are the files the jest, vitest and vite configurations in
// dir (at the base and in the candidate) name as setup, environment,
// reporter or runner code, relative to the repository root.
func (g *gate) setupFiles(ctx context.Context, ws *sandbox.Workspace, dir string) map[string]string {
	out := map[string]string{}
	entries, _ := os.ReadDir(filepath.Join(ws.Dir, filepath.FromSlash(dir)))
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !runnerConfig.MatchString(name) {
			continue
		}
		p := path.Join(dir, name)
		var srcs [][]byte
		if b, ok := showBase(ctx, g.opts.Repo, g.base, p); ok {
			srcs = append(srcs, b)
		}
		if c, err := os.ReadFile(filepath.Join(ws.Dir, filepath.FromSlash(p))); err == nil {
			srcs = append(srcs, c)
		}
		for _, src := range srcs {
			var named map[string]string
			if name == "package.json" {
				var pkg struct {
					Jest json.RawMessage `json:"jest"`
				}
				if json.Unmarshal(src, &pkg) != nil || len(pkg.Jest) == 0 {
					continue
				}
				named = jsConfigParts("jest.js", append(append([]byte("("), pkg.Jest...), ')'), jsSetupKeys, true)
			} else {
				named = jsConfigParts(name, src, jsSetupKeys, true)
			}
			for s := range named {
				s = strings.TrimPrefix(s, "<rootDir>/")
				if s == "" || strings.Contains(s, "\n") {
					continue
				}
				out[path.Join(dir, s)] = p
			}
		}
	}
	return out
}

// harnessFindings lists the harness findings of the changed files that
// are not Go test files (those are compared by compareGoHarness): a
// changed harness file or part, and a changed file a runner's
// configuration names as its setup.
func (g *gate) harnessFindings(ctx context.Context, ws *sandbox.Workspace) []Finding {
	var out []Finding
	setup := map[string]string{}
	seenDir := map[string]bool{}
	for _, ch := range g.changed {
		for d := path.Dir(ch.Path); ; d = path.Dir(d) {
			if !seenDir[d] {
				seenDir[d] = true
				for f, cfg := range g.setupFiles(ctx, ws, d) {
					setup[f] = cfg
				}
			}
			if d == "." || d == "/" {
				break
			}
		}
	}
	for _, ch := range g.changed {
		if strings.HasSuffix(ch.Path, "_test.go") {
			continue
		}
		if cfg, ok := setup[ch.Path]; ok {
			out = append(out, Finding{Kind: "harness_changed", Path: ch.Path, Base: "named by " + cfg, Candidate: statusWord(ch.Status)})
			continue
		}
		if _, ok := harnessParts(ch.Path, nil); !ok {
			continue
		}
		var baseSrc, candSrc []byte
		if b, ok := showBase(ctx, g.opts.Repo, g.base, ch.Path); ok && ch.Status != "A" {
			baseSrc = b
		}
		if ch.Status != "D" {
			c, err := os.ReadFile(filepath.Join(ws.Dir, filepath.FromSlash(ch.Path)))
			if err != nil {
				continue // a file the candidate lists but cannot be read: tamper reports test files
			}
			candSrc = c
		}
		out = append(out, harnessFileChange(ch.Path, ch.Status, baseSrc, candSrc)...)
	}
	return out
}

// harnessFileChange lists the harness findings of one changed file that
// is not a Go test file: baseSrc is nil for a file the base has not,
// candSrc for a deleted one.
func harnessFileChange(p, status string, baseSrc, candSrc []byte) []Finding {
	bp, ok := harnessParts(p, baseSrc)
	if !ok {
		return nil
	}
	cp, _ := harnessParts(p, candSrc)
	if status == "D" {
		cp = map[string]string{}
	}
	if baseSrc == nil {
		bp = map[string]string{}
	}
	if harnessWhole.MatchString(path.Base(p)) || bp[""] != "" || cp[""] != "" {
		if bp[""] != cp[""] || status == "D" || baseSrc == nil {
			return []Finding{{Kind: "harness_changed", Path: p, Base: presence(baseSrc != nil), Candidate: statusWord(status)}}
		}
		return nil
	}
	var out []Finding
	keys := map[string]bool{}
	for k := range bp {
		keys[k] = true
	}
	for k := range cp {
		keys[k] = true
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if bp[k] != cp[k] {
			out = append(out, Finding{Kind: "harness_changed", Path: p, Test: k, Base: cmpOr(clip(bp[k]), "absent"), Candidate: cmpOr(clip(cp[k]), "absent")})
		}
	}
	return out
}

func presence(ok bool) string {
	if ok {
		return "present"
	}
	return "absent"
}

func statusWord(s string) string {
	switch s {
	case "A":
		return "added"
	case "D":
		return "deleted"
	}
	return "changed"
}

// ---- specified tests ----

// specified says whether a contract's tests criterion names the test
// name of the test file p: a -run of literal names (^TestA$, ^(A|B)$) for
// the Go test files of its packages, a pytest node id's function for its
// file, a jest/vitest -t pattern for the tests of its files (a list of
// literal names, or the pattern as a regular expression on the full
// title, as the runner matches it).
func specified(c *task.Contract, p, name string) bool {
	for _, cr := range c.Criteria {
		if cr.Check.Kind != task.CheckTests {
			continue
		}
		sel := cr.Check.Selector
		f := strings.Fields(sel)
		if len(f) == 0 {
			continue
		}
		switch {
		case strings.Contains(f[0], "::") || strings.HasSuffix(f[0], ".py"):
			for _, w := range f {
				file, rest, ok := strings.Cut(w, "::")
				if !ok || path.Clean(file) != p {
					continue
				}
				parts := strings.Split(rest, "::")
				last, _, _ := strings.Cut(parts[len(parts)-1], "[")
				if last == name {
					return true
				}
			}
		case isNodeSelector(sel):
			ns, err := parseNodeSelector(sel)
			if err != nil || ns.Pattern == "" || len(ns.Files) > 0 && !slices.Contains(ns.Files, p) {
				continue
			}
			if names := literalNames(ns.Pattern); names != nil {
				if slices.Contains(names, name) {
					return true
				}
			} else if re, err := regexp.Compile(ns.Pattern); err == nil && re.MatchString(name) {
				return true
			}
		default:
			if !strings.HasSuffix(p, "_test.go") || !slices.Contains(namedTests(sel), name) {
				continue
			}
			for i, w := range f {
				if strings.HasPrefix(w, "-") || i > 0 && (f[i-1] == "-run" || f[i-1] == "--run") {
					continue
				}
				if goPatternHas(w, path.Dir(p)) {
					return true
				}
			}
		}
	}
	return false
}

// goPatternHas: the package pattern (./x/..., ./x, ./...) matches dir.
func goPatternHas(pattern, dir string) bool {
	pattern = path.Clean(pattern)
	if rest, ok := strings.CutSuffix(pattern, "/..."); ok {
		return rest == "." || dir == rest || strings.HasPrefix(dir, rest+"/")
	}
	if pattern == "..." {
		return true
	}
	return dir == pattern
}

// specifiedChanged lists the tests a criterion names whose body the
// change edits (deleted and renamed ones are findings of their own).
func specifiedChanged(c *task.Contract, p string, base, cand *testFile) []Finding {
	var out []Finding
	for _, name := range base.Order {
		b := base.Tests[name]
		ct, ok := cand.Tests[name]
		if !ok || ct.Body == b.Body || !specified(c, p, name) {
			continue
		}
		out = append(out, Finding{Kind: "specified_test_changed", Path: p, Test: name,
			Base: "the test a criterion names: " + clip(b.Body), Candidate: clip(ct.Body)})
	}
	return out
}

// allowed: the contract's allow names the finding's path (a harness kind)
// or its test (specified_test_changed).
func allowed(c *task.Contract, f Finding) bool {
	switch {
	case harnessKinds[f.Kind] || f.Kind == "build_constraint_added":
		return matchAny(c.Allow.Harness, f.Path) != ""
	case f.Kind == "specified_test_changed":
		return slices.Contains(c.Allow.Tests, f.Test)
	}
	return false
}
