/**
 * The SQLite store's one connection: a libsql `Database` (the `libsql` package, which
 * `@libsql/client` itself runs on) behind the `Client` interface `@effect/sql-libsql` takes. Loaded
 * with the driver, only when the store opens. It exists for two reasons:
 * - **Transactions on the connection.** libsql's client hands a transaction its connection and
 *   opens a new one for the next statement, which has none of the connection's settings (the busy
 *   timeout, `synchronous`): so the store ran no transaction. Problems (DECISIONS §19) must be
 *   updated in the transaction that finishes a run, so here a transaction runs on the same
 *   connection, between `BEGIN IMMEDIATE` and `COMMIT`. That is safe because `@effect/sql-libsql`
 *   holds its one permit for the transaction's whole life: no other statement reaches the
 *   connection until it ends.
 * - **Statements prepared once.** libsql's client prepares every statement anew and asks for its
 *   columns twice. A trace taken in by OTLP costs six statements, so over a million spans that was
 *   about 6% of the service's CPU (a profile of bench/otlp.ts: 7.8 s preparing and 2.7 s of
 *   column lists in 160 s). Here the connection keeps the last `STATEMENTS_KEPT` distinct statements
 *   prepared, with their columns; a statement that changes the schema empties them.
 * What a statement returns is what libsql's client returns: integers as numbers (a RangeError past
 * 2^53, never a rounded number), blobs as `ArrayBuffer`s, rows readable by column name and by
 * index, and SQLite's errors as `LibsqlError`s with SQLite's code.
 */
import type { Client, InArgs, InStatement, InValue, Replicated, ResultSet, Row, Transaction, TransactionMode, Value } from "@libsql/client"
import { LibsqlError } from "@libsql/client"
import Database from "libsql"
import { closeSync, openSync } from "node:fs"
import { PRIVATE_FILE } from "../Config/Paths.js"

/**
 * The database file, created empty for the service's user alone (0600) when it does not exist yet
 * (SQLite reads an empty file as a new database): SQLite would make it 0644, and it gives the
 * `-wal` and `-shm` files it makes beside it the database file's mode. An existing file keeps its mode.
 */
export const createPrivately = (file: string): void => closeSync(openSync(file, "a", PRIVATE_FILE))

/**
 * How many distinct statements stay prepared. The store's statements are a few dozen texts; the
 * rest are multi-row inserts and `IN (…)` lists, one text per row count, which come and go.
 */
export const STATEMENTS_KEPT = 128

/** A statement prepared once: `columns` for one that returns rows, else undefined. */
interface Prepared {
  readonly statement: Database.Statement
  readonly columns: ReadonlyArray<string> | undefined
  readonly columnTypes: ReadonlyArray<string>
  /** It changes the schema (never kept: running it lets every kept statement go). */
  readonly changesSchema: boolean
}

/** A statement that changes the schema: the prepared statements' column lists may then be stale. */
const SCHEMA_CHANGE = /^\s*(?:CREATE|ALTER|DROP)\b/i

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER)
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER)
const MIN_INT64 = -(2n ** 63n)
const MAX_INT64 = 2n ** 63n - 1n

/** A statement's argument as SQLite takes it. */
const argumentOf = (value: InValue): unknown => {
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new RangeError("Only finite numbers (not Infinity or NaN) can be passed as arguments")
    return value
  }
  if (typeof value === "bigint") {
    if (value < MIN_INT64 || value > MAX_INT64) throw new RangeError("bigint is too large to be represented as a 64-bit integer and passed as argument")
    return value
  }
  if (typeof value === "boolean") return value ? 1 : 0
  if (value instanceof ArrayBuffer) return Buffer.from(value)
  if (value instanceof Date) return value.valueOf()
  return value
}

/** Positional arguments as an array; named ones (`:name`, `@name`, `$name` or bare) as an object of bare names. */
const argumentsOf = (args: InArgs): unknown => {
  if (Array.isArray(args)) return args.map(argumentOf)
  const named: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(args)) {
    named[name[0] === "@" || name[0] === "$" || name[0] === ":" ? name.slice(1) : name] = argumentOf(value)
  }
  return named
}

