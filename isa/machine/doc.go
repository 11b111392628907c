// Package machine is the NPU's reference machine: the task-level
// semantics of every engine's tasks, one task at a time, built on the
// golden models. It is the oracle the hardware is checked against
// (blocks/planar's harness compares the engine's simulations with
// RunPlanar; a simulated NPU's outputs are compared with the machine's)
// and the compiler's (compiler.Interpret runs a program on it: a program
// is right when the machine's results equal the golden models, in
// program order and in any other legal order).
//
// It builds no hardware and knows no hardware configuration: it takes
// the sizes the instruction set defines (isa.Sizes, which an NPU
// configuration derives; planar.Sizes, sparse.Sizes) and decodes
// descriptors with its own isa.Codec.
//
//	m, err := machine.New(sizes)    // all memories zero
//	err = m.LoadImage(image)        // external memory from line 0
//	err = m.Exec(descriptor)        // one task
//	line, err := m.Line(a)          // results; m.Stats counts the work
//
// The memories are plain arrays: external lines, the state buffer
// [partition][address], the weight buffer [row][column], the psum
// buffer [partition][entry], and, with the sparse engine, its records
// and accumulators. OnTouch, when set, is told every address a task
// reads or writes (the compiler's TraceAccesses checks declared spans
// and dependencies with it).
//
// One file per engine:
//
//   - machine.go: the Machine, Stats, New, Exec's dispatch.
//   - dma.go: dma_in's load and load_weights, dma_out's store.
//   - ne.go: the neural engine's conv, gemm and transpose.
//   - planar.go: the planar engine (RunPlanar on PlanarMemories; EltFn,
//     PoolFn and ReduceFn map golden operations to function codes, by
//     name for eltwise functions, so isa/planar's Fns and golden's
//     EltOp table are the one place a function is added).
//   - sparse.go: the sparse engine's memories and tasks, with the DMA
//     tasks that serve it (load_sparse, store_sparse).
//   - scatter.go: Scatter, the sparse convolution's one model, which the
//     sparse conv task and compiler/sparseconv's hardware-free Model
//     both run.
//
// Dense convolution's golden model is golden.Conv2D.
package machine
