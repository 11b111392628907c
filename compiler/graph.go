package compiler

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hwgen/hwgen/golden"
)

// Graph is a workload: tensor operations on values, built in program
// order. Builder methods never fail on their own; a bad shape is recorded
// (the first error wins) and returned by Compile and Err, so a network
// reads as straight-line code.
type Graph struct {
	// OneBlock keeps a layer whose output fits one block of psum rows in
	// one block. By default such a layer runs as two halves, so the act
	// of the first overlaps the NE's second (partial-output gating,
	// npu partial_gating, does not reach the psum buffer: an output
	// element is final only after the layer's last pass).
	OneBlock bool

	values []*Value
	nodes  []*node
	errs   []error
	names  map[string]bool
	counts map[opKind]int
}

// NewGraph is an empty workload.
func NewGraph() *Graph { return &Graph{names: map[string]bool{}, counts: map[opKind]int{}} }

// Err returns the shape errors found while building, if any.
func (g *Graph) Err() error { return errors.Join(g.errs...) }

func (g *Graph) fail(op, format string, args ...any) *Value {
	g.errs = append(g.errs, fmt.Errorf("%s: %s", op, fmt.Sprintf(format, args...)))
	return g.bad()
}

// bad is a placeholder value after an error, so building can go on.
func (g *Graph) bad() *Value {
	return &Value{g: g, invalid: true, shape: []int{1}, p: 1, f: 1, h: 1, w: 1}
}

// Value is a tensor of the workload. On chip it is a matrix X[i][j]: i
// across state-buffer partitions (channels, a GEMM's K or N), j along
// addresses (pixels y·W+x, a GEMM's M); element (i, j) lies in partition
// i mod Part, address base + ⌊i/Part⌋·F + j. Part is Rows for tensors
// that DMA brings in and Cols for tensors the psum write-back produces
// (lane j of the planar engine reads psum partition j, j < Cols).
type Value struct {
	g       *Graph
	id      int
	invalid bool
	shape   []int // the user's shape
	p, f    int   // the on-chip matrix: p partition rows, f free size
	h, w    int   // the plane, h·w = f (a matrix is an f×1 plane)
	trans   bool  // user[j][i] = X[i][j]: the user matrix is [f][p] (GEMM operands and results)
	cols    bool  // channel tiles of Cols partitions (psum write-back results), else Rows
	formSet bool  // an input's form is fixed by its first consumer
	isInt32 bool  // an Int32 conv or GEMM result: only a graph output

	name     string         // graph inputs
	data     *golden.Tensor // graph inputs
	producer *node
	alias    *Value // views (flatten, transpose of a transposed value) share storage
	uses     int
	outputs  []string
}

// Shape is the user's shape of the value.
func (v *Value) Shape() []int { return append([]int(nil), v.shape...) }

type opKind int

const (
	opConv opKind = iota
	opGEMM
	opPool
	opEltwise
	opReduce
	opTranspose
	opView
	opConcat
	opPermute
	opLookup
	opUpsample
)

var opKindNames = [...]string{"conv2d", "gemm", "pool", "eltwise", "reduce", "transpose", "view", "concat", "permute", "lookup", "upsample"}

func (k opKind) String() string { return opKindNames[k] }

type node struct {
	kind  opKind
	label string
	in    []*Value
	out   *Value

	weights *golden.Tensor // conv [Cout][Cin][KH][KW], gemm [K][N]
	wname   string
	conv    Conv
	pool    Pool
	elt     golden.EltOp
	scalar  *int64
	channel bool // eltwise: in[1] is one operand per channel ([C]), broadcast over the plane
	red     golden.ReduceKind
	post    golden.PostFn // reduce: the post function
	recip   int           // reduce with recip: RecipBits
	q       golden.Requant
	pc      *ChannelRequant // conv2d, GEMM: per-output-channel scale and bias, else nil
	viewT   bool            // a view that transposes (of a GEMM result), else a reshape
	bias    []int64         // an int32 result's bias per output channel, or nil
	perm    []int           // permute: output channel i is input channel perm[i]
	table   []int64         // lookup: the table, entry k for the element value min + k
	factor  int             // upsample: the factor along H and W
}

