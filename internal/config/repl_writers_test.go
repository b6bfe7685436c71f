package config

import (
	"strings"
	"testing"
)

func TestReplWriterThreadCount(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  int
		err   string
	}{
		{"", 0, ""},
		{"1", 1, ""},
		{"4", 4, ""},
		{"256", 256, ""},
		{"0", 0, "Invalid value for parameter replWriterThreadCount: 0 is not greater than or equal to 1"},
		{"257", 0, "Invalid value for parameter replWriterThreadCount: 257 is not less than or equal to 256"},
		{"x", 0, "is not a valid int"},
	} {
		s := &Serve{}
		s.EnsureDefaults()
		if tc.value != "" {
			if err := s.setParameter("replWriterThreadCount", tc.value); err != nil {
				t.Fatal(err)
			}
		}
		err := s.Validate()
		if got := s.ReplWriterThreadCount(); got != tc.want {
			t.Errorf("%q: got %d want %d", tc.value, got, tc.want)
		}
		if (err != nil) != (tc.err != "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%q: error %v, want %q", tc.value, err, tc.err)
		}
	}
}
