package planar

// Sizes are the numbers of a planar engine that its instruction set
// depends on: the field widths, the limits Validate checks and the
// exact widths of the post-processor's arithmetic. The hardware's
// configuration (blocks/planar.Config) embeds them.
type Sizes struct {
	Lanes      int  `json:"lanes"`       // L: lanes = state-buffer partitions
	PsumLanes  int  `json:"psum_lanes"`  // C: psum-buffer partitions (≤ L); lane j reads psum partition j
	ElemWidth  int  `json:"elem_width"`  // E: bits of a state-buffer element
	ElemSigned bool `json:"elem_signed"` // elements are two's complement
	AccWidth   int  `json:"acc_width"`   // A: bits of a psum accumulator (signed) and of a bias
	ScaleWidth int  `json:"scale_width"` // bits of a scale (signed)
	StateDepth int  `json:"state_depth"` // elements per state-buffer partition (a power of two)
	PsumDepth  int  `json:"psum_depth"`  // entries per psum partition (a power of two)
	MaxKernel  int  `json:"max_kernel"`  // largest pooling KH, KW and stride
	LineDepth  int  `json:"line_depth"`  // line-buffer entries per lane: the widest pooling output row
	// LUT gives the engine a lookup table of 2^E entries of E bits
	// (loadtable, and the lut post stage); E ≤ MaxLUTElemWidth.
	LUT bool `json:"lut"`
	// PostLanes is the number of post units (lane datapaths) that serve
	// the L partitions: a divisor of L, 0 meaning L. With U < L post
	// units a task runs in L/U passes over its plane, pass g serving
	// partitions g·U … g·U+U−1 (Passes); the per-partition parameters
	// and the table still follow the L partitions.
	PostLanes int `json:"post_lanes"`
	// The optional post features, each present unless left out (so a
	// zero Sizes has them all): a task using one the engine lacks is
	// ErrFn (Feature).
	NoPoolAvg    bool `json:"no_pool_avg,omitempty"`    // average pooling (the window adder trees)
	NoPoolMin    bool `json:"no_pool_min,omitempty"`    // min pooling (the windows' less-than comparators; max pooling stays)
	NoEltwise    bool `json:"no_eltwise,omitempty"`     // the eltwise op (the second operand's reads, the element ALU)
	NoEltwiseMul bool `json:"no_eltwise_mul,omitempty"` // eltwise mul (the lane's element multiplier)
	NoReduce     bool `json:"no_reduce,omitempty"`      // the reductions (the accumulator, its adder and comparator, and the post functions with them)
	NoPostFn     bool `json:"no_postfn,omitempty"`      // the reductions' post functions sqrt and recip (the iterative unit)
}

// Units is the number of post units U: PostLanes, or L when 0.
func (s Sizes) Units() int {
	if s.PostLanes <= 0 {
		return s.Lanes
	}
	return s.PostLanes
}

// Passes is the most passes a task makes over its plane, L/U: each
// pass reads the plane's vectors and works on U of their partitions.
func (s Sizes) Passes() int {
	u := s.Units()
	if u <= 0 || s.Lanes%u != 0 {
		return 1
	}
	return s.Lanes / u
}

// MaxLUTElemWidth is the widest element a table serves: 2^10 entries of
// 10 bits. The table's read ports (one per lane) grow as 2^E·E, so a
// wider one would dwarf the lane.
const MaxLUTElemWidth = 10

// MaskLanes is how many lanes a Task's Mask (a uint64) can name: wider
// engines elaborate and run, but Go-built tasks reach their first 64
// lanes only.
const MaskLanes = 64

// ClogWidth is the width of an index into depth entries (at least 1),
// as the hardware sizes its address registers.
func ClogWidth(depth int) int {
	w := 1
	for w < 63 && (1<<w) < depth {
		w++
	}
	return w
}

// AddrWidth is the width of a state-buffer address.
func (s Sizes) AddrWidth() int { return ClogWidth(s.StateDepth) }

// PsumAddrWidth is the width of a psum-buffer address.
func (s Sizes) PsumAddrWidth() int { return ClogWidth(s.PsumDepth) }

// SrcWidth is the width of a task's source address: a state-buffer or a
// psum-buffer address.
func (s Sizes) SrcWidth() int { return max(s.AddrWidth(), s.PsumAddrWidth()) }

// DimWidth is the width of the H, W, OH and OW task fields: a plane holds
// at most max(StateDepth, PsumDepth) elements.
func (s Sizes) DimWidth() int { return s.SrcWidth() + 1 }

