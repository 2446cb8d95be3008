package resolve

import (
	"context"
	"errors"
	"unsafe"

	"github.com/cairn-dev/cairn/graph"
)

// MemSource is a Source over a symbol table held in memory: a full run's
// (or a large incremental run's) every definition, read once from the
// store. It is compact and holds no pointers: a symbol is a record of
// 4-byte offsets into blocks of bytes (its strings) and its ranges and
// flags — 112 bytes against a graph.Symbol's 240 and its strings' own
// allocations — so that the collector neither scans nor marks it. On the
// Linux kernel (4.8 M symbols) the table as graph.Symbols was 1.2 GB of
// pointerful memory that every collection of the resolution scanned, and
// with its strings the largest part of the run's peak.
//
// Symbols come out of the table made anew (Symbol, SymbolsByName), without
// their Doc and Signature (resolution needs neither), their strings views
// of the blocks: a caller may keep them for as long as it
// likes, and they keep their blocks alive as any string does.
//
// Build it with Add, then Group (which orders it by name); it is read only
// after that and safe for concurrent use.
type MemSource struct {
	recs   []symRec
	blocks [][]byte
	lists  []sref // every record's Extends then Implements
	byName map[string]nameGroup

	// Add's memory of the strings the last file's symbols repeat.
	last struct {
		path, pkg  string
		pathRef    sref
		pkgRef     sref
		containers map[string]sref
	}
}

// sref is a string in the blocks: block<<blockBits | offset, and length.
type sref struct{ at, n uint32 }

// symRec is one symbol, without its Doc and Signature: resolution needs
// neither.
type symRec struct {
	id, name, path, container, pkg, typ sref
	rng, nameRng                        graph.Range
	lists                               uint32 // index in lists of Extends
	nExt, nImpl                         uint16
	parent                              int32
	kind                                graph.SymbolKind
	lang                                graph.Language
	exported, isTest                    bool
}

type nameGroup struct{ start, n uint32 }

const (
	blockBits = 20
	blockSize = 1 << blockBits
)

// maxBlocks is how many blocks 4-byte offsets address (a variable for
// the test of a full table).
var maxBlocks = 1 << (32 - blockBits)

// ErrTableFull says a table's strings outgrew what its 4-byte offsets
// address (4 GiB): the caller looks symbols up in the store instead.
var ErrTableFull = errors.New("symbol table: more than 4 GiB of strings")

// NewMemSourceCap returns an empty table with room for n symbols (the
// store's count: a table grown by appends holds up to two copies while it
// grows).
func NewMemSourceCap(n int) *MemSource {
	return &MemSource{recs: make([]symRec, 0, n)}
}

// NewMemSource is a table of syms (their Doc and Signature left out), grouped by name (each name's in their
// order in syms). A symbol with more than 65,535 supertypes or whose
// strings do not fit panics: for tests and small tables.
func NewMemSource(syms []graph.Symbol) *MemSource {
	m := NewMemSourceCap(len(syms))
	for i := range syms {
		if err := m.Add(&syms[i]); err != nil {
			panic(err)
		}
	}
	m.Group()
	return m
}

// str copies v into the blocks.
func (m *MemSource) str(v string) (sref, error) {
	n := len(v)
	if n == 0 {
		return sref{}, nil
	}
	last := len(m.blocks) - 1
	if n > blockSize/4 || last < 0 || cap(m.blocks[last])-len(m.blocks[last]) < n {
		if len(m.blocks) == maxBlocks {
			return sref{}, ErrTableFull
		}
		size := blockSize
		if n > blockSize/4 {
			size = n // a long string has a block of its own
		}
		m.blocks = append(m.blocks, make([]byte, 0, size))
		last++
	}
	off := len(m.blocks[last])
	m.blocks[last] = append(m.blocks[last], v...)
	return sref{at: uint32(last)<<blockBits | uint32(off), n: uint32(n)}, nil
}

// get is the string r refers to, a view of its block.
func (m *MemSource) get(r sref) string {
	if r.n == 0 {
		return ""
	}
	b := m.blocks[r.at>>blockBits]
	return unsafe.String(&b[r.at&(blockSize-1)], int(r.n))
}

