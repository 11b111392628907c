package optab

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExpand(t *testing.T) {
	args := Args{A: "a1", B: "b1", X: "x1", Y: "y1", Z: "z1", K: "3", N: "8", W: "16", M: "0xffff", R: "r1"}
	for _, tc := range []struct{ expr, want string }{
		{"($A + $B) & $m", "(a1 + b1) & 0xffff"},
		{"sra($x, $y, $w, $m)", "sra(x1, y1, 16, 0xffff)"},
		{"mux($x, $y, $z)", "mux(x1, y1, z1)"},
		{"sx($x, 64-$n) & $m", "sx(x1, 64-8) & 0xffff"},
		{"($x >> $k) & $m", "(x1 >> 3) & 0xffff"},
		{"$r<<$n | $x", "r1<<8 | x1"},
	} {
		if diff := cmp.Diff(tc.want, Expand(tc.expr, args)); diff != "" {
			t.Errorf("Expand(%q) (-want +got):\n%s", tc.expr, diff)
		}
	}
}

// Every template is complete: no placeholder is left once expanded.
func TestTemplatesUseKnownPlaceholders(t *testing.T) {
	args := Args{A: "A", B: "B", X: "x", Y: "y", Z: "z", K: "k", N: "n", W: "w", M: "m", R: "r"}
	for _, op := range Narrow {
		if e := Expand(op.Expr, args); strings.Contains(e, "$") {
			t.Errorf("%s: %q expands to %q", op.Name, op.Expr, e)
		}
	}
}
