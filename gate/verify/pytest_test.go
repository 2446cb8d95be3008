package verify

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A report as pytest 7 writes it (pytest is not installed here: the
// runner's command is not exercised, its parser is).
const junitSample = `<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="0" failures="1" skipped="2" tests="4" time="0.05"><testcase classname="tests.test_api" name="test_keeps_artifact" time="0.001" /><testcase classname="tests.test_api" name="test_drops" time="0.002"><failure message="assert None == 'u'">def test_drops():
&gt;       assert f() == 'u'
E       AssertionError</failure></testcase><testcase classname="tests.test_api.TestX" name="test_skip" time="0.000"><skipped type="pytest.skip" message="later">tests/test_api.py:9: later</skipped></testcase><testcase classname="tests.test_api" name="test_xfail" time="0.000"><skipped type="pytest.xfail" message="" /></testcase></testsuite></testsuites>`

func TestParseJUnit(t *testing.T) {
	run, err := parseJUnit([]byte(junitSample))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tr := range run.Tests {
		got = append(got, tr.Package+" "+tr.Name+" "+string(tr.Outcome))
	}
	want := []string{
		"tests.test_api test_keeps_artifact pass",
		"tests.test_api test_drops fail",
		"tests.test_api.TestX test_skip skip",
		"tests.test_api test_xfail skip",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if _, err := parseJUnit([]byte("not xml")); err == nil {
		t.Error("a report that is not XML parsed")
	}
}
