package engine

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/graph/store"
	"github.com/cairn-dev/cairn/internal/redact"
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

func (e *Error) Error() string { return string(e.Category) + ": " + BoundMessage(e.Message) }

func (e *Error) Unwrap() error { return e.Err }

// Bounds of what an error message holds. A message quotes an input at
// most MaxQuoted bytes (redact.MaxQuoted), an error it wraps at most
// maxWrapped, and is at most MaxMessage bytes in all: a 5 MB argument comes
// back as a short error, not a 5 MB one.
const (
	MaxQuoted  = redact.MaxQuoted
	maxWrapped = 300
	MaxMessage = 600
)

// Quote quotes an input for a message, as %q does, bounded to MaxQuoted
// bytes and with its secrets redacted.
func Quote(s string) string { return redact.Quote(s) }

// BoundMessage is the message as it may leave the engine: secrets
// redacted, at most MaxMessage bytes. Every surface's error path passes it
// (Error, Classify; the CLI, LSP and MCP servers for errors of their own).
func BoundMessage(msg string) string {
	// cut before redacting (a 5 MB message is not scanned whole), with room
	// so that a secret at the final cut is still seen whole
	n := len(msg)
	if n <= MaxMessage {
		return redact.Text(msg)
	}
	if n > 2*MaxMessage {
		msg = strings.ToValidUTF8(msg[:2*MaxMessage], "")
	}
	out := redact.Text(msg)
	if len(out) <= MaxMessage {
		return out
	}
	cut := MaxMessage
	for cut > 0 && out[cut]&0xC0 == 0x80 {
		cut--
	}
	return out[:cut] + fmt.Sprintf("…[%d bytes]", n)
}

// Errorf makes an *Error. String arguments are cut to MaxQuoted bytes and
// error arguments to a few hundred (the cut is marked with the length), so
// "%q" of a client's input is bounded wherever it is written; the message
// is then bounded and redacted as BoundMessage.
func Errorf(c Category, format string, args ...any) *Error {
	return &Error{Category: c, Message: Sprintf(format, args...)}
}

// Sprintf formats a message as Errorf does: string arguments cut to
// MaxQuoted bytes, error arguments to a few hundred, the whole bounded and
// redacted (BoundMessage). Surfaces that make errors of their own use it.
func Sprintf(format string, args ...any) string {
	args = append([]any(nil), args...)
	for i, a := range args {
		switch v := a.(type) {
		case string:
			args[i] = redact.Bound(v, MaxQuoted)
		case error:
			args[i] = redact.Bound(v.Error(), maxWrapped)
		}
	}
	return BoundMessage(fmt.Sprintf(format, args...))
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
	var de *graph.DamagedError
	msg := BoundMessage(err.Error())
	switch {
	case errors.As(err, &de):
		return &Error{Category: StaleIndex, Message: BoundMessage(de.Error()), Err: err}
	case store.IsCorrupt(err):
		return &Error{Category: StaleIndex, Message: BoundMessage(msg + ": the index is damaged; run `cairn status` to see which part, `cairn index` to repair it"), Err: err}
	case errors.As(err, &fe):
		return &Error{Category: StaleIndex, Message: msg, Err: err}
	case errors.Is(err, graph.ErrNoIndex):
		return &Error{Category: StaleIndex, Message: msg, Err: err}
	case errors.Is(err, graph.ErrNotFound):
		return &Error{Category: NotFound, Message: msg, Err: err}
	case errors.Is(err, trace.ErrNoTarget):
		return &Error{Category: NotFound, Message: msg + "; try search to find how the value is spelled", Err: err}
	case errors.Is(err, impact.ErrDiff), errors.Is(err, contextpack.ErrInvalidRequest),
		errors.Is(err, contextpack.ErrBudgetTooSmall):
		return &Error{Category: InvalidArgument, Message: msg, Err: err}
	}
	return &Error{Category: Internal, Message: msg, Err: err}
}

// revisionRE is what a git revision an option names may look like: no
// leading dash (an option to git), no range.
var revisionRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_./~^@{}-]*$`)

func isRevision(rev string) bool {
	return revisionRE.MatchString(rev) && !strings.Contains(rev, "..")
}
