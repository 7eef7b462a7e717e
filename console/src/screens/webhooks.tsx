/**
 * Webhooks: change events POSTed to a receiver (docs/events.md). Listed with their
 * state, added (the signing secret shown once), disabled and enabled, pinged, their
 * secret rotated, their deliveries read and delivered again, and deleted.
 */
import { useEffect, useState } from 'preact/hooks';
import type { components } from 'workspace-user-api/client';
import { api, sentenceOf } from '../api.js';
import { textOf } from '../form.js';
import { lengthsOf, LIMITS } from '../limits.js';
import { useMessages } from '../messages.js';
import { useCan } from '../session.js';
import { useTitle } from '../title.js';
import { RecordTable } from '../record-table.js';

type Webhook = components['schemas']['Webhook'];
type Delivery = components['schemas']['WebhookDelivery'];
type EventTypeFilter = components['schemas']['EventTypeFilter'];

/** What a webhook may take, by resource: every event of users, groups, keys or webhooks. */
const RESOURCES = [
  ['user.*', 'Users'],
  ['group.*', 'Groups'],
  ['api_key.*', 'API keys'],
  ['webhook.*', 'Webhooks'],
] as const satisfies readonly (readonly [EventTypeFilter, string])[];

function Deliveries({ webhook }: { webhook: Webhook }) {
  const messages = useMessages();
  const [deliveries, setDeliveries] = useState<Delivery[] | undefined>(undefined);
  const load = async () => {
    const { data, error } = await api.getWebhookDeliveries({ target_webhook: { webhook_id: webhook.webhook_id }, limit: 20 });
    if (error) return void messages.alert(sentenceOf(error));
    setDeliveries(data.deliveries);
  };
  useEffect(() => void load(), [webhook.webhook_id]);
  const again = async (eventId: string) => {
    const { data, error } = await api.redeliverWebhook({ target_webhook: { webhook_id: webhook.webhook_id }, event_id: eventId });
    if (error) return void messages.alert(sentenceOf(error));
    messages.status(`${data.queued} event queued to be delivered again.`);
    await load();
  };
  if (!deliveries) return <p>Loading the deliveries…</p>;
  if (deliveries.length === 0) return <p>No delivery attempted yet.</p>;
  return (
    <RecordTable
      caption={<>Latest deliveries to {webhook.url}</>}
      captionShown
      columns={['When', 'Event', 'Attempt', 'Answer', 'Next attempt']}
      actions
    >
      {deliveries.map((delivery) => (
        <tr key={`${delivery.event_id} ${delivery.attempt}`}>
          <td>{new Date(delivery.attempted_at).toLocaleString()}</td>
          <td>{delivery.event_type}</td>
          <td>{delivery.attempt}</td>
          <td>{delivery.status ?? delivery.error ?? ''}</td>
          <td>{delivery.next_attempt_at ? new Date(delivery.next_attempt_at).toLocaleString() : ''}</td>
          <td>
            <button type="button" class="quiet" onClick={() => void again(delivery.event_id)}>
              Deliver again
            </button>
          </td>
        </tr>
      ))}
    </RecordTable>
  );
}

