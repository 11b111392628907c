package lower

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/isa/planar"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/isa"
)

// TestRoundingReachesTheHardware: WithRounding sets the round_even bit of
// every requantizing planar task of mnist-7's program, and only then.
func TestRoundingReachesTheHardware(t *testing.T) {
	m, err := onnx.LoadFile(mnistModel)
	if err != nil {
		t.Fatal(err)
	}
	x := loadArray(t, mnistInput)
	cfg := npu.DefaultConfig()
	codec := cfg.Codec()
	for _, r := range []golden.Rounding{golden.HalfUp, golden.HalfEven} {
		net, err := Quantize(m, []*onnx.Array{x}, cfg, WithRounding(r))
		if err != nil {
			t.Fatal(err)
		}
		g, err := net.Graph(x)
		if err != nil {
			t.Fatal(err)
		}
		p, err := compiler.Compile(cfg, g)
		if err != nil {
			t.Fatal(err)
		}
		got := map[bool]int{}
		for _, task := range p.Tasks {
			d, err := codec.Decode(task.Desc)
			if err != nil {
				t.Fatal(err)
			}
			if pt, ok := d.(isa.PlanarTask); ok && pt.Task.Op == planar.OpAct && pt.Shift > 0 {
				got[pt.RoundEven]++
			}
		}
		want := map[bool]int{r == golden.HalfEven: got[true] + got[false]}
		if d := cmp.Diff(want, got); d != "" || len(got) == 0 {
			t.Errorf("%v: round_even of the shifting acts (-want +got):\n%s", r, d)
		}
	}
}
