/**
 * What the service tells a SCIM client about itself (RFC 7644, 4; RFC 7643,
 * 5 to 7): its features, its resource types, and the attributes it keeps of
 * each, so that a client can map its own attributes to them.
 */
import type { ScimHandlers } from './types.js';
import { MAX_RESULTS, listAnswer } from './list-query.js';
import { ScimFailure } from './errors.js';
import { ENTERPRISE_USER_SCHEMA, USER_SCHEMA } from './user-resource.js';
import { GROUP_SCHEMA } from './group-resource.js';

const CORE = 'urn:ietf:params:scim:schemas:core:2.0';

export interface Attribute {
  name: string;
  type: 'string' | 'boolean' | 'dateTime' | 'reference' | 'complex';
  multiValued?: boolean;
  required?: boolean;
  caseExact?: boolean;
  mutability?: 'readOnly' | 'readWrite' | 'immutable' | 'writeOnly';
  returned?: 'always' | 'never' | 'default' | 'request';
  uniqueness?: 'none' | 'server' | 'global';
  subAttributes?: Attribute[];
  referenceTypes?: string[];
  description: string;
}

/** An attribute with RFC 7643's defaults (section 2.2) spelled out, as clients expect them all. */
const attribute = ({ subAttributes, ...given }: Attribute): Record<string, unknown> => ({
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...given,
  ...(subAttributes ? { subAttributes: subAttributes.map(attribute) } : {}),
});

const text = (name: string, description: string, more: Partial<Attribute> = {}): Attribute => ({
  name,
  type: 'string',
  description,
  ...more,
});

export const USER_ATTRIBUTES: Attribute[] = [
  text('userName', "The user's name to sign in with, unique; stored in the username profile's form.", {
    required: true,
    uniqueness: 'server',
  }),
  text('externalId', "The identity provider's own id for the user.", { caseExact: true }),
  {
    name: 'name',
    type: 'complex',
    description: "The user's name.",
    subAttributes: [
      text('givenName', 'The given name (first_name).'),
      text('familyName', 'The family name (last_name).'),
      text('formatted', 'The given and family names joined.', { mutability: 'readOnly' }),
    ],
  },
  text('displayName', 'The formatted name, or the userName.', { mutability: 'readOnly' }),
  { name: 'active', type: 'boolean', description: 'Whether the user may sign in (the inverse of disabled).' },
  text('password', 'A new password, under the password policy; never returned.', { mutability: 'writeOnly', returned: 'never' }),
  {
    name: 'emails',
    type: 'complex',
    multiValued: true,
    description: "The user's e-mail addresses, kept as sent.",
    subAttributes: [
      text('value', 'The address.'),
      text('type', 'work, home, other.'),
      text('display', 'A label.'),
      { name: 'primary', type: 'boolean', description: 'The primary address.' },
    ],
  },
  {
    name: 'phoneNumbers',
    type: 'complex',
    multiValued: true,
    description: "The user's phone number: the primary one sent (else the first) is kept.",
    subAttributes: [text('value', 'The number.'), text('type', 'work.'), { name: 'primary', type: 'boolean', description: 'Always true.' }],
  },
  {
    name: 'groups',
    type: 'complex',
    multiValued: true,
    mutability: 'readOnly',
    description: 'The groups the user is a member of; change them through Groups.',
    subAttributes: [
      text('value', "The group's id.", { mutability: 'readOnly' }),
      text('display', "The group's name.", { mutability: 'readOnly' }),
      { name: '$ref', type: 'reference', referenceTypes: ['Group'], mutability: 'readOnly', description: "The group's address." },
    ],
  },
];

export const ENTERPRISE_ATTRIBUTES: Attribute[] = [text('organization', "The user's organization.")];

