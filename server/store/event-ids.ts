/**
 * The ids of the trail's events: UUIDv7 (RFC 9562, https://www.rfc-editor.org/rfc/rfc9562#section-5.7),
 * increasing within this process as the `uuid` package's own v7 makes them: the millisecond, then
 * a counter that starts at random in each millisecond and counts up within it. The difference is
 * where the random bytes come from: uuid's v7 draws 16 from WebCrypto for every id, which took
 * 9 µs of each update_user (BENCHMARKS.md, "The cost of a write"); they are drawn here from
 * node:crypto 4 KiB at a time, one draw for 256 ids. uuid still lays out the bytes.
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

  /** The next id; `now` is the clock's milliseconds. */
  next(now = Date.now()): string {
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
    return uuidv7({ random, msecs: this.#msecs, seq: this.#seq });
  }
}

/** The process's ids: one sequence for every store it opens, as uuid's v7 kept one. */
export const eventIds = new EventIds();
