package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/internal/must"
)

// Trimming by structure, never by bytes. A typed answer that is one
// analysis (trace, impact, package_graph) is trimmed by its tool's own
// order of trims (fit): each halves one list, and Omitted counts what each
// list lost. Any other result — a tool's JSON whatever its type, or text —
// is bounded by Fit, the generic fallback the agent's loop applies to
// every tool result.

// fit applies the trims in order while v's JSON exceeds max bytes; a trim
// that cuts nothing more moves on to the next. An answer that does not
// encode (a NaN score) is an error: its size is unknown, so it is never
// passed on as fitting.
func fit(v any, max int, trims ...func() bool) error {
	for i := 0; i < len(trims); {
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("encode the %T answer to fit it in %d bytes: %w", v, max, err)
		}
		if len(b) <= max {
			return nil
		}
		if !trims[i]() {
			i++
		}
	}
	return nil
}

// halve drops the second half of a list, keeping at least least items,
// and counts what it dropped under omitted[name].
func halve[T any](list *[]T, omitted map[string]int, name string, least int) bool {
	n := len(*list)
	if n <= least {
		return false
	}
	keep := max(least, n/2)
	omitted[name] += n - keep
	*list = (*list)[:keep]
	return true
}

// noneEmpty is nil for an empty map (an answer that lost nothing has no
// omitted).
func noneEmpty(m map[string]int) map[string]int {
	if len(m) == 0 {
		return nil
	}
	return m
}

// Fit bounds a result to max bytes. JSON stays JSON: the longest lists
// are halved (their dropped items counted under "omitted_by_cap" at the
// top level, by path) and then the longest strings shortened with a
// marker, until it fits; other text is cut at max bytes (on a rune
// boundary) with a note of how much was cut.
func Fit(text string, max int) string {
	if len(text) <= max {
		return text
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader([]byte(text)))
	dec.UseNumber()
	if err := dec.Decode(&v); err == nil && !dec.More() {
		if out, ok := fitJSON(v, max); ok {
			return out
		}
	}
	return cutText(text, max)
}

// cutText cuts plain text at n bytes, on a rune boundary, saying so.
func cutText(s string, n int) string {
	cut := max(0, n-64)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n… (%d more bytes cut)", len(s)-cut)
}

// fitJSON trims v by structure until its encoding fits in max bytes. A v
// that does not encode is not fitted (false): Fit then cuts the text by
// bytes, still within max, rather than pass on an answer of unknown size.
func fitJSON(v any, max int) (string, bool) {
	omitted := map[string]int{}
	for range 400 {
		if m, ok := v.(map[string]any); ok && len(omitted) > 0 {
			m["omitted_by_cap"] = omitted
		}
		b, err := json.Marshal(v)
		if err != nil {
			return "", false
		}
		if len(b) <= max {
			return string(b), true
		}
		var at loc
		size := 0
		longest(v, nil, func(x any) bool { l, ok := x.([]any); return ok && len(l) > 1 }, &at, &size)
		if at != nil {
			v = replaceAt(v, at, func(x any) any {
				l := x.([]any)
				keep := len(l) / 2
				omitted[at.String()] += len(l) - keep
				return l[:keep]
			})
			continue
		}
		at, size = nil, 0
		longest(v, nil, func(x any) bool { s, ok := x.(string); return ok && len(s) > 256 }, &at, &size)
		if at == nil {
			break
		}
		v = replaceAt(v, at, func(x any) any { s := x.(string); return cutText(s, len(s)/2) })
	}
	return "", false
}

// loc is a path into a decoded JSON document: keys and indexes.
type loc []any

func (l loc) String() string {
	var b bytes.Buffer
	for i, e := range l {
		if i > 0 {
			b.WriteByte('.')
		}
		fmt.Fprint(&b, e)
	}
	if b.Len() == 0 {
		return "."
	}
	return b.String()
}

// longest finds the value that ok accepts whose encoding is largest
// (the first of equals, keys in sorted order), outside omitted_by_cap. v
// is a part of a document fitJSON has just encoded, so it encodes.
func longest(v any, at loc, ok func(any) bool, best *loc, size *int) {
	if ok(v) {
		if b := must.JSON(v); len(b) > *size {
			*size, *best = len(b), slices.Clone(at)
			if *best == nil {
				*best = loc{}
			}
		}
	}
	switch x := v.(type) {
	case []any:
		for i, c := range x {
			longest(c, append(slices.Clip(at), i), ok, best, size)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if k != "omitted_by_cap" {
				longest(x[k], append(slices.Clip(at), k), ok, best, size)
			}
		}
	}
}

// replaceAt replaces the value at a path with f of it.
func replaceAt(v any, at loc, f func(any) any) any {
	if len(at) == 0 {
		return f(v)
	}
	switch x := v.(type) {
	case []any:
		i := at[0].(int)
		x[i] = replaceAt(x[i], at[1:], f)
	case map[string]any:
		k := at[0].(string)
		x[k] = replaceAt(x[k], at[1:], f)
	}
	return v
}
