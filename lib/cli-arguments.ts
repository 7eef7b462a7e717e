/** Argument parsers both command-line tools share (commander's argParser). */
import { InvalidArgumentError } from 'commander';

/** An ISO date or date-time, as the stored form (UTC, milliseconds), so that it compares as text. */
export function isoTime(value: string): string {
  const when = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(when.getTime())) {
    throw new InvalidArgumentError('expected an ISO date or time such as 2026-11-01 or 2026-11-01T09:00:00Z');
  }
  return when.toISOString();
}
