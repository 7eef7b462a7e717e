/**
 * Route coverage, from outside: every operation of the contract is served,
 * and nothing else is. Each operation's path answers something other than 404
 * with its own method, 405 with the other, and paths the contract does not
 * describe answer 404, all in the contract's error shape. Every GET has a HEAD
 * that answers with the GET's status and headers and no body.
 *
 * In its self-check, the app in process, the gate also compares the app's routing table with
 * the contract (GateTarget.routes), which no probe from outside can prove.
 */
import { SCIM_OPERATIONS } from '../lib/contract/scim-operations.js';
import { CONTRACT_OPERATIONS, SCIM_CONTRACT_OPERATIONS } from './contract-schemas.js';
import { send } from './http.js';
import type { CheckResult } from './report.js';
import type { GateTarget } from './target.js';

/** Paths near the real ones that the contract does not describe. */
const UNDESCRIBED = [
  '/index.html',
  '/api',
  '/api/public',
  '/api/public/update_users',
  '/api/private/get_users',
  '/api/public/get_users/1',
  '/admin',
  '/.env',
  '/openapi.yaml',
];

const isErrorShape = (body: unknown) =>
  typeof body === 'object' &&
  body !== null &&
  typeof (body as { error_message?: unknown }).error_message === 'string' &&
  typeof (body as { code?: unknown }).code === 'string';

const isScimErrorShape = (body: unknown) =>
  typeof body === 'object' &&
  body !== null &&
  typeof (body as { scimType?: unknown }).scimType === 'string' &&
  typeof (body as { detail?: unknown }).detail === 'string';

const SCIM_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * SCIM's routes from outside: each of the contract's paths (with an id no resource has)
 * answers its own methods with anything but a 404, the others with a 405, and another
 * spelling of it (a trailing slash, another case) with a 404, all in SCIM's error shape.
 */
async function probeScimRoutes(target: GateTarget, failures: string[]): Promise<number> {
  let probes = 0;
  const paths = new Map<string, Set<string>>();
  for (const operation of SCIM_CONTRACT_OPERATIONS) {
    const path = operation.basePath + operation.path.replace('{id}', 'no-such-resource');
    paths.set(path, (paths.get(path) ?? new Set()).add(operation.httpMethod));
  }
  for (const [path, methods] of paths) {
    for (const method of SCIM_METHODS) {
      const withBody = method === 'POST' || method === 'PUT' || method === 'PATCH';
      const answer = await send(target.baseUrl, {
        method,
        path,
        headers: { 'Content-Type': 'application/scim+json' },
        body: withBody ? '{}' : undefined,
      });
      probes++;
      // Without credentials, a served method is refused (400 or 401) before any lookup could miss.
      const served = answer.status !== 404 && answer.status !== 405;
      if (methods.has(method) ? !served : answer.status !== 405)
        failures.push(`${method} ${path} answered ${answer.status}, ${methods.has(method) ? 'as if not served' : 'not a 405'}`);
      else if (!isScimErrorShape(answer.body)) failures.push(`${method} ${path} answered ${answer.status} outside SCIM's error shape`);
    }
    for (const spelling of [`${path}/`, path.toUpperCase()]) {
      const answer = await send(target.baseUrl, { method: 'GET', path: spelling });
      probes++;
      if (answer.status !== 404) failures.push(`GET ${spelling}, another spelling of ${path}, answered ${answer.status}, not a 404`);
    }
  }
  return probes;
}

