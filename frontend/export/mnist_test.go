package export

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/lower"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/golden"
)

const (
	mnistModel = "../onnx/testdata/mnist-7.onnx"
	mnistInput = "../onnx/testdata/test_data_set_0/input_0.pb"
)

// mnist quantizes mnist-7 calibrated on its test image alone (hwgen
// quantize's default) and returns the net and the image.
func mnist(t *testing.T, cfg npu.Config) (*lower.Net, *onnx.Array) {
	return mnistCalibrated(t, cfg, func(x *onnx.Array) []*onnx.Array { return []*onnx.Array{x} })
}

// mnistCalibrated is mnist calibrated on the set calib makes of the
// test image.
func mnistCalibrated(t *testing.T, cfg npu.Config, calib func(x *onnx.Array) []*onnx.Array, opts ...lower.Option) (*lower.Net, *onnx.Array) {
	t.Helper()
	m, err := onnx.LoadFile(mnistModel)
	if err != nil {
		t.Fatal(err)
	}
	tp, err := onnx.LoadTensorFile(mnistInput)
	if err != nil {
		t.Fatal(err)
	}
	x, err := onnx.ArrayOf(tp)
	if err != nil {
		t.Fatal(err)
	}
	net, err := lower.Quantize(m, calib(x), cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return net, x
}

// shifted is the [1,1,H,W] image x moved by dy rows and dx columns, the
// uncovered border zero (the images' background).
func shifted(x *onnx.Array, dy, dx int) *onnx.Array {
	h, w := x.Shape[2], x.Shape[3]
	y := onnx.NewArray(x.Shape...)
	for r := 0; r < h; r++ {
		for c := 0; c < w; c++ {
			if sr, sc := r-dy, c-dx; sr >= 0 && sr < h && sc >= 0 && sc < w {
				y.Data[r*w+c] = x.Data[sr*w+sc]
			}
		}
	}
	return y
}

// perturbed is x·gain plus a deterministic pseudo-random noise of
// amplitude amp per pixel.
func perturbed(x *onnx.Array, gain, amp float32, seed uint64) *onnx.Array {
	y := onnx.NewArray(x.Shape...)
	s := seed
	for i, v := range x.Data {
		s = s*6364136223846793005 + 1442695040888963407
		u := float32(s>>40)/float32(1<<24)*2 - 1 // in [-1, 1)
		y.Data[i] = v*gain + amp*u
	}
	return y
}

// The images the exported mnist-7 is compared on: the test image, its
// shifts, noisy copies, a brighter one (whose pixels exceed the
// calibrated range, so the input clamp to ±127 matters) and a negative.
func mnistImages(x *onnx.Array) []image {
	return []image{
		{"test image", x},
		{"shift down 1", shifted(x, 1, 0)},
		{"shift left 2", shifted(x, 0, -2)},
		{"shift up-right 3", shifted(x, -3, 3)},
		{"noise ±20", perturbed(x, 1, 20, 1)},
		{"noise ±60, ×0.7", perturbed(x, 0.7, 60, 2)},
		{"brighter ×1.8", perturbed(x, 1.8, 0, 3)},
		{"negative, noise 5", perturbed(x, -1, 5, 4)},
	}
}

type image struct {
	name string
	x    *onnx.Array
}

// npuInt8 runs the net on x on the compiler's reference machine.
func npuInt8(t *testing.T, cfg npu.Config, net *lower.Net, x *onnx.Array) []int64 {
	t.Helper()
	g, err := net.Graph(x)
	if err != nil {
		t.Fatal(err)
	}
	p, err := compiler.Compile(cfg, g)
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := compiler.Interpret(p)
	if err != nil {
		t.Fatal(err)
	}
	return got[net.Output()].Data
}

// shifts is the test image and its shifts by one and two pixels in the
// four directions (frontend/lower's calibration set).
func shifts(x *onnx.Array) []*onnx.Array {
	set := []*onnx.Array{x}
	for _, d := range []int{1, 2} {
		set = append(set, shifted(x, d, 0), shifted(x, -d, 0), shifted(x, 0, d), shifted(x, 0, -d))
	}
	return set
}

// THE check: ONNX Runtime runs the exported mnist-7 and its integer
// logits equal the NPU's (the compiler's reference machine) bit for bit
// on every image, and its float logits equal Net.Dequantize's: with an
// int8 output for two calibrations (two sets of scales and multipliers),
// with rounding half to even, and with the int32 output hwgen run and
// hwgen quantize take by default.
func TestORTMnist(t *testing.T) {
	node := needORT(t)
	alone := func(x *onnx.Array) []*onnx.Array { return []*onnx.Array{x} }
	for _, tc := range []struct {
		name  string
		calib func(x *onnx.Array) []*onnx.Array
		opts  []lower.Option
	}{
		{"int8 output, calibrated on the test image", alone, nil},
		{"int8 output, calibrated on the test image and its shifts", shifts, nil},
		{"int8 output, half-even rounding", shifts, []lower.Option{lower.WithRounding(golden.HalfEven)}},
		{"int32 output", alone, []lower.Option{lower.Int32Output()}},
	} {
		t.Run(tc.name, func(t *testing.T) { checkMnist(t, node, tc.calib, tc.opts) })
	}
}

func checkMnist(t *testing.T, node string, calib func(x *onnx.Array) []*onnx.Array, opts []lower.Option) {
	cfg := npu.DefaultConfig()
	net, x := mnistCalibrated(t, cfg, calib, opts...)
	m, err := Net(net, cfg)
	if err != nil {
		t.Fatal(err)
	}
	images := mnistImages(x)
	var inputs []npyArray
	for _, img := range images {
		inputs = append(inputs, float32NPY(img.x.Shape, img.x.Data))
	}
	res := runORT(t, node, m, inputs)
	out := net.Output()
	for i, img := range images {
		name := img.name
		want := npuInt8(t, cfg, net, img.x)
		got := res[i][RawOutput(net)]
		if typ := map[bool]string{false: "int8", true: "int32"}[net.Int32Output()]; got.Type != typ {
			t.Fatalf("%s: %s is %s, want %s", name, RawOutput(net), got.Type, typ)
		}
		if d := cmp.Diff(want, ints(got.Data)); d != "" {
			t.Errorf("%s: integer logits (-NPU +ONNX Runtime):\n%s", name, d)
			continue
		}
		deq, err := net.Dequantize(&golden.Tensor{Shape: net.OutputShape(), Data: want})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(bits32(deq.Data), bits32(floats32(res[i][out].Data))); d != "" {
			t.Errorf("%s: float logits' bits (-Net.Dequantize +ONNX Runtime):\n%s", name, d)
		}
		t.Logf("%-18s logits %v: identical", name, want)
	}
}

func floats32(v []float64) []float32 {
	r := make([]float32, len(v))
	for i, x := range v {
		r[i] = float32(x) // JSON carried the float32 exactly
	}
	return r
}

func bits32(v []float32) []uint32 {
	r := make([]uint32, len(v))
	for i, x := range v {
		r[i] = math.Float32bits(x)
	}
	return r
}

func ints(v []float64) []int64 {
	r := make([]int64, len(v))
	for i, x := range v {
		r[i] = int64(x)
	}
	return r
}
