package verify_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/verify"
)

// A coverage tally survives JSON: the table it prints and every count.
func TestCoverageJSONRoundTrip(t *testing.T) {
	cov := verify.NewCoverage()
	for seed := uint64(1); seed <= 3; seed++ {
		d, err := hdl.Elaborate(verify.RandomDesign(seed, verify.FuzzOptions{}))
		if err != nil {
			t.Fatal(err)
		}
		cov.AddDesign(d)
	}
	cov.Designs, cov.Cycles = 3, 300
	cov.Constructs["instance"] = 4
	cov.Avoided[verify.WideMaskedWrite] = 2
	b, err := json.Marshal(cov)
	if err != nil {
		t.Fatal(err)
	}
	var back verify.Coverage
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(cov, &back); diff != "" {
		t.Errorf("coverage after a JSON round trip (-want +got):\n%s", diff)
	}
	if again, _ := json.Marshal(&back); string(again) != string(b) {
		t.Errorf("marshalling twice differs:\n%s\n%s", b, again)
	}
	if len(cov.Ops) == 0 {
		t.Fatal("no op cells tallied: the test checks nothing")
	}
	if err := json.Unmarshal([]byte(`{"ops":[{"op":"frob","class":"1","n":1}]}`), &back); err == nil {
		t.Error("an unknown operator unmarshalled without an error")
	}
}

// Checking a campaign's designs one by one (as its shards do) tallies what
// the campaign does.
func TestFuzzOneAddsUpToRun(t *testing.T) {
	tooltest.Need(t, "verilator")
	camp := verify.FuzzCampaign{Seed: 5, Count: 3, Cycles: 1, LintOnly: true}
	whole, err := camp.Run()
	if err != nil {
		t.Fatal(err)
	}
	sum := verify.NewCoverage()
	for i := 0; i < camp.Count; i++ {
		cov, res, err := camp.One(i)
		if err != nil {
			t.Fatal(err)
		}
		if res != nil || cov.Designs != 1 {
			t.Errorf("One(%d) lint only: result %v, %d designs; want nil and 1", i, res, cov.Designs)
		}
		sum.Merge(cov)
	}
	if diff := cmp.Diff(whole.String(), sum.String()); diff != "" {
		t.Errorf("Run vs One summed (-run +one):\n%s", diff)
	}
}