func (g *Graph) newValue(shape []int) *Value {
	v := &Value{g: g, id: len(g.values), shape: append([]int(nil), shape...)}
	g.values = append(g.values, v)
	return v
}

func (g *Graph) add(kind opKind, in []*Value, out *Value) *node {
	n := &node{kind: kind, label: fmt.Sprintf("%s%d", kind, g.counts[kind]), in: in, out: out}
	g.counts[kind]++
	for _, v := range in {
		v.uses++
	}
	out.producer = n
	g.nodes = append(g.nodes, n)
	return n
}

func (g *Graph) useName(op, name string) bool {
	if name == "" {
		g.fail(op, "a tensor needs a name")
		return false
	}
	if g.names[name] {
		g.fail(op, "the name %q is used twice", name)
		return false
	}
	g.names[name] = true
	return true
}

// Input is a tensor in external memory at the start (int8 values for the
// default configuration). Its on-chip form is chosen by its first
// consumer: a GEMM's left operand is stored transposed (partition k,
// address m), everything else as is (partition = first dimension).
func (g *Graph) Input(name string, t *golden.Tensor) *Value {
	if !g.useName("input", name) {
		return g.bad()
	}
	if t == nil || len(t.Shape) == 0 {
		return g.fail("input "+name, "needs a tensor with a shape")
	}
	for i, d := range t.Shape {
		if d < 1 {
			return g.fail("input "+name, "dimension %d = %d must be at least 1", i, d)
		}
	}
	v := g.newValue(t.Shape)
	v.name, v.data = name, t
	return v
}

// Output marks v as a result: it is written to external memory and read
// back under name.
func (g *Graph) Output(name string, v *Value) {
	if v != nil && v.invalid && v.g == g {
		return // the error that made it invalid is reported
	}
	if v == nil || v.invalid || v.g != g {
		g.fail("output "+name, "not a value of this graph")
		return
	}
	if r := root(v); r.producer == nil {
		g.fail("output "+name, "is (a view of) the graph input %q; outputs are computed values", r.name)
		return
	}
	if !g.useName("output", name) {
		return
	}
	v.outputs = append(v.outputs, name)
}

// setPlain fixes an input's form to the plain matrix of its shape (first
// dimension across partitions, the rest along addresses).
func (v *Value) setPlain() {
	if v.formSet {
		return
	}
	v.formSet = true
	v.trans = false
	if c, h, w, ok := fmapShape(v.shape); ok {
		// A feature map, [C,H,W] or [1,C,H,W]: channels across
		// partitions, the plane along addresses (a batch of one is no
		// dimension of its own).
		v.p, v.f, v.h, v.w = c, h*w, h, w
		return
	}
	v.p = v.shape[0]
	v.f = 1
	for _, d := range v.shape[1:] {
		v.f *= d
	}
	v.h, v.w = v.f, 1
}

// setTrans fixes an input's form to the transposed matrix of a [M][K]
// tensor: partition k, address m.
func (v *Value) setTrans() {
	if v.formSet {
		return
	}
	v.formSet = true
	v.trans = true
	v.p, v.f = v.shape[1], v.shape[0]
	v.h, v.w = v.f, 1
}

// fmapShape returns (C, H, W) of a [C,H,W] or [1,C,H,W] tensor.
func fmapShape(s []int) (c, h, w int, ok bool) {
	switch {
	case len(s) == 3:
		return s[0], s[1], s[2], true
	case len(s) == 4 && s[0] == 1:
		return s[1], s[2], s[3], true
	}
	return 0, 0, 0, false
}

func (g *Graph) check(op string, vs ...*Value) bool {
	for _, v := range vs {
		if v == nil || v.g != g {
			g.fail(op, "operand is not a value of this graph")
			return false
		}
		if v.invalid {
			return false // already reported
		}
		if v.isInt32 {
			g.fail(op, "operand is an int32 result (%s): it can only be a graph output", v.producer.label)
			return false
		}
	}
	return true
}

