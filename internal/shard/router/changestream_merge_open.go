package router

import (
	"fmt"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/changestream"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/key"
)

// openMergedStream opens a merged stream (changestream_merge.go): coll is
// "" for a database or cluster stream; p is the sharded collection's key.
func (r *Router) openMergedStream(c *call, coll string, p *key.Pattern) (bson.D, error) {
	pipeline, _ := bsonx.Get(c.cmd, "pipeline")
	stages, _ := pipeline.(bson.A)
	spec := stages[0].(bson.D)[0].Value
	opts, rt, err := parseStreamSpec(spec)
	if err != nil {
		return nil, err
	}
	n, err := streamBatchSize(c.cmd)
	if err != nil {
		return nil, err
	}
	if opts.FromRouter {
		return nil, mongoerr.New(mongoerr.IDLUnknownField, "BSON field '$changeStream.%s' is an unknown field.", changestream.FromRouterField)
	}
	start, err := r.streamStart(opts, rt)
	if err != nil {
		return nil, err
	}
	all, err := r.allShards(c.ctx)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(all))
	for id := range all {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	m := &csMerge{shardColl: coll, pattern: p, r: r}
	if coll == "" {
		m.shardColl = "$cmd.aggregate"
	}
	if p == nil {
		m.patternOf = r.streamKeyLookup() // sharded later, or a db's collections
	}
	var aggName any = coll
	if coll == "" {
		aggName = int32(1)
	}
	m.resume = start.resume
	specDoc, _ := spec.(bson.D)
	m.open, m.checked = csOpen{aggName: aggName, spec: specDoc, stages: stages[1:]}, time.Now()
	replies := r.sendAll(c, ids, true, func(id string) bson.D {
		return r.withClusterTime(m.open.cmdFor(start.shardSpec(spec, id)))
	})
	for _, sr := range replies {
		if sr.err == nil {
			m.shards = append(m.shards, &csShard{id: sr.shard, t: sr.t, host: sr.host})
			err = m.shards[len(m.shards)-1].absorb(sr.reply)
		} else {
			err = sr.err
		}
		if err != nil {
			mc := &mergedCursor{coll: m.shardColl, stream: m}
			r.killStreamShards(c, mc)
			return nil, fmt.Errorf("opening the change stream on shard %s: %w", sr.shard, err)
		}
	}
	mc := &mergedCursor{ns: c.db + "." + nsColl(coll), coll: m.shardColl, stream: m}
	return r.streamFirstReply(mc, n), nil
}

func nsColl(coll string) string {
	if coll == "" {
		return "$cmd.aggregate"
	}
	return coll
}

// streamStartPoint is where every shard starts.
type streamStartPoint struct {
	resume rtoken          // the client's resume token, or the start's mark
	token  *rtoken         // a resume (resumeAfter, startAfter)
	at     *bson.Timestamp // startAtOperationTime (the client's, or the router's)
}

// streamStart is the client's start point, or the router's cluster time
// (mongos's): every shard starts at the same time.
func (r *Router) streamStart(o changestream.Options, rt *rtoken) (streamStartPoint, error) {
	if rt != nil {
		return streamStartPoint{resume: *rt, token: rt}, nil
	}
	if o.StartAtOperationTime != nil {
		ts := *o.StartAtOperationTime
		return streamStartPoint{resume: rtoken{tok: changestream.HighWaterMark(prevTimestamp(ts))}, at: &ts}, nil
	}
	ct, ok := r.latestClusterTime()
	if !ok {
		return streamStartPoint{}, nil
	}
	ts := nextTimestamp(ct)
	return streamStartPoint{resume: rtoken{tok: changestream.HighWaterMark(ct)}, at: &ts}, nil
}

// parseStreamSpec checks the client's $changeStream spec; a resume
// token may be the router's (with a shard id ParseOptions does not read).
func parseStreamSpec(spec any) (changestream.Options, *rtoken, error) {
	d, _ := spec.(bson.D)
	var rt *rtoken
	checked := slices.Clone(d)
	for i, e := range checked {
		if e.Key == "resumeAfter" || e.Key == "startAfter" {
			t, err := parseRToken(e.Value)
			if err != nil {
				return changestream.Options{}, nil, err
			}
			rt, checked[i].Value = &t, t.tok.Doc()
		}
	}
	if d == nil {
		opts, err := changestream.ParseOptions(spec)
		return opts, nil, err
	}
	opts, err := changestream.ParseOptions(checked)
	return opts, rt, err
}

// shardSpec is the $changeStream spec shard id runs: the client's, its
// start point replaced by the shard's, with $_fromRouter.
func (p streamStartPoint) shardSpec(spec any, id string) bson.D {
	d, _ := spec.(bson.D)
	var out bson.D
	for _, e := range d {
		switch e.Key {
		case "resumeAfter", "startAfter":
			if t, err := parseRToken(e.Value); err == nil {
				out = append(out, bson.E{Key: "startAfter", Value: changestream.Token.Doc(t.startFor(id))})
			}
		case "startAtOperationTime":
		default:
			out = append(out, e)
		}
	}
	if p.at != nil {
		out = append(out, bson.E{Key: "startAtOperationTime", Value: *p.at})
	}
	return append(out, bson.E{Key: changestream.FromRouterField, Value: true})
}

// absorb reads a shard's cursor reply: its events, cursor id and mark.
func (s *csShard) absorb(reply bson.D) error {
	cur, _ := bsonx.Get(reply, "cursor")
	cd, _ := cur.(bson.D)
	idv, _ := bsonx.Get(cd, "id")
	s.cursor, _ = bsonx.AsInt64(idv)
	for _, d := range firstBatch(reply) {
		idDoc, _ := bsonx.Get(d, "_id")
		t, err := changestream.ParseToken(idDoc)
		if err != nil {
			return fmt.Errorf("an event of shard %s: %w", s.id, err)
		}
		s.buf = append(s.buf, csEvent{tok: t, doc: d})
	}
	if v, ok := bsonx.Get(cd, "postBatchResumeToken"); ok {
		t, err := changestream.ParseToken(v)
		if err != nil {
			return fmt.Errorf("shard %s's postBatchResumeToken: %w", s.id, err)
		}
		if s.pbrt.Compare(t) < 0 {
			s.pbrt = t
		}
	}
	return nil
}
