package lower

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/frontend/onnx"
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
