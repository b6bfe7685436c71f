// Package wire frames MongoDB wire protocol messages: the 16-byte header,
// OP_MSG (flag bits, kind-0 body and kind-1 document sequences, CRC-32C
// checksum), the legacy OP_QUERY / OP_REPLY pair drivers still use for the
// first handshake, and OP_COMPRESSED (noop, snappy, zlib, zstd).
//
// It knows nothing about commands: it turns bytes into sections and
// sections into bytes, and does no I/O beyond the io.Reader it is handed.
//
// Invariants:
//   - No read allocates more than the message's declared length, and a
//     declared length is checked against the caller's maximum before any
//     allocation; OP_COMPRESSED's uncompressedSize is checked the same way
//     and the decompressed size must equal it exactly.
//   - A claimed size alone never sizes an allocation: decompression output
//     is also bounded by the real payload. snappy and zlib claims above
//     their structural ratio (22 and 1032 bytes per payload byte) are
//     refused unallocated; zlib output grows by doubling only as real output
//     fills it; zstd allocates no more than its block headers can produce
//     (128 KiB per 3-byte header). FuzzCompressedAlloc checks the resulting
//     bound: allocation <= allocPerPayloadByte x payload + 256 KiB.
//   - Parsed documents (bson.Raw) alias the input slice; nothing is copied.
//     Their length prefixes are checked to fit and to end in a NUL byte; full
//     BSON validation is left to the decoder that reads them (bsonx.Decode).
//   - Append* functions only append to dst: on the server's hot path a reply
//     costs no allocation beyond growing dst.
//   - Every failure is an *Error whose Kind is one of the Err* sentinels
//     (errors.Is works) and whose Fatal method tells the server whether the
//     connection must be closed (framing lost, or MongoDB treats the error as
//     connection-fatal) or a reply with the error is possible.
package wire
