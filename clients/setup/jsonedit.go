package setup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/tailscale/hujson"
)

// JSON files are edited in their parsed syntax tree (hujson keeps every
// byte of whitespace and comments): setup appends, replaces or removes
// cairn's members and array elements and leaves all other bytes as they
// are. Values it inserts are indented like their neighbours.

type jsonDialect int

const (
	// strictJSON files are read by a plain JSON parser (Claude Code,
	// Codex): a comment or trailing comma in one is an error.
	strictJSON jsonDialect = iota + 1
	// commentedJSON files may hold comments and trailing commas (Gemini
	// CLI, OpenCode, Cursor).
	commentedJSON
)

// jsonEdit is what setup keeps in one JSON file.
type jsonEdit struct {
	// create are members a new file starts with ($schema, version).
	create []createMember
	server *server
	hooks  *hookSet
}

type createMember struct {
	key   string
	value any
}

// server is cairn's MCP server entry: member ServerName of the top-level
// object container.
type server struct {
	container string
	value     any
}

type hookStyle int

const (
	// grouped hooks: {"hooks": {EVENT: [{"matcher": M, "hooks": [HANDLER]}]}}
	// (Claude Code, Codex, Gemini CLI).
	grouped hookStyle = iota + 1
	// flat hooks: {"hooks": {EVENT: [HANDLER]}} (Cursor).
	flat
)

type hookSet struct {
	style hookStyle
	hooks []hook
}

// hook is one handler: timeout is in the client's unit, 0 for none.
type hook struct {
	event, matcher, command string
	timeout                 int
}

type handler struct {
	Type    string `json:"type,omitempty"`
	Command string `json:"command"`
	Timeout int    `json:"timeout,omitempty"`
	Matcher string `json:"matcher,omitempty"` // flat only (Cursor's preToolUse); grouped hooks match on the group
}

type group struct {
	Matcher string    `json:"matcher,omitempty"`
	Hooks   []handler `json:"hooks"`
}

// desired are the elements cairn's hooks put in an event's array.
func (hs *hookSet) desired(event string) []any {
	var out []any
	for _, h := range hs.hooks {
		if h.event != event {
			continue
		}
		if hs.style == flat {
			out = append(out, handler{Command: h.command, Timeout: h.timeout, Matcher: h.matcher})
		} else {
			out = append(out, group{Matcher: h.matcher, Hooks: []handler{{Type: "command", Command: h.command, Timeout: h.timeout}}})
		}
	}
	return out
}

func jsonFile(path, role string, dialect jsonDialect, e jsonEdit) file {
	return file{path: path, role: role, apply: func(old []byte, o Options) ([]byte, error) {
		return editJSON(path, old, dialect, e, o)
	}}
}

func editJSON(path string, old []byte, dialect jsonDialect, e jsonEdit, o Options) ([]byte, error) {
	if old == nil && o.Remove {
		return nil, nil
	}
	src := old
	if old == nil || len(bytes.TrimSpace(old)) == 0 {
		src = []byte("{}\n")
	}
	d, err := parseJSON(path, src, dialect)
	if err != nil {
		return nil, err
	}
	root := d.root()
	if old == nil || len(bytes.TrimSpace(old)) == 0 {
		for _, m := range e.create {
			if err := d.appendMember(root, m.key, m.value); err != nil {
				return nil, err
			}
		}
	}
	if e.server != nil {
		if err := d.editServer(root, e.server, o.Remove); err != nil {
			return nil, err
		}
	}
	if e.hooks != nil {
		if err := d.editHooks(root, e.hooks, o); err != nil {
			return nil, err
		}
	}
	out := d.v.Pack()
	if bytes.Equal(out, old) {
		return old, nil
	}
	if err := d.checkForeignKept(old, out, e, o.Binary); err != nil {
		return nil, err
	}
	return out, nil
}

type jsonDoc struct {
	path string
	src  []byte
	v    hujson.Value
	unit string // one level of indentation
}

// node is an object or array value and the indentation of the line it
// starts on.
type node struct {
	v      *hujson.Value
	indent string
}

