package bench

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// progressPeriod is how often the terminal progress bar is redrawn.
const progressPeriod = 250 * time.Millisecond

// statusReporter prints YCSB-style status lines (-s) and a progress bar.
type statusReporter struct {
	opts  Options
	m     *Measurements
	done  *atomic.Int64
	total int64
	start time.Time
	quit  chan struct{}
	wg    sync.WaitGroup
}

func startStatus(opts Options, m *Measurements, done *atomic.Int64, total int64, start time.Time) *statusReporter {
	s := &statusReporter{opts: opts, m: m, done: done, total: total, start: start, quit: make(chan struct{})}
	if opts.StatusInterval > 0 && opts.Status != nil {
		s.wg.Add(1)
		go s.statusLoop()
	}
	if opts.Progress != nil {
		s.wg.Add(1)
		go s.progressLoop()
	}
	return s
}

// finish stops the reporters and clears the progress bar.
func (s *statusReporter) finish() {
	close(s.quit)
	s.wg.Wait()
	if s.opts.Progress != nil {
		fmt.Fprint(s.opts.Progress, "\r\033[K")
	}
}

func (s *statusReporter) statusLoop() {
	defer s.wg.Done()
	t := time.NewTicker(s.opts.StatusInterval)
	defer t.Stop()
	lastOps, lastAt := int64(0), s.start
	for {
		select {
		case <-s.quit:
			return
		case now := <-t.C:
			ops := s.done.Load()
			fmt.Fprintln(s.opts.Status, statusLine(now, now.Sub(s.start), ops, lastOps,
				now.Sub(lastAt), s.total, s.m.TakeInterval()))
			lastOps, lastAt = ops, now
		}
	}
}

// statusLine formats one line as YCSB's StatusThread does: time, elapsed
// seconds, operations so far, current ops/s, estimated completion, then
// per operation the interval's count and latencies in µs.
func statusLine(now time.Time, elapsed time.Duration, ops, lastOps int64, interval time.Duration,
	total int64, per []OpSummary) string {
	var b strings.Builder
	cur := 0.0
	if interval > 0 {
		cur = float64(ops-lastOps) / interval.Seconds()
	}
	fmt.Fprintf(&b, "%s:%03d %d sec: %d operations; %s current ops/sec;",
		now.Format("2006-01-02 15:04:05"), now.Nanosecond()/1e6, int64(elapsed.Seconds()), ops, twoDecimals(cur))
	if ops > 0 && total > ops {
		left := time.Duration(float64(elapsed) * float64(total-ops) / float64(ops))
		fmt.Fprintf(&b, " est completion in %s", humanDuration(left))
	}
	for _, o := range per {
		if o.Operations == 0 {
			continue
		}
		fmt.Fprintf(&b, " [%s: Count=%d, Max=%d, Min=%d, Avg=%.2f, 90=%d, 99=%d, 99.9=%d, 99.99=%d]",
			o.Name, o.Operations, o.MaxMicros, o.MinMicros, o.AvgMicros, o.P90Micros, o.P99Micros, o.P999Micros, o.P9999Micros)
	}
	return b.String()
}

// humanDuration is YCSB's RemainingFormatter style: "1 minute 5 seconds".
func humanDuration(d time.Duration) string {
	secs := int64(d.Seconds())
	if secs < 1 {
		return "less than a second"
	}
	var parts []string
	for _, u := range []struct {
		name string
		n    int64
	}{{"day", 86400}, {"hour", 3600}, {"minute", 60}, {"second", 1}} {
		if v := secs / u.n; v > 0 {
			p := fmt.Sprintf("%d %s", v, u.name)
			if v > 1 {
				p += "s"
			}
			parts = append(parts, p)
			secs %= u.n
		}
	}
	return strings.Join(parts, " ")
}

func (s *statusReporter) progressLoop() {
	defer s.wg.Done()
	t := time.NewTicker(progressPeriod)
	defer t.Stop()
	for {
		select {
		case <-s.quit:
			return
		case <-t.C:
			fmt.Fprint(s.opts.Progress, "\r"+progressBar(s.done.Load(), s.total, 40))
		}
	}
}

// progressBar draws "[#####-----]  50% 500/1000".
func progressBar(done, total int64, width int) string {
	frac := 1.0
	if total > 0 {
		frac = min(float64(done)/float64(total), 1)
	}
	n := int(frac * float64(width))
	return fmt.Sprintf("[%s%s] %3d%% %d/%d", strings.Repeat("#", n), strings.Repeat("-", width-n),
		int(frac*100), done, total)
}

// twoDecimals formats as Java's DecimalFormat("#.##"), which YCSB's status
// line uses: at most two decimals, no trailing zeros.
func twoDecimals(v float64) string {
	return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
}
