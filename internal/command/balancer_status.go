package command

import (
	"context"
	"slices"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/balancer"
	"github.com/relaydb/relaydb/internal/shard/configsvr"
)

// balancers holds each config server dispatcher's balancer
// (SetBalancer); the Dispatcher struct is left alone.
var balancers sync.Map // *Dispatcher -> *balancer.Balancer

// SetBalancer attaches the balancer a config server member runs (before
// serving); _configsvrBalancerStatus reports its state.
func (d *Dispatcher) SetBalancer(b *balancer.Balancer) { balancers.Store(d, b) }

func balancerOf(d *Dispatcher) *balancer.Balancer {
	b, _ := balancers.Load(d)
	bal, _ := b.(*balancer.Balancer)
	return bal
}

// LocalRunner is a configsvr.Runner over this member's own dispatcher:
// the balancer's reads and writes of the config database take the same
// checks, locks and write concern waits as a client's.
func (d *Dispatcher) LocalRunner() configsvr.Runner { return localRunner{d: d} }

// configsvrBalancerStatus answers as MongoDB's config server: mode (from
// config.settings, read now, so balancerStop shows at once), whether a
// round is running and how many ran on this member, plus relaydb's
// lastError and lastMoves of the last round.
func configsvrBalancerStatus(c *Ctx, _ *request.ConfigsvrBalancerStatus) (bson.D, error) {
	if c.D.info.ClusterRole != "configsvr" {
		return nil, mongoerr.New(mongoerr.IllegalOperation, "%s can only be run on config servers", c.Name)
	}
	ctx, cancel := c.replContext()
	defer cancel()
	cfg, err := balancer.NewConfigCluster(secondaryOkRunner{localRunner{d: c.D}}).Config(ctx)
	if err != nil {
		return nil, err
	}
	var st balancer.Status
	if b := balancerOf(c.D); b != nil {
		st = b.Status()
	}
	moves := bson.A{}
	for _, m := range st.LastMoves {
		moves = append(moves, m)
	}
	return bson.D{
		{Key: "mode", Value: cfg.Mode},
		{Key: "inBalancerRound", Value: st.InRound},
		{Key: "numBalancerRounds", Value: st.Rounds},
		{Key: "lastError", Value: st.LastError},
		{Key: "lastMoves", Value: moves},
	}, nil
}

// configsvrBalancerCollectionStatus answers balancerCollectionStatus for
// a namespace (balancer.Balancer.CollectionStatus): chunkSize in MB,
// balancerCompliant and, when not, firstComplianceViolation.
func configsvrBalancerCollectionStatus(c *Ctx, r *request.ConfigsvrBalancerCollectionStatus) (bson.D, error) {
	if c.D.info.ClusterRole != "configsvr" {
		return nil, mongoerr.New(mongoerr.IllegalOperation, "%s can only be run on config servers", c.Name)
	}
	if err := checkNS(r.NS); err != nil {
		return nil, err
	}
	b := balancerOf(c.D)
	if b == nil {
		return nil, mongoerr.New(mongoerr.IllegalOperation, "%s: this config server runs no balancer", c.Name)
	}
	ctx, cancel := c.replContext()
	defer cancel()
	st, err := b.CollectionStatus(ctx, r.NS)
	if err != nil {
		return nil, err
	}
	out := bson.D{{Key: "chunkSize", Value: st.ChunkSizeMB}, {Key: "balancerCompliant", Value: st.Compliant}}
	if !st.Compliant {
		out = append(out, bson.E{Key: "firstComplianceViolation", Value: st.Violation})
	}
	return out, nil
}

// secondaryOkRunner is a localRunner whose commands a secondary may
// serve too ($readPreference primaryPreferred): balancerStatus asked of a
// config server secondary reads config.settings there.
type secondaryOkRunner struct{ localRunner }

func (r secondaryOkRunner) Run(ctx context.Context, db string, cmd bson.D) (bson.D, error) {
	cmd = append(slices.Clone(cmd), bson.E{Key: "$readPreference", Value: bson.D{{Key: "mode", Value: "primaryPreferred"}}})
	return r.localRunner.Run(ctx, db, cmd)
}
