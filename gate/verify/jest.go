package verify

import (
	"context"

	"github.com/cairn-dev/cairn/gate/sandbox"
)

// jestRunner runs the package's own jest (node_modules/.bin/jest, never a
// download) with its JSON report written to .cairn-jest.json in the
// package directory:
//
//	node_modules/.bin/jest --ci --json --outputFile=.cairn-jest.json [-t P] [--runTestsByPath FILE…]
//
// --runTestsByPath makes the files exact paths, not the path patterns jest
// takes by default; --ci writes no snapshot. jest matches -t case-insensitively
// against the full name; reruns pass ^(NAME|…)$ with the names escaped.
// Outcomes are read from the report (parseNodeReport).
type jestRunner struct {
	dir string // the package directory, relative to the repository root
}

func (jestRunner) Name() string { return "jest" }

func (r jestRunner) Prepare(ctx context.Context, ws *sandbox.Workspace, cache string) error {
	return prepareNode(ctx, ws, r.dir, cache)
}

func (r jestRunner) Plan(ws *sandbox.Workspace, selector string, only []TestID) (sandbox.Command, error) {
	p, err := planNode(ws, "jest", r.dir, selector, only)
	if err != nil {
		return sandbox.Command{}, err
	}
	argv := []string{p.Bin, "--ci", "--json", "--outputFile=" + p.Report}
	if p.Pattern != "" {
		argv = append(argv, "-t", p.Pattern)
	}
	if len(p.Files) > 0 {
		argv = append(append(argv, "--runTestsByPath"), p.Files...)
	}
	return sandbox.Command{Argv: argv, Dir: r.dir, Env: nodeEnv}, nil
}

func (r jestRunner) Parse(ws *sandbox.Workspace, res *sandbox.Result) (*Run, error) {
	return parseNodeReport(ws, "jest", r.dir, res, argValue(res.Argv, "-t"), true)
}
