package x402

import (
	"fmt"
	"strings"
)

// ToAtomic converts a positive decimal amount of whole asset units
// ("0.001") to atomic units for an asset with decimals ("1000" for
// USDC's 6). A price finer than the asset can represent is refused, never
// rounded: a price must mean exactly what is charged.
func ToAtomic(price string, decimals int) (string, error) {
	whole, frac, _ := strings.Cut(price, ".")
	if whole == "" || !digits(whole) || (frac != "" && !digits(frac)) || strings.HasSuffix(price, ".") {
		return "", fmt.Errorf("%q is not a decimal price like 0.001", price)
	}
	if decimals < 0 || decimals > 36 {
		return "", fmt.Errorf("asset decimals %d out of range", decimals)
	}
	if t := strings.TrimRight(frac, "0"); len(t) > decimals {
		return "", fmt.Errorf("%q has more decimal places than the asset's %d", price, decimals)
	}
	frac = strings.TrimRight(frac, "0")
	atomic := strings.TrimLeft(whole+frac+strings.Repeat("0", decimals-len(frac)), "0")
	if atomic == "" {
		return "", fmt.Errorf("%q is zero", price)
	}
	return atomic, nil
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
