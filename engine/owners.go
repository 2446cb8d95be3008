package engine

import (
	"context"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/internal/gitrepo"
	"github.com/cairn-dev/cairn/internal/repofs"
	"github.com/cairn-dev/cairn/retrieval/impact"
)

// Owners returns who owns a repository-relative file: the owners of the
// last CODEOWNERS rule matching it (retrieval/impact's reading of CODEOWNERS,
// shared with impact analysis), else the most frequent authors of its recent commits,
// prefixed "git:". Empty when neither tells.
func Owners(ctx context.Context, root, rel string) []string {
	if owners, found := impact.CodeOwners(repofs.New(root))(rel); found {
		return owners
	}
	authors, err := gitrepo.Authors(ctx, root, rel, 50)
	if err != nil {
		return nil
	}
	counts := map[string]int{}
	for _, a := range authors {
		counts[a]++
	}
	var names []string
	for a := range counts {
		names = append(names, a)
	}
	slices.SortFunc(names, func(a, b string) int {
		if counts[a] != counts[b] {
			return counts[b] - counts[a]
		}
		return strings.Compare(a, b)
	})
	for i := range names {
		names[i] = "git:" + names[i]
	}
	return names[:min(3, len(names))]
}
