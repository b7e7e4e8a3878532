/**
 * Replies to analyze bodies seen before. When a body passes every check, its fingerprint (cache
 * scope + pattern + body bytes: Auth/Scopes.ts) is remembered with the cache key it validated to; an identical body later is
 * answered from the stored detection's prepared response bytes, synchronously, without parsing or
 * validating again. The edge answers cache hits with it (through `CachedRepliesFastLane`,
 * CachedRepliesFastLane.ts, its synchronous lane; the REST adapter remembers bodies through the
 * `CachedReplies` service, Effects only); bounded (LRU) like the cache itself.
 * The fingerprint is an HMAC-SHA256 under a key made for this process and never shared (DECISIONS
 * §20): raw bytes hold unredacted content, and a plain hash of them would let a guess at a secret
 * be checked against it.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { createHmac, randomBytes } from "node:crypto"
import type { AnalysisResult } from "../Catalogue/Detection.js"
import type { Mode } from "../Catalogue/Resources.js"
import { AppConfig } from "../Config.js"
import { Lru } from "../Lru.js"
import { AnalysisCache } from "./AnalysisCache.js"
import { AnalysisCacheFastLane } from "./AnalysisCacheFastLane.js"
import { CachedRepliesFastLane } from "./CachedRepliesFastLane.js"

export interface KnownBody {
  /** The cache key the body validated to. */
  readonly key: string
  readonly mode: Mode
  /** The response bytes of a stored result (rendered once per stored entry). */
  readonly render: (result: AnalysisResult) => Uint8Array
}

export interface CachedRepliesShape {
  readonly enabled: boolean
  /** Remembers a body that passed every check, for its cache scope. */
  readonly remember: (scope: string, slug: string, body: Uint8Array, known: KnownBody) => Effect.Effect<void>
}

export class CachedReplies extends Context.Tag("CachedReplies")<CachedReplies, CachedRepliesShape>() {}

/**
 * Fingerprints of request bodies under a process's own key (HMAC-SHA256 of scope, pattern and
 * bytes): never a plain hash of raw, unredacted bytes. A body is fingerprinted once: the edge's
 * lookup and the handler's remember share it.
 */
export const bodyFingerprints = (processKey: Uint8Array) => {
  const fingerprints = new WeakMap<Uint8Array, { readonly of: string; readonly print: string }>()
  return (scope: string, slug: string, body: Uint8Array): string => {
    const of = `${scope}\u0000${slug}`
    const memo = fingerprints.get(body)
    if (memo !== undefined && memo.of === of) return memo.print
    const print = createHmac("sha256", processKey).update(of).update("\u0000").update(body).digest("hex")
    fingerprints.set(body, { of, print })
    return print
  }
}

const disabled = Context.make(CachedRepliesFastLane, { lookup: () => undefined }).pipe(
  Context.add(CachedReplies, { enabled: false, remember: () => Effect.void })
)

/** `CachedReplies` and the edge's `CachedRepliesFastLane`, one set of known bodies behind both. */
export const CachedRepliesLive = Layer.effectContext(
  Effect.gen(function*() {
    const cache = yield* AnalysisCache
    const hits = yield* AnalysisCacheFastLane
    const config = yield* AppConfig
    if (!cache.enabled) return disabled
    const known = new Lru<string, KnownBody>(config.cache.capacity * 2)
    const fingerprint = bodyFingerprints(randomBytes(32))
    return Context.make(CachedRepliesFastLane, {
      lookup: (scope, slug, body) => {
        const entry = known.get(fingerprint(scope, slug, body))
        if (entry === undefined) return undefined
        const bytes = hits.hitBytes(entry.key, entry.render)
        return bytes === undefined ? undefined : { bytes, mode: entry.mode }
      }
    }).pipe(Context.add(CachedReplies, {
      enabled: true,
      remember: (scope, slug, body, entry) => Effect.sync(() => known.set(fingerprint(scope, slug, body), entry))
    }))
  })
)
