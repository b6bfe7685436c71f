package shardfailover

import (
	"sort"
	"time"

	"github.com/relaydb/relaydb/internal/bench/failover"
)

// Figures is what the operation log shows around one kill. Pure result of
// measure.
type Figures struct {
	PreKillP99   time.Duration  // p99 latency of the killed shard's successes before the kill
	Threshold    time.Duration  // an op on the killed shard running longer is stalled
	Interruption time.Duration  // first failed/stalled op's start to the next success on the shard; 0 = none seen
	Gap          time.Duration  // longest gap between successes on the killed shard, ending after the kill
	OtherGap     time.Duration  // the same over every other shard's successes
	ReadGap      time.Duration  // Gap over the killed shard's reads alone
	WriteGap     time.Duration  // Gap over the killed shard's updates and inserts alone
	Recovered    bool           // a success on the killed shard after the kill
	Failed       int            // failed ops on the killed shard in the window
	Stalled      int            // stalled ops on the killed shard in the window
	OtherFailed  int            // failed ops on other shards in the window
	Errors       map[string]int // failed ops in the window by class (every shard)
}

// measure computes the Figures of a kill of shard at kill from ops (the
// records ending in [from, to], any order); classes names the error
// classes. Pure.
func measure(ops []op, classes []string, shard int16, kill, from, to time.Time, factor float64, floor time.Duration) Figures {
	ops = sortedByEnd(ops)
	var f Figures
	f.PreKillP99 = preKillP99(ops, shard, kill)
	f.Threshold = max(time.Duration(factor*float64(f.PreKillP99)), floor)
	var mine, others [3][]time.Time     // acks, fails, stalls
	var readAcks, writeAcks []time.Time // the killed shard's
	f.Errors = map[string]int{}
	for _, o := range ops {
		t := &others
		if o.shard == shard {
			t = &mine
		}
		if o.ok() {
			t[0] = append(t[0], o.end)
			if o.shard == shard && o.kind == kindRead {
				readAcks = append(readAcks, o.end)
			} else if o.shard == shard {
				writeAcks = append(writeAcks, o.end)
			}
		} else {
			t[1] = append(t[1], o.end)
			f.Errors[className(classes, o.class)]++
		}
		if o.end.Sub(o.start) > f.Threshold {
			t[2] = append(t[2], o.start.Add(f.Threshold))
		}
	}
	sortTimes(mine[2])
	sortTimes(others[2])
	w := failover.ComputeWindow(mine[0], mine[1], mine[2], kill, from, to)
	f.Gap, f.Recovered, f.Failed, f.Stalled = w.MaxGap, w.Recovered, w.Failed, w.Stalled
	ow := failover.ComputeWindow(others[0], others[1], others[2], kill, from, to)
	f.OtherGap, f.OtherFailed = ow.MaxGap, ow.Failed
	f.ReadGap = failover.ComputeWindow(readAcks, nil, nil, kill, from, to).MaxGap
	f.WriteGap = failover.ComputeWindow(writeAcks, nil, nil, kill, from, to).MaxGap
	f.Interruption = interruption(ops, shard, kill, f.Threshold)
	return f
}

// interruption is the client-observed interruption of shard: from the
// start of the first operation on it detected bad after kill (a failure,
// detected at its end; or a stall, detected at start+threshold) to the
// first success on it ending after that detection. 0 when no operation
// was bad, or none succeeded after (the trial then did not recover).
// ops is sorted by end.
func interruption(ops []op, shard int16, kill time.Time, threshold time.Duration) time.Duration {
	var first op
	var detect time.Time
	for _, o := range ops {
		if o.shard != shard {
			continue
		}
		var at time.Time
		switch {
		case !o.ok():
			at = o.end
		case o.end.Sub(o.start) > threshold:
			at = o.start.Add(threshold)
		default:
			continue
		}
		if at.After(kill) && (detect.IsZero() || at.Before(detect)) {
			first, detect = o, at
		}
	}
	if detect.IsZero() {
		return 0
	}
	for _, o := range ops {
		if o.shard == shard && o.ok() && o.end.After(detect) {
			return o.end.Sub(first.start)
		}
	}
	return 0
}

// preKillP99 is the p99 latency of shard's successes that ended before kill.
func preKillP99(ops []op, shard int16, kill time.Time) time.Duration {
	var ms []float64
	for _, o := range ops {
		if o.shard == shard && o.ok() && o.end.Before(kill) {
			ms = append(ms, float64(o.end.Sub(o.start).Microseconds())/1000)
		}
	}
	return time.Duration(failover.Percentile(ms, 99) * float64(time.Millisecond))
}

func className(classes []string, c uint16) string {
	if int(c) >= 1 && int(c) <= len(classes) {
		return classes[c-1]
	}
	return "unknown"
}

func sortedByEnd(ops []op) []op {
	out := append([]op(nil), ops...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].end.Before(out[j].end) })
	return out
}

func sortTimes(ts []time.Time) {
	sort.Slice(ts, func(i, j int) bool { return ts[i].Before(ts[j]) })
}
