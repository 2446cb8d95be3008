package web

import (
	"cmp"
	"fmt"
	"html/template"
	"path"
	"slices"
	"strings"
)

// Graph is what a page draws: nodes linked to their pages, edges styled by
// confidence. It is laid out and drawn on the server (Layout, SVG), so the
// browser runs no layout code and the drawing is a pure function of the
// answer.
type Graph struct {
	Nodes []Node
	Edges []Edge
	// Max caps the nodes drawn (default MaxNodes); the rest are counted
	// in one "N more" node.
	Max int
}

// Node is one box of a graph.
type Node struct {
	ID    string
	Label string
	Sub   string // second line: a path, a kind
	Href  string
	// Class styles the box: root, entry, gap, more.
	Class string
	// Rank, when Ranked, fixes the node's column (negative: left of 0).
	Rank   int
	Ranked bool
	// Folded counts, on a "N more" node, the nodes it stands for.
	Folded int
}

// Edge joins two nodes by ID.
type Edge struct {
	From, To string
	Label    string
	// Class styles the line: precise, resolved, name-only (the edge's
	// confidence), gap.
	Class string
	// Title is the line's tooltip (default: Label and Class).
	Title string
}

// MaxNodes is the default cap on a drawn graph's nodes.
const MaxNodes = 40

// geometry of the drawing
const (
	colW, nodeW, nodeH, rowH, pad = 250, 210, 40, 56, 20
)

type placed struct {
	Node
	X, Y int
}

// layout is a graph with positions.
type layout struct {
	nodes  []placed
	edges  []Edge
	w, h   int
	hidden int
}

// Layout places the nodes in columns: a node's column is its Rank when
// fixed, else one more than the deepest predecessor's (longest path from
// the sources, back edges of cycles ignored); within a column nodes are
// ordered by the mean row of their predecessors (one barycentre sweep),
// ties in input order. Past Max nodes the graph is collapsed first
// (collapse).
func (g Graph) layout() layout {
	nodes, allEdges, hidden := g.collapse()
	idx := map[string]int{}
	for i, n := range nodes {
		if _, dup := idx[n.ID]; !dup {
			idx[n.ID] = i
		}
	}
	var edges []Edge
	preds := make([][]int, len(nodes))
	succs := make([][]int, len(nodes))
	seen := map[[2]int]bool{}
	for _, e := range allEdges {
		a, ok1 := idx[e.From]
		b, ok2 := idx[e.To]
		if !ok1 || !ok2 || a == b || seen[[2]int{a, b}] {
			continue
		}
		seen[[2]int{a, b}] = true
		edges = append(edges, e)
		preds[b] = append(preds[b], a)
		succs[a] = append(succs[a], b)
	}
	// back edges of cycles, found by a depth-first walk in input order,
	// are left out of the ranking
	back := map[[2]int]bool{}
	state := make([]int8, len(nodes)) // 0 new, 1 on the stack, 2 done
	var walk func(i int)
	walk = func(i int) {
		state[i] = 1
		for _, j := range succs[i] {
			switch state[j] {
			case 0:
				walk(j)
			case 1:
				back[[2]int{i, j}] = true
			}
		}
		state[i] = 2
	}
	for i := range nodes {
		if state[i] == 0 {
			walk(i)
		}
	}
	rank := make([]int, len(nodes))
	done := make([]bool, len(nodes))
	var visit func(i int) int
	visit = func(i int) int {
		if done[i] {
			return rank[i]
		}
		done[i] = true
		if nodes[i].Ranked {
			rank[i] = nodes[i].Rank
			return rank[i]
		}
		r := 0
		for _, p := range preds[i] {
			if !back[[2]int{p, i}] {
				r = max(r, visit(p)+1)
			}
		}
		rank[i] = r
		return r
	}
	for i := range nodes {
		visit(i)
	}
	lo := 0
	for _, r := range rank {
		lo = min(lo, r)
	}
	cols := map[int][]int{}
	var keys []int
	for i, r := range rank {
		if _, ok := cols[r]; !ok {
			keys = append(keys, r)
		}
		cols[r] = append(cols[r], i)
	}
	slices.Sort(keys)
	row := make([]float64, len(nodes))
	for _, k := range keys {
		col := cols[k]
		bary := map[int]float64{}
		for _, i := range col {
			sum, n := 0.0, 0
			for _, p := range append(slices.Clone(preds[i]), succs[i]...) {
				if rank[p] < k {
					sum += row[p]
					n++
				}
			}
			bary[i] = float64(len(col)) // no placed neighbour: keep input order after the others
			if n > 0 {
				bary[i] = sum / float64(n)
			}
		}
		slices.SortStableFunc(col, func(a, b int) int { return cmp.Compare(bary[a], bary[b]) })
		for j, i := range col {
			row[i] = float64(j)
		}
	}
	l := layout{edges: edges, hidden: hidden}
	height := 0
	for _, k := range keys {
		height = max(height, len(cols[k]))
	}
	for _, k := range keys {
		col := cols[k]
		off := (height - len(col)) * rowH / 2
		for j, i := range col {
			l.nodes = append(l.nodes, placed{Node: nodes[i], X: pad + (k-lo)*colW, Y: pad + off + j*rowH})
		}
	}
	l.w = pad*2 + (len(keys)-1)*colW + nodeW
	l.h = pad*2 + (height-1)*rowH + nodeH
	slices.SortStableFunc(l.nodes, func(a, b placed) int { return cmp.Compare(a.ID, b.ID) })
	return l
}

