//go:build !linux

package main

const hugeHeap = 0

// heapHugePages does nothing here: huge pages are asked of Linux only.
func heapHugePages(int) [][2]uintptr { return nil }
