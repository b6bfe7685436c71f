package experiment

import (
	"fmt"
	"strings"
	"testing"
)

func TestLineSampleKeepsFirstLines(t *testing.T) {
	for _, tc := range []struct {
		skip, want string
	}{
		{"", "a|b|line 0|x: context canceled|line 1"},
		{"context canceled", "a|b|line 0|line 1|line 2"},
	} {
		e := LineSample{Skip: tc.skip}
		fmt.Fprintf(&e, "a\n\nb\n")
		for i := range 10 {
			fmt.Fprintf(&e, "line %d\n", i)
			if i == 0 {
				fmt.Fprintf(&e, "x: context canceled\n")
			}
		}
		if got := strings.Join(e.Lines(), "|"); got != tc.want {
			t.Errorf("skip %q: %q, want %q", tc.skip, got, tc.want)
		}
	}
}
