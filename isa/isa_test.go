package isa_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/isa"
	"github.com/hwgen/hwgen/isa/planar"
)

func codec(engines int) *isa.Codec {
	pc := planar.Sizes{Lanes: 16, PsumLanes: 16, ElemWidth: 8, ElemSigned: true, AccWidth: 32, ScaleWidth: 16,
		StateDepth: 4096, PsumDepth: 512, MaxKernel: 8, LineDepth: 64}
	return isa.NewCodec(isa.Sizes{Rows: pc.Lanes, Cols: pc.PsumLanes, StateDepth: 4096, PsumDepth: 512, WeightDepth: 1024,
		Engines: engines, Planar: pc})
}

// The engine table: op codes fit the op field, names and codes are
// unique, every code looks up, and the op port of every engine holds its
// largest code.
func TestEngineTable(t *testing.T) {
	for e, def := range isa.Engines {
		if def.Engine != isa.Engine(e) {
			t.Errorf("Engines[%d] is engine %d", e, def.Engine)
		}
		seen := map[isa.Op]bool{}
		for _, op := range def.Ops {
			if op.Code >= 1<<isa.OpBits || seen[op.Code] {
				t.Errorf("%s: op %s code %d out of range or repeated", def.Name, op.Name, op.Code)
			}
			seen[op.Code] = true
			if c, ok := isa.Engine(e).OpCode(op.Name); !ok || c != op.Code || !isa.Engine(e).ValidOp(op.Code) {
				t.Errorf("%s: lookup of %s gives %d %v", def.Name, op.Name, c, ok)
			}
			if op.Code >= 1<<isa.Engine(e).OpWidth() {
				t.Errorf("%s: op %s code %d does not fit the %d-bit op port", def.Name, op.Name, op.Code, isa.Engine(e).OpWidth())
			}
		}
		if isa.Engine(e).ValidOp(15) {
			t.Errorf("%s accepts op 15", def.Name)
		}
	}
	if isa.Engine(5).ValidOp(0) {
		t.Errorf("engine 5 accepts op 0")
	}
	got := map[string]int{}
	for _, def := range isa.Engines {
		got[def.Name] = def.Engine.OpWidth()
	}
	if diff := cmp.Diff(map[string]int{"dma_in": 2, "ne": 2, "planar": 3, "dma_out": 2, "sparse": 2}, got); diff != "" {
		t.Errorf("op port widths (-want +got):\n%s", diff)
	}
}

// checkOperands asserts that an encoded task sets no operand outside its
// op's Operands (a lean task manager does not pass the others on).
func checkOperands(t *testing.T, d isa.Descriptor) {
	t.Helper()
	var op isa.OpDef
	for _, o := range isa.Engines[d.Engine].Ops {
		if o.Code == d.Op {
			op = o
		}
	}
	listed := map[string]bool{}
	for _, name := range strings.Fields(op.Operands) {
		listed[name] = true
	}
	param := uint64(0)
	for _, w := range d.Param {
		param |= w
	}
	for name, v := range map[string]uint64{"src": d.Src, "aux": d.Aux, "dst": d.Dst, "d0": d.D0, "d1": d.D1, "d2": d.D2, "param": param} {
		if v != 0 && !listed[name] {
			t.Errorf("%s %s sets %s = %d, not one of its operands %q", d.Engine, op.Name, name, v, op.Operands)
		}
	}
}

// The operands each engine reads: the union over its ops, the sparse
// engine's ops only with the sparse engine; every name an operand.
func TestEngineOperands(t *testing.T) {
	known := map[string]bool{}
	for _, name := range isa.OperandNames {
		known[name] = true
	}
	for _, def := range isa.Engines {
		for _, op := range def.Ops {
			for _, name := range strings.Fields(op.Operands) {
				if !known[name] {
					t.Errorf("%s %s: operand %q is not one of %v", def.Name, op.Name, name, isa.OperandNames)
				}
			}
		}
	}
	for _, sparse := range []bool{false, true} {
		got := map[string][]string{}
		for _, def := range isa.Engines {
			got[def.Name] = def.Engine.Operands(sparse)
		}
		all := []string{"src", "aux", "dst", "d0", "d1", "d2", "param"}
		want := map[string][]string{"dma_in": {"src", "dst", "d0", "d1", "d2"}, "ne": all,
			"planar": {"src", "aux", "dst", "d0", "d1", "param"}, "dma_out": {"src", "dst", "d0", "d1", "d2"}, "sparse": nil}
		if sparse {
			want["sparse"] = all
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("sparse %v: operands by engine (-want +got):\n%s", sparse, diff)
		}
	}
}

