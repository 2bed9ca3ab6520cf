//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly || solaris || aix

package main

import "golang.org/x/sys/unix"

// readerGone reports whether fd is a pipe or socket whose other end is
// closed: poll says so at once, with POLLERR or POLLHUP.
func readerGone(fd int) bool {
	p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
	n, err := unix.Poll(p, 0)
	return err == nil && n > 0 && p[0].Revents&(unix.POLLERR|unix.POLLHUP) != 0
}
