package soak

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// rssSampler reads the VmRSS of the target's processes every second.
type rssSampler struct {
	pids func() []int

	mu      sync.Mutex
	max     int64 // REQUIRES: mu; bytes, over every process and sample
	last    int64 // REQUIRES: mu
	samples int   // REQUIRES: mu
}

func (s *rssSampler) run(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		s.sample()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (s *rssSampler) sample() {
	for _, pid := range s.pids() {
		b, err := vmRSS(pid)
		if err != nil {
			continue // the process is gone (killed): no sample
		}
		s.mu.Lock()
		s.samples++
		s.last = b
		s.max = max(s.max, b)
		s.mu.Unlock()
	}
}

func (s *rssSampler) read() (maxB, last int64, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.max, s.last, s.samples
}

// vmRSS is the resident set size of pid in bytes (/proc/PID/status).
func vmRSS(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}
