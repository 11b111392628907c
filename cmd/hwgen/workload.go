package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler/multi"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/host"
	"github.com/hwgen/hwgen/internal/budget"
	npyread "github.com/hwgen/hwgen/internal/npy"
	"github.com/hwgen/hwgen/sim"
	"github.com/hwgen/hwgen/verify"
	"github.com/hwgen/hwgen/workload"
)

// tensorFlags describe a tensor workload: its operation, shapes and
// inputs (hwgen sim, hwgen explore).
type tensorFlags struct {
	Op       string   `help:"Operation: gemm (the default), conv2d, transpose, pool, eltwise, reduce (per-channel sum, mean or max of each plane or across its rows; --fn, --post) or net (conv→ReLU→pool→conv→FC). Shapes not given come from the --in files, else the operation's defaults; a flag the operation does not read is an error." placeholder:"OP"`
	Workload string   `help:"JSON workload file: {\"op\": \"conv2d\", \"c\": 16, \"h\": 28, ...} with the same fields as the shape flags (a field left out or 0 takes the default), plus \"inputs\": {\"x\": \"x.npy\"}; flags given on the command line override it." type:"existingfile" placeholder:"FILE"`
	M        *int     `help:"GEMM rows of A (transpose: rows). Default 64 (transpose 40)." placeholder:"N"`
	K        *int     `help:"GEMM reduction size. Default 64." placeholder:"N"`
	N        *int     `help:"GEMM columns of B (transpose: columns; net: classes). Default 64 (transpose 24, net 10)." placeholder:"N"`
	C        *int     `help:"Input channels (conv2d, pool, eltwise, reduce, net). Default 16 (net 3)." placeholder:"N"`
	H        *int     `help:"Input height. Default 16." placeholder:"N"`
	W        *int     `help:"Input width. Default 16." placeholder:"N"`
	Cout     *int     `help:"Output channels (conv2d, net). Default 16." placeholder:"N"`
	Kernel   *int     `help:"Square kernel (conv2d, default 3) or pooling window (pool, default 2)." placeholder:"N"`
	Stride   *int     `help:"Stride (conv2d default 1, pool default 2)." placeholder:"N"`
	Pad      *int     `help:"Padding on every side (conv2d default 1, pool 0). Padded positions hold 0, for max pooling too (a max over a window that reaches into the padding is at least 0); an avg pool sums them as 0 and divides by the whole window." placeholder:"N"`
	Pool     string   `help:"Pooling (pool only): ${pool_kinds} (default max). An avg pool divides the window sum by n = kernel² as sum·round(2^14/n) / 2^14, rounded half up." placeholder:"KIND"`
	Fn       string   `help:"Elementwise function (eltwise only): ${elt_fns} (default add). mul requantizes its int16 product by a fixed shift of 7 (round half up, saturate to int8); the others saturate; --shift does not apply. abs is unary (|a|, no tensor b; |-128| saturates to 127). Reduction (reduce only): ${reduce_fns} (default sum): sum, mean or max of each channel's H×W plane (y has C values), or with row across its rows (the H rows combined column by column: y is C×W, W at most line_depth). A sum shifts by --shift, else by (bitlen(n)+1)/2 for n values summed; a mean is sum·round(2^14/n) / 2^14, rounded half up (--shift does not apply); a max saturates." placeholder:"FN"`
	Post     string   `help:"Post function of a reduce (not with a mean), on v, the sum or max, before the shift: sqrt gives y = round(sqrt(v) / 2^shift) (0 for v < 0), recip y = round(4096 / v / 2^shift) (v = 0 gives the largest value, 127). Both are exact integer functions of the planar engine. Default none." placeholder:"FN"`
	Shift    int      `help:"Requantization shift of the int32 results to int8 (gemm, conv2d, net): y = sat8(floor(acc/2^shift + 1/2)), rounding half up. 0: chosen from the reduction size n (K, or C·kernel² for a conv) as 6 + (bitlen(n)+1)/2 (integer division), which brings a sum of n random int8 products back to int8 range." placeholder:"N"`
	Relu     bool     `help:"ReLU in the output requantization (gemm, conv2d, eltwise; net: its FC output; its convolutions always have ReLU)."`
	Zeros    int      `help:"Percent of zeros in the random tensors (exercises zero skipping)." placeholder:"PCT"`
	In       []string `help:"Take a tensor from a .npy file instead of random values: NAME=FILE (names per op: gemm a,b; conv2d x,w; transpose a; pool x; eltwise a,b (abs: a); reduce x; net x,w1,w2,fc). Integer dtypes of either byte order, C or Fortran order; the shape flags not given are taken from the files." placeholder:"NAME=FILE"`
	Spread   string   `help:"Where --zeros goes: all (every random tensor, uniformly), input (only a conv2d's x; dense weights) or skewed (only x, density growing linearly from its top row to its bottom row, the same share overall)." enum:"all,input,skewed," default:""`
}

