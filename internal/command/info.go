package command

import (
	"os"
	"runtime"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
)

// The commands that report facts about the process and answer the same
// whatever the request holds: their structs take any field (Rest), as
// mongod ignores what these commands do not read.

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

func ping(*Ctx, *Ping) (bson.D, error) { return bson.D{}, nil }

func buildInfo(c *Ctx, _ *BuildInfo) (bson.D, error) {
	return bson.D{
		{Key: "version", Value: c.D.info.Version},
		{Key: "gitVersion", Value: c.D.info.GitCommit},
		{Key: "versionArray", Value: bson.A{int32(7), int32(0), int32(0), int32(0)}},
		{Key: "bits", Value: int32(64)},
		{Key: "debug", Value: false},
		{Key: "maxBsonObjectSize", Value: int32(maxBSONSize)},
		{Key: "storageEngines", Value: bson.A{"pebble"}},
		{Key: "javascriptEngine", Value: "none"},
		{Key: "relaydb", Value: bson.D{{Key: "goVersion", Value: runtime.Version()}}},
	}, nil
}

func hostInfo(*Ctx, *HostInfo) (bson.D, error) {
	host, _ := os.Hostname()
	return bson.D{
		{Key: "system", Value: bson.D{
			{Key: "currentTime", Value: bson.NewDateTimeFromTime(time.Now())},
			{Key: "hostname", Value: host},
			{Key: "cpuAddrSize", Value: int32(64)},
			{Key: "numCores", Value: int32(runtime.NumCPU())},
			{Key: "cpuArch", Value: runtime.GOARCH},
		}},
		{Key: "os", Value: bson.D{{Key: "type", Value: runtime.GOOS}}},
		{Key: "extra", Value: bson.D{}},
	}, nil
}

func whatsMyURI(c *Ctx, _ *WhatsMyURI) (bson.D, error) {
	return bson.D{{Key: "you", Value: c.Conn.Remote}}, nil
}

func connectionStatus(*Ctx, *ConnectionStatus) (bson.D, error) {
	return bson.D{{Key: "authInfo", Value: bson.D{
		{Key: "authenticatedUsers", Value: bson.A{}},
		{Key: "authenticatedUserRoles", Value: bson.A{}},
	}}}, nil
}

func getCmdLineOpts(*Ctx, *GetCmdLineOpts) (bson.D, error) {
	argv := bson.A{}
	for _, a := range os.Args {
		argv = append(argv, a)
	}
	return bson.D{{Key: "argv", Value: argv}, {Key: "parsed", Value: bson.D{}}}, nil
}

// getLog returns no lines (startupWarnings and global are empty).
func getLog(*Ctx, *GetLog) (bson.D, error) {
	return bson.D{{Key: "totalLinesWritten", Value: int32(0)}, {Key: "log", Value: bson.A{}}}, nil
}

func getFreeMonitoringStatus(*Ctx, *GetFreeMonitoringStatus) (bson.D, error) {
	return bson.D{{Key: "state", Value: "disabled"}}, nil
}
