package planar

import (
	"fmt"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/check"
	isaplanar "github.com/hwgen/hwgen/isa/planar"
)

// Limits of the configuration. They keep every intermediate of the
// post-processor (x·scale + bias) below 2^62, so the golden model's int64
// arithmetic is exact. The hardware takes up to MaxLanes lanes; a Go
// Task's Mask is a uint64, so it names lanes 0..63 (MaskLanes): wider
// engines elaborate and run, but Go-built tasks reach their first 64
// lanes only.
const (
	MaxLanes      = 128
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
	isaplanar.Sizes
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
	// each; Config.Cycles adds them up).
	DeepPipeline bool `json:"deep_pipeline"`
	// NoChecks leaves out the checks of the task's fields (the error
	// codes but the task manager's): err_code stays 0 and a task runs
	// as its fields say, however malformed. For a deployment whose
	// programs come from the compiler, which emits only well-formed
	// tasks; the CHECK cycle stays, so every task takes the same cycles.
	NoChecks bool `json:"no_checks"`
	// Src2Port gives the engine a second state-buffer read port of its
	// own (plr2, the state buffer's planar_read_port): a two-tensor
	// eltwise asks for b's vector there with a's on plr, so b is read in
	// the cycle a's read is accepted; both land in one input FIFO entry
	// and the lane computes a op b without holding a: one read cycle per
	// element, not two. Every other operation is unchanged. It needs the eltwise
	// (refused with no_eltwise, where it would serve nothing).
	Src2Port bool `json:"src2_port,omitempty"`
}

// DefaultConfig matches the default state buffer (16 × 4096 × int8) and
// psum buffer (16 × 512 × int32) of blocks/sram: 16 lanes, int8 elements,
// 16-bit scales, pooling windows up to 8×8 and output rows up to 64 wide
// (a 64×64 plane fills a whole partition), and the lookup table (lut).
func DefaultConfig() Config {
	return Config{Sizes: isaplanar.Sizes{Lanes: 16, PsumLanes: 16, ElemWidth: 8, ElemSigned: true, AccWidth: 32, ScaleWidth: 16,
		StateDepth: 4096, PsumDepth: 512, MaxKernel: 8, LineDepth: 64, LUT: true}}
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
		errs = append(errs, check.Range(f("psum_lanes"), c.PsumLanes, 1, c.Lanes), CheckUnits(f("post_lanes"), c.PostLanes, c.Lanes, "lanes", "lanes"))
	}
	if errs[1] == nil {
		// A write-back stores an accumulator as an element: it must be at
		// least as wide.
		errs = append(errs, check.Range(f("acc_width"), c.AccWidth, max(8, c.ElemWidth), MaxAccWidth))
	}
	if c.Src2Port && c.NoEltwise {
		errs = append(errs, &check.FieldError{Field: f("src2_port"), Value: true,
			Allowed: "the second read port serves only a two-tensor eltwise: it needs the eltwise (no_eltwise false)"})
	}
	if c.LUT && errs[1] == nil {
		errs = append(errs, c.CheckLUT(f("lut")))
	}
	return check.All(errs...)
}

// CheckUnits refuses a post-unit count that does not divide the
// partitions: units must be 0 or a divisor of parts, what names parts
// in the message (lanes, rows) and zero what 0 stands for.
func CheckUnits(field string, units, parts int, what, zero string) error {
	if units == 0 || (units >= 1 && units <= parts && parts%units == 0) {
		return nil
	}
	var divs []int
	for d := 1; d <= parts; d++ {
		if parts%d == 0 {
			divs = append(divs, d)
		}
	}
	return &check.FieldError{Field: field, Value: units, Allowed: fmt.Sprintf(
		"must be a divisor of %s (%d): one of %v, or 0 for %s", what, parts, divs, zero)}
}

// CheckLUT refuses a table the engine cannot hold, naming the field
// that asks for it: 2^elem_width entries need elem_width ≤
// isaplanar.MaxLUTElemWidth (each lane's read port grows as 2^E·E). A
// table whose rows (ceil(2^E / lanes)) exceed the state buffer is built
// but can never be loaded (every loadtable is ErrSrc): a tiny test
// engine keeps the default table that way.
func (c Config) CheckLUT(field string) error {
	if c.ElemWidth > isaplanar.MaxLUTElemWidth {
		return &check.FieldError{Field: field, Value: true, Allowed: fmt.Sprintf(
			"the lookup table has 2^elem_width entries: elem_width must be at most %d (it is %d), or the table left out (false)", isaplanar.MaxLUTElemWidth, c.ElemWidth)}
	}
	return nil
}

// ElemType is the type of a state-buffer element as the engine reads it.
func (c Config) ElemType() hdl.Type { return hdl.Type{Width: c.ElemWidth, Signed: c.ElemSigned} }

// postCycles is how long a post function holds each result: a load
// cycle, the steps, and a cycle to apply the sign.
func (c Config) postCycles(p isaplanar.Post) int {
	if p == isaplanar.PostNone {
		return 0
	}
	return c.PostSteps(p) + 2
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

// interleaved says a two-tensor eltwise reads a and b in turn on one
// port (without Src2Port): two reads, and a held operand, per element.
func (c Config) interleaved() bool { return !c.Src2Port }

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
