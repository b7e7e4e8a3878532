/**
 * The registries are the one place to add a trace format or a diagnose output (DECISIONS §16,
 * STYLE "Registries, not switches"). This file adds a throwaway format and a throwaway output in
 * that one place, their registry's list (vi.mock extends the list before any module that derives
 * from it is loaded; nothing else is touched), then finds them everywhere they must appear: the
 * served `/openapi.json`, MCP's `tools/list`, the messages that list the choices, `svc --help`
 * and the completion scripts, and the docs' generated sections.
 *
 * Beyond the places named, every list in those surfaces that names three or more of the real
 * entries must name the throwaway one too: a surface that writes a list out again (an enum, a
 * `--from` choice, a description that enumerates) fails here.
 */
import * as Command from "@effect/cli/Command"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Console, Effect, Predicate } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { vi } from "vitest"
import { FORMAT_NAMES, FORMAT_OPTIONS, OUTPUT_NAMES } from "../../src/Registry/Derived.js"
import { DOCS_SECTIONS, SECTIONS, withSections } from "../../src/Registry/Docs.js"
import type { Terminal } from "../../src/Surfaces/Cli/Running.js"
import { makeSvc } from "../../src/Surfaces/Cli/Svc.js"
import { connectHttp } from "../mcp/support.js"
import { type RunningService, startService } from "../support/Service.js"

vi.mock("../../src/Registry/Formats.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/Registry/Formats.js")>()
  const throwaway = { name: "zz_throwaway_format", kind: "imported", reads: "zz_throwaway_format records, a test's own" }
  // Before native, which stays the fallback after every imported format.
  return { ...real, TRACE_FORMATS: [...real.TRACE_FORMATS.slice(0, -1), throwaway, ...real.TRACE_FORMATS.slice(-1)] }
})
vi.mock("../../src/Registry/Outputs.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/Registry/Outputs.js")>()
  const throwaway = {
    name: "zz_throwaway_output",
    mediaType: "application/x-zz-throwaway",
    contentType: "application/x-zz-throwaway",
    body: "text",
    events: false,
    description: "zz_throwaway_output, a test's own"
  }
  return { ...real, DIAGNOSE_OUTPUTS: [...real.DIAGNOSE_OUTPUTS, throwaway] }
})

const FORMAT = "zz_throwaway_format"
const OUTPUT = "zz_throwaway_output"
const REAL_FORMATS = FORMAT_NAMES.filter((name: string) => name !== FORMAT)
// `json` names a media type as often as an output: the other outputs' names say "a list of outputs".
const REAL_OUTPUTS = OUTPUT_NAMES.filter((name: string) => name !== OUTPUT && name !== "json")
const root = join(import.meta.dirname, "..", "..")

/** Every string, and every array of strings joined, in a JSON value. */
const textsOf = (value: unknown): Array<string> => {
  if (typeof value === "string") return [value]
  if (Array.isArray(value)) {
    const own = value.every((item) => typeof item === "string") && value.length > 0 ? [value.join(" ")] : []
    return [...own, ...value.flatMap(textsOf)]
  }
  return Predicate.isRecord(value) ? Object.values(value).flatMap(textsOf) : []
}

const mentions = (text: string, name: string) => new RegExp(`(^|[^A-Za-z0-9_])${name}($|[^A-Za-z0-9_])`, "i").test(text)

/**
 * The texts that list three or more of `names` and not `extra`: the lists written out by hand.
 * Also how many listed them at all, so a check that finds no list is not taken for a pass.
 */
const handWritten = (texts: ReadonlyArray<string>, names: ReadonlyArray<string>, extra: string) => {
  const lists = texts.filter((text) => names.filter((name) => mentions(text, name)).length >= 3)
  return { lists: lists.length, missing: lists.filter((text) => !text.includes(extra)) }
}

const expectEveryList = (texts: ReadonlyArray<string>) => {
  const formats = handWritten(texts, REAL_FORMATS, FORMAT)
  expect(formats.lists).toBeGreaterThan(0)
  expect(formats.missing).toEqual([])
  return handWritten(texts, REAL_OUTPUTS, OUTPUT)
}