// identity treats the zero Requant as the identity (scale 1).
func identity(q golden.Requant) golden.Requant {
	if q == (golden.Requant{}) {
		return golden.Identity()
	}
	return q
}

// Conv is a 2-D convolution's geometry and output requantization.
type Conv struct {
	Stride     int // 0 means 1
	PadH, PadW int
	Requant    golden.Requant // applied to the int32 sums; the zero value is the identity
	// PerChannel, when set, replaces Requant's Scale and Bias by one
	// scale and bias per output channel; the shift, rounding, ReLU and
	// clamp stay Requant's, shared by all channels.
	PerChannel *ChannelRequant
	// Taps chooses how a conv reading a graph input uses the PE rows;
	// the zero value lets the compiler map the kernel taps onto them
	// when that takes fewer passes (see taps.go).
	Taps TapMapping
	// Int32 makes the result the accumulators plus Bias, as int32
	// values ((acc + Bias[o]) mod 2^32), instead of elements: Requant
	// and PerChannel must be unset, and the result can only be a graph
	// output (it leaves in digit planes, see Binding.Digits).
	Int32 bool
	Bias  []int64 // Int32 only: one bias per output channel (nil: none)
	// Groups splits the input and output channels into groups of
	// consecutive channels (ONNX Conv's group; 0 means 1): output
	// channel o reads only the Cin/Groups input channels of its group
	// o/(Cout/Groups), and the weights are [Cout][Cin/Groups][KH][KW].
	// Groups = Cin is the depthwise convolution. The NE runs only the
	// channel tiles a group touches (see doc.go, Grouped convolution).
	Groups int
}

// TapMapping is a conv's choice of input layout.
type TapMapping int

const (
	// TapsAuto: a conv that is the only reader of a graph input runs on
	// the input's windows (C·kh·kw rows, a 1×1 convolution) when that
	// takes fewer NE passes than C rows and kh·kw passes.
	TapsAuto TapMapping = iota
	// TapsDirect: always the direct convolution (C rows, one pass per
	// kernel tap), as the source document's worked examples count them.
	TapsDirect
	// TapsWindows: the windows whenever the conv is the only reader of a
	// graph input, even when that takes as many passes or more (to
	// measure one mapping against the other).
	TapsWindows
)

// ChannelRequant is a per-output-channel requantization: output channel
// o (a conv's Cout index, a GEMM's column n) is requantized with
// Scale[o] and Bias[o] instead of the layer's Requant.Scale and Bias.
// The planar engine holds them in its lane registers (loadparams), so
// the scales must fit scale_width and the biases acc_width signed bits;
// Compile checks that against the configuration.
type ChannelRequant struct {
	Scale, Bias []int64
}

// checkLen reports per-channel parameters that are not one per channel.
func (pc *ChannelRequant) checkLen(channels int, what string) error {
	switch {
	case len(pc.Scale) != channels:
		return fmt.Errorf("per-channel Scale has %d entries, want one per %s (%d)", len(pc.Scale), what, channels)
	case len(pc.Bias) != channels:
		return fmt.Errorf("per-channel Bias has %d entries, want one per %s (%d)", len(pc.Bias), what, channels)
	}
	return nil
}

// clone copies pc, so the graph does not see later changes of the
// caller's slices.
func (pc *ChannelRequant) clone() *ChannelRequant {
	if pc == nil {
		return nil
	}
	return &ChannelRequant{Scale: slices.Clone(pc.Scale), Bias: slices.Clone(pc.Bias)}
}

