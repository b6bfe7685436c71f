package soak

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/relaydb/relaydb/internal/crashtest"
)

// checkTimeout bounds the reads of one check.
const checkTimeout = 2 * time.Minute

// convergeTimeout bounds the wait for a secondary to reach the primary's
// state after a restart.
const convergeTimeout = 30 * time.Second

// killCycle holds new ops, kills the target with SIGKILL, verifies its
// data offline, restarts it, waits for the ops in progress to return and
// checks every acknowledged op, then lets ops run again.
func (s *soak) killCycle(ctx context.Context, cl *mongo.Client) error {
	s.g.beginKill()
	defer s.g.endKill()
	t0 := time.Now()
	if err := s.target.KillAll(ctx); err != nil {
		return fmt.Errorf("kill: %w", err)
	}
	s.rep.Kills++
	for _, dir := range s.target.DBPaths() {
		s.rep.Verifies++
		if err := crashtest.Verify(ctx, s.cfg.Bin, dir); err != nil {
			s.rep.VerifyFailures++
			s.note("%v", err)
		}
	}
	if err := s.target.RestartAll(ctx); err != nil {
		return fmt.Errorf("restart: %w", err)
	}
	s.g.waitIdle()
	down := time.Since(t0)
	err := s.check(ctx, cl)
	fmt.Fprintf(s.cfg.Log, "soak: kill %d: down %v, checked in %v; YCSB acked %d, lost %d; DDL acked %d, failed checks %d\n",
		s.rep.Kills, down.Round(time.Millisecond), (time.Since(t0) - down).Round(time.Millisecond),
		s.y.inserts.Load()+s.y.updates.Load(), s.y.lost.Load(), s.ddl.TotalAcked(), s.ddl.Lost)
	return err
}

// check compares the YCSB records and the DDL databases with what was
// acknowledged. Both checks run even if the first fails, so that the DDL
// stream always learns the outcome of its op in flight.
func (s *soak) check(ctx context.Context, cl *mongo.Client) error {
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	n, yerr := s.y.check(ctx)
	if yerr != nil {
		yerr = fmt.Errorf("YCSB check: %w", yerr)
	}
	s.rep.YCSBChecked += int64(n)
	return errors.Join(yerr, s.checkDDL(ctx))
}

// checkDDL compares the crash harness's databases with its model, and on
// a replica set waits for the other members to reach the primary's state.
func (s *soak) checkDDL(ctx context.Context) error {
	uris, err := s.target.CheckURIs(ctx)
	if err != nil {
		return err
	}
	ocl, err := crashtest.Connect(uris[0])
	if err != nil {
		return err
	}
	defer ocl.Disconnect(context.Background())
	got, err := crashtest.Observe(ctx, ocl)
	if err != nil {
		return fmt.Errorf("DDL check: %w", err)
	}
	s.ddlMu.Lock()
	err = s.ddl.Check(got)
	s.ddlMu.Unlock()
	if err != nil {
		s.note("kill %d: %v", s.rep.Kills, err)
	}
	for _, uri := range uris[1:] { // replica set: the others reach the primary's state
		if err := crashtest.WaitConverged(ctx, uri, got, convergeTimeout); err != nil {
			s.rep.NotConverged++
			s.note("kill %d: %v", s.rep.Kills, err)
		}
	}
	return nil
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x2545f4914f6cdd1d)) }
