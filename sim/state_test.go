package sim

import (
	"math/big"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/hdl"
)

func TestRegisters(t *testing.T) {
	m := hdl.NewModule("regs")
	d := m.Input("d", hdl.UInt(8))
	en := m.Input("en", hdl.Bool)
	r1 := m.Reg("r1", hdl.UInt(8), 5)
	r1.SetNext(d)
	r1.SetEnable(en)
	r2 := m.Reg("r2", hdl.SInt(8), -3)
	r2.SetNext(r2.Add(hdl.S(2, 1)).Trunc(8))
	m.Reg("r3", hdl.UInt(8), 9) // no next value: holds its reset value
	// A 130-bit rotate register checks wide reset values and wide commits.
	init := new(big.Int).Add(new(big.Int).Lsh(big.NewInt(3), 128), big.NewInt(0x55))
	r4 := m.RegBig("r4", hdl.UInt(130), init)
	r4.SetNext(hdl.Cat(r4.Slice(128, 0), r4.Bit(129)))
	m.Output("y", hdl.UInt(8)).Set(r1)
	s := mustSim(t, m)

	rot := func(x *big.Int, n int) string {
		mask := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 130), big.NewInt(1))
		for range n {
			top := x.Bit(129)
			x = new(big.Int).And(new(big.Int).Lsh(x, 1), mask)
			x.SetBit(x, 0, top)
		}
		return x.Text(16)
	}
	steps := []struct {
		name   string
		pokes  map[string]int64
		cycles int
		want   map[string]int64
		r4     string
	}{
		{"power-on is zero", nil, 0, map[string]int64{"r1": 0, "r2": 0, "r3": 0, "y": 0}, "0"},
		{"reset loads init", map[string]int64{"rst": 1}, 1, map[string]int64{"r1": 5, "r2": -3, "r3": 9, "y": 5}, rot(init, 0)},
		{"enable low holds", map[string]int64{"rst": 0, "d": 7, "en": 0}, 1, map[string]int64{"r1": 5, "r2": -2, "r3": 9, "y": 5}, rot(init, 1)},
		{"enable high loads", map[string]int64{"en": 1}, 1, map[string]int64{"r1": 7, "r2": -1, "r3": 9, "y": 7}, rot(init, 2)},
		{"counts on", map[string]int64{"d": 200}, 3, map[string]int64{"r1": 200, "r2": 2, "r3": 9, "y": 200}, rot(init, 5)},
		{"reset beats enable", map[string]int64{"d": 1, "rst": 1}, 1, map[string]int64{"r1": 5, "r2": -3, "r3": 9, "y": 5}, rot(init, 0)},
		{"wraps", map[string]int64{"rst": 0}, 130, map[string]int64{"r1": 1, "r2": -3 + 130, "r3": 9, "y": 1}, rot(init, 130)},
	}
	for _, st := range steps {
		poke(t, s, st.pokes)
		s.Step(st.cycles)
		if diff := cmp.Diff(st.want, peekAll(t, s, "r1", "r2", "r3", "y")); diff != "" {
			t.Errorf("%s (-want +got):\n%s", st.name, diff)
		}
		got, _ := s.PeekBig("r4")
		if diff := cmp.Diff(st.r4, got.Text(16)); diff != "" {
			t.Errorf("%s: r4 (-want +got):\n%s", st.name, diff)
		}
	}
	if got, want := s.Cycle(), uint64(137); got != want {
		t.Errorf("Cycle() = %d, want %d", got, want)
	}
}

// memDesign has a non-power-of-two memory with a plain and a masked write
// port and a plain and an enabled read port.
func memDesign() *hdl.Module {
	m := hdl.NewModule("memtest")
	wa0, wd0, we0 := m.Input("wa0", hdl.UInt(3)), m.Input("wd0", hdl.UInt(12)), m.Input("we0", hdl.Bool)
	wa1, wd1, we1 := m.Input("wa1", hdl.UInt(3)), m.Input("wd1", hdl.UInt(12)), m.Input("we1", hdl.Bool)
	wm1 := m.Input("wm1", hdl.UInt(12))
	ra, rb, ren := m.Input("ra", hdl.UInt(3)), m.Input("rb", hdl.UInt(3)), m.Input("ren", hdl.Bool)
	mem := m.Memory("mem", 5, hdl.UInt(12))
	mem.Write(wa0, wd0, we0)
	mem.WriteMasked(wa1, wd1, we1, wm1)
	qa := mem.Read("qa", ra)
	qb := mem.ReadEnabled("qb", rb, ren)
	m.Output("oa", hdl.UInt(12)).Set(qa)
	m.Output("ob", hdl.UInt(12)).Set(qb)
	r := m.Reg("cnt", hdl.UInt(4), 0)
	r.SetNext(r.Add(hdl.U(1, 1)).Trunc(4))
	return m
}

