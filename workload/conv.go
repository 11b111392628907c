package workload

import (
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/golden"
)

// ConvParams is the convolution of a conv2d workload as Graph builds it
// (stride, padding on every side, the output requantization): what a
// compile path that builds its own graphs (compiler/multi, several
// engines) needs to compute exactly the same layer.
func (w Workload) ConvParams() compiler.Conv {
	s := w.Shift
	if s == 0 {
		s = autoShift(w.C * w.Kernel * w.Kernel)
	}
	pad := 0
	if w.Pad != nil {
		pad = *w.Pad
	}
	return compiler.Conv{Stride: w.Stride, PadH: pad, PadW: pad, Requant: golden.Requant{Scale: 1, Shift: s, Relu: w.Relu}}
}
