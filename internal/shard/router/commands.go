package router

import (
	"os"
	"syscall"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/command"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// processID identifies this router in topologyVersion.
var processID = bson.NewObjectID()

type handler struct {
	fn        func(c *call) (bson.D, error)
	adminOnly bool
}

// localCommands are answered by the router itself; everything else is
// forwarded (forward.go). The table below is sorted by name; a file that
// owns a group of commands may add its own in an init func (the map
// exists before any init runs).
var localCommands = map[string]handler{}

func init() {
	for name, h := range map[string]handler{
		"addShard":           {fn: addShard, adminOnly: true},
		"addshard":           {fn: addShard, adminOnly: true},
		"buildInfo":          {fn: buildInfo},
		"buildinfo":          {fn: buildInfo},
		"enableSharding":     {fn: enableSharding, adminOnly: true},
		"enablesharding":     {fn: enableSharding, adminOnly: true},
		"endSessions":        {fn: noop},
		"configureFailPoint": {fn: configureFailPoint, adminOnly: true},
		"connectionStatus":   {fn: connectionStatus},
		"flushRouterConfig":  {fn: flushRouterConfig, adminOnly: true},
		"getCmdLineOpts":     {fn: getCmdLineOpts, adminOnly: true},
		"getLog":             {fn: getLog, adminOnly: true},
		"hostInfo":           {fn: hostInfo},
		"getParameter":       {fn: getParameter, adminOnly: true},
		"hello":              {fn: hello},
		"isMaster":           {fn: hello},
		"isdbgrid":           {fn: isdbgrid},
		"ismaster":           {fn: hello},
		"listDatabases":      {fn: listDatabases, adminOnly: true},
		"listShards":         {fn: listShards, adminOnly: true},
		"listshards":         {fn: listShards, adminOnly: true},
		"ping":               {fn: noop},
		"refreshSessions":    {fn: noop},
		"serverStatus":       {fn: serverStatus},
		"shardCollection":    {fn: shardCollection, adminOnly: true},
		"shardcollection":    {fn: shardCollection, adminOnly: true},
		"shutdown":           {fn: shutdown, adminOnly: true},
		"split":              {fn: split, adminOnly: true},
		"splitChunk":         {fn: splitChunk},
		"whatsmyuri":         {fn: whatsMyURI},
	} {
		localCommands[name] = h
	}
}

func noop(*call) (bson.D, error) { return bson.D{}, nil }

// hello answers as mongos: a writable primary, msg "isdbgrid", no setName.
func hello(c *call) (bson.D, error) {
	c.awaitHello()
	c.recordClient()
	key := "isWritablePrimary"
	if c.name != "hello" {
		key = "ismaster"
	}
	reply := bson.D{
		{Key: key, Value: true},
		{Key: "msg", Value: "isdbgrid"},
		{Key: "topologyVersion", Value: bson.D{{Key: "processId", Value: processID}, {Key: "counter", Value: int64(0)}}},
	}
	if v, ok := bsonx.Get(c.cmd, "helloOk"); ok {
		if b, _ := v.(bool); b {
			reply = append(reply, bson.E{Key: "helloOk", Value: true})
		}
	}
	reply = append(reply, command.HelloLimits(c.conn.ID)...)
	reply = append(reply, c.helloAuth()...) // auth_sasl.go
	if comp := negotiateCompression(c.cmd); comp != nil {
		reply = append(reply, bson.E{Key: "compression", Value: comp})
	}
	return reply, nil
}

// recordClient keeps the client's application name (failCommand's
// appName filter) from the hello that carries client metadata.
func (c *call) recordClient() {
	v, ok := bsonx.Get(c.cmd, "client")
	if !ok {
		return
	}
	d, _ := v.(bson.D)
	app, _ := bsonx.Get(d, "application")
	ad, _ := app.(bson.D)
	name, _ := bsonx.Get(ad, "name")
	if s, _ := name.(string); s != "" {
		c.r.appNames.Store(c.conn, s)
	}
}

// awaitHello implements awaitable hello (topologyVersion +
// maxAwaitTimeMS): a router's topology never changes, so it waits the
// whole time, or until shutdown, as a standalone does.
func (c *call) awaitHello() {
	_, hasTV := bsonx.Get(c.cmd, "topologyVersion")
	v, ok := bsonx.Get(c.cmd, "maxAwaitTimeMS")
	ms, _ := bsonx.AsInt64(v)
	if !hasTV || !ok || ms <= 0 {
		return
	}
	t := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
	case <-c.r.done:
	}
}

