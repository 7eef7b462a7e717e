/**
 * How a schema of the contract becomes Python: its type annotation, the
 * expression that turns a value of it into JSON, and the one that reads it
 * back from the service's JSON with a check (`_decode.py`).
 */
import type { OpenApiDocument } from '../../lib/contract/document.js';

export type PythonType =
  | { kind: 'class'; name: string }
  | { kind: 'alias'; name: string; target: PythonType }
  | { kind: 'primitive'; python: 'str' | 'int' | 'float' | 'bool' | 'Any' }
  | { kind: 'datetime' }
  | { kind: 'literal'; values: (string | number | boolean)[] }
  | { kind: 'list'; item: PythonType }
  | { kind: 'union'; members: PythonType[] }
  | { kind: 'nullable'; inner: PythonType }
  | { kind: 'json-object' };

type Schema = OpenApiDocument;

const SCHEMA_REF = '#/components/schemas/';

/** An object schema with properties becomes a dataclass; any other named schema, a type alias. */
export function isClassSchema(schema: Schema): boolean {
  return schema.type === 'object' && schema.properties !== undefined;
}

/**
 * The Python type of `schema`. `inlineEnumName` names an enum written inline
 * in a model's property (`Error.code` → `ErrorCode`), so that it gets an alias.
 */
export function pythonType(document: OpenApiDocument, schema: Schema, inlineEnumName?: string): PythonType {
  if (typeof schema.$ref === 'string') {
    if (!schema.$ref.startsWith(SCHEMA_REF)) throw new Error(`unsupported reference ${schema.$ref}`);
    const name = schema.$ref.slice(SCHEMA_REF.length);
    const target = document.components.schemas[name] as Schema;
    return isClassSchema(target) ? { kind: 'class', name } : { kind: 'alias', name, target: pythonType(document, target) };
  }
  const union = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  if (union) {
    // A member that is only `null` makes the rest nullable: `X | None`, not a union with Any.
    const members = union.filter((member) => member.type !== 'null').map((member) => pythonType(document, member));
    const joined: PythonType = members.length === 1 ? members[0]! : { kind: 'union', members };
    return members.length < union.length ? { kind: 'nullable', inner: joined } : joined;
  }
  if (Array.isArray(schema.type)) {
    const types = (schema.type as string[]).filter((type) => type !== 'null');
    if (types.length !== 1) throw new Error(`unsupported type list ${JSON.stringify(schema.type)}`);
    const values = Array.isArray(schema.enum) ? { enum: (schema.enum as unknown[]).filter((value) => value !== null) } : {};
    const inner = pythonType(document, { ...schema, ...values, type: types[0] }, inlineEnumName);
    return schema.type.includes('null') ? { kind: 'nullable', inner } : inner;
  }
  if (schema.const !== undefined) return { kind: 'literal', values: [schema.const] };
  if (Array.isArray(schema.enum)) {
    // `null` among the values is the nullable above; the literal holds the rest.
    const literal: PythonType = {
      kind: 'literal',
      values: (schema.enum as (string | number | boolean | null)[]).filter((value) => value !== null),
    };
    const named: PythonType = inlineEnumName ? { kind: 'alias', name: inlineEnumName, target: literal } : literal;
    return schema.enum.includes(null) ? { kind: 'nullable', inner: named } : named;
  }
  switch (schema.type) {
    case 'string':
      return schema.format === 'date-time' ? { kind: 'datetime' } : { kind: 'primitive', python: 'str' };
    case 'integer':
      return { kind: 'primitive', python: 'int' };
    case 'number':
      return { kind: 'primitive', python: 'float' };
    case 'boolean':
      return { kind: 'primitive', python: 'bool' };
    case 'array':
      return { kind: 'list', item: pythonType(document, schema.items ?? {}) };
    case 'object':
      return { kind: 'json-object' };
    default:
      return { kind: 'primitive', python: 'Any' };
  }
}

export function annotation(type: PythonType): string {
  switch (type.kind) {
    case 'class':
    case 'alias':
      return type.name;
    case 'primitive':
      return type.python;
    case 'datetime':
      return 'datetime';
    case 'literal':
      return `Literal[${type.values.map((value) => JSON.stringify(value)).join(', ')}]`;
    case 'list':
      return `list[${annotation(type.item)}]`;
    case 'union':
      return type.members.map(annotation).join(' | ');
    case 'nullable':
      return `${annotation(type.inner)} | None`;
    case 'json-object':
      return 'dict[str, Any]';
  }
}

/** The expression that turns `value` (of `type`) into JSON. */
export function encode(type: PythonType, value: string, depth = 0): string {
  switch (type.kind) {
    case 'class':
      return `${value}.to_json()`;
    case 'alias':
      return encode(type.target, value, depth);
    case 'datetime':
      return `${value}.isoformat()`;
    case 'list': {
      const item = `item${depth || ''}`;
      const inner = encode(type.item, item, depth + 1);
      return inner === item ? `list(${value})` : `[${inner} for ${item} in ${value}]`;
    }
    case 'union':
      // A union of text and literals is sent as it is; of models, as its JSON.
      if (type.members.every((member) => encode(member, value, depth) === value)) return value;
      if (!type.members.every((member) => member.kind === 'class'))
        throw new Error('only unions of models, or of plain values, can be sent');
      return `${value}.to_json()`;
    case 'nullable': {
      const inner = encode(type.inner, value, depth);
      return inner === value ? value : `None if ${value} is None else ${inner}`;
    }
    default:
      return value;
  }
}

/** The expression that reads `value` (JSON from the service) as `type`, naming `where` when it does not fit. */
export function decode(type: PythonType, value: string, where: string, depth = 0): string {
  const at = JSON.stringify(where);
  switch (type.kind) {
    case 'class':
      return `${type.name}.from_json(${value})`;
    case 'alias':
      // A value a newer service adds to an enum is let through, typed as the alias.
      return type.target.kind === 'literal'
        ? `cast(${JSON.stringify(type.name)}, _decode.text(${value}, ${at}))`
        : decode(type.target, value, where, depth);
    case 'primitive':
      return {
        str: `_decode.text(${value}, ${at})`,
        int: `_decode.integer(${value}, ${at})`,
        float: `_decode.number(${value}, ${at})`,
        bool: `_decode.boolean(${value}, ${at})`,
        Any: value,
      }[type.python];
    case 'datetime':
      return `_decode.date_time(${value}, ${at})`;
    case 'literal':
      return `cast(${JSON.stringify(annotation(type))}, _decode.text(${value}, ${at}))`;
    case 'list': {
      const item = `item${depth || ''}`;
      return `[${decode(type.item, item, `${where}[]`, depth + 1)} for ${item} in _decode.array(${value}, ${at})]`;
    }
    case 'union': {
      // Text and text literals (an id, or "" for none) are read as text; models would need a discriminator.
      const isText = (member: PythonType): boolean =>
        member.kind === 'alias'
          ? isText(member.target)
          : (member.kind === 'primitive' && member.python === 'str') ||
            (member.kind === 'literal' && member.values.every((item) => typeof item === 'string'));
      if (type.members.every(isText)) return `_decode.text(${value}, ${at})`;
      throw new Error(`${where}: a oneOf in an answer has no decoder yet; give it a discriminator first`);
    }
    case 'nullable':
      return `None if ${value} is None else ${decode(type.inner, value, where, depth)}`;
    case 'json-object':
      return `_decode.json_object(${value}, ${at})`;
  }
}
