package errcompacted

import (
	"strings"

	"github.com/srctrace/srctrace/trace/report"
)

// kubeClaim is the exercise's claim that the Kubernetes layers decide, in
// its words.
var kubeClaim = report.Claim{
	Where: "expect",
	Says: "it is why the Kubernetes translation is a relist and not a warning. A watch that has lost " +
		"history cannot be repaired; it can only be replaced by a fresh full read plus a fresh watch.",
	Verdict: "kubernetes",
	HoldsIf: "relist",
	FailsIf: "no-relist",
}

// kube reads the layers' hops by role and kind.
type kube struct{ l *report.Layers }

func (k kube) hops(role string, kinds ...string) []report.LayerHop {
	var out []report.LayerHop
	for _, h := range k.l.Hops {
		if h.Role != role {
			continue
		}
		if len(kinds) == 0 {
			out = append(out, h)
			continue
		}
		for _, kd := range kinds {
			if h.Kind == kd {
				out = append(out, h)
				break
			}
		}
	}
	return out
}

// one is the first hop of role and kind that ok accepts (nil: any).
func (k kube) one(role, kind string, ok func(report.LayerHop) bool) (report.LayerHop, bool) {
	for _, h := range k.hops(role, kind) {
		if ok == nil || ok(h) {
			return h, true
		}
	}
	return report.LayerHop{}, false
}

// kname is how the notes write a qualified name: etcd's and the standard
// library's short, as the rest of the notes do; Kubernetes' with its import
// path, in the module it belongs to (so that no reader, and not srctrace
// check, takes "cache." or "errors." for a package of etcd).
func kname(q string) string {
	first, _, nested := strings.Cut(q, "/")
	if strings.HasPrefix(q, "go.etcd.io/") || !nested || !strings.Contains(first, ".") {
		return report.ShortName(q) // etcd's, or the standard library's
	}
	return q
}

func hasCond(h report.LayerHop, c string) bool {
	for _, x := range h.Cond {
		if x == c {
			return true
		}
	}
	return false
}