// workloadFlags describe the tensor workload of `hwgen sim` and how it runs.
type workloadFlags struct {
	tensorFlags
	Out          string `help:"Write the result (y.npy) and the golden result (y.golden.npy) into this directory (checked before the run)." type:"path" placeholder:"DIR"`
	Engine       string `help:"Simulator: go, or verilator (the Go run replayed on Verilator, every output of every cycle compared)." enum:"go,verilator" default:"go"`
	Timeline     string `help:"Write the task timeline as Chrome trace-event JSON (open in https://ui.perfetto.dev or chrome://tracing)." type:"path" placeholder:"FILE"`
	Engines      *int   `help:"Neural engines (overrides the configuration's engines). With more than one, a conv2d is split into row bands, one per engine (compiler/multi)." placeholder:"N"`
	Split        string `help:"How a conv2d is split among several engines or sparse units: equal-area (equal row bands: fastest on the dense NE, whose time follows its rows; zero skipping saves it energy, not cycles) or balanced (equal non-zero counts within 3%: what the sparse engine's units, whose time follows their non-zeros, need). Default: equal-area on the NPU, balanced on the sparse engine." enum:"balanced,equal-area," default:""`
	QueuePerBand bool   `help:"With several engines: each band's program goes to its own task queue (band i to queue i; needs --set queues=N for N engines) instead of one merged program in queue 0. Add --set queue_round_robin=true to serve the bands in turn rather than by queue priority." name:"queue-per-band"`
	Accel        string `help:"Run a conv2d on: npu (the dense NE), auto (the sparse engine when its estimated cycles for this input's non-zeros are below the NE's ideal, with the reason printed) or sparse (the sparse engine: units fed only the non-zero inputs, time following the non-zeros; an engine of the NPU configured with --set sparse_units=, sparse_lanes=, sparse_entries=, sparse_acc_depth=, …: docs/engines.md, \"Sparse engine\")." enum:"npu,sparse,auto" default:"npu"`
	Units        *int   `help:"With --accel sparse or auto: the sparse engine's compute units (sets sparse_units; default: the configuration's, else 4)." placeholder:"N"`
}

// workload assembles the workload from the file and the flags; unless
// it runs on the sparse engine, it must fit the configured NPU's external
// memory.
func (c *simCmd) workload() (workload.Workload, map[string]*golden.Tensor, error) {
	w, err := c.tensorFlags.assemble(c.Seed)
	if err != nil {
		return w, nil, err
	}
	if err := checkNoClobber(c.paths(w.Inputs)); err != nil {
		return w, nil, err
	}
	// The files first: shapes not given come from them.
	cfg, err := npuConfig(c.blockFlags)
	if err != nil {
		return w, nil, err
	}
	return c.tensorFlags.resolve(w, cfg, c.Accel == "sparse")
}