func parseJSON(path string, src []byte, dialect jsonDialect) (*jsonDoc, error) {
	v, err := hujson.Parse(slices.Clone(src)) // the tree aliases its input
	if err != nil {
		// hujson reports "hujson: line L, column C: …"; keep its words
		// and put the position where editors look for it.
		var line, col int
		if _, serr := fmt.Sscanf(err.Error(), "hujson: line %d, column %d:", &line, &col); serr == nil {
			msg := err.Error()
			if i := bytes.IndexByte([]byte(msg), ':'); i >= 0 {
				if j := bytes.IndexByte([]byte(msg[i+1:]), ':'); j >= 0 {
					msg = msg[i+1+j+1:]
				}
			}
			return nil, &ConfigError{Path: path, Line: line, Column: col, Msg: "not valid JSON:" + msg}
		}
		return nil, &ConfigError{Path: path, Msg: "not valid JSON: " + err.Error()}
	}
	if dialect == strictJSON && !v.IsStandard() {
		off := -1
		var se *json.SyntaxError
		if err := json.Unmarshal(src, new(any)); errors.As(err, &se) {
			off = int(se.Offset) - 1
		}
		return nil, configError(path, src, off, "not valid JSON: comments and trailing commas are not allowed in this file")
	}
	if _, ok := v.Value.(*hujson.Object); !ok {
		return nil, configError(path, src, v.StartOffset, "the top-level value is not a JSON object")
	}
	d := &jsonDoc{path: path, src: src, v: v, unit: "  "}
	if obj := v.Value.(*hujson.Object); len(obj.Members) > 0 {
		if ind, ok := lineIndent(obj.Members[0].Name.BeforeExtra); ok && ind != "" {
			d.unit = ind
		}
	}
	return d, nil
}

// lineIndent is what follows the last newline of extra, and whether extra
// has a newline.
func lineIndent(extra []byte) (string, bool) {
	i := bytes.LastIndexByte(extra, '\n')
	if i < 0 {
		return "", false
	}
	return string(extra[i+1:]), true
}

func (d *jsonDoc) root() node { return node{v: &d.v} }

func (d *jsonDoc) errAt(v *hujson.Value, format string, args ...any) error {
	off := -1
	if v.Value != nil && v.EndOffset > 0 {
		off = v.StartOffset
	}
	return configError(d.path, d.src, off, format, args...)
}

// multiline says whether n's members or elements are one a line, and
// their indentation.
func (d *jsonDoc) layout(n node) (multiline bool, indent string) {
	var first []byte
	switch c := n.v.Value.(type) {
	case *hujson.Object:
		if len(c.Members) == 0 {
			return true, n.indent + d.unit
		}
		first = c.Members[0].Name.BeforeExtra
	case *hujson.Array:
		if len(c.Elements) == 0 {
			return true, n.indent + d.unit
		}
		first = c.Elements[0].BeforeExtra
	}
	ind, ok := lineIndent(first)
	if !ok {
		return false, n.indent + d.unit
	}
	return true, ind
}

// format renders a value to insert: indented under indent, or on one
// line.
func (d *jsonDoc) format(value any, multiline bool, indent string) (hujson.ValueTrimmed, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if multiline {
		enc.SetIndent(indent, d.unit)
	}
	if err := enc.Encode(value); err != nil {
		return nil, fmt.Errorf("encode %s entry: %w", d.path, err)
	}
	raw := bytes.TrimRight(b.Bytes(), "\n")
	if !multiline {
		raw = spaced(raw)
	}
	v, err := hujson.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("encode %s entry: %w", d.path, err)
	}
	return v.Value, nil
}

// spaced puts a space after each colon and comma of compact JSON
// (outside strings), as hand-written one-line JSON has them.
func spaced(compact []byte) []byte {
	var out []byte
	inString, escaped := false, false
	for _, c := range compact {
		out = append(out, c)
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == ':' || c == ','):
			out = append(out, ' ')
		}
	}
	return out
}

// insertExtra splits the extra before a container's closing bracket when
// an item is appended: what stays on the previous item's line (a trailing
// comment) goes before the new item, the rest stays before the bracket.
func insertExtra(after hujson.Extra, multiline bool, indent string) (before, rest hujson.Extra) {
	if !multiline {
		return hujson.Extra(" "), after
	}
	i := bytes.LastIndexByte(after, '\n')
	if i < 0 {
		i = len(after)
	}
	before = append(slices.Clone(bytes.TrimRight(after[:i], " \t\r\n")), '\n')
	before = append(before, indent...)
	if len(bytes.TrimSpace(after[:i])) == 0 {
		before = append(hujson.Extra("\n"), indent...)
	}
	return before, slices.Clone(after[i:])
}

