package sparseconv_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	hw "github.com/hwgen/hwgen/blocks/sparse"
	"github.com/hwgen/hwgen/compiler/sparseconv"
	"github.com/hwgen/hwgen/golden"
)

// randomConv draws x with the given share of zeros and w with wzeros.
func randomConv(r *rand.Rand, c sparseconv.Conv, zeros, wzeros float64) (x, w []int64) {
	draw := func(n int, z float64) []int64 {
		v := make([]int64, n)
		for i := range v {
			if r.Float64() >= z {
				v[i] = int64(r.IntN(255)) - 127
			}
		}
		return v
	}
	return draw(c.C*c.H*c.W, zeros), draw(c.Cout*c.C*c.KH*c.KW, wzeros)
}

// dense is the golden model's result.
func dense(t *testing.T, c sparseconv.Conv, x, w []int64) []int64 {
	t.Helper()
	xt := &golden.Tensor{Shape: []int{c.C, c.H, c.W}, Data: x}
	wt := &golden.Tensor{Shape: []int{c.Cout, c.C, c.KH, c.KW}, Data: w}
	if c.PadH != c.PadW {
		t.Fatal("the golden model pads both axes alike here")
	}
	y, err := golden.Conv2D(xt, wt, c.Stride, c.PadH, c.PadW, golden.S(32))
	if err != nil {
		t.Fatal(err)
	}
	return y.Data
}

func smallConfig(units, lanes int) hw.Config {
	c := hw.DefaultConfig()
	c.Units, c.Lanes = units, lanes
	c.Entries, c.WeightDepth, c.TableDepth, c.AccDepth = 64, 256, 64, 256
	c.Channels, c.IndexWidth, c.MaxKernel = 8, 5, 5
	return c
}

// The program, run without hardware, equals the dense convolution for
// every sparsity, stride, padding, kernel and split; the multiplications
// it performs are the non-zero inputs times the non-zero weights of their
// channel.
func TestModelMatchesDense(t *testing.T) {
	cases := []struct {
		conv          sparseconv.Conv
		units, lanes  int
		zeros, wzeros float64
		split         sparseconv.Split
	}{
		{sparseconv.Conv{C: 3, H: 12, W: 10, Cout: 5, KH: 3, KW: 3, Stride: 1, PadH: 1, PadW: 1}, 2, 4, 0.8, 0, sparseconv.Balanced},
		{sparseconv.Conv{C: 2, H: 9, W: 9, Cout: 3, KH: 3, KW: 3, Stride: 2, PadH: 1, PadW: 1}, 3, 2, 0.5, 0.3, sparseconv.EqualArea},
		{sparseconv.Conv{C: 4, H: 8, W: 7, Cout: 8, KH: 2, KW: 2, Stride: 1}, 1, 8, 0.9, 0.5, sparseconv.Balanced},
		{sparseconv.Conv{C: 1, H: 11, W: 13, Cout: 2, KH: 5, KW: 5, Stride: 1, PadH: 2, PadW: 2}, 4, 2, 0.0, 0, sparseconv.Balanced},
		{sparseconv.Conv{C: 2, H: 16, W: 6, Cout: 3, KH: 1, KW: 1, Stride: 4}, 2, 4, 0.95, 0, sparseconv.EqualArea},
		{sparseconv.Conv{C: 3, H: 10, W: 10, Cout: 4, KH: 3, KW: 3, Stride: 1}, 2, 4, 1.0, 0, sparseconv.Balanced}, // all zeros
	}
	for i, tc := range cases {
		t.Run(fmt.Sprintf("%d", i), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(i), 3))
			x, w := randomConv(r, tc.conv, tc.zeros, tc.wzeros)
			p, err := sparseconv.Compile(smallConfig(tc.units, tc.lanes), tc.conv, x, w, tc.split)
			if err != nil {
				t.Fatal(err)
			}
			var planes []sparseconv.Planes
			var mults int64
			for u := range p.Units {
				pl, err := p.Model(u)
				if err != nil {
					t.Fatal(err)
				}
				planes = append(planes, pl)
				mults += p.Mults(u)
			}
			got, err := p.Stitch(planes)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(dense(t, tc.conv, x, w), got); d != "" {
				t.Fatalf("sparse program differs from the dense golden model (-want +got):\n%s", d)
			}
			if want := wantMults(p, x, w); mults != want {
				t.Errorf("multiplications: %d, want %d", mults, want)
			}
		})
	}
}

// wantMults counts, from the tensors, every non-zero input a unit loads
// times the non-zero weights of its channel.
func wantMults(p *sparseconv.Program, x, w []int64) int64 {
	c := p.Conv
	var n int64
	for _, pt := range p.Plan.Parts {
		for ch := range c.C {
			var nx, nw int64
			for y := pt.Rows.In.Lo; y < pt.Rows.In.Hi; y++ {
				for xx := pt.Cols.In.Lo; xx < pt.Cols.In.Hi; xx++ {
					if x[(ch*c.H+y)*c.W+xx] != 0 {
						nx++
					}
				}
			}
			for o := range c.Cout {
				for k := range c.KH * c.KW {
					if w[(o*c.C+ch)*c.KH*c.KW+k] != 0 {
						nw++
					}
				}
			}
			n += nx * nw
		}
	}
	return n
}

// A unit's entries are loaded in chunks that cover them once, in order:
// all at once when they fit the first chunk, else from FirstChunk up,
// doubling, never more than a buffer set.
func TestChunks(t *testing.T) {
	for _, tc := range []struct{ n, set int }{{0, 64}, {100, 4096}, {256, 4096}, {257, 4096}, {3999, 4096}, {20000, 4096}, {300, 100}} {
		var got []int
		at := 0
		for _, ch := range sparseconv.ChunksOf(tc.n, tc.set) {
			if ch.Lo != at || ch.Hi <= ch.Lo || ch.Hi-ch.Lo > tc.set {
				t.Fatalf("n %d set %d: chunk %v after %d", tc.n, tc.set, ch, at)
			}
			got = append(got, ch.Hi-ch.Lo)
			at = ch.Hi
		}
		if at != tc.n {
			t.Errorf("n %d set %d: chunks %v cover %d", tc.n, tc.set, got, at)
		}
		if tc.n > min(sparseconv.FirstChunk, tc.set) && got[0] != min(sparseconv.FirstChunk, tc.set) {
			t.Errorf("n %d set %d: first chunk %d, want %d", tc.n, tc.set, got[0], min(sparseconv.FirstChunk, tc.set))
		}
		t.Logf("n %d set %d: %v", tc.n, tc.set, got)
	}
}
