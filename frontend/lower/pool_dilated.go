package lower

import (
	"fmt"
	"maps"

	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/golden"
)

// This file maps dilated pools onto the NPU. A dilated AveragePool's sum
// is a depthwise conv of ones at the taps and zeros between them
// (dilation.go's spread-out window), rescaled as the planar average's,
// with count_include_pad 0 the divisor map of pool_pad.go counting the
// taps inside the plane.
//
// A dilated MaxPool is harder. The planar engine's window has no
// dilation and a max pool's window cannot be spread out with zeros
// between its taps (a zero would win over negative values), so the pool
// is taken apart: a window of taps (ky, kx), dilated by (dh, dw), stride
// s and pads (T, L, B, R) gives
//
//	y[c,i,j] = max over ky, kx of x[c, s·i + dh·ky − T, s·j + dw·kx − L]
//
// where a tap in the padding never wins. A max is separable, so the
// taps run in two stages of shifted copies of the map, each copy a
// depthwise Conv2D whose one weight 1 sits where that tap reads (an
// identity on int8 values, exact; pool_pad.go's crop is the same
// trick):
//
//	R[c,r,u] = max over kx of x[c, r, u + dw·kx − L]      (stride 1, every row)
//	y[c,i,j] = max over ky of R[c, s·i + dh·ky − T, s·j]  (stride s)
//
// kw + kh copies instead of kw·kh (a copy that is x itself, the centre
// tap of a pool keeping the size, costs nothing), each a conv of a
// kernel about the spread-out window's size along its axis (a chain of
// convs within max_kernel when larger: shift). Where a copy reads the
// padding its conv gives 0, so an eltwise min with a constant map (127
// where the tap reads the plane, −128 where it reads padding: the
// element's range, int8's; a graph input, Net.Constants) turns those
// positions into −128; the copies are then joined by eltwise maxes.
// −128 stands for −∞ exactly when every window holds a tap inside the
// plane (checked: else refused): that tap's value is at least −128. On a value known to be ≥ 0 (a Relu's)
// the conv's zeros never exceed the window's maximum, and no map is
// needed. A folded Pad's zeros do win (pad.go): they count as plane.
//
// When the stride is a multiple of an equal dilation d (s = d·s′), every
// tap of every window reads the rows and columns of one phase of the
// map (those ≡ −T mod d): one strided conv gathers that phase, and the
// planar max pool of the undilated window with stride s′ and its padding
// ignored (golden.PadIgnore) runs on it: a conv and a pool, no maps
// (phasePool). With stride 1 the phases would have to be interleaved
// again, which no compiler op does.

// dilatedAxis is a dilated window along one axis of the lowered input.
type dilatedAxis struct {
	n          int // the input's length
	lo, hi     int // where the taps read the plane or a folded Pad's zeros: [lo, hi)
	k, d, s    int // taps, dilation, stride
	begin, end int // the pads (a folded Pad's added)
}

// span is the spread-out window's size.
func (a dilatedAxis) span() int { return (a.k-1)*a.d + 1 }

// out is the number of outputs.
func (a dilatedAxis) out() int { return (a.n+a.begin+a.end-a.span())/a.s + 1 }

// offset is where tap t of output 0 reads.
func (a dilatedAxis) offset(t int) int { return a.d*t - a.begin }

// inside reports whether tap t of output i reads the plane.
func (a dilatedAxis) inside(i, t int) bool {
	p := a.s*i + a.offset(t)
	return p >= a.lo && p < a.hi
}

// check reports an output whose window reads only padding (ONNX's −∞,
// which the int8 map has no value for).
func (a dilatedAxis) check(name string) error {
	for i := range a.out() {
		ok := false
		for t := range a.k {
			ok = ok || a.inside(i, t)
		}
		if !ok {
			return fmt.Errorf("%s %d of the output reads only padding (window %d, dilation %d, stride %d, pads %d %d over %d): supported: windows reading the plane at least once", name, i, a.k, a.d, a.s, a.begin, a.end, a.n)
		}
	}
	return nil
}

// mask is tap t's map along the axis, the element's largest value where
// it reads the plane and its least where padding, or nil when it reads
// the plane everywhere.
func (a dilatedAxis) mask(t int, elem golden.Int) []int64 {
	m := make([]int64, a.out())
	padded := false
	for i := range m {
		m[i] = elem.Max()
		if !a.inside(i, t) {
			m[i], padded = elem.Min(), true
		}
	}
	if !padded {
		return nil
	}
	return m
}

