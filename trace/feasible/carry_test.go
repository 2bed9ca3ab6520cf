package feasible

import "testing"

// TestJoinKeepsCommonDisequalities: a join of two worlds keeps what both
// know, disequalities too (a request's ID is not zero in both), and not
// what only one knows.
func TestJoinKeepsCommonDisequalities(t *testing.T) {
	a, b := newWorld(), newWorld()
	id := &reason{text: "id"}
	for _, w := range []*world{a, b} {
		if r := w.addNeq("p1:r.ID", "", 0, id); r != nil {
			t.Fatal(r)
		}
	}
	if r := a.addNeq("p1:r.TTL", "", 0, &reason{text: "ttl"}); r != nil {
		t.Fatal(r)
	}
	j := joinWorlds(a, b)
	if len(j.neq) != 1 || j.neq[0].x != "p1:r.ID" || j.neq[0].why != id {
		t.Fatalf("join's disequalities = %+v, want only p1:r.ID != 0", j.neq)
	}
}

// TestCarryReceive: what the sender's worlds all know of its request's
// fields reaches the receiver's world, with the sender's reason as a
// sent one, and contradicts the receiver's test of the same field; what
// they know of other terms (the server's state, a value of a frame) stays
// behind, and so does a term the receiver's root names a parameter by.
func TestCarryReceive(t *testing.T) {
	w := newWorld()
	id := &reason{text: "loop"}
	for _, c := range []struct {
		x string
		r []*reason
	}{
		{"p1:r.ID", w.addNeq("p1:r.ID", "", 0, id)},
		{"p0:s.rev", w.addDiff("p0:s.rev", "", 5, &reason{text: "state"})},
		{"t3@2", w.addNeq("t3@2", "", 0, &reason{text: "frame"})},
	} {
		if c.r != nil {
			t.Fatalf("%s: %v", c.x, c.r)
		}
	}
	msg := termVal("p1:r", input)
	c := carry([]*world{w}, nil, msg)
	if c == nil || len(c.roots) != 1 || c.roots[0] != "p1:r" {
		t.Fatalf("carry = %+v, want the request p1:r", c)
	}
	if len(c.neq) != 1 || c.neq[0].x != "p1:r.ID" || len(c.edges) != 0 {
		t.Fatalf("carried = %+v, want only p1:r.ID != 0", c)
	}
	recv := newWorld()
	c.receive(recv, []string{"p0:s"})
	if r := recv.addDiff("p1:r.ID", "", 0, &reason{text: "receiver"}); r != nil {
		t.Fatalf("id <= 0 alone contradicts: %v", r)
	}
	r := recv.addDiff("", "p1:r.ID", 0, &reason{text: "receiver"})
	if r == nil {
		t.Fatal("the receiver's id == 0 with the carried id != 0: no contradiction")
	}
	sentSeen := false
	for _, x := range r {
		sentSeen = sentSeen || (x != nil && x.kind == ReasonSent && x.text == "loop")
	}
	if !sentSeen {
		t.Fatalf("contradiction's reasons %+v lack the sender's loop as a sent reason", r)
	}
	// A receiver whose root names a parameter p1:r gets nothing.
	other := newWorld()
	c.receive(other, []string{"p1:r"})
	if len(other.neq) != 0 {
		t.Fatalf("a receiver with its own p1:r got %+v", other.neq)
	}
}
