package planar

// Cycles is the number of cycles from the cycle a task is accepted
// (t_valid and t_ready) to the cycle of its done pulse when neither
// buffer stalls the engine and the task passes the hardware checks (a
// task that fails them takes 2). Contention only adds cycles. See the
// package documentation for the formulas.
func (t Task) Cycles(c Config) int { return c.checkStages() + t.cycles(c) }

// valueStages is the extra registers on a value's way from X to the
// output FIFO.
func (c Config) valueStages() int { return c.mulStages() + c.outStages() }

// cycles is Cycles without the deep pipeline's PRE cycle.
func (t Task) cycles(c Config) int {
	if t.Validate(c) != nil {
		return 2
	}
	switch t.Op {
	case OpNop:
		return 3
	case OpLoadParams:
		return t.Reads(c) + 5
	case OpPool:
		steps, last := t.PoolSteps()
		return max(steps+5, last+12+2*c.windowStages()+c.valueStages())
	case OpReduce:
		// Across rows: the pooling walk of a 1×1 window, one stage more
		// than a plane's reduction. A post function holds every result.
		if t.acrossRows() {
			return t.Reads(c) + 11 + c.windowStages() + c.redStages() + c.valueStages() + t.W*c.postCycles(t.Post)
		}
		return t.Reads(c) + 10 + c.redStages() + c.valueStages() + c.postCycles(t.Post)
	case OpEltwise:
		return t.Reads(c) + 10 + c.eltStages() + c.valueStages()
	}
	return t.Reads(c) + 10 + c.valueStages()
}

// PoolSteps is the plane walker's work for a pooling task: steps, one
// per cycle, and the index of the step that completes the last output.
// Every input row takes max(W, c+1) steps, c = (OW−1)·S − PadW + KW − 1
// the column completing the last window of the row (the steps past W−1
// are right padding, made up without a read); every bottom-padding row
// needed by an output window takes OW steps (it reads nothing either).
func (t Task) PoolSteps() (steps, last int) {
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
