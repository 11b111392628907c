package planar

import (
	"errors"
	"fmt"
)

// Op is the operation of a task (the t_op field).
type Op uint8

// The operations. With a table (Sizes.LUT) every code of the 3-bit
// field is known; without one, loadtable (7) is unknown: the hardware
// flags ErrOp.
const (
	OpNop        Op = iota // no work; done three cycles after acceptance
	OpAct                  // psum → state: post-processor on every accumulator (gain-bias, activation, requantization)
	OpWriteBack            // psum → state: saturation only (scale 1, bias 0, shift 0, no ReLU/clamp)
	OpEltwise              // state → state: Fn on two tensors, or on one and Scalar
	OpPool                 // state → state: max or average pooling of an H×W plane
	OpReduce               // state → state: sum or max of an H×W plane, one value
	OpLoadParams           // state → per-lane scale and bias registers
	// OpLoadTable fills the engine's lookup table (Sizes.LUT) from the
	// state buffer: 2^E entries, entry k in lane k mod L at src + k div
	// L, so one vector read brings L entries (Sizes.TableRows reads).
	OpLoadTable
	NumOps // the number of operations
)

var opNames = [...]string{"nop", "act", "writeback", "eltwise", "pool", "reduce", "loadparams", "loadtable"}

func (o Op) String() string {
	if o < NumOps {
		return opNames[o]
	}
	return fmt.Sprintf("op%d", uint8(o))
}

// Fn selects the function of an eltwise, pool or reduce task (the t_fn
// field); its meaning depends on Op (the Fns table).
type Fn uint8

// Eltwise functions.
const (
	FnAdd Fn = iota
	FnSub
	FnMul
	FnMax
	FnMin
	// FnAbs is |a|, unary: the second operand (src2, scalar) is not
	// read. The exact value goes to the post-processor, so with the
	// identity |min| (2^(E−1) for a signed type) saturates to the
	// element maximum, and wrap gives its low bits like any result.
	FnAbs
	// FnNeg is −a, unary like FnAbs: −min of a signed type saturates to
	// the element maximum (−(−128) = 127 for int8).
	FnNeg
)

// Pooling and reduction functions.
const (
	FnPoolMax Fn = 0 // pool: window maximum
	FnPoolAvg Fn = 1 // pool: window sum, then the post-processor (its scale and shift divide)
	FnPoolMin Fn = 2 // pool: window minimum
	FnSum     Fn = 0 // reduce: plane sum
	FnRedMax  Fn = 1 // reduce: plane maximum
	// FnRowSum and FnRowMax reduce across rows: the H rows of the plane
	// combine element by element into one row of W values at dst, one
	// per column (the column sums or maxima), accumulated in the line
	// buffer, so W ≤ line_depth. Bit 0 of a reduction's code is max,
	// bit 1 is across rows.
	FnRowSum Fn = 2
	FnRowMax Fn = 3
)

// FnDef is one function of an operation: its code, its name, and
// whether it is unary (an eltwise function that reads no second
// operand).
type FnDef struct {
	Op    Op
	Fn    Fn
	Name  string
	Unary bool
	Doc   string
}

// Fns is the function table of eltwise, pool and reduce, each
// operation's codes from 0 without a gap: the hardware's fn check, its
// unary decode, the validation and the reference machine's dispatch are
// made from it.
var Fns = []FnDef{
	{OpEltwise, FnAdd, "add", false, "a + b"},
	{OpEltwise, FnSub, "sub", false, "a − b"},
	{OpEltwise, FnMul, "mul", false, "a · b"},
	{OpEltwise, FnMax, "max", false, "max(a, b)"},
	{OpEltwise, FnMin, "min", false, "min(a, b)"},
	{OpEltwise, FnAbs, "abs", true, "|a|"},
	{OpEltwise, FnNeg, "neg", true, "−a"},
	{OpPool, FnPoolMax, "max", false, "window maximum"},
	{OpPool, FnPoolAvg, "avg", false, "window sum, divided by the post-processor's scale and shift"},
	{OpPool, FnPoolMin, "min", false, "window minimum"},
	{OpReduce, FnSum, "sum", false, "plane sum"},
	{OpReduce, FnRedMax, "max", false, "plane maximum"},
	{OpReduce, FnRowSum, "rowsum", false, "column sums across the rows"},
	{OpReduce, FnRowMax, "rowmax", false, "column maxima across the rows"},
}

