package errcompacted

import (
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/srctrace/srctrace/trace/report"
)

// kubernetesSections are the notes' part on the Kubernetes layers, when
// the report has them (srctrace errcompacted --kubernetes): what was read,
// the exercise's claim with its verdict and reasons, the hops layer by
// layer, the lab when it ran, and a closing note.
func kubernetesSections(rep *report.Report) []report.Section {
	l := rep.Layers
	if l == nil {
		return nil
	}
	k := kube{l}
	s := report.Section{ID: "kubernetes", Title: "Four layers: what Kubernetes makes of the compaction"}
	s.Blocks = append(s.Blocks, report.Block{Para: k.read()})
	if l.Absent != "" {
		s.Blocks = append(s.Blocks, report.Block{Para: report.Text{report.StrongSpan("The exercise:"), report.Plain(" “" + kubeClaim.Says + "” — "),
			report.StrongSpan("not checked"), report.Plain(": no Kubernetes release was read beside this etcd release.")}})
		return []report.Section{s}
	}
	s.Blocks = append(s.Blocks, report.Block{Para: k.claim()})
	var adds []report.Text
	for _, key := range additions {
		if f := k.fact(key); f != nil {
			adds = append(adds, report.Sentence(f.Text, f.Lines))
		}
	}
	if len(adds) > 0 {
		s.Blocks = append(s.Blocks, report.Block{List: &report.List{Items: adds}})
	}
	s.Sections = append(s.Sections, k.hopsSection(), k.cacheSection())
	lab := kubeLabOf(l.Lab)
	if lab != nil {
		s.Sections = append(s.Sections, k.labSection(lab))
	}
	s.Sections = append(s.Sections, k.closing(lab))
	return []report.Section{s}
}

// read says which Kubernetes release was read and why.
func (k kube) read() report.Text {
	l := k.l
	if l.Absent != "" {
		return report.Text{report.Plain(upper(l.Absent) + ".")}
	}
	var mods, pinned []string
	same := true
	for _, m := range l.Modules {
		if _, ok := consumerRepo(m.Repo); ok {
			mods = append(mods, "`"+m.Path+"`")
		} else {
			pinned = append(pinned, "`"+m.Path+"`")
			same = same && m.Version == l.Producer
		}
	}
	s := "Read beside etcd " + l.Producer + ": Kubernetes " + l.Release + " (" + strings.Join(mods, ", ") + ")"
	if f := l.Fit; f != nil {
		if f.Named {
			s += ", as asked; its `" + f.Module + "` go.mod requires `" + f.Requires + "` " + f.At
		} else {
			s += ", the newest release listed by the " + f.Among + " whose `" + f.Module + "` go.mod requires `" + f.Requires +
				"` in etcd's minor line and not later than " + l.Producer + ": it requires " + f.At
		}
		if len(f.Passed) > 0 {
			var ps []string
			for _, p := range f.Passed {
				ps = append(ps, p.Version+" (requires "+orNone(p.Requires)+")")
			}
			s += "; newer releases passed over: " + strings.Join(ps, ", ")
		}
	}
	if same {
		s += ". Beside it, minimum version selection keeps every etcd module of the build at " + l.Producer + " (" + strings.Join(pinned, ", ") + ")."
	} else {
		s += "."
	}
	return report.Sentence(s, nil)
}

func consumerRepo(repo string) (string, bool) {
	return repo, strings.HasPrefix(repo, "kubernetes/")
}

func orNone(v string) string {
	if v == "" {
		return "no etcd client"
	}
	return v
}

