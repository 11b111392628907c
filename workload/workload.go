package workload

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/golden"
)

// Workload is one tensor operation (or the small built-in network) with
// its shapes: what `hwgen sim` takes from flags or a JSON workload file.
// Zero fields take the operation's defaults (WithDefaults).
type Workload struct {
	Op string `json:"op"` // gemm, conv2d, transpose, pool, eltwise, reduce, net

	M int `json:"m,omitempty"` // gemm: A is M×K, B is K×N; transpose: the matrix is M×N
	K int `json:"k,omitempty"`
	N int `json:"n,omitempty"`

	C      int               `json:"c,omitempty"`      // input channels (conv2d, pool, eltwise, reduce, net)
	H      int               `json:"h,omitempty"`      // input height
	W      int               `json:"w,omitempty"`      // input width
	Cout   int               `json:"cout,omitempty"`   // conv2d output channels
	Kernel int               `json:"kernel,omitempty"` // conv2d and pool window (square)
	Stride int               `json:"stride,omitempty"` // conv2d and pool stride
	Pad    *int              `json:"pad,omitempty"`    // conv2d and pool padding on every side (nil: the default, 1 for conv2d, 0 for pool)
	Pool   string            `json:"pool,omitempty"`   // max or avg
	Fn     string            `json:"fn,omitempty"`     // eltwise: add, sub, mul, max, min, abs (unary: no b); reduce: ReduceFns
	Post   string            `json:"post,omitempty"`   // reduce: a post function, none, sqrt or recip (see ReduceFns)
	Shift  int               `json:"shift,omitempty"`  // requantization shift of the results (0: chosen from the reduction size)
	Relu   bool              `json:"relu,omitempty"`   // ReLU in the requantization
	Zeros  int               `json:"zeros,omitempty"`  // percent of zeros in random inputs (zero skipping)
	Spread string            `json:"spread,omitempty"` // where the zeros go: all (default), input or skewed (see Spreads)
	Seed   uint64            `json:"seed,omitempty"`   // seed of the random tensors
	Inputs map[string]string `json:"inputs,omitempty"` // tensor name -> .npy file (read by the CLI)
}

// Spreads are the ways Zeros spreads: "all" puts them uniformly in every
// random tensor; "input" only in the conv2d input x (weights dense);
// "skewed" only in x, with the density growing linearly from its top row
// to its bottom row (from 0 up to at most 0.9), the same share overall —
// the uneven maps that sparsity-balanced partitioning is for.
var Spreads = []string{"all", "input", "skewed"}

// Ops lists the operations a Workload names.
var Ops = []string{"gemm", "conv2d", "transpose", "pool", "eltwise", "reduce", "net"}

// ReduceFns are the reductions of the reduce workload: sum, mean and max
// of each channel's plane (y [C]), and the same across rows (each
// plane's H rows combined column by column, y [C, W]). A sum shifts by
// Shift, else by (bitlen(n)+1)/2 for n values summed; a mean is the sum
// times round(2^14/n) / 2^14 (AvgRequant); a max only saturates. Post
// (not with a mean) applies to the sum or max v: sqrt gives
// round(√v / 2^Shift) (0 for v < 0), recip round(2^12 / v / 2^Shift)
// (v = 0: the largest value).
var ReduceFns = []string{"sum", "mean", "max", "rowsum", "rowmean", "rowmax"}

// reduceRecipBits is the reduce workload's reciprocal numerator 2^12.
const reduceRecipBits = 12

