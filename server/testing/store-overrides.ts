/** A store with some methods replaced (to fail, say); the rest still run on the real store. */
import type { Store } from '../store/store.js';

export function withOverrides(store: Store, overrides: Partial<Store>): Store {
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property in overrides) return overrides[property as keyof Store];
      const value = Reflect.get(target, property, receiver);
      // Bound, for the store's private fields.
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
