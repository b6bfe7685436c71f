"""Minimal MongoDB wire-protocol client for tests that need raw bytes.

Builds OP_MSG (optionally with a CRC-32C checksum or a document sequence)
and OP_COMPRESSED messages, and reads one reply. Used to send what pymongo
never would: truncated frames, bad checksums, oversized documents.
"""

import socket
import struct
import zlib

import bson

OP_COMPRESSED = 2012
OP_MSG = 2013
FLAG_CHECKSUM = 1 << 0
FLAG_MORE_TO_COME = 1 << 1
COMPRESSOR_IDS = {"noop": 0, "snappy": 1, "zlib": 2, "zstd": 3}


def _crc32c_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_CRC_TABLE = _crc32c_table()


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc = _CRC_TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def op_msg(body, request_id=1, flags=0, sequences=None, checksum=None):
    """Encodes an OP_MSG. checksum: None (none), "good", or an int to use."""
    payload = b"\x00" + bson.encode(body)
    for ident, docs in (sequences or {}).items():
        seq = ident.encode() + b"\x00" + b"".join(bson.encode(d) for d in docs)
        payload += b"\x01" + struct.pack("<i", 4 + len(seq)) + seq
    if checksum is not None:
        flags |= FLAG_CHECKSUM
    body_bytes = struct.pack("<I", flags) + payload
    length = 16 + len(body_bytes) + (4 if checksum is not None else 0)
    msg = struct.pack("<iiii", length, request_id, 0, OP_MSG) + body_bytes
    if checksum == "good":
        msg += struct.pack("<I", crc32c(msg))
    elif checksum is not None:
        msg += struct.pack("<I", checksum)
    return msg


def compress(msg, compressor):
    """Wraps an encoded message (header included) in OP_COMPRESSED."""
    length, request_id, response_to, opcode = struct.unpack("<iiii", msg[:16])
    body = msg[16:]
    if compressor == "zlib":
        data = zlib.compress(body)
    elif compressor == "snappy":
        import snappy
        data = snappy.compress(body)
    elif compressor == "zstd":
        import zstandard
        data = zstandard.ZstdCompressor().compress(body)
    else:
        data = body
    rest = struct.pack("<iiB", opcode, len(body), COMPRESSOR_IDS[compressor]) + data
    return struct.pack("<iiii", 16 + len(rest), request_id, response_to,
                       OP_COMPRESSED) + rest


def _decompress(compressor_id, data):
    if compressor_id == 0:
        return data
    if compressor_id == 1:
        import snappy
        return snappy.uncompress(data)
    if compressor_id == 2:
        return zlib.decompress(data)
    if compressor_id == 3:
        import zstandard
        # Frames need not record their content size: stream-decompress.
        return zstandard.ZstdDecompressor().decompressobj().decompress(data)
    raise ValueError(f"unknown compressor id {compressor_id}")


class Reply:
    def __init__(self, response_to, opcode, doc, compressed_by=None):
        self.response_to = response_to
        self.opcode = opcode
        self.doc = doc
        self.compressed_by = compressed_by


def connect(host, port, timeout=5.0):
    s = socket.create_connection((host, port), timeout=timeout)
    s.settimeout(timeout)
    return s


def recv_exact(sock, n):
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("connection closed by server")
        buf += chunk
    return buf


def read_reply(sock):
    """Reads one OP_MSG reply (decompressing OP_COMPRESSED)."""
    header = recv_exact(sock, 16)
    length, _, response_to, opcode = struct.unpack("<iiii", header)
    if not 16 < length <= 48_000_000:
        raise ValueError(f"reply with impossible length {length}")
    body = recv_exact(sock, length - 16)
    compressed_by = None
    if opcode == OP_COMPRESSED:
        opcode, _size, cid = struct.unpack("<iiB", body[:9])
        compressed_by = cid
        body = _decompress(cid, body[9:])
    if opcode != OP_MSG:
        raise AssertionError(f"unexpected reply opcode {opcode}")
    flags = struct.unpack("<I", body[:4])[0]
    end = len(body) - (4 if flags & FLAG_CHECKSUM else 0)
    assert body[4] == 0, "reply must start with a kind-0 section"
    doc = bson.decode(body[5:end])
    return Reply(response_to, opcode, doc, compressed_by)


def roundtrip(sock, body, request_id=1, **kw):
    sock.sendall(op_msg(body, request_id=request_id, **kw))
    return read_reply(sock)


def closed_or_error(sock):
    """After a bad message: "closed" if the server hung up, else the
    error reply's document (which must have ok: 0)."""
    try:
        reply = read_reply(sock)
    except (ConnectionError, OSError):  # socket.timeout is an OSError: fail below
        if closes_soon(sock, 0.1):
            return "closed"
        raise
    assert reply.doc.get("ok") == 0, reply.doc
    return reply.doc


def closes_soon(sock, timeout=5.0):
    """True if the server closes the connection within timeout (any bytes
    it sends first are ignored)."""
    sock.settimeout(timeout)
    try:
        while sock.recv(65536):
            pass
    except ConnectionError:
        return True
    except socket.timeout:
        return False
    return True


OP_QUERY = 2004
OP_REPLY = 1


def op_query(collection, query, request_id=1):
    """Encodes a legacy OP_QUERY (what drivers send for the first hello)."""
    body = (struct.pack("<i", 0) + collection.encode() + b"\x00" +
            struct.pack("<ii", 0, -1) + bson.encode(query))
    return struct.pack("<iiii", 16 + len(body), request_id, 0, OP_QUERY) + body


def read_op_reply(sock):
    """Reads one OP_REPLY and returns (response_to, first document)."""
    header = recv_exact(sock, 16)
    length, _, response_to, opcode = struct.unpack("<iiii", header)
    if opcode != OP_REPLY or not 36 <= length <= 48_000_000:
        raise AssertionError(f"expected OP_REPLY, got opcode {opcode} length {length}")
    body = recv_exact(sock, length - 16)
    _flags, _cursor, _start, n = struct.unpack("<iqii", body[:20])
    assert n == 1, n
    return response_to, bson.decode(body[20:])
