// Package faultproxy is a fault-injecting TCP proxy for partition tests:
// it listens on a loopback port and forwards every connection to one
// target, and at run time it can drop, blackhole or delay the traffic and
// heal again.
//
// Modes (Proxy.Mode):
//   - Pass: bytes are forwarded both ways (after Delay, if set).
//   - Drop: every open connection is closed at once and new ones are
//     accepted and closed immediately (the peer sees a reset/EOF, as after
//     a crashed process).
//   - Blackhole: connections stay open but nothing is forwarded in either
//     direction (bytes read are discarded); new connections are accepted
//     and never reach the target. The peer sees a silent network, as in a
//     partition, and only its own timeouts end the wait.
//
// Heal returns to Pass with no delay and closes every connection that was
// blackholed: the bytes it swallowed are gone, so the stream cannot be
// resumed (a real partition long enough to matter ends the same way, by
// TCP or application timeouts).
//
// Invariants:
//   - Order is preserved per direction: Delay shifts every chunk by the
//     same duration and one writer goroutine per direction delivers them
//     in read order.
//   - A chunk read while blackholed is never delivered, even after Heal.
//   - Close stops the listener and closes every connection; no goroutine
//     outlives Close by more than the time to notice closed sockets.
package faultproxy
