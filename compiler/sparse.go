package compiler

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/blocks/taskmgr"
	"github.com/hwgen/hwgen/compiler/sparseconv"
	"github.com/hwgen/hwgen/isa"
	"github.com/hwgen/hwgen/isa/sparse"
)

// CompileSparse maps a convolution onto the NPU's sparse engine.
// compiler/sparseconv compresses the input into entries, partitions it
// among the units and builds the weight lists; this turns its records
// into an external-memory image and its work into descriptors the task
// manager runs: dma_in load_sparse (the channel table, the weight lists,
// each unit's entries chunk by chunk, alternating buffer sets), sparse
// clear and conv per unit, and per pass a dma_out store_sparse of each
// unit's plane (which clears it for the next pass). The result, the
// int32 sums [Cout][OH][OW], is the program's output name.
func CompileSparse(cfg npu.Config, conv sparseconv.Conv, x, w []int64, split sparseconv.Split, name string) (*Program, *sparseconv.Program, error) {
	if err := cfg.Validate(); err != nil {
		return nil, nil, fmt.Errorf("compiler: %w", err)
	}
	if cfg.SparseUnits == 0 {
		return nil, nil, errors.New("compiler: sparse_units = 0: this NPU has no sparse engine (set sparse_units to 1 or more)")
	}
	sp, err := sparseconv.Compile(cfg.Sparse(), conv, x, w, split)
	if err != nil {
		return nil, nil, fmt.Errorf("compiler: sparse engine: %w", err)
	}
	layout, err := taskmgr.NewLayout(cfg.TaskMgr())
	if err != nil {
		return nil, nil, fmt.Errorf("compiler: %w", err)
	}
	b := &sparseBuilder{cfg: cfg, isa: cfg.Codec(), sp: sp, em: newEmitter(cfg),
		prog: &Program{Config: cfg, Layout: layout, LayerMACs: map[string]int64{}}}
	if err := b.build(name); err != nil {
		return nil, nil, err
	}
	p := b.prog
	p.Tasks, p.Joins, p.ExtLines = b.em.tasks, b.em.nops, len(p.Image)
	if lim := 1 << cfg.ExtAddrWidth; p.ExtLines > lim {
		return nil, nil, fmt.Errorf("compiler: the program needs %d external lines (one per entry, more per weight record and sum), ext_addr_width = %d allows %d: raise ext_addr_width", p.ExtLines, cfg.ExtAddrWidth, lim)
	}
	oh, ow := conv.OutSize()
	p.MACs = int64(conv.Cout*oh*ow) * int64(conv.C*conv.KH*conv.KW)
	p.LayerMACs[name] = p.MACs
	// Ideal here is the end of the list schedule the tasks were ordered
	// by: a record a cycle on each unit, a line a cycle on each DMA engine.
	p.Ideal = b.estimate
	for i := range p.Tasks {
		if _, err := layout.Encode(p.Tasks[i].Desc); err != nil {
			return nil, nil, fmt.Errorf("compiler: %s: %w", p.Tasks[i].Label, err)
		}
	}
	return p, sp, nil
}

// SparseUnitLabel is the prefix of the labels of unit i's tasks (its
// loads, clear, convs and stores), for reports per unit.
func SparseUnitLabel(i int) string { return fmt.Sprintf("sparse u%d ", i) }

type sparseBuilder struct {
	cfg  npu.Config
	isa  *isa.Codec
	sp   *sparseconv.Program
	em   *emitter
	prog *Program
	// estimate is the cycles of the list schedule of the program's tasks.
	estimate int64
}

// image appends records of kind k to the external image, as many to a
// line as fit (or one over several lines), and returns the first line.
func (b *sparseBuilder) image(recs []*big.Int, k sparse.Kind) int {
	base := len(b.prog.Image)
	b.prog.Image = append(b.prog.Image, sparse.RecordsToLines(recs, b.sp.Config.Record(k).Width, b.cfg.Rows, b.cfg.ElemWidth)...)
	return base
}

