package compiler

// Column views a value with one element per channel, a vector [C] (a
// reduction's result), a feature map [C,1,1] (a pool of the whole
// plane) or its flattening [1][C], as the matrix [C][1]: the data stay
// where they are (channel c in partition c, one address), so Transpose
// can then lay the C values out along one partition's addresses, where
// the planar engine reduces (a softmax over channels).
func (g *Graph) Column(x *Value) *Value {
	op := "column"
	if !g.check(op, x) {
		return g.bad()
	}
	if x.producer == nil {
		x.setPlain()
	}
	if x.trans || x.f != 1 {
		return g.fail(op, "input %v is laid out as %d partitions of %d elements (transposed %v): want one element per channel", x.shape, x.p, x.f, x.trans)
	}
	out := g.newValue([]int{x.p, 1})
	out.formSet, out.cols, out.p, out.f, out.h, out.w = true, x.cols, x.p, 1, 1, 1
	out.alias = x
	g.add(opView, []*Value{x}, out)
	return out
}
