package netclient

import (
	"net"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/wire"
)

// opMsgHandler answers one OP_MSG command of a fake server's connection;
// keep false drops the connection instead of answering.
type opMsgHandler func(cmd bson.D) (reply bson.D, keep bool)

// listenOpMsg listens on a free loopback port until t ends and serves
// every connection with the handler newConn makes for it (state kept in
// the handler is the connection's).
func listenOpMsg(t testing.TB, newConn func() opMsgHandler) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go serveOpMsg(nc, newConn())
		}
	}()
	return ln
}

// serveOpMsg answers nc's OP_MSG commands with handle until the peer
// closes, a message is malformed or handle drops the connection; it
// closes nc.
func serveOpMsg(nc net.Conn, handle opMsgHandler) {
	defer nc.Close()
	for {
		h, body, err := wire.ReadMessage(nc, 0)
		if err != nil {
			return
		}
		m, err := wire.ParseMsg(body)
		if err != nil {
			return
		}
		cmd, _ := bsonx.Decode(m.Body)
		reply, keep := handle(cmd)
		if !keep {
			return
		}
		raw, _ := bsonx.Encode(reply)
		if _, err := nc.Write(wire.AppendMsg(nil, 1, h.RequestID, 0, raw)); err != nil {
			return
		}
	}
}
