/**
 * fast-check arbitraries read from a request schema: values the schema
 * accepts, and values it refuses (a valid value with one thing broken). The
 * fuzz filters both through Ajv, so a generator mistake shows up as a filter
 * that rejects too much, never as a mislabelled request.
 *
 * Covers the JSON Schema the contracts use: objects (required; fields
 * refused with `not: {}`), arrays (items, maxItems), strings (length,
 * pattern, enum), integers (minimum, maximum), booleans, `null` beside a
 * type, oneOf, anyOf, and a schema without a type (any JSON). The schemas come
 * with their references inlined (contract-schemas.ts).
 */
import fc from 'fast-check';
import type { Schema } from './contract-schemas.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * Values for some properties, by name, made from what the schema would give:
 * real ids and credentials mixed in, so that requests get past lookups.
 */
export type Overrides = Record<string, (fromSchema: fc.Arbitrary<Json>) => fc.Arbitrary<Json>>;

/** Strings of any kind: printable ASCII, and any Unicode code point (one arbitrary per length range, as stringArbitrary keeps them). */
const anyCodePointsByLength = new Map<string, fc.Arbitrary<string>>();
const anyCodePoints = ({ minLength = 0, maxLength }: { minLength?: number; maxLength?: number }) => {
  const key = `${minLength}-${maxLength}`;
  let arbitrary = anyCodePointsByLength.get(key);
  if (!arbitrary) {
    const constraints = { minLength, ...(maxLength === undefined ? {} : { maxLength }) };
    arbitrary = fc.oneof(fc.string({ ...constraints, unit: 'grapheme-ascii' }), fc.string({ ...constraints, unit: 'binary' }));
    anyCodePointsByLength.set(key, arbitrary);
  }
  return arbitrary;
};

/**
 * U+0001 in place of U+0000, which the service refuses in any string as it refuses unpaired
 * surrogates (server/http/request-body.ts; the contract's 400 says so). Replaced rather than
 * filtered out: 'binary' draws U+0000 so often that long strings would hardly ever pass.
 */
const withoutNul = (text: string) => text.replaceAll('\0', '\u0001');

/** Text a valid request may hold: any code point but U+0000 (unpaired surrogates, 'binary' never draws). */
const anyText = (constraints: { minLength?: number; maxLength?: number }) => anyCodePoints(constraints).map(withoutNul);

const codePoints = (text: string) => [...text].length;

/**
 * The arbitraries of string schemas, by what they draw from: many operations share a field's
 * schema (a username, an id, a password), and building one from a pattern (fast-check parses it
 * and gathers its character classes) cost most of the fuzz's fixed time. Arbitraries hold no
 * state of a run, so one serves every property that asks.
 */
const stringArbitraries = new Map<string, fc.Arbitrary<string>>();

function stringArbitrary(schema: Schema): fc.Arbitrary<string> {
  const key = JSON.stringify([schema.enum, schema.pattern, schema.minLength, schema.maxLength]);
  let arbitrary = stringArbitraries.get(key);
  if (!arbitrary) stringArbitraries.set(key, (arbitrary = newStringArbitrary(schema)));
  return arbitrary;
}

function newStringArbitrary(schema: Schema): fc.Arbitrary<string> {
  if (schema.enum) return fc.constantFrom(...(schema.enum as string[]));
  const minLength: number = schema.minLength ?? 0;
  const maxLength: number = schema.maxLength ?? 300;
  const fits = (text: string) => codePoints(text) >= minLength && codePoints(text) <= maxLength;
  if (!schema.pattern) return anyText({ minLength, maxLength }).filter(fits);
  const pattern = new RegExp(schema.pattern, 'u');
  try {
    return fc
      .stringMatching(pattern)
      .map(withoutNul)
      .filter((text) => fits(text) && pattern.test(text));
  } catch {
    // fast-check cannot generate from lookaheads (the password policy): draw
    // text of the right length and keep what matches, which most long text does.
    return fc
      .tuple(
        anyText({ minLength, maxLength }),
        fc.constantFrom('A', 'Ä'),
        fc.constantFrom('z', 'ß'),
        fc.constantFrom('7', '0'),
        fc.constantFrom('!', ' ', '€'),
      )
      .map(([text, ...required]) => [...required, ...text].join(''))
      .filter((text) => fits(text) && pattern.test(text));
  }
}

