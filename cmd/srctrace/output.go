package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/srctrace/srctrace/trace/source"
)

// checkOutput checks, before any work, that -o can be written: its
// directory exists and takes a new file, and it is not a directory. A file
// that exists and is not a regular file (/dev/null, a named pipe) is
// written to directly, and is not checked.
func checkOutput(file string) error {
	if file == "" || file == "-" {
		return nil
	}
	if fi, err := os.Stat(file); err == nil {
		switch {
		case fi.IsDir():
			return usagef("-o %s is a directory: name a file", file)
		case !fi.Mode().IsRegular():
			return nil
		}
	}
	dir := filepath.Dir(file)
	fi, err := os.Stat(dir)
	switch {
	case os.IsNotExist(err):
		return usagef("-o %s: there is no directory %s: create it, or name a file in a directory that exists", file, dir)
	case err != nil:
		return usagef("-o %s: %v", file, err)
	case !fi.IsDir():
		return usagef("-o %s: %s is not a directory", file, dir)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(file)+".tmp*")
	if err != nil {
		return usagef("-o %s: no file can be written in %s (%v): name a file in a directory you can write to", file, dir, unwrapPath(err))
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// unwrapPath drops the temporary file's name from a file error: what the
// user needs is why, not the name of a file they never named.
func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// writeOutput writes data to stdout, or atomically to file, unless ctx has
// ended: an interrupted run writes nothing and replaces no file. A file
// that exists and is not a regular file (/dev/null, a named pipe) is
// written to directly: renaming over it would replace the device.
func writeOutput(ctx context.Context, stdout io.Writer, file string, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if file == "" || file == "-" {
		_, err := stdout.Write(data)
		return err
	}
	if fi, err := os.Stat(file); err == nil && !fi.Mode().IsRegular() {
		f, err := os.OpenFile(file, os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("writing %s: %w", file, err)
		}
		_, werr := f.Write(data)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return fmt.Errorf("writing %s: %w", file, werr)
		}
		return nil
	}
	if err := source.WriteFileAtomic(file, data); err != nil {
		return fmt.Errorf("writing %s: %w", file, unwrapPath(err))
	}
	return nil
}
