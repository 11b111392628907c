// Package sparse builds the sparse engine: a convolution datapath whose
// time follows the non-zeros of its input (docs/engines.md, "Sparse
// engine"; the fourth source document of docs/sources.md).
//
// The engine is Units compute units, each statically bound to its own
// memory unit (unit i reads only memory unit i). A memory unit holds
// (value, channel, row, column) entries, the non-zero values of the
// unit's share of the input feature map with their indices, in two
// buffer sets: one is loaded while the unit computes on the other (the
// set a running conv task reads refuses writes: in_wr_ready).
//
// A unit takes one entry per weight record: the weight memory holds, per
// pass (Lanes output channels) and input channel, the list of kernel
// positions (ky, kx) where at least one of the Lanes weights is non-zero,
// with those Lanes weights; a channel table gives each list's start and
// length. Each cycle the unit multiplies the entry's value by one
// record's Lanes weights (a zero weight's multiplier is idle and not
// counted) and scatters the products to output pixel (row − ky,
// col − kx) — the full correlation's x + (K−1−w), shifted to the valid
// one — kept when it lies on the stride's grid inside the task's
// oh × ow plane (the crop). All Lanes products of a cycle land on the
// same pixel, one accumulator entry of Lanes sums: one read and one
// write port serve every multiplier and no two products of a cycle meet
// in one accumulator. The accumulator is read in one cycle and written
// in the next; a read-modify-write that follows one to the same entry
// takes the sum being written (a one-entry forward), so a unit issues a
// record every cycle whatever the order of the pixels.
//
// Pipeline of a unit: f0 entry read, f1 channel-table read, f2 queue
// (queueDepth entries), weight iterator (one record per cycle), m1
// products and pixel address with the accumulator read, m2 add and
// write. An entry whose channel has no record costs one cycle.
//
// Tasks (Config.Task layout, port task_in with go; ready while idle,
// done one cycle after the end): clear (count accumulator entries to 0)
// and conv (count entries of buffer set set, channel table from tbase,
// plane oh × ow, stride 2^stride_log2), each on accumulator bank bank
// (AccBanks banks of AccDepth entries, each with its own ports). A bank
// is read out while no task runs on it (rd_en, rd_bank, rd_addr, data on
// rd_data the next cycle; rd_clear zeroes the entry read, so reading a
// pass's plane out also clears it for a later one): with two banks a
// pass's plane is read out while the unit computes the next pass into
// the other. Counters: mults (multiplications performed:
// the non-zero inputs times the non-zero weights they meet), busy_cycles,
// stall_cycles (a conv task running without issuing a record).
//
// The weight and table load ports are shared: one write reaches every
// unit's copy (a unit reads its own copy every cycle). Every record's
// layout is defined once (Config.Entry, Weight, Table, Task): the
// hardware cuts fields with Layout.Get, compiler/sparseconv packs them
// with Layout.Pack.
package sparse
