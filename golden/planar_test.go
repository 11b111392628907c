package golden

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Rounding, ReLU, clamp and saturation, value by value, worked by hand.
func TestRequantApply(t *testing.T) {
	s8 := S(8)
	cases := []struct {
		name string
		q    Requant
		x    int64
		out  Int
		want int64
	}{
		{"identity", Identity(), 100, s8, 100},
		{"saturate high", Identity(), 300, s8, 127},
		{"saturate low", Identity(), -300, s8, -128},
		{"unsigned saturates negatives to 0", Identity(), -5, U(8), 0},
		{"scale and bias", Requant{Scale: 3, Bias: -4}, 10, s8, 26},
		{"half-up 2.5 -> 3", Requant{Scale: 5, Shift: 1}, 1, s8, 3},
		{"half-even 2.5 -> 2", Requant{Scale: 5, Shift: 1, Rounding: HalfEven}, 1, s8, 2},
		{"half-even 3.5 -> 4", Requant{Scale: 7, Shift: 1, Rounding: HalfEven}, 1, s8, 4},
		{"half-up -2.5 -> -2", Requant{Scale: -5, Shift: 1}, 1, s8, -2},
		{"half-even -2.5 -> -2", Requant{Scale: -5, Shift: 1, Rounding: HalfEven}, 1, s8, -2},
		{"half-even -3.5 -> -4", Requant{Scale: -7, Shift: 1, Rounding: HalfEven}, 1, s8, -4},
		{"below half rounds down", Requant{Scale: 9, Shift: 2}, 1, s8, 2},  // 2.25
		{"above half rounds up", Requant{Scale: 11, Shift: 2}, 1, s8, 3},   // 2.75
		{"negative above half", Requant{Scale: -11, Shift: 2}, 1, s8, -3},  // -2.75
		{"large shift", Requant{Scale: 1, Shift: 40}, 1 << 40, s8, 1},      // exactly 1
		{"large shift half", Requant{Scale: 1, Shift: 40}, 1 << 39, s8, 1}, // 0.5 up
		{"large shift half even", Requant{Scale: 1, Shift: 40, Rounding: HalfEven}, 1 << 39, s8, 0},
		{"relu", Requant{Scale: 1, Relu: true}, -7, s8, 0},
		{"relu keeps positives", Requant{Scale: 1, Relu: true}, 7, s8, 7},
		{"clamp low", Requant{Scale: 1, Clamp: true, Lo: -6, Hi: 6}, -100, s8, -6},
		{"clamp high (relu6)", Requant{Scale: 1, Relu: true, Clamp: true, Lo: 0, Hi: 6}, 1000, s8, 6},
		{"saturation after rounding", Requant{Scale: 255, Shift: 1}, 1, s8, 127},    // 127.5 -> 128 -> 127
		{"wrap keeps the low byte", Requant{Scale: 1, Wrap: true}, 300, s8, 44},     // 300 = 256 + 44
		{"wrap of a negative", Requant{Scale: 1, Wrap: true}, -300, s8, -44},        // -300 = -512 + 212; 212 = -44 as int8
		{"wrap byte 1 floors", Requant{Scale: 1, Shift: 8, Wrap: true}, -1, s8, -1}, // floor(-1/256) = -1 = 0xff
		{"wrap byte 1 with bias", Requant{Scale: 1, Bias: 0x1234, Shift: 8, Wrap: true}, 0x100, s8, 0x13},
		{"wrap byte 3 of -2^31", Requant{Scale: 1, Shift: 24, Wrap: true}, -(1 << 31), s8, -128},
		{"wrap ignores rounding", Requant{Scale: 1, Shift: 8, Wrap: true, Rounding: HalfEven}, 0x1ff, s8, 1},
		{"wrap after relu", Requant{Scale: 1, Shift: 8, Wrap: true, Relu: true}, -70000, s8, 0},
		{"wrap unsigned", Requant{Scale: 1, Wrap: true}, -1, U(8), 255},
	}
	for _, tc := range cases {
		if got := tc.q.Apply(tc.x, tc.out); got != tc.want {
			t.Errorf("%s: Apply(%d) = %d, want %d", tc.name, tc.x, got, tc.want)
		}
	}
}

