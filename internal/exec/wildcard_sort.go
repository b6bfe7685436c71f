package exec

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
)

// wildcardSort returns the sort to ask of wildcard index idx's view of
// field ({$_path: 1, field: 1}) for the query's sort, or nil when the view
// cannot provide it. As MongoDB, a wildcard index provides a sort only on
// the field whose predicate it answers (every matching document then has
// an entry, and only values within the bounds are scanned) and only when
// that field is never an array (relaydb knows multikeyness per index, not
// per path, so any array anywhere disables it): one entry per document, in
// value order. $_path is bound to one value, so sorting on it first
// changes nothing.
func wildcardSort(idx *catalog.Index, field string, sort bson.D) bson.D {
	if len(sort) != 1 || sort[0].Key != field || idx.Multikey {
		return nil
	}
	return bson.D{{Key: "$_path", Value: sort[0].Value}, sort[0]}
}

// uncoverSort marks p as not providing the query's sort when the index
// cannot provide it under the query's collation (forIndex dropped the
// sort from iin): a plan asked for no sort reports it "covered".
func uncoverSort(p *Plan, in, iin planInput) *Plan {
	if p != nil && len(in.sort) > 0 && len(iin.sort) == 0 {
		p.SortCovered = false
	}
	return p
}
