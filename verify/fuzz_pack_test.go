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
// seeds are the two packs that Verilator 5.006 got wrong without
// --flatten: 6000022.. disagreed with the Go simulator (and with
// Verilator's own flattened model) at cycle 1, design 6000022's 166-bit
// compare of an output it reads back; 5000052 did not compile (a memory
// write's delayed value declared as a byte and indexed as an array, in
// its child module). Packs keep --flatten.
func TestPackAgainstVerilator(t *testing.T) {
	tooltest.Need(t, "verilator")
	small := FuzzOptions{SubCircuits: 1}
	one := FuzzCampaign{Seed: 5000052, Count: 1, Cycles: 300, Design: small, Check: Options{Dir: t.TempDir()}}
	if _, err := one.Pack(0, 1); err != nil {
		t.Fatal(err)
	}
	camp := FuzzCampaign{Seed: 6000022, Count: 3, Cycles: 300, Design: small, Check: Options{Dir: t.TempDir()}}
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
