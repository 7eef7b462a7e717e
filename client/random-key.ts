/**
 * A new Idempotency-Key for a create: a random UUID. Browsers give
 * `crypto.randomUUID` only to secure contexts (pages over TLS, or on this
 * machine); a page over plain HTTP from another address has `getRandomValues`
 * alone, from which the same kind of UUID (version 4, RFC 9562) is made.
 */
interface RandomSource {
  getRandomValues(array: Uint8Array): Uint8Array;
  randomUUID?: (() => string) | undefined;
}

export function randomKey(source: RandomSource = globalThis.crypto): string {
  if (source.randomUUID) return source.randomUUID();
  const bytes = source.getRandomValues(new Uint8Array(16));
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
