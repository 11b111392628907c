package lower

import (
	"fmt"
	"maps"

	"github.com/hwgen/hwgen/frontend/onnx"
)

// A dilated Conv is the Conv of the same window with its weights spread
// out: tap (i, j) of a kernel dilated by (dh, dw) lands at (i·dh, j·dw)
// of a kernel (kh−1)·dh+1 by (kw−1)·dw+1 whose other taps are zero. The
// NPU then runs an ordinary conv, exact (the zero taps add nothing), at
// the cost of their multiply-adds: the address generator has no
// dilation, and a dilated conv is rare enough in CNNs (DeepLab's atrous
// convolutions, WaveNet's 1-D ones) for the plain form. A dilated
// AveragePool is such a conv too, of ones at the taps (its zeros add
// nothing to the window's sum); a dilated MaxPool's window cannot be
// spread out so, a zero would win over negative values: it is taken
// apart into shifted copies and eltwise maxes (pool_dilated.go).

// undilated returns the Conv n and its 2-D weights w [M,C/g,kh,kw] with
// the dilation folded into the weights, and n without its dilations
// (its kernel_shape the spread-out kernel's); n and w unchanged when
// the dilations are 1.
func undilated(n *onnx.Node, w *onnx.Array, oneD bool) (*onnx.Node, *onnx.Array, error) {
	d := n.Ints("dilations", nil)
	if oneD && len(d) == 1 {
		d = []int64{1, d[0]}
	}
	if d == nil || len(d) == 2 && d[0] == 1 && d[1] == 1 {
		return n, w, nil
	}
	if len(d) != 2 || d[0] < 1 || d[1] < 1 {
		return nil, nil, fmt.Errorf("dilations %v: want one positive dilation per spatial axis", d)
	}
	dh, dw := int(d[0]), int(d[1])
	m, c, kh, kw := w.Shape[0], w.Shape[1], w.Shape[2], w.Shape[3]
	eh, ew := (kh-1)*dh+1, (kw-1)*dw+1
	spread := onnx.NewArray(m, c, eh, ew)
	for o := 0; o < m*c; o++ {
		for i := 0; i < kh; i++ {
			for j := 0; j < kw; j++ {
				spread.Data[(o*eh+i*dh)*ew+j*dw] = w.Data[(o*kh+i)*kw+j]
			}
		}
	}
	u := *n
	u.Attrs = maps.Clone(n.Attrs)
	delete(u.Attrs, "dilations")
	if _, ok := u.Attrs["kernel_shape"]; ok {
		ks := []int64{int64(eh), int64(ew)}
		if oneD {
			ks = []int64{int64(ew)}
		}
		u.Attrs["kernel_shape"] = onnx.Attr{Kind: onnx.AttrInts, Ints: ks}
	}
	return &u, spread, nil
}
