package command

import (
	"github.com/relaydb/relaydb/internal/cmdspec"
	"github.com/relaydb/relaydb/internal/collation"
	"github.com/relaydb/relaydb/internal/exec"
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