describe("a format and an output added in their registry alone", () => {
  it("are in the registries' derived names (the mock took effect)", () => {
    expect(FORMAT_NAMES).toContain(FORMAT)
    expect(FORMAT_NAMES.at(-1)).toBe("native")
    expect(FORMAT_OPTIONS).toContain(FORMAT)
    expect(OUTPUT_NAMES).toContain(OUTPUT)
  })

  describe("the served service", () => {
    let service: RunningService
    beforeAll(async () => {
      service = await startService()
    })
    afterAll(async () => {
      await service?.close()
    })

    it("/openapi.json: the format schemas, the query options and the diagnose outputs, one content type each", async () => {
      const document: unknown = await (await fetch(`${service.url}/openapi.json`)).json()
      if (!Predicate.isRecord(document)) throw new Error("no OpenAPI document")
      const components = document["components"]
      const schemas = Predicate.isRecord(components) ? components["schemas"] : undefined
      if (!Predicate.isRecord(schemas)) throw new Error("no component schemas")
      const enumOf = (name: string): unknown => {
        const schema = schemas[name]
        return Predicate.isRecord(schema) ? schema["enum"] : undefined
      }
      expect(enumOf("TraceFormat")).toContain(FORMAT)
      expect(enumOf("TraceFormatOption")).toContain(FORMAT)
      expect(enumOf("DiagnoseOutput")).toContain(OUTPUT)
      const paths = document["paths"]
      const diagnose = Predicate.isRecord(paths) && Predicate.isRecord(paths["/v1/diagnose"]) ? paths["/v1/diagnose"]["post"] : undefined
      const responses = Predicate.isRecord(diagnose) ? diagnose["responses"] : undefined
      const success = Predicate.isRecord(responses) ? responses["200"] : undefined
      const content = Predicate.isRecord(success) ? success["content"] : undefined
      expect(Predicate.isRecord(content) ? Object.keys(content) : []).toEqual([
        "application/json",
        "text/markdown",
        "application/sarif+json",
        "text/html",
        "application/x-zz-throwaway"
      ])
      const outputs = expectEveryList(textsOf(document))
      expect(outputs.lists).toBeGreaterThan(0)
      expect(outputs.missing).toEqual([])
    })

    it("MCP tools/list: the tools' input schemas", async () => {
      const { client } = await connectHttp(service.url)
      const { tools } = await client.listTools()
      await client.close()
      for (const name of ["svc_diagnose", "svc_lewin"]) {
        const tool = tools.find((candidate) => candidate.name === name)
        const format = tool?.inputSchema.properties?.["format"]
        // `format` is the contract's FormatOption or null: the enum sits in one of its alternatives.
        const alternatives = Predicate.isRecord(format) && Array.isArray(format["anyOf"]) ? format["anyOf"] : [format]
        const enums = alternatives.flatMap((alternative: unknown) => (Predicate.isRecord(alternative) && Array.isArray(alternative["enum"]) ? alternative["enum"] : []))
        expect(enums, name).toContain(FORMAT)
      }
      expectEveryList(textsOf(tools.map((tool) => tool.inputSchema)))
    })

    it("the messages that list the choices: format and output", async () => {
      const post = async (path: string, body: unknown) => {
        const response = await fetch(`${service.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
        return { status: response.status, text: await response.text() }
      }
      const badFormat = await post("/v1/traces/normalize", { trace: { steps: [] }, format: "bogus" })
      expect(badFormat.status).toBe(400)
      expect(badFormat.text).toContain(FORMAT)
      const noFormat = await post("/v1/traces/normalize", [1, 2, 3])
      expect(noFormat.status).toBe(400)
      expect(noFormat.text).toContain(FORMAT)
      const badOutput = await post("/v1/diagnose?output=bogus", { trace: { steps: [] } })
      expect(badOutput.status).toBe(400)
      expect(badOutput.text).toContain(OUTPUT)
    })
  })

  describe("svc", () => {
    /** What `svc <args>` prints, run in this process by @effect/cli as bin/svc runs it. */
    const svc = (args: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        const printed: Array<string> = []
        const capture = Effect.map(Effect.console, (base): Console.Console => ({
          ...base,
          log: (...parts) => Effect.sync(() => void printed.push(parts.map(String).join(" "))),
          error: (...parts) => Effect.sync(() => void printed.push(parts.map(String).join(" ")))
        }))
        const terminal: Terminal = { live: false, color: false }
        const run = Command.run(makeSvc(terminal, Effect.dieMessage("svc serve is not run here")), { name: "svc", version: "0.0.0", executable: "svc" })
        yield* Effect.flatMap(capture, (console) => run(["node", "svc", ...args]).pipe(Effect.withConsole(console)))
        return printed.join("\n")
      }).pipe(Effect.provide(NodeContext.layer))

    it.effect("--help of the commands that read traces: --from and diagnose's --format", () =>
      Effect.gen(function*() {
        for (const command of ["analyze", "diagnose", "normalize"]) {
          const help = yield* svc([command, "--help"])
          expect(help, command).toContain("--from")
          expect(help, command).toContain(FORMAT)
          expectEveryList(help.split("\n"))
        }
        const diagnose = yield* svc(["diagnose", "--help"])
        expect(diagnose).toContain(OUTPUT)
        const outputs = handWritten(diagnose.split("\n"), REAL_OUTPUTS, OUTPUT)
        expect(outputs.lists).toBeGreaterThan(0)
        expect(outputs.missing).toEqual([])
      }))

    it.effect("the completion scripts for bash, zsh and fish", () =>
      Effect.gen(function*() {
        for (const shell of ["bash", "zsh", "fish"]) {
          const script = yield* svc(["--completions", shell])
          expect(script, shell).toContain(FORMAT)
          expect(script, shell).toContain(OUTPUT)
        }
      }))
  })

  it("the docs' generated sections (and the committed docs are then stale until regenerated)", () => {
    expect(SECTIONS["format-names"]()).toContain(FORMAT)
    expect(SECTIONS.formats()).toContain(FORMAT)
    expect(SECTIONS["output-names"]()).toContain(OUTPUT)
    expect(SECTIONS.outputs()).toContain("application/x-zz-throwaway")
    for (const file of Object.keys(DOCS_SECTIONS)) {
      const committed = readFileSync(join(root, file), "utf8")
      const generated = withSections(committed)
      expect(generated, file).not.toEqual(committed)
    }
  })
})
