package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/collation"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// A view has a default collation, simple unless create gave one (it does
// not inherit its source's). Reads of the view run its pipeline and
// theirs under it; a read asking for another collation (simple included)
// is OptionNotSupportedOnView (167), as is a view defined on a view of
// another collation. A $lookup, $graphLookup or $unionWith from a view
// needs the pipeline's collation to be the view's (exec.sameViewCollation).
// TODO(#14): a view defined with a $lookup from a view of another
// collation is accepted at create (MongoDB refuses it, 167).

// storedViewCollation is the collation kept in a view's options, nil
// when simple.
func storedViewCollation(opts bson.D) *collation.Spec {
	d, _ := lookupOpt(opts, "collation").(bson.D)
	s, err := collation.Parse(d)
	if err != nil {
		return nil // validated at create
	}
	return s
}

// viewCreateCollation parses create's collation for a view on on and
// checks it against on's when on is a view.
func (c *Ctx) viewCreateCollation(opts bson.D) (*collation.Spec, error) {
	var spec *collation.Spec
	if v := lookupOpt(opts, "collation"); v != nil {
		var err error
		if spec, err = createCollation(v); err != nil {
			return nil, err
		}
	}
	on, _ := lookupOpt(opts, "viewOn").(string)
	return spec, c.checkViewOnCollation(on, spec)
}

// checkViewOnCollation refuses a view of collation spec on a view of
// another collation.
func (c *Ctx) checkViewOnCollation(on string, spec *collation.Spec) error {
	under := c.D.eng.Catalog().Collection(c.DB, on)
	if !isView(under) || collation.Equal(storedViewCollation(under.Options), spec) {
		return nil
	}
	return mongoerr.New(mongoerr.OptionNotSupportedOnView,
		"View %s has a different default collation than the view being created", c.ns(on))
}

// viewReadCollation is the collation a read of def runs under: the
// view's, which the operation may repeat but not override.
func viewReadCollation(def *viewDef, co exec.Collation) (exec.Collation, error) {
	if co.Given && !collation.Equal(co.Spec, def.collation) {
		return co, mongoerr.New(mongoerr.OptionNotSupportedOnView, "Cannot override a view's default collation")
	}
	return exec.Collation{Spec: def.collation, Given: true}, nil
}

// withViewCollation appends spec to a view's stored options (nothing for
// the simple collation).
func withViewCollation(stored bson.D, spec *collation.Spec) bson.D {
	if spec == nil {
		return stored
	}
	return append(stored, bson.E{Key: "collation", Value: spec.Doc()})
}
