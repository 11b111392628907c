package planar

import (
	"fmt"
	isaplanar "github.com/hwgen/hwgen/isa/planar"
	"math/rand/v2"
)

// randomTask draws a valid task of any operation for c, within the
// bench layout: inputs in the lower half of the state buffer, outputs in
// the upper half below the scratch region, psum sources below the psum
// scratch region. maxN bounds the elements of a plane (run time).
func randomTask(r *rand.Rand, c Config, maxN int) isaplanar.Task {
	half, outEnd := c.StateDepth/2, c.StateDepth-16
	psumEnd := c.PsumDepth - 8
	et := c.ElemType()
	elem := func() int64 { return minOf(et) + r.Int64N(maxOf(et)-minOf(et)+1) }
	shape := func(limit int) (int, int) {
		n := 1 + r.IntN(max(1, min(limit, maxN)))
		h := 1 + r.IntN(n)
		return h, max(1, n/h)
	}
	post := func(t *isaplanar.Task) {
		t.Scale = 1
		if r.IntN(3) > 0 {
			t.Scale = r.Int64N(1<<uint(c.ScaleWidth)) - 1<<uint(c.ScaleWidth-1)
		}
		if r.IntN(3) == 0 {
			t.Bias = r.Int64N(1<<uint(c.AccWidth)) - 1<<uint(c.AccWidth-1)
		} else {
			t.Bias = r.Int64N(201) - 100
		}
		t.Shift = []int{0, 1, 2, 4, 7, 11, c.MaxShift()}[r.IntN(7)]
		t.RoundEven, t.Relu, t.Wrap = r.IntN(2) == 1, r.IntN(3) == 0, r.IntN(4) == 0
		if r.IntN(3) == 0 {
			a, b := elem(), elem()
			t.Clamp, t.Lo, t.Hi = true, min(a, b), max(a, b)
		}
		if c.LUT { // (no draw without the table: the same tasks as before)
			t.Lut = r.IntN(3) == 0
		}
	}
	mask := func(lanes int) uint64 { return uint64(1 + r.IntN(1<<uint(lanes)-1)) }
	for {
		var t isaplanar.Task
		switch r.IntN(9) {
		case 0, 1:
			t = isaplanar.Task{Op: isaplanar.OpAct, Mask: mask(c.PsumLanes)}
			t.H, t.W = shape(min(psumEnd, outEnd-half))
			t.Src, t.Dst = r.IntN(psumEnd-t.H*t.W+1), half+r.IntN(outEnd-half-t.H*t.W+1)
			post(&t)
			t.PerLane = r.IntN(3) == 0
			if r.IntN(4) == 0 {
				t.Op = isaplanar.OpWriteBack
			}
		case 2, 3:
			t = isaplanar.Task{Op: isaplanar.OpEltwise, Fn: isaplanar.Fn(r.IntN(int(isaplanar.Fn(isaplanar.NumFns(isaplanar.OpEltwise))))), Mask: mask(c.Lanes), ScalarOperand: r.IntN(3) == 0, Scalar: elem()}
			t.Broadcast = !t.ScalarOperand && r.IntN(2) == 0
			t.H, t.W = shape(min(half, outEnd-half))
			n := t.H * t.W
			t.Src, t.Src2, t.Dst = r.IntN(half-n+1), r.IntN(half-n+1), half+r.IntN(outEnd-half-n+1)
			post(&t)
			t.Shift = min(t.Shift, 4)
		case 4, 5, 6:
			t = randomPoolIn(r, c, min(maxN, half))
			post(&t)
			if t.Fn == isaplanar.FnPoolAvg {
				t.Scale, t.Shift = avgScale(t.KH*t.KW, c.ScaleWidth)
			} else if r.IntN(2) == 0 {
				t.Scale, t.Bias, t.Shift = 1, 0, 0
			}
		case 7:
			t = isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.Fn(r.IntN(int(isaplanar.Fn(isaplanar.NumFns(isaplanar.OpReduce))))), Mask: mask(c.Lanes)}
			t.H, t.W = shape(half)
			t.Src, t.Dst = r.IntN(half-t.H*t.W+1), half+r.IntN(outEnd-half-t.Writes()+1)
			post(&t)
			if r.IntN(2) == 0 {
				t.Post = isaplanar.Post(1 + r.IntN(int(isaplanar.NumPosts)-1))
			}
			if t.Post == isaplanar.PostRecip && r.IntN(2) == 0 { // results in the element range: 2^j / v
				t.Shift = c.RecipShift() - r.IntN(c.ElemWidth)
			}
		case 8:
			t = isaplanar.Task{Op: isaplanar.OpLoadParams, Mask: mask(c.Lanes), Src: r.IntN(half - c.ParamWords())}
			if c.LUT && r.IntN(2) == 0 {
				t = loadTable(c, r.IntN(half-c.TableRows()+1))
				t.Mask |= mask(c.Lanes)
			}
		}
		if t.Validate(c.Sizes) == nil {
			return t
		}
	}
}

// randomPoolIn draws a valid pooling task reading at most maxN elements
// from the lower half and writing to the upper half.
func randomPoolIn(r *rand.Rand, c Config, maxN int) isaplanar.Task {
	half, outEnd := c.StateDepth/2, c.StateDepth-16
	for {
		t := isaplanar.Task{Op: isaplanar.OpPool, Fn: isaplanar.Fn(r.IntN(int(isaplanar.Fn(isaplanar.NumFns(isaplanar.OpPool))))), Mask: uint64(1 + r.IntN(1<<uint(c.Lanes)-1)),
			KH: 1 + r.IntN(c.MaxKernel), KW: 1 + r.IntN(c.MaxKernel), Stride: 1 + r.IntN(c.MaxKernel),
			PadEdge: r.IntN(2) == 1, Scale: 1}
		t.PadH, t.PadW = r.IntN(t.KH), r.IntN(t.KW)
		t.PadIgnore = !t.PadEdge && t.Fn != isaplanar.FnPoolAvg && r.IntN(2) == 0
		t.H, t.W = 1+r.IntN(12), 1+r.IntN(c.LineDepth+4)
		if t.H*t.W > maxN {
			continue
		}
		t.Src = r.IntN(half - t.H*t.W + 1)
		oh, ow := t.PoolOut()
		if oh*ow > outEnd-half {
			continue
		}
		t.Dst = half + r.IntN(outEnd-half-oh*ow+1)
		if t.Validate(c.Sizes) == nil {
			return t
		}
	}
}

// loadTable is a loadtable of c's table lanes from src.
func loadTable(c Config, src int) isaplanar.Task {
	return isaplanar.Task{Op: isaplanar.OpLoadTable, Mask: 1<<uint(c.TableLanes()) - 1, Src: src}
}

// randomTasks is n named random tasks; with a table the first loads it
// (the hardware's table is undefined until then).
func randomTasks(seed uint64, c Config, n, maxN int) []namedTask {
	r := rand.New(rand.NewPCG(seed, 3))
	ts := make([]namedTask, n)
	for i := range ts {
		if i == 0 && c.LUT {
			ts[i] = namedTask{"random 0 (the first table)", loadTable(c, r.IntN(c.StateDepth/2-c.TableRows()+1))}
			continue
		}
		t := randomTask(r, c, maxN)
		ts[i] = namedTask{fmt.Sprintf("random %d (%v)", i, t.Op), t}
	}
	return ts
}
