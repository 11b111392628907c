package host

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/verify"
)

// The datapath variants: without datapath reset, and with the PEs'
// product register and the planar engine's deep pipeline as well. Every
// op still equals the golden model when the unreset registers (the new
// stages among them) power up random: no result reads one before it is
// written. The net of the second variant also agrees with Verilator
// (both start at zero); one build covers the RTL of all three options.
func TestDatapathVariants(t *testing.T) {
	variants := []struct {
		name      string
		mod       func(*npu.Config)
		verilator bool
	}{
		{"no_datapath_reset", func(c *npu.Config) { c.NoDatapathReset = true }, false},
		{"and_mul_stage_and_deep_pipeline", func(c *npu.Config) {
			c.NoDatapathReset, c.MulStage, c.PlanarDeepPipeline = true, true, true
		}, true},
	}
	for _, v := range variants {
		cfg := small()
		v.mod(&cfg)
		for i, w := range everyOp() {
			t.Run(v.name+"/"+w.Op, func(t *testing.T) {
				want, p := compileWorkload(t, cfg, w)
				res, err := Run(cfg, p, WithPowerOn(uint64(i+1)))
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(want, res.Outputs); d != "" {
					t.Fatalf("random power-on (-golden +simulator):\n%s", d)
				}
				if w.Op != "net" || !v.verilator {
					return
				}
				tooltest.Need(t, "verilator")
				res, err = Run(cfg, p)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := verify.CrossCheck(res.Design, res.Stimulus, verify.Options{Build: verify.BuildOptions{OptLevel: 1}}); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}
