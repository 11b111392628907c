package ppa

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/toolchain"
)

// yosys runs a Yosys script in dir; the log is kept there as name.log.
func yosys(dir, name string, script []string) error {
	path := filepath.Join(dir, name+".ys")
	if err := os.WriteFile(path, []byte(strings.Join(script, "\n")+"\n"), 0o644); err != nil {
		return fmt.Errorf("ppa: %w", err)
	}
	out, err := toolchain.Run(dir, "yosys", "-q", "-l", name+".log", "-s", name+".ys")
	if err != nil {
		return fmt.Errorf("yosys %s (log %s): %w", name, filepath.Join(dir, name+".log"), lastLines(err, out))
	}
	return nil
}

// lastLines keeps the end of a tool's output: the error is there.
func lastLines(err error, out string) error {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) > 8 {
		lines = lines[len(lines)-8:]
	}
	return fmt.Errorf("%v: %s", firstLine(err.Error()), strings.Join(lines, "\n"))
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

// readVerilog reads the design's files (and more) into Yosys. State
// registers keep the design's encoding and so its names (fsm_encoding
// none): Yosys would otherwise re-encode them under names of its own,
// and a critical path would end at "$abc$…fsm_map…".
func readVerilog(files ...string) string {
	return "read_verilog -sv " + strings.Join(files, " ") + "\n" + `setattr -set fsm_encoding "none" w:*`
}

// stat is Yosys's stat -json for one module.
type stat struct {
	Cells  int            `json:"num_cells"`
	ByType map[string]int `json:"num_cells_by_type"`
}

