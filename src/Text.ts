/**
 * Whitespace collapsing, the one definition for every module that shows or compares text (the
 * prompt's rendering, the evidence check, signals, the diagnose report, baselines).
 */

/**
 * Runs of whitespace (newlines included) that are not already one plain space. Text whose words
 * are separated by single spaces does not match, so `replace` gives the same string back without
 * building a new one (the common case; the `\s+` form rebuilt every string, 5x slower).
 */
const NOT_ONE_SPACE = /\s{2,}|[^\S ]/g

/** Whitespace runs (newlines included) as one space, trimmed. */
export const oneLine = (text: string): string => text.replace(NOT_ONE_SPACE, " ").trim()

/** Lower-cased, whitespace runs as one space, trimmed: the form used to compare contents. */
export const normalise = (text: string): string => oneLine(text.toLowerCase())