func poolTask() planar.Task {
	return planar.Task{Op: planar.OpPool, Fn: planar.FnPoolMin, Mask: 0xff, Src: 10, Dst: 300, H: 6, W: 7,
		KH: 3, KW: 2, Stride: 2, PadH: 1, PadW: 1, Scale: 1, Relu: true, Lo: -3, Hi: 5, Clamp: true}
}

// Every task type survives Encode and Decode unchanged, on one engine and
// on several (where the NE names its unit).
func TestRoundTrip(t *testing.T) {
	elt := planar.Task{Op: planar.OpEltwise, Fn: planar.FnSub, Mask: 3, Src: 1, Dst: 20, H: 2, W: 3, ScalarOperand: true,
		Scalar: -7, Scale: -300, Bias: -5, Shift: 4, RoundEven: true}
	ignoring := poolTask()
	ignoring.PadIgnore = true
	wrap := planar.Task{Op: planar.OpAct, Mask: 5, Src: 2, Dst: 9, H: 1, W: 4, Scale: 1, Bias: -70000, Shift: 16, Wrap: true}
	bcast := planar.Task{Op: planar.OpEltwise, Fn: planar.FnMul, Mask: 7, Src: 1, Src2: 90, Dst: 20, H: 2, W: 3, Scale: 1, Broadcast: true}
	tasks := []isa.Task{
		isa.Nop{On: isa.DMAIn}, isa.Nop{On: isa.Planar},
		isa.Load{Ext: 100, State: 5, Lines: 3, Rows: 2, Stride: 7},
		isa.LoadWeights{Ext: 9, Row: 32, Lines: 16, Rows: 1, Stride: 16},
		isa.Store{State: 40, Ext: 1000, Lines: 8, Rows: 4, Stride: 64},
		isa.Transpose{Src: 12, Psum: 3, Rows: 16, Cols: 5},
		isa.Conv{Src: 4, Weights: 48, Psum: 7, H: 9, W: 8, Tiles: 2, KH: 3, KW: 3, Stride: 2, PadH: 1, PadW: 1, OH: 5, OW: 4, Acc: true},
		isa.Conv{GEMM: true, Src: 0, Weights: 0, Psum: 0, H: 64, W: 1, Tiles: 4, KH: 1, KW: 1, Stride: 1, OH: 64, OW: 1},
		isa.PlanarTask{Task: poolTask()}, isa.PlanarTask{Task: ignoring}, isa.PlanarTask{Task: elt}, isa.PlanarTask{Task: wrap},
		isa.PlanarTask{Task: bcast},
		isa.PlanarTask{Task: planar.Task{Op: planar.OpReduce, Fn: planar.FnRowSum, Mask: 1, Src: 3, Dst: 40, H: 4, W: 5, Scale: 3, Bias: 100, Shift: 40, Post: planar.PostRecip}},
	}
	for _, engines := range []int{1, 4} {
		c := codec(engines)
		for _, tk := range tasks {
			if conv, ok := tk.(isa.Conv); ok && engines > 1 {
				conv.Unit = 2
				tk = conv
			}
			d, err := c.Encode(tk)
			if err != nil {
				t.Fatalf("engines %d: Encode %+v: %v", engines, tk, err)
			}
			if d.Engine != tk.Engine() || d.Op != tk.Op() {
				t.Errorf("engines %d: %T encodes as %s op %d", engines, tk, d.Engine, d.Op)
			}
			checkOperands(t, d)
			back, err := c.Decode(d)
			if err != nil {
				t.Fatalf("engines %d: Decode %+v: %v", engines, d, err)
			}
			if diff := cmp.Diff(tk, back); diff != "" {
				t.Errorf("engines %d: %T round trip (-want +got):\n%s", engines, tk, diff)
			}
		}
	}
}

