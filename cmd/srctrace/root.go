package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/srctrace/srctrace/trace/lab"
	"github.com/srctrace/srctrace/trace/progress"
	"github.com/srctrace/srctrace/trace/source"
	"github.com/srctrace/srctrace/trace/tmpdir"
)

// sweepWait bounds how long a run that has ended waits for its sweep of
// TMPDIR (tmpdir.Sweep).
const sweepWait = 5 * time.Second

// Exit codes (govulncheck's convention).
const (
	exitOK       = 0
	exitError    = 1
	exitUsage    = 2
	exitProblems = 3
	// exitInterrupted is the shell's code for a command ended by SIGINT.
	exitInterrupted = 130
)

// usageError is an error in what the user typed: it prints usage, exit 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// problemsError says the check found problems: exit 3, no usage.
type problemsError struct{ msg string }

func (e problemsError) Error() string { return e.msg }

// checkFormat validates a --format value; "md" is accepted for markdown.
func checkFormat(got string, allowed ...string) error {
	for _, a := range allowed {
		if got == a || (a == "markdown" && got == "md") {
			return nil
		}
	}
	return usagef("--format %q: want %s", got, strings.Join(allowed, " or "))
}

// checkSource validates the choice of etcd source.
func checkSource(version, dir string) error {
	if version != "" && dir != "" {
		return usagef("--etcd-version and --etcd-dir exclude each other: name one source")
	}
	return nil
}

func newRootCmd(stdin io.Reader, stdout, stderr io.Writer, quiet *bool) *cobra.Command {
	root := &cobra.Command{
		Use:   "srctrace",
		Short: "Prove from the etcd source how a behaviour seen in a lab comes about",
		Long: `srctrace reads the etcd source the way an expert reviewer would. It loads a
real etcd release (from the Go module proxy, or a local checkout), finds the
code an exercise cites, traces call paths to it from the server's entry
points, and writes annotated study notes.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	if quiet == nil {
		quiet = new(bool)
	}
	root.PersistentFlags().BoolVarP(quiet, "quiet", "q", false, "do not show the progress of long work on stderr")
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(newErrcompactedCmd(nil), newLabCmd(nil), newCheckCmd(nil), newWhyCmd(nil), newErrorsCmd(nil))
	return root
}

// stopProfile ends a --cpuprofile run's profile, when one was started.
var stopProfile func()

// run is the whole program: it returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// A signal main caught before this handler was there interrupts the
	// run as if it came now.
	signal.Stop(early)
	select {
	case <-early:
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		cancel()
	default:
	}
	// What a run that was killed (SIGKILL, a second Ctrl-C) left in
	// TMPDIR, its go commands' work and its servers' data, is removed
	// beside this run's work, and before it exits; but a TMPDIR that does
	// not answer (a stuck network mount) does not keep it from exiting.
	swept := make(chan struct{})
	go func() {
		defer close(swept)
		tmpdir.Sweep()
	}()
	defer func() {
		select {
		case <-swept:
		case <-time.After(sweepWait):
		}
	}()
	ctx, release := stopOnBrokenPipe(ctx, stdout, stderr)
	defer release()
	// After the first Ctrl-C the work cleans up and stops; a second one
	// ends the program at once.
	go func() {
		<-ctx.Done()
		stop()
	}()
	var quiet bool
	var cpuprofile, memprofile string
	prog := newPrinter(stderr)
	root := newRootCmd(stdin, stdout, stderr, &quiet)
	root.PersistentFlags().StringVar(&cpuprofile, "cpuprofile", "", "write a CPU profile of the run to this file (read it with go tool pprof)")
	root.PersistentFlags().StringVar(&memprofile, "memprofile", "", "write a profile of the run's allocations to this file at its end (read it with go tool pprof)")
	var profErr error
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		prog.setQuiet(quiet)
		if cpuprofile == "" {
			return nil
		}
		f, err := os.Create(cpuprofile)
		if err != nil {
			return usageError{fmt.Errorf("--cpuprofile: %w", err)}
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		stopProfile = func() {
			pprof.StopCPUProfile()
			profErr = f.Close()
		}
		return nil
	}
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(progress.With(ctx, prog))
	if stopProfile != nil {
		stopProfile()
		stopProfile = nil
		if profErr != nil && err == nil {
			err = fmt.Errorf("--cpuprofile: %w", profErr)
		}
	}
	if memprofile != "" {
		if e := writeAllocs(memprofile); e != nil && err == nil {
			err = e
		}
	}
	prog.Close()
	if err == nil {
		return exitOK
	}
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "srctrace: interrupted")
		// A lab whose server had stopped answering before the interrupt
		// says so, and what the clean-up could not undo is said even so.
		var down *lab.ServerDownError
		var left *lab.KeysLeftError
		switch {
		case errors.As(err, &down):
			fmt.Fprintf(stderr, "srctrace: %s\n", down)
		case errors.As(err, &left):
			fmt.Fprintf(stderr, "srctrace: %s\n", left)
		}
		return exitInterrupted
	}
	var pe problemsError
	if errors.As(err, &pe) {
		if pe.msg != "" {
			fmt.Fprintln(stderr, pe.msg)
		}
		return exitProblems
	}
	// ErrUsage marks the error for the exit code; the user reads the rest.
	fmt.Fprintf(stderr, "srctrace: %s\n", strings.TrimPrefix(err.Error(), "usage: "))
	var ue usageError
	if errors.As(err, &ue) || errors.Is(err, source.ErrUsage) || isCobraUsage(err) {
		if cmd != nil {
			fmt.Fprintf(stderr, "\n%s", cmd.UsageString())
		}
		return exitUsage
	}
	return exitError
}

// writeAllocs writes the run's allocation profile for --memprofile.
func writeAllocs(file string) error {
	f, err := os.Create(file)
	if err != nil {
		return fmt.Errorf("--memprofile: %w", err)
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("--memprofile: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("--memprofile: %w", err)
	}
	return nil
}
