package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/shard"
)

func TestExploreSweepPoints(t *testing.T) {
	for _, tc := range []struct {
		name  string
		sets  []string
		want  [][]string
		shown []int
	}{
		{"no --set: one point, the base configuration", nil, [][]string{nil}, nil},
		{"one value is a setting", []string{"rows=8"}, [][]string{{"rows=8"}}, []int{0}},
		{"the first field varies slowest", []string{"rows=4,8", "cols=2,4,8"},
			[][]string{{"rows=4", "cols=2"}, {"rows=4", "cols=4"}, {"rows=4", "cols=8"}, {"rows=8", "cols=2"}, {"rows=8", "cols=4"}, {"rows=8", "cols=8"}},
			[]int{0, 1}},
		{"single values ride along, shown only when nothing varies", []string{"state_depth=64", "rows=4,8", "zero_skip=false"},
			[][]string{{"state_depth=64", "rows=4", "zero_skip=false"}, {"state_depth=64", "rows=8", "zero_skip=false"}},
			[]int{1}},
		{"values kept in the order given", []string{"cols=8,2"}, [][]string{{"cols=8"}, {"cols=2"}}, []int{0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sw, err := parseSweep(tc.sets)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, sw.points()); diff != "" {
				t.Errorf("points (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.shown, sw.shown()); diff != "" {
				t.Errorf("shown fields (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExploreBadInput(t *testing.T) {
	checkBad(t, []badCase{
		{"unknown field", []string{"explore", "--no-ppa", "--set", "bogus=1,2"}, []string{"--set bogus=1,2", "bogus", "not a field", "rows, cols"}},
		{"wrongly typed value", []string{"explore", "--no-ppa", "--set", "rows=4,many"}, []string{"rows = many", "want an integer"}},
		{"value listed twice", []string{"explore", "--no-ppa", "--set", "rows=4,8,4"}, []string{"--set rows=4,8,4", "rows = 4 is listed twice"}},
		{"empty value", []string{"explore", "--no-ppa", "--set", "rows=4,,8"}, []string{"--set rows=4,,8", "empty value", "rows"}},
		{"field set twice", []string{"explore", "--no-ppa", "--set", "rows=4", "--set", "rows=8"}, []string{"--set rows=8", "rows is set twice"}},
		{"no value", []string{"explore", "--no-ppa", "--set", "rows"}, []string{`--set "rows"`, "FIELD=V1,V2"}},
		{"no valid point", []string{"explore", "--no-ppa", "--set", "rows=4,8"}, []string{"no point", "rows=4", "cols = 16"}},
		{"unknown target", []string{"explore", "--target", "asic", "--set", "rows=16"}, []string{`--target "asic"`, "generic"}},
		{"target without ppa", []string{"explore", "--no-ppa", "--target", "ice40-hx8k"}, []string{"--target ice40-hx8k", "--no-ppa"}},
		{"seeds on the generic target", []string{"explore", "--seeds", "2"}, []string{"--seeds", "FPGA", "ice40-hx8k"}},
		{"seeds out of range", []string{"explore", "--target", "ice40-up5k", "--seeds", "0"}, []string{"--seeds 0", "1..32"}},
		{"shape flag of another op", []string{"explore", "--no-ppa", "--op", "gemm", "--kernel", "3"}, []string{"--kernel 3", "--op gemm"}},
		{"zero size", []string{"explore", "--no-ppa", "--m", "0"}, []string{"--m 0", "positive"}},
	})
}

// tinyNPU are --set flags of small NPUs that simulate a tiny GEMM in
// milliseconds.
var tinyNPU = []string{"--set", "state_depth=64", "--set", "psum_depth=64", "--set", "weight_depth=64"}

// hwgen explore's cycles are hwgen sim's for the same configuration and
// workload, and they differ between the points; the shards of the sweep
// merge into the table of the whole run.
func TestExploreMatchesSimAndMerges(t *testing.T) {
	gemm := []string{"--m", "8", "--k", "12", "--n", "8"}
	args := append(append([]string{"explore", "--no-ppa", "--set", "rows=2,4", "--set", "cols=2"}, tinyNPU...), gemm...)
	code, stdout, stderr := capture(t, append(args, "--json")...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var recs []exploreRecord
	if err := json.Unmarshal([]byte(stdout), &recs); err != nil {
		t.Fatalf("%v:\n%s", err, stdout)
	}
	if len(recs) != 2 {
		t.Fatalf("%d points, want 2:\n%s", len(recs), stdout)
	}
	for i, rows := range []string{"2", "4"} {
		simArgs := append(append([]string{"sim", "--set", "rows=" + rows, "--set", "cols=2"}, tinyNPU...), gemm...)
		code, out, serr := capture(t, simArgs...)
		if code != exitOK {
			t.Fatalf("hwgen %s: exit %d: %s", strings.Join(simArgs, " "), code, serr)
		}
		var cycles int
		line := out[strings.Index(out, "cycles "):]
		if _, err := fmt.Sscanf(line, "cycles %d", &cycles); err != nil {
			t.Fatalf("hwgen sim printed no cycles: %v\n%s", err, out)
		}
		if got := string(recs[i].Point["rows"]); got != rows {
			t.Errorf("point %d has rows = %s, want %s", i, got, rows)
		}
		if recs[i].Cycles != cycles || recs[i].Invalid != "" {
			t.Errorf("rows=%s: explore says %d cycles (invalid %q), hwgen sim %d", rows, recs[i].Cycles, recs[i].Invalid, cycles)
		}
	}
	if recs[0].Cycles == recs[1].Cycles {
		t.Errorf("both points take %d cycles: the sweep did not change the NPU", recs[0].Cycles)
	}

	code, whole, stderr := capture(t, args...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	dir := t.TempDir()
	var files []string
	for i := range 2 {
		f := filepath.Join(dir, fmt.Sprintf("s%d.json", i))
		if code, _, stderr := capture(t, append(args, "--shard", fmt.Sprintf("%d/2", i), "--result", f)...); code != exitOK {
			t.Fatalf("shard %d/2: exit %d: %s", i, code, stderr)
		}
		files = append(files, f)
	}
	code, merged, stderr := capture(t, append([]string{"merge"}, files[1], files[0])...)
	if code != exitOK {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	if diff := cmp.Diff(whole, merged); diff != "" {
		t.Errorf("merged shards (+) differ from the whole run (-):\n%s", diff)
	}
	for _, r := range recs {
		if !strings.Contains(whole, fmt.Sprintf(" %d | ", r.Cycles)) {
			t.Errorf("the table has no row with %d cycles:\n%s", r.Cycles, whole)
		}
	}
}

// With ppa, a point's row has the generic target's figures of its NPU.
func TestExplorePPAGeneric(t *testing.T) {
	tooltest.Need(t, "yosys")
	// The smallest NPU we could make: synthesis takes about 25 s of CPU.
	args := []string{"explore", "--m", "4", "--k", "4", "--n", "4"}
	for _, s := range []string{"rows=2", "cols=1", "state_depth=16", "psum_depth=16", "weight_depth=16", "line_depth=4", "acc_width=16",
		"counter_width=16", "queue_depth=2", "window=4", "max_deps=1", "queues=1", "max_kernel=2", "ext_addr_width=8", "scale_width=8"} {
		args = append(args, "--set", s)
	}
	dir := t.TempDir()
	result := filepath.Join(dir, "r.json")
	code, stdout, stderr := capture(t, append(args, "--result", result)...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// The row of the table: the columns by their heads.
	table := tableCells(stdout)
	if len(table) != 2 {
		t.Fatalf("want a head and one row:\n%s", stdout)
	}
	heads, row := table[0], table[1]
	cell := func(head string) int {
		for i, h := range heads {
			if h == head && i < len(row) {
				n, err := strconv.Atoi(row[i])
				if err != nil {
					t.Fatalf("%s = %q: %v\n%s", head, row[i], err, stdout)
				}
				return n
			}
		}
		t.Fatalf("no column %q:\n%s", head, stdout)
		return 0
	}
	cells, depth, cycles := cell("cells"), cell("logic depth"), cell("cycles")
	if cells <= 0 || depth <= 0 || cycles <= 0 {
		t.Errorf("cells %d, logic depth %d, cycles %d: want all positive\n%s", cells, depth, cycles, stdout)
	}
	// The row shows the measured figures the result file holds.
	f, err := shard.Read(result)
	if err != nil {
		t.Fatal(err)
	}
	var rec exploreRecord
	if len(f.Records) != 1 {
		t.Fatalf("%d records, want 1", len(f.Records))
	}
	if err := f.Records[0].Decode(&rec); err != nil {
		t.Fatal(err)
	}
	if rec.PPA == nil || rec.PPA.Cells != cells || rec.PPA.LogicDepth != depth || rec.Cycles != cycles {
		t.Errorf("the row says cells %d, logic depth %d, cycles %d; the record %+v (ppa %+v)", cells, depth, cycles, rec, rec.PPA)
	}
}

// tableCells are the cells of the Markdown table rows in out, the head
// first, without the rule.
func tableCells(out string) [][]string {
	var rows [][]string
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "|") || strings.HasPrefix(l, "|-") {
			continue
		}
		cells := strings.Split(strings.Trim(l, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		rows = append(rows, cells)
	}
	return rows
}

// The sample sweep of docs/cli.md has the cycles and MAC utilization that
// its command prints (run here without synthesis: the ppa columns are
// checked by TestExplorePPAGeneric).
func TestDocsExploreOutput(t *testing.T) {
	cmdLines := docBlock(t, "docs/cli.md", "so sweep cycles with")
	args := strings.Fields(strings.ReplaceAll(strings.Join(cmdLines, "\n"), "\\\n", " "))
	if len(args) < 2 || args[0] != "hwgen" || args[1] != "explore" {
		t.Fatalf("docs/cli.md command %q is not hwgen explore", args)
	}
	code, stdout, stderr := capture(t, append(args[1:], "--no-ppa")...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	sample := docBlock(t, "docs/cli.md", "--set state_depth=64 --set psum_depth=64 --set weight_depth=64\n```")
	var want [][]string
	for _, r := range tableCells(strings.Join(sample, "\n")) {
		want = append(want, r[:3]) // the point, cycles, MAC util
	}
	if diff := cmp.Diff(want, tableCells(stdout)); diff != "" {
		t.Errorf("docs/cli.md sample (-doc +hwgen explore --no-ppa):\n%s", diff)
	}
}

// explore --model sweeps a network: each point's cycles are hwgen run's
// on the Go simulator for that configuration, they differ between the
// points, and the shards merge into the whole table. The operation flags
// do not go with it.
func TestExploreModel(t *testing.T) {
	args := []string{"explore", "--no-ppa", "--model", mnistModel, "--set", "planar_lanes=2,16"}
	code, stdout, stderr := capture(t, append(args, "--json")...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var recs []exploreRecord
	if err := json.Unmarshal([]byte(stdout), &recs); err != nil {
		t.Fatalf("%v:\n%s", err, stdout)
	}
	if len(recs) != 2 {
		t.Fatalf("%d points, want 2:\n%s", len(recs), stdout)
	}
	for i, lanes := range []string{"2", "16"} {
		runArgs := []string{"run", "--model", mnistModel, "--set", "planar_lanes=" + lanes, "--input-seed", "1"}
		runArgs = append(runArgs, "--input", writeRandomInput(t, []int{1, 1, 28, 28}, 1), "--calib", writeRandomCalib(t, []int{1, 1, 28, 28}, 1, 4))
		code, out, serr := capture(t, runArgs...)
		if code != exitOK {
			t.Fatalf("hwgen %s: exit %d: %s", strings.Join(runArgs, " "), code, serr)
		}
		var cycles int
		line := out[strings.Index(out, "cycles "):]
		if _, err := fmt.Sscanf(line, "cycles %d", &cycles); err != nil {
			t.Fatalf("hwgen run printed no cycles: %v\n%s", err, out)
		}
		if recs[i].Cycles != cycles || recs[i].Invalid != "" {
			t.Errorf("planar_lanes=%s: explore says %d cycles (invalid %q), hwgen run %d", lanes, recs[i].Cycles, recs[i].Invalid, cycles)
		}
	}
	if recs[0].Cycles <= recs[1].Cycles {
		t.Errorf("2 post units take %d cycles, 16 take %d: want more with fewer", recs[0].Cycles, recs[1].Cycles)
	}
	code, whole, stderr := capture(t, args...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	dir := t.TempDir()
	var files []string
	for i := range 2 {
		f := filepath.Join(dir, fmt.Sprintf("s%d.json", i))
		if code, _, stderr := capture(t, append(args, "--shard", fmt.Sprintf("%d/2", i), "--result", f)...); code != exitOK {
			t.Fatalf("shard %d/2: exit %d: %s", i, code, stderr)
		}
		files = append(files, f)
	}
	code, merged, stderr := capture(t, "merge", files[0], files[1])
	if code != exitOK {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	if diff := cmp.Diff(whole, merged); diff != "" {
		t.Errorf("merged shards (+) differ from the whole run (-):\n%s", diff)
	}
	checkBad(t, []badCase{
		{"an operation flag", []string{"explore", "--no-ppa", "--model", mnistModel, "--m", "8"}, []string{"--m", "not with --model"}},
	})
}

// writeRandomInput writes the seeded random input hwgen run and explore
// take without --input as a .npy file.
func writeRandomInput(t *testing.T, shape []int, seed uint64) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), fmt.Sprintf("x%d.npy", seed))
	if err := writeFloatNPY(p, randomInput(shape, seed)); err != nil {
		t.Fatal(err)
	}
	return p
}

// writeRandomCalib writes the seeded calibration set of a random input of
// seed: n files, joined by commas for --calib.
func writeRandomCalib(t *testing.T, shape []int, seed uint64, n int) string {
	t.Helper()
	var files []string
	for i := range n {
		files = append(files, writeRandomInput(t, shape, seed+1+uint64(i)))
	}
	return strings.Join(files, ",")
}

// A model of batch N > 1 is explored on its first image: the program is
// one image's, and its cycles are those of the same net at batch 1.
func TestExploreBatchModel(t *testing.T) {
	dir := t.TempDir()
	cycles := map[int64]int{}
	for _, n := range []int64{3, 1} {
		model := batchConvModel(t, dir, fmt.Sprintf("b%d.onnx", n), n, 3)
		code, stdout, stderr := capture(t, "explore", "--no-ppa", "--model", model, "--json")
		if code != exitOK {
			t.Fatalf("batch %d: exit %d: %s", n, code, stderr)
		}
		var recs []exploreRecord
		if err := json.Unmarshal([]byte(stdout), &recs); err != nil {
			t.Fatalf("%v:\n%s", err, stdout)
		}
		if len(recs) != 1 || recs[0].Invalid != "" || recs[0].Cycles <= 0 {
			t.Fatalf("batch %d: want one valid point with cycles, got %+v", n, recs)
		}
		cycles[n] = recs[0].Cycles
	}
	if cycles[3] != cycles[1] {
		t.Errorf("batch 3 explores at %d cycles, batch 1 at %d: want one image's", cycles[3], cycles[1])
	}
}
