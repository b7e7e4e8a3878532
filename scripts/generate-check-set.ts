/**
 * Writes the labelled check set (issue 48, docs/eval.md "Checks"): `--per` items per (check,
 * format) injector, from the seed, then the fixtures checked as successful, as JSON Lines for
 * `svc eval --method checks`. The same seed writes the same file.
 *
 *   npx tsx scripts/generate-check-set.ts --seed 1 --per 20 --out checks.jsonl
 */
import { writeFileSync } from "node:fs"
import { parseArgs } from "node:util"
import { generate } from "../eval/inject/Generate.js"

const { values } = parseArgs({ options: { seed: { type: "string", default: "1" }, per: { type: "string", default: "20" }, out: { type: "string" } } })
const seed = Number(values.seed)
const per = Number(values.per)
if (!Number.isInteger(seed) || !Number.isInteger(per) || per < 1) {
  process.stderr.write("usage: generate-check-set.ts --seed N --per N --out FILE\n")
  process.exit(2)
}
const items = generate({ seed, per })
const lines = `${items.map((item) => JSON.stringify(item)).join("\n")}\n`
if (values.out === undefined) process.stdout.write(lines)
else {
  writeFileSync(values.out, lines)
  process.stderr.write(`${items.length} items (seed ${seed}, ${per} per injector) in ${values.out}\n`)
}
