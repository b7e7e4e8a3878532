/**
 * The heap's serving setting (src/Lifecycle/Heap.ts), seen through V8's own trace of its heap
 * controller (`--trace-gc-verbose`): once the built service is ready, every limit V8 sets for the
 * old generation after a full collection is 1.75 times what that collection kept alive (1.5 on a V8
 * that pools the pages it frees: Node 24's), where V8 chooses a factor of its own (up to 4) without
 * the setting. The service runs on the test's own Node, so the test's V8 says which factor.
 * Node 20's V8 prints the factor a limit was set with (`[HeapController] Limit: old size: … KB, new
 * limit: … KB (1.8)`), Node 24's the factor it settled on (`[HeapController] factor 1.5 based on
 * mu=…`), to one decimal; both are read. The full collections are made by OTLP intake (each
 * 500-span request promotes a few MB), as many requests as it takes to see three, up to a bound; no
 * time is waited for. In the Node 24 pass too.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { START_FLAGS } from "../../bench/support.js"
import { OLD_GENERATION_GROWTH_PERCENT, POOLS_FREED_PAGES } from "../../src/Lifecycle/Heap.js"
import { encodeTraces } from "../../src/Otlp/Wire/Proto.js"
import { buildTrace, tracesRequest } from "../otlp/support.js"
import { type Spawned, spawnService } from "../support/Spawned.js"

const children: Array<Spawned> = []
afterAll(async () => {
  for (const child of children.splice(0)) {
    if (child.child.exitCode === null && child.child.signalCode === null) {
      child.child.kill("SIGKILL")
      await child.exited
    }
  }
})

/**
 * The old generation's factors in V8's trace lines: the factor each limit was set with where the
 * limit's line gives it (Node 20's V8, whose `factor … based on` line is its own choice before the
 * setting applies), else the `factor … based on` lines (Node 24's V8, where the setting is applied
 * before that line and the limit's line gives none).
 */
const oldGenerationFactors = (lines: ReadonlyArray<string>): Array<number> => {
  const controller = lines.filter((line) => line.includes("[HeapController]"))
  const read = (pattern: RegExp) => controller.flatMap((line) => {
    const factor = pattern.exec(line)
    return factor === null ? [] : [Number(factor[1])]
  })
  const limits = read(/\bnew limit: \d+ KB \((\d+(?:\.\d+)?)\)/)
  return limits.length > 0 ? limits : read(/\bfactor (\d+(?:\.\d+)?) based on\b/)
}

describe("the heap once the service serves", () => {
  it("sets the old generation's limit at 1.75 times what a full collection kept alive (1.5 where V8 pools freed pages)", async () => {
    // No analysis is made: the provider endpoint is never called; traces are kept, none completes,
    // and no bound on pending bytes or spans per second refuses a request (the bounds have their tests).
    const unbounded = { SVC_OTLP_PENDING_BYTES: String(2 ** 40), SVC_OTLP_PENDING_BYTES_PER_SCOPE: String(2 ** 40), SVC_OTLP_RATE_LIMIT: "off" }
    // as `npm start` runs it (its node flags read from package.json), with V8's trace of its heap
    const service = await spawnService("http://127.0.0.1:9", { SVC_WORKERS: "0", SVC_OTLP_QUIET_SECONDS: "600", ...unbounded }, [
      ...START_FLAGS,
      "--trace-gc-verbose"
    ])
    children.push(service)
    const exportBatch = async (request: number) => {
      const spans = Array.from({ length: 10 }, (_, n) => buildTrace(request, n, 49).spans).flat()
      const answer = await fetch(`${service.url}/v1/traces`, {
        method: "POST",
        headers: { "content-type": "application/x-protobuf" },
        body: encodeTraces(tracesRequest(spans))
      })
      expect(answer.status).toBe(200)
      await answer.arrayBuffer()
    }
    // Serve.ts makes the setting as the server's layer is built: read from after a request answered
    expect((await fetch(`${service.url}/readyz`)).status).toBe(200)
    await exportBatch(0)
    const servingFrom = service.otherOutput.length
    const serving = () => oldGenerationFactors(service.otherOutput.slice(servingFrom))
    const startUp = oldGenerationFactors(service.otherOutput.slice(0, servingFrom))
    for (let request = 1; request < 400 && serving().length < 3; request++) await exportBatch(request)
    const expected = 1 + OLD_GENERATION_GROWTH_PERCENT / 100
    expect(expected).toBe(POOLS_FREED_PAGES ? 1.5 : 1.75)
    expect(serving().length).toBeGreaterThanOrEqual(3)
    // printed to one decimal (1.75 as 1.7 or 1.8, 1.5 as 1.5); V8's own choice here is 3.8 to 4
    for (const factor of serving()) expect(Math.abs(factor - expected)).toBeLessThan(0.06)
    // the trace was read from the start (start-up's collections are left to V8's own choice)
    expect(startUp.length).toBeGreaterThan(0)
    service.child.kill("SIGTERM")
    await service.exited
  }, 240_000)
})
