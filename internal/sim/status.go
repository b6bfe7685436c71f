package sim

import (
	"errors"
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/repl/topology"
)

// reconfig runs replSetReconfig on the primary with the current config
// changed by edit (its version bumped); the others learn it by heartbeat.
func (cl *Cluster) reconfig(edit func(members bson.A) bson.A) error {
	p := cl.Primary()
	if p < 0 {
		return errors.New("sim: reconfig: no primary")
	}
	m := cl.members[p]
	reply, err := m.run("admin", bson.D{{Key: "replSetGetConfig", Value: int32(1)}})
	if err != nil {
		return fmt.Errorf("sim: replSetGetConfig: %w", err)
	}
	v, _ := bsonx.Get(reply, "config")
	cfg, _ := v.(bson.D)
	out := make(bson.D, 0, len(cfg))
	for _, e := range cfg {
		switch e.Key {
		case "version":
			n, _ := bsonx.AsInt64(e.Value)
			e.Value = n + 1
		case "members":
			ms, _ := e.Value.(bson.A)
			e.Value = edit(ms)
		}
		out = append(out, e)
	}
	if _, err := m.run("admin", bson.D{{Key: "replSetReconfig", Value: out}}); err != nil {
		return fmt.Errorf("sim: replSetReconfig: %w", err)
	}
	cl.eventf("n%d reconfig version=%d", m.id, m.coord.View().ConfigVersion)
	return nil
}

// AddMember starts a new, empty member and adds it to the config
// (non-voting past the seventh voter); it initial-syncs from its source.
func (cl *Cluster) AddMember() error {
	id, voters := 0, 0
	for _, m := range cl.members {
		id = max(id, m.id+1)
	}
	if err := cl.addMember(id); err != nil {
		return err
	}
	m := cl.members[len(cl.members)-1]
	return cl.reconfig(func(ms bson.A) bson.A {
		for _, v := range ms {
			if d, ok := v.(bson.D); ok {
				if n, ok := bsonx.Get(d, "votes"); !ok || !isZero(n) {
					voters++
				}
			}
		}
		doc := bson.D{{Key: "_id", Value: int32(m.id)}, {Key: "host", Value: m.host}}
		if voters >= topology.MaxVotingMembers {
			doc = append(doc, bson.E{Key: "votes", Value: int32(0)}, bson.E{Key: "priority", Value: int32(0)})
		}
		return append(append(bson.A(nil), ms...), doc)
	})
}

// SetPriority gives member id the priority p.
func (cl *Cluster) SetPriority(id int, p float64) error {
	return cl.reconfig(func(ms bson.A) bson.A {
		out := make(bson.A, 0, len(ms))
		for _, v := range ms {
			d, _ := v.(bson.D)
			if n, _ := bsonx.Get(d, "_id"); isID(n, id) {
				d = setField(d, "priority", p)
			}
			out = append(out, d)
		}
		return out
	})
}

func isZero(v any) bool {
	n, ok := bsonx.AsInt64(v)
	return ok && n == 0
}

func isID(v any, id int) bool {
	n, ok := bsonx.AsInt64(v)
	return ok && n == int64(id)
}

func setField(d bson.D, key string, v any) bson.D {
	out := append(bson.D(nil), d...)
	for i := range out {
		if out[i].Key == key {
			out[i].Value = v
			return out
		}
	}
	return append(out, bson.E{Key: key, Value: v})
}

// Status prints one line per member: state, term, last OpTime, commit
// point, sync source, oplog length and document count. OpTimes print
// seconds since the start.
func (cl *Cluster) Status() string {
	var b strings.Builder
	for _, m := range cl.members {
		if !m.alive {
			fmt.Fprintf(&b, "n%d DOWN\n", m.id)
			continue
		}
		l, err := readLog(m)
		if err != nil {
			cl.fail(err)
			return ""
		}
		docs, err := documents(m)
		if err != nil {
			cl.fail(err)
			return ""
		}
		v := m.view
		fmt.Fprintf(&b, "n%d %s term=%d last=%s commit=%s src=%s oplog=%d docs=%d\n",
			m.id, v.State, v.Term, cl.fmtOp(m.last()), cl.fmtOp(v.CommitPoint), short(v.SyncSource), len(l.ops), len(docs))
	}
	return strings.TrimRight(b.String(), "\n")
}

// last returns the OpTime of m's newest oplog entry.
func (m *Member) last() topology.OpTime {
	ts, term := m.cat.Oplog().Top()
	return topology.OpTime{TS: ts, Term: term}
}

func (cl *Cluster) fmtOp(op topology.OpTime) string {
	if op.IsZero() {
		return "0"
	}
	return fmt.Sprintf("%d:%d@%d", int64(op.TS.T)-cl.t0.Unix(), op.TS.I, op.Term)
}
