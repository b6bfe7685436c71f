package experiment

import (
	"strings"
	"sync"
)

// SampleLines bounds a LineSample.
const SampleLines = 5

// LineSample keeps the first SampleLines non-empty lines written to it
// (the clients' messages of failed operations, for a report), except
// those containing Skip when it is not "". Safe for concurrent writes.
type LineSample struct {
	Skip  string
	mu    sync.Mutex
	lines []string // REQUIRES: mu
}

// Write keeps p's lines while there is room; it never fails.
func (s *LineSample) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range strings.Split(strings.TrimSpace(string(p)), "\n") {
		if len(s.lines) < SampleLines && l != "" && (s.Skip == "" || !strings.Contains(l, s.Skip)) {
			s.lines = append(s.lines, l)
		}
	}
	return len(p), nil
}

// Lines returns the lines kept.
func (s *LineSample) Lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.lines...)
}
