package feasible

import (
	"testing"

	"github.com/srctrace/srctrace/trace/callpath"
)

// TestEndedEarlyAtSites: a walk that fails on the way to a call through
// an interface, before it enters the method, ends the same for every
// method the call may run. The second path, through the other method,
// is answered from the first's walk, with the verdict and conditions a
// walk of its own gives; a path that passes the call does not share it.
func TestEndedEarlyAtSites(t *testing.T) {
	const src = `package main

type Store interface{ Get() int }

type A struct{}

func (A) Get() int { return use() }

type B struct{}

func (B) Get() int { return use() }

var sink int

func use() int {
	sink++
	return sink
}

func pick(n int) Store {
	if n > 1 {
		return A{}
	}
	return B{}
}

func never(n int) {
	s := pick(n)
	if n > 0 && n < 0 {
		s.Get()
	}
}

func guarded(n int) {
	if n > 5 {
		s := pick(n)
		s.Get()
	}
}

func main() {
	never(2)
	guarded(3)
}
`
	g, fn := loadMain(t, "example.com/early", src)
	use := fn("use")
	target := use.Blocks[0].Instrs[0]
	paths := func(c *Checker, root string) (out []Result) {
		ps := g.Paths(fn(root), use, 8)
		if len(ps) != 2 {
			t.Fatalf("%d paths from %s to use, want 2 (one through each Get)", len(ps), root)
		}
		for _, p := range ps {
			r, _ := c.Check(Path{Root: fn(root), Hops: p, Target: target})
			out = append(out, r)
		}
		return out
	}
	c := New(g)
	got := paths(c, "never")
	fresh := New(g)
	ps := g.Paths(fn("never"), use, 8)
	alone, _ := fresh.Check(Path{Root: fn("never"), Hops: ps[1], Target: target})
	for i, r := range got {
		if r.Verdict != No {
			t.Errorf("path %d from never: %v, want no", i, r.Verdict)
		}
	}
	if got[1].Verdict != alone.Verdict || len(got[1].Conds) != len(alone.Conds) || got[1].Because == nil || alone.Because == nil ||
		got[1].Because.If != alone.Because.If || got[1].Because.Want != alone.Because.Want {
		t.Errorf("second path from its first's walk: %+v; by a walk of its own: %+v", got[1], alone)
	}
	if _, ok := fresh.endedEarly(Path{Root: fn("never"), Hops: ps[0], Target: target}); !ok {
		t.Errorf("after a walk through one Get that failed before the call, a path through the other is not known to end the same")
	}
	// A walk that enters the method (and finds there that the call
	// cannot run it) says nothing of the other's.
	c = New(g)
	ps = g.Paths(fn("guarded"), use, 8)
	if len(ps) != 2 {
		t.Fatalf("%d paths from guarded to use, want 2", len(ps))
	}
	var viaA, viaB callpath.Path
	for _, p := range ps {
		switch p[0].Callee.String() {
		case "(example.com/early.A).Get":
			viaA = p
		case "(example.com/early.B).Get":
			viaB = p
		}
	}
	if viaA == nil || viaB == nil {
		t.Fatalf("paths from guarded: %v, want one through each Get", ps)
	}
	if r, _ := c.Check(Path{Root: fn("guarded"), Hops: viaB, Target: target}); r.Verdict != No {
		t.Errorf("through B.Get, which n > 5 rules out: %v, want no", r.Verdict)
	}
	if _, ok := c.endedEarly(Path{Root: fn("guarded"), Hops: viaA, Target: target}); ok {
		t.Errorf("a path through a call the walk entered is taken as one that ended before it")
	}
	if r, _ := c.Check(Path{Root: fn("guarded"), Hops: viaA, Target: target}); r.Verdict == No {
		t.Errorf("through A.Get: no, want a way that runs")
	}
}
