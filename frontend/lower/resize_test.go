package lower

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/onnx/onnxpb"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
	"github.com/hwgen/hwgen/host"
)

// resizeCases are nearest upsamplings by 2 in each op's and opset's
// form, built from a seed on the graph input x [dims]. A Conv's weights
// are "w" (checkFloat bounds the error by their gain).
var resizeCases = []struct {
	name  string
	model func(r shapeRnd, dims []int64) *onnxtest.Builder
	dims  []int64
}{
	{"Conv, Resize (opset 13) scales [1,1,2,2], PyTorch's half_pixel round_prefer_floor by default", func(r shapeRnd, d []int64) *onnxtest.Builder {
		b := onnxtest.New(13).Input("x", d...).Output("y").Float("s", []int64{4}, 1, 1, 2, 2)
		return convTo(r, b, "c", d[1]).Node("rs", "Resize", []string{"c", "", "s"}, "y")
	}, []int64{1, 2, 7, 6}},
	{"Resize (opset 11) of the input to sizes [1,C,2H,2W], asymmetric floor (TensorFlow's)", func(r shapeRnd, d []int64) *onnxtest.Builder {
		return onnxtest.New(11).Input("x", d...).Output("y").Float("roi", []int64{0}).Float("s", []int64{0}).
			Int64("sz", []int64{4}, d[0], d[1], 2*d[2], 2*d[3]).
			Node("rs", "Resize", []string{"x", "roi", "s", "sz"}, "y", onnxtest.String("coordinate_transformation_mode", "asymmetric"),
				onnxtest.String("nearest_mode", "floor"))
	}, []int64{1, 3, 5, 4}},
	{"Resize (opset 19) pytorch_half_pixel round_prefer_ceil, half_pixel_symmetric", func(r shapeRnd, d []int64) *onnxtest.Builder {
		return onnxtest.New(19).Input("x", d...).Output("y").Float("s", []int64{4}, 1, 1, 2, 2).
			Node("rs", "Resize", []string{"x", "", "s"}, "u", onnxtest.String("coordinate_transformation_mode", "pytorch_half_pixel"),
				onnxtest.String("nearest_mode", "round_prefer_ceil")).
			Node("rs2", "Resize", []string{"u", "", "s"}, "y", onnxtest.String("coordinate_transformation_mode", "half_pixel_symmetric"))
	}, []int64{1, 2, 3, 3}},
	{"Resize (opset 10): scales as input 1", func(r shapeRnd, d []int64) *onnxtest.Builder {
		return onnxtest.New(10).Input("x", d...).Output("y").Float("s", []int64{4}, 1, 1, 2, 2).
			Node("rs", "Resize", []string{"x", "s"}, "y")
	}, []int64{1, 2, 4, 5}},
	{"Conv, Upsample (opset 9): scales as input 1", func(r shapeRnd, d []int64) *onnxtest.Builder {
		b := onnxtest.New(9).Input("x", d...).Output("y").Float("s", []int64{4}, 1, 1, 2, 2)
		return convTo(r, b, "c", d[1]).Node("up", "Upsample", []string{"c", "s"}, "y")
	}, []int64{1, 3, 6, 6}},
	{"Upsample (opset 7): scales as attribute", func(r shapeRnd, d []int64) *onnxtest.Builder {
		return onnxtest.New(7).Input("x", d...).Output("y").
			Node("up", "Upsample", []string{"x"}, "y", onnxtest.Floats("scales", 1, 1, 2, 2), onnxtest.String("mode", "nearest"))
	}, []int64{1, 2, 3, 5}},
}

// convTo adds a Conv x → out of 3 output channels, 3x3, pads 1, random
// weights "w" and bias.
func convTo(r shapeRnd, b *onnxtest.Builder, out string, ci int64) *onnxtest.Builder {
	return b.Float("w", []int64{3, ci, 3, 3}, r.vals(0.6, false, 3, ci, 3, 3)...).Float("b", []int64{3}, r.vals(0.1, false, 3)...).
		Node("conv", "Conv", []string{"x", "w", "b"}, out, oints("pads", 1, 1, 1, 1))
}

