package sharding

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readconcern"
)

// Migration fault tests (issue #12): kill -9 the recipient's primary, the
// config server primary or the donor's primary during a moveChunk of
// mig.c's [1500, MaxKey), with writers through the router (migWriters,
// w:"majority"). After each: the migration is over (no coordinator
// document on the donor), config.chunks and the data agree (the owner
// holds the range, the other shard none of it), every acknowledged write
// is there once with its last acknowledged value (checkAcked), and a
// later moveChunk succeeds.

// TestMoveChunkRecipientKilled: the recipient (a three-member set) loses
// its primary to kill -9 while it clones (the donor answers each
// _migrateClone batch after 1.5 s, a failCommand fail point, so the clone
// lasts seconds). The moveChunk fails, the chunk stays on the donor, the
// partial copy on the recipient's new primary is deleted, and a second
// moveChunk succeeds.
func TestMoveChunkRecipientKilled(t *testing.T) {
	lc := linzUp(t, 3, 1)
	coll, from := lc.loadMig(t, 6000)
	to := otherShard(from)
	donor, recip := lc.shard(t, from), lc.shard(t, to)
	dp, err := donor.Primary(ctxT(t))
	must(t, err, "donor primary")
	failPoint(t, donor, dp, "alwaysOn", bson.D{{Key: "failCommands", Value: bson.A{"_migrateClone"}},
		{Key: "blockConnection", Value: true}, {Key: "blockTimeMS", Value: 1500}})

	w := startMigWriters(t, coll, 2)
	moved := lc.moveUpperAsync(to)
	linzEventually(t, "the clone on %s starts", func() error {
		n, err := lc.primaryCount(t, to, upperRange())
		if err == nil && n == 0 {
			err = errors.New("nothing cloned yet")
		}
		return err
	}, to)
	killed := killPrimary(t, recip)
	t.Logf("killed %s/%s during the clone", to, killed.Name)
	if err := <-moved; err == nil {
		t.Fatalf("moveChunk succeeded although the recipient's primary was killed during the clone")
	} else {
		t.Logf("moveChunk failed as it should: %v", err)
	}
	failPoint(t, donor, dp, "off", nil)
	restartMember(t, recip, killed)
	n, err := lc.primaryCount(t, to, upperRange())
	t.Logf("%s's primary holds %d documents of the aborted range (%v); they must go", to, n, err)
	lc.waitNoCoordinator(t, from)
	if o := lc.checkUpperPlacement(t, coll); o != from {
		t.Fatalf("after the aborted migration [1500, MaxKey) is on %s, want the donor %s", o, from)
	}
	lc.moveAgain(t, to)
	if o := lc.checkUpperPlacement(t, coll); o != to {
		t.Fatalf("after the second moveChunk [1500, MaxKey) is on %s, want %s", o, to)
	}
	w.stop(t)
	checkAcked(t, coll, w)
}

// moveAgain moves [1500, MaxKey) to shard to, retrying (bounded) while
// the previous migration's range deletion on it is pending (MongoDB's
// ConflictingOperationInProgress, a refusal that changes nothing).
func (lc *linzCluster) moveAgain(t *testing.T, to string) {
	t.Helper()
	attempts := 0
	linzEventually(t, "a later moveChunk to %s", func() error {
		attempts++
		ctx, cancel := context.WithTimeout(context.Background(), linzBound)
		defer cancel()
		err := lc.moveUpper(ctx, to)
		if err != nil {
			t.Logf("moveChunk attempt %d: %v", attempts, err)
		}
		return err
	}, to)
}

