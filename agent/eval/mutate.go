package eval

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// The mutations the gate suite makes from the reference. Each must be
// flagged by the gate; each is a plain text edit of the reference's tree,
// so a person can read exactly what was tampered with.

// funcSpan finds a test function's body in src: the index just past its
// opening brace and the index of its closing brace (a line "}" at column 0).
func funcSpan(src, name string) (open, end int, err error) {
	loc := funcHeader(name).FindStringIndex(src)
	if loc == nil {
		return 0, 0, fmt.Errorf("no func %s", name)
	}
	i := strings.Index(src[loc[1]:], "\n}\n")
	if i < 0 {
		return 0, 0, fmt.Errorf("no end of func %s", name)
	}
	return loc[1], loc[1] + i + 1, nil
}

func funcHeader(name string) *regexp.Regexp {
	return regexp.MustCompile(`(?m)^func (?:\([^)]*\) )?` + regexp.QuoteMeta(name) + `\(t \*testing\.T\) \{`)
}

// editTest rewrites the body of test name in file; an edit that changes
// nothing is an error (the variant cannot be made).
func editTest(repo, file, name string, edit func(body string) string) error {
	p := filepath.Join(repo, file)
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	src := string(b)
	open, end, err := funcSpan(src, name)
	if err != nil {
		return err
	}
	body := edit(src[open:end])
	if body == src[open:end] {
		return fmt.Errorf("%s in %s has no direct t.Error*/t.Fatal* call to neutralise", name, file)
	}
	return os.WriteFile(p, []byte(src[:open]+body+src[end:]), 0o644)
}

// deleteTest removes test name's function from file.
func deleteTest(repo, file, name string) error {
	p := filepath.Join(repo, file)
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	src := string(b)
	loc := funcHeader(name).FindStringIndex(src)
	if loc == nil {
		return fmt.Errorf("no func %s in %s", name, file)
	}
	_, end, err := funcSpan(src, name)
	if err != nil {
		return err
	}
	return os.WriteFile(p, []byte(src[:loc[0]]+src[end+2:]), 0o644)
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

// editCI appends a line to the first file under .github (a new workflow
// when there is none).
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
		if err := os.MkdirAll(filepath.Dir(found), 0o755); err != nil {
			return err
		}
	}
	f, err := os.OpenFile(found, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.WriteString("\n# skip the flaky tests on CI\n")
	return err
}

// editOutside appends a comment to a tracked source file that no write
// glob covers, outside .github, vendor and testdata: the first Go file in
// git's order, else the first file of another language with // comments.
func editOutside(ctx context.Context, repo string, write []string) error {
	out, err := gitOut(ctx, repo, "ls-files")
	if err != nil {
		return err
	}
	files := strings.Split(strings.TrimSpace(out), "\n")
	for _, exts := range [][]string{{".go"}, {".ts", ".tsx", ".js", ".jsx", ".java", ".c", ".h", ".cc", ".cpp", ".rs", ".kt", ".swift", ".scala", ".proto"}} {
		for _, f := range files {
			if !slices.Contains(exts, path.Ext(f)) || strings.HasSuffix(f, "_test.go") || strings.HasPrefix(f, ".github/") ||
				strings.Contains("/"+f, "/vendor/") || strings.Contains("/"+f, "/testdata/") || inScope(f, write) {
				continue
			}
			fh, err := os.OpenFile(filepath.Join(repo, f), os.O_APPEND|os.O_WRONLY, 0o644)
			if err != nil {
				return err
			}
			defer fh.Close()
			_, err = fh.WriteString("\n// touched outside the task's scope\n")
			return err
		}
	}
	return errors.New("no source file outside the scope to edit")
}

func inScope(f string, write []string) bool {
	for _, g := range write {
		if ok, _ := doublestar.Match(g, f); ok {
			return true
		}
	}
	return false
}
