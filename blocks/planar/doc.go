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
//
// Every request is held, with its address, until its ready (the buffers'
// rule); the engine takes back-pressure on every port: a read waits for
// room (a credit counts the two-entry input FIFO, the response in flight
// and this cycle's pop), a full output FIFO freezes the whole lane
// pipeline (adv low). A response arrives exactly one cycle after its
// acceptance, as the buffers guarantee.
//
// # Task descriptor
//
// One Go struct, Task; Fields lists the port fields in order (Encode
// gives their values). OH and OW are computed by Encode, not set by the
// compiler; the hardware checks them.
//
//	field           type            meaning
//	op              UInt(3)         Op: nop, act, writeback, eltwise, pool, reduce, loadparams
//	fn              UInt(3)         eltwise add/sub/mul/max/min/abs; pool: an FnPool code; reduce sum/max/rowsum/rowmax
//	mask            UInt(L)         lanes (partitions) worked on
//	src, src2, dst  addresses       sources (src: psum entry for act/writeback) and destination
//	h, w            UInt(dw)        the plane (act, writeback, eltwise: H·W elements in any split)
//	kh, kw, stride  UInt(4)         pooling window and stride, 1..max_kernel
//	pad_h, pad_w    UInt(3)         pooling padding on each side, below the window size
//	pad_edge        1               pad with the nearest element (else 0)
//	pad_ignore      1               max/min pooling: the padding never wins (it is the element type's min/max); not with avg or pad_edge
//	oh, ow          UInt(dw)        pooling output plane (Encode computes them)
//	scalar_operand  1               eltwise: the second operand is scalar
//	scalar          E               an element
//	scale, bias     SInt(S), SInt(A) the post-processor's gain and bias
//	shift           UInt            0..MaxShift
//	round_even      1               round half to even (else half up)
//	relu, clamp     1               post-processor options; lo, hi (E bits): the clamp bounds
//	per_lane        1               act: use each lane's loaded scale and bias
//	wrap            1               floor instead of rounding, the low E bits instead of saturation
//	broadcast       1               eltwise: the second operand is one element per lane at src2 (not with scalar_operand)
//	post            UInt(2)         reduce: the post function on v before the shift: 0 none, 1 sqrt, 2 recip
//
// # Operations
//
// Every operation computes an exact value x per element (at most
// Config.XWidth bits, no overflow possible) and sends it through the one
// post-processor, the formula of golden.Requant:
//
//	v   = x·scale + bias                                  exact, Config.VWidth bits
//	r   = v                                               shift = 0
//	r   = floor(v / 2^shift)                              wrap (no rounding)
//	r   = floor(v / 2^shift) + up                         shift > 0, rem = v − floor(v/2^shift)·2^shift, half = 2^(shift−1)
//	      up = rem ≥ half                                 round half up
//	      up = rem > half or (rem = half and floor odd)   round half to even
//	r   = max(r, 0)                                       relu
//	r   = min(max(r, lo), hi)                             clamp
//	out = min(max(r, elem min), elem max)                 saturation to the element type
//	out = r mod 2^E, as an element                        wrap: the low E bits, no saturation
//
// A reduction (all four fns) may put a post function (Post, the post
// field) between v and the shift; u replaces v in the rounding, ReLU,
// clamp, saturation or wrap lines above. K = Config.RecipShift() =
// VWidth − 2 (47 in the default configuration), and |v| < 2^K always:
//
//	sqrt   u = floor(√v) for v ≥ 0, 0 for v < 0
//	recip  u = floor(2^K / v) for v > 0, −floor(2^K / −v) for v < 0 (towards zero), 2^(K+1) − 1 for v = 0
//
// Both are exact integer functions (no table, no approximation). The
// shift then sets the result's scale: with shift s the recip result is
// 2^(K−s)/v and the sqrt one √v / 2^s. The rounding applies to the
// floored u, and since floor(floor(a)/2^s) = floor(a/2^s) and
// floor(a) ≥ n ⇔ a ≥ n for whole n, half-up rounding gives exactly
// round(√v / 2^s) and round(2^(K−s) / v) (v > 0); half-to-even differs
// from the true value's rounding only where the dropped fraction of u
// makes an exact tie look like one. Precision: the sqrt of v has
// VWidth/2 − 1 significant bits at most, so scale v up (scale 4^f for
// f fractional bits) rather than the result; the recip's relative error
// before the shift is below 1/u. v = 0 gives the largest value, which
// saturates (a division by zero reads as +max); relu and clamp apply
// after, as usual. For a mean use the scale and shift alone; for 1/√x
// take the sqrt in one task and the recip of the result in the next.
//
// Wrap takes a wide result out in digits: with scale 1 and shift k·E an
// act writes digit k of psum + bias, and AccWidth/E such acts (the
// compiler's int32 outputs: four byte planes) hold the accumulator and
// bias exactly. Every operation with a post-processor accepts wrap;
// writeback forces it off like relu and clamp.
//
//	act        x = psum[src+i]; scale/bias from the task or (per_lane) the lane's registers; i < H·W → dst+i
//	writeback  x = psum[src+i], post-processor forced to saturation only (scale 1, bias 0, shift 0, no relu/clamp/wrap)
//	eltwise    x = a op b, a = state[src+i], b = state[src2+i] or scalar; op add, sub, mul, max, min → dst+i
//	           broadcast: b = state[src2] for every i, the lane's own element (a per-channel bias or
//	           scale), read once before the plane
//	           abs: x = |a|, unary (neither src2 nor scalar is read); |min| = 2^(E−1) is exact in x,
//	           so saturation makes it the element maximum (127 for int8) and wrap its low bits
//	pool       x = the window's values combined (FnPool codes) over the KH×KW window (padding 0, the nearest element, or ignored) → dst + oy·OW + ox;
//	           OH = (H + 2·pad_h − KH)/stride + 1, OW likewise; average = sum with scale/shift dividing by KH·KW
//	reduce     x = sum or max of the H·W plane → dst (fn 0, 1)
//	           across rows (fn 2 rowsum, 3 rowmax): x_j = sum or max over y of state[src + y·W + j] → dst+j,
//	           j < W: the H rows combined element by element into one row, W ≤ line_depth
//	loadparams reads ParamWords elements from src in every lane of the mask: scale, then bias, each
//	           little-endian in whole elements; they are the lane's per-partition parameters until reloaded
//	nop        nothing; done three cycles after acceptance
//
// Write-back of psum partition j to state partition j at an address
// offset completes the on-chip transpose (docs/sources.md §1): after the PE
// array has put A[i][j] into psum partition j entry i, one writeback
// task (H·W = rows, src = the psum entry, dst = the new address) lays
// partition j of the state buffer out as row j of Aᵀ.
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
// # Timing and cycle counts
//
// A task accepted in cycle T is checked in T+1 (a bad one ends with done
// in T+2 and its error code, having touched no memory); reads start in
// T+2. Pipeline: read accepted (t) → response into the input FIFO (t+1)
// → step S1 (t+2) → [pooling: vertical filter S2] → X (exact result) →
// P (X·scale) → V (+ bias) → R (floor of the shift, round-up bit) →
// increment, ReLU, clamp and saturation into the output FIFO → write.
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
//	reduce                    N + 10 + P
//	reduce across rows        N + 11 + W·P   (the walker's extra stage)
//	    P = 0 without a post function, else its steps + 2: sqrt ceil(K/2) + 2, recip K + 3
//	    (a load cycle, one result bit per step, a sign cycle; 26 and 50 by default)
//	loadparams                ParamWords + 5
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
// bank, which has one read port. Task.Cycles gives these numbers;
// contention only adds cycles; the next task is accepted in the cycle of
// the done pulse.
//
// With deep_pipeline (registers that shorten the lane's and the
// controller's longest paths, for a faster clock on FPGAs) a task takes
// more cycles; each term is a Config method used by Task.Cycles:
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

