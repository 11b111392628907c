package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/hwgen/hwgen/sim"
	"github.com/hwgen/hwgen/stim"
	"github.com/hwgen/hwgen/verify"
)

type simCmd struct {
	workloadFlags
	Top string `help:"Simulate this built-in design or block with seeded random stimulus instead of running a workload on the NPU (see 'hwgen designs')." placeholder:"DESIGN"`
	blockFlags
	Cycles *int   `help:"With --top: clock cycles to run (the first two hold reset). Default 1000." placeholder:"N"`
	Seed   uint64 `help:"Seed of the random tensors (workload) or the random stimulus (--top); the same seed gives the same run." default:"1"`
	VCD    string `help:"Write waveforms to this VCD file (written whole at the end, or not at all: a failed or interrupted run leaves none). The size it may take is printed before the run." type:"path" placeholder:"FILE"`
	vcdFilterFlags
	Check bool `help:"With --top: also run the same stimulus on Verilator and compare every output every cycle."`
}

func (c *simCmd) Help() string {
	return `Runs a tensor workload on the NPU (the default configuration, or --config /
--set): the compiler lays it out and emits task descriptors, the Go simulator
runs the simulation top (NPU + external-memory model) through its host ports,
and the result is checked against the golden model. Prints PASS or FAIL with
the first wrong element, total cycles, MAC utilization against the ideal
(M·K·N / (rows·cols) cycles), per-engine busy and stall, skipped MACs.

  hwgen sim                                   GEMM 64×64×64 on the default NPU
  hwgen sim --op conv2d --c 32 --h 28 --w 28 --cout 32 --kernel 3 --pad 1
  hwgen sim --op net --timeline net.json      conv→ReLU→pool→conv→FC; open net.json in ui.perfetto.dev
  hwgen sim --op conv2d --zeros 90 --spread input --accel sparse --units 4
                                              a conv on the NPU's sparse engine (4 units)
  hwgen sim --op gemm --in a=a.npy --in b=b.npy --out results/
  hwgen sim --workload layer.json --engine verilator --vcd run.vcd

The net (--op net) on x [C,H,W]: conv 3×3, pad 1, C→Cout, ReLU; max pool
2×2, stride 2; conv 3×3, pad 1, Cout→Cout, ReLU; flatten; FC
Cout·(H/2)·(W/2)→N (tensors w1 [Cout,C,3,3], w2 [Cout,Cout,3,3], fc
[Cout·(H/2)·(W/2),N]). Every requantization rounds half up and saturates
to int8; the shifts are chosen from the reduction sizes as --shift says.

With --engine verilator the run is recorded on the Go simulator and replayed
on a Verilator build of the emitted Verilog: every output port of every cycle
must be identical (results, counters and cycle counts included).
With --top, simulates any built-in design with seeded random stimulus instead.`
}

func (c *simCmd) Run() error {
	if err := c.checkFlags(); err != nil {
		return err
	}
	if err := checkOutputs(c.Out, c.Timeline, c.VCD); err != nil {
		return err
	}
	if err := c.vcdFilterFlags.check(c.VCD); err != nil {
		return err
	}
	if c.Top == "" {
		return c.runWorkload()
	}
	if err := checkNoClobber(c.paths(nil)); err != nil {
		return err
	}
	return c.runRandom()
}

// runRandom simulates a built-in design with seeded random stimulus.
func (c *simCmd) runRandom() error {
	cycles := 1000
	if c.Cycles != nil {
		cycles = *c.Cycles
	}
	d, err := elaborateWith(c.Top, c.blockFlags)
	if err != nil {
		return err
	}
	t0 := time.Now()
	s, err := sim.New(d)
	if err != nil {
		return err
	}
	compile := time.Since(t0)

	ctx, stop := interrupted() // from before the waveform exists to its rename
	defer stop()
	var vcdFile *os.File
	if c.VCD != "" {
		// Write next to the target and rename at the end, so a failed
		// run never leaves a truncated waveform behind.
		vcdFile, err = os.CreateTemp(filepath.Dir(c.VCD), "."+filepath.Base(c.VCD)+".tmp-")
		if err != nil {
			return fmt.Errorf("--vcd: %w", err)
		}
		defer os.Remove(vcdFile.Name())
		if err := vcdFile.Chmod(outputMode); err != nil {
			return fmt.Errorf("--vcd: %w", err)
		}
		if err := s.DumpVCD(vcdFile, c.filter()); err != nil {
			return usageError{fmt.Errorf("--vcd-scope: %w", err)} // the only error DumpVCD has
		}
		signals, bits := s.VCDTraced()
		if err := checkVCDDisk("--vcd", c.VCD, filepath.Dir(c.VCD), signals, bits, int64(cycles)); err != nil {
			return err
		}
		printVCDPlan(signals, bits, int64(cycles), "the")
	}

	inputs, outputs := stim.Ports(d)
	bar := progress(cycles)
	t0 = time.Now()
	err = stim.RunRandom(s, inputs, c.Seed, cycles, func(done int) error {
		if ctx.Err() != nil {
			return fmt.Errorf("stopped after %d cycles: %w", done, ctx.Err())
		}
		if bar != nil && done%4096 == 0 {
			bar.Set(done)
		}
		return nil
	})
	if err != nil {
		return err
	}
	elapsed := time.Since(t0)
	if bar != nil {
		bar.Finish()
		fmt.Fprintln(os.Stderr)
	}
	if vcdFile != nil {
		if err := s.CloseVCD(); err != nil {
			return fmt.Errorf("--vcd: %w", err)
		}
		if err := vcdFile.Close(); err != nil {
			return fmt.Errorf("--vcd: %w", err)
		}
		if err := os.Rename(vcdFile.Name(), c.VCD); err != nil {
			return fmt.Errorf("--vcd: %w", err)
		}
	}

	st := s.Stats()
	fmt.Printf("design    %s (%s): %d nodes, %d registers, %d levels; compiled in %v\n",
		d.Top.Name, c.Top, st.Nodes, st.Registers, st.Levels, compile.Round(time.Microsecond))
	fmt.Printf("cycles    %d, random stimulus seed %d\n", cycles, c.Seed)
	fmt.Printf("speed     %v, %.0f cycles/s, %.1f node evaluations per cycle\n",
		elapsed.Round(time.Microsecond), float64(cycles)/elapsed.Seconds(), float64(st.Evals)/float64(cycles))
	fmt.Println("outputs after the last cycle:")
	for _, p := range outputs {
		v, err := s.PeekSigned(p.Name)
		if err != nil {
			return err
		}
		fmt.Printf("  %-10s %-10s %d\n", p.Name, p.Type, v)
	}
	if c.VCD != "" {
		vcdWritten(c.VCD)
	}
	if c.Check {
		res, err := verify.CrossCheck(d, stim.Random(d, cycles, c.Seed), verify.Options{})
		if err != nil {
			return err
		}
		fmt.Printf("verilator agrees: %d cycles x %d outputs (build %v, cached %v)\n",
			res.Cycles, res.Outputs, res.BuildTime.Round(time.Millisecond), res.Cached)
	}
	return nil
}

// progress returns a bar on an interactive terminal for runs long enough
// to want one, nil otherwise.
func progress(cycles int) *progressbar.ProgressBar {
	if cycles < 200_000 || !term.IsTerminal(int(os.Stderr.Fd())) {
		return nil
	}
	return progressbar.NewOptions(cycles, progressbar.OptionSetWriter(os.Stderr),
		progressbar.OptionSetDescription("simulating"), progressbar.OptionShowCount(),
		progressbar.OptionThrottle(100*time.Millisecond))
}
