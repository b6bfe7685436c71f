package request

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
)

// ReplSetInitiate is replSetInitiate: {replSetInitiate: <config or nothing>}.
type ReplSetInitiate struct {
	cmdspec.Cmd `cmd:"replSetInitiate" roles:"primary,secondary"`
	Config      any    `cmd:",command"`
	Args        bson.D `cmd:",inline"`
}

// ReplSetGetConfig is replSetGetConfig.
type ReplSetGetConfig struct {
	cmdspec.Cmd `cmd:"replSetGetConfig" roles:"primary,secondary"`
	Value       any    `cmd:",command"`
	Args        bson.D `cmd:",inline"`
}

// ReplSetReconfig is replSetReconfig: {replSetReconfig: <config>, force}.
type ReplSetReconfig struct {
	cmdspec.Cmd `cmd:"replSetReconfig" roles:"primary,secondary"`
	Config      any    `cmd:",command"`
	Args        bson.D `cmd:",inline"`
}

// ReplSetGetStatus is replSetGetStatus.
type ReplSetGetStatus struct {
	cmdspec.Cmd `cmd:"replSetGetStatus" roles:"primary,secondary"`
	Value       any    `cmd:",command"`
	Args        bson.D `cmd:",inline"`
}

// ReplSetStepDown is replSetStepDown: {replSetStepDown: <secs>,
// secondaryCatchUpPeriodSecs, force}.
type ReplSetStepDown struct {
	cmdspec.Cmd `cmd:"replSetStepDown" roles:"primary,secondary"`
	Secs        any    `cmd:",command"`
	Args        bson.D `cmd:",inline"`
}

// ReplSetFreeze is replSetFreeze: {replSetFreeze: <secs>}.
type ReplSetFreeze struct {
	cmdspec.Cmd `cmd:"replSetFreeze" roles:"primary,secondary"`
	Secs        any    `cmd:",command"`
	Args        bson.D `cmd:",inline"`
}

// ReplSetSyncFrom is replSetSyncFrom: {replSetSyncFrom: <host>}.
type ReplSetSyncFrom struct {
	cmdspec.Cmd `cmd:"replSetSyncFrom" roles:"primary,secondary"`
	Host        any    `cmd:",command"`
	Args        bson.D `cmd:",inline"`
}

// ReplSetMaintenance is replSetMaintenance: {replSetMaintenance: <bool>}.
type ReplSetMaintenance struct {
	cmdspec.Cmd `cmd:"replSetMaintenance" roles:"primary,secondary"`
	On          any    `cmd:",command"`
	Args        bson.D `cmd:",inline"`
}

// ReplSetHeartbeat is the member-to-member heartbeat.
type ReplSetHeartbeat struct {
	cmdspec.Cmd `cmd:"replSetHeartbeat" roles:"primary,secondary"`
	Value       any    `cmd:",command"`
	Args        bson.D `cmd:",inline"`
}

// ReplSetRequestVotes is an election's vote request.
type ReplSetRequestVotes struct {
	cmdspec.Cmd `cmd:"replSetRequestVotes" roles:"primary,secondary"`
	Value       any    `cmd:",command"`
	Args        bson.D `cmd:",inline"`
}

// ReplSetUpdatePosition reports downstream members' progress.
type ReplSetUpdatePosition struct {
	cmdspec.Cmd `cmd:"replSetUpdatePosition" roles:"primary,secondary"`
	Value       any    `cmd:",command"`
	Args        bson.D `cmd:",inline"`
}
