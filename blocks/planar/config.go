package planar

import (
	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/check"
)

// Limits of the configuration. They keep every intermediate of the
// post-processor (x·scale + bias) below 2^62, so the golden model's int64
// arithmetic is exact. The hardware takes up to MaxLanes lanes; a Go
// Task's Mask is a uint64, so it names lanes 0..63 (MaskLanes): wider
// engines elaborate and run, but Go-built tasks reach their first 64
// lanes only.
const (
	MaxLanes      = 128
	MaskLanes     = 64
	MaxElemWidth  = 16
	MaxAccWidth   = 40
	MaxScaleWidth = 20
	MaxDepth      = 1 << 16
	MaxLineDepth  = 4096
	MaxKernelMax  = 8
)

// Config sizes the planar engine. Lanes and StateDepth must match the
// state buffer it is connected to, PsumLanes and PsumDepth the psum
// buffer, so the memory ports connect one to one.
type Config struct {
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
	// NoDatapathReset leaves the lanes' data registers (FIFO entries,
	// windows, the post-processor's stages) without a reset; valid bits,
	// counters and the per-lane parameters keep theirs.
	NoDatapathReset bool `json:"no_datapath_reset"`
	// DeepPipeline shortens the engine's longest paths for a faster
	// clock (on FPGAs) at 2 to 11 cycles per task: the pooling windows
	// take one level of their compare or add tree per cycle, the gain is
	// two registered halves, the eltwise operands and result, a
	// reduction's sum, the increment and the saturation are registered,
	// and the checks take three cycles (the *Stages methods below count
	// each; Task.Cycles adds them up).
	DeepPipeline bool `json:"deep_pipeline"`
}

// DefaultConfig matches the default state buffer (16 × 4096 × int8) and
// psum buffer (16 × 512 × int32) of blocks/sram: 16 lanes, int8 elements,
// 16-bit scales, pooling windows up to 8×8 and output rows up to 64 wide
// (a 64×64 plane fills a whole partition).
func DefaultConfig() Config {
	return Config{Lanes: 16, PsumLanes: 16, ElemWidth: 8, ElemSigned: true, AccWidth: 32, ScaleWidth: 16,
		StateDepth: 4096, PsumDepth: 512, MaxKernel: 8, LineDepth: 64}
}

// Validate reports every bad field by its JSON name.
func (c Config) Validate() error { return c.Check("") }

// Check is Validate with field names under path ("npu.planar"), for a
// configuration that embeds this one.
func (c Config) Check(path string) error {
	f := check.Prefix(path)
	errs := []error{
		check.Range(f("lanes"), c.Lanes, 1, MaxLanes),
		check.Range(f("elem_width"), c.ElemWidth, 2, MaxElemWidth),
		check.Range(f("scale_width"), c.ScaleWidth, 2, MaxScaleWidth),
		check.PowerOfTwo(f("state_depth"), c.StateDepth, 2, MaxDepth, "it must equal the state buffer's depth"),
		check.PowerOfTwo(f("psum_depth"), c.PsumDepth, 2, MaxDepth, "it must equal the psum buffer's depth"),
		check.Range(f("max_kernel"), c.MaxKernel, 2, MaxKernelMax),
		check.Range(f("line_depth"), c.LineDepth, 1, MaxLineDepth),
	}
	if errs[0] == nil {
		errs = append(errs, check.Range(f("psum_lanes"), c.PsumLanes, 1, c.Lanes))
	}
	if errs[1] == nil {
		// A write-back stores an accumulator as an element: it must be at
		// least as wide.
		errs = append(errs, check.Range(f("acc_width"), c.AccWidth, max(8, c.ElemWidth), MaxAccWidth))
	}
	return check.All(errs...)
}

// ElemType is the type of a state-buffer element as the engine reads it.
func (c Config) ElemType() hdl.Type { return hdl.Type{Width: c.ElemWidth, Signed: c.ElemSigned} }

// AddrWidth is the width of a state-buffer address.
func (c Config) AddrWidth() int { return hdl.ClogWidth(c.StateDepth) }

// PsumAddrWidth is the width of a psum-buffer address.
func (c Config) PsumAddrWidth() int { return hdl.ClogWidth(c.PsumDepth) }

// srcWidth is the width of a task's source address: a state-buffer or a
// psum-buffer address.
func (c Config) srcWidth() int { return max(c.AddrWidth(), c.PsumAddrWidth()) }

// DimWidth is the width of the H, W, OH and OW task fields: a plane holds
// at most max(StateDepth, PsumDepth) elements.
func (c Config) DimWidth() int { return c.srcWidth() + 1 }

// kWidth is the width of the KH, KW and stride fields (0 and values above
// MaxKernel are representable so the hardware can flag them).
func (c Config) kWidth() int { return 4 }

