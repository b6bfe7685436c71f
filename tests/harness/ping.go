package harness

import (
	"context"
	"net"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Ping connects with opts, pings (within 5 s) and disconnects: whether
// a client so configured gets in (logins, TLS, allowlists).
func Ping(opts *options.ClientOptions) error {
	cl, err := mongo.Connect(opts)
	if err != nil {
		return err
	}
	defer cl.Disconnect(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return cl.Ping(ctx, nil)
}

// PingFrom pings uri from the loopback address local (127.0.0.2, ...),
// as an --ipAllowlist test's client; dialing and server selection give
// up after 2 s.
func PingFrom(uri, local string) error {
	d := &net.Dialer{Timeout: 2 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
	return Ping(options.Client().ApplyURI(uri).SetDialer(d).SetServerSelectionTimeout(2 * time.Second))
}
