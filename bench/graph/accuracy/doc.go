// Command accuracy measures heuristic resolution against a SCIP index: it
// reads two indexes of the same tree — one built by tree-sitter alone, one
// with the real SCIP index merged — and compares, site by site, the edges
// the heuristics derived with the edges the compiler-grade index gives.
//
//	accuracy -heuristic DIR -precise DIR [-lang go]
//
// A site is an identifier occurrence in a file the SCIP index covers. The
// precise edge of a site goes to the definition (path and name position) of
// the SCIP symbol there, when that definition is in the repository; the
// heuristic edges of a site are every edge the resolver wrote from it
// (ambiguous candidates each count). Precision is the share of heuristic
// edges that are precise edges, over the sites where the SCIP index knows
// the symbol (in the repository or outside it); edges at sites the index
// itself could not resolve cannot be checked and are counted apart
// ("unverifiable"). Recall is the share of precise edges the heuristics
// found. Call edges are the sites tree-sitter saw as calls. Edges the
// resolver adds for convenience beyond the site's symbol (a call of a class
// also calling its constructor) are left out.
package main
