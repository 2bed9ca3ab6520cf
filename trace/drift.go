package trace

import (
	"fmt"
	"sort"
	"strings"

	"github.com/srctrace/srctrace/trace/report"
)

// Drift lines up the entries, sites and hops of several reports of one
// study (one per release, oldest first) by what they are, not where.
func Drift(reps []*report.Report) *report.Drift {
	d := &report.Drift{Rows: []report.DriftRow{}}
	type cell struct{ kind, key string }
	at := map[cell][]string{}
	var order []cell
	put := func(i int, kind, key, pos string) {
		c := cell{kind, key}
		if _, ok := at[c]; !ok {
			at[c] = make([]string, len(reps))
			order = append(order, c)
		}
		if at[c][i] == "" {
			at[c][i] = pos
		}
	}
	for i, r := range reps {
		d.Study = r.Study.Name
		d.Releases = append(d.Releases, r.Etcd.Version)
		entryFunc := map[string]string{}
		for _, e := range r.Entries {
			entryFunc[e.Name] = e.Function
			put(i, "entry", e.Name+" "+e.Function, fmt.Sprintf("%s:%d", e.File, e.Line))
		}
		seen := map[string]int{}
		for _, s := range r.Sites {
			k := fmt.Sprintf("%s %s `%s`", s.Function, s.Kind, strings.Join(strings.Fields(s.Text), " "))
			seen[k]++
			if seen[k] > 1 {
				k += fmt.Sprintf(" #%d", seen[k])
			}
			put(i, "site", k, fmt.Sprintf("%s:%d", s.File, s.Line))
		}
		for _, p := range r.Paths {
			for _, path := range p.Paths {
				caller := entryFunc[p.Entry]
				for _, h := range path {
					put(i, "hop", caller+" -> "+h.Function, fmt.Sprintf("%s:%d", h.File, h.Line))
					caller = h.Function
				}
			}
		}
	}
	sort.SliceStable(order, func(a, b int) bool {
		ka := map[string]int{"entry": 0, "site": 1, "hop": 2}
		if order[a].kind != order[b].kind {
			return ka[order[a].kind] < ka[order[b].kind]
		}
		return order[a].key < order[b].key
	})
	for _, c := range order {
		row := report.DriftRow{Kind: c.kind, Key: c.key, At: at[c]}
		row.Change = change(row.At)
		d.Rows = append(d.Rows, row)
	}
	return d
}

func change(at []string) string {
	first, last := -1, -1
	gap := false
	for i, a := range at {
		if a == "" {
			if first >= 0 {
				gap = true
			}
			continue
		}
		if first < 0 {
			first = i
		}
		if gap {
			return "changed"
		}
		last = i
	}
	switch {
	case first > 0 && last == len(at)-1:
		return "appeared"
	case first == 0 && last < len(at)-1:
		return "vanished"
	case first > 0:
		return "changed"
	}
	for _, a := range at[1:] {
		if a != at[0] {
			return "moved"
		}
	}
	return "same"
}
