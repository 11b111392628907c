// Package planar is the planar engine's part of the instruction set:
// its operations and function codes (the Fns table, with each function's
// attributes such as Unary), the Task struct every planar descriptor
// decodes to, the field table the descriptor is laid out by (Sizes.Fields,
// Encode, Decode), the task's validation with the hardware's error codes,
// and what a task reads and writes. It builds no hardware: blocks/planar
// takes its ports and checks from here, the reference machine
// (isa/machine) its semantics, the compiler its encoder.
//
// Adding an element-wise function is one row of Fns; the hardware lane,
// the golden model and the reference machine's dispatch each have a
// test that fails until they know the new code.
//
// # Task descriptor
//
// One Go struct, Task; Sizes.Fields lists the port fields in order (Encode
// gives their values). OH and OW are computed by Encode, not set by the
// compiler; the hardware checks them.
//
//	field           type            meaning
//	op              UInt(3)         Op: nop, act, writeback, eltwise, pool, reduce, loadparams, loadtable
//	fn              UInt(3)         a code of the Fns table: eltwise add/sub/mul/max/min/abs/neg; pool max/avg/min; reduce sum/max/rowsum/rowmax
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
//	lut             1               act, eltwise, pool, reduce: look the result up in the table (Sizes.LUT)
//
// # Operations
//
// Every operation computes an exact value x per element (at most
// Sizes.XWidth bits, no overflow possible) and sends it through the one
// post-processor, the formula of golden.Requant:
//
//	v   = x·scale + bias                                  exact, Sizes.VWidth bits
//	r   = v                                               shift = 0
//	r   = floor(v / 2^shift)                              wrap (no rounding)
//	r   = floor(v / 2^shift) + up                         shift > 0, rem = v − floor(v/2^shift)·2^shift, half = 2^(shift−1)
//	      up = rem ≥ half                                 round half up
//	      up = rem > half or (rem = half and floor odd)   round half to even
//	r   = max(r, 0)                                       relu
//	r   = min(max(r, lo), hi)                             clamp
//	out = min(max(r, elem min), elem max)                 saturation to the element type
//	out = r mod 2^E, as an element                        wrap: the low E bits, no saturation
//	out = table[out − elem min]                           lut: the entry of the element (golden.Lookup)
//
// The lookup table (an engine with Sizes.LUT) maps every element to an
// element: 2^E entries of E bits, entry k for the element value
// min + k (k = out + 2^(E−1) for signed elements, k = out for unsigned;
// the hardware flips the sign bit). Its index is the element the lines
// above produce, whatever produced it (saturation, clamp or wrap), so a
// task computes a non-linear function of its own result in one pass:
// act, eltwise, pool and reduce take the lut flag (writeback ignores
// it, as it ignores relu); the requantization before the table sets
// its input scale, the table its output scale (golden.TableOf builds
// one from a float function). A lut task takes one cycle more. The
// table holds until the next loadtable and is undefined before the first
// one (the hardware's array has no reset; the models read zeros). Without
// a table (Sizes.LUT false) a lut flag on those operations is ErrFn and
// loadtable is ErrOp. The table is one per engine, shared by the lanes
// (one read port each), and E ≤ MaxLUTElemWidth.
//
// An engine may lack optional features (Features: average pooling, min
// pooling, the eltwise op, eltwise mul, the reductions, the post
// functions sqrt and recip; Sizes.NoPoolAvg, NoPoolMin, NoEltwise,
// NoEltwiseMul, NoReduce, NoPostFn): a task using one is ErrFn, like a
// lut flag without the table.
//
// A reduction (all four fns) may put a post function (Post, the post
// field) between v and the shift; u replaces v in the rounding, ReLU,
// clamp, saturation or wrap lines above. K = Sizes.RecipShift() =
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
//	           neg: x = −a, unary like abs; −min = 2^(E−1) saturates to the element maximum
//	pool       x = the window's values combined (FnPool codes) over the KH×KW window (padding 0, the nearest element, or ignored) → dst + oy·OW + ox;
//	           OH = (H + 2·pad_h − KH)/stride + 1, OW likewise; average = sum with scale/shift dividing by KH·KW
//	reduce     x = sum or max of the H·W plane → dst (fn 0, 1)
//	           across rows (fn 2 rowsum, 3 rowmax): x_j = sum or max over y of state[src + y·W + j] → dst+j,
//	           j < W: the H rows combined element by element into one row, W ≤ line_depth
//	loadparams reads ParamWords elements from src in every lane of the mask: scale, then bias, each
//	           little-endian in whole elements; they are the lane's per-partition parameters until reloaded
//	loadtable  reads TableRows = ceil(2^E / L) vectors from src: entry k = state[k mod L][src + k div L];
//	           the mask must name lanes 0..min(L, 2^E)−1 (h, w, dst are not used)
//	nop        nothing; done three cycles after acceptance
//
// Write-back of psum partition j to state partition j at an address
// offset completes the on-chip transpose (docs/sources.md §1): after the PE
// array has put A[i][j] into psum partition j entry i, one writeback
// task (H·W = rows, src = the psum entry, dst = the new address) lays
// partition j of the state buffer out as row j of Aᵀ.
//
// # Errors
//
// Task.Validate names the field, its value and the
// allowed range, in the order of the hardware's checks; the hardware
// reports the first failing one as err_code and ends the task at once:
//
//	1 op        unknown operation (†)      9  line       OW (pool) or W (across rows) > line_depth
//	2 fn        unknown function (***)     10 src        source past the end of its buffer
//	3 mask      empty, psum lane ≥ C (‡)   11 src2       second source past the end (**)
//	4 shape     H or W zero                12 dst        destination past the end
//	5 kernel    KH, KW, stride ∉ 1..max    13 overlap    destination over a source where the op cannot allow it
//	6 pad       pad ≥ window (*)           14 shift      shift > MaxShift
//	7 window    window > padded plane      15 clamp      lo > hi
//	8 out_shape OH/OW inconsistent
//
// (*) also pad_ignore with average pooling or with pad_edge.
// (**) also broadcast with scalar_operand.
// (***) also an unknown post function, or one on an operation other than reduce, or lut without a table.
// (†) also loadtable without a table.
// (‡) also a loadtable whose mask leaves out a lane of the table.
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
