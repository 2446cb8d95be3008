package verify

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSeedBuildCache: the seeded cache links the other's entries, a
// write into it stays its own, and a cache already there is kept.
func TestSeedBuildCache(t *testing.T) {
	from, dir := t.TempDir(), t.TempDir()
	entry := filepath.Join(from, "cache", "build", "ab", "abcd-a")
	os.MkdirAll(filepath.Dir(entry), 0o755)
	os.WriteFile(entry, []byte("object"), 0o644)
	if err := SeedBuildCache(dir, from); err != nil {
		t.Fatal(err)
	}
	a, err1 := os.Stat(entry)
	b, err2 := os.Stat(filepath.Join(dir, "cache", "build", "ab", "abcd-a"))
	if err1 != nil || err2 != nil || !os.SameFile(a, b) {
		t.Fatalf("seeded entry: %v %v, same file %v", err1, err2, err1 == nil && err2 == nil && os.SameFile(a, b))
	}
	os.WriteFile(filepath.Join(dir, "cache", "build", "ab", "new-a"), []byte("x"), 0o644)
	if _, err := os.Stat(filepath.Join(from, "cache", "build", "ab", "new-a")); err == nil {
		t.Fatal("a write into the seeded cache reached the one it came from")
	}
	os.WriteFile(filepath.Join(from, "cache", "build", "ab", "later-a"), []byte("y"), 0o644)
	if err := SeedBuildCache(dir, from); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "cache", "build", "ab", "later-a")); err == nil {
		t.Fatal("a cache already there was seeded again")
	}
	if err := SeedBuildCache(t.TempDir(), filepath.Join(from, "missing")); err != nil {
		t.Fatalf("nothing to seed from: %v", err)
	}
}
