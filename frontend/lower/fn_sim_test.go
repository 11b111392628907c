package lower

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
	"github.com/hwgen/hwgen/host"
)

// Nets with every new kind of step (a table activation, PRelu per
// channel, LRN, a Softmax after a Gemm, and after a GlobalAveragePool as
// a pool and as a planar reduce of more channels than the state buffer
// has partitions) run on the Go simulator of the NPU bit for bit as on
// the reference machine: the lookups, per-channel eltwise, the
// reciprocal, the column view and the on-chip transpose as the compiler
// emits them.
func TestFunctionsSimulator(t *testing.T) {
	cfg := npu.DefaultConfig()
	tests := []struct {
		name  string
		model func() *onnxtest.Builder
		dims  []int64
	}{
		{"PRelu, LRN, Tanh, Gemm, Softmax", func() *onnxtest.Builder {
			b := onnxtest.New(13).Input("x", 1, 2, 6, 6).Output("y").
				Float("slope", []int64{4, 1, 1}, 0.25, -0.5, 0, 1.5)
			return conv(b, "conv", "x", "c", 4, 2, 31).
				Node("prelu", "PRelu", []string{"c", "slope"}, "p").
				Node("lrn", "LRN", []string{"p"}, "l", i64("size", 3), flt("alpha", 0.5), flt("bias", 2)).
				Node("tanh", "Tanh", []string{"l"}, "h").
				Node("flat", "Flatten", []string{"h"}, "f").
				Float("w", []int64{144, 10}, wave(32, 0.5, 144, 10)...).
				Node("gemm", "Gemm", []string{"f", "w"}, "g").
				Node("softmax", "Softmax", []string{"g"}, "y")
		}, []int64{1, 2, 6, 6}},
		{"Conv of 40 channels, GlobalAveragePool (a pool), Softmax", func() *onnxtest.Builder {
			b := onnxtest.New(9).Input("x", 1, 2, 4, 4).Output("y")
			return conv(b, "conv", "x", "c", 40, 2, 33).
				Node("gap", "GlobalAveragePool", []string{"c"}, "g").
				Node("softmax", "Softmax", []string{"g"}, "y")
		}, []int64{1, 2, 4, 4}},
		{"Conv of 40 channels, GlobalAveragePool of 10x10 (a reduce), Softmax", func() *onnxtest.Builder {
			b := onnxtest.New(11).Input("x", 1, 2, 10, 10).Output("y")
			return conv(b, "conv", "x", "c", 40, 2, 34).
				Node("gap", "GlobalAveragePool", []string{"c"}, "g").
				Node("softmax", "Softmax", []string{"g"}, "y")
		}, []int64{1, 2, 10, 10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lw := lowerModel(t, cfg, tt.model(), tt.dims...)
			want, _, err := compiler.Interpret(lw.prog)
			if err != nil {
				t.Fatal(err)
			}
			res, err := host.Run(cfg, lw.prog)
			if err != nil {
				t.Fatal(err)
			}
			out := lw.net.Output()
			if d := cmp.Diff(want[out], res.Outputs[out]); d != "" {
				t.Errorf("simulator vs reference machine (-machine +simulator):\n%s", d)
			}
			t.Logf("%s: %s; y %v", lw.prog.Summary(), res.Summary(), res.Outputs[out].Data)
		})
	}
}