export const GROUP_ATTRIBUTES: Attribute[] = [
  text('displayName', "The group's name, unique.", { required: true, uniqueness: 'server' }),
  text('externalId', "The identity provider's own id for the group.", { caseExact: true }),
  {
    name: 'members',
    type: 'complex',
    multiValued: true,
    description: 'The users in the group.',
    subAttributes: [
      text('value', "The user's id.", { mutability: 'immutable' }),
      text('display', "The user's userName.", { mutability: 'readOnly' }),
      text('type', 'User.', { mutability: 'immutable' }),
      { name: '$ref', type: 'reference', referenceTypes: ['User'], mutability: 'readOnly', description: "The user's address." },
    ],
  },
];

const schema = (id: string, name: string, description: string, attributes: Attribute[]) => ({
  schemas: [`${CORE}:Schema`],
  id,
  name,
  description,
  attributes: attributes.map(attribute),
  meta: { resourceType: 'Schema', location: `/Schemas/${id}` },
});

const SCHEMAS = [
  schema(USER_SCHEMA, 'User', 'A user of the directory.', USER_ATTRIBUTES),
  schema(ENTERPRISE_USER_SCHEMA, 'EnterpriseUser', 'The enterprise extension: the organization.', ENTERPRISE_ATTRIBUTES),
  schema(GROUP_SCHEMA, 'Group', 'A group of users.', GROUP_ATTRIBUTES),
];

const RESOURCE_TYPES = [
  {
    schemas: [`${CORE}:ResourceType`],
    id: 'User',
    name: 'User',
    endpoint: '/Users',
    description: 'A user of the directory',
    schema: USER_SCHEMA,
    schemaExtensions: [{ schema: ENTERPRISE_USER_SCHEMA, required: false }],
    meta: { resourceType: 'ResourceType', location: '/ResourceTypes/User' },
  },
  {
    schemas: [`${CORE}:ResourceType`],
    id: 'Group',
    name: 'Group',
    endpoint: '/Groups',
    description: 'A group of users',
    schema: GROUP_SCHEMA,
    meta: { resourceType: 'ResourceType', location: '/ResourceTypes/Group' },
  },
];

const SERVICE_PROVIDER_CONFIG = {
  schemas: [`${CORE}:ServiceProviderConfig`],
  patch: { supported: true },
  bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
  filter: { supported: true, maxResults: MAX_RESULTS },
  changePassword: { supported: false },
  sort: { supported: true },
  etag: { supported: true },
  authenticationSchemes: [
    {
      type: 'oauthbearertoken',
      name: 'API key token',
      description: 'The API key id and its secret joined by a dot: Authorization: Bearer <api_key>.<api_key_secret>',
      primary: true,
    },
    { type: 'httpbasic', name: 'HTTP Basic', description: 'The API key id and its secret as the user name and the password' },
  ],
  meta: { resourceType: 'ServiceProviderConfig', location: '/ServiceProviderConfig' },
};

const notDescribed = (what: string) => new ScimFailure(404, 'notFound', `No ${what} by that name`);

export const discoveryHandlers: Pick<
  ScimHandlers,
  'getServiceProviderConfig' | 'listResourceTypes' | 'getResourceType' | 'listSchemas' | 'getSchema'
> = {
  async getServiceProviderConfig() {
    return { status: 200, body: SERVICE_PROVIDER_CONFIG };
  },
  async listResourceTypes() {
    return listAnswer(RESOURCE_TYPES, RESOURCE_TYPES.length, 1);
  },
  async getResourceType({ id }) {
    const found = RESOURCE_TYPES.find((type) => type.id.toLowerCase() === id.toLowerCase());
    if (!found) throw notDescribed('resource type');
    return { status: 200, body: found };
  },
  async listSchemas() {
    return listAnswer(SCHEMAS, SCHEMAS.length, 1);
  },
  async getSchema({ id }) {
    const found = SCHEMAS.find((described) => described.id.toLowerCase() === id.toLowerCase());
    if (!found) throw notDescribed('schema');
    return { status: 200, body: found };
  },
};