func (d *jsonDoc) appendMember(n node, key string, value any) error {
	obj := n.v.Value.(*hujson.Object)
	multiline, indent := d.layout(n)
	val, err := d.format(value, multiline, indent)
	if err != nil {
		return err
	}
	m := hujson.ObjectMember{Name: hujson.Value{Value: hujson.String(key)}, Value: hujson.Value{BeforeExtra: hujson.Extra(" "), Value: val}}
	if len(obj.Members) == 0 {
		comments := bytes.TrimSpace(obj.AfterExtra)
		m.Name.BeforeExtra = hujson.Extra("\n" + indent)
		if len(comments) > 0 {
			m.Name.BeforeExtra = hujson.Extra("\n" + indent + string(comments) + "\n" + indent)
		}
		obj.AfterExtra = hujson.Extra("\n" + n.indent)
	} else {
		m.Name.BeforeExtra, obj.AfterExtra = insertExtra(obj.AfterExtra, multiline, indent)
		if obj.Members[len(obj.Members)-1].Value.AfterExtra != nil {
			m.Value.AfterExtra = hujson.Extra{} // keep the trailing comma
		}
	}
	obj.Members = append(obj.Members, m)
	return nil
}

func (d *jsonDoc) appendElement(n node, value any) error {
	arr := n.v.Value.(*hujson.Array)
	multiline, indent := d.layout(n)
	val, err := d.format(value, multiline, indent)
	if err != nil {
		return err
	}
	e := hujson.Value{Value: val}
	if len(arr.Elements) == 0 {
		e.BeforeExtra = hujson.Extra("\n" + indent)
		if comments := bytes.TrimSpace(arr.AfterExtra); len(comments) > 0 {
			e.BeforeExtra = hujson.Extra("\n" + indent + string(comments) + "\n" + indent)
		}
		arr.AfterExtra = hujson.Extra("\n" + n.indent)
	} else {
		e.BeforeExtra, arr.AfterExtra = insertExtra(arr.AfterExtra, multiline, indent)
		if arr.Elements[len(arr.Elements)-1].AfterExtra != nil {
			e.AfterExtra = hujson.Extra{}
		}
	}
	arr.Elements = append(arr.Elements, e)
	return nil
}

// removeItem takes item i out of a container given as its items' leading
// extras (the extra before each member name or element), keeping any
// comment that preceded it and the container's trailing-comma style.
func removeMember(obj *hujson.Object, i int) {
	lead := obj.Members[i].Name.BeforeExtra
	last := i == len(obj.Members)-1
	trailing := obj.Members[i].Value.AfterExtra != nil
	obj.Members = slices.Delete(obj.Members, i, i+1)
	if i == 0 && len(obj.Members) > 0 {
		next := &obj.Members[0].Name.BeforeExtra
		*next = append(slices.Clone(lead), bytes.TrimLeft(*next, " \t\r\n")...)
	} else {
		keepComments(lead, func() *hujson.Extra {
			if i < len(obj.Members) {
				return &obj.Members[i].Name.BeforeExtra
			}
			return &obj.AfterExtra
		}())
	}
	if last && len(obj.Members) > 0 {
		fixTrailingComma(&obj.Members[len(obj.Members)-1].Value, &obj.AfterExtra, trailing)
	}
	if len(obj.Members) == 0 && len(bytes.TrimSpace(obj.AfterExtra)) == 0 {
		obj.AfterExtra = nil
	}
}