// KWidth is the width of the KH, KW and stride fields (0 and values above
// MaxKernel are representable so the hardware can flag them).
func (s Sizes) KWidth() int { return 4 }

// PadWidth is the width of the padding fields (0..7).
func (s Sizes) PadWidth() int { return 3 }

// ExtWidth is an element extended by one bit, so signed and unsigned
// elements are both signed.
func (s Sizes) ExtWidth() int { return s.ElemWidth + 1 }

// HsumWidth holds a horizontal window sum: up to MaxKernel elements.
func (s Sizes) HsumWidth() int { return s.ExtWidth() + ClogWidth(s.MaxKernel) }

// PoolWidth holds a window sum: MaxKernel² elements.
func (s Sizes) PoolWidth() int { return s.HsumWidth() + ClogWidth(s.MaxKernel) }

// RedWidth holds the sum of a whole plane (at most StateDepth elements).
func (s Sizes) RedWidth() int { return s.ExtWidth() + s.AddrWidth() }

// EltWidth holds the exact product of two elements.
func (s Sizes) EltWidth() int { return 2 * s.ExtWidth() }

// InWidth is a lane's input word: an accumulator or an extended element.
func (s Sizes) InWidth() int { return max(s.AccWidth, s.ExtWidth()) }

// XWidth is the width of the post-processor's input x: the widest exact
// result of any operation.
func (s Sizes) XWidth() int {
	return max(s.AccWidth, s.EltWidth(), s.RedWidth(), s.PoolWidth())
}

// VWidth is the width of x·scale + bias, exact.
func (s Sizes) VWidth() int { return s.XWidth() + s.ScaleWidth + 1 }

// MaxShift is the largest shift of the post-processor.
func (s Sizes) MaxShift() int { return s.VWidth() - 1 }

// ShiftWidth is the width of the shift field.
func (s Sizes) ShiftWidth() int { return ClogWidth(s.VWidth()) }

// RecipShift is K of the reciprocal post function: u = trunc(2^K / v).
// |v| < 2^K (v = x·scale + bias), so u is never 0 for v ≠ 0, and 2^K/1
// and the v = 0 result 2^(K+1)−1 still fit v's width: the shift then
// sets the result's fractional bits (2^(K−shift)/v).
func (s Sizes) RecipShift() int { return s.VWidth() - 2 }

// MagWidth holds |v|: below 2^RecipShift (see RecipShift).
func (s Sizes) MagWidth() int { return s.VWidth() - 2 }

// SqrtBits is the number of bits of floor(√v), v < 2^MagWidth.
func (s Sizes) SqrtBits() int { return ceilDiv(s.MagWidth(), 2) }

// PostSteps is the number of iterations of a post function: one result
// bit per cycle (the square root's bits, or the quotient's K+1 bits).
func (s Sizes) PostSteps(p Post) int {
	switch p {
	case PostSqrt:
		return s.SqrtBits()
	case PostRecip:
		return s.RecipShift() + 1
	}
	return 0
}

// ParamWords is the number of consecutive state-buffer elements holding
// one lane's per-partition parameters: the scale, then the bias, each
// little-endian in whole elements.
func (s Sizes) ParamWords() int {
	return ceilDiv(s.ScaleWidth, s.ElemWidth) + ceilDiv(s.AccWidth, s.ElemWidth)
}

// TableEntries is the number of entries of the lookup table: one per
// element value, 2^E.
func (s Sizes) TableEntries() int { return 1 << uint(s.ElemWidth) }

// TableRows is the number of vector reads of a loadtable: entry k lies
// in lane k mod L at src + k div L, so ceil(2^E / L) addresses.
func (s Sizes) TableRows() int { return ceilDiv(s.TableEntries(), s.Lanes) }

// TableLanes is the number of lanes holding table entries (lanes
// 0..TableLanes−1): a loadtable's mask must name them all.
func (s Sizes) TableLanes() int { return min(s.Lanes, s.TableEntries()) }

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// PassesOf is the number of passes of a task with this mask: one for
// each group of U partitions (g·U … g·U+U−1) it names, at least one.
func (s Sizes) PassesOf(mask uint64) int {
	g, u := s.Passes(), s.Units()
	if g == 1 {
		return 1
	}
	n := 0
	for i := range g {
		if lo := i * u; lo < MaskLanes && (mask>>uint(lo))&(1<<uint(min(u, MaskLanes-lo))-1) != 0 {
			n++
		}
	}
	return max(n, 1)
}
