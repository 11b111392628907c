package verify_test

import (
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/examples"
	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/toolchain"
	"github.com/hwgen/hwgen/sim"
	"github.com/hwgen/hwgen/verify"
)

func memDesign(t *testing.T) *hdl.Design {
	t.Helper()
	ex, _ := examples.Lookup("mem")
	d, err := hdl.Elaborate(ex.Build())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestMemoriesListed(t *testing.T) {
	got := verify.Memories(memDesign(t))
	want := []verify.Memory{
		{Path: "big", Depth: 16, Type: hdl.SInt(70)},
		{Path: "c0.store", Depth: 20, Type: hdl.UInt(12)},
		{Path: "c1.store", Depth: 20, Type: hdl.UInt(12)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("memories (-want +got):\n%s", diff)
	}
}

// Preloaded memories, random traffic, and every word of every memory
// compared at the end, on both sides.
func TestMemoryPreloadAndFinalContents(t *testing.T) {
	toolchain.Need(t, "verilator")
	d := memDesign(t)
	init := []verify.MemWord{
		{Path: "big", Addr: 3, Value: new(big.Int).Lsh(big.NewInt(-5), 60)}, // a negative 70-bit word
		{Path: "big", Addr: 15, Value: big.NewInt(12345)},
		{Path: "c1.store", Addr: 19, Value: big.NewInt(0xabc)},
	}
	st := verify.Random(d, 300, 7)
	if _, err := verify.CrossCheck(d, st, verify.Options{Dir: t.TempDir(), MemInit: init, CompareMemories: true}); err != nil {
		t.Fatal(err)
	}

	// A Go side whose memory differs in one word that no output reads
	// (every address input stays 0, so c0.store[19] is never read) is
	// caught by the final comparison.
	quiet, err := verify.Generate(d, 5, func(int, *verify.Drive) {})
	if err != nil {
		t.Fatal(err)
	}
	corrupt := func(d *hdl.Design) (*sim.Sim, error) {
		s, err := sim.New(d)
		if err == nil {
			err = s.MemWrite("c0.store", 19, big.NewInt(1))
		}
		return s, err
	}
	_, err = verify.CrossCheck(d, quiet, verify.Options{Dir: t.TempDir(), NewSim: corrupt, CompareMemories: true})
	var mm *verify.Mismatch
	if !errors.As(err, &mm) {
		t.Fatalf("want a memory mismatch, got %v", err)
	}
	if mm.Port != "memory c0.store[19]" || mm.Go != "001" || mm.Verilator != "000" {
		t.Errorf("mismatch = %+v, want memory c0.store[19], go 001, verilator 000", mm)
	}
}

func TestMemoryPreloadErrors(t *testing.T) {
	toolchain.Need(t, "verilator")
	d := memDesign(t)
	st := verify.Random(d, 3, 1)
	for _, tc := range []struct {
		word verify.MemWord
		want string
	}{
		{verify.MemWord{Path: "nope", Addr: 0, Value: big.NewInt(1)}, `no memory "nope"`},
		{verify.MemWord{Path: "big", Addr: 16, Value: big.NewInt(1)}, "address 16 outside big (depth 16)"},
		{verify.MemWord{Path: "c0.store", Addr: 0, Value: big.NewInt(1 << 12)}, "does not fit c0.store (UInt(12))"},
	} {
		_, err := verify.CrossCheck(d, st, verify.Options{Dir: t.TempDir(), MemInit: []verify.MemWord{tc.word}})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("preload %+v: error %v, want %q", tc.word, err, tc.want)
		}
	}
}
