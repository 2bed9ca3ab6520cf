package main

import (
	"math"
	"os"
	"runtime/debug"
	"syscall"
	"unsafe"
)

// hugeHeap is how much of the heap's growth heapHugePages prepares: a
// run of errcompacted peaks at about 210 MB.
const hugeHeap = 256 << 20

// hugePiece is the size of each allocation that prepares it.
const hugePiece = 4 << 20

// heapHugePages asks Linux to back the first n bytes of the heap's growth
// with transparent huge pages (unless SRCTRACE_HUGEPAGES=off). Where they
// are enabled only for memory that asks (the default setting "madvise"),
// Go's heap gets 4 KB pages, and a run's first touch of each costs a page
// fault: about 46,000 of them for errcompacted, a third of its system
// time on a virtual machine. Fresh allocations of n bytes make the
// runtime map memory it does not touch; it is marked MADV_HUGEPAGE and
// given back at once, and the heap then grows into it, 2 MB per fault.
// The allocations are pieces: the runtime clears a new allocation that
// starts in memory the heap used before (a few MB at start-up), and a
// piece there costs at most its own size, where one allocation of n bytes
// would be cleared whole. It returns the ranges marked.
func heapHugePages(n int) (marked [][2]uintptr) {
	if os.Getenv("SRCTRACE_HUGEPAGES") == "off" {
		return nil
	}
	// No collection may run while the pieces are allocated: one that did
	// would find them live, and the heap would grow beside them instead of
	// into them. (SetGCPercent(-1) returns with no collection running; a
	// memory limit, GOMEMLIMIT's, would start some.)
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	var pieces [][]byte
	for size := 0; size < n; size += hugePiece {
		b := make([]byte, hugePiece)
		pieces = append(pieces, b)
		start, end := adviseHugePages(b)
		if start == 0 {
			break // the kernel has no huge pages to give: the rest would be refused too
		}
		marked = append(marked, [2]uintptr{start, end})
	}
	pieces = nil
	debug.FreeOSMemory()
	return marked
}

// adviseHugePages marks the whole pages of b MADV_HUGEPAGE and returns
// their range (zero when the kernel refused: no transparent huge pages).
func adviseHugePages(b []byte) (start, end uintptr) {
	ps := uintptr(os.Getpagesize())
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	start = (p + ps - 1) &^ (ps - 1)
	end = (p + uintptr(len(b))) &^ (ps - 1)
	if end <= start {
		return 0, 0
	}
	if err := syscall.Madvise(b[start-p:end-p], syscall.MADV_HUGEPAGE); err != nil {
		return 0, 0
	}
	return start, end
}
