package planar

import (
	"errors"
	isaplanar "github.com/hwgen/hwgen/isa/planar"
	"strings"
	"testing"
)

// badTask is a task Validate rejects with code (the first) and msg.
type badTask struct {
	name string
	t    isaplanar.Task
	code isaplanar.ErrCode
	msg  string
}

// badTasks are rejected by Validate for c (smallConfig, or lutConfig)
// with the given first code and message; every one with a hardware code
// can be encoded raw and is flagged by the hardware with that code.
func badTasks(c Config) []badTask {
	if c.LUT {
		return append(commonBadTasks(),
			badTask{"loadtable without lane 3", isaplanar.Task{Op: isaplanar.OpLoadTable, Mask: 7}, isaplanar.ErrMask, "mask = 0x7 is not allowed: loadtable reads entry k from lane k mod 4: the mask must name lanes 0..3 (0xf)"},
			badTask{"table past the end", isaplanar.Task{Op: isaplanar.OpLoadTable, Mask: all4, Src: 193}, isaplanar.ErrSrc, "src = 193 is not allowed: the 64 elements read from it must lie in the state buffer: at most 192"})
	}
	return append(commonBadTasks(),
		badTask{"loadtable without a table", isaplanar.Task{Op: isaplanar.OpLoadTable, Mask: all4}, isaplanar.ErrOp, "op = 7 is not allowed: loadtable needs the lookup table, which this engine lacks (lut = false): its ops are 0..6"},
		badTask{"lut without a table", isaplanar.Task{Op: isaplanar.OpReduce, Mask: 1, H: 1, W: 1, Dst: 9, Scale: 1, Lut: true}, isaplanar.ErrFn, "lut = true is not allowed: this engine has no lookup table (lut = false in its configuration)"})
}

