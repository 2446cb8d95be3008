// Package diagramtest checks drawn graphs with the real tools: Graphviz's
// dot (Debian's graphviz) parses DOT, and the mermaid package's own parser
// (testdata/clients/mermaid_parse.mjs, installed by .ci/deps.sh) parses
// Mermaid. Beyond syntax, each check asks what the tool understood: every
// node is declared exactly once with a label, so that no edge names a node
// that was never declared (both tools would silently draw it from its raw
// id).
package diagramtest