/** A value SQLite returned (integers as bigint: read exactly, then refused when a number cannot hold them). */
const valueOf = (value: unknown): Value => {
  if (typeof value === "bigint") {
    if (value < MIN_SAFE || value > MAX_SAFE) throw new RangeError("Received integer which cannot be safely represented as a JavaScript number")
    return Number(value)
  }
  if (value === null || typeof value === "string" || typeof value === "number") return value
  if (value instanceof Uint8Array) {
    // the blob's own bytes (a Buffer may be a view into a larger, shared pool)
    const bytes = new ArrayBuffer(value.byteLength)
    new Uint8Array(bytes).set(value)
    return bytes
  }
  throw new TypeError(`SQLite returned a value of an unknown kind (${typeof value})`)
}

/** A row by index and by column name (the first of two columns of one name wins), `length` and indexes not enumerable. */
const rowOf = (values: ReadonlyArray<unknown>, columns: ReadonlyArray<string>): Row => {
  // `length` as an own property that is not enumerable, as on libsql's rows
  const row: Row = Object.defineProperty({ length: values.length }, "length", { enumerable: false, writable: false })
  for (let index = 0; index < values.length; index++) {
    const value = valueOf(values[index])
    Object.defineProperty(row, index, { value })
    const column = columns[index]
    if (column !== undefined && !Object.hasOwn(row, column)) {
      Object.defineProperty(row, column, { value, enumerable: true, configurable: true, writable: true })
    }
  }
  return row
}

/** A statement's result (its column lists copied: the kept statement's stay as they are). */
class StatementResult implements ResultSet {
  columns: Array<string>
  columnTypes: Array<string>
  constructor(
    columns: ReadonlyArray<string>,
    columnTypes: ReadonlyArray<string>,
    public rows: Array<Row>,
    public rowsAffected: number,
    public lastInsertRowid: bigint | undefined
  ) {
    this.columns = [...columns]
    this.columnTypes = [...columnTypes]
  }

  toJSON() {
    return { columns: this.columns, columnTypes: this.columnTypes, rows: this.rows.map((row) => Array.from(row)), rowsAffected: this.rowsAffected, lastInsertRowid: this.lastInsertRowid?.toString() ?? null }
  }
}

/** SQLite's error as libsql's client reports it (its code kept); anything else as it is. */
const reported = (error: unknown): unknown =>
  error instanceof Database.SqliteError ? new LibsqlError(error.message, error.code, error.rawCode, error) : error

/** `BEGIN` for a transaction mode: a write transaction takes the write lock at once (no upgrade deadlock). */
const beginOf = (mode: TransactionMode | undefined): string => (mode === undefined || mode === "write" ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED")

/** The one connection, its statements kept prepared. */
class Connection {
  readonly #prepared = new Map<string, Prepared>()
  constructor(readonly database: Database.Database) {}

  #prepare(sql: string): Prepared {
    const kept = this.#prepared.get(sql)
    if (kept !== undefined) {
      // the most recently used last: the first is the one to let go
      this.#prepared.delete(sql)
      this.#prepared.set(sql, kept)
      return kept
    }
    const statement = this.database.prepare(sql)
    const reader = statement.reader
    if (reader) statement.raw(true)
    statement.safeIntegers(true)
    const described = reader ? statement.columns() : []
    const prepared: Prepared = {
      statement,
      columns: reader ? described.map((column) => column.name) : undefined,
      columnTypes: described.map((column) => column.type ?? ""),
      changesSchema: SCHEMA_CHANGE.test(sql)
    }
    if (!prepared.changesSchema) {
      this.#prepared.set(sql, prepared)
      if (this.#prepared.size > STATEMENTS_KEPT) {
        const oldest = this.#prepared.keys().next()
        if (oldest.done !== true) this.#prepared.delete(oldest.value)
      }
    }
    return prepared
  }

  /** How many statements are kept prepared now (for the tests). */
  get kept(): number {
    return this.#prepared.size
  }

  execute(statement: InStatement): ResultSet {
    const sql = typeof statement === "string" ? statement : statement.sql
    const args = typeof statement === "string" ? [] : argumentsOf(statement.args)
    try {
      const prepared = this.#prepare(sql)
      if (prepared.columns !== undefined) {
        const columns = prepared.columns
        const rows = prepared.statement.all(args).map((values) => rowOf(Array.isArray(values) ? values : [], columns))
        return new StatementResult(columns, prepared.columnTypes, rows, 0, undefined)
      }
      const info = prepared.statement.run(args)
      // the schema changed: a kept statement's column list may no longer be its columns
      if (prepared.changesSchema) this.#prepared.clear()
      return new StatementResult([], [], [], info.changes, BigInt(info.lastInsertRowid))
    } catch (error) {
      throw reported(error)
    }
  }

  /** `statements` between `begin` and `COMMIT`, rolled back when one fails. */
  inTransaction(begin: string, statements: Array<InStatement>): Array<ResultSet> {
    this.execute(begin)
    try {
      const results = statements.map((statement) => this.execute(statement))
      this.execute("COMMIT")
      return results
    } finally {
      if (this.database.inTransaction) this.execute("ROLLBACK")
    }
  }

  close(): void {
    this.#prepared.clear()
    this.database.close()
  }
}

