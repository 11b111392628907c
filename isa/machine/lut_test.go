package machine

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/isa/planar"
)

// lutSizes is smallSizes with the lookup table: 256 entries over 4
// lanes, 64 rows.
func lutSizes() planar.Sizes {
	s := smallSizes()
	s.LUT = true
	return s
}

// newMems is a zero state and psum buffer of s.
func newMems(s planar.Sizes) *PlanarMemories {
	return &PlanarMemories{State: grid(s.Lanes, s.StateDepth), Psum: grid(s.PsumLanes, s.PsumDepth),
		Scale: make([]int64, s.Lanes), Bias: make([]int64, s.Lanes)}
}

// A loadtable takes entry k from lane k mod L at src + k div L; a lut
// task writes the entry of the element its post-processor produced
// (saturated or wrapped), for every operation with a post-processor;
// writeback ignores the flag. The table is zero before the first load.
func TestLookupTable(t *testing.T) {
	s := lutSizes()
	m := newMems(s)
	// Table: entry k (the value k − 128) is 3·(k − 128), wrapped to int8
	// as the state buffer holds it, at 100 + k/4 in lane k%4.
	want := make([]int64, 256)
	for k := range want {
		want[k] = int64(int8(3 * (k - 128)))
		m.State[k%4][100+k/4] = want[k]
	}
	in := []int64{-128, -2, 0, 5, 127}
	copy(m.State[1][10:], in)
	copy(m.Psum[1][20:], []int64{-1000, -2, 0, 5, 1000})
	entry := func(v int64) int64 { return want[v+128] }

	// Before any load the table is zero.
	pre := planar.Task{Op: planar.OpEltwise, Fn: planar.FnAbs, Mask: 2, Src: 10, Dst: 40, H: 1, W: 5, Scale: 1, Lut: true}
	run := func(task planar.Task) []int64 {
		t.Helper()
		if err := task.Validate(s); err != nil {
			t.Fatal(err)
		}
		if err := RunPlanar(s, task, m); err != nil {
			t.Fatal(err)
		}
		return append([]int64(nil), m.State[1][task.Dst:task.Dst+5]...)
	}
	if diff := cmp.Diff(make([]int64, 5), run(pre)); diff != "" {
		t.Errorf("lut before a loadtable (-want +got):\n%s", diff)
	}
	run(planar.Task{Op: planar.OpLoadTable, Mask: 0xf, Src: 100})
	if diff := cmp.Diff(want, m.Table); diff != "" {
		t.Fatalf("table (-want +got):\n%s", diff)
	}
	cases := []struct {
		name string
		task planar.Task
		want []int64
	}{
		{"eltwise add 0", planar.Task{Op: planar.OpEltwise, Mask: 2, Src: 10, Dst: 40, H: 1, W: 5, Scale: 1, ScalarOperand: true, Lut: true},
			[]int64{entry(-128), entry(-2), entry(0), entry(5), entry(127)}},
		{"eltwise abs: the index is |−128| saturated", planar.Task{Op: planar.OpEltwise, Fn: planar.FnAbs, Mask: 2, Src: 10, Dst: 50, H: 1, W: 5, Scale: 1, Lut: true},
			[]int64{entry(127), entry(2), entry(0), entry(5), entry(127)}},
		{"act saturates, then looks up", planar.Task{Op: planar.OpAct, Mask: 2, Src: 20, Dst: 60, H: 1, W: 5, Scale: 1, Lut: true},
			[]int64{entry(-128), entry(-2), entry(0), entry(5), entry(127)}},
		{"act wraps, then looks up", planar.Task{Op: planar.OpAct, Mask: 2, Src: 20, Dst: 70, H: 1, W: 5, Scale: 1, Wrap: true, Lut: true},
			[]int64{entry(24), entry(-2), entry(0), entry(5), entry(-24)}}, // ±1000 mod 256 = ±232 → ∓24
		{"writeback ignores lut", planar.Task{Op: planar.OpWriteBack, Mask: 2, Src: 20, Dst: 80, H: 1, W: 5, Lut: true},
			[]int64{-128, -2, 0, 5, 127}},
	}
	for _, tc := range cases {
		if diff := cmp.Diff(tc.want, run(tc.task)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

// An unsigned element indexes the table by its value; a table narrower
// than the lanes fills lanes 0..2^E−1 in one row.
func TestLookupTableUnsigned(t *testing.T) {
	s := planar.Sizes{Lanes: 8, PsumLanes: 8, ElemWidth: 2, AccWidth: 8, ScaleWidth: 4, StateDepth: 16, PsumDepth: 16,
		MaxKernel: 2, LineDepth: 4, LUT: true}
	if s.TableRows() != 1 || s.TableLanes() != 4 {
		t.Fatalf("rows %d, lanes %d; want 1 and 4", s.TableRows(), s.TableLanes())
	}
	m := newMems(s)
	for p, v := range []int64{3, 0, 2, 1, 3, 3, 3, 3} {
		m.State[p][5] = v
	}
	copy(m.State[6][0:], []int64{0, 1, 2, 3})
	for _, task := range []planar.Task{{Op: planar.OpLoadTable, Mask: 0xf, Src: 5},
		{Op: planar.OpEltwise, Mask: 0x40, Src: 0, Dst: 8, H: 2, W: 2, Scale: 1, ScalarOperand: true, Lut: true}} {
		if err := task.Validate(s); err != nil {
			t.Fatal(err)
		}
		if err := RunPlanar(s, task, m); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]int64{3, 0, 2, 1}, m.State[6][8:12]); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// Every operation of isa/planar has the machine's semantics: a valid
// task of each runs (a new op without a case in RunPlanar fails here),
// and each takes the lut flag where it has a post-processor.
func TestOpsHaveGolden(t *testing.T) {
	s := lutSizes()
	for op := range planar.NumOps {
		task := planar.Task{Op: op, Mask: 0xf, Src: 0, Dst: 128, H: 2, W: 2, KH: 1, KW: 1, Stride: 1, Scale: 1}
		if op == planar.OpAct || op == planar.OpWriteBack {
			task.Mask = 0x7
		}
		for _, lut := range []bool{false, true} {
			task.Lut = lut
			if err := task.Validate(s); err != nil {
				t.Fatalf("%s: %v", op, err)
			}
			if err := RunPlanar(s, task, newMems(s)); err != nil {
				t.Errorf("%s (lut %v): %v", op, lut, err)
			}
		}
	}
}

// Without a table, loadtable is an unknown operation and the lut flag
// an unknown post stage, with the hardware's codes.
func TestLookupNeedsTable(t *testing.T) {
	s := smallSizes()
	cases := []struct {
		task planar.Task
		code planar.ErrCode
		msg  string
	}{
		{planar.Task{Op: planar.OpLoadTable, Mask: 0xf}, planar.ErrOp, "op = 7 is not allowed: loadtable needs the lookup table, which this engine lacks (lut = false)"},
		{planar.Task{Op: planar.OpAct, Mask: 1, H: 1, W: 1, Dst: 9, Scale: 1, Lut: true}, planar.ErrFn, "lut = true is not allowed: this engine has no lookup table"},
	}
	for _, tc := range cases {
		err := tc.task.Validate(s)
		if planar.FirstCode(err) != tc.code || err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%+v: %v (code %v), want code %v saying %q", tc.task, err, planar.FirstCode(err), tc.code, tc.msg)
		}
	}
}
