package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// vmFlags returns the VmFlags of the mapping of this process that holds
// address a, from /proc/self/smaps.
func vmFlags(t *testing.T, a uintptr) []string {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) > 0 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":") {
			lo, hi, _ := strings.Cut(fields[0], "-")
			l, err1 := strconv.ParseUint(lo, 16, 64)
			h, err2 := strconv.ParseUint(hi, 16, 64)
			in = err1 == nil && err2 == nil && uint64(a) >= l && uint64(a) < h
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return fields[1:]
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	t.Fatalf("no mapping of this process holds %#x", a)
	return nil
}

// thpAvailable reports whether the kernel has transparent huge pages that
// memory may ask for.
func thpAvailable() bool {
	data, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	return err == nil && !strings.Contains(string(data), "[never]")
}

func TestAdviseHugePages(t *testing.T) {
	if !thpAvailable() {
		t.Skip("this kernel has no transparent huge pages to ask for (/sys/kernel/mm/transparent_hugepage/enabled)")
	}
	b := make([]byte, 8<<20)
	start, end := adviseHugePages(b)
	if start == 0 || end-start < 4<<20 {
		t.Fatalf("adviseHugePages marked [%#x, %#x), want most of 8 MB", start, end)
	}
	for _, a := range []uintptr{start, end - 1} {
		if flags := vmFlags(t, a); !slices.Contains(flags, "hg") {
			t.Errorf("the mapping at %#x has VmFlags %v, want hg (MADV_HUGEPAGE)", a, flags)
		}
	}
	runtime.KeepAlive(b)
}

// TestHeapHugePages: the range given back to the heap stays marked, and
// SRCTRACE_HUGEPAGES=off asks nothing.
func TestHeapHugePages(t *testing.T) {
	if !thpAvailable() {
		t.Skip("this kernel has no transparent huge pages to ask for (/sys/kernel/mm/transparent_hugepage/enabled)")
	}
	t.Setenv("SRCTRACE_HUGEPAGES", "off")
	if marked := heapHugePages(16 << 20); marked != nil {
		t.Errorf("with SRCTRACE_HUGEPAGES=off, heapHugePages marked %#x, want nothing", marked)
	}
	t.Setenv("SRCTRACE_HUGEPAGES", "")
	marked := heapHugePages(16 << 20)
	if len(marked) != 16/4 {
		t.Fatalf("heapHugePages marked %d ranges (%#x), want 4 pieces of 4 MB", len(marked), marked)
	}
	for _, r := range marked {
		if flags := vmFlags(t, r[0]); !slices.Contains(flags, "hg") {
			t.Errorf("after the heap took [%#x, %#x) back, its mapping has VmFlags %v, want hg", r[0], r[1], flags)
		}
	}
}

// TestHeapGrowsIntoHugePages: in a fresh process (this test binary again,
// which starts as srctrace does), what the heap allocates after
// heapHugePages lands in the marked memory. In this process, after other
// tests, the heap has room of its own elsewhere.
func TestHeapGrowsIntoHugePages(t *testing.T) {
	if !thpAvailable() {
		t.Skip("this kernel has no transparent huge pages to ask for (/sys/kernel/mm/transparent_hugepage/enabled)")
	}
	if os.Getenv("SRCTRACE_TEST_GROWS") == "1" {
		marked := heapHugePages(64 << 20)
		var kept [][]byte
		into := 0
		for i := 0; i < 64; i++ {
			b := make([]byte, 512<<10)
			kept = append(kept, b)
			a := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
			for _, r := range marked {
				if a >= r[0] && a < r[1] {
					into++
					break
				}
			}
		}
		runtime.KeepAlive(kept)
		fmt.Printf("into %d of %d\n", into, len(kept))
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHeapGrowsIntoHugePages$", "-test.count=1")
	cmd.Env = append(os.Environ(), "SRCTRACE_TEST_GROWS=1", "SRCTRACE_HUGEPAGES=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var into, total int
	if i := strings.Index(string(out), "into "); i < 0 {
		t.Fatalf("the fresh process said %q", out)
	} else if _, err := fmt.Sscanf(string(out[i:]), "into %d of %d", &into, &total); err != nil {
		t.Fatalf("the fresh process said %q: %v", out, err)
	}
	if into < total/2 {
		t.Errorf("of %d allocations of 512 KB after heapHugePages, %d landed in the marked memory, want most", total, into)
	}
}
