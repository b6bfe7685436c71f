package suite

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// A node is quiet when it used under settleIdle of CPU in a settleWindow
// (5 % of a core); settle waits at most settleMax for that.
const (
	settleWindow = time.Second
	settleIdle   = 50 * time.Millisecond
	settleMax    = 60 * time.Second
)

// settle waits until the server is quiet (its background work after a
// load, Pebble's compactions above all, done), so that the reads measured
// next are not charged with it. It returns the server CPU used meanwhile
// (µs, to be charged to the load) and how long it waited; past settleMax
// it returns what it has.
func (s *Server) settle(ctx context.Context) (cpuMicros int64, took time.Duration, err error) {
	start := time.Now()
	first, err := s.cpuMicros()
	if err != nil {
		return 0, 0, err
	}
	last := first
	for time.Since(start) < settleMax {
		select {
		case <-ctx.Done():
			return 0, 0, ctx.Err()
		case <-time.After(settleWindow):
		}
		now, err := s.cpuMicros()
		if err != nil {
			return 0, 0, err
		}
		quiet := time.Duration(now-last)*time.Microsecond < settleIdle
		last = now
		if quiet {
			break
		}
	}
	return last - first, time.Since(start), nil
}

// clockTicksPerSec is Linux's USER_HZ, the unit of /proc/<pid>/stat's
// CPU times.
const clockTicksPerSec = 100

// cpuMicros is the server process's user+system CPU time in µs, from
// /proc/<pid>/stat (fields 14 and 15, counted after the command name).
func (s *Server) cpuMicros() (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		return 0, fmt.Errorf("server CPU: %w", err)
	}
	i := strings.LastIndexByte(string(data), ')')
	f := strings.Fields(string(data[i+1:])) // f[0] is field 3 (state)
	if i < 0 || len(f) < 13 {
		return 0, fmt.Errorf("server CPU: cannot parse /proc/%d/stat", s.cmd.Process.Pid)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("server CPU: cannot parse /proc/%d/stat", s.cmd.Process.Pid)
	}
	return (utime + stime) * 1_000_000 / clockTicksPerSec, nil
}
