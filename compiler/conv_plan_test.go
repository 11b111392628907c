package compiler

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
)

// gemmJob is the NE layer of an M×K by K×N GEMM whose A streams from
// external memory (channel tiles of part partitions) and whose result is
// staged out.
func gemmJob(m, k, n, part int) *convJob {
	return &convJob{label: "gemm", gemm: true, in: &place{part: part}, cin: k, h: m, w: 1, kh: 1, kw: 1, s: 1,
		oh: m, ow: 1, n: n, out: &place{}}
}

// convJobOf is a k×k convolution with stride s and padding pad on every
// side; the input streams and the result is staged out.
func convJobOf(c, h, w, co, k, s, pad, part int) *convJob {
	return &convJob{label: "conv", in: &place{part: part}, cin: c, h: h, w: w, kh: k, kw: k, s: s, ph: pad, pw: pad,
		oh: (h+2*pad-k)/s + 1, ow: (w+2*pad-k)/s + 1, n: co, out: &place{}}
}

func residentIO(j *convJob) *convJob {
	j.in.resident, j.out.resident = true, true
	return j
}

func planStep(ob, t, o0, o1, b0, b1 int, newBand, split bool, w ...wplace) convStep {
	return convStep{ob: ob, t: t, o0: o0, o1: o1, b0: b0, b1: b1, newBand: newBand, split: split, w: w}
}

// perTile is the same pass groups for each of nt output tiles (a dense
// conv).
func perTile(nt int, gs ...group) [][]group {
	out := make([][]group, nt)
	for t := range out {
		out[t] = gs
	}
	return out
}

func wLoad(row int) wplace { return wplace{row, true} }
func wKeep(row int) wplace { return wplace{row, false} }