// assemble is the workload of the --workload file with the flags laid
// over it (shapes not given still 0: resolve fills them).
func (f tensorFlags) assemble(seed uint64) (workload.Workload, error) {
	var w workload.Workload
	if f.Workload != "" {
		data, err := budget.ReadFile(f.Workload, "a workload (JSON)", budget.JSONMax)
		if err != nil {
			return w, usageError{fmt.Errorf("--workload: %w", err)}
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&w); err != nil {
			return w, usagef("--workload %s: %v", f.Workload, err)
		}
		for name, p := range w.Inputs { // file paths relative to the workload file
			if !filepath.IsAbs(p) {
				w.Inputs[name] = filepath.Join(filepath.Dir(f.Workload), p)
			}
		}
	}
	if f.Op != "" {
		w.Op = f.Op
	}
	if w.Op == "" {
		w.Op = "gemm"
	}
	over := func(dst *int, v *int) {
		if v != nil {
			*dst = *v
		}
	}
	over(&w.M, f.M)
	over(&w.K, f.K)
	over(&w.N, f.N)
	over(&w.C, f.C)
	over(&w.H, f.H)
	over(&w.W, f.W)
	over(&w.Cout, f.Cout)
	over(&w.Kernel, f.Kernel)
	over(&w.Stride, f.Stride)
	if f.Pad != nil {
		w.Pad = f.Pad
	}
	if f.Shift != 0 {
		w.Shift = f.Shift
	}
	if f.Zeros != 0 {
		w.Zeros = f.Zeros
	}
	if f.Pool != "" {
		w.Pool = f.Pool
	}
	if f.Fn != "" {
		w.Fn = f.Fn
	}
	if f.Post != "" {
		w.Post = f.Post
	}
	w.Relu = w.Relu || f.Relu
	if f.Spread != "" {
		w.Spread = f.Spread
	}
	if seed != 1 || w.Seed == 0 {
		w.Seed = seed
	}
	for _, kv := range f.In {
		name, path, ok := strings.Cut(kv, "=")
		if !ok || name == "" || path == "" {
			return w, usagef("--in %q: want NAME=FILE.npy", kv)
		}
		if w.Inputs == nil {
			w.Inputs = map[string]string{}
		}
		w.Inputs[name] = path
	}
	if err := w.CheckFields(); err != nil {
		return w, usagef("--workload %s: %v", f.Workload, err) // the flags were checked before
	}
	if !slices.Contains(workload.Ops, w.Op) {
		src := "--op " + w.Op
		if f.Op == "" {
			src = fmt.Sprintf("--workload %s: op = %q", f.Workload, w.Op)
		}
		return w, usagef("%s is not allowed: want one of %s", src, strings.Join(workload.Ops, ", "))
	}
	names := (workload.Workload{Op: w.Op, Fn: w.Fn}).InputNames()
	for name := range w.Inputs {
		if !slices.Contains(names, name) {
			return w, usagef("--in %s: %s has no tensor %q (it has %s)", name, w.Op, name, strings.Join(names, ", "))
		}
	}
	return w, nil
}

// resolve reads the --in files as cfg's elements, takes the shapes not
// given from them, else the defaults, and checks the whole workload: its
// shapes against the files' headers, its memory against the budget and,
// unless sparse, its inputs against the external memory, all before the
// files' data is read.
func (f tensorFlags) resolve(w workload.Workload, cfg npu.Config, sparse bool) (workload.Workload, map[string]*golden.Tensor, error) {
	shapes := map[string][]int{}
	files := map[string]*os.File{}
	headers := map[string]npyread.Header{}
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	for name, path := range w.Inputs {
		file, h, err := openNPY(path)
		if err != nil {
			return w, nil, usageError{fmt.Errorf("--in %s: %w", name, err)}
		}
		files[name], headers[name], shapes[name] = file, h, h.Shape
	}
	w.ShapesFrom(shapes)
	w = w.WithDefaults()
	if err := w.Validate(); err != nil {
		return w, nil, usageError{err}
	}
	for name, shape := range shapes {
		if want := w.InputShapes()[name]; !slices.Equal(shape, want) {
			return w, nil, usagef("--in %s: %s has shape %v; %s needs %v (%s)", name, w.Inputs[name], shape, w.Op, want, describe(w))
		}
	}
	if !sparse {
		if err := fitsExtMem(w, cfg); err != nil {
			return w, nil, err
		}
	}
	if err := workloadMemory(w, cfg).Check(); err != nil {
		return w, nil, err
	}
	elem := golden.S(cfg.ElemWidth)
	given := map[string]*golden.Tensor{}
	for name, path := range w.Inputs {
		t, err := npyData(path, files[name], headers[name], elem)
		if err != nil {
			return w, nil, usageError{fmt.Errorf("--in %s: %w", name, err)}
		}
		given[name] = t
	}
	return w, given, nil
}

// fitsExtMem says whether the input tensors of w fit the external memory
// of cfg (a usage error when not).
func fitsExtMem(w workload.Workload, cfg npu.Config) error {
	need, have := w.MinExtLines(cfg.Rows), int64(1)<<cfg.ExtAddrWidth
	if need <= have {
		return nil
	}
	// The advice names a width only when one exists, and says that the
	// memory budget still applies to it.
	advice := "more than the widest external memory holds (ext_addr_width = 24: 16777216 lines); give smaller tensors"
	if need <= 1<<24 {
		advice = fmt.Sprintf("allowed: up to 24, --set ext_addr_width=%d, if the run's memory fits --max-memory", bitsFor(need))
	}
	return usagef("%s: its input tensors alone need at least %d lines of external memory (%d int%d elements a line); ext_addr_width = %d gives %d lines (%s)",
		describe(w), need, cfg.Rows, cfg.ElemWidth, cfg.ExtAddrWidth, have, advice)
}

