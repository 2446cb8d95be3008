// Package enginetest builds a small indexed git repository for the servers'
// tests: Go, Python and TypeScript files with callers, an interface with
// implementations, a name defined twice, non-ASCII text before identifiers
// (UTF-16 positions) and a credential to redact.
package enginetest
