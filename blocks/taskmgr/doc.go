// Package taskmgr generates the NPU's task manager: task queues with fixed
// priority, a dependency scoreboard, and dispatch to the four engines
// (DMA-in, NE = PE array, planar engine, DMA-out) and, with Config.Sparse,
// a fifth, the sparse engine, after the second and third source documents
// (docs/sources.md §2 and §3). Without Sparse the sparse engine's code and
// the DMA ops that serve it (load_sparse, store_sparse) are malformed, and
// the module is exactly the four-engine one.
//
// # Descriptors
//
// One Go definition (descriptorSpec here, and the engine and op table of
// package isa, the instruction set) gives the descriptor layout of a
// Config and the op check: Layout.Encode turns an isa.Descriptor into
// bits (the compiler makes descriptors with isa.Codec), Layout.Slice
// is the hardware decoder, Layout.Markdown the documentation (LAYOUT.md
// holds it for the default configuration). Fields, bit 0 first: id,
// engine, op, flags, hold, ndeps, dep0..dep{max_deps-1}, src, aux, dst,
// d0, d1, d2, param; 271 bits by default, the width follows the config.
//
// # Pipeline
//
//	cmd port -> queue[cmd_queue] (Q queues, memory FIFOs)
//	         -> arbiter: the highest-priority (lowest-numbered) queue whose head can issue
//	         -> check: ID, engine, op, ndeps, dependency window   (malformed: retire, error)
//	         -> engine slots (engine_slots per engine and queue, in program order)
//	         -> dispatch: per engine, the highest-priority queue whose oldest slot has
//	            every dependency completed
//	         -> outstanding (outstanding per engine) until the engine's done pulse
//
// Lean (Config.Lean, for small NPUs): each engine's slots keep only the
// operands its operations read (isa.Engine.Operands, from the isa op
// table; the DMA engines no aux and param, the planar engine no d2) and
// its port has only those. Its queues of 2 (queue_depth's least) are two
// registers, the head always the first (no memory, no read register, no
// bypass; the same timing); deeper ones are memories without the
// full-width bypass register (see Timing). The contracts below hold
// unchanged.
//
// Queues in words (Config.QueueWords = K >= 2, for block RAM): each
// queue's memory holds a descriptor as K words of ceil(width/K) bits,
// depth*K words deep, so a shallow queue of wide descriptors fills the
// rows of a few narrow, deep block RAMs instead of a few rows of many
// (the default's two 16 x 271-bit queues: 34 iCE40 RAMs at K = 1).
// The memory moves one word per cycle, so a queue takes a push and issues
// a head at most every K cycles: a push parks its descriptor in a staging
// register that writes the words (cmd_ready low for that queue
// meanwhile); the head is gathered word by word into a head register, the
// reads following the writes (see wordQueueModule). Every contract below
// holds unchanged: a head not yet gathered is pending, as a lean memory
// queue's unreadable head, so a hold run waits for it and the queue is not
// idle. Lean queues of 2 are registers with no memory to reshape: Check
// refuses K >= 2 with Lean and queue_depth 2.
//
// Each engine receives each queue's tasks in that queue's program order
// (its slots are FIFOs); tasks of different engines, and of different
// queues, overtake each other freely. One descriptor is issued per cycle
// (from one queue at most one every K cycles with the queues in K words).
//
// Priority without stalls: a head can issue unless its queue's window is
// full or its engine's slots for that queue are full (a skipping queue
// retires without a slot); the highest queue whose head can issue does.
// At dispatch, the highest queue whose oldest slot for the engine has its
// dependencies wins. So queue 0 wins whenever both are ready, and a queue
// that waits never holds back a lower queue's ready task.
//
// An offer stands: a task offered to an engine (valid high, ready low)
// stays offered until that engine takes it, even if a higher queue's task
// becomes ready meanwhile (the NE prefetches the offered task's first
// weights while it drains the one before). valid itself may drop while
// the engine's outstanding FIFO is full; the same task comes back.
//
// Several PE arrays (NETargets > 1): the NE's param names an array (the
// target field at NETargetOffset; NETargets or more means any), and the
// ne_free input says which arrays can take a task now. The dispatch
// prefers a queue whose task's array can take it, so a queue's task for a
// busy array does not hold back another queue's task for an idle one; an
// offer stands per array (a task offered to array i holds array i, not
// the others).
//
// Task-switch points (the hold flag): a task with hold set makes the end
// of this task no switch point. From its issue until its queue issues a
// task without hold (the run's closing task), only that queue issues,
// and on every engine the run's issued tasks dispatch before any other
// queue's (while one waits in the engine's slots, ready or not). A run
// starts only while every other queue is idle (nothing to issue, nothing
// waiting in a slot), so it never passes another queue's waiting task;
// and a held queue that runs empty lets the others issue, so a program
// ending on hold cannot lock them out. Without hold (the default) every
// task boundary is a switch point.
//
// # Programs, IDs and the window
//
// Each queue carries one program: after reset its first task has ID 0 and
// every next task the previous ID + 1 (mod 2^id_bits); the hardware checks
// this. A dependency names an earlier task of the same queue by ID and
// must be one of the window-1 tasks before it (distance 1..window-1 modulo
// 2^id_bits). The scoreboard keeps, per queue, window done bits indexed by
// the low log2(window) ID bits and a base: the oldest task not yet
// completed. Completed tasks older than the base count as done; a task is
// issued only when its ID is less than base+window, so a dependency more
// than window-1 tasks back has always completed already and the compiler
// simply leaves it out. The window therefore also bounds how far a program
// runs ahead of its oldest unfinished task: with the default 64, up to 63
// tasks may overtake a long one (the worked example of docs/sources.md §3
// needs 5).
// Cost: Q x window done bits and, per dependency field, engine and queue,
// a window:1 bit select (each queue's slot head is checked against its
// own queue's scoreboard).
//
// # Errors
//
// A malformed descriptor (ID out of sequence, unknown engine, unknown op
// for its engine, ndeps > max_deps, a dependency outside the window) is
// never dispatched. The first one sets err_code, err_id (its ID field) and
// err_queue; later errors do not overwrite them. Its queue then skips: the
// bad descriptor and every later descriptor of that queue are retired
// without running (they count as completed in the scoreboard, so nothing
// waits for them, and the skipped counter counts them) until err_clear.
// Tasks issued before it and the other queues run on; the command port
// keeps accepting, so nothing hangs. The host reads the status, waits for
// idle, pulses err_clear and continues the queue with the next ID (skipped
// tasks used up their IDs).
//
// # Ports
//
// Clock clk and synchronous active-high reset rst are implicit. Below, <e>
// is each engine name: dma_in, ne, planar, dma_out (and sparse with
// Config.Sparse).
//
//	port              dir  width          meaning
//	cmd_valid         in   1              a descriptor is offered
//	cmd_queue         in   clog2(Q)       queue to put it in (values >= Q mean Q-1)
//	cmd_desc          in   Layout.Width   the descriptor
//	cmd_ready         out  1              the queue has room (valid && ready: accepted); with QueueWords K, low
//	                                      for K-1 cycles after each push to that queue
//	cmd_room          out  Q              (RoomPort only) bit q: queue q has room
//	err_clear         in   1              clears the error status and ends skipping
//	ne_free           in   NETargets      (NETargets > 1 only) which PE arrays can take a task now
//	<e>_ready         in   1              the engine takes a task this cycle
//	<e>_done          in   1              the engine finished its oldest task (in order); the sparse engine: the task named by
//	                                      sparse_done_queue (clog2(Q)) and sparse_done_id (id_bits), inputs too (its units finish in any order)
//	<e>_valid         out  1              a task is offered to the engine
//	<e>_queue         out  clog2(Q)       its queue
//	<e>_id, _op, _flags, _src, _aux, _dst, _d0, _d1, _d2, _param
//	                  out  field widths   its decoded fields (Layout.EngineFieldsOf: with Lean only the operands
//	                                      the engine's ops read, isa OpDef.Operands)
//	<e>_busy          out  1              the engine holds dispatched, unfinished tasks
//	<e>_completed     out  32             done pulses counted
//	err_code          out  3              0 none, 1 ID, 2 engine, 3 op, 4 ndeps, 5 dependency window
//	err_id            out  id_bits        the ID field of the first malformed descriptor
//	err_queue         out  clog2(Q)       its queue
//	skipped           out  32             descriptors retired without running
//	idle              out  1              nothing queued, waiting or running
//
// # Timing
//
// A descriptor accepted in cycle c can be dispatched in cycle c+2. A done
// pulse in cycle c releases its dependents in the same cycle c (the
// scoreboard is bypassed by this cycle's completions), so dispatch overhead
// is 0 cycles. With Config.Lean and queues deeper than 2 a descriptor
// pushed into an empty queue (or one its head leaves in the same cycle)
// can be dispatched in cycle c+3: the memory has no bypass register, its
// head is readable one cycle after the write; a queue that stays filled
// issues one per cycle all the same. With outstanding >= 2 an engine holding one task may take
// the next (ready high while busy), so back-to-back tasks on one engine
// run with no idle cycle; see BENCHMARKS.md. With the queues in K words
// (Config.QueueWords) a descriptor pushed into an empty queue can be
// dispatched in cycle c+K+2, and each queue issues at most one descriptor
// every K cycles. Because of the bypass, <e>_valid
// depends combinationally on every <f>_done: an engine's done must not
// depend combinationally on this cycle's valid or ready (a registered done
// is the natural choice).
package taskmgr
