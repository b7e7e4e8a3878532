/**
 * The MCP surface's JSON-RPC reading and writing, its stdio framing and its session store, alone
 * (issue 27): ids kept as the client wrote them, `id: null` answered, batches refused whole,
 * writing that never throws and stays under its limit, over-long lines dropped as they stream,
 * sessions counted per key.
 */
import { describe, expect, it } from "@effect/vitest"
import { batchRefusal, encode, encodeBatch, type Incoming, type JsonRpcId, MAX_ID_CHARS, type Outgoing, parseMessages, replyLimit } from "../../src/Surfaces/Mcp/JsonRpc.js"
import { makeLineSplitter } from "../../src/Surfaces/Mcp/Lines.js"
import { scanIds } from "../../src/Surfaces/Mcp/RawIds.js"
import { SessionStore } from "../../src/Surfaces/Mcp/Sessions.js"

const admitAll = () => undefined
const messagesOf = (text: string): ReadonlyArray<Incoming> => {
  const parsed = parseMessages(text, admitAll)
  if (parsed._tag !== "Messages") throw new Error(`refused: ${parsed.reason}`)
  return parsed.messages
}
const requestId = (message: Incoming | undefined): JsonRpcId => {
  if (message?._tag !== "Request") throw new Error(`not a request: ${JSON.stringify(message)}`)
  return message.id
}
const MiB = 1024 * 1024

describe("JSON-RPC ids", () => {
  it("a number id past 2^53 is written back with the digits it came with; ids that differ there stay apart", () => {
    const [first, second, third] = messagesOf(
      '[{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}, {"id" : 12345678901234567891 ,"method":"ping","jsonrpc":"2.0"},{"jsonrpc":"2.0","id":-1.50e3,"method":"ping"}]'
    )
    const a = requestId(first)
    const b = requestId(second)
    expect(a.json).toBe("12345678901234567890")
    expect(b.json).toBe("12345678901234567891")
    expect(a.key).not.toBe(b.key)
    expect(requestId(third).json).toBe("-1.50e3")
    expect(encode({ _tag: "Result", id: a, result: {} }, 1000)).toBe('{"jsonrpc":"2.0","id":12345678901234567890,"result":{}}')
    // Small integers and strings are the same id however they are written.
    expect(requestId(messagesOf('{"jsonrpc":"2.0","id":7,"method":"ping"}')[0]).key).toBe("n7")
    expect(requestId(messagesOf('{"jsonrpc":"2.0","id":"7","method":"ping"}')[0]).key).toBe("s7")
  })

  it("reads the id of the last `id` member, escaped names and strings holding braces included, and the requestId a cancellation names", () => {
    const text =
      '{"params":{"note":"a } ] \\" {","requestId":98765432109876543210,"deep":[{"id":1}]},"id":1,"jsonrpc":"2.0","\\u0069d":11111111111111111111,"method":"notifications/cancelled"}'
    expect(scanIds(text)).toEqual([{ id: "11111111111111111111", requestId: "98765432109876543210" }])
    // Same text, but as a notification (no id): the cancellation keeps the exact digits.
    const [cancel] = messagesOf('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"x":[1,{"requestId":2}],"requestId":98765432109876543210}}')
    expect(cancel?._tag === "Notification" && cancel.cancels?.json).toBe("98765432109876543210")
    expect(scanIds('[1, "x", {"id":"s"}, {"id": 5e400}]')).toEqual([undefined, undefined, { id: undefined, requestId: undefined }, { id: "5e400", requestId: undefined }])
  })

  it("id null is a request answered with -32600 (MCP forbids null ids), not a notification; so is an id too long to echo", () => {
    const [nullId] = messagesOf('{"jsonrpc":"2.0","id":null,"method":"tools/list"}')
    expect(nullId).toEqual({ _tag: "Invalid", id: null, code: -32600, message: expect.stringContaining("null is not one") })
    const [long] = messagesOf(JSON.stringify({ jsonrpc: "2.0", id: "x".repeat(MAX_ID_CHARS), method: "ping" }))
    expect(long).toMatchObject({ _tag: "Invalid", id: null, code: -32600 })
    const [notification] = messagesOf('{"jsonrpc":"2.0","method":"notifications/initialized"}')
    expect(notification?._tag).toBe("Notification")
  })
})

describe("batches", () => {
  it("are refused under MCP 2025-06-18 and later, and past the cap, before any message is read", () => {
    expect(batchRefusal(2, 32, "2025-06-18")).toMatch(/not part of MCP 2025-06-18/)
    expect(batchRefusal(2, 32, "2025-03-26")).toBeUndefined()
    expect(batchRefusal(2, 32, undefined)).toBeUndefined()
    expect(batchRefusal(33, 32, undefined)).toMatch(/batch of 33 messages is over the limit of 32 \(SVC_MCP_MAX_BATCH\)/)
    const asked: Array<number> = []
    const refused = parseMessages(JSON.stringify(Array.from({ length: 7000 }, (_, id) => ({ jsonrpc: "2.0", id, method: "tools/list" }))), (size) => {
      asked.push(size)
      return batchRefusal(size, 32, undefined)
    })
    expect(asked).toEqual([7000])
    expect(refused).toEqual({ _tag: "Refused", code: -32600, reason: expect.stringContaining("over the limit of 32") })
    expect(parseMessages("[]", admitAll)).toMatchObject({ _tag: "Refused", code: -32600 })
    expect(parseMessages("{nope", admitAll)).toMatchObject({ _tag: "Refused", code: -32700 })
  })
})