// WithDefaults fills every zero field with the operation's default shape.
func (w Workload) WithDefaults() Workload {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	switch w.Op {
	case "gemm":
		def(&w.M, 64)
		def(&w.K, 64)
		def(&w.N, 64)
	case "transpose":
		def(&w.M, 40)
		def(&w.N, 24)
	case "conv2d":
		def(&w.C, 16)
		def(&w.H, 16)
		def(&w.W, 16)
		def(&w.Cout, 16)
		def(&w.Kernel, 3)
		if w.Pad == nil {
			w.Pad = ptr(1)
		}
	case "pool":
		def(&w.C, 16)
		def(&w.H, 16)
		def(&w.W, 16)
		def(&w.Kernel, 2)
		def(&w.Stride, 2)
		if w.Pool == "" {
			w.Pool = "max"
		}
	case "eltwise":
		def(&w.C, 16)
		def(&w.H, 16)
		def(&w.W, 16)
		if w.Fn == "" {
			w.Fn = "add"
		}
	case "reduce":
		def(&w.C, 16)
		def(&w.H, 16)
		def(&w.W, 16)
		if w.Fn == "" {
			w.Fn = "sum"
		}
	case "net":
		def(&w.C, 3)
		def(&w.H, 16)
		def(&w.W, 16)
		def(&w.Cout, 16)
		def(&w.N, 10)
	}
	def(&w.Stride, 1)
	if w.Seed == 0 {
		w.Seed = 1
	}
	if w.Pad == nil {
		w.Pad = ptr(0)
	}
	return w
}

func ptr(v int) *int { return &v }

// Validate names the first field that is wrong, with its value and what
// is allowed. Shape limits of the hardware are the compiler's to report.
func (w Workload) Validate() error {
	known := false
	for _, op := range Ops {
		known = known || op == w.Op
	}
	if !known {
		return fmt.Errorf("workload: op = %q is not allowed: want one of %s", w.Op, strings.Join(Ops, ", "))
	}
	if w.Pad == nil {
		w.Pad = ptr(0)
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"m", w.M}, {"k", w.K}, {"n", w.N}, {"c", w.C}, {"h", w.H}, {"w", w.W}, {"cout", w.Cout}, {"kernel", w.Kernel}, {"stride", w.Stride}, {"shift", w.Shift}, {"pad", *w.Pad}} {
		if f.v < 0 {
			return fmt.Errorf("workload: %s = %d is not allowed: must not be negative", f.name, f.v)
		}
	}
	if w.Zeros < 0 || w.Zeros > 100 {
		return fmt.Errorf("workload: zeros = %d is not allowed: a percentage 0..100", w.Zeros)
	}
	if w.Spread != "" && !slices.Contains(Spreads, w.Spread) {
		return fmt.Errorf("workload: spread = %q is not allowed: want %s", w.Spread, strings.Join(Spreads, ", "))
	}
	if w.Spread != "" && w.Spread != "all" && w.Op != "conv2d" {
		return fmt.Errorf("workload: spread = %q is not allowed for %s: input and skewed spread the zeros of a conv2d's x (want all)", w.Spread, w.Op)
	}
	if w.Op == "pool" {
		if _, err := golden.ParsePoolKind(w.Pool); err != nil {
			return fmt.Errorf("workload: pool = %q is not allowed: want %s", w.Pool, strings.Join(golden.PoolKindNames(), ", "))
		}
	}
	if w.Op == "eltwise" {
		if _, err := golden.ParseEltOp(w.Fn); err != nil {
			return fmt.Errorf("workload: fn = %q is not allowed: want %s", w.Fn, strings.Join(golden.EltOpNames(), ", "))
		}
	}
	if w.Op == "reduce" {
		return w.validateReduce()
	}
	return nil
}

// validateReduce checks the reduction and its post function.
func (w Workload) validateReduce() error {
	if !slices.Contains(ReduceFns, w.Fn) {
		return fmt.Errorf("workload: fn = %q is not allowed for reduce: want %s", w.Fn, strings.Join(ReduceFns, ", "))
	}
	if strings.HasSuffix(w.Fn, "mean") && w.Shift != 0 {
		return fmt.Errorf("workload: shift = %d is not allowed with fn = %s: a mean divides with its own shift of 14 (use sum for a shift of your own)", w.Shift, w.Fn)
	}
	if w.Post == "" {
		return nil
	}
	if _, err := golden.ParsePostFn(w.Post); err != nil {
		return fmt.Errorf("workload: post = %q is not allowed: want %s", w.Post, strings.Join(golden.PostFnNames(), ", "))
	}
	if strings.HasSuffix(w.Fn, "mean") && w.Post != "none" {
		return fmt.Errorf("workload: post = %q is not allowed with fn = %s: the post function comes before the shift that divides (use sum, and --shift)", w.Post, w.Fn)
	}
	return nil
}

