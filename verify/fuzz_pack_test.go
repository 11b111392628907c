package verify

import (
	"testing"

	"github.com/hwgen/hwgen/internal/tooltest"
)

// A mismatch in a pack names the design it belongs to, by port or by
// memory path; anything else names none.
func TestPackIndex(t *testing.T) {
	for _, tc := range []struct {
		where string
		n     int
		want  int
		ok    bool
	}{
		{"p0_o3", 4, 0, true},
		{"p12_out_x", 16, 12, true},
		{"memory fuzzpack7_4.d3.mem0[5]", 4, 3, true},
		{"memory fuzzpack7_4.d2.u1.mem0[0]", 4, 2, true},
		{"p9_o1", 4, 0, false}, // past the pack
		{"o1", 4, 0, false},
		{"memory fuzz7.mem0[1]", 4, 0, false},
	} {
		got, ok := packIndex(tc.where, tc.n)
		if got != tc.want || ok != tc.ok {
			t.Errorf("packIndex(%q, %d) = %d, %v; want %d, %v", tc.where, tc.n, got, ok, tc.want, tc.ok)
		}
	}
}

// A pack of random designs agrees with Verilator design by design. The
// seeds are the pack in which a Verilator build without --flatten
// disagreed with the Go simulator at cycle 1 (design 6000022's 166-bit
// compare of an output it reads back): packs keep --flatten.
func TestPackAgainstVerilator(t *testing.T) {
	tooltest.Need(t, "verilator")
	camp := FuzzCampaign{Seed: 6000022, Count: 3, Cycles: 300, Design: FuzzOptions{SubCircuits: 1}, Check: Options{Dir: t.TempDir()}}
	pr, err := camp.Pack(0, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(pr.Coverage) != 3 || pr.Result == nil {
		t.Fatalf("pack result: %d coverages, result %v", len(pr.Coverage), pr.Result)
	}
	total := 0
	for j, c := range pr.Coverage {
		if c.Designs != 1 || c.Cycles != 300 || c.Nodes == 0 || pr.Outputs[j] == 0 {
			t.Errorf("design %d: coverage %d designs, %d cycles, %d nodes, %d outputs", j, c.Designs, c.Cycles, c.Nodes, pr.Outputs[j])
		}
		total += pr.Outputs[j]
	}
	if total != pr.Result.Outputs {
		t.Errorf("the designs' outputs add up to %d, the pack has %d", total, pr.Result.Outputs)
	}
	t.Logf("3 designs, one build (%v, cached %v)", pr.Result.BuildTime, pr.Result.Cached)
}
