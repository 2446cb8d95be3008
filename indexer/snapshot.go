package indexer

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/indexer/walk"
	"github.com/cairn-dev/cairn/internal/repofs"
)

// The stat snapshot of the freshness check.
//
// A full check (Changes) reads every directory, parses every ignore file,
// stats every file and loads the index's file list. CachedChanges keeps,
// beside the index, what the full check saw and concluded: the stat of
// every directory it entered and every ignore file it read, the stat of
// every file it kept (and of every file skipped for its size) with the
// verdict on it, and the indexed files it did not find. The next check
// answers from the snapshot when it still holds:
//
//   - a directory entered, an ignore file or .git/info/exclude whose stat
//     differs (an entry was added, removed or renamed there, or the
//     patterns changed) makes the check a full scan, which writes a new
//     snapshot;
//   - a file whose stat differs is decided again exactly as the full scan
//     decides (its path and size classify it; its size and modification
//     time against the index's record, then its content hash); one that
//     vanished, or is no longer a regular file, makes it a full scan;
//   - anything the snapshot saw change within racySlack of the moment the
//     full scan began is "racy", as in git: a change in the same clock
//     tick can leave every stat field equal, so it is decided again (a
//     file) or rescanned (a directory) on every check.
//
// Stats compare size, modification and change times in nanoseconds, inode,
// device and mode: the change time moves on every write, chmod, rename and
// link, and no tool can set it back. A snapshot names the generation it was
// taken against (generation, indexing time), the root and the walk's
// options; any other index, root or options ignore it.

// racySlack is how close to the start of a full scan a change counts as
// racy: above the kernel's coarse clock tick and the 1-2 s timestamps of
// some filesystems.
var racySlack = 2 * time.Second

// SnapshotFile is the snapshot's name in an index's state directory.
const SnapshotFile = "worktree.snap"

type fstat struct {
	size, mtime, ctime int64
	ino, dev           uint64
	mode               uint32
}

// probe is a path whose stat must be unchanged for the snapshot to hold.
type probe struct {
	path   string // absolute
	exists bool
	st     fstat
}

// The verdicts on a file the full scan visited.
const (
	fileClean     = iota // indexed, unchanged
	fileChanged          // reported: new, or changed content
	fileSkipped          // kept by the walk, skipped by the index for its content
	fileOversized        // skipped by the walk for its size: watched for its size only
)

type snapFile struct {
	path  string // repository-relative
	st    fstat
	class uint8
}

type snapshot struct {
	key     string
	maxSize int64 // the walk's, part of the key
	broken  bool  // a file vanished under the scan: not written
	taken   int64 // Unix nanoseconds, just before the scan began
	probes  []probe
	files   []snapFile
	deleted []string // indexed, not found: reported
}

// ChangeSet is a freshness check's answer.
type ChangeSet struct {
	Paths    []string // at most the limit, in walk order, then deletions
	N        int      // all changed paths
	Complete bool     // the scan finished (false: it ran out of time)
	// Fast: answered from the stat snapshot, without a scan.
	Fast bool
}

// CachedChanges is Changes kept fast by a stat snapshot at snapPath (see
// above): the same answer, from one lstat per directory and per file
// while nothing but file contents changed. m is the generation r holds;
// snapPath "" or a system without change times makes it Changes.
func CachedChanges(ctx context.Context, r graph.Reader, m graph.Meta, opts walk.Options, limit int, snapPath string) (ChangeSet, error) {
	taken := time.Now().UnixNano() // before the walker reads .git/info/exclude
	wk, err := walk.New(opts)
	if err != nil {
		return ChangeSet{}, err
	}
	if snapPath == "" || !statSupported {
		all, complete, err := scan(ctx, r, wk, nil)
		return limited(all, limit, complete, false), err
	}
	key := snapshotKey(m, wk.Root(), opts)
	maxSize := cmpOr(opts.MaxFileSize, walk.DefaultMaxFileSize)
	if s, err := readSnapshot(snapPath); err == nil && s.key == key {
		s.maxSize = maxSize
		all, ok, err := s.check(ctx, r, wk.Root())
		if err != nil {
			return ChangeSet{}, err
		}
		if ok {
			return limited(all, limit, true, true), nil
		}
	}
	s := &snapshot{key: key, maxSize: maxSize, taken: taken}
	all, complete, err := scan(ctx, r, wk, s)
	if err != nil {
		return ChangeSet{}, err
	}
	if complete && !s.broken {
		s.write(snapPath) // best effort: a read-only index directory only costs speed
	}
	return limited(all, limit, complete, false), nil
}

