package planar

import (
	"errors"
	"fmt"
	"strings"
)

func joinErrs(errs []error) error { return errors.Join(errs...) }

// errList collects a task's TaskErrors in the hardware's order.
type errList []error

func (l *errList) add(code ErrCode, field string, v any, allowed string, args ...any) {
	*l = append(*l, &TaskError{code, field, v, fmt.Sprintf(allowed, args...)})
}

// fnNames lists the functions' names, comma separated.
func fnNames(fns []FnDef) string {
	names := make([]string, len(fns))
	for i, d := range fns {
		names[i] = d.Name
	}
	return strings.Join(names, ", ")
}

// Validate checks t against the configuration c. Every error is a
// *TaskError naming the field, its value and what is allowed. Values that
// do not fit their descriptor fields (ErrField) are reported alone;
// otherwise the errors come in the order the hardware checks them, so the
// hardware flags FirstCode of the result.
func (t Task) Validate(c Sizes) error {
	if err := t.fieldErrors(c); err != nil {
		return err
	}
	var errs errList
	bad := errs.add
	if t.Op >= NumOps {
		bad(ErrOp, "op", uint8(t.Op), "must be one of 0..%d %v", NumOps-1, opNames)
		return joinErrs(errs)
	}
	if t.Op == OpLoadTable && !c.LUT {
		bad(ErrOp, "op", uint8(t.Op), "loadtable needs the lookup table, which this engine lacks (lut = false): its ops are 0..%d %v", OpLoadTable-1, opNames[:OpLoadTable])
		return joinErrs(errs)
	}
	if t.Op == OpNop {
		return nil
	}
	if fns := FnsOf(t.Op); len(fns) > 0 && int(t.Fn) >= len(fns) {
		bad(ErrFn, "fn", uint8(t.Fn), "%s functions are 0..%d (%s)", t.Op, len(fns)-1, fnNames(fns))
	}
	switch {
	case t.Post >= NumPosts:
		bad(ErrFn, "post", uint8(t.Post), "must be 0 (none), 1 (sqrt) or 2 (recip)")
	case t.Post != PostNone && t.Op != OpReduce:
		bad(ErrFn, "post", uint8(t.Post), "%v applies to reductions only (op reduce), not to %v", t.Post, t.Op)
	}
	if f := c.MissingFeature(t); f != nil && len(errs) == 0 {
		bad(ErrFn, f.Attr, f.AttrValue(t), "this engine has no %s (no_%s in its configuration)", f.Name, f.Name)
	}
	if t.Lut && t.hasPost() && !c.LUT {
		bad(ErrFn, "lut", true, "this engine has no lookup table (lut = false in its configuration)")
	}
	psum := t.Op == OpAct || t.Op == OpWriteBack
	switch {
	case t.Mask == 0:
		bad(ErrMask, "mask", "0x0", "must name at least one lane")
	case psum && c.PsumLanes < 64 && t.Mask>>uint(c.PsumLanes) != 0:
		bad(ErrMask, "mask", fmt.Sprintf("%#x", t.Mask), "%s reads the psum buffer: only its %d partitions (bits 0..%d)", t.Op, c.PsumLanes, c.PsumLanes-1)
	case t.Op == OpLoadTable && (c.TableLanes() > MaskLanes || t.Mask&c.tableMask() != c.tableMask()):
		bad(ErrMask, "mask", fmt.Sprintf("%#x", t.Mask), "loadtable reads entry k from lane k mod %d: the mask must name lanes 0..%d (%#x)", c.Lanes, c.TableLanes()-1, c.tableMask())
	}
	if t.Op != OpLoadParams && t.Op != OpLoadTable {
		if t.H < 1 {
			bad(ErrShape, "h", t.H, "must be at least 1")
		}
		if t.W < 1 {
			bad(ErrShape, "w", t.W, "must be at least 1")
		}
	}
	oh, ow := 0, 0
	if t.Op == OpPool {
		var pe errList
		pe, oh, ow = t.poolErrors(c)
		errs = append(errs, pe...)
	}
	if t.AcrossRows() && t.W > c.LineDepth {
		bad(ErrLine, "w", t.W, "a reduction across rows keeps one sum per column in the line buffer: at most %d columns (line_depth)", c.LineDepth)
	}
	n := t.H * t.W
	srcDepth, srcName := c.StateDepth, "state"
	if psum {
		srcDepth, srcName = c.PsumDepth, "psum"
	}
	nsrc := n
	if t.Op == OpLoadParams || t.Op == OpLoadTable {
		nsrc = t.Reads(c)
	}
	if t.Src+nsrc > srcDepth {
		bad(ErrSrc, "src", t.Src, "the %d elements read from it must lie in the %s buffer: at most %d", nsrc, srcName, srcDepth-nsrc)
	}
	two := t.twoTensors()
	if n2 := t.Src2Elements(); n2 > 0 && t.Src2+n2 > c.StateDepth {
		bad(ErrSrc2, "src2", t.Src2, "the %d elements read from it must lie in the state buffer: at most %d", n2, c.StateDepth-n2)
	}
	if t.Op == OpEltwise && t.Broadcast && t.ScalarOperand {
		bad(ErrSrc2, "broadcast", true, "scalar_operand is set too: the second operand is either the scalar or one element per lane at src2")
	}
	nout := 0
	switch t.Op {
	case OpAct, OpWriteBack, OpEltwise:
		nout = n
	case OpPool:
		nout = oh * ow
	case OpReduce:
		nout = t.Writes()
	}
	if nout > 0 && t.Dst+nout > c.StateDepth {
		bad(ErrDst, "dst", t.Dst, "the %d elements written must lie in the state buffer: at most %d", nout, c.StateDepth-nout)
	}
	switch {
	case t.Op == OpEltwise && t.Dst > t.Src && t.Dst < t.Src+n:
		bad(ErrOverlap, "dst", t.Dst, "eltwise writes behind its reads: dst must be ≤ src (%d) or ≥ src+%d", t.Src, n)
	case two && t.Dst > t.Src2 && t.Dst < t.Src2+n:
		bad(ErrOverlap, "dst", t.Dst, "eltwise writes behind its reads: dst must be ≤ src2 (%d) or ≥ src2+%d", t.Src2, n)
	case t.AcrossRows() && t.Dst > t.Src+n-t.W && t.Dst < t.Src+n:
		bad(ErrOverlap, "dst", t.Dst, "a reduction across rows writes its results behind the last row's reads: dst must be ≤ src+(h−1)·w (%d) or ≥ src+h·w (%d)", t.Src+n-t.W, t.Src+n)
	case t.Op == OpPool && nout > 0 && t.Dst < t.Src+n && t.Src < t.Dst+nout:
		bad(ErrOverlap, "dst", t.Dst, "the pooled output (%d elements) may not overlap the input at %d..%d", nout, t.Src, t.Src+n-1)
	}
	if t.hasPost() {
		if t.Shift > c.MaxShift() {
			bad(ErrShift, "shift", t.Shift, "must be in 0..%d", c.MaxShift())
		}
		if t.Clamp && t.Lo > t.Hi {
			bad(ErrClamp, "lo", t.Lo, "must not exceed hi = %d", t.Hi)
		}
	}
	return joinErrs(errs)
}

