/**
 * What the gate's requests need to exist (users, a group, a key without
 * permissions, a tripped throttle, an armed fault), created on demand through
 * the API or the target's provisioner, and removed again by cleanup().
 */
import { randomBytes } from 'node:crypto';
import type { components } from '../generated/workspace/types.js';
import { type Answer, postJson, type RawRequest, send } from './http.js';
import { type Credentials, scimToken } from '../lib/contract/credentials.js';
import type { Fault, FaultSite, GateTarget } from './target.js';

type Group = components['schemas']['Group'];
type User = components['schemas']['User'];

/** Thrown when the target cannot be brought to give a status (e.g. a 500 from a deployment). */
export class NotAvailable extends Error {}

export const randomHex = (bytes: number) => randomBytes(bytes).toString('hex');

/**
 * A client address no one else has: from the IPv6 documentation prefix (RFC 3849),
 * never a real client's, and a new one every time, so that a throttle tripped for one
 * check never answers another's request.
 */
let addresses = 0;
// Each in a /64 of its own: the throttle counts an IPv6 client by its /64.
const madeUpAddress = () => {
  const n = ++addresses;
  return `2001:db8:${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}::1`;
};

export class Fixtures {
  readonly #target: GateTarget;
  readonly #run = randomHex(4);
  readonly #groups = new Set<string>();
  #names = 0;
  readonly #users = new Set<string>();
  readonly #keys = new Set<string>();
  #adminExpiry: Promise<string | null> | undefined;
  #group: Group | undefined;
  #ownsGroup = false;
  #limitedKey: Credentials | undefined;
  /** Requests held open in their handlers (sendHeld), released by settle(). */
  readonly #held: { release: () => void; answer: Promise<Answer> }[] = [];

  constructor(target: GateTarget) {
    this.#target = target;
  }

  get admin(): Credentials {
    return this.#target.admin;
  }

  /** The API reference page's entity tag, as the service gives it plain (each coding has a tag of its own). */
  async pageTag(): Promise<string> {
    const answer = await fetch(`${this.#target.baseUrl}/docs`, { headers: { 'Accept-Encoding': 'identity' } });
    await answer.arrayBuffer();
    const tag = answer.headers.get('etag');
    if (!tag) throw new Error('fixture: /docs answered without an ETag');
    return tag;
  }

  /** A username no one has. */
  username(): string {
    return `gate-${this.#run}-${++this.#names}@example.test`;
  }

