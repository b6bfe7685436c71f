package exec

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
)

// compoundWildcardPlan plans a compound wildcard index through its view
// (catalog.CompoundWildcardField): the regular terms take their
// predicates as any index's, the wildcard term the eligible field a
// wildcard index would answer (wildcardField) as {$_path: field} and the
// field's bounds. Without such a field the wildcard term is unbounded, so
// a document may have several entries in the scan: the view is multikey
// (deduplicated). The filter is applied to every fetched document, as for
// any index scan. The scan provides no sort.
// TODO(#14): sorts, $exists plans on the wildcard term, costing.
func compoundWildcardPlan(idx *catalog.Index, preds map[string]*pred, sort bson.D, forced bool) *Plan {
	field := wildcardField(idx.WildcardTerm(), preds)
	view := idx.CompoundWildcardField(field)
	vp := map[string]*pred{}
	for _, k := range view.Key {
		if p := preds[k.Key]; p != nil && k.Key != "$_path" {
			vp[k.Key] = p
		}
	}
	if field != "" {
		vp["$_path"] = &pred{eq: []any{field}}
	} else {
		view.Multikey = true
	}
	p := indexPlan(view, vp, nil, forced)
	if p != nil && len(sort) > 0 {
		p.SortCovered = false
	}
	return p
}
