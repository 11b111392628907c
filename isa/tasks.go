package isa

import (
	"github.com/hwgen/hwgen/isa/planar"
	"github.com/hwgen/hwgen/isa/sparse"
)

// Task is one engine operation with typed operands. The task types below
// are the whole instruction set; Codec.Encode and Codec.Decode map them
// to and from descriptors, Codec.Access tells what they touch and
// Relocate moves them.
type Task interface {
	Engine() Engine
	Op() Op
}

// Nop is a task that does no work on engine On (a synchronisation point).
type Nop struct{ On Engine }

// Load is dma_in's load: for k < Rows, l < Lines, external line
// Ext + k·Stride + l goes to state address State + k·Lines + l (rows land
// contiguously).
type Load struct{ Ext, State, Lines, Rows, Stride int }

// LoadWeights is dma_in's load into the weight buffer: as Load, with weight
// row Row + k·Lines + l as the destination.
type LoadWeights struct{ Ext, Row, Lines, Rows, Stride int }

// Store is dma_out's store: for k < Rows, l < Lines, state address
// State + k·Lines + l goes to external line Ext + k·Stride + l.
type Store struct{ State, Ext, Lines, Rows, Stride int }

// Conv is the NE's convolution (and GEMM, a 1×1 convolution over an M×1
// plane, named apart for traces): Tiles channel tiles of an H×W plane from
// state address Src (tile t at Src + t·H·W), one pass per tile and kernel
// offset with the R weight rows of pass p at Weights + p·R, accumulating
// the OH×OW output plane into psum entries from Psum. Acc adds the first
// pass to the psums already there. Unit names the engine that runs it
// when there are several (0..engines-1; engines means the first free one).
type Conv struct {
	GEMM                       bool
	Src, Weights, Psum         int
	H, W, Tiles                int
	KH, KW, Stride, PadH, PadW int
	OH, OW                     int
	Acc                        bool
	Unit                       int
}

// Transpose is the NE's corner turn: the Rows×Cols block whose column j
// lies at state address Src + j (row i in partition i) lands transposed
// in psum entries Psum..Psum+Rows-1.
type Transpose struct{ Src, Psum, Rows, Cols int }

// PlanarTask is a planar-engine task; the planar package defines its fields,
// their validation and its op and function codes.
type PlanarTask struct{ planar.Task }

func (t Nop) Engine() Engine         { return t.On }
func (t Load) Engine() Engine        { return DMAIn }
func (t LoadWeights) Engine() Engine { return DMAIn }
func (t Store) Engine() Engine       { return DMAOut }
func (t Conv) Engine() Engine        { return NE }
func (t Transpose) Engine() Engine   { return NE }
func (t PlanarTask) Engine() Engine  { return Planar }

func (t Nop) Op() Op         { return OpNop }
func (t Load) Op() Op        { return DMAInLoad }
func (t LoadWeights) Op() Op { return DMAInLoadWeights }
func (t Store) Op() Op       { return DMAOutStore }
func (t Transpose) Op() Op   { return NETranspose }
func (t PlanarTask) Op() Op  { return Op(t.Task.Op) }
func (t Conv) Op() Op {
	if t.GEMM {
		return NEGEMM
	}
	return NEConv
}

// Passes is the number of weight passes: one per channel tile and kernel
// offset.
func (t Conv) Passes() int { return t.Tiles * t.KH * t.KW }

// SparseLoad is dma_in's load_sparse: Records records of kind Kind, laid
// out from external line Ext on as sparse.RecordsToLines lays them (as
// many to a line as fit, or one over several lines), written from record
// address Addr of the memory (entries: unit Unit's buffer set Set;
// weights and tables: every unit's copy).
type SparseLoad struct {
	Ext, Records    int
	Kind            sparse.Kind
	Unit, Set, Addr int
}

// SparseStore is dma_out's store_sparse: accumulator entries Addr ..
// Addr+Entries−1 of unit Unit's bank Bank, each cleared as it is read,
// entry n to the lines from external line Ext + n·(lines per entry).
type SparseStore struct{ Unit, Bank, Addr, Entries, Ext int }

// SparseClearTask zeroes accumulator entries 0..Count−1 of unit Unit's
// bank Bank.
type SparseClearTask struct{ Unit, Count, Bank int }

// SparseConvTask scatters Count entries of unit Unit's buffer set Set with
// the weight lists of the channel table from TBase into its OH×OW
// accumulator plane in bank Bank, stride 2^StrideLog2 (isa/sparse,
// Task).
type SparseConvTask struct {
	Unit, Set, Count, TBase int
	OH, OW, StrideLog2      int
	Bank                    int
}

func (t SparseLoad) Engine() Engine      { return DMAIn }
func (t SparseStore) Engine() Engine     { return DMAOut }
func (t SparseClearTask) Engine() Engine { return Sparse }
func (t SparseConvTask) Engine() Engine  { return Sparse }

func (t SparseLoad) Op() Op      { return DMAInLoadSparse }
func (t SparseStore) Op() Op     { return DMAOutStoreSparse }
func (t SparseClearTask) Op() Op { return SparseClear }
func (t SparseConvTask) Op() Op  { return SparseConv }
