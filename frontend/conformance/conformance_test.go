package conformance

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/host"
	"github.com/hwgen/hwgen/internal/tooltest"
)

// needData skips (fails in CI) when Debian's libonnx-testdata is absent.
func needData(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(DefaultDir); err != nil {
		tooltest.Skip(t, tooltest.MissingTool, "the ONNX node tests are not installed (apt-get install libonnx-testdata): "+err.Error())
	}
}

// TestIntegerOpsExact: every official test of the integer ops passes
// exactly on the reference machine (the host conversions exactly on
// the host).
func TestIntegerOpsExact(t *testing.T) {
	needData(t)
	dirs, err := Find(DefaultDir)
	if err != nil {
		t.Fatal(err)
	}
	got, want := map[string]Status{}, map[string]Status{}
	for _, r := range RunAll(dirs, func(c *Case) Result { return Run(c, npu.DefaultConfig(), Interp) }) {
		switch r.Op {
		case "ConvInteger", "MatMulInteger", "QLinearConv", "QLinearMatMul":
			got[r.Name], want[r.Name] = r.Status, Pass
		case "QuantizeLinear", "DequantizeLinear":
			got[r.Name], want[r.Name] = r.Status, Host
		}
		if r.Status == Fail {
			t.Errorf("%s: %s", r.Name, r.Detail)
		}
	}
	if len(want) < 10 {
		t.Errorf("found %d integer-op tests, want at least the 10 of ONNX 1.12", len(want))
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("integer op tests (-want +got):\n%s", d)
	}
}

