package infer

import (
	"context"
	"fmt"
	"slices"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/lower"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/host"
	"github.com/hwgen/hwgen/host/pipeline"
)

// Model is a quantized net compiled for batches of Batch images.
type Model struct {
	Net     *lower.Net
	Config  npu.Config
	Batch   int
	Program *compiler.Program // the batch program
}

// Compile compiles net for cfg, batch images per program. sample is any
// input of the net's shape (the program does not depend on its values).
func Compile(net *lower.Net, sample *onnx.Array, cfg npu.Config, batch int) (*Model, error) {
	g, err := net.Graph(sample)
	if err != nil {
		return nil, err
	}
	bp, err := compiler.CompileBatch(cfg, g, batch, net.Input())
	if err != nil {
		return nil, err
	}
	return &Model{Net: net, Config: cfg, Batch: batch, Program: bp}, nil
}

// Options tune a run.
type Options struct {
	Check    bool             // compare every output with the reference machine's
	Pipeline pipeline.Options // LockStep or FreeRunning, channel capacity
	Host     []host.Option    // for the device session (VCD, context)
}

// Result is one image's outcome.
type Result struct {
	Index  int
	Logits *onnx.Array // dequantized
	Class  int         // top-1
	Err    error       // the failure of its batch, if any
}

// Report describes a run.
type Report struct {
	Stats   *pipeline.Stats
	Runs    []*host.Result // each batch's device run, in order (nil for a failed one)
	Session *host.Session  // the device: its stimulus replays the whole run
}

// Cycles is the device cycles of all batches (runs; the loading of each
// batch's inputs not counted).
func (r *Report) Cycles() int {
	n := 0
	for _, res := range r.Runs {
		if res != nil {
			n += res.Cycles
		}
	}
	return n
}

// batchIn is a batch on its way through the pipeline.
type batchIn struct {
	first  int
	images []*onnx.Array
}

type batchQ struct {
	first, n int
	inputs   map[string]*golden.Tensor
}

type batchOut struct {
	first, n int
	res      *host.Result
	inputs   map[string]*golden.Tensor
}

// Run runs every image through the pipeline and the device.
func (m *Model) Run(ctx context.Context, images []*onnx.Array, opt Options) ([]Result, *Report, error) {
	sess, err := host.NewSession(m.Config, m.Program, append(opt.Host, host.WithContext(ctx))...)
	if err != nil {
		return nil, nil, err
	}
	defer sess.Close()
	rep := &Report{Session: sess}
	in, out := m.Net.Input(), m.Net.Output()
	pre := pipeline.NewStage("pre", func(_ context.Context, b batchIn) (batchQ, error) {
		q := batchQ{first: b.first, n: len(b.images), inputs: map[string]*golden.Tensor{}}
		for k := 0; k < m.Batch; k++ {
			x := b.images[min(k, len(b.images)-1)] // a short last batch repeats its last image
			t, err := m.Net.QuantizeInput(x)
			if err != nil {
				return q, fmt.Errorf("image %d: %w", b.first+k, err)
			}
			q.inputs[compiler.BatchName(in, k)] = t
		}
		return q, nil
	})
	exec := pipeline.NewStage("exec", func(_ context.Context, q batchQ) (batchOut, error) {
		res, err := sess.Run(q.inputs)
		rep.Runs = append(rep.Runs, res)
		if err != nil {
			return batchOut{}, err
		}
		return batchOut{first: q.first, n: q.n, res: res, inputs: q.inputs}, nil
	})
	post := pipeline.NewStage("post", func(_ context.Context, b batchOut) ([]Result, error) {
		var ref map[string]*golden.Tensor
		if opt.Check {
			p := *m.Program
			p.Image = slices.Clone(m.Program.Image)
			for name, t := range b.inputs {
				if err := p.SetInput(name, t); err != nil {
					return nil, err
				}
			}
			var err error
			if ref, _, err = compiler.Interpret(&p); err != nil {
				return nil, fmt.Errorf("reference machine: %w", err)
			}
		}
		rs := make([]Result, b.n)
		for k := range rs {
			name := compiler.BatchName(out, k)
			got := b.res.Outputs[name]
			if ref != nil && !slices.Equal(ref[name].Data, got.Data) {
				return nil, fmt.Errorf("image %d: the NPU's output differs from the reference machine's", b.first+k)
			}
			y, err := m.Net.Dequantize(got)
			if err != nil {
				return nil, err
			}
			rs[k] = Result{Index: b.first + k, Logits: y, Class: onnx.Argmax(y.Data)}
		}
		return rs, nil
	})
	p := pipeline.Then(pipeline.Then(pipeline.New(pre), exec), post)
	var batches []batchIn
	for i := 0; i < len(images); i += m.Batch {
		batches = append(batches, batchIn{first: i, images: images[i:min(i+m.Batch, len(images))]})
	}
	outs, stats, err := p.Run(ctx, batches, opt.Pipeline)
	rep.Stats = stats
	var results []Result
	for bi, o := range outs {
		if o.Err != nil {
			for k := range batches[bi].images {
				results = append(results, Result{Index: batches[bi].first + k, Class: -1, Err: o.Err})
			}
			continue
		}
		results = append(results, o.Value...)
	}
	return results, rep, err
}
