package command

import (
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/cmdspec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// checkCollation accepts only the simple (binary) collation.
// TODO(#2): locale-aware collations.
func checkCollation(c cmdspec.Collation) error {
	if !c.Set {
		return nil
	}
	if loc, _ := bsonx.Get(c.Doc, "locale"); loc == "simple" || len(c.Doc) == 0 {
		return nil
	}
	return mongoerr.New(mongoerr.NotImplemented, "relaydb supports only the simple collation; got %v", c.Doc)
}
