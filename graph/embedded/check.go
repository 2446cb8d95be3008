package embedded

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/mattn/go-sqlite3"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/internal/must"
)

// manifestKey is the meta key holding the epoch's file manifest: every file
// the side indexes wrote beside index.db, with its size and CRC-32C, so that
// Check can tell a damaged one (see doc.go, Damage).
const manifestKey = "files"

type fileSum struct {
	Size int64  `json:"size"`
	CRC  uint32 `json:"crc32c"`
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// isDBFile: the database and SQLite's own files, which change with every
// incremental commit and are checked by SQLite instead.
func isDBFile(rel string) bool {
	return rel == dbFile || strings.HasPrefix(rel, dbFile+"-")
}

// PartOf names the part of the index an epoch file belongs to.
func PartOf(rel string) string {
	first, _, _ := strings.Cut(rel, "/")
	switch {
	case isDBFile(rel):
		return "facts database"
	case strings.HasPrefix(first, "bm25-"):
		return "text index segment " + first
	case strings.HasPrefix(first, "vec-") && strings.HasSuffix(first, ".bin"):
		return "vector segment " + first
	case strings.HasPrefix(first, "vec-"):
		return "embedding model " + first
	case strings.HasPrefix(first, "history-"):
		return "commit history " + first
	}
	return "index file " + rel
}

// IsSidePart reports whether a part (as PartOf names it) belongs to a side
// index, which can be rebuilt from the stored facts.
func IsSidePart(part string) bool {
	return strings.HasPrefix(part, "text index") || strings.HasPrefix(part, "vector segment") || strings.HasPrefix(part, "embedding model") ||
		strings.HasPrefix(part, "commit history")
}

type statKey struct {
	Size  int64  `json:"size"`
	MTime int64  `json:"mtime"`
	Ino   uint64 `json:"ino"`
}

func statOf(info fs.FileInfo) statKey {
	k := statKey{Size: info.Size(), MTime: info.ModTime().UnixNano()}
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		k.Ino = st.Ino
	}
	return k
}

// epochFiles lists the side files of an epoch directory (not the
// database's), by path relative to it.
func epochFiles(edir string) (map[string]fs.FileInfo, error) {
	out := map[string]fs.FileInfo{}
	err := filepath.WalkDir(edir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(edir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if isDBFile(rel) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out[rel] = info
		return nil
	})
	return out, err
}

func crcFile(path string) (uint32, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	h := crc32.New(castagnoli)
	if _, err := io.Copy(h, f); err != nil {
		return 0, err
	}
	return h.Sum32(), nil
}

// manifest sums the epoch's side files for the commit: a file the previous
// generation listed and that nothing rewrote since this writer opened keeps
// its entry (so a file damaged before the run stays detectably damaged);
// every other file is read and summed.
func (w *Writer) manifest() (string, error) {
	var prev map[string]fileSum
	if !w.fresh {
		json.Unmarshal([]byte(w.prev.Extra[manifestKey]), &prev) // none (an older index): sum everything
	}
	files, err := epochFiles(w.Dir())
	if err != nil {
		return "", fmt.Errorf("list index files: %w", err)
	}
	out := make(map[string]fileSum, len(files))
	for rel, info := range files {
		if s, ok := prev[rel]; ok {
			if before, seen := w.opened[rel]; seen && before == statOf(info) {
				out[rel] = s
				continue
			}
		}
		crc, err := crcFile(filepath.Join(w.Dir(), filepath.FromSlash(rel)))
		if err != nil {
			return "", fmt.Errorf("sum index file %s: %w", rel, err)
		}
		out[rel] = fileSum{Size: info.Size(), CRC: crc}
	}
	b, err := json.Marshal(out)
	return string(b), err
}

