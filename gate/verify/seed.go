package verify

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// SeedBuildCache gives the gate directory dir the Go build cache of the
// gate directory from, when dir has none yet: a tree of hard links (the
// directories made anew with their owner and mode, the entries linked).
// Go's cache is addressed by content and writes each entry anew (a temp
// file renamed), so two gate directories sharing entries never see each
// other's writes, and the dependencies two revisions of one repository
// share are compiled once (grpc-go's 16 instances: a gate run's first
// variant otherwise builds every dependency cold). A missing from is not
// an error; nothing is seeded.
func SeedBuildCache(dir, from string) error {
	src, dst := filepath.Join(from, "cache", "build"), filepath.Join(dir, "cache", "build")
	if _, err := os.Stat(dst); err == nil {
		return nil
	}
	if fi, err := os.Stat(src); err != nil || !fi.IsDir() {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	// built beside and renamed into place: a seed cut short is not a cache
	tmp := dst + ".seed"
	os.RemoveAll(tmp)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(tmp, rel)
		switch {
		case d.IsDir():
			fi, err := d.Info()
			if err != nil {
				return err
			}
			if err := os.Mkdir(out, fi.Mode().Perm()); err != nil {
				return err
			}
			if st, ok := fi.Sys().(*syscall.Stat_t); ok {
				return os.Lchown(out, int(st.Uid), int(st.Gid))
			}
			return nil
		case d.Type().IsRegular():
			return os.Link(p, out)
		}
		return nil // the cache holds regular files only
	})
	if err != nil {
		os.RemoveAll(tmp)
		return errors.Join(errors.New("verify: seeding the build cache"), err)
	}
	return os.Rename(tmp, dst)
}
