/**
 * The native shape's item keys (src/Traces/Native.ts): the keys normalize's generic reader asks of
 * `steps`, `messages` and `turns` are the families' own (src/Catalogue/Families.ts), and a record
 * fits an item by its keys.
 */
import { describe, expect, it } from "@effect/vitest"
import { Message, Step, Turn } from "../../src/Catalogue/Families.js"
import { fitsItem, fitsSequence, itemKeysOf, NATIVE_SEQUENCES } from "../../src/Traces/Native.js"

describe("native item keys", () => {
  it("are the families' Step, Message and Turn keys", () => {
    const families = new Map([["steps", itemKeysOf(Step.ast)], ["messages", itemKeysOf(Message.ast)], ["turns", itemKeysOf(Turn.ast)]])
    for (const [field, keys] of NATIVE_SEQUENCES) {
      const family = families.get(field)
      expect(family, field).toBeDefined()
      expect(keys.required, field).toEqual(family?.required)
      expect(Array.from(keys.declared).sort(), field).toEqual(Array.from(family?.declared ?? []).sort())
    }
  })

  it("fit a record with the required keys, or with only the item's keys; a list by half of its records", () => {
    const message = NATIVE_SEQUENCES.find(([field]) => field === "messages")?.[1] ?? expect.fail("no messages")
    expect(fitsItem({ from: "a", content: "x", id: 1 }, message)).toBe(true)
    expect(fitsItem({ from: 3 }, message)).toBe(true)
    expect(fitsItem({ id: "m1", type: "user", content: "x" }, message)).toBe(false)
    expect(fitsItem({ id: "m1", to: "b", text: "x" }, message)).toBe(true)
    const step = NATIVE_SEQUENCES.find(([field]) => field === "steps")?.[1] ?? expect.fail("no steps")
    // A native step without `type` and `content` but with its `actor`: the schema names what is missing.
    expect(fitsItem({ id: "s1", actor: "agent", action: "step 1", outcome: "ok" }, step)).toBe(true)
    expect(fitsItem({ id: "s1", kind: "chat", text: "x" }, step)).toBe(false)
    expect(fitsItem({}, message)).toBe(false)
    expect(fitsSequence("not a list", message)).toBe(true)
    expect(fitsSequence([], message)).toBe(true)
    expect(fitsSequence([{ from: "a", content: "x" }, { id: 2 }], message)).toBe(true)
    expect(fitsSequence([{ from: "a", content: "x" }, { id: 2 }, { id: 3 }], message)).toBe(false)
  })
})
