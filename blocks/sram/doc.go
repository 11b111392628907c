// Package sram generates the NPU's on-chip memories: the banked state
// buffer and the psum (accumulator) buffer. Both are built with the hdl
// DSL from a Config (see DefaultConfig), so the same netlist is emitted as
// Verilog and run on the Go simulator.
//
//	st, err := sram.StateBuffer(cfg.State, cfg.Macros) // *hdl.Module
//	ps, err := sram.PsumBuffer(cfg.Psum, cfg.Macros)
//
// # Memory form
//
// Every bank is one hdl.Memory with one write port and one read port
// (read data the cycle after the address; a read of the word being
// written in the same cycle returns the old word). By default it is
// emitted as an inferable reg array; with Config.Macros it is a black-box
// SRAM macro instance (hwgen_sram_<depth>x<width>) plus a behavioural
// model file, to be replaced by a foundry compiler's macro of the same
// name and ports. Simulation and every test are the same for both forms.
//
// # Handshake (all clients of both buffers)
//
// A request is accepted in a cycle in which valid and ready are both
// high; its fields are sampled in that cycle. A client holds valid (it may
// not withdraw a request) until it is accepted; ready is combinational
// from the valid and mask inputs of all clients. The readies of the state
// buffer and rd_ready are grants, only high together with valid;
// the psum buffer's wr_ready and clr_ready may be high while the port is
// idle (they say the port could accept). A read response comes
// exactly one cycle after acceptance (rvalid high for that one cycle,
// data lanes outside the request's mask read as 0); there is no other
// latency and no response without a request. rst resets the control
// state (arbitration, pipelines, the clear engine) but not the arrays.
// Clients are reset with the buffer and present no request while rst is
// high; the buffer holds ready low from the second cycle of a reset
// through the first cycle after it (a block cannot see rst
// combinationally, so a registered copy gates the grants).
//
// # State buffer
//
// P partitions, one bank per PE-array row, each D elements of E bits
// (the bits are not interpreted: int8 is E = 8). Every client addresses a
// vector: one address and a P-bit lane mask; a single-partition access is
// a one-hot mask, the PE-array row read is the full mask (one element
// from every partition at the same address). A request is granted only
// when it gets the port of every bank in its mask (vector accesses are
// atomic); requests for disjoint banks proceed in the same cycle. Reads
// compete for the banks' read ports, writes for their write ports, so a
// read and a write never stall each other; a read accepted in the same
// cycle as a write of the same word returns the old word.
//
// Ports (x is the client prefix, p = 0..P-1, aw = log2(D)):
//
//	client prefix  role                                  direction
//	pe             PE-array row read (input vectors)     read
//	wl             weight-load read                      read
//	dmar           DMA read (to external memory)         read
//	plr            planar-engine read                    read
//	dmaw           DMA write (from external memory)      write
//	plw            planar-engine write-back              write
//
//	port           width   dir  meaning
//	x_valid        1       in   request present
//	x_addr         aw      in   element address in every bank of the mask
//	x_mask         P       in   banks (partitions) accessed
//	x_wdata_p      E       in   write clients: data for partition p
//	x_ready        1       out  request accepted this cycle (with x_valid)
//	x_rvalid       1       out  read clients: response of the read accepted in the previous cycle
//	x_rdata_p      E       out  read clients: partition p's element (0 outside the mask)
//
// Arbitration is round robin with atomic vector grants: allocation is
// greedy in a rotating priority order, and the order's head moves to the
// first client that asked and was refused (it stays when nobody was
// refused). The head is always granted and moves towards a waiting client
// without passing it, so a client waits at most N-1 cycles (N = 4 read
// or 2 write clients) however hard the others stream, and a bank port
// never idles while a client that could use it waits. Fixed priority would
// be cheaper but lets a streaming PE array or DMA starve the planar
// engine forever; round robin among the clients that actually conflict
// keeps the bound without costing throughput when they do not.
//
// With StateConfig.DMAReadPort every bank has a second read port used by
// dmar alone: dmar is granted whenever it asks (ready = valid after
// reset), the other three read clients share the first port under the
// same round robin (a wait of at most 2 cycles), and a store never takes
// a read cycle from the PE array's row stream. A bank is then a
// two-read-port array (macro hwgen_sram_<d>x<w>_r2).
//
// With StateConfig.PlanarReadPort the buffer has a fifth read client,
// plr2 (the ports above with prefix plr2), the planar engine's second
// read, with a read port of its own in every bank used by plr2 alone,
// granted like dmar's own port: the engine reads a two-tensor eltwise's
// second operand there in the cycle its first is read on plr. A bank is
// then a two-read-port array, three with DMAReadPort too; module names
// carry _pr.
//
// # Psum buffer
//
// C partitions, one per PE-array column, each D signed accumulators of A
// bits (two's complement; sums wrap modulo 2^A). Three clients:
//
//	port           width   dir  meaning
//	wr_valid       1       in   PE-array write of one vector: out[t][c] for every c at entry t
//	wr_addr        aw      in   entry
//	wr_acc         1       in   1: accumulate (entry += data), 0: overwrite (entry = data)
//	wr_mask        C       in   partitions written
//	wr_data_c      SInt(A) in   data for partition c
//	wr_ready       1       out  write accepted (with wr_valid)
//	rd_valid       1       in   planar-engine read-out of one vector
//	rd_addr        aw      in   entry
//	rd_mask        C       in   partitions read
//	rd_ready       1       out  read-out accepted (with rd_valid)
//	rd_rvalid      1       out  response of the read-out accepted in the previous cycle
//	rd_data_c      SInt(A) out  partition c's accumulator (0 outside the mask)
//	clr_valid      1       in   clear command
//	clr_base       aw      in   first entry
//	clr_count      aw+1    in   entries to zero: base, base+1, ... modulo D (0 is a no-op)
//	clr_ready      1       out  no clear running; a command is accepted (with clr_valid)
//
// A write is accepted in cycle t, reads the old accumulator in t and
// writes the sum at the end of t+1. The sum written at the end of t is not
// yet in the array when the write accepted at t+1 reads it, so it is kept
// in a register and forwarded on an address match: accumulating writes to
// one entry in every cycle give the right sum at one write per cycle.
//
// Ordering: writes (and a clear's zero writes) take effect in acceptance
// order. A read-out accepted in cycle t returns the entry with every write
// accepted before t applied (not one accepted in t itself). A clear
// accepted in cycle t zeroes one entry (all partitions) per cycle in
// t+1 .. t+count; while it runs wr_ready and clr_ready are low, so a
// write accepted with the clear command (or before) lands before the
// zeros and any later write lands after all of them. Read-outs continue
// during a clear and see the entries already zeroed, so once clr_ready is
// high again every read-out sees the whole region cleared.
//
// Each partition's read port serves two clients, the old value of an
// accumulating write and the read-out, arbitrated like the state buffer
// (round robin, atomic over the masks, at most one cycle of waiting).
// Overwrites need no read port: they are accepted every cycle while no
// clear runs. An accumulating write waits only for a read-out of the same
// partitions in the same cycle — unless PsumConfig.WritePriority is set
// (the NPU sets it, as the PE array cannot stall): then a read-out of
// partitions an accumulating write wants does not ask for them that
// cycle, so wr_ready is high whenever no clear runs and read-outs wait.
//
// With PsumConfig.ReadOutPort every partition has a second read port
// used by the read-out alone: both clients are granted whenever they ask
// (rd_ready = rd_valid after reset), and the ordering rules above hold
// unchanged (the read-out still forwards the word committed in the cycle
// before). A partition is then a two-read-port array.
//
// Timing note: ready and the bank address and data selection are
// combinational from the clients' valid, mask and address inputs (the
// arbitration for 4 clients is 4 greedy steps deep), which keeps the
// one-cycle read latency; a design that needs a faster clock registers the
// client requests in front of the buffer.
package sram