describe("writing answers", () => {
  const id: JsonRpcId = { key: "n1", json: "1" }
  it("never throws: an answer that cannot be serialized becomes -32603 for its request alone", () => {
    const cyclic: Record<string, unknown> = {}
    cyclic["self"] = cyclic
    const deep: Array<unknown> = []
    let cursor = deep
    for (let i = 0; i < 200_000; i++) {
      const next: Array<unknown> = []
      cursor.push(next)
      cursor = next
    }
    for (const result of [cyclic, { big: 10n }, deep]) {
      expect(JSON.parse(encode({ _tag: "Result", id, result }, MiB))).toEqual({
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32603, message: "Internal error: the answer could not be serialized" }
      })
    }
    const batch: ReadonlyArray<Outgoing> = [
      { _tag: "Result", id: { key: "n2", json: "2" }, result: { ok: true } },
      { _tag: "Result", id, result: cyclic }
    ]
    expect(JSON.parse(encodeBatch(batch, MiB))).toEqual([
      { jsonrpc: "2.0", id: 2, result: { ok: true } },
      { jsonrpc: "2.0", id: 1, error: { code: -32603, message: expect.any(String) } }
    ])
  })

  it("keeps a batch's answer under the reply limit: what does not fit becomes a small -32603 error", () => {
    const answers: ReadonlyArray<Outgoing> = Array.from({ length: 10 }, (_, i) => ({ _tag: "Result", id: { key: `n${i}`, json: String(i) }, result: { text: "é".repeat(300) } }))
    const text = encodeBatch(answers, 2500)
    const parsed: unknown = JSON.parse(text)
    expect(Array.isArray(parsed) && parsed.length).toBe(10)
    const kept = Array.isArray(parsed) ? parsed.filter((answer: unknown) => typeof answer === "object" && answer !== null && "result" in answer) : []
    // 300 two-byte characters: about 640 bytes each, so three fit in 2,500 bytes.
    expect(kept).toHaveLength(3)
    expect(text).toContain('"id":9,"error":{"code":-32603,"message":"Internal error: the answer is over the reply limit of 2500 bytes')
    expect(Buffer.byteLength(text)).toBeLessThan(2500 + 10 * 200)
    expect(replyLimit(5 * MiB)).toBe(64 * MiB)
    expect(replyLimit(100 * MiB)).toBe(200 * MiB)
    expect(replyLimit(2 ** 40)).toBe(256 * MiB)
  })
})

describe("stdio lines", () => {
  it("a line over the limit is dropped as it streams and reported once; the next lines are read", () => {
    const lines: Array<string> = []
    let tooLong = 0
    const splitter = makeLineSplitter(1024, { line: (text) => lines.push(text), tooLong: () => tooLong++ })
    splitter.push(Buffer.from('{"a":1}\r\n{"b":'))
    splitter.push(Buffer.from("2}\n"))
    // 10 MiB without a newline, in 64 KiB chunks, then the end of that line and two more.
    const chunk = Buffer.alloc(64 * 1024, 120)
    for (let i = 0; i < 160; i++) splitter.push(chunk)
    splitter.push(Buffer.from('xx\n{"c":3}\n\n{"d":4}'))
    splitter.end()
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '{"c":3}', "", '{"d":4}'])
    expect(tooLong).toBe(1)
    // A line of exactly the limit is read.
    const exact: Array<string> = []
    const atLimit = makeLineSplitter(4, { line: (text) => exact.push(text), tooLong: () => exact.push("too long") })
    atLimit.push(Buffer.from("abcd\nabcde\n"))
    expect(exact).toEqual(["abcd", "too long"])
  })
})

describe("sessions", () => {
  it("are counted per key: key B opening 20,000 sessions drops only B's oldest, never key A's", () => {
    const store = new SessionStore<{ readonly keyName: string | null; readonly n: number }>()
    store.add("a-1", { keyName: "alice", n: 0 })
    for (let i = 0; i < 20_000; i++) store.add(`b-${i}`, { keyName: "bob", n: i })
    expect(store.get("a-1")).toEqual({ keyName: "alice", n: 0 })
    expect(store.countOf("bob")).toBe(100)
    expect(store.get("b-0")).toBeUndefined()
    expect(store.get("b-19999")?.n).toBe(19_999)
    // Callers with no key are one group of their own.
    for (let i = 0; i < 500; i++) store.add(`anon-${i}`, { keyName: null, n: i })
    expect(store.countOf(null)).toBe(100)
    expect(store.get("a-1")).toBeDefined()
    expect(store.size).toBe(201)
  })

  it("keep the global cap: past it (more keys than total / perKey, all full) the least recently used of any key goes", () => {
    const store = new SessionStore<{ readonly keyName: string | null }>(2, 5)
    for (const key of ["a", "b", "c"]) for (const n of [1, 2]) store.add(`${key}${n}`, { keyName: key })
    expect(store.size).toBe(5)
    expect(store.get("a1")).toBeUndefined()
    expect(store.countOf("a")).toBe(1)
    // Reading a session makes it its key's newest.
    store.get("b1")
    store.add("b3", { keyName: "b" })
    expect(store.get("b1")).toBeDefined()
    expect(store.get("b2")).toBeUndefined()
  })
})