// Each nearest upsampling by 2 lowers onto Graph.Upsample, runs on the
// reference machine bit for bit as the golden models, and within
// checkFloat's bound of the float executor (half an output step, plus
// the input's rounding through the Conv, if any: the upsampling copies,
// so it adds nothing) on seeded random inputs. An element copied from the
// wrong position misses by whole steps.
func TestResizeLowered(t *testing.T) {
	cfg := npu.DefaultConfig()
	for _, tt := range resizeCases {
		for seed := uint64(1); seed <= 3; seed++ {
			t.Run(fmt.Sprintf("%s seed %d", tt.name, seed), func(t *testing.T) {
				r := newShapeRnd(seed)
				m := loadModel(t, tt.model(r, tt.dims))
				shape := make([]int, len(tt.dims))
				for i, d := range tt.dims {
					shape[i] = int(d)
				}
				x := &onnx.Array{Shape: shape, Data: r.vals(1, false, tt.dims...)}
				float, err := m.Graph.Run(map[string]*onnx.Array{"x": x})
				if err != nil {
					t.Fatal(err)
				}
				checkFloat(t, cfg, m, x, float["y"], 0)
			})
		}
	}
}

// upsampled2 is x [1,C,H,W] upsampled by 2, nearest: (i, j) from
// (⌊i/2⌋, ⌊j/2⌋).
func upsampled2(x *onnx.Array) []float32 {
	c, h, w := x.Shape[1], x.Shape[2], x.Shape[3]
	var out []float32
	for ch := range c {
		for i := range 2 * h {
			for j := range 2 * w {
				out = append(out, x.Data[(ch*h+i/2)*w+j/2])
			}
		}
	}
	return out
}

// The lowering takes exactly the pairs of coordinate_transformation_mode
// and nearest_mode whose float result (the float executor's, which
// matches ONNX Runtime) is the upsampling ⌊o/2⌋, and refuses the others
// in one line naming the node and the attribute.
func TestResizeModes(t *testing.T) {
	cfg := npu.DefaultConfig()
	coords := []string{"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn"}
	rounds := []string{"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}
	dims := []int64{1, 2, 3, 4}
	x := &onnx.Array{Shape: []int{1, 2, 3, 4}, Data: newShapeRnd(1).vals(1, false, dims...)}
	var accepted []string
	for _, coord := range coords {
		for _, round := range rounds {
			t.Run(coord+" "+round, func(t *testing.T) {
				m := loadModel(t, onnxtest.New(19).Input("x", dims...).Output("y").Float("s", []int64{4}, 1, 1, 2, 2).
					Node("rs", "Resize", []string{"x", "", "s"}, "y", onnxtest.String("coordinate_transformation_mode", coord),
						onnxtest.String("nearest_mode", round)))
				float, err := m.Graph.Run(map[string]*onnx.Array{"x": x})
				if err != nil {
					t.Fatal(err)
				}
				floorHalf := slices.Equal(float["y"].Data, upsampled2(x))
				_, err = Quantize(m, []*onnx.Array{x}, cfg)
				switch {
				case floorHalf && err != nil:
					t.Errorf("the float result is the upsampling ⌊o/2⌋, the lowering refuses it: %v", err)
				case !floorHalf && err == nil:
					t.Errorf("the float result is not the upsampling ⌊o/2⌋, the lowering takes it")
				case err != nil && (!strings.Contains(err.Error(), `node "rs" (Resize): `) || strings.Contains(err.Error(), "\n") ||
					!strings.Contains(err.Error(), "mode")):
					t.Errorf("error %q: want one line naming the node and the mode", err)
				}
				if err == nil {
					accepted = append(accepted, coord+" "+round)
				}
			})
		}
	}
	// Three half-pixel modes and align_corners with two roundings each,
	// asymmetric with two, tf_half_pixel_for_nn with one.
	if len(accepted) != 11 {
		t.Errorf("%d pairs taken, want 11: %v", len(accepted), accepted)
	}
}

// Upsamplings other than nearest by 2 along H and W are refused in one
// line naming the node, the op, the value and what is supported.
func TestResizeRefusals(t *testing.T) {
	cfg := npu.DefaultConfig()
	d := []int64{1, 2, 3, 4}
	resize := func(opset int64, inputs []string, attrs ...*onnxpb.AttributeProto) *onnxtest.Builder {
		return onnxtest.New(opset).Input("x", d...).Output("y").Float("s3", []int64{4}, 1, 1, 3, 3).Float("sh", []int64{4}, 1, 1, 2, 1).
			Float("s2", []int64{4}, 1, 1, 2, 2).Float("none", []int64{0}).Int64("sz", []int64{4}, 1, 2, 6, 7).
			Node("rs", "Resize", inputs, "y", attrs...)
	}
	cases := []struct {
		name  string
		model *onnxtest.Builder
		want  string
	}{
		{"scales 3", resize(13, []string{"x", "", "s3"}), `node "rs" (Resize): scales [1 1 3 3]: only [1 1 2 2] (nearest ×2 along H and W) is supported`},
		{"scales along H only", resize(13, []string{"x", "", "sh"}), `node "rs" (Resize): scales [1 1 2 1]: only [1 1 2 2]`},
		{"sizes not twice", resize(13, []string{"x", "", "none", "sz"}), `node "rs" (Resize): sizes [1 2 6 7] of a [1 2 3 4] input: only [1 2 6 8]`},
		{"linear", resize(13, []string{"x", "", "s2"}, onnxtest.String("mode", "linear")), `node "rs" (Resize): mode "linear" not supported; supported: nearest`},
		{"Upsample-7 by 4", onnxtest.New(7).Input("x", d...).Output("y").
			Node("up", "Upsample", []string{"x"}, "y", onnxtest.Floats("scales", 1, 1, 4, 4)), `node "up" (Upsample): scales [1 1 4 4]: only [1 1 2 2]`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := loadModel(t, tc.model)
			x := &onnx.Array{Shape: []int{1, 2, 3, 4}, Data: make([]float32, 24)}
			for i := range x.Data {
				x.Data[i] = float32(math.Sin(float64(i)))
			}
			_, err := Quantize(m, []*onnx.Array{x}, cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %v, want one line with %q", err, tc.want)
			}
		})
	}
	if d := cmp.Diff([]float32{1, 1, 2, 2, 1, 1, 2, 2}, upsampled2(&onnx.Array{Shape: []int{1, 1, 1, 2}, Data: []float32{1, 2}})); d != "" {
		t.Errorf("upsampled2 (-want +got):\n%s", d)
	}
}

