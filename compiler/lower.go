package compiler

import "fmt"

func (c *ctx) lower(n *node) error {
	switch n.kind {
	case opView, opPermute:
		return nil // shares its root's storage
	case opConcat:
		return c.lowerConcat(n)
	case opConv:
		return c.lowerConv(n)
	case opGEMM:
		return c.lowerGEMM(n)
	case opPool:
		return c.lowerPool(n)
	case opEltwise, opLookup:
		return c.lowerEltwise(n)
	case opReduce:
		return c.lowerReduce(n)
	case opTranspose:
		return c.lowerTranspose(n)
	case opUpsample:
		return c.lowerUpsample(n)
	}
	return fmt.Errorf("compiler: unknown operation %v", n.kind)
}

// operand is where an operation finds an input: resident in the state
// buffer, or streamed from external memory (graph inputs).
func (c *ctx) operand(v *Value) *place {
	return c.loc[c.root(v)]
}

// scratch is the state space an operation takes for its streaming slots
// and output staging, freed when it is done.
type scratch struct {
	c     *ctx
	bases []int
}

func (s *scratch) take(n int) (int, error) {
	b, err := s.c.state.alloc(n)
	if err != nil {
		return 0, err
	}
	s.bases = append(s.bases, b)
	return b, nil
}

func (s *scratch) release() {
	for _, b := range s.bases {
		s.c.state.free(b)
	}
	s.bases = nil
}

// ring is a set of equal state slots used in turn (double buffering: a
// DMA fills the next slot while the engines work on the current one; the
// derived write-after-read dependencies keep a slot until its readers are
// done).
type ring struct {
	base, size, n, next int
}

func (r *ring) get() int {
	a := r.base + (r.next%r.n)*r.size
	r.next++
	return a
}

// rings allocates one ring per size (0: none, nil ring): two slots each
// when the state buffer has room (double buffering), else one slot for
// the largest rings first. One slot is still correct — the derived
// dependencies then serialize the load with the compute — only slower.
func (s *scratch) rings(sizes ...int) ([]*ring, error) {
	return s.ringsOf(sizes, ringCounts(s.c.state.largest(), sizes))
}

// ringsOf allocates one ring per size with counts[i] slots each.
func (s *scratch) ringsOf(sizes, counts []int) ([]*ring, error) {
	total := 0
	for i, sz := range sizes {
		total += sz * counts[i]
	}
	out := make([]*ring, len(sizes))
	if total == 0 {
		return out, nil
	}
	b, err := s.take(total)
	if err != nil {
		return nil, fmt.Errorf("its streaming and staging slots (%v) need %d state addresses: %w", sizes, total, err)
	}
	for i, sz := range sizes {
		if sz > 0 {
			out[i] = &ring{base: b, size: sz, n: counts[i]}
			b += sz * counts[i]
		}
	}
	return out, nil
}

