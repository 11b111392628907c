//go:build networks

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
)

// The nine ImageNet networks of frontend/onnx/testdata/light, as
// scripts/networks-npu.sh runs them on the NPU: names and whether the Go
// simulator runs them too (the others: the reference machine only).
var npuNetworks = []struct {
	name string
	sim  bool
}{
	{"light_bvlc_alexnet", false}, {"light_densenet121", false}, {"light_inception_v1", false},
	{"light_inception_v2", false}, {"light_resnet50", true}, {"light_shufflenet", true},
	{"light_squeezenet", true}, {"light_vgg19", false}, {"light_zfnet512", false},
}

// npuRow is one line of the table: a network, a seed and an engine.
type npuRow struct {
	network, engine                string
	seed                           int
	macs, tasks, compile, cycles   string
	util, sqnr, ort, wall, refused string
}

// Every network with seeded random weights and input (two seeds) through
// hwgen run on the reference machine, ResNet-50, ShuffleNet and
// SqueezeNet also on the Go simulator, and through hwgen quantize and
// ONNX Runtime; one table at the end. A network hwgen refuses (an op not
// lowered yet, the memory estimate) shows its refusal line in the table:
// the test fails only when a run that was not refused fails (FAIL, a
// crash) or ONNX Runtime differs from the NPU.
func TestLightNetworksNPU(t *testing.T) {
	node := onnxtest.NeedORT(t)
	var rows []npuRow
	nets, dir := npuNetworks, "../../frontend/onnx/testdata/light"
	if m := os.Getenv("MODEL"); m != "" { // one model of the caller's, on both engines
		dir = filepath.Dir(m)
		nets = nets[:0:0]
		nets = append(nets, struct {
			name string
			sim  bool
		}{strings.TrimSuffix(filepath.Base(m), ".onnx"), true})
	}
	for _, nw := range nets {
		if only := os.Getenv("NETWORKS"); only != "" && !slices.ContainsFunc(strings.Split(only, ","), func(s string) bool { return strings.Contains(nw.name, s) }) {
			continue
		}
		model := filepath.Join(dir, nw.name+".onnx")
		for _, seed := range []int{1, 2} {
			engines := []string{"interp"}
			if nw.sim {
				engines = append(engines, "go")
			}
			for _, engine := range engines {
				r := npuRun(t, model, nw.name, seed, engine)
				if engine == "interp" && r.refused == "" {
					r.ort = ortBitExact(t, node, model, seed)
				}
				rows = append(rows, r)
				fmt.Fprintf(os.Stderr, "done      %s seed %d --engine %s in %s s\n", nw.name, seed, engine, r.wall)
			}
		}
	}
	printNPUTable(rows)
}

var (
	compiledRe  = regexp.MustCompile(`(?m)^compiled  (\d+) tasks .*, (\d+) MACs, ideal`)
	compileRe   = regexp.MustCompile(`(?m)^compiled  in (\S+)`)
	cyclesRe    = regexp.MustCompile(`(?m)^cycles    (\d+) \(ideal \d+: MAC utilization ([0-9.]+%)\)`)
	modelPathRe = regexp.MustCompile(`\S*/(\S+\.onnx)`)
	sqnrRe      = regexp.MustCompile(`logits SQNR ([^ ]+ dB|exact \(\+Inf dB\))`)
)

// npuRun runs hwgen run on one network and reads its row from the report.
func npuRun(t *testing.T, model, name string, seed int, engine string) npuRow {
	r := npuRow{network: strings.TrimPrefix(name, "light_"), engine: engine, seed: seed}
	t0 := time.Now()
	code, stdout, stderr := capture(t, append([]string{"run", "--model", model, "--random-weights", fmt.Sprint(seed), "--engine", engine}, extraArgs()...)...)
	r.wall = fmt.Sprintf("%.1f", time.Since(t0).Seconds())
	if m := compiledRe.FindStringSubmatch(stdout); m != nil {
		r.tasks, r.macs = m[1], m[2]
	}
	if m := compileRe.FindStringSubmatch(stderr); m != nil {
		if d, err := time.ParseDuration(m[1]); err == nil {
			r.compile = fmt.Sprintf("%.2f", d.Seconds())
		}
	}
	if m := cyclesRe.FindStringSubmatch(stdout); m != nil {
		r.cycles, r.util = m[1], m[2]
	}
	if m := sqnrRe.FindStringSubmatch(stdout); m != nil {
		r.sqnr = m[1]
	}
	switch code {
	case exitOK:
	case exitUsage:
		r.refused = lastLine(stderr)
	default:
		r.refused = lastLine(stderr)
		t.Errorf("%s seed %d --engine %s: exit %d: %s", name, seed, engine, code, r.refused)
	}
	return r
}

// ortBitExact exports the network with hwgen quantize and runs the
// export on ONNX Runtime against the reference machine's output (the
// comparison command hwgen quantize prints).
func ortBitExact(t *testing.T, node, model string, seed int) string {
	dir := t.TempDir()
	q, ref := filepath.Join(dir, "q.onnx"), filepath.Join(dir, "ref")
	code, stdout, stderr := capture(t, append([]string{"quantize", "--model", model, "--random-weights", fmt.Sprint(seed), "-o", q, "--ref", ref}, extraArgs()...)...)
	if code != exitOK {
		return "quantize: " + lastLine(stderr)
	}
	m := regexp.MustCompile(`(?m)^compare   node scripts/ort/run.js \S+ \S+ --expect (\S+)=`).FindStringSubmatch(stdout)
	if m == nil {
		t.Errorf("%s seed %d: hwgen quantize printed no comparison command:\n%s", model, seed, stdout)
		return "no command"
	}
	raw := m[1]
	out, err := exec.Command(node, "../../scripts/ort/run.js", q, filepath.Join(ref, "input.npy"),
		"--expect", raw+"="+filepath.Join(ref, raw+".npy")).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "identical") {
		t.Errorf("%s seed %d: ONNX Runtime differs from the NPU: %v\n%s", model, seed, err, out)
		return "NO"
	}
	return "yes"
}

// extraArgs are HWGEN_ARGS, split at spaces: flags for every hwgen run
// and hwgen quantize (e.g. --max-memory 24G --set ext_addr_width=24).
func extraArgs() []string { return strings.Fields(os.Getenv("HWGEN_ARGS")) }

// lastLine is the last line of stderr, the error, without the model's
// path and the list of supported ops it may name.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	l := strings.TrimPrefix(lines[len(lines)-1], "hwgen: ")
	if _, rest, ok := strings.Cut(l, ".onnx: "); ok && strings.HasPrefix(l, "--model ") {
		l = rest
	}
	l = modelPathRe.ReplaceAllString(l, "$1")
	l, _, _ = strings.Cut(l, "; supported: ")
	return l
}

// printNPUTable prints the rows as one table; a refused run's row ends
// with its refusal line.
func printNPUTable(rows []npuRow) {
	dash := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
	fmt.Printf("%-14s %4s %-6s %12s %6s %9s %11s %8s %12s %8s %8s\n",
		"network", "seed", "engine", "MACs", "tasks", "compile s", "cycles", "MAC util", "logits SQNR", "ORT", "wall s")
	for _, r := range rows {
		line := fmt.Sprintf("%-14s %4d %-6s %12s %6s %9s %11s %8s %12s %8s %8s", r.network, r.seed, r.engine,
			dash(r.macs), dash(r.tasks), dash(r.compile), dash(r.cycles), dash(r.util), dash(r.sqnr), dash(r.ort), r.wall)
		if r.refused != "" {
			line += "  refused: " + r.refused
		}
		fmt.Println(line)
	}
}