// bitsFor is the address width of n lines.
func bitsFor(n int64) int {
	b := 0
	for int64(1)<<b < n {
		b++
	}
	return b
}

func (c *simCmd) runWorkload() error {
	if c.Accel == "sparse" {
		return c.runSparse()
	}
	if c.Units != nil && c.Accel != "auto" {
		return usagef("--units %d: units are the sparse engine's (add --accel sparse or auto)", *c.Units)
	}
	npuSplit := c.Split // the NE's default: equal-area
	if npuSplit == "" {
		npuSplit = "equal-area"
	}
	cfg, err := npuConfig(c.blockFlags)
	if err != nil {
		return err
	}
	if c.Engines != nil {
		cfg.Engines = *c.Engines
		if err := cfg.Validate(); err != nil {
			return usageError{fmt.Errorf("--engines: %w", err)}
		}
	}
	w, given, err := c.workload()
	if err != nil {
		return err
	}
	elem := golden.S(cfg.ElemWidth)
	job, err := compileJob(cfg, w, given, multi.Options{EqualArea: npuSplit == "equal-area", QueuePerBand: c.QueuePerBand})
	if err != nil {
		return err
	}
	prog, mp := job.prog, job.mp
	if c.Engine == "verilator" {
		if err := recordingMemory(describe(w), prog.Ideal, int64(prog.ExtLines)); err != nil {
			return err
		}
	}
	if c.Accel == "auto" {
		scfg, sprog, sp, err := c.pickSparse(cfg, w, job.in, prog)
		if err != nil || sp != nil {
			if err != nil {
				return err
			}
			return c.runSparseProgram(scfg, w, sprog, sp, job.in)
		}
	}
	want, err := job.golden()
	if err != nil {
		return err
	}
	fmt.Printf("workload  %s\n", describe(w))
	fmt.Printf("npu       %s\n", cfg.Name())
	fmt.Printf("compiled  %s\n", prog.Summary())
	if mp != nil {
		reportSplit(mp, npuSplit)
	}

	res, err := c.simulate(prog.Ideal, job.run)
	if err != nil {
		return err
	}
	report(cfg, res)
	if mp != nil {
		reportEngines(res)
	}
	if err := afterRun(res, c.Timeline, c.VCD, c.Engine == "verilator"); err != nil {
		return err
	}
	if c.Out != "" {
		if err := os.MkdirAll(c.Out, 0o755); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		for name, t := range res.Outputs {
			if err := writeNPY(filepath.Join(c.Out, name+".npy"), t, elem); err != nil {
				return fmt.Errorf("--out: %w", err)
			}
			if err := writeNPY(filepath.Join(c.Out, name+".golden.npy"), want[name], elem); err != nil {
				return fmt.Errorf("--out: %w", err)
			}
		}
		fmt.Printf("results   %s\n", c.Out)
	}
	return verdict(want, res.Outputs)
}

// simulate runs a program with run (the Go simulator, with a progress
// bar on a terminal for a long run, --vcd and interruption by a signal),
// sized by its ideal cycles; the errors are the command's.
func (c *simCmd) simulate(ideal int64, run func(...host.Option) (*host.Result, error)) (*host.Result, error) {
	opts := c.hostOptions(c.VCD, ideal)
	if c.Engine != "verilator" {
		opts = append(opts, host.WithoutStimulus()) // a row per cycle, for a replay nobody asked for
	}
	bar := newRunBar(ideal)
	if bar != nil {
		opts = append(opts, host.WithProgress(4096, func(p host.Progress) {
			if p.Phase == "run" {
				bar.Describe(fmt.Sprintf("simulating (%d/%d tasks)", p.Completed, p.Total))
				bar.Set(p.Cycle)
			}
		}))
	}
	intr, stop := interruptible()
	res, err := run(append(opts, intr)...)
	stop()
	if bar != nil {
		bar.Finish()
		fmt.Fprintln(os.Stderr)
	}
	if errors.Is(err, sim.ErrVCDScope) {
		return nil, usageError{fmt.Errorf("--vcd-scope: %w", err)}
	}
	if err != nil {
		return nil, fmt.Errorf("simulation: %w", err)
	}
	return res, nil
}

