/**
 * The typed client derived from the contract (src/Client.ts) drives the live server: catalogue
 * calls, an analysis through the provider double, and typed errors.
 */
import { FetchHttpClient, type HttpClient } from "@effect/platform"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { pattern as lewin } from "../../patterns/lewin/pattern.js"
import { makeClient } from "../../src/Client.js"
import { exampleTrace, type ProviderDouble, startProviderDouble } from "../support/ProviderDouble.js"
import { type RunningService, startService } from "../support/Service.js"

let double: ProviderDouble
let service: RunningService
beforeAll(async () => {
  double = await startProviderDouble()
  service = await startService({ OPENAI_API_KEY: "sk-test-openai-0123456789", OPENAI_BASE_URL: `${double.url}/v1` })
})
afterAll(async () => {
  await service.close()
  await double.close()
})

const run = <A, E>(effect: Effect.Effect<A, E, HttpClient.HttpClient>) =>
  Effect.runPromise(Effect.provide(effect, FetchHttpClient.layer))

describe("typed client", () => {
  it("lists the catalogue and reads a pattern's resources", async () => {
    const result = await run(Effect.gen(function*() {
      const client = yield* makeClient(service.url)
      const catalogue = yield* client.catalogue.listPatterns()
      const record = yield* client.catalogue.getPattern({ path: { name: "lencioni" } })
      const playbooks = yield* client.catalogue.getPlaybooks({ path: { name: "lencioni" } })
      const health = yield* client.probes.healthz()
      return { catalogue, record, playbooks, health }
    }))
    expect(result.catalogue.count).toBe(34)
    expect(result.record.friendly).toBe("Lencioni Five Dysfunctions")
    expect(result.playbooks.count).toBeGreaterThanOrEqual(6)
    expect(result.health.patterns).toBe(34)
  })

  it("runs an analysis and returns the typed detection", async () => {
    const trace = Schema.decodeUnknownSync(lewin.spec.input)(exampleTrace("lewin"))
    const result = await run(Effect.gen(function*() {
      const client = yield* makeClient(service.url)
      return yield* client.analyze.lewin({ payload: { trace, mode: "quick", model: null } })
    }))
    expect(result.pattern).toBe("lewin")
    expect(result.mode).toBe("quick")
    expect(result.detection.headline.dominant_locus).toBe("interactional")
    expect(result.detection.evidence_check.dropped).toBe(0)
  })

  it("surfaces documented errors as typed failures", async () => {
    const error = await run(Effect.gen(function*() {
      const client = yield* makeClient(service.url)
      return yield* Effect.flip(client.catalogue.getPattern({ path: { name: "nope" } }))
    }))
    expect(error._tag).toBe("UnknownPattern")
  })
})
