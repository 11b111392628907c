package workload

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
)

// PickAccel keeps on the NE what the sparse engine cannot run (not a
// conv2d, several engines, requantized results, a conv it cannot map)
// and otherwise picks by the estimate: a very sparse input goes to the
// sparse engine, a dense one stays on the NE.
func TestPickAccel(t *testing.T) {
	pad := 1
	conv := func(zeros int) Workload {
		return Workload{Op: "conv2d", C: 16, H: 12, W: 12, Cout: 16, Zeros: zeros, Spread: "input"}
	}
	// What is compared: the choice, the reason up to its first colon
	// (the rest is the compiler's message), the sparse engine's shape,
	// whether an estimate was made and whether the sparse run came back.
	type pick struct {
		Sparse       bool
		Reason       string
		Units, Lanes int
		Estimated    bool
		Program      bool
	}
	single := "only a single-engine conv2d may go to the sparse engine"
	lanes := npu.DefaultConfig().SparseLanes
	for _, tc := range []struct {
		name string
		w    Workload
		run  AccelRun
		want pick
	}{
		{"gemm", Workload{Op: "gemm"}, AccelRun{}, pick{Reason: single}},
		{"pool", Workload{Op: "pool"}, AccelRun{}, pick{Reason: single}},
		{"engines", conv(95), AccelRun{Engines: 2}, pick{Reason: single}},
		{"one engine asked", conv(95), AccelRun{Engines: 1}, pick{Sparse: true, Units: DefaultSparseUnits, Lanes: lanes, Estimated: true, Program: true}},
		{"requant", conv(95), AccelRun{Requant: true}, pick{Reason: "--shift or --relu asks for requantized int8 results; the sparse engine gives the int32 sums"}},
		{"stride 3", Workload{Op: "conv2d", C: 4, H: 12, W: 12, Cout: 4, Stride: 3, Pad: &pad, Zeros: 95}, AccelRun{}, pick{Reason: "the conv does not map onto the sparse engine"}},
		{"sparse", conv(95), AccelRun{}, pick{Sparse: true, Units: DefaultSparseUnits, Lanes: lanes, Estimated: true, Program: true}},
		{"2 units too slow", conv(95), AccelRun{Units: 2}, pick{Units: 2, Lanes: lanes, Estimated: true}},
		{"dense", conv(0), AccelRun{}, pick{Units: DefaultSparseUnits, Lanes: lanes, Estimated: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := npu.DefaultConfig()
			w := tc.w.WithDefaults()
			if err := w.Validate(); err != nil {
				t.Fatal(err)
			}
			in := w.RandomInputsOf(cfg.ElemWidth, nil)
			g, err := w.Graph(in)
			if err != nil {
				t.Fatal(err)
			}
			dense, err := compiler.Compile(cfg, g)
			if err != nil {
				t.Fatal(err)
			}
			a, err := PickAccel(cfg, w, in, dense, tc.run)
			if err != nil {
				t.Fatal(err)
			}
			reason, _, _ := strings.Cut(a.Reason, ":")
			got := pick{Sparse: a.Sparse, Reason: reason, Units: a.Units, Lanes: a.Lanes, Estimated: a.Reason == "",
				Program: a.Program != nil && a.SparseProgram != nil && a.Config.SparseUnits == a.Units}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if a.Reason == "" {
				if a.Ideal != dense.Ideal || a.Sparse != (a.Estimate < a.Ideal) {
					t.Errorf("estimate %d, ideal %d (the NE program's: %d): sparse = %v", a.Estimate, a.Ideal, dense.Ideal, a.Sparse)
				}
				if want := "input density"; !strings.Contains(a.String(), want) {
					t.Errorf("%q does not say the %s", a, want)
				}
			}
		})
	}
}

// An NPU that cannot have the sparse engine asked for is an error.
func TestPickAccelConfigError(t *testing.T) {
	cfg := npu.DefaultConfig()
	w := Workload{Op: "conv2d"}.WithDefaults()
	in := w.RandomInputs(nil)
	_, err := PickAccel(cfg, w, in, &compiler.Program{}, AccelRun{Units: -1})
	_, want := SparseConfig(cfg, -1)
	if err == nil || want == nil || err.Error() != want.Error() {
		t.Errorf("err = %v, want SparseConfig's %v", err, want)
	}
}

// The choice reads as hwgen sim --accel auto prints it.
func TestAccelString(t *testing.T) {
	for _, tc := range []struct {
		a    Accel
		want string
	}{
		{Accel{Reason: "why"}, "npu (why)"},
		{Accel{Sparse: true, Density: 5.04, Estimate: 900, Ideal: 1000, Units: 4, Lanes: 16},
			"sparse (input density 5.0%: an estimated 900 cycles on the sparse engine, 4×16, below the NE's ideal 1000)"},
		{Accel{Density: 100, Estimate: 1000, Ideal: 1000, Units: 4, Lanes: 16},
			"npu (input density 100.0%: an estimated 1000 cycles on the sparse engine, 4×16, not below the NE's ideal 1000)"},
	} {
		if diff := cmp.Diff(tc.want, tc.a.String()); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	}
}
