/**
 * Kasm's tolerance, as the contract declares it (its "Kasm's tolerance"
 * paragraph): a request body is read for the fields its schema names, a key it
 * does not name is ignored, and `null` for a field is the same as leaving it
 * out. After validation, `declaredFields` gives a body that holds exactly what
 * the contract declares, so nothing unknown reaches a handler, the database or
 * the log, and a handler never meets a `null` it would have to tell from an
 * absent field.
 */
import { type OpenApiDocument, resolveReference } from './document.js';

type Schema = OpenApiDocument;

/** Each object schema's declared properties, worked out once: every request passes through here. */
const known = new WeakMap<Schema, Map<string, Schema[]>>();

function propertiesOf(document: OpenApiDocument, schema: Schema): Map<string, Schema[]> {
  let properties = known.get(schema);
  if (!properties) {
    properties = declaredProperties(document, schema);
    known.set(schema, properties);
  }
  return properties;
}

/** The properties `schema` names, with each one's schema: of its own, and of each branch of an anyOf, oneOf or allOf. */
function declaredProperties(
  document: OpenApiDocument,
  schema: Schema | undefined,
  into = new Map<string, Schema[]>(),
): Map<string, Schema[]> {
  const resolved = resolveReference(document, schema);
  if (!resolved || typeof resolved !== 'object') return into;
  for (const [name, property] of Object.entries<Schema>(resolved.properties ?? {})) {
    into.set(name, [...(into.get(name) ?? []), property]);
  }
  for (const branch of [...(resolved.anyOf ?? []), ...(resolved.oneOf ?? []), ...(resolved.allOf ?? [])] as Schema[]) {
    declaredProperties(document, branch, into);
  }
  return into;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `value` with, at every level its schema describes an object, only the
 * properties the schema names and none that is `null`. Arrays are read item
 * by item against `items`. Anything else comes back as it is.
 */
export function declaredFields(document: OpenApiDocument, schema: Schema | undefined, value: unknown): unknown {
  const resolved = resolveReference(document, schema);
  if (Array.isArray(value)) return value.map((item) => declaredFields(document, resolved?.items, item));
  if (!isPlainObject(value)) return value;
  if (!resolved || typeof resolved !== 'object') return value;
  const properties = propertiesOf(document, resolved);
  // A schema that names no property (a free-form object) keeps what it was given.
  if (properties.size === 0) return value;
  const kept: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(value)) {
    const schemas = properties.get(name);
    if (!schemas || field === null) continue;
    // The branches that name a property agree on its shape in this contract; the first one reads it.
    kept[name] = declaredFields(document, schemas[0], field);
  }
  return kept;
}
