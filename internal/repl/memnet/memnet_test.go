package memnet

import (
	"context"
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

type result struct {
	reply bson.D
	err   error
	calls int
}

func (r *result) done(reply bson.D, err error) { r.reply, r.err, r.calls = reply, err, r.calls+1 }

func echo(host string) Handler {
	return func(_ context.Context, cmd bson.D) (bson.D, error) {
		return bson.D{{Key: "from", Value: host}, {Key: "cmd", Value: cmd[0].Key}}, nil
	}
}

func TestSendQueuesUntilDelivered(t *testing.T) {
	n := New()
	n.Register("b", echo("b"))
	var r result
	n.Endpoint("a").Send("b", bson.D{{Key: "ping", Value: 1}}, 0, r.done)
	if r.calls != 0 || n.Len() != 1 {
		t.Fatalf("Send completed at once: calls %d, queued %d", r.calls, n.Len())
	}
	m := n.Pending()[0]
	if m.From != "a" || m.To != "b" || m.Name() != "ping" || m.Seq != 1 {
		t.Fatalf("message %v", m)
	}
	n.Deliver(0)
	if r.calls != 1 || r.err != nil || r.reply[0].Value != "b" || n.Len() != 0 {
		t.Fatalf("after Deliver: %+v, queued %d", r, n.Len())
	}
}

func TestDropAndPartitions(t *testing.T) {
	n := New()
	for _, h := range []string{"a", "b", "c"} {
		n.Register(h, echo(h))
	}
	var dropped, cut, iso, ok, healed result
	n.Endpoint("a").Send("b", bson.D{{Key: "x", Value: 1}}, 0, dropped.done)
	n.Drop(0)
	n.Partition("a", "b", true)
	n.Endpoint("b").Send("a", bson.D{{Key: "x", Value: 1}}, 0, cut.done)
	n.Isolate("c", true)
	n.Endpoint("a").Send("c", bson.D{{Key: "x", Value: 1}}, 0, iso.done)
	n.Partition("a", "c", true)
	n.Endpoint("c").Send("b", bson.D{{Key: "x", Value: 1}}, 0, ok.done) // c isolated: fails too
	if got := n.Flush(10); got != 3 {
		t.Fatalf("Flush delivered %d", got)
	}
	for name, r := range map[string]result{"dropped": dropped, "cut": cut, "isolated": iso, "from isolated": ok} {
		if r.calls != 1 || !errors.Is(r.err, ErrDropped) {
			t.Fatalf("%s: %+v", name, r)
		}
	}
	n.HealAll()
	n.Endpoint("b").Send("a", bson.D{{Key: "x", Value: 1}}, 0, healed.done)
	n.Flush(10)
	if healed.err != nil {
		t.Fatalf("after HealAll: %v", healed.err)
	}
}

func TestDeliverOutOfOrderAndNestedSends(t *testing.T) {
	n := New()
	var order []string
	n.Register("b", func(_ context.Context, cmd bson.D) (bson.D, error) {
		order = append(order, cmd[0].Key)
		if cmd[0].Key == "first" { // an answer that sends: queued behind the rest
			n.Endpoint("b").Send("b", bson.D{{Key: "nested", Value: 1}}, 0, func(bson.D, error) {})
		}
		return bson.D{}, nil
	})
	ep := n.Endpoint("a")
	for _, k := range []string{"first", "second", "third"} {
		ep.Send("b", bson.D{{Key: k, Value: 1}}, 0, func(bson.D, error) {})
	}
	n.Deliver(2)
	n.Flush(10)
	want := []string{"third", "first", "second", "nested"}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("order %v, want %v", order, want)
		}
	}
}

func TestUnknownHostFails(t *testing.T) {
	n := New()
	var r result
	n.Endpoint("a").Send("nowhere", bson.D{{Key: "x", Value: 1}}, 0, r.done)
	n.Deliver(0)
	if !errors.Is(r.err, ErrDropped) {
		t.Fatalf("err %v", r.err)
	}
}

func TestFlushPanicsWhenItNeverSettles(t *testing.T) {
	n := New()
	var ping func(bson.D, error)
	ping = func(bson.D, error) { n.Endpoint("a").Send("a", bson.D{{Key: "again", Value: 1}}, 0, ping) }
	n.Register("a", echo("a"))
	n.Endpoint("a").Send("a", bson.D{{Key: "again", Value: 1}}, 0, ping)
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	n.Flush(5)
}
