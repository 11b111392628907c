package sparseconv

import (
	"errors"
	"fmt"
	"math/big"
	"math/bits"

	hw "github.com/hwgen/hwgen/blocks/sparse"
	"github.com/hwgen/hwgen/compiler/partition"
)

// Conv is a convolution: x [C][H][W] with w [Cout][C][KH][KW], one
// stride for both axes (a power of two up to 8), zero padding.
type Conv struct {
	C, H, W, Cout int
	KH, KW        int
	Stride        int
	PadH, PadW    int
}

// OutSize is the output plane.
func (c Conv) OutSize() (oh, ow int) {
	return partition.OutSize(c.H, c.KH, c.Stride, c.PadH), partition.OutSize(c.W, c.KW, c.Stride, c.PadW)
}

// Split is how the map is divided among the units.
type Split int

const (
	Balanced  Split = iota // equal non-zero counts (compiler/partition's default threshold)
	EqualArea              // equal numbers of output rows
)

// SplitNames are the Split values' names, in order.
var SplitNames = []string{"balanced", "equal-area"}

func (s Split) String() string { return SplitNames[s] }

// ParseSplit is the Split called name.
func ParseSplit(name string) (Split, error) {
	for i, n := range SplitNames {
		if n == name {
			return Split(i), nil
		}
	}
	return 0, fmt.Errorf("split %q is not allowed: want balanced or equal-area", name)
}

// Program is a convolution compiled for the sparse engine.
type Program struct {
	Config hw.Config
	Conv   Conv
	Plan   *partition.Plan
	// Balanced is false when the split asked for balance and the
	// threshold was not met (Plan.Balance says by how much).
	Passes  int        // output-channel tiles of Lanes channels
	Weights []*big.Int // weight-list records, every pass's lists back to back
	Table   []*big.Int // channel-table records: pass t, channel c at t·C + c
	Units   []Unit
	// WeightNNZ[t][c] is the number of non-zero weights of pass t's
	// output channels at input channel c (the multiplications one
	// non-zero input of channel c costs in pass t).
	WeightNNZ [][]int64
	// Records[t][c] is the length of pass t's weight list of channel c:
	// the cycles one non-zero input of channel c takes in pass t.
	Records [][]int64
}

// Unit is one unit's share.
type Unit struct {
	Entries []*big.Int // compressed padded slice, channel-major, then row, then column
	Chunks  []Chunk    // the buffer-set loads, in order
	// NNZPerChannel is the number of entries of each input channel.
	NNZPerChannel []int64
	OH, OW        int // the unit's output plane (accumulator entry y·OW + x)
}

// Chunk is the entries [Lo, Hi) loaded into one buffer set.
type Chunk struct{ Lo, Hi int }

// Compile maps conv with input x and weights w onto cfg's units.
func Compile(cfg hw.Config, conv Conv, x, w []int64, split Split) (*Program, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := checkConv(cfg, conv, len(x), len(w)); err != nil {
		return nil, err
	}
	m, err := partition.FromValues(conv.C, conv.H, conv.W, x)
	if err != nil {
		return nil, err
	}
	opt := partition.Options{Rows: cfg.Units,
		Conv: partition.Conv{KH: conv.KH, KW: conv.KW, Stride: conv.Stride, PadH: conv.PadH, PadW: conv.PadW}}
	oh, _ := conv.OutSize()
	if opt.Rows > oh {
		return nil, fmt.Errorf("units = %d is not allowed for this conv: more units than its %d output rows", cfg.Units, oh)
	}
	plan, err := cut(m, opt, split)
	if err != nil {
		return nil, err
	}
	p := &Program{Config: cfg, Conv: conv, Plan: plan, Passes: (conv.Cout + cfg.Lanes - 1) / cfg.Lanes}
	if err := p.weights(w); err != nil {
		return nil, err
	}
	for i := range plan.Parts {
		u, err := p.unit(i, x)
		if err != nil {
			return nil, fmt.Errorf("unit %d: %w", i, err)
		}
		p.Units = append(p.Units, u)
	}
	return p, nil
}

