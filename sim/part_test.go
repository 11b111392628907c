package sim

import (
	"bytes"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/hdl"
)

// The partitioned simulator, interpreted and compiled, follows the
// per-register one cycle by cycle on the 16x16 array.
func TestPartitionedWSArray(t *testing.T) {
	const n = 16
	d := elab(t, wsArray(n))
	ev, err := newSim(d, modeLevels)
	if err != nil {
		t.Fatal(err)
	}
	pi, err := newSim(d, modeParts)
	if err != nil {
		t.Fatal(err)
	}
	pc, err := NewWith(d, Options{Compiled: true})
	if err != nil {
		t.Fatal(err)
	}
	if !pc.Compiled() || pi.Compiled() {
		t.Fatalf("Compiled(): %v for NewWith(Compiled), %v for the interpreter", pc.Compiled(), pi.Compiled())
	}
	sims := []*Sim{ev, pi, pc}
	for _, s := range sims {
		loadWeights(t, s, n, rand.New(rand.NewSource(1)))
	}
	r := rand.New(rand.NewSource(2))
	for c := 0; c < 2000; c++ {
		for i := range n {
			v := uint64(int64(r.Intn(256) - 128))
			for _, s := range sims {
				if err := s.Poke(fmtA(i), v); err != nil {
					t.Fatal(err)
				}
			}
		}
		for _, s := range sims {
			s.Step(1)
		}
		for j := range n {
			a, _ := ev.Peek(fmtP(j))
			b, _ := pi.Peek(fmtP(j))
			cc, _ := pc.Peek(fmtP(j))
			if a != b || a != cc {
				t.Fatalf("cycle %d p%d: per-register %x partitioned %x compiled %x", c, j, a, b, cc)
			}
		}
	}
}

// skewLine is a line of n registers, each enabled by the inverted value
// of a flag line beside it, as an array's skew stages are: the flags are
// one group, so the n inverters read the same things and make one
// supernode, and the stages one group.
func skewLine(n int) *hdl.Module {
	m := hdl.NewModule(hdl.Name("skew", n))
	x, z := m.Input("x", hdl.UInt(8)), m.Input("z", hdl.Bool)
	prevX, prevZ := &x.Expr, &z.Expr
	for j := range n {
		zr := m.Reg(fmt.Sprintf("z%d", j), hdl.Bool, 1)
		zr.SetNext(prevZ)
		xr := m.Reg(fmt.Sprintf("x%d", j), hdl.UInt(8), 0)
		xr.SetNext(prevX)
		xr.SetEnable(prevZ.Not())
		prevX, prevZ = &xr.Expr, &zr.Expr
	}
	m.Output("y", hdl.UInt(8)).Set(prevX)
	return m
}

// The shape of the partition: the same cone of sibling instances in few
// supernodes, readers of one group's registers in one, registers of one
// home in one group. Sizes are sorted: the order is the topological
// order's business.
func TestPartitionShape(t *testing.T) {
	type shape struct{ Nodes, Parts, Groups []int }
	for _, tc := range []struct {
		name string
		top  *hdl.Module
		want shape
	}{
		// 256 PEs, a multiply and an add each: eight supernodes of 32
		// PEs' cones (templateCap 64 nodes); a group per 8 stages of each
		// row of activations and each column of weights, the partial
		// sums by supernode.
		{"wsArray(16)", wsArray(16), shape{[]int{512}, repeat(8, 64), repeat(64, 8, repeat(8, 32)...)}},
		// The inverter of stage 0 reads the input z; the other seven
		// read the flag registers, which are one group.
		{"skewLine(8)", skewLine(8), shape{[]int{8}, []int{1, 7}, []int{1, 7, 8}}},
		// A line of 20 flag stages: groups of stageDepth stages.
		{"skewLine(20)", skewLine(20), shape{[]int{20}, []int{1, 19}, []int{1, 4, 8, 8, 19}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := newSim(elab(t, tc.top), modeParts)
			if err != nil {
				t.Fatal(err)
			}
			got := shape{Nodes: []int{len(s.nodes)}}
			for _, p := range s.parts {
				got.Parts = append(got.Parts, int(p.hi-p.lo))
			}
			for _, g := range s.groups {
				got.Groups = append(got.Groups, int(g.hi-g.lo))
			}
			slices.Sort(got.Parts)
			slices.Sort(got.Groups)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("partition (-want +got):\n%s", diff)
			}
			checkPartition(t, s)
		})
	}
}

