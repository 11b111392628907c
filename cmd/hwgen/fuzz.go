package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/hwgen/hwgen/internal/toolchain"
	"github.com/hwgen/hwgen/shard"
	"github.com/hwgen/hwgen/verify"
)

type verifyFuzzCmd struct {
	Seed        uint64 `help:"Seed of the first random design; design i uses seed+i for its netlist and its stimulus." default:"1"`
	Count       int    `help:"Number of random designs to check." default:"10"`
	Cycles      int    `help:"Cycles of random stimulus per design." default:"1000"`
	LintOnly    bool   `help:"Only emit each design and run verilator --lint-only -Wall -fno-dfg -fno-split on it: no Verilator build, no simulation (hundreds of designs a minute)."`
	SubCircuits int    `help:"Random sub-circuits in each design's top module (each ending in an output port); fewer make smaller designs, more of them per build." default:"14" name:"subcircuits"`
	Pack        int    `help:"Check this many designs side by side in one Verilator build (one lint, one build, one run; a difference names its design). A build costs far more than a design's run, so packing multiplies the designs checked per hour." default:"1"`
	shardFlags
}

func (c *verifyFuzzCmd) Help() string {
	return `Each random design groups many random sub-circuits (every DSL operator at
widths 1..200, signed and unsigned, registers, memories, two levels of
hierarchy) into one module, which is emitted, built with Verilator (-Wall, so a
lint warning fails it) and cross-checked against the Go simulator on seeded
random stimulus. The first failure stops the run and names the seed that
reproduces it. The summary tallies operators x width class x signedness.

Standard output is the report (one line per design, the coverage, the
verdict); build and run times go to standard error, so the report of a run is
the same however it is spread over processes. A long campaign can be split
into shards, one process each (Kubernetes Indexed Jobs, Slurm arrays, Bazel;
see docs/sharding.md):

  hwgen verify fuzz --count 1000 --shard 0/4 --result s0.json   (and 1/4, 2/4, 3/4)
  hwgen merge s0.json s1.json s2.json s3.json

prints what 'hwgen verify fuzz --count 1000' prints.`
}

// defaultSubCircuits is verify.FuzzOptions' default.
const defaultSubCircuits = 14

// fuzzCommand names the campaign in result files.
const fuzzCommand = "verify fuzz"

// fuzzArgs are the arguments that decide a campaign's result.
type fuzzArgs struct {
	Seed     uint64 `json:"seed"`
	Count    int    `json:"count"`
	Cycles   int    `json:"cycles"`
	LintOnly bool   `json:"lint_only"`
	// SubCircuits is left out of the result when it is the default, so
	// result files of earlier campaigns still merge.
	SubCircuits int `json:"subcircuits,omitempty"`
}

// fuzzRecord is one design's result: what its report line says, its
// coverage, or the failure that stopped the campaign.
type fuzzRecord struct {
	Seed     uint64           `json:"seed"`
	Design   string           `json:"design"`
	Nodes    int              `json:"nodes,omitempty"`
	Cycles   int              `json:"cycles,omitempty"`
	Outputs  int              `json:"outputs,omitempty"`
	Coverage *verify.Coverage `json:"coverage,omitempty"`
	Error    string           `json:"error,omitempty"`
}

func (c *verifyFuzzCmd) Run() error {
	if err := c.shardFlags.check(); err != nil {
		return err
	}
	if c.Count < 1 {
		return usagef("--count: %d is not allowed; give a positive number of designs", c.Count)
	}
	if c.Cycles < 1 {
		return usagef("--cycles: %d is not allowed; give a positive number of cycles", c.Cycles)
	}
	if c.Pack < 1 {
		return usagef("--pack: %d is not allowed; give a positive number of designs per build", c.Pack)
	}
	if c.SubCircuits < 1 {
		return usagef("--subcircuits: %d is not allowed; give a positive number", c.SubCircuits)
	}
	args := fuzzArgs{Seed: c.Seed, Count: c.Count, Cycles: c.Cycles, LintOnly: c.LintOnly}
	if c.SubCircuits != defaultSubCircuits {
		args.SubCircuits = c.SubCircuits
	}
	run, err := c.start(fuzzCommand, args, c.Count)
	if err != nil {
		return err
	}
	if _, err := toolchain.Find("verilator"); err != nil {
		return err
	}
	t0 := time.Now()
	camp := verify.FuzzCampaign{Seed: c.Seed, Count: c.Count, Cycles: c.Cycles, LintOnly: c.LintOnly,
		Design: verify.FuzzOptions{SubCircuits: args.SubCircuits}}
	run.banner(os.Stdout, "designs")
	var recs []fuzzRecord
	if c.Pack > 1 {
		recs, err = c.runPacks(camp, args, run)
		if err != nil {
			return err
		}
	}
	for i := run.items.First; i < run.items.End && c.Pack == 1; i++ {
		cov, res, err := camp.One(i)
		rec := fuzzRecord{Seed: c.Seed + uint64(i), Design: verify.FuzzTopName(c.Seed + uint64(i))}
		if err != nil {
			rec.Error = err.Error()
			var fe *verify.FuzzError
			if !errors.As(err, &fe) { // not a verdict on the design: no record
				return err
			}
		} else {
			rec.Nodes, rec.Coverage = cov.Nodes, cov
			if res != nil {
				rec.Cycles, rec.Outputs = res.Cycles, res.Outputs
				cached := ""
				if res.Cached {
					cached = ", cached"
				}
				fmt.Fprintf(os.Stderr, "  %s: build %v%s; run verilator %v, go %v\n", rec.Design,
					res.BuildTime.Round(time.Millisecond), cached, res.VerilatorRun.Round(time.Millisecond), res.GoRun.Round(time.Millisecond))
			}
		}
		if err := run.add(i, rec); err != nil {
			return err
		}
		recs = append(recs, rec)
		printFuzzLine(os.Stdout, args, i, rec)
		if rec.Error != "" {
			break
		}
	}
	err = fuzzSummary(os.Stdout, args, run.spec, run.items, recs)
	fmt.Fprintf(os.Stderr, "fuzz: %v\n", time.Since(t0).Round(time.Second))
	return run.finish(err)
}

