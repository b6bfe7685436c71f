package experiment

import (
	"fmt"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Lag by sync-source depth: the lag trace behind the trees. The primary's
// replSetGetStatus shows each member's optime as the member last reported
// it (replSetUpdatePosition, the acknowledgement a write concern waits
// for), so "entries behind" is how many oplog entries a member's
// acknowledgement trailed the primary's newest write by, at that poll.
// The oplog's ts counts entries within a second, so the difference is
// exact when member and primary are in the same second; polls that
// straddle a second boundary are not counted (they are a small fraction
// when lags are milliseconds, and counted in Straddled).

// DepthLag summarises the polls of the members at one depth (1: pulls from
// the primary, 2: from a member at depth 1, ...).
type DepthLag struct {
	Depth      int     `json:"depth"`
	Samples    int     `json:"samples"` // member-polls counted
	MeanBehind float64 `json:"meanEntriesBehind"`
	MaxBehind  uint32  `json:"maxEntriesBehind"`
	Straddled  int     `json:"straddledSamples"` // member-polls in another second than the primary
}

// depthAcc accumulates DepthLag over polls (or over runs' summaries): the
// mean is derived from the sum of entries behind when listed.
type depthAcc map[int]*depthSum

type depthSum struct {
	DepthLag
	sum float64 // entries behind over the Samples
}

// add folds n samples, sum entries behind in all and maxBehind at most,
// plus straddled polls, into depth d.
func (a depthAcc) add(d, n int, sum float64, maxBehind uint32, straddled int) {
	s := a[d]
	if s == nil {
		s = &depthSum{DepthLag: DepthLag{Depth: d}}
		a[d] = s
	}
	s.Samples += n
	s.sum += sum
	s.MaxBehind = max(s.MaxBehind, maxBehind)
	s.Straddled += straddled
}

func (a depthAcc) observe(st ReplStatus) {
	primary, ok := primaryOf(st)
	if !ok {
		return
	}
	depth := Depths(st)
	for _, m := range st.Members {
		d := depth[m.Name]
		switch {
		case d <= 0:
		case m.Optime.T != primary.T || m.Optime.I > primary.I:
			a.add(d, 0, 0, 0, 1)
		default:
			behind := primary.I - m.Optime.I
			a.add(d, 1, float64(behind), behind, 0)
		}
	}
}

// list returns the summaries by increasing depth.
func (a depthAcc) list() []DepthLag {
	out := make([]DepthLag, 0, len(a))
	for _, s := range a {
		d := s.DepthLag
		if d.Samples > 0 {
			d.MeanBehind = s.sum / float64(d.Samples)
		}
		out = append(out, d)
	}
	slices.SortFunc(out, func(x, y DepthLag) int { return x.Depth - y.Depth })
	return out
}

// mergeDepths folds several runs' summaries into one, weighting means by
// samples.
func mergeDepths(runs ...[]DepthLag) []DepthLag {
	acc := depthAcc{}
	for _, ds := range runs {
		for _, d := range ds {
			acc.add(d.Depth, d.Samples, d.MeanBehind*float64(d.Samples), d.MaxBehind, d.Straddled)
		}
	}
	return acc.list()
}

// Depths maps each member reached from the primary to its number of
// sync-source hops from it (the primary: 0); members no chain from the
// primary reaches are absent.
func Depths(st ReplStatus) map[string]int {
	src := map[string]string{} // name -> source name
	host := map[string]string{}
	for _, m := range st.Members {
		host[m.Host] = m.Name
	}
	out := map[string]int{}
	for _, m := range st.Members {
		if m.State == "PRIMARY" {
			out[m.Name] = 0
		} else if s, ok := host[m.SyncSource]; ok {
			src[m.Name] = s
		}
	}
	for _, m := range st.Members {
		n, hops := m.Name, 0
		for ; hops <= len(st.Members); hops++ {
			if d, ok := out[n]; ok {
				if hops > 0 {
					out[m.Name] = d + hops
				}
				break
			}
			next, ok := src[n]
			if !ok {
				break
			}
			n = next
		}
	}
	return out
}

// primaryOf returns the primary's optime.
func primaryOf(st ReplStatus) (op bson.Timestamp, ok bool) {
	for _, m := range st.Members {
		if m.State == "PRIMARY" {
			return m.Optime, true
		}
	}
	return op, false
}

// depthCell renders "depth: mean (max)" per depth, e.g. "1: 2.1 (9); 2: 5.0 (14)".
func depthCell(ds []DepthLag) string {
	var parts []string
	for _, d := range ds {
		if d.Samples == 0 {
			continue
		}
		parts = append(parts, fmt.Sprintf("%d: %.1f (%d)", d.Depth, d.MeanBehind, d.MaxBehind))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, "; ")
}