// shiftAxis is one axis of a shifted copy: the kernel size k, the
// symmetric pad p and the weight's position r of a conv that gives out
// outputs of an input of length n with stride s, output i reading
// element s·i + o (0 outside the input).
func shiftAxis(n, out, s, o int) (k, p, r int) {
	for p = max(0, -o); ; p++ {
		k = max(o+p+1, n+2*p-s*out+1, 1)
		if k <= n+2*p-s*(out-1) {
			return k, p, o + p
		}
	}
}

// axisStep is the next conv along an axis of a shifted copy whose kernel
// must stay within kmax (max_kernel): the shift itself (last) when its
// kernel fits, else a lossless step of stride 1 toward it, of up to
// kmax−1 elements: prepend zeros (o < 0; o increases), drop leading
// elements the shift never reads (o > 0; o decreases), append zeros (the
// shift reads past the end) or drop trailing elements it never reads.
// n2 and o2 are the length and the offset after the step.
func axisStep(n, out, s, o, kmax int) (k, p, r, n2, o2 int, last bool) {
	if k, p, r = shiftAxis(n, out, s, o); k <= kmax {
		return k, p, r, out, 0, true
	}
	end := s*(out-1) + o + 1 // the length the shift reads
	switch {
	case o < 0:
		c := min(-o, kmax-1)
		return c + 1, c, 0, n + c, o + c, false
	case o > 0 && n > 1:
		c := min(o, kmax-1, n-1)
		return c + 1, 0, c, n - c, o - c, false
	case end > n:
		c := min(end-n, kmax-1)
		return c + 1, c, c, n + c, o, false
	}
	c := min(n-end, kmax-1)
	return c + 1, 0, 0, n - c, o, false
}

// shift is the shifted copy of x [.., C, H, W]: out[c,i,j] = x[c, s·i+oy,
// s·j+ox] for oh×ow outputs (0 outside x), a depthwise conv of one weight
// 1 (an identity on int8 values), or a chain of them when one kernel
// would exceed kmax, or x itself when that is x.
func shift(g *compiler.Graph, x *compiler.Value, oh, ow, s, oy, ox, kmax int) *compiler.Value {
	for {
		shape := x.Shape()
		c, h, w := shape[len(shape)-3], shape[len(shape)-2], shape[len(shape)-1]
		kh, ph, rh, _, oy2, lastH := axisStep(h, oh, s, oy, kmax)
		kw, pw, rw, _, ox2, lastW := axisStep(w, ow, s, ox, kmax)
		stride := s
		if !lastH || !lastW { // a step of stride 1; the axis whose shift fits waits
			stride = 1
			if lastH {
				kh, ph, rh, oy2 = 1, 0, 0, oy
			}
			if lastW {
				kw, pw, rw, ox2 = 1, 0, 0, ox
			}
		} else if s == 1 && kh == 1 && kw == 1 && ph == 0 && pw == 0 {
			return x
		}
		wt := golden.New(c, 1, kh, kw)
		for ch := range c {
			wt.Data[(ch*kh+rh)*kw+rw] = 1
		}
		x = g.Conv2D(x, wt, compiler.Conv{Groups: c, Stride: stride, PadH: ph, PadW: pw})
		if stride == s && lastH && lastW {
			return x
		}
		oy, ox = oy2, ox2
	}
}

// dilatedWindow is the MaxPool n with its dilations (dh, dw) read (1-D:
// (1, d)) and written as the spread-out window: its kernel_shape
// (kh−1)·dh+1 × (kw−1)·dw+1 and no dilations, so that onnx.WindowOf
// resolves its pads and auto_pad as ONNX does for the dilated window.
// ok is false when the dilations are 1.
func dilatedWindow(n *onnx.Node, oneD bool) (u *onnx.Node, kh, kw, dh, dw int, ok bool, err error) {
	d, k := n.Ints("dilations", nil), n.Ints("kernel_shape", nil)
	if oneD && len(d) == 1 && len(k) == 1 {
		d, k = []int64{1, d[0]}, []int64{1, k[0]}
	}
	if d == nil || len(d) == 2 && d[0] == 1 && d[1] == 1 {
		return n, 0, 0, 0, 0, false, nil
	}
	if len(d) != 2 || d[0] < 1 || d[1] < 1 {
		return nil, 0, 0, 0, 0, false, fmt.Errorf("dilations %v: want one positive dilation per spatial axis", d)
	}
	if len(k) != 2 || k[0] < 1 || k[1] < 1 {
		return nil, 0, 0, 0, 0, false, fmt.Errorf("kernel_shape %v: want one positive size per spatial axis", k)
	}
	kh, kw, dh, dw = int(k[0]), int(k[1]), int(d[0]), int(d[1])
	spread := []int64{int64((kh-1)*dh + 1), int64((kw-1)*dw + 1)}
	if oneD {
		spread = spread[1:]
	}
	c := *n
	c.Attrs = maps.Clone(n.Attrs)
	delete(c.Attrs, "dilations")
	c.Attrs["kernel_shape"] = onnx.Attr{Kind: onnx.AttrInts, Ints: spread}
	return &c, kh, kw, dh, dw, true, nil
}

