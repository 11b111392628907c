package planar

import isaplanar "github.com/hwgen/hwgen/isa/planar"

// Cycles is the number of cycles from the cycle task t is accepted
// (t_valid and t_ready) to the cycle of its done pulse when neither
// buffer stalls the engine and the task passes the hardware checks (a
// task that fails them takes 2). Contention only adds cycles. See the
// package documentation for the formulas. With passes (post_lanes below
// lanes) a task but a nop or a bad one runs its single-pass schedule once
// for each group of post_lanes partitions its mask names (PassesOf), each
// pass beginning in the cycle the last one ends: G·(n − 1) + 1 for G
// passes of n.
func (c Config) Cycles(t isaplanar.Task) int {
	n := c.checkStages() + c.cycles(t)
	if g := c.PassesOf(t.Mask); g > 1 && t.Op != isaplanar.OpNop && t.Validate(c.Sizes) == nil {
		return g*(n-1) + 1
	}
	return n
}

// valueStages is the extra registers on a value's way from X to the
// output FIFO (deep_pipeline's, and the lut stage of t).
func (c Config) valueStages(t isaplanar.Task) int {
	return c.mulStages() + c.outStages() + lutStages(t)
}

// cycles is Cycles without the deep pipeline's PRE cycle.
func (c Config) cycles(t isaplanar.Task) int {
	if t.Validate(c.Sizes) != nil {
		return 2
	}
	switch t.Op {
	case isaplanar.OpNop:
		return 3
	case isaplanar.OpLoadParams, isaplanar.OpLoadTable:
		return t.Reads(c.Sizes) + 5
	case isaplanar.OpPool:
		steps, last := PoolSteps(t)
		return max(steps+5, last+12+2*c.windowStages()+c.valueStages(t))
	case isaplanar.OpReduce:
		// Across rows: the pooling walk of a 1×1 window, one stage more
		// than a plane's reduction. A post function holds every result.
		if t.AcrossRows() {
			return t.Reads(c.Sizes) + 11 + c.windowStages() + c.redStages() + c.valueStages(t) + t.W*c.postCycles(t.Post)
		}
		return t.Reads(c.Sizes) + 10 + c.redStages() + c.valueStages(t) + c.postCycles(t.Post)
	case isaplanar.OpEltwise:
		return c.readCycles(t) + 10 + c.eltStages() + c.valueStages(t)
	}
	return t.Reads(c.Sizes) + 10 + c.valueStages(t)
}

// readCycles is the cycles task t's reads take at one vector a cycle:
// its reads, but a two-tensor eltwise with Src2Port reads a and b in the
// same cycle (one cycle per element).
func (c Config) readCycles(t isaplanar.Task) int {
	if c.Src2Port && t.ReadsSrc2() && !t.Broadcast {
		return t.H * t.W
	}
	return t.Reads(c.Sizes)
}

// PoolSteps is the plane walker's work for a pooling task: steps, one
// per cycle, and the index of the step that completes the last output.
// Every input row takes max(W, c+1) steps, c = (OW−1)·S − PadW + KW − 1
// the column completing the last window of the row (the steps past W−1
// are right padding, made up without a read); every bottom-padding row
// needed by an output window takes OW steps (it reads nothing either).
func PoolSteps(t isaplanar.Task) (steps, last int) {
	oh, ow := t.PoolOut()
	lastCol := (ow-1)*t.Stride - t.PadW + t.KW - 1
	lastRow := (oh-1)*t.Stride - t.PadH + t.KH - 1
	row := max(t.W, lastCol+1)
	virt := max(0, lastRow-(t.H-1))
	steps = t.H*row + virt*ow
	if virt > 0 {
		last = steps - 1
	} else {
		last = lastRow*row + lastCol
	}
	return steps, last
}
