// Package descfetch generates the task manager's descriptor-fetch front
// end, after the third source document (docs/sources.md §3): task queues
// are records in registers that point at rings of descriptors in external
// memory, and a fetch engine reads the next descriptor of the most urgent
// queue into a single-entry fetch queue, from which the task manager takes
// it through its command port.
//
// # Queue records and the memory format
//
// Each of the Q queues has three registers: base (the external line
// address of ring entry 0), tail (descriptors the host has written so
// far) and head (descriptors committed to the task manager so far). Head
// and tail are pointers of RB+1 bits that count forever, modulo 2^(RB+1);
// the extra bit tells a full ring (tail-head = 2^RB) from an empty one.
// The host keeps tail-head <= 2^RB, reading head back on qr_head to learn
// the free space.
//
// Descriptor i of queue q fills B = ceil(W/LW) consecutive lines starting
// at base[q] + (i mod 2^RB)·B, address arithmetic wrapping at AW bits.
// Line k holds descriptor bits [k·LW, (k+1)·LW), line 0 the least
// significant; the high bits of the last line beyond W are ignored.
//
// # Ports
//
// Clock clk and synchronous active-high reset rst are implicit.
//
//	port       dir  width              meaning
//	qr_valid   in   1                  write a queue-record register
//	qr_queue   in   clog2(Q), >= 1     which queue; >= Q: no write, qr_head reads 0
//	qr_reg     in   2                  0 base, 1 tail, 2 head, 3 reserved (ignored)
//	qr_data    in   max(AW, RB+1)      the value; base uses the low AW bits, pointers the low RB+1
//	qr_head    out  RB+1               head of queue qr_queue
//	x_valid    out  1                  read request to external memory
//	x_addr     out  AW                 its line
//	x_ready    in   1                  the request is accepted (meaningful with x_valid)
//	x_rvalid   in   1                  a read response, in request order, latency >= 1
//	x_rdata    in   LW                 its line
//	cmd_room   in   Q                  bit q: the task manager's queue q can take a descriptor
//	cmd_valid  out  1                  a fetched descriptor is offered
//	cmd_queue  out  clog2(Q), >= 1     its queue
//	cmd_desc   out  W                  the descriptor
//	cmd_ready  in   1                  the task manager takes it (valid && ready: commit)
//	pending    out  1                  a ring holds unfetched descriptors, a fetch or offer is
//	                                   under way, or responses are still owed
//	fetched    out  32                 descriptors committed
//	replaced   out  32                 fetches abandoned for a higher-priority queue
//
// Register writes take effect at the clock edge, so a tail write makes its
// queue a candidate from the next cycle. The host writes base and head
// only while the queue is empty and not being fetched (head to start a
// new program elsewhere in the ring: write head, then tail, and let
// nothing be fetched in between, or the half-written record looks like
// descriptors to fetch). A host head write to the queue being committed
// in the same cycle is undefined; this netlist keeps the host's value.
//
// # Fetching and offering
//
// A queue is a candidate when head != tail and its cmd_room bit is set;
// the pick is the lowest-numbered candidate. When the fetcher is idle and
// there is a pick, it starts on the pick's descriptor head[q] in the next
// cycle: it requests the B lines in order, one per cycle while x_ready,
// and stores the responses in the entry. x_valid and x_addr come from
// registers and move only on acceptance, so a raised request holds its
// address until x_ready. With all B lines in, the entry is offered on
// cmd_*; cmd_room of the offered queue is not looked at any more (the
// offer simply waits for cmd_ready). A commit bumps head[q] and the
// fetcher is idle for one cycle before it picks again (the pick of the
// commit cycle would still see the old head).
//
// # Replacement
//
// While the fetcher works on queue q (requesting, waiting for lines or
// offering), a pick p < q makes it drop q's entry and start on p's
// descriptor instead: head[q] stays, so q's descriptor is fetched again
// later, and replaced counts one. The switch happens only in a cycle
// where no request is held (x_valid low, or x_ready high), and a commit
// in the same cycle wins over it. Lines requested for the dropped fetch
// and not yet received are counted as owed; responses pay off owed ones
// first (they arrive before the new fetch's) and are discarded. The
// fetcher only moves to lower-numbered queues between commits, so at most
// ·B responses are ever owed.
package descfetch
