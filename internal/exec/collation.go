package exec

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/collation"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Collation rules of the planner (MongoDB's): an index serves a string
// predicate or a sort only when its collation is the query's; an index
// of another collation still serves predicates without strings. A
// collated index's bounds are built from collation keys
// (collation.Collator.KeyValue), as its entries hold them. The matcher
// always re-checks fetched documents under the query's collation.

// Collation is an operation's collation option: Given is false when the
// command sent none, and the collection's default collation applies.
type Collation struct {
	Spec  *collation.Spec // nil: simple
	Given bool
}

// collatorFor is the collator an operation with collation o uses on col
// (nil col: the operation's own, or simple).
func collatorFor(col *catalog.Collection, o Collation) *collation.Collator {
	if o.Given || col == nil {
		return collation.New(o.Spec)
	}
	return collation.New(DefaultCollation(col))
}

// DefaultCollation is col's default collation (create's collation
// option), nil for the simple collation.
func DefaultCollation(col *catalog.Collection) *collation.Spec {
	v, ok := bsonx.Get(col.Options, "collation")
	if !ok {
		return nil
	}
	d, _ := v.(bson.D)
	s, err := collation.Parse(d)
	if err != nil {
		return nil // validated by create; a stored spec parses
	}
	return s
}

// bsonColl is c as the matcher and sort take it: a nil interface for the
// simple collation (a typed nil pointer would cost a call per string).
func bsonColl(c *collation.Collator) bsonx.Collator {
	if c == nil {
		return nil
	}
	return c
}

// predsFor is what idx may use of preds under the query collator qc.
func predsFor(idx *catalog.Index, preds map[string]*pred, qc *collation.Collator) map[string]*pred {
	ic := idx.Collator()
	if collation.Equal(ic.Spec(), qc.Spec()) {
		if ic == nil {
			return preds
		}
		out := make(map[string]*pred, len(preds))
		for k, p := range preds {
			out[k] = collatePred(p, ic)
		}
		return out
	}
	out := make(map[string]*pred, len(preds))
	for k, p := range preds {
		if !predHasStrings(p) {
			out[k] = p
		}
	}
	return out
}

// sortFor is the sort idx may provide: none when the collations differ.
func sortFor(idx *catalog.Index, sort bson.D, qc *collation.Collator) bson.D {
	if collation.Equal(idx.Collator().Spec(), qc.Spec()) {
		return sort
	}
	return nil
}

func collatePred(p *pred, c *collation.Collator) *pred {
	q := *p
	if p.eq != nil {
		q.eq = make([]any, len(p.eq))
		for i, v := range p.eq {
			q.eq[i] = c.KeyValue(v)
		}
	}
	q.low, q.high = c.KeyValue(p.low), c.KeyValue(p.high)
	return &q
}

func predHasStrings(p *pred) bool {
	for _, v := range p.eq {
		if hasStrings(v) {
			return true
		}
	}
	return hasStrings(p.low) || hasStrings(p.high)
}

// hasStrings reports a string or symbol in v, at any depth.
func hasStrings(v any) bool {
	switch t := v.(type) {
	case string, bson.Symbol:
		return true
	case bson.D:
		for _, e := range t {
			if hasStrings(e.Value) {
				return true
			}
		}
	case bson.A:
		for _, e := range t {
			if hasStrings(e) {
				return true
			}
		}
	}
	return false
}

// sameViewCollation refuses reading view (a $lookup, $graphLookup or
// $unionWith source) under a collation other than its default one.
func sameViewCollation(view *catalog.Collection, spec *collation.Spec) error {
	if view == nil || collation.Equal(DefaultCollation(view), spec) {
		return nil
	}
	return mongoerr.New(mongoerr.OptionNotSupportedOnView,
		"Cannot override a view's default collation %s", view.NS())
}

// partialUsable reports whether the partial index idx may answer a query
// whose predicates idx can use are preds (predsFor): they must imply its
// filter. A string predicate another collation leaves out cannot imply
// it. A collated partial index is not planned at all: its filter is
// matched binary when documents are indexed while its key holds sort
// keys, so implication cannot be decided here.
// TODO(#14): partial filters under the index's collation.
func partialUsable(idx *catalog.Index, preds map[string]*pred) bool {
	return idx.Collator() == nil && implies(preds, idx.Partial)
}
