package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/lower"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/host"
	"github.com/hwgen/hwgen/isa"
	"github.com/hwgen/hwgen/shard"
)

// runCommand names hwgen run --data's results for hwgen merge.
const runCommand = "run"

// dataArgs decide a data-set run's result: shards merge only when they
// agree on all of them. Header is the report's first lines; the rest is
// what the report needs besides the images' records.
type dataArgs struct {
	Model       string // file name and SHA-256 of its bytes
	Images      int
	CalibImages int
	Engine      string
	NPU         string
	Rounding    string
	Int8Output  bool
	Header      string
	Ideal       int64
	Layers      []string // conv/GEMM/FC layers in program order
	LayerMACs   []int64
	Rows, Cols  int
	NoCounters  bool   // perf_counters false: the NPU counts no MACs
	OutKind     string // int32 or int8
	Output      string
}

func newDataArgs(c *runCmd, cfg npu.Config, prog *compiler.Program, net *lower.Net, header string) dataArgs {
	model := c.Model
	if f, err := os.Open(c.Model); err == nil { // hashed as it is read: the model was loaded whole already
		h := sha256.New()
		if _, err := io.Copy(h, f); err == nil {
			model = fmt.Sprintf("%s sha256:%s", filepath.Base(c.Model), hex.EncodeToString(h.Sum(nil)[:8]))
		}
		f.Close()
	}
	a := dataArgs{Model: model, Images: c.images(), CalibImages: c.calibImages(), Engine: c.Engine, NPU: cfg.Name(),
		Rounding: c.Rounding, Int8Output: c.Int8Out, Header: header, Ideal: prog.Ideal,
		Rows: cfg.Rows, Cols: cfg.Cols, NoCounters: !cfg.PerfCounters, OutKind: outKind(net), Output: net.Output()}
	for _, t := range prog.Tasks {
		if layer := layerOf(t.Label); prog.LayerMACs[layer] > 0 && !slices.Contains(a.Layers, layer) {
			a.Layers = append(a.Layers, layer)
			a.LayerMACs = append(a.LayerMACs, prog.LayerMACs[layer])
		}
	}
	return a
}

// pass prints the verdict of a run in which every image matched.
func (a dataArgs) pass(w io.Writer, images int) {
	if a.Engine == "interp" {
		fmt.Fprintf(w, "result    PASS: on each of the %d images the reference machine's %s %s equals the golden models' bit for bit\n", images, a.OutKind, a.Output)
	} else {
		fmt.Fprintf(w, "result    PASS: on each of the %d images the NPU's %s %s equals the reference machine's and the golden models' bit for bit\n", images, a.OutKind, a.Output)
	}
}

// imageRecord is one image's outcome: its result record for hwgen merge.
type imageRecord struct {
	Label, Float, Quant int  // the label and the float and quantized top-1 classes
	Tie                 bool // the largest quantized logit is shared
	Cycles              int  // run cycles (simulators only)
	SimCycles           int  // with the image load and the read-back
	MACs, Skipped       uint64
	NEBusy              []int64 // per layer of dataArgs.Layers: cycles its NE tasks were busy
}

// classes records the top-1 classes of the float and quantized logits.
func (r *imageRecord) classes(float, quant []float32) {
	r.Float, r.Quant = onnx.Argmax(float), onnx.Argmax(quant)
	n := 0
	for _, v := range quant {
		if v == quant[r.Quant] {
			n++
		}
	}
	r.Tie = n > 1
}

// sim records a simulated run: its cycles and the cycles each layer's NE
// tasks were busy (the union of their spans, which overlap when the NE
// takes a task before the previous one is done).
func (r *imageRecord) sim(prog *compiler.Program, res *host.Result, layers []string) {
	r.Cycles, r.SimCycles = res.Cycles, res.Cycles+res.LoadCycles+res.ReadCycles
	r.MACs, r.Skipped = res.MACs, res.Skipped
	spans := map[string][][2]int{}
	for _, s := range res.Timeline {
		t := prog.Tasks[s.ID]
		if t.Engine() == isa.NE {
			spans[layerOf(t.Label)] = append(spans[layerOf(t.Label)], [2]int{s.Start, s.End})
		}
	}
	r.NEBusy = make([]int64, len(layers))
	for i, layer := range layers {
		r.NEBusy[i] = int64(union(spans[layer]))
	}
}

// dataStats accumulates a data-set run.
type dataStats struct {
	args                   dataArgs
	images                 int
	floatOK, int8OK, agree int
	ties, tiesWrong        int // images whose largest quantized logit is shared by classes, and of those top-1 errors
	runs                   int // simulated images
	neBusy                 []int64
	floatWall, goldenWall  time.Duration
	interpWall, simWall    time.Duration
	wall                   time.Duration
	minCycles, maxCycles   int
	sumCycles, sumSim      int64
	sumMACs, sumSkipped    uint64
}

func newDataStats(a dataArgs) *dataStats {
	return &dataStats{args: a, neBusy: make([]int64, len(a.Layers))}
}

