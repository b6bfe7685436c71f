package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Clustered collections ({clusteredIndex: {key: {_id: 1}, unique: true}}).
// relaydb stores every collection's documents keyed by _id, which is what
// clustering means in MongoDB, so a clustered collection differs only in
// what listCollections and listIndexes show: the clustered index (with its
// name) in place of the _id_ index.
// TODO(#14): expireAfterSeconds on clustered collections (TTL on _id).

// clusteredOptions checks and normalises create's clusteredIndex and
// expireAfterSeconds options.
func clusteredOptions(opts bson.D) (bson.D, error) {
	out := bson.D{}
	var spec bson.D
	for _, o := range opts {
		switch o.Key {
		case "clusteredIndex":
			if b, ok := o.Value.(bool); ok && !b {
				continue
			}
			var err error
			if spec, err = clusteredSpec(o.Value); err != nil {
				return nil, err
			}
			o.Value = spec
		case "expireAfterSeconds":
			if lookupOpt(opts, "clusteredIndex") == nil && lookupOpt(opts, "timeseries") == nil {
				return nil, mongoerr.New(mongoerr.InvalidOptions, "'expireAfterSeconds' is only supported on clustered or time-series collections")
			}
			return nil, mongoerr.New(mongoerr.NotImplemented, "relaydb does not support expireAfterSeconds on clustered collections yet")
		}
		out = append(out, o)
	}
	if spec != nil {
		if capped, _ := lookupOpt(opts, "capped").(bool); capped {
			return nil, mongoerr.New(mongoerr.InvalidOptions, "a clustered collection cannot be capped")
		}
	}
	return out, nil
}

// clusteredSpec normalises a clusteredIndex document to {v, key, name,
// unique} as MongoDB stores it.
func clusteredSpec(v any) (bson.D, error) {
	d, ok := v.(bson.D)
	if !ok {
		return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field 'create.clusteredIndex' is the wrong type '%s', expected types '[bool, object]'", bsonx.TypeAlias(v))
	}
	name, version := "_id_", int32(2)
	for _, e := range d {
		switch e.Key {
		case "key", "unique":
		case "name":
			s, ok := e.Value.(string)
			if !ok {
				return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field 'clusteredIndex.name' is the wrong type '%s', expected type 'string'", bsonx.TypeAlias(e.Value))
			}
			name = s
		case "v":
			n, ok := bsonx.AsInt64(e.Value)
			if !ok || n != 2 {
				return nil, mongoerr.New(mongoerr.InvalidIndexSpecificationOption, "Invalid clusteredIndex version %v", e.Value)
			}
		default:
			return nil, mongoerr.New(mongoerr.IDLUnknownField, "BSON field 'clusteredIndex.%s' is an unknown field.", e.Key)
		}
	}
	key, hasKey := lookupOpt(d, "key").(bson.D)
	unique, hasUnique := lookupOpt(d, "unique").(bool)
	if lookupOpt(d, "key") == nil || lookupOpt(d, "unique") == nil {
		missing := "key"
		if hasKey || lookupOpt(d, "key") != nil {
			missing = "unique"
		}
		return nil, mongoerr.New(mongoerr.IDLMissingField, "BSON field 'clusteredIndex.%s' is missing but a required field", missing)
	}
	if !hasKey || len(key) != 1 || key[0].Key != "_id" || !isOneNumber(key[0].Value) {
		return nil, mongoerr.New(mongoerr.InvalidIndexSpecificationOption, "The clusteredIndex option is only supported for key: {_id: 1}")
	}
	if !hasUnique || !unique {
		return nil, mongoerr.New(mongoerr.InvalidIndexSpecificationOption, "The clusteredIndex option requires unique: true")
	}
	return bson.D{{Key: "v", Value: version}, {Key: "key", Value: bson.D{{Key: "_id", Value: int32(1)}}},
		{Key: "name", Value: name}, {Key: "unique", Value: true}}, nil
}

func isOneNumber(v any) bool {
	n, ok := bsonx.AsFloat64(v)
	return ok && n == 1
}

// clusteredIndex returns col's clustered index spec, or nil.
func clusteredIndex(col *catalog.Collection) bson.D {
	d, _ := lookupOpt(col.Options, "clusteredIndex").(bson.D)
	return d
}

// listIndexSpec is the listIndexes entry of an index of col: a clustered
// collection shows its clustered index instead of _id_.
func listIndexSpec(col *catalog.Collection, idx *catalog.Index) bson.D {
	if spec := clusteredIndex(col); spec != nil && idx.IsID() {
		return append(append(bson.D{}, spec...), bson.E{Key: "clustered", Value: true})
	}
	return idx.Spec
}
