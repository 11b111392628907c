// Package planar builds the NPU's planar engine: partition-parallel lanes
// for the work within a plane — activation and requantization of psums,
// write-back (the last step of the on-chip transpose and of every layer's
// output), elementwise operations, pooling and reduction (docs/engines.md,
// "planar"; docs/sources.md §1 and §3).
//
//	m, err := planar.Build(cfg)        // *hdl.Module
//	fields, err := task.Encode(cfg)    // the descriptor, after task.Validate(cfg)
//
// # Data layout and lanes
//
// Lane p works on state-buffer partition p (and psum partition p, p <
// psum_lanes). A plane of H×W elements lies row-major at consecutive
// addresses from its base, the same base in every partition of the
// task's lane mask; the lanes share one address generator and one
// controller and move in lockstep, one element index per step. All
// memory traffic is vector requests with the task's mask, so every lane
// reads and writes its own partition in the same cycle.
//
// # Post units and passes
//
// With post_lanes U below L (a divisor; 0 means L) the engine has U
// lanes (post units) for its L partitions, and every task but a nop runs
// in up to G = L/U passes, one for each group of U partitions its mask
// names, in increasing order: pass g reads every vector a single pass reads and
// lane u works on partition g·U+u, whose element it takes from the read
// data; the write mask is the task's restricted to the pass's
// partitions, each partition's write data its lane's result. The
// controller keeps what lives per partition across passes: the
// loadparams parameters (one register per partition) and the lookup
// table (one array of U write and U read ports; pass g writes entries
// row·L + g·U + u). Between passes the controller returns to its checks
// with the same task, which clears the walker, the reader and the
// writer; done comes after the last pass. A task of G passes
// (Sizes.PassesOf) thus makes G times the reads and writes of the
// formulas below (the same addresses) and takes G·(n − 1) + 1 cycles for
// a single pass's n (Config.Cycles). The
// last_pass output marks the last pass, whose writes complete their
// addresses (the NPU's partial-output gating counts only those).
//
// # Ports
//
// The memory ports are the planar clients of blocks/sram, name for name
// and width for width: plr and plw of the state buffer, rd of the psum
// buffer (L = lanes, C = psum_lanes, E = elem_width, A = acc_width,
// aw = log2(state_depth), pw = log2(psum_depth)).
//
//	port            dir  type       meaning
//	t_valid         in   1          a task descriptor is presented (held until t_ready)
//	t_<field>       in   (below)    the descriptor fields, sampled when t_valid and t_ready
//	t_ready         out  1          the engine is idle: the task is taken this cycle
//	busy            out  1          a task is being checked or run
//	done            out  1          one-cycle pulse: the task finished (registered; never combinational from t_valid)
//	err_code        out  4          the last task's ErrCode (0: none), valid from its done pulse to the next task's
//	last_pass       out  1          with passes only (post_lanes < lanes): the task runs its last pass
//	error           out  1          err_code != 0
//	plr_valid       out  1          state-buffer read request
//	plr_addr        out  aw
//	plr_mask        out  L
//	plr_ready       in   1          the request is accepted
//	plr_rvalid      in   1          response of the request accepted in the previous cycle
//	plr_rdata_p     in   E          partition p's element
//	plw_valid       out  1          state-buffer write request
//	plw_addr        out  aw
//	plw_mask        out  L
//	plw_wdata_p     out  E
//	plw_ready       in   1
//	rd_valid        out  1          psum read-out request
//	rd_addr         out  pw
//	rd_mask         out  C
//	rd_ready        in   1
//	rd_rvalid       in   1
//	rd_data_c       in   SInt(A)    partition c's accumulator
//	plr2_valid      out  1          with src2_port only: the second state-buffer read (b of a two-tensor eltwise)
//	plr2_addr       out  aw
//	plr2_mask       out  L          plr_mask's
//	plr2_rdata_p    in   E          partition p's element of b
//
// Every request is held, with its address, until its ready (the buffers'
// rule); the engine takes back-pressure on every port: a read waits for
// room (a credit counts the two-entry input FIFO, the response in flight
// and this cycle's pop), a full output FIFO freezes the whole lane
// pipeline (adv low). A response arrives exactly one cycle after its
// acceptance, as the buffers guarantee.
//
// # The second read port
//
// With src2_port (Config.Src2Port; the NPU's planar_read_port, off by
// default) the engine has the plr2 port above, the state buffer's read
// client of the planar engine's own (blocks/sram, PlanarReadPort): a
// port nobody else uses, so it has no ready or rvalid here. A two-tensor
// eltwise then asks for a's vector at src+k on plr and b's at src2+k on
// plr2 in the same cycles (b's is taken in each, repeated while a's
// waits: gating it by plr_ready would chain the buffer's arbiter, the
// engine and the bank combinationally); in the cycle a's is accepted
// b's read is of the same k, both responses come in the next cycle and
// go into the same input FIFO entry (each entry has b beside a), and
// the lane computes a op b from the entry without holding a: H·W read
// cycles and one result per cycle, as a scalar eltwise, instead of 2·H·W.
// The reads counted (Task.Reads, 2·H·W) are the same, half on each port.
// Every other operation is unchanged (a broadcast still reads its b on
// plr first and holds it). The port serves nothing else, so it is
// refused without the eltwise (no_eltwise). Module names carry _s2.
//
// # Task, operations and errors
//
// The task, its descriptor fields, the semantics of every operation and
// the error codes are the instruction set's (isa/planar, whose package
// documentation has the tables): the ports t_<field> are made from
// isa/planar's field table, the checks and the function decode from its
// function table, so the hardware cannot disagree with the encoder.
//
// # Pooling: the rasterizer and the line buffer
//
// The reader fetches the plane in raster order, each element exactly once
// (H·W reads per task, whatever the overlap). The walker steps through
// the padded plane, one step per cycle: a horizontal filter keeps the
// last max_kernel−1 elements of the row and forms the KW-window max or
// sum each time a window is complete (the first column fills the left
// padding; right padding columns are steps without a read); a line
// buffer per lane (line_depth words of max_kernel−1 horizontal results,
// one word per output column) gives the vertical filter the KH−1 rows
// above, and takes the new row back in the same pass (top padding: the
// first row fills the word; bottom padding: rows of OW steps without a
// read). A word read in the cycle it is being written is forwarded.
// line_depth bounds OW; W itself is not bounded by it.
//
// A reduction across rows walks the plane like a 1×1 pooling with one
// output row: each column's running sum or max is its line-buffer word,
// read, combined with the element (the plane reduction's adder and
// comparison, shared) and written back in the same pass; the first row
// starts the word, the last row's results go to the post-processor. A
// word is max((max_kernel−1)·hsum, E+1+log2(state_depth)) bits, so a
// column's sum is exact whatever H.
//
// # The lookup table
//
// With lut (Config.LUT; the NPU's planar_lut, on by default) the engine
// has one table of 2^E entries of E bits (isa/planar documents its
// semantics): an inferable array beside the lanes (module
// planar_lut_<2^E>x<E>_r<L>) with a write port for each lane holding
// entries and a registered read port for every lane. loadtable reads
// its rows like loadparams its words, and each row writes one entry per
// lane (entry row·L + p from lane p); a lut task's results go through
// the read ports, which are one more pipeline stage (L) between the
// rounding and the output FIFO, enabled by adv like the others. The
// array has no reset: it is undefined until the first loadtable. One
// shared array with a read port per lane was chosen over a copy per
// lane: the read multiplexers (2^E − 1 two-way muxes per bit and lane)
// are the same either way, a copy per lane would add (L − 1)·2^E·E
// flip-flops (30,720 by default), and one array loads L entries per
// read where copies would need every entry broadcast to every lane.
//
// # Optional features
//
// Average pooling, min pooling, the eltwise op, eltwise mul, the
// reductions and their sqrt and recip can be left out (Config.NoPoolAvg,
// NoPoolMin, NoEltwise, NoEltwiseMul, NoReduce, NoPostFn; the NPU's
// planar_pool_avg, planar_pool_min, planar_eltwise, planar_eltwise_mul,
// planar_reduce, planar_postfn, on by default; isa/planar.Features is
// their table): each lane then has no window adder trees (the windows
// only pick), no less-than comparators in the windows (they pick the
// maximum), no eltwise operands, held operand and element ALU (add, sub,
// max, min, abs, neg and the multiplier; the controller's two-tensor and
// broadcast reads go with it), no element multiplier, no reduction
// accumulator with its adder and comparator (nor a line-buffer word
// widened for a column sum), or no sqrt/recip unit nor its sequencer in
// the controller (v goes straight to the rounding; without reductions
// they go too). The fn check flags a task using one ErrFn, as it
// flags a lut task without the table; to the rest of the controller a
// missing op's decode is constant 0, so its logic for it goes too. Max
// pooling, act, writeback, loadparams and the wrap mode always stay.
// Module names carry _no<initials> of the missing ones in table order
// (_nopapmeemrp without all six). The full engine's Verilog is unchanged.
//
// Config.NoChecks (the NPU's planar_checks false) leaves out every check
// of a task's fields: err_code stays 0 and a task runs as its fields say
// (a malformed one may hang or write anywhere), for programs from the
// compiler, which emits only well-formed tasks. The CHECK cycle stays,
// so a good task's cycles are the same. Module names carry _nc.
//
// # Timing and cycle counts
//
// A task accepted in cycle T is checked in T+1 (a bad one ends with done
// in T+2 and its error code, having touched no memory); reads start in
// T+2. Pipeline: read accepted (t) → response into the input FIFO (t+1)
// → step S1 (t+2) → [pooling: vertical filter S2] → X (exact result) →
// P (X·scale) → V (+ bias) → R (floor of the shift, round-up bit) →
// increment, ReLU, clamp and saturation [→ L: a lut task's table read]
// into the output FIFO → write.
// A post function works on the value in V: an iterative shift-subtract
// unit per lane (one subtractor for both functions, one result bit per
// cycle) takes it, and adv stays low until u is ready, so everything
// behind V waits exactly as for a full output FIFO (the reads stop on
// their credit) and the back-pressure rules are unchanged.
// The gain, the bias and the rounding take a stage each so no stage
// holds a wide multiplier and a wide adder in series. Without contention the done pulse comes in cycle T + Cycles:
//
//	nop                       3
//	bad task                  2
//	act, writeback            N + 10         N = H·W (one element per lane per cycle)
//	eltwise with a scalar     N + 10
//	eltwise abs               N + 10
//	eltwise with broadcast    N + 11         (the one src2 read first)
//	eltwise on two tensors    2N + 10        (two reads per element from the same bank port)
//	    with src2_port        N + 10         (a and b in the same cycle, on two ports)
//	reduce                    N + 10 + P
//	reduce across rows        N + 11 + W·P   (the walker's extra stage)
//	    P = 0 without a post function, else its steps + 2: sqrt ceil(K/2) + 2, recip K + 3
//	    (a load cycle, one result bit per step, a sign cycle; 26 and 50 by default)
//	loadparams                ParamWords + 5
//	loadtable                 TableRows + 5  TableRows = ceil(2^E / L) (16 by default)
//	lut flag                  +1             on act, eltwise, pool or reduce (the L stage)
//	pool                      max(steps + 5, last + 12)
//	    steps = H·max(W, c+1) + V·OW, c = (OW−1)·stride − pad_w + KW − 1 (last window column),
//	    V = max(0, r − (H−1)) bottom-padding rows, r = (OH−1)·stride − pad_h + KH − 1 (last window row),
//	    last = steps−1 if V > 0, else r·max(W, c+1) + c
//
// so one element per lane per cycle in steady state for act, writeback,
// scalar eltwise and reduce, and one pooling step (one input element)
// per cycle, an output in every step that completes a window (stride 1:
// one output per step once KH−1 rows are in the line buffer). Two-tensor
// eltwise is bound by the state buffer: both operands live in the same
// bank, which has one read port. Config.Cycles gives these numbers;
// contention only adds cycles; the next task is accepted in the cycle of
// the done pulse.
//
// With deep_pipeline (registers that shorten the lane's and the
// controller's longest paths, for a faster clock on FPGAs) a task takes
// more cycles; each term is a Config method used by Config.Cycles:
//
//	every task              +2   PRE registers the products the checks compare; JUDGE acts on the registered result
//	every task with outputs +3   the gain in two registered halves; the increment, then saturation, apart from the clamp
//	eltwise                 +2   its operands, then its function's result
//	reduce                  +1   the sum registered before X
//	pool                    +2·ceil(log2 max_kernel)   each window's tree one level per cycle
//	reduce across rows      +ceil(log2 max_kernel)     its 1×1 horizontal window's tree
//
// so nop 5, a bad task 4, act N + 15, eltwise N + 17, reduce N + 16 + P,
// pool max(steps + 7, last + 17 + 2·ceil(log2 max_kernel)). The input
// FIFO has a third entry, so the read credit no longer counts the same
// cycle's pop; the steady state is still one element per lane per cycle.

package planar
