package isa

import (
	"fmt"
	"github.com/hwgen/hwgen/isa/sparse"
	"math/bits"
	"strings"

	"github.com/hwgen/hwgen/isa/planar"
)

// Engine is the code of an engine in a descriptor's engine field.
type Engine uint8

// The engines, in engine-field code order. Codes 5..7 are unknown: a
// descriptor naming one is malformed. The sparse engine is optional
// (NPU configuration sparse_units > 0); without it, a descriptor naming
// it, or one of the DMA ops that serve it, is malformed too.
const (
	DMAIn  Engine = iota // external memory -> on-chip buffers
	NE                   // neural engine: the PE array
	Planar               // planar engine: work within a plane
	DMAOut               // on-chip buffers -> external memory
	Sparse               // sparse engine: convolution over the non-zeros
)

// NumEngines is the number of engine codes; an NPU without the sparse
// engine has the first DenseEngines of them.
const (
	NumEngines   = 5
	DenseEngines = 4
)

// EngineBits and OpBits size the descriptor's engine and op fields: room
// for 8 engines and 16 operations per engine, so new ones do not change
// the layout.
const (
	EngineBits = 3
	OpBits     = 4
)

// Op is an operation code, meaningful together with its engine.
type Op uint8

// The operations of every engine. A code missing from an engine's list
// is malformed: the task manager flags it (error status) and no engine
// ever sees it.
const (
	OpNop Op = 0 // every engine's nop

	DMAInNop            = OpNop
	DMAInLoad        Op = 1
	DMAInLoadWeights Op = 2
	DMAInLoadSparse  Op = 3

	NENop          = OpNop
	NEGEMM      Op = 1
	NEConv      Op = 2
	NETranspose Op = 3

	PlanarNop        = Op(planar.OpNop)
	PlanarAct        = Op(planar.OpAct)
	PlanarWriteBack  = Op(planar.OpWriteBack)
	PlanarEltwise    = Op(planar.OpEltwise)
	PlanarPool       = Op(planar.OpPool)
	PlanarReduce     = Op(planar.OpReduce)
	PlanarLoadParams = Op(planar.OpLoadParams)
	PlanarLoadTable  = Op(planar.OpLoadTable)

	DMAOutNop            = OpNop
	DMAOutStore       Op = 1
	DMAOutStoreSparse Op = 2

	SparseNop   = OpNop
	SparseClear = Op(sparse.OpClear)
	SparseConv  = Op(sparse.OpConv)
)

// OpDef is one operation an engine understands.
type OpDef struct {
	Code Op
	Name string
	Doc  string
	// Sparse marks an op that serves the sparse engine: only an NPU with
	// one has it.
	Sparse bool
	// Operands are the descriptor operands the op reads (of OperandNames,
	// space-separated; its Doc says what each means). A lean task
	// manager keeps in front of an engine only the operands of its ops.
	Operands string
}

// OperandNames are the descriptor's operand fields, in layout order. The
// other fields (id, op, flags and the network fields) are control: every
// engine receives them.
var OperandNames = []string{"src", "aux", "dst", "d0", "d1", "d2", "param"}

// EngineDef describes an engine: its port prefix and its operations.
type EngineDef struct {
	Engine Engine
	Name   string // port prefix, e.g. "ne" for ne_valid
	Doc    string
	Ops    []OpDef
}