// decideKubernetes reads the hops for the exercise's claim: the verdict's
// facts, each with its lines, and whether the claim holds. Every fact is
// stated only when the hops it rests on were found.
func decideKubernetes(l *report.Layers) {
	c := kubeClaim
	l.Claim = &c
	if l.Absent != "" {
		return
	}
	k := kube{l}
	v := &report.Verdict{ID: "kubernetes", Question: "What does Kubernetes make of a watch that etcd cancels for a compaction?"}
	add := func(key, text string, lines ...report.LayerHop) {
		f := report.Fact{Key: key, Text: text}
		for _, h := range lines {
			f.Lines = append(f.Lines, h.Loc)
		}
		v.Facts = append(v.Facts, f)
	}
	status, hasStatus := k.status()
	if hasStatus {
		add("status", "The API server's storage compares the error with `"+kname(status.byValue.Object)+"` {0} and returns `"+
			kname(status.becomes.Object)+"("+status.becomes.Value+")` {1}: a status with code "+status.code.Value+" {2} and reason "+status.reason.Value+" {3}.",
			status.byValue, status.becomes, status.code, status.reason)
	}
	ev, hasEvent := k.one(roleStorage, "event", nil)
	send, hasSend := k.one(roleStorage, "send", nil)
	recv, hasRecv := k.one(roleClient, "receives", nil)
	toErr, hasErr := k.one(roleClient, "error", nil)
	if hasEvent && hasSend && hasRecv && hasErr {
		add("stream", "It is made an event of type `"+kname(ev.Object)+"` {0} and sent on the watch's result channel {1}; client-go's Reflector compares each event's type with the same constant {2} and makes the event's status an error with `"+kname(toErr.Object)+"` {3}.",
			ev, send, recv, toErr)
	}
	// The relist: the Reflector's predicate that holds for the status, the
	// return of its branch, and the loop that lists and watches again.
	if cl, test, ret, ok := k.classified(status); ok && hasStatus && hasRecv {
		loop, okLoop := k.one(roleClientLoop, "calls", func(h report.LayerHop) bool { return strings.HasSuffix(h.Object, ".Until") })
		law, okLaw := k.one(roleClientLoop, "calls", func(h report.LayerHop) bool { return strings.HasSuffix(h.Object, ".ListAndWatchWithContext") })
		if okLoop && okLaw {
			add("relist", "The Reflector takes it as expired: `"+kname(cl.Object)+"(err)` {0} holds for that status, since `"+kname(test.Loc.Function)+"` compares with `"+kname(test.Object)+"` {1}; that branch ends the watch with `"+ret.Value+"` {2} from `"+kname(ret.Object)+"`, and the Reflector's loop {3} runs `"+kname(law.Object)+"` {4} again: a fresh read and a fresh watch.",
				cl, test, ret, loop, law)
		}
	}
	if mark := k.hops(roleClientMark, "calls"); len(mark) == 0 {
		rvRole := roleClientWatchListRV
		if g, ok := k.one(roleClientGate, "default", nil); ok && g.Value != "true" {
			rvRole = roleClientListRV
		}
		last, okLast := k.one(rvRole, "return", func(h report.LayerHop) bool { return len(h.Cond) == 0 })
		newest, okNew := k.one(rvRole, "return", func(h report.LayerHop) bool { return h.Value == `""` && len(h.Cond) == 1 })
		if _, _, ret, ok := k.classified(status); ok && okLast && okNew {
			add("no-mark", "`"+kname(ret.Loc.Function)+"` never marks the last resource version unavailable, so the fresh read asks from `"+last.Value+"` {0}, the last resource version the Reflector has seen; it asks from \"\", the newest, only while `"+newest.Cond[0]+"` {1}.",
				last, newest)
		}
	}
	if txt, ok := k.one(roleStorage, "by-text", func(h report.LayerHop) bool { return h.Match }); ok {
		if warn, ok := k.one(roleStorage, "log", func(h report.LayerHop) bool { return h.Level == "warning" && h.Under == "by-text" }); ok {
			add("also-warning", "The API server also logs it as a warning: `"+kname(txt.Loc.Function)+"` finds the sentinel's text in the error's, `"+kname(txt.Object)+"(err.Error(), "+txt.Value+")` {0}, and logs `"+kname(warn.Object)+"("+warn.Value+", err)` {1}.",
				txt, warn)
		}
	}
	if gate, ok := k.one(roleClientGate, "default", nil); ok {
		use, _ := k.one(roleClientUseWatchList, "write", func(h report.LayerHop) bool { return len(h.Args) > 0 })
		wl, okWL := k.one(roleClientRead, "calls", func(h report.LayerHop) bool { return strings.HasSuffix(h.Object, ".watchList") })
		ls, okLs := k.one(roleClientRead, "calls", func(h report.LayerHop) bool { return strings.HasSuffix(h.Object, ".list") })
		if okWL && okLs && use.Object != "" {
			initial, okInit := k.one(roleClientWatchListOpts, "field", func(h report.LayerHop) bool { return h.Object == "SendInitialEvents" })
			off, okOff := k.one(roleClientUseWatchList, "write", func(h report.LayerHop) bool { return h.Value == "false" && len(h.Cond) > 0 })
			if gate.Value == "true" && okInit {
				text := "By default the fresh read and the fresh watch are one request: `" + use.Value + "` {0} is on by default in this release {1}, so `" + kname(ls.Loc.Function) + "` calls `" + kname(wl.Object) + "` {2}, a watch with `SendInitialEvents: " + initial.Args[0] + "` {3} (the current state first, then the changes); it lists {4} and then watches when that fails or the gate is off"
				hops := []report.LayerHop{use, gate, wl, initial, ls}
				if okOff {
					text += ", and when `" + off.Cond[0] + "` {5}"
					hops = append(hops, off)
				}
				add("one-request", text+".", hops...)
			} else if gate.Value != "true" {
				add("two-requests", "By default the fresh read and the fresh watch are two requests: `"+use.Value+"` {0} is off by default in this release {1}, so `"+kname(ls.Loc.Function)+"` lists {2} and then watches; a watch-list {3} only where the gate is on.",
					use, gate, ls, wl)
			}
		}
	}
	if w, ok := k.one(roleCacheWatch, "calls", func(h report.LayerHop) bool {
		return len(h.Cond) == 0 && strings.HasSuffix(h.Object, "(*Cacher).Watch")
	}); ok {
		add("from-cache", "With the watch cache on for the resource, the watch that reads afresh is served by the cache: `"+kname(w.Loc.Function)+"` calls `"+kname(w.Object)+"` {0} on every request.", w)
	}
	l.Verdict = v
	for _, f := range v.Facts {
		if f.Key == c.HoldsIf {
			t, f := true, f
			c.Holds, c.Fact = &t, &f
		}
	}
	v.Sentence, v.Lines = kubeSentence(v)
}