// cut partitions the map: equal-area row bands, or, balanced, the grid
// of Rows × Cols = Units (row bands first) whose heaviest partition has the
// fewest non-zeros — a unit's time follows its non-zeros, and rows alone
// are often too coarse a step to balance them.
func cut(m *partition.Map, opt partition.Options, split Split) (*partition.Plan, error) {
	if split == EqualArea {
		return partition.EqualArea(m, opt)
	}
	units := opt.Rows
	var best *partition.Plan
	for cols := 1; cols <= units; cols++ {
		if units%cols != 0 {
			continue
		}
		o := opt
		o.Rows, o.Cols = units/cols, cols
		p, err := partition.Partition(m, o)
		if err != nil && !errors.Is(err, partition.ErrUnbalanced) {
			if best != nil {
				continue // too narrow a map for this many strips
			}
			return nil, err
		}
		if best == nil || p.Balance.MaxNNZ < best.Balance.MaxNNZ {
			best = p
		}
	}
	return best, nil
}

func checkConv(cfg hw.Config, c Conv, nx, nw int) error {
	switch {
	case c.C < 1 || c.H < 1 || c.W < 1 || c.Cout < 1:
		return fmt.Errorf("conv %dx%dx%d → %d: every size must be at least 1", c.C, c.H, c.W, c.Cout)
	case c.C > cfg.Channels:
		return fmt.Errorf("c = %d is not allowed: the sparse engine's entries name %d channels (channels)", c.C, cfg.Channels)
	case c.KH < 1 || c.KW < 1 || c.KH > cfg.MaxKernel || c.KW > cfg.MaxKernel:
		return fmt.Errorf("kernel %dx%d is not allowed: want 1..%d (max_kernel)", c.KH, c.KW, cfg.MaxKernel)
	case c.Stride < 1 || c.Stride > 1<<hw.MaxStrideLog2 || bits.OnesCount(uint(c.Stride)) != 1:
		return fmt.Errorf("stride = %d is not allowed: want 1, 2, 4 or 8", c.Stride)
	case c.PadH < 0 || c.PadW < 0 || c.PadH >= c.KH || c.PadW >= c.KW:
		return fmt.Errorf("pad %d, %d is not allowed: want 0..kernel−1", c.PadH, c.PadW)
	case c.KH > c.H+2*c.PadH || c.KW > c.W+2*c.PadW:
		return fmt.Errorf("kernel %dx%d is larger than the padded input %dx%d", c.KH, c.KW, c.H+2*c.PadH, c.W+2*c.PadW)
	case nx != c.C*c.H*c.W:
		return fmt.Errorf("input has %d values, want %d (%dx%dx%d)", nx, c.C*c.H*c.W, c.C, c.H, c.W)
	case nw != c.Cout*c.C*c.KH*c.KW:
		return fmt.Errorf("weights have %d values, want %d (%dx%dx%dx%d)", nw, c.Cout*c.C*c.KH*c.KW, c.Cout, c.C, c.KH, c.KW)
	}
	return nil
}

