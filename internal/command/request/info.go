package request

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
)

// Ping is the ping command.
type Ping struct {
	cmdspec.Cmd `cmd:"ping" roles:"primary,secondary,router,unauthenticated"`
	Value       any    `cmd:",command"`
	Rest        bson.D `cmd:",inline"`
}

// BuildInfo is the buildInfo command.
type BuildInfo struct {
	cmdspec.Cmd `cmd:"buildInfo" roles:"primary,secondary,router,unauthenticated"`
	Value       any    `cmd:",command"`
	Rest        bson.D `cmd:",inline"`
}

// HostInfo is the hostInfo command.
type HostInfo struct {
	cmdspec.Cmd `cmd:"hostInfo" roles:"primary,secondary,router"`
	Value       any    `cmd:",command"`
	Rest        bson.D `cmd:",inline"`
}

// WhatsMyURI is the whatsmyuri command.
type WhatsMyURI struct {
	cmdspec.Cmd `cmd:"whatsmyuri" roles:"primary,secondary,router,unauthenticated"`
	Value       any    `cmd:",command"`
	Rest        bson.D `cmd:",inline"`
}

// ConnectionStatus is the connectionStatus command.
type ConnectionStatus struct {
	cmdspec.Cmd `cmd:"connectionStatus" roles:"primary,secondary,router,unauthenticated"`
	Value       any    `cmd:",command"`
	Rest        bson.D `cmd:",inline"`
}

// GetCmdLineOpts is the getCmdLineOpts command.
type GetCmdLineOpts struct {
	cmdspec.Cmd `cmd:"getCmdLineOpts" roles:"primary,secondary,router"`
	Value       any    `cmd:",command"`
	Rest        bson.D `cmd:",inline"`
}

// GetLog is the getLog command.
type GetLog struct {
	cmdspec.Cmd `cmd:"getLog" roles:"primary,secondary,router"`
	Value       any    `cmd:",command"`
	Rest        bson.D `cmd:",inline"`
}

// GetFreeMonitoringStatus is the getFreeMonitoringStatus command.
type GetFreeMonitoringStatus struct {
	cmdspec.Cmd `cmd:"getFreeMonitoringStatus" roles:"primary,secondary,router"`
	Value       any    `cmd:",command"`
	Rest        bson.D `cmd:",inline"`
}