// FnsOf is the function table of op, in code order.
func FnsOf(op Op) []FnDef {
	var out []FnDef
	for _, d := range Fns {
		if d.Op == op {
			out = append(out, d)
		}
	}
	return out
}

// NumFns is the number of function codes of op (0 for an op without
// functions): codes 0..NumFns−1 are valid.
func NumFns(op Op) int { return len(FnsOf(op)) }

// FnWidth is the width of the fn field: every operation's largest code.
func FnWidth() int {
	n := 0
	for _, d := range Fns {
		n = max(n, int(d.Fn)+1)
	}
	return widthOf(n)
}

// OpWidth is the width of the op field.
func OpWidth() int { return widthOf(int(NumOps)) }

// PostWidth is the width of the post field.
func PostWidth() int { return widthOf(int(NumPosts)) }

// UnaryFns are the eltwise functions that read no second operand.
func UnaryFns() []Fn {
	var out []Fn
	for _, d := range FnsOf(OpEltwise) {
		if d.Unary {
			out = append(out, d.Fn)
		}
	}
	return out
}

// FnName is the name of t's function ("" for an op without functions).
func (t Task) FnName() string {
	for _, d := range FnsOf(t.Op) {
		if d.Fn == t.Fn {
			return d.Name
		}
	}
	return ""
}

// Unary reports whether t is an eltwise task with a unary function.
func (t Task) Unary() bool {
	for _, d := range FnsOf(OpEltwise) {
		if t.Op == OpEltwise && d.Fn == t.Fn {
			return d.Unary
		}
	}
	return false
}

// AcrossRows reports whether t is a reduction across rows (FnRowSum,
// FnRowMax): W results, not one.
func (t Task) AcrossRows() bool {
	return t.Op == OpReduce && (t.Fn == FnRowSum || t.Fn == FnRowMax)
}

// Post is a function the post-processor applies to v = x·scale + bias
// before the shift (the t_post field): reductions only.
type Post uint8

// The post functions. See the package documentation for the exact
// integer semantics.
const (
	PostNone  Post = iota // u = v
	PostSqrt              // u = floor(√v), 0 for v < 0
	PostRecip             // u = trunc(2^K / v), K = Sizes.RecipShift(); 2^(K+1)−1 for v = 0
	NumPosts              // the number of post functions
)

var postNames = [...]string{"none", "sqrt", "recip"}

func (p Post) String() string {
	if p < NumPosts {
		return postNames[p]
	}
	return fmt.Sprintf("post%d", uint8(p))
}

