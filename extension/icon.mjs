// The Browser Bridge mark as a PNG, drawn here once: extension/build.mjs writes the toolbar and
// store icons with it, www/build.mjs the dashboard's favicon (the same bytes for the same size).
// A tiny PNG encoder, no dependencies.
import { deflateSync } from 'node:zlib';

const crcTable = new Uint32Array(256).map((_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4); len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4); crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}
export function iconPng(size) {
  // Rounded blue square with a white "bridge" (two pillars and a deck).
  const raw = Buffer.alloc(size * (size * 4 + 1));
  const r = size * 0.2;
  for (let y = 0; y < size; y++) {
    raw[y * (size * 4 + 1)] = 0;
    for (let x = 0; x < size; x++) {
      const o = y * (size * 4 + 1) + 1 + x * 4;
      const cx = Math.min(Math.max(x + 0.5, r), size - r), cy = Math.min(Math.max(y + 0.5, r), size - r);
      const inside = Math.hypot(x + 0.5 - cx, y + 0.5 - cy) <= r;
      if (!inside) continue;
      const u = x / size, v = y / size;
      const deck = v > 0.42 && v < 0.54 && u > 0.12 && u < 0.88;
      const pillar = v > 0.25 && v < 0.8 && ((u > 0.25 && u < 0.35) || (u > 0.65 && u < 0.75));
      const white = deck || pillar;
      raw[o] = white ? 255 : 0x1f; raw[o + 1] = white ? 255 : 0x5f; raw[o + 2] = white ? 255 : 0xd0; raw[o + 3] = 255;
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0); ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; ihdr[9] = 6; ihdr[10] = 0; ihdr[11] = 0; ihdr[12] = 0;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0)),
  ]);
}
