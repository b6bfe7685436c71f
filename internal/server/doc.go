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
package server
