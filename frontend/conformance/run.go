package conformance

import (
	"errors"
	"fmt"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/golden"
)

// Status is a test's outcome.
type Status int

const (
	Pass        Status = iota // the NPU's output equals the expected one exactly
	Host                      // a host conversion (no NPU work), equal to the expected output
	Fail                      // the NPU ran it and an element differs
	Unsupported               // the NPU cannot run it (Detail says why)
)

var statusNames = [...]string{"pass", "pass (host)", "fail", "unsupported"}

func (s Status) String() string { return statusNames[s] }

// Result is one test's outcome.
type Result struct {
	Name, Op string
	Status   Status
	Detail   string // what ran, how far off, or why not
}

// Engine runs a compiled program and returns its outputs.
type Engine func(p *compiler.Program) (map[string]*golden.Tensor, error)

// Interp runs programs on the compiler's reference machine.
func Interp(p *compiler.Program) (map[string]*golden.Tensor, error) {
	out, _, err := compiler.Interpret(p)
	return out, err
}

// job is a test mapped onto the NPU: the graph (output "y"), the
// configuration it needs and the expected output as integers.
type job struct {
	g    *compiler.Graph
	cfg  npu.Config
	want *golden.Tensor
	note string // how the test was mapped
	// outputs are the graph outputs whose concatenation is the result;
	// nil means the one output "y".
	outputs []string
}

// mapper maps a test onto the NPU of base's shape, or says why it
// cannot (an unsupported error), or computes a host conversion itself
// (a nil job and a Result).
type mapper func(c *Case, base npu.Config) (*job, *Result, error)

// mappers is the mapper of every op of Ops, keyed by op name (a test
// keeps the keys and onnx.OpTable in step).
var mappers = map[string]mapper{
	"ConvInteger": convTest, "QLinearConv": convTest, "Conv": convTest,
	"MatMulInteger": gemmTest, "QLinearMatMul": gemmTest, "MatMul": gemmTest, "Gemm": gemmTest,
	"MaxPool": poolTest, "AveragePool": poolTest, "GlobalAveragePool": poolTest, "GlobalMaxPool": poolTest,
	"Add": eltTest, "Min": eltTest, "Max": eltTest, "Relu": eltTest, "Clip": eltTest, "Abs": eltTest,
	"ReduceSum": reduceTest, "ReduceMean": reduceTest, "ReduceMax": reduceTest,
	"Sqrt": postTest, "Reciprocal": postTest,
	"Transpose":        transposeTest,
	"QuantizeLinear":   quantizeTest,
	"DequantizeLinear": dequantizeTest,
	"Flatten":          viewTest, "Reshape": viewTest,
}

// Run maps c onto an NPU configured like base (its element width set to
// what the test's values need), compiles it, runs it on engine and
// compares with the expected output.
func Run(c *Case, base npu.Config, engine Engine) Result {
	r := Result{Name: c.Name, Op: c.Op}
	m, ok := mappers[c.Op]
	if len(c.Model.Graph.Nodes) != 1 || !ok {
		r.Status, r.Detail = Unsupported, "not a single-node test of a mapped op"
		return r
	}
	if len(c.Outputs) != 1 {
		r.Status, r.Detail = Unsupported, fmt.Sprintf("%d outputs; the mapped ops have one", len(c.Outputs))
		return r
	}
	j, host, err := m(c, base)
	var u unsupported
	switch {
	case errors.As(err, &u):
		r.Status, r.Detail = Unsupported, u.Error()
		return r
	case err != nil:
		r.Status, r.Detail = Fail, err.Error()
		return r
	case host != nil:
		host.Name, host.Op = r.Name, r.Op
		return *host
	}
	if err := j.g.Err(); err != nil {
		r.Status, r.Detail = Unsupported, "the compiler graph: "+err.Error()
		return r
	}
	p, err := compiler.Compile(j.cfg, j.g)
	if err != nil {
		r.Status, r.Detail = Unsupported, err.Error()
		return r
	}
	out, err := engine(p)
	if err != nil {
		r.Status, r.Detail = Fail, err.Error()
		return r
	}
	r.Status, r.Detail = compare(j.result(out), j.want)
	r.Detail = fmt.Sprintf("%s; elem_width %d; %s", j.note, j.cfg.ElemWidth, r.Detail)
	return r
}

// compare counts the differing elements and the largest difference.
func compare(got, want *golden.Tensor) (Status, string) {
	if got == nil || len(got.Data) != len(want.Data) {
		return Fail, fmt.Sprintf("output missing or of the wrong size (want %d elements)", len(want.Data))
	}
	bad, worst := 0, int64(0)
	for i := range want.Data {
		if d := got.Data[i] - want.Data[i]; d != 0 {
			bad++
			worst = max(worst, d, -d)
		}
	}
	if bad == 0 {
		return Pass, fmt.Sprintf("%d elements exact", len(want.Data))
	}
	return Fail, fmt.Sprintf("%d of %d elements differ, by up to %d LSB", bad, len(want.Data), worst)
}

// result concatenates the job's outputs.
func (j *job) result(out map[string]*golden.Tensor) *golden.Tensor {
	if j.outputs == nil {
		return out["y"]
	}
	all := &golden.Tensor{}
	for _, name := range j.outputs {
		t := out[name]
		if t == nil {
			return nil
		}
		all.Data = append(all.Data, t.Data...)
	}
	all.Shape = []int{len(all.Data)}
	return all
}
