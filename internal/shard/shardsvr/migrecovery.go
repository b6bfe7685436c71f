package shardsvr

// Migration recovery (MongoDB's recovery on step-up): a donor's new
// primary holds the writes of every namespace with an undecided
// migration before it accepts writes (HoldPendingMigrations, from the
// replication step-up hook), then RunRecovery resumes each migration its
// coordinator documents name with migrate.Resume and carries out the
// decision, which releases the hold.

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/migrate"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// HoldPendingMigrations holds the writes to the namespace of every
// migration this member's coordinator documents leave undecided
// (State.HoldWrites), until its recovery (RunRecovery) releases them. A
// new primary calls it at step-up, before it accepts writes.
func (m *Migrations) HoldPendingMigrations() {
	err := m.opts.Store.scan(CoordinatorsDB, CoordinatorsColl, func(d bson.D) bool {
		if _, decided := bsonx.Get(d, "decision"); !decided {
			ns, _ := bsonx.Get(d, "nss")
			if s, ok := ns.(string); ok {
				m.opts.State.HoldWrites(s, sectionLease)
			}
		}
		return true
	})
	if err != nil {
		m.opts.Logger.Warn("migration: reading the coordinator documents at step-up", "err", err)
	}
}

// recoveryInterval is how often a primary looks for migrations to recover.
const recoveryInterval = 2 * time.Second

// RunRecovery recovers, while this member is primary, the migrations
// whose coordinator documents a previous primary left (MongoDB's
// migration recovery on step-up) until ctx ends.
func (m *Migrations) RunRecovery(ctx context.Context) {
	for ctx.Err() == nil {
		if m.opts.IsPrimary() {
			if err := m.recoverAll(ctx); err != nil && ctx.Err() == nil {
				m.opts.Logger.Warn("migration recovery", "err", err)
			}
		}
		if sleep(ctx, recoveryInterval) != nil {
			return
		}
	}
}

func (m *Migrations) recoverAll(ctx context.Context) error {
	var docs []bson.D
	err := m.opts.Store.scan(CoordinatorsDB, CoordinatorsColl, func(d bson.D) bool { docs = append(docs, d); return len(docs) < 100 })
	if err != nil {
		return err
	}
	for _, d := range docs {
		if err := m.recoverOne(ctx, d); err != nil {
			return err
		}
	}
	return nil
}

// recoverOne resumes the migration of coordinator document d, unless this
// member is running it.
func (m *Migrations) recoverOne(ctx context.Context, d bson.D) error {
	session, _ := bsonx.Get(d, "_id")
	sid, _ := session.(string)
	m.mu.Lock()
	busy := m.donating != ""
	if !busy {
		m.donating = sid
	}
	m.mu.Unlock()
	if busy {
		return nil
	}
	defer func() { m.mu.Lock(); m.donating = ""; m.mu.Unlock() }()
	r, decision, err := m.donorFromDoc(ctx, sid, d)
	if err != nil {
		return err
	}
	m.opts.Logger.Info("recovering a migration", "session", sid, "ns", r.req.NS, "range", r.chunk.Range(), "decision", decision)
	c, actions := migrate.Resume(migrationOptions, decision, time.Now())
	return r.drive(ctx, c, actions)
}

// donorFromDoc rebuilds a donorRun from a coordinator document.
func (m *Migrations) donorFromDoc(ctx context.Context, sid string, d bson.D) (*donorRun, migrate.Decision, error) {
	str := func(f string) string { v, _ := bsonx.Get(d, f); s, _ := v.(string); return s }
	rng, _ := bsonx.Get(d, "range")
	rd, _ := rng.(bson.D)
	lo, _ := bsonx.Get(rd, "min")
	hi, _ := bsonx.Get(rd, "max")
	pre, _ := bsonx.Get(d, "preMigrationChunkVersion")
	lastmod, err := ParseShardVersion(pre)
	if err != nil {
		return nil, 0, err
	}
	req := MoveRangeRequest{NS: str("nss"), ToShard: str("recipientShardId")}
	req.Min, _ = lo.(bson.D)
	req.Max, _ = hi.(bson.D)
	cm, me, err := m.opts.State.ChunkOwner(ctx, req.NS)
	if err != nil {
		return nil, 0, err
	}
	if cm == nil {
		return nil, 0, mongoerr.New(mongoerr.NamespaceNotSharded, "%s is no longer sharded", req.NS)
	}
	toConn, err := m.shardConn(ctx, req.ToShard)
	if err != nil {
		return nil, 0, err
	}
	decision := migrate.Undecided
	switch str("decision") {
	case migrate.Committed.String():
		decision = migrate.Committed
	case migrate.Aborted.String():
		decision = migrate.Aborted
	}
	chunk := routing.Chunk{Min: req.Min, Max: req.Max, Shard: me, Lastmod: lastmod}
	return &donorRun{m: m, req: req, session: sid, me: me, toConn: toConn, cm: cm, chunk: chunk}, decision, nil
}
