package compiler

import (
	"fmt"
	"github.com/hwgen/hwgen/isa/machine"

	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/isa"
	"github.com/hwgen/hwgen/isa/planar"
)

// validLanes is the number of partitions of tile t that hold channels.
func validLanes(p, part, t int) int { return min(part, p-t*part) }

func (c *ctx) lowerPool(n *node) error {
	if c.fused[n] {
		return nil // emitted in bands with its conv
	}
	if err := c.checkPool(n); err != nil {
		return err
	}
	in := c.operand(n.in[0])
	out, err := c.outPlace(n, "pool")
	if err != nil {
		return err
	}
	return c.lowerPoolTiles(n, in, out)
}

// checkPool reports what of pool n the planar engine cannot do.
func (c *ctx) checkPool(n *node) error {
	v, p, cfg := n.out, n.pool, c.cfg
	switch {
	case p.KH > cfg.MaxKernel || p.KW > cfg.MaxKernel:
		return fmt.Errorf("%s: window %dx%d exceeds max_kernel = %d", n.label, p.KH, p.KW, cfg.MaxKernel)
	case p.Stride > cfg.MaxKernel:
		return fmt.Errorf("%s: stride = %d exceeds max_kernel = %d", n.label, p.Stride, cfg.MaxKernel)
	case p.PadH >= p.KH || p.PadW >= p.KW:
		return fmt.Errorf("%s: padding %d, %d must be below the window %dx%d (planar engine)", n.label, p.PadH, p.PadW, p.KH, p.KW)
	case uint64(p.PadH) > c.isa.Planar.Max("pad_h") || uint64(p.PadW) > c.isa.Planar.Max("pad_w"):
		return fmt.Errorf("%s: padding %d, %d exceeds %d (the planar engine's pad fields)", n.label, p.PadH, p.PadW, c.isa.Planar.Max("pad_h"))
	case v.w > cfg.LineDepth && p.PadW > 0:
		return fmt.Errorf("%s: output width ow = %d exceeds line_depth = %d (the planar line buffer) and pad_w = %d: a wider output is pooled in strips of columns, which take no column padding", n.label, v.w, cfg.LineDepth, p.PadW)
	}
	return c.checkRequant(n.label, n.q)
}

// lowerPoolTiles emits pool n over input in into out: one task per
// channel tile over the whole plane.
func (c *ctx) lowerPoolTiles(n *node, in, out *place) error {
	if !in.resident && (!c.poolPlanesFit(in, out) || n.out.w > c.cfg.LineDepth) {
		return c.lowerPoolStream(n, in, out)
	}
	if n.out.w > c.cfg.LineDepth {
		return fmt.Errorf("%s: output width ow = %d exceeds line_depth = %d and the input is on chip: strips of columns are cut from external memory", n.label, n.out.w, c.cfg.LineDepth)
	}
	x, p := n.in[0], n.pool
	sc := &scratch{c: c}
	defer sc.release()
	rs, err := sc.rings(streamSize(in, in.f), stageSize(out, out.f))
	if err != nil {
		return fmt.Errorf("%s: %w", n.label, err)
	}
	inRing, outRing := rs[0], rs[1]
	for t := 0; t < in.tiles; t++ {
		src := 0
		if in.resident {
			src = in.addr(t, 0)
		} else {
			src = inRing.get()
			c.load(fmt.Sprintf("%s load c%d", n.label, t), in.ext+t*in.f, src, in.f, 1, in.f)
		}
		dst := 0
		if out.resident {
			dst = out.addr(t, 0)
		} else {
			dst = outRing.get()
		}
		fn, err := machine.PoolFn(p.Kind)
		if err != nil {
			return fmt.Errorf("%s: %w", n.label, err)
		}
		pt := planar.Task{Op: planar.OpPool, Fn: fn, Mask: c.tileMask(x, t, in.part),
			Src: src, Dst: dst, H: x.h, W: x.w, KH: p.KH, KW: p.KW, Stride: p.Stride, PadH: p.PadH, PadW: p.PadW,
			PadEdge: p.Padding == golden.PadEdge, PadIgnore: p.Padding == golden.PadIgnore}
		post(&pt, n.q)
		label := fmt.Sprintf("%s c%d", n.label, t)
		if err := c.planarTask(label, pt); err != nil {
			return err
		}
		if !out.resident {
			c.store(label+" store", dst, out.ext+t*out.f, out.f, 1, out.f)
		}
	}
	c.storeResident(n.label, out)
	return nil
}

