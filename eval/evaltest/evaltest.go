// Package evaltest holds what the evaluation packages' tests share
// (package eval's and agent/eval's): copying a fixture tree, and opening
// rendered reports in a real browser. It is for tests only, and imports
// neither evaluation package, so that eval's own tests can use it.
package evaltest

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// CopyTree copies the files under from to to.
func CopyTree(t testing.TB, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Page is a rendered report: the title it must show, and its HTML.
type Page struct {
	Title string
	HTML  []byte
}

// CheckInChromium opens each page in Debian's chromium (headless, the
// page's own CSP bypassed so a reference to anything would be fetched and
// seen), one subtest per page: the page renders, every plot has data with
// a size, tables have rows, and the only request is the page itself.
func CheckInChromium(t *testing.T, pages map[string]Page) {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("chromium checks the reports (.ci/deps.sh installs it): %v", err)
	}
	dir := t.TempDir()
	actx, cancel := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.Headless, chromedp.DisableGPU)...)
	defer cancel()
	for name, rep := range pages {
		file := filepath.Join(dir, name+".html")
		if err := os.WriteFile(file, rep.HTML, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) {
			bctx, cancel := chromedp.NewContext(actx)
			defer cancel()
			bctx, cancel2 := context.WithTimeout(bctx, 60*time.Second)
			defer cancel2()
			var mu sync.Mutex
			var requests []string
			err := chromedp.Listen(bctx, func(ev any) {
				if e, ok := ev.(*network.EventRequestWillBeSent); ok {
					mu.Lock()
					requests = append(requests, e.Request.URL)
					mu.Unlock()
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			type plotInfo struct {
				Cls    string  `json:"cls"`
				Datums int     `json:"datums"`
				Sized  int     `json:"sized"`
				W      float64 `json:"w"`
				H      float64 `json:"h"`
			}
			if _, err := chromedp.Call(bctx, network.Enable, network.EnableParams{}); err != nil {
				t.Fatal(err)
			}
			if _, err := chromedp.Call(bctx, page.SetBypassCSP, page.SetBypassCSPParams{Enabled: true}); err != nil {
				t.Fatal(err)
			}
			if err := chromedp.Do(bctx, chromedp.Navigate("file://"+file), chromedp.WaitReady(chromedp.CSS("body"))); err != nil {
				t.Fatal(err)
			}
			title, err := chromedp.Run(bctx, chromedp.Title())
			if err != nil {
				t.Fatal(err)
			}
			plots, err := chromedp.Run(bctx, chromedp.Evaluate[[]plotInfo](`[...document.querySelectorAll("svg.plot")].map(s => {
				const r = s.getBoundingClientRect();
				const ds = [...s.querySelectorAll(".datum")];
				return {cls: s.getAttribute("class"), datums: ds.length,
					sized: ds.filter(d => { const b = d.getBoundingClientRect(); return b.width > 0 && b.height > 0; }).length,
					w: r.width, h: r.height};
			})`))
			if err != nil {
				t.Fatal(err)
			}
			tables, err := chromedp.Run(bctx, chromedp.Evaluate[int](`document.querySelectorAll("table tbody tr").length`))
			if err != nil {
				t.Fatal(err)
			}
			if title != rep.Title {
				t.Errorf("title %q, want %q", title, rep.Title)
			}
			if len(plots) < 2 {
				t.Errorf("%d plots rendered", len(plots))
			}
			for _, p := range plots {
				if p.Datums == 0 || p.Sized != p.Datums || p.W <= 0 || p.H <= 0 {
					t.Errorf("plot %s: %d data points, %d with a size, %.0f×%.0f", p.Cls, p.Datums, p.Sized, p.W, p.H)
				}
			}
			if tables == 0 {
				t.Error("no table rows rendered")
			}
			mu.Lock()
			defer mu.Unlock()
			for _, u := range requests {
				if u != "file://"+file {
					t.Errorf("the page requested %s", u)
				}
			}
			if len(requests) == 0 {
				t.Error("no request seen at all: the listener is not working")
			}
		})
	}
}
