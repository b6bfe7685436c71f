package exec

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// find's min, max and returnKey, as MongoDB's planner treats them: min and
// max bound a scan of the hinted index to [min, max) in the index's key
// order (51173 without a hint, 51174 when their fields are not the index's
// key fields in order, 51175 when min does not come before max); returnKey
// returns each document's index key instead of the document ({} from a
// collection scan).
//
// relaydb scans the whole hinted index and keeps the documents with a key
// in range (one key per combination of array elements, at most
// maxKeyCombos), rather than seeking to min. TODO(#14): turn min/max into
// index intervals, and return the matched key of a multikey document.

const maxKeyCombos = 64

// checkMinMax validates min and max against the plan of the hinted index.
func checkMinMax(p FindParams, plan *Plan) error {
	if p.Min == nil && p.Max == nil {
		return nil
	}
	if p.Hint == nil {
		return mongoerr.New(mongoerr.MinMaxNeedsHint, "When using min()/max() a hint of which index to use must be provided")
	}
	if plan.Index == nil || plan.Kind != "IXSCAN" {
		return mongoerr.New(mongoerr.MinMaxIndexIncompatible, "The index chosen is not compatible with min/max")
	}
	key := plan.Index.Key
	for _, b := range []bson.D{p.Min, p.Max} {
		if b != nil && !sameFields(b, key) {
			return mongoerr.New(mongoerr.MinMaxIndexIncompatible, "The index chosen is not compatible with min/max")
		}
	}
	if p.Min != nil && p.Max != nil && compareKey(values(p.Min), values(p.Max), key) >= 0 {
		return mongoerr.New(mongoerr.MinNotBeforeMax, "The value provided for min() does not come before the value provided for max() in the hinted index")
	}
	return nil
}

func sameFields(b, key bson.D) bool {
	if len(b) != len(key) {
		return false
	}
	for i := range b {
		if b[i].Key != key[i].Key {
			return false
		}
	}
	return true
}

func values(d bson.D) []any {
	out := make([]any, len(d))
	for i, e := range d {
		out[i] = e.Value
	}
	return out
}

// compareKey compares key tuples in the index's order (a descending
// field reverses its comparison).
func compareKey(a, b []any, key bson.D) int {
	for i := range a {
		c := bsonx.Compare(a[i], b[i])
		if n, ok := bsonx.AsFloat64(key[i].Value); ok && n < 0 {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// docKeys returns a document's key tuples for the index key pattern: one
// per combination of array elements (a missing field is null), at most
// maxKeyCombos.
func docKeys(doc bson.D, key bson.D) [][]any {
	out := [][]any{{}}
	for _, f := range key {
		v, ok := bsonx.GetPath(doc, f.Key)
		if !ok {
			v = nil
		}
		elems := []any{v}
		if a, isArr := v.(bson.A); isArr && len(a) > 0 {
			elems = a
		}
		var next [][]any
		for _, k := range out {
			for _, e := range elems {
				if len(next) >= maxKeyCombos {
					break
				}
				next = append(next, append(append([]any(nil), k...), e))
			}
		}
		out = next
	}
	return out
}

// minMaxIter keeps the documents with an index key in [min, max).
type minMaxIter struct {
	in       Iterator
	min, max []any // nil: unbounded
	key      bson.D
	err      error
}

func newMinMaxIter(in Iterator, p FindParams, idx *catalog.Index) Iterator {
	m := &minMaxIter{in: in, key: idx.Key}
	if p.Min != nil {
		m.min = values(p.Min)
	}
	if p.Max != nil {
		m.max = values(p.Max)
	}
	return m
}

func (m *minMaxIter) Next() (*Row, bool) {
	for m.err == nil {
		r, ok := m.in.Next()
		if !ok {
			return nil, false
		}
		d, err := r.decoded()
		if err != nil {
			m.err = err
			return nil, false
		}
		if m.inRange(d) {
			return r, true
		}
	}
	return nil, false
}

func (m *minMaxIter) inRange(d bson.D) bool {
	for _, k := range docKeys(d, m.key) {
		if (m.min == nil || compareKey(k, m.min, m.key) >= 0) && (m.max == nil || compareKey(k, m.max, m.key) < 0) {
			return true
		}
	}
	return false
}

func (m *minMaxIter) Err() error   { return errOr(m.err, m.in) }
func (m *minMaxIter) Close() error { return m.in.Close() }

// returnKeyIter replaces each document by its index key.
type returnKeyIter struct {
	in  Iterator
	key bson.D // nil: a collection scan ({} per document)
	err error
}

func (r *returnKeyIter) Next() (*Row, bool) {
	if r.err != nil {
		return nil, false
	}
	row, ok := r.in.Next()
	if !ok {
		return nil, false
	}
	d, err := row.decoded()
	if err != nil {
		r.err = err
		return nil, false
	}
	out := bson.D{}
	if len(r.key) > 0 {
		k := docKeys(d, r.key)[0]
		for i, f := range r.key {
			out = append(out, bson.E{Key: f.Key, Value: k[i]})
		}
	}
	return &Row{Doc: out, Pos: row.Pos}, true
}

func (r *returnKeyIter) Err() error   { return errOr(r.err, r.in) }
func (r *returnKeyIter) Close() error { return r.in.Close() }

// returnKeyOf is the key pattern returnKey reports for plan (nil: none).
func returnKeyOf(plan *Plan) bson.D {
	if plan.Index == nil || plan.Kind != "IXSCAN" {
		return nil
	}
	return plan.Index.Key
}
