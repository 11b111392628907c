package bench

import (
	"io"
	"strings"
	"testing"

	"github.com/hwgen/hwgen/examples"
	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/tooltest"
)

// The three simulators must agree on the same in-process stimulus; Run
// fails when they do not, so a short run is a real three-way check.
func TestThreeSimulatorsAgree(t *testing.T) {
	tooltest.Need(t, "verilator")
	tooltest.Need(t, "iverilog")
	ex, _ := examples.Lookup("array4")
	d := hdl.MustElaborate(ex.Build())
	cfg := Config{GoCycles: 500, VerilatorCycles: 2000, IcarusCycles: 300, FirstResult: 1000, Repeats: 1}
	row, err := Run("array4", d, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if row.GoRate <= 0 || row.VerilatorRate <= 0 || row.IcarusRate <= 0 || row.VerilatorBuild <= 0 {
		t.Errorf("missing measurements: %+v", row)
	}
	table := Markdown([]Row{row}, cfg)
	if !strings.Contains(table, "| array4 | ") {
		t.Errorf("table lacks the array4 row:\n%s", table)
	}
}

// The Go side of the stimulus matches the xorshift64 reference values.
func TestXorshiftSequence(t *testing.T) {
	x := xorshift(1)
	got := []uint64{x.next(), x.next(), x.next()}
	want := []uint64{1082269761, 1152992998833853505, 11177516664432764457}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("xorshift64 sequence %v, want %v", got, want)
		}
	}
}

func TestWideInputsRejected(t *testing.T) {
	d := hdl.MustElaborate(examples.Ops([]int{65}))
	if _, _, err := stimulusPorts(d); err == nil || !strings.Contains(err.Error(), "65 bits") {
		t.Errorf("error = %v, want a message about the 65-bit input", err)
	}
}