func limited(all []string, limit int, complete, fast bool) ChangeSet {
	cs := ChangeSet{N: len(all), Complete: complete, Fast: fast}
	cs.Paths = all[:min(limit, len(all))]
	return cs
}

func snapshotKey(m graph.Meta, root string, o walk.Options) string {
	ex := slices.Clone(o.ExcludeDirs)
	for i := range ex {
		ex[i] = filepath.ToSlash(filepath.Clean(ex[i]))
	}
	slices.Sort(ex)
	return fmt.Sprintf("gen=%d indexed=%d root=%q max=%d exclude=%q", m.Generation, m.IndexedAt.UnixNano(), root,
		cmpOr(o.MaxFileSize, walk.DefaultMaxFileSize), strings.Join(ex, "\x00"))
}

func cmpOr(a, b int64) int64 {
	if a != 0 {
		return a
	}
	return b
}

// scan is the full check: the walk against the index's file list. With s
// it records the snapshot as it goes. It returns every changed path.
func scan(ctx context.Context, r graph.Reader, wk *walk.Walker, s *snapshot) (all []string, complete bool, err error) {
	root := wk.Root()
	type walked struct {
		entries []walk.Entry
		over    []int // indexes into entries of files skipped for their size
		err     error
	}
	repo := repofs.New(root)
	// The walk (directory reads and stats) runs beside the reads of the
	// index (the store's queries).
	wc := make(chan walked, 1)
	go func() {
		var w walked
		var dir func(string) error
		skip := func(graph.Skip) error { return nil }
		if s != nil {
			s.probes = append(s.probes, probeOf(filepath.Join(root, ".git", "info", "exclude")))
			dir = func(rel string) error {
				abs := filepath.Join(root, filepath.FromSlash(rel))
				s.probes = append(s.probes, probeOf(abs))
				for _, name := range []string{".gitignore", ".cairnignore"} {
					if p := probeOf(filepath.Join(abs, name)); p.exists {
						s.probes = append(s.probes, p)
					}
				}
				return nil
			}
			skip = func(k graph.Skip) error {
				if k.Reason == graph.SkipOversized && !k.Dir {
					w.over = append(w.over, len(w.entries))
					w.entries = append(w.entries, walk.Entry{Path: k.Path})
				}
				return nil
			}
		}
		w.err = wk.WalkDirs(ctx, dir, func(e walk.Entry) error { w.entries = append(w.entries, e); return nil }, skip)
		wc <- w
	}()
	files, err := r.Files(ctx)
	if err != nil {
		return nil, false, err
	}
	skips, err := r.Skips(ctx)
	if err != nil {
		return nil, false, err
	}
	indexed := make(map[string]*graph.File, len(files))
	for i := range files {
		indexed[files[i].Path] = &files[i]
	}
	skipped := make(map[string]bool, len(skips))
	for _, k := range skips {
		skipped[k.Path] = true
	}
	w := <-wc
	if w.err != nil && ctx.Err() == nil {
		return nil, false, w.err
	}
	over := make(map[int]bool, len(w.over))
	for _, i := range w.over {
		over[i] = true
	}
	seen := make(map[string]bool, len(files))
	for i, e := range w.entries {
		var sf snapFile
		if s != nil {
			sf.path = e.Path
			if over[i] {
				st, err := lstatPath(filepath.Join(root, filepath.FromSlash(e.Path)))
				if err != nil {
					s.broken = true // vanished under the scan: no snapshot this time
					continue
				}
				sf.st, sf.class = st, fileOversized
				s.files = append(s.files, sf)
				continue
			}
			st, ok := statOfInfo(e.Info)
			s.broken = s.broken || !ok
			sf.st = st
		}
		if over[i] {
			continue
		}
		class := uint8(fileClean)
		f := indexed[e.Path]
		switch {
		case f == nil && skipped[e.Path]: // skipped for its content: nothing to index
			class = fileSkipped
		case f == nil:
			class = fileChanged
		default:
			seen[e.Path] = true
			if f.Size == e.Size && f.ModTime == e.ModTime {
				break
			}
			if ctx.Err() != nil {
				return all, false, nil
			}
			if b, err := repo.ReadFile(e.Path); err != nil || BlobHash(b) != f.Hash {
				class = fileChanged
			}
		}
		if class == fileChanged {
			all = append(all, e.Path)
		}
		if s != nil {
			sf.class = class
			s.files = append(s.files, sf)
		}
	}
	if w.err != nil {
		return all, false, nil // the walk ran out of time: no deletions
	}
	for _, f := range files {
		if !seen[f.Path] {
			all = append(all, f.Path) // deleted, or no longer indexable
			if s != nil {
				s.deleted = append(s.deleted, f.Path)
			}
		}
	}
	if s != nil && ctx.Err() != nil {
		return all, false, nil
	}
	return all, true, nil
}

