package command

import (
	"os"
	"runtime"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

func init() {
	register(&Command{Name: "ping", Help: "answers ok", Handler: func(*Ctx) (bson.D, error) { return bson.D{}, nil }})
	register(&Command{Name: "buildInfo", Help: "version and build facts", Handler: buildInfoCmd}, "buildinfo")
	register(&Command{Name: "hostInfo", Help: "facts about the host", Handler: hostInfoCmd})
	register(&Command{Name: "whatsmyuri", Help: "the client's address as the server sees it", Handler: func(c *Ctx) (bson.D, error) {
		return bson.D{{Key: "you", Value: c.Conn.Remote}}, nil
	}})
	register(&Command{Name: "connectionStatus", Help: "authentication state of this connection", Handler: connectionStatusCmd})
	register(&Command{Name: "getParameter", Help: "reads server parameters", AdminOnly: true, Handler: getParameterCmd})
	register(&Command{Name: "setParameter", Help: "sets server parameters", AdminOnly: true, Handler: setParameterCmd})
	register(&Command{Name: "getCmdLineOpts", Help: "the process's command line", AdminOnly: true, Handler: func(c *Ctx) (bson.D, error) {
		argv := bson.A{}
		for _, a := range os.Args {
			argv = append(argv, a)
		}
		return bson.D{{Key: "argv", Value: argv}, {Key: "parsed", Value: bson.D{}}}, nil
	}})
	register(&Command{Name: "listCommands", Help: "lists every command", Handler: listCommandsCmd})
	register(&Command{Name: "getLog", Help: "recent log lines (startupWarnings only)", AdminOnly: true, Handler: func(c *Ctx) (bson.D, error) {
		return bson.D{{Key: "totalLinesWritten", Value: int32(0)}, {Key: "log", Value: bson.A{}}}, nil
	}})
	register(&Command{Name: "shutdown", Help: "shuts the server down gracefully", AdminOnly: true, Handler: shutdownCmd})
	register(&Command{Name: "getFreeMonitoringStatus", Help: "always disabled", AdminOnly: true, Handler: func(*Ctx) (bson.D, error) {
		return bson.D{{Key: "state", Value: "disabled"}}, nil
	}})
}

func buildInfoCmd(c *Ctx) (bson.D, error) {
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

func hostInfoCmd(c *Ctx) (bson.D, error) {
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

func connectionStatusCmd(c *Ctx) (bson.D, error) {
	return bson.D{{Key: "authInfo", Value: bson.D{
		{Key: "authenticatedUsers", Value: bson.A{}},
		{Key: "authenticatedUserRoles", Value: bson.A{}},
	}}}, nil
}

// parameters are the server parameters getParameter reports.
func parameters(c *Ctx) bson.D {
	return append(bson.D{
		{Key: "ttlMonitorSleepSecs", Value: int32(c.D.eng.Catalog().TTLInterval() / time.Second)},
		{Key: "featureCompatibilityVersion", Value: bson.D{{Key: "version", Value: "7.0"}}},
		{Key: "maxBSONDepth", Value: int32(100)},

		{Key: "transactionLifetimeLimitSeconds", Value: int32(60)},
		{Key: "authenticationMechanisms", Value: bson.A{}},
		{Key: "requireApiVersion", Value: false},
	}, agg.Parameters()...)
}

func getParameterCmd(c *Ctx) (bson.D, error) {
	all := parameters(c)
	sel := c.Cmd[0].Value
	if s, ok := sel.(string); ok && s == "*" {
		return all, nil
	}
	if d, ok := sel.(bson.D); ok {
		for _, e := range d {
			if e.Key == "allParameters" {
				return all, nil
			}
		}
	}
	out := bson.D{}
	for _, e := range c.Cmd[1:] {
		for _, p := range all {
			if p.Key == e.Key {
				out = append(out, p)
			}
		}
	}
	if len(out) == 0 {
		return nil, mongoerr.New(mongoerr.InvalidOptions, "no option found to get")
	}
	return out, nil
}

// setParameterCmd applies the parameters relaydb supports at runtime and
// refuses the rest, as mongod refuses unknown parameters.
func setParameterCmd(c *Ctx) (bson.D, error) {
	was := bson.D{}
	for _, e := range c.Cmd[1:] {
		if genericFields.get(e.Key) {
			continue
		}
		switch e.Key {
		case "ttlMonitorSleepSecs":
			n, ok := bsonx.AsInt64(e.Value)
			if !ok || n <= 0 {
				return nil, mongoerr.New(mongoerr.BadValue, "ttlMonitorSleepSecs must be a positive integer")
			}
			cat := c.D.eng.Catalog()
			was = append(was, bson.E{Key: e.Key, Value: int32(cat.TTLInterval() / time.Second)})
			cat.SetTTLInterval(time.Duration(n) * time.Second)
		default:
			old, found, err := agg.SetParameter(e.Key, e.Value)
			if !found {
				return nil, mongoerr.New(mongoerr.InvalidOptions, "attempted to set unrecognized parameter [%s], use help:true to see options", e.Key)
			}
			if err != nil {
				return nil, err
			}
			was = append(was, bson.E{Key: e.Key, Value: old})
		}
	}
	if len(was) == 0 {
		return nil, mongoerr.New(mongoerr.InvalidOptions, "no option found to set, use help:true to see options")
	}
	return bson.D{{Key: "was", Value: was}}, nil
}

func listCommandsCmd(c *Ctx) (bson.D, error) {
	cmds := bson.D{}
	for _, n := range Names() {
		cmd := registry[n]
		cmds = append(cmds, bson.E{Key: n, Value: bson.D{{Key: "help", Value: cmd.Help}, {Key: "adminOnly", Value: cmd.AdminOnly}}})
	}
	return bson.D{{Key: "commands", Value: cmds}}, nil
}

func shutdownCmd(c *Ctx) (bson.D, error) {
	if c.D.info.Shutdown == nil {
		return nil, mongoerr.New(mongoerr.IllegalOperation, "shutdown is not available")
	}
	c.D.log.Info("shutdown command received", "conn", c.Conn.ID)
	go c.D.info.Shutdown()
	return bson.D{}, nil
}
