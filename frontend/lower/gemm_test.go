package lower

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/golden"
)

// A Clip's bounds become the clamp in output units, rounded half up and
// limited to int8; lo > hi clamps everything to hi.
func TestClipApply(t *testing.T) {
	inf := float32(math.Inf(1))
	base := golden.Requant{Scale: 3, Shift: 2}
	clamp := func(lo, hi int64) golden.Requant {
		q := base
		q.Clamp, q.Lo, q.Hi = true, lo, hi
		return q
	}
	tests := []struct {
		name string
		c    *clipRange
		sy   float64
		want golden.Requant
	}{
		{"no clip", nil, 1, base},
		{"unbounded", &clipRange{-inf, inf}, 1, base},
		{"ReLU6 at scale 6/127", &clipRange{0, 6}, 6.0 / 127, clamp(0, 127)},
		{"max only", &clipRange{-inf, 1}, 0.01, clamp(-128, 100)},
		{"half steps round up", &clipRange{-0.25, 0.75}, 0.5, clamp(0, 2)},
		{"beyond int8", &clipRange{-1000, 1000}, 1, clamp(-128, 127)},
		{"min above max", &clipRange{5, 1}, 1, clamp(1, 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, tt.c.apply(base, tt.sy, golden.S(8))); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
