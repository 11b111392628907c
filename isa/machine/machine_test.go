package machine

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/isa"
	"github.com/hwgen/hwgen/isa/planar"
	"github.com/hwgen/hwgen/isa/sparse"
)

// tinySizes is a 2×2 NPU of int8 elements and 20-bit accumulators with
// a one-unit sparse engine of two lanes: external lines of 16 bits hold
// one entry record, half a weight record (20 bits), three table records,
// and a third of an accumulator word (40 bits).
func tinySizes() isa.Sizes {
	return isa.Sizes{Rows: 2, Cols: 2, StateDepth: 16, PsumDepth: 8, WeightDepth: 8, Engines: 1,
		ElemWidth: 8, AccWidth: 20, ExtAddrWidth: 6,
		Planar: planar.Sizes{Lanes: 2, PsumLanes: 2, ElemWidth: 8, ElemSigned: true, AccWidth: 20, ScaleWidth: 10,
			StateDepth: 16, PsumDepth: 8, MaxKernel: 3, LineDepth: 4},
		Sparse: sparse.Sizes{Units: 1, Lanes: 2, ValueWidth: 8, WeightWidth: 8, AccWidth: 20, Entries: 4, Channels: 2,
			IndexWidth: 3, MaxKernel: 3, WeightDepth: 4, TableDepth: 2, AccDepth: 4, AccBanks: 1}}
}

// run encodes and executes tasks on a fresh machine of s holding image.
func run(t *testing.T, s isa.Sizes, image [][]int64, tasks []isa.Task) *Machine {
	t.Helper()
	m, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.LoadImage(image); err != nil {
		t.Fatal(err)
	}
	c := isa.NewCodec(s)
	for i, task := range tasks {
		d, err := c.Encode(task)
		if err != nil {
			t.Fatalf("task %d: %v", i, err)
		}
		if err := m.Exec(d); err != nil {
			t.Fatalf("task %d (%T): %v", i, task, err)
		}
	}
	return m
}

// sparseImage lays records out as load_sparse reads them, from line 0.
func sparseImage(t *testing.T, s isa.Sizes, k sparse.Kind, recs ...[]int64) [][]int64 {
	t.Helper()
	l := s.Sparse.Record(k)
	var packed []*big.Int
	for _, r := range recs {
		p, err := l.Pack(r...)
		if err != nil {
			t.Fatal(err)
		}
		packed = append(packed, p)
	}
	return sparse.RecordsToLines(packed, l.Width, s.Rows, s.ElemWidth)
}

// taskCase is a program of tasks, its image, and the external lines
// from out it must write, with the work the machine counts.
type taskCase struct {
	name  string
	image [][]int64
	tasks []isa.Task
	out   int // the first external line compared
	want  [][]int64
	stats Stats
}

