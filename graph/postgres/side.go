package postgres

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Side indexes (bleve text segments, vector segments, the built-in
// embedding model) are files. The finalizer writes them into a local
// directory and its commit stores them in the database, content-addressed
// (blobs) and listed per generation (gen_side_files). A reader materializes
// a generation's files once per machine into
//
//	<cache>/<repo id>/gen-<generation id>/      hard links into
//	<cache>/blobs/<sha256>                      the local blob store
//
// so every reader of a generation, on any machine, searches the very same
// segment files. A generation extending another shares its unchanged
// segments (same hash): only new segments travel.

const blobPart = 32 << 20

func randSuffix() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (db *DB) repoCache(repo int64) string {
	return filepath.Join(db.cache, strconv.FormatInt(repo, 10))
}

// buildDir makes the finalizer's local side-index directory, filled with
// the side files of the generation the build extends.
func (db *DB) buildDir(ctx context.Context, b *Build) (string, error) {
	dir := filepath.Join(db.repoCache(b.RepoID), fmt.Sprintf("build-%d-%s", b.ID, randSuffix()))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create side-index directory: %w", err)
	}
	if b.Base != 0 {
		if err := db.materializeInto(ctx, b.Base, dir, true); err != nil {
			os.RemoveAll(dir)
			return "", err
		}
	}
	return dir, nil
}

// keepBuildDir moves a committed build's directory to where readers of the
// generation look, so that this machine does not fetch it again.
func (db *DB) keepBuildDir(b *Build, dir string) {
	final := filepath.Join(db.repoCache(b.RepoID), fmt.Sprintf("gen-%d", b.ID))
	if err := os.WriteFile(filepath.Join(dir, ".complete"), nil, 0o644); err != nil {
		os.RemoveAll(dir)
		return
	}
	if err := os.Rename(dir, final); err != nil {
		os.RemoveAll(dir)
	}
}

// publishSide stores the files of the writer's side-index directory for its
// generation.
func (w *Writer) publishSide(ctx context.Context) error {
	type entry struct {
		rel, hash string
		size      int64
	}
	var list []entry
	err := filepath.WalkDir(w.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(w.dir, p)
		rel = filepath.ToSlash(rel)
		if rel == ".complete" {
			return nil
		}
		hash, size, err := w.db.storeBlob(ctx, p)
		if err != nil {
			return err
		}
		list = append(list, entry{rel, hash, size})
		return nil
	})
	if err != nil {
		return fmt.Errorf("publish side indexes: %w", err)
	}
	rows := make([][]any, len(list))
	for i, e := range list {
		rows[i] = []any{w.gen, e.rel, e.hash, e.size}
	}
	if _, err := w.tx.Exec(ctx, `DELETE FROM gen_side_files WHERE gen_id = $1`, w.gen); err != nil {
		return w.db.queryErr("publish side indexes", err)
	}
	if _, err := w.tx.CopyFrom(ctx, pgx.Identifier{"gen_side_files"}, []string{"gen_id", "path", "hash", "size"}, pgx.CopyFromRows(rows)); err != nil {
		return w.db.queryErr("publish side indexes", err)
	}
	return nil
}

func hashFile(p string) (string, int64, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	return hex.EncodeToString(h.Sum(nil)), n, err
}

