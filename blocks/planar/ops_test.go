package planar

import (
	"fmt"
	isaplanar "github.com/hwgen/hwgen/isa/planar"
	"math/rand/v2"
	"testing"
)

// namedTask is one row of a task table.
type namedTask struct {
	name string
	t    isaplanar.Task
}

// The task tables use the small configuration's layout: inputs anywhere
// below 128 (random data), outputs in 128..239, the other clients'
// scratch at 240..255 (state) and 56..63 (psum).
const all4 = 0xf

// withID gives a task the identity post-processor (scale 1).
func withID(t isaplanar.Task) isaplanar.Task { t.Scale = 1; return t }

func actTasks() []namedTask {
	return []namedTask{
		{"writeback 1x1 one lane", isaplanar.Task{Op: isaplanar.OpWriteBack, Mask: 1, Src: 0, Dst: 128, H: 1, W: 1}},
		{"writeback 1x13", isaplanar.Task{Op: isaplanar.OpWriteBack, Mask: 7, Src: 10, Dst: 130, H: 1, W: 13}},
		{"writeback 7x8 whole psum region", isaplanar.Task{Op: isaplanar.OpWriteBack, Mask: 7, Src: 0, Dst: 150, H: 7, W: 8}},
		{"act 4x4 half-up", isaplanar.Task{Op: isaplanar.OpAct, Mask: 7, Src: 3, Dst: 128, H: 4, W: 4, Scale: 3, Bias: -20, Shift: 3}},
		{"act 3x5 half-even relu negative scale", isaplanar.Task{Op: isaplanar.OpAct, Mask: 7, Src: 20, Dst: 140, H: 3, W: 5, Scale: -7, Bias: 100, Shift: 4, RoundEven: true, Relu: true}},
		{"act 1x7 clamp", isaplanar.Task{Op: isaplanar.OpAct, Mask: 6, Src: 30, Dst: 160, H: 1, W: 7, Scale: 1, Clamp: true, Lo: -10, Hi: 20}},
		{"act 2x9 relu6-style", isaplanar.Task{Op: isaplanar.OpAct, Mask: 7, Src: 1, Dst: 170, H: 2, W: 9, Scale: 511, Shift: 12, Relu: true, Clamp: true, Lo: 0, Hi: 6}},
		{"act 1x40 max shift", isaplanar.Task{Op: isaplanar.OpAct, Mask: 7, Src: 16, Dst: 180, H: 1, W: 40, Scale: -512, Bias: -(1 << 19), Shift: 30, RoundEven: true}},
		{"act 5x5 one lane shift 1 ties", isaplanar.Task{Op: isaplanar.OpAct, Mask: 2, Src: 5, Dst: 200, H: 5, W: 5, Scale: 1, Shift: 1, RoundEven: true}},
		{"loadparams all lanes", isaplanar.Task{Op: isaplanar.OpLoadParams, Mask: all4, Src: 90}},
		{"act per-lane 3x3", isaplanar.Task{Op: isaplanar.OpAct, Mask: 7, Src: 8, Dst: 210, H: 3, W: 3, Shift: 5, PerLane: true}},
		{"loadparams lanes 0 and 2", isaplanar.Task{Op: isaplanar.OpLoadParams, Mask: 5, Src: 100}},
		{"act per-lane 2x4 (lane 1 keeps its old parameters)", isaplanar.Task{Op: isaplanar.OpAct, Mask: 7, Src: 40, Dst: 220, H: 2, W: 4, Shift: 9, PerLane: true, Relu: true}},
		{"act wrap byte 0", isaplanar.Task{Op: isaplanar.OpAct, Mask: 7, Src: 0, Dst: 128, H: 4, W: 8, Scale: 1, Wrap: true}},
		{"act wrap byte 1 with bias, rounding ignored", isaplanar.Task{Op: isaplanar.OpAct, Mask: 7, Src: 2, Dst: 160, H: 2, W: 8, Scale: 1, Bias: -300, Shift: 8, RoundEven: true, Wrap: true}},
		{"act wrap top byte, scale and relu", isaplanar.Task{Op: isaplanar.OpAct, Mask: 5, Src: 9, Dst: 176, H: 3, W: 5, Scale: -3, Shift: 14, Relu: true, Wrap: true}},
		{"loadparams for wrap", isaplanar.Task{Op: isaplanar.OpLoadParams, Mask: all4, Src: 90}},
		{"act per-lane wrap byte 2", isaplanar.Task{Op: isaplanar.OpAct, Mask: 7, Src: 12, Dst: 200, H: 2, W: 6, Shift: 16, PerLane: true, Wrap: true}},
		{"writeback ignores wrap", isaplanar.Task{Op: isaplanar.OpWriteBack, Mask: 7, Src: 20, Dst: 230, H: 1, W: 9, Wrap: true}},
		{"nop", isaplanar.Task{Op: isaplanar.OpNop}},
	}
}