func (b *sparseBuilder) task(label string, t isa.Task) error {
	if err := b.em.emitTask(b.isa, label, t); err != nil {
		return fmt.Errorf("compiler: %w", err)
	}
	return nil
}

// load emits the load_sparse tasks of n records laid out from line ext:
// several when the lines or records exceed a descriptor's d0 or d2,
// each starting a group.
func (b *sparseBuilder) load(label string, kind sparse.Kind, unit, set, addr, ext, n int) error {
	per, lines := sparse.Grouping(b.sp.Config.Record(kind).Width, b.cfg.LineWidth())
	dim := 1<<b.cfg.TaskMgr().DimBits - 1
	most := min(dim/lines, dim/per) * per
	for lo := 0; lo < n; lo += most {
		k := min(most, n-lo)
		t := isa.SparseLoad{Ext: ext + lo/per*lines, Records: k, Kind: kind, Unit: unit, Set: set, Addr: addr + lo}
		if err := b.task(label, t); err != nil {
			return err
		}
	}
	return nil
}

func (b *sparseBuilder) build(name string) error {
	sp, cfg := b.sp, b.cfg
	tableAt := b.image(sp.Table, sparse.KindTable)
	weightsAt := b.image(sp.Weights, sparse.KindWeights)
	if err := b.load("sparse table", sparse.KindTable, 0, 0, 0, tableAt, len(sp.Table)); err != nil {
		return err
	}
	if err := b.load("sparse weights", sparse.KindWeights, 0, 0, 0, weightsAt, len(sp.Weights)); err != nil {
		return err
	}
	accLines := b.isa.Sizes.SparseAccLines()
	// Every unit's entries, chunk by chunk (each starts a group of the
	// lines), then the output area: unit i's plane of pass t is record
	// outRec[i][t] on.
	chunkAt := make([][]int, len(sp.Units))
	for i, u := range sp.Units {
		for _, ch := range u.Chunks {
			chunkAt[i] = append(chunkAt[i], b.image(u.Entries[ch.Lo:ch.Hi], sparse.KindEntries))
		}
	}
	outBase := len(b.prog.Image)
	outRec := make([][]int, len(sp.Units))
	records := 0
	for i, u := range sp.Units {
		for range sp.Passes {
			outRec[i] = append(outRec[i], records)
			records += u.OH * u.OW
		}
	}
	b.prog.Image = append(b.prog.Image, make([][]int64, records*accLines)...)
	for a := outBase; a < len(b.prog.Image); a++ {
		b.prog.Image[a] = make([]int64, cfg.Rows)
	}

	// Every unit's jobs, emitted in the order a list schedule of their
	// estimated times starts them: the task manager issues in program
	// order, so a task placed after others it need not wait for would
	// hold back every engine's later tasks.
	q := &sparseQueue{}
	dmaIn := q.resource()
	dmaOut := q.resource()
	q.busy(dmaIn, int64(b.isa.Sizes.SparseLoadLines(sparse.KindTable, len(sp.Table))+b.isa.Sizes.SparseLoadLines(sparse.KindWeights, len(sp.Weights))))
	el := sp.Config.Entry()
	for i, u := range sp.Units {
		i, u := i, u
		unit := q.resource()
		// Pass t accumulates into bank t mod banks: with two, a pass's
		// plane is stored while the next pass computes into the other.
		banks := min(sp.Config.AccBanks, sp.Passes)
		last := -1
		for bank := range banks {
			last = q.add(unit, int64(u.OH*u.OW), func() error {
				return b.task(SparseUnitLabel(i)+fmt.Sprintf("clear bank %d", bank), isa.SparseClearTask{Unit: i, Count: u.OH * u.OW, Bank: bank})
			}, last)
		}
		setUser := [2]int{-1, -1} // the conv that last read each buffer set
		holds := [2]int{-1, -1}   // the chunk each buffer set holds
		lastSet := 1              // the set the previous conv read
		var stores []int          // per pass: its store
		for t := range sp.Passes {
			bank := t % banks
			// Odd passes take the chunks in reverse, so a pass starts on
			// the two its predecessor left in the sets: only the others
			// are loaded again (a pass's sums do not depend on the order).
			for n := range u.Chunks {
				k := n
				if t%2 == 1 {
					k = len(u.Chunks) - 1 - n
				}
				t, ch := t, u.Chunks[k]
				set, loaded := -1, -1
				for s, h := range holds {
					if h == k {
						set = s
					}
				}
				if set < 0 {
					// Into the set the previous conv did not read, so the
					// load runs beside it.
					set = 1 - lastSet
					label := SparseUnitLabel(i) + fmt.Sprintf("load chunk %d pass %d (set %d)", k, t, set)
					loaded = q.add(dmaIn, int64(b.isa.Sizes.SparseLoadLines(sparse.KindEntries, ch.Hi-ch.Lo)), func() error {
						return b.load(label, sparse.KindEntries, i, set, 0, chunkAt[i][k], ch.Hi-ch.Lo)
					}, setUser[set])
					holds[set] = k
				}
				lastSet = set
				var work int64
				for _, e := range u.Entries[ch.Lo:ch.Hi] {
					work += max(sp.Records[t][el.Unpack(e)[1]], 1)
				}
				label := SparseUnitLabel(i) + fmt.Sprintf("conv chunk %d pass %d", k, t)
				deps := []int{last, loaded}
				if n == 0 && t >= banks {
					deps = append(deps, stores[t-banks]) // the store of the bank's last pass clears it
				}
				last = q.add(unit, work, func() error {
					return b.task(label, isa.SparseConvTask{Unit: i, Set: set, Count: ch.Hi - ch.Lo, TBase: t * sp.Conv.C,
						OH: u.OH, OW: u.OW, StrideLog2: int(sp.StrideLog2()), Bank: bank})
				}, deps...)
				setUser[set] = last
			}
			t := t
			label := SparseUnitLabel(i) + fmt.Sprintf("store pass %d", t)
			stores = append(stores, q.add(dmaOut, int64(u.OH*u.OW*accLines), func() error {
				return b.task(label, isa.SparseStore{Unit: i, Bank: bank, Addr: 0, Entries: u.OH * u.OW, Ext: outBase + outRec[i][t]*accLines})
			}, last))
		}
	}
	order, end := q.order()
	b.estimate = end
	for _, j := range order {
		if err := q.jobs[j].emit(); err != nil {
			return err
		}
	}
	return b.bindOutput(name, outBase, outRec, records*accLines)
}

