// Package ties holds what every ranking in retrieval shares about
// comparing floating-point scores: two scores tie when they agree to 36
// significant bits, so that the order of a floating-point sum (over map
// iteration, over segments, clause by clause or document by document)
// never decides a ranking; the caller breaks ties by something stable (a
// path, an id).
package ties
