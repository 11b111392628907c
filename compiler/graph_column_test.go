package compiler

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/golden"
)

// Column views a per-channel vector as the [C][1] matrix, which the
// on-chip transpose lays out as one row [1][C]: the reference machine
// and the golden models give the vector's values in channel order, over
// more channels than partitions; a value of more than one element per
// channel is refused.
func TestColumn(t *testing.T) {
	cfg := npu.DefaultConfig()
	x := golden.New(40, 2, 3)
	for i := range x.Data {
		x.Data[i] = int64(i*37%255) - 127
	}
	g := NewGraph()
	v := g.Reduce(g.Input("x", x), golden.ReduceMax, golden.Requant{})
	g.Output("y", g.Transpose(g.Column(v)))
	p, err := Compile(cfg, g)
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := Interpret(p)
	if err != nil {
		t.Fatal(err)
	}
	want := golden.New(1, 40)
	for c := range 40 {
		want.Data[c] = -128
		for _, e := range x.Data[c*6 : c*6+6] {
			want.Data[c] = max(want.Data[c], e)
		}
	}
	ref, err := g.Reference(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, ref["y"]); d != "" {
		t.Errorf("golden models (-want +got):\n%s", d)
	}
	if d := cmp.Diff(want, got["y"]); d != "" {
		t.Errorf("reference machine (-want +got):\n%s", d)
	}

	g = NewGraph()
	g.Output("y", g.Column(g.Input("x", x)))
	if err := g.Err(); err == nil || !strings.Contains(err.Error(), "want one element per channel") {
		t.Errorf("Column of a [40 2 3] map: error %v, want a refusal", err)
	}
}