func probeOf(abs string) probe {
	st, err := lstatPath(abs)
	return probe{path: abs, exists: err == nil, st: st}
}

// check answers from the snapshot; ok is false when it no longer holds and
// a full scan must decide.
func (s *snapshot) check(ctx context.Context, r graph.Reader, root string) (all []string, ok bool, err error) {
	racy := func(st fstat) bool {
		return st.ctime >= s.taken-int64(racySlack) || st.mtime >= s.taken-int64(racySlack)
	}
	probes := make([]probe, len(s.probes))
	stats := make([]fstat, len(s.files))
	errs := make([]bool, len(s.files))
	// The stats run on a few goroutines: they are system calls, and the
	// query the check runs beside is mostly waiting on them.
	const workers = 4
	var wg sync.WaitGroup
	for k := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := k; i < len(s.probes); i += workers {
				probes[i] = probeOf(s.probes[i].path)
			}
			var b []byte
			for i := k; i < len(s.files); i += workers {
				b = append(append(append(b[:0], root...), '/'), s.files[i].path...)
				st, err := lstatPath(string(b))
				stats[i], errs[i] = st, err != nil
			}
		}()
	}
	wg.Wait()
	for i, p := range probes {
		old := s.probes[i]
		if p.exists != old.exists || (p.exists && (p.st != old.st || racy(old.st))) {
			return nil, false, nil
		}
	}
	var repo *repofs.FS
	for i, f := range s.files {
		st := stats[i]
		if errs[i] || !st.regular() {
			return nil, false, nil
		}
		class := f.class
		if st != f.st || racy(f.st) {
			reason, _ := walk.ClassifyPath(f.path, st.size, s.maxSize)
			switch {
			case f.class == fileOversized && reason == graph.SkipOversized:
			case f.class == fileOversized || reason != graph.SkipNone:
				return nil, false, nil // classified otherwise: let the walk decide
			case f.class == fileSkipped:
			default:
				if ctx.Err() != nil {
					return nil, false, ctx.Err()
				}
				if repo == nil {
					repo = repofs.New(root)
				}
				if class, err = decide(ctx, r, repo, f.path, st); err != nil {
					return nil, false, err
				}
			}
		}
		if class == fileChanged {
			all = append(all, f.path)
		}
	}
	return append(all, s.deleted...), true, nil
}

// decide is the full scan's verdict on one kept file.
func decide(ctx context.Context, r graph.Reader, repo *repofs.FS, p string, st fstat) (uint8, error) {
	f, err := r.File(ctx, p)
	if errors.Is(err, graph.ErrNotFound) {
		return fileChanged, nil
	}
	if err != nil {
		return 0, err
	}
	if f.Size == st.size && f.ModTime == st.mtime {
		return fileClean, nil
	}
	if b, err := repo.ReadFile(p); err != nil || BlobHash(b) != f.Hash {
		return fileChanged, nil
	}
	return fileClean, nil
}

