package update

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// rename implements $rename as an unset of the source and a set of the
// destination. Neither path may run through an array.
func (st *state) rename(cur bson.D, o *op) (bson.D, error) {
	v, found, arrayAt := lookupDocs(cur, o.path)
	if arrayAt >= 0 {
		return nil, mongoerr.New(mongoerr.BadValue,
			"The source field cannot be an array element, '%s' in doc with %s = %s",
			joinPath(o.path), joinPath(o.path[:arrayAt+1]), fmtValue(mustLookup(cur, o.path[:arrayAt+1])))
	}
	if !found {
		return cur, nil
	}
	if _, _, arrayAt := lookupDocs(cur, o.to); arrayAt >= 0 {
		return nil, mongoerr.New(mongoerr.BadValue,
			"The destination field cannot be an array element, '%s' in doc with %s = %s",
			joinPath(o.to), joinPath(o.to[:arrayAt+1]), fmtValue(mustLookup(cur, o.to[:arrayAt+1])))
	}
	unset := &walker{st: st, leaf: unsetLeaf}
	cur, err := unset.walkDoc(cur, o.path)
	if err != nil {
		return nil, err
	}
	set := &walker{st: st, leaf: setLeaf(v), create: true}
	return set.walkDoc(cur, o.to)
}

// lookupDocs follows p through documents only. arrayAt is the index of the
// component whose value is an array the path continues through (-1 if none).
func lookupDocs(d bson.D, p []string) (v any, found bool, arrayAt int) {
	var cur any = d
	for i, c := range p {
		switch x := cur.(type) {
		case bson.D:
			j := indexOf(x, c)
			if j < 0 {
				return nil, false, -1
			}
			cur = x[j].Value
		case bson.A:
			return nil, false, i - 1
		default:
			return nil, false, -1
		}
	}
	return cur, true, -1
}

func mustLookup(d bson.D, p []string) any {
	v, _ := lookup(d, p)
	return v
}

func joinPath(p []string) string { return strings.Join(p, ".") }
