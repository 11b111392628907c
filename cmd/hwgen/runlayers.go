package main

import (
	"fmt"
	"io"
	"slices"

	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/host"
	"github.com/hwgen/hwgen/isa"
)

// layerUse is one layer's use of the PE array in a simulated run.
type layerUse struct {
	name string
	macs int64
	busy int // cycles its NE tasks ran (the union of their spans)
}

// util is the PE array's utilization while the layer's NE tasks ran.
func (u layerUse) util(rows, cols int) float64 {
	return float64(u.macs) / (float64(rows*cols) * float64(max(u.busy, 1)))
}

// layerUses splits a run's NE work by layer (compiler.Program.LayerMACs),
// in program order.
func layerUses(prog *compiler.Program, res *host.Result) []layerUse {
	spans := map[string][][2]int{}
	var order []string
	for _, s := range res.Timeline {
		t := prog.Tasks[s.ID]
		if t.Engine() != isa.NE {
			continue
		}
		l := layerOf(t.Label)
		if _, seen := spans[l]; !seen && prog.LayerMACs[l] > 0 {
			order = append(order, l)
		}
		spans[l] = append(spans[l], [2]int{s.Start, s.End})
	}
	uses := make([]layerUse, len(order))
	for i, l := range order {
		uses[i] = layerUse{l, prog.LayerMACs[l], union(spans[l])}
	}
	return uses
}

// printLayerUse prints where a simulated run's cycles went: the share of
// the run the PE array had work, the utilization while it had, and per
// layer (all of them with --layers, else the three that lost the most
// cycles against their ideal). Several runs of prog (a batch's images)
// are summed: their cycles, busy cycles and MACs.
func printLayerUse(w io.Writer, rows, cols int, prog *compiler.Program, runs []*host.Result, all bool) {
	var uses []layerUse
	at := map[string]int{} // a layer's index in uses
	busy, cycles := 0, 0
	for _, res := range runs {
		for _, u := range layerUses(prog, res) {
			i, ok := at[u.name]
			if !ok {
				i, at[u.name] = len(uses), len(uses)
				uses = append(uses, layerUse{name: u.name})
			}
			uses[i].macs += u.macs
			uses[i].busy += u.busy
		}
		var iv [][2]int
		for _, s := range res.Timeline {
			if prog.Tasks[s.ID].Engine() == isa.NE {
				iv = append(iv, [2]int{s.Start, s.End})
			}
		}
		busy += union(iv)
		cycles += res.Cycles
	}
	if len(uses) == 0 || cycles == 0 {
		return
	}
	var macs int64
	for _, u := range uses {
		macs += u.macs
	}
	of := "the run"
	if len(runs) > 1 {
		of = fmt.Sprintf("the %d runs", len(runs))
	}
	fmt.Fprintf(w, "PE array  busy %.1f%% of %s (%d of %d cycles); %.1f%% MAC utilization while busy\n",
		100*float64(busy)/float64(cycles), of, busy, cycles, 100*float64(macs)/(float64(rows*cols)*float64(max(busy, 1))))
	lost := func(u layerUse) float64 { return float64(u.busy) - float64(u.macs)/float64(rows*cols) }
	shown := slices.Clone(uses)
	if !all && len(shown) > 3 {
		slices.SortStableFunc(shown, func(a, b layerUse) int {
			switch la, lb := lost(a), lost(b); {
			case la > lb:
				return -1
			case la < lb:
				return 1
			}
			return 0
		})
		shown = shown[:3]
		fmt.Fprintf(w, "layers    %d on the PE array; the three losing most cycles against their ideal (--layers lists each):\n", len(uses))
	}
	for _, u := range shown {
		fmt.Fprintf(w, "layer     %-16s %5.1f%% MAC utilization while its NE tasks ran (%d cycles, %d lost)\n", u.name, 100*u.util(rows, cols), u.busy, int(lost(u)))
	}
}