// maxGroups bounds the "N more" nodes of a collapsed graph; maxColumn the
// nodes kept in one fixed column (Node.Ranked).
const (
	maxGroups = 8
	maxColumn = 12
)

// collapse keeps the first Max nodes, at most maxColumn of them in one
// fixed column, and folds the others into "N more" nodes, one per
// directory (of the node's Sub, a path) and column — the package a caller
// at depth 3 sits in stays visible — the first maxGroups of them, then one
// node per column for the rest. Edges to a folded node go to its group's node. It
// returns how many nodes were folded.
func (g Graph) collapse() ([]Node, []Edge, int) {
	limit := cmp.Or(g.Max, MaxNodes)
	var nodes, rest []Node
	perColumn := map[int]int{}
	for _, n := range g.Nodes {
		if len(nodes) >= limit || n.Ranked && perColumn[n.Rank] >= maxColumn {
			rest = append(rest, n)
			continue
		}
		if n.Ranked {
			perColumn[n.Rank]++
		}
		nodes = append(nodes, n)
	}
	if len(rest) == 0 {
		return g.Nodes, g.Edges, 0
	}
	kept := len(nodes)
	into := map[string]string{}
	at := map[string]int{}
	for _, n := range rest {
		dir := path.Dir(n.Sub)
		key := fmt.Sprintf("more:%s:%d:%v", dir, n.Rank, n.Ranked)
		sub := dir + "/"
		if _, ok := at[key]; !ok && len(at) >= maxGroups {
			// the rest of this column
			key, sub = fmt.Sprintf("more:*:%d:%v", n.Rank, n.Ranked), "elsewhere"
		}
		i, ok := at[key]
		if !ok {
			i = len(nodes)
			at[key] = i
			nodes = append(nodes, Node{ID: key, Class: "more", Sub: sub, Rank: n.Rank, Ranked: n.Ranked})
		}
		nodes[i].Folded++
		into[n.ID] = key
	}
	for i := kept; i < len(nodes); i++ {
		nodes[i].Label = fmt.Sprintf("%d more", nodes[i].Folded)
	}
	edges := make([]Edge, 0, len(g.Edges))
	for _, e := range g.Edges {
		if k, ok := into[e.From]; ok {
			e.From = k
		}
		if k, ok := into[e.To]; ok {
			e.To = k
		}
		edges = append(edges, e)
	}
	return nodes, edges, len(rest)
}

// SVG draws the graph: each node a link (when it has an Href) with its
// id in data-node, each edge a path with data-from and data-to, so tests
// and scripts can read the drawing.
func (g Graph) SVG() template.HTML {
	if len(g.Nodes) == 0 {
		return ""
	}
	l := g.layout()
	at := map[string]placed{}
	for _, n := range l.nodes {
		at[n.ID] = n
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="graph" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img">`, l.w, l.h, l.w, l.h)
	b.WriteString(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" markerUnits="userSpaceOnUse" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" class="arrowhead"/></marker></defs>`)
	for _, e := range l.edges {
		a, c := at[e.From], at[e.To]
		x1, y1 := a.X+nodeW, a.Y+nodeH/2
		x2, y2 := c.X, c.Y+nodeH/2
		if c.X <= a.X { // a back edge: leave from the left, enter from the right
			x1, x2 = a.X, c.X+nodeW
		}
		mid := (x1 + x2) / 2
		fmt.Fprintf(&b, `<path class="edge %s" data-from="%s" data-to="%s" d="M%d,%d C%d,%d %d,%d %d,%d" marker-end="url(#arrow)">`,
			esc(e.Class), esc(e.From), esc(e.To), x1, y1, mid, y1, mid, y2, x2, y2)
		if title := cmp.Or(e.Title, strings.TrimSpace(e.Label+" "+e.Class)); title != "" {
			fmt.Fprintf(&b, `<title>%s</title>`, esc(title))
		}
		b.WriteString(`</path>`)
		if e.Label != "" {
			fmt.Fprintf(&b, `<text class="edge-label" x="%d" y="%d">%s</text>`, mid, (y1+y2)/2-4, esc(clip(e.Label, 30)))
		}
	}
	for _, n := range l.nodes {
		open, close := "<g", "</g>"
		if n.Href != "" {
			open, close = fmt.Sprintf(`<a href="%s"`, esc(n.Href)), "</a>"
		}
		fmt.Fprintf(&b, `%s class="node %s" data-node="%s" transform="translate(%d,%d)">`, open, esc(n.Class), esc(n.ID), n.X, n.Y)
		fmt.Fprintf(&b, `<title>%s</title><rect width="%d" height="%d" rx="5"/>`, esc(strings.TrimSpace(n.Label+"\n"+n.Sub)), nodeW, nodeH)
		fmt.Fprintf(&b, `<text x="8" y="16" class="label">%s</text>`, esc(clip(n.Label, 30)))
		if n.Sub != "" {
			fmt.Fprintf(&b, `<text x="8" y="32" class="sub">%s</text>`, esc(clip(n.Sub, 36)))
		}
		b.WriteString(close)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

func esc(s string) string { return template.HTMLEscapeString(s) }

// clip shortens s to n runes, keeping its end (the informative part of a
// path or qualified name).
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return "…" + string(r[len(r)-n+1:])
}
