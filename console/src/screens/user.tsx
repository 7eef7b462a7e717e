/**
 * A user, or a new one: every field of the specification, locked and disabled,
 * the groups, and the user's audit history. A change is saved only if nobody
 * changed the user since the page read it (If-Match): otherwise the page says so
 * and offers to reload, never overwriting silently.
 */
import { useLocation, useRoute } from 'preact-iso';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { components, Group, User } from 'workspace-user-api/client';
import { COMPOSITION, contextRules, ruleStates } from '../../../lib/password-rules.js';
import { api, sentenceOf } from '../api.js';
import { lengthsOf, LIMITS } from '../limits.js';
import { useMessages } from '../messages.js';
import { useTitle } from '../title.js';
import { useCan } from '../session.js';
import { RecordTable } from '../record-table.js';

type AuditEvent = components['schemas']['AuditEvent'];

/** The fields a person edits, as the form holds them. */
interface Draft {
  username: string;
  first_name: string;
  last_name: string;
  organization: string;
  phone: string;
  password: string;
  locked: boolean;
  disabled: boolean;
}

const EMPTY: Draft = {
  username: '',
  first_name: '',
  last_name: '',
  organization: '',
  phone: '',
  password: '',
  locked: false,
  disabled: false,
};

const draftOf = (user: User): Draft => ({
  username: user.username,
  first_name: user.first_name,
  last_name: user.last_name,
  organization: user.organization,
  phone: user.phone,
  password: '',
  locked: user.locked,
  disabled: user.disabled,
});

const TEXT_FIELDS = [
  ['username', 'Username', 'username', LIMITS.username],
  ['first_name', 'First name', 'given-name', LIMITS.profileText],
  ['last_name', 'Last name', 'family-name', LIMITS.profileText],
  ['organization', 'Organization', 'organization', LIMITS.profileText],
  ['phone', 'Phone', 'tel', LIMITS.phone],
] as const;

export function UserPage() {
  const { params } = useRoute();
  const { route } = useLocation();
  const messages = useMessages();
  const can = useCan();
  const userId = params.userId;
  const isNew = userId === undefined;
  const [user, setUser] = useState<User | undefined>(undefined);
  const [etag, setEtag] = useState<string | undefined>(undefined);
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [conflict, setConflict] = useState(false);
  const [groups, setGroups] = useState<Group[]>([]);
  const [history, setHistory] = useState<AuditEvent[] | undefined>(undefined);
  const mayEdit = isNew ? can('users_create') : can('users_modify');
  useTitle(isNew ? 'New user' : (user?.username ?? 'User'));

  const load = async () => {
    if (isNew) return;
    const { data, error, etag: version } = await api.getUser({ target_user: { user_id: userId } });
    if (error) return void messages.alert(sentenceOf(error));
    setUser(data.user);
    setEtag(version);
    setDraft(draftOf(data.user));
    setConflict(false);
    if (can('groups_view')) {
      const listed = await api.getGroups({});
      if (listed.data) setGroups(listed.data.groups);
    }
    if (can('audit_view')) {
      const audit = await api.getAuditEvents({ target_user_id: userId, page_size: 20 });
      if (audit.data) setHistory(audit.data.events);
    }
  };
  useEffect(() => {
    setUser(undefined);
    setDraft(EMPTY);
    void load();
  }, [userId]);

  const save = async (event: SubmitEvent) => {
    event.preventDefault();
    if (isNew) {
      const { password, ...fields } = draft;
      const { data, error } = await api.createUser({ target_user: { ...fields, ...(password ? { password } : {}) } });
      if (error) return void messages.alert(sentenceOf(error));
      messages.status(`User ${data.user.username} created.`);
      return void route(`/console/users/${data.user.user_id}`);
    }
    if (!user) return;
    const before = draftOf(user);
    const changed = Object.fromEntries(
      (Object.keys(draft) as (keyof Draft)[]).filter((field) => draft[field] !== before[field]).map((field) => [field, draft[field]]),
    );
    if (Object.keys(changed).length === 0) return void messages.status('Nothing to save.');
    const { data, error, etag: version } = await api.updateUser({ target_user: { user_id: user.user_id, ...changed } }, { ifMatch: etag });
    if (error?.code === 'version_mismatch') {
      setConflict(true);
      return void messages.alert(
        'Someone changed this user since you opened it. Nothing was saved: reload to see their change, then make yours again.',
      );
    }
    if (error) return void messages.alert(sentenceOf(error));
    setUser(data.user);
    setEtag(version);
    setDraft(draftOf(data.user));
    messages.status(`Saved ${data.user.username}.`);
  };

  if (!isNew && !user) return <p>Loading the user…</p>;
  const title = user?.username ?? 'New user';
  return (
    <section aria-labelledby="user-heading">
      <p>
        <a href="/console/users">Back to the list</a>
      </p>
      <h1 id="user-heading">{title}</h1>
      {conflict && (
        <p class="conflict">
          This user changed elsewhere.{' '}
          <button type="button" onClick={() => void load()}>
            Reload the user
          </button>
        </p>
      )}
      <form onSubmit={(event) => void save(event)} class="fields">
        <fieldset disabled={!mayEdit}>
          <legend>Details</legend>
          {TEXT_FIELDS.map(([field, label, autocomplete, lengths]) => (
            <label key={field}>
              {label}
              <input
                name={field}
                value={draft[field]}
                autocomplete={autocomplete}
                required={field === 'username'}
                {...lengthsOf(lengths)}
                onInput={(event) => setDraft({ ...draft, [field]: event.currentTarget.value })}
              />
            </label>
          ))}
          <label>
            New password
            <input
              name="password"
              type="password"
              autocomplete="new-password"
              value={draft.password}
              maxLength={LIMITS.password.maxLength}
              aria-describedby="password-help password-rules"
              onInput={(event) => setDraft({ ...draft, password: event.currentTarget.value })}
            />
          </label>
          <p id="password-help" class="help">
            {isNew ? 'Leave empty to create the user without a password.' : 'Leave empty to keep the current password.'}
          </p>
          <PasswordRules draft={draft} />
          <label class="check">
            <input
              type="checkbox"
              checked={draft.locked}
              onChange={(event) => setDraft({ ...draft, locked: event.currentTarget.checked })}
            />
            Locked
          </label>
          <label class="check">
            <input
              type="checkbox"
              checked={draft.disabled}
              onChange={(event) => setDraft({ ...draft, disabled: event.currentTarget.checked })}
            />
            Disabled
          </label>
        </fieldset>
        {mayEdit ? <button type="submit">Save</button> : <p class="help">Your key can view this user but not change it.</p>}
      </form>
      {user && <Membership user={user} groups={groups} onChanged={() => void load()} />}
      {user && <Attributes user={user} />}
      {user && can('users_delete') && <DeleteUser user={user} />}
      {history && <History events={history} />}
    </section>
  );
}

