package annotate

import (
	"strconv"
	"testing"

	"github.com/srctrace/srctrace/trace/report"
)

// TestCommandTableGroupsByExitPlace: commands that print the same
// through one method share a row only when they exit from the same
// place, which the row cites.
func TestCommandTableGroupsByExitPlace(t *testing.T) {
	one := 1
	cmd := func(name, file string, line int) report.UserCommand {
		return report.UserCommand{Command: name, Method: "/kv/Txn", Evaluated: true, Stderr: []string{"Error: boom"},
			ExitCode: &one, ExitConstant: "cobrautl.ExitError", At: &report.Loc{File: file, Line: line}}
	}
	tbl := commandTable([]report.UserCommand{
		cmd("elect", "elect_command.go", 64),
		cmd("lock", "lock_command.go", 54),
		cmd("txn", "txn_command.go", 86),
		cmd("txn2", "txn_command.go", 86),
	})
	var got [][2]string
	for _, r := range tbl.Rows {
		got = append(got, [2]string{plain(r[0].Text), plain(r[3].Text)})
	}
	want := [][2]string{
		{"elect", "1 (cobrautl.ExitError), elect_command.go:64"},
		{"lock", "1 (cobrautl.ExitError), lock_command.go:54"},
		{"txn, txn2", "1 (cobrautl.ExitError), txn_command.go:86"},
	}
	if len(got) != len(want) {
		t.Fatalf("rows %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d: %q, want %q", i, got[i], want[i])
		}
	}
}

// plain is a text's words, spans and citations as they read.
func plain(tx report.Text) string {
	s := ""
	for _, p := range tx {
		switch {
		case p.Loc != nil && p.Text == "":
			s += p.Loc.File + ":" + strconv.Itoa(p.Loc.Line)
		default:
			s += p.Text
		}
	}
	return s
}
