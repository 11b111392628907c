// Package systolic builds the NPU's compute core: an R×C weight-stationary
// array of multiply-accumulate PEs with double-buffered weights, an
// on-chip transpose mode and zero skipping (docs/engines.md, "ne";
// docs/sources.md §1 and §4).
//
// Build(cfg) returns the array; Config is the single source of every
// width and count. Column c of a tile computes
//
//	out[t][c] = Σ_r X[t][r] · W[r][c]   (wrapped to the psum type)
//
// for input vector t, and the result goes to psum partition c, entry t.
//
// # Ports
//
// R = rows, C = cols, E = entry_width; "in" and "out" are directions.
// Every handshake is sampled at the rising edge; the cycle a transfer
// happens in is the cycle its valid (and ready, where there is one) is 1.
//
//	port            dir  type                 meaning
//	in_valid        in   UInt(1)              an input vector is presented
//	in_x_<r>        in   input type           element r, for PE row r (r < R), unskewed: the array skews
//	in_entry        in   UInt(E)              psum entry t the result goes to
//	in_acc          in   UInt(1)              accumulate into the entry (0: overwrite)
//	in_swap         in   UInt(1)              first vector of a tile: from it on, use the weights loaded since the last swap
//	in_ready        out  UInt(1)              the vector is taken this cycle (0 only while a transpose streams)
//	tr_start        in   UInt(1)              transpose command: stream the one-hot vectors e_0 … e_{R'-1}
//	tr_last         in   UInt(clog2 R)        R'-1, the last row of the block (values above R-1 act as R-1)
//	tr_entry        in   UInt(E)              entry of the block's row 0; row i goes to tr_entry+i
//	tr_ready        out  UInt(1)              the command is taken this cycle (feeder idle and in_valid 0)
//	ld_valid        in   UInt(1)              a row of weights is presented
//	ld_row          in   UInt(clog2 R)        the PE row it is for (values ≥ R load nothing)
//	ld_w_<c>        in   weight type          the weight of column c (c < C)
//	out_valid       out  UInt(1)              an output vector is present
//	out_entry       out  UInt(E)              its psum entry
//	out_acc         out  UInt(1)              accumulate (1) or overwrite (0)
//	out_psum_<c>    out  psum type            column c's sum, for psum partition c
//	mac_count       out  UInt(counter_width)  MACs of all vectors taken so far (R·C each); wraps
//	skip_count      out  UInt(counter_width)  of which skipped: element or weight zero (zero_skip only); wraps
//
// The output port maps one to one onto the psum buffer's write port of
// blocks/sram: wr_valid = out_valid, wr_addr = out_entry, wr_acc =
// out_acc, wr_data_<c> = out_psum_<c>, one entry address per cycle for
// all C partitions. The array does not stall: a vector taken is written
// R+C cycles later whatever happens, so the buffer must take a write
// every cycle the array streams.
//
// # Timing
//
// A vector taken in cycle t enters PE row r in cycle t+r (the array skews
// it), is multiplied in PE (r,c) in cycle t+r+c+1, leaves column c at the
// bottom in cycle t+R+c+1, and, deskewed, leaves the output port in cycle
//
//	t + R + C                     (Config.Latency)
//
// With mul_stage each PE registers its product and adds it a cycle later:
// every psum reaches the bottom one cycle later and the latency is
// R + C + 1. Everything else below (the swap, the load window, the
// throughput) is the same, because the multiply still happens in cycle
// t+r+c+1.
//
// so from the first input of a stream of M vectors (one per cycle) to its
// first output is R+C cycles and to its last output M-1+R+C cycles; the
// stream occupies M+R+C cycles counting both ends. The array takes one
// vector every cycle, with or without bubbles, in any mix of tiles.
//
// # Weights: double buffering and the load window
//
// Each PE has an active weight (used by the multiplier) and a shadow
// weight. A load writes row ld_row of the shadow weights; the swap flag
// of a tile's first vector copies shadow to active in each PE exactly
// when that vector reaches it, so the vector before it still used the old
// weights and the swap costs no cycle. The load is skewed like the data:
// PE (r,c) takes ld_w_<c> c cycles after it is presented. Hence the rule:
//
//	a swap taken in cycle T takes row r from the last load of row r
//	presented in a cycle ≤ T+r-1.
//
// So, with T the cycle the running tile's first vector (in_swap) was taken
// and T' the next tile's, the next tile's row r loads in any cycle of
//
//	T+r … T'+r-1
//
// The simple schedule: load rows 0…R-1 in R consecutive cycles starting
// anywhere from T to T'-1 (one cycle before the next tile is enough: the
// rows behind row 0 load while the next tile's first vector is already
// moving down). Before the first tile, loading rows 0…R-1 in cycles
// 0…R-1 allows the first vector in cycle 1. Back-to-back tiles with new
// weights need M ≥ R vectors per tile, as a load takes R cycles; the
// 16×16×16 tile of the default array streams with no idle cycle. After
// reset every weight (active and shadow) is zero. Rows not loaded keep
// their old shadow weights: a partial tile of K < R rows loads K rows and
// gives the other R-K elements of its vectors the value 0.
//
// # Transpose (docs/sources.md §1)
//
// Load the block A (R'×C', with R' ≤ R, C' ≤ C; columns ≥ C' zero) as the
// shadow weights, rows 0…R'-1 as above, then give tr_start with
// tr_last = R'-1. The feeder generates the one-hot vectors e_0 … e_{R'-1}
// itself (nothing is stored or moved for them) in R' consecutive cycles
// from the one the command is taken in, the first with the swap flag,
// vector i to entry tr_entry+i with overwrite. Column j of e_i sums only
// A[i][j], so psum partition j entry tr_entry+i receives A[i][j]: the
// block arrives transposed, partition by partition. The psums of column j
// leave the array on the diagonal wavefront of the source (entry i of
// partition j in cycle T0+R+1+i+j, the source's cycle i+j+1, T0 the
// command's cycle), and the deskew writes entry i of every partition
// together in cycle T0+R+C+i. While the block streams in_ready is 0; a
// command waits while in_valid is 1, so neither channel drops anything.
//
// # Zero skipping (docs/sources.md §4)
//
// With zero_skip, the feeder flags every zero element (and every slot
// without a valid vector) once per row, and the flag travels with the
// element; the load path flags every zero weight. A PE whose element or
// weight is zero does not multiply: its multiplier's element operand
// register holds its old value (operand isolation), the active weight
// register is never loaded with a zero (it keeps its old value and a flag
// says the weight is zero), and the adder adds 0 instead of the product.
// The weight operand changes only when a tile swaps in a non-zero
// weight. Zero elements are not shifted through the skew and forwarding
// registers either. Results are bit-identical with and without zero
// skipping. skip_count counts the skipped MACs of valid vectors: per row,
// as a vector enters it, C for a zero element, else the number of zero
// weights in the row (counted when the row is loaded); the totals equal
// a per-PE count and are complete R cycles after a vector is taken.
//
// # Structure
//
// feeder (feeder.go) → input skew (array.go, skew.go) → R×C PE grid
// (pe.go) → deskew → output; a tag line carries valid, swap, entry and
// acc alongside; counters in counter.go. The PE is one module emitted
// once (sa_pe_<in>_<w>_<psum>_<zs|dense>).
package systolic