export function Webhooks() {
  useTitle('Webhooks');
  const messages = useMessages();
  const can = useCan();
  const [webhooks, setWebhooks] = useState<Webhook[] | undefined>(undefined);
  const [secret, setSecret] = useState<{ url: string; secret: string } | undefined>(undefined);
  const [open, setOpen] = useState<string | undefined>(undefined);
  const load = async () => {
    const { data, error } = await api.getWebhooks({});
    if (error) return void messages.alert(sentenceOf(error));
    setWebhooks(data.webhooks);
  };
  useEffect(() => void (can('webhooks_manage') ? load() : undefined), []);

  const add = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const fields = new FormData(form);
    const types = fields.getAll('event_types').filter((type): type is EventTypeFilter => RESOURCES.some(([value]) => value === type));
    const { data, error } = await api.createWebhook({
      target_webhook: {
        url: textOf(fields, 'url'),
        ...(types.length > 0 ? { event_types: types } : {}),
        description: textOf(fields, 'description'),
        exclude_own_changes: fields.get('exclude_own_changes') === 'on',
      },
    });
    if (error) return void messages.alert(sentenceOf(error));
    form.reset();
    setSecret({ url: data.webhook.url, secret: data.secret });
    messages.status(`Webhook to ${data.webhook.url} added. Give its signing secret to the receiver now: it is shown only once.`);
    await load();
  };
  const act = async (webhook: Webhook, action: 'enable' | 'disable' | 'rotate' | 'ping' | 'delete') => {
    const target_webhook = { webhook_id: webhook.webhook_id };
    if (action === 'delete') {
      if (!globalThis.confirm(`Delete the webhook to ${webhook.url}? Nothing more is sent to it.`)) return;
      const { error } = await api.deleteWebhook({ target_webhook });
      if (error) return void messages.alert(sentenceOf(error));
      messages.status(`Webhook to ${webhook.url} deleted.`);
    } else if (action === 'rotate') {
      const { data, error } = await api.rotateWebhookSecret({ target_webhook });
      if (error) return void messages.alert(sentenceOf(error));
      setSecret({ url: webhook.url, secret: data.secret });
      messages.status('New signing secret made; the old one signs beside it for 24 hours.');
    } else if (action === 'ping') {
      const { error } = await api.pingWebhook({ target_webhook });
      if (error) return void messages.alert(sentenceOf(error));
      messages.status(`A ping is on its way to ${webhook.url}.`);
    } else {
      const { error } = await api.updateWebhook({ target_webhook: { ...target_webhook, enabled: action === 'enable' } });
      if (error) return void messages.alert(sentenceOf(error));
      messages.status(`Webhook to ${webhook.url} ${action === 'enable' ? 'enabled' : 'disabled'}.`);
    }
    await load();
  };

  const opened = webhooks?.find((webhook) => webhook.webhook_id === open);
  if (!can('webhooks_manage')) {
    return (
      <section aria-labelledby="webhooks-heading">
        <h1 id="webhooks-heading">Webhooks</h1>
        <p>Your key cannot manage webhooks: it lacks the webhooks_manage permission.</p>
      </section>
    );
  }
  return (
    <section aria-labelledby="webhooks-heading">
      <h1 id="webhooks-heading">Webhooks</h1>
      {secret && (
        <div class="secret" role="region" aria-label="Webhook's signing secret">
          <p>The signing secret of the webhook to {secret.url}, shown only now:</p>
          <code>{secret.secret}</code>{' '}
          <button type="button" class="quiet" onClick={() => setSecret(undefined)}>
            Done
          </button>
        </div>
      )}
      <form onSubmit={(event) => void add(event)} class="fields">
        <fieldset>
          <legend>New webhook</legend>
          <label>
            Receiver URL
            <input name="url" type="url" required {...lengthsOf(LIMITS.webhookUrl)} placeholder="https://hooks.example.com/workspace" />
          </label>
          <fieldset class="permissions">
            <legend>Events (none checked: every event)</legend>
            {RESOURCES.map(([value, label]) => (
              <label class="check" key={value}>
                <input type="checkbox" name="event_types" value={value} />
                {label}
              </label>
            ))}
          </fieldset>
          <label>
            Description
            <input name="description" {...lengthsOf(LIMITS.webhookDescription)} />
          </label>
          <label class="check">
            <input type="checkbox" name="exclude_own_changes" />
            Leave out the changes of this key
          </label>
        </fieldset>
        <button type="submit">Add webhook</button>
      </form>
      {webhooks === undefined ? (
        <p>Loading webhooks…</p>
      ) : (
        <RecordTable caption="Webhooks" columns={['Receiver', 'Events', 'State']} actions>
          {webhooks.map((webhook) => (
            <tr key={webhook.webhook_id}>
              <td>
                {webhook.url}
                {webhook.description && <div class="help">{webhook.description}</div>}
              </td>
              <td>{webhook.event_types?.join(', ') ?? 'every event'}</td>
              <td>{webhook.enabled ? 'Enabled' : `Disabled${webhook.disabled_reason ? `: ${webhook.disabled_reason}` : ''}`}</td>
              <td class="actions">
                <button type="button" class="quiet" onClick={() => setOpen(open === webhook.webhook_id ? undefined : webhook.webhook_id)}>
                  Deliveries to {webhook.url}
                </button>
                <button type="button" class="quiet" onClick={() => void act(webhook, webhook.enabled ? 'disable' : 'enable')}>
                  {webhook.enabled ? 'Disable' : 'Enable'} {webhook.url}
                </button>
                <button type="button" class="quiet" onClick={() => void act(webhook, 'ping')}>
                  Ping {webhook.url}
                </button>
                <button type="button" class="quiet" onClick={() => void act(webhook, 'rotate')}>
                  Rotate the secret of {webhook.url}
                </button>
                <button type="button" class="quiet" onClick={() => void act(webhook, 'delete')}>
                  Delete {webhook.url}
                </button>
              </td>
            </tr>
          ))}
        </RecordTable>
      )}
      {opened && <Deliveries webhook={opened} />}
    </section>
  );
}
