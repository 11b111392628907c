package lower

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/host"
)

// dilatedPoolCases are dilated MaxPools and AveragePools on the graph
// input x (or on a Relu or Pad of it). ops is the compiler graph the
// lowering builds: how many ops of each kind, and the constant maps. amp
// is the largest K/n of a count_include_pad 0 average (K the window's
// taps, n those inside the plane), 0 for the others.
var dilatedPoolCases = []struct {
	name string
	node func(b *onnxtest.Builder) *onnxtest.Builder
	dims []int64
	ops  string
	amp  float64
}{
	{"3x3 dilations 2 stride 1 pads 2 (same size)", func(b *onnxtest.Builder) *onnxtest.Builder {
		return b.Node("p", "MaxPool", []string{"x"}, "y", oints("kernel_shape", 3, 3), oints("dilations", 2, 2), oints("pads", 2, 2, 2, 2))
	}, []int64{1, 3, 10, 10}, "conv2d 4, eltwise 8, maps 4", 0},
	{"2x2 dilations 2 stride 2 no pads (a phase and a pool)", func(b *onnxtest.Builder) *onnxtest.Builder {
		return b.Node("p", "MaxPool", []string{"x"}, "y", oints("kernel_shape", 2, 2), oints("dilations", 2, 2), oints("strides", 2, 2))
	}, []int64{1, 3, 9, 9}, "conv2d 1, pool 1, maps 0", 0},
	{"3x3 dilations 2 stride 2 pads 2 (a phase and a pool with padding)", func(b *onnxtest.Builder) *onnxtest.Builder {
		return b.Node("p", "MaxPool", []string{"x"}, "y", oints("kernel_shape", 3, 3), oints("dilations", 2, 2), oints("strides", 2, 2), oints("pads", 2, 2, 2, 2))
	}, []int64{1, 2, 11, 12}, "conv2d 1, pool 1, maps 0", 0},
	{"3x3 dilations 2 stride 4 pads [3,1,0,2] (a phase, a pool and a crop)", func(b *onnxtest.Builder) *onnxtest.Builder {
		return b.Node("p", "MaxPool", []string{"x"}, "y", oints("kernel_shape", 3, 3), oints("dilations", 2, 2), oints("strides", 4, 4), oints("pads", 3, 1, 0, 2))
	}, []int64{1, 2, 13, 14}, "conv2d 2, pool 1, maps 0", 0},
	{"3x2 dilations [2,3] pads [1,3,2,0] (asymmetric)", func(b *onnxtest.Builder) *onnxtest.Builder {
		return b.Node("p", "MaxPool", []string{"x"}, "y", oints("kernel_shape", 3, 2), oints("dilations", 2, 3), oints("pads", 1, 3, 2, 0))
	}, []int64{1, 3, 9, 10}, "conv2d 4, eltwise 6, maps 3", 0}, // tap kx 1 reads x itself
	{"3x2 dilations [2,3] stride 2 pads [2,1,1,2]", func(b *onnxtest.Builder) *onnxtest.Builder {
		return b.Node("p", "MaxPool", []string{"x"}, "y", oints("kernel_shape", 3, 2), oints("dilations", 2, 3), oints("strides", 2, 2), oints("pads", 2, 1, 1, 2))
	}, []int64{1, 2, 11, 9}, "conv2d 5, eltwise 6, maps 3", 0},
	{"3x3 dilations 3 auto_pad SAME_UPPER", func(b *onnxtest.Builder) *onnxtest.Builder {
		return b.Node("p", "MaxPool", []string{"x"}, "y", oints("kernel_shape", 3, 3), oints("dilations", 3, 3), onnxtest.String("auto_pad", "SAME_UPPER"))
	}, []int64{1, 2, 8, 8}, "conv2d 4, eltwise 8, maps 4", 0},
	{"3x3 dilations 6 pads 6 (a kernel of 13 taps), 16x15", func(b *onnxtest.Builder) *onnxtest.Builder {
		return b.Node("p", "MaxPool", []string{"x"}, "y", oints("kernel_shape", 3, 3), oints("dilations", 6, 6), oints("pads", 6, 6, 6, 6))
	}, []int64{1, 2, 16, 15}, "conv2d 8, eltwise 8, maps 4", 0}, // each copy a crop of 6 (kernel 7), then a 7-tap shift
	{"3x3 dilations 6 no pads, 20x20 (steps that drop the unread rows and columns)", func(b *onnxtest.Builder) *onnxtest.Builder {
		return b.Node("p", "MaxPool", []string{"x"}, "y", oints("kernel_shape", 3, 3), oints("dilations", 6, 6))
	}, []int64{1, 2, 20, 20}, "conv2d 12, eltwise 4, maps 0", 0},
	{"3x3 dilations [1,2] pads [1,2,1,2]", func(b *onnxtest.Builder) *onnxtest.Builder {
		return b.Node("p", "MaxPool", []string{"x"}, "y", oints("kernel_shape", 3, 3), oints("dilations", 1, 2), oints("pads", 1, 2, 1, 2))
	}, []int64{1, 2, 7, 8}, "conv2d 4, eltwise 8, maps 4", 0},
	{"of a Relu: 3x3 dilations 2 pads 2 without maps", func(b *onnxtest.Builder) *onnxtest.Builder {
		return b.Node("r", "Relu", []string{"x"}, "xr").
			Node("p", "MaxPool", []string{"xr"}, "y", oints("kernel_shape", 3, 3), oints("dilations", 2, 2), oints("pads", 2, 2, 2, 2))
	}, []int64{1, 3, 10, 10}, "conv2d 4, eltwise 5, maps 0", 0}, // the Relu's one eltwise, four maxes
	{"a Pad [0,0,1,0,0,0,0,1] folded, 2x2 dilations 2 pads 1: its zeros win", func(b *onnxtest.Builder) *onnxtest.Builder {
		return b.Int64("pp", []int64{8}, 0, 0, 1, 0, 0, 0, 0, 1).Node("pad", "Pad", []string{"x", "pp"}, "xp").
			Node("p", "MaxPool", []string{"xp"}, "y", oints("kernel_shape", 2, 2), oints("dilations", 2, 2), oints("pads", 1, 1, 1, 1))
	}, []int64{1, 2, 7, 8}, "conv2d 4, eltwise 6, maps 4", 0},
	{"1-D kernel 3 dilation 2 pads [2,1]", func(b *onnxtest.Builder) *onnxtest.Builder {
		return b.Node("p", "MaxPool", []string{"x"}, "y", oints("kernel_shape", 3), oints("dilations", 2), oints("pads", 2, 1))
	}, []int64{1, 3, 12}, "conv2d 3, eltwise 4, maps 2", 0},
	{"1-D kernel 2 dilation 3 stride 2 pads [1,2]", func(b *onnxtest.Builder) *onnxtest.Builder {
		return b.Node("p", "MaxPool", []string{"x"}, "y", oints("kernel_shape", 2), oints("dilations", 3), oints("strides", 2), oints("pads", 1, 2))
	}, []int64{1, 2, 15}, "conv2d 3, eltwise 3, maps 2", 0},
	{"AveragePool 3x3 dilations 2 pads 2 count_include_pad 0: a conv, the divisor map", func(b *onnxtest.Builder) *onnxtest.Builder {
		return b.Node("p", "AveragePool", []string{"x"}, "y", oints("kernel_shape", 3, 3), oints("dilations", 2, 2), oints("pads", 2, 2, 2, 2))
	}, []int64{1, 3, 10, 10}, "conv2d 1, eltwise 1, maps 1", 9.0 / 4},
	{"AveragePool 3x3 dilations 2 pads 2 count_include_pad 1: a conv", func(b *onnxtest.Builder) *onnxtest.Builder {
		return b.Node("p", "AveragePool", []string{"x"}, "y", oints("kernel_shape", 3, 3), oints("dilations", 2, 2), oints("pads", 2, 2, 2, 2), i64("count_include_pad", 1))
	}, []int64{1, 3, 10, 10}, "conv2d 1, maps 0", 0},
	{"AveragePool 2x2 dilations [2,3] stride 2 pads [1,0,0,2] count_include_pad 0: a conv, a crop, the map", func(b *onnxtest.Builder) *onnxtest.Builder {
		return b.Node("p", "AveragePool", []string{"x"}, "y", oints("kernel_shape", 2, 2), oints("dilations", 2, 3), oints("strides", 2, 2), oints("pads", 1, 0, 0, 2))
	}, []int64{1, 2, 9, 10}, "conv2d 2, eltwise 1, maps 1", 4},
	{"AveragePool 1-D kernel 3 dilation 2 pads [2,2] count_include_pad 0", func(b *onnxtest.Builder) *onnxtest.Builder {
		return b.Node("p", "AveragePool", []string{"x"}, "y", oints("kernel_shape", 3), oints("dilations", 2), oints("pads", 2, 2))
	}, []int64{1, 3, 12}, "conv2d 1, eltwise 1, maps 1", 3.0 / 2},
	{"a Pad [0,0,1,1,0,0,1,1] folded, AveragePool 2x2 dilations 2: its zeros counted", func(b *onnxtest.Builder) *onnxtest.Builder {
		return b.Int64("pp", []int64{8}, 0, 0, 1, 1, 0, 0, 1, 1).Node("pad", "Pad", []string{"x", "pp"}, "xp").
			Node("p", "AveragePool", []string{"xp"}, "y", oints("kernel_shape", 2, 2), oints("dilations", 2, 2))
	}, []int64{1, 2, 7, 8}, "conv2d 1, maps 0", 0},
}

