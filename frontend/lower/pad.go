package lower

import (
	"fmt"
	"slices"

	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/golden"
)

// This file folds a Pad of zeros into the window that reads it. PyTorch
// exports an F.pad or nn.ZeroPad2d before a Conv or a pool as its own
// Pad node; the NPU has no pad of its own, but every window op pads:
//
//   - Conv: zeros are its padding, so the Pad's pads add to the Conv's.
//   - AveragePool: the Pad's zeros are elements of the padded plane, so
//     they always count in the divisor; the pool's own pads count only
//     with count_include_pad 1. The divisors are therefore counted over
//     the padded plane with the pool's own window (windowCounts), and the
//     pool runs on the Pad's input with both pads (zero padding).
//   - MaxPool: ONNX's own pads never win, the Pad's zeros do. On a value
//     known to be ≥ 0 (a Relu's, a Clip's with min ≥ 0) the two agree, so
//     the pads add; a MaxPool without pads of its own runs with zero
//     padding (golden.PadZero) whatever the sign; a mix of the two on a
//     value of either sign is refused.
//
// The merged pads may be uneven: the window's plan (planWindow) then runs
// a larger symmetric padding and crops.

// padding is a Pad of zeros on the plane folded into its one user's
// window.
type padding struct {
	src                      string // the Pad's input
	top, left, bottom, right int
}

// windowOps are the ops whose window takes a Pad's zeros.
var windowOps = []string{"Conv", "MaxPool", "AveragePool"}

// pad checks a Pad the lowering folds into its user's window (mode
// constant, value 0, non-negative pads of the plane of [1,C,H,W], the
// one user a Conv, MaxPool or AveragePool reading it as its data) and
// records it; it emits nothing.
func (l *lowering) pad(n *onnx.Node) error {
	in, _, err := l.input(n)
	if err != nil {
		return err
	}
	if mode := n.Str("mode", "constant"); mode != "constant" {
		return fmt.Errorf("mode %q: supported: constant (of value 0, folded into the padding of the Conv, MaxPool or AveragePool reading it)", mode)
	}
	for _, a := range n.Inputs[1:] {
		_, fi := l.consts[a]
		_, ii := l.ints[a]
		if a != "" && !fi && !ii {
			return fmt.Errorf("input %q depends on the data; supported: constant pads, value and axes", a)
		}
	}
	shape := l.shapes[in]
	if len(shape) != 4 || shape[0] != 1 {
		return fmt.Errorf("input shape %v: supported: [1,C,H,W]", shape)
	}
	pads, v, err := onnx.PadArgs(n, l.opset(), len(l.first[in].Shape), l.first)
	if err != nil {
		return err
	}
	pads = pads2D(pads) // of [1,C,L]: as [1,C,1,L]
	if v != 0 {
		return fmt.Errorf("constant value %g: supported: 0 (the padding of the window reading it)", v)
	}
	if pads[0] != 0 || pads[1] != 0 || pads[4] != 0 || pads[5] != 0 || slices.Min(pads) < 0 {
		return fmt.Errorf("pads %v: supported: non-negative pads of the plane (axes 2 and 3) only", pads)
	}
	out := n.Outputs[0]
	u := l.onlyUser(out)
	if u == nil || !slices.Contains(windowOps, u.OpType) || u.Inputs[0] != out {
		return fmt.Errorf("output %q: supported: a Pad whose one user is a Conv, MaxPool or AveragePool reading it as its data (folded into its padding)", out)
	}
	if l.padded == nil {
		l.padded = map[string]padding{}
	}
	l.padded[out] = padding{src: in, top: int(pads[2]), left: int(pads[3]), bottom: int(pads[6]), right: int(pads[7])}
	return nil
}

// windowInput is the lowered value a Conv or pool n reads, its scale and
// shape (a folded Pad's input, with the Pad), and n's window over its
// ONNX input with the Pad's pads added.
func (l *lowering) windowInput(n *onnx.Node, kh, kw int) (in string, s float64, shape []int, p padding, win onnx.Window, err error) {
	in = n.Inputs[0]
	ps := l.shapes[in] // the padded shape n's own window reads
	p, folded := l.padded[in]
	if folded {
		in = p.src
	}
	if s, err = l.value(in); err != nil {
		return
	}
	shape = l.shapes[in]
	if len(ps) != 4 || len(shape) != 4 {
		err = fmt.Errorf("input shape %v, want [1,C,H,W]", ps)
		return
	}
	if l.oneD(n) {
		n = window2D(n)
	}
	if win, err = onnx.WindowOf(n, ps[2], ps[3], kh, kw); err != nil {
		return
	}
	return
}

// merge adds the Pad's pads to a window.
func (p padding) merge(w onnx.Window) onnx.Window {
	w.Top, w.Left, w.Bottom, w.Right = w.Top+p.top, w.Left+p.left, w.Bottom+p.bottom, w.Right+p.right
	return w
}

// any reports whether a Pad was folded.
func (p padding) any() bool { return p.top+p.left+p.bottom+p.right > 0 }

// nonNegative reports whether every value of name is ≥ 0 by construction:
// a Relu's, a Clip's with min ≥ 0, or a max pool or folded Pad of such.
func (l *lowering) nonNegative(name string) bool {
	for _, n := range l.g.Nodes {
		if !slices.Contains(n.Outputs, name) {
			continue
		}
		switch n.OpType {
		case "Relu":
			return true
		case "Clip":
			r, err := l.clipBounds(n)
			return err == nil && r.lo >= 0
		case "MaxPool", "Pad":
			return l.nonNegative(n.Inputs[0])
		}
		return false
	}
	return false
}

// convPlan is how a Conv's window runs: its symmetric padding, or, for
// uneven pads (a folded Pad's), a larger symmetric padding and a crop
// (planWindow): the extra zeros only reach outputs the crop drops.
func convPlan(win onnx.Window, h, w int) (windowPlan, error) {
	stride, padH, padW, err := symmetric(win)
	if err == nil {
		return windowPlan{stride: stride, padH: padH, padW: padW}, nil
	}
	if win.SH != win.SW {
		return windowPlan{}, err
	}
	return planWindow(win, h, w)
}

// conv is the Conv2D c with the plan's padding, then its crop.
func (wp windowPlan) conv(g *compiler.Graph, x *compiler.Value, wt *golden.Tensor, c compiler.Conv) *compiler.Value {
	c.Stride, c.PadH, c.PadW = wp.stride, wp.padH, wp.padW
	return wp.crop(g, g.Conv2D(x, wt, c))
}

// cropped reports whether the plan crops its result.
func (wp windowPlan) cropped() bool { return wp.top+wp.left+wp.bottom+wp.right > 0 }
