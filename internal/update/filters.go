package update

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/query"
)

// matcher is the part of query.Matcher this package uses.
type matcher interface {
	Match(doc bson.D) bool
}

// compileMatcher compiles a query filter.
func compileMatcher(f bson.D, coll bsonx.Collator) (matcher, error) {
	m, err := query.CompileOptions(f, query.Options{Collator: coll})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// arrayFilter is one entry of the arrayFilters option, keyed by identifier.
// An element e matches when {<id>: e} matches the filter.
type arrayFilter struct {
	id   string
	m    matcher
	used bool // set during Compile only
}

// filters maps identifiers to their array filter.
type filters map[string]*arrayFilter

func parseFilters(specs []bson.D, coll bsonx.Collator) (filters, error) {
	fs := filters{}
	for _, spec := range specs {
		id, err := filterIdentifier(spec)
		if err != nil {
			return nil, err
		}
		if fs[id] != nil {
			return nil, mongoerr.New(mongoerr.FailedToParse,
				"Found multiple array filters with the same top-level field name %s", id)
		}
		m, err := compileMatcher(spec, coll)
		if err != nil {
			return nil, err
		}
		fs[id] = &arrayFilter{id: id, m: m}
	}
	return fs, nil
}

// filterIdentifier returns the single identifier every top-level field of
// an array filter starts with.
func filterIdentifier(spec bson.D) (string, error) {
	id := ""
	for _, e := range spec {
		if strings.HasPrefix(e.Key, "$") {
			// TODO(#2): MongoDB accepts $and/$or/$nor whose clauses share one identifier.
			continue
		}
		first, _, _ := strings.Cut(e.Key, ".")
		if id != "" && first != id {
			return "", mongoerr.New(mongoerr.FailedToParse,
				"Error parsing array filter :: caused by :: Expected a single top-level field name, found '%s' and '%s'", id, first)
		}
		id = first
	}
	if id == "" {
		return "", mongoerr.New(mongoerr.FailedToParse,
			"Cannot use an expression without a top-level field name in arrayFilters")
	}
	if !isIdentifier(id) {
		return "", mongoerr.New(mongoerr.BadValue,
			"Error parsing array filter :: caused by :: The top-level field name must be an alphanumeric string beginning with a lowercase letter, found '%s'", id)
	}
	return id, nil
}

// matches reports whether array element e satisfies the filter.
func (f *arrayFilter) matches(e any) bool {
	return f.m.Match(bson.D{{Key: f.id, Value: e}})
}

// checkAllUsed rejects array filters no path of the update names.
func (fs filters) checkAllUsed(u bson.D) error {
	used := map[string]bool{}
	for _, e := range u {
		fields, _ := e.Value.(bson.D)
		for _, f := range fields {
			for _, c := range splitPath(f.Key) {
				if id, ok := arrayFilterID(c); ok {
					used[id] = true
				}
			}
		}
	}
	for id := range fs {
		if !used[id] {
			return mongoerr.New(mongoerr.FailedToParse,
				"The array filter for identifier '%s' was not used in the update %s", id, fmtValue(u))
		}
	}
	return nil
}

func unusedFilterError(specs []bson.D, u bson.D) error {
	fs, err := parseFilters(specs, nil)
	if err != nil {
		return err
	}
	return fs.checkAllUsed(u)
}

func splitPath(p string) []string { return strings.Split(p, ".") }

// pullCond is a parsed $pull condition.
type pullCond struct {
	eq      any     // equality value when m is nil
	m       matcher // query condition
	wrapped bool    // m matches {v: element}; otherwise m matches the element document
	coll    bsonx.Collator
}

func compilePullCond(v any, coll bsonx.Collator) (*pullCond, error) {
	switch x := v.(type) {
	case bson.D:
		if isPathAccepting(x) {
			m, err := compileMatcher(bson.D{{Key: "v", Value: x}}, coll)
			return &pullCond{m: m, wrapped: true}, err
		}
		m, err := compileMatcher(x, coll)
		return &pullCond{m: m}, err
	case bson.Regex:
		m, err := compileMatcher(bson.D{{Key: "v", Value: x}}, coll)
		return &pullCond{m: m, wrapped: true}, err
	}
	return &pullCond{eq: v, coll: coll}, nil
}

// matches reports whether array element e is removed by the condition.
func (c *pullCond) matches(e any) bool {
	switch {
	case c.m == nil:
		return bsonx.CompareColl(c.eq, e, c.coll) == 0
	case c.wrapped:
		return c.m.Match(bson.D{{Key: "v", Value: e}})
	default:
		d, ok := e.(bson.D)
		return ok && c.m.Match(d)
	}
}
