package eval

import "crypto/sha256"

// The two halves of every set: tune on one, report both.
const (
	Tune = "tune"
	Held = "held"
)

// Half assigns a query to the tuning half when the first byte of
// sha256(qid) is even, to the held-out half otherwise.
func Half(qid string) string {
	if sum := sha256.Sum256([]byte(qid)); sum[0]%2 == 0 {
		return Tune
	}
	return Held
}
