package embedded

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
)

// ErrMoved is returned (wrapped) by a pinned store that can no longer read
// its generation: nothing held it while an index run committed the next
// one into the same database. Open the store again.
var ErrMoved = errors.New("the index moved on to a newer generation")

// pin reads one generation of an epoch's database through read
// transactions that began on it. In WAL mode a read transaction sees the
// database as it was when it began, whatever commits after, so every
// query through a pin answers from the same generation.
//
// A query takes a transaction for itself (none is shared between two
// queries at once: cancelling one query interrupts its whole connection)
// and gives it back when its rows are closed. When every transaction is
// busy a new one begins; if it sees another generation (a commit came in
// since) or cannot begin, it is dropped and the query waits for a busy one
// to come back.
// (So a query made while the same goroutine iterates rows of another —
// none of cairn's readers does — may wait for those rows, when a commit
// came in since the pin; its context bounds the wait.)
// Unpin ends the idle transactions, so that an idle reader does not hold
// the writer's checkpoints back; the next Pin begins one again, and fails
// with ErrMoved if the generation is gone by then.
type pin struct {
	db  *sql.DB
	gen int64

	mu   sync.Mutex
	free []*sql.Tx
	busy int
	back chan struct{} // a transaction was given back
}

func newPin(db *sql.DB) (*pin, error) {
	p := &pin{db: db, back: make(chan struct{}, 1)}
	tx, gen, err := p.begin()
	if err != nil {
		return nil, err
	}
	p.gen = gen
	p.free = append(p.free, tx)
	return p, nil
}

// begin starts a read transaction and reads the generation it sees.
func (p *pin) begin() (*sql.Tx, int64, error) {
	// Not the caller's context: database/sql rolls a transaction back
	// when the context it began with ends.
	tx, err := p.db.BeginTx(context.Background(), nil)
	if err != nil {
		return nil, 0, fmt.Errorf("begin read transaction: %w", err)
	}
	var v string
	if err := tx.QueryRow(`SELECT value FROM meta WHERE key='generation'`).Scan(&v); err != nil {
		tx.Rollback()
		return nil, 0, fmt.Errorf("read generation: %w", err)
	}
	gen, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		tx.Rollback()
		return nil, 0, fmt.Errorf("read generation %q: %w", v, err)
	}
	return tx, gen, nil
}

// take returns a transaction on p's generation for one query.
func (p *pin) take(ctx context.Context) (*sql.Tx, error) {
	for {
		p.mu.Lock()
		if n := len(p.free); n > 0 {
			tx := p.free[n-1]
			p.free = p.free[:n-1]
			p.busy++
			p.mu.Unlock()
			return tx, nil
		}
		held := p.busy > 0
		p.mu.Unlock()
		tx, gen, err := p.begin()
		if err == nil && gen == p.gen {
			p.mu.Lock()
			p.busy++
			p.mu.Unlock()
			return tx, nil
		}
		if err == nil {
			tx.Rollback()
			err = fmt.Errorf("generation %d (now %d): %w", p.gen, gen, ErrMoved)
		}
		if !held {
			return nil, err
		}
		// (a full re-index may also have removed the epoch's file, which
		// the open transactions still read)
		select {
		case <-p.back:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (p *pin) put(tx *sql.Tx) {
	p.mu.Lock()
	p.busy--
	p.free = append(p.free, tx)
	p.mu.Unlock()
	select {
	case p.back <- struct{}{}:
	default:
	}
}

// hold makes sure a transaction on p's generation is open.
func (p *pin) hold(ctx context.Context) error {
	tx, err := p.take(ctx)
	if err != nil {
		return err
	}
	p.put(tx)
	return nil
}

// release ends the idle transactions.
func (p *pin) release() {
	p.mu.Lock()
	free := p.free
	p.free = nil
	p.mu.Unlock()
	for _, tx := range free {
		tx.Rollback()
	}
}

func (p *pin) QueryContext(ctx context.Context, q string, args ...any) (rowSet, error) {
	tx, err := p.take(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		p.put(tx)
		return nil, err
	}
	return &pinnedRows{Rows: rows, p: p, tx: tx}, nil
}

func (p *pin) QueryRowContext(ctx context.Context, q string, args ...any) rowScanner {
	tx, err := p.take(ctx)
	if err != nil {
		return errRow{err}
	}
	return pinnedRow{row: tx.QueryRowContext(ctx, q, args...), p: p, tx: tx}
}

// pinnedRows gives its transaction back when closed.
type pinnedRows struct {
	*sql.Rows
	p    *pin
	tx   *sql.Tx
	once sync.Once
}

func (r *pinnedRows) Close() error {
	err := r.Rows.Close()
	r.once.Do(func() { r.p.put(r.tx) })
	return err
}

type pinnedRow struct {
	row *sql.Row
	p   *pin
	tx  *sql.Tx
}

func (r pinnedRow) Scan(dest ...any) error {
	defer r.p.put(r.tx)
	return r.row.Scan(dest...)
}

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// OpenPinned opens the current generation of the index in dir for reading,
// pinned: however many index runs commit meanwhile, the store answers from
// the generation it opened (see pin), until Close. Pin and Unpin bracket
// the periods it is used in (a server's requests); between them it holds
// no transaction. Open's errors apply.
func OpenPinned(dir string) (*Store, error) {
	s, err := Open(dir)
	if err != nil {
		return nil, err
	}
	// Each query in flight holds a connection: no fixed bound (the
	// concurrency of the requests bounds them), a few kept idle.
	s.db.SetMaxOpenConns(0)
	s.db.SetMaxIdleConns(4)
	p, err := newPin(s.db)
	if err != nil {
		s.db.Close()
		return nil, fmt.Errorf("open %s: %w", filepath.Join(dir, s.epoch, dbFile), err)
	}
	s.pin = p
	s.view = view{q: p}
	return s, nil
}

// Pin makes sure a pinned store can go on reading its generation, holding
// a read transaction until Unpin. It fails with ErrMoved when the
// generation was replaced while the store was unpinned. On a store opened
// with Open it does nothing.
func (s *Store) Pin(ctx context.Context) error {
	if s.pin == nil {
		return nil
	}
	return s.pin.hold(ctx)
}

// Unpin ends the read transactions no query is using (see Pin).
func (s *Store) Unpin() {
	if s.pin != nil {
		s.pin.release()
	}
}

// Changed reports whether the index in the store's directory now has
// another current generation than the one the store reads (a pinned
// store: the one it opened; otherwise the one it last saw): a new epoch
// published, or a commit into this one. Two cheap reads.
func (s *Store) Changed(ctx context.Context) (bool, error) {
	epoch, err := CurrentEpoch(s.dir)
	if err != nil {
		return false, err
	}
	if epoch != s.epoch {
		return true, nil
	}
	if _, err := os.Stat(filepath.Join(s.dir, s.epoch, dbFile)); err != nil {
		return true, nil
	}
	gen, err := s.Generation(ctx)
	if err != nil {
		return false, err
	}
	return gen != s.seen(), nil
}

// seen is the generation a pinned store reads (0 for an unpinned one,
// whose generation follows the database).
func (s *Store) seen() int64 {
	if s.pin != nil {
		return s.pin.gen
	}
	return s.opened
}
