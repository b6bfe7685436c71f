package command

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/netclient"
)

// An aggregate ending in $out or $merge sent to a secondary with a
// secondary read preference runs there, as on MongoDB 5.0+: the
// secondary reads (the pipeline without its last stage) and the primary
// writes — the results travel in a {$documents} pipeline ending in the
// same stage, over the member-to-member connections.
//
// Bounded: the results may total outSecondaryMax bytes (more fails with
// a clear error: TODO(#14): stream them in batches, for $merge at least).
// An aggregate on a view (time-series collections included) reads the
// view's source through the view's pipeline and under its collation.
// TODO(#14): routers (the router sends $out to the primary shard).

const (
	outSecondaryMax     = 12 << 20
	outSecondaryTimeout = 60 * time.Second
)

// primaryRunner is the replication coordinator's RunOnPrimary.
type primaryRunner interface {
	RunOnPrimary(ctx context.Context, db string, cmd bson.D) (bson.D, error)
}

// secondaryOut reports whether an aggregate refused for writing (notPrimary)
// may run its $out/$merge from this secondary: the client's read
// preference is not primary and this member serves secondary reads.
func (c *Ctx) secondaryOut() bool {
	if !secondaryReadPref(c.Cmd) {
		return false
	}
	_, ok := c.D.repl.(primaryRunner)
	return ok && c.D.repl.CheckRead(true) == nil
}

// secondaryReadPref reports a $readPreference other than primary.
func secondaryReadPref(cmd bson.D) bool {
	rp, _ := bsonx.Get(cmd, "$readPreference")
	mode, _ := bsonx.Get(asDoc(rp), "mode")
	return mode != nil && mode != "primary"
}

// outWriteConcern applies the write concern of an aggregate writing with
// $out/$merge under a secondary read preference that ran where it was
// sent (the primary, or a standalone): the dispatcher leaves these to
// the handler (pipelineWrites).
func (c *Ctx) outWriteConcern(reply bson.D) (bson.D, error) {
	if !writesOutput(pipelineOf(c.Cmd)) || !secondaryReadPref(c.Cmd) {
		return reply, nil
	}
	wc, err := c.writeConcern()
	if err != nil {
		return nil, err
	}
	res := exec.WriteResult{Last: c.D.eng.Catalog().LastWrite()}
	if wce := c.awaitWriteConcern(wc, &res); wce != nil {
		reply = append(reply, bson.E{Key: "writeConcernError", Value: wce})
	}
	return reply, nil
}

// outThroughPrimary runs the read part of a, then has the primary write.
func (c *Ctx) outThroughPrimary(a *request.Aggregate, p exec.AggregateParams, coll string) (bson.D, error) {
	last := a.Pipeline[len(a.Pipeline)-1]
	p.Pipeline = a.Pipeline[:len(a.Pipeline)-1]
	var err error
	if p.Vars, err = letVars(a.Let); err != nil {
		return nil, err
	}
	target := coll
	if coll == "$cmd.aggregate" {
		target = ""
	} else if target, err = c.outSourceOnSecondary(coll, &p); err != nil {
		return nil, err
	}
	docs, err := c.readAll(p, target)
	if err != nil {
		return nil, err
	}
	cmd := bson.D{{Key: "aggregate", Value: int32(1)},
		{Key: "pipeline", Value: bson.A{bson.D{{Key: "$documents", Value: docs}}, last}},
		{Key: "cursor", Value: bson.D{}}}
	for _, k := range []string{"writeConcern", "bypassDocumentValidation", "let", "comment"} {
		if v, ok := c.field(k); ok {
			cmd = append(cmd, bson.E{Key: k, Value: v})
		}
	}
	ctx, cancel := context.WithTimeout(c.D.shutdownContext(), outSecondaryTimeout)
	defer cancel()
	reply, err := c.D.repl.(primaryRunner).RunOnPrimary(ctx, c.DB, cmd)
	if err != nil {
		return nil, err
	}
	if err := netclient.ReplyError(reply); err != nil {
		return nil, err
	}
	out := cursorReply(c.ns(coll), 0, "firstBatch", bson.A{})
	if wce, ok := bsonx.Get(reply, "writeConcernError"); ok { // the primary's wait
		out = append(out, bson.E{Key: "writeConcernError", Value: wce})
	}
	return out, nil
}

// readAll runs p on this member and returns every result, bounded by
// outSecondaryMax bytes.
func (c *Ctx) readAll(p exec.AggregateParams, target string) (bson.A, error) {
	rv, err := c.beginRead()
	if err != nil {
		return nil, err
	}
	defer rv.release()
	p.Snapshot = rv.snap
	it, err := c.D.eng.Aggregate(c.DB, target, p)
	if err != nil {
		return nil, err
	}
	cur := exec.NewCursor(c.ns(target), it)
	defer cur.Close()
	docs, size := bson.A{}, 0
	for {
		batch, done, err := cur.NextBatch(context.Background(), 0)
		if err != nil {
			return nil, err
		}
		for _, d := range batch {
			if raw, ok := d.(bson.Raw); ok {
				size += len(raw)
			} else if b, err := bson.Marshal(d); err == nil {
				size += len(b)
			}
			docs = append(docs, d)
		}
		if size > outSecondaryMax {
			return nil, mongoerr.New(mongoerr.NotImplemented, "relaydb runs $out/$merge from a secondary for results up to %d bytes; read from the primary for more", outSecondaryMax)
		}
		if done {
			return docs, nil
		}
	}
}

// outSourceOnSecondary resolves coll for a secondary's $out/$merge read:
// a collection reads itself; a view reads its source collection with the
// view's pipeline put before p's stages and the view's collation.
func (c *Ctx) outSourceOnSecondary(coll string, p *exec.AggregateParams) (string, error) {
	def, err := c.view(coll)
	if err != nil || def == nil {
		return coll, err
	}
	if p.Collation, err = viewReadCollation(def, p.Collation); err != nil {
		return "", err
	}
	p.Pipeline = append(append(bson.A{}, def.pipeline...), p.Pipeline...)
	return def.source, nil
}
