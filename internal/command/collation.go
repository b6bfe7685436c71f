package command

import (
	"github.com/relaydb/relaydb/internal/cmdspec"
	"github.com/relaydb/relaydb/internal/collation"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// opCollation parses a command's collation option (MongoDB's errors for a
// bad spec); an absent option leaves the collection's default to exec.
func opCollation(c cmdspec.Collation) (exec.Collation, error) {
	if !c.Set {
		return exec.Collation{}, nil
	}
	s, err := collation.Parse(c.Doc)
	return exec.Collation{Spec: s, Given: true}, err
}

// checkCollation validates a collation for a command path that does not
// apply one yet: a valid non-simple collation is NotImplemented there.
// TODO(#14): collations for update, delete, findAndModify, aggregate and
// views; then this goes.
func checkCollation(c cmdspec.Collation) error {
	co, err := opCollation(c)
	if err != nil || co.Spec == nil {
		return err
	}
	return mongoerr.New(mongoerr.NotImplemented, "relaydb supports only the simple collation for this command yet; got %v", c.Doc)
}

// simpleOnly was the refusal of a collation on a view; views check
// collations when they run (viewReadCollation), so it accepts all.
// TODO(#14): drop its call in find.go.
func simpleOnly(exec.Collation) error { return nil }

// createCollation parses create's collation option: the collection's
// default collation, nil when simple.
func createCollation(v any) (*collation.Spec, error) {
	var col cmdspec.Collation
	if err := col.DecodeField("", v); err != nil {
		return nil, err
	}
	co, err := opCollation(col)
	return co.Spec, err
}
