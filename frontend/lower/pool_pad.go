package lower

import (
	"fmt"
	"slices"

	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/golden"
)

// This file maps a pooling window onto the planar engine, whose padding
// is the same on both sides of an axis (pad_h, pad_w), and the divisor of
// an average that counts only the elements inside the plane
// (count_include_pad 0).
//
// Asymmetric pads (AlexNet's and Inception v2's MaxPool [0,0,1,1],
// GoogLeNet's last AveragePool) are taken by a larger symmetric padding
// and a crop: for an axis with pads (b, e) and stride s, the padding
// P = b + k·s with the least k ≥ 0 that makes P ≥ e lays out the same
// windows, each starting at −b + s·i, shifted by k outputs; the first k
// outputs and the surplus at the end are cropped. P must stay below the
// window (the planar engine's limit, and for a max pool what keeps a
// window from holding only padding). Every window kept reads only the
// plane and the rows and columns ONNX pads (its last ends at most e past
// the plane), so the pool is ONNX's. The crop is a depthwise conv whose
// one weight 1 sits at the first kept output: an identity on int8
// values, exact.
//
// count_include_pad 0 divides each window's sum by n, the count of its
// elements inside the plane. The planar engine divides by one number, so
// the pool computes the zero-padded average A = sum/(KH·KW) in units of
// the output's scale, and an eltwise multiply by a constant map M then
// rescales it: with D the least integer making M = KH·KW·D/n an integer
// for every n of the map, y = A·M/D = sum/n. A ≤ |y| in magnitude (it
// averages the same sum over at least as many elements), so it fits
// wherever y does; its rounding, half a step, is multiplied by
// KH·KW/n ≤ 2.25 for a 3×3 window at a corner of pad 1, the one error
// the map adds to the rounding of y itself.

// windowPlan is how a window runs: the symmetric padding and the rows and
// columns of the pool's result to crop.
type windowPlan struct {
	stride                   int
	padH, padW               int
	top, left, bottom, right int
}

// planWindow maps win over an h×w plane onto the planar engine: equal
// strides, a symmetric padding below the window, a crop.
func planWindow(win onnx.Window, h, w int) (windowPlan, error) {
	if win.SH != win.SW {
		return windowPlan{}, fmt.Errorf("strides %dx%d: only equal strides are supported", win.SH, win.SW)
	}
	p := windowPlan{stride: win.SH}
	var err error
	if p.padH, p.top, p.bottom, err = planAxis("top", "bottom", h, win.KH, win.SH, win.Top, win.Bottom); err != nil {
		return windowPlan{}, err
	}
	if p.padW, p.left, p.right, err = planAxis("left", "right", w, win.KW, win.SW, win.Left, win.Right); err != nil {
		return windowPlan{}, err
	}
	return p, nil
}

// planAxis is one axis of planWindow: pads b before and e after a plane
// of size n, window k, stride s.
func planAxis(bName, eName string, n, k, s, b, e int) (pad, lead, trail int, err error) {
	pad = b
	for pad < e {
		pad, lead = pad+s, lead+1
	}
	if pad >= k {
		return 0, 0, 0, fmt.Errorf("pads %s %d %s %d with stride %d and window %d: supported: pads whose symmetric cover (the %s pad plus whole strides, at least the %s pad: %d) is below the window",
			bName, b, eName, e, s, k, bName, eName, pad)
	}
	want := (n+b+e-k)/s + 1
	got := (n+2*pad-k)/s + 1
	return pad, lead, got - want - lead, nil
}

// pool is the planar pool p with the plan's padding, then its crop.
func (wp windowPlan) pool(g *compiler.Graph, x *compiler.Value, p compiler.Pool) *compiler.Value {
	p.Stride, p.PadH, p.PadW = wp.stride, wp.padH, wp.padW
	return wp.crop(g, g.Pool2D(x, p))
}

// crop drops the plan's surplus rows and columns of y: a depthwise conv
// whose one weight 1 sits at the first kept output (an identity on int8
// values).
func (wp windowPlan) crop(g *compiler.Graph, y *compiler.Value) *compiler.Value {
	if !wp.cropped() {
		return y
	}
	shape := y.Shape()
	c := shape[len(shape)-3]
	kh, kw := wp.top+wp.bottom+1, wp.left+wp.right+1
	wt := golden.New(c, 1, kh, kw)
	for ch := 0; ch < c; ch++ {
		wt.Data[ch*kh*kw+wp.top*kw+wp.left] = 1
	}
	return g.Conv2D(y, wt, compiler.Conv{Groups: c})
}

// windowCounts is, for each output of win over an h×w plane, the number
// of its elements inside the plane ([OH][OW], row-major).
func windowCounts(win onnx.Window, h, w int) (counts []int, oh, ow int) {
	oh, ow = win.Out(h, w)
	inside := func(start, k, n int) int { return min(start+k, n) - max(start, 0) }
	counts = make([]int, 0, oh*ow)
	for i := 0; i < oh; i++ {
		rows := inside(i*win.SH-win.Top, win.KH, h)
		for j := 0; j < ow; j++ {
			counts = append(counts, rows*inside(j*win.SW-win.Left, win.KW, w))
		}
	}
	return counts, oh, ow
}

// divisorMap is the constant map M = K·D/n of windowCounts (K the
// window's size) and its common divisor D, or an error when a factor
// does not fit the int8 map.
func divisorMap(counts []int, k int) (m []int64, d int, err error) {
	d = 1
	for _, n := range counts {
		d = lcm(d, n/gcd(k, n))
	}
	m = make([]int64, len(counts))
	for i, n := range counts {
		m[i] = int64(k * d / n)
		if m[i] > 127 {
			return nil, 0, fmt.Errorf("windows of %d and %d of %d elements inside the plane: the exact factors %d/%d do not fit int8", slices.Max(counts), n, k, m[i], d)
		}
	}
	return m, d, nil
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func lcm(a, b int) int { return a / gcd(a, b) * b }

// constant adds an int8 constant the graph reads (a graph input of the
// compiler graph, which the export holds as an initializer).
func (l *lowering) constantInput(name string, t *golden.Tensor) {
	if l.net.consts == nil {
		l.net.consts = map[string]*golden.Tensor{}
	}
	l.net.consts[name] = t
	l.net.steps = append(l.net.steps, step{out: name,
		apply: func(g *compiler.Graph, _ *compiler.Value) *compiler.Value { return g.Input(name, t.Clone()) }})
}

// Constants are the int8 constant maps the graph reads besides its
// input, by their graph input names (copies).
func (n *Net) Constants() map[string]*golden.Tensor {
	c := make(map[string]*golden.Tensor, len(n.consts))
	for k, t := range n.consts {
		c[k] = t.Clone()
	}
	return c
}
