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
// meaning given here is the contract later engine and compiler issues
// refine.
var Engines = [NumEngines]EngineDef{
	{DMAIn, "dma_in", "DMA from external memory into the state buffer or the weight buffer", []OpDef{
		{0, "nop", "no transfer; completes at once (a synchronisation point)"},
		{1, "load", "src external address, dst state-buffer address, d0 rows (partitions), d1 bytes per row, d2 external row stride"},
		{2, "load_weights", "src external address, dst weight-buffer address, d0 rows, d1 columns"},
	}},
	{NE, "ne", "neural engine: the weight-stationary PE array", []OpDef{
		{0, "nop", "no work; completes at once"},
		{1, "gemm", "src input address, aux weight address, dst psum address, d0 M, d1 K, d2 N, param bit 0 accumulate"},
		{2, "conv", "src input plane, aux weights, dst psum, d0 output pixels, d1 channels, d2 filters, param kernel/stride/pad"},
		{3, "transpose", "src block address, dst psum address, d0 rows, d1 columns"},
	}},
	{Planar, "planar", "planar engine: activation, elementwise, pooling, reduction", []OpDef{
		{0, "nop", "no work; completes at once"},
		{1, "act", "src psum address, dst state-buffer address, d0 partitions, d1 elements, param scale/shift/activation"},
		{2, "eltwise", "src first operand, aux second operand, dst result, d0 partitions, d1 elements, param function"},
		{3, "pool", "src input plane, dst output plane, d0 height, d1 width, d2 channels, param kernel/stride/pad/max-avg"},
		{4, "reduce", "src input plane, dst result, d0 partitions, d1 elements, param sum or max"},
	}},
	{DMAOut, "dma_out", "DMA from the state buffer to external memory", []OpDef{
		{0, "nop", "no transfer; completes at once"},
		{1, "store", "src state-buffer address, dst external address, d0 rows, d1 bytes per row, d2 external row stride"},
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