func removeElement(arr *hujson.Array, i int) {
	lead := arr.Elements[i].BeforeExtra
	last := i == len(arr.Elements)-1
	trailing := arr.Elements[i].AfterExtra != nil
	arr.Elements = slices.Delete(arr.Elements, i, i+1)
	if i == 0 && len(arr.Elements) > 0 {
		next := &arr.Elements[0].BeforeExtra
		*next = append(slices.Clone(lead), bytes.TrimLeft(*next, " \t\r\n")...)
	} else {
		keepComments(lead, func() *hujson.Extra {
			if i < len(arr.Elements) {
				return &arr.Elements[i].BeforeExtra
			}
			return &arr.AfterExtra
		}())
	}
	if last && len(arr.Elements) > 0 {
		fixTrailingComma(&arr.Elements[len(arr.Elements)-1], &arr.AfterExtra, trailing)
	}
	if len(arr.Elements) == 0 && len(bytes.TrimSpace(arr.AfterExtra)) == 0 {
		arr.AfterExtra = nil
	}
}

// keepComments moves the comments of a removed item's leading extra to
// the extra that follows it: they are the user's, not cairn's.
func keepComments(lead hujson.Extra, next *hujson.Extra) {
	i := bytes.LastIndexByte(lead, '\n')
	if i < 0 || len(bytes.TrimSpace(lead[:i])) == 0 {
		return
	}
	*next = append(slices.Clone(lead[:i]), *next...)
}

// fixTrailingComma keeps a container's trailing comma as it was when its
// last item was removed: the new last item had none after it unless the
// removed one did.
func fixTrailingComma(last *hujson.Value, after *hujson.Extra, trailing bool) {
	switch {
	case trailing && last.AfterExtra == nil:
		last.AfterExtra = hujson.Extra{}
	case !trailing && last.AfterExtra != nil:
		*after = append(slices.Clone(last.AfterExtra), *after...)
		last.AfterExtra = nil
	}
}

// member finds key in object n: its index and value (-1, nil when absent).
func member(n node, key string) (int, *hujson.Value) {
	obj := n.v.Value.(*hujson.Object)
	for i := range obj.Members {
		if lit, ok := obj.Members[i].Name.Value.(hujson.Literal); ok && lit.String() == key {
			return i, &obj.Members[i].Value
		}
	}
	return -1, nil
}

// child is member key of n as a node, checked to be an object ('{') or
// array ('['); nil when absent.
func (d *jsonDoc) child(n node, key string, kind hujson.Kind, what string) (*node, error) {
	i, v := member(n, key)
	if i < 0 {
		return nil, nil
	}
	if v.Value.Kind() != kind {
		return nil, d.errAt(v, "%s is not a JSON %s", what, map[hujson.Kind]string{'{': "object", '[': "array"}[kind])
	}
	_, indent := d.layout(n)
	return &node{v: v, indent: indent}, nil
}

// ensure is member key of n, added as an empty object or array when
// absent.
func (d *jsonDoc) ensure(n node, key string, kind hujson.Kind, what string) (*node, error) {
	c, err := d.child(n, key, kind, what)
	if c != nil || err != nil {
		return c, err
	}
	empty := any(map[string]any{})
	if kind == '[' {
		empty = []any{}
	}
	if err := d.appendMember(n, key, empty); err != nil {
		return nil, err
	}
	return d.child(n, key, kind, what)
}

// equalJSON says whether v holds the same JSON value as want.
func equalJSON(v *hujson.Value, want any) bool {
	c := v.Clone()
	c.Standardize()
	var got, exp any
	if json.Unmarshal(c.Pack(), &got) != nil {
		return false
	}
	b, err := json.Marshal(want)
	if err != nil || json.Unmarshal(b, &exp) != nil {
		return false
	}
	return reflect.DeepEqual(got, exp)
}

// editServer puts cairn's server in the container (in place when it is
// there and differs), or takes it out.
func (d *jsonDoc) editServer(root node, s *server, remove bool) error {
	c, err := d.child(root, s.container, '{', fmt.Sprintf("%q", s.container))
	if err != nil {
		return err
	}
	if remove {
		if c == nil {
			return nil
		}
		if i, _ := member(*c, ServerName); i >= 0 {
			removeMember(c.v.Value.(*hujson.Object), i)
			if len(c.v.Value.(*hujson.Object).Members) == 0 {
				i, _ := member(root, s.container)
				removeMember(root.v.Value.(*hujson.Object), i)
			}
		}
		return nil
	}
	if c == nil {
		if c, err = d.ensure(root, s.container, '{', fmt.Sprintf("%q", s.container)); err != nil {
			return err
		}
	}
	i, v := member(*c, ServerName)
	if i < 0 {
		return d.appendMember(*c, ServerName, s.value)
	}
	if equalJSON(v, s.value) {
		return nil
	}
	// replace the value where it is, indented as the member's line
	multiline, indent := d.layout(*c)
	val, err := d.format(s.value, multiline, indent)
	if err != nil {
		return err
	}
	v.Value = val
	return nil
}

