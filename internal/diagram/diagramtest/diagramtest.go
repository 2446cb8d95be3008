package diagramtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
)

// Graph is what a tool understood: node labels by id, and edges as
// "FROM-LABEL -> TO-LABEL" (with " [EDGE-LABEL]" when labelled), sorted.
type Graph struct {
	Labels map[string]string
	Edges  []string
}

// HasLabel says whether some node's label contains s.
func (g *Graph) HasLabel(s string) bool {
	for _, l := range g.Labels {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

// Missing says why the tools cannot run ("" when they can).
func Missing() string {
	if _, err := exec.LookPath("dot"); err != nil {
		return "graphviz's dot not found (apt-get install graphviz; .ci/deps.sh)"
	}
	if _, err := exec.LookPath("node"); err != nil {
		return "node not found (.ci/deps.sh)"
	}
	if _, err := os.Stat(filepath.Join(clients(), "node_modules", "mermaid", "package.json")); err != nil {
		return "the mermaid package is not installed in testdata/clients (.ci/deps.sh)"
	}
	return ""
}

func clients() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata", "clients")
}

// declared finds the node declarations of a drawn graph, one statement a
// line as cairn writes them, and refuses a node declared twice.
func declared(text string, re *regexp.Regexp) (map[string]bool, error) {
	ids := map[string]bool{}
	for _, m := range re.FindAllStringSubmatch(text, -1) {
		if m[1] == "node" || m[1] == "edge" || m[1] == "graph" {
			continue // DOT's default attributes
		}
		if ids[m[1]] {
			return nil, fmt.Errorf("node %s declared twice", m[1])
		}
		ids[m[1]] = true
	}
	return ids, nil
}

var (
	dotDecl     = regexp.MustCompile(`(?m)^\s*(\w+)\s*\[`)
	mermaidDecl = regexp.MustCompile(`(?m)^\s*(\w+)[\[({>]`)
)

// Dot parses text with dot (-Tjson) and checks it.
func Dot(text string) (*Graph, error) {
	ids, err := declared(text, dotDecl)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("dot", "-Tjson")
	cmd.Stdin = strings.NewReader(text)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("dot: %v: %s", err, stderr.String())
	}
	if s := strings.TrimSpace(stderr.String()); s != "" {
		return nil, fmt.Errorf("dot warned: %s", s)
	}
	var doc struct {
		Objects []struct {
			Name  string `json:"name"`
			Label string `json:"label"`
		} `json:"objects"`
		Edges []struct {
			Tail  int    `json:"tail"`
			Head  int    `json:"head"`
			Label string `json:"label"`
		} `json:"edges"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		return nil, fmt.Errorf("dot -Tjson: %w", err)
	}
	g := &Graph{Labels: map[string]string{}}
	for _, o := range doc.Objects {
		if !ids[o.Name] || o.Label == "" || o.Label == `\N` {
			return nil, fmt.Errorf("node %q is used but not declared with a label", o.Name)
		}
		g.Labels[o.Name] = dotUnescape(o.Label)
	}
	if len(g.Labels) != len(ids) {
		return nil, fmt.Errorf("%d nodes declared, dot drew %d", len(ids), len(g.Labels))
	}
	for _, e := range doc.Edges {
		g.Edges = append(g.Edges, edgeText(g.Labels[doc.Objects[e.Tail].Name], g.Labels[doc.Objects[e.Head].Name], dotUnescape(e.Label)))
	}
	sort.Strings(g.Edges)
	return g, nil
}

// Mermaid parses text with the mermaid package's parser and checks it.
func Mermaid(text string) (*Graph, error) {
	gs, errs := MermaidAll(text)
	return gs[0], errs[0]
}

// mermaidDoc is what mermaid_parse.mjs prints of one graph.
type mermaidDoc struct {
	Type     string `json:"type"`
	Vertices []struct {
		ID, Text, LabelType string
	} `json:"vertices"`
	Edges []struct {
		Start, End, Text string
	} `json:"edges"`
}

// MermaidAll is Mermaid for several texts in one node process (loading
// mermaid takes most of a second): graphs and errors by text.
func MermaidAll(texts ...string) ([]*Graph, []error) {
	graphs, errs := make([]*Graph, len(texts)), make([]error, len(texts))
	fail := func(err error) ([]*Graph, []error) {
		for i := range errs {
			errs[i] = err
		}
		return graphs, errs
	}
	in, err := json.Marshal(texts)
	if err != nil {
		return fail(err)
	}
	cmd := exec.Command("node", filepath.Join(clients(), "mermaid_parse.mjs"), "--batch")
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return fail(fmt.Errorf("mermaid_parse.mjs: %v: %s", err, stderr.String()))
	}
	var results []struct {
		Graph *mermaidDoc `json:"graph"`
		Error string      `json:"error"`
	}
	if err := json.Unmarshal(out, &results); err != nil || len(results) != len(texts) {
		return fail(fmt.Errorf("mermaid_parse.mjs: %d results for %d graphs (%v)", len(results), len(texts), err))
	}
	for i, r := range results {
		if r.Error != "" {
			errs[i] = fmt.Errorf("mermaid: %s", r.Error)
			continue
		}
		graphs[i], errs[i] = checkMermaid(texts[i], r.Graph)
	}
	return graphs, errs
}

func checkMermaid(text string, doc *mermaidDoc) (*Graph, error) {
	ids, err := declared(text, mermaidDecl)
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(doc.Type, "flowchart") {
		return nil, fmt.Errorf("mermaid read a %q, not a flowchart", doc.Type)
	}
	g := &Graph{Labels: map[string]string{}}
	for _, v := range doc.Vertices {
		if !ids[v.ID] || v.LabelType == "text" || v.Text == v.ID {
			return nil, fmt.Errorf("node %q is used but not declared with a label", v.ID)
		}
		g.Labels[v.ID] = decodeMermaid(v.Text)
	}
	if len(g.Labels) != len(ids) {
		return nil, fmt.Errorf("%d nodes declared, mermaid read %d", len(ids), len(g.Labels))
	}
	for _, e := range doc.Edges {
		g.Edges = append(g.Edges, edgeText(g.Labels[e.Start], g.Labels[e.End], decodeMermaid(e.Text)))
	}
	sort.Strings(g.Edges)
	return g, nil
}

// mermaid's parser keeps entity codes encoded (#quot; as ﬂ°quot¶ß, #35;
// as ﬂ°°35¶ß) and line breaks as <br>, decoding them when it renders.
var mermaidEntity = regexp.MustCompile(`ﬂ°(°?)(\w+)¶ß`)

// decodeMermaid undoes them, giving the label as it is drawn.
func decodeMermaid(s string) string {
	s = strings.NewReplacer("<br/>", "\n", "<br>", "\n").Replace(s)
	return mermaidEntity.ReplaceAllStringFunc(s, func(m string) string {
		sub := mermaidEntity.FindStringSubmatch(m)
		if sub[1] != "" {
			var n int
			if _, err := fmt.Sscanf(sub[2], "%d", &n); err == nil {
				return string(rune(n))
			}
			return m
		}
		switch sub[2] {
		case "quot":
			return `"`
		case "lt":
			return "<"
		case "gt":
			return ">"
		case "amp":
			return "&"
		}
		return m
	})
}

// dotUnescape reads a label as dot draws it: \\ is a backslash, \n, \l
// and \r end lines.
func dotUnescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'n', 'l', 'r':
			b.WriteByte('\n')
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func edgeText(from, to, label string) string {
	s := strings.ReplaceAll(from, "\n", " ") + " -> " + strings.ReplaceAll(to, "\n", " ")
	if label != "" {
		s += " [" + label + "]"
	}
	return s
}
