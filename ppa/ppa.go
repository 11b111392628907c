package ppa

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/verilog"
)

// Device is an FPGA target: how nextpnr is told about it and what it has.
type Device struct {
	Name     string
	Flag     string // nextpnr-ice40's device flag
	Package  string
	LCs      int // logic cells: one LUT4 and one flip-flop each
	BRAMs    int // SB_RAM40_4K
	DSPs     int // SB_MAC16
	synthDSP bool
}

// Generic is the technology-independent target.
const Generic = "generic"

// Devices are the FPGA targets (iCE40 data sheet figures).
var Devices = map[string]Device{
	"ice40-hx8k": {Name: "ice40-hx8k", Flag: "--hx8k", Package: "ct256", LCs: 7680, BRAMs: 32},
	"ice40-up5k": {Name: "ice40-up5k", Flag: "--up5k", Package: "sg48", LCs: 5280, BRAMs: 30, DSPs: 8, synthDSP: true},
}

// Targets lists every target name.
func Targets() []string {
	t := []string{Generic}
	for n := range Devices {
		t = append(t, n)
	}
	sort.Strings(t[1:])
	return t
}

// Options say where and how to measure.
type Options struct {
	Target  string
	Seeds   int     // nextpnr placer seeds 1..Seeds (FPGA targets)
	FreqMHz float64 // the target frequency nextpnr's timing-driven placement aims at
	Dir     string  // work directory: Verilog, netlists, logs
	NoDSP   bool    // map multipliers to LUTs even on a device with DSP blocks
	// Breakdown adds a synthesis that keeps module boundaries and splits
	// the area by the top's instances (Result.Parts).
	Breakdown bool
}

// Path is a critical path.
type Path struct {
	From        string  `json:"from"`                  // where it starts: a register or input, by the design's name
	To          string  `json:"to"`                    // where it ends
	Levels      int     `json:"levels"`                // logic elements (gates, or LUTs and carries) on it
	DelayNS     float64 `json:"delay_ns,omitempty"`    // FPGA targets: the routed path delay
	Description string  `json:"description,omitempty"` // which run the path is from
}

// Result are the figures of one design on one target. Area counts are
// the design's own (without the wrapper).
type Result struct {
	Design string `json:"design"`
	Target string `json:"target"`

	Cells      int `json:"cells"`                 // every cell after synthesis
	LUTs       int `json:"luts,omitempty"`        // FPGA: SB_LUT4
	Carries    int `json:"carries,omitempty"`     // FPGA: SB_CARRY
	FFs        int `json:"ffs"`                   // flip-flops
	Memories   int `json:"memories,omitempty"`    // generic: memory cells
	MemoryBits int `json:"memory_bits,omitempty"` // generic: their bits
	BRAM       int `json:"bram,omitempty"`        // FPGA: SB_RAM40_4K
	DSP        int `json:"dsp,omitempty"`         // FPGA: SB_MAC16

	LogicDepth int `json:"logic_depth,omitempty"` // generic: the longest path in simple gates

	// FPGA targets.
	LCsUsed      int       `json:"lcs_used,omitempty"` // logic cells of the placed wrapped design
	LCsAvailable int       `json:"lcs_available,omitempty"`
	FmaxMHz      float64   `json:"fmax_mhz,omitempty"` // median over the seeds
	SeedFmaxMHz  []float64 `json:"seed_fmax_mhz,omitempty"`

	Critical *Path `json:"critical_path,omitempty"`

	// With Options.Breakdown: the area of each of the top's instances
	// and of its own logic, largest first, from an unflattened synthesis.
	Parts []Part `json:"parts,omitempty"`
}

// NotFitError says a design does not fit a device: which resource and by
// how much.
type NotFitError struct {
	Device            string
	Resource          string
	Needed, Available int
	Detail            string
	Hint              string // what to try instead
}

func (e *NotFitError) Error() string {
	if e.Detail != "" {
		return fmt.Sprintf("does not fit %s: %s", e.Device, e.Detail)
	}
	msg := fmt.Sprintf("does not fit %s: needs %d %s, the device has %d (over by %d)", e.Device, e.Needed, e.Resource, e.Available, e.Needed-e.Available)
	if e.Hint != "" {
		msg += "; " + e.Hint
	}
	return msg
}

// ErrUnknownTarget is returned for a target not in Targets.
var ErrUnknownTarget = errors.New("unknown target")

// Measure synthesizes d (and places and routes it on an FPGA target) in
// opt.Dir and returns its figures.
func Measure(d *hdl.Design, opt Options) (*Result, error) {
	if opt.Target != Generic {
		if _, ok := Devices[opt.Target]; !ok {
			return nil, fmt.Errorf("%w %q (allowed: %s)", ErrUnknownTarget, opt.Target, strings.Join(Targets(), ", "))
		}
	}
	var files []string
	for _, f := range verilog.Emit(d) {
		if !strings.HasSuffix(f.Name, ".v") {
			continue
		}
		files = append(files, f.Name)
		if err := os.WriteFile(filepath.Join(opt.Dir, f.Name), f.Data, 0o644); err != nil {
			return nil, fmt.Errorf("ppa: %w", err)
		}
	}
	r := &Result{Design: d.Top.Name, Target: opt.Target}
	if opt.Breakdown {
		// First: a design that does not fit still gets its split.
		parts, err := breakdown(d, files, opt)
		if err != nil {
			return r, err
		}
		r.Parts = parts
	}
	if opt.Target == Generic {
		return r, generic(d, files, opt, r)
	}
	return r, fpga(d, files, Devices[opt.Target], opt, r)
}
