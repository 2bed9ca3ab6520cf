package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// progressAfter is how long a phase runs before it is shown: shorter work
// stays silent.
const progressAfter = time.Second

// printer shows the phases of long work on stderr. On a terminal it keeps
// one line up to date (what runs, how far it is, for how long) and clears
// it when the work is done; elsewhere it prints one line for each phase
// that runs longer than after, when it has run that long.
type printer struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool
	width int
	after time.Duration
	quiet bool
	now   func() time.Time

	stack []*running
	drawn bool // a terminal line is on screen
	stop  chan struct{}
	wg    sync.WaitGroup
}

type running struct {
	name        string
	total, done int
	start       time.Time
	printed     bool
}

// progressAfterEnv names the variable that sets how long a phase runs
// before it is shown (a Go duration; 0 shows every phase as it begins).
const progressAfterEnv = "SRCTRACE_PROGRESS_AFTER"

func newPrinter(w io.Writer) *printer {
	p := &printer{w: w, after: progressAfter, now: time.Now, width: 80}
	if d, err := time.ParseDuration(os.Getenv(progressAfterEnv)); err == nil && d >= 0 {
		p.after = d
	}
	if f, ok := w.(*os.File); ok && isTerminal(f) {
		p.tty = true
		if c, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && c > 20 {
			p.width = c
		}
	}
	return p
}

// isTerminal reports whether f is a character device (a terminal), which
// is what a redrawn line needs.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func (p *printer) setQuiet(q bool) {
	p.mu.Lock()
	p.quiet = q
	p.mu.Unlock()
}

func (p *printer) Begin(name string, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stack = append(p.stack, &running{name: name, total: total, start: p.now()})
	if p.after == 0 && !p.tty && !p.quiet {
		// Every phase is shown as it begins.
		p.stack[len(p.stack)-1].printed = true
		fmt.Fprintln(p.w, "srctrace: "+p.pathLocked(len(p.stack))+" …")
	}
	if len(p.stack) == 1 && p.stop == nil && !p.quiet {
		p.stop = make(chan struct{})
		p.wg.Add(1)
		go p.tick(p.stop)
	}
}

func (p *printer) Step() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.stack); n > 0 {
		p.stack[n-1].done++
	}
}

func (p *printer) End() {
	p.mu.Lock()
	if n := len(p.stack); n > 0 {
		p.stack = p.stack[:n-1]
	}
	last := len(p.stack) == 0
	if last {
		p.clearLocked()
	}
	stop := p.stop
	if last {
		p.stop = nil
	}
	p.mu.Unlock()
	if last && stop != nil {
		close(stop)
		p.wg.Wait()
	}
}

// Close stops the printer and clears its line, before the command writes
// its result or its error.
func (p *printer) Close() {
	p.mu.Lock()
	p.stack = nil
	p.clearLocked()
	stop := p.stop
	p.stop = nil
	p.quiet = true
	p.mu.Unlock()
	if stop != nil {
		close(stop)
		p.wg.Wait()
	}
}

func (p *printer) tick(stop chan struct{}) {
	defer p.wg.Done()
	every := 100 * time.Millisecond
	if !p.tty {
		every = 250 * time.Millisecond
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			p.show()
		}
	}
}

// show draws the terminal line, or prints the lines of phases that have
// now run long enough.
func (p *printer) show() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.quiet || len(p.stack) == 0 {
		return
	}
	now := p.now()
	if p.tty {
		if now.Sub(p.stack[0].start) < p.after {
			return
		}
		line := "srctrace: " + p.pathLocked(len(p.stack)) + " " + seconds(now.Sub(p.stack[0].start))
		if utf8.RuneCountInString(line) > p.width-1 {
			r := []rune(line)
			line = string(r[:p.width-2]) + "…"
		}
		fmt.Fprint(p.w, "\r\x1b[K"+line)
		p.drawn = true
		return
	}
	// A phase that has now run long enough is printed with the phases it is
	// in and the ones running in it: one line says them all.
	due := false
	for _, r := range p.stack {
		if !r.printed && now.Sub(r.start) >= p.after {
			due = true
		}
	}
	if !due {
		return
	}
	for _, r := range p.stack {
		r.printed = true
	}
	fmt.Fprintln(p.w, "srctrace: "+p.pathLocked(len(p.stack))+" …")
}

// pathLocked names the first n running phases, outermost first, each with
// its count when it has one.
func (p *printer) pathLocked(n int) string {
	var parts []string
	for _, r := range p.stack[:n] {
		s := r.name
		if r.total > 0 {
			s += fmt.Sprintf(" [%d/%d]", min(r.done+1, r.total), r.total)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " › ")
}

func (p *printer) clearLocked() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
}

func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
}
