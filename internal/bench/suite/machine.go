package suite

import (
	"context"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/relaydb/relaydb/internal/bench/machine"
)

// Machine is what a reader needs to compare results between machines.
type Machine struct {
	machine.Facts
	GitCommit     string `json:"gitCommit,omitempty"`
	ServerVersion string `json:"serverVersion,omitempty"`
	Target        string `json:"target"`
}

// machineFacts gathers the facts of this machine and the target server.
func machineFacts(ctx context.Context, uri, commit string, now time.Time) Machine {
	return Machine{Facts: machine.This(now), GitCommit: machine.Commit(commit),
		ServerVersion: serverVersion(ctx, uri), Target: redact(uri)}
}

// serverVersion asks the server at uri for its version, "" if it cannot.
func serverVersion(ctx context.Context, uri string) string {
	cl, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		return ""
	}
	defer cl.Disconnect(context.Background())
	var bi struct {
		Version string `bson:"version"`
	}
	if cl.Database("admin").RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}).Decode(&bi) != nil {
		return ""
	}
	return bi.Version
}

// redact drops a password from a mongodb:// URI.
func redact(uri string) string {
	scheme, rest, ok := strings.Cut(uri, "://")
	if !ok {
		return uri
	}
	creds, host, ok := strings.Cut(rest, "@")
	if !ok {
		return uri
	}
	user, _, _ := strings.Cut(creds, ":")
	return scheme + "://" + user + ":***@" + host
}
