// Records a real Codex CLI run for the `codex` importer's tests (test/fixtures/traces/codex/):
// `codex exec --json` (the published @openai/codex npm package, its bundled binary) talks to a
// loopback HTTP server that plays the Responses API as server-sent events with scripted answers
// (an `exec_command` call, then the answer); the dummy key never leaves the machine. Codex runs the
// command itself in a temporary directory holding two files, writes its JSON event stream to
// stdout and its rollout under CODEX_HOME; both are copied as they are.
//
//   node scripts/record-trace-fixtures/codex.mjs     (downloads @openai/codex@0.169.0 with npx)
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { filesUnder, runTool } from "./tool-run.mjs"

const VERSION = "0.169.0"
const OUT = new URL("../../test/fixtures/traces/codex/", import.meta.url)
const root = mkdtempSync(join(tmpdir(), "codex-fixture-"))
const home = join(root, "home")
const work = join(root, "work")
mkdirSync(home)
mkdirSync(work)
writeFileSync(join(work, "notes.txt"), "notes\n")
writeFileSync(join(work, "report.md"), "# report\n")

let turn = 0
const server = createServer((request, response) => {
  let body = ""
  request.on("data", (chunk) => (body += chunk))
  request.on("end", () => {
    if (!request.url.endsWith("/responses")) {
      response.writeHead(404)
      return response.end("{}")
    }
    turn += 1
    const id = `resp_loopback_${turn}`
    const send = (type, data) => response.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`)
    response.writeHead(200, { "content-type": "text/event-stream" })
    send("response.created", { response: { id } })
    const item = turn === 1
      ? { type: "function_call", id: "fc_loopback_1", call_id: "call_loopback_1", name: "exec_command", arguments: JSON.stringify({ cmd: "ls" }) }
      : { type: "message", id: "msg_loopback_2", role: "assistant", content: [{ type: "output_text", text: "The directory holds notes.txt and report.md." }] }
    send("response.output_item.done", { item, output_index: 0 })
    send("response.completed", {
      response: { id, usage: { input_tokens: 100, input_tokens_details: { cached_tokens: 0 }, output_tokens: 20, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 120 } }
    })
    response.end()
  })
})
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
const port = server.address().port
const provider = `model_providers.loopback={name="loopback", base_url="http://127.0.0.1:${port}/v1", env_key="OPENAI_API_KEY", wire_api="responses"}`
const run = await runTool([`@openai/codex@${VERSION}`, "exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "-m", "gpt-5", "-c", "model_provider=loopback", "-c", provider, "List the files in this directory."], { cwd: work, env: { CODEX_HOME: home, OPENAI_API_KEY: "sk-loopback-dummy" }, timeoutMs: 120_000 })
server.close()
if (run.status !== 0) throw new Error(`codex exec exited ${run.status}: ${run.stderr}`)
writeFileSync(new URL(`codex-${VERSION.split(".").slice(0, 2).join(".")}-exec-json.jsonl`, OUT), run.stdout)
const rollouts = filesUnder(join(home, "sessions"), (path) => /rollout-[^/]*\.jsonl$/.test(path))
if (rollouts.length !== 1) throw new Error(`expected one rollout, found ${rollouts.length}`)
copyFileSync(rollouts[0], new URL(`codex-${VERSION.split(".").slice(0, 2).join(".")}-rollout-exec-command.jsonl`, OUT))
process.stdout.write(`recorded with @openai/codex@${VERSION}\n`)
