package workload

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
)

// Every operation runs with its default shapes alone: it compiles for the
// default NPU and the interpreter's result equals the golden reference.
func TestWorkloadDefaults(t *testing.T) {
	cfg := npu.DefaultConfig()
	for _, op := range Ops {
		t.Run(op, func(t *testing.T) {
			w := Workload{Op: op}.WithDefaults()
			if err := w.Validate(); err != nil {
				t.Fatal(err)
			}
			g, err := w.Graph(w.RandomInputs(nil))
			if err != nil {
				t.Fatal(err)
			}
			p, err := compiler.Compile(cfg, g)
			if err != nil {
				t.Fatal(err)
			}
			want, err := g.Reference(cfg)
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := compiler.Interpret(p)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-golden +interpreter):\n%s", diff)
			}
			if len(want["y"].Data) == 0 {
				t.Error("no output y")
			}
		})
	}
}

func TestWorkloadErrors(t *testing.T) {
	for _, tc := range []struct {
		w    Workload
		want string
	}{
		{Workload{Op: "fft"}, `op = "fft"`},
		{Workload{Op: "gemm", M: -1}, "m = -1"},
		{Workload{Op: "pool", Pool: "median"}, `pool = "median"`},
		{Workload{Op: "eltwise", Fn: "div"}, `fn = "div"`},
		{Workload{Op: "conv2d", Zeros: 120}, "zeros = 120"},
		{Workload{Op: "reduce", Fn: "add"}, `fn = "add" is not allowed for reduce: want sum, mean, max, rowsum, rowmean, rowmax`},
		{Workload{Op: "reduce", Post: "log"}, `post = "log" is not allowed: want none, sqrt, recip`},
		{Workload{Op: "reduce", Fn: "rowmean", Post: "sqrt"}, `post = "sqrt" is not allowed with fn = rowmean`},
		{Workload{Op: "reduce", Fn: "mean", Shift: 3}, `shift = 3 is not allowed with fn = mean`},
	} {
		err := tc.w.WithDefaults().Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want %q", tc.w, err, tc.want)
		}
	}
	w := Workload{Op: "gemm", M: 3}.WithDefaults()
	in := w.RandomInputs(nil)
	in["b"] = in["a"]
	if _, err := w.Graph(in); err == nil || !strings.Contains(err.Error(), `tensor "b" has shape`) {
		t.Errorf("wrong shape: err = %v", err)
	}
}

// Random inputs stay in the element range of the width asked for, and at
// 8 bits they are RandomInputs' tensors.
func TestRandomInputsOfWidth(t *testing.T) {
	w := Workload{Op: "gemm", M: 16, K: 16, N: 16, Seed: 5}
	if diff := cmp.Diff(w.RandomInputs(nil), w.RandomInputsOf(8, nil)); diff != "" {
		t.Errorf("8-bit draws differ from RandomInputs (-want +got):\n%s", diff)
	}
	for _, ew := range []int{2, 4, 6} {
		lo, hi := int64(0), int64(0)
		for _, tn := range w.RandomInputsOf(ew, nil) {
			for _, v := range tn.Data {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
		if lo != -(1<<(ew-1)) || hi != 1<<(ew-1)-1 {
			t.Errorf("elem width %d: values span %d..%d, want exactly %d..%d", ew, lo, hi, -(1 << (ew - 1)), 1<<(ew-1)-1)
		}
	}
}

// Every reduction of the reduce workload, with each post function it
// takes, compiles on the small configuration and the interpreter equals
// the golden reference.
func TestReduceWorkloads(t *testing.T) {
	for _, fn := range ReduceFns {
		for _, post := range []string{"", "sqrt", "recip"} {
			if post != "" && strings.HasSuffix(fn, "mean") {
				continue
			}
			t.Run(fn+"/"+post, func(t *testing.T) {
				w := Workload{Op: "reduce", Fn: fn, Post: post, C: 6, H: 5, W: 7, Relu: post == "recip"}.WithDefaults()
				if err := w.Validate(); err != nil {
					t.Fatal(err)
				}
				g, err := w.Graph(w.RandomInputs(nil))
				if err != nil {
					t.Fatal(err)
				}
				verifyGraph(t, small(), g, 1)
			})
		}
	}
}

// small is the compiler tests' small configuration: a 4×4 PE array.
func small() npu.Config {
	c := npu.DefaultConfig()
	c.Rows, c.Cols, c.StateDepth, c.PsumDepth, c.WeightDepth, c.ExtAddrWidth = 4, 4, 256, 64, 64, 10
	return c
}

// verifyGraph compiles g, runs it on the interpreter in program order and
// in random legal orders, checks every output against the golden
// reference and the dependencies statically (declared and traced
// accesses), as the compiler's own tests do.
func verifyGraph(t *testing.T, cfg npu.Config, g *compiler.Graph, orders int) {
	t.Helper()
	p, err := compiler.Compile(cfg, g)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	want, err := g.Reference(cfg)
	if err != nil {
		t.Fatalf("reference: %v", err)
	}
	got, _, err := compiler.Interpret(p)
	if err != nil {
		t.Fatalf("interpret: %v", err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("program order (-golden +interpreter):\n%s", d)
	}
	if err := compiler.CheckDeps(p, nil); err != nil {
		t.Fatalf("declared accesses: %v", err)
	}
	acc, err := compiler.TraceAccesses(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := compiler.CheckSpans(p, acc); err != nil {
		t.Fatal(err)
	}
	if err := compiler.CheckDeps(p, acc); err != nil {
		t.Fatalf("traced accesses: %v", err)
	}
	rng := rand.New(rand.NewPCG(7, uint64(len(p.Tasks))))
	for i := 0; i < orders; i++ {
		got, _, err := compiler.InterpretOrder(p, compiler.RandomOrder(p, rng))
		if err != nil {
			t.Fatalf("order %d: %v", i, err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("random order %d (-golden +interpreter):\n%s", i, d)
		}
	}
}
