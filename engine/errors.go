package engine

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/retrieval/contextpack"
	"github.com/cairn-dev/cairn/retrieval/impact"
	"github.com/cairn-dev/cairn/retrieval/trace"
)

// Category is what a client can do about an error.
type Category string

// Categories of errors.
const (
	// NotFound: the name, path or symbol is not in the index.
	NotFound Category = "not_found"
	// Ambiguous: a name that must denote one definition denotes several;
	// Error.Candidates lists them.
	Ambiguous Category = "ambiguous"
	// StaleIndex: no index yet, an index in another format, a cursor or a
	// pinned revision the index moved past.
	StaleIndex Category = "stale_index"
	// OutsideRepository: a path that is absolute, climbs out of the root,
	// points into .git, or resolves through a symlink to outside the root.
	OutsideRepository Category = "outside_repository"
	// InvalidArgument: an argument out of range or malformed.
	InvalidArgument Category = "invalid_argument"
	// Unsupported: the question cannot be answered here (a language, a
	// store or an option this build does not support).
	Unsupported Category = "unsupported"
	// Internal: anything else (a bug or an I/O failure).
	Internal Category = "internal"
)

// Candidate is one of the definitions an ambiguous name denotes, in the
// one shape of a symbol at a place (its symbol_id picks it).
type Candidate = graph.SymbolView

// Error is a failure with a category a client can act on.
type Error struct {
	Category   Category
	Message    string
	Candidates []Candidate
	// Err is the cause, when a library's typed error (graph.ErrNoIndex,
	// trace.ErrNoTarget, …) was classified: errors.Is sees it.
	Err error
}

func (e *Error) Error() string { return string(e.Category) + ": " + e.Message }

func (e *Error) Unwrap() error { return e.Err }

// Errorf makes an *Error.
func Errorf(c Category, format string, args ...any) *Error {
	return &Error{Category: c, Message: fmt.Sprintf(format, args...)}
}

// Classify returns err as an *Error, mapping the errors of the store and
// of the analyses (the one place a library's error becomes a category).
func Classify(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var fe *graph.FormatError
	switch {
	case errors.As(err, &fe):
		return &Error{Category: StaleIndex, Message: fe.Error(), Err: err}
	case errors.Is(err, graph.ErrNoIndex):
		return &Error{Category: StaleIndex, Message: err.Error(), Err: err}
	case errors.Is(err, graph.ErrNotFound):
		return &Error{Category: NotFound, Message: err.Error(), Err: err}
	case errors.Is(err, trace.ErrNoTarget):
		return &Error{Category: NotFound, Message: err.Error() + "; try search to find how the value is spelled", Err: err}
	case errors.Is(err, impact.ErrDiff), errors.Is(err, contextpack.ErrInvalidRequest),
		errors.Is(err, contextpack.ErrBudgetTooSmall):
		return &Error{Category: InvalidArgument, Message: err.Error(), Err: err}
	}
	return &Error{Category: Internal, Message: err.Error(), Err: err}
}

// maxQuoted bounds how much of an argument an error message quotes.
const maxQuoted = 200

// clip shortens an argument quoted in an error message.
func clip(s string) string {
	if len(s) <= maxQuoted {
		return s
	}
	cut := maxQuoted
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// revisionRE is what a git revision an option names may look like: no
// leading dash (an option to git), no range.
var revisionRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_./~^@{}-]*$`)

func isRevision(rev string) bool {
	return revisionRE.MatchString(rev) && !strings.Contains(rev, "..")
}
