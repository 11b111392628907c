package compiler

import (
	"fmt"

	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/isa/machine"
	"github.com/hwgen/hwgen/isa/planar"
)

// The copies layout.go promises where a layout cannot be shared: whole
// channel tiles by DMA or the planar engine (a concat part that is not
// produced in place), and channels moved across partitions by the NE
// (relayout: a 1×1 conv of 0/1 weights).

// lowerConcat places concat n (allocating its storage when no part
// did) and copies in the parts that are not produced in place.
func (c *ctx) lowerConcat(n *node) error {
	out, err := c.outPlace(n, "concat")
	if err != nil {
		return err
	}
	st := c.stor[n.out]
	at := st.members[n.out]
	for i, v := range n.in {
		tiles := ceilDiv(c.layIn(v, st.part).slots, st.part)
		if copied(c.copyParts[n], i) {
			dst := &place{part: st.part, tiles: tiles, f: st.f, resident: st.pl.resident, base: st.pl.base + at*st.f, ext: -1}
			if st.pl.ext >= 0 {
				dst.ext = st.pl.ext + at*st.f
			}
			label := fmt.Sprintf("%s part %d", n.label, i)
			if c.partOf(v) == st.part {
				err = c.copyTiles(label, c.operand(v), dst)
			} else {
				err = c.runConv(c.relayoutJob(label+" relayout", v, c.operand(v), dst, &layout{slots: v.p}))
			}
			if err != nil {
				return err
			}
		}
		at += tiles
	}
	c.storeResident(n.label, out)
	return nil
}

func copied(parts []int, i int) bool {
	for _, p := range parts {
		if p == i {
			return true
		}
	}
	return false
}

// copyTiles copies dst.tiles channel tiles of src into dst, partition
// by partition: a DMA load or store when one side is in external
// memory, a load and a store through a staging ring when both are, a
// planar copy (eltwise add of 0, the identity) when both are resident.
func (c *ctx) copyTiles(label string, src, dst *place) error {
	n := dst.tiles * dst.f
	switch {
	case !src.resident && dst.resident:
		c.load(label+" load", src.ext, dst.base, n, 1, n)
	case src.resident && !dst.resident:
		c.store(label+" store", src.base, dst.ext, n, 1, n)
	case !src.resident && !dst.resident:
		sc := &scratch{c: c}
		defer sc.release()
		chunk := min(n, max(1, c.state.largest()/2))
		rs, err := sc.rings(chunk)
		if err != nil {
			return fmt.Errorf("%s: %w", label, err)
		}
		for a0 := 0; a0 < n; a0 += chunk {
			k := min(chunk, n-a0)
			slot := rs[0].get()
			c.load(fmt.Sprintf("%s load %d-%d", label, a0, a0+k), src.ext+a0, slot, k, 1, k)
			c.store(fmt.Sprintf("%s store %d-%d", label, a0, a0+k), slot, dst.ext+a0, k, 1, k)
		}
	default:
		fn, err := machine.EltFn(golden.EltAdd)
		if err != nil {
			return err
		}
		pt := planar.Task{Op: planar.OpEltwise, Fn: fn, Mask: laneMask(dst.part), Src: src.base, Dst: dst.base,
			H: 1, W: n, ScalarOperand: true}
		post(&pt, golden.Identity())
		return c.planarTask(label+" copy", pt)
	}
	return nil
}

// relayoutJob is the 1×1 conv that moves v's channels (in place in,
// under v's layout) into place out under layout to: output channel o is
// input channel o (weight 1, every other weight 0), requantized by the
// identity, so the values arrive unchanged. Each output tile reads only
// the input tiles its channels come from.
func (c *ctx) relayoutJob(label string, v *Value, in, out *place, to *layout) *convJob {
	one := &golden.Tensor{Shape: []int{1}, Data: []int64{1}}
	return &convJob{label: label, in: in, cin: v.p, h: v.h, w: v.w, kh: 1, kw: 1, s: 1, oh: v.h, ow: v.w, n: v.p,
		wt: one, wname: label + ".w", q: golden.Identity(), out: out, copy: true,
		inCh: c.lay(v).chans(), outCh: to.chans(),
		widx: func(o, ch, _, _ int) int {
			if o == ch {
				return 0
			}
			return -1
		},
		reads: func(o int) (int, int) { return o, o + 1 }}
}

// layIn is v's layout as a part of a storage of part partitions: its
// own, or dense when its tiles are of another size (it is moved by the
// NE then, relayoutJob).
func (c *ctx) layIn(v *Value, part int) *layout {
	if c.partOf(v) != part {
		return &layout{slots: v.p}
	}
	return c.lay(v)
}
