package command

import (
	"os"
	"runtime"
	"syscall"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command/request"
)

func serverStatus(c *Ctx, _ *request.ServerStatus) (bson.D, error) {
	m := c.D.metrics
	host, _ := os.Hostname()
	up := time.Since(c.D.info.StartTime)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	resident, virtual := procMemMB(&ms) // procmem.go
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	doc := bson.D{
		{Key: "host", Value: host},
		{Key: "version", Value: c.D.info.Version},
		{Key: "process", Value: "relaydb"},
		{Key: "pid", Value: int64(os.Getpid())},
		{Key: "uptime", Value: up.Seconds()},
		{Key: "uptimeMillis", Value: up.Milliseconds()},
		{Key: "uptimeEstimate", Value: int64(up.Seconds())},
		{Key: "localTime", Value: bson.NewDateTimeFromTime(time.Now())},
		{Key: "connections", Value: bson.D{
			{Key: "current", Value: int32(m.current.Load())},
			{Key: "available", Value: int32(1000000 - m.current.Load())},
			{Key: "totalCreated", Value: int32(m.total.Load())},
		}},
		{Key: "opcounters", Value: bson.D{
			{Key: "insert", Value: m.opcounters.insert.Load()},
			{Key: "query", Value: m.opcounters.query.Load()},
			{Key: "update", Value: m.opcounters.update.Load()},
			{Key: "delete", Value: m.opcounters.delete.Load()},
			{Key: "getmore", Value: m.opcounters.getmore.Load()},
			{Key: "command", Value: m.opcounters.command.Load()},
		}},
		{Key: "opLatencies", Value: bson.D{
			{Key: "reads", Value: latencyDoc(&m.latency.reads)},
			{Key: "writes", Value: latencyDoc(&m.latency.writes)},
			{Key: "commands", Value: latencyDoc(&m.latency.commands)},
		}},
		{Key: "mem", Value: bson.D{
			{Key: "bits", Value: int32(64)},
			{Key: "resident", Value: resident},
			{Key: "virtual", Value: virtual},
			{Key: "supported", Value: true},
		}},
		{Key: "extra_info", Value: bson.D{
			{Key: "note", Value: "fields vary by platform"},
			{Key: "user_time_us", Value: ru.Utime.Sec*1e6 + ru.Utime.Usec},
			{Key: "system_time_us", Value: ru.Stime.Sec*1e6 + ru.Stime.Usec},
			{Key: "maximum_resident_set_kb", Value: ru.Maxrss},
			{Key: "page_faults", Value: ru.Majflt},
		}},
		{Key: "metrics", Value: bson.D{
			{Key: "cursor", Value: bson.D{{Key: "open", Value: bson.D{{Key: "total", Value: int64(c.D.eng.Cursors().Open())}}}}},
			{Key: "commands", Value: commandCounters()},
		}},
		{Key: "storageEngine", Value: bson.D{{Key: "name", Value: "pebble"}, {Key: "persistent", Value: true}}},
		{Key: "wiredTiger", Value: cacheStatus(c)},
		{Key: "relaydb", Value: storageStats(c)},
	}
	doc = append(doc, c.D.allowlistStatus()...)
	if role := c.D.info.ClusterRole; role != "" {
		doc = append(doc, bson.E{Key: "sharding", Value: bson.D{{Key: "clusterRole", Value: role}}})
	}
	return doc, nil
}

func latencyDoc(l *latencyStat) bson.D {
	return bson.D{{Key: "latency", Value: l.micros.Load()}, {Key: "ops", Value: l.ops.Load()}}
}

func commandCounters() bson.D {
	out := bson.D{}
	for _, cmd := range table {
		n := cmd.Name
		if calls := cmd.calls.Load(); calls > 0 {
			out = append(out, bson.E{Key: n, Value: bson.D{{Key: "failed", Value: cmd.failed.Load()}, {Key: "total", Value: calls}}})
		}
	}
	return out
}

// cacheStatus is serverStatus.wiredTiger.cache as MongoDB names it: the
// configured budget and the bytes held by Pebble's block cache plus the
// document cache (the two caches that share relaydb's cache budget).
func cacheStatus(c *Ctx) bson.D {
	cs := c.D.eng.Catalog().Engine().CacheStats()
	return bson.D{{Key: "cache", Value: bson.D{
		{Key: "maximum bytes configured", Value: cs.BlockMax + cs.DocMax},
		{Key: "bytes currently in the cache", Value: cs.BlockUsed + cs.DocUsed},
		{Key: "relaydb block cache bytes configured", Value: cs.BlockMax},
		{Key: "relaydb block cache bytes", Value: cs.BlockUsed},
		{Key: "relaydb document cache bytes configured", Value: cs.DocMax},
		{Key: "relaydb document cache bytes", Value: cs.DocUsed},
	}}}
}

// storageStats reports the commit pipeline: batches committed, how far
// they are durable, and how many WAL syncs that took (group commit shares
// one sync among all waiting j:true writers).
func storageStats(c *Ctx) bson.D {
	m := c.D.eng.Catalog().Engine().Metrics()
	return bson.D{{Key: "storage", Value: bson.D{
		{Key: "committedBatches", Value: int64(m.Committed)},
		{Key: "durableBatches", Value: int64(m.Durable)},
		{Key: "walSyncs", Value: m.Syncs},
		{Key: "diskBytes", Value: int64(m.DiskBytes)},
	}}}
}