// ringCounts chooses the slots per ring for free addresses: 2 each if
// they fit, else single slots, largest ring first.
func ringCounts(free int, sizes []int) []int {
	counts := make([]int, len(sizes))
	total := 0
	for i, sz := range sizes {
		counts[i] = 2
		total += 2 * sz
	}
	for total > free {
		best := -1
		for i, sz := range sizes {
			if counts[i] == 2 && sz > 0 && (best < 0 || sz > sizes[best]) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		counts[best] = 1
		total -= sizes[best]
	}
	return counts
}

// ringNeed is the state space rings of these sizes take at the least
// (single slots) and at the most (double).
func ringNeed(sizes ...int) (least, most int) {
	for _, sz := range sizes {
		least += sz
		most += 2 * sz
	}
	return least, most
}

// storeResident writes a resident result to its external region when it
// is an output (or has an output view).
func (c *ctx) storeResident(label string, pl *place) {
	if pl.resident && pl.ext >= 0 && pl.out {
		n := pl.tiles * pl.f
		c.store(label+" store", pl.base, pl.ext, n, 1, n)
	}
}

// int32Job gives the layer of an int32 result its digit planes.
func (c *ctx) int32Job(n *node, j *convJob) error {
	if !n.out.isInt32 {
		return nil
	}
	if err := c.checkInt32(n.label); err != nil {
		return err
	}
	j.digits = c.digits()
	return nil
}

func (c *ctx) lowerConv(n *node) error {
	x := n.in[0]
	in := c.operand(x)
	pre := c.pre[x]
	if pre != nil {
		in = c.operand(pre.in[0]) // the eltwise runs on the input's bands
	}
	var pe *postElt
	var out *place
	if pe = c.postFusable(n); pe != nil {
		// The conv's result lives only in the act's staging slots.
		var err error
		if pe.out, err = c.outPlace(pe.n, "eltwise"); err != nil {
			return err
		}
		out = &place{part: c.C, tiles: ceilDiv(c.lay(n.out).slots, c.C), f: n.out.f, ext: -1}
		c.loc[n.out] = out
	} else {
		var err error
		if out, err = c.outPlace(n, "conv"); err != nil {
			return err
		}
	}
	w := n.weights
	co, ci, kh, kw := w.Shape[0], w.Shape[1], w.Shape[2], w.Shape[3]
	v := n.out
	groups := n.conv.Groups
	cin, og := ci*groups, co/groups // the weights hold ci = Cin/groups input channels
	j := &convJob{label: n.label, in: in, cin: cin, h: x.h, w: x.w, kh: kh, kw: kw, s: n.conv.Stride,
		ph: n.conv.PadH, pw: n.conv.PadW, oh: v.h, ow: v.w, n: co, wt: w, wname: n.wname, q: n.q, pc: n.pc, out: out,
		groups: groups,
		widx: func(o, c, ky, kx int) int {
			if c/ci != o/og {
				return -1 // another group's input channel
			}
			return ((o*ci+c%ci)*kh+ky)*kw + kx
		}}
	if t := c.taps[x]; t != nil {
		// A 1×1 convolution over the windows; weight (o, c, ky, kx) is
		// row (c·kh+ky)·kw+kx of output o.
		// With groups, a group's rows are consecutive: (c·kh+ky)·kw+kx
		// for its channels c.
		per := t.rows / groups
		j.cin, j.h, j.w, j.kh, j.kw, j.s, j.ph, j.pw = t.rows, t.oh, t.ow, 1, 1, 1, 0, 0
		j.widx = func(o, r, _, _ int) int {
			if r/per != o/og {
				return -1
			}
			return o*per + r%per
		}
	}
	j.inCh, j.outCh = c.lay(x).chans(), c.lay(v).chans()
	j.pre, j.post = pre, pe
	if err := c.int32Job(n, j); err != nil {
		return err
	}
	release, err := c.denseInput(n, j)
	if err != nil {
		return err
	}
	defer release()
	if j.digits == 0 {
		j.pool = c.fusablePool(n, out)
	}
	if err := c.runConv(j); err != nil {
		return err
	}
	if pe != nil {
		c.storeResident(pe.n.label, pe.out)
		c.fused[pe.n] = true
		if pe.rq != nil {
			c.fused[pe.rq] = true
		}
		return nil
	}
	c.storeResident(n.label, out)
	if j.bands != nil {
		return j.bands.finish(c)
	}
	return nil
}

func (c *ctx) lowerGEMM(n *node) error {
	a := n.in[0]
	b := n.weights
	nn := b.Shape[1]
	in := c.operand(a)
	if !a.trans && a.shape[0] == 1 {
		// A fully-connected layer on a flattened feature map (or any
		// plain [1][K] value): the NE reads each pixel's channel vector in
		// place, a kernel as large as the plane (seen as f×1), so the
		// sum runs over channels (partitions) and pixels (passes).
		out, err := c.outPlace(n, "fc")
		if err != nil {
			return err
		}
		f := a.f
		j := &convJob{label: n.label, gemm: true, in: in, cin: a.p, h: f, w: 1, kh: f, kw: 1, s: 1,
			oh: 1, ow: 1, n: nn, wt: b, wname: n.wname, q: n.q, pc: n.pc, out: out, kernelSplitOK: true,
			inCh: c.lay(a).chans(),
			widx: func(o, ch, ky, _ int) int { return (ch*f+ky)*nn + o }}
		if err := c.int32Job(n, j); err != nil {
			return err
		}
		if err := c.runConv(j); err != nil {
			return err
		}
		c.storeResident(n.label, out)
		return nil
	}
	var tmp *place
	if !a.trans {
		// A plain [M][K] matrix: transpose it on chip first (partition k,
		// address m), as the PE array needs.
		var err error
		if tmp, err = c.transposeInto(n.label+" transpose A", a, in, nil); err != nil {
			return err
		}
		in = tmp
	}
	out, err := c.outPlace(n, "gemm")
	if err != nil {
		return err
	}
	m, k := a.shape[0], a.shape[1]
	j := &convJob{label: n.label, gemm: true, in: in, cin: k, h: m, w: 1, kh: 1, kw: 1, s: 1,
		oh: m, ow: 1, n: nn, wt: b, wname: n.wname, q: n.q, pc: n.pc, out: out,
		widx: func(o, ch, _, _ int) int { return ch*nn + o }}
	if err := c.int32Job(n, j); err != nil {
		return err
	}
	if err := c.runConv(j); err != nil {
		return err
	}
	if tmp != nil {
		c.state.free(tmp.base)
	}
	c.storeResident(n.label, out)
	return nil
}
