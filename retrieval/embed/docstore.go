package embed

import (
	"encoding/binary"
	"fmt"
	"os"
)

// docStore keeps the trainer's documents — each a sequence of provisional
// term ids — in a form whose memory does not grow with the repository:
// every id is a uvarint appended to a buffer, and when the buffer passes
// spillAt bytes and a directory was given (PPMIOptions.SpillDir) it is
// written to an unlinked-on-close temporary file there. What stays in
// memory per document is its end offset (8 bytes) and its content hash (8
// bytes, for contentOrder); on the Linux kernel (about 1.5 M chunks, 200 M
// terms) the term ids held as []int32 were most of a gigabyte.
//
// Layout of the spill file: the documents' uvarints back to back, document
// i spanning [end[i-1], end[i]) (end[-1] = 0); bytes below spilled are in
// the file, the rest in buf. Nothing outlives the trainer (Close removes it).
type docStore struct {
	dir     string
	spillAt int
	buf     []byte // ids not yet written to the file
	file    *os.File
	spilled int64   // bytes in the file
	end     []int64 // end offset of each document
	hash    []uint64
	err     error // the first spill error; reads then see only what stayed
}

const defaultSpillAt = 8 << 20

func (s *docStore) add(ids []int32, hash uint64) {
	for _, id := range ids {
		s.buf = binary.AppendUvarint(s.buf, uint64(id))
	}
	s.end = append(s.end, s.spilled+int64(len(s.buf)))
	s.hash = append(s.hash, hash)
	if s.dir != "" && s.err == nil && len(s.buf) >= s.spillAt {
		s.spill()
	}
}

func (s *docStore) spill() {
	if s.file == nil {
		f, err := os.CreateTemp(s.dir, "vec-spill-*.tmp")
		if err != nil {
			s.err = fmt.Errorf("spill embedding documents: %w", err)
			return
		}
		s.file = f
	}
	if _, err := s.file.WriteAt(s.buf, s.spilled); err != nil {
		s.err = fmt.Errorf("spill embedding documents: %w", err)
		return
	}
	s.spilled += int64(len(s.buf))
	s.buf = s.buf[:0]
}

func (s *docStore) len() int { return len(s.end) }

// doc appends document i's ids to dst (safe for concurrent use once adding
// is over: the file is read with ReadAt).
func (s *docStore) doc(i int, dst []int32, scratch *[]byte) ([]int32, error) {
	lo := int64(0)
	if i > 0 {
		lo = s.end[i-1]
	}
	hi := s.end[i]
	var b []byte
	switch {
	case lo >= s.spilled:
		b = s.buf[lo-s.spilled : hi-s.spilled]
	case hi <= s.spilled:
		if int64(cap(*scratch)) < hi-lo {
			*scratch = make([]byte, hi-lo)
		}
		b = (*scratch)[:hi-lo]
		if _, err := s.file.ReadAt(b, lo); err != nil {
			return dst, fmt.Errorf("read spilled embedding document: %w", err)
		}
	default: // a document is never split: spills happen between documents
		return dst, fmt.Errorf("embedding document %d straddles the spill file", i)
	}
	for len(b) > 0 {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return dst, fmt.Errorf("corrupt embedding document %d", i)
		}
		dst = append(dst, int32(v))
		b = b[n:]
	}
	return dst, nil
}

// close removes the spill file.
func (s *docStore) close() {
	if s.file != nil {
		name := s.file.Name()
		s.file.Close()
		os.Remove(name)
		s.file = nil
	}
}
