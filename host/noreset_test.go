package host

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/verify"
)

// Without datapath reset, every op still equals the golden model when the
// unreset registers power up random: no result reads one before it is
// written. The net also agrees with Verilator (both start at zero).
func TestNoDatapathReset(t *testing.T) {
	cfg := small()
	cfg.NoDatapathReset = true
	for i, w := range everyOp() {
		t.Run(w.Op, func(t *testing.T) {
			want, p := compileWorkload(t, cfg, w)
			res, err := Run(cfg, p, WithPowerOn(uint64(i+1)))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, res.Outputs); d != "" {
				t.Fatalf("random power-on (-golden +simulator):\n%s", d)
			}
			if w.Op != "net" {
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
