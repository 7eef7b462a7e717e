/** A store with some methods replaced (to fail, say); the rest still run on the real store. */
import type {
  ApiKeyRepository,
  AttributesRepository,
  ConsoleSessionRepository,
  AuditRepository,
  GroupRepository,
  IdempotencyRepository,
  Store,
  UserRepository,
  WebhookRepository,
} from '../store/repositories.js';

export interface StoreOverrides {
  users?: Partial<UserRepository>;
  groups?: Partial<GroupRepository>;
  attributes?: Partial<AttributesRepository>;
  apiKeys?: Partial<ApiKeyRepository>;
  consoleSessions?: Partial<ConsoleSessionRepository>;
  audit?: Partial<AuditRepository>;
  webhooks?: Partial<WebhookRepository>;
  idempotency?: Partial<IdempotencyRepository>;
  unreadyBecause?: Store['unreadyBecause'];
}

/** `repository` with `overrides` in place of some of its methods. */
function overridden<R extends object>(repository: R, overrides: Partial<R> = {}): R {
  return new Proxy(repository, {
    get(target, property) {
      if (property in overrides) return overrides[property as keyof R];
      const value = Reflect.get(target, property, target);
      // Bound, for the repository's private fields.
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

export function withOverrides(store: Store, overrides: StoreOverrides): Store {
  return {
    users: overridden(store.users, overrides.users),
    groups: overridden(store.groups, overrides.groups),
    attributes: overridden(store.attributes, overrides.attributes),
    apiKeys: overridden(store.apiKeys, overrides.apiKeys),
    consoleSessions: overridden(store.consoleSessions, overrides.consoleSessions),
    audit: overridden(store.audit, overrides.audit),
    webhooks: overridden(store.webhooks, overrides.webhooks),
    idempotency: overridden(store.idempotency, overrides.idempotency),
    unreadyBecause: overrides.unreadyBecause ?? ((withinMs) => store.unreadyBecause(withinMs)),
    stats: () => store.stats(),
    close: () => store.close(),
  };
}
