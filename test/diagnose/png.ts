/**
 * Shrinks a screenshot for the docs: decodes Chromium's truecolour PNG, reduces it to a palette of
 * at most 256 colours (the most frequent colours after a 5-bit-per-channel bucketing, every pixel
 * mapped to the nearest of them) and writes it back as an indexed PNG. A page of text and flat
 * colours loses nothing visible and takes a fraction of the bytes. Node's zlib only.
 */
import { deflateSync, inflateSync } from "node:zlib"

interface Image {
  readonly width: number
  readonly height: number
  /** RGB, three bytes a pixel. */
  readonly rgb: Uint8Array
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})
const crc32 = (bytes: Uint8Array): number => {
  let c = 0xffffffff
  for (const byte of bytes) c = (CRC_TABLE[(c ^ byte) & 0xff] ?? 0) ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}

const paeth = (a: number, b: number, c: number): number => {
  const p = a + b - c
  const pa = Math.abs(p - a)
  const pb = Math.abs(p - b)
  const pc = Math.abs(p - c)
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c
}

/** An 8-bit RGB or RGBA, non-interlaced PNG (what Chromium writes) as RGB (alpha dropped: screenshots are opaque). */
export const decodePng = (png: Buffer): Image => {
  if (!png.subarray(0, 8).equals(SIGNATURE)) throw new Error("not a PNG")
  let offset = 8
  let width = 0
  let height = 0
  let channels = 0
  const data: Array<Buffer> = []
  while (offset < png.length) {
    const length = png.readUInt32BE(offset)
    const type = png.toString("latin1", offset + 4, offset + 8)
    const body = png.subarray(offset + 8, offset + 8 + length)
    if (type === "IHDR") {
      width = body.readUInt32BE(0)
      height = body.readUInt32BE(4)
      const depth = body[8]
      const colour = body[9]
      if (depth !== 8 || (colour !== 2 && colour !== 6) || body[12] !== 0) throw new Error(`unsupported PNG: depth ${depth}, colour type ${colour}`)
      channels = colour === 6 ? 4 : 3
    } else if (type === "IDAT") data.push(body)
    else if (type === "IEND") break
    offset += 12 + length
  }
  const raw = inflateSync(Buffer.concat(data))
  const stride = width * channels
  const pixels = new Uint8Array(stride * height)
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]
    const row = y * (stride + 1) + 1
    for (let x = 0; x < stride; x++) {
      const value = raw[row + x] ?? 0
      const left = x >= channels ? pixels[y * stride + x - channels] ?? 0 : 0
      const up = y > 0 ? pixels[(y - 1) * stride + x] ?? 0 : 0
      const upLeft = y > 0 && x >= channels ? pixels[(y - 1) * stride + x - channels] ?? 0 : 0
      const predicted = filter === 1 ? left : filter === 2 ? up : filter === 3 ? (left + up) >> 1 : filter === 4 ? paeth(left, up, upLeft) : 0
      pixels[y * stride + x] = (value + predicted) & 0xff
    }
  }
  if (channels === 3) return { width, height, rgb: pixels }
  const rgb = new Uint8Array(width * height * 3)
  for (let i = 0, j = 0; i < pixels.length; i += 4, j += 3) {
    rgb[j] = pixels[i] ?? 0
    rgb[j + 1] = pixels[i + 1] ?? 0
    rgb[j + 2] = pixels[i + 2] ?? 0
  }
  return { width, height, rgb }
}

const chunk = (type: string, body: Uint8Array): Buffer => {
  const head = Buffer.alloc(8)
  head.writeUInt32BE(body.length, 0)
  head.write(type, 4, "latin1")
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), body])), 0)
  return Buffer.concat([head, body, crc])
}

/** The image as an indexed PNG of at most `colours` colours. */
export const quantizePng = (png: Buffer, colours = 256): Buffer => {
  const { width, height, rgb } = decodePng(png)
  const bucketOf = (i: number) => (((rgb[i] ?? 0) >> 3) << 10) | (((rgb[i + 1] ?? 0) >> 3) << 5) | ((rgb[i + 2] ?? 0) >> 3)
  // Bucket statistics: count and channel sums, for each bucket's mean colour.
  const count = new Uint32Array(1 << 15)
  const sums = new Float64Array((1 << 15) * 3)
  for (let i = 0; i < rgb.length; i += 3) {
    const bucket = bucketOf(i)
    count[bucket] = (count[bucket] ?? 0) + 1
    sums[bucket * 3] = (sums[bucket * 3] ?? 0) + (rgb[i] ?? 0)
    sums[bucket * 3 + 1] = (sums[bucket * 3 + 1] ?? 0) + (rgb[i + 1] ?? 0)
    sums[bucket * 3 + 2] = (sums[bucket * 3 + 2] ?? 0) + (rgb[i + 2] ?? 0)
  }
  const used = Array.from(count.keys()).filter((bucket) => (count[bucket] ?? 0) > 0)
  used.sort((a, b) => (count[b] ?? 0) - (count[a] ?? 0))
  const palette = used.slice(0, Math.min(colours, 256)).map((bucket) => {
    const n = count[bucket] ?? 1
    return [0, 1, 2].map((k) => Math.round((sums[bucket * 3 + k] ?? 0) / n))
  })
  const nearest = new Int16Array(1 << 15).fill(-1)
  const indexOf = (bucket: number): number => {
    const known = nearest[bucket] ?? -1
    if (known >= 0) return known
    const n = count[bucket] ?? 1
    const [r, g, b] = [0, 1, 2].map((k) => (sums[bucket * 3 + k] ?? 0) / n)
    let best = 0
    let bestDistance = Number.POSITIVE_INFINITY
    palette.forEach(([pr = 0, pg = 0, pb = 0], index) => {
      const distance = ((r ?? 0) - pr) ** 2 * 3 + ((g ?? 0) - pg) ** 2 * 4 + ((b ?? 0) - pb) ** 2 * 2
      if (distance < bestDistance) {
        bestDistance = distance
        best = index
      }
    })
    nearest[bucket] = best
    return best
  }
  const raw = Buffer.alloc((width + 1) * height)
  for (let y = 0; y < height; y++) {
    raw[y * (width + 1)] = 0
    for (let x = 0; x < width; x++) raw[y * (width + 1) + 1 + x] = indexOf(bucketOf((y * width + x) * 3))
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header[8] = 8
  header[9] = 3
  return Buffer.concat([
    SIGNATURE,
    chunk("IHDR", header),
    chunk("PLTE", Buffer.from(palette.flatMap(([r = 0, g = 0, b = 0]) => [r, g, b]))),
    chunk("IDAT", deflateSync(raw, { level: 9 })),
    chunk("IEND", new Uint8Array(0))
  ])
}
