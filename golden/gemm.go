package golden

import "fmt"

// GEMM is out[m][n] = Σ_k x[m][k]·w[k][n], wrapped to acc: the product of
// an M×K and a K×N matrix as an accumulator of format acc computes it.
func GEMM(x, w *Tensor, acc Int) (*Tensor, error) {
	return GEMMAcc(nil, x, w, acc)
}

// GEMMAcc is GEMM accumulated onto c (nil: zeros): out = c + x·w, wrapped
// to acc. It models a psum buffer entry written with the accumulate flag.
func GEMMAcc(c, x, w *Tensor, acc Int) (*Tensor, error) {
	if err := rank2("x", x); err != nil {
		return nil, err
	}
	if err := rank2("w", w); err != nil {
		return nil, err
	}
	M, K, N := x.Shape[0], x.Shape[1], w.Shape[1]
	if w.Shape[0] != K {
		return nil, fmt.Errorf("golden: GEMM of x %s and w %s: inner dimensions differ", shapeString(x.Shape), shapeString(w.Shape))
	}
	if acc.Width < 1 || acc.Width > 64 {
		return nil, fmt.Errorf("golden: accumulator width %d outside 1..64", acc.Width)
	}
	out := New(M, N)
	if c != nil {
		if err := rank2("c", c); err != nil {
			return nil, err
		}
		if c.Shape[0] != M || c.Shape[1] != N {
			return nil, fmt.Errorf("golden: GEMM accumulates onto c %s, the product is %s", shapeString(c.Shape), shapeString(out.Shape))
		}
		copy(out.Data, c.Data)
	}
	for m := 0; m < M; m++ {
		for n := 0; n < N; n++ {
			s := out.Data[m*N+n]
			for k := 0; k < K; k++ {
				s += x.Data[m*K+k] * w.Data[k*N+n]
			}
			out.Data[m*N+n] = acc.Wrap(s)
		}
	}
	return out, nil
}
