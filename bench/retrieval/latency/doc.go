// Command latency measures search latency from an open index: it opens the
// engine once, then runs queries made from the doc comments of sampled
// definitions (a fixed seed, so every run asks the same questions) and
// prints percentiles per generator set.
//
//	latency -index DIR [-n 200]
package main