// weights builds the weight lists and the channel table of every pass.
func (p *Program) weights(w []int64) error {
	cfg, c := p.Config, p.Conv
	wl := cfg.Weight()
	p.WeightNNZ = make([][]int64, p.Passes)
	p.Records = make([][]int64, p.Passes)
	for t := range p.Passes {
		p.WeightNNZ[t] = make([]int64, c.C)
		p.Records[t] = make([]int64, c.C)
		for ch := range c.C {
			start := len(p.Weights)
			for ky := range c.KH {
				for kx := range c.KW {
					vals := []int64{int64(ky), int64(kx)}
					any := false
					for j := range cfg.Lanes {
						var v int64
						if o := t*cfg.Lanes + j; o < c.Cout {
							v = w[((o*c.C+ch)*c.KH+ky)*c.KW+kx]
						}
						if v != 0 {
							any = true
							p.WeightNNZ[t][ch]++
						}
						vals = append(vals, v)
					}
					if !any {
						continue
					}
					rec, err := wl.Pack(vals...)
					if err != nil {
						return fmt.Errorf("weights: %w", err)
					}
					p.Weights = append(p.Weights, rec)
				}
			}
			p.Records[t][ch] = int64(len(p.Weights) - start)
			rec, err := cfg.Table().Pack(int64(start), int64(len(p.Weights)-start))
			if err != nil && len(p.Weights) <= cfg.WeightDepth {
				return fmt.Errorf("channel table: %w", err)
			}
			p.Table = append(p.Table, rec)
		}
	}
	if len(p.Weights) > cfg.WeightDepth {
		return fmt.Errorf("the weight lists need %d records: more than weight_depth = %d", len(p.Weights), cfg.WeightDepth)
	}
	if len(p.Table) > cfg.TableDepth {
		return fmt.Errorf("the channel tables need %d records (%d passes × %d channels): more than table_depth = %d", len(p.Table), p.Passes, c.C, cfg.TableDepth)
	}
	return nil
}

// unit compresses partition i's padded slice.
func (p *Program) unit(i int, x []int64) (Unit, error) {
	cfg := p.Config
	v, h, w, err := partition.Padded(p.Plan, i, x)
	if err != nil {
		return Unit{}, err
	}
	pt := p.Plan.Parts[i]
	u := Unit{OH: pt.Rows.Out.Len(), OW: pt.Cols.Out.Len(), NNZPerChannel: make([]int64, p.Conv.C)}
	if lim := 1 << uint(cfg.IndexWidth); h > lim || w > lim {
		return u, fmt.Errorf("its padded slice is %dx%d: more than index_width = %d bits address (%d)", h, w, cfg.IndexWidth, lim)
	}
	if u.OH*u.OW > cfg.AccDepth {
		return u, fmt.Errorf("its output plane %dx%d has more pixels than acc_depth = %d (use more units)", u.OH, u.OW, cfg.AccDepth)
	}
	el := cfg.Entry()
	for ch := range p.Conv.C {
		for r := range h {
			for s := range w {
				val := v[(ch*h+r)*w+s]
				if val == 0 {
					continue
				}
				rec, err := el.Pack(val, int64(ch), int64(r), int64(s))
				if err != nil {
					return u, fmt.Errorf("input: %w", err)
				}
				u.Entries = append(u.Entries, rec)
				u.NNZPerChannel[ch]++
			}
		}
	}
	u.Chunks = ChunksOf(len(u.Entries), cfg.Entries)
	return u, nil
}

// FirstChunk is the size of a unit's first buffer-set load when its
// entries need several: one DMA engine loads every unit, one entry a
// cycle, so a unit whose first conv waited for a whole buffer set would
// start a set's worth of cycles after the unit loaded before it.
const FirstChunk = 256

// ChunksOf cuts n entries into buffer-set loads: all of them when they fit
// FirstChunk; else FirstChunk, then doubling up to a buffer set of
// entries, so each load is short enough to finish while the conv of the
// chunk before it runs (an entry costs a conv a cycle per weight record
// it meets, the load one).
func ChunksOf(n, set int) []Chunk {
	var out []Chunk
	size := min(FirstChunk, set)
	if n <= size {
		size = set
	}
	for lo := 0; lo < n; {
		hi := min(lo+size, n)
		out = append(out, Chunk{lo, hi})
		lo, size = hi, min(2*size, set)
	}
	return out
}

// Mults is the multiplications unit i performs: every non-zero input
// times the non-zero weights of its channel, in every pass.
func (p *Program) Mults(i int) int64 {
	var n int64
	for t := range p.Passes {
		for ch, k := range p.Units[i].NNZPerChannel {
			n += k * p.WeightNNZ[t][ch]
		}
	}
	return n
}
