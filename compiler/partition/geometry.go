package partition

import "fmt"

// Range is the half-open interval [Lo, Hi) of rows or columns.
type Range struct{ Lo, Hi int }

// Len is Hi − Lo (0 for an empty range).
func (r Range) Len() int {
	if r.Hi < r.Lo {
		return 0
	}
	return r.Hi - r.Lo
}

func (r Range) String() string { return fmt.Sprintf("[%d,%d)", r.Lo, r.Hi) }

// Conv is the geometry of the convolution the partitions feed: a KH×KW
// kernel (cross-correlation, as compiler.Graph.Conv2D), one stride for
// both axes and zero padding PadH rows above and below, PadW columns left
// and right. The zero value is a 1×1, stride-1, unpadded kernel: the
// outputs are the inputs and there is no halo.
type Conv struct {
	KH, KW     int // 0 means 1
	Stride     int // 0 means 1
	PadH, PadW int
}

func (c Conv) norm() Conv {
	if c.KH == 0 {
		c.KH = 1
	}
	if c.KW == 0 {
		c.KW = 1
	}
	if c.Stride == 0 {
		c.Stride = 1
	}
	return c
}

func (c Conv) check(h, w int) error {
	switch {
	case c.KH < 1 || c.KW < 1:
		return fmt.Errorf("partition: kernel %dx%d: KH and KW must be at least 1", c.KH, c.KW)
	case c.Stride < 1:
		return fmt.Errorf("partition: stride %d must be at least 1", c.Stride)
	case c.PadH < 0 || c.PadW < 0:
		return fmt.Errorf("partition: padding %d, %d must not be negative", c.PadH, c.PadW)
	case c.KH > h+2*c.PadH:
		return fmt.Errorf("partition: kernel height %d is larger than the padded input height %d", c.KH, h+2*c.PadH)
	case c.KW > w+2*c.PadW:
		return fmt.Errorf("partition: kernel width %d is larger than the padded input width %d", c.KW, w+2*c.PadW)
	}
	return nil
}

// OutSize is the output extent of an axis of n inputs under a kernel of
// k, stride s and padding p on both sides: ⌊(n+2p−k)/s⌋+1.
func OutSize(n, k, s, p int) int { return (n+2*p-k)/s + 1 }

// Window maps output rows to input rows, for one axis of n inputs (kernel
// k, stride s, padding p): output o reads the virtual rows
// [o·s−p, o·s−p+k), so the outputs out read
// [out.Lo·s−p, (out.Hi−1)·s−p+k). Window clips that to the rows in ⊆
// [0, n) that exist and says how many zero rows stand for the rest:
// padLo before in, padHi after it. A convolution with stride s and no
// padding on padLo zero rows, the rows in and padHi zero rows gives
// exactly out.Len() outputs. Padding appears only where the window leaves
// the map, at its true edges, or (for a stride longer than the kernel)
// where no output reads a row. out must not be empty.
func Window(n, k, s, p int, out Range) (in Range, padLo, padHi int) {
	return window(Range{0, n}, k, s, p, out)
}

// window is Window restricted to the real rows avail: rows of the window
// outside avail are zeros too (the true padding, and in PartialSums mode
// also the rows a neighbour owns).
func window(avail Range, k, s, p int, out Range) (in Range, padLo, padHi int) {
	wlo, whi := out.Lo*s-p, (out.Hi-1)*s-p+k
	in = Range{max(wlo, avail.Lo), min(whi, avail.Hi)}
	if k < s && in.Hi > in.Lo {
		// a stride longer than the kernel skips rows: row r is read only
		// if (r+p) mod s < k; trim unread rows off both ends
		if (in.Lo+p)%s >= k {
			in.Lo = ((in.Lo+p)/s+1)*s - p
		}
		if last := in.Hi - 1; (last+p)%s >= k {
			in.Hi = ((last+p)/s)*s - p + k
		}
	}
	if in.Hi <= in.Lo { // the window holds none of the rows: all zeros
		c := min(max(wlo, avail.Lo), avail.Hi)
		return Range{c, c}, whi - wlo, 0
	}
	return in, in.Lo - wlo, whi - in.Hi
}

