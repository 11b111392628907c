package onnx

import (
	"math"
	"math/rand/v2"
)

// RandomWeights gives a model seeded random weights of the shapes it has.
// It is for testing: a network whose weights were left out (the ONNX
// backend tests' "light" models hold ConstantOfShape stand-ins, one value
// per tensor) runs with weights that exercise every layout, since a
// tensor of equal values looks the same however it is transposed or
// permuted and so hides layout bugs.
//
// It folds the model first (Model.Fold: the stand-ins become
// initializers), then refills each FLOAT initializer by the role of the
// first node input that reads it:
//
//   - Conv weights [M, C/group, k...]: normal, He-scaled, std √(2/fan_in)
//     with fan_in = C/group·k…; Gemm's B and MatMul's second operand
//     likewise with fan_in = K;
//   - biases (Conv input 2, Gemm's C): uniform in ±0.1;
//   - BatchNormalization: scale and var uniform in [0.8, 1.2], B and mean
//     in ±0.1, so a layer keeps its input's range;
//   - a constant operand of Mul or Div: uniform in [0.8, 1.2]; of Add, Sub
//     or Sum: in ±0.1; PRelu's slope: in [0, 0.3].
//
// Other FLOAT constants (Resize scales, Clip bounds, Pad values) mean
// something beyond a weight and are left as they are. The same model and
// seed give the same weights.
func RandomWeights(m *Model, seed uint64) error {
	if err := m.Fold(); err != nil {
		return err
	}
	role := map[string]weightRole{}
	for _, n := range m.Graph.Nodes {
		for i, in := range n.Inputs {
			if _, seen := role[in]; !seen && in != "" {
				role[in] = weightRole{n, i}
			}
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed_1e55_0dd5_a1e5))
	for _, t := range m.Graph.Initializers {
		r, ok := role[t.Name]
		if t.DType != Float32 || !ok {
			continue
		}
		fill := r.fill(t)
		if fill == nil {
			continue
		}
		v := make([]float32, len(t.Float32))
		for i := range v {
			v[i] = float32(fill(rng))
		}
		t.Float32 = v
	}
	return nil
}

// weightRole is the node input that reads a constant first.
type weightRole struct {
	n     *Node
	input int
}

// fill is the distribution of the constant t in its role, or nil for a
// constant that is not a weight.
func (r weightRole) fill(t *Tensor) func(*rand.Rand) float64 {
	uniform := func(lo, hi float64) func(*rand.Rand) float64 {
		return func(rng *rand.Rand) float64 { return lo + (hi-lo)*rng.Float64() }
	}
	he := func(fanIn int64) func(*rand.Rand) float64 {
		std := math.Sqrt(2 / float64(max(fanIn, 1)))
		return func(rng *rand.Rand) float64 { return std * rng.NormFloat64() }
	}
	small, scale := uniform(-0.1, 0.1), uniform(0.8, 1.2)
	d := t.Dims
	switch op, i := r.n.OpType, r.input; {
	case op == "Conv" && i == 1 && len(d) >= 2:
		return he(t.Len() / max(d[0], 1))
	case op == "Gemm" && i == 1 && len(d) == 2:
		if r.n.Int("transB", 0) != 0 {
			return he(d[1])
		}
		return he(d[0])
	case op == "MatMul" && i == 1 && len(d) >= 2:
		return he(d[len(d)-2])
	case op == "Conv" && i == 2, op == "Gemm" && i == 2:
		return small
	case op == "BatchNormalization" && (i == 1 || i == 4):
		return scale
	case op == "BatchNormalization" && (i == 2 || i == 3):
		return small
	case op == "Mul" || op == "Div":
		return scale
	case op == "Add" || op == "Sub" || op == "Sum":
		return small
	case op == "PRelu" && i == 1:
		return uniform(0, 0.3)
	}
	return nil
}
