package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"cairn": func() { os.Exit(Main(os.Args[1:])) },
	})
}

// TestScripts runs the CLI scenarios in testdata/script/*.txtar.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("CAIRN_INDEX_DIR", "")
			// the fixture applications of testdata/apps, for scripts to copy
			apps, err := filepath.Abs(filepath.Join("..", "..", "testdata", "apps"))
			if err != nil {
				return err
			}
			env.Setenv("APPS", apps)
			return nil
		},
	})
}