// Conv2D convolves x ([C,H,W] or [1,C,H,W], batch 1) with weights
// [Cout][Cin][KH][KW] (cross-correlation, as in NCHW frameworks); the
// result is [Cout,OH,OW] (of x's rank), requantized to elements.
func (g *Graph) Conv2D(x *Value, weights *golden.Tensor, c Conv) *Value {
	op := fmt.Sprintf("conv2d%d", g.counts[opConv])
	if !g.check(op, x) {
		return g.bad()
	}
	if c.Stride == 0 {
		c.Stride = 1
	}
	if c.Groups == 0 {
		c.Groups = 1
	}
	ci, h, w, ok := fmapShape(x.shape)
	if !ok {
		return g.fail(op, "input shape %v: want [C,H,W] or [1,C,H,W]", x.shape)
	}
	if weights == nil || len(weights.Shape) != 4 {
		return g.fail(op, "weights must be [Cout][Cin][KH][KW]")
	}
	co, wci, kh, kw := weights.Shape[0], weights.Shape[1], weights.Shape[2], weights.Shape[3]
	switch {
	case co < 1:
		return g.fail(op, "output channels Cout = %d must be at least 1", co)
	case c.Groups < 1:
		return g.fail(op, "groups = %d must be at least 1", c.Groups)
	case ci%c.Groups != 0 || co%c.Groups != 0:
		return g.fail(op, "groups = %d must divide the input channels (%d) and the output channels Cout (%d)", c.Groups, ci, co)
	case c.Groups > 1 && wci != ci/c.Groups:
		return g.fail(op, "weights have Cin/groups = %d, want %d (%d input channels in %d groups)", wci, ci/c.Groups, ci, c.Groups)
	case wci != ci/c.Groups:
		return g.fail(op, "weights have Cin = %d, the input has %d channels", wci, ci)
	case kh < 1 || kw < 1:
		return g.fail(op, "kernel %dx%d: kh and kw must be at least 1", kh, kw)
	case c.Stride < 1:
		return g.fail(op, "stride = %d must be at least 1", c.Stride)
	case c.PadH < 0 || c.PadW < 0:
		return g.fail(op, "padding %d, %d must not be negative", c.PadH, c.PadW)
	case kh > h+2*c.PadH:
		return g.fail(op, "kernel height kh = %d is larger than the padded input height h+2·pad_h = %d", kh, h+2*c.PadH)
	case kw > w+2*c.PadW:
		return g.fail(op, "kernel width kw = %d is larger than the padded input width w+2·pad_w = %d", kw, w+2*c.PadW)
	}
	if c.PerChannel != nil {
		if err := c.PerChannel.checkLen(co, "output channel Cout"); err != nil {
			return g.fail(op, "%v", err)
		}
	}
	if err := checkInt32(c.Int32, c.Bias, co, "output channel Cout", c.Requant, c.PerChannel); err != nil {
		return g.fail(op, "%v", err)
	}
	if x.producer == nil {
		x.setPlain()
	}
	if x.trans {
		return g.fail(op, "input is a transposed matrix, not a feature map")
	}
	oh, ow := (h+2*c.PadH-kh)/c.Stride+1, (w+2*c.PadW-kw)/c.Stride+1
	shape := []int{co, oh, ow}
	if len(x.shape) == 4 {
		shape = []int{1, co, oh, ow}
	}
	out := g.newValue(shape)
	out.formSet, out.cols, out.p, out.f, out.h, out.w = true, true, co, oh*ow, oh, ow
	n := g.add(opConv, []*Value{x}, out)
	n.weights, n.conv, n.q = weights, c, identity(c.Requant)
	n.pc = c.PerChannel.clone()
	n.conv.PerChannel = n.pc
	n.wname = n.label + ".w"
	if c.Int32 {
		n.setInt32(c.Bias)
	}
	return out
}

