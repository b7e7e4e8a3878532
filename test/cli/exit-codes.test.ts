/**
 * The exit code of every error kind the service answers with is the one docs/cli.md's table gives
 * it, and the table places every kind (a new kind must be given a code and documented).
 */
import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { errorKinds } from "../../src/Errors.js"
import { exitCodeOfKind } from "../../src/Surfaces/Cli/ExitCodes.js"

const table = readFileSync(resolve(import.meta.dirname, "../../docs/cli.md"), "utf8")
/** The error kinds (in backticks, snake_case) the row of `code` names. */
const kindsOfRow = (code: number): Array<string> => {
  const row = table.split("\n").find((line) => line.startsWith(`| ${code} |`)) ?? ""
  return Array.from(row.matchAll(/`([a-z]+(?:_[a-z]+)+|[a-z]+)`/g), (match) => match[1] ?? "").filter((kind) =>
    Object.values(errorKinds).some((entry) => entry.kind === kind)
  )
}

describe("svc exit codes", () => {
  it("each of the service's error kinds exits with the code docs/cli.md gives it, and every kind is there", () => {
    const documented = new Map<string, number>()
    for (const code of [2, 3, 70]) for (const kind of kindsOfRow(code)) documented.set(kind, code)
    for (const { kind } of Object.values(errorKinds)) {
      expect(documented.get(kind), `${kind} in docs/cli.md's exit codes`).toBeDefined()
      expect(exitCodeOfKind(kind), kind).toBe(documented.get(kind))
    }
  })

  it("the CLI's own kinds: usage 2, no service at --url 3, anything else 70", () => {
    expect(exitCodeOfKind("usage")).toBe(2)
    expect(exitCodeOfKind("unreachable")).toBe(3)
    expect(exitCodeOfKind("something_new")).toBe(70)
    expect(exitCodeOfKind("toString")).toBe(70)
  })
})