func eltTasks() []namedTask {
	var ts []namedTask
	for fn := isaplanar.FnAdd; fn < isaplanar.Fn(isaplanar.NumFns(isaplanar.OpEltwise)); fn++ {
		ts = append(ts,
			namedTask{fmt.Sprintf("fn %d two tensors 3x5", fn), withID(isaplanar.Task{Op: isaplanar.OpEltwise, Fn: fn, Mask: all4, Src: 0, Src2: 64, Dst: 128, H: 3, W: 5})},
			namedTask{fmt.Sprintf("fn %d scalar 1x1", fn), withID(isaplanar.Task{Op: isaplanar.OpEltwise, Fn: fn, Mask: 9, Src: 7, Dst: 150, H: 1, W: 1, ScalarOperand: true, Scalar: -77})},
			namedTask{fmt.Sprintf("fn %d scalar 8x8", fn), withID(isaplanar.Task{Op: isaplanar.OpEltwise, Fn: fn, Mask: all4, Src: 30, Dst: 160, H: 8, W: 8, ScalarOperand: true, Scalar: 101})},
			namedTask{fmt.Sprintf("fn %d broadcast 3x4", fn), withID(isaplanar.Task{Op: isaplanar.OpEltwise, Fn: fn, Mask: all4, Src: 12, Src2: 99, Dst: 200, H: 3, W: 4, Broadcast: true})},
		)
	}
	return append(ts,
		namedTask{"mul requantized half-even", isaplanar.Task{Op: isaplanar.OpEltwise, Fn: isaplanar.FnMul, Mask: all4, Src: 0, Src2: 9, Dst: 224, H: 1, W: 11, Scale: 3, Shift: 6, RoundEven: true}},
		namedTask{"mul wrap low byte", isaplanar.Task{Op: isaplanar.OpEltwise, Fn: isaplanar.FnMul, Mask: all4, Src: 0, Src2: 9, Dst: 212, H: 1, W: 11, Scale: 1, Wrap: true}},
		namedTask{"mul wrap high byte", isaplanar.Task{Op: isaplanar.OpEltwise, Fn: isaplanar.FnMul, Mask: all4, Src: 0, Src2: 9, Dst: 236, H: 1, W: 4, Scale: 1, Shift: 8, Wrap: true}},
		namedTask{"sub with relu and bias", isaplanar.Task{Op: isaplanar.OpEltwise, Fn: isaplanar.FnSub, Mask: all4, Src: 50, Src2: 51, Dst: 200, H: 4, W: 3, Scale: 1, Bias: 5, Relu: true}},
		namedTask{"a + a (both sources the same)", withID(isaplanar.Task{Op: isaplanar.OpEltwise, Fn: isaplanar.FnAdd, Mask: all4, Src: 70, Src2: 70, Dst: 190, H: 2, W: 5})},
		namedTask{"in place (dst = src)", withID(isaplanar.Task{Op: isaplanar.OpEltwise, Fn: isaplanar.FnMax, Mask: all4, Src: 130, Src2: 0, Dst: 130, H: 2, W: 6})},
		namedTask{"dst below an overlapping src", withID(isaplanar.Task{Op: isaplanar.OpEltwise, Fn: isaplanar.FnAdd, Mask: all4, Src: 140, Src2: 20, Dst: 136, H: 4, W: 4})},
		namedTask{"scalar in place", withID(isaplanar.Task{Op: isaplanar.OpEltwise, Fn: isaplanar.FnSub, Mask: 6, Src: 180, Dst: 180, H: 3, W: 3, ScalarOperand: true, Scalar: 100})},
		namedTask{"broadcast 1x1", withID(isaplanar.Task{Op: isaplanar.OpEltwise, Fn: isaplanar.FnSub, Mask: 2, Src: 40, Src2: 41, Dst: 150, H: 1, W: 1, Broadcast: true})},
		namedTask{"broadcast mul requantized (per-channel scale)", isaplanar.Task{Op: isaplanar.OpEltwise, Fn: isaplanar.FnMul, Mask: all4, Src: 0, Src2: 127, Dst: 128, H: 5, W: 9, Scale: 3, Shift: 5, Bias: 7, Broadcast: true}},
		namedTask{"broadcast in place, dst over src2 (read before any write)", withID(isaplanar.Task{Op: isaplanar.OpEltwise, Fn: isaplanar.FnAdd, Mask: 13, Src: 160, Src2: 165, Dst: 160, H: 2, W: 6, Broadcast: true})},
		namedTask{"broadcast wrap, src2 inside the plane", isaplanar.Task{Op: isaplanar.OpEltwise, Fn: isaplanar.FnMul, Mask: all4, Src: 20, Src2: 25, Dst: 20, H: 4, W: 4, Scale: 1, Shift: 8, Wrap: true, Broadcast: true}},
		namedTask{"abs requantized half-even with bias", isaplanar.Task{Op: isaplanar.OpEltwise, Fn: isaplanar.FnAbs, Mask: all4, Src: 20, Dst: 140, H: 3, W: 7, Scale: 5, Bias: -9, Shift: 2, RoundEven: true}},
		namedTask{"abs wrap: |min| keeps its low bits", isaplanar.Task{Op: isaplanar.OpEltwise, Fn: isaplanar.FnAbs, Mask: all4, Src: 0, Dst: 170, H: 2, W: 8, Scale: 1, Wrap: true}},
		namedTask{"abs relu clamp, src2 ignored", isaplanar.Task{Op: isaplanar.OpEltwise, Fn: isaplanar.FnAbs, Mask: 5, Src: 60, Src2: 250, Dst: 60, H: 1, W: 9, Scale: -1, Relu: true, Clamp: true, Lo: 0, Hi: 50}},
	)
}