func (c *ctx) lowerEltwise(n *node) error {
	if c.fused[n] {
		return nil // run by its conv on the output blocks (conv_post.go)
	}
	if c.preFusable(n) {
		c.pre[n.out] = n // run by its conv, on the input bands (conv_pre.go)
		return nil
	}
	a := n.in[0]
	places := make([]*place, len(n.in))
	for i, x := range n.in {
		places[i] = c.operand(x)
	}
	mask := c.unionMask(a, places[0].part)
	if len(n.in) > 1 && !c.lay(a).equal(c.lay(n.in[1])) {
		// The operands' channels lie in different orders: both in
		// channel order first (layout.go).
		for i, x := range n.in {
			if c.lay(x).dense() {
				continue
			}
			tmp, release, err := c.denseCopy(fmt.Sprintf("%s operand %d", n.label, i), x)
			if err != nil {
				return err
			}
			defer release()
			places[i] = tmp
		}
		mask = laneMask(min(places[0].part, a.p))
	}
	var b *place
	if len(n.in) > 1 {
		b = places[1]
	}
	return c.lowerEltwisePlaces(n, places[0], b, mask)
}

// eltChunk is one eltwise task's share: k elements from flat index a0
// of the operand's tiles (tile t's plane at t·f); tile is the channel
// tile of a chunk that stays within one (per channel). With tiles > 1
// it is k addresses from a0 of each of tiles channel tiles (eltBands).
type eltChunk struct{ a0, k, tile, tiles int }

// eltChunks cuts total elements (tiles of f) into chunks of at most
// chunk; perTile keeps every chunk within one channel tile, as a
// per-channel operand (one element per lane and tile) needs.
func eltChunks(total, f, chunk int, perTile bool) []eltChunk {
	var out []eltChunk
	if !perTile {
		for a0 := 0; a0 < total; a0 += chunk {
			out = append(out, eltChunk{a0: a0, k: min(chunk, total-a0)})
		}
		return out
	}
	for t := 0; t*f < total; t++ {
		for j := 0; j < f; j += chunk {
			out = append(out, eltChunk{a0: t*f + j, k: min(chunk, f-j), tile: t})
		}
	}
	return out
}

func (c *ctx) lowerReduce(n *node) error {
	x := n.in[0]
	in := c.operand(x)
	rows := n.red.AcrossRows()
	if rows && x.w > c.cfg.LineDepth {
		return fmt.Errorf("%s: width w = %d exceeds line_depth = %d (a reduction across rows sums its columns in the planar line buffer)", n.label, x.w, c.cfg.LineDepth)
	}
	q, err := reduceRequant(n, c.pcfg.RecipShift(), c.pcfg.MaxShift())
	if err != nil {
		return err
	}
	if err := c.checkRequant(n.label, q); err != nil {
		return err
	}
	fn, err := machine.ReduceFn(n.red)
	if err != nil {
		return fmt.Errorf("%s: %w", n.label, err)
	}
	out, err := c.outPlace(n, "reduce")
	if err != nil {
		return err
	}
	sc := &scratch{c: c}
	defer sc.release()
	rs, err := sc.rings(streamSize(in, in.f))
	if err != nil {
		return fmt.Errorf("%s: %w", n.label, err)
	}
	inRing := rs[0]
	stage := 0
	if !out.resident {
		if stage, err = sc.take(out.tiles * out.f); err != nil {
			return fmt.Errorf("%s: %w", n.label, err)
		}
	}
	for t := 0; t < in.tiles; t++ {
		src := 0
		if in.resident {
			src = in.addr(t, 0)
		} else {
			src = inRing.get()
			c.load(fmt.Sprintf("%s load c%d", n.label, t), in.ext+t*in.f, src, in.f, 1, in.f)
		}
		dst := stage + t*out.f
		if out.resident {
			dst = out.addr(t, 0)
		}
		pt := planar.Task{Op: planar.OpReduce, Fn: fn, Mask: c.tileMask(x, t, in.part),
			Src: src, Dst: dst, H: x.h, W: x.w, Post: planarPost[n.post]}
		if !rows && x.h*x.w != in.f {
			pt.H, pt.W = 1, in.f
		}
		post(&pt, q)
		if err := c.planarTask(fmt.Sprintf("%s c%d", n.label, t), pt); err != nil {
			return err
		}
	}
	if !out.resident {
		lines := out.tiles * out.f
		c.store(n.label+" store", stage, out.ext, lines, 1, lines)
	}
	c.storeResident(n.label, out)
	return nil
}

