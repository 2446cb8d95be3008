package catalog

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/fnv"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/internal/must"
)

// Paging. A list answer holds at most limit items and at most the budget
// of JSON; next_cursor, when set, continues it. A cursor names the tool,
// the arguments (without the cursor) and the index generation it was
// issued for: with other arguments it is an invalid_argument, after a
// re-index a stale_index error.

// cursor continues a paged answer.
type cursor struct {
	Tool string `json:"t"`
	Key  string `json:"k"`
	Gen  int64  `json:"g"`
	Off  int    `json:"o"`
}

// argsKey identifies the arguments of a call (without its cursor): a tool's
// input struct of strings, ints and bools, which always encodes.
func argsKey(v any) string {
	h := fnv.New64a()
	h.Write(must.JSON(v))
	return fmt.Sprintf("%x", h.Sum64())
}

func encodeCursor(c cursor) string {
	return base64.RawURLEncoding.EncodeToString(must.JSON(c))
}

// cursorAt is the cursor of c's tool and args continuing at off.
func (c *call) cursorAt(args any, off int) string {
	return encodeCursor(cursor{Tool: c.tool, Key: argsKey(args), Gen: c.snap.Meta.Generation, Off: off})
}

// offset decodes a cursor for c's tool and args; "" is 0.
func (c *call) offset(raw string, args any) (int, error) {
	if raw == "" {
		return 0, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(raw)
	var cur cursor
	if err == nil {
		err = json.Unmarshal(b, &cur)
	}
	if err != nil || cur.Off < 0 {
		return 0, engine.Errorf(engine.InvalidArgument, "cursor is malformed: pass next_cursor exactly as given")
	}
	if cur.Tool != c.tool || cur.Key != argsKey(args) {
		return 0, engine.Errorf(engine.InvalidArgument, "cursor belongs to another call: repeat the same arguments with it")
	}
	if gen := c.snap.Meta.Generation; cur.Gen != gen {
		return 0, engine.Errorf(engine.StaleIndex, "the index changed since this cursor was issued (generation %d, now %d): repeat the call without cursor", cur.Gen, gen)
	}
	return cur.Off, nil
}

// page cuts items[off:] to at most limit items whose rendering (by build)
// fits the budget, and returns the rendering of the page with the next
// cursor ("" at the end). At least one item is shown. A rendering that
// does not encode (a NaN score) is an error, never a page of unknown size.
func page[T, O any](c *call, items []T, off, limit int, args any, build func(page []T, next string) O) (O, error) {
	if off > len(items) {
		off = len(items)
	}
	budget := c.opts.maxBytes()
	n := min(limit, len(items)-off)
	for {
		next := ""
		if off+n < len(items) {
			next = c.cursorAt(args, off+n)
		}
		out := build(items[off:off+n], next)
		if n <= 1 {
			return out, nil
		}
		b, err := json.Marshal(out)
		if err != nil {
			var zero O
			return zero, fmt.Errorf("encode a page of %T to fit it in %d bytes: %w", out, budget, err)
		}
		if len(b) <= budget {
			return out, nil
		}
		n = max(1, min(n-1, n*budget/len(b)*9/10))
	}
}

// inRange checks an optional integer argument: 0 means def.
func inRange(name string, v, def, lo, hi int) (int, error) {
	if v == 0 {
		return def, nil
	}
	if v < lo || v > hi {
		return 0, engine.Errorf(engine.InvalidArgument, "%s must be between %d and %d (got %d)", name, lo, hi, v)
	}
	return v, nil
}
