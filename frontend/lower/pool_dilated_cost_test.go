package lower

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
	"github.com/hwgen/hwgen/isa"
)

// The cost of a 3×3 pool dilated by 2 over 64×56×56 (pool_dilated.go)
// on the reference machine, against the formulas of its mapping: with
// stride 1 and pads 2, four shifted copies (the centre taps read x
// itself), each a depthwise conv of a 1×5 or 5×1 kernel (5 passes of
// each of the 4 channel tiles over the 56×56 outputs), and twelve full
// planar writes of the map (the four convs' results, four mins with the
// maps, four maxes); on a Relu's value no mins (the Relu's own write
// instead); with stride 2 the phase conv (1×1, stride 2: one pass per
// tile over 28×28) and one planar pool. The AveragePool of that window
// is one depthwise conv of the spread-out 5×5 window (25 passes of each
// tile) and the divisor map's multiply.
func TestDilatedPoolCost(t *testing.T) {
	cfg := npu.DefaultConfig()
	const c, h, w = 64, 56, 56
	plane, tiles := c*h*w, c/cfg.Rows
	pool := func(strides int64) func(b *onnxtest.Builder, in string) *onnxtest.Builder {
		return func(b *onnxtest.Builder, in string) *onnxtest.Builder {
			return b.Node("p", "MaxPool", []string{in}, "y", oints("kernel_shape", 3, 3), oints("dilations", 2, 2), oints("pads", 2, 2, 2, 2), oints("strides", strides, strides))
		}
	}
	tests := []struct {
		name  string
		model func(b *onnxtest.Builder) *onnxtest.Builder
		want  []int // NE vectors, planar writes
	}{
		{"stride 1", func(b *onnxtest.Builder) *onnxtest.Builder { return pool(1)(b, "x") },
			[]int{4 * 5 * tiles * h * w, 12 * plane}},
		{"stride 1 of a Relu", func(b *onnxtest.Builder) *onnxtest.Builder {
			return pool(1)(b.Node("r", "Relu", []string{"x"}, "xr"), "xr")
		}, []int{4 * 5 * tiles * h * w, 9 * plane}},
		{"stride 2", func(b *onnxtest.Builder) *onnxtest.Builder { return pool(2)(b, "x") },
			[]int{tiles * h / 2 * w / 2, 2 * plane / 4}},
		{"AveragePool, count_include_pad 0", func(b *onnxtest.Builder) *onnxtest.Builder {
			return b.Node("p", "AveragePool", []string{"x"}, "y", oints("kernel_shape", 3, 3), oints("dilations", 2, 2), oints("pads", 2, 2, 2, 2))
		}, []int{5 * 5 * tiles * h * w, 2 * plane}},
	}
	dims := []int64{1, c, h, w}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := loadModel(t, tt.model(onnxtest.New(13).Input("x", dims...).Output("y")))
			x := &onnx.Array{Shape: []int{1, c, h, w}, Data: newShapeRnd(1).vals(1, false, dims...)}
			net, err := Quantize(m, []*onnx.Array{x}, cfg)
			if err != nil {
				t.Fatal(err)
			}
			g, err := net.Graph(x)
			if err != nil {
				t.Fatal(err)
			}
			p, err := compiler.CompileWith(cfg, g, compiler.Options{GrowExt: true})
			if err != nil {
				t.Fatal(err)
			}
			_, mach, err := compiler.Interpret(p)
			if err != nil {
				t.Fatal(err)
			}
			s := mach.Stats
			if d := cmp.Diff(tt.want, []int{s.NEVectors, s.PlanarWrites}); d != "" {
				t.Errorf("NE vectors, planar writes (-want +got):\n%s", d)
			}
			t.Logf("%s; NE tasks %d, NE vectors %d, planar writes %d, DMA lines in %d out %d", p.Summary(), s.Tasks[isa.NE], s.NEVectors, s.PlanarWrites, s.DMAInLines, s.DMAOutLines)
		})
	}
}