/**
 * Each rule of the password policy, met or not as the person types, in the policy's own
 * words: the service's rules themselves (lib/password-rules.ts), but for the list of commonly
 * used passwords, which stays on the service and is checked when the user is saved.
 */
function PasswordRules({ draft }: { draft: Draft }) {
  const context = { username: draft.username, firstName: draft.first_name, lastName: draft.last_name };
  const states = ruleStates(draft.password, [...COMPOSITION, ...contextRules(context)]);
  return (
    <div id="password-rules" class="rules" hidden={draft.password === ''}>
      <p>A new password must:</p>
      <ul>
        {states.map(({ wording, met }) => (
          <li key={wording} class={met ? 'met' : 'unmet'}>
            <span aria-hidden="true">{met ? '✓' : '✗'}</span> <span class="visually-hidden">{met ? 'Met: ' : 'Not met: '}</span>
            {wording}
          </li>
        ))}
      </ul>
      <p class="help">And not be a commonly used password, which the service checks when you save.</p>
    </div>
  );
}

function Membership({ user, groups, onChanged }: { user: User; groups: Group[]; onChanged: () => void }) {
  const messages = useMessages();
  const can = useCan();
  const [chosen, setChosen] = useState('');
  const memberOf = new Set(user.groups.map((group) => group.group_id));
  const others = groups.filter((group) => !memberOf.has(group.group_id));
  const change = async (groupId: string, join: boolean) => {
    const target = { target_user: { user_id: user.user_id }, target_group: { group_id: groupId } };
    const { error } = join ? await api.addUserGroup(target) : await api.removeUserGroup(target);
    if (error) return void messages.alert(sentenceOf(error));
    const name = groups.find((group) => group.group_id === groupId)?.name ?? groupId;
    messages.status(join ? `Added to ${name}.` : `Removed from ${name}.`);
    onChanged();
  };
  return (
    <section aria-labelledby="groups-heading">
      <h2 id="groups-heading">Groups</h2>
      <ul>
        {user.groups.map((group) => (
          <li key={group.group_id}>
            {group.name ?? group.group_id}{' '}
            {can('groups_modify') && (
              <button type="button" class="quiet" onClick={() => void change(group.group_id, false)}>
                Remove from {group.name ?? 'this group'}
              </button>
            )}
          </li>
        ))}
      </ul>
      {can('groups_modify') && others.length > 0 && (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            if (chosen) void change(chosen, true);
          }}
        >
          <label>
            Add to group
            <select value={chosen} onChange={(event) => setChosen(event.currentTarget.value)}>
              <option value="">Choose a group</option>
              {others.map((group) => (
                <option key={group.group_id} value={group.group_id}>
                  {group.name}
                </option>
              ))}
            </select>
          </label>
          <button type="submit">Add</button>
        </form>
      )}
    </section>
  );
}

type UserAttributes = components['schemas']['UserAttributes'];
/** What a person changes of the attributes: never their ids. */
type AttributeChanges = Omit<UserAttributes, 'user_attributes_id' | 'user_id'>;

const ATTRIBUTE_SWITCHES = [
  ['show_tips', 'Show tips'],
  ['auto_login_kasm', 'Log in automatically'],
  ['toggle_control_panel', 'Show the control panel'],
  ['chat_sfx', 'Chat sounds'],
] as const;

