package bsonx

import "strings"

// maxArenaString is the longest string value kept in an arena; longer ones
// get their own allocation, so a small string a caller keeps never pins a
// large one.
const maxArenaString = 128

// arena holds the keys, short strings and binData bytes of one document
// level in two allocations instead of one per value.
//
// Invariants: a string or slice handed out is never written again (text
// only grows within the capacity reserved up front; a binData slice is
// capped at its length, so appending to it copies). Holding any value
// keeps only its own level's arena alive, which is at most as large as
// that level's keys, short strings and binData.
type arena struct {
	text strings.Builder
	bin  []byte
}

func (a *arena) reserve(s levelSize) {
	if s.text > 0 {
		a.text.Grow(s.text)
	}
	if s.bin > 0 {
		a.bin = make([]byte, 0, s.bin)
	}
}

// key returns b as a string: common names without allocating, others in
// the arena.
func (a *arena) key(b []byte) string {
	if s, ok := knownKey(b); ok {
		return s
	}
	return a.str(b)
}

// str copies b into the arena if it is short and fits, else on its own.
func (a *arena) str(b []byte) string {
	n := len(b)
	if n <= 1 || n > maxArenaString || a.text.Cap()-a.text.Len() < n {
		return string(b) // no allocation for n <= 1
	}
	start := a.text.Len()
	a.text.Write(b)
	return a.text.String()[start:]
}

// bytes copies b into the arena if it fits, else on its own. The result
// is never nil, as the driver's is not.
func (a *arena) bytes(b []byte) []byte {
	n := len(b)
	if n == 0 {
		return []byte{}
	}
	if cap(a.bin)-len(a.bin) < n {
		return append(make([]byte, 0, n), b...)
	}
	start := len(a.bin)
	a.bin = append(a.bin, b...)
	return a.bin[start : start+n : start+n]
}
