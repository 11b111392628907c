package compiler

import (
	"math/big"

	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/isa/sparse"
)

// fromRecords gathers a tensor held in records (Binding.Records), reading
// each record's lines once.
func (b *Binding) fromRecords(line func(addr int) ([]int64, error)) (*golden.Tensor, error) {
	r := b.Records
	t := golden.New(b.Shape...)
	field := golden.S(r.Width)
	cache := map[int32]*big.Int{}
	mask := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(r.Width)), big.NewInt(1))
	for i := range t.Data {
		rec, ok := cache[r.Rec[i]]
		if !ok {
			lines := make([][]int64, r.Lines)
			for j := range lines {
				l, err := line(b.Base + int(r.Rec[i])*r.Lines + j)
				if err != nil {
					return nil, err
				}
				lines[j] = l
			}
			rec = sparse.FromLines(lines, r.ElemWidth)
			cache[r.Rec[i]] = rec
		}
		v := new(big.Int).Rsh(rec, uint(r.Bit[i]))
		t.Data[i] = field.Wrap(v.And(v, mask).Int64())
	}
	return t, nil
}
