package planar

import (
	"testing"

	isaplanar "github.com/hwgen/hwgen/isa/planar"
)

// lutConfig is smallConfig with the lookup table: 256 entries over 4
// lanes, 64 rows.
func lutConfig() Config { return withLUT(smallConfig()) }

// withLUT is c with the table.
func withLUT(c Config) Config {
	c.LUT = true
	return c
}

// lutTasks load the table and run every operation with a
// post-processor through it, in the bench layout of c (inputs in the
// lower half of the state buffer, outputs above): saturated, wrapped,
// clamped and ReLU'd indices, the extremes of the element range, a
// writeback that ignores the flag, and a second table replacing the
// first. The table's entries are the buffer's random elements.
func lutTasks(c Config) []namedTask {
	half := c.StateDepth / 2
	all := uint64(1)<<uint(c.Lanes) - 1
	psumLanes := uint64(1)<<uint(c.PsumLanes) - 1
	lut := func(t isaplanar.Task) isaplanar.Task { t.Lut = true; return t }
	id := func(t isaplanar.Task) isaplanar.Task { return lut(withID(t)) }
	return []namedTask{
		{"loadtable", isaplanar.Task{Op: isaplanar.OpLoadTable, Mask: all, Src: half - c.TableRows()}},
		{"act saturated", lut(isaplanar.Task{Op: isaplanar.OpAct, Mask: psumLanes, Src: 0, Dst: half, H: 3, W: 7, Scale: 3, Bias: -20, Shift: 2})},
		{"act wrapped, relu", lut(isaplanar.Task{Op: isaplanar.OpAct, Mask: psumLanes, Src: 4, Dst: half + 21, H: 2, W: 5, Scale: 1, Relu: true, Wrap: true})},
		{"act clamped, half even", lut(isaplanar.Task{Op: isaplanar.OpAct, Mask: 1, Src: 8, Dst: half + 31, H: 1, W: 9, Scale: 5, Shift: 3, RoundEven: true, Clamp: true, Lo: 1, Hi: 3})},
		{"writeback ignores lut", lut(isaplanar.Task{Op: isaplanar.OpWriteBack, Mask: psumLanes, Src: 2, Dst: half + 40, H: 1, W: 6})},
		{"eltwise add 0 (a plain lookup)", id(isaplanar.Task{Op: isaplanar.OpEltwise, Mask: all, Src: 0, Dst: half, H: 4, W: 8, ScalarOperand: true})},
		{"eltwise abs: |min| saturates to the top entry", id(isaplanar.Task{Op: isaplanar.OpEltwise, Fn: isaplanar.FnAbs, Mask: all, Src: 3, Dst: half + 32, H: 1, W: 12})},
		{"eltwise mul of two tensors, requantized", lut(isaplanar.Task{Op: isaplanar.OpEltwise, Fn: isaplanar.FnMul, Mask: all, Src: 0, Src2: 9, Dst: half + 36, H: 1, W: 10, Scale: 3, Shift: 4})},
		{"eltwise broadcast sub", id(isaplanar.Task{Op: isaplanar.OpEltwise, Fn: isaplanar.FnSub, Mask: all, Src: 5, Src2: 2, Dst: half + 2, H: 2, W: 3, Broadcast: true})},
		{"eltwise in place", id(isaplanar.Task{Op: isaplanar.OpEltwise, Fn: isaplanar.FnNeg, Mask: all, Src: half + 2, Dst: half + 2, H: 1, W: 6})},
		{"max pool 3x3 s1 pad1", id(isaplanar.Task{Op: isaplanar.OpPool, Fn: isaplanar.FnPoolMax, Mask: all, Src: 0, Dst: half, H: 4, W: 5, KH: 3, KW: 3, Stride: 1, PadH: 1, PadW: 1})},
		{"avg pool 2x2 s2", lut(isaplanar.Task{Op: isaplanar.OpPool, Fn: isaplanar.FnPoolAvg, Mask: all, Src: 0, Dst: half + 20, H: 4, W: 4, KH: 2, KW: 2, Stride: 2, Scale: 1, Shift: 2})},
		{"reduce sum", lut(isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnSum, Mask: all, Src: 0, Dst: half + 24, H: 3, W: 5, Scale: 1, Shift: 3})},
		{"reduce rowmax", id(isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnRowMax, Mask: all, Src: 0, Dst: half + 25, H: 3, W: 4})},
		{"reduce sum, sqrt", id(isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnSum, Mask: all, Src: 0, Dst: half + 29, H: 2, W: 3, Post: isaplanar.PostSqrt})},
		{"rowsum, recip", lut(isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnRowSum, Mask: all, Src: 7, Dst: half + 30, H: 2, W: 3, Scale: 1, Bias: 1 << 6, Shift: c.RecipShift() - c.ElemWidth + 2, Post: isaplanar.PostRecip})},
		{"loadtable again, elsewhere", isaplanar.Task{Op: isaplanar.OpLoadTable, Mask: all, Src: 1}},
		{"eltwise add 0 with the new table", id(isaplanar.Task{Op: isaplanar.OpEltwise, Mask: all, Src: 0, Dst: half + 33, H: 2, W: 4, ScalarOperand: true})},
		{"act without lut after a table", isaplanar.Task{Op: isaplanar.OpAct, Mask: psumLanes, Src: 0, Dst: half + 10, H: 1, W: 8, Scale: 1}},
	}
}

