package command

// PeerSubject is the verified TLS client certificate's subject (RFC 2253),
// or "" without one: the router's MONGODB-X509 login reads it.
func (c *Conn) PeerSubject() string { return c.peerSubject() }
