package command

import (
	"crypto/x509"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Conn is the per-connection state the command layer keeps.
type Conn struct {
	ID         int64
	Remote     string
	Local      string
	mu         sync.Mutex
	clientMeta bson.D
	helloDone  bool
	auth       connAuth // authenticated users and the SASL conversation (auth.go)
	// peerCert is the client's verified TLS certificate (x509.go), or nil.
	peerCert *x509.Certificate
}

// appName returns the client's application name from its hello metadata.
func (c *Conn) appName() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.clientMeta {
		if e.Key == "application" {
			if d, ok := e.Value.(bson.D); ok {
				for _, f := range d {
					if f.Key == "name" {
						s, _ := f.Value.(string)
						return s
					}
				}
			}
		}
	}
	return ""
}

// NewConn returns the state for a new connection.
func NewConn(id int64, remote, local string) *Conn {
	return &Conn{ID: id, Remote: remote, Local: local}
}

// Request is one OP_MSG: a body and its document sequences.
type Request struct {
	Body       []byte
	Sequences  []Sequence
	MoreToCome bool
	// CloseConn is set by the command layer when the connection must be
	// closed instead of answered (the failCommand fail point).
	CloseConn bool
	// ReplyBuf, when not nil, is a buffer the reply may be encoded into
	// (from its start): the caller owns it and reuses it once the reply
	// has been sent, so a connection encodes every reply into one buffer.
	// The dispatcher stores the buffer back (grown, emptied) when it used
	// it; the caller takes only that one back.
	ReplyBuf []byte
}

// Sequence is an OP_MSG kind-1 section.
type Sequence struct {
	Identifier string
	Docs       []bson.Raw
}
