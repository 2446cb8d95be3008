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
	"slices"
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
	// Info is the walk's lstat of the file (nil for an Entry made
	// elsewhere): the freshness check's stat snapshot keeps its change
	// time and inode (indexer.CachedChanges).
	Info fs.FileInfo
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
	return w.WalkDirs(ctx, nil, keep, skip)
}

// WalkDirs is Walk that also calls dir (when not nil) for every directory it
// enters, the root ("") first, before the directory's contents: the
// directories a watcher must watch.
func (w *Walker) WalkDirs(ctx context.Context, dir func(rel string) error, keep func(Entry) error, skip func(graph.Skip) error) error {
	v := visitor{dir: dir, keep: keep, skip: skip}
	return w.walkDir(ctx, "", nil, v)
}

// WalkPaths walks only paths — repository-relative files or directories,
// directories with everything below them — deciding about each exactly as
// Walk would: the ignore files of every ancestor directory apply, and a path
// inside an ignored directory is not visited at all (as Walk never enters
// one). Paths that do not exist are passed over; "" or "." means the whole
// tree. Paths below another given path are visited once.
func (w *Walker) WalkPaths(ctx context.Context, paths []string, dir func(rel string) error, keep func(Entry) error, skip func(graph.Skip) error) error {
	v := visitor{dir: dir, keep: keep, skip: skip}
	for _, p := range topPaths(paths) {
		if p == "" {
			return w.walkDir(ctx, "", nil, v)
		}
		if err := w.walkPath(ctx, p, v); err != nil {
			return err
		}
	}
	return nil
}

// topPaths cleans, sorts and deduplicates paths, dropping those below
// another one; "" stands for the root.
func topPaths(paths []string) []string {
	var out []string
	for _, p := range paths {
		p = filepath.ToSlash(filepath.Clean(p))
		p = strings.TrimPrefix(p, "./")
		if p == "." || p == "/" {
			p = ""
		}
		if strings.HasPrefix(p, "../") || p == ".." || strings.HasPrefix(p, "/") {
			continue // outside the repository
		}
		out = append(out, p)
	}
	slices.Sort(out)
	out = slices.Compact(out)
	kept := out[:0]
	for _, p := range out {
		if n := len(kept); n > 0 && (kept[n-1] == "" || strings.HasPrefix(p, kept[n-1]+"/")) {
			continue
		}
		kept = append(kept, p)
	}
	return kept
}

// walkPath visits one path below the root with the ignore files of its
// ancestors in force.
func (w *Walker) walkPath(ctx context.Context, p string, v visitor) error {
	depth := len(w.layers)
	defer func() { w.layers = w.layers[:depth] }()
	comps := strings.Split(p, "/")
	// Ancestors: the root, then each directory down to p's parent; none may
	// be ignored, and each contributes its ignore files.
	for i := 0; i < len(comps); i++ {
		rel := strings.Join(comps[:i], "/")
		if i > 0 {
			name := comps[i-1]
			if defaultIgnoredDirs[name] || w.exclude[rel] || w.ignored(comps[:i], true) != graph.SkipNone {
				return nil
			}
		}
		abs := filepath.Join(w.root, filepath.FromSlash(rel))
		w.pushIgnoreFile(filepath.Join(abs, ".gitignore"), comps[:i], graph.SkipGitignore)
		w.pushIgnoreFile(filepath.Join(abs, ".cairnignore"), comps[:i], graph.SkipCairnignore)
	}
	info, err := os.Lstat(filepath.Join(w.root, filepath.FromSlash(p)))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil
		}
		return v.skip(graph.Skip{Path: p, Reason: graph.SkipUnreadable, Detail: err.Error(), Dir: false})
	}
	return w.visit(ctx, p, comps, fs.FileInfoToDirEntry(info), v)
}

// visitor holds a walk's callbacks.
type visitor struct {
	dir  func(rel string) error
	keep func(Entry) error
	skip func(graph.Skip) error
}

func (w *Walker) walkDir(ctx context.Context, rel string, comps []string, v visitor) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	abs := filepath.Join(w.root, filepath.FromSlash(rel))
	entries, err := os.ReadDir(abs)
	if err != nil {
		if rel == "" {
			return fmt.Errorf("walk: read %s: %w", abs, err)
		}
		return v.skip(graph.Skip{Path: rel, Reason: graph.SkipUnreadable, Detail: err.Error(), Dir: true})
	}
	if v.dir != nil {
		if err := v.dir(rel); err != nil {
			return err
		}
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
		if err := w.visit(ctx, childRel, childComps, de, v); err != nil {
			return err
		}
	}
	return nil
}

// visit decides about one directory entry: skip it with a reason, enter it
// (a directory) or keep it (a file).
func (w *Walker) visit(ctx context.Context, childRel string, childComps []string, de fs.DirEntry, v visitor) error {
	name := de.Name()
	typ := de.Type()
	isDir := typ.IsDir()
	if isDir && (defaultIgnoredDirs[name] || w.exclude[childRel]) {
		return v.skip(graph.Skip{Path: childRel, Reason: graph.SkipDefaultIgnore, Dir: true})
	}
	if r := w.ignored(childComps, isDir); r != graph.SkipNone {
		return v.skip(graph.Skip{Path: childRel, Reason: r, Dir: isDir})
	}
	switch {
	case isDir:
		return w.walkDir(ctx, childRel, childComps, v)
	case typ&fs.ModeSymlink != 0:
		return v.skip(w.classifySymlink(childRel))
	case typ.IsRegular():
		info, err := de.Info()
		if err != nil {
			return v.skip(graph.Skip{Path: childRel, Reason: graph.SkipUnreadable, Detail: err.Error()})
		}
		if r, detail := ClassifyPath(childRel, info.Size(), w.opts.MaxFileSize); r != graph.SkipNone {
			return v.skip(graph.Skip{Path: childRel, Reason: r, Detail: detail})
		}
		return v.keep(Entry{Path: childRel, Lang: LanguageOf(childRel), Size: info.Size(), ModTime: info.ModTime().UnixNano(), Info: info})
	default:
		return v.skip(graph.Skip{Path: childRel, Reason: graph.SkipSpecial, Detail: typ.String()})
	}
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
