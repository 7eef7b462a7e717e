/**
 * How both command-line tools (`workspace-users` and `npm run admin`) print:
 * data to stdout as JSON or a table, every value made safe for a terminal
 * first (a name holding an escape sequence or a bidi override is shown with
 * visible `\u{…}` escapes, never acted on by the terminal). A table fits the
 * screen it is written to (its `columns`, when it is a terminal): long cells
 * wrap or are shortened with `…`; `--json` always has the full values.
 */
import Table from 'cli-table3';
import stringWidth from 'string-width';
import type { components } from '../generated/workspace/types.js';
import { fitColumns } from './table-layout.js';

/** Where output goes: process.stdout, or a test's stand-in. `columns` is the terminal's width, absent when it is not one. */
export interface Screen {
  write(text: string): unknown;
  readonly columns?: number | undefined;
}

const UNSAFE = /[\p{Cc}\p{Cf}\u2028\u2029]/gu;
/** What JSON.stringify leaves raw that a terminal may act on: C1 controls and formatting characters. */
const UNSAFE_IN_JSON = /[\u007F-\u009F\p{Cf}\u2028\u2029]/gu;

const utf16Escapes = (char: string) =>
  [...Array(char.length).keys()].map((index) => `\\u${char.charCodeAt(index).toString(16).padStart(4, '0')}`).join('');

/** The text with every control and invisible formatting character (newlines too) shown as `\u{…}`. */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (char) => `\\u{${(char.codePointAt(0) ?? 0).toString(16).toUpperCase()}}`);
}

/** JSON of the same value, with the characters a terminal may act on written as \u escapes. */
export function terminalSafeJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(UNSAFE_IN_JSON, utf16Escapes);
}

export function printJson(value: unknown, screen: Screen = process.stdout): void {
  screen.write(`${terminalSafeJson(value)}\n`);
}

/** The least a shortened column keeps: its heading, or six characters. */
const LEAST_WIDTH = 6;
/** A cell's padding (one space each side), and the border before each column. */
const PADDING = 2;

export interface TableOptions {
  /** The widest a line may be; no limit when absent. */
  width?: number | undefined;
  /** Columns, by index, never shortened (ids a reader copies). */
  whole?: readonly number[];
}

/** The table as text, escaped, each line at most `width` wide where the columns can give way that far. */
export function renderTable(head: readonly string[], rows: readonly string[][], { width, whole = [] }: TableOptions = {}): string {
  const cells = rows.map((row) => row.map(terminalSafe));
  const natural = head.map((heading, column) => Math.max(stringWidth(heading), ...cells.map((row) => stringWidth(row[column] ?? ''))));
  const frame = head.length * (PADDING + 1) + 1;
  const fits = width === undefined || natural.reduce((sum, columnWidth) => sum + columnWidth, 0) + frame <= width;
  const least = natural.map((columnWidth, column) =>
    whole.includes(column) ? columnWidth : Math.min(columnWidth, Math.max(stringWidth(head[column] ?? ''), LEAST_WIDTH)),
  );
  const table = new Table({
    head: [...head],
    style: { head: [], border: [], compact: true },
    ...(fits ? {} : { colWidths: fitColumns(natural, least, width - frame).map((w) => w + PADDING), wordWrap: true }),
  });
  table.push(...cells);
  return table.toString();
}

export function printTable(
  head: readonly string[],
  rows: readonly string[][],
  screen: Screen = process.stdout,
  whole?: readonly number[],
): void {
  screen.write(`${renderTable(head, rows, { width: screen.columns, ...(whole ? { whole } : {}) })}\n`);
}

type AuditEvent = components['schemas']['AuditEvent'];

/**
 * Audit events as both CLIs show them: one row each, the target named by its
 * kind. On a narrow terminal the time stays whole, the ids are shortened, and
 * the changed fields, last, wrap between names.
 */
export function printAuditEvents(events: readonly AuditEvent[], screen: Screen = process.stdout): void {
  if (events.length === 0) return void screen.write('no audit events\n');
  printTable(
    ['time', 'operation', 'target', 'by', 'request', 'fields'],
    events.map((event) => [
      event.time,
      event.operation,
      [
        event.target_user_id && `user ${event.target_user_id}`,
        event.target_group_id && `group ${event.target_group_id}`,
        event.target_api_key && `key ${event.target_api_key}`,
      ]
        .filter(Boolean)
        .join(', '),
      event.actor,
      event.request_id ?? '',
      event.changed_fields.join(', '),
    ]),
    screen,
    [0],
  );
}
