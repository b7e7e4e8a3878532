/**
 * The SQLite store's one connection, kept for transactions too. libsql's client hands a transaction
 * its connection and opens a new one for the next statement, which has none of the connection's
 * settings (the busy timeout, `synchronous`): so the store ran no transaction. Problems (DECISIONS
 * §19) must be updated in the transaction that finishes a run, so here a transaction runs on the
 * same connection, between `BEGIN IMMEDIATE` and `COMMIT`. That is safe because `@effect/sql-libsql`
 * holds its one permit for the transaction's whole life: no other statement reaches the connection
 * until it ends. Loaded with the driver, only when the store opens.
 */
import type { Client, InStatement, Replicated, ResultSet, Transaction, TransactionMode } from "@libsql/client"
import { closeSync, openSync } from "node:fs"
import { PRIVATE_FILE } from "../Config/Paths.js"

/**
 * The database file, created empty for the service's user alone (0600) when it does not exist yet
 * (SQLite reads an empty file as a new database): SQLite would make it 0644, and it gives the
 * `-wal` and `-shm` files it makes beside it the database file's mode. An existing file keeps its mode.
 */
export const createPrivately = (file: string): void => closeSync(openSync(file, "a", PRIVATE_FILE))

/** `BEGIN` for a transaction mode: a write transaction takes the write lock at once (no upgrade deadlock). */
const beginOf = (mode: TransactionMode | undefined): string => (mode === undefined || mode === "write" ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED")

/** A transaction on the client's own connection. */
class SameConnectionTransaction implements Transaction {
  #open = true
  constructor(private readonly client: Client) {}

  get closed(): boolean {
    return !this.#open
  }

  execute(statement: InStatement): Promise<ResultSet> {
    return this.client.execute(statement)
  }

  async batch(statements: Array<InStatement>): Promise<Array<ResultSet>> {
    const results: Array<ResultSet> = []
    for (const statement of statements) results.push(await this.client.execute(statement))
    return results
  }

  executeMultiple(text: string): Promise<void> {
    return this.client.executeMultiple(text)
  }

  async commit(): Promise<void> {
    if (!this.#open) return
    this.#open = false
    await this.client.execute("COMMIT")
  }

  async rollback(): Promise<void> {
    if (!this.#open) return
    this.#open = false
    await this.client.execute("ROLLBACK")
  }

  close(): void {
    // a transaction closed without its end rolls back (nothing of it is kept)
    if (this.#open) void this.rollback().catch(() => undefined)
  }
}

/** A libsql client whose transactions keep its connection (and so its settings). */
export class OneConnectionClient implements Client {
  constructor(private readonly inner: Client) {}

  get closed(): boolean {
    return this.inner.closed
  }

  get protocol(): string {
    return this.inner.protocol
  }

  execute(statement: InStatement): Promise<ResultSet> {
    return this.inner.execute(statement)
  }

  batch(statements: Array<InStatement>, mode?: TransactionMode): Promise<Array<ResultSet>> {
    return this.inner.batch(statements, mode)
  }

  migrate(statements: Array<InStatement>): Promise<Array<ResultSet>> {
    return this.inner.migrate(statements)
  }

  async transaction(mode?: TransactionMode): Promise<Transaction> {
    await this.inner.execute(beginOf(mode))
    return new SameConnectionTransaction(this.inner)
  }

  executeMultiple(text: string): Promise<void> {
    return this.inner.executeMultiple(text)
  }

  sync(): Promise<Replicated> {
    return this.inner.sync()
  }

  close(): void {
    this.inner.close()
  }
}
