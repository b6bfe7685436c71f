package changestream

import "github.com/relaydb/relaydb/internal/oplog"

// fromMigrate reports an entry a chunk migration wrote (fromMigrate: true:
// the recipient's cloned documents and applied deletes,
// catalog.FromMigrateFields). A router's stream drops them, as MongoDB's:
// the documents only move between shards. The donor's range deletion is
// marked too (catalog.DeleteMigrated).
func fromMigrate(e *oplog.Entry) bool {
	v, _ := lookupField(e.Extra, "fromMigrate").(bool)
	return v
}