// TestOnTheSimulator runs the NPU tests of the integer ops and one of
// each other mapped op kind on the Go simulator of the NPU.
func TestOnTheSimulator(t *testing.T) {
	needData(t)
	sim := func(p *compiler.Program) (map[string]*golden.Tensor, error) {
		res, err := host.Run(p.Config, p)
		if err != nil {
			return nil, err
		}
		return res.Outputs, nil
	}
	for _, name := range []string{"test_convinteger_with_padding", "test_matmulinteger", "test_qlinearconv",
		"test_qlinearmatmul_3D", "test_maxpool_2d_uint8", "test_add_uint8", "test_clip_default_int8_min",
		"test_conv_with_strides_padding"} {
		c, err := Load(filepath.Join(DefaultDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if r := Run(c, npu.DefaultConfig(), sim); r.Status != Pass {
			t.Errorf("%s on the Go simulator: %s: %s", name, r.Status, r.Detail)
		}
	}
}

// TestUnsupportedSaysWhy: every test the NPU does not run names a
// reason, and no float test with non-integer data is counted as run.
func TestUnsupportedSaysWhy(t *testing.T) {
	needData(t)
	c, err := Load(filepath.Join(DefaultDir, "test_relu"))
	if err != nil {
		t.Fatal(err)
	}
	r := Run(c, npu.DefaultConfig(), Interp)
	if r.Status != Unsupported || !strings.Contains(r.Detail, "is not an integer") {
		t.Errorf("test_relu: %s: %s; want unsupported, data not integers", r.Status, r.Detail)
	}
}

// TestReductionsAndMin: the official tests of ReduceSum, ReduceMean,
// Sqrt, Reciprocal and Min with integer data the NPU maps pass exactly
// on the reference machine, and none of them fails.
func TestReductionsAndMin(t *testing.T) {
	needData(t)
	dirs, err := Find(DefaultDir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Status{
		"test_reduce_sum_keepdims_example": Pass, "test_reduce_sum_do_not_keepdims_example": Pass,
		"test_reduce_sum_negative_axes_keepdims_example": Pass, "test_sqrt_example": Pass,
		"test_min_two_inputs": Pass, "test_min_int8": Pass, "test_min_example": Unsupported,
		"test_reduce_sum_default_axes_keepdims_example": Unsupported, "test_reduce_mean_keepdims_example": Unsupported,
	}
	got := map[string]Status{}
	for _, r := range RunAll(dirs, func(c *Case) Result { return Run(c, npu.DefaultConfig(), Interp) }) {
		switch r.Op {
		case "ReduceSum", "ReduceMean", "Sqrt", "Reciprocal", "Min":
		default:
			continue
		}
		if r.Status == Fail {
			t.Errorf("%s: %s", r.Name, r.Detail)
		}
		if _, ok := want[r.Name]; ok {
			got[r.Name] = r.Status
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestReduceMaxAndMax: the official tests of ReduceMax and Max with
// integer data the NPU maps pass exactly on the reference machine (a
// planar rowmax, an eltwise max), none of them fails, and the others
// say why not.
func TestReduceMaxAndMax(t *testing.T) {
	needData(t)
	dirs, err := Find(DefaultDir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Status{
		"test_reduce_max_keepdims_example": Pass, "test_reduce_max_do_not_keepdims_example": Pass,
		"test_reduce_max_negative_axes_keepdims_example": Pass, "test_reduce_max_default_axes_keepdim_example": Unsupported,
		"test_reduce_max_keepdims_random": Unsupported,
		"test_max_two_inputs":             Pass, "test_max_int8": Pass, "test_max_uint8": Pass, "test_max_int32": Pass,
		"test_max_int64": Pass, "test_max_float32": Pass, "test_max_example": Unsupported, "test_max_one_input": Unsupported,
	}
	got := map[string]Status{}
	for _, r := range RunAll(dirs, func(c *Case) Result { return Run(c, npu.DefaultConfig(), Interp) }) {
		if r.Op != "ReduceMax" && r.Op != "Max" {
			continue
		}
		if r.Status == Fail {
			t.Errorf("%s: %s", r.Name, r.Detail)
		}
		if _, ok := want[r.Name]; ok {
			got[r.Name] = r.Status
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// The official GlobalMaxPool tests declare opset 1, below what the
// reader loads (7), so Find skips them; the mapper is checked on
// test_globalmaxpool_precomputed's data in an opset-13 model, and on a
// plane wider than max_kernel, which it cannot pool.
func TestGlobalMaxPoolMapped(t *testing.T) {
	tests := []struct {
		name    string
		h, w    int64
		status  Status
		contain string
	}{
		{"precomputed 3x3", 3, 3, Pass, "max pooling of the whole plane; elem_width 8; 1 elements exact"},
		{"10x10", 10, 10, Unsupported, "window 10x10 exceeds max_kernel = 8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := onnxtest.New(13).Input("x", 1, 1, tt.h, tt.w).Output("y").
				Node("p", "GlobalMaxPool", []string{"x"}, "y").Bytes()
			if err != nil {
				t.Fatal(err)
			}
			m, err := onnx.Load(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			x := &onnx.Tensor{DType: onnx.Float32, Dims: []int64{1, 1, tt.h, tt.w}}
			for i := range tt.h * tt.w {
				x.Float32 = append(x.Float32, float32(i+1))
			}
			y := &onnx.Tensor{DType: onnx.Float32, Dims: []int64{1, 1, 1, 1}, Float32: []float32{float32(tt.h * tt.w)}}
			c := &Case{Name: "globalmaxpool " + tt.name, Op: "GlobalMaxPool", Model: m, Inputs: []*onnx.Tensor{x}, Outputs: []*onnx.Tensor{y}}
			r := Run(c, npu.DefaultConfig(), Interp)
			if r.Status != tt.status || !strings.Contains(r.Detail, tt.contain) {
				t.Errorf("%s: %s; want %s, containing %q", r.Status, r.Detail, tt.status, tt.contain)
			}
		})
	}
}

// The runner's mappers are those of the ops onnx.OpTable marks
// Conformance, and Ops lists those ops in table order.
func TestMappersMatchTable(t *testing.T) {
	var have []string
	for op := range mappers {
		have = append(have, op)
	}
	slices.Sort(have)
	want := onnx.OpNames(func(o onnx.Op) bool { return o.Conformance })
	if d := cmp.Diff(want, Ops); d != "" {
		t.Errorf("Ops (-table +Ops):\n%s", d)
	}
	slices.Sort(want)
	if d := cmp.Diff(want, have); d != "" {
		t.Errorf("mappers (-table Conformance ops +mapped):\n%s", d)
	}
}

// The unary elementwise ops map onto the planar engine's eltwise
// functions: integer data (−128 among it, whose magnitude needs a 9-bit
// element) passes exactly on the reference machine and on the Go
// simulator; the official test_abs, of random float data, is
// unsupported and says why.
func TestUnaryMapped(t *testing.T) {
	sim := func(p *compiler.Program) (map[string]*golden.Tensor, error) {
		res, err := host.Run(p.Config, p)
		if err != nil {
			return nil, err
		}
		return res.Outputs, nil
	}
	for _, op := range []struct {
		name, fn string
		f        func(float32) float32
	}{
		{"Abs", "abs", func(v float32) float32 { return float32(math.Abs(float64(v))) }},
		{"Neg", "neg", func(v float32) float32 { return -v }},
	} {
		data, err := onnxtest.New(13).Input("x", 2, 3).Output("y").Node("a", op.name, []string{"x"}, "y").Bytes()
		if err != nil {
			t.Fatal(err)
		}
		m, err := onnx.Load(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		tests := []struct {
			name   string
			x      []float32
			engine Engine
			want   string
		}{
			{"int8 range, reference machine", []float32{-3, 0, 5, -128, 127, -1}, Interp, "planar eltwise " + op.fn + "; elem_width 9; 6 elements exact"},
			{"int8 range, Go simulator", []float32{-3, 0, 5, -128, 127, -1}, sim, "planar eltwise " + op.fn + "; elem_width 9; 6 elements exact"},
			{"small values, Go simulator", []float32{-3, 0, 5, -7, 2, -1}, sim, "planar eltwise " + op.fn + "; elem_width 8; 6 elements exact"},
		}
		for _, tt := range tests {
			t.Run(op.name+" "+tt.name, func(t *testing.T) {
				y := make([]float32, len(tt.x))
				for i, v := range tt.x {
					y[i] = op.f(v)
				}
				c := &Case{Name: op.fn + " " + tt.name, Op: op.name, Model: m,
					Inputs:  []*onnx.Tensor{{DType: onnx.Float32, Dims: []int64{2, 3}, Float32: tt.x}},
					Outputs: []*onnx.Tensor{{DType: onnx.Float32, Dims: []int64{2, 3}, Float32: y}}}
				r := Run(c, npu.DefaultConfig(), tt.engine)
				if d := cmp.Diff(Result{Name: c.Name, Op: op.name, Status: Pass, Detail: tt.want}, r); d != "" {
					t.Errorf("(-want +got):\n%s", d)
				}
			})
		}
	}
	t.Run("test_abs", func(t *testing.T) {
		needData(t)
		c, err := Load(filepath.Join(DefaultDir, "test_abs"))
		if err != nil {
			t.Fatal(err)
		}
		if r := Run(c, npu.DefaultConfig(), Interp); r.Status != Unsupported || !strings.Contains(r.Detail, "is not an integer") {
			t.Errorf("%s: %s; want unsupported, data not integers", r.Status, r.Detail)
		}
	})
}