// Engines is the engine and operation table.
var Engines = [NumEngines]EngineDef{
	{DMAIn, "dma_in", "DMA from external memory into the state buffer or the weight buffer", []OpDef{
		{DMAInNop, "nop", "no transfer; completes at once (a synchronisation point)", false, ""},
		{DMAInLoad, "load", "src external line, dst state-buffer address, d0 lines per row, d1 rows, d2 external row stride (lines); rows land contiguously", false, "src dst d0 d1 d2"},
		{DMAInLoadWeights, "load_weights", "as load, into the weight buffer: dst weight row", false, "src dst d0 d1 d2"},
		{DMAInLoadSparse, "load_sparse", "records into the sparse engine: dst the memory (kind, unit, set) and first record (sparse LoadAddr layout), d0 lines, d1 = 1, d2 records; records share a line as many as fit, a wider one spans lines (sparse.Grouping)", true, "dst d0 d1 d2"},
	}},
	{NE, "ne", "neural engine: the weight-stationary PE array with its input address generator", []OpDef{
		{NENop, "nop", "no work; completes at once", false, ""},
		{NEGEMM, "gemm", "as conv (a GEMM is a 1x1 convolution over an M x 1 plane); named apart for traces", false, "src aux dst d0 d1 d2 param"},
		{NEConv, "conv", "src input plane (channel tile 0), aux weight row of pass 0, dst psum entry, d0 H, d1 W, d2 channel tiles, param kernel/stride/pad/output shape/accumulate", false, "src aux dst d0 d1 d2 param"},
		{NETranspose, "transpose", "src state address of the block's column 0, dst psum entry, d0 rows, d1 columns", false, "src dst d0 d1"},
	}},
	{Planar, "planar", "planar engine: activation, write-back, elementwise, pooling, reduction", []OpDef{
		{PlanarNop, "nop", "no work", false, ""},
		{PlanarAct, "act", "src psum entry, dst state address, d0 H, d1 W, param the planar fields", false, "src dst d0 d1 param"},
		{PlanarWriteBack, "writeback", "as act, saturation only", false, "src dst d0 d1 param"},
		{PlanarEltwise, "eltwise", "src first operand, aux second operand (a tensor, or one element with broadcast), dst result, d0 H, d1 W, param function", false, "src aux dst d0 d1 param"},
		{PlanarPool, "pool", "src input plane, dst output plane, d0 H, d1 W, param kernel/stride/pad/max-avg-min", false, "src dst d0 d1 param"},
		{PlanarReduce, "reduce", "src input plane, dst result (one value, or one row across rows), d0 H, d1 W, param sum, max, row sum or row max, post function", false, "src dst d0 d1 param"},
		{PlanarLoadParams, "loadparams", "src state address of the per-lane scale and bias", false, "src"},
		{PlanarLoadTable, "loadtable", "src state address of the lookup table, entry k in partition k mod rows at src + k div rows (only with planar_lut; without it the planar engine flags it)", false, "src"},
	}},
	{DMAOut, "dma_out", "DMA from the state buffer to external memory", []OpDef{
		{DMAOutNop, "nop", "no transfer; completes at once", false, ""},
		{DMAOutStore, "store", "src state-buffer address, dst external line, d0 lines per row, d1 rows, d2 external row stride (lines)", false, "src dst d0 d1 d2"},
		{DMAOutStoreSparse, "store_sparse", "sparse accumulators out, each cleared as it is read: src unit, bank and first entry (sparse ReadAddr layout), dst external line, d0 entries; entry n takes the lines from dst + n·(lines per entry)", true, "src dst d0"},
	}},
	{Sparse, "sparse", "sparse engine: units that scatter the products of the non-zero inputs", []OpDef{
		{SparseNop, "nop", "no work; completes at once", false, ""},
		{SparseClear, "clear", "dst unit, d0 accumulator entries to zero, param bank", true, "dst d0 param"},
		{SparseConv, "conv", "dst unit, src buffer set, d0 entries, aux channel-table base, d1 OH, d2 OW, param stride_log2 and bank", true, "src aux dst d0 d1 d2 param"},
	}},
}

func (e Engine) String() string {
	if int(e) < NumEngines {
		return Engines[e].Name
	}
	return "engine?"
}

// OpCode returns the code of the named operation of engine e.
func (e Engine) OpCode(name string) (Op, bool) {
	if int(e) >= NumEngines {
		return 0, false
	}
	for _, op := range Engines[e].Ops {
		if op.Name == name {
			return op.Code, true
		}
	}
	return 0, false
}

// OpName is the name of op on engine e ("op7" for an unknown code).
func (e Engine) OpName(op Op) string {
	if int(e) < NumEngines {
		for _, d := range Engines[e].Ops {
			if d.Code == op {
				return d.Name
			}
		}
	}
	return fmt.Sprintf("op%d", op)
}

// ValidOp reports whether op is an operation of engine e.
func (e Engine) ValidOp(op Op) bool { return op < 64 && e.OpMask()>>op&1 == 1 }

// OpMask has bit c set for every op code c of e.
func (e Engine) OpMask() uint64 { return e.OpMaskOf(true) }

// OpMaskOf is OpMask of an NPU with or without the sparse engine: the
// task manager's op check is this constant, selected by the engine field.
func (e Engine) OpMaskOf(sparse bool) uint64 {
	if int(e) >= NumEngines || e == Sparse && !sparse {
		return 0
	}
	var m uint64
	for _, op := range Engines[e].Ops {
		if sparse || !op.Sparse {
			m |= 1 << op.Code
		}
	}
	return m
}

// Operands are the descriptor operands some op of e reads (an NPU with or
// without the sparse engine), in OperandNames order.
func (e Engine) Operands(sparse bool) []string {
	reads := map[string]bool{}
	if int(e) < NumEngines && (e != Sparse || sparse) {
		for _, op := range Engines[e].Ops {
			if sparse || !op.Sparse {
				for _, name := range strings.Fields(op.Operands) {
					reads[name] = true
				}
			}
		}
	}
	var out []string
	for _, name := range OperandNames {
		if reads[name] {
			out = append(out, name)
		}
	}
	return out
}

// OpWidth is the width of the engine's op port: enough bits for its
// largest code, so every operation of the table reaches the engine whole.
func (e Engine) OpWidth() int {
	largest := bits.Len64(e.OpMask()) - 1
	return max(1, bits.Len(uint(largest)))
}
