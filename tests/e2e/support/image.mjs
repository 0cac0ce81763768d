// Reading the images the screenshot tool returns, without an npm package: a PNG decoder (8-bit
// RGB or RGBA, not interlaced: what Chromium writes) for sampling pixels, and a JPEG's size from
// its frame header.
import zlib from 'node:zlib';

// { width, height, pixel(x, y) -> [r, g, b, a] } of a base64 PNG.
export function decodePng(b64) {
  const buf = Buffer.from(b64, 'base64');
  if (buf.toString('latin1', 1, 4) !== 'PNG') throw new Error('not a PNG');
  let off = 8;
  let width = 0, height = 0, depth = 0, color = 0, interlace = 0;
  const idat = [];
  while (off < buf.length) {
    const len = buf.readUInt32BE(off);
    const type = buf.toString('latin1', off + 4, off + 8);
    const data = buf.subarray(off + 8, off + 8 + len);
    if (type === 'IHDR') { width = data.readUInt32BE(0); height = data.readUInt32BE(4); depth = data[8]; color = data[9]; interlace = data[12]; }
    else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
    off += 12 + len;
  }
  if (depth !== 8 || (color !== 2 && color !== 6) || interlace) throw new Error(`unsupported PNG (depth ${depth}, color type ${color}, interlace ${interlace})`);
  const bpp = color === 6 ? 4 : 3;
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const stride = width * bpp;
  const out = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const f = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const cur = out.subarray(y * stride, (y + 1) * stride);
    const prev = y ? out.subarray((y - 1) * stride, y * stride) : Buffer.alloc(stride);
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? cur[i - bpp] : 0, b = prev[i], c = i >= bpp ? prev[i - bpp] : 0;
      let v = line[i];
      if (f === 1) v += a;
      else if (f === 2) v += b;
      else if (f === 3) v += (a + b) >> 1;
      else if (f === 4) { const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c); v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c; }
      cur[i] = v & 0xff;
    }
  }
  return {
    width, height,
    pixel(x, y) {
      const o = (Math.round(y) * width + Math.round(x)) * bpp;
      return [out[o], out[o + 1], out[o + 2], bpp === 4 ? out[o + 3] : 255];
    },
  };
}

// { width, height } of a base64 JPEG (from its SOFn marker).
export function jpegSize(b64) {
  const buf = Buffer.from(b64, 'base64');
  if (buf[0] !== 0xff || buf[1] !== 0xd8) throw new Error('not a JPEG');
  let off = 2;
  while (off < buf.length) {
    if (buf[off] !== 0xff) throw new Error('bad JPEG marker');
    const m = buf[off + 1];
    const len = buf.readUInt16BE(off + 2);
    if (m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc) return { height: buf.readUInt16BE(off + 5), width: buf.readUInt16BE(off + 7) };
    off += 2 + len;
  }
  throw new Error('no JPEG frame header');
}
