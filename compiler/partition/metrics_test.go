package partition

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestMetricsHand: 4×1 map, rows non-zero 1,0,1,1; a 3×1 kernel with
// padding 1; two partitions of two output rows each.
//
//	part 0: outputs 0,1 read rows -1..2: In [0,3), pad 1 above; row uses
//	        u = 2,2,1; MACs = 2 (row 0) + 1 (row 2) = 3 of 2·3 = 6
//	part 1: outputs 2,3 read rows 1..4: In [1,4), pad 1 below; u = 1,2,2;
//	        MACs = 2 (row 2) + 2 (row 3) = 4 of 6
func TestMetricsHand(t *testing.T) {
	m, err := FromMask(1, 4, 1, []bool{true, false, true, true})
	if err != nil {
		t.Fatal(err)
	}
	p, err := Partition(m, Options{Rows: 2, Conv: Conv{KH: 3, PadH: 1}})
	if err != nil {
		t.Fatal(err)
	}
	wantSpans := []Span{
		{Own: Range{0, 2}, Out: Range{0, 2}, In: Range{0, 3}, PadLo: 1},
		{Own: Range{2, 4}, Out: Range{2, 4}, In: Range{1, 4}, PadHi: 1},
	}
	for i, w := range wantSpans {
		if d := cmp.Diff(w, p.Parts[i].Rows); d != "" {
			t.Errorf("part %d rows (-want +got):\n%s", i, d)
		}
	}
	mt, err := p.Metrics(m, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := Metrics{
		Parts: []PartMetrics{
			{NNZ: 2, Elements: 3, Density: 2.0 / 3, DenseMACs: 6, MACs: 3, SkippedMACs: 3, ScatterMACs: 6},
			{NNZ: 2, Elements: 3, Density: 2.0 / 3, DenseMACs: 6, MACs: 4, SkippedMACs: 2, ScatterMACs: 6},
		},
		MaxNNZ: 2, MinNNZ: 2, NNZRatio: 1,
		DenseMACs: 12, MACs: 7, SkippedMACs: 5,
		MaxMACs: 4, MinMACs: 3, MACRatio: 4.0 / 3, Speedup: 7.0 / 4,
	}
	if d := cmp.Diff(want, mt, cmpopts.EquateApprox(0, 1e-12)); d != "" {
		t.Errorf("metrics (-want +got):\n%s", d)
	}
}

// wholeMACs counts, for the whole map, the (output, channel, tap) triples
// whose input is non-zero, and all of them (padding taps included).
func wholeMACs(m *Map, c Conv) (macs, dense int64) {
	c = c.norm()
	oh, ow := OutSize(m.H, c.KH, c.Stride, c.PadH), OutSize(m.W, c.KW, c.Stride, c.PadW)
	for oy := 0; oy < oh; oy++ {
		for ox := 0; ox < ow; ox++ {
			for ky := 0; ky < c.KH; ky++ {
				for kx := 0; kx < c.KW; kx++ {
					dense += int64(m.C)
					y, x := oy*c.Stride+ky-c.PadH, ox*c.Stride+kx-c.PadW
					if y >= 0 && y < m.H && x >= 0 && x < m.W {
						macs += int64(m.NNZ[y*m.W+x])
					}
				}
			}
		}
	}
	return macs, dense
}

// TestMetricsTotals: every product belongs to exactly one partition, in
// both modes: the partitions' MACs and dense MACs add up to the whole
// map's.
func TestMetricsTotals(t *testing.T) {
	m := mustMap(t, 3, 30, 27, values(5, 3, 30, 27, blobs(0.1, 0.9)))
	const cout = 4
	for _, cv := range []Conv{{}, {KH: 3, KW: 3, PadH: 1, PadW: 1}, {KH: 5, KW: 3, Stride: 2, PadH: 2}, {KH: 1, KW: 1, Stride: 3, PadH: 1, PadW: 1}, {KH: 2, KW: 2, Stride: 2}} {
		for _, mode := range []Mode{Halo, PartialSums} {
			for _, g := range [][2]int{{1, 1}, {3, 1}, {2, 3}} {
				t.Run(fmt.Sprintf("%+v/%v/%dx%d", cv, mode, g[0], g[1]), func(t *testing.T) {
					p, err := Partition(m, Options{Rows: g[0], Cols: g[1], Conv: cv, Mode: mode, Threshold: 0.2})
					if err != nil && !errors.Is(err, ErrUnbalanced) {
						t.Fatal(err)
					}
					mt, err := p.Metrics(m, cout)
					if err != nil {
						t.Fatal(err)
					}
					macs, dense := wholeMACs(m, cv)
					if mt.MACs != cout*macs || mt.DenseMACs != cout*dense || mt.SkippedMACs != cout*(dense-macs) {
						t.Errorf("MACs %d, dense %d, skipped %d; whole map %d, %d, %d", mt.MACs, mt.DenseMACs, mt.SkippedMACs, cout*macs, cout*dense, cout*(dense-macs))
					}
					var nnz int64
					for i, pm := range mt.Parts {
						if pm.NNZ != p.Parts[i].NNZ || pm.SkippedMACs != pm.DenseMACs-pm.MACs || pm.MACs > pm.DenseMACs {
							t.Errorf("part %d: %+v (plan NNZ %d)", i, pm, p.Parts[i].NNZ)
						}
						nnz += pm.NNZ
					}
					if mode == PartialSums && nnz > m.Total() {
						t.Errorf("partial sums load %d non-zeros of %d", nnz, m.Total())
					}
					if mt.MaxNNZ != p.Balance.MaxNNZ || mt.MinNNZ != p.Balance.MinNNZ || mt.Imbalance != p.Balance.Imbalance {
						t.Errorf("metrics %d..%d %.4f, balance %+v", mt.MinNNZ, mt.MaxNNZ, mt.Imbalance, p.Balance)
					}
					if s := mt.Speedup; s < 1-1e-9 || s > float64(len(p.Parts))+1e-9 {
						t.Errorf("speed-up %v outside [1, %d]", s, len(p.Parts))
					}
				})
			}
		}
	}
}

// TestEqualAreaVersusBalanced compares the two splits on one layer: on a
// map whose density rises from top to bottom, equal areas leave the
// engines far apart and balancing brings the speed-up close to N.
func TestEqualAreaVersusBalanced(t *testing.T) {
	const h, w, c = 256, 64, 16
	cv := Conv{KH: 3, KW: 3, PadH: 1, PadW: 1}
	for _, d := range []float64{0.5, 0.2} {
		m := mustMap(t, c, h, w, values(11, c, h, w, func(y, x int) float64 { return d * (0.2 + 1.6*float64(y)/h) }))
		for _, n := range []int{2, 4} {
			o := Options{Rows: n, Conv: cv}
			eq, err := EqualArea(m, o)
			if err != nil {
				t.Fatal(err)
			}
			bal, err := Partition(m, o)
			if err != nil {
				t.Fatal(err)
			}
			me, _ := eq.Metrics(m, 1)
			mb, _ := bal.Metrics(m, 1)
			if mb.MaxMACs >= me.MaxMACs || mb.Speedup <= me.Speedup || mb.NNZRatio >= me.NNZRatio {
				t.Errorf("%.0f%% zeros, N=%d: balanced %+v is no better than equal-area %+v", 100*(1-d), n, mb, me)
			}
			if mb.Speedup < 0.95*float64(n) {
				t.Errorf("%.0f%% zeros, N=%d: balanced speed-up %.3f, want near %d", 100*(1-d), n, mb.Speedup, n)
			}
			t.Logf("%.0f%% zeros, N=%d: equal-area max/min nnz %.3f, speed-up %.2f; balanced %.3f, %.2f (ideal %d)",
				100*(1-d), n, me.NNZRatio, me.Speedup, mb.NNZRatio, mb.Speedup, n)
		}
	}
	// all-zero partitions: ratios are well defined
	z := mustMap(t, 1, 8, 8, make([]int8, 64))
	p, err := Partition(z, Options{Rows: 2})
	if err != nil {
		t.Fatal(err)
	}
	mt, _ := p.Metrics(z, 1)
	if mt.NNZRatio != 1 || mt.MACRatio != 1 || mt.Imbalance != 0 || mt.Speedup != 0 {
		t.Errorf("all zeros: %+v", mt)
	}
	one := mustMap(t, 1, 8, 8, append([]int8{1}, make([]int8, 63)...))
	p, _ = Partition(one, Options{Rows: 2})
	if mt, _ := p.Metrics(one, 1); !math.IsInf(mt.NNZRatio, 1) {
		t.Errorf("one non-zero: ratio %v, want +Inf", mt.NNZRatio)
	}
	if _, err := p.Metrics(z, 0); err == nil {
		t.Error("Metrics took cout 0")
	}
	if _, err := p.Metrics(mustMap(t, 1, 8, 9, make([]int8, 72)), 1); err == nil {
		t.Error("Metrics took another map")
	}
}
