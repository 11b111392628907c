package conformance

import (
	"fmt"
	"math"

	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/golden"
)

// unsupported is a test the NPU cannot run, with the reason.
type unsupported string

func (u unsupported) Error() string { return string(u) }

func unsupportedf(format string, args ...any) error { return unsupported(fmt.Sprintf(format, args...)) }

// ints is t's values as integers; a float that is not an integer makes
// the test unsupported.
func ints(t *onnx.Tensor, what string) ([]int64, error) {
	if t == nil {
		return nil, unsupportedf("%s is missing", what)
	}
	var v []int64
	switch t.DType {
	case onnx.Float32:
		for i, f := range t.Float32 {
			if float64(f) != math.Trunc(float64(f)) || math.IsInf(float64(f), 0) {
				return nil, unsupportedf("%s[%d] = %g is not an integer: float data runs on the NPU only through quantization", what, i, f)
			}
			v = append(v, int64(f))
		}
	case onnx.Int8:
		for _, x := range t.Int8 {
			v = append(v, int64(x))
		}
	case onnx.Uint8:
		for _, x := range t.Uint8 {
			v = append(v, int64(x))
		}
	case onnx.Int32:
		for _, x := range t.Int32 {
			v = append(v, int64(x))
		}
	case onnx.Int64:
		v = append(v, t.Int64...)
	default:
		return nil, unsupportedf("%s: element type %s", what, t.DType)
	}
	return v, nil
}

// tensor is t as a golden tensor of integers.
func tensor(t *onnx.Tensor, what string) (*golden.Tensor, error) {
	v, err := ints(t, what)
	if err != nil {
		return nil, err
	}
	shape := make([]int, len(t.Dims))
	for i, d := range t.Dims {
		shape[i] = int(d)
	}
	if len(shape) == 0 {
		shape = []int{1}
	}
	return &golden.Tensor{Shape: shape, Data: v}, nil
}

// input is the value of the node's input i (a graph input or an
// initializer), or nil when it is absent (an optional input left empty).
func (c *Case) input(i int) *onnx.Tensor {
	n := c.Model.Graph.Nodes[0]
	if i >= len(n.Inputs) || n.Inputs[i] == "" {
		return nil
	}
	for k, v := range c.Model.Graph.Inputs {
		if v.Name == n.Inputs[i] && k < len(c.Inputs) {
			return c.Inputs[k]
		}
	}
	return c.Model.Graph.Initializer(n.Inputs[i])
}

// zeroPoint is an optional per-tensor or per-channel zero point: n
// values (one repeated when given as a scalar), zeros when absent.
func zeroPoint(t *onnx.Tensor, n int, what string) ([]int64, error) {
	zp := make([]int64, n)
	if t == nil {
		return zp, nil
	}
	v, err := ints(t, what)
	if err != nil {
		return nil, err
	}
	switch len(v) {
	case 1:
		for i := range zp {
			zp[i] = v[0]
		}
	case n:
		copy(zp, v)
	default:
		return nil, unsupportedf("%s has %d values, want 1 or %d", what, len(v), n)
	}
	return zp, nil
}

// scales is an optional per-tensor or per-channel float scale.
func scales(t *onnx.Tensor, n int, what string) ([]float64, error) {
	if t == nil || t.DType != onnx.Float32 {
		return nil, unsupportedf("%s: want a FLOAT scale", what)
	}
	s := make([]float64, n)
	switch len(t.Float32) {
	case 1:
		for i := range s {
			s[i] = float64(t.Float32[0])
		}
	case n:
		for i, f := range t.Float32 {
			s[i] = float64(f)
		}
	default:
		return nil, unsupportedf("%s has %d values, want 1 or %d", what, len(t.Float32), n)
	}
	return s, nil
}

// bitsFor is the signed width that holds every value of vs.
func bitsFor(vs ...[]int64) int {
	w := 2
	for _, v := range vs {
		for _, x := range v {
			for !golden.S(w).Fits(x) {
				w++
			}
		}
	}
	return w
}

// outRange is the saturation range of an integer output type.
func outRange(d onnx.DType) (lo, hi int64, err error) {
	switch d {
	case onnx.Uint8:
		return 0, 255, nil
	case onnx.Int8:
		return -128, 127, nil
	}
	return 0, 0, unsupportedf("output type %s", d)
}