func reduceTasks() []namedTask {
	return []namedTask{
		{"sum 1x1", withID(isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnSum, Mask: all4, Src: 3, Dst: 128, H: 1, W: 1})},
		{"sum 3x5 mean-ish", isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnSum, Mask: all4, Src: 0, Dst: 129, H: 3, W: 5, Scale: 17, Shift: 8}},
		{"max 8x8", withID(isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnRedMax, Mask: all4, Src: 40, Dst: 130, H: 8, W: 8})},
		{"max 1x7 one lane", withID(isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnRedMax, Mask: 8, Src: 9, Dst: 131, H: 1, W: 7})},
		{"sum 15x16 (240 elements) half-even", isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnSum, Mask: all4, Src: 0, Dst: 239, H: 15, W: 16, Scale: 1, Shift: 7, RoundEven: true}},
		{"sum saturates", withID(isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnSum, Mask: all4, Src: 0, Dst: 132, H: 2, W: 2})},
		{"sum wraps: low and high byte", isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnSum, Mask: all4, Src: 0, Dst: 133, H: 4, W: 8, Scale: 1, Wrap: true}},
		{"sum wraps: high byte", isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnSum, Mask: all4, Src: 0, Dst: 134, H: 4, W: 8, Scale: 1, Shift: 8, Wrap: true}},
		{"rowsum 1x1", withID(isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnRowSum, Mask: all4, Src: 5, Dst: 140, H: 1, W: 1})},
		{"rowsum 1x9 (one row: the row itself)", withID(isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnRowSum, Mask: all4, Src: 5, Dst: 141, H: 1, W: 9})},
		{"rowsum 9x1 (one column: every word forwarded)", isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnRowSum, Mask: all4, Src: 30, Dst: 150, H: 9, W: 1, Scale: 1, Shift: 3}},
		{"rowmax 9x1", withID(isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnRowMax, Mask: all4, Src: 30, Dst: 151, H: 9, W: 1})},
		{"rowsum 3x5 mean-ish half-even", isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnRowSum, Mask: all4, Src: 0, Dst: 152, H: 3, W: 5, Scale: 85, Shift: 8, RoundEven: true}},
		{"rowsum 2x2 (a column of two)", withID(isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnRowSum, Mask: all4, Src: 70, Dst: 157, H: 2, W: 2})},
		{"rowmax 8x8 one lane", withID(isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnRowMax, Mask: 4, Src: 40, Dst: 160, H: 8, W: 8})},
		{"rowsum 7x16 (line_depth columns) relu clamp", isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnRowSum, Mask: all4, Src: 3, Dst: 170, H: 7, W: 16, Scale: -1, Shift: 2, Relu: true, Clamp: true, Lo: 0, Hi: 90}},
		{"rowsum 15x16 (240 elements): the widest column sum, wrap", isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnRowSum, Mask: all4, Src: 0, Dst: 190, H: 15, W: 16, Scale: 1, Wrap: true}},
		{"rowsum 15x16 saturates", withID(isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnRowSum, Mask: all4, Src: 0, Dst: 206, H: 15, W: 16})},
		{"rowmax in place over the plane's first row", withID(isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnRowMax, Mask: all4, Src: 100, Dst: 100, H: 4, W: 6})},
		{"rowsum into the plane's last row (dst = src+(h−1)·w)", withID(isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnRowSum, Mask: 3, Src: 80, Dst: 95, H: 6, W: 3})},
		// Post functions (smallConfig: v has 31 bits, K = 29).
		{"sqrt of a sum (negative sums give 0)", withID(isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnSum, Mask: all4, Src: 0, Dst: 135, H: 4, W: 8, Post: isaplanar.PostSqrt})},
		{"sqrt of a max plus a bias, 3 fractional bits half-even", isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnRedMax, Mask: all4, Src: 8, Dst: 136, H: 2, W: 9, Scale: 64, Bias: 9000, Shift: 0, Post: isaplanar.PostSqrt}},
		{"sqrt, shifted and rounded", isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnSum, Mask: all4, Src: 0, Dst: 137, H: 1, W: 3, Scale: 256, Bias: 40000, Shift: 2, RoundEven: true, Post: isaplanar.PostSqrt}},
		{"recip of a positive sum: 2^14 / v", isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnSum, Mask: all4, Src: 16, Dst: 138, H: 3, W: 3, Scale: 1, Bias: 3000, Shift: 29 - 14, Post: isaplanar.PostRecip}},
		{"recip of a negative value", isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnRedMax, Mask: all4, Src: 16, Dst: 139, H: 3, W: 3, Scale: -1, Bias: -300, Shift: 29 - 12, Post: isaplanar.PostRecip}},
		{"recip of 0 saturates", isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnSum, Mask: all4, Src: 16, Dst: 143, H: 1, W: 1, Scale: 0, Post: isaplanar.PostRecip}},
		{"recip of 1 with the largest shift", isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnSum, Mask: all4, Src: 16, Dst: 144, H: 1, W: 1, Scale: 0, Bias: 1, Shift: 30, Post: isaplanar.PostRecip}},
		{"recip with wrap, relu and clamp", isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnSum, Mask: all4, Src: 0, Dst: 145, H: 2, W: 2, Scale: 1, Bias: 1, Shift: 22, Wrap: true, Relu: true, Clamp: true, Lo: 0, Hi: 100, Post: isaplanar.PostRecip}},
		{"rowsum then sqrt (an L2-style norm per column)", isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnRowSum, Mask: all4, Src: 40, Dst: 224, H: 4, W: 5, Scale: 16, Bias: 3000, Post: isaplanar.PostSqrt}},
		{"rowmax then recip, one column", isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnRowMax, Mask: all4, Src: 40, Dst: 229, H: 5, W: 1, Scale: 1, Bias: 200, Shift: 29 - 13, Post: isaplanar.PostRecip}},
		{"rowsum then recip, four columns", isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnRowSum, Mask: 6, Src: 60, Dst: 230, H: 3, W: 4, Scale: 1, Bias: 500, Shift: 29 - 15, Post: isaplanar.PostRecip}},
	}
}