// padWidth is the width of the padding fields (0..7).
func (c Config) padWidth() int { return 3 }

// extWidth is an element extended by one bit, so signed and unsigned
// elements are both SInt.
func (c Config) extWidth() int { return c.ElemWidth + 1 }

// hsumWidth holds a horizontal window sum: up to MaxKernel elements.
func (c Config) hsumWidth() int { return c.extWidth() + hdl.ClogWidth(c.MaxKernel) }

// poolWidth holds a window sum: MaxKernel² elements.
func (c Config) poolWidth() int { return c.hsumWidth() + hdl.ClogWidth(c.MaxKernel) }

// redWidth holds the sum of a whole plane (at most StateDepth elements).
func (c Config) redWidth() int { return c.extWidth() + c.AddrWidth() }

// eltWidth holds the exact product of two elements.
func (c Config) eltWidth() int { return 2 * c.extWidth() }

// inWidth is a lane's input word: an accumulator or an extended element.
func (c Config) inWidth() int { return max(c.AccWidth, c.extWidth()) }

// XWidth is the width of the post-processor's input x: the widest exact
// result of any operation.
func (c Config) XWidth() int {
	return max(c.AccWidth, c.eltWidth(), c.redWidth(), c.poolWidth())
}

// VWidth is the width of x·scale + bias, exact.
func (c Config) VWidth() int { return c.XWidth() + c.ScaleWidth + 1 }

// MaxShift is the largest shift of the post-processor.
func (c Config) MaxShift() int { return c.VWidth() - 1 }

// RecipShift is K of the reciprocal post function: u = trunc(2^K / v).
// |v| < 2^K (v = x·scale + bias), so u is never 0 for v ≠ 0, and 2^K/1
// and the v = 0 result 2^(K+1)−1 still fit v's width: the shift then
// sets the result's fractional bits (2^(K−shift)/v).
func (c Config) RecipShift() int { return c.VWidth() - 2 }

// magWidth holds |v|: below 2^RecipShift (see RecipShift).
func (c Config) magWidth() int { return c.VWidth() - 2 }

// sqrtBits is the number of bits of floor(√v), v < 2^magWidth.
func (c Config) sqrtBits() int { return ceilDiv(c.magWidth(), 2) }

// postSteps is the number of iterations of a post function: one result
// bit per cycle (the square root's bits, or the quotient's K+1 bits).
func (c Config) postSteps(p Post) int {
	switch p {
	case PostSqrt:
		return c.sqrtBits()
	case PostRecip:
		return c.RecipShift() + 1
	}
	return 0
}

// postCycles is how long a post function holds each result: a load
// cycle, the steps, and a cycle to apply the sign.
func (c Config) postCycles(p Post) int {
	if p == PostNone {
		return 0
	}
	return c.postSteps(p) + 2
}

// shiftWidth is the width of the shift field.
// windowStages is the extra registers in each pooling window (the
// horizontal one in S1, the vertical one after S2).
func (c Config) windowStages() int {
	if !c.DeepPipeline {
		return 0
	}
	return hdl.ClogWidth(c.MaxKernel) // one per level of the window's tree
}

// eltStages is the extra registers on the eltwise result's way to X:
// the operands, and the function's result.
func (c Config) eltStages() int { return 2 * c.deepStage() }

// redStages is the extra registers between a reduction's sum and X.
func (c Config) redStages() int { return c.deepStage() }

// mulStages is the extra registers between X and P: the gain's two
// partial products.
func (c Config) mulStages() int { return c.deepStage() }

// outStages is the extra registers between R and the output FIFO: the
// incremented value, then the saturated one.
func (c Config) outStages() int { return 2 * c.deepStage() }

// inDepth is the lane input FIFO's depth. Two entries give one element
// per cycle when the read credit counts the same cycle's pop; with
// deep_pipeline a third lets the credit leave the pop (and the stall
// signal behind it) out of the request's path.
func (c Config) inDepth() int { return 2 + c.deepStage() }

// checkStages is the cycles a task's checks take more: PRE before CHECK
// registers the products they compare, JUDGE after it acts on the
// registered result.
func (c Config) checkStages() int { return 2 * c.deepStage() }

func (c Config) deepStage() int {
	if c.DeepPipeline {
		return 1
	}
	return 0
}

func (c Config) shiftWidth() int { return hdl.ClogWidth(c.VWidth()) }

// ParamWords is the number of consecutive state-buffer elements holding
// one lane's per-partition parameters: the scale, then the bias, each
// little-endian in whole elements.
func (c Config) ParamWords() int {
	return ceilDiv(c.ScaleWidth, c.ElemWidth) + ceilDiv(c.AccWidth, c.ElemWidth)
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }
