// Package compiler maps tensor operations onto the NPU of an npu.Config
// (blocks/npu/doc.go is the contract it compiles for) and returns a
// Program: the external-memory image, where every input and output
// tensor lives in it and how to convert it, and the descriptors for task
// queue 0 with their dependencies. No simulator is involved; Interpret
// runs a Program on the reference machine (isa/machine: Go arrays with
// the engines' exact semantics).
//
//	g := compiler.NewGraph()
//	x := g.Input("x", img)                                  // *golden.Tensor, [C,H,W]
//	y := g.Conv2D(x, w1, compiler.Conv{PadH: 1, PadW: 1, Requant: q})
//	y = g.Pool2D(y, compiler.Pool{Kind: golden.PoolMax, KH: 2, KW: 2, Stride: 2})
//	g.Output("logits", g.GEMM(g.Flatten(y), fc, q))
//	prog, err := compiler.Compile(cfg, g)                   // errors name op, parameter, value, limit
//	want, _ := g.Reference(cfg)                             // golden models
//	got, m, err := compiler.Interpret(prog)                 // reference machine (isa/machine)
//
// Operations: GEMM (any M, K, N; A a graph value, B constant weights),
// Conv2D (NCHW, batch 1, stride, padding, any channel counts, grouped
// and depthwise: Conv.Groups), a fully
// connected layer as GEMM on Flatten of a feature map, Transpose (any
// size, on chip), Column (a per-channel vector viewed as [C][1], free),
// Concat (feature maps along channels), PermuteChannels
// and ChannelShuffle, Pool2D (max/avg/min, window, stride, padding, zero or
// edge padding, or for max/min padding that never wins), Eltwise and EltwiseScalar (add, sub, mul, max, min), EltwiseChannel
// (the same with one operand per channel, broadcast over the plane), Abs,
// Requant (the post-processor on a state-buffer tensor: eltwise add of
// 0), Reduce and ReduceWith (sum/max per channel of the whole plane or
// across its rows, optionally with a sqrt or reciprocal post function),
// Lookup (an element-wise function as a table of every element value, on
// the planar engine's lookup table: lookup.go), Upsample (nearest, by 2
// along H and W: four strided DMA stores per input row into external
// memory, where the result stays, or into its part of a concatenation:
// upsample.go). Every result is requantized to elements by a
// golden.Requant (the zero value means the identity); the golden model is
// golden.Requant applied to the exact (int32-wrapped) result. A conv2d
// (Conv.PerChannel) or GEMM/FC (GEMMPerChannel) can instead requantize
// each output channel with its own scale and bias (ChannelRequant; the
// shift, rounding, ReLU and clamp stay the layer's): the table is the
// input binding <layer>.q, loaded once per layer into the state buffer,
// and a planar loadparams sets the lane registers for each output tile
// before its per-lane acts (perchannel.go). A conv that is the only
// reader of a graph input with few channels runs on the input laid out
// as its windows, C·kh·kw rows per output pixel, as a 1×1 conv (taps.go;
// Conv.Taps).
//
// A conv2d (Conv.Int32, with an optional int32 Bias per output channel)
// or GEMM (GEMMInt32) can instead give int32 results, (acc + bias) mod
// 2^32, not requantized: each block's psum goes out through four planar
// acts in wrap mode (scale 1, shift 0, 8, 16, 24: byte k of acc + bias;
// the bias through the per-lane parameters) into four byte planes, and
// one store writes them to four planes of the output's external region.
// The output's Binding says so (Digits, DigitWidth) and FromLines, which
// every reader of outputs goes through (Program.Results), puts the int32
// values together. Such a result can only be a graph output (no
// operation reads it), and needs acc_width ≤ 32 (wider accumulators
// would not fit an int32: refused).
//
// # Layout
//
// A value on chip is a matrix X[i][j]: i across state-buffer partitions,
// j along addresses; element (i, j) is in partition i mod P, address
// base + ⌊i/P⌋·F + j (channel tiles of P partitions, one after another).
// P is Rows for tensors DMA brings in and Cols for results of the psum
// write-back (planar lane j reads psum partition j < Cols); consumers
// handle either (weight rows for absent partitions are zero). External
// memory holds a tensor in exactly this form, one line per address
// (Binding gives each line element's flat index in the user's tensor).
//
//   - Feature map [C,H,W]: X[c][y·W+x].
//   - GEMM A [M][K]: stored transposed, X[k][m] (an M×1 plane); the
//     result C [M][N] comes out transposed too, X[n][m] (psum partition n,
//     entry m → act → state partition n, address m), so the transpose of
//     a GEMM result is free (a view).
//   - Weights: one external line per weight-buffer row, in pass order
//     (channel tile, ky, kx), R rows per pass, element c = output channel
//     c of the tile; zero for absent channels. GEMM B is the 1×1 case.
//
// # Tiling
//
// Conv2D, GEMM and FC share one lowering (planConv decides the tiling,
// runConv emits it): output channels in tiles of Cols (one NE task chain per tile); output rows in blocks of
// at most half the psum buffer (psum_depth/2 entries: two blocks are
// never at the same entries, so the act of one block overlaps the NE of
// the next), as few blocks as the psum and state space allow, of
// balanced height (a short last block would run passes too short to hide
// their weight loads) — but at least two for a layer of one output tile
// when each half still has 2R pixels per pass (the act of the first
// block overlaps the NE of the second and a consumer can start on the
// first half); input channel tiles × kernel rows grouped so one group's
// weights fit a weight-buffer slot. A whole layer's weights that fit the
// weight buffer are loaded once each (resident); otherwise groups stream
// through the two halves of the weight buffer (a group loads into one
// half while the NE reads the other), or through the whole buffer when a
// kernel row of passes does not fit a half. K-blocking of a GEMM is this
// grouping: successive NE tasks accumulate into the same psum block. A
// GEMM is the 1×1 convolution of an M×1 plane; an FC layer on a C×H×W
// map is the convolution of the (H·W)×1 plane by an (H·W)×1 kernel
// (kernel rows split into groups of at most max_kernel), so the NE reads
// each pixel's channel vector in place. A block of output rows of a task
// is expressed by moving src down whole rows and adjusting pad_h (top
// padding) and d0 (bottom edge); when that would change the channel-tile
// stride d0·d1 of a multi-tile task, the full height is kept if the task
// never reads past the plane, else the task is split per channel tile.
// No im2col copy.
//
// Inputs in external memory are streamed: a conv/GEMM loads, per block
// of output rows, the band of input rows it needs (all channel tiles,
// one strided DMA) into one of two slots — except the first block of a
// layer, which loads one channel tile at a time (with the first weight
// block's rows of that tile), each followed by an NE task that reads
// only that tile, so the NE starts after one tile's load instead of the
// whole band's; pool/reduce load one channel plane at a time; eltwise
// loads chunks; transpose loads one row tile at a time. Results nothing
// on chip reads are staged through two slots and stored block by block;
// results other operations read stay resident in the state buffer (no
// external round trip), and are also stored when they are outputs. When
// two slots do not fit, one is used (correct, serialized by the
// dependencies, slower). Transpose splits into ≤ R×C blocks: NE
// transpose (psum partition j entry i = A[i][j]) and a planar write-back
// to partition j, address base + ⌊j/C⌋·m + i. Pool, eltwise, reduce and
// requant are planar tasks per channel tile (eltwise over all tiles at
// once). A pool that alone reads a conv's result, with no padding above
// or below, runs in bands of rows instead, each emitted right after the
// act that completes the conv rows it reads (pool_bands.go): the planar
// engine, which runs its tasks in program order, pools while the NE
// still convolves, and the next layer waits only for the bands it reads
// (Pool.Whole keeps one task; so does a conv that would not fit its
// streaming slots beside the pool's result). An eltwise of two maps, one
// of them a conv's result nothing else reads (a ResNet block's last conv
// and its shortcut add), runs on each of the conv's output blocks right
// after its act, the other operand's block loaded beside it
// (conv_post.go), and the other operand's requantization with it when
// only the eltwise reads that: the conv's result never leaves the chip.
//
// # Grouped and depthwise convolution
//
// A grouped conv (Conv.Groups) is one layer whose weight tiles are block
// diagonal: the weight of input channel c for output channel o is zero
// unless both lie in one group. Each output tile of Cols channels runs
// only the input channel tiles that hold a channel of one of its
// groups (convJob.tilesFor), so a pass of the array serves as many
// groups as fit a tile. The array utilization this mapping reaches
// (useful MACs over the array's, NEVectors; 16×16 array): groups of
// whole tiles are dense (AlexNet's two groups of 48: 100%); groups of g
// < 16 channels use g of every 16 PE columns (groups of 8: 50%); groups
// that straddle tiles pay for the tiles two groups share (ShuffleNet's
// 1×1 GConvs: 240 → 60 in 3 groups 62.5%, 272 → 68 in 4 groups 48.8%);
// a depthwise conv uses one PE per row, 1/16 (6.25%).
//
// For depthwise convs the other mapping at hand was tried too: the
// tap mapping of taps.go, the kh·kw taps of each channel along the PE
// rows (Conv.Taps = TapsWindows; it needs the input's windows in
// external memory, kh·kw times its lines). It reaches the same 6.25%:
// either way every PE row carries one input element, and an input
// element of a depthwise conv feeds one output channel, so 16 of a
// vector's 256 products count. Only a layout with pixels across the
// partitions can do better (16 consecutive pixels of one channel on the
// rows, 14 output pixels on the columns, a band of kw taps per column:
// 42 of 256, about 2.6 times), and it needs the map turned on the NE
// before and after the layer. In ShuffleNet v1 the depthwise convs are
// about 3% of the MACs but, at 1/16, about a fifth of the array's time;
// by our estimate the pixel layout, turns included, would save about a
// tenth of the total: not yet worth a layout of its own. The
// block-diagonal mapping stays (the windows are taken when they take
// fewer passes, TapsAuto: a depthwise conv of a graph input whose C·kh·kw
// is not a multiple of 16).
//
// # Concat and channel permutations
//
// A value's channels lie in slots of its place (layout.go): usually
// channel c in slot c, but a concat gives every part channel tiles of
// its own (holes when a part does not fill its last tile) so producers
// write the concatenation directly, and a permutation (a channel
// shuffle) is the same place under another order: a conv takes the
// order into its weights, a depthwise conv keeps it, planar ops work
// slot by slot. Copies are made only where channel order is needed
// (copy.go, conv_relayout.go).
//
// # Large maps
//
// A value operations read stays in the state buffer when it fits with
// room to spare, else it is spilled: its producer stages it out block
// by block and its consumers stream it back as they stream graph inputs
// (residentOrSpilled; Compile retries with fewer resident values when a
// layer then finds no room to stream). A pool of a streamed plane larger
// than the state buffer runs in bands of rows, and one wider than the
// planar line buffer in strips of columns (pool_stream.go); an eltwise
// of streamed operands runs in chunks across the channel tiles. An
// eltwise of one operand that feeds one conv (DenseNet's BN-ReLU of each
// concatenation) runs in place on that conv's input bands, one band
// ahead (conv_pre.go), and the value it reads is kept in external memory
// when that leaves the conv the state buffer (preferSpill). The external
// memory a program needs is Program.ExtLines; CompileWith's
// Options.GrowExt widens ext_addr_width to it (ExtAddrWidthFor), and
// host.Run sizes the simulated external memory from the program.
//
// # Dependencies
//
// Every task declares the address spans it reads and writes (external
// lines, state addresses, weight rows, psum entries); a task depends on
// every earlier task of another engine that it conflicts with (RAW, WAR,
// WAW). Tasks of one engine run one at a time in program order, so they
// need none; implied dependencies (through another dependency, the
// engine's previous task, or the scoreboard window: a task window or
// more IDs back has always completed) are dropped; when more than
// max_deps remain, join nops of the same engine take the surplus. IDs
// number from 0. CheckDeps verifies this statically (also against the
// accesses the reference machine really makes: TraceAccesses, CheckSpans), and
// RandomOrder/InterpretOrder execute any legal order.
package compiler
