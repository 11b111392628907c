package systolic

import (
	"fmt"

	"github.com/hwgen/hwgen/hdl"
)

// chain is a delay line: stage j (1-based) holds the value that entered j
// cycles ago. A stage with an enable holds instead of shifting while its
// enable is 0, so a line of data whose slot is empty does not toggle.
type chain struct {
	stages []*hdl.Expr // stages[0] is the input, stages[j] the output of register j
}

// at is the value delayed by j cycles.
func (c chain) at(j int) *hdl.Expr { return c.stages[j] }

// newChain builds n registers named name_1 … name_n behind in. en(j), if
// not nil, is the enable of register j (loading stage j-1's value).
func newChain(m *hdl.Module, name string, in *hdl.Expr, n int, init int64, en func(j int) *hdl.Expr) chain {
	c := chain{stages: []*hdl.Expr{in}}
	for j := 1; j <= n; j++ {
		r := m.Reg(fmt.Sprintf("%s_%d", name, j), in.Type, init)
		r.SetNext(c.stages[j-1])
		if en != nil {
			r.SetEnable(en(j))
		}
		c.stages = append(c.stages, &r.Expr)
	}
	return c
}