/** The user's attributes (Kasm's): theme, language, time zone, SSH key and the switches; each refusal names the field. */
function Attributes({ user }: { user: User }) {
  const messages = useMessages();
  const can = useCan();
  const [attributes, setAttributes] = useState<UserAttributes | undefined>(undefined);
  const [changes, setChanges] = useState<Partial<AttributeChanges>>({});
  useEffect(() => {
    void api.getAttributes({ target_user: { user_id: user.user_id } }).then(({ data }) => setAttributes(data?.user_attributes));
  }, [user.user_id]);
  if (!attributes) return null;
  const shown = { ...attributes, ...changes };
  const save = async (event: SubmitEvent) => {
    event.preventDefault();
    if (Object.keys(changes).length === 0) return void messages.status('Nothing to save.');
    const { data, error } = await api.updateUserAttributes({ target_user_attributes: { user_id: user.user_id, ...changes } });
    if (error) return void messages.alert(sentenceOf(error));
    setAttributes(data.user_attributes);
    setChanges({});
    messages.status('Attributes saved.');
  };
  return (
    <section aria-labelledby="attributes-heading">
      <h2 id="attributes-heading">Attributes</h2>
      <form onSubmit={(event) => void save(event)} class="fields">
        <fieldset disabled={!can('users_modify')}>
          <legend>Preferences</legend>
          <label>
            Theme
            <select
              value={shown.theme}
              onChange={(event) => setChanges({ ...changes, theme: event.currentTarget.value as AttributeChanges['theme'] })}
            >
              <option value="Light">Light</option>
              <option value="Dark">Dark</option>
              <option value="Auto">Auto</option>
            </select>
          </label>
          <label>
            Preferred language
            <input
              value={shown.preferred_language}
              onInput={(event) => setChanges({ ...changes, preferred_language: event.currentTarget.value })}
            />
          </label>
          <label>
            Preferred time zone
            <input
              value={shown.preferred_timezone}
              onInput={(event) => setChanges({ ...changes, preferred_timezone: event.currentTarget.value })}
            />
          </label>
          <label>
            SSH public key
            <textarea
              rows={3}
              value={shown.ssh_public_key}
              onInput={(event) => setChanges({ ...changes, ssh_public_key: event.currentTarget.value })}
            />
          </label>
          {ATTRIBUTE_SWITCHES.map(([field, label]) => (
            <label class="check" key={field}>
              <input
                type="checkbox"
                checked={shown[field] === true}
                onChange={(event) => setChanges({ ...changes, [field]: event.currentTarget.checked })}
              />
              {label}
            </label>
          ))}
        </fieldset>
        {can('users_modify') && <button type="submit">Update attributes</button>}
      </form>
    </section>
  );
}

function DeleteUser({ user }: { user: User }) {
  const messages = useMessages();
  const { route } = useLocation();
  const dialog = useRef<HTMLDialogElement>(null);
  const [typed, setTyped] = useState('');
  const remove = async () => {
    const { error } = await api.deleteUser({ target_user: { user_id: user.user_id } });
    dialog.current?.close();
    if (error) return void messages.alert(sentenceOf(error));
    messages.status(`User ${user.username} deleted.`);
    route('/console/users');
  };
  return (
    <section aria-labelledby="delete-heading">
      <h2 id="delete-heading">Delete</h2>
      <button type="button" class="danger" onClick={() => dialog.current?.showModal()}>
        Delete user
      </button>
      <dialog ref={dialog} aria-labelledby="delete-dialog-heading">
        <form
          method="dialog"
          onSubmit={(event) => {
            event.preventDefault();
            void remove();
          }}
        >
          <h2 id="delete-dialog-heading">Delete {user.username}?</h2>
          <p>The user, their groups and their attributes go for good. Type the user's name as shown above to confirm.</p>
          <label>
            Confirm by typing the name
            <input value={typed} autocomplete="off" onInput={(event) => setTyped(event.currentTarget.value)} />
          </label>
          <div class="actions">
            <button type="button" class="quiet" onClick={() => dialog.current?.close()}>
              Cancel
            </button>
            <button type="submit" class="danger" disabled={typed.trim().toLowerCase() !== user.username}>
              Delete
            </button>
          </div>
        </form>
      </dialog>
    </section>
  );
}

function History({ events }: { events: AuditEvent[] }) {
  return (
    <section aria-labelledby="history-heading">
      <h2 id="history-heading">History</h2>
      {events.length === 0 ? (
        <p>No changes recorded.</p>
      ) : (
        <RecordTable caption="Changes to this user, newest first" columns={['When', 'Change', 'By', 'Fields']}>
          {events.map((event) => (
            <tr key={event.event_id}>
              <td>{new Date(event.time).toLocaleString()}</td>
              <td>{event.operation}</td>
              <td>{event.actor}</td>
              <td>{event.changed_fields.join(', ')}</td>
            </tr>
          ))}
        </RecordTable>
      )}
    </section>
  );
}
