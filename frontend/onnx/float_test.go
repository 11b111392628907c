package onnx

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// loadArray reads a test_data_set file as an Array.
func loadArray(t *testing.T, path string) *Array {
	t.Helper()
	x, err := LoadTensorFile(path)
	if err != nil {
		t.Fatal(err)
	}
	a, err := ArrayOf(x)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// The float executor reproduces the Model Zoo's reference output of
// mnist-7 on its test input.
func TestMnistFloat(t *testing.T) {
	m := loadMnist(t)
	in := loadArray(t, "testdata/test_data_set_0/input_0.pb")
	want := loadArray(t, "testdata/test_data_set_0/output_0.pb")
	out, err := m.Graph.Run(map[string]*Array{"Input3": in})
	if err != nil {
		t.Fatal(err)
	}
	got := out["Plus214_Output_0"]
	if d := cmp.Diff(want.Shape, got.Shape); d != "" {
		t.Fatalf("shape (-want +got):\n%s", d)
	}
	// The reference was computed in float32 by another framework: allow a
	// few float32 rounding steps of the largest logit (2^-24 relative each).
	var worst, largest float64
	for i := range want.Data {
		worst = max(worst, math.Abs(float64(got.Data[i]-want.Data[i])))
		largest = max(largest, math.Abs(float64(want.Data[i])))
	}
	tol := 8 * largest / (1 << 24)
	t.Logf("max |float − reference| = %.3g (tolerance %.3g) over the logits %v", worst, tol, want.Data)
	if worst > tol {
		t.Errorf("max abs diff %g > %g:\n got %v\nwant %v", worst, tol, got.Data, want.Data)
	}
	if a := Argmax(got.Data); a != 2 {
		t.Errorf("argmax %d, want 2", a)
	}
}

func attrs(kv ...any) map[string]Attr {
	m := map[string]Attr{}
	for i := 0; i < len(kv); i += 2 {
		switch v := kv[i+1].(type) {
		case string:
			m[kv[i].(string)] = Attr{Kind: AttrString, String: v}
		case []int64:
			m[kv[i].(string)] = Attr{Kind: AttrInts, Ints: v}
		case int64:
			m[kv[i].(string)] = Attr{Kind: AttrInt, Int: v}
		}
	}
	return m
}

func TestWindowOf(t *testing.T) {
	tests := []struct {
		name    string
		attrs   map[string]Attr
		h, w    int
		kh, kw  int
		want    Window
		oh, ow  int
		wantErr bool
	}{
		{"same upper 5x5", attrs("auto_pad", "SAME_UPPER"), 28, 28, 5, 5, Window{5, 5, 1, 1, 2, 2, 2, 2}, 28, 28, false},
		{"same upper even", attrs("auto_pad", "SAME_UPPER", "strides", []int64{2, 2}), 7, 8, 2, 2, Window{2, 2, 2, 2, 0, 0, 1, 0}, 4, 4, false},
		{"same lower even", attrs("auto_pad", "SAME_LOWER", "strides", []int64{2, 2}), 7, 8, 2, 2, Window{2, 2, 2, 2, 1, 0, 0, 0}, 4, 4, false},
		{"same lower 4x4", attrs("auto_pad", "SAME_LOWER"), 6, 6, 4, 4, Window{4, 4, 1, 1, 2, 2, 1, 1}, 6, 6, false},
		{"valid", attrs("auto_pad", "VALID"), 28, 28, 5, 5, Window{5, 5, 1, 1, 0, 0, 0, 0}, 24, 24, false},
		{"explicit pads", attrs("pads", []int64{1, 2, 3, 4}, "strides", []int64{1, 2}), 5, 5, 3, 3, Window{3, 3, 1, 2, 1, 2, 3, 4}, 7, 5, false},
		{"pool kernel_shape", attrs("kernel_shape", []int64{3, 3}, "strides", []int64{3, 3}), 14, 14, 0, 0, Window{3, 3, 3, 3, 0, 0, 0, 0}, 4, 4, false},
		{"no kernel", attrs(), 4, 4, 0, 0, Window{}, 0, 0, true},
		{"kernel mismatch", attrs("kernel_shape", []int64{3, 3}), 4, 4, 5, 5, Window{}, 0, 0, true},
		{"dilation", attrs("dilations", []int64{2, 2}), 4, 4, 3, 3, Window{}, 0, 0, true},
		{"ceil mode", attrs("ceil_mode", int64(1)), 4, 4, 3, 3, Window{}, 0, 0, true},
		{"unknown auto_pad", attrs("auto_pad", "SAME"), 4, 4, 3, 3, Window{}, 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := WindowOf(&Node{Attrs: tt.attrs}, tt.h, tt.w, tt.kh, tt.kw)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("window (-want +got):\n%s", d)
			}
			oh, ow := got.Out(tt.h, tt.w)
			if oh != tt.oh || ow != tt.ow {
				t.Errorf("out %dx%d, want %dx%d", oh, ow, tt.oh, tt.ow)
			}
		})
	}
}