// checkInt32 reports an int32 request that cannot be met: a
// requantization besides it, or biases not one per channel (or without
// it).
func checkInt32(i32 bool, bias []int64, channels int, what string, q golden.Requant, pc *ChannelRequant) error {
	switch {
	case !i32 && bias != nil:
		return fmt.Errorf("Bias is given without Int32: the int32 bias is for int32 results (requantized ones take theirs in Requant or PerChannel)")
	case !i32:
		return nil
	case q != (golden.Requant{}):
		return fmt.Errorf("Int32 with Requant %+v: an int32 result is not requantized, leave Requant zero", q)
	case pc != nil:
		return fmt.Errorf("Int32 with PerChannel: an int32 result is not requantized, give its biases in Bias")
	case bias != nil && len(bias) != channels:
		return fmt.Errorf("Bias has %d entries, want one per %s (%d)", len(bias), what, channels)
	}
	for o, b := range bias {
		if !Int32.Fits(b) {
			return fmt.Errorf("Bias[%d] = %d is not an int32 (%d..%d)", o, b, Int32.Min(), Int32.Max())
		}
	}
	return nil
}

// setInt32 makes n's result int32: its acts wrap (scale 1, shift 8k for
// byte k) and a bias goes through the per-lane parameters (scale 1).
func (n *node) setInt32(bias []int64) {
	n.out.isInt32 = true
	n.q = golden.Requant{Scale: 1, Wrap: true}
	if bias != nil {
		n.bias = slices.Clone(bias)
		n.pc = &ChannelRequant{Scale: make([]int64, len(bias)), Bias: n.bias}
		for i := range n.pc.Scale {
			n.pc.Scale[i] = 1
		}
	}
}

// GEMM is C[M][N] = A[M][K]·B[K][N] with int32 accumulation, requantized
// to elements by q (the zero value: identity). A is a graph value (a
// [M][K] matrix, or a flattened feature map: a fully-connected layer), B
// a constant weight matrix.
func (g *Graph) GEMM(a *Value, b *golden.Tensor, q golden.Requant) *Value {
	return g.GEMMPerChannel(a, b, nil, q)
}

// GEMMPerChannel is GEMM with a per-output-channel requantization (pc,
// one scale and bias per column n of C; nil: GEMM): the shift, rounding,
// ReLU and clamp stay q's.
func (g *Graph) GEMMPerChannel(a *Value, b *golden.Tensor, pc *ChannelRequant, q golden.Requant) *Value {
	return g.gemm(a, b, pc, q, false, nil)
}

// GEMMInt32 is C[M][N] = A·B + bias as int32 values: (Σ_k A[m][k]·B[k][n]
// + bias[n]) mod 2^32, bias one per column n (nil: none), not
// requantized (see Conv.Int32). The result can only be a graph output.
func (g *Graph) GEMMInt32(a *Value, b *golden.Tensor, bias []int64) *Value {
	return g.gemm(a, b, nil, golden.Requant{}, true, bias)
}

func (g *Graph) gemm(a *Value, b *golden.Tensor, pc *ChannelRequant, q golden.Requant, i32 bool, bias []int64) *Value {
	op := fmt.Sprintf("gemm%d", g.counts[opGEMM])
	if !g.check(op, a) {
		return g.bad()
	}
	if len(a.shape) != 2 {
		return g.fail(op, "A has shape %v: want a matrix [M][K] (Flatten a feature map first)", a.shape)
	}
	m, k := a.shape[0], a.shape[1]
	if b == nil || len(b.Shape) != 2 {
		return g.fail(op, "B must be a matrix [K][N]")
	}
	if b.Shape[0] != k {
		return g.fail(op, "B has K = %d rows, A has K = %d columns", b.Shape[0], k)
	}
	nn := b.Shape[1]
	if nn < 1 {
		return g.fail(op, "N = %d must be at least 1", nn)
	}
	if pc != nil {
		if err := pc.checkLen(nn, "output column N"); err != nil {
			return g.fail(op, "%v", err)
		}
	}
	if err := checkInt32(i32, bias, nn, "output column N", q, pc); err != nil {
		return g.fail(op, "%v", err)
	}
	if a.producer == nil {
		a.setTrans()
	}
	out := g.newValue([]int{m, nn})
	out.formSet, out.cols, out.trans, out.p, out.f, out.h, out.w = true, true, true, nn, m, m, 1
	node := g.add(opGEMM, []*Value{a}, out)
	node.weights, node.q, node.pc = b, identity(q), pc.clone()
	node.wname = node.label + ".b"
	if i32 {
		node.setInt32(bias)
	}
	return out
}

