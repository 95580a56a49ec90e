"""Reading and rewriting zips byte by byte, for the hostile-input cases.

`Zip.parse(bytes)` finds every entry's central record and local header; the mutators return new
bytes with one thing changed (a data bit, a CRC field, a local name, an offset, a size). `write_zip`
builds a zip from (name, data, method) triples with Python's zipfile, optionally lying about sizes.
"""
from __future__ import annotations

import io
import struct
import zipfile
import zlib
from dataclasses import dataclass

EOCD_SIG = b"PK\x05\x06"
CEN_SIG = b"PK\x01\x02"


@dataclass
class Entry:
    name: str
    cen_offset: int      # of the central record in the file
    header_offset: int   # of the local header
    method: int
    crc: int
    csize: int
    size: int
    name_len: int
    data_offset: int     # from the local header's lengths


class Zip:
    def __init__(self, data: bytes):
        self.data = data
        eocd = data.rfind(EOCD_SIG)
        if eocd < 0:
            raise ValueError("no end record")
        self.eocd = eocd
        (_, _, _, _, self.count, self.cd_size, self.cd_offset, _) = struct.unpack_from("<4sHHHHIIH", data, eocd)
        self.entries: list[Entry] = []
        pos = self.cd_offset
        for _ in range(self.count):
            (sig, _, _, _, method, _, _, crc, csize, size, nlen, xlen, clen, _, _, _, hoff) = struct.unpack_from(
                "<4sHHHHHHIIIHHHHHII", data, pos)
            assert sig == CEN_SIG
            name = data[pos + 46:pos + 46 + nlen].decode("utf-8")
            lnlen, lxlen = struct.unpack_from("<HH", data, hoff + 26)
            self.entries.append(Entry(name, pos, hoff, method, crc, csize, size, nlen, hoff + 30 + lnlen + lxlen))
            pos += 46 + nlen + xlen + clen

    def find(self, suffix: str) -> Entry:
        for e in self.entries:
            if e.name.endswith(suffix):
                return e
        raise KeyError(suffix)

    # --- mutators (each returns new bytes) ---
    def flip_data_bit(self, e: Entry, at: float = 0.5) -> bytes:
        b = bytearray(self.data)
        b[e.data_offset + int((e.csize - 1) * at)] ^= 0x10
        return bytes(b)

    def set_central(self, e: Entry, field: str, value: int) -> bytes:
        offsets = {"crc": 16, "csize": 20, "size": 24, "header_offset": 42}
        b = bytearray(self.data)
        struct.pack_into("<I", b, e.cen_offset + offsets[field], value & 0xFFFFFFFF)
        return bytes(b)

    def set_local_name_byte(self, e: Entry, index: int, value: int) -> bytes:
        b = bytearray(self.data)
        b[e.header_offset + 30 + index] = value
        return bytes(b)

    def set_local_method(self, e: Entry, method: int) -> bytes:
        b = bytearray(self.data)
        struct.pack_into("<H", b, e.header_offset + 8, method)
        return bytes(b)

    def set_eocd(self, field: str, value: int) -> bytes:
        offsets = {"count_disk": 8, "count": 10, "cd_size": 12, "cd_offset": 16}
        b = bytearray(self.data)
        fmt = "<H" if field.startswith("count") else "<I"
        struct.pack_into(fmt, b, self.eocd + offsets[field], value)
        return bytes(b)

    def duplicate_central(self, e: Entry) -> bytes:
        """A second central record for `e` (same name, same local header): overlapping entries."""
        rec_end = e.cen_offset + 46 + e.name_len
        xlen, clen = struct.unpack_from("<HH", self.data, e.cen_offset + 30)
        rec = self.data[e.cen_offset:rec_end + xlen + clen]
        d = self.data
        cd_end = self.cd_offset + self.cd_size
        out = bytearray(d[:cd_end] + rec + d[cd_end:])
        eocd = self.eocd + len(rec)
        struct.pack_into("<HHI", out, eocd + 8, self.count + 1, self.count + 1, self.cd_size + len(rec))
        return bytes(out)


def write_zip(entries, comment: bytes = b"") -> bytes:
    """entries: (name, data, method) with method zipfile.ZIP_STORED or ZIP_DEFLATED."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data, method in entries:
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            info.compress_type = method
            z.writestr(info, data, compresslevel=9 if method == zipfile.ZIP_DEFLATED else None)
        z.comment = comment
    return buf.getvalue()


def read_entries(path) -> list[tuple[str, bytes, int]]:
    with zipfile.ZipFile(path) as z:
        return [(i.filename, z.read(i), i.compress_type) for i in z.infolist()]


def deflate_spaces(total: int, chunk: int = 1 << 20) -> bytes:
    """A raw DEFLATE stream of `total` spaces (a zip bomb body), built chunk by chunk."""
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = b" " * chunk
    out = []
    left = total
    while left > 0:
        n = min(left, chunk)
        out.append(c.compress(block[:n]))
        left -= n
    out.append(c.flush())
    return b"".join(out)


def raw_deflate_zip(name: str, body: bytes, size: int, crc: int, others=()) -> bytes:
    """A zip whose entry `name` is the raw DEFLATE `body` declaring `size` bytes and `crc`,
    after the STORED `others` (name, data) - sizes written as declared, not as true."""
    out = bytearray()
    central = bytearray()
    items = [(n, d, 0, zlib.crc32(d), len(d), len(d)) for n, d in others] + [(name, body, 8, crc, len(body), size)]
    for n, d, method, c, csize, usize in items:
        nb = n.encode()
        off = len(out)
        out += struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, method, 0, 0x21, c, csize, usize, len(nb), 0) + nb + d
        central += struct.pack("<4sHHHHHHIIIHHHHHII", CEN_SIG, 20, 20, 0, method, 0, 0x21, c, csize, usize,
                               len(nb), 0, 0, 0, 0, 0, off) + nb
    cd_off = len(out)
    out += central
    out += struct.pack("<4sHHHHIIH", EOCD_SIG, 0, 0, len(items), len(items), len(central), cd_off, 0)
    return bytes(out)