// poolTasks cover every kind and padding at the corners: 1×1,
// odd sizes, H or W smaller than the window, stride larger than the
// window, the widest output row, one column (line-buffer forwarding).
func poolTasks() []namedTask {
	ign := func(nt namedTask) namedTask { nt.t.PadIgnore = true; return nt }
	p := func(name string, kind isaplanar.Fn, h, w, kh, kw, s, ph, pw int, edge bool) namedTask {
		t := isaplanar.Task{Op: isaplanar.OpPool, Fn: kind, Mask: all4, Src: 0, Dst: 128, H: h, W: w, KH: kh, KW: kw, Stride: s,
			PadH: ph, PadW: pw, PadEdge: edge, Scale: 1}
		if kind == isaplanar.FnPoolAvg && kh*kw > 1 { // divide by about kh·kw
			t.Scale, t.Shift = avgScale(kh*kw, 10)
		}
		return namedTask{name, t}
	}
	return []namedTask{
		p("max 1x1 k1", isaplanar.FnPoolMax, 1, 1, 1, 1, 1, 0, 0, false),
		p("avg 1x1 k3 pad1 zero", isaplanar.FnPoolAvg, 1, 1, 3, 3, 1, 1, 1, false),
		p("max 1x1 k3 pad2 edge", isaplanar.FnPoolMax, 1, 1, 3, 3, 1, 2, 2, true),
		p("max 4x4 k2 s2", isaplanar.FnPoolMax, 4, 4, 2, 2, 2, 0, 0, false),
		p("avg 5x7 k3 s1 pad1 zero", isaplanar.FnPoolAvg, 5, 7, 3, 3, 1, 1, 1, false),
		p("avg 5x7 k3 s1 pad1 edge", isaplanar.FnPoolAvg, 5, 7, 3, 3, 1, 1, 1, true),
		p("max 7x5 k3 s2 pad1 zero", isaplanar.FnPoolMax, 7, 5, 3, 3, 2, 1, 1, false),
		p("max 2x9 k3 pad1 (H < window)", isaplanar.FnPoolMax, 2, 9, 3, 3, 1, 1, 1, true),
		p("avg 9x2 k3x4 pad1x2 (W < window)", isaplanar.FnPoolAvg, 9, 2, 3, 4, 1, 1, 2, false),
		p("max 8x8 k8 s8", isaplanar.FnPoolMax, 8, 8, 8, 8, 8, 0, 0, false),
		p("avg 8x8 k8 s2 pad7 edge", isaplanar.FnPoolAvg, 8, 8, 8, 8, 2, 7, 7, true),
		p("max 9x9 k2 s3 (stride > window)", isaplanar.FnPoolMax, 9, 9, 2, 2, 3, 0, 0, false),
		p("max 6x1 k3x1 (one column)", isaplanar.FnPoolMax, 6, 1, 3, 1, 1, 0, 0, false),
		p("avg 6x1 k3x1 pad1 edge (one column)", isaplanar.FnPoolAvg, 6, 1, 3, 1, 1, 1, 0, true),
		p("max 3x16 k1x1: the widest row", isaplanar.FnPoolMax, 3, 16, 1, 1, 1, 0, 0, false),
		p("avg 4x18 k3 s1 pad0: ow 16", isaplanar.FnPoolAvg, 4, 18, 3, 3, 1, 0, 0, false),
		p("max 10x11 k5x2 s2 pad2x1 zero", isaplanar.FnPoolMax, 10, 11, 5, 2, 2, 2, 1, false),
		p("max 11x10 k4 s3 pad3 edge (trailing rows and columns unused)", isaplanar.FnPoolMax, 11, 10, 4, 4, 3, 0, 0, true),
		p("avg 3x3 k2 s1 pad1 zero", isaplanar.FnPoolAvg, 3, 3, 2, 2, 1, 1, 1, false),
		p("avg 12x1 k1x1", isaplanar.FnPoolAvg, 12, 1, 1, 1, 1, 0, 0, false),
		p("min 1x1 k3 pad1 zero (the padding's 0 wins over positives)", isaplanar.FnPoolMin, 1, 1, 3, 3, 1, 1, 1, false),
		p("min 5x7 k3 s1 pad1 edge", isaplanar.FnPoolMin, 5, 7, 3, 3, 1, 1, 1, true),
		p("min 7x5 k3x2 s2 pad1 zero", isaplanar.FnPoolMin, 7, 5, 3, 2, 2, 1, 1, false),
		p("min 6x1 k3x1 (one column)", isaplanar.FnPoolMin, 6, 1, 3, 1, 1, 0, 0, false),
		ign(p("max 1x1 k3 pad2 ignored", isaplanar.FnPoolMax, 1, 1, 3, 3, 1, 2, 2, false)),
		ign(p("max 5x7 k3 s1 pad1 ignored", isaplanar.FnPoolMax, 5, 7, 3, 3, 1, 1, 1, false)),
		ign(p("min 7x5 k3x2 s2 pad1 ignored", isaplanar.FnPoolMin, 7, 5, 3, 2, 2, 1, 1, false)),
		ign(p("max 2x9 k3 pad1 ignored (H < window)", isaplanar.FnPoolMax, 2, 9, 3, 3, 1, 1, 1, false)),
		ign(p("min 8x8 k8 s2 pad7 ignored", isaplanar.FnPoolMin, 8, 8, 8, 8, 2, 7, 7, false)),
		ign(p("max 6x1 k3x1 pad1 ignored (one column)", isaplanar.FnPoolMax, 6, 1, 3, 1, 1, 1, 0, false)),
		ign(p("min 10x11 k5x2 s2 pad2x1 ignored", isaplanar.FnPoolMin, 10, 11, 5, 2, 2, 2, 1, false)),
	}
}

