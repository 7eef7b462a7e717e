/**
 * How both command-line tools (`workspace-users` and `npm run admin`) print:
 * data to stdout as JSON or a table, every value made safe for a terminal
 * first (a name holding an escape sequence or a bidi override is shown with
 * visible `\u{…}` escapes, never acted on by the terminal).
 */
import Table from 'cli-table3';
import type { components } from '../generated/workspace/types.js';

const UNSAFE = /[\p{Cc}\p{Cf}\u2028\u2029]/gu;
/** What JSON.stringify leaves raw that a terminal may act on: C1 controls and formatting characters. */
const UNSAFE_IN_JSON = /[\u007F-\u009F\p{Cf}\u2028\u2029]/gu;

const utf16Escapes = (char: string) =>
  [...Array(char.length).keys()].map((index) => `\\u${char.charCodeAt(index).toString(16).padStart(4, '0')}`).join('');

/** The text with every control and invisible formatting character (newlines too) shown as `\u{…}`. */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (char) => `\\u{${char.codePointAt(0)!.toString(16).toUpperCase()}}`);
}

/** JSON of the same value, with the characters a terminal may act on written as \u escapes. */
export function terminalSafeJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(UNSAFE_IN_JSON, utf16Escapes);
}

export function printJson(value: unknown): void {
  process.stdout.write(`${terminalSafeJson(value)}\n`);
}

export function printTable(head: string[], rows: string[][]): void {
  const table = new Table({ head, style: { head: [], border: [], compact: true } });
  table.push(...rows.map((row) => row.map(terminalSafe)));
  process.stdout.write(`${table.toString()}\n`);
}

type AuditEvent = components['schemas']['AuditEvent'];

/** Audit events as both CLIs show them: one row each, the target named by its kind. */
export function printAuditEvents(events: readonly AuditEvent[]): void {
  if (events.length === 0) return void process.stdout.write('no audit events\n');
  printTable(
    ['time', 'operation', 'by', 'target', 'fields', 'request'],
    events.map((event) => [
      event.time,
      event.operation,
      event.actor,
      [
        event.target_user_id && `user ${event.target_user_id}`,
        event.target_group_id && `group ${event.target_group_id}`,
        event.target_api_key && `key ${event.target_api_key}`,
      ]
        .filter(Boolean)
        .join(', '),
      event.changed_fields.join(', '),
      event.request_id ?? '',
    ]),
  );
}
