/** Groups: listed, made, renamed and deleted; the system group is kept, and the page says why. */
import { useEffect, useState } from 'preact/hooks';
import type { Group } from 'workspace-user-api/client';
import { api, sentenceOf } from '../api.js';
import { lengthsOf, LIMITS } from '../limits.js';
import { useMessages } from '../messages.js';
import { useTitle } from '../title.js';
import { useCan } from '../session.js';
import { RecordTable } from '../record-table.js';

export function Groups() {
  useTitle('Groups');
  const messages = useMessages();
  const can = useCan();
  const [groups, setGroups] = useState<Group[] | undefined>(undefined);
  const [name, setName] = useState('');
  const load = async () => {
    const { data, error } = await api.getGroups({});
    if (error) return void messages.alert(sentenceOf(error));
    setGroups(data.groups);
  };
  useEffect(() => void load(), []);

  const create = async (event: SubmitEvent) => {
    event.preventDefault();
    const { data, error } = await api.createGroup({ target_group: { name } });
    if (error) return void messages.alert(sentenceOf(error));
    setName('');
    messages.status(`Group ${data.group.name} created.`);
    await load();
  };
  const rename = async (group: Group) => {
    const name = globalThis.prompt(`A new name for ${group.name}:`, group.name)?.trim();
    if (!name || name === group.name) return;
    const { data, error } = await api.updateGroup({ target_group: { group_id: group.group_id, name } });
    if (error) return void messages.alert(sentenceOf(error));
    messages.status(`Group ${group.name} is now ${data.group.name}.`);
    await load();
  };
  const remove = async (group: Group) => {
    if (!globalThis.confirm(`Delete the group ${group.name}? Its members stay, without it.`)) return;
    const { error } = await api.deleteGroup({ target_group: { group_id: group.group_id } });
    if (error) return void messages.alert(sentenceOf(error));
    messages.status(`Group ${group.name} deleted.`);
    await load();
  };

  return (
    <section aria-labelledby="groups-heading">
      <h1 id="groups-heading">Groups</h1>
      {can('groups_create') && (
        <form onSubmit={(event) => void create(event)} class="inline">
          <label>
            Group name
            <input value={name} required {...lengthsOf(LIMITS.groupName)} onInput={(event) => setName(event.currentTarget.value)} />
          </label>
          <button type="submit">Create group</button>
        </form>
      )}
      {groups === undefined ? (
        <p>Loading groups…</p>
      ) : (
        <RecordTable caption="Groups" columns={['Name', 'Description']} actions>
          {groups.map((group) => (
            <tr key={group.group_id}>
              <td>{group.name}</td>
              <td>{group.is_system ? 'System group: every user is in it, and it cannot be renamed or deleted.' : group.description}</td>
              <td class="actions">
                {/* "Members", not the group's name: a link named "All Users" would answer for the navigation's "Users". */}
                <a href={`/console/users?group=${group.group_id}`}>Members</a>
                {can('groups_modify') && !group.is_system && (
                  <button type="button" class="quiet" onClick={() => void rename(group)}>
                    Rename {group.name}
                  </button>
                )}
                {can('groups_delete') && !group.is_system && (
                  <button type="button" class="quiet" onClick={() => void remove(group)}>
                    Delete {group.name}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </RecordTable>
      )}
    </section>
  );
}
