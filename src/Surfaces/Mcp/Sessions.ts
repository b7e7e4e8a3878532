/**
 * The MCP sessions of one replica, counted per API key: each key name (the callers with no key
 * count as one) keeps at most `perKey` sessions, the least recently used of *that key* dropped
 * past it, so no key can push another key's sessions out; `total` bounds them all (reached only
 * when more than total / perKey keys are full: then the least recently used of any key goes).
 */
import { Lru } from "../../Lru.js"

export const MAX_SESSIONS = 10_000
export const MAX_SESSIONS_PER_KEY = 100

export class SessionStore<S extends { readonly keyName: string | null }> {
  /** Every session by its id, least recently used first. */
  private readonly all: Lru<string, S>
  /** The ids of each key's sessions, least recently used first. */
  private readonly byKey = new Map<string | null, Lru<string, true>>()

  constructor(readonly perKey: number = MAX_SESSIONS_PER_KEY, readonly total: number = MAX_SESSIONS) {
    this.all = new Lru<string, S>(total, (id, session) => this.forget(session.keyName, id))
  }

  get size(): number {
    return this.all.size
  }

  /** Sessions of one key name. */
  countOf(keyName: string | null): number {
    return this.byKey.get(keyName)?.size ?? 0
  }

  /** A session by its id, made its key's newest; undefined when unknown (or dropped). */
  get(id: string): S | undefined {
    const session = this.all.get(id)
    if (session !== undefined) this.byKey.get(session.keyName)?.get(id)
    return session
  }

  add(id: string, session: S): void {
    let ids = this.byKey.get(session.keyName)
    if (ids === undefined) {
      ids = new Lru<string, true>(this.perKey, (dropped) => {
        this.all.delete(dropped)
      })
      this.byKey.set(session.keyName, ids)
    }
    ids.set(id, true)
    this.all.set(id, session)
  }

  private forget(keyName: string | null, id: string): void {
    const ids = this.byKey.get(keyName)
    if (ids === undefined) return
    ids.delete(id)
    if (ids.size === 0) this.byKey.delete(keyName)
  }
}
