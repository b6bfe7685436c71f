package agg

import (
	"sort"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/iterx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/query"
)

// partition is the documents of one partition, in sortBy order.
type partition struct {
	docs  []bson.D     // without partField
	keys  []query.Key  // sortBy keys (nil without sortBy)
	sortV []any        // the first sortBy field's value per document
	vars  []*expr.Vars // $$ROOT bound per document
	// sortDesc: the first sortBy field is descending.
	sortDesc bool
}

func (w *windowStage) run(in Iterator, rc *runCtx) Iterator {
	var queue []bson.D
	var next bson.D // first document of the next partition
	done := false
	return iterx.Func(func() (bson.D, bool, error) {
		for len(queue) == 0 {
			if done {
				return nil, false, nil
			}
			p, n, end, err := w.readPartition(in, next, rc)
			if err != nil {
				return nil, false, err
			}
			next, done = n, end
			if queue, err = w.compute(p, rc); err != nil {
				return nil, false, err
			}
		}
		d := queue[0]
		queue = queue[1:]
		return d, true, nil
	}, in.Close)
}

// readPartition reads documents while their partition value equals
// first's; it returns the first document of the next partition.
func (w *windowStage) readPartition(in Iterator, first bson.D, rc *runCtx) (*partition, bson.D, bool, error) {
	p := &partition{}
	if w.sort != nil {
		p.sortDesc = w.sort.Fields()[0].Desc
	}
	var bytes int64
	var key string
	add := func(d bson.D) bool {
		k := ""
		if w.partitioned && len(d) > 0 && d[0].Key == partField {
			k, d = groupKey(d[0].Value), d[1:]
		}
		if len(p.docs) > 0 && k != key {
			return false
		}
		key = k
		p.add(d, w, rc)
		bytes += docSize(d) + itemOverhead
		return true
	}
	if first != nil {
		add(first)
	}
	for {
		d, ok := in.Next()
		if !ok {
			return p, nil, true, in.Err()
		}
		if !add(d) {
			return p, d, false, nil
		}
		if bytes > rc.lim.windowBytes {
			return nil, nil, true, windowLimitErr(rc.lim)
		}
	}
}

func (p *partition) add(d bson.D, w *windowStage, rc *runCtx) {
	p.docs = append(p.docs, d)
	p.vars = append(p.vars, rc.varsFor(d))
	if w.sort != nil {
		k := w.sort.Key(d)
		p.keys = append(p.keys, k)
		p.sortV = append(p.sortV, getPath(d, strings.Split(w.sortBy[0].Key, ".")))
	}
}

func windowLimitErr(l *limits) error {
	if !l.allowDiskUse {
		return mongoerr.New(errNoDiskUse, "PlanExecutor error during aggregation :: caused by :: Exceeded memory limit in DocumentSourceSetWindowFields, used more than %d bytes. Pass allowDiskUse:true to opt in.", l.windowBytes)
	}
	// TODO(#14): spill partitions past the limit as MongoDB does.
	return mongoerr.New(mongoerr.WindowMemoryExceeded, "Exceeded memory limit in DocumentSourceSetWindowFields, used more than %d bytes (a partition this large cannot spill to disk yet)", l.windowBytes)
}

// compute returns the partition's documents with every output set.
func (w *windowStage) compute(p *partition, rc *runCtx) ([]bson.D, error) {
	if len(p.docs) == 0 {
		return nil, nil
	}
	out := append([]bson.D(nil), p.docs...)
	for _, o := range w.outs {
		vals, err := o.fn(p, o, rc)
		if err != nil {
			return nil, err
		}
		for i := range out {
			v := vals[i]
			if expr.IsMissing(v) {
				v = nil
			}
			out[i] = withPath(out[i], o.path, v)
		}
	}
	return out, nil
}

// bounds returns the window [lo, hi] of document i (lo > hi: empty).
func (w *window) bounds(p *partition, i int, desc bool) (int, int, error) {
	n := len(p.docs)
	if !w.isRange {
		lo, hi := 0, n-1
		if !w.lo.unbounded {
			lo = max(0, i+int(w.lo.off))
		}
		if !w.hi.unbounded {
			hi = min(n-1, i+int(w.hi.off))
		}
		return lo, hi, nil
	}
	return w.rangeBounds(p, i, desc)
}

// rangeBounds finds the documents whose sort value lies within the range
// around document i's; the partition is sorted, so they are contiguous.
func (w *window) rangeBounds(p *partition, i int, desc bool) (int, int, error) {
	cur := p.sortV[i]
	if err := w.checkRangeValue(cur); err != nil {
		return 0, 0, err
	}
	n := len(p.docs)
	ge := func(b bound) func(j int) bool { // sortV[j] >= cur+b (in sort order)
		return func(j int) bool { return w.cmpOffset(p.sortV[j], cur, b, desc) >= 0 }
	}
	gt := func(b bound) func(j int) bool {
		return func(j int) bool { return w.cmpOffset(p.sortV[j], cur, b, desc) > 0 }
	}
	lo, hi := 0, n-1
	for j := range p.sortV {
		if err := w.checkRangeValue(p.sortV[j]); err != nil {
			return 0, 0, err
		}
	}
	if !w.lo.unbounded {
		lo = sort.Search(n, ge(w.lo))
	}
	if !w.hi.unbounded {
		hi = sort.Search(n, gt(w.hi)) - 1
	}
	return lo, hi, nil
}

// cmpOffset compares v with cur+b.off in sort order (desc reverses the
// offset's direction, as MongoDB reads bounds along the sort order).
func (w *window) cmpOffset(v, cur any, b bound, desc bool) int {
	off := b.off
	if desc {
		off = -off
	}
	c := compareShifted(v, cur, off, w.unit)
	if desc {
		return -c
	}
	return c
}

func (w *window) checkRangeValue(v any) error {
	if w.hasUnits {
		if _, ok := v.(bson.DateTime); !ok {
			return mongoerr.New(mongoerr.WindowRangeNotNumber, "Invalid range: Expected the sortBy field to be a Date, but it was %s", typeOf(v))
		}
		return nil
	}
	if _, ok := numberAsFloat(v); !ok {
		return mongoerr.New(mongoerr.WindowRangeNotNumber, "Invalid range: Expected the sortBy field to be a number, but it was %s", typeOf(v))
	}
	return nil
}

// compareShifted compares v with cur shifted by off (units for dates).
func compareShifted(v, cur any, off float64, unit string) int {
	if unit == "" {
		a, _ := numberAsFloat(v)
		b, _ := numberAsFloat(cur)
		return cmpFloat(a, b+off)
	}
	a := v.(bson.DateTime).Time()
	b := addUnits(cur.(bson.DateTime).Time(), int(off), unit)
	return a.Compare(b)
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func addUnits(t time.Time, n int, unit string) time.Time {
	t = t.UTC()
	switch unit {
	case "year":
		return t.AddDate(n, 0, 0)
	case "quarter":
		return t.AddDate(0, 3*n, 0)
	case "month":
		return t.AddDate(0, n, 0)
	}
	return t.Add(time.Duration(n) * unitDuration(unit))
}

func unitDuration(unit string) time.Duration {
	switch unit {
	case "week":
		return 7 * 24 * time.Hour
	case "day":
		return 24 * time.Hour
	case "hour":
		return time.Hour
	case "minute":
		return time.Minute
	case "second":
		return time.Second
	}
	return time.Millisecond
}
