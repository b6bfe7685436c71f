package key

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// errArray is MongoDB's refusal of a document whose shard key path holds
// or passes through an array (extractShardKeyFromDocThrows).
func errArray() error {
	return mongoerr.New(mongoerr.ShardKeyNotFound,
		"Shard key cannot contain array values or array descendants.")
}

// Extract returns doc's shard key: for each field of p, in order, the
// value at its dotted path (null when missing or when the path crosses a
// scalar), hashed with Hash for the hashed field. An array on a path is
// refused with ShardKeyNotFound (61); arrays are never traversed.
func (p Pattern) Extract(doc bson.D) (bson.D, error) {
	k := make(bson.D, len(p.fields))
	for i, f := range p.fields {
		v, err := Lookup(doc, f.Path)
		if err != nil {
			return nil, err
		}
		if f.Hashed {
			if v, err = hashElement(v); err != nil {
				return nil, err
			}
		}
		k[i] = bson.E{Key: f.Path, Value: v}
	}
	return k, nil
}

// Lookup returns the value at a dotted path of doc as MongoDB's
// getFieldDottedOrArray finds it for a shard key: null when a part is
// missing or the path continues into a scalar, an error when it meets an
// array (at the end or on the way).
func Lookup(doc bson.D, path string) (any, error) {
	var cur any = doc
	for {
		part, rest, more := strings.Cut(path, ".")
		d, ok := cur.(bson.D)
		if !ok {
			return nil, nil // a scalar on the way: missing
		}
		v, found := field(d, part)
		if !found {
			return nil, nil
		}
		if isArray(v) {
			return nil, errArray()
		}
		if !more {
			return v, nil
		}
		cur, path = v, rest
	}
}

func field(d bson.D, name string) (any, bool) {
	for _, e := range d {
		if e.Key == name {
			return e.Value, true
		}
	}
	return nil, false
}

func isArray(v any) bool {
	switch v.(type) {
	case bson.A, []any:
		return true
	}
	return false
}

func hashElement(v any) (any, error) {
	h, err := Hash(v)
	if err != nil {
		return nil, err
	}
	return h, nil
}
