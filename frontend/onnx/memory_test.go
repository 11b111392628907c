package onnx

import (
	"testing"

	"github.com/hwgen/hwgen/internal/budget"
)

// A small graph that asks for a huge value (ConstantOfShape of 2^28
// floats: 1 GiB) is refused before the value is allocated, naming the
// node and the limit, and the run is an error, not an out-of-memory
// crash.
func TestExecuteOverBudget(t *testing.T) {
	budget.SetLimit(256 << 20)
	defer budget.SetLimit(0)
	shape := &Tensor{Name: "shape", DType: Int64, Dims: []int64{1}, Int64: []int64{1 << 28}}
	g := &Graph{
		Opset:        13,
		Initializers: []*Tensor{shape},
		Nodes:        []*Node{{Name: "fill", OpType: "ConstantOfShape", Inputs: []string{"shape"}, Outputs: []string{"y"}, Attrs: map[string]Attr{}}},
		Outputs:      []Value{{Name: "y"}},
	}
	_, err := g.Execute(nil)
	if err == nil {
		t.Fatal("no error")
	}
	checkMessage(t, err, []string{`node "fill" (ConstantOfShape)`, "shape [268435456]", "over half the memory limit of 268.4 MB (--max-memory)"})
}
