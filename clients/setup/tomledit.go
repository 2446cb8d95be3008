package setup

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/BurntSushi/toml"
	"github.com/pelletier/go-toml/v2/unstable"
)

// Codex's config.toml is edited as text: setup takes out exactly the lines
// that define mcp_servers.cairn — its tables ([mcp_servers.cairn],
// [mcp_servers.cairn.env], …) and key/values that reach it by a dotted key
// (cairn = {…} under [mcp_servers], mcp_servers.cairn.x = … at the top) —
// and appends one [mcp_servers.cairn] table at the end. go-toml's
// unstable parser gives each top-level expression's byte range;
// BurntSushi/toml reads the file before and after, to refuse a malformed
// file with its line and column and to check that nothing but cairn's
// server changed.

var serverKey = []string{"mcp_servers", ServerName}

func tomlFile(path, role string, value any) file {
	return file{path: path, role: role, apply: func(old []byte, o Options) ([]byte, error) {
		return editTOML(path, old, value, o)
	}}
}

func editTOML(path string, old []byte, value any, o Options) ([]byte, error) {
	if old == nil && o.Remove {
		return nil, nil
	}
	// go-toml's parser first: it places syntax errors exactly; then
	// BurntSushi's decoder (duplicate keys, redefined tables).
	spans, err := cairnSpans(path, old)
	if err != nil {
		return nil, err
	}
	cur, err := decodeTOML(path, old)
	if err != nil {
		return nil, err
	}
	want, err := tomlValue(value)
	if err != nil {
		return nil, err
	}
	have, present := cairnServer(cur)
	if o.Remove && !present || !o.Remove && present && reflect.DeepEqual(have, want) {
		return old, nil
	}
	out := slices.Clone(old)
	for _, s := range slices.Backward(spans) {
		out = slices.Delete(out, s[0], s[1])
	}
	if !o.Remove {
		if out, err = appendServer(out, value); err != nil {
			return nil, err
		}
	}
	if old == nil {
		out = bytes.TrimLeft(out, "\n")
	}
	if err := checkTOML(path, cur, out, want, o.Remove); err != nil {
		return nil, err
	}
	return out, nil
}

func decodeTOML(path string, b []byte) (map[string]any, error) {
	m := map[string]any{}
	if b == nil {
		return m, nil
	}
	if _, err := toml.Decode(string(b), &m); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &ConfigError{Path: path, Line: pe.Position.Line, Column: pe.Position.Col, Msg: "not valid TOML: " + pe.Message}
		}
		return nil, &ConfigError{Path: path, Msg: "not valid TOML: " + err.Error()}
	}
	return m, nil
}

// tomlValue is value as BurntSushi decodes it back (for comparisons).
func tomlValue(value any) (map[string]any, error) {
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(value); err != nil {
		return nil, fmt.Errorf("encode codex server: %w", err)
	}
	m := map[string]any{}
	_, err := toml.Decode(b.String(), &m)
	return m, err
}

func cairnServer(doc map[string]any) (any, bool) {
	servers, ok := doc["mcp_servers"].(map[string]any)
	if !ok {
		return nil, false
	}
	v, ok := servers[ServerName]
	return v, ok
}