// bindOutput describes the result [Cout][OH][OW]: the stitch of every
// unit's planes, computed once on record and lane numbers.
func (b *sparseBuilder) bindOutput(name string, base int, outRec [][]int, lines int) error {
	sp := b.sp
	lanes := sp.Config.Lanes
	planes := make([]sparseconv.Planes, len(sp.Units))
	for i, u := range sp.Units {
		planes[i] = make(sparseconv.Planes, sp.Passes)
		for t := range sp.Passes {
			planes[i][t] = make([][]int64, u.OH*u.OW)
			for a := range planes[i][t] {
				px := make([]int64, lanes)
				for j := range px {
					px[j] = int64((outRec[i][t]+a)*lanes + j)
				}
				planes[i][t][a] = px
			}
		}
	}
	ids, err := sp.Stitch(planes)
	if err != nil {
		return fmt.Errorf("compiler: sparse output: %w", err)
	}
	r := &Records{Lines: b.isa.Sizes.SparseAccLines(), Width: sp.Config.AccWidth, ElemWidth: b.cfg.ElemWidth,
		Rec: make([]int32, len(ids)), Bit: make([]int32, len(ids))}
	for i, id := range ids {
		r.Rec[i], r.Bit[i] = int32(id/int64(lanes)), int32(id%int64(lanes))*int32(sp.Config.AccWidth)
	}
	oh, ow := sp.Conv.OutSize()
	b.prog.Outputs = append(b.prog.Outputs, &Binding{Name: name, Shape: []int{sp.Conv.Cout, oh, ow}, Base: base,
		Lines: lines, Rows: b.cfg.Rows, Records: r})
	return nil
}