// cairnItems are the indices of the event array's elements that hold a
// cairn hook (flat: that are one).
func (d *jsonDoc) cairnItems(arr node, style hookStyle, binary string) []int {
	var out []int
	for i := range arr.v.Value.(*hujson.Array).Elements {
		el := &arr.v.Value.(*hujson.Array).Elements[i]
		if len(cairnHandlers(el, style, binary)) > 0 {
			out = append(out, i)
		}
	}
	return out
}

// cairnHandlers are the indices of cairn's handlers in an event array's
// element: its own index 0 when flat and cairn's, the handlers in its
// "hooks" array when grouped. Elements of another shape are not cairn's.
func cairnHandlers(el *hujson.Value, style hookStyle, binary string) []int {
	if _, ok := el.Value.(*hujson.Object); !ok {
		return nil
	}
	isCairn := func(h node) bool {
		_, c := member(h, "command")
		if c == nil {
			return false
		}
		lit, ok := c.Value.(hujson.Literal)
		return ok && lit.Kind() == '"' && isCairnCommand(lit.String(), binary)
	}
	if style == flat {
		if isCairn(node{v: el}) {
			return []int{0}
		}
		return nil
	}
	_, hs := member(node{v: el}, "hooks")
	if hs == nil {
		return nil
	}
	arr, ok := hs.Value.(*hujson.Array)
	if !ok {
		return nil
	}
	var out []int
	for i := range arr.Elements {
		if _, ok := arr.Elements[i].Value.(*hujson.Object); ok && isCairn(node{v: &arr.Elements[i]}) {
			out = append(out, i)
		}
	}
	return out
}

// editHooks makes each event's array hold exactly cairn's desired
// elements (or, removing, none of cairn's), leaving other hooks alone.
// When cairn's elements are already as desired nothing changes; otherwise
// cairn's handlers are taken out and the desired elements appended.
func (d *jsonDoc) editHooks(root node, hs *hookSet, o Options) error {
	var events []string
	for _, h := range hs.hooks {
		if !slices.Contains(events, h.event) {
			events = append(events, h.event)
		}
	}
	hooks, err := d.child(root, "hooks", '{', `"hooks"`)
	if err != nil {
		return err
	}
	if hooks != nil {
		// cairn's handlers under events it no longer uses go too
		for _, m := range hooks.v.Value.(*hujson.Object).Members {
			if arr, ok := m.Value.Value.(*hujson.Array); ok && !slices.Contains(events, m.Name.Value.(hujson.Literal).String()) {
				for i := range arr.Elements {
					if len(cairnHandlers(&arr.Elements[i], hs.style, o.Binary)) > 0 {
						events = append(events, m.Name.Value.(hujson.Literal).String())
						break
					}
				}
			}
		}
	}
	for _, event := range events {
		want := hs.desired(event)
		if o.Remove {
			want = nil
		}
		if hooks == nil {
			if len(want) == 0 {
				continue
			}
			if hooks, err = d.ensure(root, "hooks", '{', `"hooks"`); err != nil {
				return err
			}
		}
		arr, err := d.child(*hooks, event, '[', fmt.Sprintf("hooks.%s", event))
		if err != nil {
			return err
		}
		if arr == nil {
			if len(want) == 0 {
				continue
			}
			if arr, err = d.ensure(*hooks, event, '[', fmt.Sprintf("hooks.%s", event)); err != nil {
				return err
			}
		}
		items := d.cairnItems(*arr, hs.style, o.Binary)
		if len(items) == len(want) && d.itemsEqual(*arr, items, want) {
			continue
		}
		elems := arr.v.Value.(*hujson.Array)
		for _, i := range slices.Backward(items) {
			el := &elems.Elements[i]
			if hs.style == grouped {
				_, inner := member(node{v: el}, "hooks")
				handlers := inner.Value.(*hujson.Array)
				for _, j := range slices.Backward(cairnHandlers(el, hs.style, o.Binary)) {
					removeElement(handlers, j)
				}
				if len(handlers.Elements) > 0 {
					continue // the group keeps someone else's handlers
				}
			}
			removeElement(elems, i)
		}
		for _, w := range want {
			if err := d.appendElement(*arr, w); err != nil {
				return err
			}
		}
		if len(elems.Elements) == 0 {
			i, _ := member(*hooks, event)
			removeMember(hooks.v.Value.(*hujson.Object), i)
		}
	}
	if hooks != nil && len(hooks.v.Value.(*hujson.Object).Members) == 0 {
		i, _ := member(root, "hooks")
		removeMember(root.v.Value.(*hujson.Object), i)
	}
	return nil
}

