package sim

import (
	"math/big"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/hdl"
)

func TestErrors(t *testing.T) {
	s := mustSim(t, counterWithChild())
	wide := mustSim(t, memDesign())
	tests := []struct {
		name string
		err  error
		want []string // substrings of the message
	}{
		{"unknown port", s.Poke("enable", 1), []string{`"enable"`, "no such input port", "en"}},
		{"too wide", s.Poke("en", 2), []string{`"en"`, "too wide", "UInt(1)"}},
		{"output is not pokeable", s.Poke("q", 1), []string{`"q"`, "not a top-level input"}},
		{"internal input is not pokeable", s.Poke("u_inc.x", 1), []string{`"u_inc.x"`, "not a top-level input"}},
		{"clk", s.Poke("clk", 1), []string{`"clk"`, "driven by Step"}},
		{"PokeBig too wide", wide.PokeBig("wd0", big.NewInt(1<<12)), []string{`"wd0"`, "too wide", "UInt(12)"}},
		{"PokeBig too negative", wide.PokeBig("wd0", big.NewInt(-(1<<11)-1)), []string{`"wd0"`, "too wide"}},
		{"PokeWords too wide", wide.PokeWords("wd0", []uint64{1 << 12}), []string{`"wd0"`, "too wide", "UInt(12)"}},
		{"PokeWords word count", wide.PokeWords("wd0", []uint64{1, 0}), []string{`"wd0"`, "2 words", "want 1"}},
		{"PokeWords unknown", s.PokeWords("enable", []uint64{1}), []string{`"enable"`, "no such input port"}},
		{"Peek unknown", peekErr(s, "cnt2"), []string{`"cnt2"`, "no signal", "cnt"}},
		{"Peek unknown in instance", peekErr(s, "u_inc.z"), []string{`"u_inc.z"`, "no signal", "x, y"}},
		{"Peek unknown instance", peekErr(s, "u_dec.x"), []string{`"u_dec.x"`, "no instance", "u_dec"}},
		{"MemRead unknown", memErr(wide, "mem2", 0), []string{`"mem2"`, "no such memory", "mem"}},
		{"MemRead out of range", memErr(wide, "mem", 5), []string{`"mem"`, "address 5", "0..4"}},
		{"MemWrite too wide", wide.MemWrite("mem", 0, big.NewInt(1<<12)), []string{`"mem"`, "too wide"}},
	}
	for _, tc := range tests {
		if tc.err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		var missing []string
		for _, w := range tc.want {
			if !strings.Contains(tc.err.Error(), w) {
				missing = append(missing, w)
			}
		}
		if diff := cmp.Diff([]string(nil), missing); diff != "" {
			t.Errorf("%s: error %q lacks (-want +got):\n%s", tc.name, tc.err, diff)
		}
	}
}

func peekErr(s *Sim, path string) error {
	_, err := s.Peek(path)
	return err
}

func memErr(s *Sim, path string, addr int) error {
	_, err := s.MemRead(path, addr)
	return err
}

func TestPokeAcceptsSignedAndRst(t *testing.T) {
	m := hdl.NewModule("sgn")
	a := m.Input("a", hdl.SInt(8))
	m.Output("y", hdl.SInt(8)).Set(a)
	// No register: rst is not listed but may be poked.
	s := mustSim(t, m)
	if err := s.Poke("a", uint64(0xffffffffffffff80)); err != nil { // -128
		t.Fatal(err)
	}
	if err := s.Poke("rst", 1); err != nil {
		t.Fatal(err)
	}
	y, err := s.PeekSigned("y")
	if err != nil {
		t.Fatal(err)
	}
	if y.Int64() != -128 {
		t.Errorf("y = %s, want -128", y)
	}
	if err := s.Poke("a", uint64(0xffffffffffffff7f)); err == nil { // -129
		t.Error("-129 accepted for SInt(8)")
	}
	if diff := cmp.Diff([]Port{{"a", hdl.SInt(8)}}, s.Inputs()); diff != "" {
		t.Errorf("Inputs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Port{{"y", hdl.SInt(8)}}, s.Outputs()); diff != "" {
		t.Errorf("Outputs (-want +got):\n%s", diff)
	}
	c := mustSim(t, counterWithChild())
	if diff := cmp.Diff([]Port{{"rst", hdl.Bool}, {"en", hdl.Bool}}, c.Inputs()); diff != "" {
		t.Errorf("Inputs with reset (-want +got):\n%s", diff)
	}
}
