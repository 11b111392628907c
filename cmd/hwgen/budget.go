package main

import (
	"fmt"
	"syscall"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/internal/budget"
	"github.com/hwgen/hwgen/workload"
)

// What a run costs in memory, per thing, measured with /usr/bin/time on
// hwgen sim (docs/bad-input.md has the runs) and rounded up:
const (
	// tensorCost is the bytes per element of every tensor of a workload
	// (inputs, padded inputs, intermediates, outputs): its int64 golden
	// copy, the external-memory image, the simulator's memory words and
	// the NPU's result (1024×16×1024 → 2048×16×1024 GEMM: +95 MB per
	// million output elements).
	tensorCost = 128
	// weightCost is the bytes per weight of a model: the float32
	// initializer, the scaled and transposed copies of its quantization,
	// the int64 quantized tensor, the program's external-memory image and
	// the reference machine's copy of it. VGG-19 (143.7 M weights, 30 M
	// computed values) peaked at 8.0 GB on the reference machine
	// (hwgen run --random-weights 1 --engine interp); its estimate is
	// 11.0 GB.
	weightCost = 48
	// stimulusCost is the bytes per simulated cycle of the recorded
	// stimulus, kept only for --engine verilator (64×4096×64 GEMM
	// against 64×16384×64: about 800 bytes a cycle).
	stimulusCost = 1024
	// baseCost is the process before any tensor: the elaborated NPU and
	// its compiled simulator.
	baseCost = 64 << 20
	// cyclesPerIdeal bounds a run's cycles by its ideal (MACs over the
	// PE array): measured runs took 1.5 to 4 times their ideal.
	cyclesPerIdeal = 5
)

// shape is a tensor's dims as floats: products of hostile sizes overflow
// int64, and an estimate needs no more precision.
func elems(dims ...int) float64 {
	n := 1.0
	for _, d := range dims {
		n *= float64(max(d, 0))
	}
	return n
}

// outDim is a window's output size: (in + 2·pad − k)/stride + 1.
func outDim(in, pad, k, stride int) int {
	return max((in+2*pad-k)/max(stride, 1)+1, 0)
}

// workloadMemory estimates what a workload allocates from its shapes:
// every input, the padded copy a windowed op reads, every intermediate
// and the output, each at tensorCost bytes an element.
func workloadMemory(w workload.Workload, cfg npu.Config) *budget.Estimate {
	e := &budget.Estimate{Subject: describe(w)}
	e.Add("the NPU and its simulator", 1, baseCost)
	for _, name := range w.InputNames() {
		sh := w.InputShapes()[name]
		e.Add(fmt.Sprintf("input %s %v", name, sh), elems(sh...), tensorCost)
	}
	pad := 0
	if w.Pad != nil {
		pad = *w.Pad
	}
	k, s := w.Kernel, w.Stride
	switch w.Op {
	case "gemm":
		e.Add(fmt.Sprintf("output y [%d %d]", w.M, w.N), elems(w.M, w.N), tensorCost)
	case "transpose":
		e.Add(fmt.Sprintf("output y [%d %d]", w.N, w.M), elems(w.M, w.N), tensorCost)
	case "conv2d", "pool":
		c := w.Cout
		if w.Op == "pool" {
			c = w.C
		}
		if pad > 0 {
			e.Add(fmt.Sprintf("padded input [%d %d %d]", w.C, w.H+2*pad, w.W+2*pad), elems(w.C, w.H+2*pad, w.W+2*pad), tensorCost)
		}
		oh, ow := outDim(w.H, pad, k, s), outDim(w.W, pad, k, s)
		e.Add(fmt.Sprintf("output y [%d %d %d]", c, oh, ow), elems(c, oh, ow), tensorCost)
	case "eltwise":
		e.Add(fmt.Sprintf("output y [%d %d %d]", w.C, w.H, w.W), elems(w.C, w.H, w.W), tensorCost)
	case "reduce":
		e.Add(fmt.Sprintf("output y [%d %d]", w.C, w.W), elems(w.C, w.W), tensorCost)
	case "net":
		e.Add(fmt.Sprintf("conv outputs 2×[%d %d %d] (padded)", w.Cout, w.H+2, w.W+2), 2*elems(w.Cout, w.H+2, w.W+2), tensorCost)
		e.Add(fmt.Sprintf("pool output [%d %d %d]", w.Cout, w.H/2, w.W/2), elems(w.Cout, w.H/2, w.W/2), tensorCost)
		e.Add(fmt.Sprintf("output y [%d]", w.N), elems(w.N), tensorCost)
	}
	return e
}

