// Command srctrace reads the etcd source the way a reviewer would: it finds
// where a behaviour seen in a lab comes from, with file:line, from the real
// code of a real release.
package main

import (
	"os"
	"runtime/debug"
)

// gcPercent is the garbage collector's target unless GOGC says otherwise.
// Most of what a run keeps lives to its end (the release's syntax, types,
// SSA and call graph) while its checks of paths make short-lived garbage:
// with Go's default of 100 the heap grows to twice what lives before a
// collection, and that, not what lives, is the run's peak memory. 75 keeps
// the peak lower for a little more collection work.
const gcPercent = 75

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