func upper(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// claim is the exercise's claim and the verdict.
func (k kube) claim() report.Text {
	c := k.l.Claim
	out := report.Text{report.StrongSpan("The exercise:"), report.Plain(" “" + kubeClaim.Says + "” — ")}
	switch {
	case c == nil || c.Holds == nil:
		out = append(out, report.StrongSpan("undecided"), report.Plain(": "))
	case *c.Holds:
		out = append(out, report.StrongSpan("holds"), report.Plain(": "))
	default:
		out = append(out, report.StrongSpan("no"), report.Plain(": "))
	}
	if v := k.l.Verdict; v != nil {
		out = append(out, report.Sentence(v.Sentence, v.Lines)...)
	}
	if c != nil && c.Holds != nil && *c.Holds {
		out = append(out, report.Plain(" The hops below show how; what the code adds to the claim:"))
	}
	return out
}

// additions are the verdict's facts that add to the claim, in order; the
// others are the hops themselves.
var additions = []string{"also-warning", "one-request", "two-requests", "no-mark", "from-cache"}

// hopsSection follows the signal from etcd's client to the Reflector's
// fresh read, one item per hop.
func (k kube) hopsSection() report.Section {
	s := report.Section{ID: "kubernetes-hops", Title: "The hops, from etcd's client to the Reflector"}
	var items []report.Text
	add := func(text string, hops ...report.LayerHop) { items = append(items, hopSentence(text, hops...)) }
	if h, ok := k.one(roleCarrier, "returns", nil); ok {
		add(layerEtcd+": `"+kname(h.Loc.Function)+"` returns `"+kname(h.Object)+"` when `"+strings.Join(h.Cond, " && ")+"`: `"+h.Value+"` {0}.", h)
	}
	calls := k.hops(roleStorage, "call")
	var fromErr []report.LayerHop
	for _, h := range calls {
		if hasCond(h, "wres.Err() != nil") || len(fromErr) < 2 && strings.Contains(strings.Join(h.Cond, " "), "Err()") {
			fromErr = append(fromErr, h)
		}
	}
	if len(fromErr) > 0 {
		var names []string
		text := ""
		for i, h := range fromErr {
			names = append(names, "`"+kname(h.Object)+"` {"+strconv.Itoa(i)+"}")
		}
		text = layerStorage + ": `" + kname(fromErr[0].Loc.Function) + "` hands the watch response's error to " + strings.Join(names, " and ") + "."
		add(text, fromErr...)
	}
	if txt, ok := k.one(roleStorage, "by-text", nil); ok {
		logs := k.hops(roleStorage, "log")
		var warn, other []report.LayerHop
		for _, h := range logs {
			if h.Loc.Function != txt.Loc.Function {
				continue
			}
			switch h.Under {
			case "by-text":
				warn = append(warn, h)
			case "not by-text":
				other = append(other, h)
			}
		}
		text := "By text: `" + kname(txt.Object) + "(err.Error(), " + txt.Value + ")` {0}"
		hs := []report.LayerHop{txt}
		if txt.Match {
			text += " holds for the etcd client's error, whose text contains that"
		}
		for _, w := range warn {
			hs = append(hs, w)
			text += "; then `" + kname(w.Object) + "(" + w.Value + ", err)` {" + strconv.Itoa(len(hs)-1) + "}, level " + w.Level
		}
		for _, o := range other {
			hs = append(hs, o)
			var when []string
			for _, c := range o.Cond {
				if !strings.Contains(c, txt.Value) {
					when = append(when, c)
				}
			}
			text += "; other errors at level " + o.Level + " {" + strconv.Itoa(len(hs)-1) + "}"
			if len(when) > 0 {
				text += " when `" + strings.Join(when, " && ") + "`"
			}
		}
		add(text+".", hs...)
	}
	if st, ok := k.status(); ok {
		add("By value: `"+strings.Join(st.byValue.Cond, " && ")+"` {0}; it becomes `"+kname(st.becomes.Object)+"("+st.becomes.Value+")` {1}: `Code: "+st.code.Args[0]+"` {2} ("+st.code.Value+"), `Reason: "+st.reason.Args[0]+"` {3} ("+st.reason.Value+").",
			st.byValue, st.becomes, st.code, st.reason)
	}
	ev, ok1 := k.one(roleStorage, "event", nil)
	send, ok2 := k.one(roleStorage, "send", nil)
	if ok1 && ok2 {
		add("Into the stream: `"+kname(ev.Loc.Function)+"` makes a `"+kname(Kubernetes.Event)+"` of type `"+kname(ev.Object)+"` ("+ev.Value+") {0} with the status as its object, and `"+kname(send.Loc.Function)+"` sends it on `"+send.Value+"` {1}.", ev, send)
	}
	recv, ok1 := k.one(roleClient, "receives", nil)
	toErr, ok2 := k.one(roleClient, "error", nil)
	if ok1 && ok2 {
		text := layerClient + ": `" + kname(recv.Loc.Function) + "` takes the event: `" + strings.Join(toErr.Cond, " && ") + "` {0}, `" + kname(toErr.Object) + "(event.Object)` {1}"
		hs := []report.LayerHop{recv, toErr}
		if c, ok := k.one(roleClient, "caller", func(h report.LayerHop) bool { return strings.HasSuffix(h.Object, ".(*Reflector).watch") }); ok {
			hs = append(hs, c)
			text += ", and the error comes back to `" + kname(c.Object) + "` {2}"
		}
		add(text+".", hs...)
	}
	st, _ := k.status()
	if cl, test, ret, ok := k.classified(st); ok {
		hs := []report.LayerHop{cl, test}
		text := "It classifies: `" + branchCond(cl) + "` {0} holds for the status (`" + kname(test.Loc.Function) + "` compares with `" + kname(test.Object) + "` {1})"
		for _, lg := range k.hops(roleClient, "log") {
			if lg.Loc.Function == cl.Loc.Function && hasCond(lg, branchCond(cl)) {
				hs = append(hs, lg)
				text += "; it logs " + lg.Value + " at level " + lg.Level + verbosity(lg) + " {" + strconv.Itoa(len(hs)-1) + "}"
			}
		}
		hs = append(hs, ret)
		text += "; and `" + ret.Value + "` {" + strconv.Itoa(len(hs)-1) + "}."
		add(text, hs...)
	}
	loop, ok1 := k.one(roleClientLoop, "calls", func(h report.LayerHop) bool { return strings.HasSuffix(h.Object, ".Until") })
	law, ok2 := k.one(roleClientLoop, "calls", func(h report.LayerHop) bool { return strings.HasSuffix(h.Object, ".ListAndWatchWithContext") })
	if ok1 && ok2 {
		text := "Again: `" + kname(loop.Loc.Function) + "` runs `" + kname(law.Object) + "` {1} in `" + kname(loop.Object) + "(" + strings.Join(loop.Args, ", ") + ")` {0}: after each run, the next delay of its backoff"
		hs := []report.LayerHop{loop, law}
		if d, ok := k.one(roleClientDelay, "write", nil); ok {
			hs = append(hs, d)
			text += ", `" + d.Value + "` {2}"
		}
		if b := k.backoff(); b != "" {
			text += ": " + b
		}
		add(text+".", hs...)
	}
	s.Blocks = append(s.Blocks, report.Block{List: &report.List{Ordered: true, Items: items}})
	return s
}

// hopSentence is text whose {N} cite the Nth hop's line.
func hopSentence(text string, hops ...report.LayerHop) report.Text {
	var ls []report.Loc
	for _, h := range hops {
		ls = append(ls, h.Loc)
	}
	return report.Sentence(text, ls)
}

func verbosity(h report.LayerHop) string {
	if h.Verbosity > 0 {
		return " at V(" + strconv.Itoa(h.Verbosity) + ")"
	}
	return ""
}

// backoff says the backoff's fields found in the Reflector's constructor.
func (k kube) backoff() string {
	fields := map[string]report.LayerHop{}
	for _, h := range k.hops(roleClientBackoff, "field") {
		fields[h.Object] = h
	}
	d, ok1 := fields["Duration"]
	c, ok2 := fields["Cap"]
	f, ok3 := fields["Factor"]
	j, ok4 := fields["Jitter"]
	if !ok1 || !ok2 || !ok3 || !ok4 || d.Value == "" || c.Value == "" || f.Value == "" || j.Value == "" {
		return ""
	}
	s := d.Value + " at first (`" + d.Args[0] + "`), times " + f.Value + " each time up to " + c.Value + ", each lengthened at random by up to " + j.Value + " times itself (`Jitter`)"
	if w, ok := k.one(roleClientDelay, "write", nil); ok && len(w.Args) > 0 {
		s += ", back to " + d.Value + " once more than " + w.Args[0][strings.LastIndex(w.Args[0], " = ")+3:] + " have passed since it last started over"
	}
	return s
}

func (k kube) fact(key string) *report.Fact {
	if k.l.Verdict == nil {
		return nil
	}
	for i := range k.l.Verdict.Facts {
		if k.l.Verdict.Facts[i].Key == key {
			return &k.l.Verdict.Facts[i]
		}
	}
	return nil
}

// cacheSection is the watch cache's own path: its etcd watch compacted,
// and its own "too old".
func (k kube) cacheSection() report.Section {
	s := report.Section{ID: "kubernetes-cache", Title: "The watch cache's own path"}
	var items []report.Text
	add := func(text string, hops ...report.LayerHop) { items = append(items, hopSentence(text, hops...)) }
	refl, ok1 := k.one(roleCacheRestart, "calls", func(h report.LayerHop) bool { return strings.HasSuffix(h.Object, ".NewNamedReflector") })
	lw, ok2 := k.one(roleCacheRestart, "calls", func(h report.LayerHop) bool { return strings.HasSuffix(h.Object, ".NewListerWatcher") })
	if ok1 && ok2 && len(lw.Args) > 0 {
		add("The cache fills itself with a client-go Reflector of its own, `"+kname(refl.Object)+"` {0}, over `"+kname(lw.Object)+"("+lw.Args[0]+", …)` {1}, the storage the cache is made over: it takes a compacted watch of that storage the way every Reflector does, above.", refl, lw)
	}
	term, ok1 := k.one(roleCacheLoop, "calls", func(h report.LayerHop) bool { return strings.HasSuffix(h.Object, ".terminateAllWatchers") })
	law, ok2 := k.one(roleCacheLoop, "calls", func(h report.LayerHop) bool { return strings.HasSuffix(h.Object, ".ListAndWatch") })
	until, ok3 := k.one(roleCacheRestart, "calls", func(h report.LayerHop) bool { return strings.HasSuffix(h.Object, ".Until") })
	if ok1 && ok2 && ok3 && len(until.Args) > 1 {
		text := "When its `ListAndWatch` {0} returns, `" + kname(law.Loc.Function) + "` returns"
		hs := []report.LayerHop{law}
		if u, ok := k.one(roleCacheUnready, "calls", nil); ok {
			hs = append(hs, u)
			text += " and marks the cache not ready, `" + kname(u.Object) + "(" + strings.Join(u.Args, ", ") + ")` {1}"
		}
		hs = append(hs, until, term)
		text += "; `" + kname(until.Object) + "` runs it again after `" + until.Args[1] + "` {" + strconv.Itoa(len(hs)-2) + "}, and it first calls `" + kname(term.Object) + "` {" + strconv.Itoa(len(hs)-1) + "}"
		if w, ok := k.one(roleCacheTerminate, "calls", nil); ok && len(w.Args) > 0 {
			hs = append(hs, w)
			text += ": `" + kname(w.Object) + "(" + w.Args[0] + ")` {" + strconv.Itoa(len(hs)-1) + "} when `" + strings.Join(w.Cond, " && ") + "`"
		}
		if ta, ok := k.one(roleCacheTerminateAll, "calls", nil); ok && len(ta.Args) > 1 {
			hs = append(hs, ta)
			text += "; it hands every watcher to `" + ta.Args[1] + "` {" + strconv.Itoa(len(hs)-1) + "}"
			if sw, ok := k.one(roleCacheStopWatcher, "calls", nil); ok {
				hs = append(hs, sw)
				text += ", which calls `" + kname(sw.Object) + "` {" + strconv.Itoa(len(hs)-1) + "}"
				var closes []string
				for _, c := range k.hops(roleCacheStop, "calls") {
					hs = append(hs, c)
					closes = append(closes, "`close("+strings.Join(c.Args, ", ")+")` {"+strconv.Itoa(len(hs)-1)+"}")
				}
				if len(closes) > 0 {
					text += ": " + strings.Join(closes, ", ")
				}
			}
		}
		text += ". Every client watching through the cache loses its watch at once, with no error in its stream"
		if rw, ok := k.one(roleClientRewatch, "field", func(h report.LayerHop) bool { return h.Object == "ResourceVersion" }); ok && len(rw.Args) > 0 {
			hs = append(hs, rw)
			text += ", and its Reflector watches again from `" + rw.Args[0] + "` {" + strconv.Itoa(len(hs)-1) + "}"
		}
		add(text+".", hs...)
	}
	if b, ok := k.one(roleCacheBusy, "calls", nil); ok {
		text := "Until the cache is ready again, `" + kname(b.Loc.Function) + "` refuses a watch with `" + kname(b.Object) + "` {0}"
		hs := []report.LayerHop{b}
		if r, ok := k.one(roleClientRetry, "calls", nil); ok {
			hs = append(hs, r)
			text += "; the Reflector watches again after its backoff's next delay when `" + kname(r.Object) + "(err)` {1} holds for the refusal"
			for _, t := range k.hops(roleClient, "tests") {
				if t.Of == r.Object {
					hs = append(hs, t)
					text += " (it compares with `" + kname(t.Object) + "` {" + strconv.Itoa(len(hs)-1) + "})"
					break
				}
			}
		}
		add(text+".", hs...)
	}
	too, ok := k.one(roleCacheTooOld, "becomes", nil)
	if ok {
		text := "The cache's own “too old”: `" + kname(too.Object) + "(" + too.Value + ")` {0} when `" + strings.Join(too.Cond, " && ") + "`"
		hs := []report.LayerHop{too}
		if c, ok := k.one(roleCacheTooOld, "call", func(h report.LayerHop) bool { return strings.HasSuffix(h.Object, "newErrWatcher") }); ok {
			hs = append(hs, c)
			text += "; `" + kname(c.Loc.Function) + "` answers the watch with `" + kname(c.Object) + "(err)` {1}"
		}
		if e, ok := k.one(roleCacheTooOld, "event", nil); ok {
			hs = append(hs, e)
			text += ", an event of type `" + kname(e.Object) + "` {" + strconv.Itoa(len(hs)-1) + "}"
		}
		if st, ok := k.status(); ok && too.Object == st.becomes.Object {
			text += ": the same constructor as the storage's, so the same status (" + st.code.Value + ", " + st.reason.Value + ") and the same relist"
		}
		add(text+".", hs...)
	}
	var etcd []report.LayerHop
	var cached *report.LayerHop
	for _, h := range k.hops(roleCacheList, "calls") {
		if strings.HasSuffix(h.Object, "(*Cacher).GetList") {
			h := h
			cached = &h
		} else {
			etcd = append(etcd, h)
		}
	}
	if cached != nil && len(etcd) > 0 {
		hs := append([]report.LayerHop{*cached}, etcd...)
		var refs []string
		for i := range etcd {
			refs = append(refs, "{"+strconv.Itoa(i+1)+"}")
		}
		add("A list (the fallback of a Reflector whose watch-list fails) goes to `"+kname(cached.Object)+"` {0} unless a condition of one of `"+kname(cached.Loc.Function)+"`'s calls to etcd holds ("+strings.Join(refs, ", ")+").", hs...)
	}
	s.Blocks = append(s.Blocks, report.Block{List: &report.List{Items: items}})
	return s
}

// readerName names a lab reader.
func readerName(r string) string {
	switch r {
	case "cache":
		return "the watch cache's Reflector"
	case "client":
		return "client (through the cache)"
	case "direct":
		return "client (storage, no cache)"
	}
	return r
}

// event is a row of the lab's timeline.
type event struct {
	at         int64
	who, what  string
	loc        *report.Loc
	order, seq int
}

// timeline turns the lab's record into events, in time order, from the
// hold on.
func (k kube) timeline(lab *KubeLab) []event {
	var out []event
	add := func(at int64, who, what string, loc *report.Loc) {
		if lab.DoneMs > 0 && at >= lab.DoneMs {
			return // the lab's teardown
		}
		out = append(out, event{at: at - lab.CompactedMs, who: who, what: what, loc: loc, seq: len(out)})
	}
	add(lab.HeldMs, "lab", fmt.Sprintf("ends the watches of the cache's Reflector and of the client of the storage, holds their next watch, writes %d updates", lab.Updates), nil)
	add(lab.CompactedMs, "etcd", fmt.Sprintf("compacted to %d, the head; the held watches go on", lab.CompactRevision), nil)
	for _, r := range lab.Readers {
		for _, q := range r.Requests {
			if q.AtMs < lab.HeldMs && q.EndedMs < lab.HeldMs {
				continue
			}
			if q.AtMs >= lab.HeldMs && (q.HeldMs == 0 || q.AtMs > lab.HeldMs) && q.Kind != "watch" {
				add(q.AtMs, readerName(r.Name), "reads afresh: "+reqText(q), nil)
			} else if q.AtMs > lab.ReleasedMs && q.Kind == "watch" {
				add(q.AtMs, readerName(r.Name), "watches again: "+reqText(q), nil)
			}
			if q.Error != nil {
				how := "gets, in its stream,"
				if q.Returned {
					how = "is refused:"
				}
				add(q.ErrorMs, readerName(r.Name), fmt.Sprintf("%s %s %d %s “%s”", reqText(q), how, q.Error.Code, q.Error.Reason, q.Error.Message), nil)
			} else if q.Ended == "closed" && q.EndedMs >= lab.HeldMs {
				add(q.EndedMs, readerName(r.Name), reqText(q)+" ends, with no error in its stream", nil)
			}
		}
		if r.SyncedMs > 0 {
			add(r.SyncedMs, readerName(r.Name), "holds every update", nil)
		}
	}
	logs := k.hops(roleStorage, "log")
	logs = append(logs, k.hops(roleClient, "log")...)
	logs = append(logs, k.hops(roleCacheTerminate, "calls")...)
	prev := ""
	for _, g := range lab.Logs {
		if g.AtMs < lab.HeldMs {
			continue
		}
		var loc *report.Loc
		for _, h := range logs {
			if path.Base(h.Loc.File) == g.File && h.Loc.Line == g.Line {
				l := h.Loc
				loc = &l
			}
		}
		if loc == nil && g.Level == "info" {
			continue
		}
		key := fmt.Sprint(g.AtMs, g.Level, g.Text)
		if key == prev {
			continue
		}
		prev = key
		add(g.AtMs, "log", g.Level+": "+g.Text, loc)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].at != out[j].at {
			return out[i].at < out[j].at
		}
		return out[i].seq < out[j].seq
	})
	return out
}

