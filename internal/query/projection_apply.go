package query

import (
	"time"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Apply projects doc. pos is the array position the query matched (from
// Matcher.MatchPos), used by a positional "field.$" projection; pass -1 if
// there is none. doc is not modified; the result may share values with it.
func (p *Projection) Apply(doc bson.D, pos int) (bson.D, error) {
	if p.empty {
		return doc, nil
	}
	a := &applier{root: doc, pos: pos}
	var out bson.D
	if p.inclusion {
		out = a.includeDoc(doc, p.root)
	} else {
		out = a.excludeDoc(doc, p.root)
	}
	return out, a.err
}

// applier carries the per-document state of Apply.
type applier struct {
	root bson.D
	pos  int
	err  error
}

// includeDoc keeps the fields of doc the tree lists, in document order,
// then appends computed and $elemMatch fields in projection order.
func (a *applier) includeDoc(doc bson.D, n *projNode) bson.D {
	out := bson.D{}
	seen := map[string]bool{}
	for _, e := range doc {
		c := n.children[e.Key]
		if c == nil || c.expr != nil || c.elemMatch != nil || seen[e.Key] {
			continue
		}
		seen[e.Key] = true
		if v, ok := a.includeValue(e.Value, c); ok {
			out = append(out, bson.E{Key: e.Key, Value: v})
		}
	}
	for _, name := range n.order {
		c := n.children[name]
		if v, ok := a.appended(doc, name, c, seen[name]); ok {
			out = setField(out, name, v)
		}
	}
	return out
}

// appended computes the fields added after the document's own: computed
// fields, $elemMatch results and parents of computed fields that doc lacks.
func (a *applier) appended(doc bson.D, name string, c *projNode, seen bool) (any, bool) {
	switch {
	case c.expr != nil:
		return a.eval(c.expr)
	case c.elemMatch != nil:
		return elemMatchFirst(doc, name, c.elemMatch)
	case c.computed && !seen:
		return a.includeDoc(bson.D{}, c), true
	}
	return nil, false
}

func (a *applier) includeValue(v any, n *projNode) (any, bool) {
	switch {
	case n.include:
		return v, true
	case n.slice != nil:
		return sliceValue(v, n.slice), true
	case n.position:
		return a.positional(v)
	}
	switch x := v.(type) {
	case bson.D:
		return a.includeDoc(x, n), true
	case bson.A:
		return a.includeArray(x, n), true
	}
	if n.computed {
		return a.includeDoc(bson.D{}, n), true
	}
	return nil, false
}

// includeArray projects each document (and nested array) element; scalars
// are dropped.
func (a *applier) includeArray(arr bson.A, n *projNode) bson.A {
	out := bson.A{}
	for _, e := range arr {
		switch e.(type) {
		case bson.D, bson.A:
			if v, ok := a.includeValue(e, n); ok {
				out = append(out, v)
			}
		}
	}
	return out
}

func (a *applier) positional(v any) (any, bool) {
	arr, ok := v.(bson.A)
	if !ok {
		return v, true
	}
	if a.pos < 0 || a.pos >= len(arr) {
		if a.err == nil {
			a.err = codeErr(mongoerr.PositionalProjectionNoMatch, "Executor error during find command :: caused by :: positional operator '.$' couldn't find a matching element in the array")
		}
		return nil, false
	}
	return bson.A{arr[a.pos]}, true
}

func (a *applier) eval(e expr.Expr) (any, bool) {
	v, err := e.Eval(a.root, expr.NewVars(a.root, zeroTime))
	if err != nil {
		if a.err == nil {
			a.err = err
		}
		return nil, false
	}
	if expr.IsMissing(v) {
		return nil, false
	}
	return v, true
}

func elemMatchFirst(doc bson.D, name string, m posMatcher) (any, bool) {
	for _, e := range doc {
		if e.Key != name {
			continue
		}
		if ok, i := m.matchPos(e.Value); ok {
			return bson.A{e.Value.(bson.A)[i]}, true
		}
		return nil, false
	}
	return nil, false
}

func sliceValue(v any, s *sliceSpec) any {
	if arr, ok := v.(bson.A); ok {
		return s.apply(arr)
	}
	return v
}

// setField replaces the field name in d or appends it.
func setField(d bson.D, name string, v any) bson.D {
	for i := range d {
		if d[i].Key == name {
			d[i].Value = v
			return d
		}
	}
	return append(d, bson.E{Key: name, Value: v})
}

// excludeDoc drops the excluded fields of doc and applies $slice.
func (a *applier) excludeDoc(doc bson.D, n *projNode) bson.D {
	out := make(bson.D, 0, len(doc))
	for _, e := range doc {
		c := n.children[e.Key]
		switch {
		case c == nil:
			out = append(out, e)
		case c.exclude:
		case c.slice != nil:
			out = append(out, bson.E{Key: e.Key, Value: sliceValue(e.Value, c.slice)})
		case c.include:
			out = append(out, e) // _id: 1 in an exclusion projection
		default:
			out = append(out, bson.E{Key: e.Key, Value: a.excludeValue(e.Value, c)})
		}
	}
	return out
}

func (a *applier) excludeValue(v any, n *projNode) any {
	switch x := v.(type) {
	case bson.D:
		return a.excludeDoc(x, n)
	case bson.A:
		out := make(bson.A, len(x))
		for i, e := range x {
			out[i] = a.excludeValue(e, n)
		}
		return out
	}
	return v
}

// zeroTime lets expr bind $$NOW to the current time.
var zeroTime time.Time
