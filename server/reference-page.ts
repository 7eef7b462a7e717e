/**
 * The contract as the API reference page (/docs) shows it.
 *
 * OpenAPI's security schemes cannot say that credentials travel in the JSON
 * body, so each operation that takes credentials lists that way as `{}`
 * (nothing in a header needed) beside HTTP Basic and the api-key headers; a
 * renderer shows `{}` as nothing, or as "None", which reads as "no
 * authentication". For the page alone, each scheme is named by its
 * `x-displayName` and `{}` becomes the body credentials the contract
 * describes in `components.x-body-credentials`, so that the page reads
 * "API key in the body or HTTP Basic or (api-key header and api-key-secret
 * header)". The contract the service serves (/openapi.json), and everything
 * generated from it, keep the standard form.
 *
 * The page also names its server as the address it is read at, port
 * included, not the contract's `127.0.0.1:8080`, in plain words: the build
 * writes a placeholder that the service replaces with the address of each
 * request (http/documentation.ts). And it shows the service's own logo,
 * inline: the page may load nothing from elsewhere.
 *
 *   node dist/server/reference-page.js <contract.json> <page-contract.json>
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';

interface Described {
  'x-displayName'?: string;
  description?: string;
}
type Requirement = Record<string, string[]>;
interface Contract {
  info: Record<string, unknown>;
  servers?: { url: string; description?: string }[];
  paths: Record<string, Record<string, { security?: Requirement[] }>>;
  components: { securitySchemes?: Record<string, Described & Record<string, unknown>>; 'x-body-credentials'?: Described };
}

/** Where the page names its server; the service writes the address the page is read at in its place. */
export const SERVED_ADDRESS_PLACEHOLDER = 'http://served-address.invalid';

/** The contract with its security schemes named for people and its body credentials shown as one of them. */
export function referencePageContract<T extends Contract>(contract: T): T {
  const schemes = contract.components.securitySchemes ?? {};
  const body = contract.components['x-body-credentials'];
  const shownAs = (name: string) => schemes[name]?.['x-displayName'] ?? name;
  const shown: Record<string, unknown> = {};
  if (body?.['x-displayName']) {
    // No OpenAPI location says "body"; the page shows this one as it is written.
    shown[body['x-displayName']] = { type: 'apiKey', in: 'body', description: body.description };
  }
  for (const [name, scheme] of Object.entries(schemes)) shown[shownAs(name)] = scheme;
  const paths = Object.fromEntries(
    Object.entries(contract.paths).map(([path, item]) => [
      path,
      Object.fromEntries(
        Object.entries(item).map(([method, operation]) => [
          method,
          operation.security === undefined
            ? operation
            : {
                ...operation,
                security: operation.security.map((requirement) =>
                  Object.keys(requirement).length === 0 && body?.['x-displayName']
                    ? { [body['x-displayName']]: [] }
                    : Object.fromEntries(Object.entries(requirement).map(([name, scopes]) => [shownAs(name), scopes])),
                ),
              },
        ]),
      ),
    ]),
  );
  return {
    ...contract,
    info: { ...contract.info, 'x-logo': { url: LOGO, altText: String(contract.info.title) } },
    servers: [{ url: SERVED_ADDRESS_PLACEHOLDER, description: 'This service, at the address this page is read at' }],
    paths,
    components: { ...contract.components, securitySchemes: shown },
  };
}

/** The service's mark: a directory card, drawn inline, so that the page loads it from nowhere. */
const LOGO = `data:image/svg+xml;base64,${Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 170 48" width="170" height="48">' +
    '<rect x="2" y="6" width="36" height="36" rx="7" fill="#1f4e8c"/>' +
    '<circle cx="20" cy="19" r="6" fill="#fff"/><path d="M9 36c2-7 7-10 11-10s9 3 11 10z" fill="#fff"/>' +
    '<text x="46" y="23" font-family="sans-serif" font-size="13" font-weight="700" fill="#1f4e8c">Workspace</text>' +
    '<text x="46" y="38" font-family="sans-serif" font-size="11" fill="#333">User API</text></svg>',
).toString('base64')}`;

if (process.argv[1] && relative(process.argv[1], import.meta.filename) === '') {
  const [source, target] = process.argv.slice(2);
  if (!source || !target) {
    process.stderr.write('usage: node reference-page.js <contract.json> <page-contract.json>\n');
    process.exit(2);
  }
  const contract = JSON.parse(readFileSync(source, 'utf8')) as Contract;
  writeFileSync(target, `${JSON.stringify(referencePageContract(contract), null, 2)}\n`);
}
