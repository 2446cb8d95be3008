// Package diagram draws a small directed graph — a trace's flows, a call
// tree, an impact analysis, call paths — as a Graphviz DOT digraph or a
// Mermaid flowchart, the two forms cairn's --dot and --mermaid print.
//
// A [Graph] is built by key: [Graph.Node] declares a node once (the first
// label wins; declaring a key again returns the same node), [Graph.Edge]
// joins two declared keys (an edge to a key never declared is an error
// rather than a node drawn from its raw id), and identical edges are drawn
// once. Node ids are generated (n0, n1, … in declaration order), so no name
// from the repository ever has to be a valid identifier in either language:
// names only appear in labels, quoted.
//
// A drawing is bounded (MaxNodes, MaxEdges, labels clipped to MaxLine): Mermaid renders at most 500
// edges and 50,000 characters by default, and an impact over thousands of
// dependents is legible in neither tool. Past the bounds nodes and edges are
// counted instead of drawn, and a note node says how many were left out (the
// JSON answer lists everything).
//
// Quoting: DOT labels are double-quoted strings with backslash and quote
// escaped and line breaks as \n. Mermaid labels are double-quoted strings in
// which the characters its lexer or its entity decoder would take as syntax
// (", #, <, >, `, |, and line breaks) are written as Mermaid's own entity
// codes (#quot;, #35;, #lt;, #gt;, #96;, #124;) and <br/>. Both outputs are
// checked with the real tools (graphviz's dot, the mermaid package's parser)
// in this package's tests and in the command line's.
package diagram
