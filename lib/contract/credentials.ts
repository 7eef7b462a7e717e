/**
 * An API key and its secret: what every authenticated request carries, in its
 * JSON body or by HTTP Basic. One type for the SDK, the server, the gate and
 * the tests. Types only, so the SDK can use it without reading the contract.
 */
export interface Credentials {
  api_key: string;
  api_key_secret: string;
}
