package catalog

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// wildcardProj is a {"$**": 1} index's wildcardProjection: the paths it
// includes (include) or excludes; _id is left out unless projected in.
type wildcardProj struct {
	paths   []string
	include bool
	withID  bool
}

// pathState is what a wildcard index holds of one path.
type pathState int

const (
	pathOut     pathState = iota // nothing
	pathPartial                  // only some subpaths: descend into documents
	pathIn                       // every value at and under it
)

// parseWildcardProj validates wildcardProjection as MongoDB does: only on
// {"$**": ...}, all inclusions or all exclusions (but _id).
func parseWildcardProj(idx *Index, v any) (*wildcardProj, error) {
	doc, ok := v.(bson.D)
	if !ok {
		return nil, mongoerr.New(mongoerr.TypeMismatch, "The field 'wildcardProjection' must be an object")
	}
	if w := idx.CompoundWildcard(); w >= 0 && idx.Key[w].Key == wildcardSuffix {
		// a compound wildcard index's "$**" term (indexwildcard_compound.go)
	} else if len(idx.Key) != 1 || idx.Key[0].Key != wildcardSuffix {
		return nil, mongoerr.New(mongoerr.FailedToParse, "The field 'wildcardProjection' is only allowed in an index whose key is {\"$**\": ±1}")
	}
	if len(doc) == 0 {
		return nil, mongoerr.New(mongoerr.FailedToParse, "The 'wildcardProjection' field can't be an empty object")
	}
	p := &wildcardProj{}
	mode := 0 // 1 include, -1 exclude
	for _, f := range doc {
		in := truthy(f.Value)
		if f.Key == "_id" {
			p.withID = in
			continue
		}
		m := -1
		if in {
			m = 1
		}
		if mode != 0 && m != mode {
			return nil, mongoerr.New(mongoerr.FailedToParse, "Cannot mix inclusion and exclusion in a wildcardProjection: %v", doc)
		}
		mode = m
		p.paths = append(p.paths, f.Key)
	}
	p.include = mode == 1 || (mode == 0 && p.withID)
	return p, nil
}

// state reports what the index holds of path.
func (p *wildcardProj) state(path string) pathState {
	under := func(q string) bool { return path == q || strings.HasPrefix(path, q+".") }
	if under("_id") {
		if p != nil && p.withID {
			return pathIn
		}
		return pathOut
	}
	if p == nil {
		return pathIn
	}
	for _, q := range p.paths {
		switch {
		case under(q):
			if p.include {
				return pathIn
			}
			return pathOut
		case p.include && strings.HasPrefix(q, path+"."):
			return pathPartial
		}
	}
	if p.include {
		return pathOut
	}
	return pathIn
}