/** A schema no value satisfies: a field the service sets, which no request may send. */
const isRefused = (schema: Schema) => typeof schema.not === 'object' && Object.keys(schema.not).length === 0;

/** Values `schema` accepts. */
export function validValue(resolved: Schema, overrides: Overrides = {}): fc.Arbitrary<Json> {
  // `null` beside a type (`[string, "null"]`): the type's values, and null now and then.
  if (Array.isArray(resolved.type)) {
    const [type] = (resolved.type as string[]).filter((name) => name !== 'null');
    return fc.oneof({ arbitrary: validValue({ ...resolved, type }, overrides), weight: 4 }, { arbitrary: fc.constant(null), weight: 1 });
  }
  if (resolved.type === 'null') return fc.constant(null);
  if (resolved.enum) return fc.constantFrom(...(resolved.enum as Json[]));
  if ('const' in resolved) return fc.constant(resolved.const as Json);
  // Ajv filters out values that match several variants of a oneOf; any of an anyOf will do.
  const variants = (resolved.oneOf ?? resolved.anyOf) as Schema[] | undefined;
  if (variants) return fc.oneof(...variants.map((variant) => validValue(variant, overrides)));
  switch (resolved.type) {
    case 'object': {
      const properties = Object.entries<Schema>(resolved.properties ?? {}).filter(([, property]) => !isRefused(property));
      const model = Object.fromEntries(
        properties.map(([name, property]) => {
          const fromSchema = validValue(property, overrides);
          return [name, overrides[name]?.(fromSchema) ?? fromSchema];
        }),
      );
      return fc.record(model, { requiredKeys: resolved.required ?? [] });
    }
    case 'string':
      return stringArbitrary(resolved);
    case 'integer':
      return fc.integer({ min: resolved.minimum ?? -(2 ** 31), max: resolved.maximum ?? 2 ** 31 - 1 });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(validValue(resolved.items ?? {}, overrides), {
        minLength: resolved.minItems ?? 0,
        maxLength: Math.min(resolved.maxItems ?? 4, 4),
      });
    case undefined:
      // No type: the contract takes any JSON here (a PATCH operation's value).
      return fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>;
    default:
      throw new Error(`the fuzz cannot generate ${JSON.stringify(resolved).slice(0, 120)}: extend gate/arbitraries.ts`);
  }
}

/** One way to break a value: what to do, at which object path. */
interface Breakage {
  /** Property names from the root to the object changed. */
  at: string[];
  describe: string;
  apply(object: Record<string, Json>): fc.Arbitrary<void>;
}

/** A JSON value of each type, for otherTypes. */
const OF_EACH_TYPE: Record<string, fc.Arbitrary<Json>> = {
  string: fc.string({ maxLength: 12 }),
  integer: fc.integer(),
  number: fc.double({ noNaN: true, noDefaultInfinity: true }).filter((value) => !Number.isInteger(value)),
  boolean: fc.boolean(),
  null: fc.constant(null),
  array: fc.array(fc.integer(), { maxLength: 3 }),
  object: fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 2 }),
};

/** JSON values of every type but the ones listed. */
function otherTypes(...types: string[]): fc.Arbitrary<Json> {
  const all = OF_EACH_TYPE;
  if (types.includes('integer')) types.push('number');
  return fc.oneof(
    ...Object.entries(all)
      .filter(([type]) => !types.includes(type))
      .map(([, arbitrary]) => arbitrary),
  );
}

/** Sets `object[name]` to a value as the arbitrary draws it: that is how a breakage is applied. */
function assignTo(object: Record<string, Json>, name: string): (value: Json) => undefined {
  return (value) => {
    object[name] = value;
    return undefined;
  };
}

