// Package query understands issue-style text: it pulls out what a search
// should match exactly — identifiers, file paths, stack-trace frames, error
// messages and quoted code — so that retrieval can use them as candidate
// generators of their own next to full-text search.
//
// Identifiers are recognised by shape, not by a dictionary: a word counts
// when it looks like code (snake_case, camelCase, a dotted path, a call
// "name(", text in backticks or a code block, a frame of a traceback) and
// gets a weight by where it appeared: in a traceback or quoted code it is
// stronger evidence than in prose.
package query
