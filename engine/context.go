package engine

import (
	"context"
	"strings"

	"github.com/cairn-dev/cairn/retrieval/contextpack"
)

// Context budgets, in tokens.
const (
	DefaultBudget = 8000
	MinBudget     = 500
	MaxBudget     = 64000
)

// ContextOptions ask Context for the code to read for a task.
type ContextOptions struct {
	// Task is the question, the change to make, an issue or a stack
	// trace; it may be empty when Focus or Diff says where to start.
	Task string
	// Budget is the pack's token budget: default DefaultBudget, within
	// MinBudget..MaxBudget.
	Budget int
	// Focus names symbols (plain, qualified or symbol ids) or
	// repository-relative files the pack must start from.
	Focus []string
	// Diff, when set, is a git revision: the lines changed since it (in the
	// worktree) become focus.
	Diff string
	// Format is the rendering the budget is counted in: markdown (default)
	// or json.
	Format string
	// Tokenizer counts tokens: cl100k_base (default) or o200k_base.
	Tokenizer string
	// FullShare is the share of the budget whole items may fill (0: the
	// default, contextpack.DefaultFullShare); within (0, 1].
	FullShare float64
	// Worktree, when the caller checked the worktree (Status, or a
	// command's own check), is stated in the pack's index block.
	Worktree *Worktree
}

// Context builds a budgeted, cited working set for a task. It is the one
// place a pack's inputs are checked.
func (s *Snapshot) Context(ctx context.Context, o ContextOptions) (*contextpack.Pack, error) {
	if strings.TrimSpace(o.Task) == "" && len(o.Focus) == 0 && o.Diff == "" {
		return nil, Errorf(InvalidArgument, "empty task: give a task, a focus or a diff")
	}
	budget, err := bounded("budget", o.Budget, DefaultBudget, MinBudget, MaxBudget)
	if err != nil {
		return nil, err
	}
	if o.FullShare < 0 || o.FullShare > 1 {
		return nil, Errorf(InvalidArgument, "full_share must be in (0, 1] (got %g)", o.FullShare)
	}
	format := o.Format
	if format == "" {
		format = "markdown"
	}
	if format != "markdown" && format != "json" {
		return nil, Errorf(InvalidArgument, "format must be markdown or json (got %s)", Quote(format))
	}
	if o.Diff != "" && !isRevision(o.Diff) {
		return nil, Errorf(InvalidArgument, "diff %s is not a revision", Quote(o.Diff))
	}
	for _, f := range o.Focus {
		if strings.ContainsAny(f, "/\\") || strings.HasPrefix(f, ".") {
			if _, _, err := RepoPath(s.Root, f); err != nil {
				return nil, err
			}
		}
	}
	tok, err := s.tokenizer(o.Tokenizer)
	if err != nil {
		return nil, err
	}
	b := &contextpack.Builder{Engine: s.fused(), Files: s.Files, Root: s.Root, Meta: s.Meta, Tokenizer: tok}
	if wt := o.Worktree; wt != nil && wt.Unindexed != nil {
		b.Unindexed = wt.Unindexed
		if wt.HeadMoved {
			b.Head = wt.Head
		}
	}
	pack, err := b.Build(ctx, contextpack.Request{Task: o.Task, Budget: budget, Focus: o.Focus, Diff: o.Diff,
		Format: format, FullShare: o.FullShare})
	if err == nil {
		err = tok.wait()
	}
	if err != nil {
		return nil, Classify(err)
	}
	return pack, nil
}

// tokenizer checks the encoding's name and starts loading its tables (a
// tenth of a second, the first time in a process): they load while the
// pack's candidates are searched, and the first count waits for them.
func (s *Snapshot) tokenizer(name string) (*lazyTokenizer, error) {
	name, err := contextpack.TokenizerName(name)
	if err != nil {
		return nil, Errorf(InvalidArgument, "%v", err)
	}
	l := &lazyTokenizer{name: name, done: make(chan struct{})}
	go func() {
		defer close(l.done)
		l.tok, l.err = cachedTokenizer(name)
	}()
	return l, nil
}

// lazyTokenizer is a tokenizer whose tables are still loading.
type lazyTokenizer struct {
	name string
	done chan struct{}
	tok  contextpack.Tokenizer
	err  error
}

func (l *lazyTokenizer) Name() string { return l.name }

func (l *lazyTokenizer) Count(text string) int {
	<-l.done
	if l.tok == nil {
		return len(text) // the pack is refused (wait)
	}
	return l.tok.Count(text)
}

// wait returns the loading's error.
func (l *lazyTokenizer) wait() error {
	<-l.done
	if l.err != nil {
		return Errorf(Internal, "tokenizer %s: %v", l.name, l.err)
	}
	return nil
}