// TestMoveChunkConfigPrimaryKilled: the config server primary (of three)
// is killed -9 while the donor's commit (_configsvrCommitChunkMigration)
// waits in a fail point there (blocked 4 s, before it runs). The donor
// cannot know whether its commit was applied: it fences and reads the
// placement on the next config primary and decides; whatever it decides,
// config.chunks, the data and the writes agree.
func TestMoveChunkConfigPrimaryKilled(t *testing.T) {
	lc := linzUp(t, 1, 3)
	coll, from := lc.loadMig(t, 200)
	to := otherShard(from)
	cfg := lc.sc.Config
	cp, err := cfg.Primary(ctxT(t))
	must(t, err, "config primary")
	failPoint(t, cfg, cp, bson.D{{Key: "times", Value: 1}}, bson.D{{Key: "failCommands", Value: bson.A{"_configsvrCommitChunkMigration"}},
		{Key: "blockConnection", Value: true}, {Key: "blockTimeMS", Value: 4000}})

	w := startMigWriters(t, coll, 2)
	moved := lc.moveUpperAsync(to)
	linzEventually(t, "%s clones the whole range", func() error {
		select {
		case err := <-moved:
			t.Fatalf("moveChunk returned before its commit: %v", err)
		default:
		}
		n, err := lc.primaryCount(t, to, upperRange())
		if err == nil && n < 1500 {
			err = fmt.Errorf("%d of at least 1500 documents cloned", n)
		}
		return err
	}, to)
	time.Sleep(time.Second) // catch-up, critical section: the commit waits in the fail point
	killed := killPrimary(t, cfg)
	t.Logf("killed the config primary %s during the commit", killed.Name)
	if err := <-moved; err != nil {
		t.Logf("moveChunk: %v", err)
	} else {
		t.Logf("moveChunk succeeded")
	}
	restartMember(t, cfg, killed)
	lc.waitNoCoordinator(t, from)
	owner := lc.checkUpperPlacement(t, coll)
	t.Logf("after the config failover [1500, MaxKey) is on %s (donor %s)", owner, from)
	lc.moveAgain(t, otherShard(owner))
	if o := lc.checkUpperPlacement(t, coll); o != otherShard(owner) {
		t.Fatalf("after a later moveChunk [1500, MaxKey) is on %s, want %s", o, otherShard(owner))
	}
	w.stop(t)
	checkAcked(t, coll, w)
}

// TestMoveChunkConfigPrimaryKilledAfterCommit: the config server primary
// (of three) is killed -9 the moment its config.chunks shows the commit,
// so the donor most likely loses the commit's answer (and the commit may
// not be majority committed yet). The donor fences on the next config
// primary, reads the placement there and decides; config.chunks, the
// data and the writes must agree whatever it decided.
//
// It failed about one run in two before metadata reads were pinned at
// the process's config time (configsvr.Clock): the donor's range deleter
// refreshed from a config member whose majority snapshot predated the
// commit and took the range back.
func TestMoveChunkConfigPrimaryKilledAfterCommit(t *testing.T) {
	lc := linzUp(t, 1, 3)
	coll, from := lc.loadMig(t, 200)
	to := otherShard(from)
	cfg := lc.sc.Config
	w := startMigWriters(t, coll, 2)
	moved := lc.moveUpperAsync(to)
	seen := lc.waitCommitted(t, to)
	killed := killPrimary(t, cfg)
	t.Logf("config.chunks on the config primary named %s %v after the moveChunk began; killed %s", to, seen.Round(time.Millisecond), killed.Name)
	if err := <-moved; err != nil {
		t.Logf("moveChunk: %v", err)
	} else {
		t.Logf("moveChunk succeeded")
	}
	restartMember(t, cfg, killed)
	lc.waitNoCoordinator(t, from)
	owner, err := lc.upperPlacement(t, coll)
	if err != nil {
		lc.logConfigOwners(t)
		t.Fatalf("%v (%s's range deleter: %q)", err, from, lc.metadataWentBack(t, from))
	}
	t.Logf("after the config failover [1500, MaxKey) is on %s (donor %s)", owner, from)
	lc.moveAgain(t, otherShard(owner))
	if o := lc.checkUpperPlacement(t, coll); o != otherShard(owner) {
		t.Fatalf("after a later moveChunk [1500, MaxKey) is on %s, want %s", o, otherShard(owner))
	}
	w.stop(t)
	checkAcked(t, coll, w)
}

// metadataWentBack returns the log line of donor shard from's range
// deleter dropping the donated range because the shard's metadata says
// it owns it again (how the stale read showed), or "".
func (lc *linzCluster) metadataWentBack(t *testing.T, from string) string {
	t.Helper()
	for _, m := range lc.shard(t, from).Members() {
		b, err := os.ReadFile(m.LogPath)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, "range deleter: task dropped") && strings.Contains(line, "owned by "+from) {
				return line
			}
		}
	}
	return ""
}

