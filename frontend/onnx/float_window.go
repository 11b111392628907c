package onnx

import (
	"fmt"
	"slices"
)

// grid is the float executor's sliding-window geometry for Conv, MaxPool
// and AveragePool over one or two spatial axes, with dilations and
// ceil_mode, unlike Window (which the lowering and conformance use and
// which refuses both). A 1-D window is a 2-D one of height 1, so one
// loop nest serves both.
type grid struct {
	H, W     int // input plane
	KH, KW   int // kernel
	SH, SW   int // strides
	DH, DW   int // dilations
	Top, Lft int // begin pads
	Bot, Rgt int // end pads
	OH, OW   int // output plane
}

// planeOf is the [H,W] plane of an [N,C,...] shape of one or two spatial
// dims (H = 1 for one).
func planeOf(shape []int, what string) (h, w int, err error) {
	switch len(shape) {
	case 3:
		return 1, shape[2], nil
	case 4:
		return shape[2], shape[3], nil
	}
	return 0, 0, fmt.Errorf("%s shape %v: want [N,C,W] or [N,C,H,W] (1-D or 2-D); 3-D and higher are not supported", what, shape)
}

// pair reads an INTS attribute of one value per spatial axis (r of them,
// 1 or 2) as a 2-D (h, w) pair, def where absent; lo is the least value
// allowed.
func pair(n *Node, name string, r int, def, lo int64) (h, w int, err error) {
	v := n.Ints(name, nil)
	if v == nil {
		return int(def), int(def), nil
	}
	if len(v) != r || slices.Min(v) < lo {
		return 0, 0, fmt.Errorf("%s %v: want %d values of at least %d", name, v, r, lo)
	}
	if r == 1 {
		return 1, int(v[0]), nil
	}
	return int(v[0]), int(v[1]), nil
}

// gridOf reads n's kernel_shape (or, when absent, the kernel kh×kw of a
// Conv's weights; kh is 1 for 1-D), strides, dilations, pads, auto_pad
// and ceil_mode for an input of the given shape.
func gridOf(n *Node, shape []int, kh, kw int) (grid, error) {
	h, w, err := planeOf(shape, "input")
	if err != nil {
		return grid{}, err
	}
	r := len(shape) - 2
	g := grid{H: h, W: w, KH: kh, KW: kw}
	if n.Ints("kernel_shape", nil) != nil {
		if g.KH, g.KW, err = pair(n, "kernel_shape", r, 0, 1); err != nil {
			return grid{}, err
		}
		if kw > 0 && (g.KH != kh || g.KW != kw) {
			return grid{}, fmt.Errorf("kernel_shape %v differs from the weights' %dx%d", n.Ints("kernel_shape", nil), kh, kw)
		}
	}
	if g.KH < 1 || g.KW < 1 {
		return grid{}, fmt.Errorf("no kernel_shape")
	}
	if g.SH, g.SW, err = pair(n, "strides", r, 1, 1); err != nil {
		return grid{}, err
	}
	if g.DH, g.DW, err = pair(n, "dilations", r, 1, 1); err != nil {
		return grid{}, err
	}
	ceil := n.Int("ceil_mode", 0)
	if ceil != 0 && ceil != 1 {
		return grid{}, fmt.Errorf("ceil_mode %d: want 0 or 1", ceil)
	}
	if err := g.pads(n, r); err != nil {
		return grid{}, err
	}
	g.OH = outSize(g.H, g.KH, g.SH, g.DH, g.Top, g.Bot, ceil == 1)
	g.OW = outSize(g.W, g.KW, g.SW, g.DW, g.Lft, g.Rgt, ceil == 1)
	if g.OH < 1 || g.OW < 1 {
		return grid{}, fmt.Errorf("window %dx%d (dilations %dx%d) does not fit the padded %dx%d input", g.KH, g.KW, g.DH, g.DW, g.H, g.W)
	}
	return g, nil
}

// pads resolves auto_pad or the explicit pads (begins, then ends).
func (g *grid) pads(n *Node, r int) error {
	switch ap := n.Str("auto_pad", "NOTSET"); ap {
	case "NOTSET":
		p := n.Ints("pads", nil)
		if p == nil {
			return nil
		}
		if len(p) != 2*r || slices.Min(p) < 0 {
			return fmt.Errorf("pads %v: want %d non-negative pads", p, 2*r)
		}
		if r == 1 {
			g.Lft, g.Rgt = int(p[0]), int(p[1])
		} else {
			g.Top, g.Lft, g.Bot, g.Rgt = int(p[0]), int(p[1]), int(p[2]), int(p[3])
		}
	case "VALID":
	case "SAME_UPPER", "SAME_LOWER":
		g.Top, g.Bot = samePadsDilated(g.H, g.KH, g.SH, g.DH, ap == "SAME_UPPER")
		g.Lft, g.Rgt = samePadsDilated(g.W, g.KW, g.SW, g.DW, ap == "SAME_UPPER")
	default:
		return fmt.Errorf("auto_pad %q not supported; supported: NOTSET, VALID, SAME_UPPER, SAME_LOWER", ap)
	}
	return nil
}

// samePadsDilated is samePads for a dilated kernel.
func samePadsDilated(in, k, stride, dil int, upper bool) (begin, end int) {
	return samePads(in, (k-1)*dil+1, stride, upper)
}

// outSize is the output length of a window over in with the given pads:
// floor, or with ceil_mode the ceiling, where (as in ONNX Runtime and
// PyTorch) a last window that would start in the end padding is dropped.
func outSize(in, k, stride, dil, begin, end int, ceil bool) int {
	span := in + begin + end - ((k-1)*dil + 1)
	if span < 0 {
		return 0
	}
	out := span/stride + 1
	if ceil && span%stride != 0 {
		out++
		if (out-1)*stride >= in+begin {
			out--
		}
	}
	return out
}

// span is the range [lo, hi) of output positions along one axis whose
// kernel tap at offset off (ky·DH − Top) lands inside the input of
// length in: the loops run only there, so their bodies need no bounds
// checks.
func span(out, stride, off, in int) (lo, hi int) {
	// o·stride + off ≥ 0 and o·stride + off < in.
	lo = 0
	if off < 0 {
		lo = (-off + stride - 1) / stride
	}
	hi = out
	if last := in - 1 - off; last < 0 {
		hi = 0
	} else {
		hi = min(hi, last/stride+1)
	}
	return lo, max(lo, hi)
}
