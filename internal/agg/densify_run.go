package agg

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/iterx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// densifyRun is one Run's state: the input's min and max (known once the
// sort has drained it), the partition being walked and the next value.
type densifyRun struct {
	s         *densifyStage
	min, max  any
	generated int
	queue     []bson.D
	partKey   string
	partDoc   bson.D
	cur       any // next value to generate; nil before the partition's first
	hi        any
	started   bool
}

func (s *densifyStage) run(in Iterator, rc *runCtx) Iterator {
	r := &densifyRun{s: s}
	keyed := mapIter(in, r.key)
	sorted := sortIter(keyed, s.sort, 0, rc.lim)
	done := false
	return iterx.Func(func() (bson.D, bool, error) {
		for len(r.queue) == 0 {
			if done {
				return nil, false, nil
			}
			d, ok := sorted.Next()
			if !ok {
				done = true
				if err := sorted.Err(); err != nil {
					return nil, false, err
				}
				if err := r.finishPartition(); err != nil {
					return nil, false, err
				}
				continue
			}
			if err := r.take(d); err != nil {
				return nil, false, err
			}
		}
		d := r.queue[0]
		r.queue = r.queue[1:]
		return d, true, nil
	}, sorted.Close)
}

// key checks the field's type, notes min and max and prepends the
// partition document and the value.
func (r *densifyRun) key(d bson.D) (bson.D, error) {
	v := getPath(d, r.s.field)
	if expr.IsNullish(v) {
		v = nil
	} else if err := r.s.checkValue(v); err != nil {
		return nil, err
	}
	if v != nil {
		if r.min == nil || expr.Compare(v, r.min) < 0 {
			r.min = v
		}
		if r.max == nil || expr.Compare(v, r.max) > 0 {
			r.max = v
		}
	}
	part := bson.D{}
	for _, p := range r.s.parts {
		if pv := getPath(d, p); !expr.IsMissing(pv) {
			part = withPath(part, p, pv)
		}
	}
	return append(bson.D{{Key: densifyPart, Value: part}, {Key: densifyValue, Value: v}}, d...), nil
}

func (s *densifyStage) checkValue(v any) error {
	_, isDate := v.(bson.DateTime)
	_, isNum := numberAsFloat(v)
	switch {
	case s.unit != "" && !isDate:
		return mongoerr.New(mongoerr.TypeMismatch, "Encountered non-date value in $densify with a unit: %s", show(v))
	case s.unit == "" && !isNum:
		return mongoerr.New(mongoerr.TypeMismatch, "Densify field type must be numeric when no unit is given, found %s", typeOf(v))
	}
	return nil
}

// take handles one sorted document.
func (r *densifyRun) take(d bson.D) error {
	part, _ := d[0].Value.(bson.D)
	v, doc := d[1].Value, d[2:]
	if k := groupKey(part); !r.started || k != r.partKey {
		if err := r.finishPartition(); err != nil {
			return err
		}
		r.startPartition(k, part)
	}
	if v == nil {
		r.queue = append(r.queue, doc)
		return nil
	}
	if r.cur == nil {
		r.cur = r.firstValue(v)
	}
	if err := r.fillBelow(v, false); err != nil {
		return err
	}
	if expr.Compare(r.cur, v) == 0 {
		r.cur = r.s.next(r.cur)
	}
	r.queue = append(r.queue, doc)
	if r.s.bounds == "partition" {
		r.hi = v
	}
	return nil
}

func (r *densifyRun) startPartition(k string, part bson.D) {
	r.started, r.partKey, r.partDoc, r.cur = true, k, part, nil
	switch r.s.bounds {
	case "full":
		r.hi = r.max
	case "":
		r.hi = r.s.hi
	}
}

// firstValue is where generation starts in a partition.
func (r *densifyRun) firstValue(v any) any {
	switch r.s.bounds {
	case "full":
		return r.min
	case "partition":
		return v
	}
	return r.s.lo
}

// fillBelow generates values from cur while they are below limit (and
// inside the range); inclusive also generates limit itself.
func (r *densifyRun) fillBelow(limit any, inclusive bool) error {
	for r.cur != nil && r.hi != nil {
		c := expr.Compare(r.cur, limit)
		if c > 0 || (c == 0 && !inclusive) || !r.inRange(r.cur) {
			return nil
		}
		if r.generated++; r.generated > maxDensifyDocs {
			return mongoerr.New(mongoerr.DensifyTooManyDocs, "$densify generated more than %d documents", maxDensifyDocs)
		}
		r.queue = append(r.queue, r.generate())
		r.cur = r.s.next(r.cur)
	}
	return nil
}

// inRange: explicit bounds exclude hi; full and partition include it.
func (r *densifyRun) inRange(v any) bool {
	switch r.s.bounds {
	case "partition": // only values below an existing one are generated
		return true
	case "":
		return expr.Compare(v, r.hi) < 0 && expr.Compare(v, r.s.lo) >= 0
	}
	return expr.Compare(v, r.hi) <= 0
}

func (r *densifyRun) finishPartition() error {
	if !r.started || r.s.bounds == "partition" {
		return nil
	}
	if r.cur == nil {
		r.cur = r.firstValue(nil)
	}
	if r.cur == nil {
		return nil
	}
	return r.fillBelow(r.hi, true)
}

// next is v + step (dates: step units later).
func (s *densifyStage) next(v any) any {
	if dt, ok := v.(bson.DateTime); ok {
		n, _ := numberAsFloat(s.step)
		return bson.NewDateTimeFromTime(addUnits(dt.Time(), int(n), s.unit))
	}
	var sum expr.Sum
	sum.Add(v)
	sum.Add(s.step)
	return sum.Result()
}

// generate is the document for r.cur: the field first, then the
// partition fields.
func (r *densifyRun) generate() bson.D {
	d := withPath(bson.D{}, r.s.field, r.cur)
	for _, e := range r.partDoc {
		if e.Key != r.s.field[0] {
			d = append(d, e)
		}
	}
	return d
}
