package compiler

import (
	"slices"

	"github.com/hwgen/hwgen/golden"
)

// This file is the read-only view of a built graph for tools that
// translate it into another form (frontend/export writes it as an ONNX
// model): the operations in program order with everything that defines
// their integer results, so such a tool never recomputes what the
// builder was given.

// OpKind is the kind of an Op.
type OpKind int

// The kinds of operations, one per builder method (Requant is an
// EltwiseScalar, Flatten and the free Transpose of a GEMM result are
// views).
const (
	OpConv2D    = OpKind(opConv)
	OpGEMM      = OpKind(opGEMM)
	OpPool      = OpKind(opPool)
	OpEltwise   = OpKind(opEltwise)
	OpReduce    = OpKind(opReduce)
	OpTranspose = OpKind(opTranspose)
	OpView      = OpKind(opView)
	OpConcat    = OpKind(opConcat)  // In are the parts, along channels
	OpPermute   = OpKind(opPermute) // Perm is the channel order
	OpLookup    = OpKind(opLookup)
	OpUpsample  = OpKind(opUpsample) // Factor is the nearest upsampling factor along H and W
)

// String is the kind's name as op labels use it (conv2d, gemm, ...).
func (k OpKind) String() string { return opKind(k).String() }

// Op is one operation of a graph. Its slices and tensors are copies: a
// caller may keep or change them without touching the graph.
type Op struct {
	Kind  OpKind
	Label string   // the op's label in errors and task labels: conv2d0, gemm1, ...
	In    []*Value // operands (values of the graph; compare them by identity)
	Out   *Value

	// Weights: conv2d [Cout][Cin][KH][KW], gemm B [K][N]; nil otherwise.
	Weights *golden.Tensor
	// Conv is a conv2d's geometry (Stride ≥ 1); its requantization is
	// Requant and PerChannel below.
	Conv Conv
	// Pool is a pool's window (Stride ≥ 1); its requantization is Requant.
	Pool Pool
	// Requant is the post-processor every op but views and transposes
	// ends in, the identity filled in for the zero value. With
	// PerChannel, output channel o uses PerChannel.Scale[o] and
	// .Bias[o] instead of Requant's Scale and Bias.
	Requant    golden.Requant
	PerChannel *ChannelRequant
	// Int32 marks a conv2d or GEMM whose result is int32, the sums plus
	// Bias[o] per output channel (nil: none), wrapped to int32 (Requant
	// and PerChannel then hold the wrapping post-processor that cuts it
	// into elements on chip).
	Int32 bool
	Bias  []int64

	Elt    golden.EltOp // eltwise (EltAbs is unary: In holds one operand)
	Scalar *int64       // eltwise with a scalar operand, else nil
	// Channel: an eltwise whose second operand is one element per
	// channel (EltwiseChannel), In[1] of shape [C].
	Channel bool
	Reduce  golden.ReduceKind
	// Post and RecipBits: a reduction's post function (Reduction).
	Post      golden.PostFn
	RecipBits int
	// Transposes marks a view that is a transpose (of a GEMM result,
	// which is stored transposed), not a reshape.
	Transposes bool
	// Perm: a permute's channel order (channel i of Out is channel
	// Perm[i] of In[0]).
	Perm []int
	// Table is a lookup's table (Graph.Lookup): the result is
	// Table[r − elem min] of r = Requant(In[0]) (Elt is add, Scalar 0).
	Table []int64
	// Factor is an upsample's factor: Out[c][y][x] = In[c][⌊y/Factor⌋][⌊x/Factor⌋].
	Factor int
}

// Ops lists the graph's operations in program order (every operand is a
// graph input or the output of an earlier op), or the graph's build
// errors.
func (g *Graph) Ops() ([]Op, error) {
	if err := g.Err(); err != nil {
		return nil, err
	}
	ops := make([]Op, 0, len(g.nodes))
	for _, n := range g.nodes {
		op := Op{Kind: OpKind(n.kind), Label: n.label, In: slices.Clone(n.in), Out: n.out,
			Elt: n.elt, Reduce: n.red, Post: n.post, RecipBits: n.recip, Channel: n.channel, Transposes: n.viewT, PerChannel: n.pc.clone(),
			Int32: n.out.isInt32, Bias: slices.Clone(n.bias), Perm: slices.Clone(n.perm), Table: slices.Clone(n.table), Factor: n.factor}
		if n.weights != nil {
			op.Weights = n.weights.Clone()
		}
		switch n.kind {
		case opConv:
			op.Conv = n.conv
			op.Conv.PerChannel = op.PerChannel
		case opPool:
			op.Pool = n.pool
		}
		if n.kind != opView && n.kind != opTranspose && n.kind != opConcat && n.kind != opPermute && n.kind != opUpsample {
			op.Requant = n.q
		}
		if n.scalar != nil {
			s := *n.scalar
			op.Scalar = &s
		}
		ops = append(ops, op)
	}
	return ops, nil
}

// InputName is the name a graph input was given, "" for a computed value.
func (v *Value) InputName() string { return v.name }

// OutputNames are the names under which v is a graph output.
func (v *Value) OutputNames() []string { return slices.Clone(v.outputs) }
