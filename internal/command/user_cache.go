package command

import (
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// The user cache generation (issue #13), as MongoDB's config servers have
// it: an ObjectId that changes whenever admin.system.users or
// admin.system.roles changes (authGen moves: a write here, a replicated
// one, a user command), and on every restart (a new process draws a new
// one), so a router that polls it (_getUserCacheGeneration) knows when
// to empty its user cache. Only config servers answer, as in MongoDB.

// userCacheGen is a dispatcher's generation and the authGen it stands
// for.
type userCacheGen struct {
	sync.Mutex
	authGen uint64
	oid     bson.ObjectID
}

// userCacheGens holds each dispatcher's generation (one per process but
// in tests running several nodes in one process).
var userCacheGens sync.Map // *Dispatcher -> *userCacheGen

// cacheGeneration returns the current generation, drawing a new one when
// authGen moved since the last call.
func (d *Dispatcher) cacheGeneration() bson.ObjectID {
	v, _ := userCacheGens.LoadOrStore(d, &userCacheGen{})
	ug := v.(*userCacheGen)
	g := d.authGen()
	ug.Lock()
	defer ug.Unlock()
	if ug.oid.IsZero() || ug.authGen != g {
		ug.authGen, ug.oid = g, bson.NewObjectID()
	}
	return ug.oid
}

func getUserCacheGeneration(c *Ctx, _ *request.GetUserCacheGeneration) (bson.D, error) {
	if c.D.info.ClusterRole != "configsvr" {
		return nil, mongoerr.New(mongoerr.IllegalOperation, "_getUserCacheGeneration can only be run on config servers")
	}
	return bson.D{{Key: "cacheGeneration", Value: c.D.cacheGeneration()}}, nil
}
