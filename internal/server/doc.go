// Package server owns the listener and the connections: one goroutine per
// connection reads a message, hands the command to the command layer and
// writes the reply. It holds per-connection state (id, client metadata,
// negotiated compressors) and per-request metrics.
//
// Invariants:
//   - A malformed frame never crashes the process or stalls a goroutine: the
//     connection gets an error reply when the frame could be delimited, and is
//     closed otherwise.
//   - A request with moreToCome (w:0) gets no reply, whatever happens.
//   - Replies to a compressed request are compressed with the same compressor.
//   - A message, once its first byte has arrived, must complete within
//     Config.MessageTimeout (default 30 s) or the connection is closed; a
//     connection idle between messages is never timed out, as with mongod.
//   - Accept failures (EMFILE, ...) never spin: the accept loop backs off
//     5 ms doubling to 1 s, reset by a success, and warns at most once per
//     10 s with the count of failures suppressed; refusals at MaxConns are
//     throttled the same way.
//   - With TLS (Config.TLS, tls.go) a connection's first bytes and its
//     handshake must arrive within TLS.HandshakeTimeout (default 10 s) or it
//     is closed; the handshake runs on the connection's goroutine, never on
//     the accept loop; in requireTLS a plain connection is closed (and
//     logged with its address) before any command runs.
//   - With Config.Allowlist set, a client it excludes is closed right after
//     accept, before a byte is read (refusals counted, warnings throttled
//     as above), and a newly stored policy closes the open connections it
//     excludes at once (allowlist.go).
package server
