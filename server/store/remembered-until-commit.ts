/**
 * Reads answered from memory while nothing has been committed since they were made: each
 * value is kept with the commit mark read before its read (database-traits.ts, CommitMarks),
 * and given again only while the mark read now is the same. A commit by this process or any
 * other (the admin CLI revoking a key) changes the mark, and the next read goes to the database.
 * A value read while a commit was under way is kept with the mark of before it, so it is read
 * again at once: a value is never older than its mark. `read()` must read outside any
 * transaction, so that what is kept is committed (the API key's read does: sqlite/connection.ts),
 * and give values no caller can change, since every caller shares them (api-key-repository.ts
 * freezes its keys).
 */
import type { CommitMarks } from './database-traits.js';

/** Distinct keys remembered at most: past it, all are forgotten and read again (API keys are few; a flood of unknown ones is not kept). */
export const REMEMBERED_READS_LIMIT = 1_000;

export class RememberedUntilCommit<T> {
  readonly #known = new Map<string, { mark: Buffer; value: T }>();

  constructor(
    private readonly marks: CommitMarks,
    private readonly limit = REMEMBERED_READS_LIMIT,
  ) {}

  /** The value of `key`: remembered, while nothing has been committed since; else `read()`'s, remembered when found. */
  async read(key: string, read: () => Promise<T | undefined>): Promise<T | undefined> {
    // Before the read: a commit between the two leaves the value newer than its mark, never older.
    const mark = this.marks.current();
    const known = mark && this.#known.get(key);
    if (mark && known && known.mark.equals(mark)) return known.value;
    const value = await read();
    if (mark && value !== undefined) {
      if (this.#known.size >= this.limit && !this.#known.has(key)) this.#known.clear();
      this.#known.set(key, { mark, value });
    }
    return value;
  }
}
