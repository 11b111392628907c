package lower

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
	"github.com/hwgen/hwgen/host"
)

// A Pad folded into an uneven conv (its crop), a 1-D conv and pool, a
// Split's channel selections and an MLP on a row input run on the Go
// simulator of the NPU bit for bit as on the reference machine.
func TestFormsSimulator(t *testing.T) {
	cfg := npu.DefaultConfig()
	r := newShapeRnd(5)
	tests := []struct {
		name  string
		model *onnxtest.Builder
		dims  []int64
	}{
		{padCases[1].name, padCases[1].model(r, padCases[1].dims), padCases[1].dims},
		{"Conv1d, MaxPool1d", onnxtest.New(13).Input("x", 1, 2, 12).Output("y").Float("w", []int64{3, 2, 3}, r.vals(0.6, false, 3, 2, 3)...).
			Node("conv", "Conv", []string{"x", "w"}, "c", oints("pads", 1, 1)).
			Node("pool", "MaxPool", []string{"c"}, "y", oints("kernel_shape", 2), oints("strides", 2)), []int64{1, 2, 12}},
		{"Split, Concat", splitForms[1].model(onnxtest.New(13).Input("x", 1, 6, 4, 4).Output("y")).
			Node("cat", "Concat", []string{"p2", "p0", "p1"}, "y", i64("axis", 1)), []int64{1, 6, 4, 4}},
		{"MLP on [1,N]", mlp(5, "row", 16, 8, 4), []int64{1, 16}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lw := lowerModel(t, cfg, tt.model, tt.dims...)
			want, _, err := compiler.Interpret(lw.prog)
			if err != nil {
				t.Fatal(err)
			}
			res, err := host.Run(cfg, lw.prog)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want["y"], res.Outputs["y"]); d != "" {
				t.Errorf("simulator vs reference machine (-machine +simulator):\n%s", d)
			}
			t.Logf("%s: %s", lw.prog.Summary(), res.Summary())
		})
	}
}
