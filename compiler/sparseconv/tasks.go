package sparseconv

import (
	"math/big"

	hw "github.com/hwgen/hwgen/blocks/sparse"
)

// ClearTask clears the accumulators of unit i's output plane.
func (p *Program) ClearTask(i int) *big.Int {
	return p.task(hw.OpClear, 0, int64(p.Units[i].OH*p.Units[i].OW), 0, i)
}

// ConvTask scatters unit i's chunk k (loaded into buffer set set) for
// pass t.
func (p *Program) ConvTask(i, t, k, set int) *big.Int {
	ch := p.Units[i].Chunks[k]
	return p.task(hw.OpConv, int64(set), int64(ch.Hi-ch.Lo), int64(t*p.Conv.C), i)
}

// StrideLog2 is the task's stride field.
func (p *Program) StrideLog2() int64 {
	n := int64(0)
	for 1<<uint(n) < p.Conv.Stride {
		n++
	}
	return n
}

func (p *Program) task(op, set, count, tbase int64, i int) *big.Int {
	u := p.Units[i]
	rec, err := p.Config.Task().Pack(op, set, count, tbase, int64(u.OH), int64(u.OW), p.StrideLog2())
	if err != nil {
		// Compile checked every field's range.
		panic(err)
	}
	return rec
}