// avgScale returns a scale and shift that divide by n (approximately:
// exactly when n is a power of two) with a scale of at most w bits.
func avgScale(n, w int) (int64, int) {
	best, sh := int64(1), 0
	for s := 0; s < 40; s++ {
		v := (int64(1)<<uint(s) + int64(n)/2) / int64(n)
		if v >= 1<<uint(w-1) {
			break
		}
		best, sh = v, s
	}
	return best, sh
}

// runSuite runs tasks one after another on b, checking each against the
// golden model (every state-buffer word), the access counts and, when
// exact, the cycle count formula (else a lower bound).
func runSuite(t *testing.T, b *bench, tasks []namedTask, exact bool) {
	t.Helper()
	for _, nt := range tasks {
		if err := nt.t.Validate(b.cfg.Sizes); err != nil {
			t.Fatalf("%s: test task invalid: %v", nt.name, err)
		}
		res := b.run(nt.t)
		b.expect(nt.t)
		b.checkMemory(nt.name)
		if res.errCode != isaplanar.ErrNone {
			t.Errorf("%s: error status %v", nt.name, res.errCode)
		}
		g := taskPasses(b.cfg, nt.t)
		if res.reads != g*nt.t.Reads(b.cfg.Sizes) || res.writes != g*nt.t.Writes() {
			t.Errorf("%s: %d reads and %d writes, want %d and %d", nt.name, res.reads, res.writes, g*nt.t.Reads(b.cfg.Sizes), g*nt.t.Writes())
		}
		psum := nt.t.Op == isaplanar.OpAct || nt.t.Op == isaplanar.OpWriteBack
		if (psum && res.plrRds != 0) || (!psum && res.psumReads != 0) {
			t.Errorf("%s: read the wrong buffer (%d state, %d psum reads)", nt.name, res.plrRds, res.psumReads)
		}
		want := b.cfg.Cycles(nt.t)
		if (exact && res.cycles != want) || res.cycles < want {
			t.Errorf("%s: %d cycles, formula %d", nt.name, res.cycles, want)
		}
	}
}

