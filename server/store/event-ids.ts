/**
 * The ids of the trail's events: UUIDv7 (RFC 9562, https://www.rfc-editor.org/rfc/rfc9562#section-5.7),
 * increasing within this process as the `uuid` package's own v7 makes them: the millisecond, then
 * a counter that starts at random in each millisecond and counts up within it. The difference is
 * where the random bytes come from: uuid's v7 draws 16 from WebCrypto for every id, which took
 * 9 µs of each update_user (BENCHMARKS.md, "The cost of a write"); they are drawn here from
 * node:crypto 4 KiB at a time, one draw for 256 ids. uuid still lays out the bytes.
 *
 * An event's time is the millisecond its id carries, so that the index of ids
 * is an index of times as well (idsFrom): the trail keeps no index by time.
 */
import { randomFillSync } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';

const POOL_BYTES = 4096;
const ID_BYTES = 16;

export class EventIds {
  readonly #pool = new Uint8Array(POOL_BYTES);
  readonly #view = new DataView(this.#pool.buffer);
  #taken = POOL_BYTES;
  #msecs = -Infinity;
  #seq = 0;
  /** The time of #msecs as stored, made once for the ids of a millisecond (toISOString is about 1 µs). */
  #time = '';
  #timeOf = -Infinity;

  /**
   * The next id and the time it carries; `now` is the clock's milliseconds. The time is later
   * than `now` where the clock stepped back since the last id (ids never go back with it), or
   * where a millisecond's ids ran out.
   */
  next(now = Date.now()): EventStamp {
    if (this.#taken + ID_BYTES > POOL_BYTES) {
      randomFillSync(this.#pool);
      this.#taken = 0;
    }
    const random = this.#pool.subarray(this.#taken, this.#taken + ID_BYTES);
    this.#taken += ID_BYTES;
    // As uuid's v7 keeps its state: a new millisecond seeds the counter from random bytes 6 to 9
    // (31 of their bits, so that it can count up); within one it counts up, and on overflow borrows
    // the next millisecond.
    if (now > this.#msecs) {
      this.#msecs = now;
      this.#seq = this.#view.getUint32(this.#taken - ID_BYTES + 6) & 0x7fffffff;
    } else {
      this.#seq = (this.#seq + 1) | 0;
      if (this.#seq === 0) this.#msecs++;
    }
    if (this.#timeOf !== this.#msecs) {
      this.#time = new Date(this.#msecs).toISOString();
      this.#timeOf = this.#msecs;
    }
    return { id: uuidv7({ random, msecs: this.#msecs, seq: this.#seq }), time: this.#time };
  }
}

/** An event's id, and its time as stored (UTC, milliseconds): the millisecond in the id. */
export interface EventStamp {
  id: string;
  time: string;
}

/** The process's ids: one sequence for every store it opens, as uuid's v7 kept one. */
export const eventIds = new EventIds();

/**
 * The ids of the events at `millis` (since the epoch) or later are those at or after this text;
 * the ids of events before it, those before. A UUIDv7 begins with its millisecond in 12
 * hexadecimal digits, so ids in text order are in the order of their times.
 */
export function idsFrom(millis: number): string {
  const hex = Math.max(0, millis).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8)}`;
}
