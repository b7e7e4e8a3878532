/**
 * The store's schema (DECISIONS §17), as migrations applied at start in order, each once (the
 * Migrator keeps what ran in `svc_migrations`). A migration is never edited after it ships: a
 * change is a new one, and a test applies the later ones to a database the earlier ones made.
 * Times are integer milliseconds since the epoch (UTC), BIGINT (SQLite reads it as its INTEGER,
 * 64-bit; PostgreSQL's integer is 32-bit); JSON columns are text. One text for both dialects.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/** 1: the runs, which are also the queue, and the daily budgets. */
const runs = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE runs (
    id TEXT PRIMARY KEY,
    scope TEXT NOT NULL,
    status TEXT NOT NULL,
    reason TEXT,
    error_kind TEXT,
    error_message TEXT,
    trace_id TEXT,
    external_id TEXT,
    labels TEXT NOT NULL,
    source TEXT NOT NULL,
    attempts BIGINT NOT NULL DEFAULT 0,
    submitted_at BIGINT NOT NULL,
    started_at BIGINT,
    finished_at BIGINT,
    severity TEXT,
    dedupe_key TEXT NOT NULL,
    request TEXT NOT NULL,
    report TEXT,
    lines TEXT,
    patterns TEXT,
    cache_keys TEXT,
    lease_owner TEXT,
    lease_until BIGINT,
    not_before BIGINT NOT NULL DEFAULT 0
  )`
  // listing, newest first, per scope
  yield* sql`CREATE INDEX runs_by_scope ON runs (scope, submitted_at DESC, id DESC)`
  // claiming: queued runs whose backoff is over, oldest first
  yield* sql`CREATE INDEX runs_queue ON runs (status, not_before, submitted_at)`
  // the same trace with the same options in one scope is one run
  yield* sql`CREATE UNIQUE INDEX runs_dedupe ON runs (scope, dedupe_key)`
  yield* sql`CREATE UNIQUE INDEX runs_external_id ON runs (scope, external_id) WHERE external_id IS NOT NULL`
  // retention: finished runs by age
  yield* sql`CREATE INDEX runs_finished ON runs (finished_at)`
  // the daily token budget per scope (SVC_DAILY_TOKEN_BUDGET): reserved by runs in flight, spent by finished ones
  yield* sql`CREATE TABLE budgets (
    scope TEXT NOT NULL,
    day TEXT NOT NULL,
    reserved BIGINT NOT NULL DEFAULT 0,
    spent BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (scope, day)
  )`
})

/**
 * 2: OTLP's pending traces (DECISIONS §18): a row per (scope, trace id) with what completion needs
 * (first and last arrival, whether the root ended, counts), claimed with a lease by one replica and
 * kept after it became a run (late spans are counted against it); the spans themselves in groups
 * of one request's spans of one trace, resource and instrumentation scope, keyed by a digest of
 * the group so a batch sent again (the exporter's retry, through any replica) is kept once.
 */
const otlp = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE otlp_traces (
    scope TEXT NOT NULL,
    trace_id TEXT NOT NULL,
    key_name TEXT,
    state TEXT NOT NULL,
    first_at BIGINT NOT NULL,
    last_at BIGINT NOT NULL,
    rooted BIGINT NOT NULL DEFAULT 0,
    spans BIGINT NOT NULL DEFAULT 0,
    bytes BIGINT NOT NULL DEFAULT 0,
    late BIGINT NOT NULL DEFAULT 0,
    lease_owner TEXT,
    lease_until BIGINT,
    run_id TEXT,
    done_at BIGINT,
    PRIMARY KEY (scope, trace_id)
  )`
  // completion: open traces by their last arrival; retention: done ones by when
  yield* sql`CREATE INDEX otlp_traces_due ON otlp_traces (state, last_at)`
  yield* sql`CREATE INDEX otlp_traces_done ON otlp_traces (done_at)`
  yield* sql`CREATE TABLE otlp_items (
    scope TEXT NOT NULL,
    trace_id TEXT NOT NULL,
    item_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    received_at BIGINT NOT NULL,
    position BIGINT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (scope, trace_id, item_id)
  )`
})

/**
 * 3: problems (DECISIONS §19): the same failure across a scope's runs. A fingerprint names one
 * problem (a merge points it at another); a run's link to a problem keeps the finding's title and
 * quotes (removed with the run); runs per UTC day and labels seen are aggregates that outlive the
 * runs; the patterns and labels are rows of their own so each list filter has an index. The alert
 * outbox holds each webhook call until it is delivered (at least once, across crashes). Runs keep
 * the tokens they spent (the digest sums them).
 */
