package workload

import (
	"fmt"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/compiler/sparseconv"
	"github.com/hwgen/hwgen/golden"
)

// DefaultSparseUnits is the sparse engine's compute units when a conv2d
// goes to the sparse engine of an NPU configured without one.
const DefaultSparseUnits = 4

// SparseConfig is cfg with the sparse engine: units compute units if
// units is not 0, else the configuration's, else DefaultSparseUnits. The
// error is cfg.Validate's.
func SparseConfig(cfg npu.Config, units int) (npu.Config, error) {
	if units != 0 {
		cfg.SparseUnits = units
	}
	if cfg.SparseUnits == 0 {
		cfg.SparseUnits = DefaultSparseUnits
	}
	return cfg, cfg.Validate()
}

// SparseConv is the convolution of a conv2d workload as the sparse
// engine computes it (no requantization: its results are the int32 sums).
func (w Workload) SparseConv() sparseconv.Conv {
	pad := 0
	if w.Pad != nil {
		pad = *w.Pad
	}
	return sparseconv.Conv{C: w.C, H: w.H, W: w.W, Cout: w.Cout, KH: w.Kernel, KW: w.Kernel, Stride: w.Stride, PadH: pad, PadW: pad}
}

// CompileSparse compiles the conv2d workload w with inputs in (x and w)
// for the sparse engine of cfg, its input split among the units as split
// says; the result is named "y".
func (w Workload) CompileSparse(cfg npu.Config, in map[string]*golden.Tensor, split sparseconv.Split) (*compiler.Program, *sparseconv.Program, error) {
	prog, sp, err := compiler.CompileSparse(cfg, w.SparseConv(), in["x"].Data, in["w"].Data, split, "y")
	if err != nil {
		return nil, nil, fmt.Errorf("compile conv2d for the sparse engine: %w", err)
	}
	return prog, sp, nil
}

// AccelRun is what a run asks for that decides PickAccel beyond the
// workload itself.
type AccelRun struct {
	// Engines is the neural engines asked for (hwgen sim --engines; 0 if
	// not asked): a conv2d split among several stays on the NE.
	Engines int
	// Requant says requantized int8 results are asked for (hwgen sim
	// --shift or --relu): the sparse engine gives the int32 sums, so the
	// run stays on the NE.
	Requant bool
	// Units is the sparse engine's compute units (SparseConfig).
	Units int
	// Split is how the sparse engine's units share the input.
	Split sparseconv.Split
}

// Accel is PickAccel's choice and why: the sparse engine (Sparse, with
// its configuration and programs) or the NE.
type Accel struct {
	Sparse bool
	// Reason is why the NE, when no estimate was made ("" otherwise).
	Reason string

	// The estimate, when both programs were compiled:
	Density  float64 // percent of the input x that is non-zero
	Estimate int64   // the sparse program's estimated cycles
	Ideal    int64   // the NE program's ideal cycles
	Units    int     // the sparse engine's compute units
	Lanes    int     // and its multipliers per unit

	// The sparse engine's run (when Sparse):
	Config        npu.Config // the NPU with the sparse engine
	Program       *compiler.Program
	SparseProgram *sparseconv.Program
}

// String is the choice and its reason, e.g. "npu (…)" or "sparse (input
// density …)", as hwgen sim --accel auto prints it.
func (a Accel) String() string {
	if a.Reason != "" {
		return fmt.Sprintf("npu (%s)", a.Reason)
	}
	pick, cmpWord := "npu", "not below"
	if a.Sparse {
		pick, cmpWord = "sparse", "below"
	}
	return fmt.Sprintf("%s (input density %.1f%%: an estimated %d cycles on the sparse engine, %d×%d, %s the NE's ideal %d)",
		pick, a.Density, a.Estimate, a.Units, a.Lanes, cmpWord, a.Ideal)
}

// PickAccel decides between the NE and the sparse engine for workload w
// with inputs in, compiled for the NE of cfg as dense: the sparse engine
// (on cfg with it, SparseConfig) when the sparse program's estimated
// cycles (the compiler's list schedule of its tasks: a weight record a
// cycle on each unit, a line a cycle on each DMA engine) are below the
// NE program's ideal cycles (its MACs over the array's), the NE
// otherwise. Only a conv2d on one engine, with no requantization asked
// for, that maps onto the sparse engine may go to it. The error is
// SparseConfig's.
func PickAccel(cfg npu.Config, w Workload, in map[string]*golden.Tensor, dense *compiler.Program, run AccelRun) (Accel, error) {
	if w.Op != "conv2d" || run.Engines > 1 {
		return Accel{Reason: "only a single-engine conv2d may go to the sparse engine"}, nil
	}
	if run.Requant {
		return Accel{Reason: "--shift or --relu asks for requantized int8 results; the sparse engine gives the int32 sums"}, nil
	}
	scfg, err := SparseConfig(cfg, run.Units)
	if err != nil {
		return Accel{}, err
	}
	var nnz int
	for _, v := range in["x"].Data {
		if v != 0 {
			nnz++
		}
	}
	prog, sp, err := w.CompileSparse(scfg, in, run.Split)
	if err != nil {
		return Accel{Reason: fmt.Sprintf("the conv does not map onto the sparse engine: %v", err)}, nil
	}
	a := Accel{
		Density:  100 * float64(nnz) / float64(max(len(in["x"].Data), 1)),
		Estimate: prog.Ideal, // the units' records and the DMA engines' lines, scheduled
		Ideal:    dense.Ideal,
		Units:    scfg.SparseUnits,
		Lanes:    scfg.SparseLanes,
	}
	if a.Estimate < a.Ideal {
		a.Sparse, a.Config, a.Program, a.SparseProgram = true, scfg, prog, sp
	}
	return a, nil
}
