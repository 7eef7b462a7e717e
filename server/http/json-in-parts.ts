/**
 * A JSON answer that holds a long list (a page of 1,000 change events, a SCIM page of
 * users) serialized in parts, with the same bytes and headers as express's `res.json`.
 *
 * V8 (Node 22 and 24, not Node 20) builds a string of more than 128 KB, the most its
 * heap's ordinary pages hold, four to six times slower than a smaller one: a page of
 * get_events, 330 KB, took 1.7 ms in `JSON.stringify`, a third of its time, at 200 MB/s
 * against 1,300 MB/s for strings under the line (BENCHMARKS.md). Here each slice of a
 * long list is serialized alone, the text gathered into buffers of at most 64 KB, and
 * the buffers joined into the answer's body: no string ever passes the line.
 *
 * It replaces `res.json` on the app (`app.response`, where express lets an app change
 * its answers' methods), so that whatever wraps `res.json` for a request still sees the
 * object first: express-openapi-validator's check of answers against the contract
 * (VALIDATE_RESPONSES) among them. An answer without a long list, and an app that sets
 * express's `json replacer`, `json spaces` or `json escape`, get express's own.
 */
import contentType from 'content-type';
import type { Express, Response } from 'express';

/** A list longer than this is serialized in slices of this many items. */
export const SLICE_ITEMS = 100;
/** Text gathered past this many characters becomes a buffer of the body. */
const PART_CHARACTERS = 64 * 1024;

const isLongList = (value: unknown) => Array.isArray(value) && value.length > SLICE_ITEMS;

/**
 * The UTF-8 bytes of `JSON.stringify(body)` when `body` is a plain object with a list of more
 * than SLICE_ITEMS among its own properties; undefined for any other value, whose answer is
 * small enough to be serialized whole (or, with a toJSON, says itself how it is serialized).
 */
export function jsonInParts(body: unknown): Buffer | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  if (typeof (body as { toJSON?: unknown }).toJSON === 'function') return undefined;
  const properties = Object.entries(body);
  if (!properties.some(([, value]) => isLongList(value))) return undefined;
  const parts: Buffer[] = [];
  let text = '{';
  const add = (more: string) => {
    text += more;
    if (text.length > PART_CHARACTERS) {
      parts.push(Buffer.from(text));
      text = '';
    }
  };
  let first = true;
  for (const [key, value] of properties) {
    if (!isLongList(value)) {
      // undefined for a value JSON leaves out of an object (undefined, a function, a symbol).
      const serialized = JSON.stringify(value) as string | undefined;
      if (serialized === undefined) continue;
      add(`${first ? '' : ','}${JSON.stringify(key)}:${serialized}`);
    } else {
      const list = value as unknown[];
      add(`${first ? '' : ','}${JSON.stringify(key)}:[`);
      for (let start = 0; start < list.length; start += SLICE_ITEMS) {
        // A slice serialized as a list (an item JSON leaves out becomes null, as in the whole), without its brackets.
        const slice = JSON.stringify(list.slice(start, start + SLICE_ITEMS));
        add(`${start === 0 ? '' : ','}${slice.slice(1, -1)}`);
      }
      add(']');
    }
    first = false;
  }
  parts.push(Buffer.from(`${text}}`));
  return Buffer.concat(parts);
}

/** Makes the app's `res.json` send a body with a long list as jsonInParts serializes it. */
export function answerLongListsInParts(app: Express): void {
  const expressJson = app.response.json;
  // Named first, as everywhere in the service (eslint.config.js), though this one is made once per app.
  const json = function json(this: Response, body: unknown) {
    const settings = ['json replacer', 'json spaces', 'json escape'].some((setting) => app.get(setting) !== undefined);
    const bytes = settings ? undefined : jsonInParts(body);
    if (!bytes) return expressJson.call(this, body);
    // As express does for a string it sends: its type, JSON by default, in UTF-8.
    const type = contentType.parse(this.get('Content-Type') ?? 'application/json');
    type.parameters.charset = 'utf-8';
    this.set('Content-Type', contentType.format(type));
    return this.send(bytes);
  };
  app.response.json = json;
}
