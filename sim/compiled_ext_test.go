package sim_test

import (
	"os"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/sim"
	"github.com/hwgen/hwgen/verify"
)

// The compiled simulator agrees with the interpreter, cycle by cycle, on
// the random netlists of the fuzzer (every operator, widths 1..200,
// registers, memories, hierarchy); the interpreter is cross-checked with
// Verilator on the same netlists. HWGEN_COMPILED_SEEDS sets how many
// (default 12; each design costs a go build of about a second).
func TestCompiledAgreesOnRandomNetlists(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a plugin per design")
	}
	n := 12
	if v, err := strconv.Atoi(os.Getenv("HWGEN_COMPILED_SEEDS")); err == nil {
		n = v
	}
	compiled := func(d *hdl.Design) (*sim.Sim, error) {
		return sim.NewWith(d, sim.Options{Compiled: true})
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		d, err := hdl.Elaborate(verify.RandomDesign(seed, verify.FuzzOptions{}))
		if err != nil {
			t.Fatal(err)
		}
		st := verify.Random(d, 300, seed)
		want, err := verify.RunGo(d, st, sim.New, "")
		if err != nil {
			t.Fatal(err)
		}
		got, err := verify.RunGo(d, st, compiled, "")
		if err != nil {
			t.Fatal(err)
		}
		for c := range want {
			if diff := cmp.Diff(want[c], got[c]); diff != "" {
				t.Fatalf("seed %d, cycle %d: outputs differ (-interpreter +compiled):\n%s", seed, c, diff)
			}
		}
	}
}
