package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command/request"
)

func dbStats(c *Ctx, _ *request.DBStats) (bson.D, error) {
	var objects, size, indexes int64
	cols := c.D.eng.Catalog().Collections(c.DB)
	for _, col := range cols {
		objects += col.Count()
		size += col.DataSize()
		indexes += int64(len(col.Indexes()))
	}
	avg := int64(0)
	if objects > 0 {
		avg = size / objects
	}
	return bson.D{
		{Key: "db", Value: c.DB},
		{Key: "collections", Value: int64(len(cols))},
		{Key: "views", Value: int64(0)},
		{Key: "objects", Value: objects},
		{Key: "avgObjSize", Value: avg},
		{Key: "dataSize", Value: size},
		{Key: "storageSize", Value: size},
		{Key: "indexes", Value: indexes},
		{Key: "indexSize", Value: int64(0)},
		{Key: "totalSize", Value: size},
		{Key: "scaleFactor", Value: int32(1)},
	}, nil
}
