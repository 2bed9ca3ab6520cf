//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly || solaris || aix)

package main

// readerGone is false here: a broken pipe does not raise SIGPIPE.
func readerGone(int) bool { return false }