// opCounts summarizes a lowered net's compiler graph for x: the ops by
// kind and the constant maps it reads.
func opCounts(t *testing.T, net *Net, x *onnx.Array) string {
	t.Helper()
	g, err := net.Graph(x)
	if err != nil {
		t.Fatal(err)
	}
	ops, err := g.Ops()
	if err != nil {
		t.Fatal(err)
	}
	counts, order := map[string]int{}, []string{}
	for _, op := range ops {
		k := op.Kind.String()
		if counts[k] == 0 {
			order = append(order, k)
		}
		counts[k]++
	}
	var parts []string
	for _, k := range []string{"conv2d", "eltwise", "pool"} {
		if counts[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, counts[k]))
		}
	}
	for _, k := range order {
		if k != "conv2d" && k != "eltwise" && k != "pool" {
			parts = append(parts, fmt.Sprintf("%s %d", k, counts[k]))
		}
	}
	return strings.Join(append(parts, fmt.Sprintf("maps %d", len(net.Constants()))), ", ")
}

// A dilated pool runs on the reference machine bit for bit as the golden
// models, within half a step of the input's and half of the output's
// rounding of the float executor (for count_include_pad 0 half a step of
// the zero-padded average times K/n, pool_pad.go; plus 0.1 for the
// multipliers), on seeded random inputs of both signs and on inputs all
// negative (where a max pool's padding that won would give 0, a dozen
// steps and more away), and builds the graph it should.
func TestDilatedPoolLowered(t *testing.T) {
	cfg := npu.DefaultConfig()
	for _, tt := range dilatedPoolCases {
		for seed := uint64(1); seed <= 3; seed++ {
			for _, negative := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/seed %d negative %v", tt.name, seed, negative), func(t *testing.T) {
					m := loadModel(t, tt.node(onnxtest.New(13).Input("x", tt.dims...).Output("y")))
					shape := make([]int, len(tt.dims))
					for i, d := range tt.dims {
						shape[i] = int(d)
					}
					x := &onnx.Array{Shape: shape, Data: newShapeRnd(seed).vals(1, negative, tt.dims...)}
					if negative {
						for i := range x.Data {
							x.Data[i] -= 1.1
						}
					}
					float, net := floatAndQuantize(t, m, x, cfg)
					if d := cmp.Diff(tt.ops, opCounts(t, net, x)); d != "" {
						t.Errorf("compiler graph (-want +got):\n%s", d)
					}
					checkWithin(t, cfg, net, x, float["y"], poolBound(net, tt.amp))
				})
			}
		}
	}
}

