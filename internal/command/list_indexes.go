package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/exec"
)

func listIndexes(c *Ctx, p *request.ListIndexes) (bson.D, error) {
	coll := string(p.Collection)
	col, err := c.collection(coll)
	if err != nil {
		return nil, err
	}
	if err := c.refuseView(coll); err != nil {
		return nil, err
	}
	var specs []bson.D
	for _, idx := range col.Indexes() {
		specs = append(specs, listIndexSpec(col, idx))
	}
	n, err := cursorBatchSize(p.Cursor)
	if err != nil {
		return nil, err
	}
	return c.firstBatch(exec.NewCursor(c.DB+".$cmd.listIndexes."+coll, exec.Docs(specs)), n, false)
}
