package systolic

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/golden"
)

// psumModel is the psum buffer as the array's output port writes it:
// partition c, entry e → value, and the cycle of the last write.
type psumModel struct {
	val   map[[2]int]int64
	cycle map[[2]int]int
}

func writePsums(outs []outVec) *psumModel {
	pm := &psumModel{val: map[[2]int]int64{}, cycle: map[[2]int]int{}}
	for _, o := range outs {
		for c, v := range o.Psum {
			k := [2]int{c, o.Entry}
			if o.Acc {
				v += pm.val[k]
			}
			pm.val[k], pm.cycle[k] = v, o.Cycle
		}
	}
	return pm
}

// partition returns entries base … base+n-1 of partition c.
func (pm *psumModel) partition(c, base, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = pm.val[[2]int{c, base + i}]
	}
	return out
}

// The 4×4 worked example of docs/sources.md §1: A = 1..16 row-major is loaded as
// the weights (partition r → PE row r), the feeder streams the identity,
// and psum partition j entry i receives A[i][j] on a diagonal wavefront.
func TestTransposeWorkedExample(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Rows, cfg.Cols = 4, 4
	A := [][]int64{{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}, {13, 14, 15, 16}}

	// The wavefront: in the source's cycle k, psum partition j receives
	// entry i for every i+j = k-1. A write is {partition, entry, value}.
	// The source quotes cycle 1 (0,0)=1; cycle 2 (1,0)=2, (0,1)=5; cycle 4
	// (2,1)=7, (1,2)=10, (0,3)=13 (with (3,0)=4, which the summary leaves
	// out); the last, cycle 7, is (3,3)=16 after R+C-1 = 7 steps.
	type write struct {
		Partition, Entry int
		Value            int64
	}
	wavefront := map[int][]write{
		1: {{0, 0, 1}},
		2: {{0, 1, 5}, {1, 0, 2}},
		3: {{0, 2, 9}, {1, 1, 6}, {2, 0, 3}},
		4: {{0, 3, 13}, {1, 2, 10}, {2, 1, 7}, {3, 0, 4}},
		5: {{1, 3, 14}, {2, 2, 11}, {3, 1, 8}},
		6: {{2, 3, 15}, {3, 2, 12}},
		7: {{3, 3, 16}},
	}

	p := makePlan(t, cfg, []tile{{w: A, tr: true, last: 3}})
	T0 := p.first // the cycle the transpose command is taken
	h := newHarness(t, cfg)
	res, err := h.runWatching(t, p, 1, func(c int, d *driver) {
		// The source counts the wavefront where the psums leave the PE
		// columns; here column j's psum of the vector taken in cycle v
		// leaves the bottom PE in cycle v+R+j+1, so the source's cycle k
		// is T0+R+k.
		k := c - T0 - cfg.Rows
		if k < 1 || k > 7 {
			return
		}
		var got []write
		for j := 0; j < cfg.Cols; j++ {
			i := k - 1 - j
			if i < 0 || i > 3 {
				continue
			}
			got = append(got, write{j, i, d.PeekInt(fmt.Sprintf("pe_%d_%d.p", cfg.Rows-1, j))})
		}
		if diff := cmp.Diff(wavefront[k], got); diff != "" {
			t.Errorf("source cycle %d (our cycle %d): wavefront (-want +got):\n%s", k, c, diff)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	checkRun(t, p, res, cfg)

	// Deskewed, entry i of every partition is written together, C-1-j
	// cycles after column j's value left the array: in the source's
	// cycle i+C, which is cycle T0+R+C+i here.
	pm := writePsums(res.outs)
	want := [][]int64{{1, 5, 9, 13}, {2, 6, 10, 14}, {3, 7, 11, 15}, {4, 8, 12, 16}}
	for j := 0; j < 4; j++ {
		if diff := cmp.Diff(want[j], pm.partition(j, 0, 4)); diff != "" {
			t.Errorf("psum partition %d (-want +got):\n%s", j, diff)
		}
		for i := 0; i < 4; i++ {
			if got, want := pm.cycle[[2]int{j, i}], T0+cfg.Latency()+i; got != want {
				t.Errorf("psum partition %d entry %d written in cycle %d, want %d", j, i, got, want)
			}
		}
	}
	if res.outs[len(res.outs)-1].Cycle-T0 != cfg.Rows+cfg.Cols+3 {
		t.Errorf("last write %d cycles after the command, want R+C+3", res.outs[len(res.outs)-1].Cycle-T0)
	}
}

// Transposes of blocks of every shape up to the array's, back to back
// with GEMM tiles, on square and non-square arrays. Each block R'×C' is
// loaded as weights (rows < R'; columns ≥ C' zero); psum partition j
// entry base+i must hold A[i][j].
func TestTranspose(t *testing.T) {
	cases := []struct {
		rows, cols int
		blocks     [][2]int // R'×C'
	}{
		{4, 4, [][2]int{{4, 4}, {1, 1}, {2, 3}, {4, 1}}},
		{8, 4, [][2]int{{8, 4}, {3, 4}, {8, 1}, {5, 2}}},
		{4, 8, [][2]int{{4, 8}, {4, 5}, {1, 8}, {2, 2}}},
		{5, 3, [][2]int{{5, 3}, {5, 1}, {2, 3}}}, // R not a power of two
	}
	for n, tc := range cases {
		cfg := DefaultConfig()
		cfg.Rows, cfg.Cols, cfg.EntryWidth = tc.rows, tc.cols, 6
		t.Run(Name(cfg), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(n), 5))
			wt := intOf(cfg.WeightType())
			var tiles []tile
			var blocks [][][]int64
			entry := 0
			for b, sh := range tc.blocks {
				A := randMatrix(rng, sh[0], sh[1], wt, 0.2)
				blocks = append(blocks, A)
				w := make([][]int64, cfg.Rows)
				for r := range A {
					w[r] = append(append([]int64(nil), A[r]...), make([]int64, cfg.Cols-sh[1])...)
				}
				tiles = append(tiles, tile{w: w, tr: true, last: sh[0] - 1, entry: entry, loadSkew: rng.IntN(3)})
				entry += sh[0]
				if b%2 == 1 { // a GEMM tile in between
					tiles = append(tiles, randTiles(rng, cfg, 1, 0.3)[0])
					tiles[len(tiles)-1].entry = 40
				}
			}
			p := makePlan(t, cfg, tiles)
			res := newHarness(t, cfg).run(t, p, uint64(n))
			checkRun(t, p, res, cfg)
			pm := writePsums(res.outs)
			entry = 0
			for b, A := range blocks {
				at, err := golden.Transpose(mustTensor(t, A))
				if err != nil {
					t.Fatal(err)
				}
				for j, row := range at.Rows() {
					if diff := cmp.Diff(row, pm.partition(j, entry, len(A))); diff != "" {
						t.Errorf("block %d (%dx%d): psum partition %d (-want +got):\n%s", b, len(A), len(A[0]), j, diff)
					}
				}
				entry += len(A)
			}
		})
	}
}

