package x402

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
)

// identity is what makes a payment unique, as hashes: the replay keys
// under which a used payment is remembered, a short id for logs, and the
// time after which the payment can no longer settle (0 = unknown).
type identity struct {
	id          string
	keys        []string
	validBefore int64
}

// paymentIdentity derives p's identity. Any one key seen before marks a
// replay, so re-encoding the same authorization (reordered fields, an
// added field) does not make it new:
//   - p: the canonical JSON of the whole scheme payload;
//   - s: the signature, when the payload carries one (EVM exact);
//   - n: network, asset, payer and nonce of an EIP-3009/permit
//     authorization (the on-chain uniqueness of the transfer);
//   - t: a signed transaction (SVM exact).
//
// Only hashes are kept: nothing that could be replayed is stored.
func paymentIdentity(p *PaymentPayload) identity {
	var body map[string]any
	_ = json.Unmarshal(p.Payload, &body)
	canon, _ := json.Marshal(body) // map keys are sorted: canonical
	id := identity{id: hash("p", string(canon))[:18]}
	id.keys = append(id.keys, hash("p", string(canon)))
	if sig, ok := body["signature"].(string); ok && sig != "" {
		id.keys = append(id.keys, hash("s", strings.ToLower(sig)))
	}
	if tx, ok := body["transaction"].(string); ok && tx != "" {
		id.keys = append(id.keys, hash("t", tx))
	}
	for _, field := range []string{"authorization", "permit2Authorization"} {
		auth, ok := body[field].(map[string]any)
		if !ok {
			continue
		}
		if nonce := text(auth["nonce"]); nonce != "" {
			from := strings.ToLower(text(auth["from"]))
			id.keys = append(id.keys, hash("n", p.Accepted.Network+"|"+strings.ToLower(p.Accepted.Asset)+"|"+from+"|"+strings.ToLower(nonce)))
		}
		for _, k := range []string{"validBefore", "deadline"} {
			if v, err := strconv.ParseInt(text(auth[k]), 10, 64); err == nil && v > 0 {
				id.validBefore = v
			}
		}
	}
	return id
}

// text returns a JSON string or number as text.
func text(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return ""
}

func hash(kind, s string) string {
	h := sha256.Sum256([]byte(kind + ":" + s))
	return kind + ":" + hex.EncodeToString(h[:])
}
