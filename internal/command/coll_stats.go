package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command/request"
)

func collStats(c *Ctx, p *request.CollStats) (bson.D, error) {
	coll := string(p.Collection)
	col, err := c.collection(coll)
	if err != nil {
		return nil, err
	}
	count, size := col.Count(), col.DataSize()
	avg := int64(0)
	if count > 0 {
		avg = size / count
	}
	sizes := bson.D{}
	for _, idx := range col.Indexes() {
		sizes = append(sizes, bson.E{Key: idx.Name, Value: int64(0)})
	}
	return bson.D{
		{Key: "ns", Value: c.ns(coll)},
		{Key: "size", Value: size},
		{Key: "count", Value: count},
		{Key: "avgObjSize", Value: avg},
		{Key: "storageSize", Value: size},
		{Key: "nindexes", Value: int32(len(col.Indexes()))},
		{Key: "totalIndexSize", Value: int64(0)},
		{Key: "indexSizes", Value: sizes},
		{Key: "scaleFactor", Value: int32(1)},
	}, nil
}
