/**
 * The usual setup of an HTTP test file: one provider double for the file (reset after each test)
 * and the services the tests start, all closed when the file ends.
 */
import { afterAll, afterEach, beforeAll } from "@effect/vitest"
import { type ProviderDouble, startProviderDouble } from "./ProviderDouble.js"
import { type RunningService, startService } from "./Service.js"

export interface Harness {
  /** The file's provider double (available from beforeAll on). */
  readonly double: ProviderDouble
  /** Starts the real service with this configuration; it is closed after the file. */
  readonly start: (env: Record<string, string>) => Promise<RunningService>
}

export const useProviderDouble = (): Harness => {
  let current: ProviderDouble | undefined
  const services: Array<RunningService> = []
  beforeAll(async () => {
    current = await startProviderDouble()
  })
  afterEach(() => current?.reset())
  afterAll(async () => {
    await Promise.all(services.map((service) => service.close()))
    await current?.close()
  })
  return {
    get double() {
      if (current === undefined) throw new Error("the provider double starts in beforeAll")
      return current
    },
    start: async (env) => {
      const service = await startService(env)
      services.push(service)
      return service
    }
  }
}