// dilatedAxes are the axes of the dilated window of kh×kw taps, dilations
// dh×dw, whose spread-out window (a folded Pad's pads merged) is win over
// the lowered input of shape [1,C,H,W].
func dilatedAxes(shape []int, pad padding, win onnx.Window, kh, kw, dh, dw int) (rows, cols dilatedAxis) {
	h, w := shape[2], shape[3]
	rows = dilatedAxis{n: h, lo: -pad.top, hi: h + pad.bottom, k: kh, d: dh, s: win.SH, begin: win.Top, end: win.Bottom}
	cols = dilatedAxis{n: w, lo: -pad.left, hi: w + pad.right, k: kw, d: dw, s: win.SW, begin: win.Left, end: win.Right}
	return rows, cols
}

// count is the number of taps of output i that read the plane.
func (a dilatedAxis) count(i int) int {
	n := 0
	for t := range a.k {
		if a.inside(i, t) {
			n++
		}
	}
	return n
}

// dilatedAvgPool lowers the dilated AveragePool n, u its spread-out
// window (dilatedWindow): the window's sum is a depthwise conv whose
// weights are 1 at the taps and 0 between them (zero padding, as the
// planar average's; a folded Pad's zeros count as elements), then
// average's rescaling and, for count_include_pad 0, its divisor map of
// the taps inside the plane.
func (l *lowering) dilatedAvgPool(n, u *onnx.Node, kh, kw, dh, dw int) error {
	in, sx, shape, pad, win, err := l.windowInput(u, 0, 0)
	if err != nil {
		return err
	}
	win = pad.merge(win)
	if win.KH > l.cfg.MaxKernel || win.KW > l.cfg.MaxKernel {
		return fmt.Errorf("dilations %dx%d: the spread-out window %dx%d exceeds max_kernel = %d: supported: (k−1)·d+1 up to max_kernel", dh, dw, win.KH, win.KW, l.cfg.MaxKernel)
	}
	plan, err := convPlan(win, shape[2], shape[3])
	if err != nil {
		return err
	}
	rows, cols := dilatedAxes(shape, pad, win, kh, kw, dh, dw)
	if n.Int("count_include_pad", 0) == 0 {
		if err := rows.check("row"); err != nil {
			return err
		}
		if err := cols.check("column"); err != nil {
			return err
		}
	}
	c, oh, ow := shape[1], rows.out(), cols.out()
	counts := make([]int, 0, oh*ow)
	for i := range oh {
		for j := range ow {
			counts = append(counts, rows.count(i)*cols.count(j))
		}
	}
	wt := golden.New(c, 1, win.KH, win.KW)
	for ch := range c {
		for i := range kh {
			for j := range kw {
				wt.Data[(ch*win.KH+i*dh)*win.KW+j*dw] = 1
			}
		}
	}
	return l.average(n, in, sx, kh*kw, counts, oh, ow, c, func(g *compiler.Graph, x *compiler.Value, q golden.Requant) *compiler.Value {
		return plan.conv(g, x, wt, compiler.Conv{Groups: c, Requant: q})
	})
}

