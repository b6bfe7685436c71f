//go:build invariants

package invariants

import "testing"

func TestEnabledWithTag(t *testing.T) {
	if !Enabled {
		t.Fatal("built with -tags invariants but Enabled is false")
	}
}