// hasPost reports whether t's results go through the post-processor
// (and the lut stage): act, eltwise, pool and reduce.
func (t Task) hasPost() bool {
	return t.Op == OpAct || t.Op == OpEltwise || t.Op == OpPool || t.Op == OpReduce
}

// tableMask has a bit for every lane holding table entries (those a
// Go mask can name: a table over more than MaskLanes lanes cannot be
// loaded by a Go-built task).
func (s Sizes) tableMask() uint64 {
	if s.TableLanes() >= MaskLanes {
		return ^uint64(0)
	}
	return 1<<uint(s.TableLanes()) - 1
}

// poolErrors is a pooling task's window errors (kernel, padding,
// window, line), in the hardware's order, and its output plane when the
// window is sound (0, 0 otherwise).
func (t Task) poolErrors(c Sizes) (errs errList, oh, ow int) {
	bad := errs.add
	for _, k := range []struct {
		name string
		v    int
	}{{"kh", t.KH}, {"kw", t.KW}, {"stride", t.Stride}} {
		if k.v < 1 || k.v > c.MaxKernel {
			bad(ErrKernel, k.name, k.v, "must be in 1..%d (max_kernel)", c.MaxKernel)
		}
	}
	if t.PadH >= t.KH {
		bad(ErrPad, "pad_h", t.PadH, "must be below kh = %d", t.KH)
	}
	if t.PadW >= t.KW {
		bad(ErrPad, "pad_w", t.PadW, "must be below kw = %d", t.KW)
	}
	switch {
	case t.PadIgnore && t.Fn == FnPoolAvg:
		bad(ErrPad, "pad_ignore", true, "only max and min pooling ignore the padding: an average's divisor would change")
	case t.PadIgnore && t.PadEdge:
		bad(ErrPad, "pad_ignore", true, "pad_edge is set too: a task pads one way")
	}
	if t.KH > t.H+2*t.PadH {
		bad(ErrWindow, "kh", t.KH, "the window must fit the padded plane: at most h+2·pad_h = %d", t.H+2*t.PadH)
	}
	if t.KW > t.W+2*t.PadW {
		bad(ErrWindow, "kw", t.KW, "the window must fit the padded plane: at most w+2·pad_w = %d", t.W+2*t.PadW)
	}
	if len(errs) == 0 {
		oh, ow = t.PoolOut()
		if ow > c.LineDepth {
			bad(ErrLine, "w", t.W, "the output row (ow = %d) must fit the line buffer of %d entries (line_depth)", ow, c.LineDepth)
		}
	}
	return errs, oh, ow
}
