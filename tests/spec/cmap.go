package spec

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
)

// cmapEventNames maps the driver's pool event types to the unified
// format's event names (observeEvents, expectEvents with eventType cmap).
var cmapEventTypes = map[string]string{
	event.ConnectionPoolCreated:     "poolCreatedEvent",
	event.ConnectionPoolReady:       "poolReadyEvent",
	event.ConnectionPoolCleared:     "poolClearedEvent",
	event.ConnectionPoolClosed:      "poolClosedEvent",
	event.ConnectionCreated:         "connectionCreatedEvent",
	event.ConnectionReady:           "connectionReadyEvent",
	event.ConnectionClosed:          "connectionClosedEvent",
	event.ConnectionCheckOutStarted: "connectionCheckOutStartedEvent",
	event.ConnectionCheckOutFailed:  "connectionCheckOutFailedEvent",
	event.ConnectionCheckedOut:      "connectionCheckedOutEvent",
	event.ConnectionCheckedIn:       "connectionCheckedInEvent",
}

// cmapEventNames is the set of the unified format's pool event names.
var cmapEventNames = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range cmapEventTypes {
		m[n] = true
	}
	return m
}()

// poolMonitor records the pool events the client entity observes.
func (ce *clientEntity) poolMonitor() *event.PoolMonitor {
	return &event.PoolMonitor{Event: func(e *event.PoolEvent) {
		name := cmapEventTypes[e.Type]
		if name == "" || !ce.observe[name] {
			return
		}
		ev := observedEvent{kind: name, payload: bson.D{{Key: "reason", Value: e.Reason}}}
		ce.mu.Lock()
		ce.cmap = append(ce.cmap, ev)
		ce.mu.Unlock()
	}}
}

// matchCMAPEvent compares one expected pool event with an observed one.
func matchCMAPEvent(m *matcher, want bson.D, got observedEvent) error {
	if len(want) != 1 {
		return fmt.Errorf("bad expected event %v", want)
	}
	if want[0].Key != got.kind {
		return fmt.Errorf("want %s, got %s", want[0].Key, got.kind)
	}
	body, _ := want[0].Value.(bson.D)
	for _, f := range body {
		switch f.Key {
		case "reason":
			v, _ := lookup(got.payload, "reason")
			if err := m.match(f.Value, v, false, "$.reason"); err != nil {
				return err
			}
		default:
			// TODO(#2): hasServiceId, connectionId, duration, ... on pool events.
			return runnerErrorf("runner: unsupported cmap event field %q", f.Key)
		}
	}
	return nil
}
