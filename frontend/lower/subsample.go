package lower

import (
	"fmt"

	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/golden"
)

// A 1×1 Conv of stride s > 1 without padding reads one pixel in s² of
// its input. The NE would still stream whole input planes for each tile
// of output channels, and where the input does not fit the state buffer
// (ResNet-50's stage transitions: 1024×14×14 is 12,544 lines of a 4,096-
// line buffer) it loads all of it again from external memory for every
// tile, at a quarter of the array's use. So the lowering subsamples the
// input first, a planar max pool of a 1×1 window with stride s (the
// identity on each kept element, exact), and runs the conv with stride 1
// on the s²-times smaller map. Convs that read the same input with the
// same stride (a ResNet block's first conv and its projection) share
// one subsample.

// subsampled returns the value to convolve for a 1×1 conv of stride s on
// in: in itself when s is 1, else the name of in subsampled by s (added
// once as a step).
func (l *lowering) subsampled(in string, s int) string {
	if s == 1 {
		return in
	}
	name := fmt.Sprintf("%s/stride%d", in, s)
	if _, ok := l.scales[name]; ok {
		return name
	}
	p := compiler.Pool{Kind: golden.PoolMax, KH: 1, KW: 1, Stride: s}
	l.emit(in, name, l.scales[in], func(g *compiler.Graph, x *compiler.Value) *compiler.Value { return g.Pool2D(x, p) })
	return name
}
