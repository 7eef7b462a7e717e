/**
 * Which operations take an Idempotency-Key, as the contracts declare it: those
 * with the header among their parameters. An operation whose answer shows a
 * secret (a property marked `x-shown-once`) takes one too, but its answer is
 * not kept for the retries (server/http/idempotency.ts).
 */
import { type OpenApiDocument, resolveReference } from './document.js';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** How an operation treats an Idempotency-Key: not at all, or keeping its answer for the retries, or its status alone. */
export type IdempotencyKeyUse = 'not-taken' | 'answer-kept' | 'answer-withheld';

function showsSecret(document: OpenApiDocument, schema: OpenApiDocument | undefined, depth = 0): boolean {
  const resolved = resolveReference(document, schema);
  if (!resolved || depth > 8) return false;
  if (resolved['x-shown-once'] === true) return true;
  return Object.values((resolved.properties ?? {}) as Record<string, OpenApiDocument>).some((property) =>
    showsSecret(document, property, depth + 1),
  );
}

export function idempotencyKeyUse(document: OpenApiDocument, operation: OpenApiDocument): IdempotencyKeyUse {
  const parameters = ((operation.parameters ?? []) as OpenApiDocument[]).map((parameter) => resolveReference(document, parameter)!);
  if (!parameters.some((parameter) => parameter.in === 'header' && parameter.name === IDEMPOTENCY_KEY_HEADER)) return 'not-taken';
  const answers = Object.entries((operation.responses ?? {}) as Record<string, OpenApiDocument>)
    .filter(([status]) => status.startsWith('2'))
    .flatMap(([, response]) => Object.values((resolveReference(document, response)?.content ?? {}) as Record<string, OpenApiDocument>));
  return answers.some((content) => showsSecret(document, content.schema)) ? 'answer-withheld' : 'answer-kept';
}
