package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
	"github.com/relaydb/relaydb/internal/command/request"
)

func insert(c *Ctx, p *request.Insert) (bson.D, error) {
	if ts := c.timeseriesOf(string(p.Collection)); ts != nil {
		wc, err := c.writeConcern()
		if err != nil {
			return nil, err
		}
		ordered, err := c.ordered(p.Ordered)
		if err != nil {
			return nil, err
		}
		c.D.metrics.opcounters.insert.Add(int64(len(p.Documents)))
		return insertTimeseries(c, string(p.Collection), ts, p.Documents, ordered, wc), nil
	}
	coll, wc, err := c.writeTarget(p.Collection, len(p.Documents))
	if err != nil {
		return nil, err
	}
	ordered, err := c.ordered(p.Ordered)
	if err != nil {
		return nil, err
	}
	retry, err := c.retry()
	if err != nil {
		return nil, err
	}
	bypass, err := cmdspec.Bool("insert.bypassDocumentValidation", p.BypassDocumentValidation)
	if err != nil {
		return nil, err
	}
	res := c.D.eng.InsertBypass(c.DB, coll, p.Documents, ordered, retry, bypass)
	c.D.metrics.opcounters.insert.Add(int64(len(p.Documents)))
	return c.writeReply(wc, res, false), nil
}
