package main

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	ms, err := parse(strings.NewReader("# a comment\n\n## one\nfile: a/b.go\npkg: ./a ./b\nbug: it breaks\n--- find\n\tif x {\n\t\treturn\n--- replace\n--- end\n\n# between\n## two\nfile: c.go\npkg: ./c\nbug: again\n--- find\nx := 1\n--- replace\nx := 2\n--- end\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || ms[0].ID != "one" || ms[0].Find != "\tif x {\n\t\treturn" || ms[0].Replace != "" || len(ms[0].Pkgs) != 2 ||
		ms[1].File != "c.go" || ms[1].Find != "x := 1" || ms[1].Replace != "x := 2" || ms[1].Line != 14 {
		t.Fatalf("parsed %+v", ms)
	}
	for _, bad := range []string{
		"## one\nfile: a.go\npkg: ./a\nbug: b\n--- find\nx\n--- replace\ny\n",                                                // unterminated
		"## one\nfile: a.go\npkg: ./a\n--- find\nx\n--- replace\ny\n--- end\n",                                               // no bug
		"## one\nfile: a.go\npkg: ./a\nbug: b\n--- find\nx\n--- replace\nx\n--- end\n",                                       // no change
		"## one\nfile: a.go\npkg: ./a\nbug: b\n--- find\nx\n--- replace\ny\n--- end\n## one\nfile: a.go\npkg: ./a\nbug: b\n", // repeated id
		"## one\nfile: a.go\npkg: ./a\nbug: b\nsurprise\n",
	} {
		if _, err := parse(strings.NewReader(bad)); err == nil {
			t.Errorf("parse(%q) accepted", bad)
		}
	}
}

func TestFailedBy(t *testing.T) {
	out := "--- FAIL: TestA (0.1s)\n    --- FAIL: TestA/sub (0.0s)\n--- FAIL: TestB (0.2s)\nFAIL\n"
	if got := failedBy(out); got != "TestA, TestB" {
		t.Errorf("failedBy = %q", got)
	}
	if got := failedBy("panic: test timed out after 3m0s\n"); got != "timeout" {
		t.Errorf("failedBy(timeout) = %q", got)
	}
}