// verdict compares every output with the golden model: PASS, or FAIL
// with the first wrong element (exit status 1).
func verdict(want, got map[string]*golden.Tensor) error {
	for _, n := range outputNames(want) {
		if err := compareOutput(n, want, got); err != nil {
			return err
		}
		fmt.Printf("result    PASS: %s %v equals the golden model (%d elements)\n", n, want[n].Shape, len(want[n].Data))
	}
	return nil
}

func report(cfg npu.Config, r *host.Result) {
	util := fmt.Sprintf("ideal %d: MAC utilization %.1f%%", r.Ideal, 100*r.Utilization())
	if r.Ideal == 0 {
		util = "no PE-array work, so no MAC utilization"
	}
	fmt.Printf("cycles    %d (%s); image load %d and read-back %d cycles not counted\n", r.Cycles, util, r.LoadCycles, r.ReadCycles)
	if cfg.PerfCounters { // without them every figure would read 0
		var parts []string
		var busy uint64
		for _, e := range r.Engines {
			busy += e.Busy
			parts = append(parts, fmt.Sprintf("%s %.1f%% (stall %.1f%%, %d tasks)", e.Name, pct(e.Busy, r.Cycles), pct(e.Stall, r.Cycles), e.Completed))
		}
		fmt.Printf("busy      %s\n", strings.Join(parts, ", "))
		fmt.Printf("overlap   engines busy %d cycles in total over %d cycles (%.2f engines at once)\n", busy, r.Cycles, float64(busy)/float64(max(r.Cycles, 1)))
	}
	if cfg.DescRingBits > 0 {
		fmt.Printf("fetch     %d descriptors read from the rings, %d fetches replaced by a higher-priority queue's\n", r.DescFetched, r.DescReplaced)
	}
	if cfg.PerfCounters {
		fmt.Printf("MACs      %d issued (%d×%d per vector), %d skipped by zero skipping (%.1f%%)\n",
			r.MACs, cfg.Rows, cfg.Cols, r.Skipped, pct(r.Skipped, int(r.MACs)))
	} else {
		fmt.Printf("MACs      not counted, nor the engines' busy cycles: the NPU has no performance counters (perf_counters false)\n")
	}
	fmt.Printf("speed     %v wall, %.0f simulated cycles/s\n", r.Wall.Round(time.Millisecond),
		float64(r.Cycles+r.LoadCycles+r.ReadCycles)/r.Wall.Seconds())
}

