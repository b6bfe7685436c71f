package update

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// recorder collects the concrete paths an update changed, in order, to
// build the oplog form and to detect runtime conflicts ($[] paths).
type recorder struct {
	entries  []recEntry
	paths    map[string]bool // recorded paths
	prefixes map[string]bool // strict prefixes of recorded paths
}

type recEntry struct {
	path  []string
	unset bool
}

// record notes that path p was set or unset. It fails if p overlaps a path
// changed before, or if p touches _id outside an insert.
func (r *recorder) record(p []string, act action, isInsert bool) error {
	if p[0] == "_id" && !isInsert {
		return mongoerr.New(mongoerr.ImmutableField,
			"Performing an update on the path '%s' would modify the immutable field '_id'", strings.Join(p, "."))
	}
	if r.paths == nil {
		r.paths, r.prefixes = map[string]bool{}, map[string]bool{}
	}
	full := strings.Join(p, ".")
	if r.paths[full] || r.prefixes[full] {
		return conflictAt(full)
	}
	for i := 1; i < len(p); i++ {
		pre := strings.Join(p[:i], ".")
		if r.paths[pre] {
			return conflictAt(pre)
		}
		r.prefixes[pre] = true
	}
	r.paths[full] = true
	r.entries = append(r.entries, recEntry{path: p, unset: act == actUnset})
	return nil
}

func conflictAt(p string) error {
	return mongoerr.New(mongoerr.ConflictingUpdateOperators, "Update created a conflict at '%s'", p)
}

// oplog builds {$set: {...}, $unset: {...}} from the final document.
func (r *recorder) oplog(final bson.D) bson.D {
	var set, unset bson.D
	for _, e := range r.entries {
		key := strings.Join(e.path, ".")
		if e.unset {
			unset = append(unset, bson.E{Key: key, Value: true})
			continue
		}
		v, _ := lookup(final, e.path)
		set = append(set, bson.E{Key: key, Value: bsonx.Clone(v)})
	}
	var o bson.D
	if len(set) > 0 {
		o = append(o, bson.E{Key: "$set", Value: set})
	}
	if len(unset) > 0 {
		o = append(o, bson.E{Key: "$unset", Value: unset})
	}
	return o
}

// lookup finds the value at a concrete path (numeric components index
// arrays), without array expansion.
func lookup(v any, p []string) (any, bool) {
	for _, c := range p {
		switch x := v.(type) {
		case bson.D:
			i := indexOf(x, c)
			if i < 0 {
				return nil, false
			}
			v = x[i].Value
		case bson.A:
			i, ok := arrayIndex(c)
			if !ok || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// ApplyOplog applies an oplog form produced by Apply to doc: an operator
// form {$set: ..., $unset: ...} or a full replacement document (an empty o
// is the empty replacement document). Like MongoDB's oplog application, $set paths that
// cannot be created are skipped, so applying o twice gives the same result.
// doc is not mutated.
func ApplyOplog(doc bson.D, o bson.D) (bson.D, error) {
	if len(o) == 0 || !isOperator(o[0].Key) {
		return append(bson.D{}, bsonx.CloneDoc(o)...), nil
	}
	cur := bsonx.CloneDoc(doc)
	if cur == nil {
		cur = bson.D{}
	}
	for _, e := range o {
		fields, ok := e.Value.(bson.D)
		if !ok || (e.Key != "$set" && e.Key != "$unset") {
			return nil, mongoerr.New(mongoerr.FailedToParse, "invalid oplog update operator %s", e.Key)
		}
		var err error
		if cur, err = applyOplogOp(cur, e.Key == "$unset", fields); err != nil {
			return nil, err
		}
	}
	return cur, nil
}

func applyOplogOp(cur bson.D, unset bool, fields bson.D) (bson.D, error) {
	st := &state{ctx: ApplyContext{IsInsert: true, MatchedPos: -1}}
	for _, f := range fields {
		v := f.Value
		w := &walker{st: st, create: !unset, leaf: func(any, bool, []string) (any, action, error) {
			if unset {
				return nil, actUnset, nil
			}
			return bsonx.Clone(v), actSet, nil
		}}
		st.rec = recorder{}
		next, err := w.walkDoc(cur, splitPath(f.Key))
		if mongoerr.Is(err, mongoerr.PathNotViable) {
			continue
		}
		if err != nil {
			return nil, err
		}
		cur = next
	}
	return cur, nil
}