func TestActivate(t *testing.T) {
	x := mustRows(t, [][]int64{{10, -10, 300}, {1, 2, 3}})
	got, err := Activate(x, []int64{1, -2}, []int64{0, 1}, Requant{}, S(8))
	if err != nil {
		t.Fatal(err)
	}
	want := [][]int64{{10, -10, 127}, {-1, -3, -5}}
	if diff := cmp.Diff(want, got.Rows()); diff != "" {
		t.Errorf("per-channel (-want +got):\n%s", diff)
	}
	got, err = Activate(x, nil, nil, Requant{Scale: 1, Shift: 2, Relu: true}, S(8))
	if err != nil {
		t.Fatal(err)
	}
	want = [][]int64{{3, 0, 75}, {0, 1, 1}} // 2.5 -> 3, -2.5 -> 0 (relu), 0.25, 0.5 -> 1, 0.75
	if diff := cmp.Diff(want, got.Rows()); diff != "" {
		t.Errorf("shared (-want +got):\n%s", diff)
	}
	if _, err := Activate(x, []int64{1}, []int64{1}, Requant{}, S(8)); err == nil || !strings.Contains(err.Error(), "per-channel") {
		t.Errorf("wrong channel count: err = %v", err)
	}
}

func TestEltwise(t *testing.T) {
	a := mustRows(t, [][]int64{{100, -100, 7, 0}})
	b := mustRows(t, [][]int64{{100, 50, -3, 0}})
	cases := []struct {
		op   EltOp
		want []int64
	}{
		{EltAdd, []int64{127, -50, 4, 0}},
		{EltSub, []int64{0, -128, 10, 0}},
		{EltMul, []int64{127, -128, -21, 0}},
		{EltMax, []int64{100, 50, 7, 0}},
		{EltMin, []int64{100, -100, -3, 0}},
	}
	for _, tc := range cases {
		got, err := Eltwise(tc.op, a, b, Identity(), S(8))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, got.Data); diff != "" {
			t.Errorf("%v (-want +got):\n%s", tc.op, diff)
		}
	}
	got, err := EltwiseScalar(EltMul, a, 3, Requant{Scale: 1, Shift: 2}, S(8))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int64{75, -75, 5, 0}, got.Data); diff != "" { // 300/4, -300/4, 21/4 = 5.25
		t.Errorf("scalar mul (-want +got):\n%s", diff)
	}
	if _, err := Eltwise(EltAdd, a, mustRows(t, [][]int64{{1}}), Identity(), S(8)); err == nil {
		t.Error("shape mismatch accepted")
	}
}

// Abs is unary, and |−128| = 128 saturates to 127 unless the
// requantization brings it back into range.
func TestAbs(t *testing.T) {
	a := mustRows(t, [][]int64{{-128, -5, 0, 7, 127}})
	cases := []struct {
		name string
		q    Requant
		want []int64
	}{
		{"identity", Identity(), []int64{127, 5, 0, 7, 127}},
		{"halved", Requant{Scale: 1, Shift: 1}, []int64{64, 3, 0, 4, 64}},
		{"wrap", Requant{Scale: 1, Wrap: true}, []int64{-128, 5, 0, 7, 127}},
	}
	for _, tc := range cases {
		got, err := Abs(a, tc.q, S(8))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, got.Data); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	if !EltAbs.Unary() || EltAdd.Unary() {
		t.Error("only abs is unary")
	}
}

func plane(t *testing.T, rows [][]int64) *Tensor {
	x := mustRows(t, rows)
	x.Shape = []int{1, x.Shape[0], x.Shape[1]}
	return x
}

