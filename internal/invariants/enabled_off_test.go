//go:build !invariants

package invariants

import "testing"

func TestDisabledWithoutTag(t *testing.T) {
	if Enabled {
		t.Fatal("built without -tags invariants but Enabled is true")
	}
}