// Transposing twice gives A back: the psums of the first transpose are
// loaded as the weights of the second (a 3×6 block becomes 6×3 and back).
func TestTransposeTwice(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Rows, cfg.Cols = 6, 6
	rng := rand.New(rand.NewPCG(9, 9))
	A := randMatrix(rng, 3, 6, intOf(cfg.WeightType()), 0.1)
	h := newHarness(t, cfg)
	pad := func(m [][]int64) [][]int64 {
		w := make([][]int64, cfg.Rows)
		for r := range m {
			w[r] = append(append([]int64(nil), m[r]...), make([]int64, cfg.Cols-len(m[r]))...)
		}
		return w
	}
	p1 := makePlan(t, cfg, []tile{{w: pad(A), tr: true, last: 2, entry: 10}})
	pm := writePsums(h.run(t, p1, 1).outs)
	At := make([][]int64, 6) // psum partition j, entries 10..12 = row j of Aᵀ
	for j := range At {
		At[j] = pm.partition(j, 10, 3)
	}
	p2 := makePlan(t, cfg, []tile{{w: pad(At), tr: true, last: 5, entry: 20}})
	pm2 := writePsums(h.run(t, p2, 2).outs)
	for j := 0; j < 3; j++ {
		if diff := cmp.Diff(A[j], pm2.partition(j, 20, 6)); diff != "" {
			t.Errorf("row %d of A after two transposes (-want +got):\n%s", j, diff)
		}
	}
}

