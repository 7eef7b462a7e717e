/** The audit log: who changed what, newest first, filtered by user, key and time, paged by cursor; the filters are in the URL. */
import { useLocation } from 'preact-iso';
import { useEffect, useState } from 'preact/hooks';
import type { components } from 'workspace-user-api/client';
import { api, sentenceOf } from '../api.js';
import { textOf } from '../form.js';
import { useMessages } from '../messages.js';
import { useTitle } from '../title.js';
import { useCan } from '../session.js';
import { RecordTable } from '../record-table.js';

type AuditEvent = components['schemas']['AuditEvent'];
type AuditOperation = components['schemas']['AuditOperation'];

/** Every kind of change, for the filter; the compiler refuses a list that misses one of the contract's. */
const OPERATIONS = [
  'createUser',
  'updateUser',
  'deleteUser',
  'addUserGroup',
  'removeUserGroup',
  'updateUserAttributes',
  'logoutUser',
  'createGroup',
  'updateGroup',
  'deleteGroup',
  'createApiKey',
  'updateApiKey',
  'revokeApiKey',
  'createWebhook',
  'updateWebhook',
  'disableWebhook',
  'deleteWebhook',
] as const satisfies readonly AuditOperation[];
const everyOperation: Exclude<AuditOperation, (typeof OPERATIONS)[number]> extends never ? true : never = true;
void everyOperation;
const isOperation = (value: string | undefined): value is AuditOperation => OPERATIONS.some((operation) => operation === value);

const FILTERS = [
  ['target_user_id', 'User id', 'text'],
  ['actor', 'Key', 'text'],
  ['since', 'From', 'date'],
  ['until', 'Until', 'date'],
] as const;

const asTime = (day: string | undefined) => (day ? new Date(`${day}T00:00:00Z`).toISOString() : undefined);

export function AuditLog() {
  useTitle('Audit log');
  const { query, route } = useLocation();
  const messages = useMessages();
  const can = useCan();
  const [page, setPage] = useState<{ events: AuditEvent[]; next: string | null } | undefined>(undefined);

  useEffect(() => {
    if (!can('audit_view')) return;
    let current = true;
    const since = asTime(query.since);
    const until = asTime(query.until);
    void api
      .getAuditEvents({
        page_size: 50,
        ...(query.target_user_id ? { target_user_id: query.target_user_id } : {}),
        ...(query.actor ? { actor: query.actor } : {}),
        ...(isOperation(query.operation) ? { operation: query.operation } : {}),
        ...(since ? { since } : {}),
        ...(until ? { until } : {}),
        ...(query.cursor ? { cursor: query.cursor } : {}),
      })
      .then(({ data, error }) => {
        if (!current) return;
        if (error) return void messages.alert(sentenceOf(error));
        setPage({ events: data.events, next: data.next_cursor ?? null });
      });
    return () => {
      current = false;
    };
  }, [query.target_user_id, query.actor, query.operation, query.since, query.until, query.cursor]);

  const urlOf = (fields: Record<string, string | undefined>) => {
    const shown = Object.entries(fields).filter((entry): entry is [string, string] => Boolean(entry[1]));
    return `/console/audit${shown.length ? `?${new URLSearchParams(shown).toString()}` : ''}`;
  };
  const filters = { ...Object.fromEntries(FILTERS.map(([name]) => [name, query[name]])), operation: query.operation };

  if (!can('audit_view')) {
    return (
      <section aria-labelledby="audit-heading">
        <h1 id="audit-heading">Audit log</h1>
        <p>Your key cannot read the audit log: it lacks the audit_view permission.</p>
      </section>
    );
  }
  return (
    <section aria-labelledby="audit-heading">
      <h1 id="audit-heading">Audit log</h1>
      <form
        class="inline"
        onSubmit={(event) => {
          event.preventDefault();
          const fields = new FormData(event.currentTarget);
          route(
            urlOf({
              ...Object.fromEntries(FILTERS.map(([name]) => [name, textOf(fields, name).trim() || undefined])),
              operation: textOf(fields, 'operation') || undefined,
            }),
          );
        }}
      >
        {FILTERS.map(([name, label, type]) => (
          <label key={name}>
            {label}
            <input name={name} type={type} value={query[name] ?? ''} />
          </label>
        ))}
        <label>
          Change
          <select name="operation" value={query.operation ?? ''}>
            <option value="">Every change</option>
            {OPERATIONS.map((operation) => (
              <option key={operation} value={operation}>
                {operation}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">Filter</button>
      </form>
      {page === undefined ? (
        <p>Loading the audit log…</p>
      ) : (
        <>
          <RecordTable caption="Audit events, newest first" columns={['When', 'Change', 'Key', 'Of', 'Fields']}>
            {page.events.map((event) => (
              <tr key={event.event_id}>
                <td>{new Date(event.time).toLocaleString()}</td>
                <td>{event.operation}</td>
                <td>{event.actor}</td>
                <td>
                  {event.target_user_id ? (
                    <a href={`/console/users/${event.target_user_id}`}>user {event.target_user_id.slice(0, 8)}</a>
                  ) : (
                    (event.target_group_id ?? event.target_api_key ?? event.target_webhook_id ?? '')
                  )}
                </td>
                <td>{event.changed_fields.join(', ')}</td>
              </tr>
            ))}
          </RecordTable>
          <nav aria-label="Pages of the audit log" class="pages">
            {query.cursor && <a href={urlOf(filters)}>Newest</a>}
            {page.next && <a href={urlOf({ ...filters, cursor: page.next })}>Older events</a>}
          </nav>
        </>
      )}
    </section>
  );
}
