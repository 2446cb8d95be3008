package sandbox

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
		if err := pinGoVersion(filepath.Join(dir, "go.mod")); err != nil {
			errs = append(errs, fmt.Errorf("prepare go: %w", err))
			continue
		}
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

// goDirective matches a go.mod's go directive.
var goDirective = regexp.MustCompile(`(?m)^\s*go\s+[0-9]`)

// moduleLine matches a go.mod's module directive line.
var moduleLine = regexp.MustCompile(`(?m)^\s*module\s.*$`)

// pinGoVersion writes the language version a go.mod without a go directive
// means (go 1.16, as the go command assumes) into it. Without that, the
// first go command that writes go.mod (download, or a test under
// -mod=mod) records its own version there, which changes the language the
// code is compiled and vetted as: 2019 code with a directive-less go.mod
// then fails go test's newer vet checks and never builds.
func pinGoVersion(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if goDirective.Match(data) {
		return nil
	}
	loc := moduleLine.FindIndex(data)
	if loc == nil {
		return fmt.Errorf("%s has no module directive", path)
	}
	pinned := append(append(append([]byte{}, data[:loc[1]]...), "\n\ngo 1.16"...), data[loc[1]:]...)
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	return os.WriteFile(path, pinned, st.Mode().Perm())
}

// PrepareNode installs the npm dependencies of the package at dir (relative
// to the workspace) outside the sandbox, so that the tests inside run the
// project's own jest or vitest with no network. It installs only from a
// lockfile (package-lock.json or npm-shrinkwrap.json beside package.json):
// npm ci --ignore-scripts (no install script of a dependency runs on the
// host), with the host's network and npm cache, into cache/KEY, where KEY
// hashes package.json, the lockfile and the node version; the workspace gets
// a copy of cache/KEY/node_modules. A second workspace of the same lockfile
// costs one copy. A package whose node_modules is already there is left as
// it is. Like PrepareGo, this runs on the base's files, before the change.
func PrepareNode(ctx context.Context, ws *Workspace, dir, cache string) error {
	rel, err := cleanRel(cmp.Or(dir, "."))
	if err != nil {
		return fmt.Errorf("prepare node: dir %q: %w", dir, err)
	}
	pkg := filepath.Join(ws.Dir, filepath.FromSlash(rel))
	if _, err := os.Stat(filepath.Join(pkg, "node_modules")); err == nil {
		return nil
	}
	manifest, err := os.ReadFile(filepath.Join(pkg, "package.json"))
	if err != nil {
		return fmt.Errorf("prepare node: %w", err)
	}
	lockName, lock := "", []byte(nil)
	for _, name := range []string{"npm-shrinkwrap.json", "package-lock.json"} {
		if b, err := os.ReadFile(filepath.Join(pkg, name)); err == nil {
			lockName, lock = name, b
			break
		}
	}
	if lock == nil {
		return fmt.Errorf("prepare node: %s has no package-lock.json: dependencies are installed only from a lockfile (npm ci)", rel)
	}
	version, err := exec.CommandContext(ctx, "node", "--version").Output()
	if err != nil {
		return fmt.Errorf("prepare node: node --version: %w", err)
	}
	h := sha256.New()
	for _, part := range [][]byte{manifest, lock, version} {
		fmt.Fprintf(h, "%d\x00", len(part))
		h.Write(part)
	}
	installed := filepath.Join(cache, hex.EncodeToString(h.Sum(nil)[:12]))
	if _, err := os.Stat(filepath.Join(installed, "node_modules")); err != nil {
		if err := npmCI(ctx, installed, manifest, lockName, lock); err != nil {
			return fmt.Errorf("prepare node: %s: %w", rel, err)
		}
	}
	var out bytes.Buffer
	cp := exec.CommandContext(ctx, "cp", "-a", filepath.Join(installed, "node_modules"), filepath.Join(pkg, "node_modules"))
	cp.Stdout, cp.Stderr = &out, &out
	if err := cp.Run(); err != nil {
		return fmt.Errorf("prepare node: copy node_modules into %s: %w: %s", rel, err, strings.TrimSpace(out.String()))
	}
	return nil
}

// npmCI installs a lockfile into dir/node_modules: built aside, then
// renamed into place, so a killed install leaves no half a cache entry.
func npmCI(ctx context.Context, dir string, manifest []byte, lockName string, lock []byte) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".install-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := os.WriteFile(filepath.Join(tmp, "package.json"), manifest, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, lockName), lock, 0o644); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "npm", "ci", "--ignore-scripts", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = tmp
	cmd.Env = append(hostEnv(true), "npm_config_update_notifier=false")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("npm ci: %w: %s", err, strings.TrimSpace(out.String()))
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err == nil {
		return nil // another install of the same key finished first
	}
	os.RemoveAll(dir) // a leftover without node_modules
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Stat(filepath.Join(dir, "node_modules")); serr == nil {
			return nil
		}
		return err
	}
	return nil
}
