package verify

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestModuleOf(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "server", "api"), 0o755)
	os.WriteFile(filepath.Join(root, "server", "go.mod"), []byte("module x\n"), 0o644)
	for _, tc := range []struct {
		pats    []string
		mod     string
		rel     []string
		wantErr bool
	}{
		{[]string{"./server/..."}, "server", []string{"./..."}, false},
		{[]string{"./server"}, "server", []string{"."}, false},
		{[]string{"./server/api", "./server/..."}, "server", []string{"./api", "./..."}, false},
		{[]string{"./server/api/..."}, "server", []string{"./api/..."}, false},
		{[]string{"./..."}, "", nil, true},
		{[]string{"../x"}, "", nil, true},
	} {
		mod, rel, err := moduleOf(root, tc.pats)
		if (err != nil) != tc.wantErr || mod != tc.mod || !cmp.Equal(rel, tc.rel) {
			t.Errorf("moduleOf(%v) = %q, %v, %v; want %q, %v, error %v", tc.pats, mod, rel, err, tc.mod, tc.rel, tc.wantErr)
		}
	}
}
