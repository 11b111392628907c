package verify

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/hwgen/hwgen/hdl"
)

// coverageJSON is Coverage as JSON: the op cells, whose key is a struct,
// become a list in table order, with the operator and width class by name,
// so a shard of a campaign can write its coverage and a merge add it up.
type coverageJSON struct {
	Designs    int               `json:"designs"`
	Cycles     int               `json:"cycles"`
	Nodes      int               `json:"nodes"`
	Folded     int               `json:"folded"`
	Ops        []opCountJSON     `json:"ops"`
	Widths     map[int]int       `json:"widths"`
	Constructs map[string]int    `json:"constructs"`
	Avoided    map[Construct]int `json:"avoided"`
}

type opCountJSON struct {
	Op     string `json:"op"`
	Class  string `json:"class"`
	Signed bool   `json:"signed"`
	N      int    `json:"n"`
}

// MarshalJSON writes the tally deterministically (cells in table order,
// maps with sorted keys).
func (c *Coverage) MarshalJSON() ([]byte, error) {
	j := coverageJSON{Designs: c.Designs, Cycles: c.Cycles, Nodes: c.Nodes, Folded: c.Folded,
		Ops: []opCountJSON{}, Widths: c.Widths, Constructs: c.Constructs, Avoided: c.Avoided}
	cells := make([]OpCell, 0, len(c.Ops))
	for cell := range c.Ops {
		cells = append(cells, cell)
	}
	sort.Slice(cells, func(a, b int) bool {
		x, y := cells[a], cells[b]
		if x.Op != y.Op {
			return x.Op < y.Op
		}
		if x.Class != y.Class {
			return x.Class < y.Class
		}
		return !x.Signed && y.Signed
	})
	for _, cell := range cells {
		j.Ops = append(j.Ops, opCountJSON{Op: cell.Op.String(), Class: cell.Class.String(), Signed: cell.Signed, N: c.Ops[cell]})
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (c *Coverage) UnmarshalJSON(b []byte) error {
	var j coverageJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	ops := map[string]hdl.Op{}
	for _, op := range AllOps() {
		ops[op.String()] = op
	}
	classes := map[string]WidthClass{}
	for cl := W1; cl < numWidthClasses; cl++ {
		classes[cl.String()] = cl
	}
	*c = *NewCoverage()
	c.Designs, c.Cycles, c.Nodes, c.Folded = j.Designs, j.Cycles, j.Nodes, j.Folded
	for _, o := range j.Ops {
		op, ok := ops[o.Op]
		if !ok {
			return fmt.Errorf("coverage: unknown operator %q", o.Op)
		}
		cl, ok := classes[o.Class]
		if !ok {
			return fmt.Errorf("coverage: unknown width class %q", o.Class)
		}
		c.Ops[OpCell{Op: op, Class: cl, Signed: o.Signed}] += o.N
	}
	for k, v := range j.Widths {
		c.Widths[k] = v
	}
	for k, v := range j.Constructs {
		c.Constructs[k] = v
	}
	for k, v := range j.Avoided {
		c.Avoided[k] = v
	}
	return nil
}
