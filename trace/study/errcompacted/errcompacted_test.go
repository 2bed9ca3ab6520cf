package errcompacted

import (
	"testing"

	"github.com/srctrace/srctrace/trace/study"
)

func TestStudy(t *testing.T) {
	if err := Study.Check(); err != nil {
		t.Fatalf("the errcompacted study: %v", err)
	}
	if s, ok := study.Lookup(Study.Name); !ok || s != Study {
		t.Fatalf("study.Lookup(%q) = %v, %v: the study is not registered", Study.Name, s, ok)
	}
}
