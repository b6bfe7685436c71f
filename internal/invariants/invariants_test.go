package invariants

import (
	"strings"
	"testing"
)

func TestViolatedPanicsWithViolation(t *testing.T) {
	defer func() {
		r := recover()
		v, ok := r.(Violation)
		if !ok {
			t.Fatalf("recovered %T %v, want a Violation", r, r)
		}
		if !strings.Contains(v.Error(), "invariant violated: slot 3 is pending") {
			t.Fatalf("message %q", v.Error())
		}
	}()
	Violated("slot %d is pending", 3)
}
