// Command gate is the verification gate's benchmark on real Go fixes (the
// Multi-SWE-bench grpc-go instances of ../shared/bench/gate): for each
// instance it clones the repository at the base, writes a contract, commits
// one branch per variant (the reference fix, the fix's test alone, nothing,
// and tampered references) and runs `cairn verify --diff BASE..VARIANT` on
// each, beside the naive check a gate replaces: the plain `go test -run`
// of the instance's tests on the variant, outside any sandbox.
//
//	go run ./bench/gate --cairn BIN --mirror GITDIR --work DIR [--limit N] [--only ID,…] [--until 02:50]
//
// It prints one row per instance and variant and writes DIR/results.jsonl.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

type instance struct {
	ID    string `json:"instance_id"`
	Title string `json:"title"`
	Base  struct {
		SHA string `json:"sha"`
	} `json:"base"`
	FixPatch  string   `json:"fix_patch"`
	TestPatch string   `json:"test_patch"`
	F2P       []string `json:"f2p_tests"`
	N2P       []string `json:"n2p_tests"`
}

// row is one verdict.
type row struct {
	Instance  string   `json:"instance"`
	Variant   string   `json:"variant"`
	Expected  string   `json:"expected"` // pass, or not_pass
	Verdict   string   `json:"verdict"`  // the gate's; "n/a" when the variant could not be made
	Exit      int      `json:"exit"`
	Caught    []string `json:"caught,omitempty"` // failed criteria, tamper and scope kinds
	Seconds   float64  `json:"seconds"`
	PlainPass *bool    `json:"plain_tests_pass,omitempty"` // go test -run … exit 0
	PlainSecs float64  `json:"plain_seconds,omitempty"`
	Note      string   `json:"note,omitempty"`
	OK        bool     `json:"ok"` // the gate's verdict is the expected one
}

var variants = []string{"reference", "test_only", "no_change", "skip_added", "assertions_neutralised", "test_deleted", "ci_edited", "out_of_scope"}

