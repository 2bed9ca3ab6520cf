package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

// gcSettings are the collector's target and memory limit now, read
// without setting them.
func gcSettings() (percent int, limit int64) {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(s)
	return int(s[0].Value.Uint64()), int64(s[1].Value.Uint64())
}

// inUse is the memory the runtime holds from the OS now.
func inUse() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64())
}

// keepGCSettings puts the test process's collector settings back after t.
func keepGCSettings(t *testing.T) {
	percent := debug.SetGCPercent(-1)
	debug.SetGCPercent(percent)
	limit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		gcDelay.Lock()
		gcDelay.on = false
		gcDelay.Unlock()
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	})
}

// delayed reports whether delayFirstGC's setting still holds.
func delayed() bool {
	gcDelay.Lock()
	defer gcDelay.Unlock()
	return gcDelay.on
}

// TestDelayFirstGC: collection is off, under a memory limit, until the
// first collection has run; then the target is gcPercent again, with no
// limit.
func TestDelayFirstGC(t *testing.T) {
	keepGCSettings(t)
	n := inUse() + 256<<20 // above what the test process holds: no collection starts at once
	delayFirstGC(n)
	if p, l := gcSettings(); p != -1 || l != n {
		t.Fatalf("before the first collection: GC percent %d, limit %d; want off, %d", p, l, n)
	}
	deadline := time.Now().Add(10 * time.Second)
	for delayed() {
		if time.Now().After(deadline) {
			t.Fatal("the first collection's finalizer did not run within 10 s")
		}
		runtime.GC() // the finalizer runs after a collection, on a goroutine of its own
		time.Sleep(10 * time.Millisecond)
	}
	if p, l := gcSettings(); p != gcPercent || l != math.MaxInt64 {
		t.Errorf("after the first collection: GC percent %d, limit %d; want %d, none (%d)", p, l, gcPercent, int64(math.MaxInt64))
	}
}

// TestAtlasGC: the atlas ends the delay before it sets its own target,
// which the first collection's finalizer then leaves; when it is done,
// the target after the delay is back.
func TestAtlasGC(t *testing.T) {
	keepGCSettings(t)
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	delayFirstGC(inUse() + 256<<20)
	restore := atlasGC()
	if p, l := gcSettings(); p != atlasGCPercent || l != atlasMemLimit {
		t.Fatalf("in the atlas: GC percent %d, limit %d; want %d, %d", p, l, atlasGCPercent, atlasMemLimit)
	}
	// What the first collection's finalizer does when it runs.
	endFirstGCDelay()
	if p, l := gcSettings(); p != atlasGCPercent || l != atlasMemLimit {
		t.Errorf("in the atlas, after the first collection: GC percent %d, limit %d; want the atlas's %d, %d", p, l, atlasGCPercent, atlasMemLimit)
	}
	restore()
	if p, l := gcSettings(); p != gcPercent || l != math.MaxInt64 {
		t.Errorf("after the atlas: GC percent %d, limit %d; want %d, none", p, l, gcPercent)
	}
}