// dilatedMaxPool lowers the dilated MaxPool n, u its spread-out window
// (dilatedWindow), as this file's comment lays out.
func (l *lowering) dilatedMaxPool(n, u *onnx.Node, kh, kw, dh, dw int) error {
	in, s, shape, pad, win, err := l.windowInput(u, 0, 0)
	if err != nil {
		return err
	}
	if win.SH != win.SW {
		return fmt.Errorf("strides %dx%d: only equal strides are supported", win.SH, win.SW)
	}
	win = pad.merge(win)
	c, h := shape[1], shape[2]
	rows, cols := dilatedAxes(shape, pad, win, kh, kw, dh, dw)
	if err := rows.check("row"); err != nil {
		return err
	}
	if err := cols.check("column"); err != nil {
		return err
	}
	out := n.Outputs[0]
	if !pad.any() && dh == dw && win.SH%dh == 0 {
		if y, ok := l.phasePool(rows, cols); ok {
			l.emit(in, out, s, y)
			return nil
		}
	}
	cols1 := cols // the first stage: every column u, stride 1
	cols1.s = 1
	plain := l.nonNegative(in) // the conv's zeros never win
	ins := []string{in}
	constant := func(m []int64, oh, ow int, across bool) bool {
		if m == nil || plain {
			return false
		}
		mt := golden.New(c, oh, ow)
		for i := range mt.Data {
			p := i % (oh * ow)
			if across { // the map varies along the columns
				mt.Data[i] = m[p%ow]
			} else {
				mt.Data[i] = m[p/ow]
			}
		}
		name := fmt.Sprintf("%s/taps%d", out, len(ins)-1)
		l.constantInput(name, mt)
		ins = append(ins, name)
		return true
	}
	u1, oh, ow, kmax, elem := cols1.out(), rows.out(), cols.out(), l.cfg.MaxKernel, golden.S(l.cfg.ElemWidth)
	colMasked, rowMasked := make([]bool, kw), make([]bool, kh)
	for t := range kw {
		colMasked[t] = constant(cols1.mask(t, elem), h, u1, true)
	}
	for t := range kh {
		rowMasked[t] = constant(rows.mask(t, elem), oh, ow, false)
	}
	l.net.steps = append(l.net.steps, step{ins: ins, out: out,
		applyN: func(g *compiler.Graph, xs []*compiler.Value) *compiler.Value {
			consts := xs[1:]
			stage := func(x *compiler.Value, k int, masked []bool, copyOf func(t int) *compiler.Value) *compiler.Value {
				var m *compiler.Value
				for t := range k {
					v := copyOf(t)
					if masked[t] {
						v, consts = g.Eltwise(golden.EltMin, v, consts[0], golden.Requant{}), consts[1:]
					}
					if m == nil {
						m = v
					} else {
						m = g.Eltwise(golden.EltMax, m, v, golden.Requant{})
					}
				}
				return m
			}
			r := stage(xs[0], kw, colMasked, func(t int) *compiler.Value { return shift(g, xs[0], h, u1, 1, 0, cols1.offset(t), kmax) })
			return stage(r, kh, rowMasked, func(t int) *compiler.Value { return shift(g, r, oh, ow, rows.s, rows.offset(t), 0, kmax) })
		}})
	l.scales[out] = s
	return nil
}

// phasePool is the dilated max pool whose stride s is a multiple of its
// equal dilations d as a conv gathering the phase every tap reads and an
// undilated planar max pool of stride s/d over it (this file's comment),
// or false when the pool's padding there does not fit the planar engine.
func (l *lowering) phasePool(rows, cols dilatedAxis) (func(g *compiler.Graph, x *compiler.Value) *compiler.Value, bool) {
	// phase is one axis: the phase's first element φ, its length, and the
	// undilated window over it (pads b before, e after).
	phase := func(a dilatedAxis) (phi, m, b, e int) {
		phi = ((-a.begin)%a.d + a.d) % a.d
		b = (a.begin + phi) / a.d
		sp := a.s / a.d
		need := sp*(a.out()-1) + a.k - b // the phase elements the windows reach
		m = min((a.n-phi+a.d-1)/a.d, need)
		return phi, m, b, max(0, need-m)
	}
	py, mh, top, bottom := phase(rows)
	px, mw, left, right := phase(cols)
	if mh < 1 || mw < 1 || rows.k > l.cfg.MaxKernel || cols.k > l.cfg.MaxKernel {
		return nil, false
	}
	win := onnx.Window{KH: rows.k, KW: cols.k, SH: rows.s / rows.d, SW: cols.s / cols.d, Top: top, Left: left, Bottom: bottom, Right: right}
	plan, err := planWindow(win, mh, mw)
	if err != nil {
		return nil, false
	}
	p := compiler.Pool{Kind: golden.PoolMax, KH: rows.k, KW: cols.k, Padding: golden.PadIgnore}
	return func(g *compiler.Graph, x *compiler.Value) *compiler.Value {
		return plan.pool(g, shift(g, x, mh, mw, rows.d, py, px, l.cfg.MaxKernel), p)
	}, true
}
