package task

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The file format is the one of DESIGN.md's example, in YAML or JSON:
//
//	objective: TEXT                      required
//	base: REV                            default HEAD
//	scope: {write: [GLOB…], protected: [GLOB…]}
//	criteria:                            list of
//	  - {id: ID, text: TEXT, check: CHECK}
//	forbidden: [TEXT…]
//	budgets: {steps: N, input_tokens: N, output_tokens: N, cost_usd: X, wall_s: N}
//	escalation: {max_gate_failures: N, contact: TEXT}
//	allow: {harness: [GLOB…], tests: [NAME…]}   optional; see Allow
//
// where CHECK is exactly one of {tests: SELECTOR}, {command: [ARG…]},
// {regression: true}, {impact_tests: true}, {scope: true}. Decoding is
// strict: an unknown or repeated key, a value of the wrong type, a second
// YAML document or trailing JSON data is an error naming its field path.

// FieldError is one problem with a contract, at a field path such as
// "criteria[2].check" ("" for the file as a whole) and, when known, a
// 1-based line.
type FieldError struct {
	Path string
	Line int
	Msg  string
}

func (e *FieldError) Error() string {
	var b strings.Builder
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.Line > 0 {
		fmt.Fprintf(&b, " (line %d)", e.Line)
	}
	return b.String()
}

// Errors is every problem found in one contract, in file order.
type Errors []*FieldError

func (es Errors) Error() string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.Error()
	}
	return "invalid task contract: " + strings.Join(msgs, "; ")
}

// ParseFile reads and parses a contract file; a .json file must be JSON.
func ParseFile(path string) (*Contract, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read task contract: %w", err)
	}
	var c *Contract
	if strings.EqualFold(filepath.Ext(path), ".json") {
		c, err = parseJSON(data)
	} else {
		c, err = Parse(data)
	}
	if err != nil {
		return nil, fmt.Errorf("task contract %s: %w", path, err)
	}
	return c, nil
}

// Parse decodes and validates a contract in YAML or JSON (a document that
// opens with '{' and is valid JSON is read as JSON). The error, when there
// is one, is an Errors.
func Parse(data []byte) (*Contract, error) {
	if t := bytes.TrimLeft(data, " \t\r\n\ufeff"); len(t) > 0 && t[0] == '{' {
		root, jerr := jsonNode(data)
		if jerr == nil {
			return fromNode(root)
		}
		// Not JSON: a YAML flow mapping ({objective: …}) is still YAML;
		// when it is neither, the JSON error is the one that helps.
		if root, err := yamlNode(data); err == nil {
			return fromNode(root)
		}
		return nil, jerr
	}
	root, err := yamlNode(data)
	if err != nil {
		return nil, err
	}
	return fromNode(root)
}

func parseJSON(data []byte) (*Contract, error) {
	root, err := jsonNode(data)
	if err != nil {
		return nil, err
	}
	return fromNode(root)
}

func yamlNode(data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, Errors{{Msg: "empty contract"}}
		}
		return nil, Errors{{Msg: "yaml: " + strings.TrimPrefix(err.Error(), "yaml: ")}}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, Errors{{Line: extra.Line, Msg: "more than one YAML document"}}
	}
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		return doc.Content[0], nil
	}
	return &doc, nil
}

// rawContract is the file's shape; checkShape walks it by its yaml tags.
type rawContract struct {
	Objective  string         `yaml:"objective"`
	Base       string         `yaml:"base"`
	Scope      Scope          `yaml:"scope"`
	Criteria   []rawCriterion `yaml:"criteria"`
	Forbidden  []string       `yaml:"forbidden"`
	Budgets    Budgets        `yaml:"budgets"`
	Escalation Escalation     `yaml:"escalation"`
	Allow      Allow          `yaml:"allow"`
}

type rawCriterion struct {
	ID    string   `yaml:"id"`
	Text  string   `yaml:"text"`
	Check rawCheck `yaml:"check"`
}

// rawCheck has a pointer per kind, so a key that is present is told from
// one that is absent.
type rawCheck struct {
	Tests       *string   `yaml:"tests"`
	Command     *[]string `yaml:"command"`
	Regression  *bool     `yaml:"regression"`
	ImpactTests *bool     `yaml:"impact_tests"`
	Scope       *bool     `yaml:"scope"`
}

func fromNode(root *yaml.Node) (*Contract, error) {
	s := shape{lines: map[string]int{}}
	if root.Kind != yaml.MappingNode {
		return nil, Errors{{Line: root.Line, Msg: "a contract is a mapping (objective, base, scope, criteria, …)"}}
	}
	s.walk(root, reflect.TypeFor[rawContract](), "")
	if len(s.errs) > 0 {
		return nil, s.errs
	}
	var raw rawContract
	if err := root.Decode(&raw); err != nil {
		// checkShape admits only what decodes; this is a bug in it.
		return nil, Errors{{Msg: "decode: " + err.Error()}}
	}
	c, errs := build(&raw, s.lines)
	if len(errs) > 0 {
		return nil, errs
	}
	return c, nil
}

// shape checks a node tree against a Go type before decoding, so every
// problem is reported with its field path rather than as a decoder message.
type shape struct {
	errs  Errors
	lines map[string]int // field path → line, for the validation's errors
}

