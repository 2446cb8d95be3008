package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/graph/embedded"
	"github.com/cairn-dev/cairn/graph/postgres"
)

// Options name the index to open.
type Options struct {
	// Dir is the embedded index's directory (<repo>/.cairn by default; the
	// caller decides). Used when URL is "".
	Dir string
	// URL is a shared PostgreSQL store, postgres://USER:PASSWORD@HOST[:PORT]/DB;
	// "" is the embedded store in Dir.
	URL string
	// RepoName names the repository in the shared store (required with URL).
	RepoName string
	// CacheDir is where a shared store's side indexes are materialized
	// locally; "" is the user's cache directory (postgres.Options).
	CacheDir string
	// MaxConns bounds a shared store's connection pool (default 8).
	MaxConns int32
}

// Store reads one committed generation of a repository's index, from
// either store. Every answer comes from the generation it opened, however
// many are committed meanwhile; Changed says when a newer one is current.
type Store interface {
	graph.Reader
	// Changed reports whether another generation is current now (cheap:
	// the embedded store's CURRENT epoch and generation, the shared
	// store's current generation id).
	Changed(ctx context.Context) (bool, error)
	// SideDir is the directory holding the generation's side indexes
	// (text and vector segments): the embedded store's epoch directory,
	// the shared store's local copy (fetched once per machine).
	SideDir(ctx context.Context) (string, error)
	// Pin holds what reading the generation needs until Unpin, and fails
	// (wrapping ErrMoved) when the generation can no longer be read: the
	// embedded store holds a read transaction on it (see
	// embedded.OpenPinned); the shared store names its generation in
	// every query and needs nothing.
	Pin(ctx context.Context) error
	Unpin()
	// ANN is the store's own nearest-neighbour vector index, nil when it
	// has none (the embedded store).
	ANN() ANN
	// Where names the index for messages: its directory, or the database
	// (without its password) and the repository.
	Where() string
	// Warnings are notes for the user (a shared schema newer than this
	// binary).
	Warnings() []string
	Close() error
}

// ANN is approximate nearest-neighbour search over a generation's chunk
// embeddings.
type ANN interface {
	// Nearest returns the k live chunks whose embeddings are closest
	// (cosine) to q, best first.
	Nearest(ctx context.Context, q []float32, k int) ([]Neighbor, error)
}

// Neighbor is a chunk found by vector search, with its cosine similarity.
type Neighbor struct {
	ChunkID int64
	Score   float32
}

// ErrMoved is returned (wrapped) by Pin when the generation a store read
// was replaced while nothing held it.
var ErrMoved = embedded.ErrMoved

// ErrLocked is returned (wrapped) by OpenWriter when another process is
// writing the index.
var ErrLocked = embedded.ErrLocked

// URLError reports a --store value that names no store this cairn knows.
type URLError struct{ URL string }

func (e *URLError) Error() string {
	return fmt.Sprintf("--store %s: want postgres://USER:PASSWORD@HOST[:PORT]/DB", Redact(e.URL))
}

// IsShared reports whether url names a shared (PostgreSQL) store.
func IsShared(url string) bool { return postgres.IsURL(url) }

// Redact returns a store URL without its password, for messages.
func Redact(url string) string { return postgres.Redact(url) }

// Open opens the current generation of the index o names: the only place
// that decides between the embedded and the shared store. It fails with
// graph.ErrNoIndex (wrapped) when nothing was committed yet, with
// *graph.FormatError for an index of another format and with *URLError
// for a URL of no known store.
func Open(ctx context.Context, o Options) (Store, error) {
	if o.URL == "" {
		s, err := embedded.OpenPinned(o.Dir)
		if err != nil {
			if errors.Is(err, graph.ErrNoIndex) {
				return nil, fmt.Errorf("no index in %s: %w", o.Dir, err)
			}
			return nil, err
		}
		return embeddedStore{s}, nil
	}
	if !IsShared(o.URL) {
		return nil, &URLError{URL: o.URL}
	}
	if o.RepoName == "" {
		return nil, fmt.Errorf("open %s: no repository name", Redact(o.URL))
	}
	s, err := postgres.Open(ctx, o.URL, o.RepoName, postgres.Options{CacheDir: o.CacheDir, MaxConns: o.MaxConns})
	if err != nil {
		return nil, err
	}
	return sharedStore{s}, nil
}

