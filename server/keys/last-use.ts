/**
 * When each API key last authenticated a request, for the people who decide
 * which keys are still needed (get_api_keys, the console). Written at most
 * once a minute per key by each instance: a key's use costs one small write a
 * minute, not one per request. The request that writes it waits for the write,
 * so that no write outlives the requests (a service that stops, or a restore
 * that waits for every connection to close, finds none under way); the others
 * of that minute do not. A failed write costs only the figure's freshness: it
 * is logged, and the request goes on.
 */
import type { ApiKeyRecord } from '../store/records.js';
import type { ApiKeyRepository } from '../store/repositories.js';

/** How fresh `last_used` is: a use within this long of the one noted is not written. */
export const LAST_USE_PRECISION_MS = 60_000;

export class LastUse {
  /** Keys whose write is on its way, so that a burst of requests writes once. */
  readonly #writing = new Set<string>();

  constructor(
    private readonly keys: Pick<ApiKeyRepository, 'noteUse'>,
    private readonly onFailure: (error: unknown) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** Notes that `key` (as just read) authenticated a request now, if its last use is older than the precision; never fails. */
  async note(key: ApiKeyRecord): Promise<void> {
    const now = this.now();
    const since = now - LAST_USE_PRECISION_MS;
    if ((key.last_used !== null && Date.parse(key.last_used) > since) || this.#writing.has(key.api_key)) return;
    this.#writing.add(key.api_key);
    try {
      await this.keys.noteUse(key.api_key, new Date(now).toISOString(), new Date(since).toISOString());
    } catch (error) {
      this.onFailure(error);
    } finally {
      this.#writing.delete(key.api_key);
    }
  }
}