func commonBadTasks() []badTask {
	pool := isaplanar.Task{Op: isaplanar.OpPool, Mask: all4, Src: 0, Dst: 128, H: 4, W: 4, KH: 2, KW: 2, Stride: 2, Scale: 1}
	with := func(f func(*isaplanar.Task)) isaplanar.Task { t := pool; f(&t); return t }
	return []badTask{
		{"unknown eltwise function", isaplanar.Task{Op: isaplanar.OpEltwise, Fn: 7, Mask: 1, H: 1, W: 1, Dst: 9}, isaplanar.ErrFn, "fn = 7 is not allowed: eltwise functions are 0..6 (add, sub, mul, max, min, abs, neg)"},
		{"unknown reduction", isaplanar.Task{Op: isaplanar.OpReduce, Fn: 4, Mask: 1, H: 1, W: 1, Dst: 9, Scale: 1}, isaplanar.ErrFn, "fn = 4 is not allowed: reduce functions are 0..3 (sum, max, rowsum, rowmax)"},
		{"unknown post function", isaplanar.Task{Op: isaplanar.OpReduce, Mask: 1, H: 1, W: 1, Dst: 9, Scale: 1, Post: 3}, isaplanar.ErrFn, "post = 3 is not allowed: must be 0 (none), 1 (sqrt) or 2 (recip)"},
		{"post function outside a reduction", isaplanar.Task{Op: isaplanar.OpAct, Mask: 1, H: 1, W: 1, Dst: 9, Scale: 1, Post: isaplanar.PostSqrt}, isaplanar.ErrFn, "post = 1 is not allowed: sqrt applies to reductions only (op reduce), not to act"},
		{"unknown pooling function", with(func(t *isaplanar.Task) { t.Fn = 3 }), isaplanar.ErrFn, "fn = 3 is not allowed: pool functions are 0..2 (max, avg, min)"},
		{"empty mask", isaplanar.Task{Op: isaplanar.OpReduce, H: 1, W: 1}, isaplanar.ErrMask, "mask = 0x0 is not allowed: must name at least one lane"},
		{"act on a lane without psum", isaplanar.Task{Op: isaplanar.OpAct, Mask: 8, H: 1, W: 1, Dst: 128, Scale: 1}, isaplanar.ErrMask, "mask = 0x8 is not allowed: act reads the psum buffer: only its 3 partitions (bits 0..2)"},
		{"zero height", isaplanar.Task{Op: isaplanar.OpWriteBack, Mask: 1, H: 0, W: 3}, isaplanar.ErrShape, "h = 0 is not allowed: must be at least 1"},
		{"zero width", with(func(t *isaplanar.Task) { t.W = 0 }), isaplanar.ErrShape, "w = 0 is not allowed: must be at least 1"},
		{"zero stride", with(func(t *isaplanar.Task) { t.Stride = 0 }), isaplanar.ErrKernel, "stride = 0 is not allowed: must be in 1..8 (max_kernel)"},
		{"kernel too large", with(func(t *isaplanar.Task) { t.KH, t.H = 9, 9 }), isaplanar.ErrKernel, "kh = 9 is not allowed: must be in 1..8 (max_kernel)"},
		{"padding as large as the window", with(func(t *isaplanar.Task) { t.PadW = 2 }), isaplanar.ErrPad, "pad_w = 2 is not allowed: must be below kw = 2"},
		{"average pooling ignoring the padding", with(func(t *isaplanar.Task) { t.Fn, t.PadIgnore = isaplanar.FnPoolAvg, true }), isaplanar.ErrPad, "pad_ignore = true is not allowed: only max and min pooling ignore the padding: an average's divisor would change"},
		{"padding both ignored and edge", with(func(t *isaplanar.Task) { t.Fn, t.PadIgnore, t.PadEdge = isaplanar.FnPoolMin, true, true }), isaplanar.ErrPad, "pad_ignore = true is not allowed: pad_edge is set too: a task pads one way"},
		{"window larger than the padded plane", with(func(t *isaplanar.Task) { t.H, t.KH, t.PadH, t.Stride = 2, 5, 1, 1 }), isaplanar.ErrWindow, "kh = 5 is not allowed: the window must fit the padded plane: at most h+2·pad_h = 4"},
		{"output row wider than the line buffer", with(func(t *isaplanar.Task) { t.H, t.W, t.KH, t.KW, t.Stride = 1, 17, 1, 1, 1 }), isaplanar.ErrLine, "w = 17 is not allowed: the output row (ow = 17) must fit the line buffer of 16 entries (line_depth)"},
		{"row reduction wider than the line buffer", isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnRowSum, Mask: 1, Dst: 128, H: 2, W: 17, Scale: 1}, isaplanar.ErrLine, "w = 17 is not allowed: a reduction across rows keeps one sum per column in the line buffer: at most 16 columns (line_depth)"},
		{"psum source past the end", isaplanar.Task{Op: isaplanar.OpWriteBack, Mask: 1, Src: 60, Dst: 128, H: 2, W: 4}, isaplanar.ErrSrc, "src = 60 is not allowed: the 8 elements read from it must lie in the psum buffer: at most 56"},
		{"params past the end", isaplanar.Task{Op: isaplanar.OpLoadParams, Mask: 1, Src: 253}, isaplanar.ErrSrc, "src = 253 is not allowed: the 5 elements read from it must lie in the state buffer: at most 251"},
		{"second source past the end", isaplanar.Task{Op: isaplanar.OpEltwise, Mask: 1, Src: 0, Src2: 250, Dst: 128, H: 2, W: 4, Scale: 1}, isaplanar.ErrSrc2, "src2 = 250 is not allowed: the 8 elements read from it must lie in the state buffer: at most 248"},
		{"broadcast with a scalar operand", isaplanar.Task{Op: isaplanar.OpEltwise, Mask: 1, Src: 0, Src2: 5, Dst: 128, H: 2, W: 4, Scale: 1, ScalarOperand: true, Broadcast: true}, isaplanar.ErrSrc2, "broadcast = true is not allowed: scalar_operand is set too: the second operand is either the scalar or one element per lane at src2"},
		{"destination past the end", with(func(t *isaplanar.Task) { t.Dst = 253 }), isaplanar.ErrDst, "dst = 253 is not allowed: the 4 elements written must lie in the state buffer: at most 252"},
		{"eltwise writes ahead of its reads", isaplanar.Task{Op: isaplanar.OpEltwise, Mask: 1, Src: 10, Src2: 100, Dst: 11, H: 2, W: 4, Scale: 1}, isaplanar.ErrOverlap, "dst = 11 is not allowed: eltwise writes behind its reads: dst must be ≤ src (10) or ≥ src+8"},
		{"eltwise overlaps the second source", isaplanar.Task{Op: isaplanar.OpEltwise, Mask: 1, Src: 10, Src2: 100, Dst: 107, H: 2, W: 4, Scale: 1}, isaplanar.ErrOverlap, "dst = 107 is not allowed: eltwise writes behind its reads: dst must be ≤ src2 (100) or ≥ src2+8"},
		{"pooling output over its input", with(func(t *isaplanar.Task) { t.Dst = 15 }), isaplanar.ErrOverlap, "dst = 15 is not allowed: the pooled output (4 elements) may not overlap the input at 0..15"},
		{"row reduction writing ahead of its last row's reads", isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnRowMax, Mask: 1, Src: 10, Dst: 19, H: 3, W: 4, Scale: 1}, isaplanar.ErrOverlap, "dst = 19 is not allowed: a reduction across rows writes its results behind the last row's reads: dst must be ≤ src+(h−1)·w (18) or ≥ src+h·w (22)"},
		{"shift too large", isaplanar.Task{Op: isaplanar.OpReduce, Mask: 1, Dst: 128, H: 1, W: 1, Scale: 1, Shift: 31}, isaplanar.ErrShift, "shift = 31 is not allowed: must be in 0..30"},
		{"clamp bounds crossed", isaplanar.Task{Op: isaplanar.OpAct, Mask: 1, Dst: 128, H: 1, W: 1, Scale: 1, Clamp: true, Lo: 5, Hi: -5}, isaplanar.ErrClamp, "lo = 5 is not allowed: must not exceed hi = -5"},
		{"scalar not an element", isaplanar.Task{Op: isaplanar.OpEltwise, Mask: 1, H: 1, W: 1, Dst: 9, ScalarOperand: true, Scalar: 200}, isaplanar.ErrField, "scalar = 200 is not allowed: must fit its 8-bit field: -128..127"},
		{"scale too wide", isaplanar.Task{Op: isaplanar.OpAct, Mask: 1, H: 1, W: 1, Dst: 9, Scale: 600}, isaplanar.ErrField, "scale = 600 is not allowed: must fit its 10-bit field: -512..511"},
		{"mask beyond the lanes", isaplanar.Task{Op: isaplanar.OpReduce, Mask: 0x10, H: 1, W: 1}, isaplanar.ErrField, "mask = 0x10 is not allowed: must have bits only below 4 (the lanes)"},
		{"plane too large to encode", isaplanar.Task{Op: isaplanar.OpReduce, Mask: 1, H: 600, W: 1}, isaplanar.ErrField, "h = 600 is not allowed: must fit its 9-bit field: 0..511"},
	}
}

