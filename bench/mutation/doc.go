// Command mutation checks that the tests notice the bugs users would hit.
// It applies semantic mutations — each a bug a developer could plausibly
// write, listed in mutations.txt and located by an exact text snippet so
// the list survives refactors — one at a time, runs the owning packages'
// tests and reports each mutation as caught, survived or build-broken.
//
//	go run ./bench/mutation [-list bench/mutation/mutations.txt] [-only id,id] [-out FILE] [-timeout 3m]
//
// The mutations are applied in a scratch worktree (git worktree add of
// HEAD, at a fixed path under the temporary directory so the build cache
// is reused between runs), never in the caller's checkout: what is tested
// is the committed HEAD. Before anything runs every snippet must occur
// exactly once in its file, and the unmutated packages' tests, run as the
// mutations run them (whole, or with their -run), must pass (-baseline=false
// skips this); otherwise the run stops with exit status 2. An interrupt removes the
// scratch worktree. -out writes a Markdown report (command, machine, date,
// table, caught percentage).
//
// The list's format, one block per mutation:
//
//	## id
//	file: path/from/the/repository/root.go
//	pkg: ./owning/package ./another
//	run: TestA|TestB   (optional: go test -run, for a package too slow to run whole)
//	bug: the user-visible bug, one line
//	--- find
//	exact text (one or more lines)
//	--- replace
//	its replacement (may be empty)
//	--- end
//
// Lines before the first "##" and lines starting with "#" between blocks
// are comments.
package main
