package npu

import (
	"strings"
	"testing"

	"github.com/hwgen/hwgen/hdl"
)

// TestPassages keeps the NPU's combinational paths between blocks
// short: a valid/ready handshake passes at most one block on its way
// (the arbiter in a buffer or in front of external memory, whose ready
// follows the requests), and what passes two ends in a flag register
// at once (the engines' stall flags, registered before they are
// counted), never in a counter or another block. One exception, left as
// it is: with descriptor rings, dma_in's and the descriptor fetch's
// reads meet in the read mux before the external arbiter, two arbiters
// in series on the external port, requests and responses (a register
// slice between them would cost every external read a cycle). Elaboration only, so the
// variants are cheap.
func TestPassages(t *testing.T) {
	variants := []struct {
		name string
		set  func(*Config)
	}{
		{"default", func(*Config) {}},
		{"two engines", func(c *Config) { c.Engines = 2 }},
		{"sparse", func(c *Config) { c.SparseUnits = 2 }},
		{"rings, gating, networks", func(c *Config) { c.DescRingBits = 3; c.PartialGating = true; c.Networks = 2 }},
		{"read ports", func(c *Config) { c.DMAReadPort, c.PsumReadPort = true, true }},
		{"planar read port", func(c *Config) { c.PlanarReadPort = true }},
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			c := DefaultConfig()
			v.set(&c)
			m, err := Build(c)
			if err != nil {
				t.Fatal(err)
			}
			d := hdl.MustElaborate(m)
			regs := map[string]map[string]int{} // module → register → width
			for _, mod := range d.Modules {
				regs[mod.Name] = map[string]int{}
				for _, s := range mod.Signals {
					if s.Kind == hdl.Reg {
						regs[mod.Name][s.Name] = s.Type.Width
					}
				}
			}
			for _, p := range hdl.Passages(d, 2) {
				var steps []string
				for _, s := range p.Through {
					if !strings.HasPrefix(s, "xrmux[") {
						steps = append(steps, s)
					}
				}
				if len(steps) < 2 {
					continue
				}
				to := strings.TrimSuffix(p.To, " (enable)")
				if len(steps) > 2 || regs[p.Module][to] != 1 || to != p.To {
					t.Errorf("%s passes %d blocks and ends at %s: want at most one, or two into a flag register", p, len(steps), p.To)
				}
			}
		})
	}
}
