package sram

import (
	"github.com/hwgen/hwgen/internal/check"
)

// Limits of the configuration. The DSL allows wider values; these keep
// port widths (a P-bit lane mask, a C-bit lane mask) and memory sizes in
// the range the tools handle quickly.
const (
	MaxPartitions = 1024
	MaxElemWidth  = 1024
	MaxStateDepth = 1 << 20
	MaxPsumDepth  = 1 << 16
)

// StateConfig sizes the state buffer: Partitions banks (one per PE-array
// row) of Depth elements of ElemWidth bits.
type StateConfig struct {
	Partitions int `json:"partitions"` // P
	Depth      int `json:"depth"`      // D, a power of two
	ElemWidth  int `json:"elem_width"` // E, bits per element (uninterpreted: int8 is 8)
	// DMAReadPort gives the DMA read client (dmar) a read port of its own
	// in every bank (a two-read-port array), so stores never take a read
	// cycle from the PE array's input stream. It costs a second read
	// port per bank: in ASIC terms a 2R1W macro or a duplicated array.
	DMAReadPort bool `json:"dma_read_port"`
	// PlanarReadPort adds a read client of the planar engine's own
	// (PlanarReadClient) with a read port of its own in every bank, so
	// a two-tensor eltwise reads its second operand beside the first in
	// the same cycle. Like DMAReadPort it costs a second read port per
	// bank (a third with both).
	PlanarReadPort bool `json:"planar_read_port,omitempty"`
}

// PlanarReadClient is the prefix of the planar engine's own read port
// (StateConfig.PlanarReadPort).
const PlanarReadClient = "plr2"

// ReadClients are the state buffer's read clients: StateReadClients, and
// the planar engine's own with PlanarReadPort.
func (c StateConfig) ReadClients() []string {
	names := append([]string(nil), StateReadClients...)
	if c.PlanarReadPort {
		names = append(names, PlanarReadClient)
	}
	return names
}

// readPorts splits the read clients into those sharing the banks' first
// read port (arbitrated) and those with a port of their own.
func (c StateConfig) readPorts() (shared, own []string) {
	for _, name := range c.ReadClients() {
		if c.DMAReadPort && name == "dmar" || name == PlanarReadClient {
			own = append(own, name)
		} else {
			shared = append(shared, name)
		}
	}
	return shared, own
}

// PsumConfig sizes the psum (accumulator) buffer: Partitions banks (one
// per PE-array column) of Depth signed accumulators of AccWidth bits.
type PsumConfig struct {
	Partitions int `json:"partitions"` // C
	Depth      int `json:"depth"`      // D, a power of two
	AccWidth   int `json:"acc_width"`  // A, two's complement
	// WritePriority gives accumulating writes the bank read ports
	// whenever they want them: read-outs of the same partitions wait, and
	// wr_ready is high whenever no clear runs (after reset). The NPU sets
	// it because the PE array cannot stall.
	WritePriority bool `json:"write_priority"`
	// ReadOutPort gives the read-out (rd) a read port of its own in every
	// partition (a two-read-port array), so read-outs never wait for
	// accumulating writes and vice versa: rd_ready is high whenever rd
	// asks (after reset), and WritePriority has nothing left to decide.
	ReadOutPort bool `json:"read_out_port"`
}

// Config is the on-chip memory configuration of the NPU. Macros emits
// every bank as a black-box SRAM macro instance plus a behavioural model
// instead of an inferable array.
type Config struct {
	State  StateConfig `json:"state"`
	Psum   PsumConfig  `json:"psum"`
	Macros bool        `json:"macros"`
}

// DefaultConfig is the NPU's default: a 16 x 4096 x int8 state buffer and
// a 16 x 512 x int32 psum buffer, as inferable arrays.
func DefaultConfig() Config {
	return Config{
		State: StateConfig{Partitions: 16, Depth: 4096, ElemWidth: 8},
		Psum:  PsumConfig{Partitions: 16, Depth: 512, AccWidth: 32},
	}
}

// Validate reports every bad field, named by its JSON path ("state.depth").
func (c Config) Validate() error {
	return check.All(c.State.Check("state"), c.State.CheckMacros("state", c.Macros), c.Psum.Check("psum"))
}

// CheckMacros refuses both own read ports with SRAM macros: a bank
// would need three read ports, and a macro has at most two.
func (c StateConfig) CheckMacros(path string, macros bool) error {
	if macros && c.DMAReadPort && c.PlanarReadPort {
		return &check.FieldError{Field: path + ".planar_read_port", Value: true,
			Allowed: "with dma_read_port a bank would need three read ports, and an SRAM macro has at most two: leave one of them out, or macros"}
	}
	return nil
}

// Validate checks the state buffer fields under the JSON name "state".
func (c StateConfig) Validate() error { return c.Check("state") }

// Check validates the fields with names under path, so a configuration
// that embeds this one ("npu.sram.state") reports its own field names.
func (c StateConfig) Check(path string) error {
	return check.All(
		count(path+".partitions", c.Partitions, MaxPartitions),
		depth(path+".depth", c.Depth, MaxStateDepth, "the address is log2(depth) bits, so every address names an entry"),
		count(path+".elem_width", c.ElemWidth, MaxElemWidth),
	)
}

// Validate checks the psum buffer fields under the JSON name "psum".
func (c PsumConfig) Validate() error { return c.Check("psum") }

// Check validates the fields with names under path.
func (c PsumConfig) Check(path string) error {
	return check.All(
		count(path+".partitions", c.Partitions, MaxPartitions),
		depth(path+".depth", c.Depth, MaxPsumDepth, "addresses and clear regions wrap modulo the depth"),
		count(path+".acc_width", c.AccWidth, MaxElemWidth),
	)
}

// count requires 1 <= v <= max, saying "positive" for v < 1.
func count(field string, v, max int) error {
	if err := check.Positive(field, v); err != nil {
		return err
	}
	return check.Range(field, v, 1, max)
}

// depth requires a positive power of two in 2..max.
func depth(field string, v, max int, why string) error {
	if err := check.Positive(field, v); err != nil {
		return err
	}
	return check.PowerOfTwo(field, v, 2, max, why)
}
