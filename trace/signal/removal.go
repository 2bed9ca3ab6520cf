package signal

import (
	"golang.org/x/tools/go/ssa"
)

// Removal is when a compaction removes what it compacts, against when it
// sets the compaction revision: Write is the write of the compaction
// revision (in the function a ceiling guards); Job the call of the
// function that removes revisions (Spec.Removal), made in a function
// literal; Schedule the call in the literal's function that hands a job to
// a scheduler (Spec.Schedule); Orders the functions that call the
// writer first and the scheduling function after it.
type Removal struct {
	Write    Pos
	Job      Pos
	Schedule Pos
	Orders   []Order
}

// Order is a function that makes two calls in this order.
type Order struct {
	First, Then Pos
}

func (r *Result) removal() {
	sg := r.in.Spec
	if sg.Removal == "" || sg.Schedule == "" || len(r.Ceilings) == 0 {
		return
	}
	remove, err := r.in.Graph.Func(sg.Removal)
	if err != nil {
		return
	}
	_, sched, err := r.in.Graph.Callable(sg.Schedule)
	if err != nil || sched == nil {
		return
	}
	x := &Removal{Write: r.Ceilings[0].Writes}
	writer := x.Write.Func
	if writer == nil {
		return
	}
	// The literal that calls the removal, and its function's schedule call.
	var scheduler *ssa.Function
	for _, fn := range r.all {
		if fn.Parent() == nil || x.Job.Filename != "" {
			continue
		}
		for _, b := range fn.Blocks {
			for _, ins := range b.Instrs {
				c, ok := ins.(ssa.CallInstruction)
				if !ok || c.Common().StaticCallee() != remove {
					continue
				}
				x.Job = r.pos(c.Pos(), fn, lineText(r.syn, c.Pos()))
				scheduler = fn.Parent()
			}
		}
	}
	if scheduler == nil {
		return
	}
	for _, b := range scheduler.Blocks {
		for _, ins := range b.Instrs {
			c, ok := ins.(ssa.CallInstruction)
			if !ok || !c.Common().IsInvoke() || c.Common().Method != sched {
				continue
			}
			x.Schedule = r.pos(c.Pos(), scheduler, lineText(r.syn, c.Pos()))
		}
	}
	if x.Schedule.Filename == "" {
		return
	}
	// The functions that call the writer, then the scheduler.
	for _, fn := range r.all {
		var first, then Pos
		for _, b := range fn.Blocks {
			for _, ins := range b.Instrs {
				c, ok := ins.(ssa.CallInstruction)
				if !ok || !c.Pos().IsValid() {
					continue
				}
				switch c.Common().StaticCallee() {
				case writer:
					if first.Filename == "" || c.Pos() < first.pos {
						first = r.pos(c.Pos(), fn, lineText(r.syn, c.Pos()))
					}
				case scheduler:
					if then.Filename == "" || c.Pos() > then.pos {
						then = r.pos(c.Pos(), fn, lineText(r.syn, c.Pos()))
					}
				}
			}
		}
		if first.Filename != "" && then.Filename != "" && first.pos < then.pos {
			x.Orders = append(x.Orders, Order{First: first, Then: then})
		}
	}
	if len(x.Orders) == 0 {
		return
	}
	sortBy(x.Orders, func(a, b Order) bool { return posLess(a.First.Position, b.First.Position) })
	r.Removal = x
}
