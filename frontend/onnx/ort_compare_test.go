package onnx

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
)

// The float executor is judged by ONNX Runtime: the same serialized model
// runs on both and every output must agree to 1e-4 of its range. These
// are the helpers the per-op and the whole-network comparisons share.

// ortTolerance is the largest difference allowed, relative to the range of
// ONNX Runtime's output.
const ortTolerance = 1e-4

// randomArray is a seeded array of normal values (std 1) of the shape.
func randomArray(seed uint64, shape ...int) *Array {
	rng := rand.New(rand.NewPCG(seed, 7))
	a := NewArray(shape...)
	for i := range a.Data {
		a.Data[i] = float32(rng.NormFloat64())
	}
	return a
}

// relErr is the largest |got − want| over the range of want (over its
// largest magnitude when it is constant).
func relErr(got []float32, want []float64) float64 {
	lo, hi, big := math.Inf(1), math.Inf(-1), 0.0
	for _, w := range want {
		lo, hi, big = min(lo, w), max(hi, w), max(big, math.Abs(w))
	}
	if hi == lo {
		lo, hi = 0, big
	}
	worst := 0.0
	for i, w := range want {
		d := math.Abs(float64(got[i]) - w)
		if math.IsNaN(d) && !(math.IsNaN(w) && math.IsNaN(float64(got[i]))) {
			return math.Inf(1)
		}
		worst = max(worst, d)
	}
	return worst / max(hi-lo, 1e-30)
}

// comparison is what compareORT measured.
type comparison struct {
	relErr float64           // the largest difference over the output range
	took   time.Duration     // the float executor's wall time
	env    map[string]*Array // every value the executor computed
}

// compareORT runs the serialized model on the float executor and on ONNX
// Runtime with the given inputs (in the model's input order) and gives
// the largest relative error over its outputs, naming the output in err
// when shapes differ.
func compareORT(t testing.TB, node string, m *Model, data []byte, inputs ...*Array) (comparison, error) {
	t.Helper()
	start := time.Now()
	env, err := m.Graph.Execute(feedsOf(m, inputs))
	c := comparison{took: time.Since(start), env: env}
	if err != nil {
		return c, err
	}
	want := onnxtest.RunORT(t, node, data, [][]onnxtest.NPY{npyOf(inputs)})[0]
	c.relErr, err = compareOutputs(m, env, want)
	return c, err
}

// feedsOf names the inputs by the model's graph inputs, in order.
func feedsOf(m *Model, inputs []*Array) map[string]*Array {
	feeds := map[string]*Array{}
	for i, x := range inputs {
		feeds[m.Graph.Inputs[i].Name] = x
	}
	return feeds
}

// npyOf is one run of run.js.
func npyOf(inputs []*Array) []onnxtest.NPY {
	run := make([]onnxtest.NPY, len(inputs))
	for i, x := range inputs {
		run[i] = onnxtest.Float32NPY(x.Shape, x.Data)
	}
	return run
}

// compareOutputs is the largest relative error of the executor's outputs
// against ONNX Runtime's.
func compareOutputs(m *Model, got map[string]*Array, want map[string]onnxtest.ORTTensor) (float64, error) {
	worst := 0.0
	for _, v := range m.Graph.Outputs {
		g, w := got[v.Name], want[v.Name]
		if g == nil {
			return 0, fmt.Errorf("output %q is never computed", v.Name)
		}
		if !slices.Equal(g.Shape, w.Dims) {
			return 0, fmt.Errorf("output %q: shape %v, ONNX Runtime's %v", v.Name, g.Shape, w.Dims)
		}
		if g.IsInt() {
			return 0, fmt.Errorf("output %q is an integer tensor; the comparison takes FLOAT outputs", v.Name)
		}
		worst = max(worst, relErr(g.Data, w.Data))
	}
	return worst, nil
}