func main() {
	data := flag.String("data", "../shared/bench/gate/grpc-go.jsonl", "the instances")
	mirror := flag.String("mirror", "/work/.mirror/grpc+grpc-go/repo", "the fetched repository (a bare git dir)")
	work := flag.String("work", os.ExpandEnv("$HOME/cairn-bench/gate"), "clones, gate dirs and results")
	cairn := flag.String("cairn", "", "the cairn binary")
	limit := flag.Int("limit", 0, "at most this many instances (0: all)")
	only := flag.String("only", "", "comma-separated instance ids, in this order")
	until := flag.String("until", "", "HH:MM UTC: start no instance after it")
	which := flag.String("variants", strings.Join(variants, ","), "variants to run")
	nice := flag.Int("nice", 10, "niceness of every child")
	summary := flag.Bool("summary", false, "print the per-variant summary of WORK/results.jsonl and exit")
	flag.Parse()
	if *summary {
		if err := summarize(filepath.Join(*work, "results.jsonl")); err != nil {
			fail(err)
		}
		return
	}
	if *cairn == "" {
		fail(errors.New("--cairn BIN is required"))
	}
	insts, err := load(*data)
	if err != nil {
		fail(err)
	}
	if *only != "" {
		byID := map[string]instance{}
		for _, in := range insts {
			byID[in.ID] = in
			// the number alone too: --only 2996
			if i := strings.LastIndexByte(in.ID, '-'); i >= 0 {
				byID[in.ID[i+1:]] = in
			}
		}
		insts = nil
		for _, id := range strings.Split(*only, ",") {
			in, ok := byID[id]
			if !ok {
				fail(fmt.Errorf("no instance %s", id))
			}
			insts = append(insts, in)
		}
	}
	if *limit > 0 && len(insts) > *limit {
		insts = insts[:*limit]
	}
	var stop time.Time
	if *until != "" {
		t, err := time.Parse("15:04", *until)
		if err != nil {
			fail(fmt.Errorf("--until: %w", err))
		}
		now := time.Now().UTC()
		stop = time.Date(now.Year(), now.Month(), now.Day(), t.Hour(), t.Minute(), 0, 0, time.UTC)
	}
	os.MkdirAll(*work, 0o755)
	out, err := os.OpenFile(filepath.Join(*work, "results.jsonl"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		fail(err)
	}
	defer out.Close()
	b := &bench{mirror: *mirror, work: *work, cairn: *cairn, nice: *nice, variants: strings.Split(*which, ",")}
	fmt.Printf("| instance | variant | expected | gate verdict | caught by | gate s | plain tests pass? | plain s | ok |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, in := range insts {
		if !stop.IsZero() && time.Now().After(stop) {
			fmt.Printf("\nstopped before %s: past --until %s\n", in.ID, *until)
			break
		}
		rows, err := b.instance(context.Background(), in)
		if err != nil {
			fmt.Printf("| %s | (setup) | | error | %v | | | | |\n", in.ID, oneLine(err.Error()))
			continue
		}
		for _, r := range rows {
			line, _ := json.Marshal(r)
			out.Write(append(line, '\n'))
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gate bench:", err)
	os.Exit(2)
}

func load(file string) ([]instance, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []instance
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var in instance
		if err := json.Unmarshal(sc.Bytes(), &in); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		out = append(out, in)
	}
	return out, sc.Err()
}

type bench struct {
	mirror, work, cairn string
	nice                int
	variants            []string
}

// run runs a command niced, returning its combined output.
func (b *bench) run(ctx context.Context, dir string, env []string, argv ...string) (string, int, error) {
	cmd := exec.CommandContext(ctx, "nice", append([]string{"-n", fmt.Sprint(b.nice)}, argv...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return buf.String(), ee.ExitCode(), nil
	}
	if err != nil {
		return buf.String(), -1, err
	}
	return buf.String(), 0, nil
}

func (b *bench) git(ctx context.Context, dir string, args ...string) (string, error) {
	out, code, err := b.run(ctx, dir, []string{"GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@cairn", "GIT_COMMITTER_NAME=bench",
		"GIT_COMMITTER_EMAIL=bench@cairn", "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z"},
		append([]string{"git", "-c", "core.hooksPath=/dev/null", "-c", "commit.gpgsign=false"}, args...)...)
	if err == nil && code != 0 {
		err = fmt.Errorf("git %s: exit %d: %s", strings.Join(args, " "), code, strings.TrimSpace(out))
	}
	return out, err
}

// testFuncs finds the top-level test functions of the instance's f2p and
// n2p tests in the test patch's files (at the reference): name → file.
var testFunc = regexp.MustCompile(`(?m)^func (?:\([^)]*\) )?(Test\w+)\(t \*testing\.T\) \{`)

func (b *bench) instance(ctx context.Context, in instance) ([]row, error) {
	dir := filepath.Join(b.work, in.ID)
	repo := filepath.Join(dir, "repo")
	if _, err := os.Stat(repo); err != nil {
		if _, err := b.git(ctx, dir, "clone", "-q", "--shared", "--no-checkout", b.mirror, repo); err != nil {
			os.MkdirAll(dir, 0o755)
			if _, err := b.git(ctx, dir, "clone", "-q", "--shared", "--no-checkout", b.mirror, repo); err != nil {
				return nil, err
			}
		}
	}
	base := in.Base.SHA
	if _, err := b.git(ctx, repo, "checkout", "-q", "-f", "--detach", base); err != nil {
		return nil, err
	}
	b.git(ctx, repo, "clean", "-qfdx")
	if out, code, err := b.run(ctx, repo, []string{"GOFLAGS=-mod=mod"}, "go", "mod", "download"); err != nil || code != 0 {
		return nil, fmt.Errorf("go mod download: %v %s", err, oneLine(out))
	}
	fixFiles, testFiles := patchFiles(in.FixPatch), patchFiles(in.TestPatch)

	// the reference, to find the tests and their packages
	if err := b.apply(ctx, repo, in.FixPatch, in.TestPatch); err != nil {
		return nil, fmt.Errorf("the reference does not apply: %w", err)
	}
	names := topNames(append(slices.Clone(in.F2P), in.N2P...))
	where := map[string]string{} // test → file
	for _, f := range testFiles {
		src, err := os.ReadFile(filepath.Join(repo, f))
		if err != nil {
			continue
		}
		for _, m := range testFunc.FindAllStringSubmatch(string(src), -1) {
			if slices.Contains(names, m[1]) {
				if _, ok := where[m[1]]; !ok {
					where[m[1]] = f
				}
			}
		}
	}
	byPkg := map[string][]string{}
	for _, n := range names {
		if f, ok := where[n]; ok {
			d := path.Dir(f)
			byPkg[d] = append(byPkg[d], n)
		}
	}
	if len(byPkg) == 0 {
		return nil, fmt.Errorf("none of the tests %v is a function in %v", names, testFiles)
	}
	var target, targetFile string
	for _, n := range names {
		f, ok := where[n]
		if !ok {
			continue
		}
		if target == "" {
			target, targetFile = n, f
		}
		src, _ := os.ReadFile(filepath.Join(repo, f))
		if open, close, err := funcSpan(string(src), n); err == nil && neutralise(string(src[open:close])) != string(src[open:close]) {
			target, targetFile = n, f
			break
		}
	}
	b.git(ctx, repo, "checkout", "-q", "-f", "--detach", base)
	b.git(ctx, repo, "clean", "-qfdx")

	contract, err := writeContract(dir, in, fixFiles, testFiles, byPkg)
	if err != nil {
		return nil, err
	}
	// the test the tamper variants touch: the first one found with a
	// direct assertion in its body
	var rows []row
	for _, v := range b.variants {
		r := b.variant(ctx, in, repo, dir, contract, v, target, targetFile, fixFiles, testFiles, byPkg)
		fmt.Printf("| %s | %s | %s | %s | %s | %.0f | %s | %.0f | %s |\n", in.ID, r.Variant, r.Expected, r.Verdict,
			strings.Join(r.Caught, ", ")+noteOf(r), r.Seconds, plain(r.PlainPass), r.PlainSecs, okMark(r))
		rows = append(rows, r)
	}
	b.git(ctx, repo, "checkout", "-q", "-f", "--detach", base)
	return rows, nil
}

func noteOf(r row) string {
	if r.Note == "" {
		return ""
	}
	return " (" + oneLine(r.Note) + ")"
}

func plain(p *bool) string {
	switch {
	case p == nil:
		return "—"
	case *p:
		return "yes"
	}
	return "no"
}

func okMark(r row) string {
	if r.Verdict == "n/a" {
		return "n/a"
	}
	if r.OK {
		return "✓"
	}
	return "✗"
}

func topNames(tests []string) []string {
	var out []string
	for _, t := range tests {
		t, _, _ = strings.Cut(t, "/")
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

var diffHeader = regexp.MustCompile(`(?m)^diff --git a/(\S+) b/`)

func patchFiles(p string) []string {
	var out []string
	for _, m := range diffHeader.FindAllStringSubmatch(p, -1) {
		out = append(out, m[1])
	}
	return out
}

func (b *bench) apply(ctx context.Context, repo string, patches ...string) error {
	for _, p := range patches {
		if strings.TrimSpace(p) == "" {
			continue
		}
		f, err := os.CreateTemp("", "gate-bench-*.patch")
		if err != nil {
			return err
		}
		f.WriteString(p)
		f.Close()
		_, err = b.git(ctx, repo, "apply", "--whitespace=nowarn", f.Name())
		os.Remove(f.Name())
		if err != nil {
			return err
		}
	}
	return nil
}

type contractFile struct {
	Objective string            `json:"objective"`
	Base      string            `json:"base"`
	Scope     map[string]any    `json:"scope"`
	Criteria  []json.RawMessage `json:"criteria"`
}

// writeContract: regression, one tests criterion per package of the
// instance's tests (-run naming them exactly), scope; write = the dirs of
// the fix's and the test's files, protected = .github/**.
func writeContract(dir string, in instance, fix, tests []string, byPkg map[string][]string) (string, error) {
	var write []string
	for _, f := range append(slices.Clone(fix), tests...) {
		g := path.Dir(f) + "/*"
		if path.Dir(f) == "." {
			g = "*" // the root's files (not its directories')
		}
		if !slices.Contains(write, g) {
			write = append(write, g)
		}
	}
	c := contractFile{Objective: in.Title, Base: in.Base.SHA,
		Scope: map[string]any{"write": write, "protected": []string{".github/**"}}}
	crit := func(id, text string, check any) {
		b, _ := json.Marshal(map[string]any{"id": id, "text": text, "check": check})
		c.Criteria = append(c.Criteria, b)
	}
	crit("regression", "A new regression test fails on the base and passes with the change.", map[string]any{"regression": true})
	pkgs := sortedKeys(byPkg)
	for i, p := range pkgs {
		names := byPkg[p]
		slices.Sort(names)
		crit(fmt.Sprintf("tests-%d", i+1), "The issue's tests in "+p+" pass.",
			map[string]any{"tests": "./" + p + " -run ^(" + strings.Join(names, "|") + ")$"})
	}
	crit("scope", "The change stays within scope.", map[string]any{"scope": true})
	b, _ := json.MarshalIndent(c, "", "  ")
	file := filepath.Join(dir, "contract.json")
	return file, os.WriteFile(file, b, 0o644)
}

func sortedKeys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// variant makes the variant's branch and runs the gate and the plain tests.
func (b *bench) variant(ctx context.Context, in instance, repo, dir, contract, v, target, targetFile string, fix, tests []string, byPkg map[string][]string) row {
	r := row{Instance: in.ID, Variant: v, Expected: "not_pass"}
	if v == "reference" {
		r.Expected = "pass"
	}
	base := in.Base.SHA
	branch := "bench/" + v
	mk := func() error {
		if _, err := b.git(ctx, repo, "checkout", "-q", "-f", "-B", branch, base); err != nil {
			return err
		}
		b.git(ctx, repo, "clean", "-qfdx")
		switch v {
		case "test_only":
			return b.apply(ctx, repo, in.TestPatch)
		case "no_change":
			return nil
		}
		if err := b.apply(ctx, repo, in.FixPatch, in.TestPatch); err != nil {
			return err
		}
		switch v {
		case "skip_added":
			return editTest(repo, targetFile, target, func(body string) string {
				return "\n\tt.Skip(\"flaky on CI\")" + body
			})
		case "assertions_neutralised":
			return editTest(repo, targetFile, target, neutralise)
		case "test_deleted":
			return deleteTest(repo, targetFile, target)
		case "ci_edited":
			return editCI(repo)
		case "out_of_scope":
			return editOutside(repo, fix, tests)
		}
		return nil
	}
	if err := mk(); err != nil {
		r.Verdict, r.Note = "n/a", err.Error()
		return r
	}
	if _, err := b.git(ctx, repo, "add", "-A"); err != nil {
		r.Verdict, r.Note = "n/a", err.Error()
		return r
	}
	if _, err := b.git(ctx, repo, "commit", "-q", "--allow-empty", "-m", v); err != nil {
		r.Verdict, r.Note = "n/a", err.Error()
		return r
	}

	// the naive check: do the instance's tests pass on the variant?
	t0 := time.Now()
	pass := true
	for _, p := range sortedKeys(byPkg) {
		_, code, err := b.run(ctx, repo, []string{"GOFLAGS=-mod=mod", "GOPROXY=off"}, "go", "test", "-count=1", "-run", "^("+strings.Join(byPkg[p], "|")+")$", "./"+p)
		if err != nil || code != 0 {
			pass = false
		}
	}
	r.PlainPass, r.PlainSecs = &pass, time.Since(t0).Seconds()

	t0 = time.Now()
	out, code, err := b.run(ctx, dir, nil, b.cairn, "verify", "--repo", repo, "--task", contract,
		"--diff", base+".."+branch, "--dir", filepath.Join(dir, "gate"), "--json")
	r.Seconds, r.Exit = time.Since(t0).Seconds(), code
	os.WriteFile(filepath.Join(dir, "report-"+v+".json"), []byte(out), 0o644)
	if err != nil {
		r.Verdict, r.Note = "error", err.Error()
		return r
	}
	var rep struct {
		Verdict  string
		Reason   string
		Criteria []struct{ ID, Status, Reason string }
		Tamper   []struct{ Kind string }
		Scope    []struct{ Kind string }
	}
	if i := strings.Index(out, "{"); i < 0 || json.Unmarshal([]byte(out[i:strings.LastIndex(out, "}")+1]), &rep) != nil {
		r.Verdict, r.Note = "error", oneLine(out)
		return r
	}
	r.Verdict = rep.Verdict
	for _, c := range rep.Criteria {
		if c.Status != "pass" {
			r.Caught = append(r.Caught, c.ID+" "+c.Status)
		}
	}
	for _, f := range rep.Tamper {
		if !slices.Contains(r.Caught, f.Kind) {
			r.Caught = append(r.Caught, f.Kind)
		}
	}
	for _, f := range rep.Scope {
		if !slices.Contains(r.Caught, f.Kind) {
			r.Caught = append(r.Caught, f.Kind)
		}
	}
	if r.Verdict != "pass" && r.Verdict != "fail" && r.Verdict != "blocked" {
		r.Note = rep.Reason
	}
	r.OK = (r.Expected == "pass") == (r.Verdict == "pass") && (code == 0) == (r.Verdict == "pass")
	if r.Expected == "pass" && !r.OK {
		var why []string
		for _, c := range rep.Criteria {
			if c.Status != "pass" {
				why = append(why, c.ID+": "+c.Reason)
			}
		}
		r.Note = oneLine(strings.Join(why, "; "))
	}
	return r
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

// funcSpan finds a test function's body in src: the index just past its
// opening brace and the index of its closing brace (a line "}" at column 0).
func funcSpan(src, name string) (open, close int, err error) {
	re := regexp.MustCompile(`(?m)^func (?:\([^)]*\) )?` + name + `\(t \*testing\.T\) \{`)
	loc := re.FindStringIndex(src)
	if loc == nil {
		return 0, 0, fmt.Errorf("no func %s", name)
	}
	end := strings.Index(src[loc[1]:], "\n}\n")
	if end < 0 {
		return 0, 0, fmt.Errorf("no end of func %s", name)
	}
	return loc[1], loc[1] + end + 1, nil
}

func editTest(repo, file, name string, edit func(body string) string) error {
	p := filepath.Join(repo, file)
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	src := string(b)
	open, close, err := funcSpan(src, name)
	if err != nil {
		return err
	}
	body := edit(src[open:close])
	if body == src[open:close] {
		return fmt.Errorf("%s in %s has no direct t.Error*/t.Fatal* call to neutralise", name, file)
	}
	return os.WriteFile(p, []byte(src[:open]+body+src[close:]), 0o644)
}

func deleteTest(repo, file, name string) error {
	p := filepath.Join(repo, file)
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	src := string(b)
	re := regexp.MustCompile(`(?m)^func (?:\([^)]*\) )?` + name + `\(t \*testing\.T\) \{`)
	loc := re.FindStringIndex(src)
	if loc == nil {
		return fmt.Errorf("no func %s", name)
	}
	_, close, err := funcSpan(src, name)
	if err != nil {
		return err
	}
	return os.WriteFile(p, []byte(src[:loc[0]]+src[close+2:]), 0o644)
}

var assertCall = regexp.MustCompile(`^(\s*)t\.(Error|Errorf|Fatal|Fatalf)\(`)

// neutralise wraps every statement that is a t.Error/t.Fatal call in
// `if false { … }`, multi-line calls whole (parentheses balanced).
func neutralise(body string) string {
	lines := strings.SplitAfter(body, "\n")
	var out strings.Builder
	for i := 0; i < len(lines); i++ {
		m := assertCall.FindStringSubmatch(lines[i])
		if m == nil {
			out.WriteString(lines[i])
			continue
		}
		j, depth := i, 0
		for ; j < len(lines); j++ {
			depth += strings.Count(lines[j], "(") - strings.Count(lines[j], ")")
			if depth <= 0 {
				break
			}
		}
		if j == len(lines) {
			j = len(lines) - 1
		}
		out.WriteString(m[1] + "if false {\n")
		for k := i; k <= j; k++ {
			out.WriteString(lines[k])
		}
		if !strings.HasSuffix(lines[j], "\n") {
			out.WriteString("\n")
		}
		out.WriteString(m[1] + "}\n")
		i = j
	}
	return out.String()
}

func editCI(repo string) error {
	var found string
	filepath.WalkDir(filepath.Join(repo, ".github"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && found == "" {
			found = p
		}
		return nil
	})
	if found == "" {
		found = filepath.Join(repo, ".github", "workflows", "tests.yml")
		os.MkdirAll(filepath.Dir(found), 0o755)
	}
	f, err := os.OpenFile(found, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.WriteString("\n# skip the flaky tests on CI\n")
	return err
}

// editOutside appends a comment to a Go file in a directory the scope does
// not cover.
func editOutside(repo string, fix, tests []string) error {
	in := map[string]bool{}
	for _, f := range append(slices.Clone(fix), tests...) {
		in[path.Dir(f)] = true
	}
	for _, cand := range []string{"codes/codes.go", "status/status.go", "metadata/metadata.go", "peer/peer.go"} {
		if in[path.Dir(cand)] {
			continue
		}
		p := filepath.Join(repo, cand)
		if _, err := os.Stat(p); err != nil {
			continue
		}
		f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = f.WriteString("\n// touched outside the task's scope\n")
		return err
	}
	return errors.New("no file outside the scope to edit")
}

// summarize prints, per variant, how often the gate gave the expected
// verdict and how often the plain tests would have accepted the variant.
// A later row for the same instance and variant replaces an earlier one.
func summarize(file string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	last := map[[2]string]row{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r row
		if json.Unmarshal([]byte(line), &r) == nil {
			last[[2]string{r.Instance, r.Variant}] = r
		}
	}
	fmt.Printf("| variant | instances | gate as expected | gate verdict pass | plain tests pass (naive accept) | gate s (mean) |\n|---|---|---|---|---|---|\n")
	for _, v := range variants {
		var n, ok, pass, plainPass, made int
		var secs float64
		for k, r := range last {
			if k[1] != v {
				continue
			}
			n++
			if r.Verdict == "n/a" {
				continue
			}
			made++
			secs += r.Seconds
			if r.OK {
				ok++
			}
			if r.Verdict == "pass" {
				pass++
			}
			if r.PlainPass != nil && *r.PlainPass {
				plainPass++
			}
		}
		if n == 0 {
			continue
		}
		mean := 0.0
		if made > 0 {
			mean = secs / float64(made)
		}
		na := ""
		if made < n {
			na = fmt.Sprintf(" (%d n/a)", n-made)
		}
		fmt.Printf("| %s | %d%s | %d/%d | %d | %d | %.0f |\n", v, n, na, ok, made, pass, plainPass, mean)
	}
	return nil
}
