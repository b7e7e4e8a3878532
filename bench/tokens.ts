/**
 * What the service sends the model per analysis, by mode, for every pattern's example trace:
 * characters of system prompt, of the JSON schema and of the user messages (the trace and what is
 * derived from it), over all the calls of one analysis, as the provider double receives them
 * (OpenAI Responses wire). Tokens ≈ characters / 4. Run: npx tsx bench/tokens.ts
 */
import { readdirSync } from "node:fs"
import { join } from "node:path"
import { exampleTrace, type RecordedCall, startProviderDouble } from "../test/support/ProviderDouble.js"
import { startService } from "../test/support/Service.js"

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)
const textOf = (value: unknown): string =>
  typeof value === "string" ? value : Array.isArray(value) ? value.map(textOf).join("") : isRecord(value) ? textOf(value["text"] ?? value["content"] ?? "") : ""

/** System, schema and user characters of one call on the OpenAI Responses wire. */
export const partsOf = (call: RecordedCall) => {
  const input = Array.isArray(call.body["input"]) ? call.body["input"] : []
  let system = typeof call.body["instructions"] === "string" ? call.body["instructions"].length : 0
  let user = 0
  for (const item of input) {
    if (!isRecord(item)) continue
    const length = textOf(item["content"]).length
    if (item["role"] === "system" || item["role"] === "developer") system += length
    else user += length
  }
  return { system, schema: JSON.stringify(call.schema ?? {}).length, user }
}

const main = async () => {
  const double = await startProviderDouble()
  const service = await startService({ OPENAI_API_KEY: "sk-bench-0123456789abcdef", OPENAI_BASE_URL: `${double.url}/v1` })
  const slugs = readdirSync(join(import.meta.dirname, "..", "patterns"), { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort()
  const rows: Array<{ mode: string; calls: number; system: number; schema: number; user: number }> = []
  const lewin: Array<Record<string, number | string>> = []
  for (const mode of ["quick", "standard", "forensic"]) {
    const totals = { calls: 0, system: 0, schema: 0, user: 0 }
    for (const slug of slugs) {
      double.calls.length = 0
      const response = await fetch(`${service.url}/v1/analyze/${slug}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ trace: exampleTrace(slug), mode })
      })
      if (response.status !== 200) throw new Error(`${slug} ${mode}: ${response.status} ${(await response.text()).slice(0, 200)}`)
      const parts = double.calls.map(partsOf)
      const sum = parts.reduce((a, b) => ({ system: a.system + b.system, schema: a.schema + b.schema, user: a.user + b.user }), { system: 0, schema: 0, user: 0 })
      totals.calls += parts.length
      totals.system += sum.system
      totals.schema += sum.schema
      totals.user += sum.user
      if (slug === "lewin") lewin.push({ mode, calls: parts.length, ...sum, tokens: Math.round((sum.system + sum.schema + sum.user) / 4) })
    }
    const n = slugs.length
    rows.push({ mode, calls: totals.calls / n, system: Math.round(totals.system / n), schema: Math.round(totals.schema / n), user: Math.round(totals.user / n) })
  }
  console.log("mean characters per analysis over the 34 example traces (tokens ≈ characters / 4):")
  console.table(rows.map((row) => ({ ...row, tokens: Math.round((row.system + row.schema + row.user) / 4) })))
  console.log("lewin:")
  console.table(lewin)
  await service.close()
  await double.close()
}

main().then(() => process.exit(0), (error: unknown) => {
  console.error(error)
  process.exit(1)
})
