package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/schollz/progressbar/v3"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/conformance"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/host"
	"github.com/hwgen/hwgen/shard"
)

type conformanceCmd struct {
	Dir    string `help:"Folder of ONNX backend node tests (one test_* folder each, with model.onnx and test_data_set_0)." default:"${onnx_tests}" type:"path" placeholder:"DIR"`
	Engine string `help:"Where the NPU tests run: interp (the compiler's reference machine) or go (the Go simulator of the NPU)." enum:"interp,go" default:"interp"`
	Out    string `help:"Write the Markdown table to this file (default: standard output)." type:"path" placeholder:"FILE"`
	blockFlags
	shardFlags
}

// conformanceCommand names the runner in result files.
const conformanceCommand = "conformance"

// conformanceArgs decide the table: the tests, where they run, the NPU.
type conformanceArgs struct {
	Dir string `json:"dir"`
	// Tests is a digest of the tests' names, in order: shards that found
	// other tests in Dir (another libonnx-testdata) do not merge.
	Tests  string     `json:"tests"`
	Engine string     `json:"engine"`
	NPU    npu.Config `json:"npu"`
}

// testsDigest is the SHA-256 of the base names of dirs, one per line.
func testsDigest(dirs []string) string {
	h := sha256.New()
	for _, d := range dirs {
		fmt.Fprintln(h, filepath.Base(d))
	}
	return hex.EncodeToString(h.Sum(nil))
}

func (c *conformanceCmd) Help() string {
	// The list of ops comes from onnx.OpTable; kong reflows the paragraph.
	return `Runs the official ONNX operator tests of the ops hwgen maps (` +
		strings.Join(conformance.Ops, ", ") + `) on the NPU and prints a
table: pass (the NPU's output equals the expected one exactly), pass (host)
(QuantizeLinear/DequantizeLinear: the host's conversions at the NPU's
boundary), fail (how many elements, by how many LSB) or unsupported (why).

Each test runs on the configured NPU (the default, or --config / --set) with
the element width widened to what its values need (9 bits for uint8 data
minus a zero point). Float tests run only when all their values are
integers. The tests come with Debian's libonnx-testdata package:

  apt-get install libonnx-testdata
  hwgen conformance --out conformance.md
  hwgen conformance --engine go

Exit status 1 when a test fails. --shard i/N (or a job engine's
environment) runs the i-th of N parts of the tests and --result writes them
for 'hwgen merge', which prints the whole table.`
}

func (c *conformanceCmd) Run() error {
	if err := c.shardFlags.check(); err != nil {
		return err
	}
	if c.Out != "" {
		if err := checkOutFile("--out", c.Out); err != nil {
			return err
		}
	}
	if err := checkNoClobber(nil, []flagPath{{"--out", c.Out}, {"--result", c.Result}}); err != nil {
		return err
	}
	base, err := npuConfig(c.blockFlags)
	if err != nil {
		return err
	}
	if base.Engines > 1 {
		return usagef("engines = %d: the tests run on one neural engine (leave engines at 1)", base.Engines)
	}
	dirs, err := conformance.Find(c.Dir)
	if err != nil {
		return usageError{fmt.Errorf("--dir: %w (the tests come with Debian's libonnx-testdata)", err)}
	}
	if len(dirs) == 0 {
		return usagef("--dir %s: no ONNX node tests of the mapped ops there", c.Dir)
	}
	engine := conformance.Interp
	if c.Engine == "go" {
		engine = func(p *compiler.Program) (map[string]*golden.Tensor, error) {
			res, err := host.Run(p.Config, p)
			if err != nil {
				return nil, err
			}
			return res.Outputs, nil
		}
	}
	run, err := c.start(conformanceCommand, conformanceArgs{Dir: c.Dir, Tests: testsDigest(dirs), Engine: c.Engine, NPU: base}, len(dirs))
	if err != nil {
		return err
	}
	dirs = dirs[run.items.First:run.items.End]
	bar := progressbar.NewOptions(len(dirs), progressbar.OptionSetWriter(os.Stderr), progressbar.OptionSetDescription("tests"),
		progressbar.OptionClearOnFinish())
	rs := conformance.RunAll(dirs, func(tc *conformance.Case) conformance.Result {
		defer bar.Add(1)
		return conformance.Run(tc, base, engine)
	})
	bar.Finish()
	for k, r := range rs {
		if err := run.add(run.items.First+k, r); err != nil {
			return err
		}
	}
	write := func(w io.Writer) error {
		run.banner(w, "tests")
		return conformance.WriteTable(w, rs)
	}
	if c.Out == "" {
		err = write(os.Stdout)
	} else {
		err = writeFileAtomic(c.Out, write)
	}
	if err != nil {
		return fmt.Errorf("writing the table: %w", err)
	}
	return run.finish(conformanceVerdict(rs))
}

// conformanceVerdict is the run's error when a test fails.
func conformanceVerdict(rs []conformance.Result) error {
	if n := conformance.Counts(rs); n[conformance.Fail] > 0 {
		return fmt.Errorf("FAIL: %d of %d tests failed", n[conformance.Fail], len(rs))
	}
	return nil
}

// mergeConformance prints the table of a sharded run.
func mergeConformance(m *shard.Merged, w io.Writer) error {
	if gap := m.FirstMissing(); gap >= 0 {
		return fmt.Errorf("merge: shard %s has no result for test %d: its result is incomplete (%s)", m.ShardOf(gap), gap, m.Stopped(m.ShardOf(gap), "it stopped early"))
	}
	var rs []conformance.Result
	for _, r := range m.Records {
		var res conformance.Result
		if err := r.Decode(&res); err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		rs = append(rs, res)
	}
	if err := conformance.WriteTable(w, rs); err != nil {
		return fmt.Errorf("writing the table: %w", err)
	}
	return conformanceVerdict(rs)
}
