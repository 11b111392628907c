package ppa

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/hwgen/hwgen/hdl"
)

// TopPart names the top module's own logic in a breakdown: what is not
// inside any of its instances.
const TopPart = "(top)"

// Part is the area of one instance of the top module, with everything
// inside it, or of the top's own logic (Instance TopPart). The counts
// are those of Result for the same target.
type Part struct {
	Instance string `json:"instance"`
	Module   string `json:"module"`
	Cells    int    `json:"cells"`
	LUTs     int    `json:"luts,omitempty"`
	Carries  int    `json:"carries,omitempty"`
	FFs      int    `json:"ffs"`
	Memories int    `json:"memories,omitempty"` // generic: memory cells
	BRAM     int    `json:"bram,omitempty"`
	DSP      int    `json:"dsp,omitempty"`
}

func (p *Part) add(s stat) {
	p.Cells += s.Cells
	p.LUTs += s.ByType["SB_LUT4"]
	p.Carries += s.ByType["SB_CARRY"]
	p.FFs += s.flipFlops()
	p.Memories += s.ByType["$mem_v2"]
	p.BRAM += s.ByType["SB_RAM40_4K"]
	p.DSP += s.ByType["SB_MAC16"]
}

// breakdown synthesizes d once more, this time keeping every module
// boundary, and splits the area by the top's instances, largest first.
// Nothing is optimized across a boundary in this run, so the parts add
// up to somewhat more than the flattened figures of Result; the split,
// not the sum, is what it is for: where the cells of a design that does
// not fit are.
func breakdown(d *hdl.Design, files []string, opt Options) ([]Part, error) {
	top := d.Top.Name
	script := []string{readVerilog(files...)}
	if opt.Target == Generic {
		script = append(script, "synth -top "+top+" -run :fine", "opt -fast -full", "techmap", "opt -fast", "abc -fast", "opt -fast")
	} else {
		synth := "synth_ice40 -noflatten -top " + top
		if Devices[opt.Target].synthDSP && !opt.NoDSP {
			synth += " -dsp"
		}
		script = append(script, synth)
	}
	script = append(script, "tee -q -o parts.json stat -json")
	if err := yosys(opt.Dir, "parts", script); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(opt.Dir, "parts.json"))
	if err != nil {
		return nil, fmt.Errorf("ppa: %w", err)
	}
	var st struct {
		Modules map[string]stat `json:"modules"`
	}
	if err := json.Unmarshal(statJSON(b), &st); err != nil {
		return nil, fmt.Errorf("ppa: parts.json: %w", err)
	}
	// addOwn adds a module's own cells to p. Its stat counts each of its
	// instances as one cell of the instance's module type; those cells
	// are left out (whole adds what is inside them instead).
	addOwn := func(m *hdl.Module, p *Part) error {
		s, ok := st.Modules["\\"+m.Name]
		if !ok {
			return fmt.Errorf("ppa: parts.json has no module %s", m.Name)
		}
		p.add(s)
		p.Cells -= len(m.Insts)
		return nil
	}
	var whole func(m *hdl.Module, p *Part) error
	whole = func(m *hdl.Module, p *Part) error {
		if err := addOwn(m, p); err != nil {
			return err
		}
		for _, in := range m.Insts {
			if err := whole(in.Module, p); err != nil {
				return err
			}
		}
		return nil
	}
	self := Part{Instance: TopPart, Module: top}
	if err := addOwn(d.Top, &self); err != nil {
		return nil, err
	}
	parts := []Part{self}
	for _, in := range d.Top.Insts {
		p := Part{Instance: in.Name, Module: in.Module.Name}
		if err := whole(in.Module, &p); err != nil {
			return nil, err
		}
		parts = append(parts, p)
	}
	sort.SliceStable(parts, func(i, j int) bool {
		if parts[i].LUTs != parts[j].LUTs {
			return parts[i].LUTs > parts[j].LUTs
		}
		return parts[i].Cells > parts[j].Cells
	})
	return parts, nil
}

// statJSON mends Yosys 0.23's stat -json of a hierarchy more than one
// level deep: it prints the hierarchy's lower levels as plain text lines
// ("    sa_pe_s8_s8_s32_zs      16") into the JSON. Every line of the JSON
// proper has a quote or a brace; the others are dropped.
func statJSON(b []byte) []byte {
	var out [][]byte
	for _, l := range bytes.Split(b, []byte("\n")) {
		if bytes.ContainsAny(l, "\"{}") {
			out = append(out, l)
		}
	}
	return bytes.Join(out, []byte("\n"))
}
