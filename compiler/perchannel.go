package compiler

import (
	"fmt"

	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/isa/planar"
)

// Per-output-channel requantization uses the planar engine's lane
// registers: a loadparams task sets every lane's scale and bias from
// ParamWords state elements, and an act with PerLane uses them. Lane p
// of output tile t is output channel t·Cols+p, so one table of
// parameters per tile serves every act of that tile.
//
// The table is an input binding of its own, <layer>.q (next to the
// weights <layer>.w or .b), of shape [channels][ParamWords]: element
// (o, i) is word i of channel o's parameters, the scale then the bias,
// each two's complement and little-endian in whole elements, exactly
// as loadparams reads them. In external memory tile t takes ParamWords
// lines from line t·ParamWords of the binding; line i of the tile holds
// word i of lane p in element p. One load brings all tiles into a state
// region of tiles·ParamWords addresses that lives as long as the layer.

// check reports a scale or bias the lane registers cannot hold.
func (pc *ChannelRequant) check(c planar.Sizes) error {
	fits := func(field string, v []int64, width int, name string) error {
		lo, hi := -int64(1)<<uint(width-1), int64(1)<<uint(width-1)-1
		for o, x := range v {
			if x < lo || x > hi {
				return fmt.Errorf("per-channel %s[%d] = %d is outside %d..%d (%s = %d signed bits)", field, o, x, lo, hi, name, width)
			}
		}
		return nil
	}
	if err := fits("Scale", pc.Scale, c.ScaleWidth, "scale_width"); err != nil {
		return err
	}
	return fits("Bias", pc.Bias, c.AccWidth, "acc_width")
}

// words packs pc into the loadparams table: [channels][ParamWords]
// element values (signed elements, as external memory holds them).
func (pc *ChannelRequant) words(c planar.Sizes) *golden.Tensor {
	pw, ew := c.ParamWords(), c.ElemWidth
	ns := ceilDiv(c.ScaleWidth, ew)
	elem := golden.S(ew)
	t := golden.New(len(pc.Scale), pw)
	put := func(row []int64, v int64, width int) {
		bits := uint64(v) & (1<<uint(width) - 1)
		for i := range row {
			row[i] = elem.Wrap(int64(bits & (1<<uint(ew) - 1)))
			bits >>= uint(ew)
		}
	}
	for o := range pc.Scale {
		row := t.Data[o*pw : (o+1)*pw]
		put(row[:ns], pc.Scale[o], c.ScaleWidth)
		put(row[ns:], pc.Bias[o], c.AccWidth)
	}
	return t
}

// bindChannelParams places layer j's per-channel table in external
// memory and the image, takes its state region from sc and loads it
// there; it returns the region's base (tile t at base + t·ParamWords).
func (c *ctx) bindChannelParams(j *convJob, sc *scratch) (int, error) {
	pw, nt := c.pcfg.ParamWords(), ceilDiv(j.outSlots(), c.C)
	b := &Binding{Name: j.label + ".q", Shape: []int{j.n, pw}, Lines: nt * pw, Rows: c.R}
	b.Index = make([]int32, b.Lines*b.Rows)
	for t := 0; t < nt; t++ {
		for i := 0; i < pw; i++ {
			for p := 0; p < c.R; p++ {
				idx := -1
				if o := j.outChan(t*c.C + p); p < c.C && o >= 0 {
					idx = o*pw + i
				}
				b.Index[(t*pw+i)*c.R+p] = int32(idx)
			}
		}
	}
	b.Base = c.extAlloc(b.Lines)
	c.prog.Inputs = append(c.prog.Inputs, b)
	lines, err := b.ToLines(j.pc.words(c.pcfg))
	if err != nil {
		return 0, fmt.Errorf("%s: %w", j.label, err)
	}
	copy(c.prog.Image[b.Base:], lines)
	base, err := sc.take(b.Lines)
	if err != nil {
		return 0, fmt.Errorf("%s: its per-channel parameters (%d output tiles × %d words) need %d state addresses: %w",
			j.label, nt, pw, b.Lines, err)
	}
	c.load(j.label+" load per-channel params", b.Base, base, b.Lines, 1, b.Lines)
	return base, nil
}

// laneParams makes the lane registers hold output tile t's parameters
// before an act of that tile: a loadparams when they hold another
// tile's (once per tile when the steps run tile by tile, at every step
// when a streamed input interleaves the tiles). The lane registers have
// no span, so no derived dependency orders the act after its
// loadparams; program order does: both are planar tasks, and the one
// planar engine runs its tasks one at a time in program order, so an
// act emitted after the loadparams sees its registers, and the next
// loadparams cannot overtake the act.
func (e *convEmitter) laneParams(t int, mask uint64, blk string) error {
	if e.paramTile == t {
		return nil
	}
	e.paramTile = t
	lp := planar.Task{Op: planar.OpLoadParams, Mask: mask, Src: e.params + t*e.c.pcfg.ParamWords()}
	return e.c.planarTask(fmt.Sprintf("%s loadparams n%d", blk, t), lp)
}