// Check verifies every stored part of the index in dir: the pointer
// (CURRENT), the facts database (SQLite's quick_check: every page and
// record well formed), and each side file against the manifest its
// generation committed (size and CRC-32C). It returns the damaged parts,
// none for a sound index; graph.ErrNoIndex when there is no index and a
// *graph.FormatError for one of another format, which are not damage.
// The cost is reading the whole index once.
func Check(ctx context.Context, dir string) ([]graph.Damage, error) {
	cur, err := readCurrent(dir)
	var fe *graph.FormatError
	switch {
	case errors.Is(err, graph.ErrNoIndex), errors.As(err, &fe):
		return nil, err
	case err != nil:
		return []graph.Damage{{Part: "index pointer", Path: filepath.Join(dir, currentFile), Problem: unwrapPointer(err)}}, nil
	}
	edir := filepath.Join(dir, cur.Epoch)
	dbPath := filepath.Join(edir, dbFile)
	dbDamage := func(problem string) []graph.Damage {
		return []graph.Damage{{Part: "facts database", Path: dbPath, Problem: problem}}
	}
	if _, err := os.Stat(dbPath); err != nil {
		return dbDamage("missing"), nil
	}
	db, err := openDB(dbPath, true)
	if err != nil {
		return dbDamage(sqliteProblem(err)), nil
	}
	defer db.Close()
	verified := isVerified(dir, cur.Epoch)
	before, _ := dbState(dir, cur.Epoch) // (what quick_check reads; a later change is checked next time)
	if !verified {
		problem, err := quickCheck(ctx, db)
		if err != nil {
			return nil, err
		}
		if problem != "" {
			return dbDamage(problem), nil
		}
	}
	m, err := readMetaKeys(ctx, sqlQuerier{db})
	if err != nil {
		return dbDamage(sqliteProblem(err)), nil
	}
	if !verified {
		writeVerified(dir, before) // (best effort: a reader may not write here)
	}
	raw, ok := m.Extra[manifestKey]
	if !ok {
		return nil, nil // an index from before manifests: its side files cannot be checked
	}
	var sums map[string]fileSum
	if err := json.Unmarshal([]byte(raw), &sums); err != nil {
		return dbDamage("file manifest unreadable: " + err.Error()), nil
	}
	names := make([]string, 0, len(sums))
	for n := range sums {
		names = append(names, n)
	}
	slices.Sort(names)
	var out []graph.Damage
	damaged := map[string]bool{}
	for _, rel := range names {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		part := PartOf(rel)
		if damaged[part] {
			continue
		}
		s := sums[rel]
		p := filepath.Join(edir, filepath.FromSlash(rel))
		problem := ""
		if info, err := os.Stat(p); err != nil {
			problem = "missing"
		} else if info.Size() != s.Size {
			problem = fmt.Sprintf("%d bytes, %d when written: truncated or overwritten", info.Size(), s.Size)
		} else if crc, err := crcFile(p); err != nil {
			problem = err.Error()
		} else if crc != s.CRC {
			problem = "checksum mismatch: overwritten"
		}
		if problem != "" {
			damaged[part] = true
			out = append(out, graph.Damage{Part: part, Path: p, Problem: problem})
		}
	}
	return out, nil
}

// quickCheck runs SQLite's quick_check: every page and record well formed.
// It returns what is wrong ("" for nothing), or the context's error.
func quickCheck(ctx context.Context, db *sql.DB) (string, error) {
	rows, err := db.QueryContext(ctx, `PRAGMA quick_check(3)`)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return sqliteProblem(err), nil
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err == nil {
			lines = append(lines, s)
		}
	}
	if err := rows.Err(); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return sqliteProblem(err), nil
	}
	if len(lines) != 1 || lines[0] != "ok" {
		return "corrupt pages (" + strings.Join(lines, "; ") + ")", nil
	}
	return "", nil
}

// verifiedFile records the state of the database files when they were last
// verified (quick_check) or committed by a writer that opened them verified:
// while they are unchanged, Check need not read every page again — on a
// large index (190 MB of facts) quick_check takes about two seconds, which
// every `cairn index` and `cairn status` would otherwise pay.
const verifiedFile = "VERIFIED"

type verifiedState struct {
	Epoch string  `json:"epoch"`
	DB    statKey `json:"db"`
	WAL   statKey `json:"wal"`
}

func dbState(dir, epoch string) (verifiedState, bool) {
	v := verifiedState{Epoch: epoch}
	p := filepath.Join(dir, epoch, dbFile)
	info, err := os.Stat(p)
	if err != nil {
		return v, false
	}
	v.DB = statOf(info)
	if info, err := os.Stat(p + "-wal"); err == nil && info.Size() > 0 {
		v.WAL = statOf(info) // (an empty WAL is no WAL)
	}
	return v, true
}

// isVerified reports whether the database of epoch is as it was when last
// verified.
func isVerified(dir, epoch string) bool {
	b, err := os.ReadFile(filepath.Join(dir, verifiedFile))
	if err != nil {
		return false
	}
	var was verifiedState
	if json.Unmarshal(b, &was) != nil {
		return false
	}
	now, ok := dbState(dir, epoch)
	return ok && now == was
}

// writeVerified records the database files in state v as verified.
func writeVerified(dir string, v verifiedState) {
	b := must.JSON(v) // a string and integers
	tmp := filepath.Join(dir, verifiedFile+".tmp")
	if os.WriteFile(tmp, b, 0o644) == nil {
		os.Rename(tmp, filepath.Join(dir, verifiedFile))
	}
}

func unwrapPointer(err error) string {
	var pe *pointerError
	if errors.As(err, &pe) {
		return pe.problem
	}
	return err.Error()
}

// sqliteProblem says what SQLite found, without the path (the damage names
// it).
func sqliteProblem(err error) string {
	var se sqlite3.Error
	if errors.As(err, &se) {
		return se.Error()
	}
	return err.Error()
}

// IsCorrupt reports whether err is SQLite finding the database damaged
// (malformed, or not a database at all).
func IsCorrupt(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && (se.Code == sqlite3.ErrCorrupt || se.Code == sqlite3.ErrNotADB)
}
