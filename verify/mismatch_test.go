package verify_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/hwgen/hwgen/examples"
	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/sim"
	"github.com/hwgen/hwgen/stim"
	"github.com/hwgen/hwgen/verify"
)

// breakFirst returns a simulator constructor that turns the first node
// with operator from into operator to before simulating, as if the Go
// simulator had a bug in that operator. The Verilator side still runs the
// correct Verilog.
func breakFirst(from, to hdl.Op) func(*hdl.Design) (*sim.Sim, error) {
	broken := false
	return func(d *hdl.Design) (*sim.Sim, error) {
		if broken { // the waveform rerun gets the same broken netlist
			return sim.New(d)
		}
		var seen = map[*hdl.Expr]bool{}
		var find func(x *hdl.Expr) bool
		find = func(x *hdl.Expr) bool {
			if x == nil || seen[x] {
				return false
			}
			seen[x] = true
			if x.Op == from {
				x.Op = to
				return true
			}
			for _, a := range x.Args {
				if find(a) {
					return true
				}
			}
			return false
		}
		for _, m := range d.Modules {
			for _, s := range m.Signals {
				if find(s.Driver) || find(s.Next) {
					broken = true
					return sim.New(d)
				}
			}
		}
		return nil, errors.New("no operator to break")
	}
}

func TestHarnessCatchesBrokenOperator(t *testing.T) {
	tooltest.Need(t, "verilator")
	ex, _ := examples.Lookup("mac")
	d, err := hdl.Elaborate(ex.Build())
	if err != nil {
		t.Fatal(err)
	}
	st, err := stim.Generate(d, 20, func(c int, in *stim.Drive) {
		in.Set("rst", map[bool]int64{true: 1}[c < 2])
		in.Set("a", 3)
		in.Set("b", -2)
		in.Set("en", 1)
	})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	_, err = verify.CrossCheck(d, st, verify.Options{Dir: dir, NewSim: breakFirst(hdl.OpAdd, hdl.OpSub)})
	var mm *verify.Mismatch
	if !errors.As(err, &mm) {
		t.Fatalf("want a *Mismatch, got %v", err)
	}
	// Reset holds acc at 0 for cycles 0..2; the first accumulate commits at
	// the edge of cycle 2, so cycle 3 is the first where y differs:
	// Verilator 0 + 3*-2 = -6, the broken simulator 0 - (-6) = 6.
	if mm.Cycle != 3 || mm.Port != "y" || mm.Verilator != "fffffffa" || mm.Go != "00000006" {
		t.Errorf("mismatch = %+v, want cycle 3, port y, verilator fffffffa, go 00000006", mm)
	}
	for _, vcd := range []string{mm.GoVCD, mm.VerilatorVCD} {
		data, err := os.ReadFile(vcd)
		if err != nil || !strings.Contains(string(data), "$enddefinitions") {
			t.Errorf("waveform %s missing or not a VCD: %v", vcd, err)
		}
	}
	for _, want := range []string{"cycle 3", "output y", "0x00000006", "0xfffffffa"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("report %q lacks %q", err, want)
		}
	}
}

func TestStimulusErrorsNameThePort(t *testing.T) {
	ex, _ := examples.Lookup("mac")
	d := hdl.MustElaborate(ex.Build())
	cases := []struct {
		name string
		set  func(*stim.Drive)
		want string
	}{
		{"unknown port", func(in *stim.Drive) { in.Set("nope", 1) }, `no input port "nope"`},
		{"too wide", func(in *stim.Drive) { in.Set("a", 300) }, "value 300 does not fit port a of type SInt(8)"},
		{"too wide flag", func(in *stim.Drive) { in.Set("en", 2) }, "value 2 does not fit port en of type UInt(1)"},
	}
	for _, tc := range cases {
		_, err := stim.Generate(d, 3, func(c int, in *stim.Drive) {
			if c == 1 {
				tc.set(in)
			}
		})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "cycle 1") {
			t.Errorf("%s: error %v, want it to mention %q and cycle 1", tc.name, err, tc.want)
		}
	}
}
