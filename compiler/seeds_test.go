package compiler

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/golden"
)

// TestSeedsConvExample is the worked example of docs/sources.md §5: a 5×5 input
// of 3 channels, two 3×3 filters, stride 1 → [2×27]·[27×9] = [2×9]. The
// NE unrolls the convolution on the fly: for each of the 9 kernel offsets
// it re-reads the input plane in place, one state-buffer vector (all
// channels of one pixel) per output pixel, so it makes 9·9 = 81 vector
// reads of the 25 stored vectors (75 elements); 81 vectors × 3 channels
// are the 243 entries of the im2col matrix, which is never built.
func TestSeedsConvExample(t *testing.T) {
	for _, cfg := range []npu.Config{small(), npu.DefaultConfig()} {
		rng := rand.New(rand.NewPCG(5, 5))
		g := NewGraph()
		x := g.Input("x", randTensor(rng, -128, 127, 3, 5, 5))
		g.Output("y", g.Conv2D(x, randTensor(rng, -128, 127, 2, 3, 3, 3), Conv{Requant: golden.Requant{Scale: 1, Shift: 8}, Taps: TapsDirect}))
		p := verifyGraph(t, cfg, g, 2)
		if got := g.values[1].shape; !cmp.Equal(got, []int{2, 3, 3}) {
			t.Fatalf("output shape %v", got)
		}
		_, m, err := Interpret(p)
		if err != nil {
			t.Fatal(err)
		}
		st := m.Stats
		if st.NEReads != 81 || st.NEVectors != 81 {
			t.Errorf("%dx%d: NE vector reads %d of %d streamed, want 81 of 81", cfg.Rows, cfg.Cols, st.NEReads, st.NEVectors)
		}
		if want := 25 + 9*cfg.Rows; st.DMAInLines != want {
			t.Errorf("DMA lines in %d, want 25 input lines and %d weight rows", st.DMAInLines, 9*cfg.Rows)
		}
		if p.MACs != 2*27*9 {
			t.Errorf("MACs %d, want %d", p.MACs, 2*27*9)
		}
		t.Logf("%dx%d: %d NE vector reads (%d channel elements) of 25 stored input vectors (75 elements); im2col would build 243 entries; %d NE tasks",
			cfg.Rows, cfg.Cols, st.NEReads, st.NEReads*3, st.Tasks[1])
	}
}
