package topology

import "time"

// rttSamples is how many heartbeat round trips the distance estimate
// covers (4 s at the default 500 ms heartbeat interval).
const rttSamples = 8

// rttWindow estimates the distance to a member as the least of its last
// rttSamples heartbeat RTTs. Queueing and scheduling on a busy host only
// ever add to a round trip, so the minimum tracks the link's delay while a
// single slow heartbeat cannot reorder sources; a member that really moved
// away shows it once its near samples age out.
type rttWindow struct {
	samples [rttSamples]time.Duration
	n       int // samples taken
}

// add records one round trip and returns the estimate.
func (w *rttWindow) add(d time.Duration) time.Duration {
	w.samples[w.n%rttSamples] = d
	w.n++
	est := d
	for _, s := range w.samples[:min(w.n, rttSamples)] {
		est = min(est, s)
	}
	return est
}