// # Errors
//
// Task.Validate (compiler side) names the field, its value and the
// allowed range, in the order of the hardware's checks; the hardware
// reports the first failing one as err_code and ends the task at once:
//
//	1 op        unknown operation          9  line       OW (pool) or W (across rows) > line_depth
//	2 fn        unknown function (***)     10 src        source past the end of its buffer
//	3 mask      empty, or psum lane ≥ C    11 src2       second source past the end (**)
//	4 shape     H or W zero                12 dst        destination past the end
//	5 kernel    KH, KW, stride ∉ 1..max    13 overlap    destination over a source where the op cannot allow it
//	6 pad       pad ≥ window (*)           14 shift      shift > MaxShift
//	7 window    window > padded plane      15 clamp      lo > hi
//	8 out_shape OH/OW inconsistent
//
// (*) also pad_ignore with average pooling or with pad_edge.
// (**) also broadcast with scalar_operand.
// (***) also an unknown post function, or one on an operation other than reduce.
//
// Overlap: eltwise writes lag its reads, so dst ≤ src (in place included)
// or dst ≥ src+N, for each source read per element (a broadcast's src2 is
// read before any write: no restriction); pooling output may not overlap its
// input at all (with padding it can run ahead of the reads); a reduction
// across rows writes column j after reading the last row's element j,
// so dst ≤ src+(H−1)·W (its first row, in place, included) or dst ≥
// src+N; act, writeback and the plane reduction have no restriction
// (different buffer, or one write after all reads).
package planar