const problems = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE problems (
    id TEXT PRIMARY KEY,
    scope TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    title TEXT NOT NULL,
    normalized_title TEXT NOT NULL,
    cites TEXT NOT NULL,
    playbook TEXT,
    patterns TEXT NOT NULL,
    severity TEXT NOT NULL,
    severity_rank BIGINT NOT NULL,
    status TEXT NOT NULL,
    run_count BIGINT NOT NULL DEFAULT 0,
    first_seen BIGINT NOT NULL,
    last_seen BIGINT NOT NULL,
    resolved_at BIGINT,
    resolved_in_version TEXT,
    versions_before TEXT,
    regressed_at BIGINT,
    regression_alerted_at BIGINT,
    merged_into TEXT
  )`
  // the list, most recently seen first, and its filters by status and severity
  yield* sql`CREATE INDEX problems_by_scope ON problems (scope, last_seen DESC, id DESC)`
  yield* sql`CREATE INDEX problems_by_status ON problems (scope, status, last_seen DESC, id DESC)`
  yield* sql`CREATE INDEX problems_by_severity ON problems (scope, severity, last_seen DESC, id DESC)`
  yield* sql`CREATE INDEX problems_by_first_seen ON problems (scope, first_seen)`
  yield* sql`CREATE TABLE problem_fingerprints (
    scope TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    problem_id TEXT NOT NULL,
    PRIMARY KEY (scope, fingerprint)
  )`
  yield* sql`CREATE INDEX problem_fingerprints_by_problem ON problem_fingerprints (problem_id)`
  yield* sql`CREATE TABLE problem_runs (
    problem_id TEXT NOT NULL,
    run_id TEXT NOT NULL,
    scope TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    seen_at BIGINT NOT NULL,
    severity TEXT NOT NULL,
    finding TEXT NOT NULL,
    PRIMARY KEY (problem_id, run_id)
  )`
  yield* sql`CREATE INDEX problem_runs_by_run ON problem_runs (scope, run_id)`
  yield* sql`CREATE INDEX problem_runs_by_problem ON problem_runs (problem_id, seen_at DESC)`
  yield* sql`CREATE TABLE problem_days (
    problem_id TEXT NOT NULL,
    day TEXT NOT NULL,
    runs BIGINT NOT NULL,
    PRIMARY KEY (problem_id, day)
  )`
  yield* sql`CREATE TABLE problem_labels (
    problem_id TEXT NOT NULL,
    scope TEXT NOT NULL,
    label_key TEXT NOT NULL,
    label_value TEXT NOT NULL,
    runs BIGINT NOT NULL,
    first_seen BIGINT NOT NULL,
    last_seen BIGINT NOT NULL,
    PRIMARY KEY (problem_id, label_key, label_value)
  )`
  yield* sql`CREATE INDEX problem_labels_by_value ON problem_labels (scope, label_key, label_value, problem_id)`
  yield* sql`CREATE TABLE problem_patterns (
    problem_id TEXT NOT NULL,
    scope TEXT NOT NULL,
    pattern TEXT NOT NULL,
    PRIMARY KEY (problem_id, pattern)
  )`
  yield* sql`CREATE INDEX problem_patterns_by_pattern ON problem_patterns (scope, pattern, problem_id)`
  yield* sql`CREATE TABLE alert_outbox (
    id TEXT PRIMARY KEY,
    scope TEXT NOT NULL,
    event TEXT NOT NULL,
    problem_id TEXT,
    run_id TEXT,
    url TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    next_at BIGINT NOT NULL,
    attempts BIGINT NOT NULL DEFAULT 0,
    state TEXT NOT NULL,
    lease_owner TEXT,
    lease_until BIGINT,
    last_status BIGINT,
    last_error TEXT,
    delivered_at BIGINT
  )`
  yield* sql`CREATE INDEX alert_outbox_due ON alert_outbox (state, next_at)`
  yield* sql`CREATE INDEX alert_outbox_by_scope ON alert_outbox (scope, created_at DESC, id DESC)`
  yield* sql`ALTER TABLE runs ADD COLUMN tokens BIGINT`
  // the digest and compare: a scope's runs by when they finished
  yield* sql`CREATE INDEX runs_by_scope_finished ON runs (scope, finished_at)`
})

/** 4: the dashboard's search by a source's trace id (DECISIONS §22), in a scope. */
const traceIds = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // in the list's order, so the page is read off the index (a planner without statistics would otherwise walk the scope by time)
  yield* sql`CREATE INDEX runs_by_trace_id ON runs (scope, trace_id, submitted_at DESC, id DESC) WHERE trace_id IS NOT NULL`
})

/**
 * 5: OTLP traces count their claims (DECISIONS §18, issue 47): a trace whose assembly keeps failing,
 * or whose process keeps dying while assembling it, is made a failed run after a few instead of
 * coming back at every start. Rows made before count from 0.
 */
const otlpAttempts = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE otlp_traces ADD COLUMN attempts BIGINT NOT NULL DEFAULT 0`
})

/**
 * 6: one problem per failure, explained once (DECISIONS §24, issue 49): a problem names the check
 * that anchors it; a run's link says whether its lenses explained it (links an earlier release
 * wrote were: every run ran its lenses then), on which version and for how many tokens; a run
 * ended without lenses names the problem that explains it.
 */
const failures = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE problems ADD COLUMN anchor_check TEXT`
  yield* sql`ALTER TABLE problem_runs ADD COLUMN explained BIGINT NOT NULL DEFAULT 1`
  yield* sql`ALTER TABLE problem_runs ADD COLUMN version TEXT`
  yield* sql`ALTER TABLE problem_runs ADD COLUMN tokens BIGINT NOT NULL DEFAULT 0`
  yield* sql`ALTER TABLE runs ADD COLUMN explained_by TEXT`
  // a problem's explained runs (exemplars, the day's bound) and a problem's runs (`GET /v1/runs?problem=`)
  yield* sql`CREATE INDEX problem_runs_explained ON problem_runs (problem_id, explained, seen_at DESC)`
})

/** The migrations by `<id>_<name>`, for `Migrator.fromRecord`. */
export const MIGRATIONS: Record<string, Effect.Effect<void, unknown, SqlClient.SqlClient>> = {
  "0001_runs": runs,
  "0002_otlp": otlp,
  "0003_problems": problems,
  "0004_trace_ids": traceIds,
  "0005_otlp_attempts": otlpAttempts,
  "0006_failures": failures
}