// taskPasses is how many passes t makes over its plane: every pass
// reads (and writes) what a single pass does.
func taskPasses(c Config, t isaplanar.Task) int {
	if t.Op == isaplanar.OpNop {
		return 1
	}
	return c.PassesOf(t.Mask)
}

func TestActivationAndWriteBack(t *testing.T) {
	runSuite(t, newBench(t, smallConfig(), 1, 0), actTasks(), true)
}

func TestEltwise(t *testing.T) {
	runSuite(t, newBench(t, smallConfig(), 2, 0), eltTasks(), true)
}

func TestReduce(t *testing.T) {
	runSuite(t, newBench(t, smallConfig(), 3, 0), reduceTasks(), true)
}

func TestPool(t *testing.T) {
	runSuite(t, newBench(t, smallConfig(), 4, 0), poolTasks(), true)
}

// With pad_ignore the padding never wins: a max pool of a negative plane
// stays negative at the borders (zero padding would give 0 there), a min
// pool of a positive plane stays positive, and planes holding the element
// type's extremes (the padding value itself) pool to them.
func TestPoolPadIgnore(t *testing.T) {
	type poolCase struct {
		name          string
		fn            isaplanar.Fn
		h, w, k, s, p int
	}
	for _, tc := range []struct {
		c     Config
		cases []poolCase
	}{
		{smallConfig(), []poolCase{
			{"max 5x7 k3 s1 pad1", isaplanar.FnPoolMax, 5, 7, 3, 1, 1}, {"max 8x8 k8 s2 pad7", isaplanar.FnPoolMax, 8, 8, 8, 2, 7},
			{"max 4x15 k2 s1 pad1", isaplanar.FnPoolMax, 4, 15, 2, 1, 1}, {"min 5x7 k3 s2 pad1", isaplanar.FnPoolMin, 5, 7, 3, 2, 1},
			{"min 6x1 k3 s1 pad2", isaplanar.FnPoolMin, 6, 1, 3, 1, 2}, {"min 3x3 k2 s1 pad1", isaplanar.FnPoolMin, 3, 3, 2, 1, 1},
		}},
		{unsignedConfig(), []poolCase{ // the minimum is 0 here: only min pooling differs from zero padding
			{"min 4x7 k3 s1 pad1", isaplanar.FnPoolMin, 4, 7, 3, 1, 1}, {"min 5x5 k3 s2 pad2", isaplanar.FnPoolMin, 5, 5, 3, 2, 2},
			{"max 4x7 k3 s1 pad1", isaplanar.FnPoolMax, 4, 7, 3, 1, 1},
		}},
	} {
		c := tc.c
		et := c.ElemType()
		half := c.StateDepth / 2
		t.Run(Name(c), func(t *testing.T) {
			// Lower quarter, for max pooling: negative values (any when
			// unsigned), every fifth one the minimum; second quarter, for
			// min pooling: positive values, every fifth one the maximum.
			b := newBenchWith(t, c, 41, 0, func(state, _ [][]int64) {
				for p := range state {
					for a := 0; a < half; a++ {
						lo, hi, extreme := minOf(et), int64(-1), minOf(et)
						if !c.ElemSigned {
							hi = maxOf(et)
						}
						if a >= half/2 {
							lo, hi, extreme = 1, maxOf(et), maxOf(et)
						}
						state[p][a] = lo + int64(a*37+p*11)%(hi-lo+1)
						if a%5 == 0 {
							state[p][a] = extreme
						}
					}
				}
			})
			var tasks []namedTask
			for _, pc := range tc.cases {
				tk := isaplanar.Task{Op: isaplanar.OpPool, Fn: pc.fn, Mask: 1<<uint(c.Lanes) - 1, Dst: half, H: pc.h, W: pc.w,
					KH: pc.k, KW: pc.k, Stride: pc.s, PadH: min(pc.p, pc.k-1), PadW: pc.p, PadIgnore: true, Scale: 1}
				if pc.fn == isaplanar.FnPoolMin {
					tk.Src = half / 2
				}
				if pc.w == 1 {
					tk.KW, tk.PadW = 1, 0
				}
				tasks = append(tasks, namedTask{pc.name, tk})
			}
			for _, nt := range tasks {
				runSuite(t, b, []namedTask{nt}, true)
				oh, ow := nt.t.PoolOut()
				for p := range c.Lanes {
					for _, v := range b.state[p][half : half+oh*ow] {
						if (nt.t.Fn == isaplanar.FnPoolMax && c.ElemSigned && v >= 0) || (nt.t.Fn == isaplanar.FnPoolMin && v <= 0) {
							t.Errorf("%s: lane %d pooled %d: the padding won", nt.name, p, v)
							break
						}
					}
				}
			}
		})
	}
}

