/**
 * The service's own overhead per analysis: wall time of POST /v1/analyze against a provider
 * double that answers at once, for a 50-step trace and a 5,000-step (~4 MiB) trace, per mode;
 * and the prompt characters (≈ tokens × 4) each mode sends for the 5,000-step trace.
 * Run: npx tsx bench/overhead.ts
 */
import { performance } from "node:perf_hooks"
import { startProviderDouble } from "../test/support/ProviderDouble.js"
import { startService } from "../test/support/Service.js"

const steps = (n: number, pad: number) =>
  Array.from({ length: n }, (_, i) => ({
    type: i % 40 === 13 ? "error" : i % 3 === 0 ? "thought" : "tool_call",
    tool: i % 3 === 0 ? undefined : "ledger.lookup",
    content: i % 40 === 13
      ? `Error 503 from ledger API on invoice ${i}`
      : `lookup(invoice=${i}) matched ledger row ${i * 3} amount ${(i * 17.5).toFixed(2)} ${"note ".repeat(pad)}`
  }))

const trace = (n: number, pad: number) => ({
  task: "Reconcile invoices against the ledger and report mismatches",
  steps: steps(n, pad),
  outcome: "Stopped after repeated ledger errors",
  success: false
})

const median = (xs: Array<number>) => {
  const sorted = xs.slice().sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? 0
}

const main = async () => {
  const double = await startProviderDouble()
  const service = await startService({
    OPENAI_API_KEY: "sk-bench-0123456789abcdef",
    OPENAI_BASE_URL: `${double.url}/v1`,
    SVC_API_MAX_TOTAL_CHARS: "8000000",
    SVC_API_MAX_STRING_CHARS: "8000000"
  })
  const small = JSON.stringify({ trace: trace(50, 4), mode: "quick" })
  const bigTrace = trace(5000, 150)
  const bigBytes = Buffer.byteLength(JSON.stringify(bigTrace))
  const runs = 9
  const rows: Array<Record<string, string | number>> = []
  for (const [label, body] of [["50 steps", small], [`5,000 steps (${(bigBytes / 1048576).toFixed(2)} MiB)`, ""]] as const) {
    for (const mode of ["quick", "standard", "forensic"] as const) {
      const payload = body === "" ? JSON.stringify({ trace: bigTrace, mode }) : JSON.stringify({ ...JSON.parse(body), mode })
      const times: Array<number> = []
      let promptChars = 0
      let calls = 0
      for (let r = 0; r < runs; r++) {
        double.reset()
        const started = performance.now()
        const response = await fetch(`${service.url}/v1/analyze/lewin`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: payload
        })
        await response.text()
        times.push(performance.now() - started)
        if (response.status !== 200) throw new Error(`status ${response.status}`)
        promptChars = double.calls.reduce((sum, call) => sum + JSON.stringify(call.body).length, 0)
        calls = double.calls.length
      }
      rows.push({ trace: label, mode, "median ms": Math.round(median(times) * 10) / 10, "model calls": calls, "prompt chars": promptChars, "≈ tokens": Math.round(promptChars / 4) })
    }
  }
  console.table(rows)
  await service.close()
  await double.close()
}

main().then(() => process.exit(0), (error: unknown) => {
  console.error(error)
  process.exit(1)
})
