package postgres

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cairn-dev/cairn/graph"
)

// idBlock is the size of the blocks of ids a writer takes from a sequence
// at a time (the sequences' INCREMENT BY): one round trip per 1024 rows.
const idBlock = 1024

// idAlloc hands out ids of one sequence in blocks.
type idAlloc struct {
	seq       string
	next, end int64
}

func (a *idAlloc) take(ctx context.Context, q querier) (int64, error) {
	if a.next == a.end {
		var v int64
		if err := q.QueryRow(ctx, `SELECT nextval('`+a.seq+`')`).Scan(&v); err != nil {
			return 0, fmt.Errorf("allocate ids: %w", err)
		}
		a.next, a.end = v, v+idBlock
	}
	v := a.next
	a.next++
	return v, nil
}

// sidOf is the id of a symbol string: its 64-bit FNV-1a hash, never 0 (0
// stands for no symbol).
func sidOf(s graph.SymbolID) int64 {
	if s == "" {
		return 0
	}
	h := fnv.New64a()
	h.Write([]byte(s))
	v := int64(h.Sum64())
	if v == 0 {
		v = 1
	}
	return v
}

// interner records the symbol strings a writer refers to in the sids
// table. It writes outside the writer's transaction, in short transactions
// of their own and in id order, so that writers in several processes never
// wait on each other's long transactions (a string interned by a build that
// fails later is harmless: the table is a dictionary).
type interner struct {
	pool    *pgxpool.Pool
	known   map[int64]graph.SymbolID
	pending map[int64]graph.SymbolID
}

func newInterner(pool *pgxpool.Pool) *interner {
	return &interner{pool: pool, known: map[int64]graph.SymbolID{}, pending: map[int64]graph.SymbolID{}}
}

// id returns the id of s and remembers to intern it.
func (in *interner) id(s graph.SymbolID) (int64, error) {
	if s == "" {
		return 0, nil
	}
	v := sidOf(s)
	if k, ok := in.known[v]; ok {
		if k != s {
			return 0, fmt.Errorf("symbol id collision: %q and %q hash alike", k, s)
		}
		return v, nil
	}
	if k, ok := in.pending[v]; ok && k != s {
		return 0, fmt.Errorf("symbol id collision: %q and %q hash alike", k, s)
	}
	in.pending[v] = s
	return v, nil
}

// flush interns the pending strings.
func (in *interner) flush(ctx context.Context) error {
	if len(in.pending) == 0 {
		return nil
	}
	ids := make([]int64, 0, len(in.pending))
	for id := range in.pending {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for len(ids) > 0 {
		n := min(len(ids), 20000)
		batch := ids[:n]
		ids = ids[n:]
		strs := make([]string, n)
		for i, id := range batch {
			strs[i] = string(in.pending[id])
		}
		// Insert the new ones in id order (no deadlock between writers),
		// then look for an existing string with the same id.
		var clash, mine *string
		err := in.pool.QueryRow(ctx, `WITH v(id, sid) AS (SELECT * FROM unnest($1::bigint[], $2::text[])),
			ins AS (INSERT INTO sids(id, sid) SELECT id, sid FROM v ORDER BY id ON CONFLICT (id) DO NOTHING)
			SELECT s.sid, v.sid FROM v JOIN sids s ON s.id = v.id WHERE s.sid <> v.sid COLLATE "C" LIMIT 1`, batch, strs).Scan(&clash, &mine)
		switch {
		case err == nil:
			return fmt.Errorf("symbol id collision: %q and %q hash alike", *clash, *mine)
		case !errors.Is(err, pgx.ErrNoRows):
			return fmt.Errorf("intern symbols: %w", err)
		}
		for i, id := range batch {
			in.known[id] = graph.SymbolID(strs[i])
			delete(in.pending, id)
		}
	}
	return nil
}
