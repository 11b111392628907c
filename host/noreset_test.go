package host

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/verify"
)

// Without datapath reset, every op still equals the golden model when the
// unreset registers power up random: no result reads one before it is
// written. One workload also agrees with Verilator (both start at zero).
func TestNoDatapathReset(t *testing.T) {
	cfg := small()
	cfg.NoDatapathReset = true
	pad := func(v int) *int { return &v }
	for i, w := range []compiler.Workload{
		{Op: "gemm", M: 9, K: 6, N: 5},
		{Op: "conv2d", C: 5, H: 6, W: 5, Cout: 3, Kernel: 3, Stride: 2, Pad: pad(1)},
		{Op: "transpose", M: 6, N: 7},
		{Op: "pool", C: 3, H: 6, W: 6, Kernel: 3, Stride: 2, Pad: pad(1), Pool: "avg"},
		{Op: "pool", C: 3, H: 5, W: 7, Kernel: 3, Stride: 1, Pad: pad(1), Pool: "max"},
		{Op: "eltwise", C: 3, H: 3, W: 4, Fn: "mul"},
		{Op: "net", C: 2, H: 6, W: 6, Cout: 4, N: 3},
	} {
		t.Run(w.Op, func(t *testing.T) {
			w = w.WithDefaults()
			g, err := w.Graph(w.RandomInputs(nil))
			if err != nil {
				t.Fatal(err)
			}
			want, err := g.Reference(cfg)
			if err != nil {
				t.Fatal(err)
			}
			p, err := compiler.Compile(cfg, g)
			if err != nil {
				t.Fatal(err)
			}
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
