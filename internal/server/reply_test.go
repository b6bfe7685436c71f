package server

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/command"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/storage"
	"github.com/relaydb/relaydb/internal/wire"
)

// lentBufs records the reply buffer lent with each request.
type lentBufs struct {
	*command.Dispatcher
	lent []*byte // first byte of each lent buffer's backing array
}

func (h *lentBufs) Handle(c *command.Conn, req *command.Request) []byte {
	h.lent = append(h.lent, &req.ReplyBuf[:1][0])
	return h.Dispatcher.Handle(c, req)
}

// A connection lends the command layer one reply buffer and gets it back
// for the next request; replies of different sizes in turn stay intact.
func TestReplyBufferReused(t *testing.T) {
	cat, err := catalog.Open(catalog.Options{Storage: storage.Options{InMemory: true}, TTLInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	h := &lentBufs{Dispatcher: command.NewDispatcher(exec.New(cat, slog.Default()), command.Info{}, slog.Default())}
	s := New(Config{Addrs: []string{"127.0.0.1:0"}}, h)
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	go s.Serve()
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	}()
	c := dial(t, s.Addr().String())
	c.SetDeadline(time.Now().Add(10 * time.Second))
	cmds := []bson.D{
		{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}},
		{{Key: "listCommands", Value: 1}, {Key: "$db", Value: "admin"}}, // outgrows the first buffer
		{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}},
		{{Key: "noSuchCommand", Value: 1}, {Key: "$db", Value: "admin"}},
		{{Key: "listCommands", Value: 1}, {Key: "$db", Value: "admin"}},
		{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}},
	}
	for i, cmd := range cmds {
		doc, _ := bson.Marshal(cmd)
		if _, err := c.Write(wire.AppendMsg(nil, int32(i+1), 0, 0, doc)); err != nil {
			t.Fatal(err)
		}
		_, body, err := wire.ReadMessage(c, 0)
		if err != nil {
			t.Fatal(err)
		}
		msg, err := wire.ParseMsg(body)
		if err != nil {
			t.Fatal(err)
		}
		ok, _ := msg.Body.Lookup("ok").AsFloat64OK()
		if want := cmd[0].Key != "noSuchCommand"; (ok == 1) != want {
			t.Fatalf("%s: reply %v", cmd[0].Key, msg.Body)
		}
		if cmd[0].Key == "listCommands" && len(body) < 4<<10 {
			t.Fatalf("listCommands reply of %d bytes does not outgrow the first buffer", len(body))
		}
		if _, err := msg.Body.LookupErr("commands", "find"); cmd[0].Key == "listCommands" && err != nil {
			t.Fatalf("listCommands reply without find: %v", err)
		}
	}
	// listCommands' reply grows the buffer; from then on the same (grown)
	// buffer is lent each time.
	if len(h.lent) != len(cmds) {
		t.Fatalf("%d requests seen, want %d", len(h.lent), len(cmds))
	}
	if h.lent[1] != h.lent[0] {
		t.Fatal("the second request was lent a new buffer")
	}
	if h.lent[2] == h.lent[1] {
		t.Fatal("the grown buffer was not handed back")
	}
	for i := 3; i < len(h.lent); i++ {
		if h.lent[i] != h.lent[2] {
			t.Fatalf("request %d was lent a new buffer", i)
		}
	}
}
