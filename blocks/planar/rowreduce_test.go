package planar

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	isaplanar "github.com/hwgen/hwgen/isa/planar"
)

// A reduction across rows gives one value per column: the column sums
// (saturated by the identity post-processor) or maxima of each lane's
// plane, W writes after H·W reads. Checked by hand against the model,
// and the hardware against the model by runSuite.
func TestRowReduceColumns(t *testing.T) {
	c := smallConfig()
	const src, dst, h, w = 20, 150, 5, 7
	b := newBench(t, c, 63, 0)
	et := c.ElemType()
	for _, tc := range []struct {
		fn      isaplanar.Fn
		combine func(a, b int64) int64
	}{
		{isaplanar.FnRowSum, func(a, b int64) int64 { return a + b }},
		{isaplanar.FnRowMax, func(a, b int64) int64 { return max(a, b) }},
	} {
		want := make([][]int64, c.Lanes)
		for p := range c.Lanes {
			for j := range w {
				v := b.state[p][src+j]
				for y := 1; y < h; y++ {
					v = tc.combine(v, b.state[p][src+y*w+j])
				}
				want[p] = append(want[p], min(max(v, minOf(et)), maxOf(et)))
			}
		}
		task := withID(isaplanar.Task{Op: isaplanar.OpReduce, Fn: tc.fn, Mask: all4, Src: src, Dst: dst, H: h, W: w})
		runSuite(t, b, []namedTask{{"row reduction", task}}, true)
		got := make([][]int64, c.Lanes)
		for p := range got {
			got[p] = b.state[p][dst : dst+w]
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("fn %d: columns (-want +got):\n%s", tc.fn, diff)
		}
	}
}

// wideColumnConfig has a deep state buffer and 2×2 windows: a column's
// sum (E+1+10 bits) is wider than the pooling's line-buffer word, which
// widens for it.
func wideColumnConfig() Config {
	return Config{Sizes: isaplanar.Sizes{Lanes: 2, PsumLanes: 1, ElemWidth: 8, ElemSigned: true, AccWidth: 16, ScaleWidth: 8,
		StateDepth: 1024, PsumDepth: 8, MaxKernel: 2, LineDepth: 4}}
}

// Tall columns whose sums need every bit of the widened word, with
// pooling on the same line buffer before and after.
func TestRowReduceWideColumns(t *testing.T) {
	c := wideColumnConfig()
	if lineWidth(c) != c.RedWidth() || (c.MaxKernel-1)*c.HsumWidth() >= c.RedWidth() {
		t.Fatalf("line word %d bits: the configuration no longer widens it", lineWidth(c))
	}
	// Large elements of one sign in the first column, so the sums are
	// far outside the pooling word's range.
	b := newBenchWith(t, c, 64, 0, func(state, _ [][]int64) {
		for a := 0; a < 1000; a += 4 {
			state[0][a], state[1][a] = 127, -128
		}
	})
	tasks := []namedTask{
		{"max pool 2x2 before", withID(isaplanar.Task{Op: isaplanar.OpPool, Fn: isaplanar.FnPoolMax, Mask: 3, Src: 0, Dst: 1000, H: 4, W: 4, KH: 2, KW: 2, Stride: 1})},
		{"rowsum 250x4", isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnRowSum, Mask: 3, Src: 0, Dst: 1004, H: 250, W: 4, Scale: 1, Shift: 8}},
		{"rowsum 250x4 low byte", isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnRowSum, Mask: 3, Src: 0, Dst: 1008, H: 250, W: 4, Scale: 1, Wrap: true}},
		{"rowmax 250x4", withID(isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnRowMax, Mask: 3, Src: 0, Dst: 1012, H: 250, W: 4})},
		{"avg pool 2x2 after", isaplanar.Task{Op: isaplanar.OpPool, Fn: isaplanar.FnPoolAvg, Mask: 3, Src: 0, Dst: 1016, H: 3, W: 5, KH: 2, KW: 2, Stride: 1, Scale: 1, Shift: 2}},
	}
	runSuite(t, b, tasks, true)
	if got := b.state[0][1004]; got != (250*127+128)>>8 {
		t.Errorf("lane 0 column 0: %d, want round(250·127 / 256) = %d", got, (250*127+128)>>8)
	}
}
