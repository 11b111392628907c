package taskmgr

// Engine is the code of an engine in a descriptor's engine field.
type Engine uint8

// The engines, in engine-field code order. Codes 4..7 are unknown: a
// descriptor naming one is malformed.
const (
	DMAIn  Engine = iota // external memory -> on-chip buffers
	NE                   // neural engine: the PE array
	Planar               // planar engine: work within a plane
	DMAOut               // on-chip buffers -> external memory
)

// NumEngines is the number of engines the task manager dispatches to.
const NumEngines = 4

// EngineBits and OpBits size the engine and op fields: room for 8 engines
// and 16 operations per engine, so new ones do not change the layout.
const (
	EngineBits = 3
	OpBits     = 4
)

// OpDef is one operation an engine understands.
type OpDef struct {
	Code uint8
	Name string
	Doc  string
}

// EngineDef describes an engine: its port prefix and its operations. The
// op-code check of the hardware decoder is derived from Ops.
type EngineDef struct {
	Engine Engine
	Name   string // port prefix, e.g. "ne" for ne_valid
	Doc    string
	Ops    []OpDef
}

// Engines is the engine table: the single definition of engine and op
// codes, read by the hardware decoder, the encoder and the documentation.
// The operand fields (src, aux, dst, d0..d2, param) are generic; the
// meaning given here is the contract between the engines and the
// compiler (blocks/npu's package documentation gives the exact semantics).
var Engines = [NumEngines]EngineDef{
	{DMAIn, "dma_in", "DMA from external memory into the state buffer or the weight buffer", []OpDef{
		{0, "nop", "no transfer; completes at once (a synchronisation point)"},
		{1, "load", "src external line, dst state-buffer address, d0 lines per row, d1 rows, d2 external row stride (lines); rows land contiguously"},
		{2, "load_weights", "as load, into the weight buffer: dst weight row"},
	}},
	{NE, "ne", "neural engine: the weight-stationary PE array with its input address generator", []OpDef{
		{0, "nop", "no work; completes at once"},
		{1, "gemm", "as conv (a GEMM is a 1x1 convolution over an M x 1 plane); named apart for traces"},
		{2, "conv", "src input plane (channel tile 0), aux weight row of pass 0, dst psum entry, d0 H, d1 W, d2 channel tiles, param kernel/stride/pad/output shape/accumulate"},
		{3, "transpose", "src state address of the block's column 0, dst psum entry, d0 rows, d1 columns"},
	}},
	{Planar, "planar", "planar engine: activation, write-back, elementwise, pooling, reduction (codes = planar.Op)", []OpDef{
		{0, "nop", "no work"},
		{1, "act", "src psum entry, dst state address, d0 H, d1 W, param the planar fields"},
		{2, "writeback", "as act, saturation only"},
		{3, "eltwise", "src first operand, aux second operand, dst result, d0 H, d1 W, param function"},
		{4, "pool", "src input plane, dst output plane, d0 H, d1 W, param kernel/stride/pad/max-avg"},
		{5, "reduce", "src input plane, dst result, d0 H, d1 W, param sum or max"},
		{6, "loadparams", "src state address of the per-lane scale and bias"},
	}},
	{DMAOut, "dma_out", "DMA from the state buffer to external memory", []OpDef{
		{0, "nop", "no transfer; completes at once"},
		{1, "store", "src state-buffer address, dst external line, d0 lines per row, d1 rows, d2 external row stride (lines)"},
	}},
}

func (e Engine) String() string {
	if int(e) < NumEngines {
		return Engines[e].Name
	}
	return "engine?"
}

// OpCode returns the code of the named operation of engine e.
func (e Engine) OpCode(name string) (uint8, bool) {
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

// ValidOp reports whether op is an operation of engine e.
func (e Engine) ValidOp(op uint8) bool {
	return e.opMask()>>op&1 == 1
}

// opMask has bit c set for every op code c of e: the hardware's op check
// is this constant, selected by the engine field.
func (e Engine) opMask() uint64 {
	if int(e) >= NumEngines {
		return 0
	}
	var m uint64
	for _, op := range Engines[e].Ops {
		m |= 1 << op.Code
	}
	return m
}