// Encode names the field a value does not fit, and Decode refuses codes
// the table lacks.
func TestEncodeErrors(t *testing.T) {
	bad := poolTask()
	bad.Fn = 7
	cases := []struct {
		name string
		c    *isa.Codec
		t    isa.Task
		want string
	}{
		{"padding beyond the 4-bit field", codec(1), isa.Conv{KH: 3, KW: 3, Stride: 1, PadH: 16, OH: 1, OW: 1, H: 1, W: 1, Tiles: 1}, "pad_h = 16 does not fit 4 bits"},
		{"output plane beyond the state depth", codec(1), isa.Conv{KH: 1, KW: 1, Stride: 1, OH: 8192, OW: 1, H: 1, W: 1, Tiles: 1}, "oh = 8192 does not fit 13 bits"},
		{"a unit on a one-engine NPU", codec(1), isa.Conv{KH: 1, KW: 1, Stride: 1, OH: 1, OW: 1, Unit: 1}, "engine 1 named"},
		{"unit beyond any-engine", codec(2), isa.Conv{KH: 1, KW: 1, Stride: 1, OH: 1, OW: 1, Unit: 4}, "engine = 4 does not fit 2 bits"},
		{"a planar function the pool lacks", codec(1), isa.PlanarTask{Task: bad}, "fn"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.c.Encode(tc.t)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Encode error %v, want one containing %q", err, tc.want)
			}
		})
	}
	if _, err := codec(1).Decode(isa.Descriptor{Engine: isa.DMAOut, Op: 2}); err == nil {
		t.Errorf("Decode accepted dma_out op 2 (store_sparse) on an NPU without the sparse engine")
	}
	if got := codec(1).NE.Max("pad_h"); got != 15 {
		t.Errorf("NE pad_h limit %d, want 15", got)
	}
}

