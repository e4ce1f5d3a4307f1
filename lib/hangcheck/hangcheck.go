// Package hangcheck turns a hang into a crash while fuzzing. Go's fuzzer
// has no per-input time limit: an input that loops or blocks stalls its
// worker silently. Arm, called at the top of a fuzz function, crashes the
// worker process when the input runs longer than the limit; the fuzzer
// then records the input under testdata/fuzz like any crasher, and the
// log shows every goroutine's stack. It is inert outside -fuzz (the seed
// corpus run by go test), where a slow machine must not fail a test.
package hangcheck

import (
	"flag"
	"fmt"
	"runtime/debug"
	"time"
)

// Limit is the longest one input may run while fuzzing.
const Limit = 10 * time.Second

// Arm starts the clock for one input; call the returned stop when it is
// done (defer it).
func Arm() (stop func()) {
	if !fuzzing() {
		return func() {}
	}
	t := time.AfterFunc(Limit, func() {
		debug.SetTraceback("all")
		panic(fmt.Sprintf("hangcheck: input still running after %s", Limit))
	})
	return func() { t.Stop() }
}

// fuzzing reports whether the test binary runs with -test.fuzz.
func fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}