// Flatten views a feature map [C,H,W] as the matrix [1][C·H·W] (index
// c·H·W + y·W + x), for a fully-connected GEMM. It costs nothing: the
// data stay where they are.
func (g *Graph) Flatten(x *Value) *Value {
	op := "flatten"
	if !g.check(op, x) {
		return g.bad()
	}
	if x.producer == nil {
		x.setPlain()
	}
	if x.trans {
		return g.fail(op, "input is a transposed matrix")
	}
	out := g.newValue([]int{1, x.p * x.f})
	out.formSet, out.cols, out.p, out.f, out.h, out.w = true, x.cols, x.p, x.f, x.f, 1
	out.alias = x
	g.add(opView, []*Value{x}, out)
	return out
}

// Eltwise applies fn elementwise to two values of the same shape, then q.
func (g *Graph) Eltwise(fn golden.EltOp, a, b *Value, q golden.Requant) *Value {
	op := fmt.Sprintf("eltwise%d", g.counts[opEltwise])
	if !g.check(op, a, b) {
		return g.bad()
	}
	if err := binaryElt(fn); err != nil {
		return g.fail(op, "%v", err)
	}
	if !slices.Equal(a.shape, b.shape) {
		return g.fail(op, "operand shapes %v and %v differ", a.shape, b.shape)
	}
	switch {
	case a.formSet && !b.formSet:
		b.adopt(a)
	case b.formSet && !a.formSet:
		a.adopt(b)
	case !a.formSet && !b.formSet:
		a.setPlain()
		b.adopt(a)
	}
	if a.trans != b.trans || a.p != b.p {
		return g.fail(op, "the operands are laid out differently on chip (one is a transposed GEMM matrix); transpose one first")
	}
	out := g.newValue(a.shape)
	out.formSet, out.cols, out.trans, out.p, out.f, out.h, out.w = true, a.cols, a.trans, a.p, a.f, a.h, a.w
	n := g.add(opEltwise, []*Value{a, b}, out)
	n.elt, n.q = fn, identity(q)
	return out
}

// adopt gives an unplaced input the form of v.
func (x *Value) adopt(v *Value) {
	x.formSet, x.trans, x.p, x.f, x.h, x.w, x.cols = true, v.trans, v.p, v.f, v.h, v.w, v.cols
}

// EltwiseScalar applies fn to every element of a and the scalar s.
func (g *Graph) EltwiseScalar(fn golden.EltOp, a *Value, s int64, q golden.Requant) *Value {
	op := fmt.Sprintf("eltwise%d", g.counts[opEltwise])
	if !g.check(op, a) {
		return g.bad()
	}
	if err := binaryElt(fn); err != nil {
		return g.fail(op, "%v", err)
	}
	if a.producer == nil {
		a.setPlain()
	}
	out := g.newValue(a.shape)
	out.formSet, out.cols, out.trans, out.p, out.f, out.h, out.w = true, a.cols, a.trans, a.p, a.f, a.h, a.w
	n := g.add(opEltwise, []*Value{a}, out)
	n.elt, n.q, n.scalar = fn, identity(q), &s
	return out
}

