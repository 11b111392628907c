package lower

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/golden"
)

// The lowering's dispatch has a lowering for every op onnx.OpTable marks
// NPU and for no other op, and Ops lists them in table order.
func TestLoweringsMatchTable(t *testing.T) {
	var have []string
	for op := range lowerings {
		have = append(have, op)
	}
	slices.Sort(have)
	want := onnx.OpNames(func(o onnx.Op) bool { return o.NPU })
	if d := cmp.Diff(want, Ops); d != "" {
		t.Errorf("Ops (-table +Ops):\n%s", d)
	}
	slices.Sort(want)
	if d := cmp.Diff(want, have); d != "" {
		t.Errorf("lowerings (-table NPU ops +lowered):\n%s", d)
	}
	for _, op := range have {
		if !slices.Contains(onnx.FloatOps, op) {
			t.Errorf("%s is lowered but the float executor, which calibrates it, does not run it", op)
		}
	}
}

// Every unary elementwise op of the table names a golden function that
// is unary, so the lowering computes what the op means.
func TestUnaryEltwiseOps(t *testing.T) {
	n := 0
	for _, o := range onnx.OpTable {
		if o.Eltwise == "" {
			continue
		}
		n++
		fn, err := golden.ParseEltOp(o.Eltwise)
		if err != nil || !fn.Unary() {
			t.Errorf("%s: Eltwise %q is not a unary golden function (%v)", o.Name, o.Eltwise, err)
		}
		if got, ok := unaryEltwise(o.Name); !ok || got != fn {
			t.Errorf("%s: unaryEltwise = %v, %v", o.Name, got, ok)
		}
	}
	if n == 0 {
		t.Error("no unary elementwise op in the table")
	}
	if _, ok := unaryEltwise("Relu"); ok {
		t.Error("Relu taken for a unary elementwise op")
	}
}
