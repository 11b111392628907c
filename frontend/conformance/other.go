package conformance

import (
	"fmt"
	"math"
	"slices"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/quant"
	"github.com/hwgen/hwgen/golden"
)

// elementJob is a job whose inputs and output are all elements: the
// width is the narrowest that holds every value.
func elementJob(base npu.Config, g *compiler.Graph, want *golden.Tensor, note string, values ...[]int64) (*job, error) {
	cfg := base
	cfg.ElemWidth = max(base.ElemWidth, bitsFor(append(values, want.Data)...))
	if 2*cfg.ElemWidth > cfg.AccWidth {
		return nil, unsupportedf("values need %d-bit elements; acc_width %d allows %d", cfg.ElemWidth, cfg.AccWidth, cfg.AccWidth/2)
	}
	return &job{g: g, cfg: cfg, want: want, note: note}, nil
}

func poolTest(c *Case, base npu.Config) (*job, *Result, error) {
	n := c.Model.Graph.Nodes[0]
	x, err := tensor(c.input(0), "input "+n.Inputs[0])
	if err != nil {
		return nil, nil, err
	}
	want, err := tensor(c.Outputs[0], "expected output")
	if err != nil {
		return nil, nil, err
	}
	if len(x.Shape) != 4 || x.Shape[0] != 1 {
		return nil, nil, unsupportedf("input %v: want [1,C,H,W] (2-D pooling, batch 1)", x.Shape)
	}
	h, w := x.Shape[2], x.Shape[3]
	p := compiler.Pool{Kind: golden.PoolMax, Padding: golden.PadIgnore}
	note := "max pooling, padding never wins"
	switch n.OpType {
	case "GlobalAveragePool":
		p = compiler.Pool{Kind: golden.PoolAvg, KH: h, KW: w, Requant: compiler.AvgRequant(h * w)}
		note = "average of the plane: window sum times round(2^14/n), shift 14"
	case "GlobalMaxPool":
		p.KH, p.KW = h, w
		note = "max pooling of the whole plane"
	default:
		if len(n.Outputs) != 1 {
			return nil, nil, unsupportedf("%d outputs (argmax indices are not computed)", len(n.Outputs))
		}
		win, err := onnx.WindowOf(n, h, w, 0, 0)
		if err != nil {
			return nil, nil, unsupportedf("%v", err)
		}
		if win.SH != win.SW || win.Top != win.Bottom || win.Left != win.Right {
			return nil, nil, unsupportedf("strides %d,%d and pads %d,%d,%d,%d: the NPU pads symmetrically with one stride", win.SH, win.SW, win.Top, win.Left, win.Bottom, win.Right)
		}
		p.KH, p.KW, p.Stride, p.PadH, p.PadW = win.KH, win.KW, win.SH, win.Top, win.Left
		if n.OpType == "AveragePool" {
			if win.Top+win.Left > 0 && n.Int("count_include_pad", 0) == 0 {
				return nil, nil, unsupportedf("count_include_pad 0 with padding: the NPU divides every window by kh·kw")
			}
			p.Kind, p.Padding, p.Requant = golden.PoolAvg, golden.PadZero, compiler.AvgRequant(win.KH*win.KW)
			note = "window sum times round(2^14/(kh·kw)), shift 14"
		}
	}
	g := compiler.NewGraph()
	g.Output("y", g.Pool2D(g.Input("x", x), p))
	j, err := elementJob(base, g, want, note, x.Data)
	return j, nil, err
}

func eltTest(c *Case, base npu.Config) (*job, *Result, error) {
	n := c.Model.Graph.Nodes[0]
	x, err := tensor(c.input(0), "input "+n.Inputs[0])
	if err != nil {
		return nil, nil, err
	}
	want, err := tensor(c.Outputs[0], "expected output")
	if err != nil {
		return nil, nil, err
	}
	g := compiler.NewGraph()
	in := g.Input("x", x)
	values := [][]int64{x.Data}
	var note string
	switch n.OpType {
	case "Relu":
		g.Output("y", g.Requant(in, golden.Requant{Scale: 1, Relu: true}))
		note = "post-processor ReLU"
	case "Abs":
		g.Output("y", g.Abs(in, golden.Requant{Scale: 1}))
		note = "planar eltwise abs"
	case "Clip":
		lo, hi, err := clipBounds(c, n, x.Data)
		if err != nil {
			return nil, nil, err
		}
		g.Output("y", g.Requant(in, golden.Requant{Scale: 1, Clamp: true, Lo: lo, Hi: hi}))
		note = fmt.Sprintf("post-processor clamp %d..%d", lo, hi)
		values = append(values, []int64{lo, hi})
	case "Add", "Min", "Max":
		if len(n.Inputs) != 2 {
			return nil, nil, unsupportedf("the planar eltwise takes exactly two operands, the node has %d", len(n.Inputs))
		}
		b, err := tensor(c.input(1), "input "+n.Inputs[1])
		if err != nil {
			return nil, nil, err
		}
		if !slices.Equal(b.Shape, x.Shape) {
			return nil, nil, unsupportedf("shapes %v and %v: the NPU combines tensors of one shape (no broadcasting)", x.Shape, b.Shape)
		}
		fn := map[string]golden.EltOp{"Add": golden.EltAdd, "Min": golden.EltMin, "Max": golden.EltMax}[n.OpType]
		g.Output("y", g.Eltwise(fn, in, g.Input("b", b), golden.Requant{Scale: 1}))
		note = "planar eltwise " + fn.String()
		values = append(values, b.Data)
	}
	j, err := elementJob(base, g, want, note, values...)
	return j, nil, err
}

