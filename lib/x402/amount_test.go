package x402

import "testing"

func TestToAtomic(t *testing.T) {
	ok := []struct {
		price string
		dec   int
		want  string
	}{
		{"0.001", 6, "1000"}, {"1", 6, "1000000"}, {"0.000001", 6, "1"}, {"12.5", 6, "12500000"},
		{"0.0010000", 6, "1000"}, {"007.25", 2, "725"}, {"3", 0, "3"}, {"0.5", 18, "500000000000000000"},
	}
	for _, c := range ok {
		got, err := ToAtomic(c.price, c.dec)
		if err != nil || got != c.want {
			t.Errorf("ToAtomic(%q, %d) = %q, %v; want %q", c.price, c.dec, got, err, c.want)
		}
	}
	for _, c := range []struct {
		price string
		dec   int
	}{{"0.0000001", 6}, {"0", 6}, {"0.000", 6}, {"-1", 6}, {"1e-3", 6}, {"$1", 6}, {"1.", 6}, {".5", 6}, {"", 6}, {"1.5", 0}} {
		if got, err := ToAtomic(c.price, c.dec); err == nil {
			t.Errorf("ToAtomic(%q, %d) = %q, want an error", c.price, c.dec, got)
		}
	}
}
