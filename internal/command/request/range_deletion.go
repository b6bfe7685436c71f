package request

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
)

// CleanupOrphaned is MongoDB 7's cleanupOrphaned, run on a shard's
// primary: it waits until no range deletion task of the namespace
// remains (bounded by maxTimeMS); it schedules nothing. Its deprecated
// startingFromKey and secondaryThrottle are accepted and ignored, as in
// MongoDB 7. It writes nothing, so it is not a write command; the handler
// refuses a secondary (NotWritablePrimary) as mongod does.
type CleanupOrphaned struct {
	cmdspec.Cmd       `cmd:"cleanupOrphaned" roles:"primary,secondary"`
	NS                string `cmd:",command"`
	StartingFromKey   any    `cmd:"startingFromKey"`
	SecondaryThrottle any    `cmd:"secondaryThrottle"`
}

// ShardsvrScheduleRangeDeletion is relaydb's internal
// _shardsvrScheduleRangeDeletion: it persists a range deletion task for
// [range.min, range.max) of the namespace in config.rangeDeletions on the
// shard (majority) and returns its id. Migrations schedule their own
// tasks; this command exists for tests and operators (MongoDB has no
// public equivalent). The task is written with majority whatever the
// request's writeConcern, which is then applied as for DDL.
type ShardsvrScheduleRangeDeletion struct {
	cmdspec.Cmd `cmd:"_shardsvrScheduleRangeDeletion" roles:"primary"`
	NS          string `cmd:",command"`
	Range       bson.D `cmd:"range,required"`
	WhenToClean string `cmd:"whenToClean"`
}
