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