// Every lut path against the model with exact cycle counts: signed and
// unsigned elements, with and without deep_pipeline, and three lanes
// (64 entries in 22 rows, the last one partly past the table) on the
// Go simulator.
func TestLUTTasks(t *testing.T) {
	three := Config{Sizes: isaplanar.Sizes{Lanes: 3, PsumLanes: 2, ElemWidth: 6, ElemSigned: true, AccWidth: 14, ScaleWidth: 6,
		StateDepth: 128, PsumDepth: 32, MaxKernel: 3, LineDepth: 8, LUT: true}}
	for _, c := range []Config{lutConfig(), withLUT(unsignedConfig()), deep(lutConfig()), three} {
		t.Run(Name(c), func(t *testing.T) {
			b := newBench(t, c, 61, 0)
			runSuite(t, b, lutTasks(c), true)
		})
	}
}

// The lut stage costs exactly one cycle, and only where the flag is
// used; loadtable takes its reads plus five, like loadparams.
func TestLUTCycles(t *testing.T) {
	c := lutConfig()
	for _, nt := range lutTasks(c) {
		off := nt.t
		off.Lut = false
		want := 0
		if nt.t.Lut && nt.t.Op != isaplanar.OpWriteBack {
			want = 1
		}
		if got := c.Cycles(nt.t) - c.Cycles(off); got != want {
			t.Errorf("%s: lut costs %d cycles, want %d", nt.name, got, want)
		}
	}
	lt := isaplanar.Task{Op: isaplanar.OpLoadTable, Mask: 0xf}
	if got, want := c.Cycles(lt), c.TableRows()+5; got != want || c.TableRows() != 64 {
		t.Errorf("loadtable: %d cycles, %d rows; want %d and 64", got, c.TableRows(), want)
	}
}

// A table deeper than the state buffer is built but never loads: every
// loadtable is ErrSrc, in Validate and in the hardware.
func TestLUTDeeperThanBuffer(t *testing.T) {
	c := Config{Sizes: isaplanar.Sizes{Lanes: 1, PsumLanes: 1, ElemWidth: 4, ElemSigned: true, AccWidth: 8, ScaleWidth: 4,
		StateDepth: 8, PsumDepth: 8, MaxKernel: 2, LineDepth: 2, LUT: true}}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	lt := isaplanar.Task{Op: isaplanar.OpLoadTable, Mask: 1}
	if code := isaplanar.FirstCode(lt.Validate(c.Sizes)); code != isaplanar.ErrSrc {
		t.Errorf("Validate: code %v, want src", code)
	}
	if res := newBench(t, c, 63, 0).run(lt); res.errCode != isaplanar.ErrSrc || res.cycles != 2 {
		t.Errorf("hardware: code %v in %d cycles, want src in 2", res.errCode, res.cycles)
	}
}
