package npu

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/taskmgr"
	"github.com/hwgen/hwgen/isa"
	"github.com/hwgen/hwgen/isa/sparse"
)

// sparseConfig is a small NPU (512 external lines) with a small sparse
// engine: 2 units of 4 lanes; a weight record (2·3 + 4·8 bits) takes 2 external lines of 32
// bits, an accumulator entry (4·32 bits) 4.
func sparseConfig() Config {
	c := smallConfig()
	c.ExtAddrWidth = 9
	c.SparseUnits, c.SparseLanes = 2, 4
	c.SparseEntries, c.SparseWeightDepth, c.SparseTableDepth, c.SparseAccDepth = 16, 32, 8, 16
	c.SparseChannels, c.SparseIndexWidth = 4, 4
	return c
}

// sparseEntry is one non-zero input value and where it sits.
type sparseEntry struct{ value, ch, row, col int64 }

// sparseWeight is one weight record: a kernel position and its lanes.
type sparseWeight struct {
	ky, kx int64
	w      []int64
}

// sparsePass is one unit's work: its entries and, per input channel,
// its weight list.
type sparsePass struct {
	entries []sparseEntry
	lists   [][]sparseWeight
}

// scatter is the reference: every entry times every weight record of its
// channel, to output pixel ((row−ky)/s, (col−kx)/s) when on the grid and
// inside oh × ow; also the multiplications (non-zero weights met).
func (p sparsePass) scatter(lanes, oh, ow, stride int) (acc [][]int64, mults int) {
	acc = make([][]int64, oh*ow)
	for i := range acc {
		acc[i] = make([]int64, lanes)
	}
	for _, e := range p.entries {
		for _, r := range p.lists[e.ch] {
			for _, w := range r.w {
				if w != 0 {
					mults++
				}
			}
			ty, tx := int(e.row-r.ky), int(e.col-r.kx)
			if ty < 0 || tx < 0 || ty%stride != 0 || tx%stride != 0 || ty/stride >= oh || tx/stride >= ow {
				continue
			}
			for j, w := range r.w {
				acc[ty/stride*ow+tx/stride][j] += e.value * w
			}
		}
	}
	return acc, mults
}

// randomPass draws a pass: a sparse input of channels × h × w (density
// about 40%, at most max entries) and sparse k × k kernels of lanes
// output channels.
func randomPass(rng *rand.Rand, channels, h, w, k, lanes, maxEntries int) sparsePass {
	var p sparsePass
	for ch := range channels {
		var list []sparseWeight
		for ky := range k {
			for kx := range k {
				if rng.IntN(3) == 0 {
					continue // no lane non-zero here: no record
				}
				r := sparseWeight{ky: int64(ky), kx: int64(kx), w: make([]int64, lanes)}
				for j := range r.w {
					if rng.IntN(3) != 0 {
						r.w[j] = int64(rng.IntN(31) - 15)
					}
				}
				list = append(list, r)
			}
		}
		p.lists = append(p.lists, list)
		for row := range h {
			for col := range w {
				if v := int64(rng.IntN(255) - 127); v != 0 && rng.IntN(5) < 2 && len(p.entries) < maxEntries {
					p.entries = append(p.entries, sparseEntry{v, int64(ch), int64(row), int64(col)})
				}
			}
		}
	}
	return p
}

