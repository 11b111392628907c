package infer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

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
	// Candidates are the batch programs Compile simulated, with their
	// cycles; Program is the faster.
	Candidates []Candidate
}

// Candidate is one way to compile a batch and its simulated cycles.
type Candidate struct {
	Name    string // "interleaved" (compiler.CompileBatch) or "copies" (compiler.Batch of the plain program)
	Program *compiler.Program
	Cycles  int
}

// Compile compiles net for cfg, batch images per program. sample is any
// input of the net's shape (the program does not depend on its values).
// Two programs are candidates: the images interleaved on half buffers
// (compiler.CompileBatch) and the plain program's copies one after
// another (compiler.Batch); with a batch of more than one image both run
// once on the Go simulator, whose cycles do not depend on the data, and
// the faster is kept — no estimate ranks them reliably.
func Compile(net *lower.Net, sample *onnx.Array, cfg npu.Config, batch int) (*Model, error) {
	g, err := net.Graph(sample)
	if err != nil {
		return nil, err
	}
	bp, err := compiler.CompileBatch(cfg, g, batch, net.Input())
	if err != nil {
		return nil, err
	}
	m := &Model{Net: net, Config: cfg, Batch: batch, Program: bp}
	if batch < 2 {
		return m, nil
	}
	plain, err := compiler.Compile(cfg, g)
	if err != nil {
		return nil, err
	}
	copies, err := compiler.Batch(plain, batch, net.Input())
	if err != nil {
		return nil, err
	}
	for _, c := range []Candidate{{Name: "interleaved", Program: bp}, {Name: "copies", Program: copies}} {
		res, err := host.Run(cfg, c.Program, host.WithoutStimulus())
		if err != nil {
			return nil, fmt.Errorf("infer: the %s batch program: %w", c.Name, err)
		}
		c.Cycles = res.Cycles
		m.Candidates = append(m.Candidates, c)
	}
	if m.Candidates[1].Cycles < m.Candidates[0].Cycles {
		m.Program = copies
	}
	return m, nil
}

// Options tune a run.
type Options struct {
	Check    bool             // compare every output with the reference machine's
	Pipeline pipeline.Options // LockStep or FreeRunning, channel capacity
	Host     []host.Option    // for the device sessions (VCD, context)
	// Devices is the number of simulated NPUs (default 1). Each runs its
	// own share of the batches, consecutive ones, through a pipeline of
	// its own, all at once: one goroutine per device's stage, so a host
	// with several cores simulates several devices in the time of one.
	Devices int
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
	Devices []*Device     // one per simulated NPU
	Wall    time.Duration // the whole run, all devices
}

// Device is what one simulated NPU did.
type Device struct {
	First, Images int             // its share: images [First, First+Images)
	Stats         *pipeline.Stats // its pipeline's stage times and period log
	Runs          []*host.Result  // each batch's device run, in order (nil for a failed one)
	Session       *host.Session   // the device: its stimulus replays all its batches
}

// Runs is every batch's device run, device after device (so in image
// order).
func (r *Report) Runs() []*host.Result {
	var out []*host.Result
	for _, d := range r.Devices {
		out = append(out, d.Runs...)
	}
	return out
}

// Cycles is the device cycles of all batches on all devices (runs; the
// loading of each batch's inputs not counted).
func (r *Report) Cycles() int {
	n := 0
	for _, res := range r.Runs() {
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

// Run runs every image through the pipeline and the devices.
func (m *Model) Run(ctx context.Context, images []*onnx.Array, opt Options) ([]Result, *Report, error) {
	n := max(opt.Devices, 1)
	var batches []batchIn
	for i := 0; i < len(images); i += m.Batch {
		batches = append(batches, batchIn{first: i, images: images[i:min(i+m.Batch, len(images))]})
	}
	if n > max(len(batches), 1) {
		return nil, nil, fmt.Errorf("infer: %d devices for %d batches: at most one device per batch", n, len(batches))
	}
	t0 := time.Now()
	rep := &Report{Devices: make([]*Device, n)}
	results := make([][]Result, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for d := range n {
		share := batches[d*len(batches)/n : (d+1)*len(batches)/n]
		dev := &Device{}
		if len(share) > 0 {
			dev.First = share[0].first
			for _, b := range share {
				dev.Images += len(b.images)
			}
		}
		rep.Devices[d] = dev
		wg.Go(func() { results[d], errs[d] = m.runDevice(ctx, dev, share, opt) })
	}
	wg.Wait()
	rep.Wall = time.Since(t0)
	var all []Result
	for d := range n {
		all = append(all, results[d]...)
	}
	return all, rep, errors.Join(errs...)
}

// runDevice runs batches through a pipeline on one new device session,
// filling dev.
func (m *Model) runDevice(ctx context.Context, dev *Device, batches []batchIn, opt Options) ([]Result, error) {
	sess, err := host.NewSession(m.Config, m.Program, append(opt.Host, host.WithContext(ctx))...)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	dev.Session = sess
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
		dev.Runs = append(dev.Runs, res)
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
	outs, stats, err := p.Run(ctx, batches, opt.Pipeline)
	dev.Stats = stats
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
	return results, err
}
