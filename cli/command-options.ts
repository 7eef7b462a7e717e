/** The option values and parsers the CLI's commands share. */
import { InvalidArgumentError } from 'commander';
import type { components } from 'workspace-user-api/client';

export type SortableField = NonNullable<components['schemas']['GetUsersRequest']['sort_by']>;

/**
 * The fields get_users sorts by. The CLI ships without the contract, so the
 * list is written here; `satisfies` holds it to the contract's enum both ways
 * (a field missing or extra fails the build).
 */
export const SORTABLE_FIELDS = Object.keys({
  username: true,
  created: true,
  first_name: true,
  last_name: true,
} satisfies Record<SortableField, true>) as SortableField[];

export const NO_KEY =
  'no API key: give --api-key and --api-key-secret, or set WORKSPACE_API_KEY and WORKSPACE_API_KEY_SECRET ' +
  '(on a terminal, `workspace-users auth` asks for them)';

export function wholeNumberFrom(least: number): (value: string) => number {
  return (value) => {
    const number = Number(value);
    if (!Number.isInteger(number) || number < least) throw new InvalidArgumentError(`expected a whole number of at least ${least}`);
    return number;
  };
}
export const positiveInteger = wholeNumberFrom(1);

/** The user named by a --user option: a user_id as it is (a deleted user's events stay), a username looked up. */
export const USER_ID = /^[0-9a-f]{32}$/;

/** The profile's text fields that create and update take, as the options gave them. */
export function profileFields(options: Record<string, string | boolean | undefined>) {
  return {
    ...(options.firstName !== undefined ? { first_name: String(options.firstName) } : {}),
    ...(options.lastName !== undefined ? { last_name: String(options.lastName) } : {}),
    ...(options.phone !== undefined ? { phone: String(options.phone) } : {}),
    ...(options.organization !== undefined ? { organization: String(options.organization) } : {}),
  };
}
