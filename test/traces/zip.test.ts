/**
 * Zip bodies (Inspect AI's `.eval` logs, src/Intake/Zip.ts and Json.ts `parseZipTrace`): the real
 * archives of Inspect's own tests read into the JSON log they stand for, and the caps on entries
 * and inflated bytes, declared or real, checked before and while inflating.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { JsonBounds, looksLikeZip, parseZipTrace } from "../../src/Intake/Json.js"
import { readZip } from "../../src/Intake/Zip.js"
import { startService } from "../support/Service.js"

const fixture = (name: string) => new Uint8Array(readFileSync(join(import.meta.dirname, "..", "fixtures", "traces", "inspect", name)))
const CAPS = { maxEntries: 10_000, maxInflatedBytes: 5 * 1024 * 1024 }

/** The offset of the central directory's first entry of an archive (from its end record). */
const directoryOf = (bytes: Uint8Array) => {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  for (let at = bytes.length - 22; at >= 0; at--) if (view.getUint32(at, true) === 0x06054b50) return { view, first: view.getUint32(at + 16, true) }
  throw new Error("no end record")
}

describe("zip archives", () => {
  it("reads Inspect's .eval archives: every entry, inflated", () => {
    const bytes = fixture("popularity.eval")
    expect(looksLikeZip(bytes)).toBe(true)
    const read = readZip(bytes, CAPS)
    expect(read._tag).toBe("Read")
    if (read._tag !== "Read") return
    expect(read.entries.map((entry) => entry.name)).toContain("header.json")
    expect(read.entries.filter((entry) => entry.name.startsWith("samples/"))).toHaveLength(10)
    expect(read.entries.find((entry) => entry.name === "samples/1_epoch_1.json")?.bytes.length).toBe(7817)
  })

  it("turns an .eval archive into the JSON log it stands for: the header's fields and its samples", async () => {
    const log = await Effect.runPromise(parseZipTrace(fixture("log_read_sample.eval")))
    expect(Object.keys(log)).toEqual(expect.arrayContaining(["version", "status", "eval", "samples"]))
    const samples = log["samples"]
    expect(Array.isArray(samples) && samples.length).toBe(1)
  })

  it("refuses past the entry cap and past the inflated-bytes cap, declared or real", async () => {
    const bytes = fixture("popularity.eval")
    expect(readZip(bytes, { ...CAPS, maxEntries: 13 })).toMatchObject({ _tag: "TooLarge", message: expect.stringContaining("14 entries") })
    expect(readZip(bytes, { ...CAPS, maxInflatedBytes: 50_000 })).toMatchObject({ _tag: "TooLarge" })
    // An archive that declares tiny sizes but inflates to more is stopped while inflating.
    const lying = bytes.slice()
    const { first, view } = directoryOf(lying)
    let at = first
    for (let i = 0; i < 14; i++) {
      new DataView(lying.buffer).setUint32(at + 24, 1, true)
      at += 46 + view.getUint16(at + 28, true) + view.getUint16(at + 30, true) + view.getUint16(at + 32, true)
    }
    expect(readZip(lying, { ...CAPS, maxInflatedBytes: 20_000 })).toMatchObject({ _tag: "TooLarge" })
    // Through the body parser: 413 naming the setting to raise.
    const refused = await Effect.runPromise(Effect.either(parseZipTrace(bytes).pipe(Effect.provideService(JsonBounds, { maxDepth: 64, maxKeys: 500_000, maxInflatedBytes: 50_000 }))))
    expect(Either.isLeft(refused) && refused.left._tag).toBe("RequestTooLarge")
    expect(Either.isLeft(refused) && refused.left.message).toContain("SVC_API_MAX_BODY_BYTES")
  })

  it("refuses what it cannot read: not a zip, an encrypted entry, a zip that is not an Inspect log", async () => {
    expect(readZip(new TextEncoder().encode("{\"not\": \"a zip\"}"), CAPS)._tag).toBe("Invalid")
    const encrypted = fixture("log_read_sample.eval").slice()
    const { first } = directoryOf(encrypted)
    new DataView(encrypted.buffer).setUint16(first + 8, 1, true)
    expect(readZip(encrypted, CAPS)).toMatchObject({ _tag: "Invalid", message: expect.stringContaining("encrypted") })
    // The same archive's entries renamed away from header.json and _journal/start.json.
    const renamed = fixture("log_read_sample.eval").slice()
    const text = Buffer.from(renamed.buffer)
    for (const name of ["header.json", "_journal/start.json"]) {
      let at = text.indexOf(name)
      while (at >= 0) {
        text.write("x".repeat(name.length), at, "latin1")
        at = text.indexOf(name, at + 1)
      }
    }
    const notInspect = await Effect.runPromise(Effect.either(parseZipTrace(renamed)))
    expect(Either.isLeft(notInspect) && notInspect.left.message).toContain("is not an Inspect AI log")
  })
})

describe("an Inspect .eval sent as application/zip", () => {
  it("is normalized as the inspect format, one trace per sample, one chosen with ?select=; a zip that inflates past the limit is a 413", async () => {
    const service = await startService({ SVC_API_MAX_BODY_BYTES: "60000" })
    try {
      const send = (path: string, bytes: Uint8Array) =>
        fetch(`${service.url}${path}`, { method: "POST", headers: { "content-type": "application/zip" }, body: bytes })
      const normalized = await send("/v1/traces/normalize", fixture("log_read_sample.eval"))
      expect(normalized.status).toBe(200)
      const one = Schema.decodeUnknownSync(Schema.Struct({ format: Schema.String, events: Schema.Int }))(await normalized.json())
      expect(one).toMatchObject({ format: "inspect" })
      expect(one.events).toBeGreaterThan(1)
      // Ten samples: inflated, 70 KB of JSON, more than the 60,000 bytes allowed.
      const tooLarge = await send("/v1/traces/normalize", fixture("popularity.eval"))
      expect(tooLarge.status).toBe(413)
      expect(JSON.stringify(await tooLarge.json())).toContain("SVC_API_MAX_BODY_BYTES")
    } finally {
      await service.close()
    }
    const roomy = await startService()
    try {
      const send = (query: string) =>
        fetch(`${roomy.url}/v1/traces/normalize${query}`, { method: "POST", headers: { "content-type": "application/zip" }, body: fixture("popularity.eval") })
      const all = await send("")
      expect(all.status).toBe(200)
      const many = Schema.decodeUnknownSync(Schema.Struct({ format: Schema.String, traces: Schema.Array(Schema.Struct({ id: Schema.NullOr(Schema.String) })) }))(await all.json())
      expect(many.format).toBe("inspect")
      expect(many.traces).toHaveLength(10)
      // The query's options serve a body without an envelope (DECISIONS §16): one sample, by index.
      const chosen = await send("?select=2")
      expect(chosen.status).toBe(200)
      const one = Schema.decodeUnknownSync(Schema.Struct({ trace: Schema.Struct({ id: Schema.NullOr(Schema.String) }) }))(await chosen.json())
      expect(one.trace.id).toBe(many.traces[2]?.id)
    } finally {
      await roomy.close()
    }
  })
})
