package router

import (
	"github.com/relaydb/relaydb/internal/agg"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// mergeOnChecked is mongos's check of an explicit $merge 'on' before a
// router-run $merge writes anything: the fields of a unique, non-partial
// index of the target (listIndexes on its shard), or only _id (the _id
// index; also for a target that does not exist yet). Otherwise 51190, as
// mongos answers (a shard answers 51183 for the same check).
func (r *Router) mergeOnChecked(c *call, m *agg.MergeSpec) error {
	if m.OnDefaulted || exec.IsIDOnly(m.On) {
		return nil
	}
	ok, err := r.hasUniqueIndexOn(c, m)
	if err != nil {
		return err
	}
	if !ok {
		return mongoerr.New(mongoerr.MergeNoUniqueIndexRouter, "Cannot find index to verify that join fields will be unique")
	}
	return nil
}
