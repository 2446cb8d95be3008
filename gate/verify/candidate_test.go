package verify

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A worktree's change leaves out cairn's own .cairn directory whether the
// repository ignores it (.gitignore, info/exclude) or not, and keeps the
// base's version of a file under .cairn the base tracks.
func TestWorkingCandidateLeavesOutCairnsDirectory(t *testing.T) {
	for _, ignore := range []string{"", ".gitignore", ".git/info/exclude"} {
		t.Run("ignored by "+ignore, func(t *testing.T) {
			repo := filepath.Join(t.TempDir(), "repo")
			write(t, repo, "a.go", "package a\n")
			write(t, repo, ".cairn/task.yaml", "objective: base\n")
			git(t, repo, "init", "-q", "-b", "main")
			git(t, repo, "add", ".")
			git(t, repo, "commit", "-q", "-m", "base")
			if ignore != "" {
				f, err := os.OpenFile(filepath.Join(repo, ignore), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
				if err != nil {
					t.Fatal(err)
				}
				f.WriteString(".cairn/\n")
				f.Close()
			}
			write(t, repo, "a.go", "package a\n\nvar X = 1\n")
			write(t, repo, ".cairn/task.yaml", "objective: changed\n")
			write(t, repo, ".cairn/index/meta.json", "{}")
			base := git(t, repo, "rev-parse", "HEAD")
			p, err := Candidate{Working: repo}.Resolve(context.Background(), repo, base)
			if err != nil {
				t.Fatal(err)
			}
			var files []string
			for _, f := range splitPatch(p) {
				files = append(files, f.path)
			}
			want := "a.go"
			if ignore == ".gitignore" {
				want = ".gitignore a.go"
			}
			if got := strings.Join(files, " "); got != want {
				t.Errorf("changed files %q, want %q\n%s", got, want, p)
			}
		})
	}
}
