import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { CHECKS } from "../../src/Checks/Registry.js"
import { runChecks } from "../../src/Checks/Run.js"
import { parseChecksFile } from "../../src/Checks/Settings.js"
import { call, failure, say, traceOf, user } from "./support.js"

/** The settings or why not (the YAML parser loads on the first YAML file). */
const readSettings = (text: string, file: string, checks: typeof CHECKS) => Effect.runPromise(Effect.either(parseChecksFile(text, file, checks)))

const search = traceOf([user("find flights"), call("search", '{"to":"LIS"}', "a"), failure("search", "No results for that date", "a"), say("Here are the options.")])

describe("SVC_CHECKS_FILE", () => {
  it("reads YAML: checks off everywhere or per scope, tools' expected errors, and a scope's own additions", async () => {
    const settings = Either.getOrThrow(await readSettings(
      [
        "expected_errors:",
        "  - { tool: search, matches: no results }",
        "scopes:",
        "  billing:",
        "    disabled: [tool_error_unrecovered]"
      ].join("\n"),
      "checks.yaml",
      CHECKS
    ))
    // the expected error never fires a check, in every scope
    expect(runChecks(search, settings.forScope(null))).toEqual([])
    const other = traceOf([call("pay", "{}", "a"), failure("pay", "502 Bad Gateway", "a"), say("Paid.")])
    expect(runChecks(other, settings.forScope(null)).map((finding) => finding.check)).toContain("tool_error_unrecovered")
    expect(runChecks(other, settings.forScope("billing")).map((finding) => finding.check)).not.toContain("tool_error_unrecovered")
    expect(runChecks(other, settings.forScope("someone-else")).map((finding) => finding.check)).toContain("tool_error_unrecovered")
  })

  it("reads JSON by its name", async () => {
    const settings = await readSettings(JSON.stringify({ disabled: ["success_claim_after_error"] }), "checks.json", CHECKS)
    expect(Either.isRight(settings)).toBe(true)
  })

  it("refuses unknown check ids, thresholds and keys, naming where", async () => {
    const refusal = async (text: string) => Either.match(await readSettings(text, "c.yaml", CHECKS), { onLeft: (reason) => reason, onRight: () => "accepted" })
    expect(await refusal("disabled: [no_such_check]")).toMatch(/^c\.yaml: disabled: unknown check `no_such_check` \(the checks: tool_error_unrecovered, /)
    expect(await refusal("scopes:\n  alice:\n    disabled: [nope]")).toContain("scopes.alice.disabled: unknown check `nope`")
    expect(await refusal("thresholds:\n  tool_error_unrecovered: { length: 3 }")).toContain("thresholds.tool_error_unrecovered: unknown threshold `length` (the check has none)")
    expect(await refusal("colour: blue")).toContain("c.yaml:")
    expect(await refusal("expected_errors: [{ tool: search }]")).toContain("matches")
    expect(await refusal("disabled: [")).toMatch(/^c\.yaml: not YAML or JSON/)
  })

  it("sets a check's threshold, at least its minimum", async () => {
    const withThreshold = CHECKS.find((check) => check.id === "repeated_call_loop")
    if (withThreshold === undefined) throw new Error("repeated_call_loop is not in the registry")
    const [name, threshold] = Object.entries(withThreshold.thresholds ?? {})[0] ?? []
    if (name === undefined || threshold === undefined) throw new Error("a threshold without a name")
    const settings = Either.getOrThrow(await readSettings(`thresholds:\n  ${withThreshold.id}: { ${name}: ${threshold.minimum + 1} }`, "t.yaml", CHECKS))
    expect(settings.forScope(null).settingsOf(withThreshold).threshold(name)).toBe(threshold.minimum + 1)
    expect(Either.isLeft(await readSettings(`thresholds:\n  ${withThreshold.id}: { ${name}: ${threshold.minimum - 1} }`, "t.yaml", CHECKS))).toBe(true)
  })
})
