package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
	"github.com/relaydb/relaydb/internal/exec"
)

// ListIndexes is the listIndexes command.
type ListIndexes struct {
	cmdspec.Cmd           `cmd:"listIndexes" roles:"primary,secondary,router"`
	Collection            cmdspec.CollName `cmd:",command"`
	Cursor                *bson.D          `cmd:"cursor"`
	IncludeBuildUUIDs     any              `cmd:"includeBuildUUIDs"`
	IncludeIndexBuildInfo any              `cmd:"includeIndexBuildInfo"`
}

func listIndexes(c *Ctx, p *ListIndexes) (bson.D, error) {
	coll := string(p.Collection)
	col, err := c.collection(coll)
	if err != nil {
		return nil, err
	}
	var specs []bson.D
	for _, idx := range col.Indexes() {
		specs = append(specs, idx.Spec)
	}
	n, err := cursorBatchSize(p.Cursor)
	if err != nil {
		return nil, err
	}
	return c.firstBatch(exec.NewCursor(c.DB+".$cmd.listIndexes."+coll, exec.Docs(specs)), n, false)
}
