package request

import "github.com/relaydb/relaydb/internal/cmdspec"

// GetUserCacheGeneration is MongoDB's internal _getUserCacheGeneration: a
// config server's generation of its users and roles, which routers poll
// to know when to empty their user caches ({cacheGeneration: ObjectId}).
type GetUserCacheGeneration struct {
	cmdspec.Cmd `cmd:"_getUserCacheGeneration" roles:"primary,secondary"`
	Ignored     any `cmd:",command"`
}