// Access names the memory and addresses of every operand.
func TestAccess(t *testing.T) {
	c := codec(1)
	S := func(m isa.Mem, lo, hi int) isa.Span { return isa.Span{Mem: m, Lo: lo, Hi: hi} }
	cases := []struct {
		t             isa.Task
		reads, writes []isa.Span
	}{
		{isa.Load{Ext: 100, State: 5, Lines: 3, Rows: 2, Stride: 7}, []isa.Span{S(isa.MemExt, 100, 103), S(isa.MemExt, 107, 110)}, []isa.Span{S(isa.MemState, 5, 11)}},
		{isa.LoadWeights{Ext: 9, Row: 32, Lines: 16, Rows: 1, Stride: 16}, []isa.Span{S(isa.MemExt, 9, 25)}, []isa.Span{S(isa.MemWeight, 32, 48)}},
		{isa.Store{State: 40, Ext: 1000, Lines: 8, Rows: 2, Stride: 64}, []isa.Span{S(isa.MemState, 40, 56)}, []isa.Span{S(isa.MemExt, 1000, 1008), S(isa.MemExt, 1064, 1072)}},
		{isa.Transpose{Src: 12, Psum: 3, Rows: 16, Cols: 5}, []isa.Span{S(isa.MemState, 12, 17)}, []isa.Span{S(isa.MemPsum, 3, 19)}},
		// 3×3 stride 1 pad 1 over two 6×4 tiles, 4 output rows: rows 0..4
		// of each tile are read ((4-1)·1 + 3 - 1 = 5 rows), 18 passes of 16
		// weight rows, the psums read back because the first pass accumulates.
		{isa.Conv{Src: 100, Weights: 32, Psum: 8, H: 6, W: 4, Tiles: 2, KH: 3, KW: 3, Stride: 1, PadH: 1, PadW: 1, OH: 4, OW: 4, Acc: true},
			[]isa.Span{S(isa.MemWeight, 32, 32+18*16), S(isa.MemState, 100, 120), S(isa.MemState, 124, 144), S(isa.MemPsum, 8, 24)}, []isa.Span{S(isa.MemPsum, 8, 24)}},
		// Pooling 6×7 with a 3×2 window, stride 2, pad 1: a 3×4 output.
		{isa.PlanarTask{Task: poolTask()}, []isa.Span{S(isa.MemState, 10, 52)}, []isa.Span{S(isa.MemState, 300, 312)}},
		{isa.PlanarTask{Task: planar.Task{Op: planar.OpAct, Mask: 1, Src: 5, Dst: 50, H: 2, W: 3, Scale: 1}}, []isa.Span{S(isa.MemPsum, 5, 11)}, []isa.Span{S(isa.MemState, 50, 56)}},
		// A reduction across rows writes one row.
		{isa.PlanarTask{Task: planar.Task{Op: planar.OpReduce, Fn: planar.FnRowSum, Mask: 1, Src: 5, Dst: 50, H: 2, W: 3, Scale: 1}},
			[]isa.Span{S(isa.MemState, 5, 11)}, []isa.Span{S(isa.MemState, 50, 53)}},
		// A broadcast reads one element at src2; abs does not read src2.
		{isa.PlanarTask{Task: planar.Task{Op: planar.OpEltwise, Fn: planar.FnAdd, Mask: 1, Src: 5, Src2: 90, Dst: 50, H: 2, W: 3, Scale: 1, Broadcast: true}},
			[]isa.Span{S(isa.MemState, 5, 11), S(isa.MemState, 90, 91)}, []isa.Span{S(isa.MemState, 50, 56)}},
		{isa.PlanarTask{Task: planar.Task{Op: planar.OpEltwise, Fn: planar.FnAbs, Mask: 1, Src: 5, Src2: 90, Dst: 50, H: 2, W: 3, Scale: 1}},
			[]isa.Span{S(isa.MemState, 5, 11)}, []isa.Span{S(isa.MemState, 50, 56)}},
		{isa.Nop{On: isa.NE}, nil, nil},
	}
	for _, tc := range cases {
		rd, wr := c.Access(tc.t)
		if diff := cmp.Diff(tc.reads, rd); diff != "" {
			t.Errorf("%T reads (-want +got):\n%s", tc.t, diff)
		}
		if diff := cmp.Diff(tc.writes, wr); diff != "" {
			t.Errorf("%T writes (-want +got):\n%s", tc.t, diff)
		}
	}
}

// Relocate moves each operand by its memory's offset; NE tasks address
// their own slice and stay.
func TestRelocate(t *testing.T) {
	o := isa.Offsets{isa.MemExt: 1000, isa.MemState: 4096, isa.MemWeight: 1024, isa.MemPsum: 512}
	act := planar.Task{Op: planar.OpAct, Src: 5, Dst: 50}
	eltScalar := planar.Task{Op: planar.OpEltwise, Src: 1, Src2: 2, Dst: 3, ScalarOperand: true}
	cases := []struct{ in, want isa.Task }{
		{isa.Load{Ext: 1, State: 2, Lines: 3}, isa.Load{Ext: 1001, State: 4098, Lines: 3}},
		{isa.LoadWeights{Ext: 1, Row: 2}, isa.LoadWeights{Ext: 1001, Row: 1026}},
		{isa.Store{State: 2, Ext: 1}, isa.Store{State: 4098, Ext: 1001}},
		{isa.Conv{Src: 1, Weights: 2, Psum: 3}, isa.Conv{Src: 1, Weights: 2, Psum: 3}},
		{isa.PlanarTask{Task: act}, isa.PlanarTask{Task: planar.Task{Op: planar.OpAct, Src: 517, Dst: 4146}}},
		{isa.PlanarTask{Task: eltScalar}, isa.PlanarTask{Task: planar.Task{Op: planar.OpEltwise, Src: 4097, Src2: 2, Dst: 4099, ScalarOperand: true}}},
	}
	for _, tc := range cases {
		if diff := cmp.Diff(tc.want, isa.Relocate(tc.in, o)); diff != "" {
			t.Errorf("Relocate %T (-want +got):\n%s", tc.in, diff)
		}
	}
}
