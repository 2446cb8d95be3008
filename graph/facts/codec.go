package facts

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/cairn-dev/cairn/graph"
)

// The facts blob of a file (column files.facts) holds the facts that are
// read per file rather than queried across files: occurrences, imports and
// bindings. Layout, all integers unsigned varints unless noted:
//
//	version byte (factsVersion)
//	nstrings, then each string as length + bytes      (string table)
//	nocc, then each occurrence:
//	    name, qualifier+1 (0 = none), symbol+1 (0 = unresolved)  string refs
//	    role byte, confidence byte, enclosing+1
//	    range (see below; start byte delta-coded against the previous)
//	nimports, then each: module, name, alias (string refs), range
//	nbindings, then each: name, type (string refs), scope+1, range
//	nedges, then each: from, to (string refs), kind byte, confidence byte, range
//
// A range is: start byte (delta), length, start line (delta), start col,
// line count - 1, end col.
const factsVersion = 3

var errCorrupt = errors.New("corrupt facts blob")

type encoder struct {
	buf     []byte
	strings map[string]uint64
	table   []string
	body    []byte
	last    graph.Range
}

func (e *encoder) str(s string) uint64 {
	if i, ok := e.strings[s]; ok {
		return i
	}
	i := uint64(len(e.table))
	e.strings[s] = i
	e.table = append(e.table, s)
	return i
}

func (e *encoder) uv(v uint64) { e.body = binary.AppendUvarint(e.body, v) }

func (e *encoder) rng(r graph.Range) {
	e.uv(uint64(int64(r.StartByte)-int64(e.last.StartByte)) & 0xffffffff)
	e.uv(uint64(r.EndByte - r.StartByte))
	e.uv(uint64(r.StartLine-e.last.StartLine) & 0xffffffff)
	e.uv(uint64(r.StartCol))
	e.uv(uint64(r.EndLine - r.StartLine))
	e.uv(uint64(r.EndCol))
	e.last = r
}

// encodeFacts serialises the per-file facts of ff.
func Encode(ff *graph.FileFacts) []byte {
	e := &encoder{strings: map[string]uint64{}}
	e.uv(uint64(len(ff.Occurrences)))
	for i := range ff.Occurrences {
		o := &ff.Occurrences[i]
		e.uv(e.str(o.Name))
		if o.Qualifier == "" {
			e.uv(0)
		} else {
			e.uv(e.str(o.Qualifier) + 1)
		}
		if o.Symbol == "" {
			e.uv(0)
		} else {
			e.uv(e.str(string(o.Symbol)) + 1)
		}
		e.body = append(e.body, byte(o.Role), byte(o.Confidence))
		e.uv(uint64(o.Enclosing + 1))
		e.rng(o.Range)
	}
	e.last = graph.Range{}
	e.uv(uint64(len(ff.Imports)))
	for i := range ff.Imports {
		im := &ff.Imports[i]
		e.uv(e.str(im.Module))
		e.uv(e.str(im.Name))
		e.uv(e.str(im.Alias))
		e.rng(im.Range)
	}
	e.last = graph.Range{}
	e.uv(uint64(len(ff.Bindings)))
	for i := range ff.Bindings {
		b := &ff.Bindings[i]
		e.uv(e.str(b.Name))
		e.uv(e.str(b.Type))
		e.uv(uint64(b.Scope + 1))
		e.rng(b.Range)
	}
	e.last = graph.Range{}
	e.uv(uint64(len(ff.Edges)))
	for i := range ff.Edges {
		ed := &ff.Edges[i]
		e.uv(e.str(string(ed.From)))
		e.uv(e.str(string(ed.To)))
		e.body = append(e.body, byte(ed.Kind), byte(ed.Confidence))
		e.rng(ed.Range)
	}
	out := make([]byte, 0, len(e.body)+16*len(e.table)+8)
	out = append(out, factsVersion)
	out = binary.AppendUvarint(out, uint64(len(e.table)))
	for _, s := range e.table {
		out = binary.AppendUvarint(out, uint64(len(s)))
		out = append(out, s...)
	}
	return append(out, e.body...)
}

