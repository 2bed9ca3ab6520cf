package annotate

import (
	"html/template"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestHighlightGo: the tokens of chroma's Go rules, with its classes:
// a keyword only at a word's end, a builtin only before its call's
// parenthesis (a type name otherwise), a function name before its call
// even across white space, a comment right after // (a preprocessor
// line's class) and one after a space, numbers by kind, strings, and a
// character no rule matches; a comment over two lines is split at its
// newline; a line the tokens cannot give back is escaped, uncoloured.
func TestHighlightGo(t *testing.T) {
	lines := []string{
		`if goto1 := len (x); err != nil { return 0x1F, 1.5, 'a', "s\"", ` + "`r`" + ` } // done`,
		`var x int = max(1, 2) //go:noinline`,
		`f := make (chan 世界) /* a`,
		`b */ x @ y`,
	}
	got := highlightGo(lines)
	want := []template.HTML{
		`<span class="hl-k">if</span><span class="hl-w"> </span><span class="hl-nx">goto1</span><span class="hl-w"> </span><span class="hl-o">:=</span><span class="hl-w"> </span><span class="hl-nf">len</span><span class="hl-w"> </span><span class="hl-p">(</span><span class="hl-nx">x</span><span class="hl-p">);</span><span class="hl-w"> </span><span class="hl-nx">err</span><span class="hl-w"> </span><span class="hl-o">!=</span><span class="hl-w"> </span><span class="hl-kc">nil</span><span class="hl-w"> </span><span class="hl-p">{</span><span class="hl-w"> </span><span class="hl-k">return</span><span class="hl-w"> </span><span class="hl-mh">0x1F</span><span class="hl-p">,</span><span class="hl-w"> </span><span class="hl-mf">1.5</span><span class="hl-p">,</span><span class="hl-w"> </span><span class="hl-sc">&#39;a&#39;</span><span class="hl-p">,</span><span class="hl-w"> </span><span class="hl-s">&#34;s\&#34;&#34;</span><span class="hl-p">,</span><span class="hl-w"> </span><span class="hl-s">` + "`r`" + `</span><span class="hl-w"> </span><span class="hl-p">}</span><span class="hl-w"> </span><span class="hl-c1">// done</span>`,
		`<span class="hl-kd">var</span><span class="hl-w"> </span><span class="hl-nx">x</span><span class="hl-w"> </span><span class="hl-kt">int</span><span class="hl-w"> </span><span class="hl-p">=</span><span class="hl-w"> </span><span class="hl-nb">max</span><span class="hl-p">(</span><span class="hl-mi">1</span><span class="hl-p">,</span><span class="hl-w"> </span><span class="hl-mi">2</span><span class="hl-p">)</span><span class="hl-w"> </span><span class="hl-cp">//go:noinline</span>`,
		`<span class="hl-nx">f</span><span class="hl-w"> </span><span class="hl-o">:=</span><span class="hl-w"> </span><span class="hl-nf">make</span><span class="hl-w"> </span><span class="hl-p">(</span><span class="hl-kd">chan</span><span class="hl-w"> </span><span class="hl-nx">世界</span><span class="hl-p">)</span><span class="hl-w"> </span><span class="hl-cm">/* a</span>`,
		`<span class="hl-cm">b */</span><span class="hl-w"> </span><span class="hl-nx">x</span><span class="hl-w"> </span><span class="hl-err">@</span><span class="hl-w"> </span><span class="hl-nx">y</span>`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("highlighted (-want +got):\n%s", diff)
	}
	// A line with a carriage return comes back as a newline: not the
	// line given, so every line is escaped, without colour.
	if got := highlightGo([]string{"a\rb", "<c>"}); got[0] != "a\rb" || got[1] != "&lt;c&gt;" {
		t.Errorf("with a carriage return: %q", got)
	}
}
