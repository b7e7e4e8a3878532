/**
 * Real agent runs labelled failed or successful (issue 48, DECISIONS §23, docs/eval.md "Checks"):
 * tau-bench's published trajectories (sierra-research/tau-bench, `historical_trajectories/*.json`,
 * MIT), each run's `reward` (1: the task's database state and outputs were right) as its outcome.
 * Writes one `svc eval` item per run, the reward taken off the trace:
 * `{id, trace: [run], format: "tau_bench", split, expect: {outcome}}`.
 *
 *   npx tsx eval/outcomes/tau-bench.ts historical_trajectories/gpt-4o-airline.json > tau.jsonl
 */
import { Predicate } from "effect"
import { readFileSync } from "node:fs"
import { basename } from "node:path"

for (const path of process.argv.slice(2)) {
  const runs: unknown = JSON.parse(readFileSync(path, "utf8"))
  if (!Array.isArray(runs)) throw new Error(`${path}: not a list of tau-bench results`)
  const name = basename(path).replace(/\.json$/, "")
  for (const run of runs) {
    if (!Predicate.isRecord(run) || typeof run["reward"] !== "number") continue
    const { reward, ...trace } = run
    const id = `tau-bench/${name}/${String(run["task_id"])}/${String(run["trial"] ?? 0)}`
    process.stdout.write(`${JSON.stringify({ id, trace: [trace], format: "tau_bench", split: name, expect: { outcome: reward >= 1 ? "successful" : "failed" } })}\n`)
  }
}
