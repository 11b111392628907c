package hdl_test

import (
	"math/big"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/hdl"
)

// bi parses a decimal or 0x integer for table entries.
func bi(s string) *big.Int {
	v, ok := new(big.Int).SetString(s, 0)
	if !ok {
		panic("bad integer " + s)
	}
	return v
}

func TestTypeConstructors(t *testing.T) {
	tests := []struct {
		got        hdl.Type
		want       hdl.Type
		str, short string
	}{
		{hdl.UInt(8), hdl.Type{Width: 8}, "UInt(8)", "u8"},
		{hdl.SInt(32), hdl.Type{Width: 32, Signed: true}, "SInt(32)", "s32"},
		{hdl.Bool, hdl.Type{Width: 1}, "UInt(1)", "u1"},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tt.got); diff != "" {
			t.Errorf("type mismatch (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{tt.str, tt.short}, []string{tt.got.String(), tt.got.Short()}); diff != "" {
			t.Errorf("%v: String/Short mismatch (-want +got):\n%s", tt.want, diff)
		}
	}
}

func TestFits(t *testing.T) {
	tests := []struct {
		t    hdl.Type
		v    string
		want bool
	}{
		{hdl.UInt(4), "0", true},
		{hdl.UInt(4), "15", true},
		{hdl.UInt(4), "16", false},
		{hdl.UInt(4), "-1", false},
		{hdl.UInt(1), "1", true},
		{hdl.UInt(1), "2", false},
		{hdl.SInt(4), "-8", true},
		{hdl.SInt(4), "7", true},
		{hdl.SInt(4), "8", false},
		{hdl.SInt(4), "-9", false},
		{hdl.SInt(1), "-1", true},
		{hdl.SInt(1), "0", true},
		{hdl.SInt(1), "1", false},
		{hdl.UInt(100), "0xfffffffffffffffffffffffff", true},
		{hdl.UInt(100), "0x10000000000000000000000000", false},
		{hdl.SInt(100), "-0x8000000000000000000000000", true},
		{hdl.SInt(100), "0x8000000000000000000000000", false},
	}
	for _, tt := range tests {
		if got := tt.t.Fits(bi(tt.v)); got != tt.want {
			t.Errorf("%v.Fits(%s) = %v, want %v", tt.t, tt.v, got, tt.want)
		}
	}
}

func TestBitsAndInterpret(t *testing.T) {
	tests := []struct {
		t         hdl.Type
		v         string // value given to Bits
		bits      string // want Bits(v)
		interpret string // want Interpret(bits)
	}{
		{hdl.UInt(4), "5", "5", "5"},
		{hdl.UInt(4), "20", "4", "4"}, // wraps
		{hdl.UInt(4), "-1", "15", "15"},
		{hdl.SInt(4), "-1", "15", "-1"},
		{hdl.SInt(4), "-8", "8", "-8"},
		{hdl.SInt(4), "7", "7", "7"},
		{hdl.SInt(4), "8", "8", "-8"}, // does not fit: wraps to the pattern
		{hdl.SInt(8), "-1", "255", "-1"},
		{hdl.SInt(1), "-1", "1", "-1"},
		{hdl.SInt(70), "-2", "0x3ffffffffffffffffe", "-2"},
		{hdl.UInt(70), "-2", "0x3ffffffffffffffffe", "0x3ffffffffffffffffe"},
	}
	for _, tt := range tests {
		v := bi(tt.v)
		bits := tt.t.Bits(v)
		got := []string{bits.String(), tt.t.Interpret(bits).String()}
		want := []string{bi(tt.bits).String(), bi(tt.interpret).String()}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%v: Bits(%s), Interpret mismatch (-want +got):\n%s", tt.t, tt.v, diff)
		}
		if v.String() != bi(tt.v).String() {
			t.Errorf("%v.Bits(%s) modified its argument to %s", tt.t, tt.v, v)
		}
	}
}

// Interpret reads only the low Width bits of its argument.
func TestInterpretMasks(t *testing.T) {
	if got := hdl.SInt(8).Interpret(bi("0x1ff")); got.Int64() != -1 {
		t.Errorf("SInt(8).Interpret(0x1ff) = %v, want -1", got)
	}
	if got := hdl.UInt(4).Interpret(bi("0x35")); got.Int64() != 5 {
		t.Errorf("UInt(4).Interpret(0x35) = %v, want 5", got)
	}
}

// Every value that fits round-trips through Bits and Interpret.
func TestBitsInterpretRoundTrip(t *testing.T) {
	for _, ty := range []hdl.Type{hdl.UInt(1), hdl.UInt(5), hdl.SInt(1), hdl.SInt(5)} {
		for i := int64(-40); i <= 40; i++ {
			v := big.NewInt(i)
			if !ty.Fits(v) {
				continue
			}
			if got := ty.Interpret(ty.Bits(v)); got.Cmp(v) != 0 {
				t.Errorf("%v: Interpret(Bits(%d)) = %v", ty, i, got)
			}
		}
	}
}

func TestMask(t *testing.T) {
	tests := []struct {
		t    hdl.Type
		want string
	}{
		{hdl.UInt(1), "1"},
		{hdl.SInt(3), "7"},
		{hdl.UInt(64), "0xffffffffffffffff"},
		{hdl.UInt(65), "0x1ffffffffffffffff"},
	}
	for _, tt := range tests {
		if got := tt.t.Mask(); got.Cmp(bi(tt.want)) != 0 {
			t.Errorf("%v.Mask() = %#x, want %s", tt.t, got, tt.want)
		}
	}
}

func TestClogWidth(t *testing.T) {
	tests := []struct{ depth, want int }{
		{0, 1}, {1, 1}, {2, 1}, {3, 2}, {4, 2}, {5, 3}, {8, 3}, {9, 4},
		{1023, 10}, {1024, 10}, {1025, 11}, {1 << 24, 24},
	}
	for _, tt := range tests {
		if got := hdl.ClogWidth(tt.depth); got != tt.want {
			t.Errorf("ClogWidth(%d) = %d, want %d", tt.depth, got, tt.want)
		}
	}
}

func TestName(t *testing.T) {
	tests := []struct {
		base   string
		params []any
		want   string
	}{
		{"pe", []any{hdl.SInt(8), hdl.SInt(32)}, "pe_s8_s32"},
		{"top", nil, "top"},
		{"fifo", []any{16, hdl.UInt(8), true}, "fifo_16_u8_t"},
		{"x", []any{false, -3}, "x_f_m3"},
		{"arr", []any{4, 4, hdl.Bool}, "arr_4_4_u1"},
	}
	for _, tt := range tests {
		if got := hdl.Name(tt.base, tt.params...); got != tt.want {
			t.Errorf("Name(%q, %v) = %q, want %q", tt.base, tt.params, got, tt.want)
		}
	}
}
