// Package sparseconv maps a convolution onto the sparse engine
// (blocks/sparse; docs/engines.md, "Sparse engine"): it divides the input
// feature map among the engine's units with compiler/partition (halo
// mode: each unit computes its own output rows and columns alone),
// compresses each unit's padded slice into (value, channel, row, column)
// entries — zeros, padding included, are not stored and never multiplied —,
// turns the weights into per-pass weight lists (a pass is Lanes output
// channels; a kernel position whose Lanes weights are all zero is left
// out) with a channel table, and cuts each unit's entries into the chunks
// its buffer sets hold (compiler.CompileSparse makes the descriptors and
// the external-memory image of the NPU program from them). Stitch puts the
// units' planes together; Model runs the same program without hardware
// (the scatter, x + (K−1−w) cropped to the strided output grid, with
// isa/machine's Scatter, the model the reference machine's sparse conv
// task runs too), so the mapping is checked on its own against the dense
// golden model.
package sparseconv