// kubeSentence is the verdict in one sentence, with its lines.
func kubeSentence(v *report.Verdict) (string, []report.Loc) {
	f := map[string]report.Fact{}
	for _, x := range v.Facts {
		f[x.Key] = x
	}
	r, ok := f["relist"]
	if !ok {
		return "Undecided: the analysis did not find the Reflector's branch for the API server's status and the loop that reads again.", nil
	}
	s := "A relist: the Reflector takes the API server's status as expired {0} and reads afresh {1}"
	lines := []report.Loc{r.Lines[0], r.Lines[4]}
	if w, ok := f["also-warning"]; ok {
		s += "; and also a warning, in the API server's log {2}"
		lines = append(lines, w.Lines[1])
	}
	return s + ".", lines
}

// kstatus is what the storage turns the compaction into.
type kstatus struct {
	byValue, becomes, code, reason report.LayerHop
}

func (k kube) status() (kstatus, bool) {
	var s kstatus
	var ok1, ok2, ok3, ok4 bool
	s.byValue, ok1 = k.one(roleStorage, "by-value", nil)
	s.becomes, ok2 = k.one(roleStorage, "becomes", nil)
	s.code, ok3 = k.one(roleStorage, "field", func(h report.LayerHop) bool { return h.Object == "Code" })
	s.reason, ok4 = k.one(roleStorage, "field", func(h report.LayerHop) bool { return h.Object == "Reason" })
	return s, ok1 && ok2 && ok3 && ok4
}

// classified finds the client's predicate whose test matches the status's
// reason (else another of its constants), that decides a branch, and the
// return that branch leads to.
func (k kube) classified(st kstatus) (cl, test, ret report.LayerHop, ok bool) {
	for _, c := range k.hops(roleClient, "classifies") {
		if branchCond(c) == "" {
			continue
		}
		var best report.LayerHop
		found := false
		for _, t := range k.hops(roleClient, "tests") {
			if t.Of != c.Object || !t.Match {
				continue
			}
			if !found || t.Object == st.reason.Constant {
				best, found = t, true
			}
		}
		if !found {
			continue
		}
		for _, r := range k.hops(roleClient, "return") {
			if r.Of == c.Object && r.Loc.Function == c.Loc.Function {
				return c, best, r, true
			}
		}
	}
	return cl, test, ret, false
}

// branchCond is the condition a classifying call decides, as written:
// the hop's own condition that calls its predicate ("" when the call
// decides no branch of its own).
func branchCond(c report.LayerHop) string {
	for _, x := range c.Cond {
		if strings.Contains(x, c.Object[strings.LastIndex(c.Object, ".")+1:]+"(") && !strings.HasPrefix(x, "!") {
			return x
		}
	}
	return ""
}