// planConvCases are shapes small enough to plan by hand (the reasoning
// is in each case's comment).
var planConvCases = []struct {
	name        string
	cfg         npu.Config
	j           *convJob
	free, wring int
	want        convPlan
}{{
	// K = 64 is 4 channel tiles, N = 64 is 4 output tiles. All
	// weights (4·4 passes of 16 rows = 256) fit the 1024-row buffer:
	// resident, one group of all 4 tiles per output tile (64 rows).
	// One block of 64 output rows fits the psum half (256) and its
	// rings double-buffered (2·(4·64 + 64) ≤ 4096). The band loads
	// once; the first step loads it tile by tile.
	name: "gemm 64³ on 16×16", cfg: npu.DefaultConfig(), j: gemmJob(64, 64, 64, 16), free: 4096,
	want: convPlan{ct: 4, nt: 4, wrows: 256, resident: true, slots: 1, slotRows: 1024,
		groups:  perTile(4, group{0, 4, 0, 1}),
		wblocks: [][]wblock{{{0, 64}}, {{64, 64}}, {{128, 64}}, {{192, 64}}}, wringEnd: 256,
		ohb: 64, nob: 1, streamIn: true, staged: true, inSize: 256, outSize: 64, inSlots: 2, outSlots: 2,
		steps: []convStep{
			planStep(0, 0, 0, 64, 0, 64, true, true, wLoad(0)),
			planStep(0, 1, 0, 64, 0, 64, false, false, wLoad(64)),
			planStep(0, 2, 0, 64, 0, 64, false, false, wLoad(128)),
			planStep(0, 3, 0, 64, 0, 64, false, false, wLoad(192)),
		}},
}, {
	// One channel tile, one output tile, 9 passes of 16 rows: resident
	// after the ring's row 100. The 8 output rows fit one block, but
	// halves of 4·8 = 32 ≥ 2R pixels keep long passes: two blocks,
	// reading input rows 0-5 (top padding) and 3-8 (bottom padding).
	name: "conv 3×3 pad 1, 8×8×16 → 16", cfg: npu.DefaultConfig(), j: convJobOf(16, 8, 8, 16, 3, 1, 1, 16), free: 4096, wring: 100,
	want: convPlan{ct: 1, nt: 1, wrows: 144, resident: true, slots: 1, slotRows: 1024,
		groups: perTile(1, group{0, 1, 0, 3}), wblocks: [][]wblock{{{0, 144}}}, wringEnd: 244,
		ohb: 4, nob: 2, streamIn: true, staged: true, inSize: 6 * 8, outSize: 4 * 8, inSlots: 2, outSlots: 2,
		steps: []convStep{
			planStep(0, 0, 0, 4, 0, 5, true, false, wLoad(100)),
			planStep(1, 0, 4, 8, 3, 8, true, false, wKeep(100)),
		}},
}, {
	// The weight ring's next row leaves too little room: resident
	// weights start over at row 0.
	name: "resident weights wrap the ring", cfg: npu.DefaultConfig(), j: convJobOf(16, 8, 8, 16, 3, 1, 1, 16), free: 4096, wring: 900,
	want: convPlan{ct: 1, nt: 1, wrows: 144, resident: true, slots: 1, slotRows: 1024,
		groups: perTile(1, group{0, 1, 0, 3}), wblocks: [][]wblock{{{0, 144}}}, wringEnd: 144,
		ohb: 4, nob: 2, streamIn: true, staged: true, inSize: 6 * 8, outSize: 4 * 8, inSlots: 2, outSlots: 2,
		steps: []convStep{
			planStep(0, 0, 0, 4, 0, 5, true, false, wLoad(0)),
			planStep(1, 0, 4, 8, 3, 8, true, false, wKeep(0)),
		}},
}, {
	// 9 channels on 4 rows: 3 channel tiles of 9 passes (36 rows),
	// 108 rows in all: streamed through two halves of 32, so a tile's
	// kernel rows split in groups of 2 (24 rows) and 1 (12). Blocks of
	// 5 or 4 rows overflow the 256 free addresses double-buffered
	// (2·(3·6·6 + 6·5) = 276, 2·(108 + 24) = 264); 3 rows fit
	// (2·(3·5·6 + 18) = 216). Every group loads into the other half.
	name: "channel tiles and weight groups", cfg: small(), j: convJobOf(9, 6, 6, 4, 3, 1, 1, 4), free: 256, wring: 40,
	want: convPlan{ct: 3, nt: 1, wrows: 108, resident: false, slots: 2, slotRows: 32,
		groups:   perTile(1, group{0, 1, 0, 2}, group{0, 1, 2, 3}, group{1, 2, 0, 2}, group{1, 2, 2, 3}, group{2, 3, 0, 2}, group{2, 3, 2, 3}),
		wblocks:  [][]wblock{{{0, 24}, {24, 12}, {36, 24}, {60, 12}, {72, 24}, {96, 12}}},
		wringEnd: 40,
		ohb:      3, nob: 2, streamIn: true, staged: true, inSize: 3 * 5 * 6, outSize: 3 * 6, inSlots: 2, outSlots: 2,
		steps: []convStep{
			planStep(0, 0, 0, 3, 0, 4, true, true, wLoad(0), wLoad(32), wLoad(0), wLoad(32), wLoad(0), wLoad(32)),
			planStep(1, 0, 3, 6, 2, 6, true, false, wLoad(0), wLoad(32), wLoad(0), wLoad(32), wLoad(0), wLoad(32)),
		}},
}, {
	// Resident input and output: no rings, blocks of 32/10 = 3 rows
	// (4 blocks), all blocks of an output tile before the next. 72
	// weight rows stream through halves of 32 in two row groups per
	// tile, which stay in their halves for the tile's other blocks.
	name: "resident input, streamed weights reused", cfg: small(), j: residentIO(convJobOf(4, 12, 10, 8, 3, 1, 1, 4)), free: 200,
	want: convPlan{ct: 1, nt: 2, wrows: 72, resident: false, slots: 2, slotRows: 32,
		groups:  perTile(2, group{0, 1, 0, 2}, group{0, 1, 2, 3}),
		wblocks: [][]wblock{{{0, 24}, {24, 12}}, {{36, 24}, {60, 12}}},
		ohb:     3, nob: 4, inSlots: 2, outSlots: 2,
		steps: []convStep{
			planStep(0, 0, 0, 3, 0, 12, false, false, wLoad(0), wLoad(32)),
			planStep(1, 0, 3, 6, 0, 12, false, false, wKeep(0), wKeep(32)),
			planStep(2, 0, 6, 9, 0, 12, false, false, wKeep(0), wKeep(32)),
			planStep(3, 0, 9, 12, 0, 12, false, false, wKeep(0), wKeep(32)),
			planStep(0, 1, 0, 3, 0, 12, false, false, wLoad(0), wLoad(32)),
			planStep(1, 1, 3, 6, 0, 12, false, false, wKeep(0), wKeep(32)),
			planStep(2, 1, 6, 9, 0, 12, false, false, wKeep(0), wKeep(32)),
			planStep(3, 1, 9, 12, 0, 12, false, false, wKeep(0), wKeep(32)),
		}},
}, {
	// K = 40 is 10 channel tiles (120 weight rows with 3 output
	// tiles): streamed, groups of 8 tiles per half (32 rows) and the
	// remaining 2. Blocks: 2·11·b ≤ 256 gives 11 rows, 3 blocks;
	// each band serves the 3 output tiles before the next.
	name: "gemm K blocks", cfg: small(), j: gemmJob(33, 40, 9, 4), free: 256,
	want: convPlan{ct: 10, nt: 3, wrows: 120, resident: false, slots: 2, slotRows: 32,
		groups:  perTile(3, group{0, 8, 0, 1}, group{8, 10, 0, 1}),
		wblocks: [][]wblock{{{0, 32}, {32, 8}}, {{40, 32}, {72, 8}}, {{80, 32}, {112, 8}}},
		ohb:     11, nob: 3, streamIn: true, staged: true, inSize: 110, outSize: 11, inSlots: 2, outSlots: 2,
		steps: []convStep{
			planStep(0, 0, 0, 11, 0, 11, true, true, wLoad(0), wLoad(32)),
			planStep(0, 1, 0, 11, 0, 11, false, false, wLoad(0), wLoad(32)),
			planStep(0, 2, 0, 11, 0, 11, false, false, wLoad(0), wLoad(32)),
			planStep(1, 0, 11, 22, 11, 22, true, false, wLoad(0), wLoad(32)),
			planStep(1, 1, 11, 22, 11, 22, false, false, wLoad(0), wLoad(32)),
			planStep(1, 2, 11, 22, 11, 22, false, false, wLoad(0), wLoad(32)),
			planStep(2, 0, 22, 33, 22, 33, true, false, wLoad(0), wLoad(32)),
			planStep(2, 1, 22, 33, 22, 33, false, false, wLoad(0), wLoad(32)),
			planStep(2, 2, 22, 33, 22, 33, false, false, wLoad(0), wLoad(32)),
		}},
}}