// EltwiseChannel applies fn to every element of a and its channel's
// element of vec, then q: vec [C] holds one operand per channel (a
// per-channel bias, scale or mean), C the first dimension of a ([C,H,W]
// or [C,N]; a reduction's result fits). The planar engine reads it once
// per plane (broadcast).
func (g *Graph) EltwiseChannel(fn golden.EltOp, a, vec *Value, q golden.Requant) *Value {
	op := fmt.Sprintf("eltwise%d", g.counts[opEltwise])
	if !g.check(op, a, vec) {
		return g.bad()
	}
	if err := binaryElt(fn); err != nil {
		return g.fail(op, "%v", err)
	}
	if a.producer == nil {
		a.setPlain()
	}
	if vec.producer == nil {
		vec.setPlain()
	}
	switch {
	case a.trans || vec.trans:
		return g.fail(op, "an operand is a transposed matrix (a GEMM result); transpose it first")
	case len(vec.shape) != 1 || vec.p != a.p:
		return g.fail(op, "vec has shape %v: want [%d], one element per channel of a %v", vec.shape, a.p, a.shape)
	case a.cols != vec.cols:
		return g.fail(op, "a and vec lie in channel tiles of different sizes (one came from the psum write-back, the other from memory)")
	}
	out := g.newValue(a.shape)
	out.formSet, out.cols, out.trans, out.p, out.f, out.h, out.w = true, a.cols, a.trans, a.p, a.f, a.h, a.w
	n := g.add(opEltwise, []*Value{a, vec}, out)
	n.elt, n.q, n.channel = fn, identity(q), true
	return out
}

// binaryElt reports a function that Eltwise and EltwiseScalar cannot
// apply: an unknown one, or a unary one (Unary).
func binaryElt(fn golden.EltOp) error {
	switch {
	case int(fn) < 0 || int(fn) >= len(golden.EltOpNames()):
		return fmt.Errorf("function = %d: want one of %s", fn, strings.Join(golden.EltOpNames(), ", "))
	case fn.Unary():
		return fmt.Errorf("function = %v is unary: use Unary", fn)
	}
	return nil
}

// Abs is |x| element by element, then q: Unary(golden.EltAbs, x, q).
func (g *Graph) Abs(x *Value, q golden.Requant) *Value { return g.Unary(golden.EltAbs, x, q) }

// Unary is fn(x) element by element, then q, for a unary fn (abs, neg):
// the planar engine's unary eltwise. The exact value goes to q, so
// |−128| and −(−128) are 128 before q, and the identity saturates them
// to 127.
func (g *Graph) Unary(fn golden.EltOp, x *Value, q golden.Requant) *Value {
	op := fmt.Sprintf("eltwise%d", g.counts[opEltwise])
	if !g.check(op, x) {
		return g.bad()
	}
	if !fn.Unary() {
		return g.fail(op, "function = %v is not unary: use Eltwise", fn)
	}
	if x.producer == nil {
		x.setPlain()
	}
	out := g.newValue(x.shape)
	out.formSet, out.cols, out.trans, out.p, out.f, out.h, out.w = true, x.cols, x.trans, x.p, x.f, x.h, x.w
	n := g.add(opEltwise, []*Value{x}, out)
	n.elt, n.q = fn, identity(q)
	return out
}

// Requant requantizes a value in the state buffer (an eltwise add of the
// scalar 0 through the post-processor): ReLU, clamping, rescaling.
func (g *Graph) Requant(a *Value, q golden.Requant) *Value {
	return g.EltwiseScalar(golden.EltAdd, a, 0, q)
}

// Reduce sums or takes the maximum of every channel plane of a feature
// map ([C,H,W] or a matrix's rows), giving [C], or across rows
// (ReduceRowSum, ReduceRowMax: each plane's H rows combined column by
// column, [C,H,W] giving [C,W]), then q. It is ReduceWith without a post
// function.
func (g *Graph) Reduce(x *Value, kind golden.ReduceKind, q golden.Requant) *Value {
	return g.ReduceWith(x, Reduction{Kind: kind, Requant: q})
}

// Reduction is a reduction of every channel plane (ReduceWith).
type Reduction struct {
	// Kind: sum or max of the whole plane (one value per channel), or
	// rowsum or rowmax across rows (W values per channel: the column
	// sums or maxima of each H×W plane; W ≤ line_depth).
	Kind golden.ReduceKind
	// Post is applied to v = x·Scale + Bias (Requant's) before the shift
	// s: sqrt gives round(√v / 2^s) (0 for v < 0), recip round(2^RecipBits
	// / v / 2^s) (the largest value for v = 0: it saturates), both
	// rounded as Requant rounds (see golden.Requant.ApplyPost). Scale v
	// up before a sqrt rather than the result: it keeps more bits.
	Post      golden.PostFn
	RecipBits int            // recip only: the numerator 2^RecipBits (see Post)
	Requant   golden.Requant // the zero value: identity; a mean: AvgRequant(n), n = H·W or H across rows
}