// taskCases are programs with a task of every engine on s (tinySizes),
// their results by hand.
func taskCases(t *testing.T, s isa.Sizes) []taskCase {
	act := planar.Task{Op: planar.OpAct, Mask: 3, Src: 0, Dst: 4, H: 1, W: 2, Scale: 3, Bias: 1, Shift: 1}
	abs := planar.Task{Op: planar.OpEltwise, Fn: planar.FnAbs, Mask: 3, Src: 0, Dst: 4, H: 1, W: 2, Scale: 1}
	wb := planar.Task{Op: planar.OpWriteBack, Mask: 3, Src: 0, Dst: 4, H: 1, W: 2}
	// The sparse case: entries (value, channel, row, col) 3 at (1, 1)
	// and −2 at (0, 1); channel 0's weight list (ky, kx, w0, w1) is
	// (0, 0: 1, 2) and (1, 1: −1, 5). Entry 3 lands at (1, 1) + (3, 6)
	// and (0, 0) + (−3, 15), entry −2 at (0, 1) + (−2, −4) (its (1, 1)
	// weight points above the plane); 2 entries × 2 records × 2 lanes
	// are 8 multiplications.
	var img [][]int64
	img = append(img, sparseImage(t, s, sparse.KindEntries, []int64{3, 0, 1, 1}, []int64{-2, 0, 0, 1})...)
	wext := len(img)
	img = append(img, sparseImage(t, s, sparse.KindWeights, []int64{0, 0, 1, 2}, []int64{1, 1, -1, 5})...)
	text := len(img)
	img = append(img, sparseImage(t, s, sparse.KindTable, []int64{0, 2})...)
	n := s.SparseAccLines()
	return []taskCase{{
		name:  "dma: load wraps to elements, store",
		image: [][]int64{{1, -2}, {3, 300}},
		tasks: []isa.Task{isa.Load{Ext: 0, State: 2, Lines: 2, Rows: 1}, isa.Store{State: 2, Ext: 10, Lines: 2, Rows: 1}},
		out:   10, want: [][]int64{{1, -2}, {3, 44}},
		stats: Stats{Tasks: [isa.NumEngines]int{isa.DMAIn: 1, isa.DMAOut: 1}, DMAInLines: 2, DMAOutLines: 2},
	}, {
		// psum c, pixel e = Σ_r x[r][e]·w[r][c]: (2, 18) and (−10, −13);
		// ·3 + 1, / 2 rounding half up: (4, 28) and (−14, −19).
		name:  "ne conv 1×1, planar act, store",
		image: [][]int64{{3, -1}, {5, 2}, {2, -3}, {4, 1}},
		tasks: []isa.Task{
			isa.Load{Ext: 0, State: 0, Lines: 2, Rows: 1},
			isa.LoadWeights{Ext: 2, Row: 0, Lines: 2, Rows: 1},
			isa.Conv{Src: 0, Weights: 0, Psum: 0, H: 1, W: 2, Tiles: 1, KH: 1, KW: 1, Stride: 1, OH: 1, OW: 2},
			isa.PlanarTask{Task: act},
			isa.Store{State: 4, Ext: 20, Lines: 2, Rows: 1},
		},
		out: 20, want: [][]int64{{4, -14}, {28, -19}},
		stats: Stats{Tasks: [isa.NumEngines]int{isa.DMAIn: 2, isa.NE: 1, isa.Planar: 1, isa.DMAOut: 1}, DMAInLines: 4, DMAOutLines: 2,
			NEVectors: 2, NEReads: 2, NEMACs: 8, PlanarReads: 2, PlanarWrites: 4},
	}, {
		name:  "ne transpose, planar writeback",
		image: [][]int64{{1, 2}, {3, 4}},
		tasks: []isa.Task{
			isa.Load{Ext: 0, State: 0, Lines: 2, Rows: 1},
			isa.Transpose{Src: 0, Psum: 0, Rows: 2, Cols: 2},
			isa.PlanarTask{Task: wb},
			isa.Store{State: 4, Ext: 20, Lines: 2, Rows: 1},
		},
		out: 20, want: [][]int64{{1, 3}, {2, 4}},
		stats: Stats{Tasks: [isa.NumEngines]int{isa.DMAIn: 1, isa.NE: 1, isa.Planar: 1, isa.DMAOut: 1}, DMAInLines: 2, DMAOutLines: 2,
			NEVectors: 2, PlanarReads: 2, PlanarWrites: 4},
	}, {
		// |−128| saturates to 127.
		name:  "planar eltwise abs",
		image: [][]int64{{-5, -128}, {7, 0}},
		tasks: []isa.Task{
			isa.Load{Ext: 0, State: 0, Lines: 2, Rows: 1},
			isa.PlanarTask{Task: abs},
			isa.Store{State: 4, Ext: 20, Lines: 2, Rows: 1},
		},
		out: 20, want: [][]int64{{5, 127}, {7, 0}},
		stats: Stats{Tasks: [isa.NumEngines]int{isa.DMAIn: 1, isa.Planar: 1, isa.DMAOut: 1}, DMAInLines: 2, DMAOutLines: 2,
			PlanarReads: 2, PlanarWrites: 4},
	}, {
		name:  "sparse load, clear, conv, store",
		image: img,
		tasks: []isa.Task{
			isa.SparseLoad{Ext: 0, Records: 2, Kind: sparse.KindEntries},
			isa.SparseLoad{Ext: wext, Records: 2, Kind: sparse.KindWeights},
			isa.SparseLoad{Ext: text, Records: 1, Kind: sparse.KindTable},
			isa.SparseClearTask{Count: 4},
			isa.SparseConvTask{Count: 2, OH: 2, OW: 2},
			isa.SparseStore{Entries: 4, Ext: 40},
		},
		out: 40, want: [][]int64{{-3, 15}, {-2, -4}, {0, 0}, {3, 6}},
		stats: Stats{Tasks: [isa.NumEngines]int{isa.DMAIn: 3, isa.Sparse: 2, isa.DMAOut: 1}, DMAInLines: len(img),
			DMAOutLines: 4 * n, SparseMults: []int64{8}},
	}}
}

