/**
 * An API key and its secret: what every authenticated request carries, in its
 * JSON body, by HTTP Basic, or as SCIM's bearer token. One type for the SDK,
 * the server, the gate and the tests. It reads nothing of the contract, so the
 * SDK can use it.
 */
export interface Credentials {
  api_key: string;
  api_key_secret: string;
}

/** The body members that carry credentials (the Kasm way): never part of what a request asks. */
export const CREDENTIAL_FIELDS: readonly string[] = ['api_key', 'api_key_secret'] satisfies (keyof Credentials)[];

/** The bearer token SCIM clients send (docs/scim.md): the key id and its secret joined by a dot. */
export const scimToken = ({ api_key, api_key_secret }: Credentials) => `${api_key}.${api_key_secret}`;