// ReduceWith reduces every channel plane of x as r says.
func (g *Graph) ReduceWith(x *Value, r Reduction) *Value {
	op := fmt.Sprintf("reduce%d", g.counts[opReduce])
	if !g.check(op, x) {
		return g.bad()
	}
	switch {
	case r.Kind < golden.ReduceSum || r.Kind > golden.ReduceRowMax:
		return g.fail(op, "kind = %v: want one of %s", r.Kind, strings.Join(golden.ReduceKindNames(), ", "))
	case r.Post < golden.PostNone || r.Post > golden.PostRecip:
		return g.fail(op, "post = %v: want one of %s", r.Post, strings.Join(golden.PostFnNames(), ", "))
	case r.Post != golden.PostRecip && r.RecipBits != 0:
		return g.fail(op, "recip_bits = %d without the recip post function", r.RecipBits)
	case r.RecipBits < 0:
		return g.fail(op, "recip_bits = %d must not be negative", r.RecipBits)
	}
	if x.producer == nil {
		x.setPlain()
	}
	if x.trans {
		return g.fail(op, "input is a transposed matrix; reduce works on the rows of a plain one")
	}
	shape, w := []int{x.p}, 1
	if r.Kind.AcrossRows() {
		var ok bool
		if _, _, w, ok = fmapShape(x.shape); !ok || len(x.shape) != 3 || x.h*x.w != x.f {
			return g.fail(op, "input shape %v: %v reduces across the rows of feature-map planes (a [C,H,W] input, or a conv or pool result)", x.shape, r.Kind)
		}
		shape = slices.Delete(slices.Clone(x.shape), len(x.shape)-2, len(x.shape)-1) // drop H
	}
	out := g.newValue(shape)
	out.formSet, out.cols, out.p, out.f, out.h, out.w = true, x.cols, x.p, w, 1, w
	n := g.add(opReduce, []*Value{x}, out)
	n.red, n.post, n.recip, n.q = r.Kind, r.Post, r.RecipBits, identity(r.Requant)
	return out
}

// Transpose is the matrix transpose of a [m][n] value, done on chip with
// the PE array and the planar write-back (no trip to external memory).
// A GEMM result is stored transposed already, so its transpose costs
// nothing.
func (g *Graph) Transpose(a *Value) *Value {
	op := fmt.Sprintf("transpose%d", g.counts[opTranspose])
	if !g.check(op, a) {
		return g.bad()
	}
	if len(a.shape) != 2 {
		return g.fail(op, "input shape %v: want a matrix", a.shape)
	}
	if a.producer == nil {
		a.setPlain()
	}
	if !a.trans && (a.p != a.shape[0] || a.f != a.shape[1]) {
		// A flattened feature map is [1][C·H·W] to the user but the
		// [C][H·W] matrix on chip; the corner turn would transpose the
		// latter.
		return g.fail(op, "input %v is a flattened feature map (the %d×%d matrix on chip): transpose is not supported on it", a.shape, a.p, a.f)
	}
	out := g.newValue([]int{a.shape[1], a.shape[0]})
	if a.trans {
		out.formSet, out.cols, out.p, out.f, out.h, out.w = true, a.cols, a.p, a.f, a.f, 1
		out.alias = a
		g.add(opView, []*Value{a}, out).viewT = true
		return out
	}
	out.formSet, out.cols, out.trans, out.p, out.f, out.h, out.w = true, true, false, a.f, a.p, a.p, 1
	g.add(opTranspose, []*Value{a}, out)
	return out
}