/** A transaction on the client's own connection. */
class SameConnectionTransaction implements Transaction {
  #open = true
  constructor(private readonly connection: Connection) {}

  get closed(): boolean {
    return !this.#open
  }

  execute(statement: InStatement): Promise<ResultSet> {
    return new Promise((resolve) => resolve(this.connection.execute(statement)))
  }

  batch(statements: Array<InStatement>): Promise<Array<ResultSet>> {
    return new Promise((resolve) => resolve(statements.map((statement) => this.connection.execute(statement))))
  }

  executeMultiple(text: string): Promise<void> {
    return new Promise((resolve) => {
      try {
        this.connection.database.exec(text)
      } catch (error) {
        throw reported(error)
      }
      resolve()
    })
  }

  async commit(): Promise<void> {
    if (!this.#open) return
    this.#open = false
    await this.execute("COMMIT")
  }

  async rollback(): Promise<void> {
    if (!this.#open) return
    this.#open = false
    await this.execute("ROLLBACK")
  }

  close(): void {
    // a transaction closed without its end rolls back (nothing of it is kept)
    if (this.#open) void this.rollback().catch(() => undefined)
  }
}

/** The store's client on `file`: one connection, its transactions on it, its statements kept prepared. */
export class OneConnectionClient implements Client {
  readonly protocol = "file"
  #closed = false
  readonly #connection: Connection

  constructor(file: string) {
    this.#connection = new Connection(new Database(file))
    this.#connection.execute("SELECT 1 AS checkThatTheDatabaseCanBeOpened")
  }

  get closed(): boolean {
    return this.#closed
  }

  /** How many statements are kept prepared now (for the tests). */
  get statementsKept(): number {
    return this.#connection.kept
  }

  /** The connection, or a LibsqlError once closed; as a promise, so a refusal is a rejection. */
  #run<A>(f: (connection: Connection) => A): Promise<A> {
    return new Promise((resolve) => {
      if (this.#closed) throw new LibsqlError("The client is closed", "CLIENT_CLOSED")
      resolve(f(this.#connection))
    })
  }

  execute(statement: InStatement): Promise<ResultSet> {
    return this.#run((connection) => connection.execute(statement))
  }

  batch(statements: Array<InStatement>, mode?: TransactionMode): Promise<Array<ResultSet>> {
    return this.#run((connection) => connection.inTransaction(mode === undefined ? "BEGIN DEFERRED" : beginOf(mode), statements))
  }

  migrate(statements: Array<InStatement>): Promise<Array<ResultSet>> {
    return this.#run((connection) => {
      connection.execute("PRAGMA foreign_keys=off")
      try {
        return connection.inTransaction("BEGIN DEFERRED", statements)
      } finally {
        connection.execute("PRAGMA foreign_keys=on")
      }
    })
  }

  async transaction(mode?: TransactionMode): Promise<Transaction> {
    await this.execute(beginOf(mode))
    return new SameConnectionTransaction(this.#connection)
  }

  executeMultiple(text: string): Promise<void> {
    return this.#run((connection) => {
      try {
        connection.database.exec(text)
      } catch (error) {
        throw reported(error)
      } finally {
        if (connection.database.inTransaction) connection.execute("ROLLBACK")
      }
    })
  }

  sync(): Promise<Replicated> {
    return Promise.reject(new LibsqlError("the store is a local file, not a replica: there is nothing to sync", "SYNC_NOT_SUPPORTED"))
  }

  close(): void {
    if (this.#closed) return
    this.#closed = true
    this.#connection.close()
  }
}
