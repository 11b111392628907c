package compiler

import (
	"fmt"
	"slices"

	"github.com/hwgen/hwgen/isa"
)

// Batch is p run on n inputs one after another in one program: copy k
// of p's tasks reads its own copy of the inputs named in perInput and
// writes its own copy of every output, in external regions appended to
// the image (copy 0 keeps p's); everything else (the weights and the
// per-channel tables) stays where it is, in external memory once. The
// dependencies are derived again over the whole sequence, from every
// task's address spans, so copy k+1's loads start as soon as the
// on-chip buffers they fill are free of copy k: the DMA of one input
// overlaps the compute of the one before it, through the task
// manager's dependencies and not by the host waiting.
//
// The bindings of copy k are named BatchName(name, k); the image holds
// p's input data in every copy until the caller writes its own
// (Binding.ToLines).
func Batch(p *Program, n int, perInput ...string) (*Program, error) {
	if n < 1 {
		return nil, fmt.Errorf("compiler: batch of %d: want at least 1", n)
	}
	cfg := p.Config
	codec := cfg.Codec()
	b := &Program{Config: cfg, Layout: p.Layout, MACs: p.MACs * int64(n)}
	b.Image = make([][]int64, len(p.Image))
	copy(b.Image, p.Image)
	vary := map[*Binding]bool{}
	for _, name := range perInput {
		i := slices.IndexFunc(p.Inputs, func(x *Binding) bool { return x.Name == name })
		if i < 0 {
			return nil, fmt.Errorf("compiler: batch: the program has no input %q", name)
		}
		vary[p.Inputs[i]] = true
	}
	for _, o := range p.Outputs {
		vary[o] = true
	}
	for _, in := range p.Inputs {
		if !vary[in] {
			b.Inputs = append(b.Inputs, in)
		}
	}
	em := newEmitter(cfg)
	for k := 0; k < n; k++ {
		// The external offset of each varying region in copy k. Bindings
		// of one region (an output and its view) move together.
		moved := map[*Binding]int{}
		regions := map[[2]int]int{}
		for _, list := range [][]*Binding{p.Inputs, p.Outputs} {
			for _, x := range list {
				if !vary[x] {
					continue
				}
				c := *x
				c.Name = BatchName(x.Name, k)
				if base, ok := regions[[2]int{x.Base, x.Lines}]; ok && k > 0 {
					c.Base = base
				} else if k > 0 {
					c.Base = len(b.Image)
					b.Image = append(b.Image, p.Image[x.Base:x.Base+x.Lines]...)
					regions[[2]int{x.Base, x.Lines}] = c.Base
				}
				moved[x] = c.Base - x.Base
				if slices.Contains(p.Inputs, x) {
					b.Inputs = append(b.Inputs, &c)
				} else {
					b.Outputs = append(b.Outputs, &c)
				}
			}
		}
		for _, t := range p.Tasks {
			if t.Desc.Op == isa.OpNop {
				continue // joins: derived again below
			}
			task, err := codec.Decode(t.Desc)
			if err != nil {
				return nil, fmt.Errorf("compiler: batch: %s: %w", t.Label, err)
			}
			if ext, ok := extOf(task); ok {
				for x, off := range moved {
					if ext >= x.Base && ext < x.Base+x.Lines {
						task = isa.Relocate(task, isa.Offsets{isa.MemExt: off})
						break
					}
				}
			}
			d, err := codec.Encode(task)
			if err != nil {
				return nil, fmt.Errorf("compiler: batch: %s: %w", t.Label, err)
			}
			d.Engine, d.Deps = t.Desc.Engine, nil
			rd, wr := codec.Access(task)
			em.emit(Task{Label: BatchName(t.Label, k), Layer: t.Layer, Desc: d, Reads: rd, Writes: wr})
		}
	}
	b.Tasks, b.Joins, b.ExtLines = em.tasks, em.nops, len(b.Image)
	if lim := 1 << cfg.ExtAddrWidth; b.ExtLines > lim {
		return nil, fmt.Errorf("compiler: a batch of %d needs %d external lines, ext_addr_width = %d allows %d", n, b.ExtLines, cfg.ExtAddrWidth, lim)
	}
	rc := int64(cfg.Rows * cfg.Cols)
	b.Ideal = (b.MACs + rc - 1) / rc
	for i := range b.Tasks {
		if _, err := b.Layout.Encode(b.Tasks[i].Desc); err != nil {
			return nil, fmt.Errorf("compiler: batch: %s: %w", b.Tasks[i].Label, err)
		}
	}
	return b, nil
}

// BatchName is the name of copy k of a binding or task label in a
// batch program.
func BatchName(name string, k int) string { return fmt.Sprintf("%s@%d", name, k) }

// extOf is the first external line a DMA task touches.
func extOf(t isa.Task) (int, bool) {
	switch t := t.(type) {
	case isa.Load:
		return t.Ext, true
	case isa.LoadWeights:
		return t.Ext, true
	case isa.Store:
		return t.Ext, true
	}
	return 0, false
}
