// Package partition divides a convolution's input feature map among
// several neural engines so that their zero-skipping work is balanced:
// the sparsity-balanced partitioning of the sparse accelerator in
// docs/sources.md §4. It is the compiler side only; it needs no
// hardware (compiler/multi runs the partitions on the NPU).
//
// # The problem
//
// A C×H×W feature map (its values, or just its non-zero mask: a Map) is
// divided into Rows×Cols sub-feature-maps, one per engine (as in the
// sparse accelerator: memory unit i feeds compute unit i). An engine that skips zeros
// (only non-zero values and their indices reach the multipliers) takes a
// time that grows with the non-zeros it holds, so partitions of equal
// area are not of equal work when the zeros are unevenly spread (ReLU
// outputs, object boundaries). The partitions' non-zero counts must
// differ by at most a threshold, a fraction of the larger count
// (DefaultThreshold: 3%, the source's example: a 512×512 map, m = 16).
// The source words the 3% on the non-zero share (the density); this
// package bounds the counts instead, which is what equalises the work
// (equal densities of unequal areas do not); Plan.Metrics reports both.
//
// # The algorithm
//
// Partitions are contiguous bands of rows; with Cols > 1 the columns are
// first cut into Cols strips (balanced the same way, by their counts over
// all rows, to within a quarter of the threshold, or as evenly as the
// search can if the rows then fail) and each strip is then cut into Rows
// partitions with its own row cuts (a guillotine grid: the column cuts
// are shared, the row cuts are per strip, which gives the balancer
// Cols·(Rows−1) degrees of freedom instead of Rows−1, and steps of a
// strip's width instead of the map's).
//
//  1. Start from the equal-area cuts (band sizes differ by at most one).
//  2. While the counts are not within the threshold, visit the cuts in
//     order and move one row at a time across a cut, from the heavier
//     neighbour to the lighter, as long as that lowers the heavier of the
//     two counts. Rows move only between neighbours because a partition
//     must stay a contiguous band (a rectangle the engine streams and the
//     DMA fetches with one strided descriptor, and whose halo is only at
//     its two ends); repeated neighbour moves let a surplus travel along
//     the chain. Every accepted move lowers the counts sorted in
//     decreasing order lexicographically, so the moves end. They stop as
//     soon as the threshold is met, so the cuts stay as close to equal
//     area as the balance allows.
//  3. If the moves stall above the threshold (each move shifts a whole
//     row of non-zeros, which can overshoot a narrow window), an
//     exhaustive search decides the question: for every candidate largest
//     count h (from the smallest achievable largest count up to the bound
//     the average allows) a dynamic program over all cut positions looks
//     for cuts with every count in [h − ⌊threshold·h⌋, h]. It is exact (for
//     the chosen column cuts) and returns the balanced cuts with the
//     smallest largest count.
//  4. If no cuts meet the threshold, Partition returns the most balanced
//     plan it found (the moves' result, or the search's cuts with the
//     smallest largest count and, for it, the largest smallest count)
//     and an *UnbalancedError with that imbalance, whether the exhaustive
//     search proved the threshold unreachable, and why: typically that
//     moving a single row across a cut moves more non-zeros than the
//     threshold allows (rows are too coarse: cut columns too, or use fewer
//     partitions), or that the column strips are not balanced.
//
// Rows are a coarse step: with 16 bands of a 512×512 map (the source's
// example) one row is about 1/32 ≈ 3% of a band, so whether 3% can be
// met with row cuts alone depends on the map; a 4×4 grid makes the steps
// four times finer.
//
// Everything is deterministic: the same map and options give the same
// plan. Each partition keeps at least MinRows (MinCols) units, by
// default the rows a k×k window needs (see Options).
//
// EqualArea gives the baseline the balanced plan is measured against,
// and Plan.Metrics the per-partition non-zeros,
// dense and zero-skipped MACs, max/min ratios and the speed-up they
// imply.
//
// # The halo rule
//
// A convolution (Conv: kernel KH×KW, stride s, padding) makes the
// partitions depend on each other's rows. In Halo mode (partitions
// overlap by a halo, so each computes its outputs alone and they are
// stitched without exchanging sums) the balancer cuts the output rows, so every output row
// is computed by exactly one partition; a partition computing output rows
// [o0, o1) loads input rows [o0·s−p, (o1−1)·s−p+k) clipped to the map
// (Window), i.e. its own rows plus a halo of k−s rows shared with the
// next partition (k−1 for stride 1), and treats as zero padding only
// what lies beyond the map's true edges (Span.PadLo, PadHi: non-zero only
// for the first and last partition, or over edge rows that a stride longer
// than the kernel never reads). Its outputs are computed alone and
// placed side by side (Stitch). The counts balanced are those of the
// input rows a partition loads, halo included: what its engine stores and
// multiplies.
//
// In PartialSums mode (no overlap; the partial sums of outputs at a
// border are added) the balancer cuts the input rows exactly; a partition computes
// the contribution of its own rows to every output they reach (Reach),
// the neighbours' rows standing in as zeros, and Stitch adds the partial
// sums of outputs two partitions reach. No input is loaded twice, but
// up to ⌈(k−1)/s⌉ output rows per cut are exchanged and added.
//
// Columns follow the same rules. Without a convolution (the zero Conv, a
// 1×1 kernel) the two modes agree and there is no halo.
package partition
