package cluster

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/relaydb/relaydb/internal/tlsconf"
)

// AdminUser is the root user `cluster up --auth` creates.
const AdminUser = "admin"

// Secrets are what a secured cluster's members and clients share: the key
// file members authenticate to each other with, the admin user, and the
// CA and certificates of TLS. Every part of a sharded cluster shares one.
// They are written under the cluster directory with mode 0600 (and
// cluster.json holding the password is 0600 too).
type Secrets struct {
	Auth       bool   `json:",omitempty"`
	KeyFile    string `json:",omitempty"`
	Password   string `json:",omitempty"` // AdminUser's
	TLS        bool   `json:",omitempty"`
	CAFile     string `json:",omitempty"`
	MemberFile string `json:",omitempty"` // members' certificate and key
	ClientFile string `json:",omitempty"` // the tools' client certificate and key
}

// NewSecrets generates a key file and an admin password (auth) and a CA
// with member and client certificates (tls) under dir.
func NewSecrets(dir string, auth, tls bool) (*Secrets, error) {
	s := &Secrets{Auth: auth, TLS: tls}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	if auth {
		key, err := randomString(96)
		if err != nil {
			return nil, err
		}
		key = strings.NewReplacer("-", "+", "_", "/").Replace(key) // a key file holds base64's own alphabet
		s.KeyFile = filepath.Join(dir, "keyfile")
		if err := os.WriteFile(s.KeyFile, []byte(key+"\n"), 0o600); err != nil {
			return nil, fmt.Errorf("cluster: write key file: %w", err)
		}
		if s.Password, err = randomString(18); err != nil {
			return nil, err
		}
	}
	if tls {
		f, err := tlsconf.WriteCluster(filepath.Join(dir, "tls"), nil)
		if err != nil {
			return nil, fmt.Errorf("cluster: certificates: %w", err)
		}
		s.CAFile, s.MemberFile, s.ClientFile = f.CAFile, f.MemberFile, f.ClientFile
	}
	return s, nil
}

// randomString is n random bytes in URL-safe base64 (valid in a key file
// and in a URI's password).
func randomString(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("cluster: random: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// Args are the flags every member and router takes.
func (s *Secrets) Args() []string {
	if s == nil {
		return nil
	}
	var args []string
	if s.Auth {
		args = append(args, "--keyFile", s.KeyFile)
	}
	if s.TLS {
		args = append(args, "--tlsMode", "requireTLS", "--tlsCertificateKeyFile", s.MemberFile,
			"--tlsCAFile", s.CAFile, "--tlsAllowConnectionsWithoutCertificates")
	}
	return args
}

// URI adds the admin's credentials and the TLS options to a mongodb://
// URI with hosts; withUser false leaves the credentials out.
func (s *Secrets) URI(uri string, withUser bool) string {
	if s == nil || (!s.TLS && !(s.Auth && withUser)) {
		return uri
	}
	u, err := url.Parse(uri)
	if err != nil {
		return uri
	}
	q := u.Query()
	if s.Auth && withUser {
		u.User = url.UserPassword(AdminUser, s.Password)
		q.Set("authSource", "admin")
	}
	if s.TLS {
		q.Set("tls", "true")
		q.Set("tlsCAFile", s.CAFile)
		q.Set("tlsCertificateKeyFile", s.ClientFile)
	}
	u.RawQuery = q.Encode()
	if u.Path == "" {
		u.Path = "/"
	}
	return u.String()
}

// clientOptions are the driver options of a direct connection to host,
// logged in as the admin when login is true.
func (s *Secrets) clientOptions(host string, login bool) *options.ClientOptions {
	return options.Client().ApplyURI(s.URI("mongodb://"+host+"/", login))
}

// adminReady reports whether the set's admin user exists (clients log in).
func (c *Cluster) adminReady() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.spec.AdminReady
}

// createAdmin creates the root admin user on m (the primary) through the
// localhost exception, unless it exists.
func (c *Cluster) createAdmin(ctx context.Context, m *Member) error {
	s := c.spec.Secrets
	if s == nil || !s.Auth || c.adminReady() {
		return nil
	}
	cl, err := mongo.Connect(s.clientOptions(m.Host, false).SetDirect(true).SetServerSelectionTimeout(5 * time.Second))
	if err != nil {
		return fmt.Errorf("cluster: connect to %s: %w", m.Name, err)
	}
	defer cl.Disconnect(context.Background())
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := bson.D{{Key: "createUser", Value: AdminUser}, {Key: "pwd", Value: s.Password},
		{Key: "roles", Value: bson.A{bson.D{{Key: "role", Value: "root"}, {Key: "db", Value: "admin"}}}},
		{Key: "writeConcern", Value: bson.D{{Key: "w", Value: "majority"}}}}
	if err := cl.Database("admin").RunCommand(ctx, cmd).Err(); err != nil {
		return fmt.Errorf("cluster: create the admin user on %s: %w", m.Name, err)
	}
	c.closeClients() // the next clients log in
	c.mu.Lock()
	c.spec.AdminReady = true
	c.mu.Unlock()
	return nil
}

// secure gives a part of a sharded cluster the cluster's security.
func (s ShardedSpec) secure(p *Spec) {
	p.Auth, p.TLS, p.Secrets = s.Auth, s.TLS, s.Secrets
}
