package lower

import (
	"fmt"
	"math"

	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/golden"
)

// This file lowers the elementwise activations that are no planar
// function of their own onto the planar engine's lookup table
// (compiler.Graph.Lookup): the table of the float function between the
// input's scale and the output's calibrated scale (golden.TableOf), one
// entry per int8 value, so every output is the exactly rounded f of its
// int8 input (within half an output step of f(x̂), x̂ the quantized
// input).

// tableFuncs are the float functions of the ops lowered through the
// table, with the node's attributes (the spec's defaults), as the float
// executor computes them.
var tableFuncs = map[string]func(n *onnx.Node) func(float64) float64{
	"Sigmoid": func(*onnx.Node) func(float64) float64 {
		return func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
	},
	"Tanh": func(*onnx.Node) func(float64) float64 { return math.Tanh },
	"Exp":  func(*onnx.Node) func(float64) float64 { return math.Exp },
	"HardSigmoid": func(n *onnx.Node) func(float64) float64 {
		a, b := float64(n.Float("alpha", 0.2)), float64(n.Float("beta", 0.5))
		return func(v float64) float64 { return max(0, min(1, a*v+b)) }
	},
	"HardSwish": func(*onnx.Node) func(float64) float64 {
		return func(v float64) float64 { return v * min(max(v/6+0.5, 0), 1) }
	},
	"Elu": func(n *onnx.Node) func(float64) float64 {
		a := float64(n.Float("alpha", 1))
		return func(v float64) float64 {
			if v < 0 {
				return a * math.Expm1(v)
			}
			return v
		}
	},
	"LeakyRelu": func(n *onnx.Node) func(float64) float64 {
		a := float64(n.Float("alpha", 0.01))
		return func(v float64) float64 {
			if v < 0 {
				return a * v
			}
			return v
		}
	},
}

func init() {
	for op := range tableFuncs {
		lowerings[op] = (*lowering).table
	}
}

// table lowers an activation of tableFuncs to a lookup of its table from
// the input's scale to the output's calibrated scale.
func (l *lowering) table(n *onnx.Node) error {
	in, sx, err := l.input(n)
	if err != nil {
		return err
	}
	return l.lookupOf(n, in, sx, tableFuncs[n.OpType](n))
}

// lookupOf lowers n, the function f of the computed value in (scale sx),
// to a lookup of f's table to n's output's calibrated scale.
func (l *lowering) lookupOf(n *onnx.Node, in string, sx float64, f func(float64) float64) error {
	out := n.Outputs[0]
	sy, err := l.scaleOf(out)
	if err != nil {
		return err
	}
	t, err := golden.TableOf(f, sx, sy, golden.S(l.cfg.ElemWidth))
	if err != nil {
		return fmt.Errorf("the table of %s from scale %.4g to %.4g: %w", n.OpType, sx, sy, err)
	}
	l.net.Layers = append(l.net.Layers, Layer{Node: n.Name, InScale: sx, OutScale: sy})
	l.emit(in, out, sy, func(g *compiler.Graph, x *compiler.Value) *compiler.Value {
		return g.Lookup(x, t, golden.Requant{})
	})
	return nil
}