// Task is one planar-engine task: every field the compiler sets, in one
// struct, which the NPU maps onto the task manager's descriptor (the
// planar operands and the packed param).
// Addresses are element addresses in every partition of Mask; a plane of
// H×W elements lies row-major at consecutive addresses from its base.
type Task struct {
	Op   Op     `json:"op"`
	Fn   Fn     `json:"fn"`   // eltwise: FnAdd..FnAbs; pool: the FnPool codes; reduce: FnSum..FnRowMax
	Mask uint64 `json:"mask"` // partitions (lanes) worked on; bit p = partition p

	Src  int `json:"src"`  // first source: psum entry (act, writeback) or state address
	Src2 int `json:"src2"` // eltwise: second source (unless ScalarOperand)
	Dst  int `json:"dst"`  // destination state address (not loadparams, nop)

	H int `json:"h"` // plane rows (act, writeback, eltwise: H·W elements, any split)
	W int `json:"w"` // plane columns

	KH      int  `json:"kh"`       // pool window rows, 1..MaxKernel
	KW      int  `json:"kw"`       // pool window columns
	Stride  int  `json:"stride"`   // pool stride, both directions, 1..MaxKernel
	PadH    int  `json:"pad_h"`    // pool rows of padding above and below, 0..KH-1
	PadW    int  `json:"pad_w"`    // pool columns of padding left and right, 0..KW-1
	PadEdge bool `json:"pad_edge"` // pad with the nearest element (else with 0)
	// PadIgnore: the padding never wins a max or min pooling window (it
	// holds the element type's minimum or maximum); not with pad_edge,
	// nor with average pooling.
	PadIgnore bool `json:"pad_ignore"`

	ScalarOperand bool  `json:"scalar_operand"` // eltwise: the second operand is Scalar
	Scalar        int64 `json:"scalar"`         // an element value
	// Broadcast (eltwise): the second operand is one element per lane,
	// at Src2, read once and used for every element of the plane (a
	// per-channel bias or scale). Not with ScalarOperand; ignored by
	// the unary functions and by the other operations.
	Broadcast bool `json:"broadcast"`
	// Post (reduce only): square root or reciprocal of v = x·scale +
	// bias, then the shift, rounding, ReLU, clamp and saturation as
	// usual; for a mean, an L2 norm or a normalization factor.
	Post Post `json:"post"`

	// The post-processor, applied to every result (see the package
	// documentation): for act, eltwise, pool and reduce. Writeback
	// ignores it.
	Scale     int64 `json:"scale"`      // signed, ScaleWidth bits
	Bias      int64 `json:"bias"`       // signed, AccWidth bits
	Shift     int   `json:"shift"`      // 0..MaxShift
	RoundEven bool  `json:"round_even"` // round half to even (else half up)
	Relu      bool  `json:"relu"`
	Clamp     bool  `json:"clamp"`
	Lo        int64 `json:"lo"`       // clamp bounds, element values, Lo ≤ Hi
	Hi        int64 `json:"hi"`       //
	PerLane   bool  `json:"per_lane"` // act: use each lane's loaded scale and bias instead of Scale and Bias
	// Wrap: the result is the low element bits of floor(v / 2^shift),
	// not rounded and not saturated (golden.Requant's Wrap): with scale
	// 1 and shift 8k, an act writes byte k of the accumulator plus bias.
	Wrap bool `json:"wrap"`
	// Lut (act, eltwise, pool, reduce): the element the post-processor
	// produced (saturated, clamped or wrapped) is looked up in the
	// engine's table, and the entry is written instead: out =
	// table[r − elem min] (golden.Lookup). One cycle more per task. Only
	// with a table (Sizes.LUT); writeback ignores it like relu.
	Lut bool `json:"lut"`
}

// ErrCode is the hardware's error status, also carried by the errors of
// Validate: the hardware reports the code of the first error Validate
// lists.
type ErrCode uint8

// The error codes, in the order the hardware checks them.
const (
	ErrNone     ErrCode = iota
	ErrOp               // unknown operation (loadtable without a table too)
	ErrFn               // unknown function for the operation, or a post stage the engine lacks
	ErrMask             // empty lane mask, a psum lane that does not exist, or a loadtable missing a lane of the table
	ErrShape            // H or W is zero
	ErrKernel           // KH, KW or stride outside 1..MaxKernel
	ErrPad              // padding not below the window size, or pad_ignore with average pooling or pad_edge
	ErrWindow           // window larger than the padded plane
	ErrOutShape         // OH/OW in the descriptor inconsistent with the pooling (raw descriptors only)
	ErrLine             // output row wider than the line buffer
	ErrSrc              // first source runs past the end of its buffer
	ErrSrc2             // second source runs past the end of the state buffer
	ErrDst              // destination runs past the end of the state buffer
	ErrOverlap          // destination overlaps a source in a way the operation cannot allow
	ErrShift            // shift above MaxShift
	ErrClamp            // clamp Lo above Hi
	numErrCodes
	// ErrField: a value does not fit its descriptor field. Only Validate
	// finds it; such a task cannot be encoded, so the hardware never
	// sees it.
	ErrField ErrCode = 255
)