func TestMemory(t *testing.T) {
	s := mustSim(t, memDesign())
	type step struct {
		name  string
		pokes map[string]int64
		reads map[string]int64 // after the step
		mem   []string
	}
	steps := []step{
		{"write port 0", map[string]int64{"wa0": 2, "wd0": 0xabc, "we0": 1, "ra": 2, "ren": 1, "rb": 2},
			map[string]int64{"qa": 0, "qb": 0}, []string{"0", "0", "abc", "0", "0"}},
		{"read sees the previous write", map[string]int64{"we0": 0},
			map[string]int64{"qa": 0xabc, "qb": 0xabc}, []string{"0", "0", "abc", "0", "0"}},
		{"read before write", map[string]int64{"wd0": 0x123, "we0": 1},
			map[string]int64{"qa": 0xabc, "qb": 0xabc}, []string{"0", "0", "123", "0", "0"}},
		{"new data one edge later", map[string]int64{"we0": 0},
			map[string]int64{"qa": 0x123, "qb": 0x123}, []string{"0", "0", "123", "0", "0"}},
		{"later port wins, masked bits only", map[string]int64{"wa0": 4, "wd0": 0x111, "we0": 1, "wa1": 4, "wd1": 0xff0, "we1": 1, "wm1": 0x0f0},
			map[string]int64{"qa": 0x123, "qb": 0x123}, []string{"0", "0", "123", "0", "1f1"}},
		{"mask keeps the other bits", map[string]int64{"we0": 0, "wd1": 0x00f, "wm1": 0xf0f, "ra": 4, "ren": 0},
			map[string]int64{"qa": 0x1f1, "qb": 0x123}, []string{"0", "0", "123", "0", "ff"}},
		{"enabled read holds", map[string]int64{"we1": 0, "rb": 4},
			map[string]int64{"qa": 0xff, "qb": 0x123}, []string{"0", "0", "123", "0", "ff"}},
		{"out of range write is dropped", map[string]int64{"wa0": 5, "wd0": 0xfff, "we0": 1, "wa1": 7, "wd1": 0xeee, "we1": 1, "wm1": 0xfff},
			map[string]int64{"qa": 0xff, "qb": 0x123}, []string{"0", "0", "123", "0", "ff"}},
		{"out of range read is zero", map[string]int64{"we0": 0, "we1": 0, "ra": 6, "rb": 5, "ren": 1},
			map[string]int64{"qa": 0, "qb": 0}, []string{"0", "0", "123", "0", "ff"}},
		{"reset does not touch reads or contents", map[string]int64{"ra": 2, "rst": 1},
			map[string]int64{"qa": 0x123, "qb": 0}, []string{"0", "0", "123", "0", "ff"}},
	}
	for _, st := range steps {
		poke(t, s, st.pokes)
		s.Step(1)
		if diff := cmp.Diff(st.reads, peekAll(t, s, "qa", "qb")); diff != "" {
			t.Errorf("%s: reads (-want +got):\n%s", st.name, diff)
		}
		if diff := cmp.Diff(st.mem, memWords(t, s, "mem", 5)); diff != "" {
			t.Errorf("%s: contents (-want +got):\n%s", st.name, diff)
		}
	}
}

