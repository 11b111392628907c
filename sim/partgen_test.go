package sim

import (
	"math/big"
	"math/rand"
	"regexp"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/hdl"
)

// maskDesign has bitwise operators whose results fit their width without
// a mask (one-bit and, a slice of a word's top bits) and ones that do
// not (an and computed at 4 bits from 8-bit operands through a folded
// truncation, a middle slice).
func maskDesign() *hdl.Module {
	m := hdl.NewModule("masks")
	a, b := m.Input("a", hdl.UInt(8)), m.Input("b", hdl.UInt(8))
	c, d := m.Input("c", hdl.Bool), m.Input("d", hdl.Bool)
	m.Output("and1", hdl.Bool).Set(c.And(d))
	m.Output("xor1", hdl.Bool).Set(c.Xor(d.Not()))
	and4 := a.And(b).Trunc(4)
	m.Output("and4", hdl.UInt(4)).Set(and4)
	// A reader of and4's bits: an unmasked and4 would compare unequal.
	m.Output("and4z", hdl.Bool).Set(and4.Eq(hdl.Const(hdl.UInt(4), big.NewInt(0))))
	m.Output("top", hdl.UInt(4)).Set(a.Slice(7, 4))
	m.Output("mid", hdl.UInt(4)).Set(b.Slice(5, 2))
	return m
}

// Generated code leaves out the masks of results that already fit, and
// keeps the others: the compiled simulator agrees with the interpreter
// on every output, and the source shows which masks went.
func TestMasklessResults(t *testing.T) {
	d := elab(t, maskDesign())
	pi, err := newSim(d, modeParts)
	if err != nil {
		t.Fatal(err)
	}
	src := genPartSource(pi)
	for _, c := range []struct {
		re   string
		want bool
	}{
		{`\(v\[\d+\] & v\[\d+\]\)\n`, true},        // and1: no mask
		{`\(v\[\d+\] & v\[\d+\]\) & 0xf\n`, true},  // and4: kept
		{`\(v\[\d+\] >> 4\)\n`, true},              // top: no mask
		{`\(v\[\d+\] >> 2\) & 0xf\n`, true},        // mid: kept
		{`\(v\[\d+\] >> 4\) & 0xf\n`, false},       // top's mask gone
		{`\(v\[\d+\] & v\[\d+\]\) & 0x1\n`, false}, // and1's mask gone
	} {
		if got := regexp.MustCompile(c.re).MatchString(src); got != c.want {
			t.Errorf("generated code matches %q: %v, want %v", c.re, got, c.want)
		}
	}
	pc, err := NewWith(d, Options{Compiled: true})
	if err != nil {
		t.Fatal(err)
	}
	outs := []string{"and1", "xor1", "and4", "and4z", "top", "mid"}
	r := rand.New(rand.NewSource(7))
	for cyc := range 200 {
		in := map[string]int64{"a": r.Int63n(256), "b": r.Int63n(256), "c": r.Int63n(2), "d": r.Int63n(2)}
		poke(t, pi, in)
		poke(t, pc, in)
		pi.Step(1)
		pc.Step(1)
		if diff := cmp.Diff(peekAll(t, pi, outs...), peekAll(t, pc, outs...)); diff != "" {
			t.Fatalf("cycle %d, inputs %v: interpreter vs compiled (-+):\n%s", cyc, in, diff)
		}
	}
}

// On the NPU the marked nodes of a supernode that share their readers
// share one compare: every set has two nodes or more, all with the same
// marks, and the sets leave fewer branches than marked nodes.
func TestMarkSetsOnTheNPU(t *testing.T) {
	m, err := npu.BuildSim(npu.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	s, err := newSim(elab(t, m), modeParts)
	if err != nil {
		t.Fatal(err)
	}
	g := &gen{s: s}
	var marked, branches int
	for _, pt := range s.parts {
		acc, sets := g.markSets(pt)
		members := make([]int, len(sets))
		for j := pt.lo; j < pt.hi; j++ {
			n := &s.nodes[j]
			if n.op >= wAdd || n.mk.hi == n.mk.lo {
				continue
			}
			marked++
			k, ok := acc[j]
			if !ok {
				branches++
				continue
			}
			members[k]++
			if r := sets[k]; !slices.Equal(s.marks[n.mk.lo:n.mk.hi], s.marks[r.lo:r.hi]) {
				t.Fatalf("node %d in set %d: marks %v, the set's %v", j, k, s.marks[n.mk.lo:n.mk.hi], s.marks[r.lo:r.hi])
			}
		}
		for k, c := range members {
			if c < 2 {
				t.Fatalf("supernode %d..%d: set %d has %d nodes", pt.lo, pt.hi, k, c)
			}
		}
		branches += len(sets)
	}
	if branches >= marked {
		t.Fatalf("%d compares for %d marked nodes: no set shared", branches, marked)
	}
	t.Logf("%d marked nodes, %d compares", marked, branches)
}

// On the NPU the compiled code keeps its values narrow: each compact
// slot's class is the narrowest that holds its width, no value the
// interpreter touches while generated code runs (a multi-word operator's
// operand or result, rst, a constant) is compact, and the compact arrays
// take under a quarter of the value array's bytes while holding most of
// its one-word values.
func TestCompactClassesOnTheNPU(t *testing.T) {
	m, err := npu.BuildSim(npu.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	s, err := newSim(elab(t, m), modeParts)
	if err != nil {
		t.Fatal(err)
	}
	c := newCompact(s)
	narrowest := func(w int32) uint8 {
		switch {
		case w <= 8:
			return cls8
		case w <= 16:
			return cls16
		case w <= 32:
			return cls32
		}
		return clsV
	}
	oneWord := 0
	for id, sl := range s.slots {
		k := c.cls[sl.off]
		if sl.w <= 32 {
			oneWord++
		}
		if k != clsV && k != narrowest(sl.w) {
			t.Fatalf("slot %d (%d bits): class %d, want %d", id, sl.w, k, narrowest(sl.w))
		}
		if k != clsV && (s.isConst[id] || int32(id) == s.rstSlot) {
			t.Fatalf("slot %d: a constant or rst is compact", id)
		}
	}
	for i := range s.nodes {
		n := &s.nodes[i]
		if n.op < wAdd {
			continue
		}
		for _, off := range []int32{n.dst, n.a, n.b, n.c} {
			if off >= 0 && c.cls[off] != clsV {
				t.Fatalf("node %d, a multi-word operator, reads or writes the compact offset %d", i, off)
			}
		}
	}
	compact := len(c.offs[cls8]) + len(c.offs[cls16]) + len(c.offs[cls32])
	bytes := len(c.c8) + 2*len(c.c16) + 4*len(c.c32)
	if compact*10 < oneWord*8 || bytes*4 > 8*len(s.v) {
		t.Fatalf("%d of %d one-word slots compact in %d bytes (value array %d bytes)", compact, oneWord, bytes, 8*len(s.v))
	}
	t.Logf("%d of %d one-word slots compact, %d bytes against the value array's %d", compact, oneWord, bytes, 8*len(s.v))
}
