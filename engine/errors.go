package engine

import (
	"errors"
	"fmt"

	"github.com/cairn-dev/cairn/graph"
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
}

func (e *Error) Error() string { return string(e.Category) + ": " + e.Message }

// Errorf makes an *Error.
func Errorf(c Category, format string, args ...any) *Error {
	return &Error{Category: c, Message: fmt.Sprintf(format, args...)}
}

// Classify returns err as an *Error, mapping the store's errors.
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
		return &Error{Category: StaleIndex, Message: fe.Error()}
	case errors.Is(err, graph.ErrNoIndex):
		return &Error{Category: StaleIndex, Message: err.Error()}
	case errors.Is(err, graph.ErrNotFound):
		return &Error{Category: NotFound, Message: err.Error()}
	}
	return &Error{Category: Internal, Message: err.Error()}
}
