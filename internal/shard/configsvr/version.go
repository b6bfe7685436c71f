package configsvr

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// VersionColl is config.version: {_id: 1, clusterId: ObjectId}, the
// cluster's identity, which every shard's shardIdentity repeats.
const VersionColl = "version"

// ClusterID returns config.version's clusterId, creating the document on
// first use (MongoDB's config server creates it when it first becomes
// primary; here the first router to need it does, with a majority write,
// and a router that loses the race reads the winner's).
func (c *Catalog) ClusterID(ctx context.Context) (bson.ObjectID, error) {
	for range 2 {
		docs, err := c.find(ctx, VersionColl, bson.D{{Key: "_id", Value: int32(1)}})
		if err != nil {
			return bson.ObjectID{}, err
		}
		if len(docs) > 0 {
			id, ok := field[bson.ObjectID](docs[0], "clusterId")
			if !ok {
				return bson.ObjectID{}, fmt.Errorf("configsvr: config.version has no clusterId: %v", docs[0])
			}
			return id, nil
		}
		err = c.insert(ctx, VersionColl, bson.D{{Key: "_id", Value: int32(1)}, {Key: "clusterId", Value: bson.NewObjectID()}})
		if err != nil && !mongoerr.Is(err, mongoerr.DuplicateKey) {
			return bson.ObjectID{}, err
		}
	}
	return bson.ObjectID{}, fmt.Errorf("configsvr: config.version not readable after it was written")
}