var errNames = [...]string{"none", "op", "fn", "mask", "shape", "kernel", "pad", "window", "out_shape", "line",
	"src", "src2", "dst", "overlap", "shift", "clamp"}

func (e ErrCode) String() string {
	if e == ErrField {
		return "field"
	}
	if e < numErrCodes {
		return errNames[e]
	}
	return fmt.Sprintf("err%d", uint8(e))
}

// ErrCodeWidth is the width of the err_code port.
const ErrCodeWidth = 4

// TaskError is one bad task field: the field by its JSON name, its
// value, what is allowed, and the hardware error code.
type TaskError struct {
	Code    ErrCode
	Field   string
	Value   any
	Allowed string
}

func (e *TaskError) Error() string {
	return fmt.Sprintf("planar task: %s = %v is not allowed: %s (error code %d, %s)", e.Field, e.Value, e.Allowed, e.Code, e.Code)
}

// ErrTask marks every TaskError.
var ErrTask = errors.New("invalid planar task")

func (e *TaskError) Unwrap() error { return ErrTask }

// FirstCode is the code the hardware reports for a task Validate
// rejects with err: that of the first TaskError in it.
func FirstCode(err error) ErrCode {
	var te *TaskError
	if errors.As(err, &te) {
		return te.Code
	}
	return ErrNone
}

// PoolOut is the output plane of a pooling task: OH = (H + 2·PadH −
// KH)/Stride + 1 (floor), OW likewise; 0 when the division is undefined.
func (t Task) PoolOut() (oh, ow int) {
	if t.Stride < 1 {
		return 0, 0
	}
	dh, dw := t.H+2*t.PadH-t.KH, t.W+2*t.PadW-t.KW
	if dh >= 0 {
		oh = dh/t.Stride + 1
	}
	if dw >= 0 {
		ow = dw/t.Stride + 1
	}
	return oh, ow
}

// Reads is the number of vector reads the task makes (state buffer, or
// psum buffer for act and writeback).
func (t Task) Reads(s Sizes) int {
	switch t.Op {
	case OpAct, OpWriteBack, OpPool, OpReduce:
		return t.H * t.W
	case OpEltwise:
		return t.H*t.W + t.Src2Elements()
	case OpLoadParams:
		return s.ParamWords()
	case OpLoadTable:
		return s.TableRows()
	}
	return 0
}

// Writes is the number of vector writes the task makes.
func (t Task) Writes() int {
	switch t.Op {
	case OpAct, OpWriteBack, OpEltwise:
		return t.H * t.W
	case OpPool:
		oh, ow := t.PoolOut()
		return oh * ow
	case OpReduce:
		if t.AcrossRows() {
			return t.W
		}
		return 1
	}
	return 0
}

// twoTensors reports whether an eltwise task reads its second operand
// from a tensor at src2, element by element (interleaved with src).
func (t Task) twoTensors() bool {
	return t.Op == OpEltwise && !t.ScalarOperand && !t.Unary() && !t.Broadcast
}

// broadcasts reports whether an eltwise task reads one second operand
// per lane at src2 (Broadcast, for a binary function).
func (t Task) broadcasts() bool {
	return t.Op == OpEltwise && !t.ScalarOperand && !t.Unary() && t.Broadcast
}

// ReadsSrc2 reports whether src2 is an operand address of the task
// (an eltwise on two tensors or broadcasting).
func (t Task) ReadsSrc2() bool { return t.twoTensors() || t.broadcasts() }

// Src2Elements is the number of elements a task reads from src2 in each
// lane: H·W for an eltwise on two tensors, 1 when it broadcasts, else 0
// (src2 is not read: any value is fine).
func (t Task) Src2Elements() int {
	switch {
	case t.twoTensors():
		return t.H * t.W
	case t.broadcasts():
		return 1
	}
	return 0
}
