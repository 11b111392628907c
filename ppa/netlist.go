package ppa

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// netlist is one module of Yosys's JSON netlist, indexed by bit: it turns
// the cell and net names nextpnr reports into the design's signal names.
type netlist struct {
	cells  map[string]ysCell
	nets   map[string]ysNet
	names  map[int][]string // bit → every visible net bit name ("dut.acc[3]")
	sinks  map[int][]string // bit → cells it drives
	ports  map[string]bool  // the design's ports: a register's own name is preferred to them
	prefix string           // the design's instance in the netlist ("dut." in the wrapper)
}

type ysCell struct {
	Type        string            `json:"type"`
	Parameters  map[string]any    `json:"parameters"`
	Directions  map[string]string `json:"port_directions"`
	Connections map[string][]any  `json:"connections"`
}

type ysNet struct {
	Hide   int   `json:"hide_name"`
	Bits   []any `json:"bits"`
	Offset int   `json:"offset"`
}

func readNetlist(dir, file, module, prefix string) (*netlist, error) {
	b, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		return nil, fmt.Errorf("ppa: %w", err)
	}
	var j struct {
		Modules map[string]struct {
			Cells    map[string]ysCell `json:"cells"`
			Netnames map[string]ysNet  `json:"netnames"`
		} `json:"modules"`
	}
	if err := json.Unmarshal(b, &j); err != nil {
		return nil, fmt.Errorf("ppa: %s: %w", file, err)
	}
	m, ok := j.Modules[module]
	if !ok {
		return nil, fmt.Errorf("ppa: %s has no module %s", file, module)
	}
	nl := &netlist{cells: m.Cells, nets: m.Netnames, names: map[int][]string{}, sinks: map[int][]string{}, ports: map[string]bool{}, prefix: prefix}
	for name, n := range m.Netnames {
		if n.Hide != 0 {
			continue
		}
		for i, bit := range n.Bits {
			if id, ok := bitID(bit); ok {
				s := name
				if len(n.Bits) > 1 {
					s = fmt.Sprintf("%s[%d]", name, i+n.Offset)
				}
				nl.names[id] = append(nl.names[id], s)
			}
		}
	}
	for name, c := range m.Cells {
		for port, bits := range c.Connections {
			if c.Directions[port] != "input" {
				continue
			}
			for _, bit := range bits {
				if id, ok := bitID(bit); ok {
					nl.sinks[id] = append(nl.sinks[id], name)
				}
			}
		}
	}
	return nl, nil
}

// bitID is a net bit's number; constants ("0", "1", "x") have none.
func bitID(b any) (int, bool) {
	f, ok := b.(float64)
	return int(f), ok
}

// memoryBits sums the bits of the memory cells.
func (nl *netlist) memoryBits() int {
	n := 0
	for _, c := range nl.cells {
		if c.Type == "$mem_v2" {
			n += param(c.Parameters["SIZE"]) * param(c.Parameters["WIDTH"])
		}
	}
	return n
}

// param reads a Yosys JSON parameter: a binary string or a number.
func param(v any) int {
	switch p := v.(type) {
	case float64:
		return int(p)
	case string:
		n, _ := strconv.ParseInt(p, 2, 64)
		return int(n)
	}
	return 0
}

// netBit is the bit a nextpnr net name ("dut.x[3]", "dut.y") stands for.
func (nl *netlist) netBit(net string) (int, bool) {
	name, idx := net, 0
	if i := strings.LastIndexByte(net, '['); i > 0 && strings.HasSuffix(net, "]") {
		if n, err := strconv.Atoi(net[i+1 : len(net)-1]); err == nil {
			name, idx = net[:i], n
		}
	}
	n, ok := nl.nets[name]
	if !ok {
		return 0, false
	}
	if idx -= n.Offset; idx < 0 || idx >= len(n.Bits) {
		return 0, false
	}
	return bitID(n.Bits[idx])
}

// bitName is the best name of a bit in the design's terms: a name inside
// the design (prefix "dut.", dropped) before the wrapper's; a named
// signal (a register) before a port, a port before an emitter temporary
// (_add6); and among those the shortest.
func (nl *netlist) bitName(bit int) string {
	names := append([]string(nil), nl.names[bit]...)
	if len(names) == 0 {
		return ""
	}
	rank := func(s string) int {
		base, _, _ := strings.Cut(strings.TrimPrefix(s, nl.prefix), "[")
		leaf := base[strings.LastIndexByte(base, '.')+1:]
		switch {
		case !strings.HasPrefix(s, nl.prefix):
			return 3
		case strings.HasPrefix(leaf, "_"): // the emitter's temporaries (_add6)
			return 2
		case nl.ports[base]:
			return 1
		}
		return 0
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := names[i], names[j]
		if rank(a) != rank(b) {
			return rank(a) < rank(b)
		}
		if len(a) != len(b) {
			return len(a) < len(b)
		}
		return a < b
	})
	if rank(names[0]) < 3 {
		return strings.TrimPrefix(names[0], nl.prefix)
	}
	return "wrapper " + names[0]
}

// regName names what a nextpnr cell (a logic cell or a RAM) ends a path
// at: the register it holds, found through the Yosys cell it was packed
// from (a LUT feeding a flip-flop, or a lone flip-flop).
func (nl *netlist) regName(cell string) string {
	base := strings.TrimSuffix(strings.TrimSuffix(cell, "_LC"), "_DFFLC")
	c, ok := nl.cells[base]
	if !ok {
		return strings.TrimPrefix(cell, nl.prefix)
	}
	if strings.Contains(c.Type, "DFF") {
		if n := nl.output(c, "Q"); n != "" {
			return n
		}
	}
	if bits := c.Connections["O"]; len(bits) == 1 {
		if id, ok := bitID(bits[0]); ok {
			if n := nl.endName(id); n != "" {
				return n
			}
		}
	}
	return strings.TrimPrefix(base, nl.prefix)
}

// endName names the end of a path whose last net is bit: the register
// the bit is the D input of, else the bit's own name.
func (nl *netlist) endName(bit int) string {
	for _, s := range nl.sinks[bit] {
		ff := nl.cells[s]
		if d := ff.Connections["D"]; strings.Contains(ff.Type, "DFF") && len(d) == 1 {
			if id, ok := bitID(d[0]); ok && id == bit {
				if n := nl.output(ff, "Q"); n != "" {
					return n
				}
			}
		}
	}
	return nl.bitName(bit)
}

// output is the name of a one-bit output of a cell.
func (nl *netlist) output(c ysCell, port string) string {
	if bits := c.Connections[port]; len(bits) == 1 {
		if id, ok := bitID(bits[0]); ok {
			return nl.bitName(id)
		}
	}
	return ""
}
