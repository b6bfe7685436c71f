package catalog

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// IndexMod is the outcome of a collMod {index: {...}}: the document the
// oplog entry holds (the index by name and its new options; just the name
// when nothing changes) and the reply's fields (expireAfterSeconds_old/_new,
// hidden_old/_new, unique_new, prepareUnique_old/_new).
type IndexMod struct {
	Logged bson.D
	Reply  bson.D
	// convert: the index becomes unique (collmod_unique.go); old is the
	// index replaced, next its replacement in the new list.
	convert   bool
	old, next *Index
}

// indexModRequest is a parsed collMod index document.
type indexModRequest struct {
	name       string
	keyPattern bson.D
	hidden     *bool
	ttl        *int64
	// unique/prepareUnique: collmod_unique.go's conversion.
	unique, prepareUnique *bool
}

// parseIndexMod validates collMod's index document as MongoDB does:
// name or keyPattern (not both), and at least one of hidden,
// expireAfterSeconds, unique and prepareUnique.
func parseIndexMod(mod bson.D) (*indexModRequest, error) {
	r := &indexModRequest{}
	for _, f := range mod {
		var ok bool
		switch f.Key {
		case "name":
			r.name, ok = f.Value.(string)
		case "keyPattern":
			r.keyPattern, ok = f.Value.(bson.D)
		case "hidden":
			var b bool
			b, ok = f.Value.(bool)
			r.hidden = &b
		case "expireAfterSeconds":
			n, isNum := bsonx.AsFloat64(f.Value)
			if !isNum || n < 0 {
				return nil, mongoerr.New(mongoerr.InvalidOptions, "TTL index 'expireAfterSeconds' option must be a non-negative number, got %v", f.Value)
			}
			secs := int64(n)
			r.ttl, ok = &secs, true
		case "unique":
			var b bool
			b, ok = f.Value.(bool)
			r.unique = &b
		case "prepareUnique":
			var b bool
			b, ok = f.Value.(bool)
			r.prepareUnique = &b
		default:
			return nil, mongoerr.New(mongoerr.IDLUnknownField, "BSON field 'collMod.index.%s' is an unknown field.", f.Key)
		}
		if !ok {
			return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field 'collMod.index.%s' is the wrong type '%s'", f.Key, bsonx.TypeAlias(f.Value))
		}
	}
	switch {
	case r.name != "" && r.keyPattern != nil:
		return nil, mongoerr.New(mongoerr.InvalidOptions, "Cannot specify both key pattern and name.")
	case r.name == "" && r.keyPattern == nil:
		return nil, mongoerr.New(mongoerr.InvalidOptions, "Must specify either index name or key pattern.")
	case r.hidden == nil && r.ttl == nil && r.unique == nil && r.prepareUnique == nil:
		return nil, mongoerr.New(mongoerr.InvalidOptions, "no expireAfterSeconds, hidden, unique, or prepareUnique field")
	case r.unique != nil && !*r.unique:
		return nil, mongoerr.New(mongoerr.BadValue, "Cannot make index non-unique")
	}
	return r, nil
}

// mods counts the modifications r asks for (prepareUnique must be alone).
func (r *indexModRequest) mods() int {
	n := 0
	for _, set := range []bool{r.hidden != nil, r.ttl != nil, r.unique != nil, r.prepareUnique != nil} {
		if set {
			n++
		}
	}
	return n
}

// find returns the position of the index r names in idxs.
func (r *indexModRequest) find(ns string, idxs []*Index) (int, error) {
	for i, idx := range idxs {
		if (r.name != "" && idx.Name == r.name) || (r.keyPattern != nil && bsonx.Equal(idx.Key, r.keyPattern)) {
			return i, nil
		}
	}
	what := r.name
	if r.keyPattern != nil {
		what = fmt.Sprint(r.keyPattern)
	}
	return 0, mongoerr.New(mongoerr.IndexNotFound, "cannot find index %s for ns %s", what, ns)
}

// modIndexes applies collMod's index document to idxs and returns the new
// list (idxs is not modified) and what to log and reply.
func modIndexes(ns string, idxs []*Index, mod bson.D) ([]*Index, *IndexMod, error) {
	r, err := parseIndexMod(mod)
	if err != nil {
		return nil, nil, err
	}
	i, err := r.find(ns, idxs)
	if err != nil {
		return nil, nil, err
	}
	old := idxs[i]
	spec := append(bson.D{}, old.Spec...)
	res := &IndexMod{Logged: bson.D{{Key: "name", Value: old.Name}}}
	if r.ttl != nil {
		if old.ExpireAfterSeconds == nil {
			return nil, nil, mongoerr.New(mongoerr.InvalidOptions, "no expireAfterSeconds field to update")
		}
		res.Reply = append(res.Reply, bson.E{Key: "expireAfterSeconds_old", Value: *old.ExpireAfterSeconds},
			bson.E{Key: "expireAfterSeconds_new", Value: *r.ttl})
		res.Logged = append(res.Logged, bson.E{Key: "expireAfterSeconds", Value: *r.ttl})
		spec = setSpecOption(spec, "expireAfterSeconds", *r.ttl)
	}
	if r.hidden != nil {
		if old.IsID() && *r.hidden {
			return nil, nil, mongoerr.New(mongoerr.BadValue, "can't hide _id index")
		}
		if *r.hidden != old.Hidden {
			res.Reply = append(res.Reply, bson.E{Key: "hidden_old", Value: old.Hidden}, bson.E{Key: "hidden_new", Value: *r.hidden})
		}
		res.Logged = append(res.Logged, bson.E{Key: "hidden", Value: *r.hidden})
		spec = setSpecOption(spec, "hidden", *r.hidden)
	}
	spec, err = r.uniqueOptions(old, spec, res)
	if err != nil {
		return nil, nil, err
	}
	next, err := parseSpec(spec)
	if err != nil {
		return nil, nil, err
	}
	next.ID, next.Multikey = old.ID, old.Multikey
	if res.convert {
		res.old, res.next = old, next
	}
	out := append([]*Index{}, idxs...)
	out[i] = next
	return out, res, nil
}

// setSpecOption sets (or appends) an option of an index spec; hidden:
// false and prepareUnique: false are removed, as MongoDB's unhide does.
func setSpecOption(spec bson.D, key string, v any) bson.D {
	out := spec[:0:0]
	for _, f := range spec {
		if f.Key != key {
			out = append(out, f)
		}
	}
	if b, ok := v.(bool); ok && (key == "hidden" || key == "prepareUnique") && !b {
		return out
	}
	return append(out, bson.E{Key: key, Value: v})
}
