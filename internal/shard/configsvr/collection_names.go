package configsvr

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// ShardedCollectionNames lists the namespaces config.collections holds as
// sharded (not dropped, not unsplittable), by _id, read with readConcern
// majority.
func (c *Catalog) ShardedCollectionNames(ctx context.Context) ([]string, error) {
	docs, err := c.find(ctx, CollectionsColl, bson.D{
		{Key: "dropped", Value: bson.D{{Key: "$ne", Value: true}}},
		{Key: "unsplittable", Value: bson.D{{Key: "$ne", Value: true}}},
	})
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(docs))
	for _, d := range docs {
		ns, ok := field[string](d, "_id")
		if !ok {
			return nil, fmt.Errorf("configsvr: config.collections entry without a string _id: %v", d)
		}
		out = append(out, ns)
	}
	return out, nil
}
