package lower

import (
	"math"

	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/quant"
	"github.com/hwgen/hwgen/golden"
)

// Probes are the names of the lowered values, in the order the graph
// computes them: each step's output, an ONNX value the float executor
// computes too. They are the values a layer-by-layer comparison reads
// (GraphValues gives their compiler values).
func (n *Net) Probes() []string {
	names := make([]string, 0, len(n.steps))
	for _, s := range n.steps {
		names = append(names, s.out)
	}
	return names
}

// Quality is how well one lowered value matches the float executor's
// value of the same ONNX tensor on the same input.
type Quality struct {
	Name     string // the ONNX value
	Elements int
	// Saturated counts the int8 elements at the bounds, |q| ≥ 127: the
	// requantization clamped them, or they are the calibrated maximum
	// itself (an int32 output has none).
	Saturated int
	// SQNR is 10·log10(Σ f² / Σ (f − s·q)²) in dB, f the float value, s·q
	// the dequantized int8 one: +Inf when they are equal, −Inf when the
	// float value is all zeros and the int8 one is not.
	SQNR  float64
	Int32 bool // the int32 output: dequantized per channel, no saturation
}

// Quality compares each lowered value in q (int8 values by ONNX name, as
// compiler.Graph.ReferenceOf returns them for GraphValues' values) with
// the float executor's values (onnx.Graph.Execute), in Probes order. A
// value missing from either is left out. For a batch, q is the images'
// values joined (StackValues) and float the whole batch's.
func (n *Net) Quality(q map[string]*golden.Tensor, float map[string]*onnx.Array) []Quality {
	var out []Quality
	for _, name := range n.Probes() {
		t, f := q[name], float[name]
		s, ok := n.scales[name]
		if t == nil || f == nil || !ok || len(t.Data) != len(f.Data) {
			continue
		}
		r := Quality{Name: name, Elements: len(t.Data)}
		if name == n.output && n.Int32Output() {
			deq, err := n.dequantizeAll(t) // one image's, or a batch's (StackValues)
			if err != nil {
				continue
			}
			r.Int32, r.SQNR = true, SQNR(f.Data, func(i int) float64 { return float64(deq.Data[i]) })
			out = append(out, r)
			continue
		}
		for _, v := range t.Data {
			if v >= quant.QMax || v <= -quant.QMax {
				r.Saturated++
			}
		}
		r.SQNR = SQNR(f.Data, func(i int) float64 { return s * float64(t.Data[i]) })
		out = append(out, r)
	}
	return out
}

// SQNR is the signal-to-quantization-noise ratio in dB of got(i) against
// ref[i]: 10·log10(Σ ref² / Σ (ref − got)²), +Inf for no noise.
func SQNR(ref []float32, got func(i int) float64) float64 {
	var sig, noise float64
	for i, r := range ref {
		d := float64(r) - got(i)
		sig += float64(r) * float64(r)
		noise += d * d
	}
	if noise == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(sig/noise)
}

// InputBeyond counts the elements of x beyond the calibrated input range
// (those QuantizeInput clamps to ±127) and returns the range, 127 times
// the input's scale, and x's largest magnitude.
func (n *Net) InputBeyond(x *onnx.Array) (beyond int, limit, peak float64) {
	for _, v := range x.Data {
		a := math.Abs(float64(v))
		peak = max(peak, a)
		if math.RoundToEven(a/n.ins[0].scale) > quant.QMax {
			beyond++
		}
	}
	return beyond, quant.QMax * n.ins[0].scale, peak
}