export async function runRouteCoverage(target: GateTarget): Promise<CheckResult> {
  const failures: string[] = [];
  let probes = 0;
  for (const operation of CONTRACT_OPERATIONS) {
    const isPost = operation.method === 'post';
    const own = await send(target.baseUrl, {
      method: operation.httpMethod,
      path: operation.path,
      headers: { 'Content-Type': 'application/json' },
      body: isPost ? '{}' : undefined,
    });
    const other = await send(target.baseUrl, { method: isPost ? 'GET' : 'POST', path: operation.path });
    probes += 2;
    if (own.status === 404) failures.push(`${operation.method.toUpperCase()} ${operation.path} (${operation.operationId}) is not served`);
    if (other.status !== 405 || !isErrorShape(other.body))
      failures.push(`${operation.path} answers the other method with ${other.status}, not a 405 in the error shape`);
  }
  // HEAD wherever GET: declared, and answered with the GET's status and headers and no body. The same representation
  // is asked of both: a HEAD is never compressed, so it names the plain length a compressed GET cannot.
  for (const get of CONTRACT_OPERATIONS.filter((operation) => operation.method === 'get')) {
    if (!CONTRACT_OPERATIONS.some((operation) => operation.method === 'head' && operation.path === get.path)) {
      failures.push(`the contract declares GET ${get.path} but no HEAD`);
    }
    const [got, head] = [
      await send(target.baseUrl, { method: 'GET', path: get.path, headers: { 'Accept-Encoding': 'identity' } }),
      await send(target.baseUrl, { method: 'HEAD', path: get.path, headers: { 'Accept-Encoding': 'identity' } }),
    ];
    probes += 2;
    const sameHeaders = ['content-type', 'content-length'].every((name) => got.headers.get(name) === head.headers.get(name));
    if (head.status !== got.status || !sameHeaders || head.text !== '') {
      failures.push(
        `HEAD ${get.path} answered ${head.status} (${head.headers.get('content-type')}, ${head.headers.get('content-length')} bytes, body ${head.text.length}) where GET answered ${got.status} (${got.headers.get('content-type')}, ${got.headers.get('content-length')})`,
      );
    }
  }
  // One spelling per path: another case, or a trailing slash, is not a route (a proxy's path rule cannot be stepped around).
  for (const operation of CONTRACT_OPERATIONS.filter((candidate) => candidate.method !== 'head')) {
    // The root has no other case, and `//` is no path of it.
    const spellings = operation.path === '/' ? [] : [operation.path.toUpperCase(), `${operation.path}/`];
    for (const spelling of spellings.filter((candidate) => candidate !== operation.path)) {
      const answer = await send(target.baseUrl, {
        method: operation.httpMethod,
        path: spelling,
        headers: { 'Content-Type': 'application/json' },
        body: operation.method === 'post' ? '{}' : undefined,
      });
      probes++;
      if (answer.status !== 404 || !isErrorShape(answer.body))
        failures.push(`${operation.httpMethod} ${spelling}, another spelling of ${operation.path}, answered ${answer.status}, not a 404`);
    }
  }
  for (const path of UNDESCRIBED) {
    for (const method of ['GET', 'HEAD', 'POST'] as const) {
      const answer = await send(target.baseUrl, {
        method,
        path,
        headers: { 'Content-Type': 'application/json' },
        body: method === 'POST' ? '{}' : undefined,
      });
      probes++;
      // A HEAD answer has no body to be in any shape.
      if (answer.status !== 404 || (method !== 'HEAD' && !isErrorShape(answer.body)))
        failures.push(
          `${method} ${path}, which the contract does not describe, answered ${answer.status}${isErrorShape(answer.body) ? '' : ' outside the error shape'}`,
        );
    }
  }
  probes += await probeScimRoutes(target, failures);
  if (target.routes) {
    const routes = target.routes().sort();
    // SCIM (/scim/v2) is a contract of its own, routed by the same app.
    const described = [
      ...CONTRACT_OPERATIONS.map((operation) => `${operation.method} ${operation.path}`),
      ...SCIM_OPERATIONS.map((operation) => `${operation.method} ${operation.route}`),
    ].sort();
    for (const route of routes.filter((route) => !described.includes(route)))
      failures.push(`the app routes ${route}, which the contract does not describe`);
    for (const route of described.filter((route) => !routes.includes(route))) failures.push(`the app has no route for ${route}`);
  }
  return {
    name: 'routes',
    summary: `${CONTRACT_OPERATIONS.length} workspace and ${SCIM_CONTRACT_OPERATIONS.length} SCIM operations served, ${UNDESCRIBED.length} undescribed paths refused (${probes} probes)${target.routes ? ', routing table equals the contracts' : ''}`,
    failures,
    notChecked: target.routes ? [] : ['the routing table itself: only visible with the app in process (the self-check)'],
  };
}
