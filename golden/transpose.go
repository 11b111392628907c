package golden

// Transpose is out[j][i] = a[i][j].
func Transpose(a *Tensor) (*Tensor, error) {
	if err := rank2("a", a); err != nil {
		return nil, err
	}
	R, C := a.Shape[0], a.Shape[1]
	out := New(C, R)
	for i := 0; i < R; i++ {
		for j := 0; j < C; j++ {
			out.Data[j*R+i] = a.Data[i*C+j]
		}
	}
	return out, nil
}
