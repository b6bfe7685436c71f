package update

import (
	"sort"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// equality is a path the upsert query pins to one value.
type equality struct {
	path []string
	v    any
}

// Upsert returns the document an upsert inserts when query matched
// nothing: the query's equality fields (for operator updates) or the
// replacement (plus the query's _id), with u applied as an insert. The
// result always has an _id, first; a new ObjectID is generated if needed.
func (u *Update) Upsert(query bson.D, ctx ApplyContext) (bson.D, error) {
	eqs, err := queryEqualities(query, nil)
	if err != nil {
		return nil, err
	}
	if err := checkEqualities(eqs); err != nil {
		return nil, err
	}
	qid, hasQID := queryID(eqs)
	if u.isReplace {
		return replaceKeepingIDOrNew(u.replacement, qid, hasQID)
	}
	base, err := equalityDoc(eqs)
	if err != nil {
		return nil, err
	}
	ctx.IsInsert, ctx.MatchedPos = true, -1
	res, err := u.Apply(base, ctx)
	if err != nil {
		return nil, err
	}
	if id, ok := bsonx.Get(res.Doc, "_id"); hasQID && (!ok || !identical(id, qid)) {
		return nil, mongoerr.New(mongoerr.ImmutableField,
			"Performing an update on the path '_id' would modify the immutable field '_id'")
	}
	id, ok := bsonx.Get(res.Doc, "_id")
	if err := checkID(id); ok && err != nil {
		return nil, err
	}
	return replaceKeepingIDOrNew(res.Doc, id, ok)
}

// checkID rejects _id values MongoDB cannot store.
func checkID(id any) error {
	switch id.(type) {
	case bson.A, bson.Regex, bson.Undefined:
		return mongoerr.New(mongoerr.InvalidIdField, "The '_id' value cannot be of type %s", typeName(id))
	}
	return nil
}

func replaceKeepingIDOrNew(d bson.D, id any, hasID bool) (bson.D, error) {
	if _, ok := bsonx.Get(d, "_id"); !ok && !hasID {
		id, hasID = bson.NewObjectID(), true
	}
	return replaceKeepingID(d, id, hasID)
}

func queryID(eqs []equality) (any, bool) {
	for _, e := range eqs {
		if len(e.path) == 1 && e.path[0] == "_id" {
			return e.v, true
		}
	}
	return nil, false
}

// queryEqualities collects plain and $eq equalities, recursing into $and.
func queryEqualities(q bson.D, out []equality) ([]equality, error) {
	for _, e := range q {
		if e.Key == "$and" {
			clauses, _ := e.Value.(bson.A)
			for _, c := range clauses {
				if d, ok := c.(bson.D); ok {
					var err error
					if out, err = queryEqualities(d, out); err != nil {
						return nil, err
					}
				}
			}
			continue
		}
		if isOperator(e.Key) {
			continue
		}
		if v, ok := equalityValue(e.Value); ok {
			out = append(out, equality{path: splitPath(e.Key), v: v})
		}
	}
	return out, nil
}

func equalityValue(v any) (any, bool) {
	switch x := v.(type) {
	case bson.Regex:
		return nil, false
	case bson.D:
		if len(x) > 0 && isOperator(x[0].Key) {
			return bsonx.Get(x, "$eq")
		}
	}
	return v, true
}

func checkEqualities(eqs []equality) error {
	for i, a := range eqs {
		for _, b := range eqs[:i] {
			switch {
			case joinPath(a.path) == joinPath(b.path):
				return mongoerr.New(mongoerr.NotSingleValueField,
					"cannot infer query fields to set, path '%s' is matched twice", joinPath(a.path))
			case isPrefix(a.path, b.path) || isPrefix(b.path, a.path):
				return mongoerr.New(mongoerr.NotSingleValueField,
					"cannot infer query fields to set, both paths '%s' and '%s' are matched",
					joinPath(a.path), joinPath(b.path))
			}
		}
	}
	return nil
}

// equalityDoc builds the starting document from the equalities, in path order.
func equalityDoc(eqs []equality) (bson.D, error) {
	sorted := append([]equality(nil), eqs...)
	sort.SliceStable(sorted, func(i, j int) bool { return cmpPath(sorted[i].path, sorted[j].path) < 0 })
	doc := bson.D{}
	st := &state{ctx: ApplyContext{IsInsert: true, MatchedPos: -1}}
	for _, e := range sorted {
		if strings.Contains(joinPath(e.path), "$") {
			continue
		}
		w := &walker{st: st, leaf: setLeaf(e.v), create: true}
		var err error
		if doc, err = w.walkDoc(doc, e.path); err != nil {
			return nil, err
		}
	}
	return doc, nil
}
