package applier

import (
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/catalog/catalogtest"
	"github.com/relaydb/relaydb/internal/oplog"
)

// applyBatch is ApplyBatch with the default logger, for tests.
func applyBatch(c *catalog.Catalog, entries []*oplog.Entry) error {
	_, err := ApplyBatch(c, entries, nil)
	return err
}

// Shared setup helpers (catalogtest).
var (
	d          = catalogtest.D
	openMem    = catalogtest.OpenMem
	mustColl   = catalogtest.Coll
	spec       = catalogtest.Spec
	mustInsert = catalogtest.Insert
	mustIndex  = catalogtest.Index
	live       = catalogtest.Live
	drain      = catalogtest.Drain
	mustVerify = catalogtest.Verify
)