// randomPool draws a valid pooling task for c.
func randomPool(r *rand.Rand, c Config) isaplanar.Task {
	for {
		t := isaplanar.Task{Op: isaplanar.OpPool, Fn: isaplanar.Fn(r.IntN(2)), Mask: uint64(1 + r.IntN(1<<uint(c.Lanes)-1)),
			KH: 1 + r.IntN(c.MaxKernel), KW: 1 + r.IntN(c.MaxKernel), Stride: 1 + r.IntN(c.MaxKernel), PadEdge: r.IntN(2) == 1,
			H: 1 + r.IntN(12), W: 1 + r.IntN(20), Scale: 1, RoundEven: r.IntN(2) == 1, Src: r.IntN(40)}
		t.PadH, t.PadW = r.IntN(t.KH), r.IntN(t.KW)
		if t.Fn == isaplanar.FnPoolAvg {
			t.Scale, t.Shift = avgScale(t.KH*t.KW, c.ScaleWidth)
		}
		t.Dst = 128 + r.IntN(16)
		if t.Validate(c.Sizes) == nil && t.Dst+t.Writes() <= 240 {
			return t
		}
	}
}

// Random windows, strides, paddings and planes against the golden model.
func TestPoolRandom(t *testing.T) {
	c := smallConfig()
	b := newBench(t, c, 5, 0)
	r := rand.New(rand.NewPCG(5, 5))
	n := 150
	if testing.Short() {
		n = 40
	}
	var tasks []namedTask
	for i := range n {
		tk := randomPool(r, c)
		tasks = append(tasks, namedTask{fmt.Sprintf("random %d %+v", i, tk), tk})
	}
	runSuite(t, b, tasks, true)
}