func TestPool(t *testing.T) {
	x := plane(t, [][]int64{
		{1, 2, 3},
		{4, 5, 6},
		{7, 8, 9},
	})
	neg := x.Clone() // every value negative: a padded 0 would win a max
	for i := range neg.Data {
		neg.Data[i] = -neg.Data[i]
	}
	cases := []struct {
		name string
		p    Pooling
		q    Requant
		want []int64
		oh   int
		in   *Tensor // nil: x
	}{
		{"max 2x2 s1", Pooling{Kind: PoolMax, KH: 2, KW: 2, Stride: 1}, Identity(), []int64{5, 6, 8, 9}, 2, nil},
		{"sum 2x2 s1", Pooling{Kind: PoolAvg, KH: 2, KW: 2, Stride: 1}, Identity(), []int64{12, 16, 24, 28}, 2, nil},
		{"avg 2x2 s1 (/4 half-up)", Pooling{Kind: PoolAvg, KH: 2, KW: 2, Stride: 1}, Requant{Scale: 1, Shift: 2}, []int64{3, 4, 6, 7}, 2, nil},
		{"max 2x2 s2", Pooling{Kind: PoolMax, KH: 2, KW: 2, Stride: 2}, Identity(), []int64{5}, 1, nil},
		{"min 2x2 s1", Pooling{Kind: PoolMin, KH: 2, KW: 2, Stride: 1}, Identity(), []int64{1, 2, 4, 5}, 2, nil},
		{"min with zero padding sees 0", Pooling{Kind: PoolMin, KH: 1, KW: 2, Stride: 1, PadW: 1}, Identity(), []int64{0, 1, 2, 0, 0, 4, 5, 0, 0, 7, 8, 0}, 3, nil},
		{"sum 3x3 zero pad 1, stride 2", Pooling{Kind: PoolAvg, KH: 3, KW: 3, Stride: 2, PadH: 1, PadW: 1}, Identity(),
			[]int64{12, 16, 24, 28}, 2, nil},
		{"sum 3x3 edge pad 1, stride 2", Pooling{Kind: PoolAvg, KH: 3, KW: 3, Stride: 2, PadH: 1, PadW: 1, Padding: PadEdge}, Identity(),
			// top-left window rows (1,1,2),(1,1,2),(4,4,5) = 21
			[]int64{21, 33, 57, 69}, 2, nil},
		{"max with zero padding sees 0", Pooling{Kind: PoolMax, KH: 1, KW: 2, Stride: 1, PadW: 1}, Identity(),
			[]int64{0, -1, -2, 0, 0, -4, -5, 0, 0, -7, -8, 0}, 3, neg}, // rows 0,-1,-2,-3,0 padded
		{"max ignoring padding never sees it", Pooling{Kind: PoolMax, KH: 1, KW: 2, Stride: 1, PadW: 1, Padding: PadIgnore}, Identity(),
			[]int64{-1, -1, -2, -3, -4, -4, -5, -6, -7, -7, -8, -9}, 3, neg}, // the edge windows hold one element each
		{"max 3x3 pad 1 ignored", Pooling{Kind: PoolMax, KH: 3, KW: 3, Stride: 1, PadH: 1, PadW: 1, Padding: PadIgnore}, Identity(),
			// the clipped window's top-left element is its maximum
			[]int64{-1, -1, -2, -1, -1, -2, -4, -4, -5}, 3, neg},
		{"min 2x2 s2 pad 1 ignored", Pooling{Kind: PoolMin, KH: 2, KW: 2, Stride: 2, PadH: 1, PadW: 1, Padding: PadIgnore}, Identity(),
			// windows {1}, {2,3}, {4,7}, {5,6,8,9}; zero padding would give 0, 0, 0, 5
			[]int64{1, 2, 4, 5}, 2, nil},
		{"max ignoring padding, then requant", Pooling{Kind: PoolMax, KH: 2, KW: 2, Stride: 1, PadH: 1, Padding: PadIgnore},
			Requant{Scale: 3, Bias: 1}, []int64{-2, -5, -2, -5, -11, -14, -20, -23}, 4, neg}, // 3·max+1 of -1, -2, -1, -2, -4, -5, -7, -8
	}
	for _, tc := range cases {
		in := tc.in
		if in == nil {
			in = x
		}
		got, err := Pool(in, tc.p, tc.q, S(8))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got.Shape[1] != tc.oh {
			t.Errorf("%s: shape %v, want OH %d", tc.name, got.Shape, tc.oh)
		}
		if diff := cmp.Diff(tc.want, got.Data); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	for _, bad := range []Pooling{
		{KH: 0, KW: 1, Stride: 1}, {KH: 1, KW: 1, Stride: 0}, {KH: 4, KW: 1, Stride: 1}, {KH: 4, KW: 1, Stride: 1, PadH: -1},
		{Kind: PoolAvg, KH: 2, KW: 2, Stride: 1, PadH: 1, Padding: PadIgnore}, // the divisor would change
		{Kind: PoolMax, KH: 1, KW: 2, Stride: 1, PadH: 1, Padding: PadIgnore}, // a window of padding only
		{Kind: PoolMax, KH: 2, KW: 2, Stride: 1, Padding: Padding(3)},
	} {
		if _, err := Pool(x, bad, Identity(), S(8)); err == nil {
			t.Errorf("pooling %+v of a 3x3 plane accepted", bad)
		}
	}
	if _, _, err := PoolOutSize(3, 3, Pooling{KH: 5, KW: 1, Stride: 1, PadH: 1}); err != nil {
		t.Errorf("a 5-row window fits the padded 5-row plane: %v", err)
	}
}

func TestReduce(t *testing.T) {
	x := mustRows(t, [][]int64{{1, 2, 3, 4}, {-5, -1, -7, -2}, {100, 100, 0, 0}})
	sum, err := Reduce(x, ReduceSum, Identity(), S(8))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int64{10, -15, 127}, sum.Data); diff != "" {
		t.Errorf("sum (-want +got):\n%s", diff)
	}
	mean, err := Reduce(x, ReduceSum, Requant{Scale: 1, Shift: 2}, S(8))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int64{3, -4, 50}, mean.Data); diff != "" { // 2.5 -> 3, -3.75 -> -4
		t.Errorf("mean (-want +got):\n%s", diff)
	}
	mx, err := Reduce(x, ReduceMax, Identity(), S(8))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int64{4, -1, 100}, mx.Data); diff != "" {
		t.Errorf("max (-want +got):\n%s", diff)
	}
	if _, err := Reduce(New(2, 0), ReduceSum, Identity(), S(8)); err == nil {
		t.Error("empty plane accepted")
	}
}