func reqText(q KubeRequest) string {
	s := "a " + q.Kind + " from " + rvText(q.RV)
	if q.Match != "" {
		s += " (" + q.Match + ")"
	}
	return s
}

func rvText(rv string) string {
	switch rv {
	case "":
		return "the newest"
	case "0":
		return "any (0)"
	}
	return rv
}

// labSection is the lab's run: what it did, and what each layer did when,
// in milliseconds after the compaction.
func (k kube) labSection(lab *KubeLab) report.Section {
	s := report.Section{ID: "kubernetes-lab", Title: "The lab: the four layers at work"}
	intro := fmt.Sprintf("One program, built in the Kubernetes work module: a real etcd on loopback, the API server's etcd3 storage with its watch cache, and two client-go Reflectors over %d objects, one through the watch cache (as clients of an API server read) and one of the storage itself (as when the cache is off); the watch cache's own Reflector is the third. Times are milliseconds after the compaction; the log is the process's (klog: the API server's and client-go's), and a log line written by a line found above links to it.", lab.Objects)
	s.Blocks = append(s.Blocks, report.Block{Para: report.Text{report.Plain(intro)}})
	tbl := &report.Table{Head: []report.Text{{report.Plain("ms")}, {report.Plain("who")}, {report.Plain("what")}}}
	for _, e := range k.timeline(lab) {
		what := report.Text{report.Plain(e.what)}
		if e.loc != nil {
			what = append(what, report.Plain(" ("), report.Cite(*e.loc), report.Plain(")"))
		}
		tbl.Rows = append(tbl.Rows, []report.Cell{{Text: report.Text{report.Plain(strconv.FormatInt(e.at, 10))}}, {Text: report.Text{report.Plain(e.who)}}, {Text: what}})
	}
	s.Blocks = append(s.Blocks, report.Block{Table: tbl})
	if t := labSummary(lab); t != "" {
		s.Blocks = append(s.Blocks, report.Block{Para: report.Text{report.Plain(t)}})
	}
	for _, n := range lab.Notes {
		s.Blocks = append(s.Blocks, report.Block{Para: report.Text{report.Plain(upper(n) + ".")}})
	}
	return s
}