function propertyBreakages(name: string, property: Schema, at: string[]): Breakage[] {
  const set = (describe: string, value: fc.Arbitrary<Json>): Breakage => ({
    at,
    describe: `${[...at, name].join('.')}: ${describe}`,
    apply: (object) => value.map(assignTo(object, name)),
  });
  if (isRefused(property)) return [set('a field the service sets', fc.jsonValue({ maxDepth: 1 }) as fc.Arbitrary<Json>)];
  // Breaking one alternative of an anyOf may satisfy another; Ajv sorts those out, the other breakages do the work.
  if (property.anyOf) return [];
  // A oneOf's types are its variants' (ActiveValue: a boolean, a string, null); a schema without a type takes anything.
  const types: string[] = (property.oneOf ? (property.oneOf as Schema[]).map((variant) => variant.type) : [property.type])
    .flat()
    .filter((type: unknown): type is string => typeof type === 'string');
  if (types.length === 0) return [];
  const breakages = [set('a value of the wrong type', otherTypes(...types))];
  if (property.enum)
    breakages.push(
      set(
        'a value outside the enum',
        fc.string({ maxLength: 12 }).filter((text) => !(property.enum as unknown[]).includes(text)),
      ),
    );
  if (property.maxLength !== undefined)
    breakages.push(
      set('too long', fc.string({ minLength: property.maxLength + 1, maxLength: property.maxLength + 20, unit: 'grapheme-ascii' })),
    );
  if (property.minLength) breakages.push(set('too short', fc.string({ maxLength: property.minLength - 1 })));
  if (property.pattern) {
    const pattern = new RegExp(property.pattern, 'u');
    breakages.push(
      set(
        'not matching the pattern',
        anyCodePoints({ maxLength: Math.min(property.maxLength ?? 40, 40) }).filter((text) => !pattern.test(text)),
      ),
    );
  }
  if (property.maxItems !== undefined && property.maxItems <= 100)
    breakages.push(
      set(
        'too many items',
        fc.array(validValue(property.items ?? {}), { minLength: property.maxItems + 1, maxLength: property.maxItems + 3 }),
      ),
    );
  if (property.minimum !== undefined) breakages.push(set('below the minimum', fc.integer({ min: -(2 ** 40), max: property.minimum - 1 })));
  if (property.maximum !== undefined) breakages.push(set('above the maximum', fc.integer({ min: property.maximum + 1, max: 2 ** 40 })));
  return breakages;
}

/** Every way to break an object schema's values, down through its object properties. */
function breakages(resolved: Schema, at: string[] = []): Breakage[] {
  if (resolved.oneOf) return (resolved.oneOf as Schema[]).flatMap((variant) => breakages(variant, at));
  if (resolved.type !== 'object') return [];
  const found: Breakage[] = [];
  for (const name of resolved.required ?? []) {
    found.push({ at, describe: `${[...at, name].join('.')}: missing`, apply: (object) => fc.constant(void delete object[name]) });
  }
  for (const [name, property] of Object.entries<Schema>(resolved.properties ?? {})) {
    found.push(...propertyBreakages(name, property, at));
    found.push(...breakages(property, [...at, name]));
  }
  return found;
}

export interface InvalidValue {
  /** What was broken, for the report. */
  broken: string;
  /** The JSON body; `raw` is sent instead when set. */
  value: Json;
  raw?: string;
}

/** Values `schema` refuses: a valid value with one thing broken, a body that is not an object, or text that is not JSON. */
export function invalidValue(schema: Schema, overrides: Overrides = {}): fc.Arbitrary<InvalidValue> {
  const valid = validValue(schema, overrides);
  const sites = breakages(schema);
  const notAnObject = otherTypes('object').map((value) => ({ broken: 'the body is not an object', value }));
  const notJson = valid.map((value) => {
    const text = JSON.stringify(value);
    return { broken: 'the body is not JSON', value: null, raw: text.slice(0, Math.max(1, text.length - 2)) };
  });
  // A schema with nothing to break (a body that is any object): only the other two.
  if (sites.length === 0) return fc.oneof(notAnObject, notJson);
  const brokenOnce = fc.tuple(valid, fc.constantFrom(...sites)).chain(([value, site]) => {
    const copy = structuredClone(value) as Record<string, Json>;
    let object: Record<string, Json> | undefined = copy;
    for (const name of site.at) object = object?.[name] as Record<string, Json> | undefined;
    // The object to break is optional and absent in this value: the value stays valid, and Ajv filters it out.
    if (!object || typeof object !== 'object') return fc.constant({ broken: site.describe, value: copy });
    return site.apply(object).map(() => ({ broken: site.describe, value: structuredClone(copy) }));
  });
  return fc.oneof({ arbitrary: brokenOnce, weight: 8 }, { arbitrary: notAnObject, weight: 1 }, { arbitrary: notJson, weight: 1 });
}
