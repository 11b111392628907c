package workload

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The shapes taken from tensors give back those tensors' shapes.
func TestShapesFrom(t *testing.T) {
	cases := []struct {
		op     string
		shapes map[string][]int
	}{
		{"gemm", map[string][]int{"a": {8, 16}, "b": {16, 4}}},
		{"transpose", map[string][]int{"a": {5, 7}}},
		{"conv2d", map[string][]int{"x": {3, 9, 10}, "w": {6, 3, 5, 5}}},
		{"pool", map[string][]int{"x": {2, 6, 8}}},
		{"eltwise", map[string][]int{"b": {4, 5, 6}}},
		{"net", map[string][]int{"x": {1, 8, 8}, "fc": {4 * 4 * 16, 7}}},
	}
	for _, tc := range cases {
		w := Workload{Op: tc.op}
		w.ShapesFrom(tc.shapes)
		got := w.WithDefaults().InputShapes()
		for name, want := range tc.shapes {
			if diff := cmp.Diff(want, got[name]); diff != "" {
				t.Errorf("%s %s (-want +got):\n%s", tc.op, name, diff)
			}
		}
	}
}

func TestCheckFields(t *testing.T) {
	pad := 1
	cases := []struct {
		w    Workload
		want string
	}{
		{Workload{Op: "gemm", M: 3, Relu: true, Shift: 4}, ""},
		{Workload{Op: "gemm", Fn: "add"}, "workload: fn = add does not apply to gemm (it takes m, k, n, shift, relu, zeros)"},
		{Workload{Op: "pool", Relu: true}, "workload: relu = true does not apply to pool (it takes c, h, w, kernel, stride, pad, pool, zeros)"},
		{Workload{Op: "eltwise", Shift: 3}, "workload: shift = 3 does not apply to eltwise (it takes c, h, w, fn, relu, zeros)"},
		{Workload{Op: "transpose", Pad: &pad}, "workload: pad = 1 does not apply to transpose (it takes m, n, zeros)"},
	}
	for _, tc := range cases {
		got := ""
		if err := tc.w.CheckFields(); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.w, got, tc.want)
		}
	}
}
