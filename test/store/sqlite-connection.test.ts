/**
 * The SQLite store's connection (src/Store/SqliteConnection.ts): statements are prepared once and
 * kept (at most STATEMENTS_KEPT of them), and what a statement returns is what libsql's own client
 * returns for it. Each case runs the same statements through `@libsql/client` (the client the store
 * used before) on one file and through OneConnectionClient on another, and compares the results:
 * columns, rows by index and by name, which keys are enumerable, affected rows, the last row id,
 * errors (class, code) and the integers a number cannot hold.
 */
import { describe, expect, it } from "@effect/vitest"
import { type Client, createClient, type InStatement, LibsqlError, type ResultSet } from "@libsql/client"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { OneConnectionClient, STATEMENTS_KEPT } from "../../src/Store/SqliteConnection.js"

const fileIn = (name: string) => join(mkdtempSync(join(tmpdir(), "svc-sqlite-")), name)

/** A result as plain data: everything a caller can read of it. */
const plain = (result: ResultSet) => ({
  columns: result.columns,
  columnTypes: result.columnTypes,
  rowsAffected: result.rowsAffected,
  lastInsertRowid: result.lastInsertRowid,
  rows: result.rows.map((row) => ({
    length: row.length,
    byIndex: Array.from(row),
    keys: Object.keys(row),
    byName: Object.fromEntries(result.columns.map((column) => [column, row[column]]))
  }))
})

/** What a statement does: its result, or its error's class, code and message. */
const outcome = async (client: Client, statement: InStatement) => {
  try {
    return { result: plain(await client.execute(statement)) }
  } catch (error) {
    return {
      error: error instanceof LibsqlError
        ? { kind: "LibsqlError", code: error.code, message: error.message }
        : { kind: error instanceof Error ? error.constructor.name : typeof error, message: String(error) }
    }
  }
}

const STATEMENTS: ReadonlyArray<InStatement> = [
  "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, n BIGINT, x REAL, b BLOB)",
  { sql: "INSERT INTO t (name, n, x, b) VALUES (?, ?, ?, ?)", args: ["a", 1, 1.5, new Uint8Array([1, 2, 3])] },
  { sql: "INSERT INTO t (name, n, x, b) VALUES (?, ?, ?, ?)", args: ["b", 2n ** 40n, null, null] },
  { sql: "INSERT INTO t (name, n, x, b) VALUES (:name, :n, $x, @b)", args: { ":name": "c", n: true, $x: 0, "@b": new Date(5).valueOf() } },
  { sql: "INSERT INTO t (name) VALUES (?)", args: ["a"] },
  { sql: "INSERT INTO t (name, n) VALUES (?, ?)", args: ["big", 2n ** 60n] },
  "SELECT id, name, n, x, b FROM t WHERE name <> 'big' ORDER BY id",
  "SELECT n FROM t WHERE name = 'big'",
  "SELECT name AS same, n AS same FROM t ORDER BY id",
  "SELECT count(*) AS c, sum(n) AS s FROM t WHERE name <> 'big'",
  { sql: "UPDATE t SET x = ? WHERE id > ? RETURNING id, x", args: [2.25, 1] },
  { sql: "DELETE FROM t WHERE name = ?", args: ["big"] },
  "SELECT * FROM t ORDER BY id",
  "ALTER TABLE t ADD COLUMN extra TEXT DEFAULT 'e'",
  "SELECT * FROM t ORDER BY id",
  "SELECT nope FROM t",
  { sql: "SELECT ?", args: [Number.NaN] }
]

describe("the store's SQLite connection", () => {
  it("returns what libsql's client returns, statement by statement", async () => {
    const theirs = createClient({ url: pathToFileURL(fileIn("theirs.db")).href })
    const ours = new OneConnectionClient(fileIn("ours.db"))
    try {
      // each statement twice: the second run of ours reads a kept statement
      for (const statement of [...STATEMENTS, ...STATEMENTS.slice(6)]) {
        expect(await outcome(ours, statement), typeof statement === "string" ? statement : statement.sql).toEqual(await outcome(theirs, statement))
      }
    } finally {
      theirs.close()
      ours.close()
    }
  })

  it("prepares a statement once and keeps at most STATEMENTS_KEPT of them", async () => {
    const client = new OneConnectionClient(fileIn("kept.db"))
    try {
      await client.execute("CREATE TABLE t (a INTEGER)")
      const before = client.statementsKept
      for (let i = 0; i < 5; i++) await client.execute({ sql: "INSERT INTO t (a) VALUES (?)", args: [i] })
      expect(client.statementsKept).toBe(before + 1)
      // one text per row count, as multi-row inserts make: the oldest let go past the bound
      for (let rows = 1; rows <= STATEMENTS_KEPT + 20; rows++) {
        await client.execute({ sql: `INSERT INTO t (a) VALUES ${Array.from({ length: rows }, () => "(?)").join(",")}`, args: Array.from({ length: rows }, (_, i) => i) })
      }
      expect(client.statementsKept).toBe(STATEMENTS_KEPT)
      const count = await client.execute("SELECT count(*) AS c FROM t")
      expect(count.rows[0]?.["c"]).toBe(5 + ((STATEMENTS_KEPT + 20) * (STATEMENTS_KEPT + 21)) / 2)
      // a change of schema lets every kept statement go: `SELECT *` then reads the new column
      expect((await client.execute("SELECT * FROM t LIMIT 1")).columns).toEqual(["a"])
      await client.execute("ALTER TABLE t ADD COLUMN b TEXT")
      expect(client.statementsKept).toBe(0)
      expect((await client.execute("SELECT * FROM t LIMIT 1")).columns).toEqual(["a", "b"])
    } finally {
      client.close()
    }
  })

  it("runs a transaction on its one connection, its settings kept, and refuses once closed", async () => {
    const client = new OneConnectionClient(fileIn("tx.db"))
    await client.execute("PRAGMA busy_timeout = 4321")
    await client.execute("CREATE TABLE t (a INTEGER)")
    const tx = await client.transaction("write")
    await tx.execute({ sql: "INSERT INTO t (a) VALUES (?)", args: [1] })
    expect((await tx.execute("PRAGMA busy_timeout")).rows[0]?.[0]).toBe(4321)
    await expect(tx.executeMultiple("INSERT INTO t (a) VALUES (2); SELECT nope FROM t;")).rejects.toBeInstanceOf(LibsqlError)
    await tx.rollback()
    expect(tx.closed).toBe(true)
    expect((await client.execute("SELECT count(*) AS c FROM t")).rows[0]?.["c"]).toBe(0)
    const [, inserted] = await client.batch(["INSERT INTO t (a) VALUES (7)", "SELECT a FROM t"], "write")
    expect(inserted?.rows.map((row) => row["a"])).toEqual([7])
    await expect(client.batch(["INSERT INTO t (a) VALUES (8)", "SELECT nope FROM t"])).rejects.toBeInstanceOf(LibsqlError)
    expect((await client.execute("SELECT count(*) AS c FROM t")).rows[0]?.["c"]).toBe(1)
    client.close()
    expect(client.closed).toBe(true)
    await expect(client.execute("SELECT 1")).rejects.toMatchObject({ code: "CLIENT_CLOSED" })
  })
})
