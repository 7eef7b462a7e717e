/**
 * `attributes` and `excludedAttributes` (RFC 7644, 3.4.2.5, 3.9): the
 * attributes of a resource a client asks for, or all but those it excludes.
 * `schemas` and `id` always stay (their `returned` is `always`). Names ignore
 * case and may carry their schema's URN (`urn:…:core:2.0:User:userName`); an
 * extension's attribute is named after its URN (`urn:…:enterprise:2.0:User:organization`).
 */
export interface Projection {
  attributes?: string | undefined;
  excludedAttributes?: string | undefined;
}

type Resource = Record<string, unknown>;

const ALWAYS = new Set(['schemas', 'id']);

/** An attribute named in a request, as the key of the resource holding it and, maybe, a sub-attribute. */
interface AttributePath {
  top: string;
  sub?: string | undefined;
}

function pathOf(name: string, coreSchema: string, extensions: readonly string[]): AttributePath {
  const lower = name.toLowerCase();
  for (const extension of extensions) {
    if (lower === extension.toLowerCase()) return { top: extension };
    if (lower.startsWith(`${extension.toLowerCase()}:`)) return { top: extension, sub: name.slice(extension.length + 1) };
  }
  const local = lower.startsWith(`${coreSchema.toLowerCase()}:`) ? name.slice(coreSchema.length + 1) : name;
  const dot = local.indexOf('.');
  return dot === -1 ? { top: local } : { top: local.slice(0, dot), sub: local.slice(dot + 1) };
}

/** The key of `object` that is `name` but for case, if any. */
const keyOf = (object: Resource, name: string) => Object.keys(object).find((key) => key.toLowerCase() === name.toLowerCase());

const namesIn = (list: string | undefined) =>
  (list ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');

/**
 * Whether the answer to `projection` shows the core attribute `name` at all: what it
 * does not show need not be read (a group's members, which may be every user).
 */
export function shows({ attributes, excludedAttributes }: Projection, name: string, coreSchema: string): boolean {
  const named = (list: string | undefined) => namesIn(list).map((entry) => pathOf(entry, coreSchema, []));
  const isName = (path: AttributePath) => path.top.toLowerCase() === name.toLowerCase();
  const included = named(attributes);
  if (included.length > 0) return included.some(isName);
  return !named(excludedAttributes).some((path) => isName(path) && path.sub === undefined);
}

/** The resource as the request asks to see it; the resource itself when it asks for all. */
export function projected<T extends Resource>(
  resource: T,
  { attributes, excludedAttributes }: Projection,
  extensions: readonly string[],
): T {
  const coreSchema = (resource.schemas as string[])[0] ?? '';
  const included = namesIn(attributes).map((name) => pathOf(name, coreSchema, extensions));
  const excluded = namesIn(excludedAttributes).map((name) => pathOf(name, coreSchema, extensions));
  if (included.length > 0) {
    const result: Resource = Object.fromEntries(Object.entries(resource).filter(([key]) => ALWAYS.has(key)));
    for (const { top, sub } of included) {
      const key = keyOf(resource, top);
      if (key === undefined || ALWAYS.has(key)) continue;
      const value = resource[key];
      if (sub === undefined || value === null || typeof value !== 'object' || Array.isArray(value)) {
        result[key] = value;
        continue;
      }
      const subKey = keyOf(value as Resource, sub);
      if (subKey === undefined) continue;
      const kept = (result[key] as Resource | undefined) ?? {};
      result[key] = { ...kept, [subKey]: (value as Resource)[subKey] };
    }
    return result as T;
  }
  if (excluded.length === 0) return resource;
  let result: Resource = { ...resource };
  for (const { top, sub } of excluded) {
    const key = keyOf(result, top);
    if (key === undefined || ALWAYS.has(key)) continue;
    const value = result[key];
    if (sub === undefined) {
      result = Object.fromEntries(Object.entries(result).filter(([name]) => name !== key));
    } else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const subKey = keyOf(value as Resource, sub);
      if (subKey !== undefined) result[key] = Object.fromEntries(Object.entries(value).filter(([name]) => name !== subKey));
    }
  }
  return result as T;
}
