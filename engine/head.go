package engine

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
)

// WorktreeHead reads the commit the worktree at root has checked out, from
// .git's files without running git (cheap enough for every answer). It
// returns "" when it cannot tell (not a git repository, an unusual layout).
func WorktreeHead(root string) string {
	gitDir := filepath.Join(root, ".git")
	st, err := os.Stat(gitDir)
	if err != nil {
		return ""
	}
	common := gitDir
	if !st.IsDir() { // a worktree or submodule: "gitdir: <path>"
		b, err := os.ReadFile(gitDir)
		if err != nil {
			return ""
		}
		d, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
		if !ok {
			return ""
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(root, d)
		}
		gitDir, common = d, d
		if c, err := os.ReadFile(filepath.Join(d, "commondir")); err == nil {
			cd := strings.TrimSpace(string(c))
			if !filepath.IsAbs(cd) {
				cd = filepath.Join(d, cd)
			}
			common = cd
		}
	}
	b, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return ""
	}
	head := strings.TrimSpace(string(b))
	ref, ok := strings.CutPrefix(head, "ref: ")
	if !ok {
		return head // detached
	}
	for _, d := range []string{gitDir, common} {
		if b, err := os.ReadFile(filepath.Join(d, filepath.FromSlash(ref))); err == nil {
			return strings.TrimSpace(string(b))
		}
	}
	f, err := os.Open(filepath.Join(common, "packed-refs"))
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if sha, name, ok := strings.Cut(sc.Text(), " "); ok && name == ref {
			return sha
		}
	}
	return ""
}