// The compiler side rejects bad tasks with the field, the value, what is
// allowed and the code the hardware would report.
func TestValidateErrors(t *testing.T) {
	for _, c := range []Config{smallConfig(), lutConfig()} {
		validateErrors(t, c)
	}
}

func validateErrors(t *testing.T, c Config) {
	for _, tc := range badTasks(c) {
		err := tc.t.Validate(c.Sizes)
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		if !errors.Is(err, isaplanar.ErrTask) || isaplanar.FirstCode(err) != tc.code {
			t.Errorf("%s: first code %v, want %v (%v)", tc.name, isaplanar.FirstCode(err), tc.code, err)
		}
		if !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: error %q does not say %q", tc.name, err, tc.msg)
		}
		if _, err := tc.t.Encode(c.Sizes); err == nil {
			t.Errorf("%s: Encode accepted it", tc.name)
		}
		if _, err := tc.t.EncodeRaw(c.Sizes); (err != nil) != (tc.code == isaplanar.ErrField) {
			t.Errorf("%s: EncodeRaw error %v, want one only for ErrField", tc.name, err)
		}
	}
	// Several bad fields: all listed, the hardware's check order first.
	multi := isaplanar.Task{Op: isaplanar.OpPool, Mask: 1, H: 4, W: 4, KH: 0, KW: 2, Stride: 1, Dst: 128, Shift: 31}
	err := multi.Validate(c.Sizes)
	if isaplanar.FirstCode(err) != isaplanar.ErrKernel || !strings.Contains(err.Error(), "shift = 31") {
		t.Errorf("multiple errors: %v", err)
	}
	for _, good := range append(append(actTasks(), eltTasks()...), poolTasks()...) {
		if _, err := good.t.Encode(c.Sizes); err != nil {
			t.Errorf("%s: %v", good.name, err)
		}
	}
}

// Bad tasks that reach the hardware anyway end with a done pulse two
// cycles after acceptance and the error code Validate predicts, touching
// no memory; the next good task runs normally.
func TestHardwareErrorStatus(t *testing.T) {
	for _, c := range []Config{smallConfig(), lutConfig()} {
		t.Run(Name(c), func(t *testing.T) { hardwareErrorStatus(t, c) })
	}
}

func hardwareErrorStatus(t *testing.T, c Config) {
	b := newBench(t, c, 11, 0)
	check := func(name string, res taskRun, want isaplanar.ErrCode) {
		t.Helper()
		if res.errCode != want || res.cycles != 2 || res.reads != 0 || res.writes != 0 {
			t.Errorf("%s: code %v in %d cycles with %d reads, %d writes; want code %v in 2 cycles, no access",
				name, res.errCode, res.cycles, res.reads, res.writes, want)
		}
	}
	for _, tc := range badTasks(c) {
		if tc.code == isaplanar.ErrField {
			continue
		}
		check(tc.name, b.run(tc.t), tc.code)
		b.checkMemory(tc.name)
	}
	// A raw descriptor whose OH/OW do not match its pooling: the walk
	// would never end, so the hardware refuses it.
	good := isaplanar.Task{Op: isaplanar.OpPool, Mask: all4, Src: 0, Dst: 128, H: 5, W: 5, KH: 3, KW: 3, Stride: 2, Scale: 1}
	for _, f := range []struct {
		name  string
		delta int64
	}{{"oh", 1}, {"oh", -1}, {"ow", 1}, {"ow", -2}} {
		fields, err := good.Encode(c.Sizes)
		if err != nil {
			t.Fatal(err)
		}
		for i := range fields {
			if fields[i].Name == f.name {
				fields[i].Value = uint64(int64(fields[i].Value) + f.delta)
			}
		}
		check(f.name, b.runFields(good, fields), isaplanar.ErrOutShape)
	}
	b.checkMemory("out shape")
	res := b.run(good)
	b.expect(good)
	b.checkMemory("good task after errors")
	if res.errCode != isaplanar.ErrNone || res.cycles != c.Cycles(good) {
		t.Errorf("good task after errors: code %v, %d cycles (want %d)", res.errCode, res.cycles, c.Cycles(good))
	}
}
