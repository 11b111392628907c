// Package npu builds the whole accelerator from the blocks: task manager,
// DMA engines, state buffer, weight buffer, PE array with its input
// address generator (the NE controller), psum buffer and planar engine
// (docs/architecture.md; the mechanisms of docs/sources.md). Config is the one
// configuration; Build returns the NPU, BuildSim the simulation top that
// pairs it with an external-memory model built from the same DSL, so the
// Go simulator and Verilator run one netlist.
//
// # Data layout
//
// Every on-chip tensor is a matrix X[i][j] with i across state-buffer
// partitions (the partition dimension: channels, a GEMM's K or N) and j
// along addresses (the free dimension: pixels y·W+x, a GEMM's M): element
// (i, j) of a tensor at base b is partition i mod R, address b +
// ⌊i/R⌋·F + j, F the free size (channel tile t of a feature map is the
// plane at b + t·F). The psum buffer holds C-partition tiles the same way
// (partition = output channel n mod C, entry = pixel/row m).
//
// External memory is an array of lines, one line = R elements (element p
// in bits p·E … p·E+E−1), so a line is one state-buffer vector: line a
// ↔ address a across all partitions. The compiler lays tensors out in
// external memory in exactly the on-chip form, and DMA moves lines.
//
// Weights live in the weight buffer: WeightDepth rows of C weights. A
// pass of the NE loads R consecutive rows: row r = the weights of PE row
// r (input channel r of the pass), element c = output channel c. Rows
// for absent input channels and elements for absent output channels must
// be zero (the compiler pads), so the array always works at full size and
// the results of the absent columns are 0.
//
// # Engines and operations (isa.Engines is the op table)
//
// dma_in load: for row k < d1, for line l < d0: external line
// src + k·d2 + l → state address dst + k·d0 + l (all partitions).
// load_weights: the same into weight row dst + k·d0 + l (elements 0..C−1).
// dma_out store: state address src + k·d0 + l → external line
// dst + k·d2 + l. One line per cycle when nothing contends. (load_sparse
// and store_sparse: "Sparse engine" below.)
//
// ne conv/gemm (the same hardware): passes p = (ct, ky, kx), kx fastest,
// ct < d2 (channel tiles), ky < kh, kx < kw. Pass p loads weight rows
// aux + p·R … +R−1 and streams one input vector per output pixel
// (oy, ox), oy < oh, ox < ow, in raster order: the vector read at state
// address src + ct·d0·d1 + iy·d1 + ix, iy = oy·stride + ky − pad_h,
// ix = ox·stride + kx − pad_w, all R partitions, or zeros when (iy, ix)
// is outside the d0 × d1 plane (padding: no read). Its result goes to psum
// entry dst + oy·ow + ox, accumulating when param.acc or p > 0. oh and
// ow are not derived from d0, d1: the compiler gives them, which lets it
// run a block of output rows (src moved down, pad_h adjusted, d0 cut at
// the bottom edge). A GEMM is the 1×1 convolution of a d0 × 1 plane
// (d0 = M). There is no im2col copy (docs/sources.md §5): each kernel offset
// re-reads the input plane in place.
// ne transpose: block A (d0 ≤ R rows, d1 ≤ C columns) with A[i][j] at
// partition i, state address src + j, is read column by column into a
// corner-turn register grid, loaded as the array's weights, and the
// array's one-hot feeder streams e_0 … e_{d0−1}: psum partition j entry
// dst + i = A[i][j] (docs/sources.md §1); partitions j ≥ d1 receive 0 at those
// entries. A planar writeback (src = dst, H·W = d0, any state address n)
// then puts it in the state buffer: partition j, address n + i.
//
// Operand widths: the top hands each engine the low bits of the
// descriptor operands it uses (addresses modulo their space, planar h/w
// to the planar engine's dimension width). The compiler checks every
// value before encoding; a raw descriptor with a wider value wraps.
// planar: the planar engine's task, with op = planar.Op, src, src2 = aux,
// dst, h = d0, w = d1 and every other field packed into param
// (Config.PlanarParams).
//
// # Several neural engines (Config.Engines = N > 1)
//
// N NE controllers (PE arrays), each with its own slice: a whole state
// buffer of state_depth addresses, a psum buffer of psum_depth entries
// and a weight buffer of weight_depth rows (static binding: slice i
// feeds engine i). The DMA engines, the planar engine and the task
// manager are shared. Their address spaces grow by SliceBits =
// clog2(N) high bits: state address e·state_depth + a, psum entry
// e·psum_depth + a, weight row e·weight_depth + a name address a of
// slice e (Config.Planar and the DMA engines are built with the grown
// depths; the task manager's addr_bits include the slice bits). With
// N = 1 the top is exactly the single-engine NPU (same modules, names
// and ports).
//
// Routing: every request of a shared client (dma_in's state and weight
// writes, dma_out's state reads, the planar engine's state reads and
// writes and psum reads) goes to the slice its own address names, and a
// read's response (one cycle after acceptance, as every buffer answers)
// comes back from the slice remembered at acceptance. Each access is
// routed by itself, so a planar task may read one slice and write
// another (e.g. act from psum slice 1 into state slice 0); the compiler
// keeps a band's planar tasks within its slice, and a task's plane must
// not run across a slice boundary unless that is meant (addresses are
// simply consecutive in the grown space). A slice index ≥ N (N not a
// power of two) names no slice: the request is accepted at once, a write
// is dropped and a read answers zeros.
//
// Each NE sees only its own slice: the src, aux and dst of an NE task are
// slice-relative (the low bits of the operands). The NE's param layout
// gets a last field, engine (clog2(N+1) bits): 0..N−1 runs the task on
// that engine, N (Config.AnyEngine) or more on the lowest-numbered
// engine that can take a task this cycle (its operands must then be in
// every slice it may land on). The task manager still sees one "ne"
// engine (in program order per queue), told by ne_free which engines can
// take a task (so a queue's task for a busy engine lets another queue's
// task for a free one go); a dispatcher in the top
// raises ne_ready when the named (or any) engine can take the task,
// hands it to that engine, and turns the engines' done pulses into the
// task manager's in-order ones: a FIFO of the engine index of every
// dispatched task in dispatch order and a count per engine of done
// pulses not yet passed on; the head's engine's done (its pulse this
// cycle or a counted one) is passed on, at most one per cycle, with no
// added latency when the engines finish in order. An engine that
// finishes early therefore releases its task's dependents only when the
// tasks dispatched before it are done too. The task manager's
// outstanding bound for the ne engine is N+1 (at most 8), so every
// engine runs at once and one more task may be taken while one drains.
//
// Ports added with N > 1: ne<i>_start, ne<i>_done (engine i took a task,
// finished one), ne<i>_busy_cycles (cycles engine i is not idle),
// ne<i>_stall_cycles, ne<i>_mac_count, ne<i>_skip_count; mac_count and
// skip_count are the totals, ne_stall_cycles counts cycles in which any
// engine stalls, ne_busy_cycles cycles in which the ne engine holds
// dispatched, unfinished tasks (as with one engine).
//
// # Sparse engine (Config.SparseUnits > 0)
//
// The sparse engine of blocks/sparse (instance sp, Config.Sparse) is the
// task manager's fifth engine, "sparse" (taskmgr Config.Sparse); without
// it (sparse_units = 0, the default) the NPU is the dense one and a
// descriptor naming engine 4, dma_in op 3 (load_sparse) or dma_out op 2
// (store_sparse) is malformed (err_code 2 or 3). A dispatcher
// (sparse.go, dispatchTagged) stands for its units: a clear or conv task
// goes to the unit named by dst's low
// clog2(sparse_units) bits (when sparse_units is not a power of two, a
// value naming no unit goes to the first idle unit; the compiler never
// encodes one), the unit's task record (isa/sparse, Sizes.Task) is packed
// from the descriptor operands (isa.SparseFieldOperand; op 1 for conv),
// and each unit keeps the queue and ID of its task: a finished task's
// done pulse reaches the task manager with them (sparse_done_queue,
// sparse_done_id, also NPU ports), one a cycle, in any order, so a short
// task on one unit never waits to be reported behind a long one on
// another. The task
// manager's outstanding bound is at least sparse_units+1 (at most 8) so
// every unit can run at once.
//
// dma_in load_sparse walks d0·d1 external lines as load does and cuts
// them into d2 records of dst's kind, grouped as sparse.Grouping says (as
// many to a line as fit, one a cycle, or one over several lines); record
// r is written at dst.addr + r of the memory dst names (sparse LoadAddr:
// entries of unit dst.unit, buffer set dst.set, waiting while that set
// refuses writes; or every unit's weights or channel table). dma_out
// store_sparse reads accumulator entries src.addr … src.addr+d0·d1−1 of
// unit src.unit's bank src.bank (sparse ReadAddr; a unit has
// sparse_acc_banks accumulator banks, so one is stored while the unit
// computes into the other), clearing each, and writes entry n's
// lines to external lines dst + n·L … (L lines per entry, low bits
// first), one line per cycle (dma_sparse.go has both port tables).
//
// Ports added: the per-engine ports below for "sparse"
// (sparse_stall_cycles counts cycles in which a task is offered and its
// unit is busy), sparse_mults (the units' multiplications), and per unit
// sparse<i>_mults, sparse<i>_busy_cycles, sparse<i>_stall_cycles (the
// unit's own counters). Config.EngineNames lists the per-engine port
// prefixes; the package variable EngineNames the four every NPU has.
//
// # Descriptor rings (Config.DescRingBits > 0)
//
// The command port gives way to the descriptor-fetch front end
// (blocks/descfetch): each task queue is a record (base, head, tail) over
// a ring of 2^desc_ring_bits descriptors in external memory, a
// descriptor taking ceil(descriptor bits / line bits) lines, low bits
// first. The host writes descriptors into the rings through the memory
// port and the records through qr_valid, qr_queue, qr_reg (0 base, 1
// tail, 2 head), qr_data; qr_head gives the head of queue qr_queue (the
// descriptors committed so far: a host refills the ring behind it). The
// fetch DMA reads a descriptor of the highest-priority queue that has
// one and room in the task manager's queue, and commits it there; a
// higher-priority doorbell during a fetch replaces it. Its reads share
// dma_in's external read client through a read mux (extread.go: the
// fetch wins a contest; a tag per read in flight routes the responses).
// idle also waits for the front end; desc_fetched and desc_replaced
// count commits and replacements. The task manager's queues then only
// buffer between fetch and issue: queue_depth 2 is enough (the
// descriptors live in external memory, not in block RAM).
//
// # Partial outputs (Config.PartialGating)
//
// The task manager gets the descriptor's partial flag: a task with it
// is dispatched once its dep0 has started. dma_in and the planar engine
// each keep, for the task they run, its queue, ID and a write pointer
// (one past the last state address written); the NE (input and
// transpose reads) and dma_out (store reads) keep their task's partial
// flag and dep0, and a read at or above the pointer of the producer
// running dep0 is held back (gating.go). One engine only.
//
// # Networks and base pointers (Config.Networks > 0)
//
// Descriptors carry net, src_mem and dst_mem. A base pointer per
// network (an external line, written by the host through bp_valid,
// bp_net, bp_addr) is added, modulo 2^ext_addr_width, to dma_in's src
// when src_mem is set and to dma_out's dst when dst_mem is set
// (networks.go); other operands are absolute.
//
// # Ports of the NPU (Build)
//
//	cmd_valid, cmd_queue, cmd_desc, cmd_ready, err_clear   the task manager's command port (without descriptor rings)
//	qr_valid, qr_queue, qr_reg, qr_data, qr_head            queue records (with descriptor rings, instead of cmd_*)
//	desc_fetched, desc_replaced                             the descriptor fetch's counters (with descriptor rings)
//	bp_valid, bp_net, bp_addr                               a network's base pointer (with networks)
//	idle, err_code, err_id, err_queue, skipped              status
//	x_req_valid, x_req_write, x_req_addr, x_req_wdata       external memory request (lines)
//	x_req_ready                                             request accepted
//	x_resp_valid, x_resp_data                               read response, in request order
//	<e>_busy_cycles, <e>_stall_cycles, <e>_completed        per engine (dma_in, ne, planar, dma_out; sparse with the sparse engine);
//	                                                        a stall is counted the cycle after it (its flag is registered first)
//	mac_count, skip_count                                   the PE array's counters (the totals with several engines)
//	ne<i>_start, ne<i>_done, ne<i>_busy_cycles, ne<i>_stall_cycles, ne<i>_mac_count, ne<i>_skip_count
//	                                                        per neural engine (several engines only)
//	                                                        (the counters above only with perf_counters, the default)
//	<e>_start, <e>_start_id, <e>_start_queue, <e>_done      dispatch (the task's ID and queue) and completion, for the task timeline
//	sparse_mults, sparse<i>_mults, sparse<i>_busy_cycles, sparse<i>_stall_cycles
//	                                                        the sparse engine's counters (with the sparse engine only)
//
// # The simulation top (BuildSim)
//
// The NPU plus an external-memory model (2^ext_addr_width lines, reads
// answered ext_latency cycles after acceptance, always ready) and a host
// memory port: h_wr_valid, h_wr_addr, h_wr_data write a line (the NPU's
// requests wait that cycle); h_rd_addr gives h_rd_data one cycle later.
// The host loads tensors, pushes descriptors, waits for idle and reads the
// results back, all through ports: a run is replayable on Verilator.
package npu
