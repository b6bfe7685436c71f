package cluster

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// commandTimeout bounds each single command sent to a member.
const commandTimeout = 5 * time.Second

// HelloReply is the part of a member's hello reply that SDAM reads.
type HelloReply struct {
	SetName           string        `bson:"setName"`
	SetVersion        int64         `bson:"setVersion"`
	IsWritablePrimary bool          `bson:"isWritablePrimary"`
	Secondary         bool          `bson:"secondary"`
	ArbiterOnly       bool          `bson:"arbiterOnly"`
	Hidden            bool          `bson:"hidden"`
	Passive           bool          `bson:"passive"`
	Primary           string        `bson:"primary"`
	Me                string        `bson:"me"`
	Hosts             []string      `bson:"hosts"`
	Passives          []string      `bson:"passives"`
	Arbiters          []string      `bson:"arbiters"`
	ElectionID        bson.ObjectID `bson:"electionId"`
	IsReplicaSet      bool          `bson:"isreplicaset"`
}

// Client returns a direct connection to m (directConnection=true), shared
// and closed by Down. Reads through it may go to a secondary: the driver
// sends primaryPreferred on direct connections.
func (c *Cluster) Client(m *Member) (*mongo.Client, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cl := c.clients[m.Name]; cl != nil {
		return cl, nil
	}
	opts := c.spec.Secrets.clientOptions(m.Host, c.spec.AdminReady).SetDirect(true).
		SetServerSelectionTimeout(2 * time.Second).SetConnectTimeout(2 * time.Second).
		SetHeartbeatInterval(500 * time.Millisecond).SetRetryWrites(false).SetRetryReads(false)
	cl, err := mongo.Connect(opts)
	if err != nil {
		return nil, fmt.Errorf("cluster: connect to %s: %w", m.Name, err)
	}
	c.clients[m.Name] = cl
	return cl, nil
}

func (c *Cluster) closeClients() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for name, cl := range c.clients {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_ = cl.Disconnect(ctx)
		cancel()
		delete(c.clients, name)
	}
}

// RunAdmin runs cmd on m's admin database (bounded by commandTimeout) and
// decodes the reply into out (which may be nil).
func (c *Cluster) RunAdmin(ctx context.Context, m *Member, cmd bson.D, out any) error {
	cl, err := c.Client(m)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	res := cl.Database("admin").RunCommand(ctx, cmd)
	if out == nil {
		return res.Err()
	}
	return res.Decode(out)
}

func (c *Cluster) ping(ctx context.Context, m *Member) error {
	return c.RunAdmin(ctx, m, bson.D{{Key: "ping", Value: 1}}, nil)
}

// Hello runs hello on m.
func (c *Cluster) Hello(ctx context.Context, m *Member) (HelloReply, error) {
	var h HelloReply
	err := c.RunAdmin(ctx, m, bson.D{{Key: "hello", Value: 1}}, &h)
	return h, err
}

// initiate sends replSetInitiate with the full config to the first member.
func (c *Cluster) initiate(ctx context.Context) error {
	ports := make([]int, len(c.members))
	for i, m := range c.members {
		ports[i] = m.Port
	}
	cfg, err := InitiateConfig(c.spec, ports)
	if err != nil {
		return err
	}
	err = c.RunAdmin(ctx, c.members[0], bson.D{{Key: "replSetInitiate", Value: cfg}}, nil)
	if err != nil {
		return fmt.Errorf("cluster: replSetInitiate on %s: %w", c.members[0].Host, err)
	}
	return nil
}

// Primary returns the member that reports itself writable primary; with
// more than one (a stale primary not yet stepped down) the one with the
// highest electionId. It does not wait.
func (c *Cluster) Primary(ctx context.Context) (*Member, error) {
	var best *Member
	var bestID bson.ObjectID
	for _, m := range c.members {
		if m.Role == RoleArbiter || !c.Alive(m) {
			continue
		}
		h, err := c.Hello(ctx, m)
		if err != nil || !h.IsWritablePrimary {
			continue
		}
		if best == nil || bytes.Compare(h.ElectionID[:], bestID[:]) > 0 {
			best, bestID = m, h.ElectionID
		}
	}
	if best == nil {
		return nil, fmt.Errorf("cluster: no member of %s reports isWritablePrimary", c.spec.Name)
	}
	return best, nil
}

// WaitPrimary polls Primary until one is found or ctx is done.
func (c *Cluster) WaitPrimary(ctx context.Context) (*Member, error) {
	for {
		m, err := c.Primary(ctx)
		if err == nil {
			return m, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w (%v)", err, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}