// The dilated pools the lowering cannot take are one error line naming
// the node, the op, the attribute, its value and what is supported.
func TestDilatedPoolRefused(t *testing.T) {
	base := func() *onnxtest.Builder { return onnxtest.New(13).Input("x", 1, 2, 9, 9).Output("y") }
	tests := []struct {
		name  string
		model *onnxtest.Builder
		want  string
	}{
		{"AveragePool whose spread-out window exceeds max_kernel", base().Node("p", "AveragePool", []string{"x"}, "y", oints("kernel_shape", 3, 3), oints("dilations", 4, 4)),
			`node "p" (AveragePool): dilations 4x4: the spread-out window 9x9 exceeds max_kernel = 8: supported: (k−1)·d+1 up to max_kernel`},
		{"AveragePool with unequal strides", base().Node("p", "AveragePool", []string{"x"}, "y", oints("kernel_shape", 3, 3), oints("dilations", 2, 2), oints("strides", 1, 2)),
			`node "p" (AveragePool): strides 1x2: only equal strides are supported`},
		{"unequal strides", base().Node("p", "MaxPool", []string{"x"}, "y", oints("kernel_shape", 3, 3), oints("dilations", 2, 2), oints("strides", 1, 2)),
			`node "p" (MaxPool): strides 1x2: only equal strides are supported`},
		{"AveragePool 1-D whose spread-out window exceeds max_kernel", onnxtest.New(13).Input("x", 1, 2, 12).Output("y").
			Node("p", "AveragePool", []string{"x"}, "y", oints("kernel_shape", 3), oints("dilations", 4)),
			`node "p" (AveragePool): dilations 1x4: the spread-out window 1x9 exceeds max_kernel = 8: supported: (k−1)·d+1 up to max_kernel`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkRefused(t, tt.model, tt.want) })
	}
}