  /** Calls an operation with the admin key; the fixture must come out, or the gate cannot go on. */
  async call(operation: string, fields: Record<string, unknown>): Promise<any> {
    const answer = await postJson(this.#target.baseUrl, `/api/public/${operation}`, { ...this.admin, ...fields });
    if (answer.status !== 200) throw new Error(`fixture ${operation} failed: ${answer.status} ${answer.text.slice(0, 300)}`);
    return answer.body;
  }

  /** Sends a request as it is, to the target. */
  request(raw: RawRequest): Promise<Answer> {
    return send(this.#target.baseUrl, raw);
  }

  /** A new Idempotency-Key, the run's own. */
  idempotencyKey(): string {
    return `contract-gate-${this.#run}-${randomHex(8)}`;
  }

  /**
   * Sends `raw` and holds it in the handler of `site` (a slow write, held open), resolving
   * once it is held; settle() lets it finish. Only the gate's self-check can hold a request.
   */
  async sendHeld(site: FaultSite, raw: RawRequest): Promise<void> {
    if (!this.#target.faults)
      throw new NotAvailable("a request held open (409 idempotency_key_in_use) needs the gate's self-check (the app in process)");
    const { arrived, release } = this.#target.faults.hold(site);
    this.#held.push({ release, answer: this.request(raw) });
    await arrived;
  }

  /** Lets every held request finish, and waits for their answers. */
  async settle(): Promise<void> {
    for (const held of this.#held.splice(0)) {
      held.release();
      await held.answer;
    }
  }

  /** SCIM's Authorization header for a key: the admin's unless another is given. */
  scimAuthorization(credentials: Credentials = this.admin): Record<string, string> {
    return { Authorization: `Bearer ${scimToken(credentials)}` };
  }

  /** Where the gate's webhooks point: a public address (the only kind a webhook may have) that nothing of the gate's ever delivers to. */
  static readonly WEBHOOK_URL = 'https://93.184.216.34/contract-gate';

  /** A description that marks a webhook as this run's, for cleanup. */
  webhookDescription(): string {
    return `contract-gate-${this.#run}-${++this.#names}`;
  }

  /** A webhook of the gate's own, disabled (nothing is delivered to it), deleted at the end. */
  async webhook(): Promise<{ webhook_id: string }> {
    const { webhook } = await this.call('create_webhook', {
      target_webhook: { url: Fixtures.WEBHOOK_URL, event_types: ['api_key.revoked'], description: this.webhookDescription() },
    });
    await this.call('update_webhook', { target_webhook: { webhook_id: webhook.webhook_id, enabled: false } });
    return webhook;
  }

  /** A console session of the admin key, new each time: its cookie (as a browser sends it back) and its CSRF token. */
  async consoleSession(): Promise<{ cookie: string; csrf: string }> {
    const answer = await postJson(this.#target.baseUrl, '/api/public/sign_in', this.admin);
    const cookie = answer.headers.get('set-cookie')?.split(';')[0];
    if (answer.status !== 200 || !cookie) throw new Error(`fixture sign_in failed: ${answer.status} ${answer.text.slice(0, 300)}`);
    return { cookie, csrf: (answer.body as { csrf_token: string }).csrf_token };
  }

  /**
   * Headers whose requests to `path`, sent with no credentials at all, the service now answers
   * with 429: a made-up client that has failed past the throttle's limit without a key id.
   */
  async throttledWithoutCredentials(path: string): Promise<Record<string, string>> {
    const headers = this.failureClient();
    for (let attempt = 0; attempt < 1_000; attempt++) {
      const answer = await postJson(this.#target.baseUrl, path, {}, headers);
      if (answer.status === 429) return headers;
      if (answer.status !== 401) throw new Error(`tripping the throttle: expected 401 or 429, got ${answer.status}`);
    }
    throw new NotAvailable('the throttle did not answer 429 after 1000 failed credential checks (AUTH_FAILURE_LIMIT is higher)');
  }

  /** A key name marked as this run's, for cleanup. */
  keyName(): string {
    return `contract-gate-${this.#run}-${++this.#names}`;
  }

  /**
   * An expiry the admin key may grant: a day from now, or the admin key's own if sooner
   * (a key grants no expiry later than its own).
   */
  async grantableExpiry(): Promise<string> {
    this.#adminExpiry ??= this.call('validate_credentials', {}).then((key: { expires: string | null }) => key.expires);
    const own = await this.#adminExpiry;
    const day = new Date(Date.now() + 86_400_000).toISOString();
    return own !== null && own < day ? own : day;
  }

  /** A key of the gate's own, with no permission, revoked at the end if nothing revoked it before. */
  async throwawayKey(): Promise<{ api_key: string }> {
    const { api_key } = await this.call('create_api_key', {
      target_api_key: { name: this.keyName(), expires: await this.grantableExpiry() },
    });
    this.trackKey(api_key.api_key);
    return api_key;
  }

  /** Remembers a key the gate's own requests created, to revoke it at the end. */
  trackKey(apiKey: string): void {
    this.#keys.add(apiKey);
  }

  /** Remembers a user the gate's own requests created, to delete it at the end. */
  track(userId: string): void {
    this.#users.add(userId);
  }

  /** Remembers a group the gate's own requests created, to delete it at the end. */
  trackGroup(groupId: string): void {
    this.#groups.add(groupId);
  }

  async user(): Promise<User> {
    const { user } = await this.call('create_user', {
      target_user: { username: this.username(), first_name: 'Gate', last_name: 'Fixture' },
    });
    this.track(user.user_id);
    return user;
  }

  async systemGroup(): Promise<Group> {
    const { groups } = await this.call('get_groups', {});
    return (groups as Group[]).find((group) => group.is_system)!;
  }

  /** A group users can join and leave: the gate's own, or else any the deployment has. */
  async group(): Promise<Group> {
    if (this.#group) return this.#group;
    if (this.#target.provisioner) {
      this.#group = await this.#target.provisioner.createGroup(`contract-gate-${this.#run}`);
      this.#ownsGroup = true;
      return this.#group;
    }
    const { groups } = await this.call('get_groups', {});
    this.#group = (groups as Group[]).find((group) => !group.is_system);
    if (!this.#group)
      throw new NotAvailable('the deployment has no group besides "All Users", and without its DATABASE_URL the gate cannot create one');
    return this.#group;
  }

  /** A group made through the API's create_group, named for this run so that cleanup finds it. */
  async apiGroup(): Promise<Group> {
    const { group } = await this.call('create_group', { target_group: { name: this.groupName() } });
    this.trackGroup((group as Group).group_id);
    return group as Group;
  }

  /** A group name no group has yet, marked as this run's. */
  groupName(): string {
    return `contract-gate-${this.#run}-${randomHex(4)}`;
  }

  async member(): Promise<{ user: User; group: Group }> {
    const [user, group] = await Promise.all([this.user(), this.group()]);
    await this.call('add_user_group', { target_user: { user_id: user.user_id }, target_group: { group_id: group.group_id } });
    return { user, group };
  }

  /** A valid key with no permissions (it can only check itself). */
  async limitedKey(): Promise<Credentials> {
    if (this.#limitedKey) return this.#limitedKey;
    if (!this.#target.provisioner)
      throw new NotAvailable("a key without permissions needs the admin CLI: give the deployment's DATABASE_URL");
    this.#limitedKey = await this.#target.provisioner.createKey([]);
    return this.#limitedKey;
  }

  /**
   * Credentials no key has: a made-up key id, new every time, with a made-up
   * secret. The service counts failures per client and key id, so failing with
   * these spends no real key's budget, and is answered 401 every time.
   */
  wrongCredentials(): Credentials {
    return { api_key: `gate-${randomHex(8)}`, api_key_secret: `wrong-${randomHex(8)}` };
  }

  /**
   * Credentials (and headers) whose failures the service now answers with
   * 429: a made-up key id that has failed past the throttle's limit. It locks
   * no one out: valid credentials are never throttled, and no key has this id.
   */
  async throttledClient(): Promise<{ credentials: Credentials; headers: Record<string, string> }> {
    const headers = this.failureClient();
    const credentials = this.wrongCredentials();
    for (let attempt = 0; attempt < 1_000; attempt++) {
      const answer = await postJson(this.#target.baseUrl, '/api/public/validate_credentials', credentials, headers);
      if (answer.status === 429) return { credentials, headers };
      if (answer.status !== 401) throw new Error(`tripping the throttle: expected 401 or 429, got ${answer.status}`);
    }
    throw new NotAvailable('the throttle did not answer 429 after 1000 failed credential checks (AUTH_FAILURE_LIMIT is higher)');
  }

  /** Headers for a failed credential check that spends a made-up client's budget, not the gate's. */
  failureClient(): Record<string, string> {
    return this.#target.trustsForwardedFor ? { 'X-Forwarded-For': madeUpAddress() } : {};
  }

  arm(site: FaultSite, fault: Fault): void {
    if (!this.#target.faults)
      throw new NotAvailable(
        `a ${fault === 'internal' ? '500' : '503'} needs an injected fault, which only the gate's self-check (the app in process) takes`,
      );
    this.#target.faults.arm(site, fault);
  }

  /** Deletes the users, the group and the key the gate created. */
  async cleanup(): Promise<void> {
    for (const user_id of this.#users) {
      await postJson(this.#target.baseUrl, '/api/public/delete_user', { ...this.admin, target_user: { user_id } });
    }
    this.#users.clear();
    // Groups this run's requests created through create_group: those it was told of, and
    // those Dredd's requests made (whose answers it never sees), found by their names.
    const { groups } = await this.call('get_groups', {});
    for (const group of groups as Group[]) {
      if (group.name.startsWith(`contract-gate-${this.#run}-`)) this.#groups.add(group.group_id);
    }
    for (const group_id of this.#groups) {
      await postJson(this.#target.baseUrl, '/api/public/delete_group', { ...this.admin, target_group: { group_id } });
    }
    this.#groups.clear();
    // Webhooks this run made, its own, Dredd's and the fuzz's: every one at the gate's address.
    const { webhooks } = await this.call('get_webhooks', {});
    for (const webhook of webhooks as { webhook_id: string; url: string }[]) {
      if (webhook.url === Fixtures.WEBHOOK_URL) {
        await postJson(this.#target.baseUrl, '/api/public/delete_webhook', {
          ...this.admin,
          target_webhook: { webhook_id: webhook.webhook_id },
        });
      }
    }
    // Keys this run made: those it was told of, and those Dredd's requests made, by their names.
    const { api_keys } = await this.call('get_api_keys', {});
    for (const key of api_keys as { api_key: string; name: string }[]) {
      if (key.name.startsWith(`contract-gate-${this.#run}-`)) this.#keys.add(key.api_key);
    }
    this.#keys.delete(this.admin.api_key);
    for (const api_key of this.#keys) {
      await postJson(this.#target.baseUrl, '/api/public/revoke_api_key', { ...this.admin, target_api_key: { api_key } });
    }
    this.#keys.clear();
    if (this.#ownsGroup && this.#group) await this.#target.provisioner!.deleteGroup(this.#group.group_id);
    if (this.#limitedKey) await this.#target.provisioner!.revokeKey(this.#limitedKey.api_key);
    this.#group = undefined;
    this.#limitedKey = undefined;
  }
}
