package multi

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/golden"
)

// Per-channel requantization is refused across engines, whether asked of
// Conv2D or found in the band programs given to merge.
func TestPerChannelRefused(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	x, w := sparseMap(rng, 2, 8, 6, 0.5, false), weights(rng, 3, 2, 3)
	pc := &compiler.ChannelRequant{Scale: []int64{1, 2, 3}, Bias: []int64{0, 0, 0}}
	conv := compiler.Conv{PadH: 1, PadW: 1, Requant: golden.Requant{Shift: 4}, PerChannel: pc}
	cfg := small(2)
	const want = "not supported across engines"
	if _, err := Conv2D(cfg, x, w, conv, Options{}); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Conv2D: err = %v, want %q", err, want)
	}
	g := compiler.NewGraph()
	g.Output("y", g.Conv2D(g.Input("x", x), w, conv))
	band, err := compiler.Compile(cfg.Slice(), g)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := merge(cfg, []*compiler.Program{band, band}, false); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("merge: err = %v, want %q", err, want)
	}
}
