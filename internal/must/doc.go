// Package must holds the helpers for the calls whose failure can only be a
// programmer's error, never an input's: json.Marshal of a value whose type
// always encodes (a string, a map of strings, a struct of strings, ints and
// bools). Such a call's error is not dropped (b, _ := json.Marshal(s)) but
// turned into a panic that names the type, since the only fix is to the
// code.
//
// A value that can fail to encode — a float that may be NaN or infinite, a
// type with its own MarshalJSON that rejects some values, a value read
// from input — is not for this package: its caller returns the error.
package must