// reduction is the reduce workload's Reduction.
func (w Workload) reduction() compiler.Reduction {
	kind := golden.ReduceSum
	switch w.Fn {
	case "max":
		kind = golden.ReduceMax
	case "rowsum", "rowmean":
		kind = golden.ReduceRowSum
	case "rowmax":
		kind = golden.ReduceRowMax
	}
	n := w.H * w.W // the values each result combines
	if kind.AcrossRows() {
		n = w.H
	}
	post, _ := golden.ParsePostFn(w.Post) // checked by Validate; "" is none
	r := compiler.Reduction{Kind: kind, Post: post, Requant: golden.Requant{Scale: 1, Shift: w.Shift}}
	switch {
	case strings.HasSuffix(w.Fn, "mean"):
		r.Requant = compiler.AvgRequant(n)
	case post == golden.PostRecip:
		r.RecipBits = reduceRecipBits
	case post == golden.PostNone && kind != golden.ReduceMax && kind != golden.ReduceRowMax && w.Shift == 0:
		r.Requant.Shift = (bits.Len(uint(n)) + 1) / 2
	}
	r.Requant.Relu = w.Relu
	return r
}

// InputShapes lists the workload's tensors (graph inputs and weights) and
// their shapes: the names a .npy file may be given for.
func (w Workload) InputShapes() map[string][]int {
	k := w.Kernel
	switch w.Op {
	case "gemm":
		return map[string][]int{"a": {w.M, w.K}, "b": {w.K, w.N}}
	case "transpose":
		return map[string][]int{"a": {w.M, w.N}}
	case "conv2d":
		return map[string][]int{"x": {w.C, w.H, w.W}, "w": {w.Cout, w.C, k, k}}
	case "pool", "reduce":
		return map[string][]int{"x": {w.C, w.H, w.W}}
	case "eltwise":
		if w.UnaryElt() {
			return map[string][]int{"a": {w.C, w.H, w.W}}
		}
		return map[string][]int{"a": {w.C, w.H, w.W}, "b": {w.C, w.H, w.W}}
	case "net":
		fc := w.Cout * (w.H / 2) * (w.W / 2)
		return map[string][]int{"x": {w.C, w.H, w.W}, "w1": {w.Cout, w.C, 3, 3}, "w2": {w.Cout, w.Cout, 3, 3}, "fc": {fc, w.N}}
	}
	return nil
}

// UnaryElt reports an eltwise of one tensor (a unary function: abs, neg).
func (w Workload) UnaryElt() bool {
	fn, err := golden.ParseEltOp(w.Fn)
	return w.Op == "eltwise" && err == nil && fn.Unary()
}

