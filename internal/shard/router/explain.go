package router

import (
	"os"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/netclient"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// explain through the router, as mongos answers it (ClusterExplain): on a
// sharded collection the explained command goes to the shards its filter
// targets, each wrapped as {explain: <command with that shard's
// shardVersion>, verbosity}, and the replies are combined:
//
//	queryPlanner: {mongosPlannerVersion: 1, winningPlan: {stage, shards: [
//	    {shardName, connectionString, serverInfo, indexFilterSet, <the
//	     shard's queryPlanner fields>}, ...]}}
//	executionStats: {nReturned, executionTimeMillis, totalKeysExamined,
//	    totalDocsExamined, executionStages: {stage, ..., shards: [...]}}
//	    (only when the shards report executionStats)
//	serverInfo, command, ok
//
// stage is SINGLE_SHARD for one shard; for several, SHARD_WRITE for
// update and delete, SHARD_MERGE_SORT for a sorted find, SHARD_MERGE
// otherwise. An aggregate answers {mergeType, splitPipeline, shards:
// {<name>: {host, <the shard's explain>}}}. A shard's failure fails the
// explain with the shard's code ("Explain command on shard ... failed").
// Anything else (an unsharded collection, admin/config/local) is
// forwarded to the primary shard as before.

func init() {
	localCommands["explain"] = handler{fn: explainCmd}
	// {aggregate: ..., explain: true} on a sharded collection is the same
	// explain at verbosity queryPlanner.
	// TODO(#14): fold into shardedAggregate (aggmerge.go), whose own
	// explain refusal this makes unreachable.
	aggregate := shardedCommands["aggregate"]
	shardedCommands["aggregate"] = func(r *Router, c *call, ns string, cm *routing.ChunkManager) (bson.D, error) {
		if !truthy(c.cmd, "explain") {
			return aggregate(r, c, ns, cm)
		}
		inner := withoutField(c.cmd, "explain")
		out, err := r.shardedExplain(&call{r: c.r, conn: c.conn, db: c.db, ctx: c.ctx, name: "explain",
			cmd: bson.D{{Key: "explain", Value: inner}, {Key: "verbosity", Value: "queryPlanner"}}}, ns, cm, inner)
		if err != nil {
			return nil, err
		}
		return append(out, bson.E{Key: "ok", Value: 1.0}), nil
	}
}

// Mongos's stage names (ClusterExplain).
const (
	stageSingleShard    = "SINGLE_SHARD"
	stageShardMerge     = "SHARD_MERGE"
	stageShardMergeSort = "SHARD_MERGE_SORT"
	stageShardWrite     = "SHARD_WRITE"
)

func explainCmd(c *call) (bson.D, error) {
	inner, ok := c.cmd[0].Value.(bson.D)
	if !ok || len(inner) == 0 || c.db == "admin" || c.db == "config" || c.db == "local" {
		return forwardExplain(c)
	}
	coll, ok := inner[0].Value.(string)
	if !ok || coll == "" || !explainable(inner[0].Key) {
		return forwardExplain(c)
	}
	ns := c.db + "." + coll
	cm, err := c.r.catalog.get(c.ctx, ns)
	if err != nil {
		return nil, err
	}
	if cm == nil {
		return forwardExplain(c)
	}
	if txnKey(c.cmd) != "" {
		return nil, mongoerr.New(mongoerr.OperationNotSupportedInTransaction,
			"transactions on sharded collections are not supported by the router yet (explain on %s)", ns)
	}
	return c.r.shardedExplain(c, ns, cm, inner)
}

func explainable(name string) bool {
	switch name {
	case "find", "count", "distinct", "aggregate", "update", "delete", "findAndModify", "findandmodify":
		return true
	}
	return false
}

// forwardExplain sends c to the primary shard as any unsharded command,
// returning the reply's body (the handler adds ok and $clusterTime).
func forwardExplain(c *call) (bson.D, error) {
	reply, err := c.r.forward(c)
	if err != nil {
		return nil, err
	}
	if reply, err = c.r.rerunResolvedView(c, reply); err != nil { // views.go
		return nil, err
	}
	c.r.observeClusterTime(reply)
	if err := netclient.ReplyError(reply); err != nil {
		return nil, err
	}
	out := make(bson.D, 0, len(reply))
	for _, e := range reply {
		switch e.Key {
		case "ok", "$clusterTime", "operationTime":
		default:
			out = append(out, e)
		}
	}
	return out, nil
}

// shardedExplain explains inner on the shards its filter targets.
func (r *Router) shardedExplain(c *call, ns string, cm *routing.ChunkManager, inner bson.D) (bson.D, error) {
	verbosity := "allPlansExecution"
	if v, ok := bsonx.Get(c.cmd, "verbosity"); ok {
		verbosity, _ = v.(string)
	}
	var out bson.D
	if inner[0].Key == "aggregate" {
		var err error
		if out, err = r.explainAggregate(c, ns, cm, inner, verbosity); err != nil {
			return nil, err
		}
	} else {
		replies, millis, err := r.explainOnShards(c, ns, cm, explainFilter(inner), inner, verbosity)
		if err != nil {
			return nil, err
		}
		stage := explainStage(inner, len(replies))
		out = bson.D{{Key: "queryPlanner", Value: plannerInfo(replies, stage, r.shardHosts(c))}}
		if es, ok := execStats(replies, stage, millis); ok {
			out = append(out, bson.E{Key: "executionStats", Value: es})
		}
	}
	return append(out,
		bson.E{Key: "serverInfo", Value: r.serverInfo()},
		bson.E{Key: "command", Value: inner}), nil
}

// explainOnShards sends {explain: cmd with each shard's shardVersion,
// verbosity} to the shards filter targets and returns their replies in
// shard order, or the first shard's failure with its code.
func (r *Router) explainOnShards(c *call, ns string, cm *routing.ChunkManager, filter, cmd bson.D, verbosity string) ([]shardReply, int64, error) {
	start := time.Now()
	replies, _, err := r.readOnShards(c, ns, cm, filter, func(cm *routing.ChunkManager, s string) bson.D {
		return bson.D{{Key: "explain", Value: withVersion(cmd, cm, s)}, {Key: "verbosity", Value: verbosity}}
	})
	if err != nil {
		return nil, 0, err
	}
	slices.SortFunc(replies, func(a, b shardReply) int { return cmpString(a.shard, b.shard) })
	for _, sr := range replies {
		if sr.err != nil {
			me := mongoerr.From(sr.err)
			return nil, 0, mongoerr.New(me.Code, "Explain command on shard %s failed, caused by: %s", sr.shard, me.Msg)
		}
	}
	return replies, time.Since(start).Milliseconds(), nil
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// explainFilter is the filter that targets the explained command's
// shards: find's filter, count's, distinct's and findAndModify's query,
// the first statement's q of an update or delete; nil (every shard) when
// there is none. (An aggregate targets by its leading $match.)
func explainFilter(inner bson.D) bson.D {
	switch inner[0].Key {
	case "find":
		return docField(inner, "filter")
	case "count", "distinct", "findAndModify", "findandmodify":
		return docField(inner, "query")
	case "update", "delete":
		stmts, _ := bsonx.Get(inner, map[string]string{"update": "updates", "delete": "deletes"}[inner[0].Key])
		if arr, _ := stmts.(bson.A); len(arr) > 0 {
			first, _ := arr[0].(bson.D)
			return docField(first, "q")
		}
	}
	return nil
}

// explainStage is mongos's stage for the explained command on n shards.
func explainStage(inner bson.D, n int) string {
	switch {
	case n == 1:
		return stageSingleShard
	case inner[0].Key == "update" || inner[0].Key == "delete":
		return stageShardWrite
	case len(docField(inner, "sort")) > 0:
		return stageShardMergeSort
	}
	return stageShardMerge
}

// serverInfo describes the router, as the serverInfo of an explain.
func (r *Router) serverInfo() bson.D {
	host, _ := os.Hostname()
	return bson.D{{Key: "host", Value: host}, {Key: "version", Value: r.opts.Version}, {Key: "gitVersion", Value: r.opts.GitCommit}}
}

// shardHosts maps shard ids to their config.shards host strings
// ("set/host:port,..."); empty when the config servers cannot say.
func (r *Router) shardHosts(c *call) map[string]string {
	out := map[string]string{}
	shards, err := r.meta.Shards(c.ctx)
	if err != nil {
		return out
	}
	for _, s := range shards {
		out[s.ID] = s.Host
	}
	return out
}