// Reductions across rows combine the H rows of each plane column by
// column; the post functions work on v = x·Scale + Bias before the
// shift, by hand.
func TestReduceRowsAndPost(t *testing.T) {
	x := New(2, 3, 2) // two planes of 3 rows × 2 columns
	copy(x.Data, []int64{1, -2, 3, -4, 5, 100, -7, 8, 9, 10, -11, 12})
	flat := &Tensor{Shape: []int{2, 6}, Data: x.Data}
	const k = 10 // 2^10 = 1024
	cases := []struct {
		name string
		x    *Tensor
		kind ReduceKind
		post PostFn
		q    Requant
		want []int64
	}{
		{"rowsum", x, ReduceRowSum, PostNone, Identity(), []int64{9, 94, -9, 30}},
		{"rowmax", x, ReduceRowMax, PostNone, Identity(), []int64{5, 100, 9, 12}},
		{"rowsum mean", x, ReduceRowSum, PostNone, Requant{Scale: 1, Shift: 1}, []int64{5, 47, -4, 15}}, // 4.5→5, −4.5→−4
		{"sqrt of sums", flat, ReduceSum, PostSqrt, Identity(), []int64{10, 4}},                         // √103, √21
		{"sqrt of negative", x, ReduceRowSum, PostSqrt, Identity(), []int64{3, 9, 0, 5}},
		{"sqrt scaled", flat, ReduceSum, PostSqrt, Requant{Scale: 4, Shift: 1}, []int64{10, 5}},  // √412/2 = 10.1, √84/2 = 4.6
		{"recip", x, ReduceRowMax, PostRecip, Requant{Scale: 1, Shift: 4}, []int64{13, 1, 7, 5}}, // 1024/5/16 = 12.8
		{"recip negative", x, ReduceRowSum, PostRecip, Requant{Scale: 1, Shift: 2}, []int64{28, 3, -28, 9}},
		{"recip of zero", flat, ReduceSum, PostRecip, Requant{Scale: 0, Shift: 5}, []int64{64, 64}}, // v = 0: 2047/32 = 63.97
	}
	for _, tc := range cases {
		got, err := ReducePost(tc.x, tc.kind, tc.post, k, tc.q, S(8))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, got.Data); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	if _, err := Reduce(flat, ReduceRowSum, Identity(), S(8)); err == nil {
		t.Error("a reduction across rows of a [C, N] tensor accepted")
	}
}

// EltwiseChannel applies channel c's operand to all of row c.
func TestEltwiseChannel(t *testing.T) {
	a := mustRows(t, [][]int64{{1, 2, 3}, {-4, 5, 100}})
	b := &Tensor{Shape: []int{2}, Data: []int64{10, 30}}
	got, err := EltwiseChannel(EltAdd, a, b, Identity(), S(8))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int64{11, 12, 13, 26, 35, 127}, got.Data); diff != "" {
		t.Errorf("add (-want +got):\n%s", diff)
	}
	if _, err := EltwiseChannel(EltAdd, a, &Tensor{Shape: []int{3}, Data: make([]int64, 3)}, Identity(), S(8)); err == nil {
		t.Error("three operands for two channels accepted")
	}
}
