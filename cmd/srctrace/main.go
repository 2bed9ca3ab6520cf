// Command srctrace reads the etcd source the way a reviewer would: it finds
// where a behaviour seen in a lab comes from, with file:line, from the real
// code of a real release.
package main

import (
	"math"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"sync"
	"syscall"
)

// gcPercent is the garbage collector's target unless GOGC says otherwise.
// Most of what a run keeps lives to its end (the release's syntax, types,
// SSA and call graph) while its checks of paths make short-lived garbage:
// with Go's default of 100 the heap grows to twice what lives before a
// collection, and that, not what lives, is the run's peak memory. 75 keeps
// the peak lower for a little more collection work.
const gcPercent = 75

// firstGC is the heap the first collection waits for (unless GOGC or
// GOMEMLIMIT say otherwise). What a run builds first, a release's syntax
// and types and then its SSA, lives to its end: collecting while the heap
// is small finds little garbage and costs time. errcompacted collected 27
// times, 20 of them before its heap reached 100 MB; its peak comes later,
// while paths are checked, and is above this, so waiting does not raise
// it. The Go compiler starts its heap the same way (AdjustStartingHeap).
const firstGC = 128 << 20

// early holds a Ctrl-C or SIGTERM that comes before run installs its own
// handler (while main prepares the heap): run takes it as one that came
// after, so that the run stops as an interrupted run does, with nothing
// written, and does not die of the signal's default action.
var early = make(chan os.Signal, 1)

func main() {
	signal.Notify(early, os.Interrupt, syscall.SIGTERM)
	heapHugePages(hugeHeap)
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
		if os.Getenv("GOMEMLIMIT") == "" {
			delayFirstGC(firstGC)
		}
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// delayFirstGC turns collection off until the process's memory reaches n
// bytes, where the memory limit starts one; once that first collection
// has run (it finds a sentinel unreachable, whose finalizer runs then),
// endFirstGCDelay puts gcPercent back, with no limit.
func delayFirstGC(n int64) {
	gcDelay.Lock()
	defer gcDelay.Unlock()
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(n)
	gcDelay.on = true
	sentinel := new([4]*int) // holds pointers: not a tiny allocation, whose finalizer may never run
	runtime.SetFinalizer(sentinel, func(*[4]*int) { endFirstGCDelay() })
}

// gcDelay says whether delayFirstGC's setting holds; its lock is held
// while the setting changes, so that whoever sees it off sees the
// setting after it.
var gcDelay struct {
	sync.Mutex
	on bool
}

// firstGCTool is where the first collection comes in a why that loads the
// tool's packages too (an error's, with its user's half). Such a run holds
// most at its end (its answer and the user's half hold more than the load
// leaves), above this, so the collections that firstGC would start while
// the load's heap only grows find little garbage and cost time, and
// putting them off costs no peak memory; a why of any other object peaks
// after its load, where firstGC keeps it lower. Measured at v3.7.3 on the
// three errors of issue 17: the same peak, about 0.15 s less.
const firstGCTool = 256 << 20

// putOffFirstGC moves the first collection to firstGCTool, if it is still
// delayed.
func putOffFirstGC() {
	gcDelay.Lock()
	defer gcDelay.Unlock()
	if gcDelay.on {
		debug.SetMemoryLimit(firstGCTool)
	}
}

// endFirstGCDelay puts gcPercent back, with no memory limit, if the first
// collection is still delayed: after it, or before a command sets a
// target of its own (which the first collection's finalizer then leaves).
func endFirstGCDelay() {
	gcDelay.Lock()
	defer gcDelay.Unlock()
	if gcDelay.on {
		debug.SetGCPercent(gcPercent)
		debug.SetMemoryLimit(math.MaxInt64)
		gcDelay.on = false
	}
}
