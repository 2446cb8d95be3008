package graph

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrNotFound is returned (wrapped) when a path or symbol is not indexed.
var ErrNotFound = errors.New("not found")

// ErrNoIndex is returned when a store holds no committed generation yet.
var ErrNoIndex = errors.New("no index: run `cairn index` first")

// FormatError reports an index written in a format this binary cannot read.
type FormatError struct {
	Where       string // index directory or database
	Found, Want int
}

func (e *FormatError) Error() string {
	rel := "older"
	if e.Found > e.Want {
		rel = "newer"
	}
	return fmt.Sprintf("index at %s has format %d, %s than this cairn (format %d): re-index with `cairn index --full` (or use a matching cairn)",
		e.Where, e.Found, rel, e.Want)
}

// Meta describes one committed generation of an index.
type Meta struct {
	Generation int64
	Format     int
	Feature    int
	// Root is the repository root the generation was indexed from.
	Root string
	// Revision is the git commit of the worktree when indexed ("" when the
	// tree is not a git repository); Dirty reports uncommitted changes then.
	Revision  string
	Dirty     bool
	IndexedAt time.Time
	Files     int
	Symbols   int
	Chunks    int
	// Status counts files by parse status; Skips counts skipped paths by reason.
	Status map[ParseStatus]int
	Skips  map[SkipReason]int
	// Languages counts files by language.
	Languages map[Language]int
	// Extra carries side-index facts (text segments, embedding model).
	Extra map[string]string
}

// FileState is what an index run needs to know about a previously indexed
// path to decide whether to read it again.
type FileState struct {
	Path    string
	Hash    string
	Size    int64
	ModTime int64
	Lang    Language
	Status  ParseStatus
	Skip    SkipReason // SkipNone for indexed files
	// Committed: the file equalled its blob at the previous revision.
	Committed bool
	// SCIP is the SCIP document merged into the file's facts, if any.
	SCIP string
}

// Reader answers fact queries against one committed generation.
type Reader interface {
	Meta(ctx context.Context) (Meta, error)
	Files(ctx context.Context) ([]File, error)
	File(ctx context.Context, path string) (File, error)
	Skips(ctx context.Context) ([]Skip, error)
	// SymbolsByName returns definitions whose name equals name, ignoring case.
	SymbolsByName(ctx context.Context, name string) ([]Symbol, error)
	SymbolsByID(ctx context.Context, id SymbolID) ([]Symbol, error)
	SymbolsInFile(ctx context.Context, path string) ([]Symbol, error)
	// AllSymbols calls fn for every definition, in path order.
	AllSymbols(ctx context.Context, fn func(Symbol) error) error
	// FileFacts returns everything stored about one file (chunks without text).
	FileFacts(ctx context.Context, path string) (*FileFacts, error)
	// FilesMentioning lists the files with an occurrence of name.
	FilesMentioning(ctx context.Context, name string) ([]string, error)
	// Edges returns the edges of the given kinds (all kinds if none) into
	// (In) or out of (Out) the symbols ids, in a stable order.
	Edges(ctx context.Context, ids []SymbolID, dir Direction, kinds ...EdgeKind) ([]Edge, error)
	// Ranks returns the centrality of symbols (absent: no rank).
	Ranks(ctx context.Context, ids []SymbolID) (map[SymbolID]float64, error)
	// ChunksByID returns the live chunks among ids (chunks replaced since
	// are left out), in no particular order, without text.
	ChunksByID(ctx context.Context, ids []int64) ([]ChunkRef, error)
	// ChunksInFile returns a file's chunks in order, without text.
	ChunksInFile(ctx context.Context, path string) ([]ChunkRef, error)
}

// ChunkRef is a chunk with its store id (the document id of side indexes).
type ChunkRef struct {
	ID int64
	Chunk
}

// Writer builds the next generation of an index. Nothing it does is visible
// to readers until Commit returns; Abort (or a crash) leaves the previous
// generation as it was.
type Writer interface {
	// Known returns the state of every path of the previous generation
	// (indexed files and skips); empty for a fresh index.
	Known(ctx context.Context) (map[string]FileState, error)
	// PutFile replaces the facts of ff.File.Path and returns the ids the
	// file's chunks got, in order.
	PutFile(ctx context.Context, ff *FileFacts) ([]int64, error)
	// Touch records a new stat for a file whose content did not change.
	Touch(ctx context.Context, path string, size, modTime int64) error
	// SetCommitted records whether a file equals its blob at the revision
	// being indexed.
	SetCommitted(ctx context.Context, path string, committed bool) error
	// SetCategory records a new category for an indexed file whose facts
	// did not change (whether it is vendored can depend on other files).
	SetCategory(ctx context.Context, path string, c FileCategory) error
	// Delete removes a path (file or skip) from the index.
	Delete(ctx context.Context, path string) error
	// PutSkip records a skipped path (replacing any facts it had).
	PutSkip(ctx context.Context, s Skip, size, modTime int64) error
	// Dir is a directory private to the generation being written, for side
	// indexes (text segments, vectors) that commit together with it.
	Dir() string
	// View reads the generation being written, its uncommitted rows included.
	View() Reader
	// Facts returns a file's per-file facts (occurrences, imports,
	// bindings) without symbols and chunks: the resolver's input.
	Facts(ctx context.Context, path string) (*FileFacts, error)
	// SetResolution stores a file's occurrences (now carrying resolved
	// symbols) and replaces the edges derived from it. ff holds what Facts
	// returned, updated.
	SetResolution(ctx context.Context, ff *FileFacts, edges []Edge) error
	// SetDerivedEdges replaces the edges derived from the whole graph.
	SetDerivedEdges(ctx context.Context, edges []Edge) error
	// AllEdges calls fn for every edge of the given kinds as symbol pairs.
	AllEdges(ctx context.Context, kinds []EdgeKind, fn func(from, to SymbolID)) error
	// SetRanks replaces the centrality scores.
	SetRanks(ctx context.Context, ranks map[SymbolID]float64) error
	Commit(ctx context.Context, m Meta) error
	Abort() error
}

// Damage is a stored part of an index found damaged: what it is (the index
// pointer, the facts database, a text or vector segment, the embedding
// model), its file, and what is wrong with it.
type Damage struct {
	Part    string `json:"part"`
	Path    string `json:"path"`
	Problem string `json:"problem"`
}

func (d Damage) String() string {
	return d.Part + " " + d.Path + ": " + strings.Join(strings.Fields(d.Problem), " ")
}

// DamagedError reports damaged parts of an index; `cairn index` repairs
// them (it rebuilds what is damaged).
type DamagedError struct {
	Damage []Damage
}

func (e *DamagedError) Error() string {
	var b []byte
	b = append(b, "index damaged: "...)
	for i, d := range e.Damage {
		if i > 0 {
			b = append(b, "; "...)
		}
		b = append(b, d.String()...)
	}
	return string(b) + ": run `cairn index` to repair it"
}
