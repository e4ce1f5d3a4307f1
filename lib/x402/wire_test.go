package x402

import (
	"encoding/json"
	"reflect"
	"testing"
)

// Header values from the x402 v2 HTTP transport specification
// (coinbase/x402 specs/transports-v2/http.md): decoding them proves the
// encoding and JSON field names match the protocol.
const (
	specPaymentRequired  = "eyJ4NDAyVmVyc2lvbiI6MiwiZXJyb3IiOiJQQVlNRU5ULVNJR05BVFVSRSBoZWFkZXIgaXMgcmVxdWlyZWQiLCJyZXNvdXJjZSI6eyJ1cmwiOiJodHRwczovL2FwaS5leGFtcGxlLmNvbS9wcmVtaXVtLWRhdGEiLCJkZXNjcmlwdGlvbiI6IkFjY2VzcyB0byBwcmVtaXVtIG1hcmtldCBkYXRhIiwibWltZVR5cGUiOiJhcHBsaWNhdGlvbi9qc29uIn0sImFjY2VwdHMiOlt7InNjaGVtZSI6ImV4YWN0IiwibmV0d29yayI6ImVpcDE1NTo4NDUzMiIsImFtb3VudCI6IjEwMDAwIiwiYXNzZXQiOiIweDAzNkNiRDUzODQyYzU0MjY2MzRlNzkyOTU0MWVDMjMxOGYzZENGN2UiLCJwYXlUbyI6IjB4MjA5NjkzQmM2YWZjMEM1MzI4YkEzNkZhRjAzQzUxNEVGMzEyMjg3QyIsIm1heFRpbWVvdXRTZWNvbmRzIjo2MCwiZXh0cmEiOnsibmFtZSI6IlVTREMiLCJ2ZXJzaW9uIjoiMiJ9fV19"
	specPaymentSignature = "eyJ4NDAyVmVyc2lvbiI6MiwicmVzb3VyY2UiOnsidXJsIjoiaHR0cHM6Ly9hcGkuZXhhbXBsZS5jb20vcHJlbWl1bS1kYXRhIiwiZGVzY3JpcHRpb24iOiJBY2Nlc3MgdG8gcHJlbWl1bSBtYXJrZXQgZGF0YSIsIm1pbWVUeXBlIjoiYXBwbGljYXRpb24vanNvbiJ9LCJhY2NlcHRlZCI6eyJzY2hlbWUiOiJleGFjdCIsIm5ldHdvcmsiOiJlaXAxNTU6ODQ1MzIiLCJhbW91bnQiOiIxMDAwMCIsImFzc2V0IjoiMHgwMzZDYkQ1Mzg0MmM1NDI2NjM0ZTc5Mjk1NDFlQzIzMThmM2RDRjdlIiwicGF5VG8iOiIweDIwOTY5M0JjNmFmYzBDNTMyOGJBMzZGYUYwM0M1MTRFRjMxMjI4N0MiLCJtYXhUaW1lb3V0U2Vjb25kcyI6NjAsImV4dHJhIjp7Im5hbWUiOiJVU0RDIiwidmVyc2lvbiI6IjIifX0sInBheWxvYWQiOnsic2lnbmF0dXJlIjoiMHgyZDZhNzU4OGQ2YWNjYTUwNWNiZjBkOWE0YTIyN2UwYzUyYzZjMzQwMDhjOGU4OTg2YTEyODMyNTk3NjQxNzM2MDhhMmNlNjQ5NjY0MmUzNzdkNmRhOGRiYmY1ODM2ZTliZDE1MDkyZjllY2FiMDVkZWQzZDYyOTNhZjE0OGI1NzFjIiwiYXV0aG9yaXphdGlvbiI6eyJmcm9tIjoiMHg4NTdiMDY1MTlFOTFlM0E1NDUzODc5MWJEYmIwRTIyMzczZTM2YjY2IiwidG8iOiIweDIwOTY5M0JjNmFmYzBDNTMyOGJBMzZGYUYwM0M1MTRFRjMxMjI4N0MiLCJ2YWx1ZSI6IjEwMDAwIiwidmFsaWRBZnRlciI6IjE3NDA2NzIwODkiLCJ2YWxpZEJlZm9yZSI6IjE3NDA2NzIxNTQiLCJub25jZSI6IjB4ZjM3NDY2MTNjMmQ5MjBiNWZkYWJjMDg1NmYyYWViMmQ0Zjg4ZWU2MDM3YjhjYzVkMDRhNzFhNDQ2MmYxMzQ4MCJ9fX0="
	specPaymentResponse  = "eyJzdWNjZXNzIjp0cnVlLCJ0cmFuc2FjdGlvbiI6IjB4MTIzNDU2Nzg5MGFiY2RlZjEyMzQ1Njc4OTBhYmNkZWYxMjM0NTY3ODkwYWJjZGVmMTIzNDU2Nzg5MGFiY2RlZiIsIm5ldHdvcmsiOiJlaXAxNTU6ODQ1MzIiLCJwYXllciI6IjB4ODU3YjA2NTE5RTkxZTNBNTQ1Mzg3OTFiRGJiMEUyMjM3M2UzNmI2NiJ9"
)