// embeddedStore is the embedded store, pinned to its generation.
type embeddedStore struct{ *embedded.Store }

func (s embeddedStore) SideDir(context.Context) (string, error) { return s.EpochDir(), nil }
func (s embeddedStore) ANN() ANN                                { return nil }
func (s embeddedStore) Where() string                           { return s.Dir() }
func (s embeddedStore) Warnings() []string                      { return nil }

// Both stores select one reason's skipped paths themselves, and list
// paths with their categories alone.
var (
	_ graph.SkipReasonReader = embeddedStore{}
	_ graph.SkipReasonReader = sharedStore{}
	_ graph.CategoryReader   = embeddedStore{}
)

// sharedStore is the PostgreSQL store: every query names its generation.
type sharedStore struct{ *postgres.Store }

func (s sharedStore) Pin(context.Context) error { return nil }
func (s sharedStore) Unpin()                    {}
func (s sharedStore) ANN() ANN                  { return pgANN{s.Store} }
func (s sharedStore) Where() string             { return s.Dir() }
func (s sharedStore) Warnings() []string        { return s.DB().Warnings }

type pgANN struct{ s *postgres.Store }

func (a pgANN) Nearest(ctx context.Context, q []float32, k int) ([]Neighbor, error) {
	ns, err := a.s.Nearest(ctx, q, k, postgres.SearchOptions{})
	if err != nil {
		return nil, err
	}
	out := make([]Neighbor, len(ns))
	for i, n := range ns {
		out[i] = Neighbor{ChunkID: n.ChunkID, Score: n.Score}
	}
	return out, nil
}

// WriterOptions configure OpenWriter.
type WriterOptions struct {
	// Dir is the embedded index's directory.
	Dir string
	// Full builds a new epoch from scratch even if the current one is usable.
	Full bool
	// Wait is how long to wait for another writer to finish; 0 fails at
	// once (ErrLocked).
	Wait time.Duration
	// Verify checks the index first and rebuilds it when a part is damaged
	// (embedded.WriterOptions.Verify); Repair names damage the caller
	// found.
	Verify bool
	Repair []graph.Damage
}

// Writer builds the next generation of an embedded index (graph.Writer),
// telling side indexes what they extend.
type Writer interface {
	graph.Writer
	// Fresh reports whether the run builds a new epoch from scratch, and why.
	Fresh() (bool, string)
	// Previous describes the generation an incremental run extends,
	// without the counts.
	Previous() graph.Meta
}

// OpenWriter locks the embedded index in o.Dir and opens its next
// generation for writing. (A shared store is written by builds that many
// processes share: package indexer/fleet.)
func OpenWriter(ctx context.Context, o WriterOptions) (Writer, error) {
	w, err := embedded.NewWriter(ctx, embedded.WriterOptions{Dir: o.Dir, Full: o.Full, Wait: o.Wait, Verify: o.Verify, Repair: o.Repair})
	if err != nil {
		return nil, err
	}
	return w, nil
}

// Check verifies every stored part of the index o names and returns the
// damaged ones (embedded.Check); the shared store keeps its facts in
// PostgreSQL, which checks its own pages, and returns none.
func Check(ctx context.Context, o Options) ([]graph.Damage, error) {
	if o.URL != "" {
		return nil, nil
	}
	return embedded.Check(ctx, o.Dir)
}

// IsCorrupt reports whether err is the embedded store's database finding
// itself damaged.
func IsCorrupt(err error) bool { return embedded.IsCorrupt(err) }
