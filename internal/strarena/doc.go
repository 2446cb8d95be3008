// Package strarena holds many small strings in a few large, pointer-free
// blocks of bytes.
//
// A table of millions of strings read one by one (a database driver
// allocates each) is millions of small heap objects, and the collector
// visits every one of them at every cycle: on the Linux kernel the index
// run's symbol table held about 20 M such strings, and the collector — its
// span-by-span marking of small objects — took 40% of the run's CPU. A
// string copied into an Arena is a view of a block of 1 MiB (by default);
// the blocks hold no pointers, so the collector marks a block once and
// never scans it, however many strings it holds.
//
// The price: a block lives as long as any string in it does, so an arena
// is for strings that live and die together (an index run's interned
// symbol ids). An Arena is
// not safe for concurrent use; its strings are immutable like any other
// and are safe to share.
package strarena
