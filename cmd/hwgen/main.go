// Command hwgen generates, simulates and verifies hardware built with the
// hwgen DSL and runs tensor workloads on the generated NPU. It only wires
// packages together; the work is done in the library packages (hdl,
// verilog, sim, verify, blocks, compiler, host, bench).
package main

import (
	"errors"
	"fmt"
	"os"
	"runtime/pprof"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/hwgen/hwgen/frontend/conformance"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/internal/budget"
	"github.com/hwgen/hwgen/workload"
)

// Exit statuses.
const (
	exitOK      = 0
	exitFailure = 1 // the run went wrong: a mismatch, a tool failure
	exitUsage   = 2 // the request was wrong: a bad flag, an unknown design
)

type cli struct {
	MaxMemory string `name:"max-memory" env:"HWGEN_MAX_MEMORY" help:"The memory a run may take (e.g. 8G, 512M): a request whose estimate (tensors, padding, recorded cycles, files read) exceeds it is refused in one line before anything is allocated. Default: half of the machine's memory (/proc/meminfo, or a cgroup's memory.max when lower)." placeholder:"SIZE"`

	Emit        emitCmd        `cmd:"" help:"Write a design (by default the NPU) as Verilog-2005, one module per file."`
	Sim         simCmd         `cmd:"" help:"Run a tensor workload on the NPU and check it against the golden model, or simulate a built-in design with seeded random stimulus (--top)."`
	Run         runCmd         `cmd:"" help:"Run a float ONNX model (e.g. mnist-7) quantized to int8 on the NPU and compare it with float."`
	Quantize    quantizeCmd    `cmd:"" help:"Quantize a float ONNX model as hwgen run does and write it as a standard ONNX model that ONNX Runtime runs with the NPU's integer arithmetic bit for bit."`
	Conformance conformanceCmd `cmd:"" help:"Run the official ONNX operator tests of the mapped ops on the NPU and tabulate pass, fail and unsupported."`
	Verify      verifyCmd      `cmd:"" help:"Cross-check the Go simulator against Verilator on the built-in designs."`
	Merge       mergeCmd       `cmd:"" help:"Print the report of a run spread over shards (--shard, --result) from the shards' result files."`
	Designs     designsCmd     `cmd:"" help:"List the built-in designs."`
	Bench       benchCmd       `cmd:"" help:"Measure simulation speed: Go simulator, Verilator and Icarus side by side."`
	PPA         ppaCmd         `cmd:"" name:"ppa" help:"Measure timing and area of a design with Yosys and nextpnr-ice40: cells, flip-flops, BRAM, DSP, logic depth, Fmax and the critical path."`
	Config      configCmd      `cmd:"" help:"Print the default block configurations (JSON) or the task-descriptor layout."`
	Explore     exploreCmd     `cmd:"" help:"Sweep NPU configurations (--set rows=4,8,16 ...) for one workload: cycles and MAC utilization on the Go simulator beside area and Fmax."`
}

const description = `hwgen builds hardware from Go: it emits lint-clean Verilog and simulates the
same netlist on a fast event-driven Go simulator that is cross-checked against
Verilator. Its NPU runs tensor workloads compiled to task descriptors.

Examples:
  hwgen sim                                   a 64×64×64 GEMM on the default NPU
  hwgen emit verilog -o rtl                   write the NPU's Verilog
  hwgen designs                               list the built-in designs
  hwgen emit verilog --top mac -o rtl         write rtl/mac_s8_s32.v and a file list
  hwgen sim --top array16 --cycles 100000     simulate with random stimulus
  hwgen sim --top mac --cycles 50 --vcd mac.vcd --check
  hwgen run --model frontend/onnx/testdata/mnist-7.onnx   mnist-7 in int8 on the NPU
  hwgen quantize --model frontend/onnx/testdata/mnist-7.onnx -o q.onnx   the same int8 model as ONNX
  hwgen verify                                cross-check every built-in design
  hwgen ppa --top mac --target ice40-hx8k     area, Fmax and critical path on an iCE40
  hwgen explore --set rows=4,8,16 --set cols=4,8 --no-ppa   cycles of a GEMM per configuration

Exit status: 0 success, 1 a failed run (mismatch, tool error), 2 a usage or
configuration error.`

// usageError marks an error that is the caller's request, not the run.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// usageIn is err, a problem of the file given to flag, as the caller's:
// an error that is already a usage error (it names the flag) is kept.
func usageIn(flag string, err error) error {
	var ue usageError
	if errors.As(err, &ue) {
		return err
	}
	return usageError{fmt.Errorf("%s: %w", flag, err)}
}

func main() {
	os.Exit(profiled(func() int { return run(os.Args[1:]) }))
}

// profiled runs f, writing a CPU profile of it to the file HWGEN_CPUPROFILE
// names (for go tool pprof), when that variable is set.
func profiled(f func() int) int {
	path := os.Getenv("HWGEN_CPUPROFILE")
	if path == "" {
		return f()
	}
	out, err := os.Create(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "hwgen: HWGEN_CPUPROFILE: %v\n", err)
		return exitUsage
	}
	defer out.Close()
	if err := pprof.StartCPUProfile(out); err != nil {
		fmt.Fprintf(os.Stderr, "hwgen: HWGEN_CPUPROFILE: %v\n", err)
		return exitFailure
	}
	defer pprof.StopCPUProfile()
	return f()
}

// newParser is the command line's parser, filling c.
func newParser(c *cli) (*kong.Kong, error) {
	return kong.New(c, kong.Name("hwgen"), kong.Description(description),
		kong.UsageOnError(), kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
		kong.Vars{"pool_kinds": strings.Join(golden.PoolKindNames(), ", "), "elt_fns": strings.Join(golden.EltOpNames(), ", "), "reduce_fns": strings.Join(workload.ReduceFns, ", "),
			"onnx_tests": conformance.DefaultDir})
}

func run(args []string) int {
	var c cli
	parser, err := newParser(&c)
	if err != nil {
		fmt.Fprintf(os.Stderr, "hwgen: internal error: %v\n", err)
		return exitFailure
	}
	ctx, err := parser.Parse(args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "hwgen: %v\n", err)
		return exitUsage
	}
	budget.SetLimit(0) // run is called many times by the tests
	if c.MaxMemory != "" {
		n, err := budget.ParseSize(c.MaxMemory)
		if err != nil {
			fmt.Fprintf(os.Stderr, "hwgen: --max-memory: %v\n", err)
			return exitUsage
		}
		budget.SetLimit(n)
	}
	if err := ctx.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "hwgen: %s\n", oneLine(err))
		var ue usageError
		if errors.As(err, &ue) || budget.Is(err) {
			return exitUsage
		}
		return exitFailure
	}
	return exitOK
}

// oneLine is err's message on one line: an error joined from several
// (a failed run and a failed write) is printed as one line of parts.
func oneLine(err error) string {
	return strings.ReplaceAll(err.Error(), "\n", "; ")
}
