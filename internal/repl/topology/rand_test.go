package topology

import (
	"testing"
	"time"
)

// Members built without a Rand must not share election offsets: a common
// seed makes every candidate time out at the same instant and split the
// vote, term after term (seen in CI as a 2-member majority needing 5 terms).
func TestDefaultRandDiffersPerMember(t *testing.T) {
	cfg := NewConfig("rs0", NewMember(0, "a"), NewMember(1, "b"), NewMember(2, "c"))
	now := time.Unix(1_700_000_000, 0)
	seen := map[time.Time]bool{}
	const n = 8
	for i := 0; i < n; i++ {
		c := New(Options{Config: cfg, SelfHost: "b", Now: now})
		seen[c.electionAt] = true
	}
	// With offsets drawn from 15% of 10 s in nanoseconds, eight equal draws
	// from independent seeds are practically impossible; one shared seed
	// gives exactly one value.
	if len(seen) < n/2 {
		t.Fatalf("%d coordinators without Rand drew only %d distinct election deadlines; want independent seeds", n, len(seen))
	}
}