func readStat(dir, module string) (stat, error) {
	b, err := os.ReadFile(filepath.Join(dir, "stat.json"))
	if err != nil {
		return stat{}, fmt.Errorf("ppa: %w", err)
	}
	var s struct {
		Modules map[string]stat `json:"modules"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return stat{}, fmt.Errorf("ppa: stat.json: %w", err)
	}
	m, ok := s.Modules["\\"+module]
	if !ok {
		return stat{}, fmt.Errorf("ppa: stat.json has no module %s", module)
	}
	return m, nil
}

// flipFlops counts the flip-flop cells of a stat, generic ($_DFF*,
// $_SDFF*, …) or iCE40 (SB_DFF*).
func (s stat) flipFlops() int {
	n := 0
	for t, c := range s.ByType {
		if strings.Contains(t, "DFF") {
			n += c
		}
	}
	return n
}

var ltpRE = regexp.MustCompile(`Longest topological path in \S+ \(length=(\d+)\):`)

// ltpNodeRE is a node of ltp's path: "12: \\acc [3] (via $abc$…)", and
// "ff: \\nec.phase [0] (via …)" for the flip-flop it ends at.
var ltpNodeRE = regexp.MustCompile(`^\s*(\d+|ff): (.*)$`)

// generic is the technology-independent synthesis: the fine stages of
// synth without memory_map, so memories stay memory cells.
func generic(d *hdl.Design, files []string, opt Options, r *Result) error {
	top := d.Top.Name
	script := []string{
		readVerilog(files...),
		"synth -flatten -top " + top + " -run :fine",
		"opt -fast -full", "techmap", "opt -fast", "abc -fast", "opt -fast",
		"tee -q -o stat.json stat -json",
		"write_json net.json",
		// A memory's reads are registered: it ends and starts paths.
		"delete t:$mem_v2",
		"abc -g AND,NAND,OR,NOR,XOR,XNOR,MUX", "opt_clean",
		"tee -q -o ltp.txt ltp -noff",
		"write_json ltp.json",
	}
	if err := yosys(opt.Dir, "generic", script); err != nil {
		return err
	}
	s, err := readStat(opt.Dir, top)
	if err != nil {
		return err
	}
	r.Cells, r.FFs = s.Cells, s.flipFlops()
	r.Memories = s.ByType["$mem_v2"]
	nl, err := readNetlist(opt.Dir, "net.json", top, "")
	if err != nil {
		return err
	}
	r.MemoryBits = nl.memoryBits()
	// The path's nets, named as the design names them.
	if nl, err = readNetlist(opt.Dir, "ltp.json", top, ""); err != nil {
		return err
	}
	for _, p := range d.Top.Ports {
		nl.ports[p.Name] = true
	}
	b, err := os.ReadFile(filepath.Join(opt.Dir, "ltp.txt"))
	if err != nil {
		return fmt.Errorf("ppa: %w", err)
	}
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		m := ltpRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		r.LogicDepth, _ = strconv.Atoi(m[1])
		var nodes []string
		ends := false
		for _, n := range lines[i+1:] {
			nm := ltpNodeRE.FindStringSubmatch(n)
			if nm == nil {
				break
			}
			node, _, _ := strings.Cut(nm[2], " (via ")
			nodes = append(nodes, yosysName(node))
			ends = nm[1] == "ff"
		}
		if len(nodes) > 0 {
			if bit, ok := nl.netBit(nodes[0]); ok {
				if n := nl.bitName(bit); n != "" {
					nodes[0] = n
				}
			}
			// Without the flip-flop line the last net is the D input of
			// the register the path ends at.
			if bit, ok := nl.netBit(nodes[len(nodes)-1]); ok && !ends {
				if n := nl.endName(bit); n != "" {
					nodes[len(nodes)-1] = n
				}
			}
		}
		if len(nodes) > 0 {
			r.Critical = &Path{From: nodes[0], To: nodes[len(nodes)-1], Levels: r.LogicDepth}
		}
		break
	}
	return nil
}

// yosysName is a Yosys signal name as the design spells it: "\acc [3]"
// is acc[3].
func yosysName(s string) string {
	s = strings.TrimPrefix(strings.TrimSpace(s), "\\")
	return strings.ReplaceAll(s, " [", "[")
}

// fpga synthesizes the wrapped design for an iCE40 and places and routes
// it once per seed.
func fpga(d *hdl.Design, files []string, dev Device, opt Options, r *Result) error {
	top := d.Top.Name
	if err := os.WriteFile(filepath.Join(opt.Dir, WrapperName+".v"), []byte(Wrapper(d)), 0o644); err != nil {
		return fmt.Errorf("ppa: %w", err)
	}
	synth := "synth_ice40 -top " + WrapperName
	if dev.synthDSP && !opt.NoDSP {
		synth += " -dsp"
	}
	script := []string{
		readVerilog(append(files, WrapperName+".v")...),
		"hierarchy -top " + WrapperName,
		// The design keeps its boundary so its own figures can be read.
		"setattr -mod -set keep_hierarchy 1 " + top,
		synth,
		"tee -q -o stat.json stat -json",
		"setattr -mod -unset keep_hierarchy " + top,
		"flatten", "opt_clean",
		"write_json net.json",
	}
	if err := yosys(opt.Dir, "ice40", script); err != nil {
		return err
	}
	s, err := readStat(opt.Dir, top)
	if err != nil {
		return err
	}
	r.Cells, r.FFs = s.Cells, s.flipFlops()
	r.LUTs, r.Carries = s.ByType["SB_LUT4"], s.ByType["SB_CARRY"]
	r.BRAM, r.DSP = s.ByType["SB_RAM40_4K"], s.ByType["SB_MAC16"]
	for _, c := range []struct {
		what      string
		need, has int
	}{
		{"logic cells (at least one per LUT4)", r.LUTs, dev.LCs},
		{"logic cells (at least one per flip-flop)", r.FFs, dev.LCs},
		{"block RAMs (SB_RAM40_4K)", r.BRAM, dev.BRAMs},
		{"DSP blocks (SB_MAC16)", r.DSP, dev.DSPs},
	} {
		if c.need > c.has {
			nf := &NotFitError{Device: dev.Name, Resource: c.what, Needed: c.need, Available: c.has}
			if strings.HasPrefix(c.what, "DSP") {
				nf.Hint = "--no-dsp maps the multipliers to LUTs"
			}
			return nf
		}
	}
	nl, err := readNetlist(opt.Dir, "net.json", WrapperName, "dut.")
	if err != nil {
		return err
	}
	for _, p := range d.Top.Ports {
		nl.ports[p.Name] = true
	}
	return placeAndRoute(dev, opt, nl, r)
}