// planarPost is the planar engine's code of each post function.
var planarPost = map[golden.PostFn]planar.Post{golden.PostNone: planar.PostNone, golden.PostSqrt: planar.PostSqrt, golden.PostRecip: planar.PostRecip}

// reduceRequant is the post-processor of reduction n on an engine whose
// reciprocal is 2^k / v: a recip of 2^RecipBits / v shifts k − RecipBits
// more than the user's shift, which must stay within 0..maxShift.
func reduceRequant(n *node, k, maxShift int) (golden.Requant, error) {
	q := n.q
	if n.post != golden.PostRecip {
		return q, nil
	}
	q.Shift += k - n.recip
	if q.Shift < 0 || q.Shift > maxShift {
		return q, fmt.Errorf("%s: recip_bits = %d with shift %d needs the post-processor shift %d − %d + %d = %d, allowed 0..%d (the reciprocal is 2^%d / v on this engine)",
			n.label, n.recip, n.q.Shift, k, n.recip, n.q.Shift, q.Shift, maxShift, k)
	}
	return q, nil
}

func (c *ctx) lowerTranspose(n *node) error {
	a := n.in[0]
	in := c.operand(a)
	out, err := c.outPlace(n, "transpose")
	if err != nil {
		return err
	}
	if _, err := c.transposeInto(n.label, a, in, out); err != nil {
		return err
	}
	c.storeResident(n.label, out)
	return nil
}

// transposeInto transposes the plain matrix a ([m][n], partition = row)
// block by block: each ≤ rows×cols block is read by the NE transpose into
// psum (partition j, entry i), and a planar write-back puts it in the
// state buffer at its transposed place (partition j mod cols, address
// base + ⌊j/cols⌋·m + i). out nil: a new resident place is allocated
// (the caller frees it).
func (c *ctx) transposeInto(label string, a *Value, in *place, out *place) (*place, error) {
	m, nn := a.p, a.f
	R, C := c.R, c.C
	if in.part > R {
		return nil, fmt.Errorf("%s: internal: input tile of %d partitions", label, in.part)
	}
	if out == nil {
		out = &place{part: C, tiles: ceilDiv(nn, C), f: m, ext: -1, resident: true}
		base, err := c.state.alloc(out.tiles * out.f)
		if err != nil {
			return nil, fmt.Errorf("%s: the transposed matrix (%d tiles × %d) needs %d state addresses: %w", label, out.tiles, m, out.tiles*m, err)
		}
		out.base = base
	}
	rt := ceilDiv(m, in.part)
	ct := ceilDiv(nn, C)
	sc := &scratch{c: c}
	defer sc.release()
	rs, err := sc.rings(streamSize(in, nn), stageSize(out, ct*in.part))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	inRing, outRing := rs[0], rs[1]
	for bi := 0; bi < rt; bi++ {
		i0 := bi * in.part
		rows := min(in.part, m-i0)
		src := 0
		if in.resident {
			src = in.addr(bi, 0)
		} else {
			src = inRing.get()
			c.load(fmt.Sprintf("%s load rows %d-%d", label, i0, i0+rows), in.ext+bi*in.f, src, nn, 1, nn)
		}
		stage := 0
		if !out.resident {
			stage = outRing.get()
		}
		for bj := 0; bj < ct; bj++ {
			j0 := bj * C
			cols := min(C, nn-j0)
			blk := fmt.Sprintf("%s r%d c%d", label, i0, j0)
			ps := c.psumAlloc(rows)
			c.mustTask(blk, isa.Transpose{Src: src + j0, Psum: ps, Rows: rows, Cols: cols})
			dst := stage + bj*rows
			if out.resident {
				dst = out.addr(bj, i0)
			}
			wb := planar.Task{Op: planar.OpWriteBack, Mask: laneMask(cols), Src: ps, Dst: dst, H: 1, W: rows}
			if err := c.planarTask(blk+" writeback", wb); err != nil {
				return nil, err
			}
		}
		if !out.resident {
			c.store(fmt.Sprintf("%s r%d store", label, i0), stage, out.ext+i0, rows, ct, m)
		}
	}
	return out, nil
}

// streamSize is the slot size for streaming operand in (0 if resident).
func streamSize(in *place, n int) int {
	if in.resident {
		return 0
	}
	return n
}

// stageSize is the slot size for staging result out (0 if resident).
func stageSize(out *place, n int) int {
	if out.resident {
		return 0
	}
	return n
}
