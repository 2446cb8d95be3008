// Command cairn indexes a repository and answers questions about it.
//
// The command only wires: it parses flags into option structs, opens the
// store, calls one library function and formats the result. Exit codes:
// 0 success, 1 failure, 2 usage error, 3 nothing found.
package main

import (
	"os"
)

func main() {
	os.Exit(Main(os.Args[1:]))
}
