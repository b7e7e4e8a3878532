// Records a real Gemini CLI session for the `gemini_cli` importer's tests
// (test/fixtures/traces/gemini_cli/): the published @google/gemini-cli npm package run headless
// (`gemini -p ... --yolo`) in a temporary directory holding two files, against a loopback HTTP
// server that plays the Gemini API (`streamGenerateContent?alt=sse`) with scripted answers (a
// `list_directory` call, then the answer), through GOOGLE_GEMINI_BASE_URL with a dummy key; nothing
// leaves the machine. The session file the CLI writes under HOME/.gemini/tmp/*/chats/ is copied as
// it is (the temporary paths included).
//
//   node scripts/record-trace-fixtures/gemini-cli.mjs     (downloads @google/gemini-cli@0.61.0 with npx)
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { filesUnder, runTool } from "./tool-run.mjs"

const VERSION = "0.61.0"
const OUT = new URL("../../test/fixtures/traces/gemini_cli/", import.meta.url)
const root = mkdtempSync(join(tmpdir(), "gemini-fixture-"))
const home = join(root, "home")
const work = join(root, "work")
mkdirSync(join(home, ".gemini"), { recursive: true })
mkdirSync(work)
writeFileSync(join(work, "notes.txt"), "notes\n")
writeFileSync(join(work, "report.md"), "# report\n")
// An API key chosen as the auth method; no folder-trust prompt, no telemetry.
writeFileSync(
  join(home, ".gemini", "settings.json"),
  JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: false } }, telemetry: { enabled: false }, privacy: { usageStatisticsEnabled: false } })
)

let turn = 0
const server = createServer((request, response) => {
  let body = ""
  request.on("data", (chunk) => (body += chunk))
  request.on("end", () => {
    if (!request.url.includes(":streamGenerateContent") && !request.url.includes(":generateContent")) {
      response.writeHead(404, { "content-type": "application/json" })
      return response.end(JSON.stringify({ error: { code: 404, message: "not served", status: "NOT_FOUND" } }))
    }
    const tools = JSON.parse(body).tools ?? []
    const names = tools.flatMap((tool) => (tool.functionDeclarations ?? []).map((declaration) => declaration.name))
    // The main conversation declares the tools; the CLI's side calls (routing, summaries) do not.
    let parts
    if (names.length > 0) {
      turn += 1
      parts = turn === 1 ? [{ functionCall: { name: "list_directory", args: { dir_path: work } } }] : [{ text: "The directory holds notes.txt and report.md." }]
    } else {
      parts = [{ text: "{\"reasoning\":\"a simple request\",\"model_choice\":\"flash\"}" }]
    }
    const chunk = {
      candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
      usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 20, totalTokenCount: 120 },
      modelVersion: "gemini-2.5-flash"
    }
    if (request.url.includes("alt=sse")) {
      response.writeHead(200, { "content-type": "text/event-stream" })
      response.write(`data: ${JSON.stringify(chunk)}\n\n`)
      return response.end()
    }
    response.writeHead(200, { "content-type": "application/json" })
    response.end(JSON.stringify(chunk))
  })
})
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
const port = server.address().port
const run = await runTool([`@google/gemini-cli@${VERSION}`, "-p", "List the files in this directory.", "--yolo", "-m", "gemini-2.5-flash"], { cwd: work, env: { HOME: home, GEMINI_API_KEY: "dummy-loopback-key", GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${port}` }, timeoutMs: 180_000 })
server.close()
if (run.status !== 0) throw new Error(`gemini exited ${run.status}: ${run.stderr}`)
const sessions = filesUnder(join(home, ".gemini"), (path) => path.includes(join("chats", "session-")))
if (sessions.length !== 1) throw new Error(`expected one session file, found ${sessions.length}`)
copyFileSync(sessions[0], new URL(`gemini-cli-${VERSION.split(".").slice(0, 2).join(".")}-session.jsonl`, OUT))
process.stdout.write(`recorded with @google/gemini-cli@${VERSION}\n`)