// unet is a tiny U-Net on x [1,2,8,8]: a Conv and Relu (the skip), a
// MaxPool 2x2, a Conv and Relu, the Resize by 2 back up, a Concat with
// the skip and a last Conv; weights from r, the middle Conv's small (its
// range below the skip's, so the Concat's scale is not its own).
func unet(r shapeRnd, opset int64) *onnxtest.Builder {
	conv := func(b *onnxtest.Builder, name, x, out string, co, ci int64, gain float64) *onnxtest.Builder {
		return b.Float(name+".w", []int64{co, ci, 3, 3}, r.vals(gain, false, co, ci, 3, 3)...).Float(name+".b", []int64{co}, r.vals(0.1, false, co)...).
			Node(name, "Conv", []string{x, name + ".w", name + ".b"}, out, oints("pads", 1, 1, 1, 1))
	}
	b := onnxtest.New(opset).Input("x", 1, 2, 8, 8).Output("y").Float("s", []int64{4}, 1, 1, 2, 2)
	b = conv(b, "enc", "x", "e", 4, 2, 0.6).Node("relu1", "Relu", []string{"e"}, "skip").
		Node("pool", "MaxPool", []string{"skip"}, "p", oints("kernel_shape", 2, 2), oints("strides", 2, 2))
	b = conv(b, "mid", "p", "m", 6, 4, 0.1).Node("relu2", "Relu", []string{"m"}, "mr")
	if opset >= 10 {
		b = b.Node("up", "Resize", []string{"mr", "", "s"}, "u")
	} else {
		b = b.Node("up", "Upsample", []string{"mr", "s"}, "u")
	}
	b = b.Node("cat", "Concat", []string{"u", "skip"}, "c", onnxtest.Int("axis", 1))
	return conv(b, "dec", "c", "y", 3, 10, 0.6)
}