// writeRecords writes records (each its field values) into external
// memory from line addr on, as load_sparse reads them
// (sparse.RecordsToLines), and returns the lines they took.
func (h *host) writeRecords(addr int, l sparse.Layout, vals [][]int64) int {
	h.t.Helper()
	var recs []*big.Int
	for _, v := range vals {
		rec, err := l.Pack(v...)
		if err != nil {
			h.t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	lines := sparse.RecordsToLines(recs, l.Width, h.c.Rows, h.c.ElemWidth)
	for j, line := range lines {
		h.writeLine(addr+j, line)
	}
	return len(lines)
}

// readAcc reads n accumulator entries stored from line addr on and
// splits each into its lanes.
func (h *host) readAcc(addr, n int) [][]int64 {
	h.t.Helper()
	s := h.c.Sparse()
	L := sparse.LinesPer(s.AccWordWidth(), h.c.LineWidth())
	out := make([][]int64, n)
	for i := range out {
		var lines [][]int64
		for j := range L {
			lines = append(lines, h.readLine(addr+i*L+j))
		}
		word := sparse.FromLines(lines, h.c.ElemWidth)
		for j := range s.Lanes {
			v := new(big.Int).Rsh(word, uint(j*s.AccWidth)).Int64() & (1<<uint(s.AccWidth) - 1)
			if v >= 1<<uint(s.AccWidth-1) {
				v -= 1 << uint(s.AccWidth)
			}
			out[i] = append(out[i], v)
		}
	}
	return out
}

func (h *host) encode(t isa.Task, deps ...uint64) isa.Descriptor {
	h.t.Helper()
	d, err := h.c.Codec().Encode(t)
	if err != nil {
		h.t.Fatal(err)
	}
	d.Deps = deps
	return d
}

// A sparse convolution through the NPU, by descriptors: load the channel
// table, the weights and each unit's entries (load_sparse), clear, a conv
// on both units at once (each its own pass: its own entries and weight
// lists), store both accumulator planes (store_sparse) and read them back;
// they equal the reference scatter, and a second store of a plane reads
// zeros (store_sparse clears what it reads).
func TestNPUSparseConv(t *testing.T) {
	cases := []struct {
		name          string
		strideLog2, k int
		oh, ow, chans int
		lanes         int
		indexWidth    int // 12: an entry record (8 + 2 + 2·12 bits) takes 2 lines
		seed          uint64
	}{
		{"stride 1, 2x2 kernels, 3 channels", 0, 2, 3, 3, 3, 4, 4, 1},
		{"stride 2, 3x3 kernels, 2 channels", 1, 3, 2, 2, 2, 4, 4, 2},
		{"stride 1, 1x1 kernels, 4 channels, 4x4 plane", 0, 1, 4, 4, 4, 4, 4, 3},
		// One lane: every record and accumulator entry fits one line.
		{"one lane, stride 1, 3x3 kernels, 2 channels", 0, 3, 3, 4, 2, 1, 4, 4},
		{"two-line entries, stride 2, 2x2 kernels", 1, 2, 3, 2, 3, 2, 12, 5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := sparseConfig()
			c.SparseLanes, c.SparseIndexWidth = tc.lanes, tc.indexWidth
			s := c.Sparse()
			h, _ := newHost(t, c)
			rng := rand.New(rand.NewPCG(tc.seed, 9))
			stride := 1 << tc.strideLog2
			H, W := (tc.oh-1)*stride+tc.k, (tc.ow-1)*stride+tc.k
			passes := []sparsePass{
				randomPass(rng, tc.chans, H, W, tc.k, tc.lanes, s.Entries),
				randomPass(rng, tc.chans, H, W, tc.k, tc.lanes, s.Entries),
			}

			// External memory: the table (unit u's pass from record
			// u·chans), the weight lists, the entries, room for the planes.
			const tableAt, weightsAt, entriesAt, outAt = 0, 16, 96, 160
			rec := 0
			var table, weights [][]int64
			for u, p := range passes {
				for _, list := range p.lists {
					table = append(table, []int64{int64(rec), int64(len(list))})
					for _, r := range list {
						weights = append(weights, append([]int64{r.ky, r.kx}, r.w...))
						rec++
					}
				}
				var entries [][]int64
				for _, e := range p.entries {
					entries = append(entries, []int64{e.value, e.ch, e.row, e.col})
				}
				h.writeRecords(entriesAt+32*u, s.Entry(), entries)
			}
			h.writeRecords(tableAt, s.Table(), table)
			h.writeRecords(weightsAt, s.Weight(), weights)
			if rec > s.WeightDepth {
				t.Fatalf("%d weight records, the memory holds %d", rec, s.WeightDepth)
			}

			plane := tc.oh * tc.ow
			lt := h.push(h.encode(isa.SparseLoad{Ext: tableAt, Records: 2 * tc.chans, Kind: sparse.KindTable}))
			lw := h.push(h.encode(isa.SparseLoad{Ext: weightsAt, Records: rec, Kind: sparse.KindWeights}))
			var stores []uint64
			for u, p := range passes {
				le := h.push(h.encode(isa.SparseLoad{Ext: entriesAt + 32*u, Records: len(p.entries), Kind: sparse.KindEntries, Unit: u, Set: u}))
				cl := h.push(h.encode(isa.SparseClearTask{Unit: u, Count: plane}))
				stores = append(stores, h.push(h.encode(isa.SparseConvTask{Unit: u, Set: u, Count: len(p.entries), TBase: u * tc.chans,
					OH: tc.oh, OW: tc.ow, StrideLog2: tc.strideLog2}, lt, lw, le, cl)))
			}
			L := sparse.LinesPer(s.AccWordWidth(), c.LineWidth())
			var st []uint64
			for u := range passes {
				st = append(st, h.push(h.encode(isa.SparseStore{Unit: u, Addr: 0, Entries: plane, Ext: outAt + u*plane*L}, stores[u])))
			}
			again := outAt + 2*plane*L
			h.push(h.encode(isa.SparseStore{Unit: 0, Addr: 0, Entries: plane, Ext: again}, st[0]))

			h.wait(20000)
			// The units overlapped: together they were busy longer than
			// the engine had a task (the union of their busy cycles).
			if u0, u1, e := h.s.Peek("sparse0_busy_cycles"), h.s.Peek("sparse1_busy_cycles"), h.s.Peek("sparse_busy_cycles"); u0+u1 <= e {
				t.Errorf("units busy %d + %d cycles, the engine %d: they never ran at once", u0, u1, e)
			}

			totalMults := 0
			for u, p := range passes {
				want, mults := p.scatter(s.Lanes, tc.oh, tc.ow, stride)
				totalMults += mults
				if diff := cmp.Diff(want, h.readAcc(outAt+u*plane*L, plane)); diff != "" {
					t.Errorf("unit %d plane (-want +got):\n%s", u, diff)
				}
				if got := h.s.Peek(fmt.Sprintf("sparse%d_mults", u)); got != uint64(mults) {
					t.Errorf("sparse%d_mults = %d, want %d", u, got, mults)
				}
			}
			t.Logf("entries %d and %d, %d weight records, %d multiplications, %d cycles", len(passes[0].entries), len(passes[1].entries), rec, totalMults, h.s.Sim.Cycle())
			// store_sparse moves a line per cycle: each of the 3 stores is
			// busy for its plane·L lines and a few cycles of latency.
			if got, most := h.s.Peek("dma_out_busy_cycles"), uint64(3*(plane*L+4)); got > most {
				t.Errorf("dma_out busy %d cycles for 3 stores of %d lines, want at most %d", got, plane*L, most)
			}
			t.Logf("dma_out busy %d cycles for 3 stores of %d lines", h.s.Peek("dma_out_busy_cycles"), plane*L)
			zeros := make([][]int64, plane)
			for i := range zeros {
				zeros[i] = make([]int64, s.Lanes)
			}
			if diff := cmp.Diff(zeros, h.readAcc(again, plane)); diff != "" {
				t.Errorf("unit 0 plane after its store (-want +got):\n%s", diff)
			}
			want := map[string]uint64{"err_code": 0, "sparse_mults": uint64(totalMults), "sparse_completed": 4,
				"dma_in_completed": 4, "dma_out_completed": 3}
			got := map[string]uint64{}
			for p := range want {
				got[p] = h.s.Peek(p)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
		})
	}
}

// Without the sparse engine, a descriptor naming it, or one of the DMA
// ops that serve it, is malformed: the task manager flags it and skips.
func TestNPUSparseAbsent(t *testing.T) {
	cases := []struct {
		name       string
		engine, op uint64
		code       uint64
		skipped    uint64
	}{
		{"sparse engine", uint64(isa.Sparse), uint64(isa.SparseConv), taskmgr.ErrEngine, 1},
		{"load_sparse", uint64(isa.DMAIn), uint64(isa.DMAInLoadSparse), taskmgr.ErrOp, 1},
		{"store_sparse", uint64(isa.DMAOut), uint64(isa.DMAOutStoreSparse), taskmgr.ErrOp, 1},
		{"store (control: well-formed)", uint64(isa.DMAOut), uint64(isa.DMAOutStore), taskmgr.ErrNone, 0},
	}
	c := DefaultConfig() // sparse_units 0
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, _ := newHost(t, c)
			bits, err := h.lay.Pack(map[string]uint64{"engine": tc.engine, "op": tc.op, "d0": 1, "d1": 1})
			if err != nil {
				t.Fatal(err)
			}
			h.s.Poke("cmd_valid", 1)
			h.s.Poke("cmd_queue", 0)
			h.s.PokeBig("cmd_desc", bits)
			h.s.Step(1)
			h.s.Poke("cmd_valid", 0)
			h.wait(100)
			got := map[string]uint64{"err_code": h.s.Peek("err_code"), "skipped": h.s.Peek("skipped")}
			if diff := cmp.Diff(map[string]uint64{"err_code": tc.code, "skipped": tc.skipped}, got); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
		})
	}
}

