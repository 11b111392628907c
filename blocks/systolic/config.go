package systolic

import (
	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/check"
)

// Limits of the configuration.
const (
	MaxDim        = 128 // rows and columns
	MinInputWidth = 2   // a signed one-hot 1 needs two bits
	MaxInputWidth = 32
	MaxPsumWidth  = 64
	MaxEntryWidth = 24 // the DSL's largest memory has 2^24 entries
)

// Config is the single source of every width and count of the PE array.
// The psum is signed when the input or the weight is signed.
type Config struct {
	Rows         int  `json:"rows"`          // R: PE rows, input vector elements (the K of a tile)
	Cols         int  `json:"cols"`          // C: PE columns, psum partitions (the N of a tile)
	InputWidth   int  `json:"input_width"`   // bits of an input element
	InputSigned  bool `json:"input_signed"`  // two's-complement inputs
	WeightWidth  int  `json:"weight_width"`  // bits of a weight
	WeightSigned bool `json:"weight_signed"` // two's-complement weights
	PsumWidth    int  `json:"psum_width"`    // bits of a partial sum; sums wrap modulo 2^psum_width
	EntryWidth   int  `json:"entry_width"`   // bits of a psum entry address (log2 of the psum buffer depth)
	CounterWidth int  `json:"counter_width"` // bits of the MAC and skipped-MAC counters (they wrap)
	ZeroSkip     bool `json:"zero_skip"`     // operand isolation and the skipped-MAC counter
	// NoDatapathReset leaves the PEs' operand, weight and psum registers
	// without a reset (hdl.Module.RegNoReset): on an ASIC a reset costs a
	// gate per bit, and no valid output ever depends on their power-on
	// value. Control and zero flags keep theirs.
	NoDatapathReset bool `json:"no_datapath_reset"`
	// MulStage registers each PE's product before its accumulate, so the
	// multiplier and the psum adder sit in separate cycles (the clock
	// period of one of them, not of both in series) for one more cycle of
	// array latency; throughput and the weight-load rule are unchanged.
	MulStage bool `json:"mul_stage"`
}

// DefaultConfig is a 16×16 array of int8 × int8 → int32 with zero
// skipping, addressing a 512-entry psum buffer.
func DefaultConfig() Config {
	return Config{Rows: 16, Cols: 16, InputWidth: 8, InputSigned: true, WeightWidth: 8, WeightSigned: true,
		PsumWidth: 32, EntryWidth: 9, CounterWidth: 48, ZeroSkip: true}
}

// Validate reports every bad field by its JSON name.
func (c Config) Validate() error { return c.Check("") }

// Check is Validate with field names under path ("npu.systolic"), for a
// configuration that embeds this one.
func (c Config) Check(path string) error {
	f := check.Prefix(path)
	errs := []error{
		check.Range(f("rows"), c.Rows, 1, MaxDim),
		check.Range(f("cols"), c.Cols, 1, MaxDim),
		check.Range(f("input_width"), c.InputWidth, MinInputWidth, MaxInputWidth),
		check.Range(f("weight_width"), c.WeightWidth, MinInputWidth, MaxInputWidth),
		check.Range(f("entry_width"), c.EntryWidth, 1, MaxEntryWidth),
		check.Range(f("counter_width"), c.CounterWidth, 16, 64),
	}
	if errs[2] == nil && errs[3] == nil {
		// A psum must hold at least one product, or a single MAC wraps.
		errs = append(errs, check.Range(f("psum_width"), c.PsumWidth, c.productType().Width, MaxPsumWidth))
	}
	return check.All(errs...)
}

// InputType is the type of an input element.
func (c Config) InputType() hdl.Type { return hdl.Type{Width: c.InputWidth, Signed: c.InputSigned} }

// WeightType is the type of a weight.
func (c Config) WeightType() hdl.Type { return hdl.Type{Width: c.WeightWidth, Signed: c.WeightSigned} }

// PsumType is the type of a partial sum: signed when either operand is.
func (c Config) PsumType() hdl.Type {
	return hdl.Type{Width: c.PsumWidth, Signed: c.InputSigned || c.WeightSigned}
}

// productType is the full-precision type of input × weight. With mixed
// signedness the unsigned operand gains a zero sign bit first.
func (c Config) productType() hdl.Type {
	w := c.InputWidth + c.WeightWidth
	if c.InputSigned != c.WeightSigned {
		w++
	}
	return hdl.Type{Width: w, Signed: c.InputSigned || c.WeightSigned}
}

// EntryType is the type of a psum entry address.
func (c Config) EntryType() hdl.Type { return hdl.UInt(c.EntryWidth) }

// Latency is the number of cycles from accepting an input vector to its
// output vector: an input accepted in cycle t leaves in cycle t+Latency.
// R cycles down the rows, C across the columns (the deskew makes every
// column as late as the last), and one for the product register with
// mul_stage.
func (c Config) Latency() int { return c.Rows + c.Cols + c.mulStages() }

// mulStages is the number of registers between a PE's multiplier and its
// accumulator.
func (c Config) mulStages() int {
	if c.MulStage {
		return 1
	}
	return 0
}

// MACsPerVector is the number of multiply-accumulates one vector costs.
func (c Config) MACsPerVector() int { return c.Rows * c.Cols }