// add counts one image.
func (st *dataStats) add(r imageRecord) {
	st.images++
	if r.Float == r.Label {
		st.floatOK++
	}
	if r.Quant == r.Label {
		st.int8OK++
	}
	if r.Float == r.Quant {
		st.agree++
	}
	if r.Tie {
		st.ties++
		if r.Quant != r.Label {
			st.tiesWrong++
		}
	}
	if r.Cycles == 0 {
		return
	}
	if st.runs == 0 || r.Cycles < st.minCycles {
		st.minCycles = r.Cycles
	}
	st.maxCycles = max(st.maxCycles, r.Cycles)
	st.runs++
	st.sumCycles += int64(r.Cycles)
	st.sumSim += int64(r.SimCycles)
	st.sumMACs += r.MACs
	st.sumSkipped += r.Skipped
	for i, b := range r.NEBusy {
		st.neBusy[i] += b
	}
}

// layerOf is the layer a task belongs to: the first word of its label
// (compiler.Program.LayerMACs).
func layerOf(label string) string {
	layer, _, _ := strings.Cut(label, " ")
	return layer
}

// union is the number of cycles the intervals [start, end) cover.
func union(iv [][2]int) int {
	slices.SortFunc(iv, func(a, b [2]int) int { return a[0] - b[0] })
	total, end := 0, -1<<62
	for _, v := range iv {
		lo := max(v[0], end)
		if v[1] > lo {
			total += v[1] - lo
		}
		end = max(end, v[1])
	}
	return total
}

func share(k, n int) string {
	return fmt.Sprintf("%.2f%% (%d/%d)", 100*float64(k)/float64(max(n, 1)), k, n)
}

// report prints the accuracy, cycles and per-layer utilization: what the
// records determine, the same for a run and its merged shards.
func (st *dataStats) report(w io.Writer) {
	n := st.images
	fmt.Fprintf(w, "accuracy  float top-1 %s, int8 top-1 %s (against the labels)\n", share(st.floatOK, n), share(st.int8OK, n))
	fmt.Fprintf(w, "agreement int8 and float top-1 agree on %s\n", share(st.agree, n))
	if st.ties > 0 {
		fmt.Fprintf(w, "ties      on %d images the largest quantized logit is shared by two or more classes (the first one counts); %d of them are top-1 errors\n", st.ties, st.tiesWrong)
	}
	if st.runs == 0 {
		return
	}
	a := st.args
	mean := float64(st.sumCycles) / float64(st.runs)
	fmt.Fprintf(w, "cycles    per image %.0f (min %d, max %d; ideal %d: MAC utilization %.1f%%); image load and read-back not counted\n",
		mean, st.minCycles, st.maxCycles, a.Ideal, 100*float64(a.Ideal)/mean)
	var parts []string
	for i, layer := range a.Layers {
		busy := float64(st.neBusy[i]) / float64(st.runs)
		parts = append(parts, fmt.Sprintf("%s %.1f%% (%d MACs over %d×%d × %.0f NE busy cycles)", layer, 100*float64(a.LayerMACs[i])/(float64(a.Rows*a.Cols)*busy), a.LayerMACs[i], a.Rows, a.Cols, busy))
	}
	fmt.Fprintf(w, "layers    PE-array utilization while a layer's NE tasks run: %s\n", strings.Join(parts, ", "))
	if a.NoCounters && st.sumMACs == 0 {
		fmt.Fprintf(w, "MACs      not counted: the NPU has no performance counters (perf_counters false)\n")
		return
	}
	fmt.Fprintf(w, "MACs      %.0f issued per image (%d×%d per vector), %.1f%% skipped by zero skipping\n",
		float64(st.sumMACs)/float64(st.runs), a.Rows, a.Cols, 100*float64(st.sumSkipped)/float64(max(st.sumMACs, 1)))
}

// speed prints the wall-clock figures (standard error: they differ from
// run to run, the report does not).
func (st *dataStats) speed(w io.Writer, engine string) {
	n := max(st.images, 1)
	per := func(d time.Duration) string { return (d / time.Duration(n)).Round(10 * time.Microsecond).String() }
	if engine == "interp" {
		fmt.Fprintf(w, "speed     %d images in %v: %.1f images/s, %.4f s wall per image (float executor %s, golden models %s, reference machine %s)\n",
			st.images, st.wall.Round(time.Millisecond), float64(st.images)/st.wall.Seconds(), st.wall.Seconds()/float64(n), per(st.floatWall), per(st.goldenWall), per(st.interpWall))
		return
	}
	fmt.Fprintf(w, "speed     %d images in %v: %.2f images/s, %.3f s wall per image (Go simulator %s, %.0f simulated cycles/s; float executor %s, golden models %s, reference machine %s)\n",
		st.images, st.wall.Round(time.Millisecond), float64(st.images)/st.wall.Seconds(), st.wall.Seconds()/float64(n), per(st.simWall),
		float64(st.sumSim)/st.simWall.Seconds(), per(st.floatWall), per(st.goldenWall), per(st.interpWall))
}

// mergeRun prints the report of a sharded hwgen run --data.
func mergeRun(m *shard.Merged, w io.Writer) error {
	if gap := m.FirstMissing(); gap >= 0 {
		return fmt.Errorf("merge: shard %s has no result for image %d: it stopped early (%s)", m.ShardOf(gap), gap, m.Stopped(m.ShardOf(gap), "a failed image"))
	}
	var a dataArgs
	if err := m.DecodeArgs(&a); err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	st := newDataStats(a)
	for _, r := range m.Records {
		var rec imageRecord
		if err := r.Decode(&rec); err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		st.add(rec)
	}
	fmt.Fprint(w, a.Header)
	st.report(w)
	a.pass(w, st.images)
	return nil
}