func TestReshapeDims(t *testing.T) {
	tests := []struct {
		in      []int
		shape   []int64
		want    []int
		wantErr bool
	}{
		{[]int{16, 4, 4, 10}, []int64{256, 10}, []int{256, 10}, false},
		{[]int{1, 16, 4, 4}, []int64{1, -1}, []int{1, 256}, false},
		{[]int{1, 16, 4, 4}, []int64{0, -1}, []int{1, 256}, false},
		{[]int{2, 3}, []int64{0, 0}, []int{2, 3}, false},
		{[]int{2, 3}, []int64{4, -1}, nil, true},
		{[]int{2, 3}, []int64{-1, -1}, nil, true},
		{[]int{2, 3}, []int64{7}, nil, true},
	}
	for _, tt := range tests {
		got, err := ReshapeDims(tt.in, tt.shape)
		if (err != nil) != tt.wantErr {
			t.Errorf("ReshapeDims(%v, %v): err = %v, want error %v", tt.in, tt.shape, err, tt.wantErr)
			continue
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("ReshapeDims(%v, %v) (-want +got):\n%s", tt.in, tt.shape, d)
		}
	}
}

// Small hand-computed cases of the float ops.
func TestFloatOps(t *testing.T) {
	arr := func(shape []int, v ...float32) *Array { return &Array{Shape: shape, Data: v} }
	x := arr([]int{1, 1, 3, 3}, 1, 2, 3, 4, 5, 6, 7, 8, 9)
	tests := []struct {
		name string
		run  func() (*Array, error)
		want *Array
	}{
		{"add bias [C,1,1]", func() (*Array, error) {
			return add(arr([]int{1, 2, 1, 2}, 1, 2, 3, 4), arr([]int{2, 1, 1}, 10, 20))
		}, arr([]int{1, 2, 1, 2}, 11, 12, 23, 24)},
		{"add row", func() (*Array, error) { return add(arr([]int{2, 2}, 1, 2, 3, 4), arr([]int{1, 2}, 10, 20)) },
			arr([]int{2, 2}, 11, 22, 13, 24)},
		{"matmul", func() (*Array, error) { return matMul(arr([]int{1, 2}, 1, 2), arr([]int{2, 2}, 1, 2, 3, 4)) },
			arr([]int{1, 2}, 7, 10)},
		{"conv same", func() (*Array, error) {
			n := &Node{Attrs: attrs("auto_pad", "SAME_UPPER")}
			return conv(x, arr([]int{1, 1, 3, 3}, 0, 0, 0, 0, 1, 1, 0, 0, 0), arr([]int{1}, 100), n)
		}, arr([]int{1, 1, 3, 3}, 103, 105, 103, 109, 111, 106, 115, 117, 109)},
		{"maxpool pads ignored", func() (*Array, error) {
			n := &Node{Attrs: attrs("kernel_shape", []int64{2, 2}, "strides", []int64{2, 2}, "pads", []int64{1, 1, 0, 0})}
			return maxPool(arr([]int{1, 1, 2, 2}, -1, -2, -3, -4), n)
		}, arr([]int{1, 1, 1, 1}, -1)},
		{"flatten", func() (*Array, error) { return flatten(x, 1) }, arr([]int{1, 9}, 1, 2, 3, 4, 5, 6, 7, 8, 9)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.run()
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
