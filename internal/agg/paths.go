package agg

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// getPath follows parts through nested documents only (no array
// traversal), as $unwind does. It returns expr.Missing when absent.
func getPath(doc bson.D, parts []string) any {
	var v any = doc
	for _, p := range parts {
		d, ok := v.(bson.D)
		if !ok {
			return expr.Missing
		}
		v = field(d, p)
	}
	return v
}

func field(d bson.D, key string) any {
	for _, e := range d {
		if e.Key == key {
			return e.Value
		}
	}
	return expr.Missing
}

// withPath returns a copy of doc with parts set to v (removed when v is
// Missing). Non-document intermediates are replaced by documents. Only the
// spine along parts is copied.
func withPath(doc bson.D, parts []string, v any) bson.D {
	idx := -1
	for i, e := range doc {
		if e.Key == parts[0] {
			idx = i
			break
		}
	}
	if len(parts) > 1 {
		if idx < 0 && expr.IsMissing(v) {
			return doc
		}
		var sub bson.D
		if idx >= 0 {
			sub, _ = doc[idx].Value.(bson.D)
		}
		v = withPath(sub, parts[1:], v)
	}
	out := make(bson.D, 0, len(doc)+1)
	switch {
	case idx < 0 && expr.IsMissing(v):
		return doc
	case idx < 0:
		return append(append(out, doc...), bson.E{Key: parts[0], Value: v})
	case expr.IsMissing(v):
		out = append(out, doc[:idx]...)
		return append(out, doc[idx+1:]...)
	}
	out = append(out, doc...)
	out[idx].Value = v
	return out
}

// splitFieldPath validates a "$a.b" stage argument and returns its parts.
func splitFieldPath(s string, code mongoerr.Code, what string) ([]string, error) {
	if !strings.HasPrefix(s, "$") {
		return nil, mongoerr.New(code, "%s should be prefixed with a '$': %s", what, s)
	}
	return splitDotted(s[1:])
}

// splitDotted validates a dotted field name a.b.c.
func splitDotted(s string) ([]string, error) {
	if s == "" {
		return nil, mongoerr.New(mongoerr.FieldPathEmpty, "FieldPath cannot be constructed with empty string")
	}
	parts := strings.Split(s, ".")
	for _, p := range parts {
		if p == "" {
			return nil, mongoerr.New(mongoerr.FieldPathEmptyName, "FieldPath field names may not be empty strings.")
		}
		if strings.HasPrefix(p, "$") {
			return nil, mongoerr.New(mongoerr.FieldPathDollarPrefixed, "FieldPath field names may not start with '$'. Consider using $getField or $setField.")
		}
	}
	return parts, nil
}
