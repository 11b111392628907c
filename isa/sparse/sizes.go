package sparse

// Sizes are the numbers of a sparse engine that its instruction set
// depends on: the record layouts, the task record and the DMA operands.
// The hardware's configuration (blocks/sparse.Config) embeds them.
type Sizes struct {
	Units       int `json:"units"`        // m: compute units, each with its own memory unit
	Lanes       int `json:"lanes"`        // p: multipliers per unit = output channels per pass
	ValueWidth  int `json:"value_width"`  // bits of an input value (signed)
	WeightWidth int `json:"weight_width"` // bits of a weight (signed)
	AccWidth    int `json:"acc_width"`    // bits of an accumulator (signed; sums wrap)
	Entries     int `json:"entries"`      // (value, index) entries per buffer set of a memory unit
	Channels    int `json:"channels"`     // input channels an entry can name
	IndexWidth  int `json:"index_width"`  // bits of a row or column index: maps up to 2^w rows and columns
	MaxKernel   int `json:"max_kernel"`   // largest kernel height and width
	WeightDepth int `json:"weight_depth"` // weight-list entries per unit
	TableDepth  int `json:"table_depth"`  // channel-table entries per unit
	AccDepth    int `json:"acc_depth"`    // accumulator entries (output pixels of one pass) per unit and bank
	// AccBanks is 1 or 2 accumulator banks of AccDepth entries: with
	// two, a pass's plane is read out of one while the unit computes the
	// next pass into the other.
	AccBanks int `json:"acc_banks"`
}

// clogWidth is the width of an index into depth entries (at least 1).
func clogWidth(depth int) int {
	w := 1
	for w < 63 && (1<<w) < depth {
		w++
	}
	return w
}

// The widths of the memories' addresses and of the record fields.
func (c Sizes) EntryAddrWidth() int  { return clogWidth(c.Entries) }
func (c Sizes) WeightAddrWidth() int { return clogWidth(c.WeightDepth) }
func (c Sizes) TableAddrWidth() int  { return clogWidth(c.TableDepth) }
func (c Sizes) AccAddrWidth() int    { return clogWidth(c.AccDepth) }
func (c Sizes) ChannelWidth() int    { return clogWidth(c.Channels) }
func (c Sizes) KernelWidth() int     { return clogWidth(c.MaxKernel) }
