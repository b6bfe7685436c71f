package command

import (
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// The database profiler (levels: profile.go): a profiled database's
// commands are written to its system.profile, a capped collection
// (profileSize, created on first use), in MongoDB's shape: op, ns,
// command, millis, ts, client, appName, allUsers, user, protocol.
//
// Invariants: off by default; an unprofiled process pays one atomic load
// per command; an entry is bounded (a command over profileMaxCommand
// bytes is recorded as $truncated); entries are written only where this
// member accepts writes (a standalone or the primary).
//
// TODO(#14): keysExamined, docsExamined, nreturned, planSummary and
// responseLength (the executor's statistics); profiling on secondaries
// and without replicating the entries (mongod's system.profile is local).

const (
	profileColl       = "system.profile"
	profileSize       = 1 << 20 // mongod's default system.profile size
	profileMaxCommand = 50 << 10
)

// profileStarts are the start times of the profiled commands running.
var profileStarts sync.Map // *Ctx -> time.Time

// profileBegin notes the start of a command of a profiled database.
func profileBegin(ctx *Ctx) {
	if profiler.active.Load() == 0 || internalRequest(ctx) {
		return
	}
	if profileLevel(ctx.DB) > 0 {
		profileStarts.Store(ctx, time.Now())
	}
}

// profileEnd records a command profileBegin noted, when its level (and
// slowms, sampleRate or the filter) selects it.
func profileEnd(ctx *Ctx) {
	v, ok := profileStarts.LoadAndDelete(ctx)
	if !ok {
		return
	}
	millis := time.Since(v.(time.Time)).Milliseconds()
	entry := profileEntry(ctx, millis)
	if !profileSelects(ctx.DB, millis, entry) || strings.HasPrefix(profileNS(ctx), ctx.DB+".system.profile") {
		return
	}
	if ctx.D.repl != nil && ctx.D.repl.CheckWrite(ctx.DB) != nil {
		return
	}
	ctx.writeProfile(entry)
}

func profileLevel(db string) int64 {
	profiler.mu.Lock()
	defer profiler.mu.Unlock()
	return profiler.levels[db]
}

// profileSelects applies the level: 2 records every operation; 1 those
// matching the filter when one is set, else those slower than slowms,
// sampled by sampleRate.
func profileSelects(db string, millis int64, entry bson.D) bool {
	profiler.mu.Lock()
	level := profiler.levels[db]
	f, hasFilter := profiler.filters[db]
	slow, rate := profiler.slowMS, profiler.sampleRate
	profiler.mu.Unlock()
	switch {
	case level == 2:
		return true
	case level != 1:
		return false
	case hasFilter:
		return f.m.Match(entry)
	}
	return millis >= slow && rand.Float64() < rate
}

// profileEntry is the system.profile document of ctx's command.
func profileEntry(ctx *Ctx, millis int64) bson.D {
	cmd := any(ctx.Cmd)
	if b, err := bsonx.Encode(ctx.Cmd); err != nil || len(b) > profileMaxCommand {
		cmd = bson.D{{Key: "$truncated", Value: "command too large to profile"}}
	}
	user := ""
	users := bson.A{}
	for _, u := range ctx.Conn.authUsers() {
		users = append(users, bson.D{{Key: "user", Value: u.user}, {Key: "db", Value: u.db}})
		if user == "" {
			user = u.user + "@" + u.db
		}
	}
	return bson.D{
		{Key: "op", Value: profileOp(ctx.Name)},
		{Key: "ns", Value: profileNS(ctx)},
		{Key: "command", Value: cmd},
		{Key: "millis", Value: int32(millis)},
		{Key: "ts", Value: bson.NewDateTimeFromTime(time.Now())},
		{Key: "client", Value: clientHost(ctx.Conn.Remote)},
		{Key: "appName", Value: ctx.Conn.appName()},
		{Key: "allUsers", Value: users},
		{Key: "user", Value: user},
		{Key: "protocol", Value: "op_msg"},
	}
}

// profileOp is MongoDB's logical operation name of a command.
func profileOp(name string) string {
	switch name {
	case "find":
		return "query"
	case "getMore":
		return "getmore"
	case "insert", "update":
		return name
	case "delete":
		return "remove"
	}
	return "command"
}

// profileNS is the namespace a command names: db.collection, or db.$cmd.
func profileNS(ctx *Ctx) string {
	if ctx.Name == "getMore" {
		if coll, ok := bsonx.Get(ctx.Cmd, "collection"); ok {
			if s, ok := coll.(string); ok {
				return ctx.DB + "." + s
			}
		}
	}
	if s, ok := ctx.Cmd[0].Value.(string); ok && s != "" {
		return ctx.DB + "." + s
	}
	return ctx.DB + ".$cmd"
}

// clientHost is the client's address without its port, as mongod shows.
func clientHost(remote string) string {
	if i := strings.LastIndexByte(remote, ':'); i > 0 {
		return remote[:i]
	}
	return remote
}

// writeProfile inserts entry into the database's system.profile, creating
// it capped first. Failures are dropped: profiling never fails a command.
func (c *Ctx) writeProfile(entry bson.D) {
	cat := c.D.eng.Catalog()
	if cat.Collection(c.DB, profileColl) == nil {
		opts, err := cappedOptions(bson.D{{Key: "capped", Value: true}, {Key: "size", Value: int64(profileSize)}})
		if err != nil {
			return
		}
		if _, err := cat.CreateCollection(c.DB, profileColl, opts); err != nil && cat.Collection(c.DB, profileColl) == nil {
			return
		}
	}
	c.D.eng.Insert(c.DB, profileColl, []bson.D{entry}, true, nil)
}
