/**
 * The entries of a zip archive (Inspect AI's `.eval` logs are zips of JSON files), read from the
 * central directory with caps checked before anything is inflated: at most `maxEntries` entries and
 * at most `maxInflatedBytes` of content in all (declared sizes first, then what inflating really
 * gives, so an archive that lies about its sizes is stopped too). Stored and deflated entries are
 * read (node's zlib); encrypted entries and ZIP64 archives are refused. Pure; never throws.
 * Loaded, with zlib, on the first zip body (Intake/Json.ts `parseZipTrace`), not at start-up.
 */
import { inflateRawSync } from "node:zlib"

export interface ZipEntry {
  readonly name: string
  readonly bytes: Uint8Array
}

export type ZipOutcome =
  | { readonly _tag: "Read"; readonly entries: ReadonlyArray<ZipEntry> }
  /** The archive holds more than the caps allow. */
  | { readonly _tag: "TooLarge"; readonly message: string }
  /** Not a zip archive this reader can read. */
  | { readonly _tag: "Invalid"; readonly message: string }

const END_OF_DIRECTORY = 0x06054b50
const DIRECTORY_ENTRY = 0x02014b50
const LOCAL_HEADER = 0x04034b50

const invalid = (message: string): ZipOutcome => ({ _tag: "Invalid", message })

export const readZip = (bytes: Uint8Array, caps: { readonly maxEntries: number; readonly maxInflatedBytes: number }): ZipOutcome => {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  // The end-of-directory record: 22 bytes and a comment of at most 65,535, at the end.
  let end = -1
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - 22 - 65_535); at--) {
    if (view.getUint32(at, true) === END_OF_DIRECTORY) {
      end = at
      break
    }
  }
  if (end < 0) return invalid("the body is not a zip archive (no end of central directory)")
  const count = view.getUint16(end + 10, true)
  const directorySize = view.getUint32(end + 12, true)
  const directoryOffset = view.getUint32(end + 16, true)
  if (count === 0xffff || directoryOffset === 0xffffffff) return invalid("ZIP64 archives are not read")
  if (count > caps.maxEntries) return { _tag: "TooLarge", message: `the zip archive holds ${count} entries, more than the ${caps.maxEntries} read` }
  if (directoryOffset + directorySize > end) return invalid("the zip archive's central directory lies outside it")

  const listed: Array<{ readonly name: string; readonly method: number; readonly compressed: number; readonly size: number; readonly local: number }> = []
  let declared = 0
  let at = directoryOffset
  for (let i = 0; i < count; i++) {
    if (at + 46 > end || view.getUint32(at, true) !== DIRECTORY_ENTRY) return invalid("the zip archive's central directory is damaged")
    const flags = view.getUint16(at + 8, true)
    const method = view.getUint16(at + 10, true)
    const compressed = view.getUint32(at + 20, true)
    const size = view.getUint32(at + 24, true)
    const nameLength = view.getUint16(at + 28, true)
    const extraLength = view.getUint16(at + 30, true)
    const commentLength = view.getUint16(at + 32, true)
    const local = view.getUint32(at + 42, true)
    const name = Buffer.from(bytes.buffer, bytes.byteOffset + at + 46, Math.min(nameLength, Math.max(0, end - at - 46))).toString("utf8")
    if ((flags & 1) !== 0) return invalid(`the zip entry ${JSON.stringify(name.slice(0, 80))} is encrypted`)
    if (compressed === 0xffffffff || size === 0xffffffff) return invalid("ZIP64 archives are not read")
    if (method !== 0 && method !== 8) return invalid(`the zip entry ${JSON.stringify(name.slice(0, 80))} uses compression method ${method}; only stored and deflated entries are read`)
    declared += size
    if (declared > caps.maxInflatedBytes) {
      return { _tag: "TooLarge", message: `the zip archive inflates to more than ${caps.maxInflatedBytes} bytes` }
    }
    listed.push({ name, method, compressed, size, local })
    at += 46 + nameLength + extraLength + commentLength
  }

  const entries: Array<ZipEntry> = []
  let inflated = 0
  for (const entry of listed) {
    if (entry.name.endsWith("/")) continue
    const header = entry.local
    if (header + 30 > bytes.length || view.getUint32(header, true) !== LOCAL_HEADER) return invalid("the zip archive's local headers are damaged")
    const start = header + 30 + view.getUint16(header + 26, true) + view.getUint16(header + 28, true)
    if (start + entry.compressed > bytes.length) return invalid(`the zip entry ${JSON.stringify(entry.name.slice(0, 80))} runs past the end of the archive`)
    const data = bytes.subarray(start, start + entry.compressed)
    const room = caps.maxInflatedBytes - inflated
    let content: Uint8Array
    if (entry.method === 0) {
      content = data
    } else {
      try {
        // One byte more than the room left: an entry that lied about its size is caught here.
        content = inflateRawSync(data, { maxOutputLength: Math.max(1, room + 1) })
      } catch (error) {
        return error instanceof RangeError
          ? { _tag: "TooLarge", message: `the zip archive inflates to more than ${caps.maxInflatedBytes} bytes` }
          : invalid(`the zip entry ${JSON.stringify(entry.name.slice(0, 80))} does not inflate`)
      }
    }
    inflated += content.length
    if (inflated > caps.maxInflatedBytes) return { _tag: "TooLarge", message: `the zip archive inflates to more than ${caps.maxInflatedBytes} bytes` }
    entries.push({ name: entry.name, bytes: content })
  }
  return { _tag: "Read", entries }
}