// TestPlanConv checks the planner's decisions.
func TestPlanConv(t *testing.T) {
	opts := cmp.AllowUnexported(convPlan{}, group{}, wblock{}, wplace{}, convStep{})
	for _, tc := range planConvCases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := planConv(tc.cfg, tc.j, tc.free, tc.wring)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, *p, opts); d != "" {
				t.Errorf("plan (-want +got):\n%s", d)
			}
		})
	}
}

// TestPlanConvErrors: capacity problems the planner finds, by name and
// value.
func TestPlanConvErrors(t *testing.T) {
	cases := []struct {
		name string
		cfg  npu.Config
		j    *convJob
		free int
		want string
	}{
		{"output wider than the psum half", small(), convJobOf(1, 1, 40, 1, 1, 1, 0, 4), 256,
			"conv: output width ow = 40 exceeds half the psum buffer (psum_depth/2 = 32)"},
		{"band does not fit", small(), convJobOf(8, 4, 20, 4, 3, 1, 1, 4), 100,
			"conv: streaming its input (2 channel tiles of 3×20) and staging its output needs 140 state addresses, 100 are free (state_depth 256)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := planConv(tc.cfg, tc.j, tc.free, 0)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("error (-want +got):\n%s", d)
			}
		})
	}
}

// TestNEReads checks how one group's passes over a band become NE tasks
// (3×3 kernel, padding 1, 6×6 planes).
func TestNEReads(t *testing.T) {
	j := convJobOf(12, 6, 6, 4, 3, 1, 1, 4)
	low := band{base: 100, b0: 2, rows: 4, stride: 24} // input rows 2-5 of 3 tiles
	cases := []struct {
		name   string
		bd     band
		g      group
		o0, o1 int
		split  bool
		want   neReads
		ok     bool
	}{
		// Output rows 3-5 read input rows 2-6 (6: bottom padding) from
		// the band's first row: one task over all tiles at its stride.
		{"whole band", low, group{0, 3, 0, 3}, 3, 6, false, neReads{maxRel: 4, subs: []neSub{{0, 3, 100, 4}}}, true},
		{"split per tile", low, group{0, 3, 0, 3}, 3, 6, true,
			neReads{maxRel: 4, subs: []neSub{{0, 1, 100, 4}, {1, 2, 124, 4}, {2, 3, 148, 4}}}, true},
		// Kernel row 2 starts 2 rows down: d0 = 2 would change the tile
		// stride, and its last row (6) is padding, so one task per tile.
		{"bottom padding", low, group{0, 3, 2, 3}, 3, 6, false,
			neReads{maxRel: 2, subs: []neSub{{0, 1, 112, 2}, {1, 2, 136, 2}, {2, 3, 160, 2}}}, true},
		// Output rows 3-4 read rows 4-5 only: the full band height keeps
		// the stride.
		{"no bottom padding reached", low, group{0, 3, 2, 3}, 3, 5, false,
			neReads{maxRel: 1, subs: []neSub{{0, 3, 112, 4}}}, true},
		{"top padding", band{base: 100, b0: 0, rows: 3, stride: 18}, group{0, 1, 0, 3}, 0, 2, false,
			neReads{ptop: 1, maxRel: 2, subs: []neSub{{0, 1, 100, 3}}}, true},
		{"only padding", band{base: 100, b0: 4, rows: 2, stride: 12}, group{0, 1, 2, 3}, 5, 6, false, neReads{}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := j.neReads(tc.bd, tc.g, tc.o0, tc.o1, tc.split)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if d := cmp.Diff(tc.want, got, cmp.AllowUnexported(neReads{}, neSub{})); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// A streamed input whose double-buffered band holds one output row of a
// 7-wide plane (passes of 7 vectors, shorter than the Rows cycles that
// load a weight tile) takes a single-buffered band of 4 rows instead:
// each band serves all 32 output tiles, so its exposed load is small.
// A band that double-buffers at a full height keeps doing so.
func TestPlanConvWiderBlock(t *testing.T) {
	type blocks struct{ Ohb, Nob, InSlots int }
	cases := []struct {
		name string
		j    *convJob
		want blocks
	}{
		{"ResNet-50 stage 5: 3×3 stride 2 on 512×14×14", convJobOf(512, 14, 14, 512, 3, 2, 1, 16), blocks{4, 2, 1}},
		{"3×3 stride 1 on 64×56×56", convJobOf(64, 56, 56, 64, 3, 1, 1, 16), blocks{4, 14, 2}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := planConv(npu.DefaultConfig(), tc.j, 4096, 0)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, blocks{p.ohb, p.nob, p.inSlots}); d != "" {
				t.Errorf("blocks (-want +got):\n%s", d)
			}
		})
	}
}
