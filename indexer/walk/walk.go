package walk

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/cairn-dev/cairn/graph"
)

// DefaultMaxFileSize is the size above which files are skipped as oversized.
const DefaultMaxFileSize = 2 << 20

// Options configure a walk.
type Options struct {
	// Root is the repository root.
	Root string
	// MaxFileSize skips larger files; 0 means DefaultMaxFileSize.
	MaxFileSize int64
	// ExcludeDirs are extra repository-relative directories never entered
	// (the index directory when it lives inside the repository).
	ExcludeDirs []string
}

// Entry is a file the walk found and kept.
type Entry struct {
	Path    string // repository-relative, '/'-separated
	Lang    graph.Language
	Size    int64
	ModTime int64 // Unix nanoseconds
}

// defaultIgnoredDirs are never entered, whatever the ignore files say.
var defaultIgnoredDirs = map[string]bool{
	".git": true, ".hg": true, ".svn": true, ".cairn": true, ".jj": true,
	"node_modules": true, "__pycache__": true, ".mypy_cache": true,
	".pytest_cache": true, ".tox": true, ".gradle": true,
}

type ignoreLayer struct {
	patterns []gitignore.Pattern
	reasons  []graph.SkipReason
}

// Walker holds the state of one walk.
type Walker struct {
	opts    Options
	root    string
	layers  []ignoreLayer
	exclude map[string]bool
}

// New returns a walker over opts.Root.
func New(opts Options) (*Walker, error) {
	root, err := filepath.Abs(opts.Root)
	if err != nil {
		return nil, fmt.Errorf("walk: resolve root %q: %w", opts.Root, err)
	}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	st, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("walk: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("walk: %s is not a directory", root)
	}
	opts.MaxFileSize = cmp.Or(opts.MaxFileSize, DefaultMaxFileSize)
	w := &Walker{opts: opts, root: root, exclude: map[string]bool{}}
	for _, d := range opts.ExcludeDirs {
		w.exclude[filepath.ToSlash(filepath.Clean(d))] = true
	}
	// .git/info/exclude applies to the whole tree, below every .gitignore.
	w.pushIgnoreFile(filepath.Join(root, ".git", "info", "exclude"), nil, graph.SkipGitignore)
	return w, nil
}

// Root returns the absolute, symlink-free root.
func (w *Walker) Root() string { return w.root }

// Walk calls keep for every file to index and skip for every file or
// directory left out, in lexical path order. An error returned by a callback
// stops the walk and is returned.
func (w *Walker) Walk(ctx context.Context, keep func(Entry) error, skip func(graph.Skip) error) error {
	return w.walkDir(ctx, "", nil, keep, skip)
}

func (w *Walker) walkDir(ctx context.Context, rel string, comps []string, keep func(Entry) error, skip func(graph.Skip) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	abs := filepath.Join(w.root, filepath.FromSlash(rel))
	entries, err := os.ReadDir(abs)
	if err != nil {
		if rel == "" {
			return fmt.Errorf("walk: read %s: %w", abs, err)
		}
		return skip(graph.Skip{Path: rel, Reason: graph.SkipUnreadable, Detail: err.Error(), Dir: true})
	}
	depth := len(w.layers)
	w.pushIgnoreFile(filepath.Join(abs, ".gitignore"), comps, graph.SkipGitignore)
	w.pushIgnoreFile(filepath.Join(abs, ".cairnignore"), comps, graph.SkipCairnignore)
	defer func() { w.layers = w.layers[:depth] }()

	for _, de := range entries {
		name := de.Name()
		childRel := name
		if rel != "" {
			childRel = rel + "/" + name
		}
		childComps := append(comps[:len(comps):len(comps)], name)
		typ := de.Type()
		isDir := typ.IsDir()

		if isDir && (defaultIgnoredDirs[name] || w.exclude[childRel]) {
			if err := skip(graph.Skip{Path: childRel, Reason: graph.SkipDefaultIgnore, Dir: true}); err != nil {
				return err
			}
			continue
		}
		if r := w.ignored(childComps, isDir); r != graph.SkipNone {
			if err := skip(graph.Skip{Path: childRel, Reason: r, Dir: isDir}); err != nil {
				return err
			}
			continue
		}
		switch {
		case isDir:
			if err := w.walkDir(ctx, childRel, childComps, keep, skip); err != nil {
				return err
			}
		case typ&fs.ModeSymlink != 0:
			if err := skip(w.classifySymlink(childRel)); err != nil {
				return err
			}
		case typ.IsRegular():
			info, err := de.Info()
			if err != nil {
				if err := skip(graph.Skip{Path: childRel, Reason: graph.SkipUnreadable, Detail: err.Error()}); err != nil {
					return err
				}
				continue
			}
			if r, detail := ClassifyPath(childRel, info.Size(), w.opts.MaxFileSize); r != graph.SkipNone {
				if err := skip(graph.Skip{Path: childRel, Reason: r, Detail: detail}); err != nil {
					return err
				}
				continue
			}
			e := Entry{Path: childRel, Lang: LanguageOf(childRel), Size: info.Size(), ModTime: info.ModTime().UnixNano()}
			if err := keep(e); err != nil {
				return err
			}
		default:
			if err := skip(graph.Skip{Path: childRel, Reason: graph.SkipSpecial, Detail: typ.String()}); err != nil {
				return err
			}
		}
	}
	return nil
}

// ignored matches comps against the ignore stack, innermost file first,
// last pattern of a file first.
func (w *Walker) ignored(comps []string, isDir bool) graph.SkipReason {
	for i := len(w.layers) - 1; i >= 0; i-- {
		l := w.layers[i]
		for j := len(l.patterns) - 1; j >= 0; j-- {
			switch l.patterns[j].Match(comps, isDir) {
			case gitignore.Exclude:
				return l.reasons[j]
			case gitignore.Include:
				return graph.SkipNone
			}
		}
	}
	return graph.SkipNone
}

func (w *Walker) pushIgnoreFile(path string, domain []string, reason graph.SkipReason) {
	data, err := os.ReadFile(path)
	if err != nil {
		return
	}
	var l ignoreLayer
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, `\#`) || strings.HasPrefix(line, `\!`) {
			line = line[1:]
		}
		l.patterns = append(l.patterns, gitignore.ParsePattern(line, domain))
		l.reasons = append(l.reasons, reason)
	}
	if len(l.patterns) > 0 {
		w.layers = append(w.layers, l)
	}
}

func (w *Walker) classifySymlink(rel string) graph.Skip {
	abs := filepath.Join(w.root, filepath.FromSlash(rel))
	target, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) || strings.Contains(err.Error(), "too many links") {
			return graph.Skip{Path: rel, Reason: graph.SkipSymlinkLoop, Detail: "symbolic link loop"}
		}
		return graph.Skip{Path: rel, Reason: graph.SkipUnreadable, Detail: "dangling symbolic link: " + err.Error()}
	}
	inside, err := filepath.Rel(w.root, target)
	if err != nil || inside == ".." || strings.HasPrefix(inside, ".."+string(filepath.Separator)) {
		return graph.Skip{Path: rel, Reason: graph.SkipSymlinkOutside, Detail: "points to " + target}
	}
	inside = filepath.ToSlash(inside)
	if inside == "." || strings.HasPrefix(rel+"/", inside+"/") {
		// The link points at one of its own ancestors: following it would loop.
		return graph.Skip{Path: rel, Reason: graph.SkipSymlinkLoop, Detail: "points to ancestor " + inside}
	}
	return graph.Skip{Path: rel, Reason: graph.SkipSymlinkDuplicate, Detail: "indexed as " + inside}
}
