package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/engine/enginetest"
)

// dispatch reaches validate from its tests only through an interface
// (TestCheckout → Checkout → Charger.Charge, implemented by Card.Charge),
// through a function value (TestTable's table of handlers) and through a
// name-only call on a receiver of unknown type (test_run → run →
// codec.encode).
var dispatch = map[string]string{
	"go.mod": "module example.com/shop\n\ngo 1.22\n",
	"pay/pay.go": `package pay

type Charger interface{ Charge(n int) error }

type Card struct{}

func (Card) Charge(n int) error { return validate(n) }

func validate(n int) error { return nil }

func Checkout(c Charger, n int) error { return c.Charge(n) }

var handlers = map[string]func(int) error{"card": validate}

func Dispatch(k string, n int) error { return handlers[k](n) }
`,
	"pay/pay_test.go": `package pay

import "testing"

func TestCheckout(t *testing.T) { Checkout(Card{}, 1) }

func TestTable(t *testing.T) { Dispatch("card", 1) }
`,
	"py/store.py":      "def run(codec, data):\n    return codec.encode(data)\n",
	"py/codecs.py":     "class JSONCodec:\n    def encode(self, data):\n        return str(data)\n",
	"py/test_store.py": "from store import run\n\n\ndef test_run():\n    run(None, {})\n",
}

// TestImpactAndPathAgree: every test Impact selects carries a chain of
// edges to the change, and Paths from the test to the changed symbol
// shows that chain (impact said depth 11 where path found nothing).
func TestImpactAndPathAgree(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	for p, c := range dispatch {
		abs := filepath.Join(root, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(abs), 0o755)
		if err := os.WriteFile(abs, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	enginetest.Git(t, root, "init", "-q")
	enginetest.Index(t, root)
	s, err := open(t, root).Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Release()
	for target, tests := range map[string][]string{"validate": {"TestCheckout", "TestTable"}, "JSONCodec.encode": {"test_run"}} {
		res, err := s.Impact(ctx, engine.ImpactOptions{Name: target})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, tt := range res.Tests {
			got[tt.Name] = true
			if len(tt.Chain) == 0 {
				t.Errorf("%s: test %s has no chain", target, tt.Name)
				continue
			}
			p, err := s.Paths(ctx, engine.PathsOptions{From: string(tt.SymbolID), To: target, MaxDepth: engine.DefaultTestDepth, Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Paths) == 0 {
				t.Errorf("impact selects %s for %s; path finds no path", tt.Name, target)
				continue
			}
			if !p.Dependency {
				continue // a call path: shorter or as short as the chain
			}
			if len(p.Paths[0]) != len(tt.Chain) {
				t.Errorf("%s → %s: path %+v, impact's chain %+v", tt.Name, target, p.Paths[0], tt.Chain)
				continue
			}
			for i, e := range p.Paths[0] {
				if e.From != tt.Chain[i].From || e.To != tt.Chain[i].To || e.Kind != tt.Chain[i].Kind {
					t.Errorf("%s → %s edge %d: path %s -%s-> %s, impact %s -%s-> %s", tt.Name, target, i, e.FromName, e.Kind, e.ToName, tt.Chain[i].FromName, tt.Chain[i].Kind, tt.Chain[i].ToName)
				}
			}
		}
		for _, n := range tests {
			if !got[n] {
				t.Errorf("impact of %s: %s not selected (tests %v)", target, n, got)
			}
		}
	}
}