type decoder struct {
	b     []byte
	err   error
	table []string
	last  graph.Range
}

func (d *decoder) uv() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errCorrupt
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) byte1() byte {
	if d.err != nil || len(d.b) == 0 {
		d.err = errCorrupt
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) str() string {
	i := d.uv()
	if d.err != nil || i >= uint64(len(d.table)) {
		d.err = errCorrupt
		return ""
	}
	return d.table[i]
}

func (d *decoder) optStr() string {
	i := d.uv()
	if i == 0 || d.err != nil {
		return ""
	}
	if i-1 >= uint64(len(d.table)) {
		d.err = errCorrupt
		return ""
	}
	return d.table[i-1]
}

func (d *decoder) count(minBytes int) int {
	n := d.uv()
	if d.err == nil && n > uint64(len(d.b)/minBytes+1) {
		d.err = errCorrupt // more items than bytes left: corrupt
		return 0
	}
	return int(n)
}

func (d *decoder) rng() graph.Range {
	var r graph.Range
	r.StartByte = d.last.StartByte + uint32(d.uv())
	r.EndByte = r.StartByte + uint32(d.uv())
	r.StartLine = d.last.StartLine + uint32(d.uv())
	r.StartCol = uint32(d.uv())
	r.EndLine = r.StartLine + uint32(d.uv())
	r.EndCol = uint32(d.uv())
	d.last = r
	return r
}

// decodeFacts fills ff's occurrences, imports and bindings from a blob.
func Decode(b []byte, ff *graph.FileFacts) error {
	if len(b) == 0 {
		return nil
	}
	if b[0] != factsVersion {
		return fmt.Errorf("facts blob version %d, want %d", b[0], factsVersion)
	}
	d := &decoder{b: b[1:]}
	n := d.count(1)
	d.table = make([]string, 0, n)
	for i := 0; i < n && d.err == nil; i++ {
		l := d.uv()
		if d.err != nil || l > uint64(len(d.b)) {
			return errCorrupt
		}
		d.table = append(d.table, string(d.b[:l]))
		d.b = d.b[l:]
	}
	n = d.count(10)
	if n > 0 {
		ff.Occurrences = make([]graph.Occurrence, n)
	}
	for i := 0; i < n && d.err == nil; i++ {
		o := &ff.Occurrences[i]
		o.Name = d.str()
		o.Qualifier = d.optStr()
		o.Symbol = graph.SymbolID(d.optStr())
		o.Role = graph.Role(d.byte1())
		o.Confidence = graph.Confidence(d.byte1())
		o.Enclosing = int32(d.uv()) - 1
		o.Range = d.rng()
	}
	d.last = graph.Range{}
	n = d.count(9)
	if n > 0 {
		ff.Imports = make([]graph.Import, n)
	}
	for i := 0; i < n && d.err == nil; i++ {
		im := &ff.Imports[i]
		im.Module, im.Name, im.Alias = d.str(), d.str(), d.str()
		im.Range = d.rng()
	}
	d.last = graph.Range{}
	n = d.count(9)
	if n > 0 {
		ff.Bindings = make([]graph.Binding, n)
	}
	for i := 0; i < n && d.err == nil; i++ {
		bd := &ff.Bindings[i]
		bd.Name, bd.Type = d.str(), d.str()
		bd.Scope = int32(d.uv()) - 1
		bd.Range = d.rng()
	}
	d.last = graph.Range{}
	n = d.count(8)
	if n > 0 {
		ff.Edges = make([]graph.Edge, n)
	}
	for i := 0; i < n && d.err == nil; i++ {
		ed := &ff.Edges[i]
		ed.From, ed.To = graph.SymbolID(d.str()), graph.SymbolID(d.str())
		ed.Kind, ed.Confidence = graph.EdgeKind(d.byte1()), graph.Confidence(d.byte1())
		ed.Range = d.rng()
	}
	if d.err == nil && len(d.b) != 0 {
		d.err = errCorrupt
	}
	return d.err
}
