package host

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/verify"
)

// Int32 results on the simulated NPU: four wrap acts per block write the
// bytes of acc + bias, the host read-back puts them together, and the
// results equal the golden reference and the int32 sums plus bias
// computed here; the run is replayed on Verilator.
func TestInt32(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	x := randTensor(rng, 3, 5, 5)
	w := randTensor(rng, 6, 3, 3, 3) // six output channels: two output tiles
	bias := []int64{1<<31 - 1, -1 << 31, 123456789, -987654321, 0, -1}
	a, b := randTensor(rng, 7, 9), randTensor(rng, 9, 5)
	g := compiler.NewGraph()
	g.Output("y", g.Conv2D(g.Input("x", x), w, compiler.Conv{PadH: 1, PadW: 1, Int32: true, Bias: bias}))
	g.Output("c", g.GEMMInt32(g.Input("a", a), b, nil))
	res := run(t, small(), g)

	sums, err := golden.Conv2D(x, w, 1, 1, 1, golden.S(32))
	if err != nil {
		t.Fatal(err)
	}
	for i := range sums.Data {
		sums.Data[i] = int64(int32(sums.Data[i] + bias[i/25]))
	}
	prod, err := golden.GEMM(a, b, golden.S(32))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]*golden.Tensor{"y": sums, "c": prod}
	if d := cmp.Diff(want, res.Outputs); d != "" {
		t.Errorf("(-sums +simulator):\n%s", d)
	}
	tooltest.Need(t, "verilator")
	cr, err := verify.CrossCheck(res.Design, res.Stimulus, verify.Options{Build: verify.BuildOptions{OptLevel: 1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Verilator identical on %d outputs × %d cycles", cr.Outputs, cr.Cycles)
}