// negotiateCompression returns the offered compressors relaydb supports,
// in the client's order, or nil when none were offered.
func negotiateCompression(cmd bson.D) bson.A {
	v, ok := bsonx.Get(cmd, "compression")
	if !ok {
		return nil
	}
	offered, _ := v.(bson.A)
	out := bson.A{}
	for _, o := range offered {
		if s, _ := o.(string); s == "snappy" || s == "zlib" || s == "zstd" {
			out = append(out, s)
		}
	}
	return out
}

func isdbgrid(*call) (bson.D, error) {
	host, _ := os.Hostname()
	return bson.D{{Key: "isdbgrid", Value: int32(1)}, {Key: "hostname", Value: host}}, nil
}

// The commands shells ask on connecting, answered as mongos does.

func connectionStatus(c *call) (bson.D, error) {
	return bson.D{{Key: "authInfo", Value: c.authInfo()}}, nil // auth_sasl.go
}

func getCmdLineOpts(*call) (bson.D, error) { return command.CmdLineOpts(), nil }

// getLog returns no lines (startupWarnings and global are empty).
func getLog(*call) (bson.D, error) {
	return bson.D{{Key: "totalLinesWritten", Value: int32(0)}, {Key: "log", Value: bson.A{}}}, nil
}

func hostInfo(*call) (bson.D, error) { return command.HostInfo(), nil }

func whatsMyURI(c *call) (bson.D, error) {
	return bson.D{{Key: "you", Value: c.conn.Remote}}, nil
}

func buildInfo(c *call) (bson.D, error) {
	return command.BuildInfo(c.r.opts.Version, c.r.opts.GitCommit, bson.A{}, bson.D{{Key: "role", Value: "router"}}), nil
}

// routerParameters are what getParameter reports on a router.
func routerParameters() bson.D {
	return bson.D{
		{Key: "featureCompatibilityVersion", Value: bson.D{{Key: "version", Value: "7.0"}}},
		{Key: "maxBSONDepth", Value: int32(100)},
		{Key: "authenticationMechanisms", Value: bson.A{}},
		{Key: "requireApiVersion", Value: false},
		{Key: "enableTestCommands", Value: true}, // configureFailPoint is always on
	}
}

func getParameter(c *call) (bson.D, error) {
	all := c.r.parameters() // user_cache_gen.go
	if s, _ := c.cmd[0].Value.(string); s == "*" {
		return all, nil
	}
	if d, ok := c.cmd[0].Value.(bson.D); ok {
		if _, ok := bsonx.Get(d, "allParameters"); ok {
			return all, nil
		}
	}
	out := bson.D{}
	for _, e := range c.cmd[1:] {
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

func serverStatus(c *call) (bson.D, error) {
	host, _ := os.Hostname()
	up := time.Since(c.r.start)
	s := &c.r.stats
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return append(bson.D{
		{Key: "host", Value: host},
		{Key: "version", Value: c.r.opts.Version},
		{Key: "process", Value: "mongos"},
		{Key: "pid", Value: int64(os.Getpid())},
		{Key: "uptime", Value: up.Seconds()},
		{Key: "uptimeMillis", Value: up.Milliseconds()},
		{Key: "localTime", Value: bson.NewDateTimeFromTime(time.Now())},
		{Key: "connections", Value: bson.D{
			{Key: "current", Value: int32(s.connCurrent.Load())},
			{Key: "available", Value: int32(1000000 - s.connCurrent.Load())},
			{Key: "totalCreated", Value: int32(s.connTotal.Load())},
		}},
		{Key: "opcounters", Value: bson.D{{Key: "command", Value: s.commands.Load()}}},
		{Key: "extra_info", Value: bson.D{
			{Key: "note", Value: "fields vary by platform"},
			{Key: "user_time_us", Value: ru.Utime.Sec*1e6 + ru.Utime.Usec},
			{Key: "system_time_us", Value: ru.Stime.Sec*1e6 + ru.Stime.Usec},
		}},
		{Key: "sharding", Value: bson.D{{Key: "configsvrConnectionString", Value: c.r.opts.ConfigDB}}},
		{Key: "relaydb", Value: bson.D{
			{Key: "role", Value: "router"},
			{Key: "forwarded", Value: s.forwarded.Load()},
			{Key: "failed", Value: s.failed.Load()},
			{Key: "openCursors", Value: int64(c.r.cursors.len())},
		}},
	}, command.AllowlistStatus(c.r.allow.m)...), nil
}

func shutdown(c *call) (bson.D, error) {
	if c.r.opts.Shutdown == nil {
		return nil, mongoerr.New(mongoerr.IllegalOperation, "shutdown is not available")
	}
	c.r.opts.Shutdown()
	return bson.D{}, nil
}
