package contextpack_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/retrieval/contextpack"
)

// noisy is a Python module and a Go file whose heads are mostly imports,
// with a multi-line def.
var noisy = map[string]string{
	"archive/store.py": `"""Archive store: opens archives of artifacts."""
import io
import os
import json
import shutil
import zipfile
import tarfile
from collections import OrderedDict, defaultdict
from typing import Any, Dict, List, Optional


class ArchiveStore:
    def open(
        self,
        archive_path: str,
        mode: str = "r",
        compression: Optional[str] = None,
    ) -> "Archive":
        """Open an archive of artifacts at archive_path."""
        handle = zipfile.ZipFile(archive_path, mode)
` + strings.Repeat("        handle = self.wrap(handle)  # open archive artifacts\n", 80) + `        return handle
`,
	"archive/open.go": `package archive

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
)

// OpenArchive opens an archive of artifacts.
func OpenArchive(path string) (*zip.ReadCloser, error) {
	return zip.OpenReader(path)
}

var _ = tar.NewReader
var _ = bufio.NewReader
var _ = bytes.NewReader
var _ = gzip.NewReader
var _ = errors.New
var _ = fmt.Sprint
var _ = io.EOF
var _ = os.Open
`,
}

// TestPackWithoutImportsAndWholeSignatures: a file's imports are no
// definition item (811 of 8,000 tokens went to import blocks on one task)
// unless the file comes whole,
// and a signature-only item of a multi-line def is the whole signature,
// not "def open(".
func TestPackWithoutImportsAndWholeSignatures(t *testing.T) {
	root := t.TempDir()
	for p, c := range noisy {
		abs := filepath.Join(root, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(abs), 0o755)
		if err := os.WriteFile(abs, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, done := build(t, root)
	defer done()
	for _, budget := range []int{600, 4000} {
		p, err := b.Build(context.Background(), contextpack.Request{Task: "open an archive of artifacts: zipfile tarfile imports", Budget: budget, Format: "json", FullShare: 0.05})
		if err != nil {
			t.Fatal(err)
		}
		sawSig := false
		for _, it := range p.Items {
			if it.Kind == contextpack.KindFile {
				continue // a small file taken whole: its imports are its context
			}
			for _, l := range strings.Split(it.Content, "\n") {
				if l = strings.TrimSpace(l); strings.HasPrefix(l, "import ") || strings.HasPrefix(l, "from ") || l == `"archive/tar"` {
					t.Errorf("budget %d: %s:%d-%d (%s) holds an import line %q", budget, it.Path, it.StartLine, it.EndLine, it.Kind, l)
					break
				}
			}
			if it.Kind == contextpack.KindSignature && it.Symbol == "ArchiveStore.open" {
				sawSig = true
				if !strings.Contains(it.Content, `) -> "Archive":`) || !strings.Contains(it.Content, "compression") {
					t.Errorf("the signature of a multi-line def is cut:\n%s", it.Content)
				}
				if strings.Contains(it.Content, "zipfile.ZipFile") {
					t.Errorf("the signature item holds the body:\n%s", it.Content)
				}
			}
		}
		if budget == 600 && !sawSig {
			t.Errorf("budget %d: no signature item of ArchiveStore.open: %+v", budget, p.Items)
		}
	}
	// a focus file is a whole-file item: its imports come as context
	p, err := b.Build(context.Background(), contextpack.Request{Task: "open an archive", Budget: 4000, Format: "json", Focus: []string{"archive/open.go"}})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, it := range p.Items {
		found = found || it.Path == "archive/open.go" && strings.Contains(it.Content, `"archive/tar"`)
	}
	if !found {
		t.Errorf("a focus file's imports are missing: %+v", p.Items)
	}
}