// A window reading only padding is refused (the float executor's −∞
// stops the calibration before; the check keeps the maps exact on its
// own).
func TestDilatedAxisCheck(t *testing.T) {
	tests := []struct {
		name string
		a    dilatedAxis
		want string
	}{
		{"every window reads the plane", dilatedAxis{n: 9, lo: 0, hi: 9, k: 3, d: 2, s: 1, begin: 2, end: 2}, ""},
		{"the last window reads the end padding only", dilatedAxis{n: 9, lo: 0, hi: 9, k: 2, d: 4, s: 1, begin: 0, end: 5},
			"row 9 of the output reads only padding (window 2, dilation 4, stride 1, pads 0 5 over 9): supported: windows reading the plane at least once"},
		{"a folded Pad's zeros count as plane", dilatedAxis{n: 9, lo: 0, hi: 10, k: 2, d: 4, s: 1, begin: 0, end: 5}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ""
			if err := tt.a.check("row"); err != nil {
				got = err.Error()
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("check (-want +got):\n%s", d)
			}
		})
	}
}

// A dilated max pool with its maps, and one as a phase and a pool with a
// crop, run on the Go simulator of the NPU bit for bit as on the
// reference machine.
func TestDilatedPoolSimulator(t *testing.T) {
	cfg := npu.DefaultConfig()
	for _, i := range []int{0, 3} {
		tt := dilatedPoolCases[i]
		t.Run(tt.name, func(t *testing.T) {
			lw := lowerModel(t, cfg, tt.node(onnxtest.New(13).Input("x", tt.dims...).Output("y")), tt.dims...)
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

// A shifted copy, in one conv or a chain of convs within max_kernel,
// reads x[s·i+oy, s·j+ox] (0 outside x) on the golden models, over a
// sweep of sizes, strides and offsets of both signs, small and large.
func TestShift(t *testing.T) {
	cfg := npu.DefaultConfig()
	r := newShapeRnd(7)
	for _, h := range []int{1, 5, 17} {
		for _, w := range []int{1, 4, 13} {
			for _, s := range []int{1, 2, 3} {
				for _, oy := range []int{-11, -3, 0, 2, 9, 16} {
					for _, ox := range []int{-9, -1, 0, 1, 7} {
						for _, oh := range []int{1, 4, 9} {
							checkShift(t, cfg, r, h, w, s, oy, ox, oh, 3+oh/2)
						}
					}
				}
			}
		}
	}
}

// checkShift is one geometry of TestShift.
func checkShift(t *testing.T, cfg npu.Config, r shapeRnd, h, w, s, oy, ox, oh, ow int) {
	t.Helper()
	x := golden.New(2, h, w)
	for i := range x.Data {
		x.Data[i] = int64(r.r.IntN(255) - 127)
	}
	want := golden.New(2, oh, ow)
	for c := range 2 {
		for i := range oh {
			for j := range ow {
				if y, xx := s*i+oy, s*j+ox; y >= 0 && y < h && xx >= 0 && xx < w {
					want.Data[(c*oh+i)*ow+j] = x.Data[(c*h+y)*w+xx]
				}
			}
		}
	}
	name := fmt.Sprintf("%dx%d stride %d offset %d,%d to %dx%d", h, w, s, oy, ox, oh, ow)
	g := compiler.NewGraph()
	in := g.Input("x", x)
	out := shift(g, in, oh, ow, s, oy, ox, cfg.MaxKernel)
	if out == in {
		if d := cmp.Diff(want.Data, x.Data); d != "" {
			t.Errorf("%s: x itself (-want +x):\n%s", name, d)
		}
		return
	}
	g.Output("y", out)
	ops, err := g.Ops()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for _, op := range ops {
		if k := op.Weights.Shape; k[2] > cfg.MaxKernel || k[3] > cfg.MaxKernel {
			t.Errorf("%s: %s has a %dx%d kernel, more than max_kernel %d", name, op.Label, k[2], k[3], cfg.MaxKernel)
		}
	}
	got, err := g.Reference(cfg)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if d := cmp.Diff(want.Data, got["y"].Data); d != "" {
		t.Errorf("%s (-want +got):\n%s", name, d)
	}
}

// With elements wider than int8 a value computed on an input beyond the
// calibration's range leaves int8 (a conv's result saturates at the
// element's range, not at ±127): the padding's map is then the element's
// least value, so that a padding never wins over a value below −128.
// The conv adds two channels, calibrated where they nearly cancel and
// run where they do not: its sums, 20 to 40 times the calibrated range,
// saturate at −512 (10-bit elements), and so must the pool's every
// output, its border ones too (a map of −128 would give those −128).
func TestDilatedPoolWideElements(t *testing.T) {
	cfg := npu.DefaultConfig()
	cfg.ElemWidth = 10
	dims := []int64{1, 2, 9, 9}
	b := onnxtest.New(13).Input("x", dims...).Output("y").
		Float("w", []int64{1, 2, 1, 1}, 1, 1).
		Node("c", "Conv", []string{"x", "w"}, "cx").
		Node("p", "MaxPool", []string{"cx"}, "y", oints("kernel_shape", 3, 3), oints("dilations", 2, 2), oints("pads", 2, 2, 2, 2))
	m := loadModel(t, b)
	r := newShapeRnd(5)
	calib := &onnx.Array{Shape: []int{1, 2, 9, 9}, Data: r.vals(1, false, dims...)}
	noise := r.vals(0.05, false, 1, 1, 9, 9)
	for i := range 81 {
		calib.Data[81+i] = -calib.Data[i] + noise[i]
	}
	x := &onnx.Array{Shape: calib.Shape, Data: r.vals(0.5, true, dims...)}
	for i := range x.Data {
		x.Data[i] -= 1
	}
	net, err := Quantize(m, []*onnx.Array{calib}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	g, err := net.Graph(x)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := g.Reference(cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]int64, 81)
	for i := range want {
		want[i] = -512
	}
	if d := cmp.Diff(want, ref["y"].Data); d != "" {
		t.Errorf("outputs (-want +golden models):\n%s", d)
	}
}
