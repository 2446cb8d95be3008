package verify

import (
	"context"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/gate/sandbox"
)

// vitestRunner runs the package's own vitest (node_modules/.bin/vitest,
// never a download) once, with the default reporter for the evidence and
// the JSON one written to .cairn-vitest.json in the package directory:
//
//	node_modules/.bin/vitest run --reporter=default --reporter=json --outputFile.json=.cairn-vitest.json [-t P] [FILE…]
//
// vitest takes files as filters (a path containing the argument), so a
// result from a file the selector did not name is left out. With CI set,
// vitest fails a file that has .only (allowOnly off): a focused test hides
// the rest, and the gate does not pass that. -t is case-sensitive.
type vitestRunner struct {
	dir string // the package directory, relative to the repository root
}

func (vitestRunner) Name() string { return "vitest" }

func (r vitestRunner) Prepare(ctx context.Context, ws *sandbox.Workspace, cache string) error {
	return prepareNode(ctx, ws, r.dir, cache)
}

func (r vitestRunner) Plan(ws *sandbox.Workspace, selector string, only []TestID) (sandbox.Command, error) {
	p, err := planNode(ws, "vitest", r.dir, selector, only)
	if err != nil {
		return sandbox.Command{}, err
	}
	argv := []string{p.Bin, "run", "--reporter=default", "--reporter=json", "--outputFile.json=" + p.Report}
	if p.Pattern != "" {
		argv = append(argv, "-t", p.Pattern)
	}
	argv = append(argv, p.Files...)
	return sandbox.Command{Argv: argv, Dir: r.dir, Env: nodeEnv}, nil
}

func (r vitestRunner) Parse(ws *sandbox.Workspace, res *sandbox.Result) (*Run, error) {
	run, err := parseNodeReport(ws, "vitest", r.dir, res, argValue(res.Argv, "-t"), false)
	if err != nil {
		return nil, err
	}
	files := vitestFiles(res.Argv, r.dir)
	if len(files) == 0 {
		return run, nil
	}
	run.Tests = slices.DeleteFunc(run.Tests, func(t TestResult) bool { _, ok := files[t.Package]; return !ok })
	run.BuildFailed = slices.DeleteFunc(run.BuildFailed, func(f string) bool {
		_, ok := files[f]
		return !ok && !strings.HasPrefix(f, "(")
	})
	return run, nil
}

// vitestFiles are the files a vitest argv names, relative to the
// repository root.
func vitestFiles(argv []string, dir string) map[string]struct{} {
	files := map[string]struct{}{}
	for i := 2; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "-t":
			i++
		case len(a) > 0 && a[0] == '-':
		default:
			if dir != "." {
				a = dir + "/" + a
			}
			files[a] = struct{}{}
		}
	}
	return files
}
