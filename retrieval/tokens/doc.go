// Package tokens splits code and prose into the terms cairn searches by:
// identifiers whole and in parts (camelCase, PascalCase, snake_case,
// kebab-case and digit runs), lower-cased, with the stemming and stop words
// that suit natural-language text. Text search, the built-in embedder and
// query understanding share it, so a query term and an indexed term always
// come out of the same function.
package tokens
