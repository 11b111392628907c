// Package examples holds small designs built with the DSL. They exercise
// the whole flow (emit, simulate, cross-check) and serve as templates.
package examples

import (
	"fmt"
	"math/big"
	"sort"

	"github.com/hwgen/hwgen/hdl"
)

// Design is a named built-in example.
type Design struct {
	Name  string
	About string
	Build func() *hdl.Module
}

var registry = map[string]Design{}

func register(d Design) { registry[d.Name] = d }

func init() {
	register(Design{Name: "mac", About: "int8 x int8 multiply-accumulate into an int32 register, with clear and enable",
		Build: func() *hdl.Module { return MAC(hdl.SInt(8), hdl.SInt(32)) }})
	register(Design{Name: "array4", About: "4x4 weight-stationary int8 array (weights shift in from the top, psums flow down)",
		Build: func() *hdl.Module { return WSArray(4, 4, hdl.SInt(8), hdl.SInt(32)) }})
	register(Design{Name: "array16", About: "16x16 weight-stationary int8 array",
		Build: func() *hdl.Module { return WSArray(16, 16, hdl.SInt(8), hdl.SInt(32)) }})
}

// Names lists the built-in examples in sorted order.
func Names() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Lookup returns the example called name.
func Lookup(name string) (Design, error) {
	d, ok := registry[name]
	if !ok {
		return Design{}, fmt.Errorf("unknown design %q (built-in: %v)", name, Names())
	}
	return d, nil
}

// MAC multiplies a and b every enabled cycle and adds the product into acc;
// clear zeroes the accumulator (taking precedence over en).
func MAC(in, acc hdl.Type) *hdl.Module {
	m := hdl.NewModule(hdl.Name("mac", in, acc))
	a := m.Input("a", in)
	b := m.Input("b", in)
	en := m.Input("en", hdl.Bool)
	clear := m.Input("clear", hdl.Bool)
	r := m.Reg("acc", acc, 0)
	sum := r.Add(a.Mul(b)).Trunc(acc.Width)
	r.SetNext(hdl.Mux(clear, hdl.Const(acc, bigZero), sum))
	r.SetEnable(en.Or(clear))
	m.Output("y", acc).Set(r)
	return m
}

func bigOne(signed bool) *big.Int {
	if signed {
		return big.NewInt(-1)
	}
	return big.NewInt(1)
}