func (d *jsonDoc) itemsEqual(arr node, items []int, want []any) bool {
	elems := arr.v.Value.(*hujson.Array).Elements
	for k, i := range items {
		if !equalJSON(&elems[i], want[k]) {
			return false
		}
	}
	return true
}

// checkForeignKept re-reads old and new and checks that, cairn's entries
// aside, they hold the same JSON: a guard against an editing mistake
// reaching a user's file.
func (d *jsonDoc) checkForeignKept(old, out []byte, e jsonEdit, binary string) error {
	strip := func(b []byte) (any, error) {
		if b == nil {
			return map[string]any{}, nil
		}
		v, err := hujson.Parse(slices.Clone(b)) // Standardize rewrites the buffer
		if err != nil {
			return nil, err
		}
		v.Standardize()
		var m map[string]any
		if err := json.Unmarshal(v.Pack(), &m); err != nil {
			return nil, err
		}
		if m == nil {
			m = map[string]any{}
		}
		if e.server != nil {
			if c, ok := m[e.server.container].(map[string]any); ok {
				delete(c, ServerName)
				if len(c) == 0 {
					delete(m, e.server.container)
				}
			}
		}
		if e.hooks != nil {
			stripHooks(m, e.hooks.style, binary)
		}
		for _, c := range e.create {
			v, err := jsonValue(c.value)
			if err != nil {
				return nil, err
			}
			if reflect.DeepEqual(m[c.key], v) {
				delete(m, c.key)
			}
		}
		return m, nil
	}
	a, err := strip(old)
	if err != nil {
		return err
	}
	b, err := strip(out)
	if err != nil {
		return fmt.Errorf("setup: editing %s produced invalid JSON (%v); nothing written", d.path, err)
	}
	if !reflect.DeepEqual(a, b) {
		return fmt.Errorf("setup: editing %s would change entries that are not cairn's; nothing written", d.path)
	}
	return nil
}

// jsonValue is v as decoded JSON (maps, slices, strings, float64s), to
// compare with a decoded file.
func jsonValue(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode %T: %w", v, err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("decode %T: %w", v, err)
	}
	return out, nil
}

func stripHooks(m map[string]any, style hookStyle, binary string) {
	hooks, ok := m["hooks"].(map[string]any)
	if !ok {
		return
	}
	isCairn := func(h any) bool {
		o, ok := h.(map[string]any)
		c, _ := o["command"].(string)
		return ok && isCairnCommand(c, binary)
	}
	for event, v := range hooks {
		arr, ok := v.([]any)
		if !ok {
			continue
		}
		var kept []any
		for _, el := range arr {
			if style == flat {
				if !isCairn(el) {
					kept = append(kept, el)
				}
				continue
			}
			g, ok := el.(map[string]any)
			inner, ok2 := g["hooks"].([]any)
			if !ok || !ok2 {
				kept = append(kept, el)
				continue
			}
			var hs []any
			for _, h := range inner {
				if !isCairn(h) {
					hs = append(hs, h)
				}
			}
			if len(hs) == len(inner) {
				kept = append(kept, el)
			} else if len(hs) > 0 {
				g["hooks"] = hs
				kept = append(kept, g)
			}
		}
		if len(kept) == 0 {
			delete(hooks, event)
		} else {
			hooks[event] = kept
		}
	}
	if len(hooks) == 0 {
		delete(m, "hooks")
	}
}