// clipBounds reads Clip's min and max (attributes before opset 11,
// optional inputs since), which must be integers; an absent bound is
// the data's own extreme, which clamps nothing.
func clipBounds(c *Case, n *onnx.Node, data []int64) (lo, hi int64, err error) {
	bound := func(i int, attr string, none int64) (int64, error) {
		if t := c.input(i); t != nil {
			b, err := ints(t, "Clip "+attr)
			if err != nil {
				return 0, err
			}
			return b[0], nil
		}
		if _, ok := n.Attrs[attr]; !ok {
			return none, nil
		}
		v := float64(n.Float(attr, 0))
		if v != math.Trunc(v) {
			return 0, unsupportedf("Clip %s %g is not an integer", attr, v)
		}
		return int64(v), nil
	}
	if lo, err = bound(1, "min", slices.Min(data)); err != nil {
		return 0, 0, err
	}
	if hi, err = bound(2, "max", slices.Max(data)); err != nil {
		return 0, 0, err
	}
	return lo, hi, nil
}

func transposeTest(c *Case, base npu.Config) (*job, *Result, error) {
	n := c.Model.Graph.Nodes[0]
	x, err := tensor(c.input(0), "input "+n.Inputs[0])
	if err != nil {
		return nil, nil, err
	}
	if perm := n.Ints("perm", nil); len(x.Shape) != 2 || (perm != nil && !slices.Equal(perm, []int64{1, 0})) {
		return nil, nil, unsupportedf("shape %v, perm %v: the NPU transposes matrices", x.Shape, perm)
	}
	want, err := tensor(c.Outputs[0], "expected output")
	if err != nil {
		return nil, nil, err
	}
	g := compiler.NewGraph()
	g.Output("y", g.Transpose(g.Input("x", x)))
	j, err := elementJob(base, g, want, "on-chip transpose through the PE array", x.Data)
	return j, nil, err
}

func viewTest(c *Case, _ npu.Config) (*job, *Result, error) {
	return nil, nil, unsupportedf("a reshape of a graph input moves no data: the host reads the same bytes with another shape")
}

// quantizeTest runs QuantizeLinear on the host's conversion.
func quantizeTest(c *Case, _ npu.Config) (*job, *Result, error) {
	x := c.input(0)
	if x.DType != onnx.Float32 {
		return nil, nil, unsupportedf("input of type %s", x.DType)
	}
	zpT := c.input(2)
	outType := onnx.Uint8
	if zpT != nil {
		outType = zpT.DType
	}
	lo, hi, err := outRange(outType)
	if err != nil {
		return nil, nil, err
	}
	axisLen, inner, err := perAxis(c, c.input(1), x.Dims)
	if err != nil {
		return nil, nil, err
	}
	sc, err := scales(c.input(1), axisLen, "y scale")
	if err != nil {
		return nil, nil, err
	}
	zp, err := zeroPoint(zpT, axisLen, "y zero point")
	if err != nil {
		return nil, nil, err
	}
	got := &golden.Tensor{Shape: []int{len(x.Float32)}, Data: make([]int64, len(x.Float32))}
	for i, v := range x.Float32 {
		a := (i / inner) % axisLen
		got.Data[i] = quant.QuantizeLinear(v, float32(sc[a]), zp[a], lo, hi)
	}
	want, err := tensor(c.Outputs[0], "expected output")
	if err != nil {
		return nil, nil, err
	}
	st, detail := compare(got, want)
	if st == Pass {
		st = Host
	}
	return nil, &Result{Status: st, Detail: "quant.QuantizeLinear, the host's float → int conversion; " + detail}, nil
}

// dequantizeTest runs DequantizeLinear on the host's conversion.
func dequantizeTest(c *Case, _ npu.Config) (*job, *Result, error) {
	x, err := ints(c.input(0), "input")
	if err != nil {
		return nil, nil, err
	}
	axisLen, inner, err := perAxis(c, c.input(1), c.input(0).Dims)
	if err != nil {
		return nil, nil, err
	}
	sc, err := scales(c.input(1), axisLen, "x scale")
	if err != nil {
		return nil, nil, err
	}
	zp, err := zeroPoint(c.input(2), axisLen, "x zero point")
	if err != nil {
		return nil, nil, err
	}
	want := c.Outputs[0].Float32
	if len(want) != len(x) {
		return nil, nil, fmt.Errorf("expected %d values, the input has %d", len(want), len(x))
	}
	bad := 0
	for i, q := range x {
		a := (i / inner) % axisLen
		if quant.DequantizeLinear(q, float32(sc[a]), zp[a]) != want[i] {
			bad++
		}
	}
	r := &Result{Status: Host, Detail: fmt.Sprintf("quant.DequantizeLinear, the host's int → float conversion; %d elements exact", len(x))}
	if bad > 0 {
		r.Status, r.Detail = Fail, fmt.Sprintf("quant.DequantizeLinear: %d of %d elements differ", bad, len(x))
	}
	return nil, r, nil
}

// perAxis is the length of the quantization axis and the number of
// elements after it, for a per-axis scale (axis attribute, default 1),
// or 1 and 1 for a per-tensor one.
func perAxis(c *Case, scale *onnx.Tensor, dims []int64) (axisLen, inner int, err error) {
	if scale == nil || len(scale.Float32) <= 1 {
		return 1, 1, nil
	}
	axis := int(c.Model.Graph.Nodes[0].Int("axis", 1))
	if axis < 0 {
		axis += len(dims)
	}
	if axis < 0 || axis >= len(dims) {
		return 0, 0, unsupportedf("axis %d of a rank-%d tensor", axis, len(dims))
	}
	inner = 1
	for _, d := range dims[axis+1:] {
		inner *= int(d)
	}
	return int(dims[axis]), inner, nil
}