// The snapshot's file: a magic line, then uvarint-prefixed strings and
// varints, then the CRC-32C of everything before it: a damaged snapshot is
// refused, and the check falls back to the full scan (a flipped byte must
// not make a changed file look clean).
const snapMagic = "cairn worktree snapshot 2\n"

var snapCRC = crc32.MakeTable(crc32.Castagnoli)

func (s *snapshot) write(path string) error {
	var b []byte
	b = append(b, snapMagic...)
	str := func(v string) { b = binary.AppendUvarint(b, uint64(len(v))); b = append(b, v...) }
	st := func(v fstat) {
		b = binary.AppendVarint(b, v.size)
		b = binary.AppendVarint(b, v.mtime)
		b = binary.AppendVarint(b, v.ctime)
		b = binary.AppendUvarint(b, v.ino)
		b = binary.AppendUvarint(b, v.dev)
		b = binary.AppendUvarint(b, uint64(v.mode))
	}
	str(s.key)
	b = binary.AppendVarint(b, s.taken)
	b = binary.AppendUvarint(b, uint64(len(s.probes)))
	for _, p := range s.probes {
		str(p.path)
		if p.exists {
			b = append(b, 1)
			st(p.st)
		} else {
			b = append(b, 0)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(s.files)))
	for _, f := range s.files {
		str(f.path)
		st(f.st)
		b = append(b, f.class)
	}
	b = binary.AppendUvarint(b, uint64(len(s.deleted)))
	for _, d := range s.deleted {
		str(d)
	}
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, snapCRC))
	tmp, err := os.CreateTemp(filepath.Dir(path), ".worktree-snap-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(b)
	if err == nil {
		err = tmp.Chmod(0o644) // as readable as the index beside it
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

var errSnapshot = errors.New("bad worktree snapshot")

func readSnapshot(path string) (*snapshot, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(data) < 4 {
		return nil, errSnapshot
	}
	data, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.Checksum(data, snapCRC) != sum {
		return nil, errSnapshot
	}
	b, ok := bytes.CutPrefix(data, []byte(snapMagic))
	if !ok {
		return nil, errSnapshot
	}
	bad := false
	uv := func() uint64 {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			bad = true
			return 0
		}
		b = b[n:]
		return v
	}
	sv := func() int64 {
		v, n := binary.Varint(b)
		if n <= 0 {
			bad = true
			return 0
		}
		b = b[n:]
		return v
	}
	str := func() string {
		n := uv()
		if bad || n > uint64(len(b)) {
			bad = true
			return ""
		}
		v := string(b[:n])
		b = b[n:]
		return v
	}
	byt := func() uint8 {
		if len(b) == 0 {
			bad = true
			return 0
		}
		v := b[0]
		b = b[1:]
		return v
	}
	st := func() fstat {
		return fstat{size: sv(), mtime: sv(), ctime: sv(), ino: uv(), dev: uv(), mode: uint32(uv())}
	}
	count := func() int {
		n := uv()
		if n > uint64(len(b)) { // every record takes at least a byte
			bad = true
			return 0
		}
		return int(n)
	}
	s := &snapshot{key: str(), taken: sv()}
	s.probes = make([]probe, count())
	for i := range s.probes {
		s.probes[i].path = str()
		if s.probes[i].exists = byt() == 1; s.probes[i].exists {
			s.probes[i].st = st()
		}
	}
	s.files = make([]snapFile, count())
	for i := range s.files {
		s.files[i] = snapFile{path: str(), st: st(), class: byt()}
	}
	s.deleted = make([]string, count())
	for i := range s.deleted {
		s.deleted[i] = str()
	}
	if bad || len(b) != 0 {
		return nil, errSnapshot
	}
	return s, nil
}
