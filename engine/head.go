package engine

import (
	"context"

	"github.com/cairn-dev/cairn/internal/gitrepo"
)

// WorktreeHead returns the commit the worktree at root has checked out,
// read from git's files (gitrepo.Head: cheap enough for every answer); ""
// when it cannot tell (not a git repository).
func WorktreeHead(root string) string { return gitrepo.Head(context.Background(), root) }
