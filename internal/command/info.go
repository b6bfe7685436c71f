package command

import (
	"os"
	"runtime"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command/request"
)

// The commands that report facts about the process and answer the same
// whatever the request holds: their structs take any field (Rest), as
// mongod ignores what these commands do not read.

func ping(*Ctx, *request.Ping) (bson.D, error) { return bson.D{}, nil }

func buildInfo(c *Ctx, _ *request.BuildInfo) (bson.D, error) {
	return BuildInfo(c.D.info.Version, c.D.info.GitCommit, bson.A{"pebble"}, nil), nil
}

func hostInfo(*Ctx, *request.HostInfo) (bson.D, error) { return HostInfo(), nil }

// BuildInfo is the buildInfo reply of a relaydb process (a data node or a
// router): MongoDB 7.0's version array, so drivers and shells pick 7.0's
// behaviour, and relaydb's own facts under "relaydb" (plus extra).
func BuildInfo(version, gitCommit string, storageEngines bson.A, extra bson.D) bson.D {
	own := append(bson.D{{Key: "goVersion", Value: runtime.Version()}}, extra...)
	return bson.D{
		{Key: "version", Value: version},
		{Key: "gitVersion", Value: gitCommit},
		{Key: "versionArray", Value: bson.A{int32(7), int32(0), int32(0), int32(0)}},
		{Key: "bits", Value: int32(64)},
		{Key: "debug", Value: false},
		{Key: "maxBsonObjectSize", Value: int32(maxBSONSize)},
		{Key: "storageEngines", Value: storageEngines},
		{Key: "javascriptEngine", Value: "none"},
		{Key: "relaydb", Value: own},
	}
}

// HostInfo is the hostInfo reply: facts about this host.
func HostInfo() bson.D {
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
	}
}

func whatsMyURI(c *Ctx, _ *request.WhatsMyURI) (bson.D, error) {
	return bson.D{{Key: "you", Value: c.Conn.Remote}}, nil
}

func connectionStatus(c *Ctx, p *request.ConnectionStatus) (bson.D, error) {
	info := c.authInfo()
	if wantsPrivileges(p.Rest) {
		info = append(info, bson.E{Key: "authenticatedUserPrivileges", Value: c.userPrivilegesBSON()})
	}
	return bson.D{{Key: "authInfo", Value: info}}, nil
}

func getCmdLineOpts(*Ctx, *request.GetCmdLineOpts) (bson.D, error) { return CmdLineOpts(), nil }

// getLog returns no lines (startupWarnings and global are empty).
func getLog(*Ctx, *request.GetLog) (bson.D, error) {
	return bson.D{{Key: "totalLinesWritten", Value: int32(0)}, {Key: "log", Value: bson.A{}}}, nil
}

func getFreeMonitoringStatus(*Ctx, *request.GetFreeMonitoringStatus) (bson.D, error) {
	return bson.D{{Key: "state", Value: "disabled"}}, nil
}
