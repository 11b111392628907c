package lower

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
	"github.com/hwgen/hwgen/golden"
)

// On an NPU without average pooling a GlobalAveragePool that feeds a
// classifier lowers to a reduce: the same int8 output, bit for bit, as
// the pool on the default NPU (the same sum and the same rescaling), and
// the reference machine equals the golden models. One that a Conv reads
// needs the feature map a reduce does not give: refused in one line
// naming the field.
func TestGlobalAveragePoolWithoutPoolAvg(t *testing.T) {
	head := func(b *onnxtest.Builder) *onnxtest.Builder {
		return conv(b, "conv1", "x", "c1", 3, 2, 11).
			Node("relu", "Relu", []string{"c1"}, "r").
			Node("gap", "GlobalAveragePool", []string{"r"}, "p")
	}
	classifier := func() *onnxtest.Builder {
		return head(onnxtest.New(13).Input("x", 1, 2, 6, 6).Output("y")).
			Node("flat", "Flatten", []string{"p"}, "f").
			Float("w", []int64{3, 4}, wave(12, 0.5, 3, 4)...).
			Node("fc", "MatMul", []string{"f", "w"}, "y")
	}
	noAvg := npu.DefaultConfig()
	noAvg.PlanarPoolAvg = false

	kinds := func(lw lowered) map[compiler.OpKind]int {
		ops, err := lw.g.Ops()
		if err != nil {
			t.Fatal(err)
		}
		n := map[compiler.OpKind]int{}
		for _, op := range ops {
			if op.Kind == compiler.OpPool || op.Kind == compiler.OpReduce {
				n[op.Kind]++
			}
		}
		return n
	}
	run := func(lw lowered) *golden.Tensor {
		got, _, err := compiler.Interpret(lw.prog)
		if err != nil {
			t.Fatal(err)
		}
		return got[lw.net.Output()]
	}
	pooled := lowerModel(t, npu.DefaultConfig(), classifier(), 1, 2, 6, 6)
	reduced := lowerModel(t, noAvg, classifier(), 1, 2, 6, 6)
	if d := cmp.Diff(map[compiler.OpKind]int{compiler.OpPool: 1}, kinds(pooled)); d != "" {
		t.Errorf("default NPU: pool and reduce ops (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[compiler.OpKind]int{compiler.OpReduce: 1}, kinds(reduced)); d != "" {
		t.Errorf("without planar_pool_avg: pool and reduce ops (-want +got):\n%s", d)
	}
	if d := cmp.Diff(run(pooled).Data, run(reduced).Data); d != "" {
		t.Errorf("int8 output, pool (-) against reduce (+):\n%s", d)
	}
	checkLowered(t, noAvg, classifier(), 1.5, 1, 2, 6, 6)

	feature := head(onnxtest.New(13).Input("x", 1, 2, 6, 6).Output("y"))
	feature = conv(feature, "conv2", "p", "y", 2, 3, 13)
	m := loadModel(t, feature)
	_, err := Quantize(m, []*onnx.Array{input(0, 1, 2, 6, 6)}, noAvg)
	want := "the NPU has no average pooling (planar_pool_avg = false)"
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
		t.Errorf("a GlobalAveragePool read by a Conv without planar_pool_avg: error %v, want one line containing %q", err, want)
	}
}