// A transpose command streams R' vectors on its own: while it does, the
// input port is not ready and a presented vector waits; a command waits
// while a vector is presented. Nothing is lost, nothing is reordered, and
// tr_last above R-1 is clamped to R-1.
func TestTransposeHandshake(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Rows, cfg.Cols, cfg.EntryWidth = 5, 3, 6
	A := [][]int64{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}, {10, 11, 12}, {13, 14, 15}}
	B := [][]int64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}, {2, 2, 2}}
	h := newHarness(t, cfg)
	sd, res := h.start(t)
	dr := &driver{Driver: sd, h: h, rng: rand.New(rand.NewPCG(1, 1))}
	cycle := 0
	step := func(b beat) (inReady, trReady bool) {
		dr.present(b)
		inReady, trReady = dr.PeekInt("in_ready") == 1, dr.PeekInt("tr_ready") == 1
		if o, ok := dr.sample(cycle); ok {
			res.outs = append(res.outs, o)
		}
		dr.Step(1)
		cycle++
		return inReady, trReady
	}
	for r, w := range A {
		step(beat{load: &load{row: r, w: w}})
	}
	// Cycle 5: a vector and a command together: the vector goes first.
	v := &vec{x: []int64{1, 1, 1, 1, 1}, entry: 50}
	if in, tr := step(beat{vec: v, tr: &trCmd{last: 7, entry: 0}}); !in || tr {
		t.Fatalf("vector with a command: in_ready %v tr_ready %v, want true false", in, tr)
	}
	if _, tr := step(beat{tr: &trCmd{last: 7, entry: 0}}); !tr {
		t.Fatalf("command alone not taken")
	}
	taken := []int{5, 6}
	// Load B for the tile after the transpose (rows may load from cycle
	// 6+r), and keep presenting a vector that swaps to B until it is
	// taken: that happens when the 5 one-hot vectors (tr_last 7 clamps
	// to 4) are out, in cycle 11.
	vb := &vec{x: []int64{1, 2, 3, 4, 5}, entry: 60, swap: true}
	for k := 0; ; k++ {
		var l *load
		if k < len(B) {
			l = &load{row: k, w: B[k]}
		}
		in, _ := step(beat{vec: vb, load: l})
		if in {
			taken = append(taken, cycle-1)
			break
		}
		if k > 10 {
			t.Fatal("vector never taken")
		}
	}
	for range cfg.Latency() + 2 {
		step(beat{})
	}
	res.macs, res.skips = dr.counters()
	if taken[2] != 11 {
		t.Errorf("waiting vector taken in cycle %d, want 11 (after e_0…e_4 in cycles 6…10)", taken[2])
	}
	L := cfg.Latency()
	want := []outVec{
		{Cycle: 5 + L, Entry: 50, Psum: []int64{0, 0, 0}}, // no weights swapped in yet: all zero
	}
	for i := 0; i < 5; i++ {
		want = append(want, outVec{Cycle: 6 + i + L, Entry: i, Psum: A[i]})
	}
	want = append(want, outVec{Cycle: 11 + L, Entry: 60, Psum: []int64{1 + 4 + 10, 2 + 4 + 10, 3 + 4 + 10}})
	if diff := cmp.Diff(want, res.outs); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
}

func mustTensor(t *testing.T, rows [][]int64) *golden.Tensor {
	t.Helper()
	m, err := golden.FromRows(rows)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
