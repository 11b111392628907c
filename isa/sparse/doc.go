// Package sparse is the sparse engine's part of the instruction set:
// its operation codes, the records its memories hold (entries, weight
// lists, channel tables) and the unit's task record, each a Layout that
// the encoder packs, the reference machine unpacks and the hardware
// cuts into fields, and how records lie in external lines for the DMA
// tasks that serve the engine. It builds no hardware.
package sparse
