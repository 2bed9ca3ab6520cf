package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// gcSettings are the collector's target and memory limit now.
func gcSettings() (percent int, limit int64) {
	percent = debug.SetGCPercent(-1)
	debug.SetGCPercent(percent)
	return percent, debug.SetMemoryLimit(-1)
}

// keepGCSettings puts the test process's collector settings back after t.
func keepGCSettings(t *testing.T) {
	percent, limit := gcSettings()
	t.Cleanup(func() {
		firstGCDelayed.Store(false)
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	})
}

// collectUntil collects garbage until ok holds (the sentinel's finalizer
// runs after a collection, on a goroutine of its own), or fails t.
func collectUntil(t *testing.T, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the first collection's finalizer did not run within 10 s")
		}
		runtime.GC()
	}
}

// TestDelayFirstGC: collection is off, under a memory limit, until the
// first collection has run; then the target is gcPercent again, with no
// limit.
func TestDelayFirstGC(t *testing.T) {
	keepGCSettings(t)
	delayFirstGC(64 << 20)
	if p, l := gcSettings(); p != -1 || l != 64<<20 {
		t.Fatalf("before the first collection: GC percent %d, limit %d; want -1 (off), %d", p, l, 64<<20)
	}
	collectUntil(t, func() bool { return !firstGCDelayed.Load() })
	if p, l := gcSettings(); p != gcPercent || l != math.MaxInt64 {
		t.Errorf("after the first collection: GC percent %d, limit %d; want %d, none (%d)", p, l, gcPercent, int64(math.MaxInt64))
	}
}

// TestDelayFirstGCEndedByCommand: a command that sets its own target (the
// atlas) ends the delay first; the first collection's finalizer then
// leaves the command's setting as it is.
func TestDelayFirstGCEndedByCommand(t *testing.T) {
	keepGCSettings(t)
	delayFirstGC(64 << 20)
	endFirstGCDelay()
	if p, l := gcSettings(); p != gcPercent || l != math.MaxInt64 {
		t.Fatalf("after endFirstGCDelay: GC percent %d, limit %d; want %d, none", p, l, gcPercent)
	}
	debug.SetGCPercent(atlasGCPercent)
	debug.SetMemoryLimit(atlasMemLimit)
	// What the sentinel's finalizer does when it runs, after collections.
	endFirstGCDelay()
	runtime.GC()
	runtime.GC()
	time.Sleep(50 * time.Millisecond)
	if p, l := gcSettings(); p != atlasGCPercent || l != atlasMemLimit {
		t.Errorf("after the first collection: GC percent %d, limit %d; want the command's %d, %d", p, l, atlasGCPercent, atlasMemLimit)
	}
}