// A tiny U-Net (Resize at opset 13, Upsample at opset 9) lowers with the
// upsampling on the NPU and no requantization of its result (the Conv
// before it writes in the Concat's scale), runs on the reference machine
// bit for bit as the golden models, and within 4 output steps of the
// float executor (three layers of roundings: up to 2.8 steps seen; the
// float net with asymmetric ceil instead, one pixel off, is 27 to 37
// steps away).
func TestUNetLowered(t *testing.T) {
	cfg := npu.DefaultConfig()
	for _, opset := range []int64{13, 9} {
		for seed := uint64(1); seed <= 3; seed++ {
			t.Run(fmt.Sprintf("opset %d seed %d", opset, seed), func(t *testing.T) {
				r := newShapeRnd(seed)
				m := loadModel(t, unet(r, opset))
				x := &onnx.Array{Shape: []int{1, 2, 8, 8}, Data: r.vals(1, false, 1, 2, 8, 8)}
				float, net, _, ops := lowerGraph(t, m, x, cfg)
				deq, p := machineRun(t, cfg, net, x)
				// The Conv before the upsampling writes in the Concat's
				// scale: no requantization of the upsampled map.
				var ups []*compiler.Value
				for _, op := range ops {
					switch {
					case op.Kind == compiler.OpUpsample:
						ups = append(ups, op.Out)
					case slices.Contains(ups, op.In[0]) && op.Kind != compiler.OpConcat:
						t.Errorf("%s reads the upsampling's result: want only the Concat", op.Label)
					}
				}
				if len(ups) != 1 {
					t.Errorf("%d upsamplings, want 1: %s", len(ups), p.Summary())
				}
				sy := net.OutputScale()
				var worst float64
				for i, v := range float["y"].Data {
					worst = max(worst, math.Abs(float64(deq.Data[i]-v))/sy)
				}
				t.Logf("%s; max |int8 − float| = %.2f output steps", p.Summary(), worst)
				if worst > 4 {
					t.Errorf("max |int8 − float| = %.2f output steps, more than 4", worst)
				}
			})
		}
	}
}

// The tiny U-Net runs on the Go simulator of the NPU bit for bit as on
// the reference machine: the upsampling's strided stores and loads as
// the compiler emits them and the dependencies between them.
func TestUpsampleSimulator(t *testing.T) {
	cfg := npu.DefaultConfig()
	for _, opset := range []int64{13, 9} {
		t.Run(fmt.Sprintf("opset %d", opset), func(t *testing.T) {
			lw := lowerModel(t, cfg, unet(newShapeRnd(uint64(opset)), opset), 1, 2, 8, 8)
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
			first, last, tasks := -1, 0, 0
			for _, s := range res.Timeline {
				if strings.HasPrefix(s.Label, "upsample0 ") {
					if first < 0 || s.Start < first {
						first = s.Start
					}
					last, tasks = max(last, s.End), tasks+1
				}
			}
			if tasks == 0 {
				t.Fatalf("no upsample0 tasks ran: %s", res.Summary())
			}
			t.Logf("%s; %s; upsample0: %d tasks, cycles %d to %d", lw.prog.Summary(), res.Summary(), tasks, first, last)
		})
	}
}

// A Resize to sizes [N,C,2H,2W] of a batch of 2 lowers image by image:
// each image's output on the reference machine is the float executor's
// upsampling of that image within half an output step and the input's
// rounding (the same scale: 1.1 steps), the golden models' bit for bit.
func TestResizeBatch(t *testing.T) {
	cfg := npu.DefaultConfig()
	m := loadModel(t, onnxtest.New(13).Input("x", 2, 3, 3, 5).Output("y").Float("roi", []int64{0}).Float("s", []int64{0}).
		Int64("sz", []int64{4}, 2, 3, 6, 10).Node("rs", "Resize", []string{"x", "roi", "s", "sz"}, "y"))
	x := &onnx.Array{Shape: []int{2, 3, 3, 5}, Data: newShapeRnd(5).vals(1, false, 2, 3, 3, 5)}
	float, net := floatAndQuantize(t, m, x, cfg)
	images, err := net.Images(map[string]*onnx.Array{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	per := len(float["y"].Data) / 2
	for k, im := range images {
		deq, _ := machineRun(t, cfg, net, im["x"])
		var worst float64
		for i, v := range float["y"].Data[k*per : (k+1)*per] {
			worst = max(worst, math.Abs(float64(deq.Data[i]-v))/net.OutputScale())
		}
		if worst > 1.1 {
			t.Errorf("image %d: max |int8 − float| = %.2f output steps, more than 1.1", k, worst)
		}
	}
}