// InputNames is InputShapes' names, sorted.
func (w Workload) InputNames() []string {
	var n []string
	for k := range w.InputShapes() {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// RandomInputs draws every tensor the workload needs (int8, Zeros percent
// of them zero) from its seed, except the ones given.
func (w Workload) RandomInputs(given map[string]*golden.Tensor) map[string]*golden.Tensor {
	return w.RandomInputsOf(8, given)
}

// RandomInputsOf is RandomInputs for elements of elemWidth bits (signed):
// an NPU with narrower elements keeps only their low bits, so wider random
// values would not be the tensors it computes on. At 8 bits it draws what
// RandomInputs draws.
func (w Workload) RandomInputsOf(elemWidth int, given map[string]*golden.Tensor) map[string]*golden.Tensor {
	span := 1 << elemWidth
	rng := rand.New(rand.NewPCG(w.Seed, 0x68776765))
	out := map[string]*golden.Tensor{}
	for _, name := range w.InputNames() { // sorted: the same seed gives the same tensors
		shape := w.InputShapes()[name]
		t := golden.New(shape...)
		zeros := w.zeroShare(name, shape)
		for i := range t.Data {
			if float64(rng.IntN(100)) >= zeros(i) {
				t.Data[i] = int64(rng.IntN(span) - span/2)
			}
		}
		if g, ok := given[name]; ok {
			t = g
		}
		out[name] = t
	}
	return out
}

// zeroShare is the percentage of zeros around element i of tensor name.
func (w Workload) zeroShare(name string, shape []int) func(i int) float64 {
	z := float64(w.Zeros)
	switch {
	case w.Spread == "" || w.Spread == "all":
		return func(int) float64 { return z }
	case name != "x":
		return func(int) float64 { return 0 }
	case w.Spread == "input":
		return func(int) float64 { return z }
	}
	d := 1 - z/100
	// skewed: from lo at the top row to hi at the bottom, mean d.
	h, wd := shape[1], shape[2]
	hi := min(0.9, 2*d)
	if d > 0.45 {
		hi = min(1, d+0.4)
	}
	lo := 2*d - hi
	return func(i int) float64 {
		y := i / wd % h
		return 100 * (1 - lo - (hi-lo)*float64(y)/float64(max(h-1, 1)))
	}
}

// autoShift is a requantization shift that brings a sum of n int8
// products of random values back to int8 range (about √n·128·74 / 2^shift).
func autoShift(n int) int { return 6 + (bits.Len(uint(max(n, 1)))+1)/2 }

// Graph builds the workload's graph from its tensors (RandomInputs, with
// any given ones). The output is named "y".
func (w Workload) Graph(in map[string]*golden.Tensor) (*compiler.Graph, error) {
	for name, shape := range w.InputShapes() {
		t, ok := in[name]
		if !ok {
			return nil, fmt.Errorf("workload %s: tensor %q missing", w.Op, name)
		}
		if !slices.Equal(t.Shape, shape) {
			return nil, fmt.Errorf("workload %s: tensor %q has shape %v, want %v", w.Op, name, t.Shape, shape)
		}
	}
	rq := func(n int) golden.Requant {
		s := w.Shift
		if s == 0 {
			s = autoShift(n)
		}
		return golden.Requant{Scale: 1, Shift: s, Relu: w.Relu}
	}
	g := compiler.NewGraph()
	k := w.Kernel
	switch w.Op {
	case "gemm":
		g.Output("y", g.GEMM(g.Input("a", in["a"]), in["b"], rq(w.K)))
	case "transpose":
		g.Output("y", g.Transpose(g.Input("a", in["a"])))
	case "conv2d":
		g.Output("y", g.Conv2D(g.Input("x", in["x"]), in["w"], w.ConvParams()))
	case "pool":
		kind, _ := golden.ParsePoolKind(w.Pool) // checked by Validate
		p := compiler.Pool{Kind: kind, KH: k, KW: k, Stride: w.Stride, PadH: *w.Pad, PadW: *w.Pad}
		if kind == golden.PoolAvg {
			p.Requant = compiler.AvgRequant(k * k)
		}
		g.Output("y", g.Pool2D(g.Input("x", in["x"]), p))
	case "eltwise":
		q := golden.Identity()
		if w.Fn == "mul" {
			q = golden.Requant{Scale: 1, Shift: 7}
		}
		q.Relu = w.Relu
		fn, _ := golden.ParseEltOp(w.Fn) // checked by Validate
		if fn.Unary() {
			g.Output("y", g.Unary(fn, g.Input("a", in["a"]), q))
			break
		}
		g.Output("y", g.Eltwise(fn, g.Input("a", in["a"]), g.Input("b", in["b"]), q))
	case "reduce":
		g.Output("y", g.ReduceWith(g.Input("x", in["x"]), w.reduction()))
	case "net":
		// conv 3×3 → ReLU → max-pool 2×2 → conv 3×3 → ReLU → fully connected.
		relu := func(n int) golden.Requant { q := rq(n); q.Relu = true; return q }
		x := g.Input("x", in["x"])
		c1 := g.Conv2D(x, in["w1"], compiler.Conv{PadH: 1, PadW: 1, Requant: relu(w.C * 9)})
		p1 := g.Pool2D(c1, compiler.Pool{Kind: golden.PoolMax, KH: 2, KW: 2, Stride: 2})
		c2 := g.Conv2D(p1, in["w2"], compiler.Conv{PadH: 1, PadW: 1, Requant: relu(w.Cout * 9)})
		g.Output("y", g.GEMM(g.Flatten(c2), in["fc"], rq(w.Cout*(w.H/2)*(w.W/2))))
	}
	if err := g.Err(); err != nil {
		return nil, err
	}
	return g, nil
}