// storeBlob uploads a file unless the database has its content already. It
// writes outside the finalizer's transaction (content-addressed rows are
// never in conflict); blobs nothing refers to are collected after a grace
// period.
func (db *DB) storeBlob(ctx context.Context, p string) (string, int64, error) {
	hash, size, err := hashFile(p)
	if err != nil {
		return "", 0, err
	}
	var have bool
	if err := db.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM blobs WHERE hash = $1)`, hash).Scan(&have); err != nil {
		return "", 0, db.queryErr("look up blob", err)
	}
	if have {
		// Refresh it, so that a concurrent collection spares it.
		_, err := db.pool.Exec(ctx, `UPDATE blobs SET created_at = now() WHERE hash = $1`, hash)
		return hash, size, db.queryErr("touch blob", err)
	}
	f, err := os.Open(p)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return "", 0, db.queryErr("store blob", err)
	}
	defer tx.Rollback(ctx)
	buf := make([]byte, blobPart)
	for part := 0; ; part++ {
		n, err := io.ReadFull(f, buf)
		if n > 0 || part == 0 {
			if _, err := tx.Exec(ctx, `INSERT INTO blobs(hash, part, data) VALUES($1, $2, $3) ON CONFLICT DO NOTHING`, hash, part, buf[:n]); err != nil {
				return "", 0, db.queryErr("store blob", err)
			}
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return "", 0, err
		}
	}
	return hash, size, db.queryErr("store blob", tx.Commit(ctx))
}

// SideDir returns the local directory holding the side indexes of the
// store's generation, fetching them from the database the first time on
// this machine.
func (s *Store) SideDir(ctx context.Context) (string, error) {
	s.sideMu <- struct{}{}
	defer func() { <-s.sideMu }()
	if s.side != "" {
		return s.side, nil
	}
	dir := filepath.Join(s.db.repoCache(s.repo), fmt.Sprintf("gen-%d", s.gen))
	if _, err := os.Stat(filepath.Join(dir, ".complete")); err != nil {
		tmp := filepath.Join(s.db.repoCache(s.repo), "tmp-"+randSuffix())
		if err := os.MkdirAll(tmp, 0o755); err != nil {
			return "", fmt.Errorf("side-index cache: %w", err)
		}
		if err := s.db.materializeInto(ctx, s.gen, tmp, false); err != nil {
			os.RemoveAll(tmp)
			return "", err
		}
		os.WriteFile(filepath.Join(tmp, ".complete"), nil, 0o644)
		if err := os.Rename(tmp, dir); err != nil {
			// Another process got there first.
			os.RemoveAll(tmp)
			if _, err := os.Stat(filepath.Join(dir, ".complete")); err != nil {
				return "", fmt.Errorf("side-index cache %s: %w", dir, err)
			}
		}
		s.db.pruneCache(ctx, s.repo)
	}
	s.side = dir
	return dir, nil
}

// materializeInto places a generation's side files under dir: hard links
// to the local blob store (copies when copy is set, for a directory that
// will be written to).
func (db *DB) materializeInto(ctx context.Context, gen int64, dir string, copyFiles bool) error {
	rows, err := db.pool.Query(ctx, `SELECT path, hash, size FROM gen_side_files WHERE gen_id = $1 ORDER BY path`, gen)
	if err != nil {
		return db.queryErr("list side indexes", err)
	}
	type entry struct {
		path, hash string
		size       int64
	}
	var list []entry
	for rows.Next() {
		var e entry
		if err := rows.Scan(&e.path, &e.hash, &e.size); err != nil {
			rows.Close()
			return err
		}
		list = append(list, e)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return db.queryErr("list side indexes", err)
	}
	for _, e := range list {
		if strings.Contains(e.path, "..") || filepath.IsAbs(e.path) {
			return fmt.Errorf("side index path %q escapes its directory", e.path)
		}
		src, err := db.localBlob(ctx, e.hash, e.size)
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(e.path))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if !copyFiles && os.Link(src, dst) == nil {
			continue
		}
		if err := copyFile(src, dst); err != nil {
			return fmt.Errorf("side-index cache: %w", err)
		}
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// localBlob returns the path of a blob in the local blob store, fetching
// and verifying it first if needed.
func (db *DB) localBlob(ctx context.Context, hash string, size int64) (string, error) {
	dir := filepath.Join(db.cache, "blobs")
	p := filepath.Join(dir, hash)
	if st, err := os.Stat(p); err == nil && st.Size() == size {
		return p, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp := p + ".tmp-" + randSuffix()
	f, err := os.Create(tmp)
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp)
	h := sha256.New()
	rows, err := db.pool.Query(ctx, `SELECT data FROM blobs WHERE hash = $1 ORDER BY part`, hash)
	if err != nil {
		f.Close()
		return "", db.queryErr("fetch side index", err)
	}
	var n int64
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			rows.Close()
			f.Close()
			return "", err
		}
		h.Write(b)
		if _, err := f.Write(b); err != nil {
			rows.Close()
			f.Close()
			return "", err
		}
		n += int64(len(b))
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		f.Close()
		return "", db.queryErr("fetch side index", err)
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != hash || n != size {
		return "", fmt.Errorf("side index blob %s is damaged in the database (%d bytes, hash %s): re-index with --full", hash, n, got)
	}
	if err := os.Rename(tmp, p); err != nil {
		return "", err
	}
	return p, nil
}

// pruneCache removes cached generations of a repository that the database
// no longer has, and local blobs no cached generation links to.
func (db *DB) pruneCache(ctx context.Context, repo int64) {
	rows, err := db.pool.Query(ctx, `SELECT id FROM generations WHERE repo_id = $1 AND state IN ('committed', 'superseded')`, repo)
	if err != nil {
		return
	}
	live := map[string]bool{}
	for rows.Next() {
		var id int64
		if rows.Scan(&id) == nil {
			live[fmt.Sprintf("gen-%d", id)] = true
		}
	}
	rows.Close()
	if rows.Err() != nil {
		return
	}
	rc := db.repoCache(repo)
	entries, _ := os.ReadDir(rc)
	for _, e := range entries {
		n := e.Name()
		info, err := e.Info()
		old := err == nil && time.Since(info.ModTime()) > time.Hour
		if (strings.HasPrefix(n, "gen-") && !live[n]) || ((strings.HasPrefix(n, "tmp-") || strings.HasPrefix(n, "build-")) && old) {
			os.RemoveAll(filepath.Join(rc, n))
		}
	}
	blobs, _ := os.ReadDir(filepath.Join(db.cache, "blobs"))
	for _, e := range blobs {
		info, err := e.Info()
		if err != nil || time.Since(info.ModTime()) < time.Hour {
			continue
		}
		if linkCount(info) == 1 {
			os.Remove(filepath.Join(db.cache, "blobs", e.Name()))
		}
	}
}
