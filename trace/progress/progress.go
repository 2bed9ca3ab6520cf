// Package progress carries the phases of long work (a release's download,
// a build, the lab's rounds, drift over many releases) from the code that
// does the work to whoever shows it. The engine announces phases through
// the context; it never prints. With no Reporter in the context every call
// is a no-op.
package progress

import "context"

// A Reporter hears of phases. Phases nest: Begin starts a phase inside the
// one running, End ends the innermost. Calls come from one goroutine at a
// time per phase, but a Reporter may be shared: it must be safe for
// concurrent use.
type Reporter interface {
	// Begin starts a phase; total is how many steps it has, 0 when unknown.
	Begin(name string, total int)
	// Step says one more step of the innermost phase is done.
	Step()
	// End ends the innermost phase.
	End()
}

type key struct{}

// With returns a context whose work reports its phases to r.
func With(ctx context.Context, r Reporter) context.Context {
	return context.WithValue(ctx, key{}, r)
}

// Phase is a running phase.
type Phase struct {
	r    Reporter
	sub  bool // a sub-phase begun by Next is running
	done bool
}

// Start begins a phase on ctx's Reporter; total is its number of steps (0
// when unknown). Call Done when it ends.
func Start(ctx context.Context, name string, total int) *Phase {
	r, _ := ctx.Value(key{}).(Reporter)
	if r != nil {
		r.Begin(name, total)
	}
	return &Phase{r: r}
}

// Step says one more of p's steps is done.
func (p *Phase) Step() {
	if p.r != nil && !p.done {
		p.r.Step()
	}
}

// Next ends the sub-phase that Next began last (counting it as one of p's
// steps) and begins the sub-phase name.
func (p *Phase) Next(name string) {
	if p.r == nil || p.done {
		return
	}
	p.endSub()
	p.r.Begin(name, 0)
	p.sub = true
}

func (p *Phase) endSub() {
	if p.sub {
		p.r.End()
		p.r.Step()
		p.sub = false
	}
}

// Done ends p (and its sub-phase). Calling it again does nothing, so it can
// be deferred and also called early.
func (p *Phase) Done() {
	if p.r == nil || p.done {
		return
	}
	p.endSub()
	p.r.End()
	p.done = true
}