// labTimes are the run's moments the summary and the closing note use,
// in ms after the compaction (-1: not seen).
type labTimes struct {
	storage410, directRead, directSynced, cacheRead, clientEnded, client410, clientRead, clientSynced int64
	tooOld                                                                                            string
}

func timesOf(lab *KubeLab) labTimes {
	t := labTimes{-1, -1, -1, -1, -1, -1, -1, -1, ""}
	rel := func(ms int64) int64 { return ms - lab.CompactedMs }
	for _, r := range lab.Readers {
		for _, q := range r.Requests {
			after := q.AtMs >= lab.ReleasedMs || q.HeldMs > 0
			if !after {
				if r.Name == "client" && q.Ended == "closed" && q.EndedMs > lab.ReleasedMs && t.clientEnded < 0 {
					t.clientEnded = rel(q.EndedMs)
				}
				continue
			}
			fresh := q.Kind != "watch"
			switch r.Name {
			case "direct":
				if q.Error != nil && q.Error.Code == 410 && t.storage410 < 0 {
					t.storage410 = rel(q.ErrorMs)
				}
				if fresh && t.directRead < 0 {
					t.directRead = rel(q.AtMs)
				}
			case "cache":
				if q.Error != nil && q.Error.Code == 410 && (t.storage410 < 0 || rel(q.ErrorMs) < t.storage410) {
					t.storage410 = rel(q.ErrorMs)
				}
				if fresh && t.cacheRead < 0 {
					t.cacheRead = rel(q.AtMs)
				}
			case "client":
				if q.Error != nil && q.Error.Code == 410 && t.client410 < 0 {
					t.client410, t.tooOld = rel(q.ErrorMs), q.Error.Message
				}
				if fresh && t.clientRead < 0 && t.client410 >= 0 {
					t.clientRead = rel(q.AtMs)
				}
			}
		}
		switch {
		case r.Name == "direct" && r.SyncedMs > 0:
			t.directSynced = rel(r.SyncedMs)
		case r.Name == "client" && r.SyncedMs > 0:
			t.clientSynced = rel(r.SyncedMs)
		}
	}
	return t
}