// Reach maps input rows to output rows, for one axis of n inputs (kernel
// k, stride s, padding p): the outputs whose windows read at least one
// row of in (out of the OutSize(n, k, s, p) outputs; empty when a stride
// larger than the kernel skips every row of in). If in starts at row 0
// (ends at row n) the padding above (below) the map counts as part of in,
// so outputs that read only padding belong to the edge range.
func Reach(n, k, s, p int, in Range) Range {
	vlo, vhi := in.Lo, in.Hi
	if vlo == 0 {
		vlo = -p
	}
	if vhi == n {
		vhi = n + p
	}
	// o·s−p+k > vlo and o·s−p < vhi
	lo := floorDiv(vlo+p-k, s) + 1
	hi := ceilDiv(vhi+p, s)
	no := OutSize(n, k, s, p)
	lo, hi = min(max(lo, 0), no), min(max(hi, 0), no)
	if hi < lo {
		hi = lo
	}
	return Range{lo, hi}
}

func floorDiv(a, b int) int {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func ceilDiv(a, b int) int { return -floorDiv(-a, b) }

// Span is one partition's extent along one axis (rows or columns).
type Span struct {
	// Own is what the balancer assigned: the output rows in Halo mode,
	// the input rows in PartialSums mode. The Own ranges of the
	// partitions along an axis are disjoint and cover it.
	Own Range
	// Out is the output rows the partition computes: Own in Halo mode
	// (so every output is computed exactly once); in PartialSums mode
	// every output its own rows contribute to, overlapping the
	// neighbours' (their partial sums are added).
	Out Range
	// In is the input rows it loads: the first to the last row its
	// outputs read, among all the map's rows in Halo mode (its own share
	// and the halo), among the rows of Own in PartialSums mode.
	In Range
	// PadLo and PadHi are the zero rows before and after In: the
	// convolution with stride s and no padding of PadLo zero rows, In and
	// PadHi zero rows gives exactly Out.Len() rows. In Halo mode they
	// stand only for the padding beyond the map's true edges (and, with a
	// stride longer than the kernel, for edge rows no output reads); in
	// PartialSums mode also for the neighbours' rows.
	PadLo, PadHi int
}

// axis is one axis of the map under the convolution and the mode.
type axis struct {
	n, k, s, p int
	out        int // OutSize
	mode       Mode
}

func newAxis(n, k, s, p int, mode Mode) axis {
	return axis{n: n, k: k, s: s, p: p, out: OutSize(n, k, s, p), mode: mode}
}

// units is the length of the axis the balancer cuts.
func (a axis) units() int {
	if a.mode == Halo {
		return a.out
	}
	return a.n
}

// tail is how many input rows a partition's window reaches past the
// start of the next partition's (its overlap with the next one), in Halo
// mode; 0 in PartialSums mode.
func (a axis) tail() int {
	if a.mode == Halo && a.k > a.s {
		return a.k - a.s
	}
	return 0
}

func (a axis) span(own Range) Span {
	avail, out := Range{0, a.n}, own
	if a.mode == PartialSums {
		avail, out = own, Reach(a.n, a.k, a.s, a.p, own)
	}
	if out.Len() == 0 {
		return Span{Own: own, Out: out, In: Range{own.Lo, own.Lo}}
	}
	in, lo, hi := window(avail, a.k, a.s, a.p, out)
	return Span{Own: own, Out: out, In: in, PadLo: lo, PadHi: hi}
}

// resp is the virtual rows (padding included) whose products belong to
// the partition: its whole window in Halo mode, its own rows (and the
// padding beyond them at the map's edges) in PartialSums mode. Over the
// partitions they count every (output, tap) pair once.
func (a axis) resp(sp Span) Range {
	if a.mode == Halo {
		return Range{sp.In.Lo - sp.PadLo, sp.In.Hi + sp.PadHi}
	}
	r := sp.Own
	if r.Lo == 0 {
		r.Lo = -a.p
	}
	if r.Hi == a.n {
		r.Hi = a.n + a.p
	}
	return r
}