// A load into the buffer set a running conv reads waits for it (the
// set refuses writes, in_wr_ready low, and dma_in holds the record): the
// conv computes on the entries it started with, and the second load
// lands once the conv is done.
func TestNPUSparseLoadWaits(t *testing.T) {
	c := sparseConfig()
	s := c.Sparse()
	h, _ := newHost(t, c)
	rng := rand.New(rand.NewPCG(6, 9))
	const oh, ow, k, chans = 3, 3, 2, 2
	first := randomPass(rng, chans, oh+k-1, ow+k-1, k, s.Lanes, s.Entries)
	second := randomPass(rng, chans, oh+k-1, ow+k-1, k, s.Lanes, s.Entries)
	second.lists = first.lists // the same weights; other entries
	const tableAt, weightsAt, firstAt, secondAt, outAt = 0, 8, 80, 112, 144
	rec := 0
	var table, weights [][]int64
	for _, list := range first.lists {
		table = append(table, []int64{int64(rec), int64(len(list))})
		for _, r := range list {
			weights = append(weights, append([]int64{r.ky, r.kx}, r.w...))
			rec++
		}
	}
	h.writeRecords(tableAt, s.Table(), table)
	h.writeRecords(weightsAt, s.Weight(), weights)
	for i, p := range []sparsePass{first, second} {
		var entries [][]int64
		for _, e := range p.entries {
			entries = append(entries, []int64{e.value, e.ch, e.row, e.col})
		}
		h.writeRecords([]int{firstAt, secondAt}[i], s.Entry(), entries)
	}
	lt := h.push(h.encode(isa.SparseLoad{Ext: tableAt, Records: chans, Kind: sparse.KindTable}))
	lw := h.push(h.encode(isa.SparseLoad{Ext: weightsAt, Records: rec, Kind: sparse.KindWeights}))
	l1 := h.push(h.encode(isa.SparseLoad{Ext: firstAt, Records: len(first.entries), Kind: sparse.KindEntries}))
	cl := h.push(h.encode(isa.SparseClearTask{Count: oh * ow}))
	conv := h.push(h.encode(isa.SparseConvTask{Count: len(first.entries), OH: oh, OW: ow}, lt, lw, l1, cl))
	// No dependency on the conv: only the hardware keeps it from
	// overwriting the set the conv reads.
	h.push(h.encode(isa.SparseLoad{Ext: secondAt, Records: len(second.entries), Kind: sparse.KindEntries}, l1))
	h.push(h.encode(isa.SparseStore{Entries: oh * ow, Ext: outAt}, conv))
	h.wait(20000)

	want, _ := first.scatter(s.Lanes, oh, ow, 1)
	if diff := cmp.Diff(want, h.readAcc(outAt, oh*ow)); diff != "" {
		t.Errorf("plane (-want +got):\n%s", diff)
	}
	t.Logf("dma_in stalled %d cycles", h.s.Peek("dma_in_stall_cycles"))
	if st := h.s.Peek("dma_in_stall_cycles"); st == 0 {
		t.Errorf("dma_in never stalled: the second load did not meet the running conv")
	}
	// The second load's entries are in set 0 now: a conv on them gives
	// the second pass's plane.
	cl = h.push(h.encode(isa.SparseClearTask{Count: oh * ow}))
	conv = h.push(h.encode(isa.SparseConvTask{Count: len(second.entries), OH: oh, OW: ow}, cl))
	h.push(h.encode(isa.SparseStore{Entries: oh * ow, Ext: outAt}, conv))
	h.wait(20000)
	want, _ = second.scatter(s.Lanes, oh, ow, 1)
	if diff := cmp.Diff(want, h.readAcc(outAt, oh*ow)); diff != "" {
		t.Errorf("second plane (-want +got):\n%s", diff)
	}
}
