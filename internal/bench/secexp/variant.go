package secexp

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/relaydb/relaydb/internal/bench/suite"
)

// Variant names.
const (
	Plain   = "plain"
	Auth    = "auth"
	TLS     = "tls"
	AuthTLS = "auth+tls"
)

// goals are issue #13's: auth keeps >= 95 % of plain throughput, TLS >= 70 %.
var goals = map[string]float64{Auth: 0.95, TLS: 0.70}

// benchUser is the user an auth variant creates and logs in as.
const benchUser, benchPwd = "bench", "bench-password"

// variant is how one kind of node is started and reached.
type variant struct {
	name string
	auth bool
	tls  bool
}

func parseVariant(name string) (variant, error) {
	switch name {
	case Plain, Auth, TLS, AuthTLS:
		return variant{name: name, auth: name == Auth || name == AuthTLS, tls: name == TLS || name == AuthTLS}, nil
	}
	return variant{}, fmt.Errorf("unknown variant %q (want %s, %s, %s or %s)", name, Plain, Auth, TLS, AuthTLS)
}

// start starts v's node and returns it with the URI the workload uses.
func (v variant) start(ctx context.Context, binary string, certs *certSet) (*suite.Server, string, error) {
	var o suite.ServerOptions
	if v.auth {
		o.Args = append(o.Args, "--auth")
	}
	if v.tls {
		if certs == nil {
			return nil, "", fmt.Errorf("variant %s: no certificates", v.name)
		}
		o.Args = append(o.Args, certs.serverArgs()...)
		o.URIQuery = certs.uriQuery()
	}
	srv, err := suite.StartServerWith(ctx, binary, o, nil)
	if err != nil {
		return nil, "", fmt.Errorf("variant %s: %w", v.name, err)
	}
	if !v.auth {
		return srv, srv.URI, nil
	}
	if err := createUser(ctx, srv.URI); err != nil {
		srv.Stop()
		return nil, "", fmt.Errorf("variant %s: %w", v.name, err)
	}
	return srv, withUser(srv.URI), nil
}

// createUser creates the bench user through the localhost exception.
func createUser(ctx context.Context, uri string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cl, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		return err
	}
	defer cl.Disconnect(context.Background())
	cmd := bson.D{{Key: "createUser", Value: benchUser}, {Key: "pwd", Value: benchPwd},
		{Key: "roles", Value: bson.A{bson.D{{Key: "role", Value: "root"}, {Key: "db", Value: "admin"}}}}}
	if err := cl.Database("admin").RunCommand(ctx, cmd).Err(); err != nil {
		return fmt.Errorf("create the bench user: %w", err)
	}
	return nil
}

// withUser adds the bench user's credentials to a mongodb:// URI.
func withUser(uri string) string {
	u, err := url.Parse(uri)
	if err != nil {
		return uri
	}
	u.User = url.UserPassword(benchUser, benchPwd)
	q := u.Query()
	q.Set("authSource", "admin")
	u.RawQuery = q.Encode()
	return u.String()
}
