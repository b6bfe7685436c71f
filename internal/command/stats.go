package command

import (
	"os"
	"runtime"
	"syscall"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func init() {
	register(&Command{Name: "serverStatus", Help: "process-wide counters", Handler: serverStatusCmd})
	register(&Command{Name: "collStats", Read: true, Help: "a collection's size and index facts", Handler: collStatsCmd, Fields: []string{"scale", "verbose"}})
	register(&Command{Name: "dbStats", Read: true, Help: "a database's size facts", Handler: dbStatsCmd, Fields: []string{"scale", "freeStorage"}})
}

func serverStatusCmd(c *Ctx) (bson.D, error) {
	m := c.D.metrics
	host, _ := os.Hostname()
	up := time.Since(c.D.info.StartTime)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return bson.D{
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
			{Key: "resident", Value: int32(ms.Sys >> 20)},
			{Key: "virtual", Value: int32(ms.Sys >> 20)},
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
		{Key: "relaydb", Value: storageStats(c)},
	}, nil
}

func latencyDoc(l *latencyStat) bson.D {
	return bson.D{{Key: "latency", Value: l.micros.Load()}, {Key: "ops", Value: l.ops.Load()}}
}

func commandCounters() bson.D {
	out := bson.D{}
	for _, n := range Names() {
		cmd := registry[n]
		if calls := cmd.calls.Load(); calls > 0 {
			out = append(out, bson.E{Key: n, Value: bson.D{{Key: "failed", Value: cmd.failed.Load()}, {Key: "total", Value: calls}}})
		}
	}
	return out
}

func collStatsCmd(c *Ctx) (bson.D, error) {
	coll, err := c.collArg()
	if err != nil {
		return nil, err
	}
	col, err := c.collection(coll)
	if err != nil {
		return nil, err
	}
	count, size := col.Count(), col.DataSize()
	avg := int64(0)
	if count > 0 {
		avg = size / count
	}
	sizes := bson.D{}
	for _, idx := range col.Indexes() {
		sizes = append(sizes, bson.E{Key: idx.Name, Value: int64(0)})
	}
	return bson.D{
		{Key: "ns", Value: c.ns(coll)},
		{Key: "size", Value: size},
		{Key: "count", Value: count},
		{Key: "avgObjSize", Value: avg},
		{Key: "storageSize", Value: size},
		{Key: "nindexes", Value: int32(len(col.Indexes()))},
		{Key: "totalIndexSize", Value: int64(0)},
		{Key: "indexSizes", Value: sizes},
		{Key: "scaleFactor", Value: int32(1)},
	}, nil
}

func dbStatsCmd(c *Ctx) (bson.D, error) {
	var objects, size, indexes int64
	cols := c.D.eng.Catalog().Collections(c.DB)
	for _, col := range cols {
		objects += col.Count()
		size += col.DataSize()
		indexes += int64(len(col.Indexes()))
	}
	avg := int64(0)
	if objects > 0 {
		avg = size / objects
	}
	return bson.D{
		{Key: "db", Value: c.DB},
		{Key: "collections", Value: int64(len(cols))},
		{Key: "views", Value: int64(0)},
		{Key: "objects", Value: objects},
		{Key: "avgObjSize", Value: avg},
		{Key: "dataSize", Value: size},
		{Key: "storageSize", Value: size},
		{Key: "indexes", Value: indexes},
		{Key: "indexSize", Value: int64(0)},
		{Key: "totalSize", Value: size},
		{Key: "scaleFactor", Value: int32(1)},
	}, nil
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
