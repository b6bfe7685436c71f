package request

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
)

// ShardsvrMovePrimaryEnterCriticalSection is MongoDB's internal
// _shardsvrMovePrimaryEnterCriticalSection: movePrimary takes the
// database's critical section on its old primary shard, for reason (a
// document naming the operation; entering again with the same reason
// renews the lease and answers alreadyHeld: true). relaydb adds the lease
// (milliseconds): a section its router never releases ends by itself.
// It changes no data (the section lives in memory), so it is not a write.
type ShardsvrMovePrimaryEnterCriticalSection struct {
	cmdspec.Cmd  `cmd:"_shardsvrMovePrimaryEnterCriticalSection" roles:"primary,secondary"`
	DB           string `cmd:",command"`
	Reason       bson.D `cmd:"reason,required"`
	LeaseMillis  *int64 `cmd:"leaseMillis"`
	WriteConcern any    `cmd:"writeConcern"`
}

// ShardsvrMovePrimaryExitCriticalSection is MongoDB's internal
// _shardsvrMovePrimaryExitCriticalSection: releases the section taken
// for reason (a no-op when it is not held for it).
type ShardsvrMovePrimaryExitCriticalSection struct {
	cmdspec.Cmd  `cmd:"_shardsvrMovePrimaryExitCriticalSection" roles:"primary,secondary"`
	DB           string `cmd:",command"`
	Reason       bson.D `cmd:"reason,required"`
	WriteConcern any    `cmd:"writeConcern"`
}
