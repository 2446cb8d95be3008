package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/internal/gitrepo"
	"github.com/cairn-dev/cairn/internal/redact"
	"github.com/cairn-dev/cairn/internal/repofs"
)

// RepoPath checks a path a client named and returns it repository-relative
// ('/'-separated, cleaned) and absolute. The check is the repository
// boundary's (internal/repofs), the one every read of a worktree file passes:
// absolute paths, paths climbing out with "..", paths into .git, and paths
// whose file (symlinks resolved) is not under the root are
// outside_repository; a path that does not exist is not_found.
func RepoPath(root, p string) (rel, abs string, err error) {
	fsys := repofs.New(root)
	if _, err := fsys.Stat(p); err != nil {
		return "", "", pathError(err)
	}
	rel, _ = repofs.Clean(p)
	return rel, filepath.Join(fsys.Root(), filepath.FromSlash(rel)), nil
}

// pathError maps the repository boundary's refusals to categories.
func pathError(err error) *Error {
	var pe *repofs.Error
	if !errors.As(err, &pe) {
		return Classify(err)
	}
	c := NotFound
	switch {
	case pe.Reason == repofs.Invalid:
		c = InvalidArgument
	case pe.Reason.Outside():
		c = OutsideRepository
	case pe.Reason == repofs.NotRegular:
		c = InvalidArgument
	}
	return &Error{Category: c, Message: pe.Error()}
}

// Span limits.
const (
	MaxSpanLines = 400
	MaxSpanBytes = 48 << 10
)

// Span is a piece of a file as read.
type Span struct {
	Path string `json:"path"`
	// Revision cites the content the lines were read from (see
	// graph.CiteRevision).
	Revision  string `json:"revision"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	// TotalLines is the file's length in lines.
	TotalLines int `json:"total_lines"`
	// Stale: the lines are not the indexed content (the file changed since).
	Stale bool `json:"stale"`
	// Truncated: the span was cut at the line or byte cap; NextStartLine
	// continues it.
	Truncated     bool `json:"truncated"`
	NextStartLine int  `json:"next_start_line,omitempty"`
	// Lines are the lines' text without line breaks.
	Lines      []string           `json:"-"`
	Redactions []redact.Redaction `json:"redactions,omitempty"`
}

var revRE = regexp.MustCompile(`^(?:([0-9a-f]{7,40})(?:\+([0-9a-f]{7,40}))?|content:([0-9a-f]{7,40}))$`)

// ReadSpan reads lines start..end (1-based, inclusive; end 0: to the cap) of
// an indexed file. revision, when set, pins the content: it must be the
// revision the index cites for the file (as answers give it) or a commit.
func (s *Snapshot) ReadSpan(ctx context.Context, p string, start, end int, revision string) (*Span, error) {
	if start < 1 {
		start = 1
	}
	if end != 0 && end < start {
		return nil, Errorf(InvalidArgument, "end_line %d is before start_line %d", end, start)
	}
	rel, _, err := RepoPath(s.Root, p)
	if err != nil {
		return nil, err
	}
	f, err := s.R.File(ctx, rel)
	if err != nil {
		return nil, Errorf(NotFound, "%s is not indexed (it may be ignored, generated or binary; see index_status)", rel)
	}
	cited := graph.CiteRevision(s.Meta, f)
	content, err := s.Files.ReadFile(rel)
	if err != nil {
		return nil, pathError(err)
	}
	hash := graph.BlobHash(content)
	sp := &Span{Path: rel}
	switch {
	case hash == f.Hash:
		sp.Revision = cited
	default:
		sp.Stale = true
		sp.Revision = worktreeRevision(s.Meta, hash)
	}
	if revision != "" {
		m := revRE.FindStringSubmatch(revision)
		if m == nil {
			return nil, Errorf(InvalidArgument, "revision %q is not a revision cairn cites (commit, commit+hash, content:hash)", revision)
		}
		switch {
		case revision == sp.Revision || revision == cited && !sp.Stale:
			// the worktree holds the cited content
		case m[3] != "" || m[2] != "":
			h := m[2] + m[3]
			if !strings.HasPrefix(hash, h) {
				return nil, Errorf(StaleIndex, "%s no longer has the content of revision %s (it changed since): read it without revision for the current content", rel, revision)
			}
			sp.Revision = revision
		default:
			blob, err := gitShow(ctx, s.Root, m[1], rel)
			if err != nil {
				return nil, err
			}
			content = blob
			sp.Revision = revision
			sp.Stale = graph.BlobHash(blob) != f.Hash
		}
	}
	text := strings.ToValidUTF8(string(content), "\uFFFD")
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(content) == 0 {
		lines = nil
	}
	sp.TotalLines = len(lines)
	if start > len(lines) {
		if len(lines) == 0 && start == 1 {
			sp.StartLine, sp.EndLine = 1, 0
			return sp, nil
		}
		return nil, Errorf(InvalidArgument, "start_line %d is past the end of %s (%d lines)", start, rel, len(lines))
	}
	if end == 0 || end > len(lines) {
		end = len(lines)
	}
	stop := start - 1
	size := 0
	for stop < end && stop-start+1 < MaxSpanLines && size+len(lines[stop]) < MaxSpanBytes {
		size += len(lines[stop]) + 1
		stop++
	}
	if stop == start-1 { // one huge line: cut it
		l := lines[start-1]
		cut := min(len(l), MaxSpanBytes)
		for cut > 0 && cut < len(l) && l[cut]&0xC0 == 0x80 {
			cut--
		}
		lines[start-1] = l[:cut] + "…[line cut]"
		stop = start
	}
	if stop < end {
		sp.Truncated, sp.NextStartLine = true, stop+1
	}
	sp.StartLine, sp.EndLine = start, stop
	body, reds := redact.Content(rel, start, strings.Join(lines[start-1:stop], "\n"), f.Lang.HasParser())
	sp.Lines = strings.Split(body, "\n")
	sp.Redactions = reds
	return sp, nil
}

// Numbered renders the span's lines with their numbers, one per line.
func (sp *Span) Numbered() string {
	var b strings.Builder
	w := len(fmt.Sprint(sp.EndLine))
	for i, l := range sp.Lines {
		fmt.Fprintf(&b, "%*d\t%s\n", w, sp.StartLine+i, l)
	}
	return b.String()
}

// worktreeRevision cites content that is not the indexed content.
func worktreeRevision(m graph.Meta, hash string) string {
	rev := m.Revision
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev == "" {
		return "content:" + hash[:12]
	}
	return rev + "+" + hash[:12]
}

// gitShow reads path at commit rev.
func gitShow(ctx context.Context, root, rev, rel string) ([]byte, error) {
	out, err := gitrepo.Show(ctx, root, rev, rel)
	if err != nil {
		msg := err.Error()
		if ce := (*gitrepo.CommandError)(nil); errors.As(err, &ce) {
			msg = ce.Stderr
			if msg == "" {
				msg = ce.Err.Error()
			}
		}
		return nil, Errorf(NotFound, "%s at revision %s: %s", rel, rev, msg)
	}
	return out, nil
}
