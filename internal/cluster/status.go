package cluster

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// MemberStatus is one member as the process table and replSetGetStatus
// see it. The replSetGetStatus fields are zero when no member answered.
type MemberStatus struct {
	Name       string
	Role       Role
	Host       string
	PID        int
	Alive      bool    // the process runs
	State      string  // stateStr, e.g. PRIMARY, SECONDARY, (not reachable/healthy)
	Health     float64 // 1 up, 0 down, as the reporting member sees it
	SyncSource string  // syncSourceHost
	Optime     bson.Timestamp
	LagSecs    float64 // primary's optime minus this member's, in seconds
}

// Status is a cluster's state at one moment.
type Status struct {
	Set     string
	From    string // host whose replSetGetStatus is shown; "" if none answered
	Err     string // why no replSetGetStatus is shown
	Members []MemberStatus
}

// rsStatus is the part of a replSetGetStatus reply Status reads.
type rsStatus struct {
	Set     string `bson:"set"`
	Members []struct {
		Name       string  `bson:"name"`
		Health     float64 `bson:"health"`
		StateStr   string  `bson:"stateStr"`
		SyncSource string  `bson:"syncSourceHost"`
		Optime     struct {
			TS bson.Timestamp `bson:"ts"`
		} `bson:"optime"`
	} `bson:"members"`
}

// Status asks the first reachable member (the primary first) for
// replSetGetStatus and joins it with process liveness.
func (c *Cluster) Status(ctx context.Context) Status {
	st := Status{Set: c.spec.Name}
	rs, from, err := c.getStatus(ctx)
	if err != nil {
		st.Err = err.Error()
	}
	st.From = from
	byHost := map[string]int{}
	for i, m := range rs.Members {
		byHost[m.Name] = i
	}
	primaryTS := primaryOptime(rs)
	for _, m := range c.members {
		ms := MemberStatus{Name: m.Name, Role: m.Role, Host: m.Host, PID: m.PID, Alive: c.Alive(m)}
		if i, ok := byHost[m.Host]; ok {
			r := rs.Members[i]
			ms.State, ms.Health, ms.SyncSource, ms.Optime = r.StateStr, r.Health, r.SyncSource, r.Optime.TS
			if m.Role != RoleArbiter && primaryTS.T > 0 && r.Optime.TS.T > 0 {
				ms.LagSecs = float64(int64(primaryTS.T) - int64(r.Optime.TS.T))
			}
		}
		st.Members = append(st.Members, ms)
	}
	return st
}

func (c *Cluster) getStatus(ctx context.Context) (rsStatus, string, error) {
	order := c.members
	if p, err := c.Primary(ctx); err == nil {
		order = append([]*Member{p}, c.members...)
	}
	var errs []error
	for _, m := range order {
		if !c.Alive(m) {
			continue
		}
		var rs rsStatus
		err := c.RunAdmin(ctx, m, bson.D{{Key: "replSetGetStatus", Value: 1}}, &rs)
		if err == nil {
			return rs, m.Host, nil
		}
		errs = append(errs, fmt.Errorf("%s: %w", m.Name, err))
	}
	if len(errs) == 0 {
		return rsStatus{}, "", errors.New("no member is running")
	}
	return rsStatus{}, "", fmt.Errorf("replSetGetStatus failed everywhere: %w", errors.Join(errs...))
}

func primaryOptime(rs rsStatus) bson.Timestamp {
	for _, m := range rs.Members {
		if m.StateStr == "PRIMARY" {
			return m.Optime.TS
		}
	}
	return bson.Timestamp{}
}

// SelfOpTime returns the ts of the last entry the member cl is directly
// connected to has applied (its own optime in replSetGetStatus).
func SelfOpTime(ctx context.Context, cl *mongo.Client) (bson.Timestamp, error) {
	var st struct {
		Members []struct {
			Self   bool `bson:"self"`
			Optime struct {
				TS bson.Timestamp `bson:"ts"`
			} `bson:"optime"`
		} `bson:"members"`
	}
	if err := cl.Database("admin").RunCommand(ctx, bson.D{{Key: "replSetGetStatus", Value: 1}}).Decode(&st); err != nil {
		return bson.Timestamp{}, fmt.Errorf("cluster: replSetGetStatus: %w", err)
	}
	for _, m := range st.Members {
		if m.Self {
			return m.Optime.TS, nil
		}
	}
	return bson.Timestamp{}, errors.New("cluster: replSetGetStatus names no member as self")
}