func TestSpecHeadersDecode(t *testing.T) {
	raw, err := DecodeHeader(specPaymentRequired)
	if err != nil {
		t.Fatal(err)
	}
	var pr PaymentRequired
	if err := json.Unmarshal(raw, &pr); err != nil {
		t.Fatal(err)
	}
	want := PaymentRequirements{Scheme: "exact", Network: "eip155:84532", Amount: "10000",
		Asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e", PayTo: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
		MaxTimeoutSeconds: 60, Extra: map[string]any{"name": "USDC", "version": "2"}}
	if pr.X402Version != 2 || pr.Resource.URL != "https://api.example.com/premium-data" || len(pr.Accepts) != 1 || !reflect.DeepEqual(pr.Accepts[0], want) {
		t.Fatalf("PAYMENT-REQUIRED decoded to %+v", pr)
	}
	// Our encoding of the same value decodes back to it.
	enc, err := EncodeHeader(pr)
	if err != nil {
		t.Fatal(err)
	}
	raw2, _ := DecodeHeader(enc)
	var back PaymentRequired
	json.Unmarshal(raw2, &back)
	if !reflect.DeepEqual(back, pr) {
		t.Errorf("round trip changed the value:\n%+v\n%+v", back, pr)
	}

	raw, err = DecodeHeader(specPaymentSignature)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParsePayload(raw)
	if err != nil {
		t.Fatal(err)
	}
	if !matches(want, p.Accepted) || string(p.Raw) != string(raw) {
		t.Errorf("PAYMENT-SIGNATURE accepted %+v does not match the offer", p.Accepted)
	}
	id := paymentIdentity(p)
	if len(id.keys) != 3 || id.validBefore != 1740672154 {
		t.Errorf("identity = %+v, want payload, signature and nonce keys and validBefore", id)
	}

	raw, err = DecodeHeader(specPaymentResponse)
	if err != nil {
		t.Fatal(err)
	}
	var sr SettleResponse
	json.Unmarshal(raw, &sr)
	if !sr.Success || sr.Network != "eip155:84532" || sr.Payer != "0x857b06519E91e3A54538791bDbb0E22373e36b66" || len(sr.Transaction) != 66 {
		t.Errorf("PAYMENT-RESPONSE decoded to %+v", sr)
	}
}

func TestDecodeHeaderRejectsNonJSON(t *testing.T) {
	for _, s := range []string{"", "not base64!", "aGVsbG8=", "WzEsMl0=", "bnVsbA=="} { // hello, [1,2], null
		if _, err := DecodeHeader(s); err == nil {
			t.Errorf("DecodeHeader(%q) succeeded", s)
		}
	}
	// Unpadded base64 is accepted (browsers' atob does).
	if _, err := DecodeHeader("eyJhIjoxfQ"); err != nil {
		t.Errorf("unpadded: %v", err)
	}
}

func TestIdentityIgnoresReencoding(t *testing.T) {
	a, _ := ParsePayload(json.RawMessage(`{"x402Version":2,"accepted":{"network":"eip155:8453","asset":"0xA"},"payload":{"signature":"0xAB","authorization":{"from":"0xF","nonce":"0x01","validBefore":"99"}}}`))
	b, _ := ParsePayload(json.RawMessage(`{"payload":{"authorization":{"nonce":"0x01","validBefore":"99","from":"0xf","extra":1},"signature":"0xab"},"accepted":{"asset":"0xa","network":"eip155:8453"},"x402Version":2}`))
	ia, ib := paymentIdentity(a), paymentIdentity(b)
	shared := 0
	for _, k := range ia.keys {
		for _, l := range ib.keys {
			if k == l {
				shared++
			}
		}
	}
	if shared < 2 {
		t.Errorf("re-encoded payment shares %d keys with the original, want the signature and nonce keys", shared)
	}
}
