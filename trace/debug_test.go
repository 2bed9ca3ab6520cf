package trace

import (
	"context"
	"fmt"
	"os"
	"go/token"
	"testing"

	"github.com/srctrace/srctrace/trace/study"
)

func TestDebugSignal(t *testing.T) {
	v := os.Getenv("V")
	r, err := Run(context.Background(), Options{Study: study.ErrCompacted, Version: v})
	if err != nil {
		t.Fatal(err)
	}
	s := r.Signal
	rp := func(p interface{ String() string }) string { return p.String() }
	_ = rp
	P := func(p token.Position) string { return fmt.Sprintf("%s:%d", r.Source.RepoPath(p.Filename), p.Line) }
	for _, c := range s.Comparisons {
		fmt.Printf("CMP %s %q op=%s rev=%q dec=%v cons=%q lp=%d\n", P(c.Pos.Position), c.Text, c.Op, c.Revision, c.Decision, c.Consequence, c.LowestPassing)
	}
	for _, w := range s.Writes {
		fmt.Printf("WRITE %s %s = %s\n", P(w.Position), w.Field, w.Value)
	}
	for _, m := range s.Marks {
		fmt.Printf("MARK %s %q -> %s\n", P(m.Read.Position), m.Read.Text, P(m.Write.Position))
	}
	for _, x := range s.Refusals {
		fmt.Printf("REFUSE %s cond=%q reason=%q text=%q\n", P(x.Position), x.Cond, x.Reason, x.Text)
	}
	for _, x := range s.GoStmts {
		fmt.Printf("GO %s %s %q\n", P(x.Position), x.Loop, x.Text)
	}
	for _, x := range s.Groups {
		fmt.Printf("GROUP %s %s .%s cond=%q\n", P(x.Position), x.Group, x.Method, x.Cond)
	}
	for _, x := range s.Chans {
		fmt.Printf("CHAN %s send=%v carries=%v %q\n", P(x.Position), x.Send, x.Carries, x.Text)
	}
	if c := s.Client; c != nil {
		fmt.Printf("CLIENT case %s ret %s err %+v before %v\n", P(c.Case.Position), P(c.Return.Position), c.Err.Text+"/"+c.Err.Code+"/"+c.Err.Object, c.Before)
		for _, x := range c.Err.Chain {
			fmt.Printf("   chain %s %q\n", P(x.Position), x.Text)
		}
		for _, x := range c.Buffer {
			fmt.Printf("   buf %s %q\n", P(x.Position), x.Text)
		}
	}
	if rd := s.Read; rd != nil {
		fmt.Printf("READ map %s key %s wire %q %s\n", P(rd.Map.Position), P(rd.Key.Position), rd.Wire.Text, rd.Wire.Code)
		for _, x := range rd.Indexed {
			fmt.Printf("   indexed %s\n", P(x.Position))
		}
		for _, x := range rd.Called {
			fmt.Printf("   called %s %s\n", P(x.Position), x.Text)
		}
	}
	for _, x := range s.Pacing {
		fmt.Printf("PACE %s %s = %s absent=%v\n", P(x.Position), x.Object, x.Value, x.Absent)
	}
	for _, fs := range []struct{ n string; f interface{} }{} {
		_ = fs
	}
	for _, w := range s.Progress.Stores {
		fmt.Printf("PROGRESS %s %s\n", P(w.Position), w.Text)
	}
	fmt.Println("START absent", s.Start.Absent)
	for _, w := range s.Start.Stores {
		fmt.Printf("START %s %s\n", P(w.Position), w.Text)
	}
	fmt.Printf("COMPACTTEXT %q\n", s.CompactText.Text)
	if tl := s.Tool; tl != nil {
		for name, run := range map[string]interface{}{} {
			_, _ = name, run
		}
		if w := tl.Watch; w != nil {
			for _, l := range w.Stderr {
				fmt.Printf("WATCH stderr %q at %s\n", l.Text, P(l.Pos.Position))
			}
			fmt.Printf("WATCH exit %d %s %v assumed %q unknown %v\n", w.Exit, w.ExitBy, w.Exited, w.Assumed, w.Unknown)
		}
		if w := tl.Get; w != nil {
			for _, l := range w.Stderr {
				fmt.Printf("GET stderr %q at %s\n", l.Text, P(l.Pos.Position))
			}
			fmt.Printf("GET exit %d %s %v assumed %q\n", w.Exit, w.ExitBy, w.Exited, w.Assumed)
		}
	}
}
