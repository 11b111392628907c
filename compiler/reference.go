package compiler

import (
	"fmt"
	"slices"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/golden"
)

// Reference evaluates the graph with the golden models (package golden;
// the convolution is golden.Conv2DGroups): int32 (acc_width)
// accumulation, then the requantization to elements, or for an int32
// result the post-processor's wrap to 32 bits of the sums plus bias. It
// is what a compiled program must produce, on any engine.
func (g *Graph) Reference(cfg npu.Config) (map[string]*golden.Tensor, error) {
	if err := g.Err(); err != nil {
		return nil, err
	}
	elem, acc := golden.S(cfg.ElemWidth), golden.S(cfg.AccWidth)
	val := map[*Value]*golden.Tensor{}
	for _, v := range g.values {
		if v.data != nil {
			val[v] = v.data
		}
	}
	// typ is the type of n's result: elements, or int32.
	typ := func(n *node) golden.Int {
		if n.out.isInt32 {
			return Int32
		}
		return elem
	}
	// sumsOut requantizes a conv's or GEMM's sums with the node's
	// shared requantization (or wraps them to an int32 result).
	sumsOut := func(n *node, t *golden.Tensor) *golden.Tensor {
		out := golden.New(t.Shape...)
		for i, x := range t.Data {
			out.Data[i] = n.q.Apply(x, typ(n))
		}
		return out
	}
	reshape := func(t *golden.Tensor, shape ...int) *golden.Tensor {
		return &golden.Tensor{Shape: shape, Data: t.Data}
	}
	// perChannel requantizes sums [C][N] (channel c in row c) with the
	// node's per-channel scales and biases.
	perChannel := func(n *node, sums *golden.Tensor) (*golden.Tensor, error) {
		if err := n.pc.check(cfg.Planar().Sizes); err != nil {
			return nil, err
		}
		return golden.Activate(sums, n.pc.Scale, n.pc.Bias, n.q, typ(n))
	}
	for _, n := range g.nodes {
		x := val[n.in[0]]
		var out *golden.Tensor
		var err error
		switch n.kind {
		case opView:
			if n.viewT {
				out, err = golden.Transpose(x)
			} else {
				out = reshape(x, n.out.shape...)
			}
		case opConv:
			var sums *golden.Tensor
			if sums, err = golden.Conv2DGroups(reshape(x, n.in[0].p, n.in[0].h, n.in[0].w), n.weights, n.conv.Stride, n.conv.PadH, n.conv.PadW, n.conv.Groups, acc); err != nil {
				break
			}
			if n.pc == nil {
				out = reshape(sumsOut(n, sums), n.out.shape...)
				break
			}
			var r *golden.Tensor
			if r, err = perChannel(n, reshape(sums, n.out.p, n.out.f)); err == nil {
				out = reshape(r, n.out.shape...)
			}
		case opGEMM:
			var sums *golden.Tensor
			if sums, err = golden.GEMM(x, n.weights, acc); err != nil {
				break
			}
			if n.pc == nil {
				out = sumsOut(n, sums)
				break
			}
			// The channels are C's columns: requantize Cᵀ row by row.
			var t, r *golden.Tensor
			if t, err = golden.Transpose(sums); err != nil {
				break
			}
			if r, err = perChannel(n, t); err == nil {
				out, err = golden.Transpose(r)
			}
		case opPool:
			c, h, w, _ := fmapShape(x.Shape)
			p := golden.Pooling{Kind: n.pool.Kind, KH: n.pool.KH, KW: n.pool.KW, Stride: n.pool.Stride,
				PadH: n.pool.PadH, PadW: n.pool.PadW, Padding: n.pool.Padding}
			var r *golden.Tensor
			if r, err = golden.Pool(reshape(x, c, h, w), p, n.q, elem); err == nil {
				out = reshape(r, n.out.shape...)
			}
		case opEltwise, opLookup:
			switch {
			case n.elt.Unary():
				// The node's own function; the second operand is ignored.
				out, err = golden.EltwiseScalar(n.elt, x, 0, n.q, elem)
			case n.scalar != nil:
				out, err = golden.EltwiseScalar(n.elt, x, *n.scalar, n.q, elem)
			case n.channel:
				var r *golden.Tensor
				in := n.in[0]
				if r, err = golden.EltwiseChannel(n.elt, reshape(x, in.p, in.f), val[n.in[1]], n.q, elem); err == nil {
					out = reshape(r, n.out.shape...)
				}
			default:
				out, err = golden.Eltwise(n.elt, x, val[n.in[1]], n.q, elem)
			}
			if err == nil && n.table != nil {
				out, err = golden.Lookup(out, n.table, elem)
			}
		case opReduce:
			in := n.in[0]
			plane := reshape(x, in.p, in.f)
			if n.red.AcrossRows() {
				plane = reshape(x, in.p, in.h, in.w)
			}
			pc := cfg.Planar()
			var q golden.Requant
			if q, err = reduceRequant(n, pc.RecipShift(), pc.MaxShift()); err != nil {
				break
			}
			var r *golden.Tensor
			if r, err = golden.ReducePost(plane, n.red, n.post, pc.RecipShift(), q, elem); err == nil {
				out = reshape(r, n.out.shape...)
			}
		case opTranspose:
			out, err = golden.Transpose(x)
		case opConcat, opPermute:
			out, err = channelsRef(n, val)
		case opUpsample:
			out = upsampleRef(n, x)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", n.label, err)
		}
		val[n.out] = out
	}
	res := map[string]*golden.Tensor{}
	for _, v := range g.values {
		for _, name := range v.outputs {
			res[name] = val[v]
		}
	}
	return res, nil
}

// channelsRef is the golden result of a concat or permute node: the
// channels of its operands (in val) gathered, as [C][H·W] planes.
func channelsRef(n *node, val map[*Value]*golden.Tensor) (*golden.Tensor, error) {
	planes := make([]*golden.Tensor, len(n.in))
	for i, v := range n.in {
		planes[i] = &golden.Tensor{Shape: []int{v.p, v.f}, Data: val[v].Data}
	}
	var r *golden.Tensor
	var err error
	if n.kind == opPermute {
		r, err = golden.Channels(planes[0], n.perm)
	} else {
		r, err = golden.ConcatChannels(planes...)
	}
	if err != nil {
		return nil, err
	}
	return &golden.Tensor{Shape: slices.Clone(n.out.shape), Data: r.Data}, nil
}
