package partition

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// conv is the direct int32 convolution (cross-correlation) of x
// [c][h][w] with w [cout][c][kh][kw], stride s, zero padding pt, pb rows
// above and below and pl, pr columns left and right; int32 sums wrap.
func conv(x []int32, c, h, w int, wt []int32, cout, kh, kw, s, pt, pb, pl, pr int) (out []int32, oh, ow int) {
	oh, ow = (pt+h+pb-kh)/s+1, (pl+w+pr-kw)/s+1
	out = make([]int32, cout*oh*ow)
	for o := 0; o < cout; o++ {
		for oy := 0; oy < oh; oy++ {
			for ox := 0; ox < ow; ox++ {
				var sum int32
				for ch := 0; ch < c; ch++ {
					for ky := 0; ky < kh; ky++ {
						for kx := 0; kx < kw; kx++ {
							iy, ix := oy*s+ky-pt, ox*s+kx-pl
							if iy < 0 || iy >= h || ix < 0 || ix >= w {
								continue
							}
							sum += x[(ch*h+iy)*w+ix] * wt[((o*c+ch)*kh+ky)*kw+kx]
						}
					}
				}
				out[(o*oh+oy)*ow+ox] = sum
			}
		}
	}
	return out, oh, ow
}

// TestConvBitIdentical: each partition convolves its own input slice
// with its own padding; the stitched outputs equal the convolution of the
// whole map, bit for bit, in both modes, for stride 1 and 2, padding 0
// and 1, k = 1, 3, 5 (and a wrapping case).
func TestConvBitIdentical(t *testing.T) {
	type tc struct {
		name       string
		h, w       int
		rows, cols int
		big        bool // weights near 2^28: the int32 sums wrap
	}
	maps := []tc{
		{"rows4", 23, 19, 4, 1, false},
		{"grid2x2", 21, 24, 2, 2, false},
		{"grid3x2", 26, 22, 3, 2, false},
		{"wrap", 19, 17, 3, 2, true},
	}
	const c, cout = 3, 2
	for mi, mc := range maps {
		v8 := values(uint64(100+mi), c, mc.h, mc.w, skewed(0.4, mc.h, mc.w))
		x := make([]int32, len(v8))
		for i, v := range v8 {
			x[i] = int32(v)
		}
		m := mustMap(t, c, mc.h, mc.w, v8)
		for _, k := range []int{1, 3, 5} {
			for _, s := range []int{1, 2} {
				for _, p := range []int{0, 1} {
					for _, mode := range []Mode{Halo, PartialSums} {
						cv := Conv{KH: k, KW: k, Stride: s, PadH: p, PadW: p}
						t.Run(fmt.Sprintf("%s/k%d/s%d/p%d/%v", mc.name, k, s, p, mode), func(t *testing.T) {
							r := rand.New(rand.NewPCG(uint64(k*100+s*10+p), 3))
							wt := make([]int32, cout*c*k*k)
							for i := range wt {
								if mc.big {
									wt[i] = int32(r.IntN(1<<29)) - 1<<28
								} else if r.IntN(4) > 0 {
									wt[i] = int32(r.IntN(255) - 127)
								}
							}
							want, oh, ow := conv(x, c, mc.h, mc.w, wt, cout, k, k, s, p, p, p, p)
							o := Options{Rows: mc.rows, Cols: mc.cols, Conv: cv, Mode: mode}
							plan, err := Partition(m, o)
							if err != nil && !errors.Is(err, ErrUnbalanced) {
								t.Fatal(err)
							}
							checkPlan(t, m, o, plan)
							if plan.OH != oh || plan.OW != ow {
								t.Fatalf("plan output %dx%d, reference %dx%d", plan.OH, plan.OW, oh, ow)
							}
							outs := make([][]int32, len(plan.Parts))
							for i, pt := range plan.Parts {
								in, err := Extract(plan, i, x)
								if err != nil {
									t.Fatal(err)
								}
								rs, cs := pt.Rows, pt.Cols
								if rs.Out.Len() == 0 || cs.Out.Len() == 0 {
									continue // a stride skipped all its rows: it contributes nothing
								}
								got, gh, gw := conv(in, c, rs.In.Len(), cs.In.Len(), wt, cout, k, k, s, rs.PadLo, rs.PadHi, cs.PadLo, cs.PadHi)
								if gh != rs.Out.Len() || gw != cs.Out.Len() {
									t.Fatalf("part %d gives %dx%d outputs, its spans say %dx%d", i, gh, gw, rs.Out.Len(), cs.Out.Len())
								}
								// the same through Padded (zeros in place, no padding)
								pv, ph, pw, err := Padded(plan, i, x)
								if err != nil {
									t.Fatal(err)
								}
								got2, _, _ := conv(pv, c, ph, pw, wt, cout, k, k, s, 0, 0, 0, 0)
								if d := cmp.Diff(got, got2); d != "" {
									t.Fatalf("part %d: Padded and Extract+padding differ:\n%s", i, d)
								}
								outs[i] = got
							}
							stitched, err := Stitch(plan, cout, outs)
							if err != nil {
								t.Fatal(err)
							}
							if d := cmp.Diff(want, stitched); d != "" {
								t.Errorf("stitched partitions differ from the whole convolution (-whole +stitched):\n%s", d)
							}
						})
					}
				}
			}
		}
	}
}

func TestStitchErrors(t *testing.T) {
	m := mustMap(t, 1, 8, 8, values(1, 1, 8, 8, uniform(0.5)))
	plan, err := Partition(m, Options{Rows: 2, Threshold: 1})
	if err != nil {
		t.Fatal(err)
	}
	good := [][]int32{make([]int32, 4*8), make([]int32, 4*8)}
	if _, err := Stitch(plan, 1, good); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		plan  *Plan
		cout  int
		parts [][]int32
	}{
		{"nil plan", nil, 1, good},
		{"cout", plan, 0, good},
		{"count", plan, 1, good[:1]},
		{"size", plan, 1, [][]int32{make([]int32, 31), make([]int32, 32)}},
		{"overlap", func() *Plan {
			q := *plan
			q.Parts = append([]Part(nil), plan.Parts...)
			q.Parts[1].Rows.Out = Range{3, 7}
			return &q
		}(), 1, good},
	} {
		if _, err := Stitch(c.plan, c.cout, c.parts); err == nil {
			t.Errorf("%s: Stitch took it", c.name)
		}
	}
	if _, err := Extract(plan, 2, make([]int8, 64)); err == nil {
		t.Error("Extract took partition 2 of 2")
	}
	if _, err := Extract(plan, 0, make([]int8, 63)); err == nil {
		t.Error("Extract took 63 values for 8x8")
	}
}
