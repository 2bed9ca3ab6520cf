package trace

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"sync"
)

// lineCache reads source files once and serves their lines. It is safe
// for concurrent use; the lines it serves are never changed.
type lineCache struct {
	mu    sync.Mutex
	files map[string][]string
}

func newLineCache() *lineCache { return &lineCache{files: map[string][]string{}} }

func (c *lineCache) file(name string) ([]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ls, ok := c.files[name]; ok {
		return ls, nil
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	data = bytes.TrimSuffix(data, []byte("\n"))
	ls := strings.Split(string(data), "\n")
	for i, l := range ls {
		ls[i] = strings.TrimSuffix(l, "\r")
	}
	c.files[name] = ls
	return ls, nil
}

func (c *lineCache) line(name string, n int) (string, error) {
	ls, err := c.file(name)
	if err != nil {
		return "", err
	}
	if n < 1 || n > len(ls) {
		return "", fmt.Errorf("line %d is beyond the end (%d lines)", n, len(ls))
	}
	return ls[n-1], nil
}

// excerpt returns lines [n-before, n+after] clipped to the file.
func (c *lineCache) excerpt(name string, n, before, after int) (int, []string, error) {
	ls, err := c.file(name)
	if err != nil {
		return 0, nil, err
	}
	lo, hi := max(1, n-before), min(len(ls), n+after)
	return lo, append([]string{}, ls[lo-1:hi]...), nil
}