// Add appends a symbol. Before Group only.
func (m *MemSource) Add(s *graph.Symbol) error {
	var r symRec
	var err error
	l := &m.last
	if s.Path != l.path || l.pathRef.n == 0 {
		l.path, l.pkg = s.Path, s.Package
		clear(l.containers)
		if l.pathRef, err = m.str(s.Path); err != nil {
			return err
		}
		if l.pkgRef, err = m.str(s.Package); err != nil {
			return err
		}
	}
	r.path, r.pkg = l.pathRef, l.pkgRef
	if s.Package != l.pkg {
		if r.pkg, err = m.str(s.Package); err != nil {
			return err
		}
	}
	if s.Container != "" {
		c, ok := l.containers[s.Container]
		if !ok {
			if c, err = m.str(s.Container); err != nil {
				return err
			}
			if l.containers == nil {
				l.containers = map[string]sref{}
			}
			l.containers[m.get(c)] = c
		}
		r.container = c
	}
	if r.id, err = m.str(string(s.ID)); err != nil {
		return err
	}
	if r.name, err = m.str(s.Name); err != nil {
		return err
	}
	if r.typ, err = m.str(s.Type); err != nil {
		return err
	}
	if len(s.Extends) > 0xffff || len(s.Implements) > 0xffff {
		return errors.New("symbol table: a symbol with more than 65,535 supertypes")
	}
	r.lists, r.nExt, r.nImpl = uint32(len(m.lists)), uint16(len(s.Extends)), uint16(len(s.Implements))
	for _, ss := range [2][]string{s.Extends, s.Implements} {
		for _, v := range ss {
			x, err := m.str(v)
			if err != nil {
				return err
			}
			m.lists = append(m.lists, x)
		}
	}
	r.rng, r.nameRng, r.parent, r.kind, r.lang, r.exported, r.isTest = s.Range, s.NameRange, s.Parent, s.Kind, s.Lang, s.Exported, s.IsTest
	m.recs = append(m.recs, r)
	return nil
}

// Len is the number of symbols.
func (m *MemSource) Len() int { return len(m.recs) }

// Group orders the table by name, in place (each name's symbols in the
// order they were added), and says where each went: Symbol(at[i]) is the
// i-th added. A caller that needs another grouping (by file) keeps
// positions, 4 bytes a symbol. In place, because on the Linux kernel a
// copy of the table doubled the resolution's peak; what it allocates is
// at, a bit a symbol, and the map of names.
func (m *MemSource) Group() (at []int32) {
	m.last.containers = nil
	count := make(map[string]uint32, len(m.recs)/4)
	for i := range m.recs {
		count[m.get(m.recs[i].name)]++
	}
	m.byName = make(map[string]nameGroup, len(count))
	// The groups' places: each name's start, then (count reused) the
	// next free place of its group.
	var off uint32
	for n, c := range count {
		m.byName[n] = nameGroup{start: off, n: c}
		count[n] = off
		off += c
	}
	at = make([]int32, len(m.recs))
	for i := range m.recs {
		n := m.get(m.recs[i].name)
		at[i] = int32(count[n])
		count[n]++
	}
	// Move each record to its place, cycle by cycle: one held aside at a
	// time.
	placed := make([]uint64, (len(m.recs)+63)/64)
	for i := range m.recs {
		if placed[i/64]&(1<<(i%64)) != 0 {
			continue
		}
		cur := m.recs[i]
		for j := int(at[i]); j != i; j = int(at[j]) {
			cur, m.recs[j] = m.recs[j], cur
			placed[j/64] |= 1 << (j % 64)
		}
		m.recs[i] = cur
		placed[i/64] |= 1 << (i % 64)
	}
	return at
}

// Symbol is the symbol at position i, made anew.
func (m *MemSource) Symbol(i int32) graph.Symbol {
	r := &m.recs[i]
	s := graph.Symbol{ID: graph.SymbolID(m.get(r.id)), Name: m.get(r.name), Kind: r.kind, Lang: r.lang, Path: m.get(r.path),
		Range: r.rng, NameRange: r.nameRng, Container: m.get(r.container), Package: m.get(r.pkg),
		Type: m.get(r.typ), Exported: r.exported, IsTest: r.isTest, Parent: r.parent}
	if r.nExt > 0 || r.nImpl > 0 {
		all := make([]string, int(r.nExt)+int(r.nImpl))
		for k := range all {
			all[k] = m.get(m.lists[int(r.lists)+k])
		}
		if r.nExt > 0 {
			s.Extends = all[:r.nExt:r.nExt]
		}
		if r.nImpl > 0 {
			s.Implements = all[r.nExt:]
		}
	}
	return s
}

// Path is the path of the symbol at position i.
func (m *MemSource) Path(i int32) string { return m.get(m.recs[i].path) }

// Lang is the language of the symbol at position i.
func (m *MemSource) Lang(i int32) graph.Language { return m.recs[i].lang }

// SymbolsByName implements Source: the name's symbols, made anew (the
// caller owns the slice).
func (m *MemSource) SymbolsByName(_ context.Context, name string) ([]graph.Symbol, error) {
	g, ok := m.byName[name]
	if !ok {
		return nil, nil
	}
	out := make([]graph.Symbol, g.n)
	for k := range out {
		out[k] = m.Symbol(int32(g.start) + int32(k))
	}
	return out, nil
}
