package auth

import (
	"errors"
	"log/slog"
	"net"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Refuse turns a failed login's error into MongoDB's reply error: an
// unknown mechanism is MechanismUnavailable (334), a malformed exchange
// ProtocolError (17), anything else AuthenticationFailed (18) with no
// reason (the reason is logged with the client's address). A failed
// login waits as t says for remote's host; done ends the wait early
// (shutdown). Data nodes and routers answer logins alike through it.
func (t *Throttle) Refuse(log *slog.Logger, remote, mech string, err error, done <-chan struct{}) error {
	if errors.Is(err, ErrMechanismUnavailable) {
		return mongoerr.New(mongoerr.MechanismUnavailable, "Received authentication for mechanism %s which is unknown or not enabled", mech)
	}
	delay := t.Fail(RemoteHost(remote))
	log.Info("authentication failed", "mechanism", mech, "remote", remote, "reason", err.Error(), "delay", delay)
	if delay > 0 {
		timer := time.NewTimer(delay)
		select {
		case <-timer.C:
		case <-done:
			timer.Stop()
		}
	}
	if errors.Is(err, ErrProtocol) {
		return mongoerr.New(mongoerr.ProtocolError, "%v", err)
	}
	return mongoerr.New(mongoerr.AuthenticationFailed, "Authentication failed.")
}

// RemoteHost is a "host:port" address's host.
func RemoteHost(remote string) string {
	if h, _, err := net.SplitHostPort(remote); err == nil {
		return h
	}
	return remote
}

// SASLPayload reads a saslStart/saslContinue payload: BinData, or a string
// (legacy shells).
func SASLPayload(v any) ([]byte, error) {
	switch p := v.(type) {
	case bson.Binary:
		return p.Data, nil
	case string:
		return []byte(p), nil
	}
	return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field 'payload' is the wrong type, expected BinData or string")
}
