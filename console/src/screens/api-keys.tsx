/**
 * API keys: listed with when each was last used, made with chosen permissions
 * (the secret shown once, with a copy button), revoked after a confirmation,
 * which says so when the key is the one the console is signed in with.
 */
import { useEffect, useState } from 'preact/hooks';
import type { components } from 'workspace-user-api/client';
import { api, sentenceOf } from '../api.js';
import { textOf } from '../form.js';
import { lengthsOf, LIMITS } from '../limits.js';
import { useMessages } from '../messages.js';
import { useTitle } from '../title.js';
import { type Permission, useCan, useSession } from '../session.js';
import { RecordTable } from '../record-table.js';

type ApiKey = components['schemas']['ApiKeyDetails'];

const when = (time: string | null, none: string) => (time ? new Date(time).toLocaleString() : none);

export function ApiKeys() {
  useTitle('API keys');
  const messages = useMessages();
  const can = useCan();
  const session = useSession();
  const [keys, setKeys] = useState<ApiKey[] | undefined>(undefined);
  const [issued, setIssued] = useState<{ name: string; apiKey: string; secret: string } | undefined>(undefined);
  const load = async () => {
    const { data, error } = await api.getApiKeys({});
    if (error) return void messages.alert(sentenceOf(error));
    setKeys(data.api_keys);
  };
  useEffect(() => void (can('keys_manage') ? load() : undefined), []);

  const create = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const fields = new FormData(form);
    const expiry = textOf(fields, 'expires');
    const { data, error } = await api.createApiKey({
      target_api_key: {
        name: textOf(fields, 'name'),
        permissions: fields.getAll('permissions').map(String) as Permission[],
        ...(expiry ? { expires: new Date(`${expiry}T23:59:59Z`).toISOString() } : {}),
      },
    });
    if (error) return void messages.alert(sentenceOf(error));
    form.reset();
    setIssued({ name: data.api_key.name, apiKey: data.api_key.api_key, secret: data.secret });
    messages.status(`Key ${data.api_key.name} created. Copy its secret now: it is shown only once.`);
    await load();
  };
  const revoke = async (key: ApiKey) => {
    const own = key.api_key === session.key.api_key;
    const question = own
      ? `Revoke ${key.name}? It is the key you are signed in with: the console will sign you out.`
      : `Revoke ${key.name}? Everything using it stops working at once.`;
    if (!globalThis.confirm(question)) return;
    const { error } = await api.revokeApiKey({ target_api_key: { api_key: key.api_key } });
    if (error) return void messages.alert(sentenceOf(error));
    messages.status(`Key ${key.name} revoked.`);
    await load();
  };

  if (!can('keys_manage')) {
    return (
      <section aria-labelledby="keys-heading">
        <h1 id="keys-heading">API keys</h1>
        <p>Your key cannot manage keys: it lacks the keys_manage permission.</p>
      </section>
    );
  }
  return (
    <section aria-labelledby="keys-heading">
      <h1 id="keys-heading">API keys</h1>
      {issued && (
        <div class="secret" role="region" aria-label="New key's secret">
          <p>
            The secret of <strong>{issued.name}</strong> ({issued.apiKey}), shown only now:
          </p>
          <code>{issued.secret}</code>{' '}
          <button
            type="button"
            onClick={() =>
              void globalThis.navigator.clipboard.writeText(issued.secret).then(
                () => messages.status('Secret copied.'),
                () => messages.alert('The browser did not let the page copy: select the secret and copy it.'),
              )
            }
          >
            Copy secret
          </button>{' '}
          <button type="button" class="quiet" onClick={() => setIssued(undefined)}>
            Done
          </button>
        </div>
      )}
      <form onSubmit={(event) => void create(event)} class="fields">
        <fieldset>
          <legend>New key</legend>
          <label>
            Key name
            <input name="name" required {...lengthsOf(LIMITS.apiKeyName)} />
          </label>
          <fieldset class="permissions">
            <legend>Permissions (only those your key holds)</legend>
            {session.key.permissions.map((permission) => (
              <label class="check" key={permission}>
                <input type="checkbox" name="permissions" value={permission} />
                {permission}
              </label>
            ))}
          </fieldset>
          <label>
            Expires on
            <input name="expires" type="date" required={session.key.expires !== null} />
          </label>
        </fieldset>
        <button type="submit">Create key</button>
      </form>
      {keys === undefined ? (
        <p>Loading keys…</p>
      ) : (
        <RecordTable caption="Active API keys" columns={['Name', 'Key', 'Permissions', 'Expires', 'Last used']} actions>
          {keys.map((key) => (
            <tr key={key.api_key}>
              <td>
                {key.name}
                {key.api_key === session.key.api_key ? ' (this session)' : ''}
              </td>
              <td>
                <code>{key.api_key}</code>
              </td>
              <td>{key.permissions.join(', ') || 'none'}</td>
              <td>{when(key.expires, 'Never')}</td>
              <td>{when(key.last_used, 'Never')}</td>
              <td>
                <button type="button" class="quiet" onClick={() => void revoke(key)}>
                  Revoke {key.name}
                </button>
              </td>
            </tr>
          ))}
        </RecordTable>
      )}
    </section>
  );
}