// The line buffer reads every input element exactly once: the read count
// is H·W whatever the window overlap (checked for every task by
// runSuite; here explicitly for heavy overlap).
func TestPoolReadsOnce(t *testing.T) {
	c := smallConfig()
	b := newBench(t, c, 6, 0)
	for _, k := range []int{1, 2, 5, 8} {
		tk := isaplanar.Task{Op: isaplanar.OpPool, Fn: isaplanar.FnPoolMax, Mask: all4, Src: 0, Dst: 128, H: 6, W: 7, KH: k, KW: k, Stride: 1, PadH: (k - 1) / 2, PadW: k - 1, Scale: 1}
		if err := tk.Validate(c.Sizes); err != nil {
			t.Fatal(err)
		}
		res := b.run(tk)
		b.expect(tk)
		b.checkMemory(fmt.Sprint("k", k))
		oh, ow := tk.PoolOut()
		if res.reads != 6*7 || res.writes != oh*ow {
			t.Errorf("k=%d: %d reads (want H·W = 42), %d writes (want %d)", k, res.reads, res.writes, oh*ow)
		}
	}
}

// Steady state: one element per lane per cycle (each element more costs
// exactly one cycle) for act, writeback, scalar eltwise and reduce; two
// cycles per element for two-tensor eltwise (two reads of one bank port);
// pooling with stride 1 and no padding: one cycle per input element.
func TestThroughput(t *testing.T) {
	c := smallConfig()
	b := newBench(t, c, 7, 0)
	cases := []struct {
		name    string
		mk      func(n int) isaplanar.Task
		perElem int
	}{
		{"act", func(n int) isaplanar.Task {
			return isaplanar.Task{Op: isaplanar.OpAct, Mask: 7, Src: 0, Dst: 128, H: 1, W: n, Scale: 1}
		}, 1},
		{"writeback", func(n int) isaplanar.Task {
			return isaplanar.Task{Op: isaplanar.OpWriteBack, Mask: 7, Src: 0, Dst: 128, H: n, W: 1}
		}, 1},
		{"eltwise scalar", func(n int) isaplanar.Task {
			return withID(isaplanar.Task{Op: isaplanar.OpEltwise, Mask: all4, Src: 0, Dst: 128, H: 1, W: n, ScalarOperand: true})
		}, 1},
		{"eltwise two tensors", func(n int) isaplanar.Task {
			return withID(isaplanar.Task{Op: isaplanar.OpEltwise, Mask: all4, Src: 0, Src2: 64, Dst: 128, H: 1, W: n})
		}, 2},
		{"reduce", func(n int) isaplanar.Task {
			return withID(isaplanar.Task{Op: isaplanar.OpReduce, Mask: all4, Src: 0, Dst: 128, H: 1, W: n})
		}, 1},
		{"pool 2x2 s1 (per input element)", func(n int) isaplanar.Task {
			return withID(isaplanar.Task{Op: isaplanar.OpPool, Mask: all4, Src: 0, Dst: 128, H: n / 4, W: 4, KH: 2, KW: 2, Stride: 1})
		}, 1},
	}
	for _, tc := range cases {
		small, large := tc.mk(16), tc.mk(48)
		r1, r2 := b.run(small), b.run(large)
		b.expect(small)
		b.expect(large)
		if got := r2.cycles - r1.cycles; got != 32*tc.perElem {
			t.Errorf("%s: 32 more elements took %d more cycles, want %d", tc.name, got, 32*tc.perElem)
		}
	}
	b.checkMemory("throughput")
}

// Back-to-back tasks: the engine accepts the next task in the cycle of
// the previous one's done pulse.
func TestBackToBack(t *testing.T) {
	c := smallConfig()
	b := newBench(t, c, 8, 0)
	first := isaplanar.Task{Op: isaplanar.OpWriteBack, Mask: 7, Src: 0, Dst: 128, H: 2, W: 2}
	r1 := b.run(first)
	b.expect(first)
	second := withID(isaplanar.Task{Op: isaplanar.OpReduce, Mask: all4, Src: 128, Dst: 140, H: 2, W: 2})
	// run() presents the task in the cycle after the done pulse; the
	// engine must be ready there already.
	r2 := b.run(second)
	b.expect(second)
	b.checkMemory("back to back")
	if r2.acceptAt != r1.doneAt+1 {
		t.Errorf("second task accepted in cycle %d, first done in %d", r2.acceptAt, r1.doneAt)
	}
}
