package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strings"
)

// GoToolchain asks the host's go for its GOROOT and module cache, for
// Options.GoRoot and Options.GoModCache.
func GoToolchain(ctx context.Context) (goroot, modcache string, err error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOROOT", "GOMODCACHE").Output()
	if err != nil {
		return "", "", fmt.Errorf("go env: %w", err)
	}
	f := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(f) != 2 {
		return "", "", fmt.Errorf("go env printed %q", out)
	}
	return strings.TrimSpace(f[0]), strings.TrimSpace(f[1]), nil
}

// PrepareGo fetches a Go workspace's dependencies outside the sandbox,
// with the host's network and module cache (go mod download in every
// directory of the workspace that has a go.mod, vendor and testdata
// skipped), so that commands inside can run with GOPROXY=off and the cache
// read-only. The host environment is the harness's, not the model's: this
// runs before any model-written code does, on the base's go.mod files.
func PrepareGo(ctx context.Context, ws *Workspace) error {
	var mods []string
	err := filepath.WalkDir(ws.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != ws.Dir && (d.Name() == "vendor" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() == "go.mod" {
			mods = append(mods, filepath.Dir(p))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("prepare go: %w", err)
	}
	var errs []error
	for _, dir := range mods {
		cmd := exec.CommandContext(ctx, "go", "mod", "download")
		cmd.Dir = dir
		cmd.Env = append(hostEnv(false), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			rel, _ := filepath.Rel(ws.Dir, dir)
			errs = append(errs, fmt.Errorf("prepare go: go mod download in %s: %w: %s", rel, err, strings.TrimSpace(out.String())))
		}
	}
	return errors.Join(errs...)
}
