package descfetch

import (
	"fmt"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/check"
)

// Config sizes the descriptor-fetch front end. Every field has a JSON
// name, a default and a checked range.
type Config struct {
	// Queues is the number of queue records (Q); queue 0 has the highest
	// priority.
	Queues int `json:"queues"`
	// DescWidth is the descriptor width W in bits (the task manager's
	// command width).
	DescWidth int `json:"desc_width"`
	// LineWidth is the external-memory line width LW in bits.
	LineWidth int `json:"line_width"`
	// AddrWidth is the width AW of an external line address.
	AddrWidth int `json:"addr_width"`
	// RingBits is log2 of the descriptors a ring holds.
	RingBits int `json:"ring_bits"`
}

// DefaultConfig matches the default NPU: 2 queues, 271-bit descriptors
// read as 128-bit lines (3 lines each) from a 2^16-line external memory,
// rings of 16 descriptors.
func DefaultConfig() Config {
	return Config{Queues: 2, DescWidth: 271, LineWidth: 128, AddrWidth: 16, RingBits: 4}
}

// Validate reports every field outside its range at once; each error wraps
// check.ErrConfig and names the JSON field, the value and the range.
func (c Config) Validate() error { return c.Check("") }

// Check is Validate with field names under path, for a configuration that
// embeds this one.
func (c Config) Check(path string) error {
	f := check.Prefix(path)
	return check.All(
		check.Range(f("queues"), c.Queues, 1, 8),
		check.Range(f("desc_width"), c.DescWidth, 8, hdl.MaxWidth),
		check.Range(f("line_width"), c.LineWidth, 8, hdl.MaxWidth),
		check.Range(f("addr_width"), c.AddrWidth, 4, 40),
		check.Range(f("ring_bits"), c.RingBits, 1, 16),
	)
}

// Beats is B, the lines one descriptor occupies: ceil(W/LW).
func (c Config) Beats() int { return (c.DescWidth + c.LineWidth - 1) / c.LineWidth }

// PtrWidth is the width of head and tail pointers: one bit more than a
// ring index, so a full ring (tail-head = 2^RB) and an empty one differ.
func (c Config) PtrWidth() int { return c.RingBits + 1 }

// QueueWidth is the width of a queue number (at least 1 bit).
func (c Config) QueueWidth() int { return hdl.ClogWidth(c.Queues) }

// DataWidth is the width of qr_data: wide enough for a base address and
// for a pointer.
func (c Config) DataWidth() int { return max(c.AddrWidth, c.PtrWidth()) }

// name is the module name: every parameter changes the structure.
func (c Config) name() string {
	return hdl.Name("descfetch", fmt.Sprintf("q%d", c.Queues), fmt.Sprintf("w%d", c.DescWidth),
		fmt.Sprintf("l%d", c.LineWidth), fmt.Sprintf("a%d", c.AddrWidth), fmt.Sprintf("r%d", c.RingBits))
}