// recordingMemory refuses a run whose recorded stimulus (kept for a
// Verilator replay) would not fit: a row per cycle, for about
// cyclesPerIdeal times the ideal cycles plus the image load.
func recordingMemory(subject string, ideal, lines int64) error {
	e := &budget.Estimate{Subject: subject + " with --engine verilator"}
	cycles := float64(cyclesPerIdeal*ideal + lines)
	e.Add(fmt.Sprintf("the recorded stimulus of about %.0f cycles", cycles), cycles, stimulusCost)
	return e.Check()
}

// freeDisk is the space left to an unprivileged writer in dir's file
// system (-1 when unknown).
func freeDisk(dir string) int64 {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return -1
	}
	return int64(st.Bavail) * int64(st.Bsize)
}

// vcdDiskShare is the share of a waveform's bound (every signal changing
// on every clock edge) that a run is assumed to write: the bound itself
// is far above what real runs write, and refusing on it would refuse
// them.
const vcdDiskShare = 4

// checkVCDDisk refuses a waveform that would not fit the free disk of
// dir: signals and bits traced, for about cycles cycles.
func checkVCDDisk(flag, path, dir string, signals, bits int, cycles int64) error {
	free := freeDisk(dir)
	need := vcdBound(signals, bits) * float64(cycles) / vcdDiskShare
	if free < 0 || need <= float64(free) {
		return nil
	}
	return usagef("%s %s: a waveform of %d signals (%d bits) over about %d cycles may take %s (a quarter of its bound), and %s has %s free: narrow it with --vcd-scope or --vcd-depth, or write it elsewhere",
		flag, path, signals, bits, cycles, budget.Format(int64(need)), dir, budget.Format(free))
}

// testbenchMemory estimates hwgen emit testbench: the random stimulus
// and the expected outputs of every cycle, in memory and as Verilog text.
func testbenchMemory(design string, cycles, ports, bits int) *budget.Estimate {
	e := &budget.Estimate{Subject: fmt.Sprintf("a testbench of %s over %d cycles", design, cycles)}
	// Measured: a mac testbench (5 ports, 57 bits) takes 700 bytes a
	// cycle (100,000 against 400,000 cycles: 97 MB against 311 MB).
	per := float64(128*ports + 2*bits)
	e.Add(fmt.Sprintf("%d cycles of stimulus and expected outputs (%d ports)", cycles, ports), float64(cycles), per)
	return e
}

// modelMemory estimates the NPU run of a model from its float run's
// values (env: every value Execute computed): each computed value becomes
// a tensor of the compiled program, at tensorCost bytes an element,
// copies times (a batch holds each image's values in its own region, on
// each device); each weight (an initializer of m) once, at weightCost.
func modelMemory(model string, m *onnx.Model, env map[string]*onnx.Array, copies int) *budget.Estimate {
	e := &budget.Estimate{Subject: "--model " + model + " on the NPU"}
	e.Add("the NPU and its simulator", 1, baseCost)
	weight := map[string]bool{}
	for _, t := range m.Graph.Initializers {
		weight[t.Name] = true
	}
	type part struct {
		big     string
		most, n float64
		count   int
	}
	var vals, ws part
	for name, a := range env {
		p, n := &vals, float64(len(a.Data)+len(a.Ints))
		if weight[name] {
			p = &ws
		}
		p.n += n
		p.count++
		if n > p.most {
			p.big, p.most = fmt.Sprintf("%s %v", name, a.Shape), n
		}
	}
	what := fmt.Sprintf("its %d computed values (the largest %s)", vals.count, vals.big)
	if copies > 1 {
		what = fmt.Sprintf("%d copies of its %d computed values (a batch on each device; the largest %s)", copies, vals.count, vals.big)
	}
	e.Add(what, vals.n*float64(copies), tensorCost)
	if ws.count > 0 {
		e.Add(fmt.Sprintf("its %d weight tensors (the largest %s)", ws.count, ws.big), ws.n, weightCost)
	}
	return e
}