func TestMemoryBackdoor(t *testing.T) {
	s := mustSim(t, memDesign())
	poke(t, s, map[string]int64{"ra": 1, "rb": 3, "ren": 1})
	s.Step(2)
	if err := s.MemWrite("mem", 1, big.NewInt(0x777)); err != nil {
		t.Fatal(err)
	}
	if err := s.MemWrite("mem", 3, big.NewInt(-1)); err != nil { // two's complement
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]int64{"qa": 0, "qb": 0}, peekAll(t, s, "qa", "qb")); diff != "" {
		t.Errorf("read data changed before the edge (-want +got):\n%s", diff)
	}
	// The read ports' inputs did not change: only the backdoor write can
	// tell them to read again.
	s.Step(1)
	if diff := cmp.Diff(map[string]int64{"qa": 0x777, "qb": 0xfff}, peekAll(t, s, "qa", "qb")); diff != "" {
		t.Errorf("after the edge (-want +got):\n%s", diff)
	}

	// A write port that keeps writing the same word overwrites a backdoor
	// write at the next edge, even though its own inputs are unchanged.
	poke(t, s, map[string]int64{"wa0": 0, "wd0": 0x5a5, "we0": 1})
	s.Step(3)
	if err := s.MemWrite("mem", 0, big.NewInt(1)); err != nil {
		t.Fatal(err)
	}
	s.Step(1)
	if diff := cmp.Diff([]string{"5a5", "777", "0", "fff", "0"}, memWords(t, s, "mem", 5)); diff != "" {
		t.Errorf("contents (-want +got):\n%s", diff)
	}
}

func TestWideMemory(t *testing.T) {
	m := hdl.NewModule("widemem")
	wa, wd, we, wm := m.Input("wa", hdl.UInt(2)), m.Input("wd", hdl.UInt(100)), m.Input("we", hdl.Bool), m.Input("wm", hdl.UInt(100))
	ra := m.Input("ra", hdl.UInt(2))
	mem := m.Memory("wide", 3, hdl.UInt(100))
	mem.WriteMasked(wa, wd, we, wm)
	m.Output("q", hdl.UInt(100)).Set(mem.Read("rd", ra))
	s := mustSim(t, m)
	all := bigHex("fffffffffffffffffffffffff")
	mustPoke := func(name string, v *big.Int) {
		t.Helper()
		if err := s.PokeBig(name, v); err != nil {
			t.Fatal(err)
		}
	}
	mustPoke("wa", big.NewInt(1))
	mustPoke("wd", bigHex("123456789abcdef0123456789"))
	mustPoke("wm", all)
	mustPoke("we", big.NewInt(1))
	mustPoke("ra", big.NewInt(1))
	s.Step(1)
	mustPoke("wd", bigHex("fffffffffffffffffffffffff"))
	mustPoke("wm", bigHex("f0000000000000000000000f0")) // straddles words
	s.Step(1)
	mustPoke("we", big.NewInt(0))
	s.Step(1)
	want := "f23456789abcdef01234567f9"
	if diff := cmp.Diff([]string{"0", want, "0"}, memWords(t, s, "wide", 3)); diff != "" {
		t.Errorf("contents (-want +got):\n%s", diff)
	}
	got, _ := s.PeekBig("q")
	if diff := cmp.Diff(want, got.Text(16)); diff != "" {
		t.Errorf("read (-want +got):\n%s", diff)
	}
}

// A memory whose write data is its own read port's data, at the same
// address: the read and the write each depend on the other directly (the
// read must see the old word, the write takes the read data of the
// previous edge), and both must still behave as two-phase updates.
func TestMemoryWritesItsOwnReadData(t *testing.T) {
	m := hdl.NewModule("memloop")
	ra, wa, we := m.Input("ra", hdl.UInt(2)), m.Input("wa", hdl.UInt(2)), m.Input("we", hdl.Bool)
	mem := m.Memory("mem", 4, hdl.UInt(8))
	q := mem.Read("q", ra)
	mem.Write(wa, q, we)
	m.Output("o", hdl.UInt(8)).Set(q)
	s := mustSim(t, m)
	if err := s.MemWrite("mem", 1, big.NewInt(7)); err != nil {
		t.Fatal(err)
	}
	poke(t, s, map[string]int64{"ra": 1, "wa": 1, "we": 1})
	s.Step(1) // q <- old mem[1] = 7; mem[1] <- q before the edge = 0
	if got := peekAll(t, s, "q")["q"]; got != 7 {
		t.Errorf("after edge 1: q = %d, want 7 (the word before the write)", got)
	}
	if got := memWords(t, s, "mem", 4); got[1] != "0" {
		t.Errorf("after edge 1: mem = %v, want mem[1] = 0", got)
	}
	s.Step(1) // q <- 0; mem[1] <- 7
	if got := peekAll(t, s, "q")["q"]; got != 0 {
		t.Errorf("after edge 2: q = %d, want 0", got)
	}
	if got := memWords(t, s, "mem", 4); got[1] != "7" {
		t.Errorf("after edge 2: mem = %v, want mem[1] = 7", got)
	}
}