// repeat is n times x, then more.
func repeat(n, x int, more ...int) []int {
	out := make([]int, n, n+len(more))
	for i := range out {
		out[i] = x
	}
	return append(out, more...)
}

// checkPartition verifies the invariants the settle and the edge rely
// on: supernodes and groups cover their nodes and sinks contiguously, an
// operand comes from an earlier supernode or earlier in the same one, a
// node read outside its supernode marks its readers, and a sink that
// reads another's state directly comes first unless staged.
func checkPartition(t *testing.T, s *Sim) {
	t.Helper()
	next := int32(0)
	for i, p := range s.parts {
		if p.lo != next || p.hi <= p.lo {
			t.Fatalf("supernode %d covers %d..%d, want from %d", i, p.lo, p.hi, next)
		}
		next = p.hi
	}
	if int(next) != len(s.nodes) {
		t.Fatalf("supernodes cover %d of %d nodes", next, len(s.nodes))
	}
	at := map[int32]int32{} // offset -> node
	for i, n := range s.nodes {
		at[n.dst] = int32(i)
	}
	for i, n := range s.nodes {
		for _, o := range []int32{n.a, n.b, n.c} {
			if p, ok := at[o]; ok && o >= 0 && (s.partOf[p] > s.partOf[i] || s.partOf[p] == s.partOf[i] && p >= int32(i)) {
				t.Errorf("node %d (supernode %d) reads node %d (supernode %d)", i, s.partOf[i], p, s.partOf[p])
			}
			if p, ok := at[o]; ok && o >= 0 && s.partOf[p] != s.partOf[i] && s.nodes[p].mk.hi == s.nodes[p].mk.lo {
				t.Errorf("node %d is read by supernode %d but marks nothing", p, s.partOf[i])
			}
		}
	}
	next = 0
	for i, g := range s.groups {
		if g.lo != next || g.hi <= g.lo {
			t.Fatalf("group %d covers %d..%d, want from %d", i, g.lo, g.hi, next)
		}
		next = g.hi
	}
	if int(next) != len(s.sinks) {
		t.Fatalf("groups cover %d of %d sinks", next, len(s.sinks))
	}
	state := map[int32]int32{}
	for i, k := range s.sinks {
		if k.kind != sinkWrite {
			state[k.off] = int32(i)
		}
	}
	for i, k := range s.sinks {
		for _, o := range []int32{k.next, k.en, k.addr} {
			if j, ok := state[o]; ok && o >= 0 && j < int32(i) && !k.staged && k.kind != sinkWrite {
				t.Errorf("sink %d reads sink %d's state directly but comes after it", i, j)
			}
		}
	}
}

// A trace records the same changes in every mode: the compiled simulator
// hands over to the interpreter while it traces.
func TestVCDSameInEveryMode(t *testing.T) {
	d := elab(t, wsArray(4))
	trace := func(s *Sim) map[string][]vcdChange {
		var buf bytes.Buffer
		if err := s.DumpVCD(&buf); err != nil {
			t.Fatal(err)
		}
		loadWeights(t, s, 4, rand.New(rand.NewSource(5)))
		r := rand.New(rand.NewSource(6))
		for range 50 {
			poke(t, s, map[string]int64{"a0": int64(r.Intn(256) - 128), "a3": int64(r.Intn(256) - 128)})
			s.Step(1)
		}
		if err := s.CloseVCD(); err != nil {
			t.Fatal(err)
		}
		return parseVCD(t, buf.String())
	}
	ev, err := newSim(d, modeLevels)
	if err != nil {
		t.Fatal(err)
	}
	want := trace(ev)
	for _, opt := range []Options{{}, {Compiled: true}} {
		s, err := NewWith(d, opt)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, trace(s)); diff != "" {
			t.Errorf("%+v: VCD changes (-per-register +partitioned):\n%s", opt, diff)
		}
	}
}
