package conformance

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hwgen/hwgen/frontend/onnx"
)

// TestFloatExecutorReductions: the float executor (frontend/onnx, which
// calibration runs) gives the official node tests' outputs for the
// reductions, GlobalMaxPool, Sqrt, Reciprocal, Min and Max, to float32
// rounding (tests with
// inputs other than FLOAT are skipped: the executor computes in FLOAT).
func TestFloatExecutorReductions(t *testing.T) {
	needData(t)
	entries, err := os.ReadDir(DefaultDir)
	if err != nil {
		t.Fatal(err)
	}
	prefixes := []string{"test_reduce_sum_", "test_reduce_mean_", "test_reduce_max_", "test_globalmaxpool",
		"test_sqrt", "test_reciprocal", "test_min_", "test_max_"}
	ran := 0
	for _, e := range entries {
		name := e.Name()
		if !hasAnyPrefix(name, prefixes) || strings.HasPrefix(name, "test_reduce_sum_square") {
			continue
		}
		c, err := Load(filepath.Join(DefaultDir, name))
		if err != nil {
			continue // an element type the reader does not load
		}
		in, ok := floatInputs(c)
		if !ok {
			continue
		}
		t.Run(name, func(t *testing.T) {
			out, err := c.Model.Graph.Run(in)
			if err != nil {
				t.Fatal(err)
			}
			want, err := onnx.ArrayOf(c.Outputs[0])
			if err != nil {
				t.Fatal(err)
			}
			got := out[c.Model.Graph.Outputs[0].Name]
			if len(got.Data) != len(want.Data) || len(got.Shape) != len(want.Shape) {
				t.Fatalf("shape %v, want %v", got.Shape, want.Shape)
			}
			for i, w := range want.Data {
				if d := math.Abs(float64(got.Data[i] - w)); d > 1e-5*max(1, math.Abs(float64(w))) {
					t.Errorf("element %d = %g, want %g", i, got.Data[i], w)
				}
			}
		})
		ran++
	}
	if ran < 34 {
		t.Errorf("ran %d node tests, want at least 34", ran)
	}
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// floatInputs are the case's inputs as executor values: FLOAT data, an
// INT64 one after the first (axes) as integers; false otherwise.
func floatInputs(c *Case) (map[string]*onnx.Array, bool) {
	in := map[string]*onnx.Array{}
	for i, v := range c.Model.Graph.Inputs {
		if i >= len(c.Inputs) {
			return nil, false
		}
		tt := c.Inputs[i]
		switch tt.DType {
		case onnx.Float32:
			a, err := onnx.ArrayOf(tt)
			if err != nil {
				return nil, false
			}
			in[v.Name] = a
		case onnx.Int64:
			if i == 0 {
				return nil, false // integer data
			}
			a := &onnx.Array{Shape: []int{}, Ints: append([]int64{}, tt.Int64...)}
			for _, d := range tt.Dims {
				a.Shape = append(a.Shape, int(d))
			}
			in[v.Name] = a
		default:
			return nil, false
		}
	}
	return in, true
}
