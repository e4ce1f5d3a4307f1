package hashing

import "strings"

// stopwords are tokens so common in English prose or in source code that
// they say little about what a chunk is about. They keep a small weight
// (stopFactor) instead of being dropped, so a chunk made only of them
// still gets a vector. Changing this list changes vectors: bump Version.
var stopwords = strings.Fields(`
a about after all also am an and any are as at be been being but by can
could did do does doing done each even for from had has have having he her
here his how i if in into is it its just may me might more most much must my
no nor not now of on once only or other our out over own same she should
so some such than that the their them then there these they this those to
too under until up upon very was we were what when where which while who
whom why will with would you your

func function fn def lambda return returns if else elif for foreach while do
range var let const static type typedef struct class interface enum public
private protected internal final abstract virtual override package import
include using namespace module export new delete nil null none undefined void
true false self this super err case switch default break continue goto
defer chan select map int string bool byte rune float64 int64 uint
`)

// stopSet is an open-addressing set of the stopwords' keys; lookups do
// not allocate and cost one or two probes.
var stopSet = func() []uint64 {
	set := make([]uint64, 1024)
	for _, w := range stopwords {
		k := mix(wordKey(w))
		i := k & uint64(len(set)-1)
		for set[i] != 0 && set[i] != k {
			i = (i + 1) & uint64(len(set)-1)
		}
		set[i] = k
	}
	return set
}()

// isStop reports whether mixed word key m is a stopword.
func isStop(m uint64) bool {
	mask := uint64(len(stopSet) - 1)
	for i := m & mask; stopSet[i] != 0; i = (i + 1) & mask {
		if stopSet[i] == m {
			return true
		}
	}
	return false
}
