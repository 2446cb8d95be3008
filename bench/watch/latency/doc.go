// Command latency measures save → queryable on a large repository: how long
// after a file is written its new definition is found by def, its changed
// body by search, and its removed definition is gone. With -mode watch a
// `cairn watch` process keeps the index fresh; with -mode oneshot (the
// baseline) every save is followed by `cairn index` and the query, as a
// tool without a watcher would do. It also times a checkout of a branch
// that changes many files, and the watcher's idle CPU and memory.
//
//	latency -mode watch   -cairn BIN -repo DIR -index DIR [-n 40] [-branch B]
//	latency -mode oneshot -cairn BIN -repo DIR -index DIR [-n 40] [-branch B]
//	latency -make-branch B -files 1000 -repo DIR -index DIR
package main
