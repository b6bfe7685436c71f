package command

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// A time-series collection's measurement m is stored as the bucket
// {_id, data: m} (timeseries.go), so a filter on measurements becomes a
// filter on buckets by prefixing every top-level field path with "data."
// (values are relative to their field and stay as they are) and every
// field path of an $expr with "$data.". bucketFilter does that.
// TODO(#14): $jsonSchema, $text and $where on time-series collections.

// measurementPrefix is where a bucket holds its measurement.
const measurementPrefix = "data."

// bucketFilter translates a measurement filter into a bucket filter.
func bucketFilter(q bson.D) (bson.D, error) {
	out := make(bson.D, 0, len(q))
	for _, e := range q {
		switch {
		case !strings.HasPrefix(e.Key, "$"):
			out = append(out, bson.E{Key: measurementPrefix + e.Key, Value: e.Value})
		case e.Key == "$and" || e.Key == "$or" || e.Key == "$nor":
			v, err := bucketFilterList(e.Key, e.Value)
			if err != nil {
				return nil, err
			}
			out = append(out, bson.E{Key: e.Key, Value: v})
		case e.Key == "$expr":
			out = append(out, bson.E{Key: e.Key, Value: bucketExpr(e.Value)})
		case e.Key == "$comment":
			out = append(out, e)
		default:
			return nil, mongoerr.New(mongoerr.NotImplemented, "relaydb does not support %s in a write on a time-series collection yet", e.Key)
		}
	}
	return out, nil
}

// bucketFilterList translates the filters of $and/$or/$nor (a malformed
// list stays as is: the query compiler reports it).
func bucketFilterList(op string, v any) (any, error) {
	arr, ok := v.(bson.A)
	if !ok {
		return v, nil
	}
	out := make(bson.A, len(arr))
	for i, f := range arr {
		d, ok := f.(bson.D)
		if !ok {
			out[i] = f
			continue
		}
		t, err := bucketFilter(d)
		if err != nil {
			return nil, err
		}
		out[i] = t
	}
	return out, nil
}

// bucketExpr rewrites the field paths of an aggregation expression:
// "$x" becomes "$data.x", "$$ROOT"/"$$CURRENT" become "$data" (with their
// sub-paths); $literal is left alone.
func bucketExpr(v any) any {
	switch t := v.(type) {
	case string:
		return bucketPath(t)
	case bson.A:
		out := make(bson.A, len(t))
		for i, x := range t {
			out[i] = bucketExpr(x)
		}
		return out
	case bson.D:
		out := make(bson.D, len(t))
		for i, e := range t {
			if e.Key == "$literal" {
				out[i] = e
				continue
			}
			out[i] = bson.E{Key: e.Key, Value: bucketExpr(e.Value)}
		}
		return out
	}
	return v
}

// bucketPath rewrites one expression string.
func bucketPath(s string) string {
	for _, root := range []string{"$$ROOT", "$$CURRENT"} {
		if s == root || strings.HasPrefix(s, root+".") {
			return "$data" + s[len(root):]
		}
	}
	if strings.HasPrefix(s, "$") && !strings.HasPrefix(s, "$$") && len(s) > 1 {
		return "$" + measurementPrefix + s[1:]
	}
	return s
}

// metaOnlyFilter reports whether every field path of the measurement
// filter q is meta or under it (an update's query must be, MongoDB 7.0).
func metaOnlyFilter(q bson.D, meta string) bool {
	for _, e := range q {
		switch {
		case e.Key == "$and" || e.Key == "$or" || e.Key == "$nor":
			arr, _ := e.Value.(bson.A)
			for _, f := range arr {
				if d, ok := f.(bson.D); !ok || !metaOnlyFilter(d, meta) {
					return false
				}
			}
		case e.Key == "$comment":
		case strings.HasPrefix(e.Key, "$"):
			return false
		case !isMetaPath(e.Key, meta):
			return false
		}
	}
	return true
}

// isMetaPath reports whether path is meta or one of its sub-fields.
func isMetaPath(path, meta string) bool {
	return meta != "" && (path == meta || strings.HasPrefix(path, meta+"."))
}