// TestTasks runs a task of every engine on tinySizes and compares the
// external lines written (and the work counted) with results by hand.
func TestTasks(t *testing.T) {
	s := tinySizes()
	n := s.SparseAccLines()
	for _, tc := range taskCases(t, s) {
		t.Run(tc.name, func(t *testing.T) {
			m := run(t, s, tc.image, tc.tasks)
			var got [][]int64
			for i := range tc.want {
				if tc.stats.SparseMults != nil {
					got = append(got, accLanes(t, m, tc.out+i*n, n))
					continue
				}
				l, err := m.Line(tc.out + i)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, l)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("results (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.stats, m.Stats); d != "" {
				t.Errorf("stats (-want +got):\n%s", d)
			}
		})
	}
}

// accLanes is the accumulator word store_sparse wrote to n lines from
// ext, split into its lanes (lane 0 in the low bits), signed.
func accLanes(t *testing.T, m *Machine, ext, n int) []int64 {
	t.Helper()
	var lines [][]int64
	for j := range n {
		l, err := m.Line(ext + j)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l)
	}
	word, aw := sparse.FromLines(lines, m.Sizes.ElemWidth), m.Sizes.Sparse.AccWidth
	out := make([]int64, m.Sizes.Sparse.Lanes)
	for j := range out {
		v := new(big.Int).Rsh(word, uint(j*aw))
		out[j] = signExtend(v.And(v, big.NewInt(1<<aw-1)).Uint64(), aw)
	}
	return out
}

// OnTouch sees every address a task touches.
func TestOnTouch(t *testing.T) {
	m, err := New(tinySizes())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	m.OnTouch = func(mem isa.Mem, a int, write bool) { got = append(got, fmt.Sprintf("%v %d %v", mem, a, write)) }
	d, err := isa.NewCodec(m.Sizes).Encode(isa.Load{Ext: 5, State: 3, Lines: 1, Rows: 2, Stride: 4})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Exec(d); err != nil {
		t.Fatal(err)
	}
	want := []string{fmt.Sprintf("%v 5 false", isa.MemExt), fmt.Sprintf("%v 3 true", isa.MemState),
		fmt.Sprintf("%v 9 false", isa.MemExt), fmt.Sprintf("%v 4 true", isa.MemState)}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("touches (-want +got):\n%s", d)
	}
}

// Scatter on records given directly (sparseconv's Model's way): the
// plane, the multiplications, the accesses, and a table record outside
// the table.
func TestScatter(t *testing.T) {
	c := tinySizes().Sparse
	pack := func(l sparse.Layout, v ...int64) *big.Int {
		r, err := l.Pack(v...)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := SparseRecords{
		Entries: []*big.Int{pack(c.Entry(), 3, 1, 2, 1), nil}, // channel 1 at (2, 1); nil: 0 of channel 0 at (0, 0)
		Weights: []*big.Int{pack(c.Weight(), 0, 1, 4, -1), pack(c.Weight(), 2, 0, 0, 7)},
		Table:   []*big.Int{pack(c.Table(), 1, 1), pack(c.Table(), 0, 2)},
	}
	// Stride 2 on a 2×2 plane: (2, 1) − (0, 1) = (2, 0) lands at (1, 0);
	// (2, 1) − (2, 0) = (0, 1) is off the grid. Channel 0's one record
	// meets the zero entry: no multiplication, a zero product at (0, −1),
	// off the plane.
	plane := grid(4, c.Lanes)
	var touched []isa.Mem
	mults, err := Scatter(c, r, ScatterPass{OH: 2, OW: 2, Stride: 2}, plane, func(mem isa.Mem, _ int, _ bool) { touched = append(touched, mem) })
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([][]int64{{0, 0}, {0, 0}, {12, -3}, {0, 0}}, plane); d != "" {
		t.Errorf("plane (-want +got):\n%s", d)
	}
	if mults != 3 {
		t.Errorf("%d multiplications, want 3 (two lanes of the first record, one of the second)", mults)
	}
	e, tb, w, a := isa.MemSparseEntries, isa.MemSparseTable, isa.MemSparseWeights, isa.MemSparseAcc
	if d := cmp.Diff([]isa.Mem{e, tb, w, a, a, w, e, tb, w}, touched); d != "" {
		t.Errorf("accesses (-want +got):\n%s", d)
	}
	if _, err := Scatter(c, r, ScatterPass{OH: 2, OW: 2, Stride: 1, TBase: 1}, plane, nil); err == nil {
		t.Errorf("channel 1 at table base 1: no error")
	}
}
