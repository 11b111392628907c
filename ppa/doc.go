// Package ppa measures timing and area of an elaborated design with the
// open FPGA tools: Yosys for synthesis and nextpnr-ice40 for placement
// and routing.
//
// Targets:
//
//   - generic: Yosys's technology-independent synthesis (synth -flatten,
//     memories kept as memory cells). It reports cells, flip-flops,
//     memories and the logic depth: the longest path, in simple gates
//     (abc -g AND,NAND,OR,NOR,XOR,XNOR,MUX), between flip-flops, inputs,
//     outputs and memories (ltp -noff after the memory cells are taken
//     out: their reads are registered, so a memory ends and starts paths).
//   - ice40-hx8k, ice40-up5k: synth_ice40 (LUT4, SB_DFF*, SB_RAM40_4K,
//     SB_MAC16 counts), then nextpnr-ice40 once per placer seed. Fmax is
//     the median over the seeds; the critical path is the median run's,
//     named by the design's own signals (the registers it starts and ends
//     at, found in Yosys's netlist).
//
// On both, state registers keep the design's own encoding (Yosys's FSM
// re-encoding is turned off) and so their names.
//
// The wrapper. A design has hundreds of ports and a package has a few
// dozen pins, so for place and route the design is wrapped (Wrapper):
// every input bit is a flip-flop of one shift register fed by the pin
// din, every output bit is captured in a flip-flop, and the captured
// bits are loaded (pin load) into a second shift register that shifts
// out on pin dout. clk and rst stay pins. The design's inputs come
// straight from flip-flops and its outputs go straight into flip-flops,
// so the wrapper adds no logic on the design's own paths; every output
// is observable, so synthesis cannot remove logic. The design keeps its
// own module boundary through synthesis (keep_hierarchy) so its figures
// are counted without the wrapper's flip-flops, then the netlist is
// flattened for nextpnr.
package ppa