// TestMoveChunkDonorKilledAfterCommit: twice (once from each shard), the
// donor's primary (of three) is killed -9 the moment config.chunks shows
// the commit, before or just after the donor persisted its decision. The
// donor's next primary recovers the migration (RunRecovery: fence, read
// the placement, decide committed), deletes its copy, and nothing
// acknowledged is lost.
func TestMoveChunkDonorKilledAfterCommit(t *testing.T) {
	lc := linzUp(t, 3, 1)
	coll, _ := lc.loadMig(t, 200)
	w := startMigWriters(t, coll, 2)
	for i := range 2 {
		from := lc.owner(t, "mig.c", 1500)
		to := otherShard(from)
		donor := lc.shard(t, from)
		moved := lc.moveUpperAsync(to)
		seen := lc.waitCommitted(t, to)
		killed := killPrimary(t, donor)
		t.Logf("move %d: config.chunks named %s %v after the moveChunk began; killed %s/%s", i, to, seen.Round(time.Millisecond), from, killed.Name)
		t.Logf("move %d: on %s's next primary the coordinator document says %s", i, from, lc.coordinatorState(t, from))
		if err := <-moved; err != nil {
			t.Logf("move %d: moveChunk: %v", i, err)
		}
		restartMember(t, donor, killed)
		lc.waitNoCoordinator(t, from)
		if o := lc.checkUpperPlacement(t, coll); o != to {
			t.Fatalf("move %d: the commit was in config.chunks, yet [1500, MaxKey) is on %s, want %s", i, o, to)
		}
	}
	w.stop(t)
	checkAcked(t, coll, w)
}

// waitCommitted polls config.chunks on the config primary (local read)
// every 2 ms until [1500, MaxKey) is on shard to, and returns how long it
// took.
func (lc *linzCluster) waitCommitted(t *testing.T, to string) time.Duration {
	t.Helper()
	start := time.Now()
	cfg := lc.sc.Config
	p, err := cfg.Primary(ctxT(t))
	must(t, err, "config primary")
	cl, err := cfg.Client(p)
	must(t, err, "config client")
	var coll bson.M
	must(t, cl.Database("config").Collection("collections").FindOne(ctxT(t), bson.D{{Key: "_id", Value: "mig.c"}}).Decode(&coll), "config.collections")
	for time.Since(start) < linzBound {
		if owner, err := chunkOwnerIn(cl.Database("config").Collection("chunks"), coll["uuid"], 1500); err == nil && owner == to {
			return time.Since(start)
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatalf("config.chunks never named %s within %v", to, linzBound)
	return 0
}

// coordinatorState describes the migration coordinator documents on
// shard's next primary (bounded wait for it): the decision they carry,
// "undecided", or "none" when recovery already finished.
func (lc *linzCluster) coordinatorState(t *testing.T, shard string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), linzBound)
	defer cancel()
	sh := lc.shard(t, shard)
	p, err := sh.WaitPrimary(ctx)
	if err != nil {
		return fmt.Sprintf("(no primary: %v)", err)
	}
	cl, err := sh.Client(p)
	if err != nil {
		return err.Error()
	}
	cur, err := cl.Database("config").Collection("migrationCoordinators").Find(ctx, bson.D{})
	if err != nil {
		return err.Error()
	}
	var docs []struct {
		Decision string `bson:"decision"`
	}
	if err := cur.All(ctx, &docs); err != nil {
		return err.Error()
	}
	if len(docs) == 0 {
		return "none"
	}
	out := ""
	for _, d := range docs {
		if d.Decision == "" {
			d.Decision = "undecided"
		}
		out += d.Decision + " "
	}
	return out
}

// logConfigOwners logs, for each config member, its state and the owner
// of x=1500 in its config.chunks (local and majority reads).
func (lc *linzCluster) logConfigOwners(t *testing.T) {
	t.Helper()
	uuid := lc.collUUID(t, "mig.c")
	for _, m := range lc.sc.Config.Members() {
		cl, err := lc.sc.Config.Client(m)
		if err != nil {
			t.Logf("config %s: %v", m.Name, err)
			continue
		}
		owner, err := chunkOwnerIn(cl.Database("config").Collection("chunks"), uuid, 1500)
		maj, merr := chunkOwnerIn(cl.Database("config", options.Database().SetReadConcern(readconcern.Majority())).Collection("chunks"), uuid, 1500)
		var st struct {
			MyState int `bson:"myState"`
		}
		serr := cl.Database("admin").RunCommand(ctxT(t), bson.D{{Key: "replSetGetStatus", Value: 1}}).Decode(&st)
		t.Logf("config %s (state %d %v): x=1500 is on %q (local read, %v), %q (majority read, %v)", m.Name, st.MyState, serr, owner, err, maj, merr)
	}
}
