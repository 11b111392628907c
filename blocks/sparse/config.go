package sparse

import (
	"fmt"
	isasparse "github.com/hwgen/hwgen/isa/sparse"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/check"
)

// Limits of the configuration.
const (
	MaxUnits        = 64
	MaxLanes        = 64
	MaxIndexWidth   = 12
	MaxKernel       = 15
	MaxStrideLog2   = 3 // strides 1, 2, 4, 8
	MaxMemoryDepth  = 1 << 16
	MaxCounterWidth = 64
)

// Config is the single source of every width, depth and count of the
// sparse engine.
type Config struct {
	isasparse.Sizes
	CounterWidth int `json:"counter_width"` // bits of the multiplication and cycle counters
	// Macros emits the memories (buffer sets, weights, table,
	// accumulator) as black-box SRAM macros plus models.
	Macros bool `json:"macros"`
}

// DefaultConfig is 4 units of 16 int8 multipliers: 64 multipliers, 4,096
// non-zeros per buffer set, 64×64 output pixels per pass.
func DefaultConfig() Config {
	return Config{Sizes: isasparse.Sizes{Units: 4, Lanes: 16, ValueWidth: 8, WeightWidth: 8, AccWidth: 32,
		Entries: 4096, Channels: 256, IndexWidth: 8, MaxKernel: 7,
		WeightDepth: 2048, TableDepth: 512, AccDepth: 4096, AccBanks: 2}, CounterWidth: 48}
}

// Validate reports every bad field by its JSON name.
func (c Config) Validate() error { return c.Check("") }

// Check is Validate with field names under path.
func (c Config) Check(path string) error {
	f := check.Prefix(path)
	errs := []error{
		check.Range(f("units"), c.Units, 1, MaxUnits),
		check.Range(f("lanes"), c.Lanes, 1, MaxLanes),
		check.Range(f("value_width"), c.ValueWidth, 2, 16),
		check.Range(f("weight_width"), c.WeightWidth, 2, 16),
		check.Range(f("entries"), c.Entries, 1, MaxMemoryDepth),
		check.Range(f("channels"), c.Channels, 1, MaxMemoryDepth),
		check.Range(f("index_width"), c.IndexWidth, 1, MaxIndexWidth),
		check.Range(f("max_kernel"), c.MaxKernel, 1, MaxKernel),
		check.Range(f("weight_depth"), c.WeightDepth, 1, MaxMemoryDepth),
		check.Range(f("table_depth"), c.TableDepth, 1, MaxMemoryDepth),
		check.Range(f("acc_depth"), c.AccDepth, 1, MaxMemoryDepth),
		check.Range(f("acc_banks"), c.AccBanks, 1, 2),
		check.Range(f("counter_width"), c.CounterWidth, 16, MaxCounterWidth),
	}
	if errs[2] == nil && errs[3] == nil {
		// An accumulator must hold at least one product.
		errs = append(errs, check.Range(f("acc_width"), c.AccWidth, c.ValueWidth+c.WeightWidth, 64))
	}
	if errs[0] == nil && errs[1] == nil && errs[2] == nil && c.Lanes*c.AccWidth > hdl.MaxWidth {
		errs = append(errs, &check.FieldError{Field: f("lanes"), Value: c.Lanes, Allowed: fmt.Sprintf("lanes × acc_width must be at most %d", hdl.MaxWidth)})
	}
	return check.All(errs...)
}

// Name is the module name of the engine, unique per configuration shape.
func Name(c Config) string {
	return fmt.Sprintf("sparse_%dx%d_v%dw%da%d", c.Units, c.Lanes, c.ValueWidth, c.WeightWidth, c.AccWidth)
}

// Get is the named field of a record of layout l held in e, typed as the
// field is: the hardware side of a Layout.
func Get(l isasparse.Layout, e *hdl.Expr, name string) *hdl.Expr {
	f := l.Field(name)
	v := e.Slice(f.Offset+f.Width-1, f.Offset)
	if f.Signed {
		return v.AsSInt()
	}
	return v
}
