package onnx

import (
	"fmt"
	"slices"
)

// Window is the geometry of a Conv's or MaxPool's sliding window over the
// two spatial axes of an [N,C,H,W] input, with auto_pad resolved to
// explicit begin (Top, Left) and end (Bottom, Right) pads: the geometry
// the NPU lowering and conformance take. The float executor's own (grid,
// float_window.go) also takes dilations, ceil_mode and 1-D windows.
type Window struct {
	KH, KW                   int
	SH, SW                   int
	Top, Left, Bottom, Right int
}

// WindowOf reads n's kernel_shape (or, when absent, kh×kw: a Conv's weight
// dims), strides, pads and auto_pad for an h×w input. Dilations other than
// 1 and ceil_mode are rejected.
func WindowOf(n *Node, h, w, kh, kw int) (Window, error) {
	if k := n.Ints("kernel_shape", nil); k != nil {
		if len(k) != 2 || k[0] < 1 || k[1] < 1 {
			return Window{}, fmt.Errorf("kernel_shape %v: want two positive sizes", k)
		}
		if kh > 0 && (int(k[0]) != kh || int(k[1]) != kw) {
			return Window{}, fmt.Errorf("kernel_shape %v differs from the weights' %dx%d", k, kh, kw)
		}
		kh, kw = int(k[0]), int(k[1])
	}
	if kh < 1 || kw < 1 {
		return Window{}, fmt.Errorf("no kernel_shape")
	}
	if d := n.Ints("dilations", nil); d != nil && !slices.Equal(d, []int64{1, 1}) {
		return Window{}, fmt.Errorf("dilations %v: only 1 is supported", d)
	}
	if c := n.Int("ceil_mode", 0); c != 0 {
		return Window{}, fmt.Errorf("ceil_mode %d: only 0 is supported", c)
	}
	s := n.Ints("strides", []int64{1, 1})
	if len(s) != 2 || s[0] < 1 || s[1] < 1 {
		return Window{}, fmt.Errorf("strides %v: want two positive strides", s)
	}
	win := Window{KH: kh, KW: kw, SH: int(s[0]), SW: int(s[1])}
	switch ap := n.Str("auto_pad", "NOTSET"); ap {
	case "NOTSET":
		p := n.Ints("pads", []int64{0, 0, 0, 0})
		if len(p) != 4 || slices.Min(p) < 0 {
			return Window{}, fmt.Errorf("pads %v: want four non-negative pads", p)
		}
		win.Top, win.Left, win.Bottom, win.Right = int(p[0]), int(p[1]), int(p[2]), int(p[3])
	case "VALID":
	case "SAME_UPPER", "SAME_LOWER":
		win.Top, win.Bottom = samePads(h, kh, win.SH, ap == "SAME_UPPER")
		win.Left, win.Right = samePads(w, kw, win.SW, ap == "SAME_UPPER")
	default:
		return Window{}, fmt.Errorf("auto_pad %q not supported; supported: NOTSET, VALID, SAME_UPPER, SAME_LOWER", ap)
	}
	return win, nil
}

// samePads splits the padding that makes the output ceil(in/stride) long;
// SAME_UPPER puts an odd pad's extra element at the end, SAME_LOWER at
// the beginning.
func samePads(in, k, stride int, upper bool) (begin, end int) {
	out := (in + stride - 1) / stride
	total := max(0, (out-1)*stride+k-in)
	begin = total / 2
	if !upper {
		begin = total - total/2
	}
	return begin, total - begin
}

// Out is the output size for an h×w input.
func (w Window) Out(h, wd int) (int, int) {
	return (h+w.Top+w.Bottom-w.KH)/w.SH + 1, (wd+w.Left+w.Right-w.KW)/w.SW + 1
}