func labSummary(lab *KubeLab) string {
	t := timesOf(lab)
	var parts []string
	if t.storage410 >= 0 {
		parts = append(parts, fmt.Sprintf("the readers of etcd got the 410 %d ms after the compaction", t.storage410))
	}
	if t.directRead >= 0 && t.storage410 >= 0 {
		parts = append(parts, fmt.Sprintf("the client of the storage read afresh %d ms after its 410 (its backoff's delay)", t.directRead-t.storage410))
	}
	if t.cacheRead >= 0 && t.storage410 >= 0 {
		parts = append(parts, fmt.Sprintf("the cache %d ms after its own (its restart's wait)", t.cacheRead-t.storage410))
	}
	if t.client410 >= 0 {
		s := fmt.Sprintf("the client through the cache got the cache's 410 (“%s”) %d ms after the compaction", t.tooOld, t.client410)
		if t.clientRead >= 0 {
			s += fmt.Sprintf(" and read afresh %d ms after that", t.clientRead-t.client410)
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return ""
	}
	s := "In this run " + strings.Join(parts, "; ") + "."
	if n, fresh := afterExpired(lab); n > 0 && n == fresh {
		s += " Each reader's next request after a 410 was a fresh read, not a watch from its old resource version."
	}
	return s
}

// afterExpired counts the 410s the readers got and how many of them the
// reader followed with a fresh read (a list or a watch-list).
func afterExpired(lab *KubeLab) (n, fresh int) {
	for _, r := range lab.Readers {
		for i, q := range r.Requests {
			if q.Error == nil || q.Error.Code != 410 || i+1 >= len(r.Requests) {
				continue
			}
			n++
			if r.Requests[i+1].Kind != "watch" {
				fresh++
			}
		}
	}
	return n, fresh
}

// closing is the closing note: each hop, the verdict with its reasons,
// and the lab's timings.
func (k kube) closing(lab *KubeLab) report.Section {
	s := report.Section{ID: "kubernetes-close", Title: "In short"}
	var items []report.Text
	var chain []report.Loc
	var names []string
	pick := func(role, kind string, ok func(report.LayerHop) bool, name string) {
		if h, found := k.one(role, kind, ok); found {
			chain = append(chain, h.Loc)
			names = append(names, name+" {"+strconv.Itoa(len(chain)-1)+"}")
		}
	}
	pick(roleCarrier, "returns", nil, "etcd's client returns the sentinel")
	pick(roleStorage, "by-text", nil, "the storage logs it by its text")
	pick(roleStorage, "becomes", nil, "makes it a 410 Expired status")
	pick(roleStorage, "send", nil, "sends it in the stream")
	pick(roleClient, "receives", nil, "the Reflector takes the error event")
	st, _ := k.status()
	if cl, _, ret, ok := k.classified(st); ok {
		chain = append(chain, cl.Loc, ret.Loc)
		names = append(names, "classifies it as expired {"+strconv.Itoa(len(chain)-2)+"}", "ends its watch {"+strconv.Itoa(len(chain)-1)+"}")
	}
	pick(roleClientLoop, "calls", func(h report.LayerHop) bool { return strings.HasSuffix(h.Object, ".ListAndWatchWithContext") }, "reads afresh after its backoff")
	if len(names) > 0 {
		items = append(items, report.Sentence("Hops: "+strings.Join(names, " → ")+".", chain))
	}
	if v := k.l.Verdict; v != nil {
		verdict := "undecided"
		if c := k.l.Claim; c != nil && c.Holds != nil {
			verdict = map[bool]string{true: "holds", false: "no"}[*c.Holds]
		}
		var keys []string
		for _, f := range v.Facts {
			if r, ok := factWords[f.Key]; ok {
				keys = append(keys, r)
			}
		}
		items = append(items, report.Sentence("Verdict: the claim "+verdict+"; "+strings.Join(keys, "; ")+".", nil))
	}
	if lab != nil {
		t := timesOf(lab)
		var ts []string
		for _, x := range []struct {
			ms   int64
			what string
		}{{t.storage410, "410 from the storage"}, {t.directRead, "the storage's client reads afresh"}, {t.directSynced, "and holds every update"},
			{t.cacheRead, "the cache reads afresh"}, {t.client410, "410 from the cache to its client"}, {t.clientRead, "that client reads afresh"}, {t.clientSynced, "and holds every update"}} {
			if x.ms >= 0 {
				ts = append(ts, fmt.Sprintf("%s +%d ms", x.what, x.ms))
			}
		}
		if len(ts) > 0 {
			items = append(items, report.Sentence("The lab, after the compaction: "+strings.Join(ts, ", ")+".", nil))
		}
	}
	s.Blocks = append(s.Blocks, report.Block{List: &report.List{Items: items}})
	return s
}

// factWords say each fact of the verdict in a few words.
var factWords = map[string]string{
	"status":       "the API server makes the compaction a status, 410 Expired",
	"stream":       "in the watch stream, as an error event",
	"relist":       "the Reflector relists: a fresh read and a fresh watch",
	"no-mark":      "from its last resource version",
	"also-warning": "also a warning in the API server's log",
	"one-request":  "the read and the watch are one request by default (a watch-list)",
	"two-requests": "the read and the watch are two requests by default",
	"from-cache":   "served by the watch cache when the resource has one",
}