// cairnSpans are the byte ranges [start, end) of the lines that define
// mcp_servers.cairn, in order.
func cairnSpans(path string, src []byte) ([][2]int, error) {
	type expr struct {
		kind       unstable.Kind
		key        []string
		start, end int // the expression's first byte and the byte after it
	}
	var exprs []expr
	p := unstable.Parser{KeepComments: true}
	p.Reset(src)
	for p.NextExpression() {
		n := p.Expression()
		e := expr{kind: n.Kind}
		switch n.Kind {
		case unstable.Comment:
			e.start = int(n.Raw.Offset)
			e.end = e.start + int(n.Raw.Length)
		case unstable.KeyValue:
			e.start, e.end = int(n.Raw.Offset), int(n.Raw.Offset+n.Raw.Length)
			fallthrough
		case unstable.Table, unstable.ArrayTable:
			for it := n.Key(); it.Next(); {
				k := it.Node()
				if e.key == nil && n.Kind != unstable.KeyValue {
					e.start = int(k.Raw.Offset)
				}
				e.key = append(e.key, string(k.Data))
			}
			if n.Kind != unstable.KeyValue {
				e.end = e.start
			}
		}
		exprs = append(exprs, e)
	}
	if err := p.Error(); err != nil {
		var pe *unstable.ParserError
		if errors.As(err, &pe) {
			sh := p.Shape(p.Range(pe.Highlight))
			return nil, &ConfigError{Path: path, Line: sh.Start.Line, Column: sh.Start.Column, Msg: "not valid TOML: " + pe.Message}
		}
		return nil, &ConfigError{Path: path, Msg: "not valid TOML: " + err.Error()}
	}
	lineStart := func(off int) int { return bytes.LastIndexByte(src[:off], '\n') + 1 }
	lineEnd := func(off int) int { // the byte after off's line's newline
		if i := bytes.IndexByte(src[off:], '\n'); i >= 0 {
			return off + i + 1
		}
		return len(src)
	}
	var spans [][2]int
	var table []string // the current table's key
	for i := 0; i < len(exprs); i++ {
		e := exprs[i]
		switch e.kind {
		case unstable.Table, unstable.ArrayTable:
			table = e.key
			if !hasPrefix(e.key, serverKey) {
				continue
			}
			// the table runs to its last key/value before the next header
			last := i
			for j := i + 1; j < len(exprs) && exprs[j].kind != unstable.Table && exprs[j].kind != unstable.ArrayTable; j++ {
				if exprs[j].kind == unstable.KeyValue {
					last = j
				}
			}
			start, end := lineStart(e.start), lineEnd(max(exprs[last].end, e.start))
			if last+1 < len(exprs) {
				end = lineStart(exprs[last+1].start) // blank lines after it go too
			} else {
				end = len(src)
				for start >= 2 && src[start-1] == '\n' && src[start-2] == '\n' {
					start-- // at the end: the blank lines before it too
				}
			}
			spans = append(spans, [2]int{start, end})
			i = last
		case unstable.KeyValue:
			if hasPrefix(append(slices.Clone(table), e.key...), serverKey) {
				spans = append(spans, [2]int{lineStart(e.start), lineEnd(e.end)})
			}
		}
	}
	return spans, nil
}

func hasPrefix(key, prefix []string) bool {
	return len(key) >= len(prefix) && slices.Equal(key[:len(prefix)], prefix)
}

// appendServer appends [mcp_servers.cairn] after a blank line.
func appendServer(src []byte, value any) ([]byte, error) {
	var b bytes.Buffer
	enc := toml.NewEncoder(&b)
	enc.Indent = ""
	if err := enc.Encode(value); err != nil {
		return nil, fmt.Errorf("encode codex server: %w", err)
	}
	out := slices.Clone(src)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	if len(bytes.TrimSpace(out)) > 0 && !bytes.HasSuffix(out, []byte("\n\n")) {
		out = append(out, '\n')
	}
	out = append(out, "[mcp_servers."+ServerName+"]\n"...)
	return append(out, b.Bytes()...), nil
}

// checkTOML reads the edited file back: it must parse, hold cairn's
// server as wanted (none when removing), and everything else as before.
func checkTOML(path string, before map[string]any, out []byte, want map[string]any, remove bool) error {
	after := map[string]any{}
	if _, err := toml.Decode(string(out), &after); err != nil {
		return fmt.Errorf("setup: cannot add cairn's server to %s (%v): define [mcp_servers.%s] there by hand; nothing written", path, err, ServerName)
	}
	got, present := cairnServer(after)
	if remove && present || !remove && !reflect.DeepEqual(got, any(want)) {
		return fmt.Errorf("setup: editing %s did not leave cairn's server as intended; nothing written", path)
	}
	strip := func(m map[string]any) {
		if s, ok := m["mcp_servers"].(map[string]any); ok {
			delete(s, ServerName)
			if len(s) == 0 {
				delete(m, "mcp_servers")
			}
		}
	}
	strip(before)
	strip(after)
	if !reflect.DeepEqual(before, after) {
		return fmt.Errorf("setup: editing %s would change entries that are not cairn's; nothing written", path)
	}
	return nil
}