// runPacks checks the shard's designs c.Pack at a time. A failing pack
// is recorded at its first design (so a merged report stops there) with
// the failing design's seed and error.
func (c *verifyFuzzCmd) runPacks(camp verify.FuzzCampaign, args fuzzArgs, run *shardRun) ([]fuzzRecord, error) {
	var recs []fuzzRecord
	for i := run.items.First; i < run.items.End; i += c.Pack {
		n := min(c.Pack, run.items.End-i)
		pr, err := camp.Pack(i, n)
		if err != nil {
			var fe *verify.FuzzError
			if !errors.As(err, &fe) {
				return nil, err
			}
			rec := fuzzRecord{Seed: fe.Seed, Design: verify.FuzzTopName(fe.Seed), Error: err.Error()}
			if err := run.add(i, rec); err != nil {
				return nil, err
			}
			printFuzzLine(os.Stdout, args, i, rec)
			return append(recs, rec), nil
		}
		if res := pr.Result; res != nil {
			cached := ""
			if res.Cached {
				cached = ", cached"
			}
			fmt.Fprintf(os.Stderr, "  pack of %d from %s: build %v%s; run verilator %v, go %v\n", n, verify.FuzzTopName(c.Seed+uint64(i)),
				res.BuildTime.Round(time.Millisecond), cached, res.VerilatorRun.Round(time.Millisecond), res.GoRun.Round(time.Millisecond))
		}
		for j := range n {
			seed := c.Seed + uint64(i+j)
			rec := fuzzRecord{Seed: seed, Design: verify.FuzzTopName(seed), Nodes: pr.Coverage[j].Nodes, Coverage: pr.Coverage[j], Outputs: pr.Outputs[j]}
			if pr.Result != nil {
				rec.Cycles = pr.Result.Cycles
			}
			if err := run.add(i+j, rec); err != nil {
				return nil, err
			}
			recs = append(recs, rec)
			printFuzzLine(os.Stdout, args, i+j, rec)
		}
	}
	return recs, nil
}

// printFuzzLine is the report line of design i.
func printFuzzLine(w io.Writer, a fuzzArgs, i int, r fuzzRecord) {
	switch {
	case r.Error != "":
		fmt.Fprintf(w, "FAIL %v\n", r.Error)
	case a.LintOnly:
		fmt.Fprintf(w, "PASS %d/%d %-12s seed %d: %d nodes, lint-clean\n", i+1, a.Count, r.Design, r.Seed, r.Nodes)
	default:
		fmt.Fprintf(w, "PASS %d/%d %-12s seed %d: %d nodes, %d cycles x %d outputs agree\n",
			i+1, a.Count, r.Design, r.Seed, r.Nodes, r.Cycles, r.Outputs)
	}
}

// fuzzSummary prints the coverage and the verdict of the designs of items
// whose records recs are (up to and including a failure), and returns
// the campaign's error.
func fuzzSummary(w io.Writer, a fuzzArgs, spec shard.Spec, items shard.Range, recs []fuzzRecord) error {
	cov := verify.NewCoverage()
	failed := false
	for _, r := range recs {
		if r.Error != "" {
			failed = true
			break
		}
		cov.Merge(r.Coverage)
	}
	if cov.Designs > 0 {
		fmt.Fprint(w, cov)
	}
	if failed {
		return fmt.Errorf("fuzz: design %d of %d disagrees or does not build (%d agreed before it)",
			items.First+cov.Designs+1, a.Count, cov.Designs)
	}
	verdict := fmt.Sprintf("all %d random designs agree with Verilator", cov.Designs)
	if a.LintOnly {
		verdict = fmt.Sprintf("all %d random designs are lint-clean (verilator --lint-only -Wall -fno-dfg -fno-split; not simulated)", cov.Designs)
	}
	if spec.Sharded() {
		verdict = fmt.Sprintf("shard %s: %s", spec, verdict)
	}
	fmt.Fprintln(w, verdict)
	return nil
}

// mergeFuzz prints the report of a sharded campaign: the designs in order
// up to the first failure, as the unsharded campaign would have stopped.
func mergeFuzz(m *shard.Merged, w io.Writer) error {
	var a fuzzArgs
	if err := m.DecodeArgs(&a); err != nil {
		return err
	}
	gap := m.FirstMissing()
	var recs []fuzzRecord
	for _, r := range m.Records {
		if gap >= 0 && r.Item >= gap {
			break
		}
		var rec fuzzRecord
		if err := r.Decode(&rec); err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		if rec.Error == "" && rec.Coverage == nil {
			return fmt.Errorf("merge: shard %s: design %d has neither a coverage nor an error", m.ShardOf(r.Item), r.Item)
		}
		recs = append(recs, rec)
		if rec.Error != "" {
			gap = -1
			break
		}
	}
	if gap >= 0 {
		return fmt.Errorf("merge: shard %s stopped before design %d (seed %d) without a failure: its result is incomplete",
			m.ShardOf(gap), gap, a.Seed+uint64(gap))
	}
	for i, r := range recs {
		printFuzzLine(w, a, i, r)
	}
	return fuzzSummary(w, a, shard.Whole, shard.Whole.Items(m.Total), recs)
}
