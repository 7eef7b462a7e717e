/**
 * What the gate checks: a deployment reached by URL (here; `npm run contract`
 * without --base-url starts one of its own, local-deployment.ts), or, in the
 * gate's self-check, the app in the test's process
 * (server/testing/gate-target.ts).
 *
 * Both answer HTTP the same way; they differ in what else the gate may do.
 * The self-check's app lets it inject faults (for the declared 500 and 503)
 * and fingerprint the database directly. A deployment gets keys and groups
 * only through the admin command, and only when the gate is given its
 * DATABASE_URL; one that trusts X-Forwarded-For from the gate lets it trip the
 * failed-credential throttle for a made-up address rather than its own.
 *
 * Nothing the gate loads to check a deployment comes from server/
 * (gate/import-graph.test.ts): a bug there cannot hide itself from the gate.
 */
import { createHash } from 'node:crypto';
import type { components } from '../generated/workspace/types.js';
import { type OperationId, PERMISSIONS, type Permission } from '../lib/contract/operations.js';
import type { ScimOperationId } from '../lib/contract/scim-operations.js';
import { runScript } from '../lib/testing/run-script.js';
import { postJson } from './http.js';
import type { Credentials } from '../lib/contract/credentials.js';
import { ADMIN_COMMAND } from '../lib/testing/commands.js';

/** Creates what the public API cannot: keys and groups. */
export interface Provisioner {
  createKey(permissions: Permission[]): Promise<Credentials>;
  revokeKey(apiKey: string): Promise<void>;
  createGroup(name: string): Promise<Group>;
  deleteGroup(groupId: string): Promise<void>;
}

type Group = components['schemas']['Group'];

export type Fault = 'internal' | 'unavailable';

/** Where a fault is injected: a workspace operation, or a SCIM one (whose ids repeat some of the workspace's). */
export type FaultSite = OperationId | `SCIM ${ScimOperationId}`;

/** Makes the next call of one operation fail the way a broken database or a bug would, or wait. */
export interface FaultSwitch {
  arm(site: FaultSite, fault: Fault): void;
  /**
   * Holds the next call of one operation in its handler until released: a slow write, held
   * open. `arrived` resolves once the call is held.
   */
  hold(site: FaultSite): { arrived: Promise<void>; release: () => void };
}

export interface GateTarget {
  /** One line for the report: what was checked. */
  description: string;
  baseUrl: string;
  /** A key with every permission. */
  admin: Credentials;
  provisioner: Provisioner | undefined;
  faults: FaultSwitch | undefined;
  /** Whether the service believes X-Forwarded-For from the gate, so the throttle can be tripped for a made-up address. */
  trustsForwardedFor: boolean;
  /** The app's routing table as `method path`, when the gate runs the app itself. */
  routes?: () => string[];
  /** What is stored as far as the gate can see: equal snapshots mean nothing changed. */
  snapshot(): Promise<string>;
  /** The service's log, when the gate runs it (to show with a failure). */
  logs(): string;
  close(): Promise<void>;
}

/** A digest of what the gate could see: equal digests mean nothing changed. */
export const digest = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex');

export interface DeploymentOptions {
  baseUrl: string;
  admin: Credentials;
  /** The deployment's database, for the admin CLI; without it, what needs a new key or group is not checked. */
  databaseUrl?: string;
}

/** The admin CLI, run against the deployment's database. */
function adminCliProvisioner(databaseUrl: string): Provisioner {
  const admin = async (...args: string[]) => {
    const run = await runScript(ADMIN_COMMAND, args, { DATABASE_URL: databaseUrl });
    if (run.code !== 0) throw new Error(`npm run admin -- ${args[0]} failed: ${run.stderr.trim()}`);
    return JSON.parse(run.stdout);
  };
  return {
    async createKey(permissions) {
      const key = await admin(
        'create-key',
        '--name',
        'contract gate',
        '--permissions',
        permissions.length ? permissions.join(',') : 'none',
      );
      return { api_key: key.api_key, api_key_secret: key.api_key_secret };
    },
    // `--`: ids issued before keys stopped starting with `-` would read as options.
    revokeKey: async (apiKey) => void (await admin('revoke-key', '--', apiKey)),
    createGroup: (name) => admin('create-group', '--name', name),
    deleteGroup: async (groupId) => void (await admin('delete-group', groupId)),
  };
}

/** A running deployment: the gate sees only what the API shows. */
export async function connectDeployment({ baseUrl, admin, databaseUrl }: DeploymentOptions): Promise<GateTarget> {
  const url = baseUrl.replace(/\/+$/, '');
  const checked = await postJson(url, '/api/public/validate_credentials', admin);
  if (checked.status !== 200)
    throw new Error(`the key in WORKSPACE_API_KEY does not work at ${url}: ${checked.status} ${checked.text.slice(0, 200)}`);
  const missing = PERMISSIONS.filter((permission) => !(checked.body as { permissions: string[] }).permissions.includes(permission));
  if (missing.length > 0) throw new Error(`the key in WORKSPACE_API_KEY lacks ${missing.join(', ')}; the gate needs every permission`);

  const call = async (operation: string, fields: Record<string, unknown>) => {
    const answer = await postJson(url, `/api/public/${operation}`, { ...admin, ...fields });
    if (answer.status !== 200) throw new Error(`${operation} failed while taking a snapshot: ${answer.status}`);
    return answer.body as Record<string, any>;
  };
  return {
    description: `the deployment at ${url}${databaseUrl ? ', with its database for the admin CLI' : ''}`,
    baseUrl: url,
    admin,
    provisioner: databaseUrl ? adminCliProvisioner(databaseUrl) : undefined,
    faults: undefined,
    trustsForwardedFor: false,
    /**
     * What the deployment stored, in two answers whatever its size: its newest audit event
     * (every change it makes to users, groups, members, keys and webhooks is one, written in the
     * change's own transaction), and, apart from the trail, how many users it has. Listing every
     * user and group instead took the fuzz over 5 minutes on an empty deployment (its own users
     * and groups piling up until the end), and on one of 10,000 users it read 20 pages of users
     * after each of the fuzz's requests: 376 s for 10 runs of each operation, now 19 s.
     */
    async snapshot() {
      const [trail, { total }] = await Promise.all([call('get_audit_events', { page_size: 1 }), call('get_users', { page_size: 1 })]);
      return digest([(trail.events as { event_id: string }[])[0]?.event_id ?? null, total]);
    },
    logs: () => '',
    async close() {},
  };
}
