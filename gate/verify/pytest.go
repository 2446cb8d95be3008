package verify

import (
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/gate/sandbox"
)

// pytestRunner runs pytest with a JUnit XML report.
//
// The selector is pytest's own: node ids (path::Class::test) and paths,
// and -k EXPR; any other flag is refused. The command is python3 -m pytest
// in the workspace root, without its cache, writing the report to
// .cairn-junit.xml there (the workspace is thrown away). Exit codes: 5 (no
// tests collected) leaves every test not_run; 2, 3 and 4 (interrupted,
// internal or usage errors: a collection error included) block, as a Go
// build failure does. Reruns of single tests are not planned yet, so a
// pytest failure is never found flaky, only failing or pre-existing.
type pytestRunner struct{}

const junitFile = ".cairn-junit.xml"

func (pytestRunner) Name() string { return "pytest" }

func (pytestRunner) Plan(ws *sandbox.Workspace, selector string, only []TestID) (sandbox.Command, error) {
	if len(only) > 0 {
		return sandbox.Command{}, errors.New("pytest reruns are not planned yet")
	}
	argv := []string{"python3", "-m", "pytest", "-q", "-p", "no:cacheprovider", "--junitxml=" + junitFile}
	f := strings.Fields(selector)
	for i := 0; i < len(f); i++ {
		switch a := f[i]; {
		case a == "-k" && i+1 < len(f):
			argv = append(argv, "-k", f[i+1])
			i++
		case strings.HasPrefix(a, "-"):
			return sandbox.Command{}, fmt.Errorf("pytest selector: flag %q is not allowed (only -k)", a)
		case strings.HasPrefix(a, "/") || a == ".." || strings.HasPrefix(a, "../"):
			return sandbox.Command{}, fmt.Errorf("pytest selector: %q leaves the repository", a)
		default:
			argv = append(argv, a)
		}
	}
	return sandbox.Command{Argv: argv}, nil
}

// junitSuites is the JUnit XML pytest writes: <testsuites> (pytest ≥ 5.1)
// or a bare <testsuite>, each <testcase> with an optional <failure>,
// <error> or <skipped> (xfail is a skip with type pytest.xfail).
type junitSuites struct {
	Suites []junitSuite `xml:"testsuite"`
	junitSuite
}

type junitSuite struct {
	Cases []junitCase `xml:"testcase"`
}

type junitCase struct {
	Class   string  `xml:"classname,attr"`
	Name    string  `xml:"name,attr"`
	Time    float64 `xml:"time,attr"`
	Failure *struct {
		Message string `xml:"message,attr"`
		Text    string `xml:",chardata"`
	} `xml:"failure"`
	Error *struct {
		Message string `xml:"message,attr"`
		Text    string `xml:",chardata"`
	} `xml:"error"`
	Skipped *struct {
		Message string `xml:"message,attr"`
	} `xml:"skipped"`
}

func (pytestRunner) Parse(ws *sandbox.Workspace, res *sandbox.Result) (*Run, error) {
	run := &Run{}
	switch res.ExitCode {
	case 5:
		return run, nil
	case 2, 3, 4:
		run.BuildFailed = []string{fmt.Sprintf("(pytest exit %d)", res.ExitCode)}
		return run, nil
	}
	data, err := os.ReadFile(filepath.Join(ws.Dir, junitFile))
	if err != nil {
		return nil, fmt.Errorf("pytest wrote no JUnit report: %w", err)
	}
	return parseJUnit(data)
}

func parseJUnit(data []byte) (*Run, error) {
	var doc junitSuites
	if err := xml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("JUnit report: %w", err)
	}
	suites := append(doc.Suites, doc.junitSuite)
	run := &Run{}
	for _, s := range suites {
		for _, c := range s.Cases {
			t := TestResult{Package: c.Class, Name: c.Name, Elapsed: c.Time, Outcome: OutcomePass}
			switch {
			case c.Failure != nil:
				t.Outcome, t.Output = OutcomeFail, excerpt(c.Failure.Message+"\n"+c.Failure.Text, 2<<10)
			case c.Error != nil:
				t.Outcome, t.Output = OutcomeFail, excerpt(c.Error.Message+"\n"+c.Error.Text, 2<<10)
			case c.Skipped != nil:
				t.Outcome, t.Output = OutcomeSkip, c.Skipped.Message
			}
			run.Tests = append(run.Tests, t)
		}
	}
	return run, nil
}
