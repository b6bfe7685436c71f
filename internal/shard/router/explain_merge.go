package router

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// plannerInfo is mongos's queryPlanner: one entry per shard with the
// shard's own queryPlanner fields (ClusterExplain::buildPlannerInfo).
func plannerInfo(replies []shardReply, stage string, hosts map[string]string) bson.D {
	shards := make(bson.A, 0, len(replies))
	for _, sr := range replies {
		qp := docField(sr.reply, "queryPlanner")
		entry := bson.D{
			{Key: "shardName", Value: sr.shard},
			{Key: "connectionString", Value: connectionString(sr, hosts)},
			{Key: "serverInfo", Value: docField(sr.reply, "serverInfo")},
		}
		if _, ok := bsonx.Get(qp, "indexFilterSet"); !ok {
			entry = append(entry, bson.E{Key: "indexFilterSet", Value: false})
		}
		shards = append(shards, append(entry, qp...))
	}
	return bson.D{
		{Key: "mongosPlannerVersion", Value: int32(1)},
		{Key: "winningPlan", Value: bson.D{{Key: "stage", Value: stage}, {Key: "shards", Value: shards}}},
	}
}

// connectionString is the shard's host string in config.shards
// ("set/host:port,..."), or else its set and the member that answered.
func connectionString(sr shardReply, hosts map[string]string) string {
	if h, ok := hosts[sr.shard]; ok {
		return h
	}
	if sr.t.set == nil {
		return sr.host
	}
	return sr.t.set.name + "/" + sr.host
}

// execStats is mongos's executionStats, summed over the shards, when the
// shards report them (ClusterExplain::buildExecStats); ok is false when
// they do not (queryPlanner verbosity, or a shard that never does).
func execStats(replies []shardReply, stage string, millis int64) (bson.D, bool) {
	var n, keys, docs, childMillis int64
	shards := make(bson.A, 0, len(replies))
	for _, sr := range replies {
		es := docField(sr.reply, "executionStats")
		if es == nil {
			return nil, false
		}
		n += int64Field(es, "nReturned")
		keys += int64Field(es, "totalKeysExamined")
		docs += int64Field(es, "totalDocsExamined")
		childMillis += int64Field(es, "executionTimeMillis")
		entry := bson.D{{Key: "shardName", Value: sr.shard}}
		for _, f := range []string{"executionSuccess", "errorMessage", "errorCode"} {
			if v, ok := bsonx.Get(es, f); ok {
				entry = append(entry, bson.E{Key: f, Value: v})
			}
		}
		shards = append(shards, append(entry, bson.E{Key: "executionStages", Value: docField(es, "executionStages")}))
	}
	totals := bson.D{
		{Key: "nReturned", Value: n},
		{Key: "executionTimeMillis", Value: millis},
		{Key: "totalKeysExamined", Value: keys},
		{Key: "totalDocsExamined", Value: docs},
	}
	stages := append(append(bson.D{{Key: "stage", Value: stage}}, totals...),
		bson.E{Key: "totalChildMillis", Value: childMillis}, bson.E{Key: "shards", Value: shards})
	out := append(totals, bson.E{Key: "executionStages", Value: stages})
	if _, ok := bsonx.Get(docField(replies[0].reply, "executionStats"), "allPlansExecution"); ok {
		out = append(out, bson.E{Key: "allPlansExecution", Value: allPlans(replies)})
	}
	return out, true
}

// allPlans is mongos's allPlansExecution: each shard's, under its name.
func allPlans(replies []shardReply) bson.A {
	out := make(bson.A, 0, len(replies))
	for _, sr := range replies {
		plans, _ := bsonx.Get(docField(sr.reply, "executionStats"), "allPlansExecution")
		if plans == nil {
			plans = bson.A{}
		}
		out = append(out, bson.D{{Key: "shardName", Value: sr.shard}, {Key: "allPlans", Value: plans}})
	}
	return out
}

// explainAggregate is mongos's explain of an aggregate: a pipeline whose
// leading $match targets one shard (and that reads no other collection)
// is explained there whole, splitPipeline null; otherwise the shards
// explain the shards part of the router's split and splitPipeline shows
// both parts, the merger's starting with the $mergeCursors that reads the
// shards' cursors. The shards' explains are listed under their names.
func (r *Router) explainAggregate(c *call, ns string, cm *routing.ChunkManager, inner bson.D, verbosity string) (bson.D, error) {
	pv, _ := bsonx.Get(inner, "pipeline")
	pipeline, _ := pv.(bson.A)
	filter := leadingMatch(pipeline)
	shardCmd := inner
	var split any
	if shards, _ := cm.Target(filter); len(shards) != 1 || readsOtherCollections(pipeline) {
		stages, final := pipeline, bson.A{}
		if n := len(pipeline); n > 0 {
			if name, _ := stageOf(pipeline[n-1]); name == "$out" || name == "$merge" {
				stages, final = pipeline[:n-1], pipeline[n-1:]
			}
		}
		plan := splitPipeline(stages)
		shardCmd = setField(inner, "pipeline", plan.shards)
		split = bson.D{{Key: "shardsPart", Value: plan.shards},
			{Key: "mergerPart", Value: append(append(bson.A{mergeCursorsStage(ns, plan.sortSpec)}, plan.merge...), final...)}}
	}
	replies, _, err := r.explainOnShards(c, ns, cm, filter, shardCmd, verbosity)
	if err != nil {
		return nil, err
	}
	shards := make(bson.D, 0, len(replies))
	for _, sr := range replies {
		body := bson.D{{Key: "host", Value: sr.host}}
		for _, e := range sr.reply {
			switch e.Key {
			case "ok", "$clusterTime", "operationTime", "serverInfo", "command":
			default:
				body = append(body, e)
			}
		}
		shards = append(shards, bson.E{Key: sr.shard, Value: body})
	}
	return bson.D{
		{Key: "mergeType", Value: "mongos"},
		{Key: "splitPipeline", Value: split},
		{Key: "shards", Value: shards},
	}, nil
}

// mergeCursorsStage is the merger part's first stage as mongos shows it.
func mergeCursorsStage(ns string, sortSpec bson.D) bson.D {
	spec := bson.D{}
	if sortSpec != nil {
		spec = append(spec, bson.E{Key: "sort", Value: sortSpec})
	}
	spec = append(spec, bson.E{Key: "compareWholeSortKey", Value: false},
		bson.E{Key: "tailableMode", Value: "normal"}, bson.E{Key: "nss", Value: ns},
		bson.E{Key: "allowPartialResults", Value: false})
	return bson.D{{Key: "$mergeCursors", Value: spec}}
}
