// Command latency measures search latency from an open index: it opens the
// engine once, then runs queries made from sampled definitions (a fixed
// seed, so every run asks the same questions): their doc comments' first
// lines, issue-shaped texts around them, and their bare names (identifier
// search); it prints percentiles per query and generator set.
//
//	latency -index DIR [-n 200] [-searchprofile F -profileset issue|identifiers]
package main
