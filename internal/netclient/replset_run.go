package netclient

import (
	"context"
	"errors"
	"net"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// maxAttempts bounds sending one command: the first try plus resends
// after a "not primary" reply or a failure that sent nothing.
const maxAttempts = 4

// Run sends cmd to the primary and returns its reply and the host that
// answered (an ok:0 reply is returned too, with its *mongoerr.Error).
// After a NotWritablePrimary-class reply (nothing was done) or a failed
// connection (nothing was sent) it resends to the primary found anew; so
// it does after any network failure, and after an interruption by a
// state change, when idempotent is set (reads, retryable writes). Any
// other network failure is HostUnreachable: the command may have run.
func (s *ReplicaSet) Run(ctx context.Context, db string, cmd bson.D, idempotent bool) (bson.D, string, error) {
	var last error
	for range maxAttempts {
		host, err := s.Primary(ctx)
		if err != nil {
			return nil, "", err
		}
		reply, err := s.pool.Run(ctx, host, db, cmd)
		retry := NotPrimary(err) || (idempotent && SteppedDown(err))
		if err == nil || (!IsNetworkError(err) && !retry) {
			return reply, host, err
		}
		s.MarkFailed(host, err)
		last = err
		if IsNetworkError(err) && !isDialError(err) && !idempotent {
			return nil, "", mongoerr.New(mongoerr.HostUnreachable, "network error while sending %s to %s (set %s): %v", cmdName(cmd), host, s.Name(), err)
		}
		if ctx.Err() != nil {
			break
		}
	}
	if me := (*mongoerr.Error)(nil); errors.As(last, &me) {
		return nil, "", me
	}
	return nil, "", mongoerr.New(mongoerr.HostUnreachable, "cannot reach the primary of %s after %d attempts: %v", s.Name(), maxAttempts, last)
}

// RunRead sends a read to the primary, or to a secondary while the set
// has no primary (primaryPreferred, as MongoDB reads its config servers'
// metadata with majority read concern), moving to another member after a
// network failure or a "not primary or secondary" reply.
func (s *ReplicaSet) RunRead(ctx context.Context, db string, cmd bson.D) (bson.D, string, error) {
	var last error
	for range maxAttempts {
		host, err := s.PrimaryPreferred(ctx)
		if err != nil {
			return nil, "", err
		}
		reply, err := s.pool.Run(ctx, host, db, withReadPreference(cmd))
		if err == nil || (!IsNetworkError(err) && !NotPrimary(err)) {
			return reply, host, err
		}
		s.MarkFailed(host, err)
		last = err
		if ctx.Err() != nil {
			break
		}
	}
	return nil, "", mongoerr.New(mongoerr.HostUnreachable, "no member of %s answered %s: %v", s.Name(), cmdName(cmd), last)
}

// withReadPreference adds $readPreference primaryPreferred to cmd (a
// secondary serves only a command that allows it).
func withReadPreference(cmd bson.D) bson.D {
	for _, e := range cmd {
		if e.Key == "$readPreference" {
			return cmd
		}
	}
	out := make(bson.D, len(cmd), len(cmd)+1)
	copy(out, cmd)
	return append(out, bson.E{Key: "$readPreference", Value: bson.D{{Key: "mode", Value: "primaryPreferred"}}})
}

// NotPrimary reports replies that mean "this member is not the primary
// (any more)": the command was not executed, so it may be resent.
func NotPrimary(err error) bool {
	var me *mongoerr.Error
	if !errors.As(err, &me) {
		return false
	}
	switch me.Code {
	case mongoerr.NotWritablePrimary, mongoerr.NotPrimaryNoSecondaryOk, mongoerr.NotPrimaryOrSecondary:
		return true
	}
	return false
}

// SteppedDown reports replies of a command interrupted because its member
// stepped down: it may have done part of its work.
func SteppedDown(err error) bool {
	return mongoerr.Is(err, mongoerr.InterruptedDueToReplStateChange) || mongoerr.Is(err, mongoerr.PrimarySteppedDown)
}

// isDialError reports a failure to connect: nothing was sent.
func isDialError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}