func (s *shape) fail(n *yaml.Node, path, format string, args ...any) {
	s.errs = append(s.errs, &FieldError{Path: path, Line: n.Line, Msg: fmt.Sprintf(format, args...)})
}

func (s *shape) walk(n *yaml.Node, t reflect.Type, path string) {
	s.lines[path] = n.Line
	if n.Kind == yaml.AliasNode {
		// A contract is small and needs no anchors; following aliases
		// would let a few bytes expand without bound.
		s.fail(n, path, "YAML aliases (*%s) are not supported: write the value out", n.Value)
		return
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		if t.Kind() == reflect.Struct || t.Kind() == reflect.Slice {
			return // "scope:" with nothing after it: left empty
		}
		s.fail(n, path, "no value")
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		s.walkStruct(n, t, path)
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			s.fail(n, path, "want a list, got %s", describe(n))
			return
		}
		for i, e := range n.Content {
			s.walk(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i))
		}
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			s.fail(n, path, "want text, got %s", describe(n))
		}
	case reflect.Bool:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
			s.fail(n, path, "want true or false, got %s", describe(n))
		}
	case reflect.Int, reflect.Int64:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
			s.fail(n, path, "want a whole number, got %s", describe(n))
		} else if err := n.Decode(reflect.New(t).Interface()); err != nil {
			s.fail(n, path, "number out of range: %s", n.Value)
		}
	case reflect.Float64:
		if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") {
			s.fail(n, path, "want a number, got %s", describe(n))
		}
	default:
		panic("task: shape of unsupported type " + t.String())
	}
}

func (s *shape) walkStruct(n *yaml.Node, t reflect.Type, path string) {
	if n.Kind != yaml.MappingNode {
		s.fail(n, path, "want a mapping, got %s", describe(n))
		return
	}
	fields := map[string]reflect.Type{}
	var known []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		fields[name] = f.Type
		known = append(known, name)
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		kp := join(path, k.Value)
		if k.Kind != yaml.ScalarNode {
			s.fail(k, path, "a key must be a name, got %s", describe(k))
			continue
		}
		ft, ok := fields[k.Value]
		switch {
		case !ok:
			s.fail(k, kp, "unknown field (known: %s)", strings.Join(known, ", "))
		case seen[k.Value]:
			s.fail(k, kp, "given twice")
		default:
			seen[k.Value] = true
			s.walk(v, ft, kp)
		}
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		kind := map[string]string{"!!str": "text", "!!int": "a number", "!!float": "a number", "!!bool": "a boolean"}[n.Tag]
		return fmt.Sprintf("%s %q", cmpOr(kind, "a value"), n.Value)
	}
	return "an unexpected node"
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// jsonNode reads one JSON value into a YAML node tree, so JSON and YAML
// share the shape check and its errors. Keys are kept in order and repeats
// are caught by the shape check, which encoding/json would let through.
func jsonNode(data []byte) (*yaml.Node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	line := func() int { return 1 + bytes.Count(data[:min(int(dec.InputOffset()), len(data))], []byte("\n")) }
	var value func() (*yaml.Node, error)
	value = func() (*yaml.Node, error) {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		l := line() // the offset is just past the token, on its line
		switch v := tok.(type) {
		case json.Delim:
			n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: l}
			if v == '{' {
				n.Kind, n.Tag = yaml.MappingNode, "!!map"
			}
			for dec.More() {
				if n.Kind == yaml.MappingNode {
					kt, err := dec.Token()
					if err != nil {
						return nil, err
					}
					kl := line()
					n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: kt.(string), Line: kl})
				}
				e, err := value()
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, e)
			}
			if _, err := dec.Token(); err != nil { // the closing delimiter
				return nil, err
			}
			return n, nil
		case string:
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v, Line: l, Style: yaml.DoubleQuotedStyle}, nil
		case json.Number:
			tag := "!!int"
			if strings.ContainsAny(string(v), ".eE") {
				tag = "!!float"
			}
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: string(v), Line: l}, nil
		case bool:
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: fmt.Sprint(v), Line: l}, nil
		case nil:
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null", Line: l}, nil
		}
		return nil, fmt.Errorf("unexpected token %v", tok)
	}
	root, err := value()
	if err == nil && dec.More() {
		err = errors.New("data after the contract's closing brace")
	}
	if err == nil {
		if _, terr := dec.Token(); !errors.Is(terr, io.EOF) {
			err = errors.New("data after the contract's closing brace")
		}
	}
	if err != nil {
		return nil, Errors{{Line: line(), Msg: "json: " + err.Error()}}
	}
	return root, nil
}

// kinds lists the check kinds a raw check sets, in CheckKind order.
func (r *rawCheck) kinds() []CheckKind {
	var ks []CheckKind
	for k, set := range map[CheckKind]bool{
		CheckTests: r.Tests != nil, CheckCommand: r.Command != nil, CheckRegression: r.Regression != nil,
		CheckImpactTests: r.ImpactTests != nil, CheckScope: r.Scope != nil,
	} {
		if set {
			ks = append(ks, k)
		}
	}
	slices.Sort(ks)
	return ks
}