func pct(a uint64, b int) float64 {
	if b <= 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

func describe(w workload.Workload) string {
	switch w.Op {
	case "gemm":
		return fmt.Sprintf("gemm %d×%d×%d (seed %d)", w.M, w.K, w.N, w.Seed)
	case "transpose":
		return fmt.Sprintf("transpose %d×%d (seed %d)", w.M, w.N, w.Seed)
	case "conv2d":
		return fmt.Sprintf("conv2d %d×%d×%d → %d, %d×%d kernel, stride %d, pad %d (seed %d)", w.C, w.H, w.W, w.Cout, w.Kernel, w.Kernel, w.Stride, *w.Pad, w.Seed)
	case "pool":
		return fmt.Sprintf("%s pool %d×%d×%d, %d×%d window, stride %d, pad %d (seed %d)", w.Pool, w.C, w.H, w.W, w.Kernel, w.Kernel, w.Stride, *w.Pad, w.Seed)
	case "eltwise":
		if w.UnaryElt() {
			return fmt.Sprintf("eltwise %s of a %d×%d×%d tensor (seed %d)", w.Fn, w.C, w.H, w.W, w.Seed)
		}
		return fmt.Sprintf("eltwise %s of two %d×%d×%d tensors (seed %d)", w.Fn, w.C, w.H, w.W, w.Seed)
	case "reduce":
		post := ""
		if w.Post != "" && w.Post != "none" {
			post = " with " + w.Post
		}
		return fmt.Sprintf("reduce %s%s of a %d×%d×%d tensor (seed %d)", w.Fn, post, w.C, w.H, w.W, w.Seed)
	case "net":
		return fmt.Sprintf("net on %d×%d×%d: conv3×3→%d, ReLU, maxpool 2×2, conv3×3, ReLU, FC→%d (seed %d)", w.C, w.H, w.W, w.Cout, w.N, w.Seed)
	}
	return w.Op
}

func unflatten(shape []int, i int) []int {
	idx := make([]int, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		idx[d] = i % shape[d]
		i /= shape[d]
	}
	return idx
}

// newRunBar is a progress bar on an interactive terminal for runs long
// enough to want one (the ideal cycle count as the scale), nil otherwise.
func newRunBar(ideal int64) *progressbar.ProgressBar {
	if ideal < 100_000 || !term.IsTerminal(int(os.Stderr.Fd())) {
		return nil
	}
	return progressbar.NewOptions(-1, progressbar.OptionSetWriter(os.Stderr),
		progressbar.OptionSetDescription("simulating"), progressbar.OptionShowCount(),
		progressbar.OptionThrottle(100*time.Millisecond))
}

// npuConfig is the default NPU configuration with --config and --set laid over it.
func npuConfig(f blockFlags) (npu.Config, error) {
	cfg, err := configure(npu.DefaultConfig, f)
	if err != nil {
		return cfg, err
	}
	if err := cfg.Validate(); err != nil {
		return cfg, usageError{err}
	}
	return cfg, nil
}

// reportSplit prints the bands of a conv split among several engines.
func reportSplit(mp *multi.Program, how string) {
	var parts []string
	for _, pt := range mp.Plan.Parts {
		parts = append(parts, fmt.Sprintf("rows %v (%d non-zeros)", pt.Rows.Out, pt.NNZ))
	}
	fmt.Printf("split     %s: %s; non-zero imbalance %.1f%%", how, strings.Join(parts, ", "), 100*mp.Metrics.Imbalance)
	if mp.Unbalanced != nil {
		fmt.Printf(" (the 3%% threshold is not met)")
	}
	if len(mp.QueueTasks()) > 1 {
		fmt.Printf("; a task queue per band")
	}
	fmt.Println()
}

// reportEngines prints each neural engine's busy share and skipped
// MACs, and the imbalance of the busy cycles and of the MACs performed
// (issued − skipped).
func reportEngines(r *host.Result) {
	var parts []string
	var maxB, minB, maxW, minW uint64
	for i, e := range r.NEs {
		work := e.MACs - e.Skipped
		parts = append(parts, fmt.Sprintf("ne%d %.1f%% (%d MACs, %d skipped, %.1f%%)", i, pct(e.Busy, r.Cycles), e.MACs, e.Skipped, pct(e.Skipped, int(e.MACs))))
		if i == 0 || e.Busy > maxB {
			maxB = e.Busy
		}
		if i == 0 || e.Busy < minB {
			minB = e.Busy
		}
		if i == 0 || work > maxW {
			maxW = work
		}
		if i == 0 || work < minW {
			minW = work
		}
	}
	fmt.Printf("engines   %s\n", strings.Join(parts, ", "))
	fmt.Printf("imbalance busy cycles %.1f%%, MACs performed (not skipped) %.1f%% ((max−min)/max)\n",
		100*float64(maxB-minB)/float64(max(maxB, 1)), 100*float64(maxW-minW)/float64(max(maxW, 1)))
}

// afterRun writes the timeline of a finished NPU run, names its
// waveforms, and with verilator replays the recorded run on Verilator,
// comparing every output in every cycle (hwgen sim and hwgen run).
func afterRun(res *host.Result, timeline, vcd string, verilator bool) error {
	if timeline != "" {
		if err := writeFileAtomic(timeline, res.WriteTrace); err != nil {
			return fmt.Errorf("--timeline: %w", err)
		}
		fmt.Printf("timeline  %s (%d tasks; open in https://ui.perfetto.dev)\n", timeline, len(res.Timeline))
	}
	if vcd != "" {
		vcdWritten(vcd)
	}
	if !verilator {
		return nil
	}
	fmt.Printf("verilator building and replaying %d cycles...\n", len(res.Stimulus.Rows))
	cr, err := verify.CrossCheck(res.Design, res.Stimulus, verify.Options{Build: verify.BuildOptions{OptLevel: 1}})
	if err != nil {
		return fmt.Errorf("verilator: %w", err)
	}
	cached := ""
	if cr.Cached {
		cached = ", cached"
	}
	fmt.Printf("verilator identical: %d outputs in each of %d cycles (build %v%s, run %v)\n", cr.Outputs, cr.Cycles,
		cr.BuildTime.Round(time.Millisecond), cached, cr.VerilatorRun.Round(time.Millisecond))
	return nil
}
