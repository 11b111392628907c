package verify_test

import (
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/examples"
	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/sim"
	"github.com/hwgen/hwgen/stim"
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
	tooltest.Need(t, "verilator")
	d := memDesign(t)
	init := []verify.MemWord{
		{Path: "big", Addr: 3, Value: new(big.Int).Lsh(big.NewInt(-5), 60)}, // a negative 70-bit word
		{Path: "big", Addr: 15, Value: big.NewInt(12345)},
		{Path: "c1.store", Addr: 19, Value: big.NewInt(0xabc)},
	}
	st := stim.Random(d, 300, 7)
	if _, err := verify.CrossCheck(d, st, verify.Options{Dir: t.TempDir(), MemInit: init, CompareMemories: true}); err != nil {
		t.Fatal(err)
	}

	// A Go side whose memory differs in one word that no output reads
	// (every address input stays 0, so c0.store[19] is never read) is
	// caught by the final comparison.
	quiet, err := stim.Generate(d, 5, func(int, *stim.Drive) {})
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
	tooltest.Need(t, "verilator")
	d := memDesign(t)
	st := stim.Random(d, 3, 1)
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

func deepMemDesign(t *testing.T) *hdl.Design {
	t.Helper()
	d, err := hdl.Elaborate(deepMemTop())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// deepMemTop has memories where Verilator keeps modules apart: a bank with
// an array and an SRAM macro, big enough that Verilator 5.006 does not
// inline it by itself, instanced three times two levels down
// (npu.b0..b2), plus a small memory two levels down instanced once
// (npu.ext.mem, as in an NPU simulation top).
func deepMemTop() *hdl.Module {
	bank := hdl.NewModule("deepmem_bank")
	a := bank.Input("a", hdl.UInt(5))
	d := bank.Input("d", hdl.UInt(48))
	we := bank.Input("we", hdl.Bool)
	store := bank.Memory("store", 32, hdl.UInt(48))
	store.Write(a, d, we)
	sram := bank.Memory("sram", 16, hdl.UInt(20)).AsMacro()
	sram.Write(a.Trunc(4), d.Trunc(20), we.Not())
	// Enough mixing that three instances exceed Verilator's inlining
	// budget (with 24 rounds it still inlines the bank).
	h := d.Xor(store.Read("rd", a))
	for i := 0; i < 100; i++ {
		h = h.Mul(hdl.U(16, uint64(0x9e37+i*0x61))).Trunc(48).Xor(h.ShrConst(7).Ext(48)).Add(a).Trunc(48)
	}
	bank.Output("q", hdl.UInt(48)).Set(h)
	bank.Output("s", hdl.UInt(20)).Set(sram.Read("srd", a.Trunc(4)))

	ext := hdl.NewModule("deepmem_ext")
	ea := ext.Input("a", hdl.UInt(3))
	ed := ext.Input("d", hdl.UInt(8))
	mem := ext.Memory("mem", 8, hdl.UInt(8))
	mem.Write(ea, ed, ed.Bit(0))
	ext.Output("q", hdl.UInt(8)).Set(mem.Read("rd", ea))

	npu := hdl.NewModule("deepmem_npu")
	na := npu.Input("a", hdl.UInt(5))
	nd := npu.Input("d", hdl.UInt(48))
	nwe := npu.Input("we", hdl.UInt(3))
	var q *hdl.Expr = hdl.U(48, 0)
	var s *hdl.Expr = hdl.U(20, 0)
	for i := 0; i < 3; i++ {
		b := npu.Instance(fmt.Sprintf("b%d", i), bank).
			Connect("a", na.Add(hdl.U(5, uint64(i))).Trunc(5)).
			Connect("d", nd.Xor(hdl.U(48, uint64(i)*0x1111))).
			Connect("we", nwe.Bit(i))
		q = q.Xor(b.Out("q"))
		s = s.Xor(b.Out("s"))
	}
	e := npu.Instance("ext", ext).Connect("a", na.Trunc(3)).Connect("d", nd.Trunc(8))
	npu.Output("q", hdl.UInt(48)).Set(q)
	npu.Output("s", hdl.UInt(20)).Set(s)
	npu.Output("e", hdl.UInt(8)).Set(e.Out("q"))

	top := hdl.NewModule("deepmem_top")
	n := top.Instance("npu", npu).
		Connect("a", top.Input("a", hdl.UInt(5))).
		Connect("d", top.Input("d", hdl.UInt(48))).
		Connect("we", top.Input("we", hdl.UInt(3)))
	top.Output("q", hdl.UInt(48)).Set(n.Out("q"))
	top.Output("s", hdl.UInt(20)).Set(n.Out("s"))
	top.Output("e", hdl.UInt(8)).Set(n.Out("e"))
	return top
}

// The harness reaches memories in a module that Verilator would not
// inline and two levels down: preloads land and every word compares,
// and a difference in one word nobody reads is caught.
func TestMemoryDeepAndReplicated(t *testing.T) {
	tooltest.Need(t, "verilator")
	d := deepMemDesign(t)
	var paths []string
	for _, m := range verify.Memories(d) {
		paths = append(paths, m.Path)
	}
	want := []string{"npu.b0.store", "npu.b0.sram", "npu.b1.store", "npu.b1.sram", "npu.b2.store", "npu.b2.sram", "npu.ext.mem"}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Fatalf("memories (-want +got):\n%s", diff)
	}
	init := []verify.MemWord{
		{Path: "npu.b2.store", Addr: 31, Value: big.NewInt(0x123456789abc)},
		{Path: "npu.b1.sram", Addr: 5, Value: big.NewInt(0xfedcb)},
		{Path: "npu.ext.mem", Addr: 7, Value: big.NewInt(0x5a)},
	}
	st := stim.Random(d, 200, 3)
	if _, err := verify.CrossCheck(d, st, verify.Options{Dir: t.TempDir(), MemInit: init, CompareMemories: true}); err != nil {
		t.Fatal(err)
	}

	// Nothing is written or read but address 0..2 of the banks and 0 of
	// ext, so npu.b2.store[20] only shows in the final comparison.
	quiet, err := stim.Generate(d, 5, func(int, *stim.Drive) {})
	if err != nil {
		t.Fatal(err)
	}
	corrupt := func(d *hdl.Design) (*sim.Sim, error) {
		s, err := sim.New(d)
		if err == nil {
			err = s.MemWrite("npu.b2.store", 20, big.NewInt(1))
		}
		return s, err
	}
	_, err = verify.CrossCheck(d, quiet, verify.Options{Dir: t.TempDir(), NewSim: corrupt, CompareMemories: true})
	var mm *verify.Mismatch
	if !errors.As(err, &mm) {
		t.Fatalf("want a memory mismatch, got %v", err)
	}
	if mm.Port != "memory npu.b2.store[20]" || mm.Go != "000000000001" || mm.Verilator != "000000000000" {
		t.Errorf("mismatch = %+v, want memory npu.b2.store[20], go 000000000001, verilator 000000000000", mm)
	}
}
