package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestDelayFirstGC: collection is off, under a memory limit, until the
// first collection has run; then the target is gcPercent again, with no
// limit.
func TestDelayFirstGC(t *testing.T) {
	prevPercent := debug.SetGCPercent(-1)
	prevLimit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		debug.SetGCPercent(prevPercent)
		debug.SetMemoryLimit(prevLimit)
	})

	delayFirstGC(64 << 20)
	if p := debug.SetGCPercent(-1); p != -1 {
		t.Fatalf("before the first collection, GC percent %d, want -1 (off)", p)
	}
	if l := debug.SetMemoryLimit(-1); l != 64<<20 {
		t.Fatalf("before the first collection, memory limit %d, want %d", l, 64<<20)
	}
	runtime.GC()
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC() // the finalizer runs after a collection finds the sentinel
		p := debug.SetGCPercent(-1)
		debug.SetGCPercent(p)
		if p == gcPercent {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after collections, GC percent %d, want %d", p, gcPercent)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		t.Errorf("after the first collection, memory limit %d, want none (%d)", l, int64(math.MaxInt64))
	}
}
