package feasible

import (
	"math/rand"
	"testing"
)

func TestDiffContradictionOfThreeTerms(t *testing.T) {
	d := newDiff()
	a, b, c := &reason{text: "a"}, &reason{text: "b"}, &reason{text: "c"}
	// rev <= compact, rev == scheduled, scheduled > compact.
	if r := d.add("rev", "compact", 0, a); r != nil {
		t.Fatalf("rev <= compact alone: contradiction %v", r)
	}
	if r := d.add("rev", "scheduled", 0, b); r != nil {
		t.Fatal(r)
	}
	if r := d.add("scheduled", "rev", 0, b); r != nil {
		t.Fatal(r)
	}
	r := d.add("compact", "scheduled", -1, c) // compact - scheduled <= -1
	if r == nil {
		t.Fatal("rev <= compact, rev == scheduled, scheduled > compact: no contradiction found")
	}
	got := map[string]bool{}
	for _, x := range r {
		got[x.text] = true
	}
	for _, want := range []string{"a", "b", "c"} {
		if !got[want] {
			t.Errorf("the contradiction's reasons %v lack %s", r, want)
		}
	}
	// The contradicting edge is not kept.
	if ok, _ := d.implies("compact", "scheduled", -1); ok {
		t.Error("a refused constraint was kept")
	}
}

func TestDiffImpliesAndValue(t *testing.T) {
	d := newDiff()
	d.add("x", "y", 2, &reason{text: "x<=y+2"})
	d.add("y", "z", -1, &reason{text: "y<z"})
	if ok, why := d.implies("x", "z", 1); !ok || len(why) != 2 {
		t.Errorf("x - z <= 1: implied %v by %v", ok, why)
	}
	if ok, _ := d.implies("x", "z", 0); ok {
		t.Error("x - z <= 0 is not implied")
	}
	d.add("z", "", 5, nil)
	d.add("", "z", -5, nil)
	if v, ok := d.value("z"); !ok || v != 5 {
		t.Errorf("z = %d, %v; want 5", v, ok)
	}
	if _, ok := d.value("x"); ok {
		t.Error("x is not fixed")
	}
	if r := d.add("z", "z", -1, &reason{text: "self"}); r == nil {
		t.Error("z - z <= -1 is a contradiction")
	}
}

// TestDiffAgainstBruteForce checks the solver against enumeration over a
// small domain on random conjunctions.
func TestDiffAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	terms := []string{"", "a", "b", "c"}
	type con struct {
		x, y int
		c    int64
	}
	for trial := 0; trial < 3000; trial++ {
		var cs []con
		d := newDiff()
		sat := true
		for k := 0; k < 1+rng.Intn(6); k++ {
			x, y := rng.Intn(len(terms)), rng.Intn(len(terms))
			c := int64(rng.Intn(7) - 3)
			cs = append(cs, con{x, y, c})
			if sat && d.add(terms[x], terms[y], c, &reason{}) != nil {
				sat = false
			}
		}
		// Brute force over values in [-12, 12] (the constants are small,
		// so a solution, if any, exists there).
		found := false
		var val [4]int64
		for a := int64(-12); a <= 12 && !found; a++ {
			for b := int64(-12); b <= 12 && !found; b++ {
				for c := int64(-12); c <= 12 && !found; c++ {
					val = [4]int64{0, a, b, c}
					ok := true
					for _, k := range cs {
						if val[k.x]-val[k.y] > k.c {
							ok = false
							break
						}
					}
					found = ok
				}
			}
		}
		if found != sat {
			t.Fatalf("trial %d: %v: solver says %v, enumeration %v", trial, cs, sat, found)
		}
	}
}
