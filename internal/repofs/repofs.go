package repofs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// Reason is why a path was refused or could not be read.
type Reason int

// Reasons.
const (
	// Invalid: empty or holding a NUL byte.
	Invalid Reason = iota + 1
	// Absolute: an absolute path (or one with a volume name).
	Absolute
	// Climbs: the path leaves the root through "..".
	Climbs
	// InGit: the path, or the file it resolves to, is inside .git.
	InGit
	// Escapes: the file resolves (through a symlink) to outside the root.
	Escapes
	// NotRegular: a directory, device, FIFO or socket where a file was read.
	NotRegular
	// NotExist: no such file.
	NotExist
	// Unreadable: any other failure to open or read.
	Unreadable
)

func (r Reason) String() string {
	switch r {
	case Invalid:
		return "invalid"
	case Absolute:
		return "absolute"
	case Climbs:
		return "climbs"
	case InGit:
		return "in_git"
	case Escapes:
		return "escapes"
	case NotRegular:
		return "not_regular"
	case NotExist:
		return "not_exist"
	case Unreadable:
		return "unreadable"
	}
	return "Reason(" + strconv.Itoa(int(r)) + ")"
}

// Outside reports whether the reason places the path outside the
// repository (absolute, climbing, in .git, escaping through a link).
func (r Reason) Outside() bool {
	return r == Absolute || r == Climbs || r == InGit || r == Escapes
}

// Error is a refused or failed read.
type Error struct {
	Path   string // the path as given
	Reason Reason
	Err    error // the underlying error, if any
}

func (e *Error) Error() string {
	q := quote(e.Path)
	var msg string
	switch e.Reason {
	case Invalid:
		msg = q + " is not a valid path"
	case Absolute:
		msg = q + " is absolute: give a path relative to the repository root"
	case Climbs:
		msg = q + " leaves the repository root"
	case InGit:
		msg = q + " is inside .git"
	case Escapes:
		msg = q + " resolves (through a symlink) to outside the repository"
	case NotRegular:
		msg = q + " is not a regular file"
	case NotExist:
		msg = q + " does not exist"
	default:
		msg = q + " cannot be read"
	}
	if e.Err != nil && e.Reason != NotExist {
		msg += ": " + bound(e.Err.Error(), 300)
	}
	return msg
}

func (e *Error) Unwrap() error {
	if e.Reason == NotExist && e.Err == nil {
		return fs.ErrNotExist
	}
	return e.Err
}

// maxQuoted bounds the part of a path an error message quotes.
const maxQuoted = 200

func quote(s string) string { return strconv.Quote(bound(s, maxQuoted)) }

// bound cuts s to at most n bytes (on a rune boundary), marking the cut.
func bound(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + fmt.Sprintf("…[%d bytes]", len(s))
}

// Clean checks a repository-relative path lexically and returns it cleaned,
// '/'-separated. Backslashes count as separators, so a Windows-style
// "..\x" is refused everywhere.
func Clean(p string) (string, error) {
	if strings.TrimSpace(p) == "" || strings.ContainsRune(p, 0) {
		return "", &Error{Path: p, Reason: Invalid}
	}
	slashed := strings.ReplaceAll(p, `\`, "/")
	if filepath.IsAbs(p) || strings.HasPrefix(slashed, "/") || filepath.VolumeName(p) != "" {
		return "", &Error{Path: p, Reason: Absolute}
	}
	rel := path.Clean(slashed)
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return "", &Error{Path: p, Reason: Climbs}
	}
	if inGit(rel) {
		return "", &Error{Path: p, Reason: InGit}
	}
	return rel, nil
}

// inGit reports whether a cleaned relative path is .git or below it.
func inGit(rel string) bool { return rel == ".git" || strings.HasPrefix(rel, ".git/") }

// FS reads the files under one repository root.
type FS struct {
	root string // absolute, symlinks resolved

	// dir is the root opened once, on the first read, and shared by all
	// reads (os.Root is safe for concurrent use); its descriptor is closed
	// when the FS is collected (os.Root's finalizer).
	once   sync.Once
	dir    *os.Root
	dirErr error
}

// New returns the reader of the repository at root. The root's own
// symlinks are resolved once, here; a root that does not exist makes every
// read fail.
func New(root string) *FS {
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	return &FS{root: root}
}

// Root is the repository root (absolute, symlinks resolved).
func (f *FS) Root() string { return f.root }

// afterCheck, when set (by tests), runs between the lexical check and the
// open: the window in which an attacker swaps a file.
var afterCheck func(rel string)

// open opens rel under the root and checks what was opened.
func (f *FS) open(p string) (*os.File, fs.FileInfo, string, error) {
	rel, err := Clean(p)
	if err != nil {
		return nil, nil, "", err
	}
	if afterCheck != nil {
		afterCheck(rel)
	}
	f.once.Do(func() { f.dir, f.dirErr = os.OpenRoot(f.root) })
	if f.dirErr != nil {
		return nil, nil, rel, &Error{Path: p, Reason: Unreadable, Err: f.dirErr}
	}
	file, err := f.dir.OpenFile(filepath.FromSlash(rel), os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, nil, rel, f.classify(p, rel, err)
	}
	info, err := file.Stat()
	if err != nil {
		file.Close()
		return nil, nil, rel, &Error{Path: p, Reason: Unreadable, Err: err}
	}
	if reason := f.verify(file, info, rel); reason != 0 {
		file.Close()
		return nil, nil, rel, &Error{Path: p, Reason: reason}
	}
	return file, info, rel, nil
}

// classify turns a failed open into an *Error: a name that does not exist,
// a link out of the root (os.Root's refusal has no exported sentinel, so
// the name is resolved to tell), or another failure.
func (f *FS) classify(p, rel string, err error) *Error {
	if errors.Is(err, fs.ErrNotExist) {
		return &Error{Path: p, Reason: NotExist}
	}
	if real, rerr := filepath.EvalSymlinks(filepath.Join(f.root, filepath.FromSlash(rel))); rerr == nil {
		if !within(f.root, real) {
			return &Error{Path: p, Reason: Escapes}
		}
	} else if errors.Is(rerr, fs.ErrNotExist) {
		return &Error{Path: p, Reason: Escapes, Err: errors.New("a dangling or out-of-root symbolic link")}
	}
	return &Error{Path: p, Reason: Escapes, Err: err}
}

// within reports whether abs is root or below it (component-wise: a
// sibling sharing root's prefix is not within).
func within(root, abs string) bool {
	r, err := filepath.Rel(root, abs)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) && !filepath.IsAbs(r)
}

// located checks a real (resolved) location of an opened file: under the
// root and not in .git. It returns 0 when it is fine.
func (f *FS) located(real string) Reason {
	if !within(f.root, real) {
		return Escapes
	}
	r, _ := filepath.Rel(f.root, real)
	if inGit(filepath.ToSlash(r)) {
		return InGit
	}
	return 0
}

// Stat checks rel (a file or a directory) against the boundary and returns
// what it is.
func (f *FS) Stat(rel string) (fs.FileInfo, error) {
	file, info, _, err := f.open(rel)
	if err != nil {
		return nil, err
	}
	file.Close()
	return info, nil
}

// ReadFile reads the regular file rel (repository-relative).
func (f *FS) ReadFile(rel string) ([]byte, error) {
	file, info, _, err := f.open(rel)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	if !info.Mode().IsRegular() {
		return nil, &Error{Path: rel, Reason: NotRegular}
	}
	b := make([]byte, 0, info.Size()+1)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := file.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, &Error{Path: rel, Reason: Unreadable, Err: err}
		}
	}
}
